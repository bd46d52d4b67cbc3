#include "store/hash_table.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/hash.h"

namespace vireo {
namespace {

struct TestNode {
  explicit TestNode(std::string k) : key(std::move(k)) {}
  std::string_view Key() const { return key; }

  std::string key;
  TestNode* next = nullptr;
};

using Table = HashTable<TestNode>;

std::string KeyOf(int prefix, size_t i) {
  return "k" + std::to_string(prefix) + ":" + std::to_string(i);
}

// Owns the nodes of one table and keeps the expected key set beside it.
class Fixture {
 public:
  TestNode* Add(const std::string& key) {
    auto node = std::make_unique<TestNode>(key);
    TestNode* raw = node.get();
    table.Insert(raw);
    nodes[key] = std::move(node);
    return raw;
  }
  void Drop(const std::string& key) {
    TestNode* removed = table.Remove(key);
    ASSERT_NE(removed, nullptr) << key;
    ASSERT_EQ(removed, nodes[key].get());
    EXPECT_EQ(removed->next, nullptr);
    nodes.erase(key);
  }
  void ExpectConsistent() const {
    ASSERT_EQ(table.Size(), nodes.size());
    for (const auto& [key, node] : nodes) ASSERT_EQ(table.Find(key), node.get()) << key;
  }

