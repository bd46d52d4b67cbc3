// A sorted set value, whatever its encoding: a listpack of (member, score) pairs for small sets,
// or, past zset-max-listpack-entries / -value, a member table (HashTable<ZNode>) plus the ordered
// index ZTree over the same nodes. Valkey calls the large encoding "skiplist", and so does
// OBJECT ENCODING here.
//
// ZSet is a small handle {encoding, object}: mutating calls may move or convert the object, so
// write the handle back (StoreTo) after changing a set that lives in an Entry. Positions are
// 0-based ranks in (score, member) order. Elements visited through an iterator stay valid until
// the set changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "store/entry.h"
#include "store/hash_table.h"
#include "store/listpack.h"
#include "store/zset_tree.h"

namespace vireo {

// The encoding thresholds in force for a write (read from the config at each command).
struct ZSetLimits {
  size_t max_listpack_entries = 128;
  size_t max_listpack_value = 64;
};

// ZADD's options and outcome.
enum ZAddFlag : int { kZAddNx = 1, kZAddXx = 2, kZAddGt = 4, kZAddLt = 8, kZAddIncr = 16 };
enum class ZAddResult {
  kAdded,      // new member
  kUpdated,    // score changed
  kUnchanged,  // present with that very score (INCR still reports the score)
  kSkipped,    // NX/XX/GT/LT said no (INCR replies nil)
  kNaN,        // INCR would make NaN
};

class ZSet {
 public:
  class Iterator;
  struct Big;  // the large encoding's object (opaque; see BigViewOf)

  ZSet() = default;
  ZSet(Encoding enc, void* obj) : enc_(enc), obj_(obj) {}
  static ZSet Of(const Entry* e) { return ZSet(e->encoding(), e->obj); }
  void StoreTo(Entry* e) const {
    e->SetType(ObjType::kZSet, enc_);
    e->obj = obj_;
  }

  // An empty set for a first write of a member of first_member_len bytes (as Valkey 7 picks:
  // listpack unless the entries limit is 0 or that member is too long).
  static ZSet Create(size_t first_member_len, const ZSetLimits& limits);
  // A set made of distinct nodes (ownership taken), sorted here; listpack when they fit the
  // limits (the results of ZRANGESTORE, ZUNIONSTORE...), else the large encoding.
  static ZSet FromNodes(std::vector<ZNode*>* nodes, const ZSetLimits& limits);

  Encoding encoding() const { return enc_; }
  void* object() const { return obj_; }
  bool IsListPack() const { return enc_ == Encoding::kListPack; }

  void Free();
  ZSet Copy() const;
  size_t Memory() const;
  size_t Length() const;

  bool Score(std::string_view member, double* score) const;
  // ZADD/ZINCRBY core: adds member or changes its score (increments with kZAddIncr) per flags;
  // *out receives the resulting score. Converts to the large encoding past the limits.
  ZAddResult Add(std::string_view member, double score, int flags, const ZSetLimits& limits,
                 double* out);
  bool Remove(std::string_view member);
  // Rank from the lowest score; false when absent.
  bool Rank(std::string_view member, size_t* rank, double* score) const;

  // Elements with a score below v (or below-or-equal when or_equal): the rank where a score
  // range starts (min) or ends (max).
  size_t ScoreRank(double v, bool or_equal) const;
  // Elements whose member sorts below v (or-equal likewise), assuming members are in order
  // (the sorted set's lex commands assume equal scores, as Valkey documents).
  size_t LexRank(std::string_view v, bool or_equal) const;

  // Iterator at rank (invalid if rank >= Length()).
  Iterator Seek(size_t rank) const;
  // Deletes ranks [start, end] (end < Length()).
  void RemoveRange(size_t start, size_t end);

  // A uniformly chosen rank (Length() > 0).
  size_t RandomRank() const;
  // One SCAN step: fn(member, score) per element; returns the next cursor (0 at the end).
  // A listpack is returned whole on the first call.
  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn);

  // Converts to the large encoding (no-op if already there).
  void ConvertToSkipList();
  // Before a command adds `elements` members, the longest `longest` bytes: converts when
  // either passes the listpack limits, whether or not they end up added (ZADD XX of a long
  // absent member leaves a skiplist in Valkey too).
  void FitFor(size_t elements, size_t longest, const ZSetLimits& limits) {
    if (IsListPack() &&
        (elements > limits.max_listpack_entries || longest > limits.max_listpack_value)) {
      ConvertToSkipList();
    }
  }

 private:
  Big* big() const { return static_cast<Big*>(obj_); }
  unsigned char* lp() const { return static_cast<unsigned char*>(obj_); }
  void AddToBig(std::string_view member, double score);

  Encoding enc_ = Encoding::kListPack;
  void* obj_ = nullptr;
};

// Walks elements in order (Next) or backwards (Prev). Member views stay valid until the
// iterator moves or the set changes.
class ZSet::Iterator {
 public:
  bool Valid() const { return lp_ != nullptr ? p_ != nullptr : it_.Valid(); }
  std::string_view Member();
  double Score() const;
  // The score as ZSCAN shows it: a listpack's stored text, else "%.17g" (FormatDoubleG17To,
  // still Valkey 8's form there); buf >= kDoubleTextSize.
  std::string_view ScoreText(char* buf) const;
  void Next();
  void Prev();

 private:
  friend class ZSet;
  unsigned char* lp_ = nullptr;  // listpack mode when set
  lp::Ptr p_ = nullptr;          // the member element
  ZTree::Iterator it_;
  char buf_[24];
};

// The large encoding's member table and index, for Scan (template) and tests.
struct ZSetBigView {
  HashTable<ZNode>* members;
  const ZTree* order;
};
ZSetBigView BigViewOf(void* obj);

template <typename Fn>
uint64_t ZSet::Scan(uint64_t cursor, Fn&& fn) {
  if (enc_ == Encoding::kListPack) {
    for (Iterator it = Seek(0); it.Valid(); it.Next()) fn(it.Member(), it.Score());
    return 0;
  }
  return BigViewOf(obj_).members->Scan(cursor, [&](ZNode* n) { fn(n->Key(), n->score); });
}

// CollectionOps for ObjType::kZSet.
void FreeZSetObject(Encoding enc, void* obj);
size_t ZSetFreeEffort(Encoding enc, const void* obj);
size_t ZSetMemory(Encoding enc, const void* obj);
void* CopyZSetObject(Encoding enc, const void* obj);

}  // namespace vireo
