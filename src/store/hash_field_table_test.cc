#include "store/hash_field_table.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "store/memory.h"

namespace vireo {
namespace {

std::string F(int i) { return "field:" + std::to_string(i); }
std::string V(int i) { return "value:" + std::to_string(i); }

std::map<std::string, std::string> Contents(const HashFieldTable& t) {
  std::map<std::string, std::string> out;
  t.ForEach([&](const HashFieldNode* n) {
    out.emplace(HashFieldTable::Field(n), HashFieldTable::Value(n));
  });
  return out;
}

TEST(HashFieldTable, SetFindDelete) {
  HashFieldTable t;
  EXPECT_EQ(t.Find("a"), nullptr);
  EXPECT_TRUE(t.Set("a", "1"));
  EXPECT_FALSE(t.Set("a", "22"));
  EXPECT_TRUE(t.Set("", ""));
  ASSERT_NE(t.Find("a"), nullptr);
  EXPECT_EQ(HashFieldTable::Value(t.Find("a")), "22");
  EXPECT_EQ(HashFieldTable::Value(t.Find("")), "");
  EXPECT_EQ(t.Size(), 2u);
  EXPECT_TRUE(t.Delete("a"));
  EXPECT_FALSE(t.Delete("a"));
  EXPECT_EQ(t.Find("a"), nullptr);
  EXPECT_EQ(t.Size(), 1u);
}

TEST(HashFieldTable, BinarySafeAndLongStrings) {
  HashFieldTable t;
  std::string nul("a\0b", 3);
  std::string long_field(300, 'f');
  std::string long_value(70000, 'v');
  t.Set(nul, nul);
  t.Set(long_field, "short");
  t.Set("short", long_value);
  EXPECT_EQ(HashFieldTable::Value(t.Find(nul)), nul);
  EXPECT_EQ(t.Find(std::string("a\0c", 3)), nullptr);
  EXPECT_EQ(HashFieldTable::Value(t.Find(long_field)), "short");
  EXPECT_EQ(HashFieldTable::Field(t.Find(long_field)), long_field);
  EXPECT_EQ(HashFieldTable::Value(t.Find("short")), long_value);
  // Updates crossing the short/long layouts keep the right bytes.
  t.Set("short", "tiny");
  EXPECT_EQ(HashFieldTable::Value(t.Find("short")), "tiny");
  t.Set(long_field, long_value);
  EXPECT_EQ(HashFieldTable::Value(t.Find(long_field)), long_value);
}

// The design promise: a field:N / value:N pair is one 32-byte allocation.
TEST(HashFieldTable, SmallPairTakesOneSizeClass) {
  HashFieldTable t;
  t.Set("field:123456", "value:123456");
  const HashFieldNode* n = t.Find("field:123456");
  if (std::string(AllocatorName()).rfind("jemalloc", 0) != 0) GTEST_SKIP() << "size classes";
  EXPECT_LE(ZMallocSize(const_cast<HashFieldNode*>(n)), 32u);
}

TEST(HashFieldTable, GrowsAndShrinksKeepingEveryField) {
  HashFieldTable t;
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(t.Set(F(i), V(i)));
  EXPECT_EQ(t.Size(), 5000u);
  for (int i = 0; i < 5000; ++i) {
    const HashFieldNode* n = t.Find(F(i));
    ASSERT_NE(n, nullptr) << i;
    ASSERT_EQ(HashFieldTable::Value(n), V(i));
  }
  for (int i = 0; i < 4990; ++i) ASSERT_TRUE(t.Delete(F(i)));
  for (int i = 0; i < 3000; ++i) t.Set("x", "y");  // mutations finish the shrinks
  EXPECT_LE(t.BucketCount(), 64u);
  auto c = Contents(t);
  EXPECT_EQ(c.size(), 11u);
  for (int i = 4990; i < 5000; ++i) EXPECT_EQ(c[F(i)], V(i));
}

TEST(HashFieldTable, UpdateInPlaceAndReallocated) {
  HashFieldTable t;
  for (int i = 0; i < 100; ++i) t.Set(F(i), V(i));
  for (int i = 0; i < 100; ++i) t.Set(F(i), std::string(i * 3, 'x'));
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(HashFieldTable::Value(t.Find(F(i))), std::string(i * 3, 'x'));
  }
  EXPECT_EQ(t.Size(), 100u);
}

TEST(HashFieldTable, IterationVisitsEachNodeOnceWhileRehashing) {
  HashFieldTable t;
  for (int i = 0; i < 1000; ++i) t.Set(F(i), V(i));
  // 1024 -> grow starts at the 1025th insert; stop half-way through the rehash.
  for (int i = 1000; i < 1030; ++i) t.Set(F(i), V(i));
  ASSERT_TRUE(t.IsRehashing());
  std::set<std::string> seen;
  HashFieldTable::Position pos;
  size_t visits = 0;
  while (const HashFieldNode* n = t.NextNode(&pos)) {
    seen.emplace(HashFieldTable::Field(n));
    ++visits;
  }
  EXPECT_EQ(visits, 1030u);
  EXPECT_EQ(seen.size(), 1030u);
  EXPECT_EQ(t.NextNode(&pos), nullptr);
}

TEST(HashFieldTable, ScanReturnsEveryFieldPresentThroughResizes) {
  HashFieldTable t;
  for (int i = 0; i < 500; ++i) t.Set(F(i), V(i));
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int step = 0;
  do {
    cursor =
        t.Scan(cursor, [&](const HashFieldNode* n) { seen.emplace(HashFieldTable::Field(n)); });
    // Grow, then shrink, while the scan runs; fields 0..99 stay all along.
    if (step < 40) {
      for (int i = 0; i < 40; ++i) t.Set("grow" + std::to_string(step * 40 + i), "v");
    } else if (step < 80) {
      for (int i = 0; i < 40; ++i) t.Delete("grow" + std::to_string((step - 40) * 40 + i));
      for (int i = 0; i < 10; ++i) t.Delete(F(100 + (step - 40) * 10 + i));
    }
    ++step;
  } while (cursor != 0);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(seen.count(F(i))) << F(i);
}

TEST(HashFieldTable, RandomReturnsMembers) {
  HashFieldTable t;
  EXPECT_EQ(t.Random(), nullptr);
  for (int i = 0; i < 50; ++i) t.Set(F(i), V(i));
  std::set<std::string> seen;
  for (int i = 0; i < 2000; ++i) seen.emplace(HashFieldTable::Field(t.Random()));
  EXPECT_EQ(seen.size(), 50u);
}

TEST(HashFieldTable, TtlsLiveOnlyInFlaggedNodes) {
  HashFieldTable t;
  size_t before = HashFieldTable::VolatileTables();
  t.Set("plain", "v");
  EXPECT_EQ(HashFieldTable::Expire(t.Find("plain")), 0);
  EXPECT_EQ(t.VolatileCount(), 0u);
  t.Set("ttl", "v", 5000);
  EXPECT_EQ(HashFieldTable::Expire(t.Find("ttl")), 5000);
  EXPECT_EQ(HashFieldTable::Value(t.Find("ttl")), "v");
  EXPECT_EQ(t.VolatileCount(), 1u);
  EXPECT_EQ(t.MinExpire(), 5000);
  EXPECT_EQ(HashFieldTable::VolatileTables(), before + 1);
  // HSET semantics drop the TTL; kKeepTtl keeps it.
  t.Set("ttl", "w", HashFieldTable::kKeepTtl);
  EXPECT_EQ(HashFieldTable::Expire(t.Find("ttl")), 5000);
  t.Set("ttl", "x");
  EXPECT_EQ(HashFieldTable::Expire(t.Find("ttl")), 0);
  EXPECT_EQ(t.VolatileCount(), 0u);
  EXPECT_EQ(HashFieldTable::VolatileTables(), before);
  // SetExpire adds, changes and removes.
  EXPECT_TRUE(t.SetExpire("plain", 3000));
  EXPECT_TRUE(t.SetExpire("plain", 4000));
  EXPECT_EQ(t.MinExpire(), 4000);
  EXPECT_EQ(HashFieldTable::Value(t.Find("plain")), "v");
  EXPECT_TRUE(t.SetExpire("plain", 0));
  EXPECT_EQ(t.VolatileCount(), 0u);
  EXPECT_FALSE(t.SetExpire("nope", 10));
}

TEST(HashFieldTable, PurgeExpiredRemovesOnlyPastFields) {
  HashFieldTable t;
  for (int i = 0; i < 100; ++i) t.Set(F(i), V(i), i < 50 ? 1000 + i : 0);
  t.Set("long" + std::string(300, 'x'), std::string(400, 'y'), 1010);
  EXPECT_EQ(t.VolatileCount(), 51u);
  EXPECT_EQ(t.PurgeExpired(1000), 0u);  // expiring at 1000 is still visible at 1000
  EXPECT_EQ(t.PurgeExpired(1010), 10u);
  EXPECT_EQ(t.PurgeExpired(5000, 5), 5u);  // bounded
  EXPECT_EQ(t.PurgeExpired(5000), 36u);
  EXPECT_EQ(t.Size(), 50u);
  EXPECT_EQ(t.VolatileCount(), 0u);
  EXPECT_EQ(t.MinExpire(), 0);
  for (int i = 50; i < 100; ++i) EXPECT_NE(t.Find(F(i)), nullptr);
}

TEST(HashFieldTable, CloneIsDeepWithTtls) {
  HashFieldTable t;
  for (int i = 0; i < 300; ++i) t.Set(F(i), V(i), i % 3 == 0 ? 9000 + i : 0);
  HashFieldTable* c = t.Clone();
  t.Set(F(1), "changed");
  t.Delete(F(2));
  EXPECT_EQ(c->Size(), 300u);
  EXPECT_EQ(HashFieldTable::Value(c->Find(F(1))), V(1));
  EXPECT_EQ(HashFieldTable::Expire(c->Find(F(3))), 9003);
  EXPECT_EQ(c->VolatileCount(), 100u);
  delete c;
}

TEST(HashFieldTable, RandomizedAgainstMap) {
  std::mt19937 rng(7);
  HashFieldTable t;
  std::map<std::string, std::string> model;
  for (int op = 0; op < 20000; ++op) {
    std::string f = "f" + std::to_string(rng() % 700);
    int kind = static_cast<int>(rng() % 10);
    if (kind < 6) {
      std::string v(rng() % 40 + (rng() % 20 == 0 ? 300 : 0), static_cast<char>('a' + rng() % 26));
      EXPECT_EQ(t.Set(f, v), model.find(f) == model.end());
      model[f] = v;
    } else {
      EXPECT_EQ(t.Delete(f), model.erase(f) == 1);
    }
  }
  EXPECT_EQ(Contents(t), model);
  EXPECT_GT(t.MemoryUsage(), model.size() * 16);
}

}  // namespace
}  // namespace vireo
