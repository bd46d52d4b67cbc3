#include "store/zset_tree.h"

#include <cstring>
#include <vector>

#include "store/memory.h"

namespace vireo {

// The tree's private algorithms (a friend, so the header stays a small face). Nodes are split
// in halves, except that a full leaf or internal node at the far right (or leaf at the far
// left) of the tree keeps all its elements and starts a fresh sibling: loading a set in score
// order, ascending or descending, then fills nodes completely instead of half.
struct ZTreeOps {
  using Leaf = ZTree::Leaf;
  using Inner = ZTree::Inner;
  static constexpr uint32_t kLeafCap = ZTree::kLeafCap;
  static constexpr uint32_t kFanout = ZTree::kFanout;
  // Below these a node tries to merge with a neighbour after an erase.
  static constexpr uint32_t kLeafMin = kLeafCap / 4;
  static constexpr uint32_t kInnerMin = kFanout / 4;

  static Leaf* NewLeaf(ZTree* t) {
    Leaf* l = static_cast<Leaf*>(ZMalloc(sizeof(Leaf)));
    l->count = 0;
    l->prev = l->next = nullptr;
    ++t->leaves_;
    return l;
  }
  static Inner* NewInner(ZTree* t) {
    Inner* in = static_cast<Inner*>(ZMalloc(sizeof(Inner)));
    in->count = 0;
    ++t->inners_;
    return in;
  }
  static void FreeLeaf(ZTree* t, Leaf* l) {
    if (l->prev != nullptr) l->prev->next = l->next;
    if (l->next != nullptr) l->next->prev = l->prev;
    ZFree(l);
    --t->leaves_;
  }
  static void FreeInner(ZTree* t, Inner* in) {
    ZFree(in);
    --t->inners_;
  }
  static void FreeNode(ZTree* t, void* node, int h) {
    if (h == 0) {
      FreeLeaf(t, static_cast<Leaf*>(node));
    } else {
      FreeInner(t, static_cast<Inner*>(node));
    }
  }

  static uint32_t Slots(const void* node, int h) {
    return h == 0 ? static_cast<const Leaf*>(node)->count : static_cast<const Inner*>(node)->count;
  }
  static size_t CountOf(const void* node, int h) {
    if (h == 0) return static_cast<const Leaf*>(node)->count;
    const Inner* in = static_cast<const Inner*>(node);
    size_t n = 0;
    for (uint32_t i = 0; i < in->count; ++i) n += in->sizes[i];
    return n;
  }
  static ZNode* FirstOf(const void* node, int h) {
    return h == 0 ? static_cast<const Leaf*>(node)->items[0]
                  : static_cast<const Inner*>(node)->first[0];
  }
  // Re-reads child i's first element into the cache (after any change below it).
  static void Refresh(Inner* in, uint32_t i, int child_h) {
    ZNode* f = FirstOf(in->child[i], child_h);
    in->first[i] = f;
    in->first_score[i] = f->score;
  }

  static void OpenSlot(Inner* in, uint32_t pos) {
    uint32_t n = in->count - pos;
    std::memmove(&in->sizes[pos + 1], &in->sizes[pos], n * sizeof(in->sizes[0]));
    std::memmove(&in->child[pos + 1], &in->child[pos], n * sizeof(in->child[0]));
    std::memmove(&in->first[pos + 1], &in->first[pos], n * sizeof(in->first[0]));
    std::memmove(&in->first_score[pos + 1], &in->first_score[pos], n * sizeof(in->first_score[0]));
    ++in->count;
  }
  static void RemoveSlot(Inner* in, uint32_t pos) {
    uint32_t n = in->count - pos - 1;
    std::memmove(&in->sizes[pos], &in->sizes[pos + 1], n * sizeof(in->sizes[0]));
    std::memmove(&in->child[pos], &in->child[pos + 1], n * sizeof(in->child[0]));
    std::memmove(&in->first[pos], &in->first[pos + 1], n * sizeof(in->first[0]));
    std::memmove(&in->first_score[pos], &in->first_score[pos + 1], n * sizeof(in->first_score[0]));
    --in->count;
  }
  // Moves slots [from, count) of src to the end of dst.
  static void MoveSlots(Inner* src, uint32_t from, Inner* dst) {
    uint32_t n = src->count - from;
    uint32_t at = dst->count;
    std::memcpy(&dst->sizes[at], &src->sizes[from], n * sizeof(src->sizes[0]));
    std::memcpy(&dst->child[at], &src->child[from], n * sizeof(src->child[0]));
    std::memcpy(&dst->first[at], &src->first[from], n * sizeof(src->first[0]));
    std::memcpy(&dst->first_score[at], &src->first_score[from], n * sizeof(src->first_score[0]));
    dst->count += n;
    src->count = from;
  }
  static void PutSlot(Inner* in, uint32_t pos, void* child, size_t size, int child_h) {
    OpenSlot(in, pos);
    in->child[pos] = child;
    in->sizes[pos] = size;
    Refresh(in, pos, child_h);
  }

  static void PutItem(Leaf* l, uint32_t pos, ZNode* x) {
    std::memmove(&l->items[pos + 1], &l->items[pos], (l->count - pos) * sizeof(ZNode*));
    l->items[pos] = x;
    ++l->count;
  }

