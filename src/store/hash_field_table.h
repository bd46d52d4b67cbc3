// The large hash encoding: a chained hash table of field nodes, each node one allocation holding
// the chain link, the field and the value (Valkey's "hashtable" encoding).
//
// Memory is the point of this layout. A node is an 8-byte link word followed by the field and
// value bytes: the word packs the next-node pointer (bits 3..47), three flag bits (bits 0..2,
// free because nodes are 8-aligned) and, for fields and values of up to 255 bytes, both lengths
// (bits 48..63). So `field:123456` / `value:123456` takes 8 + 24 = 32 bytes, exactly a jemalloc
// size class, plus an 8-byte bucket slot; Valkey spends a 24-byte dictEntry (32 with rounding)
// and two 16-byte sds strings. Longer strings add an 8-byte length block; a field with a TTL
// adds an 8-byte expiry, and only such nodes pay for it (flag bit, plus the volatile index).
//
// Pointers must fit in 48 bits, which holds for user space on x86-64 and AArch64 Linux unless a
// program asks mmap for higher addresses (jemalloc and glibc never do); a violation aborts.
// On 32-bit targets pointers fit trivially.
//
// Resizing follows store/hash_table.h: power-of-two bucket arrays, grow at load 1, shrink below
// 1/8, incremental rehash (a few buckets per mutation), reverse-binary SCAN cursor that never
// misses a field present for the whole scan. Single-threaded, except that a whole table may be
// destroyed on the lazy-free thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string_view>
#include <utility>

#include "store/hash_table.h"

namespace vireo {

// Opaque: the bytes of one field node (see the file comment).
struct HashFieldNode {
  uint64_t link;
};

class HashFieldTable {
 public:
  using Node = HashFieldNode;
  // Set()'s expire argument: keep the field's current TTL (if it exists), as HINCRBY and
  // HSETEX KEEPTTL do.
  static constexpr int64_t kKeepTtl = -1;

  HashFieldTable() = default;
  ~HashFieldTable();  // frees every node and the bucket arrays
  HashFieldTable(const HashFieldTable&) = delete;
  HashFieldTable& operator=(const HashFieldTable&) = delete;

  // Fields stored, expired-but-not-yet-purged ones included.
  size_t Size() const { return used_[0] + used_[1]; }
  size_t BucketCount() const { return Buckets(0) + Buckets(1); }
  bool IsRehashing() const { return rehash_index_ != kNotRehashing; }
  // Pre-sizes an empty table for n fields (conversion from a listpack).
  void Reserve(size_t n);

  // The node holding field, or nullptr. Never checks expiry (see PurgeExpired).
  const Node* Find(std::string_view field) const;

  // Sets field to value. expire_ms: 0 = no TTL (an existing TTL is dropped, as HSET does),
  // kKeepTtl = keep the existing field's TTL, > 0 = this absolute unix-ms TTL.
  // Returns true when the field was added, false when an existing one was updated.
  bool Set(std::string_view field, std::string_view value, int64_t expire_ms = 0);
  // Removes field; false when absent.
  bool Delete(std::string_view field);
  // Sets (ms > 0) or removes (ms = 0) an existing field's TTL; false when field is absent.
  bool SetExpire(std::string_view field, int64_t ms);

  // Node accessors.
  static std::string_view Field(const Node* n);
  static std::string_view Value(const Node* n);
  static int64_t Expire(const Node* n);  // 0 = no TTL

  // Fields with a TTL, and the earliest TTL (0 when none).
  size_t VolatileCount() const { return volatile_ == nullptr ? 0 : volatile_->size(); }
  int64_t MinExpire() const { return volatile_ == nullptr ? 0 : volatile_->begin()->first; }
  // Removes up to max fields whose TTL is before now_ms (strictly: a field expiring at now is
  // still visible, as in Valkey); returns how many.
  size_t PurgeExpired(int64_t now_ms, size_t max = SIZE_MAX);

  // Calls fn(const Node*) for every node; fn must not modify the table.
  template <typename Fn>
  void ForEach(Fn&& fn) const;
  // Allocation-free walk in storage order: start from a default Position; NextNode returns
  // nullptr at the end. The table must not change during the walk.
  struct Position {
    int table = 0;
    size_t bucket = 0;
    const Node* node = nullptr;
  };
  const Node* NextNode(Position* pos) const;
  // One SCAN step (see store/hash_table.h): fn(const Node*) for the bucket(s) at cursor.
  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn) const;
  // A node picked at random, or nullptr when empty.
  const Node* Random() const;

