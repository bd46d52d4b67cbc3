// One logical database: a hash table of entries with expiry, lazy and active.
// Owned and used by the execution thread only.
#pragma once

#include <bitset>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "common/crc16.h"
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

// Receives a point-in-time snapshot of the keyspace without fork (persistence/cow_snapshot).
// While one is registered (Db::BeginSnapshot), every entry present when it began is handed to
// SaveEntry exactly once, unchanged: by the snapshot's own walk (SnapshotStep) or, when the
// entry is about to be changed, deleted, expired, renamed or moved first, by the Db operation
// that reaches it. Entries linked in later are never handed over.
class SnapshotObserver {
 public:
  virtual ~SnapshotObserver() = default;
  // e was in database origin_db when the snapshot began (SWAPDB moves tables, not origins).
  virtual void SaveEntry(int origin_db, const Entry* e) = 0;
  // The database is being emptied before its walk finished: the observer takes the table,
  // saves its pending entries (Db::SnapshotPending) and frees every entry and the table.
  virtual void AdoptTable(int origin_db, HashTable<Entry>* table) = 0;
};

class Db {
 public:
  Db(int index, KeyspaceStats* stats);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  int index() const { return index_; }
  size_t Size() const { return table_->Size(); }
  size_t VolatileCount() const { return volatile_; }

  // Cluster mode: keys per hash slot, kept as keys come and go (expired ones count until
  // they are deleted, as Valkey's per-slot tables do), so COUNTKEYSINSLOT and CLUSTER
  // SLOT-STATS key-count cost O(1) per slot instead of a keyspace walk. Off (one untaken
  // branch per insert and delete) until TrackSlots, which counts the keys present.
  void TrackSlots();
  bool tracking_slots() const { return slot_keys_ != nullptr; }
  uint64_t KeysInSlot(int slot) const { return slot_keys_[slot]; }
  bool Rehashing() const { return table_->IsRehashing(); }
  // INFO memory's mem_overhead_db_hashtable_rehashing (Valkey 8): the old bucket array.
  size_t RehashingBytes() const { return table_->RehashingBytes(); }

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
  // with_expire: the caller sets a TTL next (the entry gets room for it now, see SetExpire).
  Entry* Add(std::string_view key, bool with_expire = false);
  // Deletes key (freeing its value, in the background when large and lazy is set).
  // Returns false if absent or already expired.
  bool Delete(std::string_view key, bool lazy = false);
  // Unlinks key's entry and hands it to the caller (nullptr if absent).
  Entry* Detach(std::string_view key);
  // Links an entry detached from this or another Db (its key must not be present here).
  void Attach(Entry* e);
  // Attach unless the key is present (then false, e untouched): one hash for both (loads).
  bool AttachIfAbsent(Entry* e);
  // Sizes an empty keyspace for n keys (a load that knows its key count).
  void Reserve(size_t n) { table_->Reserve(n); }
  // Replaces the entry old (present here) by new_entry with the same key; frees old.
  void ReplaceEntry(Entry* old_entry, Entry* new_entry);

  // Sets or clears (ms = 0) e's absolute expiry, keeping the volatile count right. Returns the
  // entry, which moves to a new address when it gains its first expiry: e is then freed.
  [[nodiscard]] Entry* SetExpire(Entry* e, int64_t ms);

