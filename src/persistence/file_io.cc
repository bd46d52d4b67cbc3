#include "persistence/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vireo {

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool WriteFileAtomically(const std::string& path, const std::string& text, std::string* error,
                         bool durable) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string tmp = path + ".tmp-" + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "Can't open " + tmp + ": " + strerror(errno);
    return false;
  }
  bool ok = WriteAll(fd, text.data(), text.size()) && (!durable || fsync(fd) == 0);
  int saved = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    unlink(tmp.c_str());
    *error = "Error writing " + path + ": " + strerror(saved);
    return false;
  }
  if (!durable) return true;
  // The rename is durable only once the directory entry is.
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return true;
}

bool WritebackPacer::Wrote(int fd, size_t n) {
  written_ += static_cast<off_t>(n);
  if (written_ - started_ < step_) return true;
  if (sync_file_range(fd, started_, written_ - started_, SYNC_FILE_RANGE_WRITE) != 0) {
    // A file system without it (EINVAL/ESPIPE, say): an fsync paces as well, at its cost.
    if (errno != EINVAL && errno != ESPIPE && errno != ENOSYS) return false;
    started_ = waited_ = written_;
    return fdatasync(fd) == 0 || errno == EINVAL;
  }
  if (started_ > waited_ &&
      sync_file_range(fd, waited_, started_ - waited_,
                      SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                          SYNC_FILE_RANGE_WAIT_AFTER) != 0) {
    return false;
  }
  waited_ = started_;
  started_ = written_;
  return true;
}

}  // namespace vireo
