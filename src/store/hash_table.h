// Intrusive chained hash table with incremental rehashing and a resize-proof SCAN cursor.
//
// Nodes are owned by the caller: the table links them through `Node::next` and never
// allocates or frees them. A Node must provide:
//   Node* next;                         // chain link, owned by the table (or Next() and
//                                       // SetNext(Node*) when the link word holds more)
//   std::string_view Key() const;       // the key bytes
// Hashes are computed with the seeded hash from common/hash.h.
//
// Rehashing moves a few buckets on each mutating call (and on RehashStep), so growing to
// tens of millions of keys never stops the owner thread for a full rehash. Single-threaded:
// only the keyspace's owner thread may call it.
//
// Sizing: bucket counts are powers of two. The first Insert allocates kMinBuckets; an Insert
// that finds Size() >= buckets * max load (1 unless SetMaxLoad) starts growing to twice as many;
// MaybeShrink shrinks to the smallest power of two >= Size() once load falls below 1/8. Nothing is
// stored per node besides `next`, so rehashing recomputes each moved key's hash. The reasons behind
// these choices are noted in hash_table_inl.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/hash.h"
#include "common/prefetch.h"

namespace vireo {

template <typename Node>
class HashTable {
 public:
  HashTable();
  ~HashTable();  // frees bucket arrays only; nodes belong to the caller
  HashTable(const HashTable&) = delete;
  HashTable& operator=(const HashTable&) = delete;

  size_t Size() const;
  // Total buckets of both tables (for memory accounting and INFO).
  size_t BucketCount() const;
  // Bytes of the bucket array a running rehash is emptying; 0 when none runs.
  size_t RehashingBytes() const { return IsRehashing() ? Buckets(0) * sizeof(Node*) : 0; }
  bool IsRehashing() const;

  // Each keyed operation also comes with `hash` = HashBytes(key) given by a caller that has
  // it already (the keyspace's pipeline look-ahead), saving the hashing.
  Node* Find(std::string_view key) const { return Find(key, HashBytes(key)); }
  Node* Find(std::string_view key, uint64_t hash) const;
  // Links node in; the caller guarantees no node with the same key is present.
  void Insert(Node* node) { Insert(node, HashBytes(node->Key())); }
  void Insert(Node* node, uint64_t hash);
  // Unlinks and returns the node with key, or nullptr. Does not free it.
  Node* Remove(std::string_view key) { return Remove(key, HashBytes(key)); }
  Node* Remove(std::string_view key, uint64_t hash);
  // Replaces old_node (present in the table) by new_node with the same key, in place.
  void Replace(Node* old_node, Node* new_node) {
    Replace(old_node, new_node, HashBytes(old_node->Key()));
  }
  void Replace(Node* old_node, Node* new_node, uint64_t hash);

  // Hints the CPU to load the bucket slot(s) key would hash to, so a batch of lookups can
  // overlap their cache misses: Prefetch every key first, then Find each. Never faults,
  // changes nothing, and costs one hash of key, which it returns.
  uint64_t Prefetch(std::string_view key) const;
  // The second stage, once the bucket has had time to arrive: loads it and hints the first
  // node of its chain.
  void PrefetchChain(uint64_t hash) const;
  // The third stage, once the first node has arrived: when it does not hold key, hints the
  // next node; when it does, what the node points at (PrefetchPayload). At load 1-2 about a third of all hits are past the first node.
  void PrefetchPastHead(std::string_view key, uint64_t hash) const;
  // A node's first 64 bytes, which hold its header and a short key, may straddle two cache
  // lines (allocator size classes such as 48 are not line-aligned): both are requested.
  static void PrefetchNode(const Node* node) {
    PrefetchRead(node);
    PrefetchRead(reinterpret_cast<const char*>(node) + 63);
  }

  // One SCAN step: calls fn(Node*) for every node in the bucket(s) at cursor and returns the
  // next cursor (0 when the scan is complete). Every node present for the whole scan is
  // reported at least once, whatever resizes happen in between (reverse-binary cursor).
  // fn must not insert or remove.
  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn);

  // A node picked at random (fairly, though not perfectly uniformly), or nullptr if empty.
  Node* Random() const;

  // Performs up to n bucket moves of an in-progress rehash; returns true if still rehashing.
  bool RehashStep(size_t n);

  // Unlinks every node, calling fn(Node*) on each (e.g. to free it); leaves the table empty.
  template <typename Fn>
  void Clear(Fn&& fn);

  // Calls fn(Node*) on every node; fn must not insert or remove.
  template <typename Fn>
  void ForEach(Fn&& fn) const;

  // Average chain length at which an Insert starts growing the table (default 1). The keyspace
  // uses 2: half the bucket array per key for a slightly longer walk (see ARCHITECTURE.md).
  void SetMaxLoad(uint8_t max_load) { max_load_ = max_load < 1 ? 1 : max_load; }

  // Sizes an empty table for n nodes at its maximum load at once, so a bulk load (an RDB
  // announcing its key count) skips the doublings and their rehashes. No-op otherwise.
  void Reserve(size_t n);

  // Shrinks the bucket arrays when load is low (called from the server's periodic task).
  // Frees them entirely when the table is empty. Does nothing while a rehash is running.
  void MaybeShrink();

 private:
  static constexpr size_t kMinBuckets = 4;
  // How far ahead of its position a rehash prefetches chain heads (RehashStep).
  static constexpr size_t kRehashAhead = 8;
  static constexpr size_t kNotRehashing = SIZE_MAX;

  size_t Buckets(int t) const { return buckets_[t] ? size_t{1} << log2_[t] : 0; }
  size_t Mask(int t) const { return (size_t{1} << log2_[t]) - 1; }
  // Allocates table 1 with 2^log2 buckets and starts moving table 0 into it.
  void StartRehash(uint8_t log2);
  void FinishRehash();
  // Bucket moves a mutation pays, more when the table being filled is already overloaded.
  size_t StepsPerMutation() const;
  // calloc'd bucket slots; nullptr when out of memory. Large arrays get huge pages.
  static Node** AllocBuckets(size_t n);
  // Where a node sits: its table, bucket and chain predecessor (nullptr: first in bucket).
  struct Position {
    int table = 0;
    size_t index = 0;
    Node* prev = nullptr;
    Node* node = nullptr;  // nullptr: not found
  };
  // The first node in hash's chain(s) satisfying is_match, with its position.
  template <typename Match>
  Position FindPosition(uint64_t hash, Match&& is_match) const;
  // Points the link that held pos.node (bucket slot or predecessor) at node.
  void Relink(const Position& pos, Node* node);

  // Table 0 is the only table, or the one being drained during a rehash; table 1 is the
  // rehash target. A null bucket array means that table does not exist.
  Node** buckets_[2] = {nullptr, nullptr};
  size_t used_[2] = {0, 0};
  // Buckets of table 0 below this index are already moved; kNotRehashing when idle.
  size_t rehash_index_ = kNotRehashing;
  uint8_t log2_[2] = {0, 0};
  uint8_t max_load_ = 1;
};

}  // namespace vireo

#include "store/hash_table_inl.h"
