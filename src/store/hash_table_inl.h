// Template implementation of HashTable; included only from hash_table.h.
//
// Why it is built this way:
// - Load factor 1 (or the SetMaxLoad value) before growing, 1/8 before shrinking: chains stay
//   around one node long, and the gap means a table hovering near a threshold never flips
//   between grow and shrink. A grow started at load L ends at load <= (L + 1) / 2.
// - Growth doubles; shrink goes straight to the smallest power of two >= Size(), because the
//   periodic task may find the table far below 1/8 after a mass delete.
// - Each Insert/Remove moves one bucket chain (more if the rehash target is overloaded, see
//   StepsPerMutation), and a step gives up after 10 empty buckets per requested move, so no
//   single call walks a long run of empty slots. A grow therefore finishes before the old
//   table's bucket count of inserts has arrived, which keeps the new table at load <= 1.
// - Find never rehashes: it is const, and keeping GET free of writes keeps it lean. Read-only
//   load still finishes a rehash: the server calls RehashStep after each turn (AdvanceRehash).
// - Nodes store no hash: memory per key matters more than rehash speed, which is amortized.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdlib>
#include <cstring>

#include "common/bytes.h"
#include "common/hash.h"
#include "common/huge_pages.h"
#include "common/prefetch.h"

namespace vireo {
namespace hash_table_internal {

// splitmix64 over a per-thread counter: Random() is const and the table must stay small, so
// the generator state lives with the thread, which is the table's only user anyway.
inline uint64_t NextRandom() {
  thread_local uint64_t state = 0x2545f4914f6cdd1dULL;
  state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline uint64_t ReverseBits(uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
  return __builtin_bswap64(v);
}

// Increments the bits of cursor under mask starting from the most significant one. Visiting
// buckets in this order means a bucket's expansions in a larger table (same low bits, any
// high bits) come right after each other, and a smaller table's bucket covers exactly the
// ones already done or still to do. That is what makes the cursor survive resizes.
inline uint64_t NextCursor(uint64_t cursor, uint64_t mask) {
  cursor |= ~mask;  // bits above the mask carry straight through
  return ReverseBits(ReverseBits(cursor) + 1);
}

// A node's chain link. A node type may keep other bits in its link word and expose the link
// through Next()/SetNext() (the keyspace's Entry keeps its key length there); plain nodes
// have a `next` member.
template <typename Node>
inline Node* NextOf(const Node* node) {
  if constexpr (requires { node->Next(); }) {
    return node->Next();
  } else {
    return node->next;
  }
}

template <typename Node>
inline void SetNextOf(Node* node, Node* next) {
  if constexpr (requires { node->SetNext(next); }) {
    node->SetNext(next);
  } else {
    node->next = next;
  }
}

template <typename Node>
inline bool KeyEquals(const Node* node, std::string_view key) {
  std::string_view k = node->Key();
  return k.size() == key.size() && BytesEqual(k.data(), key.data(), key.size());
}

// What a command on a node reads first beyond the node itself, where the node type names it
// (the keyspace's Entry: a long string's blob): requested when the look-ahead finds the key.
template <typename Node>
inline void PrefetchPayload(const Node* node) {
  if constexpr (requires { node->PrefetchValue(); }) node->PrefetchValue();
}

template <typename Node>
inline Node* FindInChain(Node* node, std::string_view key) {
  for (; node != nullptr; node = NextOf(node)) {
    if (KeyEquals(node, key)) return node;
  }
  return nullptr;
}

// Calls fn on each node of a chain; reads next first so fn may relink or free the node.
template <typename Node, typename Fn>
inline void ForEachInChain(Node* node, Fn& fn) {
  while (node != nullptr) {
    Node* next = NextOf(node);
    fn(node);
    node = next;
  }
}

}  // namespace hash_table_internal

template <typename Node>
HashTable<Node>::HashTable() = default;

template <typename Node>
Node** HashTable<Node>::AllocBuckets(size_t n) {
  auto** buckets = static_cast<Node**>(std::calloc(n, sizeof(Node*)));
  // Every lookup reads one slot at random: over a few MiB of slots, most reads would also
  // miss the TLB. The advice applies to the pages calloc has not touched yet.
  AdviseHugePages(buckets, n * sizeof(Node*));
  return buckets;
}

template <typename Node>
HashTable<Node>::~HashTable() {
  std::free(buckets_[0]);
  std::free(buckets_[1]);
}

template <typename Node>
size_t HashTable<Node>::Size() const {
  return used_[0] + used_[1];
}

template <typename Node>
size_t HashTable<Node>::BucketCount() const {
  return Buckets(0) + Buckets(1);
}

template <typename Node>
bool HashTable<Node>::IsRehashing() const {
  return rehash_index_ != kNotRehashing;
}

template <typename Node>
Node* HashTable<Node>::Find(std::string_view key, uint64_t hash) const {
  using hash_table_internal::FindInChain;
  if (buckets_[0] == nullptr) return nullptr;
  size_t index = hash & Mask(0);
  if (!IsRehashing()) return FindInChain(buckets_[0][index], key);
  // Buckets of table 0 below rehash_index_ are empty; new keys are only in table 1.
  if (index >= rehash_index_) {
    if (Node* node = FindInChain(buckets_[0][index], key)) return node;
  }
  return FindInChain(buckets_[1][hash & Mask(1)], key);
}

template <typename Node>
uint64_t HashTable<Node>::Prefetch(std::string_view key) const {
  uint64_t hash = HashBytes(key);
  if (buckets_[0] == nullptr) return hash;
  const size_t index = hash & Mask(0);
  if (!IsRehashing() || index >= rehash_index_) PrefetchRead(&buckets_[0][index]);
  if (IsRehashing()) PrefetchRead(&buckets_[1][hash & Mask(1)]);
  return hash;
}

template <typename Node>
void HashTable<Node>::PrefetchChain(uint64_t hash) const {
  if (buckets_[0] == nullptr) return;
  const size_t index = hash & Mask(0);
  // While rehashing, Find walks table 0's chain (where the bucket has not moved yet) and then
  // table 1's: both heads are wanted. A bulk insert spends much of its time rehashing.
  if (!IsRehashing() || index >= rehash_index_) {
    if (const Node* head = buckets_[0][index]) PrefetchNode(head);
  }
  if (IsRehashing()) {
    if (const Node* head = buckets_[1][hash & Mask(1)]) PrefetchNode(head);
  }
}

// Inlined into the pipeline loop (Server::ProcessInput), where a call per command costs more
// than the check itself.
template <typename Node>
[[gnu::always_inline]] inline void HashTable<Node>::PrefetchPastHead(std::string_view key,
                                                                      uint64_t hash) const {
  using hash_table_internal::KeyEquals;
  using hash_table_internal::NextOf;
  using hash_table_internal::PrefetchPayload;
  if (buckets_[0] == nullptr) return;
  auto past = [key](const Node* head) {
    if (head == nullptr) return;
    if (KeyEquals(head, key)) {
      PrefetchPayload(head);
      return;
    }
    if (const Node* next = NextOf(head)) PrefetchNode(next);
  };
  const size_t index = hash & Mask(0);
  if (!IsRehashing() || index >= rehash_index_) past(buckets_[0][index]);
  if (IsRehashing()) past(buckets_[1][hash & Mask(1)]);
}

template <typename Node>
void HashTable<Node>::Insert(Node* node, uint64_t hash) {
  if (IsRehashing()) {
    RehashStep(StepsPerMutation());
  } else if (buckets_[0] == nullptr) {
    buckets_[0] = AllocBuckets(kMinBuckets);
    // Insert cannot report failure, and a process that cannot get 32 bytes is done.
    if (buckets_[0] == nullptr) std::abort();
    log2_[0] = std::countr_zero(kMinBuckets);
  } else if (used_[0] >= Buckets(0) * max_load_) {
    StartRehash(log2_[0] + 1);
  }
  int table = IsRehashing() ? 1 : 0;
  size_t index = hash & Mask(table);
  hash_table_internal::SetNextOf(node, buckets_[table][index]);
  buckets_[table][index] = node;
  ++used_[table];
}

template <typename Node>
Node* HashTable<Node>::Remove(std::string_view key, uint64_t hash) {
  if (Size() == 0) return nullptr;
  if (IsRehashing()) RehashStep(StepsPerMutation());
  using hash_table_internal::NextOf;
  const Position pos =
      FindPosition(hash, [key](const Node* n) { return hash_table_internal::KeyEquals(n, key); });
  if (pos.node == nullptr) return nullptr;
  Relink(pos, NextOf(pos.node));
  hash_table_internal::SetNextOf(pos.node, static_cast<Node*>(nullptr));
  --used_[pos.table];
  return pos.node;
}

template <typename Node>
void HashTable<Node>::Replace(Node* old_node, Node* new_node, uint64_t hash) {
  using hash_table_internal::SetNextOf;
  const Position pos = FindPosition(hash, [old_node](const Node* n) { return n == old_node; });
  assert(pos.node != nullptr && "Replace: old_node is not in the table");
  if (pos.node == nullptr) return;
  SetNextOf(new_node, hash_table_internal::NextOf(old_node));
  Relink(pos, new_node);
  SetNextOf(old_node, static_cast<Node*>(nullptr));
}

template <typename Node>
template <typename Fn>
uint64_t HashTable<Node>::Scan(uint64_t cursor, Fn&& fn) {
  using hash_table_internal::ForEachInChain;
  using hash_table_internal::NextCursor;
  if (buckets_[0] == nullptr) return 0;
  if (!IsRehashing()) {
    uint64_t mask = Mask(0);
    ForEachInChain(buckets_[0][cursor & mask], fn);
    return NextCursor(cursor, mask);
  }
  // A node can be in either table. Visit the small table's bucket, then every bucket of the
  // large table that splits from it; together they hold every node with those low bits.
  int small = log2_[0] < log2_[1] ? 0 : 1;
  int large = 1 - small;
  uint64_t small_mask = Mask(small);
  uint64_t large_mask = Mask(large);
  ForEachInChain(buckets_[small][cursor & small_mask], fn);
  do {
    ForEachInChain(buckets_[large][cursor & large_mask], fn);
    cursor = NextCursor(cursor, large_mask);
    // Once the bits only the large mask has wrap to zero, the carry has advanced the small
    // table's part of the cursor: that is the next cursor.
  } while ((cursor & (small_mask ^ large_mask)) != 0);
  return cursor;
}

template <typename Node>
Node* HashTable<Node>::Random() const {
  using hash_table_internal::NextRandom;
  if (Size() == 0) return nullptr;
  // Candidate buckets, numbered across both tables: table 0 from the first unmoved bucket,
  // then all of table 1.
  size_t first0 = IsRehashing() ? rehash_index_ : 0;
  size_t count0 = Buckets(0) - first0;
  size_t total = count0 + Buckets(1);
  auto slot = [&](size_t i) {
    return i < count0 ? buckets_[0][first0 + i] : buckets_[1][i - count0];
  };
  // Load is usually >= 1/8, so a few probes find a non-empty bucket. A table left sparse
  // (MaybeShrink not yet run) falls back to a walk from a random bucket, which is bounded
  // but favours buckets after long empty runs.
  constexpr int kProbes = 64;
  Node* chain = nullptr;
  for (int i = 0; i < kProbes && chain == nullptr; ++i) chain = slot(NextRandom() % total);
  for (size_t i = NextRandom() % total; chain == nullptr; i = (i + 1) % total) chain = slot(i);
  size_t length = 0;
  for (Node* n = chain; n != nullptr; n = hash_table_internal::NextOf(n)) ++length;
  for (size_t skip = NextRandom() % length; skip > 0; --skip) {
    chain = hash_table_internal::NextOf(chain);
  }
  return chain;
}

template <typename Node>
bool HashTable<Node>::RehashStep(size_t n) {
  if (!IsRehashing()) return false;
  size_t empty_visits = n * 10;
  size_t mask1 = Mask(1);
  const size_t buckets0 = Buckets(0);
  while (n > 0 && used_[0] > 0) {
    // Moving a chain reads every node of it (its link, and its key to hash): the head a few
    // buckets ahead is requested at each visit, so it has arrived when its turn comes (a
    // step per insert keeps this window moving across commands too).
    if (rehash_index_ + kRehashAhead < buckets0) {
      if (const Node* ahead = buckets_[0][rehash_index_ + kRehashAhead]) PrefetchRead(ahead);
    }
    // used_[0] > 0 means some bucket at or after rehash_index_ is non-empty.
    Node* node = buckets_[0][rehash_index_];
    if (node == nullptr) {
      ++rehash_index_;
      if (--empty_visits == 0) break;
      continue;
    }
    buckets_[0][rehash_index_] = nullptr;
    while (node != nullptr) {
      Node* next = hash_table_internal::NextOf(node);
      size_t index = HashBytes(node->Key()) & mask1;
      hash_table_internal::SetNextOf(node, buckets_[1][index]);
      buckets_[1][index] = node;
      --used_[0];
      ++used_[1];
      node = next;
    }
    ++rehash_index_;
    --n;
  }
  if (used_[0] > 0) return true;
  FinishRehash();
  return false;
}

template <typename Node>
template <typename Fn>
void HashTable<Node>::Clear(Fn&& fn) {
  // Detach first so fn sees an empty table if it looks at it.
  Node** tables[2] = {buckets_[0], buckets_[1]};
  size_t counts[2] = {Buckets(0), Buckets(1)};
  buckets_[0] = buckets_[1] = nullptr;
  used_[0] = used_[1] = 0;
  log2_[0] = log2_[1] = 0;
  rehash_index_ = kNotRehashing;
  auto unlink = [&fn](Node* node) {
    hash_table_internal::SetNextOf(node, static_cast<Node*>(nullptr));
    fn(node);
  };
  for (int t = 0; t < 2; ++t) {
    for (size_t i = 0; i < counts[t]; ++i)
      hash_table_internal::ForEachInChain(tables[t][i], unlink);
    std::free(tables[t]);
  }
}

template <typename Node>
template <typename Fn>
void HashTable<Node>::ForEach(Fn&& fn) const {
  size_t first0 = IsRehashing() ? rehash_index_ : 0;
  for (size_t i = first0; i < Buckets(0); ++i) {
    hash_table_internal::ForEachInChain(buckets_[0][i], fn);
  }
  for (size_t i = 0; i < Buckets(1); ++i) hash_table_internal::ForEachInChain(buckets_[1][i], fn);
}

template <typename Node>
void HashTable<Node>::MaybeShrink() {
  if (IsRehashing() || buckets_[0] == nullptr) return;
  if (used_[0] == 0) {
    // An empty table goes back to costing only its header.
    std::free(buckets_[0]);
    buckets_[0] = nullptr;
    log2_[0] = 0;
    return;
  }
  size_t buckets = Buckets(0);
  if (buckets <= kMinBuckets || used_[0] * 8 >= buckets) return;
  size_t target = std::max(kMinBuckets, std::bit_ceil(used_[0]));
  StartRehash(static_cast<uint8_t>(std::countr_zero(target)));
}

template <typename Node>
void HashTable<Node>::Reserve(size_t n) {
  if (Size() != 0 || IsRehashing()) return;
  const size_t want = std::max(kMinBuckets, std::bit_ceil(std::max<size_t>(n / max_load_, 1)));
  if (want <= Buckets(0)) return;
  Node** buckets = AllocBuckets(want);
  if (buckets == nullptr) return;  // no room: the table grows as usual instead
  std::free(buckets_[0]);
  buckets_[0] = buckets;
  log2_[0] = static_cast<uint8_t>(std::countr_zero(want));
}

template <typename Node>
void HashTable<Node>::StartRehash(uint8_t log2) {
  buckets_[1] = AllocBuckets(size_t{1} << log2);
  // Out of memory: keep the current table, overloaded but correct; a later call retries.
  if (buckets_[1] == nullptr) return;
  log2_[1] = log2;
  used_[1] = 0;
  rehash_index_ = 0;
}

template <typename Node>
void HashTable<Node>::FinishRehash() {
  std::free(buckets_[0]);
  buckets_[0] = buckets_[1];
  used_[0] = used_[1];
  log2_[0] = log2_[1];
  buckets_[1] = nullptr;
  used_[1] = 0;
  log2_[1] = 0;
  rehash_index_ = kNotRehashing;
}

template <typename Node>
size_t HashTable<Node>::StepsPerMutation() const {
  // A grow started at load 1 never overloads its target (see the top of this file), but
  // inserts arriving during a shrink can; then move faster, in proportion to the overload,
  // to reach the grow that will follow.
  constexpr size_t kMaxSteps = 16;
  return std::min(kMaxSteps, 1 + (used_[1] >> log2_[1]));
}

template <typename Node>
template <typename Match>
typename HashTable<Node>::Position HashTable<Node>::FindPosition(uint64_t hash,
                                                                 Match&& is_match) const {
  for (int t = 0; t < 2; ++t) {
    if (buckets_[t] == nullptr) continue;
    size_t index = hash & Mask(t);
    if (t == 0 && IsRehashing() && index < rehash_index_) continue;
    Node* prev = nullptr;
    for (Node* n = buckets_[t][index]; n != nullptr; prev = n, n = hash_table_internal::NextOf(n)) {
      if (is_match(n)) return {t, index, prev, n};
    }
  }
  return {};
}

template <typename Node>
void HashTable<Node>::Relink(const Position& pos, Node* node) {
  if (pos.prev == nullptr) {
    buckets_[pos.table][pos.index] = node;
  } else {
    hash_table_internal::SetNextOf(pos.prev, node);
  }
}

}  // namespace vireo
