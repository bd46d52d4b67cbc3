#include "net/connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace vireo {
namespace {

constexpr size_t kReadChunk = 16 * 1024;
// Output buffers larger than this are released once drained so an idle client does not keep
// a big reply's memory.
constexpr size_t kKeepOutputCapacity = 64 * 1024;

}  // namespace

Connection::~Connection() {
  if (fd_ >= 0) close(fd_);
}

Connection::ReadResult Connection::Read(size_t hint) {
  // Move unconsumed bytes to the front before growing, so the buffer stays compact.
  if (in_start_ > 0 && (in_start_ == in_.size() || in_start_ >= in_.size() / 2)) {
    in_.erase(0, in_start_);
    in_start_ = 0;
  }
  size_t room = hint > kReadChunk ? hint : kReadChunk;
  size_t old = in_.size();
  // resize value-initializes; the cost is small next to the syscall and keeps this simple.
  in_.resize(old + room);
  ssize_t n = recv(fd_, in_.data() + old, room, 0);
  if (n > 0) {
    in_.resize(old + static_cast<size_t>(n));
    bytes_read_ += static_cast<uint64_t>(n);
    return ReadResult::kData;
  }
  in_.resize(old);
  if (n == 0) return ReadResult::kClosed;
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return ReadResult::kWouldBlock;
  return ReadResult::kError;
}

void Connection::ConsumeInput(size_t n) {
  in_start_ += n;
  if (in_start_ == in_.size()) {
    in_.clear();
    in_start_ = 0;
    if (in_.capacity() > 4 * kReadChunk) in_.shrink_to_fit();
  }
}

Connection::WriteResult Connection::Flush() {
  while (out_sent_ < out_.size()) {
    ssize_t n = send(fd_, out_.data() + out_sent_, out_.size() - out_sent_, MSG_NOSIGNAL);
    if (n > 0) {
      out_sent_ += static_cast<size_t>(n);
      bytes_written_ += static_cast<uint64_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return WriteResult::kPending;
    if (n < 0 && errno == EINTR) continue;
    return WriteResult::kError;
  }
  out_.clear();
  out_sent_ = 0;
  if (out_.capacity() > kKeepOutputCapacity) out_.shrink_to_fit();
  return WriteResult::kDone;
}

}  // namespace vireo
