// WriteFileAtomically: the file is replaced whole, durable or not, and no temp file stays.
#include "persistence/file_io.h"

#include <dirent.h>
#include <unistd.h>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace vireo