  // A deep copy (COPY), TTLs included.
  HashFieldTable* Clone() const;
  // Bytes used by the table, its nodes and its volatile index (exact for small tables,
  // extrapolated from a sample of nodes for large ones).
  size_t MemoryUsage() const;

  // Tables that hold at least one field with a TTL, process-wide: the active field-expiry
  // sweep does nothing while this is zero.
  static size_t VolatileTables();

 private:
  static constexpr size_t kMinBuckets = 4;
  static constexpr size_t kNotRehashing = SIZE_MAX;
  // Link word layout.
  static constexpr uint64_t kTtlFlag = 1;
  static constexpr uint64_t kLongFlag = 2;
  static constexpr uint64_t kPtrMask = 0x0000FFFFFFFFFFF8ULL;

  using VolatileIndex = std::set<std::pair<int64_t, const Node*>>;

  static Node* NextOf(uint64_t word) {
    return reinterpret_cast<Node*>(static_cast<uintptr_t>(word & kPtrMask));
  }
  static void SetPtr(uint64_t* word, const Node* n) {
    *word = (*word & ~kPtrMask) | static_cast<uint64_t>(reinterpret_cast<uintptr_t>(n));
  }
  static size_t HeaderSize(uint64_t link);
  static uint32_t FieldLen(const Node* n);
  static uint32_t ValueLen(const Node* n);
  static const char* FieldData(const Node* n);
  static bool FieldEquals(const Node* n, std::string_view field);
  // A new node (link pointer bits zero).
  static Node* NewNode(std::string_view field, std::string_view value, int64_t expire_ms);
  static void FreeNode(Node* n);

  size_t Buckets(int t) const { return buckets_[t] ? size_t{1} << log2_[t] : 0; }
  size_t Mask(int t) const { return (size_t{1} << log2_[t]) - 1; }
  // The word pointing at field's node (a bucket slot or the previous node's link), or nullptr.
  // *table (if given) receives which bucket array holds it.
  uint64_t* FindRef(std::string_view field, uint64_t hash, int* table) const;
  // Links a new node at the head of its chain (in the rehash target while rehashing).
  void Link(Node* n, uint64_t hash);
  // Unlinks and frees the node *ref (in bucket array `table`) points at.
  void Unlink(uint64_t* ref, int table);
  // Makes *ref point at replacement instead of old (same field), keeping the chain and the
  // volatile index right, and frees old.
  void Relink(uint64_t* ref, Node* old, Node* replacement);
  void BeforeMutation();
  void MaybeShrink();
  void StartRehash(uint8_t log2);
  void RehashStep(size_t n);
  void Track(const Node* n);
  void Untrack(const Node* n);

  uint64_t* buckets_[2] = {nullptr, nullptr};
  size_t used_[2] = {0, 0};
  size_t rehash_index_ = kNotRehashing;
  uint8_t log2_[2] = {0, 0};
  VolatileIndex* volatile_ = nullptr;  // nodes with a TTL by expiry; null when there are none
};

template <typename Fn>
void HashFieldTable::ForEach(Fn&& fn) const {
  size_t first0 = IsRehashing() ? rehash_index_ : 0;
  for (int t = 0; t < 2; ++t) {
    for (size_t i = t == 0 ? first0 : 0; i < Buckets(t); ++i) {
      for (const Node* n = NextOf(buckets_[t][i]); n != nullptr; n = NextOf(n->link)) fn(n);
    }
  }
}

template <typename Fn>
uint64_t HashFieldTable::Scan(uint64_t cursor, Fn&& fn) const {
  using hash_table_internal::NextCursor;
  auto chain = [&](int t, size_t i) {
    for (const Node* n = NextOf(buckets_[t][i]); n != nullptr; n = NextOf(n->link)) fn(n);
  };
  if (buckets_[0] == nullptr) return 0;
  if (!IsRehashing()) {
    uint64_t mask = Mask(0);
    chain(0, cursor & mask);
    return NextCursor(cursor, mask);
  }
  // As HashTable::Scan: the small table's bucket, then its expansions in the large one.
  int small = log2_[0] < log2_[1] ? 0 : 1;
  int large = 1 - small;
  uint64_t small_mask = Mask(small);
  uint64_t large_mask = Mask(large);
  // Buckets of table 0 below the rehash index are empty, so visiting them is harmless.
  chain(small, cursor & small_mask);
  do {
    chain(large, cursor & large_mask);
    cursor = NextCursor(cursor, large_mask);
  } while ((cursor & (small_mask ^ large_mask)) != 0);
  return cursor;
}

}  // namespace vireo
