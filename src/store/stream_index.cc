#include "store/stream_index.h"

#include <cstring>

#include "store/memory.h"

namespace vireo {

StreamNodeIndex::~StreamNodeIndex() { Clear(); }

size_t StreamNodeIndex::Find(StreamID id) const {
  // First slot whose base is > id; the one before it may hold id.
  size_t lo = 0, hi = size_;
  const Slot* s = slots_ + head_;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].base <= id) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo == 0 ? kNone : lo - 1;
}

void StreamNodeIndex::PushBack(StreamID base, StreamNode* node) {
  if (head_ + size_ == cap_) {
    if (head_ > 0 && head_ >= size_) {
      // Half the array is a gap left by trimming: slide down instead of growing.
      std::memmove(slots_, slots_ + head_, size_ * sizeof(Slot));
      head_ = 0;
    } else {
      uint32_t cap = cap_ == 0 ? 4 : cap_ * 2;
      auto* fresh = static_cast<Slot*>(ZMalloc(cap * sizeof(Slot)));
      if (size_ > 0) std::memcpy(fresh, slots_ + head_, size_ * sizeof(Slot));
      ZFree(slots_);
      slots_ = fresh;
      cap_ = cap;
      head_ = 0;
    }
  }
  slots_[head_ + size_] = {base, node};
  ++size_;
}

void StreamNodeIndex::Erase(size_t i) {
  if (i == 0) {
    ++head_;
  } else if (i + 1 < size_) {
    std::memmove(slots_ + head_ + i, slots_ + head_ + i + 1, (size_ - i - 1) * sizeof(Slot));
  }
  if (--size_ == 0) head_ = 0;
}

void StreamNodeIndex::Clear() {
  ZFree(slots_);
  slots_ = nullptr;
  head_ = size_ = cap_ = 0;
}

size_t StreamNodeIndex::AllocBytes() const { return slots_ ? ZMallocSize(slots_) : 0; }

}  // namespace vireo
