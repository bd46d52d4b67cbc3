#include "store/db.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/crc16.h"
#include "store/lazy_free.h"
#include "store/memory.h"
#include "store/value.h"

namespace vireo {
namespace {

TEST(Db, AddFindDelete) {
  KeyspaceStats stats;
  Db db(0, &stats);
  Entry* e = db.Add("k");
  SetStringValue(e, "hello");
  ASSERT_EQ(db.Find("k"), e);
  EXPECT_EQ(db.Size(), 1u);
  char buf[24];
  EXPECT_EQ(StringValue(db.Find("k"), buf), "hello");
  EXPECT_TRUE(db.Delete("k"));
  EXPECT_FALSE(db.Delete("k"));
  EXPECT_EQ(db.Find("k"), nullptr);
}

// Keys per cluster slot stay equal to a count over the table through every way keys come and
// go: adds, deletes, detach/attach, expiry (lazy, active, random picks), flushes and SWAPDB.
TEST(Db, SlotCountsFollowEveryChange) {
  KeyspaceStats stats;
  Db db(0, &stats);
  Db other(1, &stats);
  for (int i = 0; i < 300; ++i) SetStringValue(db.Add("pre:" + std::to_string(i)), "v");
  db.TrackSlots();
  other.TrackSlots();
  auto check = [](Db& d) {
    std::vector<uint64_t> want(kClusterSlots, 0);
    size_t total = 0;
    d.ForEach([&](Entry* e) { ++want[KeyHashSlot(e->Key())]; });
    for (int s = 0; s < kClusterSlots; ++s) {
      // Expired keys not yet deleted count in the slot (ForEach hides them): never fewer.
      ASSERT_GE(d.KeysInSlot(s), want[static_cast<size_t>(s)]) << s;
      total += d.KeysInSlot(s);
    }
    ASSERT_EQ(total, d.Size());
  };
  check(db);
  for (int i = 0; i < 2000; ++i) {
    const std::string key = "{t" + std::to_string(i % 7) + "}k" + std::to_string(i % 400);
    switch (i % 6) {
      case 0:
        if (db.Find(key) == nullptr) SetStringValue(db.Add(key), "v");
        break;
      case 1:
        db.Delete(key);
        break;
      case 2:
        if (Entry* e = db.Detach(key); e != nullptr && !other.AttachIfAbsent(e)) db.Attach(e);
        break;
      case 3:
        if (Entry* e = db.Find(key)) (void)db.SetExpire(e, CommandTimeMs() - 1);
        break;
      case 4:
        db.ActiveExpire(64);
        db.Random();
        break;
      default:
        db.Find(key);  // deletes it when expired
        break;
    }
  }
  check(db);
  check(other);
  db.Swap(other);
  check(db);
  check(other);
  db.Clear(false);
  other.Clear(true);
  check(db);
  check(other);
  EXPECT_EQ(db.KeysInSlot(KeyHashSlot("{t1}k1")), 0u);
  LazyFreeDrain();
}

// The look-ahead's hash hint applies to the hinted key's bytes only, wherever they live, and
// never to another key. A wrong hash would send the operations to the wrong bucket: the
// wrong-hint case would then miss keys that are there.
TEST(Db, HashHintServesOnlyItsKey) {
  KeyspaceStats stats;
  Db db(0, &stats);
  for (int i = 0; i < 1000; ++i) db.Add("key:" + std::to_string(i));
  std::string hinted = "key:7";
  uint64_t hash = db.Prefetch(hinted);
  db.PrefetchEntry(hash);
  db.HintHash(hinted, hash);
  std::string copy = hinted;  // same bytes elsewhere: the hint still holds
  ASSERT_NE(db.Find(copy), nullptr);
  for (int i = 0; i < 1000; ++i) {  // other keys are hashed as usual
    ASSERT_NE(db.Find("key:" + std::to_string(i)), nullptr) << i;
  }
  EXPECT_TRUE(db.Delete(copy));
  EXPECT_EQ(db.Find(hinted), nullptr);
  db.Add(hinted);
  db.ClearHint();
  EXPECT_NE(db.Find("key:7"), nullptr);
  // A hint whose hash is not its key's must not be used for a different key.
  db.HintHash("key:8", 12345);
  EXPECT_NE(db.Find("key:9"), nullptr);
  db.ClearHint();
  EXPECT_EQ(db.Size(), 1000u);
}

TEST(Db, LookupCountsHitsAndMisses) {
  KeyspaceStats stats;
  Db db(0, &stats);
  db.Add("a");
  db.Lookup("a");
  db.Lookup("b");
  EXPECT_EQ(stats.keyspace_hits, 1u);
  EXPECT_EQ(stats.keyspace_misses, 1u);
}

TEST(Db, LazyExpiryDeletesOnAccess) {
  KeyspaceStats stats;
  Db db(0, &stats);
  RefreshCommandTime();
  Entry* e = db.Add("k");
  (void)db.SetExpire(e, CommandTimeMs() - 1);
  EXPECT_EQ(db.VolatileCount(), 1u);
  EXPECT_EQ(db.Find("k"), nullptr);
  EXPECT_EQ(db.Size(), 0u);
  EXPECT_EQ(db.VolatileCount(), 0u);
  EXPECT_EQ(stats.expired_keys, 1u);
}

TEST(Db, ActiveExpireRemovesUnreadKeys) {
  KeyspaceStats stats;
  Db db(0, &stats);
  RefreshCommandTime();
  for (int i = 0; i < 5000; ++i) {
    Entry* e = db.Add("key:" + std::to_string(i));
    if (i % 2 == 0) (void)db.SetExpire(e, CommandTimeMs() - 1);
  }
  size_t removed = 0;
  for (int round = 0; round < 1000 && db.VolatileCount() > 0; ++round) {
    removed += db.ActiveExpire(64);
  }
  EXPECT_EQ(removed, 2500u);
  EXPECT_EQ(db.Size(), 2500u);
  EXPECT_EQ(stats.expired_keys, 2500u);
}

// The entry is a 20-byte header and the key: a 12-byte key (`key:NNNNNNNN`) with an inline
// value fills exactly the 32-byte allocation class, and only keys with a TTL pay for the
// 8-byte expiry.
TEST(Entry, SmallKeysFitThirtyTwoBytes) {
#ifndef VIREO_ENTRY_PLAIN_LINK
  EXPECT_EQ(Entry::AllocSize(12, false), 32u);
  EXPECT_EQ(Entry::AllocSize(12, true), 40u);
#endif
  EXPECT_EQ(Entry::AllocSize(12, true), Entry::AllocSize(12, false) + 8);
  Entry* e = NewEntry("key:99999999");
  EXPECT_EQ(e->Key(), "key:99999999");
  EXPECT_FALSE(e->HasExpireField());
  EXPECT_EQ(e->expire_ms(), 0);
  SetStringValue(e, "abc");
  EXPECT_EQ(EntryMemory(e), ZMallocSize(e));
#if defined(VIREO_USE_JEMALLOC)
  EXPECT_EQ(ZMallocSize(e), 32u);
#endif
  FreeEntry(e);
}

// The chain link and the key's length byte share a word: setting either keeps the other.
TEST(Entry, LinkAndKeyInfoShareTheWord) {
  Entry* a = NewEntry("a-key", true);
  Entry* b = NewEntry(std::string(300, 'b'));
  a->StoreExpire(77);
  a->SetNext(b);
  EXPECT_EQ(a->Next(), b);
  EXPECT_EQ(a->Key(), "a-key");
  EXPECT_EQ(a->expire_ms(), 77);
  b->SetNext(a);
  EXPECT_EQ(b->Key(), std::string(300, 'b'));
  a->SetNext(nullptr);
  EXPECT_EQ(a->Next(), nullptr);
  EXPECT_EQ(a->Key(), "a-key");
  EXPECT_TRUE(a->HasExpireField());
  EXPECT_EQ(b->Next(), a);
  FreeEntry(a);
  FreeEntry(b);
}

// Keys of kLongKey bytes and more keep a 4-byte length before the key; both forms round-trip,
// with and without an expiry after them.
TEST(Entry, KeysOfEveryLengthRoundTrip) {
  for (size_t len : {size_t{0}, size_t{1}, size_t{126}, size_t{127}, size_t{128}, size_t{70000}}) {
    std::string key(len, 'k');
    if (len > 0) key.back() = 'z';
    for (bool with_expire : {false, true}) {
      Entry* e = NewEntry(key, with_expire);
      EXPECT_EQ(e->Key(), key) << len;
      EXPECT_EQ(e->HasExpireField(), with_expire);
      EXPECT_EQ(e->expire_ms(), 0);
      if (with_expire) {
        e->StoreExpire(1234567890123);
        EXPECT_EQ(e->expire_ms(), 1234567890123);
        EXPECT_EQ(e->Key(), key) << "the expiry follows the key, never overlaps it";
      }
      Entry* copy = CopyEntry(e, key + "!");
      EXPECT_EQ(copy->Key(), key + "!");
      EXPECT_EQ(copy->expire_ms(), e->expire_ms());
      Entry* moved = RekeyEntry(copy, "m");
      EXPECT_EQ(moved->Key(), "m");
      EXPECT_EQ(moved->expire_ms(), e->expire_ms());
      FreeEntry(moved);
      FreeEntry(e);
    }
  }
}

// The first TTL moves the entry into an allocation with room for it; the table then finds the
// new entry, value and access clock intact. Clearing keeps the room; setting again reuses it.
TEST(Db, FirstExpiryMovesTheEntry) {
  KeyspaceStats stats;
  Db db(0, &stats);
  RefreshCommandTime();
  for (int i = 0; i < 100; ++i) db.Add("other:" + std::to_string(i));  // chains to walk
  Entry* e = db.Add("k");
  SetStringValue(e, "a value longer than seven bytes");
  e->SetLru(4242);
  const int64_t when = CommandTimeMs() + 100000;
  Entry* moved = db.SetExpire(e, when);
  EXPECT_EQ(db.Find("k"), moved);
  EXPECT_TRUE(moved->HasExpireField());
  EXPECT_EQ(moved->expire_ms(), when);
  EXPECT_EQ(moved->lru(), 4242u);
  char buf[24];
  EXPECT_EQ(StringValue(moved, buf), "a value longer than seven bytes");
  EXPECT_EQ(db.VolatileCount(), 1u);
  EXPECT_EQ(db.SetExpire(moved, 0), moved);
  EXPECT_EQ(db.VolatileCount(), 0u);
  EXPECT_EQ(moved->expire_ms(), 0);
  EXPECT_EQ(db.SetExpire(moved, when + 1), moved);
  EXPECT_EQ(db.Find("k")->expire_ms(), when + 1);
  Entry* plain = db.Add("plain");
  EXPECT_EQ(db.SetExpire(plain, 0), plain) << "no expiry to clear: nothing moves";
  EXPECT_FALSE(plain->HasExpireField());
  EXPECT_EQ(db.Size(), 102u);
}

// The periodic task finishes a grow within its time budget instead of leaving both bucket
// arrays allocated until enough writes arrive (activerehashing).
TEST(Db, HousekeepingFinishesARehashByItsDeadline) {
  KeyspaceStats stats;
  Db db(0, &stats);
  int n = 0;
  while (!db.Rehashing() || db.Size() < 5000) db.Add("key:" + std::to_string(n++));
  ASSERT_TRUE(db.Rehashing());
  EXPECT_FALSE(db.Housekeeping(0)) << "no deadline: no rehash work";
  EXPECT_TRUE(db.Rehashing());
  EXPECT_FALSE(db.Housekeeping(MonotonicUs() + 10'000'000));
  EXPECT_FALSE(db.Rehashing());
  EXPECT_EQ(db.Size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) ASSERT_NE(db.Find("key:" + std::to_string(i)), nullptr);
}

TEST(Db, ScanSkipsExpiredAndSeesAll) {
  KeyspaceStats stats;
  Db db(0, &stats);
  RefreshCommandTime();
  for (int i = 0; i < 1000; ++i) db.Add("k" + std::to_string(i));
  (void)db.SetExpire(db.Find("k5"), CommandTimeMs() - 1);
  std::set<std::string> seen;
  uint64_t cursor = 0;
  do {
    cursor = db.Scan(cursor, [&](Entry* e) { seen.insert(std::string(e->Key())); });
  } while (cursor != 0);
  EXPECT_EQ(seen.size(), 999u);
  EXPECT_EQ(seen.count("k5"), 0u);
}

TEST(Db, ClearAsyncAndSwap) {
  KeyspaceStats stats;
  Db a(0, &stats), b(1, &stats);
  for (int i = 0; i < 100; ++i) SetStringValue(a.Add("a" + std::to_string(i)), "v");
  b.Add("only-b");
  a.Swap(b);
  EXPECT_EQ(a.Size(), 1u);
  EXPECT_EQ(b.Size(), 100u);
  b.Clear(true);
  EXPECT_EQ(b.Size(), 0u);
  LazyFreeDrain();
  EXPECT_EQ(b.Find("a1"), nullptr);
}

TEST(Value, EncodingsFollowValkey) {
  Entry* e = NewEntry("k");
  SetStringValue(e, "12345");
  EXPECT_EQ(e->encoding(), Encoding::kInt);
  SetStringValue(e, "012");
  EXPECT_EQ(e->encoding(), Encoding::kInlineStr);
  EXPECT_STREQ(EncodingName(e->encoding()), "embstr");
  SetStringValue(e, "0123456789");
  EXPECT_EQ(e->encoding(), Encoding::kEmbStr);
  SetStringValue(e, std::string(44, 'x'));
  EXPECT_EQ(e->encoding(), Encoding::kEmbStr);
  SetStringValue(e, std::string(45, 'x'));
  EXPECT_EQ(e->encoding(), Encoding::kRaw);
  SetIntValue(e, -7);
  EXPECT_EQ(AppendToString(e, "0"), 3u);
  EXPECT_EQ(e->encoding(), Encoding::kRaw);
  char buf[24];
  EXPECT_EQ(StringValue(e, buf), "-70");
  EXPECT_EQ(SetRangeInString(e, 5, "ab"), 7u);
  EXPECT_EQ(StringValue(e, buf), std::string("-70\0\0ab", 7));
  FreeEntry(e);
}

}  // namespace
}  // namespace vireo