  // Inserts x at pos of a leaf; returns the new right sibling if the leaf had to split.
  static Leaf* InsertLeaf(ZTree* t, Leaf* leaf, uint32_t pos, ZNode* x, bool leftmost,
                          bool rightmost) {
    if (leaf->count < kLeafCap) {
      PutItem(leaf, pos, x);
      return nullptr;
    }
    Leaf* right = NewLeaf(t);
    right->prev = leaf;
    right->next = leaf->next;
    if (leaf->next != nullptr) leaf->next->prev = right;
    leaf->next = right;
    if (pos == kLeafCap && rightmost) {
      right->items[0] = x;
      right->count = 1;
    } else if (pos == 0 && leftmost) {
      std::memcpy(right->items, leaf->items, kLeafCap * sizeof(ZNode*));
      right->count = kLeafCap;
      leaf->items[0] = x;
      leaf->count = 1;
    } else {
      const uint32_t keep = (kLeafCap + 1) / 2;
      right->count = kLeafCap - keep;
      std::memcpy(right->items, &leaf->items[keep], right->count * sizeof(ZNode*));
      leaf->count = keep;
      if (pos <= keep) {
        PutItem(leaf, pos, x);
      } else {
        PutItem(right, pos - keep, x);
      }
    }
    return right;
  }

  // Adds child (size elements, height child_h) at slot pos; returns a new right sibling of in
  // if it had to split.
  static Inner* InsertChild(ZTree* t, Inner* in, uint32_t pos, void* child, size_t size,
                            int child_h, bool rightmost) {
    if (in->count < kFanout) {
      PutSlot(in, pos, child, size, child_h);
      return nullptr;
    }
    Inner* right = NewInner(t);
    if (pos == kFanout && rightmost) {
      PutSlot(right, 0, child, size, child_h);
      return right;
    }
    const uint32_t keep = (kFanout + 1) / 2;
    MoveSlots(in, keep, right);
    if (pos <= keep) {
      PutSlot(in, pos, child, size, child_h);
    } else {
      PutSlot(right, pos - keep, child, size, child_h);
    }
    return right;
  }

  static void* Insert(ZTree* t, void* node, int h, size_t rank, ZNode* x, bool leftmost,
                      bool rightmost) {
    if (h == 0) {
      return InsertLeaf(t, static_cast<Leaf*>(node), static_cast<uint32_t>(rank), x, leftmost,
                        rightmost);
    }
    Inner* in = static_cast<Inner*>(node);
    uint32_t i = 0;
    // A rank on a boundary appends to the left child, so loading in order fills the last one.
    while (i + 1 < in->count && rank > in->sizes[i]) rank -= in->sizes[i++];
    void* sibling = Insert(t, in->child[i], h - 1, rank, x, leftmost && i == 0,
                           rightmost && i + 1 == in->count);
    in->sizes[i] += 1;
    Refresh(in, i, h - 1);
    if (sibling == nullptr) return nullptr;
    size_t moved = CountOf(sibling, h - 1);
    in->sizes[i] -= moved;
    return InsertChild(t, in, i + 1, sibling, moved, h - 1, rightmost);
  }

  // Appends the contents of right to left (they fit) and frees right.
  static void Merge(ZTree* t, void* left, void* right, int h) {
    if (h == 0) {
      Leaf* l = static_cast<Leaf*>(left);
      Leaf* r = static_cast<Leaf*>(right);
      std::memcpy(&l->items[l->count], r->items, r->count * sizeof(ZNode*));
      l->count += r->count;
      FreeLeaf(t, r);
    } else {
      MoveSlots(static_cast<Inner*>(right), 0, static_cast<Inner*>(left));
      FreeInner(t, static_cast<Inner*>(right));
    }
  }

  // Child i of in became small: merge it into a neighbour when both fit in one node.
  static void MaybeMerge(ZTree* t, Inner* in, uint32_t i, int child_h) {
    const uint32_t cap = child_h == 0 ? kLeafCap : kFanout;
    uint32_t mine = Slots(in->child[i], child_h);
    if (i > 0 && Slots(in->child[i - 1], child_h) + mine <= cap) {
      Merge(t, in->child[i - 1], in->child[i], child_h);
      in->sizes[i - 1] += in->sizes[i];
      RemoveSlot(in, i);
    } else if (i + 1 < in->count && Slots(in->child[i + 1], child_h) + mine <= cap) {
      Merge(t, in->child[i], in->child[i + 1], child_h);
      in->sizes[i] += in->sizes[i + 1];
      RemoveSlot(in, i + 1);
    }
  }

