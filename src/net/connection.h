// A client socket with its input and output buffers. Knows bytes, not commands: parsing and
// execution happen in the server, so this part can move to I/O threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vireo {

class Connection {
 public:
  explicit Connection(int fd) : fd_(fd) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd() const { return fd_; }

  enum class ReadResult { kData, kWouldBlock, kClosed, kError };
  // Reads what the socket has into the input buffer, at least `hint` bytes of room
  // (big bulk arguments are read in one piece).
  ReadResult Read(size_t hint);

  // Unconsumed input.
  const char* InputData() const { return in_.data() + in_start_; }
  size_t InputSize() const { return in_.size() - in_start_; }
  void ConsumeInput(size_t n);
  // Bytes held by the input buffer (CLIENT LIST qbuf / qbuf-free).
  size_t InputCapacity() const { return in_.capacity(); }

  // Replies are appended here by the ReplyBuilder.
  std::string* Output() { return &out_; }
  size_t PendingOutput() const { return out_.size() - out_sent_; }
  enum class WriteResult { kDone, kPending, kError };
  WriteResult Flush();

  uint64_t BytesRead() const { return bytes_read_; }
  uint64_t BytesWritten() const { return bytes_written_; }

 private:
  int fd_;
  std::string in_;
  size_t in_start_ = 0;
  std::string out_;
  size_t out_sent_ = 0;
  uint64_t bytes_read_ = 0;
  uint64_t bytes_written_ = 0;
};

}  // namespace vireo
