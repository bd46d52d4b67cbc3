#include "store/hash_value.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "store/memory.h"
#include "store/value.h"

namespace vireo {
namespace {

class HashValueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterCollectionOps(
        ObjType::kHash, {hash::FreeObject, hash::FreeEffort, hash::MemoryUsage, hash::CopyObject});
    e_ = NewEntry("h");
    hash::InitEmpty(e_);
  }
  void TearDown() override { FreeEntry(e_); }

  std::string Get(std::string_view field) {
    hash::Item v;
    if (!hash::Get(e_, field, &v)) return "(nil)";
    char buf[24];
    return std::string(v.View(buf));
  }
  std::map<std::string, std::string> All() {
    std::map<std::string, std::string> out;
    hash::Iterator it(e_);
    char fb[24], vb[24];
    while (it.Next()) out.emplace(it.field().View(fb), it.value().View(vb));
    return out;
  }

  Entry* e_ = nullptr;
  hash::Limits limits_{4, 8};  // tiny thresholds so the boundaries are cheap to reach
};

TEST_F(HashValueTest, StartsAsEmptyListpack) {
  EXPECT_EQ(e_->type(), ObjType::kHash);
  EXPECT_EQ(e_->encoding(), Encoding::kListPack);
  EXPECT_EQ(hash::Length(e_), 0u);
}

TEST_F(HashValueTest, ListpackSetGetDelete) {
  EXPECT_TRUE(hash::Set(e_, "a", "1", limits_));
  EXPECT_TRUE(hash::Set(e_, "b", "hello", limits_));
  EXPECT_FALSE(hash::Set(e_, "a", "-17", limits_));
  EXPECT_EQ(Get("a"), "-17");
  EXPECT_EQ(Get("b"), "hello");
  EXPECT_EQ(Get("c"), "(nil)");
  hash::Item v;
  ASSERT_TRUE(hash::Get(e_, "a", &v));
  EXPECT_FALSE(v.IsInt());  // the pairpack keeps text (see store/pair_pack.h)
  EXPECT_EQ(hash::ItemLength(v), 3u);
  EXPECT_TRUE(hash::Delete(e_, "a"));
  EXPECT_FALSE(hash::Delete(e_, "a"));
  EXPECT_EQ(hash::Length(e_), 1u);
  // A value equal to a field name must not be found as a field.
  hash::Set(e_, "x", "b", limits_);
  EXPECT_EQ(Get("b"), "hello");
  EXPECT_FALSE(hash::Exists(e_, "hello"));
}

TEST_F(HashValueTest, ConvertsWhenCountPassesEntriesLimit) {
  for (int i = 0; i < 4; ++i) hash::Set(e_, "f" + std::to_string(i), "v", limits_);
  EXPECT_EQ(e_->encoding(), Encoding::kListPack);  // exactly at the limit
  hash::Set(e_, "f0", "updated", limits_);
  EXPECT_EQ(e_->encoding(), Encoding::kListPack);  // updates do not count
  hash::Set(e_, "f4", "v", limits_);
  EXPECT_EQ(e_->encoding(), Encoding::kHashTable);
  EXPECT_EQ(hash::Length(e_), 5u);
  EXPECT_EQ(Get("f0"), "updated");
}

TEST_F(HashValueTest, LoweredEntriesLimitConvertsOnAnUpdate) {
  for (int i = 0; i < 3; ++i) hash::Set(e_, "f" + std::to_string(i), "v", limits_);
  hash::Limits lowered{1, 8};  // CONFIG SET hash-max-listpack-entries 1
  EXPECT_FALSE(hash::Set(e_, "f0", "again", lowered));
  EXPECT_EQ(e_->encoding(), Encoding::kHashTable);  // as redis-server: HINCRBY converts too
  EXPECT_EQ(Get("f0"), "again");
}

