#include "store/zset_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/numbers.h"
#include "store/zset_listpack.h"

namespace vireo {
namespace {

ZSetLimits Limits(size_t entries, size_t value) {
  ZSetLimits l;
  l.max_listpack_entries = entries;
  l.max_listpack_value = value;
  return l;
}

// Owns a ZSet for a test.
struct Owned {
  explicit Owned(ZSet set) : z(set) {}
  ~Owned() { z.Free(); }
  ZSet z;
};

std::vector<std::pair<std::string, double>> Contents(const ZSet& z) {
  std::vector<std::pair<std::string, double>> out;
  for (ZSet::Iterator it = z.Seek(0); it.Valid(); it.Next()) {
    out.emplace_back(std::string(it.Member()), it.Score());
  }
  return out;
}

std::vector<std::pair<std::string, double>> ContentsBackwards(const ZSet& z) {
  std::vector<std::pair<std::string, double>> out;
  if (z.Length() == 0) return out;
  for (ZSet::Iterator it = z.Seek(z.Length() - 1); it.Valid(); it.Prev()) {
    out.emplace(out.begin(), std::string(it.Member()), it.Score());
  }
  return out;
}

double Add(ZSet* z, const std::string& m, double s, const ZSetLimits& l, int flags = 0,
           ZAddResult* result = nullptr) {
  double out = NAN;
  ZAddResult r = z->Add(m, s, flags, l, &out);
  if (result != nullptr) *result = r;
  return out;
}

TEST(ZSetValueTest, ListPackKeepsScoreThenMemberOrder) {
  ZSetLimits l;
  Owned o(ZSet::Create(1, l));
  ASSERT_TRUE(o.z.IsListPack());
  Add(&o.z, "b", 2, l);
  Add(&o.z, "a", 2, l);
  Add(&o.z, "c", 1, l);
  Add(&o.z, "10", -1.5, l);  // integer-looking member, stored as a listpack integer
  auto want =
      std::vector<std::pair<std::string, double>>{{"10", -1.5}, {"c", 1}, {"a", 2}, {"b", 2}};
  EXPECT_EQ(Contents(o.z), want);
  EXPECT_EQ(ContentsBackwards(o.z), want);
  double s;
  ASSERT_TRUE(o.z.Score("10", &s));
  EXPECT_EQ(s, -1.5);
  EXPECT_FALSE(o.z.Score("zz", &s));
  size_t rank;
  ASSERT_TRUE(o.z.Rank("a", &rank, &s));
  EXPECT_EQ(rank, 2u);
  EXPECT_TRUE(o.z.Remove("c"));
  EXPECT_FALSE(o.z.Remove("c"));
  EXPECT_EQ(o.z.Length(), 3u);
}

TEST(ZSetValueTest, ConvertsPastTheEntriesLimitExactly) {
  ZSetLimits l = Limits(4, 64);
  Owned o(ZSet::Create(1, l));
  for (int i = 0; i < 4; ++i) Add(&o.z, "m" + std::to_string(i), i, l);
  EXPECT_TRUE(o.z.IsListPack());
  auto before = Contents(o.z);
  Add(&o.z, "m4", 4, l);
  EXPECT_EQ(o.z.encoding(), Encoding::kSkipList);
  before.emplace_back("m4", 4);
  EXPECT_EQ(Contents(o.z), before);
}

TEST(ZSetValueTest, ConvertsPastTheValueLimitExactly) {
  ZSetLimits l = Limits(128, 8);
  Owned o(ZSet::Create(8, l));
  Add(&o.z, std::string(8, 'x'), 1, l);
  EXPECT_TRUE(o.z.IsListPack());
  Add(&o.z, std::string(9, 'y'), 2, l);
  EXPECT_EQ(o.z.encoding(), Encoding::kSkipList);
  EXPECT_EQ(o.z.Length(), 2u);
  // Updating an existing member never converts back.
  Add(&o.z, std::string(9, 'y'), 0, l);
  EXPECT_EQ(o.z.encoding(), Encoding::kSkipList);
}

TEST(ZSetValueTest, CreateChoosesAsValkey7) {
  {
    Owned o(ZSet::Create(64, Limits(128, 64)));
    EXPECT_TRUE(o.z.IsListPack());
  }
  {
    Owned o(ZSet::Create(65, Limits(128, 64)));
    EXPECT_EQ(o.z.encoding(), Encoding::kSkipList);
  }
  {
    Owned o(ZSet::Create(1, Limits(0, 64)));
    EXPECT_EQ(o.z.encoding(), Encoding::kSkipList);
  }
}

TEST(ZSetValueTest, FromNodesPicksTheEncodingThatFits) {
  for (size_t n : {3u, 4u, 5u}) {
    std::vector<ZNode*> nodes;
    for (size_t i = 0; i < n; ++i) nodes.push_back(NewZNode("m" + std::to_string(i), -double(i)));
    Owned o(ZSet::FromNodes(&nodes, Limits(4, 64)));
    EXPECT_TRUE(nodes.empty());
    EXPECT_EQ(o.z.IsListPack(), n <= 4) << n;
    ASSERT_EQ(o.z.Length(), n);
    EXPECT_EQ(Contents(o.z).front().second, -double(n - 1));  // sorted by score
  }
  std::vector<ZNode*> nodes = {NewZNode(std::string(65, 'v'), 1)};
  Owned o(ZSet::FromNodes(&nodes, Limits(4, 64)));
  EXPECT_EQ(o.z.encoding(), Encoding::kSkipList);
}

TEST(ZSetValueTest, AddFlagsFollowZadd) {
  for (size_t entries : {128u, 0u}) {
    ZSetLimits l = Limits(entries, 64);
    Owned o(ZSet::Create(1, l));
    ZAddResult r;
    EXPECT_EQ(Add(&o.z, "a", 5, l, 0, &r), 5);
    EXPECT_EQ(r, ZAddResult::kAdded);
    Add(&o.z, "a", 6, l, kZAddNx, &r);
    EXPECT_EQ(r, ZAddResult::kSkipped);
    Add(&o.z, "b", 6, l, kZAddXx, &r);
    EXPECT_EQ(r, ZAddResult::kSkipped);
    EXPECT_EQ(Add(&o.z, "a", 5, l, 0, &r), 5);
    EXPECT_EQ(r, ZAddResult::kUnchanged);
    Add(&o.z, "a", 4, l, kZAddGt, &r);
    EXPECT_EQ(r, ZAddResult::kSkipped);
    EXPECT_EQ(Add(&o.z, "a", 7, l, kZAddGt, &r), 7);
    EXPECT_EQ(r, ZAddResult::kUpdated);
    Add(&o.z, "a", 8, l, kZAddLt, &r);
    EXPECT_EQ(r, ZAddResult::kSkipped);
    EXPECT_EQ(Add(&o.z, "a", 2.5, l, kZAddIncr, &r), 9.5);
    EXPECT_EQ(r, ZAddResult::kUpdated);
    Add(&o.z, "a", -1, l, kZAddIncr | kZAddGt, &r);
    EXPECT_EQ(r, ZAddResult::kSkipped);
    EXPECT_EQ(Add(&o.z, "inf", INFINITY, l, 0, &r), INFINITY);
    Add(&o.z, "inf", -INFINITY, l, kZAddIncr, &r);
    EXPECT_EQ(r, ZAddResult::kNaN);
    double s;
    ASSERT_TRUE(o.z.Score("a", &s));
    EXPECT_EQ(s, 9.5);
    EXPECT_EQ(o.z.encoding(), entries == 0 ? Encoding::kSkipList : Encoding::kListPack);
  }
}

TEST(ZSetValueTest, ListPackStoresScoresAsValkeyDoes) {
  ZSetLimits l;
  Owned o(ZSet::Create(1, l));
  Add(&o.z, "negzero", -0.0, l);
  Add(&o.z, "big", 1e17, l);
  Add(&o.z, "huge", 1e19, l);
  Add(&o.z, "half", 0.5, l);
  Add(&o.z, "tenth", 0.1, l);
  Add(&o.z, "grisu", 1e23, l);
  char buf[kDoubleTextSize];
  std::map<std::string, std::string> text;
  for (ZSet::Iterator it = o.z.Seek(0); it.Valid(); it.Next()) {
    text[std::string(it.Member())] = std::string(it.ScoreText(buf));
  }
  EXPECT_EQ(text["negzero"], "0");  // integral: stored as the integer 0
  EXPECT_EQ(text["big"], "100000000000000000");
  EXPECT_EQ(text["huge"], "1e+19");
  EXPECT_EQ(text["half"], "0.5");
  EXPECT_EQ(text["tenth"], "0.1");                      // Valkey 8's text, not "%.17g"
  EXPECT_EQ(text["grisu"], "99999999999999990000000");  // fpconv's digits, not the shortest

  // A skiplist has no stored text: ZSCAN shows "%.17g" there, as Valkey 8 still does.
  ZSetLimits none = Limits(0, 0);
  Owned s(ZSet::Create(1, none));
  Add(&s.z, "negzero", -0.0, none);
  Add(&s.z, "big", 1e17, none);
  Add(&s.z, "tenth", 0.1, none);
  Add(&s.z, "minf", -INFINITY, none);
  Add(&s.z, "int", 123456789012345.0, none);
  ASSERT_EQ(s.z.encoding(), Encoding::kSkipList);
  text.clear();
  for (ZSet::Iterator it = s.z.Seek(0); it.Valid(); it.Next()) {
    text[std::string(it.Member())] = std::string(it.ScoreText(buf));
  }
  EXPECT_EQ(text["negzero"], "-0");
  EXPECT_EQ(text["big"], "1e+17");
  EXPECT_EQ(text["tenth"], "0.10000000000000001");
  EXPECT_EQ(text["minf"], "-inf");
  EXPECT_EQ(text["int"], "123456789012345");
}

// The same random operations on both encodings give the same answers.
TEST(ZSetValueTest, EncodingsAgreeUnderRandomOperations) {
  ZSetLimits small = Limits(100000, 1000), big = Limits(0, 0);
  Owned a(ZSet::Create(1, small)), b(ZSet::Create(1, big));
  ASSERT_TRUE(a.z.IsListPack());
  ASSERT_EQ(b.z.encoding(), Encoding::kSkipList);
  std::mt19937 rng(11);
  for (int round = 0; round < 3000; ++round) {
    std::string m = "m" + std::to_string(rng() % 300);
    double s = static_cast<double>(rng() % 40) / 4;
    switch (rng() % 6) {
      case 0:
      case 1:
      case 2: {
        ZAddResult ra, rb;
        double oa = Add(&a.z, m, s, small, 0, &ra), ob = Add(&b.z, m, s, big, 0, &rb);
        ASSERT_EQ(ra, rb);
        ASSERT_EQ(oa, ob);
        break;
      }
      case 3:
        ASSERT_EQ(a.z.Remove(m), b.z.Remove(m));
        break;
      case 4: {
        size_t len = a.z.Length();
        if (len > 10) {
          size_t start = rng() % (len - 5);
          a.z.RemoveRange(start, start + 2);
          b.z.RemoveRange(start, start + 2);
        }
        break;
      }
      default: {
        ASSERT_EQ(a.z.ScoreRank(s, false), b.z.ScoreRank(s, false));
        ASSERT_EQ(a.z.ScoreRank(s, true), b.z.ScoreRank(s, true));
        size_t ra = 0, rb = 0;
        double sa, sb;
        ASSERT_EQ(a.z.Rank(m, &ra, &sa), b.z.Rank(m, &rb, &sb));
        ASSERT_EQ(ra, rb);
        break;
      }
    }
    ASSERT_EQ(a.z.Length(), b.z.Length());
  }
  EXPECT_EQ(Contents(a.z), Contents(b.z));
  EXPECT_EQ(ContentsBackwards(b.z), Contents(b.z));
  // Member-only order (lex ranks) on a set whose scores are all equal.
  Owned la(ZSet::Create(1, small)), lb(ZSet::Create(1, big));
  for (int i = 0; i < 200; ++i) {
    std::string m = std::to_string(rng() % 1000);
    Add(&la.z, m, 0, small);
    Add(&lb.z, m, 0, big);
  }
  for (const char* v : {"", "1", "3", "500", "9", "99", "999", "a"}) {
    EXPECT_EQ(la.z.LexRank(v, false), lb.z.LexRank(v, false)) << v;
    EXPECT_EQ(la.z.LexRank(v, true), lb.z.LexRank(v, true)) << v;
  }
}

TEST(ZSetValueTest, CopyIsDeepAndScanVisitsEverything) {
  ZSetLimits l = Limits(0, 0);
  Owned o(ZSet::Create(1, l));
  for (int i = 0; i < 1000; ++i) Add(&o.z, "m" + std::to_string(i), i % 17, l);
  Owned c(o.z.Copy());
  o.z.Remove("m5");
  EXPECT_EQ(c.z.Length(), 1000u);
  EXPECT_EQ(o.z.Length(), 999u);
  double s;
  EXPECT_TRUE(c.z.Score("m5", &s));
  EXPECT_GT(c.z.Memory(), 1000u * 40);
  EXPECT_LT(c.z.Memory(), 1000u * 80);
  std::set<std::string> seen;
  uint64_t cursor = 0;
  do {
    cursor = c.z.Scan(cursor, [&](std::string_view m, double) { seen.insert(std::string(m)); });
  } while (cursor != 0);
  EXPECT_EQ(seen.size(), 1000u);
}

TEST(ZSetValueTest, RemoveRangeAtBothEnds) {
  for (size_t entries : {128u, 0u}) {
    ZSetLimits l = Limits(entries, 64);
    Owned o(ZSet::Create(1, l));
    for (int i = 0; i < 10; ++i) Add(&o.z, std::string(1, char('a' + i)), i, l);
    o.z.RemoveRange(0, 1);
    o.z.RemoveRange(6, 7);
    auto c = Contents(o.z);
    ASSERT_EQ(c.size(), 6u);
    EXPECT_EQ(c.front().first, "c");
    EXPECT_EQ(c.back().first, "h");
    o.z.RemoveRange(0, 5);
    EXPECT_EQ(o.z.Length(), 0u);
  }
}

}  // namespace
}  // namespace vireo
