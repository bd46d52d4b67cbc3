#include "net/connection.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net/raw_syscalls.h"
#include "net/tls_connection.h"
#include "store/memory.h"

namespace vireo {
namespace {

constexpr size_t kReadChunk = 16 * 1024;
// Input buffers larger than this are released once drained, so a client that once sent a
// long pipeline does not keep its memory; up to it they are kept, which a pipeline of
// mid-size values read after a big argument (Connection::kAfterMidArgRead) needs.
constexpr size_t kKeepInputCapacity = 8 * kReadChunk;
// A stream of commands with values below Connection::kBigArgMin (SET of 4 KB values,
// pipelined) leaves a partial command at the end of nearly every read. Sliding it to the front before the next read copied about one
// value per command; the buffer grows instead, up to this, while the unconsumed bytes are more
// than an eighth of it, so the slides that remain move a small part of what is read.
constexpr size_t kGrowRatherThanSlide = 16 * kReadChunk;
// Output buffers larger than this are released once drained so an idle client does not keep
// a big reply's memory; unless the drain used at least half of one (up to
// kKeepBusyOutputCapacity): a client whose replies fill it turn after turn keeps it, since
// freeing and regrowing it every turn faulted its pages in again (GET -P 16 of 16 KB values
// copied on 4 KB pages: 0.21 faults per request). Server::Cron releases a kept one once its
// client has been idle for a while (ReleaseOutputIfEmpty).
constexpr size_t kKeepOutputCapacity = 64 * 1024;
constexpr size_t kKeepBusyOutputCapacity = 1024 * 1024;

}  // namespace

Connection::~Connection() {
  ReleaseBigArg();
  for (size_t i = ref_next_; i < refs_.size(); ++i) refs_[i].ref.release(refs_[i].ref.owner);
  delete tls_;  // before the socket closes: it may send close_notify
  if (fd_ >= 0) close(fd_);
}

void Connection::SetTls(TlsSession* session) {
  delete tls_;
  tls_ = session;
}

bool Connection::ReadWantsWritable() const { return tls_ != nullptr && tls_->read_wants_write(); }

void Connection::ReserveInput(size_t n) {
  const size_t used = in_end_ - in_start_;
  if (in_cap_ - in_end_ >= n) return;
  // Sliding the unconsumed bytes to the front is enough when the space is mostly consumed
  // and they are few (or the buffer is as large as it grows for this).
  const bool few = used <= in_cap_ / 8 || in_cap_ >= kGrowRatherThanSlide;
  if (in_start_ > 0 && in_cap_ - used >= n && few) {
    memmove(in_.get(), in_.get() + in_start_, used);
    input_moved_ += used;
    in_start_ = 0;
    in_end_ = used;
    return;
  }
  // Grow geometrically so a long line arriving in small pieces stays linear; twice as large
  // when growing replaces a slide (above).
  size_t cap = std::max(used + n, few ? in_cap_ + in_cap_ / 2 : 2 * in_cap_);
  auto grown = std::make_unique_for_overwrite<char[]>(cap);
  if (used > 0) memcpy(grown.get(), in_.get() + in_start_, used);
  input_moved_ += used;
  in_ = std::move(grown);
  in_cap_ = cap;
  in_start_ = 0;
  in_end_ = used;
}

void Connection::BeginBigArg(size_t at, size_t len) {
  big_ = static_cast<char*>(ZMallocValue(kBigArgHeadroom + len));
  big_len_ = len;
  big_at_ = at;
  big_fill_ = std::min(len, InputSize() - at);
  memcpy(big_ + kBigArgHeadroom, InputData() + at, big_fill_);
  in_end_ -= InputSize() - at;
}

void* Connection::TakeBigArg(std::string_view arg, size_t* size) {
  if (!BigArgComplete() || arg.data() != BigArgData() || arg.size() + 2 != big_len_) {
    return nullptr;
  }
  void* p = big_;
  *size = kBigArgHeadroom + big_len_;
  big_ = nullptr;
  big_len_ = big_fill_ = big_at_ = 0;
  return p;
}

void Connection::FreeBigArg() {
  ZFree(big_);
  big_ = nullptr;
  big_len_ = big_fill_ = big_at_ = 0;
}

void Connection::ReturnBigArgToInput() {
  if (big_ == nullptr) return;
  // The input holds the command up to the argument, then what followed the argument.
  const size_t tail = InputSize() - big_at_;
  ReserveInput(big_fill_);
  char* at = in_.get() + in_start_ + big_at_;
  memmove(at + big_fill_, at, tail);
  memcpy(at, big_ + kBigArgHeadroom, big_fill_);
  in_end_ += big_fill_;
  ReleaseBigArg();
}

Connection::ReadResult Connection::Read(size_t room) {
  if (big_ != nullptr && big_fill_ < big_len_) [[unlikely]] return ReadBigArg();
  if (in_start_ == in_end_) in_start_ = in_end_ = 0;
  ReserveInput(std::max(room, kReadChunk));
  if (tls_ != nullptr) [[unlikely]] return ReadTls();
  size_t space = in_cap_ - in_end_;
  if (after_big_arg_) [[unlikely]] space = std::min(space, std::max(room, kAfterBigArgRead));
  ssize_t n = RawRecv(fd_, in_.get() + in_end_, space, 0);
  if (n <= 0) return ReadFailed(n);
  in_end_ += static_cast<size_t>(n);
  after_big_arg_ = false;
  bytes_read_ += static_cast<uint64_t>(n);
  return ReadResult::kData;
}

Connection::ReadResult Connection::ReadBigArg() {
  // The argument's remaining bytes and, in the same call, what follows it into the input: at
  // most kAfterBigArgRead bytes from kDirectArgMin (a stream of such values costs one read
  // each, straight into place), up to kAfterMidArgRead below it (one read per several).
  if (in_start_ == in_end_) in_start_ = in_end_ = 0;
  const bool direct = big_len_ >= kDirectArgMin;
  const size_t after = direct ? kAfterBigArgRead : kAfterMidArgRead;
  ReserveInput(after);
  const size_t want = big_len_ - big_fill_;
  iovec iov[2] = {{big_ + kBigArgHeadroom + big_fill_, want},
                  {in_.get() + in_end_, std::min(in_cap_ - in_end_, after)}};
  msghdr msg = {};
  msg.msg_iov = iov;
  msg.msg_iovlen = 2;
  ssize_t n = RawRecvmsg(fd_, &msg, 0);
  if (n <= 0) return ReadFailed(n);
  const size_t to_big = std::min(static_cast<size_t>(n), want);
  big_fill_ += to_big;
  in_end_ += static_cast<size_t>(n) - to_big;
  bytes_read_ += static_cast<uint64_t>(n);
  // Completed with nothing after it yet: the next read is the short one.
  after_big_arg_ = direct && big_fill_ == big_len_ && static_cast<size_t>(n) == to_big;
  return ReadResult::kData;
}

Connection::ReadResult Connection::ReadFailed(ssize_t n) {
  if (n == 0) return ReadResult::kClosed;
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return ReadResult::kWouldBlock;
  return ReadResult::kError;
}

void Connection::AppendInput(const char* data, size_t n) {
  ReserveInput(n);
  memcpy(in_.get() + in_end_, data, n);
  in_end_ += n;
}

void Connection::ConsumeInput(size_t n) {
  in_start_ += n;
  if (in_start_ == in_end_) {
    in_start_ = in_end_ = 0;
    if (in_cap_ > kKeepInputCapacity) {
      in_.reset();
      in_cap_ = 0;
    }
  }
}

void Connection::ReleaseInputIfEmpty() {
  if (in_start_ != in_end_ || in_cap_ == 0) return;
  in_.reset();
  in_cap_ = 0;
  in_start_ = in_end_ = 0;
}

Connection::ReadResult Connection::ReadTls() {
  // Fills the free space as recv() would; past its end, takes what the library still holds
  // decrypted (a record larger than the space), so no plaintext ever waits where epoll cannot
  // see it. Raw bytes of an incomplete record wait in the library for the rest, which epoll
  // announces. An end or error after some bytes is seen on the next read.
  size_t total = 0;
  for (;;) {
    if (in_end_ == in_cap_) {
      const size_t pending = tls_->Pending();
      if (pending == 0) return ReadResult::kData;
      ReserveInput(pending);
    }
    size_t got = 0;
    const TlsSession::Status s = tls_->Read(in_.get() + in_end_, in_cap_ - in_end_, &got);
    in_end_ += got;
    bytes_read_ += got;
    total += got;
    if (s == TlsSession::Status::kOk) continue;
    if (total > 0) return ReadResult::kData;
    if (s == TlsSession::Status::kWantRead || s == TlsSession::Status::kWantWrite) {
      return ReadResult::kWouldBlock;
    }
    return s == TlsSession::Status::kClosed ? ReadResult::kClosed : ReadResult::kError;
  }
}

void Connection::AppendRef(const OutputRef& ref) {
  // Never empty: a piece of no bytes would make a send of nothing look like a closed socket.
  if (ref.size == 0) {
    ref.release(ref.owner);
    return;
  }
  refs_.push_back({out_.size(), ref});
  ref_bytes_ += ref.size;
}

int Connection::PendingPieces(iovec* iov, int max) const {
  int n = 0;
  size_t pos = out_sent_;
  size_t r = ref_next_;
  size_t skip = ref_done_;  // of refs_[r], already sent
  while (n < max) {
    if (r < refs_.size() && refs_[r].at == pos) {
      const OutputRef& ref = refs_[r].ref;
      iov[n++] = {const_cast<char*>(ref.data) + skip, ref.size - skip};
      skip = 0;
      ++r;
      continue;
    }
    const size_t end = r < refs_.size() ? refs_[r].at : out_.size();
    if (end == pos) break;  // only when no reference is left: everything is listed
    iov[n++] = {const_cast<char*>(out_.data()) + pos, end - pos};
    pos = end;
  }
  return n;
}

void Connection::AdvanceSent(size_t n) {
  bytes_written_ += n;
  while (n > 0) {
    if (ref_next_ < refs_.size() && refs_[ref_next_].at == out_sent_) {
      const OutputRef& ref = refs_[ref_next_].ref;
      const size_t take = std::min(n, ref.size - ref_done_);
      ref_done_ += take;
      ref_sent_ += take;
      n -= take;
      if (ref_done_ == ref.size) {
        ref.release(ref.owner);
        ++ref_next_;
        ref_done_ = 0;
      }
      continue;
    }
    const size_t end = ref_next_ < refs_.size() ? refs_[ref_next_].at : out_.size();
    const size_t take = std::min(n, end - out_sent_);
    out_sent_ += take;
    n -= take;
  }
}

Connection::WriteResult Connection::FlushPieces() {
  // Valkey's iovec cap: enough pieces for a pipeline of large replies in one call.
  constexpr int kMaxPieces = 64;
  iovec iov[kMaxPieces];
  for (;;) {
    const int count = PendingPieces(iov, tls_ != nullptr ? 1 : kMaxPieces);
    if (count == 0) return OutputDrained();
    if (tls_ != nullptr) [[unlikely]] {
      size_t put = 0;
      const TlsSession::Status s = tls_->Write(static_cast<const char*>(iov[0].iov_base),
                                               iov[0].iov_len, &put);
      AdvanceSent(put);
      if (s == TlsSession::Status::kOk) continue;
      if (s == TlsSession::Status::kWantWrite) return WriteResult::kPending;
      if (s == TlsSession::Status::kWantRead) return WriteResult::kDone;  // as FlushTls
      return WriteResult::kError;
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<size_t>(count);
    const ssize_t n = RawSendmsg(fd_, &msg, MSG_NOSIGNAL);
    if (n > 0) {
      AdvanceSent(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return WriteResult::kPending;
    if (n < 0 && errno == EINTR) continue;
    return WriteResult::kError;
  }
}

Connection::WriteResult Connection::FlushTls() {
  while (out_sent_ < out_.size()) {
    size_t put = 0;
    const TlsSession::Status s =
        tls_->Write(out_.data() + out_sent_, out_.size() - out_sent_, &put);
    out_sent_ += put;
    bytes_written_ += put;
    if (s == TlsSession::Status::kOk) continue;
    if (s == TlsSession::Status::kWantWrite) return WriteResult::kPending;
    // Only a handshake still waiting for the peer makes a write wait for a read (there is no
    // renegotiation): the bytes stay queued, and the client's next input sends them.
    if (s == TlsSession::Status::kWantRead) return WriteResult::kDone;
    return WriteResult::kError;
  }
  return OutputDrained();
}

Connection::WriteResult Connection::OutputDrained() {
  const size_t used = out_.size();
  out_.clear();
  out_sent_ = 0;
  if (!refs_.empty()) {
    refs_.clear();
    ref_bytes_ = ref_sent_ = ref_next_ = ref_done_ = 0;
  }
  const size_t cap = out_.capacity();
  if (cap > kKeepOutputCapacity && (used < cap / 2 || cap > kKeepBusyOutputCapacity)) {
    out_.shrink_to_fit();
  }
  return WriteResult::kDone;
}

void Connection::ReleaseOutputIfEmpty() {
  if (!out_.empty() || !refs_.empty() || out_.capacity() <= kKeepOutputCapacity) return;
  std::string().swap(out_);
}

Connection::WriteResult Connection::Flush() {
  if (!refs_.empty()) [[unlikely]] return FlushPieces();
  if (tls_ != nullptr) [[unlikely]] return FlushTls();
  while (out_sent_ < out_.size()) {
    ssize_t n = RawSend(fd_, out_.data() + out_sent_, out_.size() - out_sent_, MSG_NOSIGNAL);
    if (n > 0) {
      out_sent_ += static_cast<size_t>(n);
      bytes_written_ += static_cast<uint64_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return WriteResult::kPending;
    if (n < 0 && errno == EINTR) continue;
    return WriteResult::kError;
  }
  return OutputDrained();
}

}  // namespace vireo