TEST_F(HashValueTest, ConvertsWhenFieldOrValuePassesValueLimit) {
  hash::Set(e_, "12345678", "12345678", limits_);  // exactly max_value: stays packed
  EXPECT_EQ(e_->encoding(), Encoding::kListPack);
  hash::Set(e_, "f", "123456789", limits_);
  EXPECT_EQ(e_->encoding(), Encoding::kHashTable);
  EXPECT_EQ(Get("12345678"), "12345678");

  Entry* other = NewEntry("o");
  hash::InitEmpty(other);
  hash::Set(other, "123456789", "v", limits_);
  EXPECT_EQ(other->encoding(), Encoding::kHashTable);
  FreeEntry(other);
}

TEST_F(HashValueTest, PrepareWriteConvertsOnlyForLongStrings) {
  std::string_view ok[2] = {"f", "12345678"};
  hash::PrepareWrite(e_, ok, 2, limits_);
  EXPECT_EQ(e_->encoding(), Encoding::kListPack);
  // Many pairs alone do not convert (repeated fields may still fit, as in Redis 7.0).
  std::string_view many[10] = {"a", "1", "a", "1", "a", "1", "a", "1", "a", "1"};
  hash::PrepareWrite(e_, many, 10, limits_);
  EXPECT_EQ(e_->encoding(), Encoding::kListPack);
  std::string_view long_value[2] = {"f", "123456789"};
  hash::PrepareWrite(e_, long_value, 2, limits_);
  EXPECT_EQ(e_->encoding(), Encoding::kHashTable);
}

TEST_F(HashValueTest, TtlConvertsToTableAndExpires) {
  hash::Set(e_, "a", "1", limits_);
  hash::Set(e_, "b", "2", limits_);
  EXPECT_EQ(hash::GetExpire(e_, "a"), -1);
  EXPECT_EQ(hash::GetExpire(e_, "zz"), -2);
  EXPECT_EQ(hash::Persist(e_, "a"), -1);
  // XX and GT cannot hold on a listpack (no TTL = infinite) and do not convert.
  EXPECT_EQ(hash::SetExpire(e_, "a", 5000, hash::kXx, 1000), 0);
  EXPECT_EQ(hash::SetExpire(e_, "a", 5000, hash::kGt, 1000), 0);
  EXPECT_EQ(e_->encoding(), Encoding::kListPack);
  EXPECT_EQ(hash::SetExpire(e_, "zz", 5000, hash::kNone, 1000), -2);
  EXPECT_EQ(hash::SetExpire(e_, "a", 5000, hash::kNone, 1000), 1);
  EXPECT_EQ(e_->encoding(), Encoding::kHashTable);
  EXPECT_TRUE(hash::HasVolatileFields(e_));
  EXPECT_EQ(hash::GetExpire(e_, "a"), 5000);
  // Conditions against an existing TTL.
  EXPECT_EQ(hash::SetExpire(e_, "a", 6000, hash::kNx, 1000), 0);
  EXPECT_EQ(hash::SetExpire(e_, "a", 4000, hash::kGt, 1000), 0);
  EXPECT_EQ(hash::SetExpire(e_, "a", 6000, hash::kGt, 1000), 1);
  EXPECT_EQ(hash::SetExpire(e_, "a", 7000, hash::kLt, 1000), 0);
  EXPECT_EQ(hash::SetExpire(e_, "a", 5500, hash::kLt | hash::kXx, 1000), 1);
  EXPECT_EQ(hash::SetExpire(e_, "b", 9000, hash::kLt, 1000), 1);  // no TTL = infinite
  // Lazy expiry.
  EXPECT_EQ(hash::PurgeExpired(e_, 5500), 0u);
  EXPECT_EQ(hash::PurgeExpired(e_, 5501), 1u);
  EXPECT_EQ(Get("a"), "(nil)");
  EXPECT_EQ(hash::Persist(e_, "b"), 1);
  EXPECT_FALSE(hash::HasVolatileFields(e_));
  // A time not in the future deletes at once.
  EXPECT_EQ(hash::SetExpire(e_, "b", 1000, hash::kNone, 1000), 2);
  EXPECT_EQ(hash::Length(e_), 0u);
}

TEST_F(HashValueTest, PastTimeOnListpackDeletesWithoutConverting) {
  hash::Set(e_, "a", "1", limits_);
  hash::Set(e_, "b", "1", limits_);
  EXPECT_EQ(hash::SetExpire(e_, "a", 10, hash::kNone, 1000), 2);
  EXPECT_EQ(e_->encoding(), Encoding::kListPack);
  EXPECT_EQ(hash::Length(e_), 1u);
}