namespace vireo {
namespace {

TEST(Value, ShortStringsConvertToRawOnAppendAndCopy) {
  Entry* e = NewEntry("k");
  SetStringValue(e, "value:123456");
  EXPECT_EQ(e->encoding(), Encoding::kEmbStr);
  // One length byte: a 12-byte value fits a 16-byte allocation.
  Entry* bare = NewEntry("k");
  EXPECT_LE(EntryMemory(e) - EntryMemory(bare), 16u);
  FreeEntry(bare);
  Entry* copy = CopyEntry(e, "k2");
  char buf[24];
  EXPECT_EQ(StringValue(copy, buf), "value:123456");
  SetStringValue(e, "shortish");  // reuses the allocation
  EXPECT_EQ(StringValue(e, buf), "shortish");
  SetStringValue(e, "short");
  EXPECT_EQ(StringValue(e, buf), "short");
  AppendToString(e, "er");
  EXPECT_EQ(e->encoding(), Encoding::kRaw);
  EXPECT_EQ(StringValue(e, buf), "shorter");
  SetNonIntStringValue(e, "2");
  EXPECT_EQ(e->encoding(), Encoding::kInlineStr);
  EXPECT_EQ(StringLength(e), 1u);
  SetStringValue(e, std::string(100, 'y'));
  EXPECT_EQ(e->encoding(), Encoding::kRaw);
  SetStringValue(e, std::string(44, 'z'));
  EXPECT_EQ(e->encoding(), Encoding::kEmbStr);
  EXPECT_EQ(StringValue(e, buf), std::string(44, 'z'));
  FreeEntry(e);
  FreeEntry(copy);
}

}  // namespace
}  // namespace vireo

