#include "replication/backlog.h"

#include <algorithm>
#include <cstring>

namespace vireo {

void ReplBacklog::Reset(size_t capacity, int64_t end_offset) {
  buf_.assign(std::max<size_t>(capacity, 1), '\0');
  head_ = 0;
  size_ = 0;
  end_ = end_offset;
}

void ReplBacklog::Resize(size_t capacity) {
  std::string held;
  CopyFrom(first_offset(), &held);
  const int64_t end = end_;
  Reset(capacity, end - static_cast<int64_t>(held.size()));
  Append(held);
}

void ReplBacklog::Append(std::string_view bytes) {
  const size_t cap = buf_.size();
  end_ += static_cast<int64_t>(bytes.size());
  if (bytes.size() >= cap) {  // only the newest capacity bytes survive
    bytes.remove_prefix(bytes.size() - cap);
    std::memcpy(buf_.data(), bytes.data(), cap);
    head_ = 0;
    size_ = cap;
    return;
  }
  size_t first = std::min(bytes.size(), cap - head_);
  std::memcpy(buf_.data() + head_, bytes.data(), first);
  std::memcpy(buf_.data(), bytes.data() + first, bytes.size() - first);
  head_ = (head_ + bytes.size()) % cap;
  size_ = std::min(cap, size_ + bytes.size());
}

void ReplBacklog::CopyFrom(int64_t from, std::string* out) const {
  if (buf_.empty()) return;
  const size_t n = static_cast<size_t>(end_ - from + 1);
  const size_t cap = buf_.size();
  const size_t start = (head_ + cap - n) % cap;  // n <= size_ <= cap
  size_t first = std::min(n, cap - start);
  out->append(buf_.data() + start, first);
  out->append(buf_.data(), n - first);
}

}  // namespace vireo
