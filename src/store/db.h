// One logical database: a hash table of entries with expiry, lazy and active.
// Owned and used by the execution thread only.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "common/hash.h"
#include "store/entry.h"
#include "store/hash_table.h"

namespace vireo {

// Counters the keyspace updates, read by INFO.
struct KeyspaceStats {
  uint64_t expired_keys = 0;
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t expired_stale_perc = 0;
  uint64_t expire_cycle_cpu_us = 0;
};

// Observer for key expiry (keyspace notifications and propagation attach here later).
using ExpiredHook = void (*)(int db_index, std::string_view key);
// Observer for key creation by Add or Attach (the "new" keyspace event).
using AddedHook = void (*)(int db_index, std::string_view key);

class Db {
 public:
  Db(int index, KeyspaceStats* stats);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  int index() const { return index_; }
  size_t Size() const { return table_->Size(); }
  size_t VolatileCount() const { return volatile_; }

  // The live entry for key, or nullptr. A logically expired key is deleted here (lazy expiry).
  // Does not touch hit/miss stats; use Lookup for reads that count.
  Entry* Find(std::string_view key);
  // Find + keyspace_hits/misses accounting + access clock update (reads by commands).
  // touch = false leaves the access clock alone (TYPE, TTL, OBJECT: Valkey's NOTOUCH).
  Entry* Lookup(std::string_view key, bool touch = true);
  // The entry even if logically expired (no side effects).
  Entry* FindRaw(std::string_view key) const { return table_->Find(key); }
  // True if e's expiry time has passed.
  static bool IsExpired(const Entry* e);

  // Inserts a fresh entry for key, which must not be present. Returns it (value int 0).
  Entry* Add(std::string_view key);
  // Deletes key (freeing its value, in the background when large and lazy is set).
  // Returns false if absent or already expired.
  bool Delete(std::string_view key, bool lazy = false);
  // Unlinks key's entry and hands it to the caller (nullptr if absent).
  Entry* Detach(std::string_view key);
  // Links an entry detached from this or another Db (its key must not be present here).
  void Attach(Entry* e);
  // Replaces the entry old (present here) by new_entry with the same key; frees old.
  void ReplaceEntry(Entry* old_entry, Entry* new_entry);

  // Sets or clears (ms = 0) e's absolute expiry, keeping the volatile count right.
  void SetExpire(Entry* e, int64_t ms);

  // One SCAN step over the table; fn(Entry*) per live entry. Returns the next cursor.
  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn) {
    return table_->Scan(cursor, [&](Entry* e) {
      if (!IsExpired(e)) fn(e);
    });
  }
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    table_->ForEach([&](Entry* e) {
      if (!IsExpired(e)) fn(e);
    });
  }

  // A random live key's entry, or nullptr when empty (expired picks are deleted).
  Entry* Random();

  // Removes every key; with async the entries are freed on the lazy-free thread.
  void Clear(bool async);
  // Exchanges contents with other (SWAPDB).
  void Swap(Db& other);

  // Active expiry: examines up to `buckets` buckets from a rolling cursor, deleting expired
  // keys. Returns the number of keys expired.
  size_t ActiveExpire(size_t buckets);
  // Incremental rehash / shrink housekeeping (periodic task).
  void Housekeeping();

  // Pipelined look-ahead (Server::ProcessInput): Prefetch starts loading key's bucket and
  // returns key's hash; PrefetchEntry, a few commands later, the first entry of that bucket;
  // HintHash lets the command that then runs on key skip hashing it again. The hinted bytes
  // must stay valid and unchanged until ClearHint.
  uint64_t Prefetch(std::string_view key) const { return table_->Prefetch(key); }
  void PrefetchEntry(uint64_t hash) const { table_->PrefetchChain(hash); }
  void HintHash(std::string_view key, uint64_t hash) {
    hint_key_ = key;
    hint_hash_ = hash;
  }
  void ClearHint() { hint_key_ = {}; }

  static void SetExpiredHook(ExpiredHook hook);
  static void SetAddedHook(AddedHook hook);
  // Called by Lookup when the key is missing (the "keymiss" keyspace event).
  static void SetMissHook(AddedHook hook);

 private:
  void DeleteExpired(Entry* e);
  uint64_t KeyHash(std::string_view key) const {
    if (key.size() == hint_key_.size() && hint_key_.data() != nullptr &&
        (key.data() == hint_key_.data() ||
         std::memcmp(key.data(), hint_key_.data(), key.size()) == 0)) {
      return hint_hash_;
    }
    return HashBytes(key);
  }

  int index_;
  KeyspaceStats* stats_;
  std::unique_ptr<HashTable<Entry>> table_;
  std::string_view hint_key_;  // see HintHash
  uint64_t hint_hash_ = 0;
  size_t volatile_ = 0;
  uint64_t expire_cursor_ = 0;
  std::vector<Entry*> expire_batch_;  // ActiveExpire's scratch, kept to avoid reallocating
};

}  // namespace vireo
