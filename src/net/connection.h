// A client socket with its input and output buffers. Knows bytes, not commands: parsing and
// execution happen in the server, so this part can move to I/O threads.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

class TlsSession;

// Bytes the output sends from where they are instead of from a copy in the output buffer (a
// large string value): `release(owner)` runs once they are sent or the connection closes.
struct OutputRef {
  const char* data;
  size_t size;
  void (*release)(void* owner);
  void* owner;
};

class Connection {
 public:
  explicit Connection(int fd) : fd_(fd) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd() const { return fd_; }

  // Makes the connection speak TLS through session (owned from now on; net/tls_connection.h).
  // Read and Flush then move plaintext through it; the plain path pays one branch.
  void SetTls(TlsSession* session);
  TlsSession* tls() const { return tls_; }
  // TLS: the last read waits for the socket to take bytes (handshake, key update): the caller
  // watches writability and reads again when it comes.
  bool ReadWantsWritable() const;

  enum class ReadResult { kData, kWouldBlock, kClosed, kError };
  // Reads what the socket has into the input buffer, after making at least `room` bytes of
  // space (so a big bulk argument is read in one piece instead of 16 KB at a time).
  ReadResult Read(size_t room);

  // Unconsumed input, always contiguous and at the front of what the parser sees.
  const char* InputData() const { return in_.get() + in_start_; }
  size_t InputSize() const { return in_end_ - in_start_; }
  void ConsumeInput(size_t n);
  // Bytes held by the input buffer (CLIENT LIST qbuf / qbuf-free).
  size_t InputCapacity() const { return in_cap_ + (big_ != nullptr ? big_len_ : 0); }
  // Frees the input buffer if it holds no unconsumed bytes (idle clients).
  void ReleaseInputIfEmpty();
  // Frees an output buffer kept past its drain (see OutputDrained) if nothing waits in it.
  void ReleaseOutputIfEmpty();
  // Appends bytes as if they had been read from the socket (in-process tests).
  void AppendInput(const char* data, size_t n);

  // Replies are appended here by the ReplyBuilder.
  std::string* Output() { return &out_; }
  // Queues ref's bytes as if appended to Output() now; they are sent from where they are.
  void AppendRef(const OutputRef& ref);
  // Bytes queued since the output was last drained, referenced ones included: Output()'s
  // size plus RefBytes().
  size_t RefBytes() const { return ref_bytes_; }
  size_t PendingOutput() const { return out_.size() + ref_bytes_ - out_sent_ - ref_sent_; }
  // Memory the output holds: the buffer, and referenced bytes not yet sent.
  size_t OutputCapacity() const { return out_.capacity() + ref_bytes_ - ref_sent_; }
  enum class WriteResult { kDone, kPending, kError };
  WriteResult Flush();

