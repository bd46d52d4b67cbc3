#include "store/access_clock.h"

#include <gtest/gtest.h>

#include "store/db.h"

namespace vireo {
namespace {

TEST(AccessClock, LfuPackKeepsMinutesAndCounter) {
  uint32_t c = LfuPack(0x1234, 7);
  EXPECT_EQ(c >> 8, 0x1234u);
  EXPECT_EQ(c & 0xFF, 7u);
  EXPECT_LT(c, 1u << 24);
  EXPECT_EQ(LfuPack(0x12345, 1) >> 8, 0x2345u);  // the minutes clock wraps at 16 bits
}

TEST(AccessClock, ElapsedMinutesWraps) {
  EXPECT_EQ(LfuElapsedMinutes(10, 4), 6u);
  EXPECT_EQ(LfuElapsedMinutes(3, 65530), 65535u - 65530u + 3u);
}

TEST(AccessClock, DecayOnePerPeriod) {
  uint32_t clock = LfuPack(100, 20);
  EXPECT_EQ(LfuDecayed(clock, 100, 1), 20);
  EXPECT_EQ(LfuDecayed(clock, 105, 1), 15);
  EXPECT_EQ(LfuDecayed(clock, 105, 2), 18);   // 5 minutes / 2 = 2 periods
  EXPECT_EQ(LfuDecayed(clock, 200, 1), 0);    // never below zero
  EXPECT_EQ(LfuDecayed(clock, 5000, 0), 20);  // lfu-decay-time 0: no decay
}

TEST(AccessClock, LogIncrementProbability) {
  // At or below the initial value the counter always grows.
  EXPECT_EQ(LfuLogIncrement(0, 10, 0.999), 1);
  EXPECT_EQ(LfuLogIncrement(kLfuInitCounter, 10, 0.999), kLfuInitCounter + 1);
  // Above it: p = 1 / ((counter - 5) * factor + 1); counter 15, factor 10 -> p = 1/101.
  EXPECT_EQ(LfuLogIncrement(15, 10, 1.0 / 101 - 1e-9), 16);
  EXPECT_EQ(LfuLogIncrement(15, 10, 1.0 / 101 + 1e-9), 15);
  // Factor 0 always increments; 255 saturates.
  EXPECT_EQ(LfuLogIncrement(200, 0, 0.999), 201);
  EXPECT_EQ(LfuLogIncrement(255, 0, 0.0), 255);
}

TEST(AccessClock, LfuModeCountsAccesses) {
  SetAccessClockPolicy(true, 0, 1);  // factor 0: every access counts
  KeyspaceStats stats;
  {
    Db db(0, &stats);
    Entry* e = db.Add("k");
    EXPECT_EQ(LfuFrequency(e), kLfuInitCounter);
    for (int i = 0; i < 10; ++i) db.Lookup("k");
    EXPECT_EQ(LfuFrequency(e), kLfuInitCounter + 10);
    db.Lookup("k", /*touch=*/false);
    EXPECT_EQ(LfuFrequency(e), kLfuInitCounter + 10);
  }
  SetAccessClockPolicy(false, 10, 1);
}

TEST(AccessClock, LfuGrowsLogarithmically) {
  SetAccessClockPolicy(true, 10, 1);
  KeyspaceStats stats;
  {
    Db db(0, &stats);
    Entry* e = db.Add("k");
    for (int i = 0; i < 1000; ++i) db.Lookup("k");
    // Valkey's table for factor 10: 1K hits reach about 18; far from 1000, well above 5.
    EXPECT_GT(LfuFrequency(e), 10);
    EXPECT_LT(LfuFrequency(e), 30);
  }
  SetAccessClockPolicy(false, 10, 1);
}

TEST(AccessClock, LruModeStoresSeconds) {
  SetAccessClockPolicy(false, 10, 1);
  KeyspaceStats stats;
  Db db(0, &stats);
  Entry* e = db.Add("k");
  e->SetLru((LruClock() - 100) & 0xFFFFFF);
  EXPECT_EQ(LruIdleSeconds(e->lru()), 100u);
  db.Lookup("k");
  EXPECT_EQ(LruIdleSeconds(e->lru()), 0u);
}

}  // namespace
}  // namespace vireo

namespace vireo {
namespace {

TEST(AccessClock, RestoreAppliesWhatThePolicyUses) {
  KeyspaceStats stats;
  Db db(0, &stats);
  Entry* e = db.Add("k");
  SetAccessClockPolicy(false, 10, 1);
  RestoreAccessClock(e, 500, 77);
  EXPECT_EQ(LruIdleSeconds(e->lru()), 500u);
  RestoreAccessClock(e, -1, -1);
  EXPECT_EQ(LruIdleSeconds(e->lru()), 0u);
  SetAccessClockPolicy(true, 10, 1);
  RestoreAccessClock(e, 500, 77);
  EXPECT_EQ(LfuFrequency(e), 77);
  RestoreAccessClock(e, 500, -1);
  EXPECT_EQ(LfuFrequency(e), kLfuInitCounter);
  SetAccessClockPolicy(false, 10, 1);
}

}  // namespace
}  // namespace vireo
