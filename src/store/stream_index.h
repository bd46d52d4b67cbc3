// The ordered index of a stream's nodes: one 24-byte slot (base ID, node) per node, sorted by
// ID, in an array with a gap at the front so that trimming the oldest node (the usual capped
// time series) and appending a new one are both O(1) amortized. Lookups are binary searches.
#pragma once

#include <cstddef>
#include <cstdint>

#include "store/stream_id.h"

namespace vireo {

struct StreamNode;

class StreamNodeIndex {
 public:
  struct Slot {
    StreamID base;  // <= every entry ID in the node
    StreamNode* node;
  };
  static constexpr size_t kNone = SIZE_MAX;

  StreamNodeIndex() = default;
  ~StreamNodeIndex();
  StreamNodeIndex(const StreamNodeIndex&) = delete;
  StreamNodeIndex& operator=(const StreamNodeIndex&) = delete;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Slot& operator[](size_t i) { return slots_[head_ + i]; }
  const Slot& operator[](size_t i) const { return slots_[head_ + i]; }

  // Position of the node that would hold id: the last slot whose base <= id, or kNone.
  size_t Find(StreamID id) const;
  // Appends a slot whose base is greater than every other.
  void PushBack(StreamID base, StreamNode* node);
  // Removes slot i (O(1) for the first and the last one).
  void Erase(size_t i);
  // Drops every slot (the nodes are the caller's) and the array.
  void Clear();
  // Bytes of the slot array.
  size_t AllocBytes() const;

 private:
  Slot* slots_ = nullptr;
  uint32_t head_ = 0;  // slots before head_ are free
  uint32_t size_ = 0;
  uint32_t cap_ = 0;
};

}  // namespace vireo