  Table table;
  std::unordered_map<std::string, std::unique_ptr<TestNode>> nodes;
};

// Scans from cursor 0 to the end, calling between_steps after every step but the last.
template <typename Between>
std::unordered_map<std::string, int> ScanAll(Table& table, Between&& between_steps) {
  std::unordered_map<std::string, int> seen;
  uint64_t cursor = 0;
  size_t steps = 0;
  do {
    cursor = table.Scan(cursor, [&](TestNode* node) {
      // A reported node must be live and linked at that moment.
      EXPECT_EQ(table.Find(node->key), node);
      ++seen[node->key];
    });
    if (cursor != 0) between_steps();
    EXPECT_LT(++steps, size_t{10'000'000}) << "scan does not terminate";
  } while (cursor != 0 && steps < 10'000'000);
  return seen;
}

TEST(HashTableTest, EmptyTableHasNoBuckets) {
  Table table;
  EXPECT_EQ(table.Size(), 0u);
  EXPECT_EQ(table.BucketCount(), 0u);
  EXPECT_FALSE(table.IsRehashing());
  EXPECT_EQ(table.Find("a"), nullptr);
  EXPECT_EQ(table.Remove("a"), nullptr);
  EXPECT_EQ(table.Random(), nullptr);
  table.PrefetchChain(table.Prefetch("a"));
  table.MaybeShrink();
  EXPECT_FALSE(table.RehashStep(10));
  int calls = 0;
  EXPECT_EQ(table.Scan(0, [&](TestNode*) { ++calls; }), 0u);
  table.ForEach([&](TestNode*) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(table.BucketCount(), 0u);
  // There is one table per database; the header is all an empty one costs.
  EXPECT_LE(sizeof(Table), 48u);
}

TEST(HashTableTest, EmptyAndBinaryKeys) {
  SetHashSeed(1);
  Fixture f;
  f.Add("");
  f.Add(std::string("a\0b", 3));
  f.Add(std::string("a\0c", 3));
  f.ExpectConsistent();
  EXPECT_EQ(f.table.Find("a"), nullptr);
  f.Drop("");
  EXPECT_EQ(f.table.Find(""), nullptr);
  f.ExpectConsistent();
}

TEST(HashTableTest, ReserveSizesAnEmptyTableOnce) {
  SetHashSeed(3);
  Fixture f;
  f.table.Reserve(1000);
  EXPECT_EQ(f.table.BucketCount(), 1024u);
  for (size_t i = 0; i < 1000; ++i) {
    f.Add(KeyOf(0, i));
    ASSERT_FALSE(f.table.IsRehashing());  // no doubling on the way to the announced size
  }
  f.ExpectConsistent();
  f.table.Reserve(100000);  // not empty any more: ignored
  EXPECT_EQ(f.table.BucketCount(), 1024u);
  for (size_t i = 0; i < 1000; ++i) ASSERT_NE(f.table.Find(KeyOf(0, i)), nullptr);
}

TEST(HashTableTest, InsertFindRemoveMany) {
  SetHashSeed(2);
  constexpr size_t kCount = 100'000;
  Fixture f;
  for (size_t i = 0; i < kCount; ++i) f.Add(KeyOf(0, i));
  f.ExpectConsistent();
  for (size_t i = 0; i < 1000; ++i) EXPECT_EQ(f.table.Find(KeyOf(1, i)), nullptr);
  EXPECT_LE(f.table.Size(), f.table.BucketCount());

  for (size_t i = 0; i < kCount; i += 2) f.Drop(KeyOf(0, i));
  for (size_t i = 0; i < kCount; i += 2) EXPECT_EQ(f.table.Find(KeyOf(0, i)), nullptr);
  EXPECT_EQ(f.table.Remove(KeyOf(0, 0)), nullptr);
  f.ExpectConsistent();

  for (size_t i = 1; i < kCount; i += 2) f.Drop(KeyOf(0, i));
  EXPECT_EQ(f.table.Size(), 0u);
  EXPECT_EQ(f.table.Find(KeyOf(0, 1)), nullptr);
}

TEST(HashTableTest, ReplaceSwapsNodeInPlace) {
  SetHashSeed(3);
  Fixture f;
  // Small enough that chains of several nodes are common, so middle-of-chain swaps happen.
  for (size_t i = 0; i < 300; ++i) f.Add(KeyOf(0, i));
  std::vector<std::unique_ptr<TestNode>> retired;
  for (int round = 0; round < 3; ++round) {
    for (auto& [key, node] : f.nodes) {
      auto fresh = std::make_unique<TestNode>(key);
      TestNode* old_node = node.get();
      f.table.Replace(old_node, fresh.get());
      EXPECT_EQ(old_node->next, nullptr);
      retired.push_back(std::move(node));
      node = std::move(fresh);
    }
    f.ExpectConsistent();
    // Next round replaces mid-rehash too.
    for (size_t i = 0; i < 200; ++i) f.Add(KeyOf(round + 1, i));
  }
}

TEST(HashTableTest, GrowthKeepsEveryKeyFindableMidRehash) {
  SetHashSeed(4);
  Fixture f;
  std::vector<std::string> keys;
  size_t rehashing_checks = 0;
  for (size_t i = 0; i < 3000; ++i) {
    keys.push_back(KeyOf(0, i));
    f.Add(keys.back());
    // Load 1 triggers a grow, and a grow finishes before its target passes load 1.
    if (!f.table.IsRehashing()) {
      EXPECT_LE(f.table.Size(), f.table.BucketCount());
      continue;
    }
    ++rehashing_checks;
    for (const std::string& key : keys) ASSERT_NE(f.table.Find(key), nullptr) << key;
  }
  EXPECT_GT(rehashing_checks, 1000u);
  while (f.table.RehashStep(1)) {
  }
  f.ExpectConsistent();
  EXPECT_EQ(f.table.BucketCount(), 4096u);
}

TEST(HashTableTest, MaxLoadTwoHalvesTheBuckets) {
  SetHashSeed(4);
  Fixture f;
  f.table.SetMaxLoad(2);
  for (size_t i = 0; i < 3000; ++i) {
    f.Add(KeyOf(0, i));
    // A grow starts at load 2 and ends at load <= 1.5.
    if (!f.table.IsRehashing()) {
      EXPECT_LE(f.table.Size(), 2 * f.table.BucketCount());
    }
  }
  while (f.table.RehashStep(1)) {
  }
  f.ExpectConsistent();
  EXPECT_EQ(f.table.BucketCount(), 2048u);  // 4096 at the default load of 1
}

TEST(HashTableTest, ShrinksAfterMassRemoval) {
  SetHashSeed(5);
  Fixture f;
  for (size_t i = 0; i < 10'000; ++i) f.Add(KeyOf(0, i));
  while (f.table.RehashStep(1)) {
  }
  EXPECT_EQ(f.table.BucketCount(), 16384u);
  f.table.MaybeShrink();  // load is fine: nothing happens
  EXPECT_FALSE(f.table.IsRehashing());
  for (size_t i = 10; i < 10'000; ++i) f.Drop(KeyOf(0, i));

  f.table.MaybeShrink();
  EXPECT_TRUE(f.table.IsRehashing());
  f.table.MaybeShrink();  // already shrinking: no effect
  while (f.table.RehashStep(1)) f.ExpectConsistent();
  EXPECT_EQ(f.table.BucketCount(), 16u);
  f.ExpectConsistent();

  for (size_t i = 0; i < 10; ++i) f.Drop(KeyOf(0, i));
  f.table.MaybeShrink();
  EXPECT_EQ(f.table.BucketCount(), 0u);
  f.Add("again");
  f.ExpectConsistent();
}

TEST(HashTableTest, InsertsDuringShrinkStayFindable) {
  SetHashSeed(6);
  Fixture f;
  for (size_t i = 0; i < 50'000; ++i) f.Add(KeyOf(0, i));
  for (size_t i = 100; i < 50'000; ++i) f.Drop(KeyOf(0, i));
  f.table.MaybeShrink();
  ASSERT_TRUE(f.table.IsRehashing());
  // The shrink target overflows long before the shrink would finish at one bucket per call.
  for (size_t i = 0; i < 20'000; ++i) f.Add(KeyOf(1, i));
  f.ExpectConsistent();
  while (f.table.RehashStep(4)) {
  }
  for (size_t i = 0; i < 20'000; ++i) f.Add(KeyOf(2, i));
  f.ExpectConsistent();
  EXPECT_LE(f.table.Size(), 2 * f.table.BucketCount());
}

TEST(HashTableTest, RandomReturnsMembersAndCoversSmallTable) {
  for (uint64_t seed = 10; seed < 13; ++seed) {
    SetHashSeed(seed);
    Fixture f;
    for (size_t i = 0; i < 50; ++i) f.Add(KeyOf(0, i));
    std::unordered_set<TestNode*> seen;
    for (int draw = 0; draw < 20'000; ++draw) {
      TestNode* node = f.table.Random();
      ASSERT_NE(node, nullptr);
      ASSERT_EQ(f.table.Find(node->key), node);
      seen.insert(node);
    }
    EXPECT_EQ(seen.size(), 50u);

    // Mid-rehash both tables are candidates.
    while (!f.table.IsRehashing()) f.Add(KeyOf(1, f.nodes.size()));
    seen.clear();
    for (int draw = 0; draw < 20'000; ++draw) {
      TestNode* node = f.table.Random();
      ASSERT_EQ(f.table.Find(node->key), node);
      seen.insert(node);
    }
    ASSERT_TRUE(f.table.IsRehashing());
    EXPECT_GE(seen.size(), f.nodes.size() * 9 / 10);
  }
}

TEST(HashTableTest, RandomFindsLoneNodeInSparseTable) {
  SetHashSeed(14);
  Fixture f;
  for (size_t i = 0; i < 20'000; ++i) f.Add(KeyOf(0, i));
  for (size_t i = 1; i < 20'000; ++i) f.Drop(KeyOf(0, i));
  for (int draw = 0; draw < 100; ++draw) EXPECT_EQ(f.table.Random(), f.nodes.begin()->second.get());
}

TEST(HashTableTest, ClearUnlinksEveryNodeAndFreesBuckets) {
  SetHashSeed(15);
  Fixture f;
  for (size_t i = 0; i < 1000; ++i) f.Add(KeyOf(0, i));
  while (!f.table.IsRehashing()) f.Add(KeyOf(1, f.nodes.size()));
  std::unordered_set<TestNode*> cleared;
  f.table.Clear([&](TestNode* node) {
    EXPECT_EQ(node->next, nullptr);
    EXPECT_EQ(f.table.Size(), 0u);
    EXPECT_TRUE(cleared.insert(node).second);
  });
  EXPECT_EQ(cleared.size(), f.nodes.size());
  EXPECT_EQ(f.table.Size(), 0u);
  EXPECT_EQ(f.table.BucketCount(), 0u);
  EXPECT_FALSE(f.table.IsRehashing());
  EXPECT_EQ(f.table.Find(KeyOf(0, 1)), nullptr);
  f.nodes.clear();
  for (size_t i = 0; i < 100; ++i) f.Add(KeyOf(2, i));
  f.ExpectConsistent();
}

TEST(HashTableTest, ForEachVisitsEveryNodeOnceMidRehash) {
  SetHashSeed(16);
  Fixture f;
  for (size_t i = 0; i < 1000; ++i) f.Add(KeyOf(0, i));
  while (!f.table.IsRehashing()) f.Add(KeyOf(1, f.nodes.size()));
  f.table.RehashStep(100);
  ASSERT_TRUE(f.table.IsRehashing());
  std::unordered_map<TestNode*, int> visits;
  f.table.ForEach([&](TestNode* node) { ++visits[node]; });
  EXPECT_EQ(visits.size(), f.nodes.size());
  for (const auto& [node, count] : visits) EXPECT_EQ(count, 1) << node->key;
}

TEST(HashTableTest, PrefetchIsHarmless) {
  SetHashSeed(17);
  Fixture f;
  // Both stages, for keys present and absent, through every grow and rehash step.
  auto all_stages = [&f](const std::string& key) {
    const uint64_t hash = f.table.Prefetch(key);
    f.table.PrefetchChain(hash);
  };
  for (size_t i = 0; i < 1000; ++i) {
    all_stages(KeyOf(0, i));
    f.Add(KeyOf(0, i));
    all_stages(KeyOf(0, i));
    all_stages(KeyOf(1, i));
  }
  f.ExpectConsistent();
}

// With no mutation between steps, a scan reports every node exactly once, rehashing or not.
TEST(HashTableTest, ScanOfFixedSetSeesEveryKeyOnce) {
  for (uint64_t seed = 20; seed < 25; ++seed) {
    SetHashSeed(seed);
    for (size_t count : {1, 3, 4, 5, 100, 1000, 5000}) {
      Fixture f;
      for (size_t i = 0; i < count; ++i) f.Add(KeyOf(0, i));
      for (int rehashing = 0; rehashing < 2; ++rehashing) {
        auto seen = ScanAll(f.table, [] {});
        ASSERT_EQ(seen.size(), f.nodes.size()) << "count " << count;
        for (const auto& [key, times] : seen) EXPECT_EQ(times, 1) << key;
        while (!f.table.IsRehashing()) f.Add(KeyOf(1, f.nodes.size()));
        f.table.RehashStep(f.table.BucketCount() / 8);
      }
    }
  }
}

// Mid-shrink the large table is table 0; scanning must still cover both.
TEST(HashTableTest, ScanOfFixedSetMidShrink) {
  SetHashSeed(26);
  Fixture f;
  for (size_t i = 0; i < 4000; ++i) f.Add(KeyOf(0, i));
  for (size_t i = 100; i < 4000; ++i) f.Drop(KeyOf(0, i));
  f.table.MaybeShrink();
  f.table.RehashStep(3);
  ASSERT_TRUE(f.table.IsRehashing());
  auto seen = ScanAll(f.table, [] {});
  ASSERT_EQ(seen.size(), f.nodes.size());
  for (const auto& [key, times] : seen) EXPECT_EQ(times, 1) << key;
}

void ExpectSawStable(const std::unordered_map<std::string, int>& seen,
                     const std::vector<std::string>& stable) {
  size_t missing = 0;
  for (const std::string& key : stable) {
    if (!seen.contains(key)) ++missing;
  }
  EXPECT_EQ(missing, 0u) << "of " << stable.size() << " keys present throughout";
}

// The SCAN guarantee while the table grows between steps (and some keys go away).
TEST(HashTableTest, ScanSeesStableKeysAcrossGrowth) {
  for (uint64_t seed = 30; seed < 36; ++seed) {
    SetHashSeed(seed);
    std::mt19937_64 rng(seed);
    Fixture f;
    std::vector<std::string> stable;
    std::vector<std::string> doomed;
    for (size_t i = 0; i < 500; ++i) stable.push_back(f.Add(KeyOf(0, i))->key);
    for (size_t i = 0; i < 500; ++i) doomed.push_back(f.Add(KeyOf(1, i))->key);
    std::shuffle(doomed.begin(), doomed.end(), rng);
    // Inserts stop at some point (see ScanSeesStableKeysAcrossMixedResizes).
    constexpr size_t kMaxAdded = 30'000;
    size_t added = 0;
    size_t grows = 0;
    size_t last_buckets = f.table.BucketCount();
    auto seen = ScanAll(f.table, [&] {
      size_t burst = std::min<size_t>(kMaxAdded - added, rng() % 64);
      for (size_t i = 0; i < burst; ++i) f.Add(KeyOf(2, added++));
      if (!doomed.empty() && rng() % 2 == 0) {
        f.Drop(doomed.back());
        doomed.pop_back();
      }
      if (f.table.BucketCount() > last_buckets) ++grows;
      last_buckets = f.table.BucketCount();
    });
    ExpectSawStable(seen, stable);
    EXPECT_GE(grows, 2u) << "the scan should have spanned several grows";
    f.ExpectConsistent();
  }
}

// The SCAN guarantee while the table shrinks between steps.
TEST(HashTableTest, ScanSeesStableKeysAcrossShrinks) {
  for (uint64_t seed = 40; seed < 46; ++seed) {
    SetHashSeed(seed);
    std::mt19937_64 rng(seed);
    Fixture f;
    std::vector<std::string> stable;
    std::vector<std::string> doomed;
    for (size_t i = 0; i < 200; ++i) stable.push_back(f.Add(KeyOf(0, i))->key);
    for (size_t i = 0; i < 30'000; ++i) doomed.push_back(f.Add(KeyOf(1, i))->key);
    while (f.table.RehashStep(8)) {
    }
    std::shuffle(doomed.begin(), doomed.end(), rng);
    size_t shrinks = 0;
    auto seen = ScanAll(f.table, [&] {
      size_t burst = std::min<size_t>(doomed.size(), rng() % 600);
      for (size_t i = 0; i < burst; ++i) {
        f.Drop(doomed.back());
        doomed.pop_back();
      }
      bool was_rehashing = f.table.IsRehashing();
      f.table.MaybeShrink();
      if (!was_rehashing && f.table.IsRehashing()) ++shrinks;
      f.table.RehashStep(rng() % 64);
    });
    ExpectSawStable(seen, stable);
    EXPECT_GE(shrinks, 2u) << "the scan should have spanned several shrinks";
    f.ExpectConsistent();
  }
}

// Grows and shrinks interleaved at random, with rehashes often in progress at a step.
TEST(HashTableTest, ScanSeesStableKeysAcrossMixedResizes) {
  for (uint64_t seed = 50; seed < 58; ++seed) {
    SetHashSeed(seed);
    std::mt19937_64 rng(seed);
    Fixture f;
    std::vector<std::string> stable;
    std::vector<std::string> transient;
    for (size_t i = 0; i < 300; ++i) stable.push_back(f.Add(KeyOf(0, i))->key);
    // Bounded so the scan ends: a table that keeps doubling faster than the cursor advances
    // would keep the scan going forever.
    constexpr size_t kMaxTransient = 6000;
    size_t added = 0;
    auto seen = ScanAll(f.table, [&] {
      switch (rng() % 4) {
        case 0: {  // burst of inserts
          size_t n = std::min<size_t>(kMaxTransient - transient.size(), rng() % 1000);
          for (; n > 0; --n) transient.push_back(f.Add(KeyOf(1, added++))->key);
          break;
        }
        case 1: {  // burst of removes
          size_t n = std::min<size_t>(transient.size(), rng() % 1000);
          for (; n > 0; --n) {
            std::swap(transient[rng() % transient.size()], transient.back());
            f.Drop(transient.back());
            transient.pop_back();
          }
          break;
        }
        case 2:
          f.table.MaybeShrink();
          break;
        default:
          f.table.RehashStep(rng() % 16);
          break;
      }
    });
    ExpectSawStable(seen, stable);
    f.ExpectConsistent();
  }
}

// Random operations checked against a model after every one.
TEST(HashTableTest, RandomOperationsMatchModel) {
  for (uint64_t seed = 60; seed < 64; ++seed) {
    SetHashSeed(seed);
    std::mt19937_64 rng(seed);
    Fixture f;
    std::vector<std::unique_ptr<TestNode>> retired;
    for (int op = 0; op < 60'000; ++op) {
      std::string key = KeyOf(0, rng() % 4000);
      auto it = f.nodes.find(key);
      switch (rng() % 6) {
        case 0:
        case 1:
          if (it == f.nodes.end()) f.Add(key);
          break;
        case 2:
          if (it != f.nodes.end()) {
            f.Drop(key);
          } else {
            ASSERT_EQ(f.table.Remove(key), nullptr);
          }
          break;
        case 3:
          ASSERT_EQ(f.table.Find(key), it == f.nodes.end() ? nullptr : it->second.get());
          break;
        case 4:
          if (it != f.nodes.end()) {
            auto fresh = std::make_unique<TestNode>(key);
            f.table.Replace(it->second.get(), fresh.get());
            retired.push_back(std::move(it->second));
            it->second = std::move(fresh);
          }
          break;
        default:
          if (rng() % 2) f.table.MaybeShrink();
          f.table.RehashStep(rng() % 3);
          break;
      }
      ASSERT_EQ(f.table.Size(), f.nodes.size());
    }
    f.ExpectConsistent();
  }
}

}  // namespace
}  // namespace vireo
