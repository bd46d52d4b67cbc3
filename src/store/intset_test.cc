#include "store/intset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace vireo::intset {
namespace {

std::vector<unsigned char> Blob(const unsigned char* is) { return {is, is + Bytes(is)}; }

std::vector<unsigned char> FromHex(const std::string& hex) {
  std::vector<unsigned char> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<unsigned char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::vector<int64_t> Members(const unsigned char* is) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < Length(is); i++) out.push_back(Get(is, i));
  return out;
}

unsigned char* Build(const std::vector<int64_t>& values) {
  unsigned char* is = New();
  for (int64_t v : values) Add(&is, v, nullptr);
  return is;
}

TEST(IntSet, EmptySet) {
  unsigned char* is = New();
  EXPECT_EQ(Blob(is), (std::vector<unsigned char>{2, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Length(is), 0u);
  EXPECT_FALSE(Find(is, 0));
  EXPECT_FALSE(Remove(&is, 0));
  Free(is);
}

// Worked out by hand: encoding 2, length 3, then -3, 5, 1000 as 16-bit little-endian.
TEST(IntSet, GoldenBytes) {
  unsigned char* is = Build({5, -3, 1000, 5});
  EXPECT_EQ(Blob(is), (std::vector<unsigned char>{0x02, 0, 0, 0, 0x03, 0, 0, 0, 0xFD, 0xFF, 0x05,
                                                  0x00, 0xE8, 0x03}));
  Free(is);
}

TEST(IntSet, AddReportsDuplicatesAndKeepsOrder) {
  unsigned char* is = New();
  bool added = false;
  Add(&is, 10, &added);
  EXPECT_TRUE(added);
  Add(&is, 10, &added);
  EXPECT_FALSE(added);
  Add(&is, -10, &added);
  Add(&is, 0, &added);
  Add(&is, 5, &added);
  EXPECT_TRUE(added);
  EXPECT_EQ(Members(is), (std::vector<int64_t>{-10, 0, 5, 10}));
  EXPECT_EQ(Bytes(is), 8u + 4 * 2);
  Free(is);
}

TEST(IntSet, UpgradesSixteenToThirtyTwoToSixtyFour) {
  unsigned char* is = Build({1, -1, INT16_MAX, INT16_MIN});
  EXPECT_EQ(Encoding(is), 2u);
  bool added;
  Add(&is, int64_t{INT16_MAX} + 1, &added);  // goes at the end
  EXPECT_TRUE(added);
  EXPECT_EQ(Encoding(is), 4u);
  Add(&is, int64_t{INT16_MIN} - 1, &added);  // at the front
  EXPECT_EQ(Members(is),
            (std::vector<int64_t>{INT16_MIN - 1, INT16_MIN, -1, 1, INT16_MAX, INT16_MAX + 1}));
  Add(&is, INT32_MAX, &added);
  Add(&is, INT32_MIN, &added);
  EXPECT_EQ(Encoding(is), 4u);
  Add(&is, int64_t{INT32_MIN} - 1, &added);
  EXPECT_EQ(Encoding(is), 8u);
  Add(&is, INT64_MAX, &added);
  Add(&is, INT64_MIN, &added);
  EXPECT_EQ(Members(is), (std::vector<int64_t>{INT64_MIN, int64_t{INT32_MIN} - 1, INT32_MIN,
                                               INT16_MIN - 1, INT16_MIN, -1, 1, INT16_MAX,
                                               INT16_MAX + 1, INT32_MAX, INT64_MAX}));
  EXPECT_EQ(Bytes(is), 8u + 11 * 8);
  EXPECT_TRUE(Validate(is, Bytes(is), true));
  // Direct 16 -> 64.
  unsigned char* other = Build({7});
  Add(&other, INT64_MIN, &added);
  EXPECT_EQ(Encoding(other), 8u);
  EXPECT_EQ(Members(other), (std::vector<int64_t>{INT64_MIN, 7}));
  // Removing the wide ones never narrows.
  EXPECT_TRUE(Remove(&other, INT64_MIN));
  EXPECT_EQ(Encoding(other), 8u);
  EXPECT_EQ(Blob(other),
            (std::vector<unsigned char>{8, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0}));
  Free(other);
  Free(is);
}

TEST(IntSet, FindAndRemove) {
  unsigned char* is = Build({1, 3, 5, 70000});
  EXPECT_TRUE(Find(is, 70000));
  EXPECT_FALSE(Find(is, 2));
  EXPECT_FALSE(Find(is, INT64_MAX));  // wider than the encoding: absent at once
  EXPECT_FALSE(Remove(&is, INT64_MAX));
  EXPECT_FALSE(Remove(&is, 4));
  EXPECT_TRUE(Remove(&is, 3));
  EXPECT_FALSE(Find(is, 3));
  EXPECT_EQ(Members(is), (std::vector<int64_t>{1, 5, 70000}));
  EXPECT_TRUE(Remove(&is, 70000));
  EXPECT_TRUE(Remove(&is, 1));
  EXPECT_TRUE(Remove(&is, 5));
  EXPECT_EQ(Length(is), 0u);
  EXPECT_EQ(Bytes(is), 8u);
  Free(is);
}

TEST(IntSet, RandomEditsMatchModel) {
  std::mt19937_64 rng(11);
  std::set<int64_t> model;
  unsigned char* is = New();
  for (int step = 0; step < 3000; step++) {
    int64_t v;
    switch (rng() % 3) {
      case 0:
        v = static_cast<int64_t>(rng() % 200) - 100;
        break;
      case 1:
        v = static_cast<int64_t>(rng() % 200000) - 100000;
        break;
      default:
        v = static_cast<int64_t>(rng() % 64) * (int64_t{1} << 40);
        break;
    }
    if (rng() % 3 == 0) {
      EXPECT_EQ(Remove(&is, v), model.erase(v) == 1);
    } else {
      bool added;
      Add(&is, v, &added);
      EXPECT_EQ(added, model.insert(v).second);
    }
    ASSERT_EQ(Length(is), model.size());
  }
  EXPECT_EQ(Members(is), std::vector<int64_t>(model.begin(), model.end()));
  for (int64_t v : model) EXPECT_TRUE(Find(is, v));
  Free(is);
}

TEST(IntSet, DupIsIndependent) {
  unsigned char* a = Build({1, 2});
  unsigned char* b = Dup(a);
  EXPECT_EQ(Blob(a), Blob(b));
  Add(&b, 100000, nullptr);
  EXPECT_EQ(Length(a), 2u);
  EXPECT_EQ(Encoding(a), 2u);
  Free(a);
  Free(b);
}

TEST(IntSet, RandomReturnsMembersAndReachesAll) {
  unsigned char* is = Build({-7, 3, 9, 100000});
  std::set<int64_t> seen;
  for (int i = 0; i < 1000; i++) {
    const int64_t v = Random(is);
    EXPECT_TRUE(Find(is, v));
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 4u);
  Free(is);
}

TEST(IntSet, ValidateRejectsBadBlobs) {
  unsigned char* is = Build({-3, 5, 1000});
  const std::vector<unsigned char> good = Blob(is);
  Free(is);
  auto valid = [](std::vector<unsigned char> b, bool deep) {
    return Validate(b.data(), b.size(), deep);
  };
  EXPECT_TRUE(valid(good, true));
  EXPECT_FALSE(Validate(nullptr, 0, false));
  EXPECT_FALSE(Validate(good.data(), 7, false));
  EXPECT_FALSE(valid(std::vector<unsigned char>(good.begin(), good.end() - 1), false));
  std::vector<unsigned char> b = good;
  b[0] = 3;  // unknown encoding
  EXPECT_FALSE(valid(b, false));
  b = good;
  b[4] = 4;  // length says more than there is
  EXPECT_FALSE(valid(b, false));
  EXPECT_FALSE(valid({2, 0, 0, 0, 0, 0, 0, 0}, false));  // empty
  b = good;
  std::swap(b[8], b[10]);  // 5, -3, 1000: out of order
  std::swap(b[9], b[11]);
  EXPECT_TRUE(valid(b, false));
  EXPECT_FALSE(valid(b, true));
  b = good;
  b[10] = b[8];  // duplicate -3
  b[11] = b[9];
  EXPECT_FALSE(valid(b, true));
}

// Intsets taken from redis-server 7.0.15 DUMP payloads.
TEST(IntSet, ReadsRedisServerBlobs) {
  struct Case {
    const char* hex;
    std::vector<int64_t> members;
  };
  const Case cases[] = {
      {"0200000003000000fdff0500e803", {-3, 5, 1000}},                         // SADD a 5 -3 1000
      {"0400000003000000feffffff0500000070110100", {-2, 5, 70000}},            // SADD b 5 70000 -2
      {"0800000002000000000efad5feffffff0100000000000000", {-5000000000, 1}},  // SADD c 1 -5e9
  };
  for (const Case& c : cases) {
    std::vector<unsigned char> blob = FromHex(c.hex);
    ASSERT_TRUE(Validate(blob.data(), blob.size(), true)) << c.hex;
    EXPECT_EQ(Members(blob.data()), c.members);
    unsigned char* ours = Build(c.members);
    EXPECT_EQ(Blob(ours), blob) << c.hex;
    Free(ours);
  }
}

}  // namespace
}  // namespace vireo::intset