  // Big arguments. A bulk argument of kBigArgMin bytes or more whose bytes have not all
  // arrived is read into an allocation of its own (ZMallocValue, with kBigArgHeadroom bytes
  // free in front for the string value's header), so SET can keep that allocation as the value
  // instead of copying it (Valkey does this from 32 KB). BeginBigArg moves the bytes of the
  // argument already read (from `at`, an offset into InputData(), to the end of the input)
  // there; Read then fills it before anything else. `len` counts the CRLF. So a stream of
  // values leaves no partial value in the input to slide or grow it for: the input stays
  // small and kept. The read that completes a big argument takes what follows it in the same
  // call: from kDirectArgMin, at most kAfterBigArgRead bytes (and so does the next read when
  // nothing followed), so the next command's header arrives with little of its value, which
  // goes to a big argument of its own too, read straight into place by the kernel; below it,
  // up to kAfterMidArgRead bytes, so a pipeline of mid-size values costs one read per few
  // values (a system call costs more than copying such a value again out of a warm input).
  static constexpr size_t kBigArgMin = 8 * 1024;
  static constexpr size_t kDirectArgMin = 32 * 1024;
  static constexpr size_t kAfterBigArgRead = 4 * 1024;
  static constexpr size_t kAfterMidArgRead = 112 * 1024;
  static constexpr size_t kBigArgHeadroom = 8;
  void BeginBigArg(size_t at, size_t len);
  bool HasBigArg() const { return big_ != nullptr; }
  bool BigArgComplete() const { return big_ != nullptr && big_fill_ == big_len_; }
  bool BigArgArriving() const { return big_ != nullptr && big_fill_ < big_len_; }
  const char* BigArgData() const { return big_ + kBigArgHeadroom; }
  // The allocation, handed over (the caller frees it with ZFree) when `arg` is the big
  // argument; nullptr otherwise. *size: the allocation's size.
  void* TakeBigArg(std::string_view arg, size_t* size);
  // Frees the big argument (its command is done with it).
  void ReleaseBigArg() {
    if (big_ != nullptr) [[unlikely]] FreeBigArg();
  }
  // Puts the big argument's bytes back into the input where they were, so its command can be
  // parsed again from the input (a paused client).
  void ReturnBigArgToInput();
  // The big argument's bytes with its CRLF, 0 without one.
  size_t BigArgSize() const { return big_ != nullptr ? big_len_ : 0; }
  // Bytes received and not yet consumed, a big argument's included (client-query-buffer-limit).
  size_t QueryBytes() const { return InputSize() + (big_ != nullptr ? big_fill_ : 0); }

  uint64_t BytesRead() const { return bytes_read_; }
  // Unconsumed input bytes copied when the buffer slid or grew (what big pipelined arguments
  // cost beyond their one read).
  uint64_t InputBytesMoved() const { return input_moved_; }
  uint64_t BytesWritten() const { return bytes_written_; }

 private:
  // Makes room for n more bytes after in_end_, moving unconsumed bytes to the front first.
  void ReserveInput(size_t n);
  void FreeBigArg();
  ReadResult ReadTls();
  ReadResult ReadBigArg();  // Read while a big argument is still arriving
  ReadResult ReadFailed(ssize_t n);
  WriteResult FlushTls();
  // Everything was written: the buffer is reset (and shrunk when big).
  WriteResult OutputDrained();
  // With references queued: the unsent output as up to max pieces, in order; returns the count.
  int PendingPieces(iovec* iov, int max) const;
  // Marks n more bytes sent, releasing the references sent completely.
  void AdvanceSent(size_t n);
  WriteResult FlushPieces();

  // A reference and the size Output() had when it was queued: its bytes go there.
  struct QueuedRef {
    size_t at;
    OutputRef ref;
  };

  int fd_;
  TlsSession* tls_ = nullptr;  // a raw pointer: the type stays incomplete for plain users
  // A raw buffer rather than std::string: growing it must not zero-fill the bytes recv()
  // is about to overwrite (16 KB per read, more for big arguments).
  std::unique_ptr<char[]> in_;
  size_t in_cap_ = 0;
  size_t in_start_ = 0;  // first unconsumed byte
  size_t in_end_ = 0;    // one past the last byte read
  std::string out_;
  size_t out_sent_ = 0;  // bytes of out_ sent
  std::vector<QueuedRef> refs_;
  size_t ref_bytes_ = 0;  // bytes of every queued reference
  size_t ref_sent_ = 0;   // bytes of references sent
  size_t ref_next_ = 0;   // first reference not completely sent
  size_t ref_done_ = 0;   // bytes of refs_[ref_next_] sent
  char* big_ = nullptr;  // kBigArgHeadroom bytes, then the big argument and its CRLF
  size_t big_len_ = 0;   // the argument's bytes with the CRLF
  size_t big_fill_ = 0;  // of them, received
  size_t big_at_ = 0;    // offset from InputData() where its bytes were in the stream
  bool after_big_arg_ = false;  // the next input read is capped (kAfterBigArgRead)
  uint64_t bytes_read_ = 0;
  uint64_t input_moved_ = 0;
  uint64_t bytes_written_ = 0;
};

}  // namespace vireo
