#include "store/quicklist.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace vireo {
namespace {

std::string Text(const unsigned char* p) {
  char buf[24];
  return std::string(lp::Get(p).View(buf));
}

// Every element in order, read node by node (compressed nodes through a scratch buffer).
std::vector<std::string> Elements(const QuickList& ql) {
  std::vector<std::string> out;
  LzfScratch scratch;
  for (QuickListNode* n = ql.Head(); n != nullptr; n = n->next) {
    unsigned char* lp = QuickList::ReadableListPack(n, &scratch);
    for (unsigned char* p = lp::First(lp); p != nullptr; p = lp::Next(lp, p)) {
      out.push_back(Text(p));
    }
  }
  return out;
}

// Structural invariants: links, counts, no empty node, plain ends.
void CheckInvariants(const QuickList& ql) {
  size_t count = 0, nodes = 0;
  LzfScratch scratch;
  const QuickListNode* prev = nullptr;
  for (QuickListNode* n = ql.Head(); n != nullptr; n = n->next) {
    ASSERT_EQ(n->prev, prev);
    ASSERT_GT(n->count, 0u);
    unsigned char* lp = QuickList::ReadableListPack(n, &scratch);
    ASSERT_EQ(lp::Length(lp), n->count);
    ASSERT_EQ(lp::Bytes(lp), n->bytes);
    count += n->count;
    ++nodes;
    prev = n;
  }
  ASSERT_EQ(prev, ql.Tail());
  ASSERT_EQ(count, ql.Count());
  ASSERT_EQ(nodes, ql.NodeCount());
  if (ql.Head() != nullptr) {
    ASSERT_FALSE(ql.Head()->compressed);
    ASSERT_FALSE(ql.Tail()->compressed);
  }
}

size_t CompressedNodes(const QuickList& ql) {
  size_t n = 0;
  for (QuickListNode* x = ql.Head(); x != nullptr; x = x->next) n += x->compressed;
  return n;
}

std::string Item(int i) { return "element:" + std::to_string(i) + std::string(20, 'x'); }

TEST(QuickListFill, SizeAndCountLimits) {
  EXPECT_FALSE(ListPackExceedsFill(-2, 8192, 100000));
  EXPECT_TRUE(ListPackExceedsFill(-2, 8193, 1));
  EXPECT_FALSE(ListPackExceedsFill(-1, 4096, 1));
  EXPECT_TRUE(ListPackExceedsFill(-1, 4097, 1));
  EXPECT_TRUE(ListPackExceedsFill(-5, 65537, 1));
  EXPECT_FALSE(ListPackExceedsFill(-9, 65536, 1));  // below -5 counts as -5
  EXPECT_FALSE(ListPackExceedsFill(4, 100, 4));
  EXPECT_TRUE(ListPackExceedsFill(4, 100, 5));
  EXPECT_TRUE(ListPackExceedsFill(4, 8193, 1));  // count limits keep the 8 KB safety cap
  EXPECT_FALSE(ListPackExceedsFill(0, 10, 1));
  EXPECT_TRUE(ListPackExceedsFill(0, 10, 2));
}

TEST(QuickListFill, ShrinkingUsesHalfTheLimits) {
  EXPECT_TRUE(ListPackFitsFill(-2, 4096, 1000, true));
  EXPECT_FALSE(ListPackFitsFill(-2, 4097, 1, true));
  EXPECT_TRUE(ListPackFitsFill(-2, 8192, 1, false));
  EXPECT_TRUE(ListPackFitsFill(5, 100000, 2, true));
  EXPECT_FALSE(ListPackFitsFill(5, 10, 3, true));
  EXPECT_TRUE(ListPackFitsFill(5, 10, 5, false));
  EXPECT_FALSE(ListPackFitsFill(1, 10, 1, true));  // half of 1 is 0: never packed again
}

TEST(QuickList, PushesFillNodesByCount) {
  QuickList ql(4, 0);
  for (int i = 0; i < 10; ++i) ql.PushTail(std::to_string(i));
  EXPECT_EQ(ql.Count(), 10u);
  EXPECT_EQ(ql.NodeCount(), 3u);
  EXPECT_EQ(ql.Head()->count, 4u);
  EXPECT_EQ(ql.Tail()->count, 2u);
  for (int i = 1; i <= 3; ++i) ql.PushHead("h" + std::to_string(i));
  EXPECT_EQ(ql.NodeCount(), 4u);
  std::vector<std::string> want = {"h3", "h2", "h1", "0", "1", "2", "3",
                                   "4",  "5",  "6",  "7", "8", "9"};
  EXPECT_EQ(Elements(ql), want);
  CheckInvariants(ql);
}

TEST(QuickList, NodesFilledBySizeStopUnderTheLimit) {
  QuickList ql(-1, 0);  // 4 KB nodes
  std::string big(1000, 'a');
  for (int i = 0; i < 9; ++i) ql.PushTail(big);
  for (QuickListNode* n = ql.Head(); n != nullptr; n = n->next) EXPECT_LE(n->bytes, 4096u);
  EXPECT_EQ(ql.NodeCount(), 3u);
  // An element larger than a node gets a node of its own.
  ql.PushTail(std::string(5000, 'b'));
  ql.PushTail("c");
  EXPECT_EQ(ql.NodeCount(), 5u);
  CheckInvariants(ql);
}

TEST(QuickList, InteriorNodesCompressAndEndsStayPlain) {
  QuickList ql(4, 0);  // depth 0: Vireo keeps only the end nodes plain
  for (int i = 0; i < 40; ++i) ql.PushTail(Item(i));
  EXPECT_EQ(ql.NodeCount(), 10u);
  // Head, its neighbour (either way) and the tail's neighbour stay plain; the rest compress.
  EXPECT_GE(CompressedNodes(ql), 6u);
  std::vector<std::string> want;
  for (int i = 0; i < 40; ++i) want.push_back(Item(i));
  EXPECT_EQ(Elements(ql), want);
  CheckInvariants(ql);
  // Popping through compressed nodes decompresses each as it reaches an end.
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(Text(ql.Front()), Item(i));
    ql.PopHead();
    CheckInvariants(ql);
  }
  for (int i = 39; i >= 20; --i) {
    EXPECT_EQ(Text(ql.Back()), Item(i));
    ql.PopTail();
    CheckInvariants(ql);
  }
  EXPECT_EQ(ql.Count(), 0u);
  EXPECT_EQ(ql.NodeCount(), 0u);
}