TEST_F(HashValueTest, SetWithTtlAndKeepTtl) {
  hash::Set(e_, "a", "1", limits_, 9000);
  EXPECT_EQ(e_->encoding(), Encoding::kHashTable);
  EXPECT_EQ(hash::GetExpire(e_, "a"), 9000);
  hash::Set(e_, "a", "2", limits_, hash::kKeepTtl);
  EXPECT_EQ(hash::GetExpire(e_, "a"), 9000);
  hash::Set(e_, "a", "3", limits_);
  EXPECT_EQ(hash::GetExpire(e_, "a"), -1);
  EXPECT_EQ(Get("a"), "3");
}

TEST_F(HashValueTest, IteratorSeesEverythingInBothEncodings) {
  std::map<std::string, std::string> want;
  for (int i = 0; i < 4; ++i) {
    want["f" + std::to_string(i)] = std::to_string(i * 1000);
    hash::Set(e_, "f" + std::to_string(i), std::to_string(i * 1000), limits_);
  }
  EXPECT_EQ(All(), want);
  for (int i = 4; i < 50; ++i) {
    want["f" + std::to_string(i)] = "text" + std::to_string(i);
    hash::Set(e_, "f" + std::to_string(i), "text" + std::to_string(i), limits_);
  }
  EXPECT_EQ(e_->encoding(), Encoding::kHashTable);
  EXPECT_EQ(All(), want);
}

TEST_F(HashValueTest, ScanListpackReturnsAllAtOnce) {
  for (int i = 0; i < 3; ++i) hash::Set(e_, "f" + std::to_string(i), "v", limits_);
  size_t n = 0;
  EXPECT_EQ(hash::Scan(e_, 0, 1, [&](const hash::Item&, const hash::Item&) { ++n; }), 0u);
  EXPECT_EQ(n, 3u);
}

TEST_F(HashValueTest, RandomSampling) {
  for (int enc = 0; enc < 2; ++enc) {
    int fields = enc == 0 ? 4 : 40;
    for (int i = 0; i < fields; ++i) hash::Set(e_, "f" + std::to_string(i), "v", limits_);
    std::vector<hash::Item> f, v;
    hash::RandomDistinctPairs(e_, 3, &f, &v);
    std::set<std::string> distinct;
    char buf[24];
    for (const auto& item : f) distinct.emplace(item.View(buf));
    EXPECT_EQ(distinct.size(), 3u);
    f.clear();
    v.clear();
    hash::RandomDistinctPairs(e_, 1000, &f, &v);
    EXPECT_EQ(f.size(), static_cast<size_t>(fields));
    f.clear();
    v.clear();
    hash::RandomDistinctPairs(e_, fields - 1, &f, &v);  // the "most of the hash" path
    distinct.clear();
    for (const auto& item : f) distinct.emplace(item.View(buf));
    EXPECT_EQ(distinct.size(), static_cast<size_t>(fields - 1));
    f.clear();
    v.clear();
    size_t calls = 0;
    hash::ForRandomPairs(e_, 500, [&](const hash::Item& field, const hash::Item&) {
      ++calls;
      distinct.emplace(field.View(buf));
    });
    EXPECT_EQ(calls, 500u);
  }
}

TEST_F(HashValueTest, CopyAndFreeThroughCollectionOps) {
  for (int i = 0; i < 40; ++i)
    hash::Set(e_, "f" + std::to_string(i), "v", limits_, i == 3 ? 7777 : 0);
  Entry* copy = CopyEntry(e_, "copy");
  EXPECT_EQ(copy->encoding(), Encoding::kHashTable);
  hash::Delete(e_, "f1");
  Entry* saved = e_;
  e_ = copy;
  EXPECT_EQ(hash::Length(copy), 40u);
  EXPECT_EQ(hash::GetExpire(copy, "f3"), 7777);
  EXPECT_GT(EntryMemory(copy), 40u * 16);
  e_ = saved;
  FreeEntry(copy);
}

}  // namespace
}  // namespace vireo
