// The ordered index of a large sorted set: a B+tree of ZNode pointers with subtree counts, so
// position (rank) queries, rank lookups and range walks are O(log n) like Valkey's skiplist,
// with 8 bytes per element in full leaves instead of a skiplist node's 40-70.
//
// The tree is a sequence addressed by rank: InsertAt/EraseAt/At work on positions, and the
// caller keeps the sequence sorted by searching with LowerBound first. Internal nodes cache
// each child's first element and its score, so a search only dereferences an element when
// scores tie or at the leaf. Leaves are linked both ways for range walks.
//
// Not thread-safe; elements are owned by the caller (the tree never frees a ZNode).
#pragma once

#include <cstddef>
#include <cstdint>

#include "store/zset_node.h"

namespace vireo {

class ZTree {
 public:
  // 512-byte leaves and 1000-byte internal nodes: just under jemalloc size classes.
  static constexpr int kLeafCap = 61;
  static constexpr int kFanout = 31;

  struct Leaf {
    uint32_t count;
    Leaf* prev;
    Leaf* next;
    ZNode* items[kLeafCap];
  };
  struct Inner {
    uint32_t count;
    size_t sizes[kFanout];  // elements under each child
    void* child[kFanout];   // Inner* or Leaf* (height - 1 == 0)
    ZNode* first[kFanout];  // each child's first element
    double first_score[kFanout];
  };

  ZTree() = default;
  ~ZTree();
  ZTree(const ZTree&) = delete;
  ZTree& operator=(const ZTree&) = delete;

  size_t Size() const { return size_; }

  // How many leading elements satisfy before(score, node). before must hold on a prefix of
  // the sequence (true, ..., true, false, ...); it gets the score separately because internal
  // nodes keep scores inline, so it should look at the node only when the score cannot decide.
  template <typename Before>
  size_t LowerBound(Before&& before) const;

  // Rank of an element present in the tree (number of elements ordered before it).
  size_t RankOf(const ZNode* node) const;

  // Inserts node at position rank (0 <= rank <= Size()).
  void InsertAt(size_t rank, ZNode* node);
  // Removes and returns the element at rank (< Size()).
  ZNode* EraseAt(size_t rank);
  // The element at rank (< Size()).
  ZNode* At(size_t rank) const;

  // Position in the leaf chain; walks both ways, invalid past either end. Any change to the
  // tree invalidates iterators.
  class Iterator {
   public:
    Iterator() = default;
    Iterator(const Leaf* leaf, uint32_t index) : leaf_(leaf), index_(index) {}
    bool Valid() const { return leaf_ != nullptr; }
    ZNode* Get() const { return leaf_->items[index_]; }
    void Next() {
      if (++index_ == leaf_->count) {
        leaf_ = leaf_->next;
        index_ = 0;
      }
    }
    void Prev() {
      if (index_ == 0) {
        leaf_ = leaf_->prev;
        index_ = leaf_ != nullptr ? leaf_->count - 1 : 0;
      } else {
        --index_;
      }
    }

   private:
    const Leaf* leaf_ = nullptr;
    uint32_t index_ = 0;
  };
  // Iterator at rank, invalid when rank >= Size().
  Iterator Seek(size_t rank) const;

  // Frees the index (not the elements); the tree is empty afterwards.
  void Clear();
  // Bytes the index itself takes (leaves and internal nodes).
  size_t Memory() const;
  // Checks every invariant (counts, order under less, cached firsts, leaf links); for tests.
  template <typename Less>
  bool Verify(Less&& less) const;

 private:
  // Sizes, cached firsts and leaf links agree with the children (Verify's structural half).
  bool CheckStructure() const;

  void* root_ = nullptr;  // Leaf* when height_ == 0; nullptr when empty
  int height_ = 0;
  size_t size_ = 0;
  size_t leaves_ = 0;
  size_t inners_ = 0;

  friend struct ZTreeOps;
};

template <typename Before>
size_t ZTree::LowerBound(Before&& before) const {
  if (root_ == nullptr) return 0;
  size_t rank = 0;
  const void* node = root_;
  for (int h = height_; h > 0; --h) {
    const Inner* in = static_cast<const Inner*>(node);
    // The last child whose first element is before the bound holds the boundary; every child
    // ahead of it is entirely before.
    uint32_t lo = 1, hi = in->count;  // search [lo, hi) for the first child not before
    while (lo < hi) {
      uint32_t mid = (lo + hi) / 2;
      if (before(in->first_score[mid], static_cast<const ZNode*>(in->first[mid]))) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    uint32_t c = lo - 1;
    for (uint32_t i = 0; i < c; ++i) rank += in->sizes[i];
    node = in->child[c];
  }
  const Leaf* leaf = static_cast<const Leaf*>(node);
  uint32_t lo = 0, hi = leaf->count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    const ZNode* n = leaf->items[mid];
    if (before(n->score, n)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return rank + lo;
}

template <typename Less>
bool ZTree::Verify(Less&& less) const {
  size_t seen = 0;
  const ZNode* prev = nullptr;
  for (Iterator it = Seek(0); it.Valid(); it.Next()) {
    if (prev != nullptr && !less(prev, it.Get())) return false;
    prev = it.Get();
    ++seen;
  }
  if (seen != size_ || !CheckStructure()) return false;
  for (size_t r = 0; r < size_; ++r) {
    if (RankOf(At(r)) != r) return false;
  }
  return true;
}

}  // namespace vireo