TEST(QuickList, CompressDepthKeepsThatManyNodesPlain) {
  QuickList ql(2, 3);
  for (int i = 0; i < 40; ++i) ql.PushHead(Item(i));
  size_t index = 0;
  for (QuickListNode* n = ql.Head(); n != nullptr; n = n->next, ++index) {
    if (index < 3 || index + 3 >= ql.NodeCount()) {
      EXPECT_FALSE(n->compressed) << index;
    }
  }
  EXPECT_GT(CompressedNodes(ql), 10u);
}

TEST(QuickList, IncompressibleNodesStayPlain) {
  QuickList ql(4, 0);
  std::mt19937 rng(7);
  for (int i = 0; i < 40; ++i) {
    std::string s(40, ' ');
    for (char& c : s) c = static_cast<char>(rng());
    ql.PushTail(s);
  }
  EXPECT_EQ(CompressedNodes(ql), 0u);
  CheckInvariants(ql);
}

TEST(QuickList, HugeElementsAreCompressedOnlyWhenAsked) {
  for (int64_t depth : {0, 1}) {
    QuickList ql(-2, depth);
    for (int i = 0; i < 7; ++i) ql.PushTail(std::string(70000, 'a'));
    EXPECT_EQ(ql.NodeCount(), 7u);
    EXPECT_EQ(CompressedNodes(ql), depth == 0 ? 0u : 3u) << depth;
    CheckInvariants(ql);
  }
}

TEST(QuickList, PushPopAcrossANodeBoundaryDoesNotRecompress) {
  QuickList ql(4, 0);
  for (int i = 0; i < 40; ++i) ql.PushTail(Item(i));
  size_t before = CompressedNodes(ql);
  // The head node is full: each push makes a new head, each pop removes it again.
  for (int i = 0; i < 10; ++i) {
    ql.PushHead("x");
    EXPECT_EQ(CompressedNodes(ql), before + (i == 0 ? 1 : 0)) << i;
    ql.PopHead();
    before = CompressedNodes(ql);
  }
  CheckInvariants(ql);
}

TEST(QuickList, NodeAtFromBothEnds) {
  QuickList ql(3, 0);
  for (int i = 0; i < 10; ++i) ql.PushTail(std::to_string(i));
  size_t off;
  QuickListNode* n = ql.NodeAt(0, &off);
  EXPECT_EQ(n, ql.Head());
  EXPECT_EQ(off, 0u);
  n = ql.NodeAt(4, &off);
  EXPECT_EQ(n, ql.Head()->next);
  EXPECT_EQ(off, 1u);
  n = ql.NodeAt(9, &off);
  EXPECT_EQ(n, ql.Tail());
  EXPECT_EQ(off, 0u);
  n = ql.NodeAt(8, &off);
  EXPECT_EQ(off, 2u);
}