  static ZNode* Erase(ZTree* t, void* node, int h, size_t rank) {
    if (h == 0) {
      Leaf* l = static_cast<Leaf*>(node);
      ZNode* x = l->items[rank];
      std::memmove(&l->items[rank], &l->items[rank + 1], (l->count - rank - 1) * sizeof(ZNode*));
      --l->count;
      return x;
    }
    Inner* in = static_cast<Inner*>(node);
    uint32_t i = 0;
    while (rank >= in->sizes[i]) rank -= in->sizes[i++];
    ZNode* x = Erase(t, in->child[i], h - 1, rank);
    --in->sizes[i];
    uint32_t slots = Slots(in->child[i], h - 1);
    if (slots == 0) {
      FreeNode(t, in->child[i], h - 1);
      RemoveSlot(in, i);
    } else {
      Refresh(in, i, h - 1);
      if (slots < (h - 1 == 0 ? kLeafMin : kInnerMin)) MaybeMerge(t, in, i, h - 1);
    }
    return x;
  }

  static void FreeAll(ZTree* t, void* node, int h) {
    if (h > 0) {
      Inner* in = static_cast<Inner*>(node);
      for (uint32_t i = 0; i < in->count; ++i) FreeAll(t, in->child[i], h - 1);
      FreeInner(t, in);
    } else {
      // The whole chain goes; skip the unlinking FreeLeaf does.
      ZFree(node);
      --t->leaves_;
    }
  }

  // Checks node's subtree; appends its leaves in order. Returns false on any inconsistency.
  static bool Check(const void* node, int h, std::vector<const Leaf*>* leaves) {
    if (h == 0) {
      const Leaf* l = static_cast<const Leaf*>(node);
      leaves->push_back(l);
      return l->count > 0 && l->count <= kLeafCap;
    }
    const Inner* in = static_cast<const Inner*>(node);
    if (in->count == 0 || in->count > kFanout) return false;
    for (uint32_t i = 0; i < in->count; ++i) {
      if (!Check(in->child[i], h - 1, leaves)) return false;
      if (CountOf(in->child[i], h - 1) != in->sizes[i]) return false;
      const ZNode* f = FirstOf(in->child[i], h - 1);
      if (in->first[i] != f || in->first_score[i] != f->score) return false;
    }
    return true;
  }
};

ZTree::~ZTree() { Clear(); }

size_t ZTree::RankOf(const ZNode* node) const {
  const double score = node->score;
  const std::string_view member = node->Key();
  return LowerBound([&](double s, const ZNode* n) {
    if (s != score) return s < score;
    return n != node && CompareMembers(n->Key(), member) < 0;
  });
}

void ZTree::InsertAt(size_t rank, ZNode* node) {
  if (root_ == nullptr) {
    root_ = ZTreeOps::NewLeaf(this);
    height_ = 0;
  }
  void* sibling = ZTreeOps::Insert(this, root_, height_, rank, node, true, true);
  ++size_;
  if (sibling == nullptr) return;
  Inner* root = ZTreeOps::NewInner(this);
  ZTreeOps::PutSlot(root, 0, root_, ZTreeOps::CountOf(root_, height_), height_);
  ZTreeOps::PutSlot(root, 1, sibling, ZTreeOps::CountOf(sibling, height_), height_);
  root_ = root;
  ++height_;
}

ZNode* ZTree::EraseAt(size_t rank) {
  ZNode* x = ZTreeOps::Erase(this, root_, height_, rank);
  --size_;
  while (height_ > 0 && static_cast<Inner*>(root_)->count == 1) {
    Inner* old = static_cast<Inner*>(root_);
    root_ = old->child[0];
    ZTreeOps::FreeInner(this, old);
    --height_;
  }
  if (height_ == 0 && static_cast<Leaf*>(root_)->count == 0) {
    ZTreeOps::FreeLeaf(this, static_cast<Leaf*>(root_));
    root_ = nullptr;
  }
  return x;
}

ZTree::Iterator ZTree::Seek(size_t rank) const {
  if (rank >= size_) return Iterator();
  const void* node = root_;
  for (int h = height_; h > 0; --h) {
    const Inner* in = static_cast<const Inner*>(node);
    uint32_t i = 0;
    while (rank >= in->sizes[i]) rank -= in->sizes[i++];
    node = in->child[i];
  }
  return Iterator(static_cast<const Leaf*>(node), static_cast<uint32_t>(rank));
}

ZNode* ZTree::At(size_t rank) const { return Seek(rank).Get(); }

void ZTree::Clear() {
  if (root_ != nullptr) ZTreeOps::FreeAll(this, root_, height_);
  root_ = nullptr;
  height_ = 0;
  size_ = 0;
}

size_t ZTree::Memory() const { return leaves_ * sizeof(Leaf) + inners_ * sizeof(Inner); }

bool ZTree::CheckStructure() const {
  if (root_ == nullptr) return size_ == 0 && leaves_ == 0 && inners_ == 0;
  std::vector<const Leaf*> leaves;
  if (!ZTreeOps::Check(root_, height_, &leaves)) return false;
  if (ZTreeOps::CountOf(root_, height_) != size_ || leaves.size() != leaves_) return false;
  if (leaves.front()->prev != nullptr || leaves.back()->next != nullptr) return false;
  for (size_t i = 0; i + 1 < leaves.size(); ++i) {
    if (leaves[i]->next != leaves[i + 1] || leaves[i + 1]->prev != leaves[i]) return false;
  }
  return height_ == 0 || static_cast<const Inner*>(root_)->count > 1;
}

}  // namespace vireo