  // One SCAN step over the table; fn(Entry*) per live entry. Returns the next cursor.
  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn) {
    return table_->Scan(cursor, [&](Entry* e) {
      if (!IsExpired(e)) fn(e);
    });
  }
  // The same step over every entry, logically expired ones included (what per-slot counts
  // see).
  template <typename Fn>
  uint64_t ScanEntries(uint64_t cursor, Fn&& fn) {
    return table_->Scan(cursor, [&](Entry* e) { fn(e); });
  }
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    table_->ForEach([&](Entry* e) {
      if (!IsExpired(e)) fn(e);
    });
  }

  // Every entry, logically expired ones included (what per-slot counts see).
  template <typename Fn>
  void ForEachEntry(Fn&& fn) const {
    table_->ForEach([&](Entry* e) { fn(e); });
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
  // Periodic housekeeping: starts a shrink when the table is sparse and, with deadline_us > 0
  // (a MonotonicUs time; activerehashing), moves buckets of a running rehash until then.
  // Returns true if it stopped at the deadline with the rehash unfinished.
  bool Housekeeping(int64_t deadline_us);
  // Moves up to n buckets of a running rehash (Server::AdvanceRehash).
  void RehashSteps(size_t n) { table_->RehashStep(n); }

  // Pipelined look-ahead (Server::ProcessInput): Prefetch starts loading key's bucket and
  // returns key's hash; PrefetchEntry, a few commands later, the first entry of that bucket;
  // HintHash lets the command that then runs on key skip hashing it again. The hinted bytes
  // must stay valid and unchanged until ClearHint.
  uint64_t Prefetch(std::string_view key) const { return table_->Prefetch(key); }
  void PrefetchEntry(uint64_t hash) const { table_->PrefetchChain(hash); }
  // Just before key's command runs: its chain's second entry when the first is not key's.
  void PrefetchNext(std::string_view key, uint64_t hash) const {
    table_->PrefetchPastHead(key, hash);
  }
  void HintHash(std::string_view key, uint64_t hash) {
    hint_key_ = key;
    hint_hash_ = hash;
  }
  void ClearHint() { hint_key_ = {}; }

  // Fork-less snapshots. Each entry carries a bit that equals the "saved" value whenever no
  // snapshot runs; BeginSnapshot flips that value, so every existing entry becomes pending in
  // O(1), and entries linked in from then on (Add, Attach, ReplaceEntry) are stamped saved.
  // Every operation that can reach an entry to change it (Find and so Lookup/Delete, Detach,
  // ReplaceEntry, SetExpire, expiry, Clear) first hands a pending entry to the observer: one
  // predictable branch while no snapshot runs. One snapshot at a time per process.
  // Requires every entry to be "saved" (after EndSnapshot following a complete walk, or
  // after NormalizeSnapshotBits).
  static void BeginSnapshot(SnapshotObserver* observer);
  // After every database's walk is done (or, when abandoning, followed by
  // NormalizeSnapshotBits on every database before the next BeginSnapshot).
  static void EndSnapshot();
  static bool SnapshotRunning() { return observer_ != nullptr; }
  static bool SnapshotPending(const Entry* e) {
    return (e->meta & Entry::kSnapshotBit) != saved_bit_;
  }
  // Starts this database's walk (after BeginSnapshot).
  void StartSnapshotWalk();
  // Walks up to `buckets` buckets, handing pending entries to the observer; returns how many
  // it handed over. SnapshotWalkDone() once every bucket was visited (SWAPDB carries a
  // table's walk along with it).
  size_t SnapshotStep(size_t buckets);
  bool SnapshotWalkDone() const { return snap_done_; }
  // Marks every entry saved (after a snapshot was abandoned mid-walk).
  void NormalizeSnapshotBits();

  // What a lookup does with a logically expired key. A replica never deletes one itself (its
  // master sends the DEL): it hides it from reads (kHide), and its master's commands see it
  // as it is (kKeep). Active expiry is the caller's to skip.
  enum class ExpiryMode { kDelete, kHide, kKeep };
  // Cluster mode: hash slots an atomic slot migration is importing (nullptr: none). Their
  // keys belong to the source until the hand-off: clients do not see them, and they neither
  // expire actively nor get evicted here (the source's own deletions arrive in the stream).
  static void SetImportingSlots(const std::bitset<kClusterSlots>* slots) {
    importing_slots_ = slots;
  }
  static bool Importing(const Entry* e) {
    return importing_slots_ != nullptr && importing_slots_->test(KeyHashSlot(e->Key()));
  }
  static void SetExpiryMode(ExpiryMode mode) { expiry_mode_ = mode; }
  static ExpiryMode expiry_mode() { return expiry_mode_; }

  static void SetExpiredHook(ExpiredHook hook);
  static void SetAddedHook(AddedHook hook);
  // Called by Lookup when the key is missing (the "keymiss" keyspace event).
  static void SetMissHook(AddedHook hook);

 private:
  void DeleteExpired(Entry* e);
  // The snapshot hook: hands e to the observer first if it is still pending.
  void BeforeChange(Entry* e) {
    if (observer_ != nullptr) [[unlikely]] {
      if (SnapshotPending(e)) SavePending(e);
    }
  }
  void SavePending(Entry* e);
  static void StampSaved(Entry* e) { e->meta = (e->meta & ~Entry::kSnapshotBit) | saved_bit_; }
  void AttachHashed(Entry* e, uint64_t hash);
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
  std::unique_ptr<uint64_t[]> slot_keys_;  // TrackSlots: keys per cluster hash slot
  uint64_t expire_cursor_ = 0;
  std::vector<Entry*> expire_batch_;  // ActiveExpire's scratch, kept to avoid reallocating
  // The running snapshot's walk of table_ (swapped along with it by Swap).
  uint64_t snap_cursor_ = 0;
  bool snap_done_ = true;
  int snap_origin_ = 0;  // the database index table_ had when the snapshot began

  static inline SnapshotObserver* observer_ = nullptr;
  static inline ExpiryMode expiry_mode_ = ExpiryMode::kDelete;
  static inline const std::bitset<kClusterSlots>* importing_slots_ = nullptr;
  static inline uint32_t saved_bit_ = 0;  // 0 or Entry::kSnapshotBit
};

}  // namespace vireo