TEST(QuickList, DeleteRangeAcrossNodes) {
  QuickList ql(4, 0);
  for (int i = 0; i < 40; ++i) ql.PushTail(Item(i));
  ql.DeleteRange(2, 30);  // partial first node, whole middle nodes, partial last
  std::vector<std::string> want = {Item(0), Item(1)};
  for (int i = 32; i < 40; ++i) want.push_back(Item(i));
  EXPECT_EQ(Elements(ql), want);
  CheckInvariants(ql);
  ql.DeleteRange(0, ql.Count());
  EXPECT_EQ(ql.Count(), 0u);
  EXPECT_EQ(ql.Head(), nullptr);
}

TEST(QuickList, ReplaceInPlaceAndInFullNodes) {
  QuickList ql(4, 0);
  for (int i = 0; i < 12; ++i) ql.PushTail(Item(i));
  ql.Replace(5, "five");
  ql.Replace(0, "zero");
  ql.Replace(11, "eleven");
  // A size-limited node that cannot take the bigger element splits around it.
  QuickList big(-1, 0);
  for (int i = 0; i < 12; ++i) big.PushTail(std::string(600, 'a' + i));
  big.Replace(3, std::string(3000, 'Z'));
  std::vector<std::string> want;
  for (int i = 0; i < 12; ++i) want.push_back(std::string(600, 'a' + i));
  want[3] = std::string(3000, 'Z');
  EXPECT_EQ(Elements(big), want);
  CheckInvariants(big);
  auto got = Elements(ql);
  EXPECT_EQ(got[0], "zero");
  EXPECT_EQ(got[5], "five");
  EXPECT_EQ(got[11], "eleven");
  CheckInvariants(ql);
}

TEST(QuickList, InsertIntoFullNodesSplitsAndMerges) {
  QuickList ql(4, 0);
  std::deque<std::string> model;
  for (int i = 0; i < 16; ++i) {
    ql.PushTail(Item(i));
    model.push_back(Item(i));
  }
  // Middle of a full node, its edges (neighbour has room or not), before the head.
  ql.Insert(5, "mid", false);
  model.insert(model.begin() + 5, "mid");
  ql.Insert(7, "edge", true);
  model.insert(model.begin() + 8, "edge");
  ql.Insert(0, "first", false);
  model.push_front("first");
  ql.Insert(ql.Count() - 1, "last", true);
  model.push_back("last");
  EXPECT_EQ(Elements(ql), std::vector<std::string>(model.begin(), model.end()));
  CheckInvariants(ql);
}

TEST(QuickList, RemoveFromHeadOrTailWithLimit) {
  QuickList ql(3, 0);
  for (int i = 0; i < 20; ++i) ql.PushTail(i % 3 == 0 ? "x" : Item(i));  // 7 "x"
  EXPECT_EQ(ql.Remove("x", 2, false), 2u);
  EXPECT_EQ(ql.Remove("x", 2, true), 2u);
  auto got = Elements(ql);
  EXPECT_EQ(std::count(got.begin(), got.end(), "x"), 3);
  // The survivors are the middle ones: indices 6, 9 and 12 of the original.
  EXPECT_EQ(got[4], "x");
  EXPECT_EQ(ql.Remove("x", 0, false), 3u);
  EXPECT_EQ(ql.Remove("nothing", 0, false), 0u);
  EXPECT_EQ(ql.Count(), 13u);
  CheckInvariants(ql);
}

TEST(QuickList, IntegersCompareByValue) {
  QuickList ql(2, 0);
  for (const char* s : {"1", "01", "-0", "0", "10", "1"}) ql.PushTail(s);
  EXPECT_EQ(ql.Remove("1", 0, false), 2u);
  EXPECT_EQ(ql.Remove("0", 0, false), 1u);
  std::vector<std::string> want = {"01", "-0", "10"};
  EXPECT_EQ(Elements(ql), want);
}