namespace vireo {
namespace {

// Values of up to 7 bytes live in the entry's value word: no allocation, "embstr" to clients.
TEST(Value, TinyStringsLiveInTheEntry) {
  Entry* bare = NewEntry("key:00000001");
  Entry* e = NewEntry("key:00000001");
  char buf[24];
  for (std::string_view v : {"", "x", "abc", "abcdefg"}) {
    SetStringValue(e, v);
    EXPECT_EQ(e->encoding(), Encoding::kInlineStr) << v;
    EXPECT_EQ(StringValue(e, buf), v);
    EXPECT_EQ(StringLength(e), v.size());
    EXPECT_EQ(EntryMemory(e), EntryMemory(bare));
  }
  SetStringValue(e, "abcdefgh");  // one byte too many
  EXPECT_EQ(e->encoding(), Encoding::kEmbStr);
  SetStringValue(e, "tiny");
  EXPECT_EQ(e->encoding(), Encoding::kInlineStr);
  Entry* copy = CopyEntry(e, "k2");
  EXPECT_EQ(copy->encoding(), Encoding::kInlineStr);
  EXPECT_EQ(StringValue(copy, buf), "tiny");
  Entry* moved = RekeyEntry(copy, "k3");
  EXPECT_EQ(StringValue(moved, buf), "tiny");
  EXPECT_EQ(AppendToString(e, "-more"), 9u);
  EXPECT_EQ(e->encoding(), Encoding::kRaw);
  EXPECT_EQ(StringValue(e, buf), "tiny-more");
  SetStringValue(e, "ab");
  EXPECT_EQ(SetRangeInString(e, 4, "z"), 5u);
  EXPECT_EQ(StringValue(e, buf), std::string("ab\0\0z", 5));
  SetStringValue(e, "7bytes!");
  SetIntValue(e, 5);  // frees nothing it does not own
  EXPECT_EQ(e->encoding(), Encoding::kInt);
  FreeEntry(e);
  FreeEntry(moved);
  FreeEntry(bare);
}

}  // namespace
}  // namespace vireo
