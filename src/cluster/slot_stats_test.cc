#include "cluster/slot_stats.h"

#include <gtest/gtest.h>

#include <memory>

namespace vireo {
namespace {

TEST(SlotStatsTest, ParsesMetricNamesCaseInsensitively) {
  SlotMetric m;
  ASSERT_TRUE(ParseSlotMetric("KEY-COUNT", &m));
  EXPECT_EQ(m, SlotMetric::kKeyCount);
  ASSERT_TRUE(ParseSlotMetric("cpu-usec", &m));
  EXPECT_EQ(m, SlotMetric::kCpuUsec);
  ASSERT_TRUE(ParseSlotMetric("Network-Bytes-In", &m));
  EXPECT_EQ(m, SlotMetric::kNetworkBytesIn);
  ASSERT_TRUE(ParseSlotMetric("network-bytes-out", &m));
  EXPECT_EQ(m, SlotMetric::kNetworkBytesOut);
  EXPECT_FALSE(ParseSlotMetric("memory-bytes", &m));
  EXPECT_FALSE(ParseSlotMetric("key-count ", &m));
}

TEST(SlotStatsTest, AccumulatesAndResetsPerSlot) {
  auto stats = std::make_unique<SlotStats>();
  stats->AddCpu(7, 10);
  stats->AddCpu(7, 5);
  stats->AddBytesIn(7, 27);
  stats->AddBytesOut(7, 5);
  stats->AddBytesOut(16383, 1);
  EXPECT_EQ(stats->Get(7).cpu_usec, 15u);
  EXPECT_EQ(stats->Value(7, SlotMetric::kNetworkBytesIn, 0), 27u);
  EXPECT_EQ(stats->Value(7, SlotMetric::kNetworkBytesOut, 0), 5u);
  EXPECT_EQ(stats->Value(7, SlotMetric::kKeyCount, 3), 3u);
  EXPECT_EQ(stats->Get(8).cpu_usec, 0u);
  stats->Reset(7);
  EXPECT_EQ(stats->Get(7).cpu_usec, 0u);
  EXPECT_EQ(stats->Get(7).network_bytes_in, 0u);
  EXPECT_EQ(stats->Get(16383).network_bytes_out, 1u);
  stats->ResetAll();
  EXPECT_EQ(stats->Get(16383).network_bytes_out, 0u);
}

TEST(SlotStatsTest, OrdersByMetricWithLowerSlotWinningTies) {
  auto stats = std::make_unique<SlotStats>();
  std::vector<uint64_t> keys(kClusterSlots, 0);
  keys[5] = 2;
  keys[9] = 4;
  keys[3] = 2;
  const std::vector<int> slots = {0, 3, 5, 9, 100};
  EXPECT_EQ(stats->Order(slots, SlotMetric::kKeyCount, keys, true, 16384),
            (std::vector<int>{9, 3, 5, 0, 100}));
  EXPECT_EQ(stats->Order(slots, SlotMetric::kKeyCount, keys, false, 16384),
            (std::vector<int>{0, 100, 3, 5, 9}));
  EXPECT_EQ(stats->Order(slots, SlotMetric::kKeyCount, keys, true, 2), (std::vector<int>{9, 3}));
  stats->AddBytesIn(100, 1);
  EXPECT_EQ(stats->Order(slots, SlotMetric::kNetworkBytesIn, keys, true, 3),
            (std::vector<int>{100, 0, 3}));
  EXPECT_TRUE(stats->Order({}, SlotMetric::kCpuUsec, keys, true, 10).empty());
}

}  // namespace
}  // namespace vireo