TEST(QuickList, AdoptAndReleaseListPack) {
  unsigned char* lp = lp::New();
  lp = lp::Append(lp, "a");
  lp = lp::Append(lp, "b");
  QuickList ql(-2, 0);
  ql.AppendListPack(lp);
  ql.PushTail("c");
  EXPECT_EQ(ql.NodeCount(), 1u);
  EXPECT_EQ(ql.Count(), 3u);
  unsigned char* out = ql.ReleaseSingleListPack();
  EXPECT_EQ(lp::Length(out), 3u);
  EXPECT_EQ(ql.Count(), 0u);
  lp::Free(out);
}

TEST(QuickList, CloneIsDeep) {
  QuickList ql(4, 0);
  for (int i = 0; i < 40; ++i) ql.PushTail(Item(i));
  QuickList* copy = ql.Clone();
  EXPECT_EQ(Elements(*copy), Elements(ql));
  EXPECT_EQ(CompressedNodes(*copy), CompressedNodes(ql));
  ql.DeleteRange(0, 20);
  EXPECT_EQ(copy->Count(), 40u);
  CheckInvariants(*copy);
  EXPECT_GT(copy->MemoryUsage(), ql.MemoryUsage());
  delete copy;
}

// Random operations against a deque model, with small nodes so every path is exercised.
void RandomOps(int64_t fill, int64_t depth, size_t value_len, uint32_t seed) {
  std::mt19937 rng(seed);
  QuickList ql(fill, depth);
  std::deque<std::string> model;
  auto value = [&] {
    int r = static_cast<int>(rng() % 4);
    if (r == 0) return std::to_string(rng() % 50);
    return std::string(rng() % value_len + 1, static_cast<char>('a' + rng() % 3));
  };
  for (int step = 0; step < 3000; ++step) {
    int op = static_cast<int>(rng() % 9);
    size_t n = model.size();
    std::string v = value();
    switch (op) {
      case 0:
        ql.PushHead(v);
        model.push_front(v);
        break;
      case 1:
        ql.PushTail(v);
        model.push_back(v);
        break;
      case 2:
        if (n == 0) break;
        ASSERT_EQ(Text(ql.Front()), model.front());
        ql.PopHead();
        model.pop_front();
        break;
      case 3:
        if (n == 0) break;
        ASSERT_EQ(Text(ql.Back()), model.back());
        ql.PopTail();
        model.pop_back();
        break;
      case 4: {
        if (n == 0) break;
        size_t i = rng() % n;
        bool after = rng() % 2;
        ql.Insert(i, v, after);
        model.insert(model.begin() + static_cast<long>(i + (after ? 1 : 0)), v);
        break;
      }
      case 5: {
        if (n == 0) break;
        size_t i = rng() % n;
        ql.Replace(i, v);
        model[i] = v;
        break;
      }
      case 6: {
        if (n == 0 || rng() % 4 != 0) break;
        size_t start = rng() % n;
        size_t count = rng() % (n - start + 1);
        ql.DeleteRange(start, count);
        model.erase(model.begin() + static_cast<long>(start),
                    model.begin() + static_cast<long>(start + count));
        break;
      }
      case 7: {
        size_t limit = rng() % 3;
        bool from_tail = rng() % 2;
        size_t removed = 0;
        if (!from_tail) {
          for (auto it = model.begin(); it != model.end() && (limit == 0 || removed < limit);) {
            if (*it == v) {
              it = model.erase(it);
              ++removed;
            } else {
              ++it;
            }
          }
        } else {
          for (size_t i = model.size(); i-- > 0 && (limit == 0 || removed < limit);) {
            if (model[i] == v) {
              model.erase(model.begin() + static_cast<long>(i));
              ++removed;
            }
          }
        }
        ASSERT_EQ(ql.Remove(v, limit, from_tail), removed);
        break;
      }
      default:
        for (int k = 0; k < 5; ++k) {
          ql.PushTail(v);
          model.push_back(v);
        }
    }
    ASSERT_NO_FATAL_FAILURE(CheckInvariants(ql)) << "step " << step;
    if (step % 50 == 0) {
      ASSERT_EQ(Elements(ql), std::vector<std::string>(model.begin(), model.end()))
          << "step " << step;
    }
  }
  ASSERT_EQ(Elements(ql), std::vector<std::string>(model.begin(), model.end()));
}

TEST(QuickList, RandomOpsCountFill) { RandomOps(3, 0, 40, 1); }
TEST(QuickList, RandomOpsSizeFill) { RandomOps(-1, 0, 900, 2); }
TEST(QuickList, RandomOpsDeepCompression) { RandomOps(2, 2, 60, 3); }
TEST(QuickList, RandomOpsOneElementNodes) { RandomOps(0, 1, 60, 4); }

}  // namespace
}  // namespace vireo
