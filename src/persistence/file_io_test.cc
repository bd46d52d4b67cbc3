// WriteFileAtomically: the file is replaced whole, durable or not, and no temp file stays.
// WritebackPacer: what was written two steps back is on disk, not dirty in the page cache.
#include "persistence/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace vireo {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int Entries(const std::string& dir) {
  int n = 0;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

TEST(FileIoTest, ReplacesTheFileDurablyOrNot) {
  char dir[] = "/tmp/vireo-file-io-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/nodes.conf";
  std::string err;
  ASSERT_TRUE(WriteFileAtomically(path, "first\n", &err)) << err;
  EXPECT_EQ(Read(path), "first\n");
  ASSERT_TRUE(WriteFileAtomically(path, "second\n", &err, /*durable=*/false)) << err;
  EXPECT_EQ(Read(path), "second\n");
  EXPECT_EQ(Entries(dir), 1);  // the temp file was renamed over it
  EXPECT_FALSE(WriteFileAtomically(std::string(dir) + "/missing/x", "x", &err, false));
  EXPECT_NE(err.find("Can't open"), std::string::npos);
  unlink(path.c_str());
  rmdir(dir);
}

// Dirty pages of the file's first `len` bytes, by cachestat(2) (Linux 6.5+); -1 where the
// kernel lacks it.
int64_t DirtyPages(int fd, uint64_t len) {
  struct {
    uint64_t off, len;
  } range{0, len};
  struct {
    uint64_t cache, dirty, writeback, evicted, recently_evicted;
  } stat{};
  constexpr long kCachestat = 451;
  if (syscall(kCachestat, fd, &range, &stat, 0) != 0) return -1;
  return static_cast<int64_t>(stat.dirty + stat.writeback);
}

TEST(FileIoTest, WritebackPacerPutsWhatIsTwoStepsBackOnDisk) {
  char dir[] = "/tmp/vireo-file-io-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/base";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  struct statfs fs;
  const bool tmpfs = fstatfs(fd, &fs) == 0 && fs.f_type == 0x01021994;  // no writeback there
  constexpr size_t kStep = 1u << 20;
  WritebackPacer pacer(kStep);
  const std::string chunk(256u << 10, 'x');
  for (int i = 0; i < 16; ++i) {  // 4 MB: steps end at 1, 2, 3 and 4 MB
    ASSERT_TRUE(WriteAll(fd, chunk.data(), chunk.size()));
    ASSERT_TRUE(pacer.Wrote(fd, chunk.size()));
  }
  const int64_t dirty = DirtyPages(fd, 3 * kStep);
  close(fd);
  struct stat sb;
  ASSERT_EQ(stat(path.c_str(), &sb), 0);
  EXPECT_EQ(sb.st_size, 16 * static_cast<off_t>(chunk.size()));
  unlink(path.c_str());
  rmdir(dir);
  if (tmpfs || dirty < 0) GTEST_SKIP() << "no writeback to see here (tmpfs or no cachestat)";
  EXPECT_EQ(dirty, 0);  // the first 3 MB: waited for at the steps ending at 3 and 4 MB
}

// Where sync_file_range does not apply (a pipe) the pacer goes on without an error.
TEST(FileIoTest, WritebackPacerGoesOnWhereThereIsNoWriteback) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  WritebackPacer pacer(4096);
  const std::string chunk(4096, 'x');
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(WriteAll(fds[1], chunk.data(), chunk.size()));
    EXPECT_TRUE(pacer.Wrote(fds[1], chunk.size()));
  }
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace vireo
