#include "store/zset_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace vireo {
namespace {

bool Less(const ZNode* a, const ZNode* b) {
  if (a->score != b->score) return a->score < b->score;
  return CompareMembers(a->Key(), b->Key()) < 0;
}

// Owns nodes and keeps a sorted vector model beside the tree.
class TreeModel {
 public:
  ~TreeModel() {
    tree.Clear();
    for (ZNode* n : model) FreeZNode(n);
  }
  size_t Insert(const std::string& member, double score) {
    ZNode* n = NewZNode(member, score);
    size_t rank = tree.LowerBound([&](double s, const ZNode* x) {
      if (s != score) return s < score;
      return CompareMembers(x->Key(), member) < 0;
    });
    tree.InsertAt(rank, n);
    model.insert(std::lower_bound(model.begin(), model.end(), n, Less), n);
    return rank;
  }
  void EraseAt(size_t rank) {
    ZNode* n = tree.EraseAt(rank);
    EXPECT_EQ(n, model[rank]);
    model.erase(model.begin() + static_cast<long>(rank));
    FreeZNode(n);
  }
  void ExpectSame() {
    ASSERT_EQ(tree.Size(), model.size());
    ASSERT_TRUE(tree.Verify(Less));
    size_t i = 0;
    for (ZTree::Iterator it = tree.Seek(0); it.Valid(); it.Next()) ASSERT_EQ(it.Get(), model[i++]);
    if (model.empty()) return;
    i = model.size();
    for (ZTree::Iterator it = tree.Seek(model.size() - 1); it.Valid(); it.Prev()) {
      ASSERT_EQ(it.Get(), model[--i]);
    }
    ASSERT_EQ(i, 0u);
  }

  ZTree tree;
  std::vector<ZNode*> model;
};

TEST(ZTreeTest, EmptyTree) {
  ZTree t;
  EXPECT_EQ(t.Size(), 0u);
  EXPECT_FALSE(t.Seek(0).Valid());
  EXPECT_EQ(t.LowerBound([](double, const ZNode*) { return true; }), 0u);
  EXPECT_EQ(t.Memory(), 0u);
  EXPECT_TRUE(t.Verify(Less));
}

TEST(ZTreeTest, AscendingLoadFillsLeavesCompletely) {
  TreeModel m;
  const int n = 10000;
  for (int i = 0; i < n; ++i) EXPECT_EQ(m.Insert("m" + std::to_string(i), i), size_t(i));
  m.ExpectSame();
  size_t leaves = (n + ZTree::kLeafCap - 1) / ZTree::kLeafCap;
  // Full leaves: the index costs about 8 bytes per element plus a little for inner nodes.
  EXPECT_LT(m.tree.Memory(), leaves * sizeof(ZTree::Leaf) + 8 * sizeof(ZTree::Inner));
  for (int i = 0; i < n; i += 97) EXPECT_EQ(m.tree.At(i)->score, i);
}

TEST(ZTreeTest, DescendingLoadFillsLeavesCompletely) {
  TreeModel m;
  const int n = 5000;
  for (int i = n; i > 0; --i) EXPECT_EQ(m.Insert("m", i), 0u);
  m.ExpectSame();
  size_t leaves = (n + ZTree::kLeafCap - 1) / ZTree::kLeafCap;
  EXPECT_LT(m.tree.Memory(), (leaves + 1) * sizeof(ZTree::Leaf) + 8 * sizeof(ZTree::Inner));
}

TEST(ZTreeTest, RandomInsertEraseMatchesModel) {
  TreeModel m;
  std::mt19937 rng(7);
  int next_member = 0;
  for (int round = 0; round < 20000; ++round) {
    if (m.model.empty() || rng() % 3 != 0) {
      // Few distinct scores so member comparisons decide often; members in random order.
      m.Insert(std::to_string(rng() % 1000) + "x" + std::to_string(next_member++), rng() % 50);
    } else {
      m.EraseAt(rng() % m.model.size());
    }
    if (round % 2000 == 0) m.ExpectSame();
  }
  m.ExpectSame();
  for (size_t i = 0; i < m.model.size(); i += 13) EXPECT_EQ(m.tree.RankOf(m.model[i]), i);
  while (!m.model.empty()) m.EraseAt(rng() % m.model.size());
  m.ExpectSame();
  EXPECT_EQ(m.tree.Memory(), 0u);
}

TEST(ZTreeTest, PopFromBothEndsShrinksTheIndex) {
  TreeModel m;
  for (int i = 0; i < 3000; ++i) m.Insert("m" + std::to_string(i), i);
  for (int i = 0; i < 1400; ++i) {
    m.EraseAt(0);
    m.EraseAt(m.model.size() - 1);
  }
  m.ExpectSame();
  EXPECT_LT(m.tree.Memory(), 8 * sizeof(ZTree::Leaf) + 2 * sizeof(ZTree::Inner));
}

TEST(ZTreeTest, LowerBoundByScore) {
  TreeModel m;
  for (int i = 0; i < 1000; ++i) m.Insert("a" + std::to_string(i), i / 10);  // 10 per score
  for (int s = -1; s <= 101; ++s) {
    size_t below = m.tree.LowerBound([s](double x, const ZNode*) { return x < s; });
    size_t upto = m.tree.LowerBound([s](double x, const ZNode*) { return x <= s; });
    EXPECT_EQ(below, size_t(std::clamp(s, 0, 100) * 10)) << s;
    EXPECT_EQ(upto, size_t(std::clamp(s + 1, 0, 100) * 10)) << s;
  }
}

TEST(ZTreeTest, SplitsInTheMiddleKeepOrder) {
  TreeModel m;
  // Inserting always between the two halves exercises middle splits at every level.
  for (int i = 0; i < 4000; ++i) m.Insert("k", (i % 2 ? 1e6 - i : i));
  m.ExpectSame();
}

}  // namespace
}  // namespace vireo
