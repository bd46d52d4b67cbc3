#include "store/set_intset.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "store/memory.h"

namespace vireo::set_intset {
namespace {

std::vector<int64_t> Contents(const unsigned char* is) {
  std::vector<int64_t> v;
  for (size_t i = 0; i < Length(is); ++i) v.push_back(Get(is, i));
  return v;
}

TEST(SetIntsetTest, EmptyHasOnlyHeader) {
  unsigned char* is = New();
  EXPECT_EQ(Length(is), 0u);
  EXPECT_EQ(Bytes(is), 4u);
  EXPECT_FALSE(Contains(is, 0));
  Free(is);
}

TEST(SetIntsetTest, AddKeepsSortedAndRejectsDuplicates) {
  unsigned char* is = New();
  bool added;
  for (int64_t v : {5, -3, 9, 0, 5, -3}) is = Add(is, v, &added);
  EXPECT_EQ(Contents(is), (std::vector<int64_t>{-3, 0, 5, 9}));
  is = Add(is, 9, &added);
  EXPECT_FALSE(added);
  is = Add(is, 10, &added);
  EXPECT_TRUE(added);
  Free(is);
}

TEST(SetIntsetTest, TenSmallIntegersFitSixteenBytes) {
  unsigned char* is = New();
  bool added;
  for (int64_t v = 0; v < 10; ++v) is = Add(is, v, &added);
  EXPECT_EQ(Bytes(is), 14u);
  // The allocator's class for 16 bytes: 16 with jemalloc; glibc's smallest chunk holds 24
  // (12 on 32-bit targets), so the set must not ask for more than that class either. (A fresh
  // block of the set's size: glibc's realloc may grow a block in place into a larger chunk,
  // depending on what earlier tests left in the heap.)
  void* sixteen = ZMalloc(16);
  void* same = ZMalloc(Bytes(is));
  EXPECT_LE(ZMallocSize(same), ZMallocSize(sixteen));
  ZFree(same);
  ZFree(sixteen);
  Free(is);
}

TEST(SetIntsetTest, WidensForLargerValuesAtBothEnds) {
  unsigned char* is = New();
  bool added;
  is = Add(is, 1, &added);
  is = Add(is, 100, &added);
  EXPECT_EQ(Bytes(is), 4u + 2);
  is = Add(is, 1000, &added);  // 16 bits
  EXPECT_EQ(Bytes(is), 4u + 3 * 2);
  is = Add(is, -100000, &added);  // 32 bits, goes first
  EXPECT_EQ(Bytes(is), 4u + 4 * 4);
  is = Add(is, INT64_MAX, &added);  // 64 bits, goes last
  is = Add(is, INT64_MIN, &added);
  EXPECT_EQ(Contents(is), (std::vector<int64_t>{INT64_MIN, -100000, 1, 100, 1000, INT64_MAX}));
  EXPECT_EQ(Min(is), INT64_MIN);
  EXPECT_EQ(Max(is), INT64_MAX);
  EXPECT_TRUE(Contains(is, 1000));
  EXPECT_FALSE(Contains(is, 999));
  Free(is);
}

TEST(SetIntsetTest, ValueWiderThanStoredIsNeverFound) {
  unsigned char* is = New();
  bool added, removed;
  is = Add(is, 1, &added);
  EXPECT_FALSE(Contains(is, 1LL << 40));
  is = Remove(is, 1LL << 40, &removed);
  EXPECT_FALSE(removed);
  EXPECT_EQ(Length(is), 1u);
  Free(is);
}

TEST(SetIntsetTest, RemoveShrinks) {
  unsigned char* is = New();
  bool added, removed;
  for (int64_t v : {1, 2, 3}) is = Add(is, v, &added);
  is = Remove(is, 2, &removed);
  EXPECT_TRUE(removed);
  is = Remove(is, 2, &removed);
  EXPECT_FALSE(removed);
  EXPECT_EQ(Contents(is), (std::vector<int64_t>{1, 3}));
  is = RemoveAt(is, 0);
  EXPECT_EQ(Contents(is), (std::vector<int64_t>{3}));
  Free(is);
}

TEST(SetIntsetTest, RandomOperationsMatchModel) {
  std::mt19937_64 rng(7);
  std::set<int64_t> model;
  unsigned char* is = New();
  const int64_t ranges[] = {100, 30000, 3000000000LL, INT64_MAX};
  for (int i = 0; i < 5000; ++i) {
    int64_t range = ranges[rng() % 4];
    int64_t v = static_cast<int64_t>(rng() % static_cast<uint64_t>(range)) - range / 2;
    bool changed;
    if (rng() % 3 == 0) {
      is = Remove(is, v, &changed);
      EXPECT_EQ(changed, model.erase(v) == 1);
    } else {
      is = Add(is, v, &changed);
      EXPECT_EQ(changed, model.insert(v).second);
    }
  }
  EXPECT_EQ(Contents(is), std::vector<int64_t>(model.begin(), model.end()));
  for (int64_t v : model) EXPECT_TRUE(Contains(is, v));
  Free(is);
}

}  // namespace
}  // namespace vireo::set_intset
