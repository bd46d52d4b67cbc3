#include "store/eviction_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace vireo {
namespace {

TEST(EvictionPool, PopsBestFirst) {
  EvictionPool pool;
  pool.Offer(5, 0, "five");
  pool.Offer(9, 1, "nine");
  pool.Offer(1, 0, "one");
  int db;
  std::string key;
  uint64_t score;
  ASSERT_TRUE(pool.PopBest(&db, &key, &score));
  EXPECT_EQ(key, "nine");
  EXPECT_EQ(db, 1);
  EXPECT_EQ(score, 9u);
  ASSERT_TRUE(pool.PopBest(&db, &key));
  EXPECT_EQ(key, "five");
  ASSERT_TRUE(pool.PopBest(&db, &key));
  EXPECT_EQ(key, "one");
  EXPECT_FALSE(pool.PopBest(&db, &key));
}

TEST(EvictionPool, FullPoolKeepsTheBest) {
  EvictionPool pool;
  for (uint64_t i = 0; i < 100; ++i) pool.Offer(i, 0, "k" + std::to_string(i));
  EXPECT_EQ(pool.Size(), EvictionPool::kSize);
  pool.Offer(3, 0, "worse");  // below everything kept: ignored
  EXPECT_EQ(pool.Size(), EvictionPool::kSize);
  int db;
  std::string key;
  uint64_t score;
  for (uint64_t want = 99; want >= 100 - EvictionPool::kSize; --want) {
    ASSERT_TRUE(pool.PopBest(&db, &key, &score));
    EXPECT_EQ(score, want);
    EXPECT_EQ(key, "k" + std::to_string(want));
  }
  EXPECT_EQ(pool.Size(), 0u);
}

TEST(EvictionPool, MiddleInsertWhenFull) {
  EvictionPool pool;
  for (uint64_t i = 0; i < EvictionPool::kSize; ++i) pool.Offer(i * 10, 0, "k" + std::to_string(i));
  pool.Offer(55, 2, "mid");  // drops score 0
  int db;
  std::string key;
  uint64_t score;
  std::vector<uint64_t> scores;
  while (pool.PopBest(&db, &key, &score)) scores.push_back(score);
  ASSERT_EQ(scores.size(), EvictionPool::kSize);
  for (size_t i = 1; i < scores.size(); ++i) EXPECT_GE(scores[i - 1], scores[i]);
  EXPECT_EQ(scores.back(), 10u);
  EXPECT_NE(std::find(scores.begin(), scores.end(), 55u), scores.end());
}

TEST(EvictionPool, SameKeyOnce) {
  EvictionPool pool;
  pool.Offer(5, 0, "a");
  pool.Offer(5, 0, "a");
  pool.Offer(5, 1, "a");  // another database: another key
  EXPECT_EQ(pool.Size(), 2u);
}

}  // namespace
}  // namespace vireo
