#include "common/latency_histogram.h"

#include <gtest/gtest.h>

namespace vireo {
namespace {

TEST(LatencyHistogramTest, SmallValuesHaveTheirOwnBucket) {
  for (int64_t v = 0; v < 256; ++v) {
    EXPECT_EQ(LatencyHistogram::IndexOf(v), v);
    EXPECT_EQ(LatencyHistogram::ValueAtIndex(static_cast<int>(v)), v);
  }
}

TEST(LatencyHistogramTest, BucketBoundaries) {
  // 256..511 step 2, 512..1023 step 4, ...: two significant digits.
  EXPECT_EQ(LatencyHistogram::LowestEquivalent(257), 256);
  EXPECT_EQ(LatencyHistogram::HighestEquivalent(256), 257);
  EXPECT_EQ(LatencyHistogram::IndexOf(258), LatencyHistogram::IndexOf(259));
  EXPECT_NE(LatencyHistogram::IndexOf(257), LatencyHistogram::IndexOf(258));
  // The values Valkey's reports show for 20 us and 6 us.
  EXPECT_EQ(LatencyHistogram::HighestEquivalent(20000), 20095);
  EXPECT_EQ(LatencyHistogram::LowestEquivalent(20000), 19968);
  EXPECT_EQ(LatencyHistogram::LowestEquivalent(6000), 5984);
  EXPECT_EQ(LatencyHistogram::HighestEquivalent(32768), 33023);
  // Every index maps back to a value in its own bucket, without gaps or overlaps.
  for (int i = 1; i < LatencyHistogram::kCountsLen; ++i) {
    int64_t v = LatencyHistogram::ValueAtIndex(i);
    EXPECT_EQ(LatencyHistogram::IndexOf(v), i);
    EXPECT_EQ(LatencyHistogram::IndexOf(v - 1), i - 1);
  }
  EXPECT_LT(LatencyHistogram::IndexOf(LatencyHistogram::kMaxValue), LatencyHistogram::kCountsLen);
}

TEST(LatencyHistogramTest, RelativeErrorUnderOnePercent) {
  for (int64_t v = 1; v < LatencyHistogram::kMaxValue; v = v * 3 / 2 + 1) {
    int64_t high = LatencyHistogram::HighestEquivalent(v);
    int64_t low = LatencyHistogram::LowestEquivalent(v);
    EXPECT_LE(low, v);
    EXPECT_GE(high, v);
    EXPECT_LE(static_cast<double>(high - low), static_cast<double>(v) / 100.0) << v;
  }
}

TEST(LatencyHistogramTest, RecordUsMatchesRecordOfNanoseconds) {
  for (int64_t us : {0, 1, 5, 20, 255, 256, 1000, 1023, 1024, 5000, 999999, 1000000, 5000000}) {
    LatencyHistogram a, b;
    a.RecordUs(us);
    b.Record(us * 1000);
    EXPECT_EQ(a.ValueAtPercentile(50), b.ValueAtPercentile(50)) << us;
    EXPECT_EQ(a.ValueAtPercentile(0), b.ValueAtPercentile(0)) << us;
  }
}

TEST(LatencyHistogramTest, Percentiles) {
  LatencyHistogram h;
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  for (int64_t us = 1; us <= 100; ++us) h.Record(us * 1000);
  EXPECT_EQ(h.total(), 100u);
  auto near = [](int64_t got, int64_t want) {
    return got >= want && static_cast<double>(got - want) <= static_cast<double>(want) / 100.0;
  };
  EXPECT_TRUE(near(h.ValueAtPercentile(50), 50000)) << h.ValueAtPercentile(50);
  EXPECT_TRUE(near(h.ValueAtPercentile(99), 99000)) << h.ValueAtPercentile(99);
  EXPECT_TRUE(near(h.ValueAtPercentile(100), 100000)) << h.ValueAtPercentile(100);
  EXPECT_TRUE(near(h.ValueAtPercentile(150), 100000));
  // Percentile 0 is the lowest value of the smallest sample's bucket.
  EXPECT_EQ(h.ValueAtPercentile(0), LatencyHistogram::LowestEquivalent(1000));
  h.Reset();
  EXPECT_EQ(h.total(), 0u);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
}

TEST(LatencyHistogramTest, ClampsOutOfRange) {
  LatencyHistogram h;
  h.Record(0);
  h.Record(-5);
  h.Record(int64_t{1} << 40);
  EXPECT_EQ(h.total(), 3u);
  EXPECT_EQ(h.ValueAtPercentile(1), 1);
  EXPECT_GE(h.ValueAtPercentile(100), LatencyHistogram::kMaxValue);
}

TEST(LatencyHistogramTest, CumulativeLog2AsLatencyHistogramReportsIt) {
  LatencyHistogram h;
  h.Record(6000);
  for (int i = 0; i < 4; ++i) h.Record(12000);
  h.Record(20000);
  h.Record(33000);  // in the 32768 step's own bucket
  h.Record(100000);
  std::vector<LatencyHistogram::Step> steps = h.CumulativeLog2(1024);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].value / 1000, 8);
  EXPECT_EQ(steps[0].cumulative, 1u);
  EXPECT_EQ(steps[1].value / 1000, 16);
  EXPECT_EQ(steps[1].cumulative, 5u);
  EXPECT_EQ(steps[2].value / 1000, 33);
  EXPECT_EQ(steps[2].cumulative, 7u);
  EXPECT_EQ(steps[3].value / 1000, 132);
  EXPECT_EQ(steps[3].cumulative, 8u);
  EXPECT_TRUE(LatencyHistogram().CumulativeLog2(1024).empty());
}

TEST(LatencyHistogramTest, CopiesAreDeep) {
  LatencyHistogram a;
  a.Record(5000);
  LatencyHistogram b = a;
  b.Record(5000);
  EXPECT_EQ(a.total(), 1u);
  EXPECT_EQ(b.total(), 2u);
  LatencyHistogram empty;
  b = empty;
  EXPECT_EQ(b.total(), 0u);
  EXPECT_EQ(b.ValueAtPercentile(50), 0);
}

}  // namespace
}  // namespace vireo
