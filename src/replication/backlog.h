// The replication backlog: the last `capacity` bytes of the replication stream, addressed by
// stream offset, so a replica that lost its link can continue from the byte after the last
// one it applied (PSYNC) instead of loading a whole snapshot again. Offsets count every byte
// the stream ever carried; the byte appended first after Reset(n) has offset n + 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vireo {

class ReplBacklog {
 public:
  // Empties the backlog; the next byte appended gets offset end_offset + 1.
  void Reset(size_t capacity, int64_t end_offset);
  // Keeps the newest bytes when shrinking (CONFIG SET repl-backlog-size).
  void Resize(size_t capacity);
  void Append(std::string_view bytes);

  size_t capacity() const { return buf_.size(); }
  size_t size() const { return size_; }
  // Offset of the last byte appended.
  int64_t end_offset() const { return end_; }
  // Offset of the oldest byte held (end_offset() + 1 when empty).
  int64_t first_offset() const { return end_ - static_cast<int64_t>(size_) + 1; }
  // True when every byte from `from` to the end is held (from == end_offset() + 1: nothing
  // to send, still a match).
  bool Covers(int64_t from) const { return from >= first_offset() && from <= end_ + 1; }
  // Appends the bytes from offset `from` to the end to *out (Covers(from) must hold).
  void CopyFrom(int64_t from, std::string* out) const;

 private:
  std::string buf_;   // ring of capacity bytes
  size_t head_ = 0;   // where the next byte goes
  size_t size_ = 0;
  int64_t end_ = 0;
};

}  // namespace vireo
