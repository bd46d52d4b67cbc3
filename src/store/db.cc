#include "store/db.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "common/clock.h"
#include "common/crc16.h"
#include "store/access_clock.h"
#include "store/lazy_free.h"
#include "store/value.h"

namespace vireo {
namespace {

ExpiredHook g_expired_hook = nullptr;
AddedHook g_added_hook = nullptr;
AddedHook g_miss_hook = nullptr;

std::unique_ptr<HashTable<Entry>> NewKeyTable() {
  auto table = std::make_unique<HashTable<Entry>>();
  // Keys are many and small: a bucket array at load 1-2 costs 4-8 bytes per key instead of
  // 8-16, for chains of 1.5 nodes on average instead of 1.25.
  table->SetMaxLoad(2);
  return table;
}

}  // namespace

void Db::SetExpiredHook(ExpiredHook hook) { g_expired_hook = hook; }
void Db::SetAddedHook(AddedHook hook) { g_added_hook = hook; }
void Db::SetMissHook(AddedHook hook) { g_miss_hook = hook; }

Db::Db(int index, KeyspaceStats* stats)
    : index_(index), stats_(stats), table_(NewKeyTable()) {}

Db::~Db() { table_->Clear([](Entry* e) { FreeEntry(e); }); }

bool Db::IsExpired(const Entry* e) {
  const int64_t ms = e->expire_ms();
  return ms != 0 && ms <= CommandTimeMs();
}

void Db::DeleteExpired(Entry* e) {
  BeforeChange(e);
  table_->Remove(e->Key(), KeyHash(e->Key()));
  if (slot_keys_ != nullptr) [[unlikely]] --slot_keys_[KeyHashSlot(e->Key())];
  --volatile_;
  ++stats_->expired_keys;
  // The hook runs while the unlinked entry still owns the key bytes, so no copy is needed.
  if (g_expired_hook != nullptr) g_expired_hook(index_, e->Key());
  if (FreeEffort(e) > kLazyFreeThreshold) {
    LazyFreeEntry(e);
  } else {
    FreeEntry(e);
  }
}

Entry* Db::Find(std::string_view key) {
  Entry* e = table_->Find(key, KeyHash(key));
  if (e == nullptr) return nullptr;
  // Every change of a key starts with finding it: the one hook on the hot path.
  BeforeChange(e);
  if (IsExpired(e)) {
    if (expiry_mode_ == ExpiryMode::kDelete) [[likely]] {
      DeleteExpired(e);
      return nullptr;
    }
    return expiry_mode_ == ExpiryMode::kKeep ? e : nullptr;
  }
  return e;
}

Entry* Db::Lookup(std::string_view key, bool touch) {
  Entry* e = Find(key);
  if (e == nullptr) {
    ++stats_->keyspace_misses;
    if (g_miss_hook != nullptr) g_miss_hook(index_, key);
    return nullptr;
  }
  ++stats_->keyspace_hits;
  if (touch) TouchAccess(e);
  return e;
}

Entry* Db::Add(std::string_view key, bool with_expire) {
  Entry* e = NewEntry(key, with_expire);
  e->SetLru(NewAccessClock());
  e->meta |= saved_bit_;  // NewEntry leaves the bit clear
  table_->Insert(e, KeyHash(key));
  if (slot_keys_ != nullptr) [[unlikely]] ++slot_keys_[KeyHashSlot(key)];
  if (g_added_hook != nullptr) g_added_hook(index_, key);
  return e;
}

Entry* Db::Detach(std::string_view key) {
  Entry* e = table_->Remove(key, KeyHash(key));
  if (e == nullptr) return nullptr;
  if (slot_keys_ != nullptr) [[unlikely]] --slot_keys_[KeyHashSlot(key)];
  BeforeChange(e);
  if (e->expire_ms() != 0) --volatile_;
  return e;
}

void Db::Attach(Entry* e) { AttachHashed(e, KeyHash(e->Key())); }

bool Db::AttachIfAbsent(Entry* e) {
  const uint64_t hash = KeyHash(e->Key());
  if (table_->Find(e->Key(), hash) != nullptr) return false;
  AttachHashed(e, hash);
  return true;
}

void Db::AttachHashed(Entry* e, uint64_t hash) {
  e->SetNext(nullptr);
  StampSaved(e);
  table_->Insert(e, hash);
  if (slot_keys_ != nullptr) [[unlikely]] ++slot_keys_[KeyHashSlot(e->Key())];
  if (e->expire_ms() != 0) ++volatile_;
  if (g_added_hook != nullptr) g_added_hook(index_, e->Key());
}

bool Db::Delete(std::string_view key, bool lazy) {
  Entry* e = Find(key);
  if (e == nullptr) return false;
  Detach(key);
  if (lazy && FreeEffort(e) > kLazyFreeThreshold) {
    LazyFreeEntry(e);
  } else {
    FreeEntry(e);
  }
  return true;
}

void Db::ReplaceEntry(Entry* old_entry, Entry* new_entry) {
  BeforeChange(old_entry);
  StampSaved(new_entry);
  if (old_entry->expire_ms() != 0) --volatile_;
  if (new_entry->expire_ms() != 0) ++volatile_;
  table_->Replace(old_entry, new_entry, KeyHash(old_entry->Key()));
  FreeEntry(old_entry);
}

Entry* Db::SetExpire(Entry* e, int64_t ms) {
  BeforeChange(e);
  const int64_t old_ms = e->expire_ms();
  if (old_ms == 0 && ms != 0) ++volatile_;
  if (old_ms != 0 && ms == 0) --volatile_;
  if (!e->HasExpireField()) {
    // Clearing an expiry that was never there costs nothing; setting one moves the entry
    // into an allocation with room for it (most keys never get a TTL, and save 8 bytes).
    if (ms == 0) return e;
    Entry* moved = WithExpireField(e);
    // Replace reads e's chain link: e is freed only once moved has taken its place.
    table_->Replace(e, moved, KeyHash(e->Key()));
    FreeEntryHeader(e);
    e = moved;
  }
  e->StoreExpire(ms);
  return e;
}

Entry* Db::Random() {
  // Bounded retries: a table full of expired keys must not loop forever.
  for (int i = 0; i < 100; ++i) {
    Entry* e = table_->Random();
    if (e == nullptr) return nullptr;
    if (!IsExpired(e)) return e;
    if (i < 99 && !Importing(e)) DeleteExpired(e);
    else return e;  // give up like Valkey does after many tries: return an expired one
  }
  return nullptr;
}

void Db::Clear(bool async) {
  volatile_ = 0;
  expire_cursor_ = 0;
  if (slot_keys_ != nullptr) std::fill_n(slot_keys_.get(), kClusterSlots, 0);
  if (table_->Size() == 0) return;
  if (observer_ != nullptr && !snap_done_) {
    // Pending entries must still be saved: the snapshot takes the table and frees it.
    snap_done_ = true;
    observer_->AdoptTable(snap_origin_, table_.release());
    table_ = NewKeyTable();
    return;
  }
  if (async) {
    HashTable<Entry>* old = table_.release();
    table_ = NewKeyTable();
    LazyFreeJob([old] {
      old->Clear([](Entry* e) { FreeEntry(e); });
      delete old;
    });
  } else {
    table_->Clear([](Entry* e) { FreeEntry(e); });
  }
}

void Db::Swap(Db& other) {
  std::swap(table_, other.table_);
  std::swap(volatile_, other.volatile_);
  std::swap(slot_keys_, other.slot_keys_);  // the counts describe the table they go with
  std::swap(expire_cursor_, other.expire_cursor_);
  std::swap(snap_cursor_, other.snap_cursor_);
  std::swap(snap_done_, other.snap_done_);
  std::swap(snap_origin_, other.snap_origin_);
}

void Db::TrackSlots() {
  if (slot_keys_ != nullptr) return;
  slot_keys_ = std::make_unique<uint64_t[]>(kClusterSlots);  // zeroed
  table_->ForEach([&](Entry* e) { ++slot_keys_[KeyHashSlot(e->Key())]; });
}

void Db::BeginSnapshot(SnapshotObserver* observer) {
  saved_bit_ ^= Entry::kSnapshotBit;
  observer_ = observer;
}

void Db::EndSnapshot() { observer_ = nullptr; }

void Db::StartSnapshotWalk() {
  snap_cursor_ = 0;
  snap_done_ = table_->Size() == 0;
  snap_origin_ = index_;
}

void Db::SavePending(Entry* e) {
  StampSaved(e);
  observer_->SaveEntry(snap_origin_, e);
}

size_t Db::SnapshotStep(size_t buckets) {
  size_t saved = 0;
  // Scan's cursor reaches every entry present for the whole walk whatever resizes and
  // rehash steps happen between steps; the bit makes a second visit a no-op, and entries
  // that went meanwhile were saved on their way out.
  for (size_t i = 0; i < buckets && !snap_done_; ++i) {
    snap_cursor_ = table_->Scan(snap_cursor_, [&](Entry* e) {
      if (!SnapshotPending(e)) return;
      SavePending(e);
      ++saved;
    });
    if (snap_cursor_ == 0) snap_done_ = true;
  }
  return saved;
}

void Db::NormalizeSnapshotBits() {
  table_->ForEach([](Entry* e) { StampSaved(e); });
  snap_done_ = true;
}

size_t Db::ActiveExpire(size_t buckets) {
  if (volatile_ == 0 || table_->Size() == 0) return 0;
  std::vector<Entry*>& expired = expire_batch_;
  expired.clear();
  for (size_t i = 0; i < buckets; ++i) {
    expire_cursor_ = table_->Scan(expire_cursor_, [&](Entry* e) {
      if (IsExpired(e) && !Importing(e)) expired.push_back(e);
    });
    if (expire_cursor_ == 0) break;
  }
  for (Entry* e : expired) DeleteExpired(e);
  size_t n = expired.size();
  expired.clear();
  return n;
}

bool Db::Housekeeping(int64_t deadline_us) {
  table_->MaybeShrink();
  if (deadline_us <= 0) return false;
  // 100 bucket moves take a few microseconds: the clock is read between batches only.
  while (table_->RehashStep(100)) {
    if (MonotonicUs() >= deadline_us) return true;
  }
  return false;
}

}  // namespace vireo
