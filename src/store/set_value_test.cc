#include "store/set_value.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "store/intset.h"

namespace vireo {
namespace {

std::set<std::string> Members(const SetObj& s) {
  std::set<std::string> out;
  char buf[24];
  SetForEach(s, [&](const SetElem& el) {
    out.insert(std::string(el.View(buf)));
    return true;
  });
  return out;
}

SetObj Build(const std::vector<std::string>& members, const SetLimits& lim) {
  SetObj s = SetCreate(members[0], 1, lim);
  for (const std::string& m : members) SetAdd(&s, m, lim);
  return s;
}

std::vector<std::string> Ints(int from, int to) {
  std::vector<std::string> v;
  for (int i = from; i < to; ++i) v.push_back(std::to_string(i));
  return v;
}

TEST(SetValueTest, CreateChoosesEncodingFromFirstMemberAndHint) {
  SetLimits lim;
  SetObj a = SetCreate("12", 1, lim);
  EXPECT_EQ(a.enc, Encoding::kIntSet);
  SetObj b = SetCreate("x", 1, lim);
  EXPECT_EQ(b.enc, Encoding::kListPack);
  SetObj c = SetCreate("12", 513, lim);  // too many for an intset, too many for a listpack
  EXPECT_EQ(c.enc, Encoding::kHashTable);
  SetObj d = SetCreate("12", 128, SetLimits{100, 128, 64});
  EXPECT_EQ(d.enc, Encoding::kListPack);
  for (SetObj s : {a, b, c, d}) SetFree(s);
}

TEST(SetValueTest, IntsetBecomesTableAfterMaxEntries) {
  SetLimits lim{5, 128, 64};
  SetObj s = Build(Ints(0, 5), lim);
  EXPECT_EQ(s.enc, Encoding::kIntSet);
  EXPECT_FALSE(SetAdd(&s, "3", lim));  // a duplicate does not convert
  EXPECT_EQ(s.enc, Encoding::kIntSet);
  EXPECT_TRUE(SetAdd(&s, "5", lim));
  EXPECT_EQ(s.enc, Encoding::kHashTable);  // intset overflow skips the listpack
  EXPECT_EQ(Members(s).size(), 6u);
  SetFree(s);
}

TEST(SetValueTest, NonIntegerTurnsIntsetIntoListpack) {
  SetLimits lim;
  SetObj s = Build({"1", "-20", "300"}, lim);
  EXPECT_EQ(s.enc, Encoding::kIntSet);
  EXPECT_TRUE(SetAdd(&s, "abc", lim));
  EXPECT_EQ(s.enc, Encoding::kListPack);
  EXPECT_EQ(Members(s), (std::set<std::string>{"1", "-20", "300", "abc"}));
  EXPECT_TRUE(SetContains(s, "300"));
  EXPECT_TRUE(SetContainsElem(s, SetElem::Int(-20)));
  SetFree(s);
}

TEST(SetValueTest, NonIntegerTurnsBigIntsetIntoTable) {
  // The intset already holds listpack-entries members: a string makes it a table.
  SetLimits lim{512, 4, 64};
  SetObj s = Build(Ints(0, 4), lim);
  EXPECT_EQ(s.enc, Encoding::kIntSet);
  SetAdd(&s, "x", lim);
  EXPECT_EQ(s.enc, Encoding::kHashTable);
  SetFree(s);
  // One fewer fits a listpack.
  s = Build(Ints(0, 3), lim);
  SetAdd(&s, "x", lim);
  EXPECT_EQ(s.enc, Encoding::kListPack);
  SetFree(s);
}

TEST(SetValueTest, IntsetWithLongIntegersCannotBecomeListpack) {
  SetLimits lim{512, 128, 3};
  SetObj s = Build({"1000"}, lim);  // 4 characters > listpack value limit
  SetAdd(&s, "a", lim);
  EXPECT_EQ(s.enc, Encoding::kHashTable);
  SetFree(s);
  s = Build({"-99"}, lim);  // 3 characters: fits
  SetAdd(&s, "a", lim);
  EXPECT_EQ(s.enc, Encoding::kListPack);
  SetFree(s);
}

TEST(SetValueTest, ListpackConvertsAtEntriesAndValueLimits) {
  SetLimits lim{512, 3, 5};
  SetObj s = Build({"a", "b", "c"}, lim);
  EXPECT_EQ(s.enc, Encoding::kListPack);
  EXPECT_FALSE(SetAdd(&s, "a", lim));
  EXPECT_EQ(s.enc, Encoding::kListPack);
  EXPECT_TRUE(SetAdd(&s, "d", lim));
  EXPECT_EQ(s.enc, Encoding::kHashTable);
  SetFree(s);

  s = Build({"a", "12345"}, lim);  // 5 bytes: at the limit, stays
  EXPECT_EQ(s.enc, Encoding::kListPack);
  SetAdd(&s, "123456x", lim);
  EXPECT_EQ(s.enc, Encoding::kHashTable);
  EXPECT_EQ(Members(s), (std::set<std::string>{"a", "12345", "123456x"}));
  SetFree(s);
}

TEST(SetValueTest, MaybeConvertUsesTheHint) {
  SetLimits lim{10, 5, 64};
  SetObj s = Build({"a"}, lim);
  SetMaybeConvert(&s, 5, lim);
  EXPECT_EQ(s.enc, Encoding::kListPack);
  SetMaybeConvert(&s, 6, lim);
  EXPECT_EQ(s.enc, Encoding::kHashTable);
  SetFree(s);
  s = Build({"1"}, lim);
  SetMaybeConvert(&s, 10, lim);
  EXPECT_EQ(s.enc, Encoding::kIntSet);
  SetMaybeConvert(&s, 11, lim);
  EXPECT_EQ(s.enc, Encoding::kHashTable);
  EXPECT_TRUE(SetContains(s, "1"));
  SetFree(s);
}

TEST(SetValueTest, ConvertToIntsetOnlyWhenAllIntegersFit) {
  SetLimits lim{3, 128, 64};
  SetObj s = SetCreateEmpty(Encoding::kHashTable);
  for (const char* m : {"3", "1", "2"}) SetAdd(&s, m, lim);
  SetMaybeConvertToIntset(&s, lim);
  EXPECT_EQ(s.enc, Encoding::kIntSet);
  EXPECT_EQ(Members(s), (std::set<std::string>{"1", "2", "3"}));
  SetFree(s);
  s = SetCreateEmpty(Encoding::kListPack);
  for (const char* m : {"1", "x"}) SetAdd(&s, m, lim);
  SetMaybeConvertToIntset(&s, lim);
  EXPECT_EQ(s.enc, Encoding::kListPack);
  SetFree(s);
}

TEST(SetValueTest, RemoveInEveryEncoding) {
  SetLimits lim{512, 128, 64};
  std::vector<std::vector<std::string>> cases = {{"1", "2", "3"}, {"1", "b", "c"}, Ints(0, 600)};
  for (auto& members : cases) {
    SetObj s = Build(members, lim);
    EXPECT_FALSE(SetRemove(&s, "nope"));
    EXPECT_FALSE(SetRemove(&s, "99999999"));
    for (const std::string& m : members) EXPECT_TRUE(SetRemove(&s, m)) << m;
    EXPECT_EQ(SetSize(s), 0u);
    SetFree(s);
  }
}

TEST(SetValueTest, TableHandlesLongAndEmptyMembers) {
  SetObj s = SetCreateEmpty(Encoding::kHashTable);
  SetLimits lim;
  std::string long_member(300, 'x');
  EXPECT_TRUE(SetAdd(&s, long_member, lim));
  EXPECT_TRUE(SetAdd(&s, "", lim));
  EXPECT_TRUE(SetAdd(&s, std::string(254, 'y'), lim));
  EXPECT_TRUE(SetAdd(&s, std::string(255, 'y'), lim));
  EXPECT_FALSE(SetAdd(&s, long_member, lim));
  EXPECT_TRUE(SetContains(s, ""));
  EXPECT_EQ(Members(s).count(long_member), 1u);
  EXPECT_EQ(Members(s).count(std::string(255, 'y')), 1u);
  SetFree(s);
}

TEST(SetValueTest, CopyIsDeepAndSameEncoding) {
  SetLimits lim;
  for (auto members : {Ints(0, 3), std::vector<std::string>{"a", "1"}, Ints(0, 700)}) {
    SetObj s = Build(members, lim);
    SetObj c = SetCopy(s);
    EXPECT_EQ(c.enc, s.enc);
    EXPECT_NE(c.ptr, s.ptr);
    EXPECT_EQ(Members(c), Members(s));
    SetAdd(&c, "new", lim);
    EXPECT_FALSE(SetContains(s, "new"));
    EXPECT_GT(SetMemory(c), 0u);
    SetFree(s);
    SetFree(c);
  }
}

TEST(SetValueTest, SampleDistinctReturnsDistinctMembers) {
  SetLimits lim;
  for (auto members :
       {Ints(0, 50), std::vector<std::string>{"a", "b", "c", "d", "e"}, Ints(0, 5000)}) {
    SetObj s = Build(members, lim);
    for (size_t count : {size_t{1}, size_t{3}, members.size() / 2, members.size() - 1}) {
      std::vector<SetElem> out;
      SetSampleDistinct(s, count, &out);
      ASSERT_EQ(out.size(), count);
      std::set<std::string> seen;
      char buf[24];
      for (const SetElem& el : out) {
        std::string m(el.View(buf));
        EXPECT_TRUE(SetContains(s, m));
        EXPECT_TRUE(seen.insert(m).second) << "duplicate " << m;
      }
    }
    SetFree(s);
  }
}

TEST(SetValueTest, RandomDrawsCoverEveryMember) {
  SetLimits lim;
  for (auto members : {Ints(0, 10), std::vector<std::string>{"a", "b", "c"}, Ints(0, 200)}) {
    SetObj s = Build(members, lim);
    SetDrawer drawer(s);
    std::map<std::string, int> hits;
    char buf[24];
    for (size_t i = 0; i < members.size() * 200; ++i) ++hits[std::string(drawer.Next().View(buf))];
    EXPECT_EQ(hits.size(), members.size());
    for (auto& [m, n] : hits) EXPECT_GT(n, 50) << m;  // expected 200 each
    SetFree(s);
  }
}

// Chi-square of draws over n members (expected count each: draws / n).
double ChiSquare(const std::map<std::string, int>& hits, size_t n, size_t draws) {
  double expected = static_cast<double>(draws) / static_cast<double>(n);
  double chi = static_cast<double>(n - hits.size()) * expected;  // members never drawn
  for (auto& [m, c] : hits) chi += (c - expected) * (c - expected) / expected;
  return chi;
}

TEST(SetValueTest, TableRandomIsUniform) {
  SetLimits lim;
  std::vector<std::string> members = Ints(0, 1000);
  SetObj s = Build(members, lim);
  ASSERT_EQ(s.enc, Encoding::kHashTable);
  std::map<std::string, int> hits;
  for (int i = 0; i < 100000; ++i) ++hits[std::string(SetRandom(s).str)];
  // 999 degrees of freedom: mean 999, sd about 45. Picking a bucket and then a member of its
  // chain gives far more (members sharing a chain are drawn half as often).
  EXPECT_LT(ChiSquare(hits, 1000, 100000), 999 + 6 * 45);
  SetFree(s);
}

TEST(SetValueTest, TableRandomStaysFastAndFairWhileDraining) {
  SetLimits lim;
  SetObj s = Build(Ints(0, 50000), lim);
  for (int i = 0; i < 49900; ++i) SetRemove(&s, std::to_string(i));
  ASSERT_EQ(SetSize(s), 100u);
  std::map<std::string, int> hits;
  for (int i = 0; i < 20000; ++i) ++hits[std::string(SetRandom(s).str)];
  EXPECT_EQ(hits.size(), 100u);
  EXPECT_LT(ChiSquare(hits, 100, 20000), 99 + 6 * 14);
  // Popping everything through random picks ends with an empty set.
  while (SetSize(s) > 0) SetRemoveElem(&s, SetRandom(s));
  SetFree(s);
}

TEST(SetValueTest, ScanVisitsEveryMemberOfATable) {
  SetLimits lim;
  std::vector<std::string> members = Ints(0, 3000);
  SetObj s = Build(members, lim);
  ASSERT_EQ(s.enc, Encoding::kHashTable);
  std::set<std::string> seen;
  uint64_t cursor = 0;
  int steps = 0;
  do {
    cursor = SetScan(s, cursor, [&](const SetElem& el) { seen.insert(std::string(el.str)); });
    // Removing members meanwhile must not hide the others.
    if (++steps % 7 == 0) SetRemove(&s, std::to_string(steps));
  } while (cursor != 0);
  for (const std::string& m : members) {
    if (SetContains(s, m)) {
      EXPECT_EQ(seen.count(m), 1u) << m;
    }
  }
  SetFree(s);
}

TEST(SetValueTest, IntsetBlobRoundTrip) {
  SetLimits lim;
  SetObj s = Build({"-5", "3", "70", "100000"}, lim);
  ASSERT_EQ(s.enc, Encoding::kIntSet);
  unsigned char* blob = SetIntsetToBlob(s);
  EXPECT_EQ(intset::Length(blob), 4u);
  EXPECT_EQ(intset::Encoding(blob), 4u);  // 100000 needs 32 bits
  EXPECT_EQ(intset::Get(blob, 0), -5);
  EXPECT_TRUE(intset::Validate(blob, intset::Bytes(blob), true));
  SetObj back = SetFromIntsetBlob(blob);
  EXPECT_EQ(back.enc, Encoding::kIntSet);
  EXPECT_EQ(Members(back), Members(s));
  intset::Free(blob);
  SetFree(back);
  SetFree(s);
}

TEST(SetValueTest, PackedScanReportsAllAtOnce) {
  SetLimits lim;
  SetObj s = Build({"a", "b", "7"}, lim);
  size_t n = 0;
  EXPECT_EQ(SetScan(s, 123, [&](const SetElem&) { ++n; }), 0u);
  EXPECT_EQ(n, 3u);
  SetFree(s);
}

}  // namespace
}  // namespace vireo
