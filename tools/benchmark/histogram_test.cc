#include "benchmark/histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace vireo::benchmark {
namespace {

TEST(LatencyHistogram, BucketLayoutMatchesRedisBenchmark) {
  // Its values print as 0.103, 0.207, 2.103 ...: 8 us buckets below 16.384 ms.
  LatencyHistogram h = MakeLatencyHistogram(3);
  EXPECT_EQ(h.LowestEquivalent(100), 96);
  EXPECT_EQ(h.HighestEquivalent(100), 103);
  EXPECT_EQ(h.HighestEquivalent(200), 207);
  EXPECT_EQ(h.HighestEquivalent(2100), 2103);
  EXPECT_EQ(h.HighestEquivalent(16383), 16383);
  EXPECT_EQ(h.LowestEquivalent(16384), 16384);
  EXPECT_EQ(h.HighestEquivalent(16384), 16399);  // 16 us wide above
  EXPECT_EQ(h.HighestEquivalent(17100), 17103);
  EXPECT_EQ(h.HighestEquivalent(0), 7);
  for (int i = 1; i < h.bucket_count(); ++i) {
    ASSERT_EQ(h.BucketLowest(i), h.BucketHighest(i - 1) + 1) << i;
  }
  EXPECT_GE(h.BucketHighest(h.bucket_count() - 1), 3'000'000);
}

TEST(LatencyHistogram, FewerSignificantFiguresWidenBuckets) {
  LatencyHistogram h = MakeLatencyHistogram(1);
  EXPECT_EQ(h.HighestEquivalent(100), 103);    // still 8 us below 256 us
  EXPECT_EQ(h.HighestEquivalent(500), 511);    // 16 us
  EXPECT_EQ(h.HighestEquivalent(1300), 1343);  // 64 us
}

TEST(LatencyHistogram, Empty) {
  LatencyHistogram h = MakeLatencyHistogram(3);
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.Min(), 0);
  EXPECT_EQ(h.Max(), 0);
  EXPECT_EQ(h.Mean(), 0);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
}

// Two requests of 0.172 and 1.395 ms: redis-benchmark printed 0.000% 0.175, 75.000% 1.399,
// 100.000% 1.399, avg 0.784, min 0.168, p50 0.175, p95/p99/max 1.399.
TEST(LatencyHistogram, TwoSamplesAsRedisBenchmarkReportsThem) {
  LatencyHistogram h = MakeLatencyHistogram(3);
  h.Record(172);
  h.Record(1395);
  EXPECT_EQ(h.total_count(), 2);
  EXPECT_EQ(h.Min(), 168);
  EXPECT_EQ(h.Max(), 1399);
  EXPECT_DOUBLE_EQ(h.Mean(), 784);
  EXPECT_EQ(h.ValueAtPercentile(50), 175);
  EXPECT_EQ(h.ValueAtPercentile(95), 1399);
  EXPECT_EQ(h.ValueAtPercentile(0), 168);
  auto steps = h.PercentileSteps(1);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].percentile, 0);
  EXPECT_EQ(steps[0].value, 175);
  EXPECT_EQ(steps[0].cumulative, 1);
  EXPECT_EQ(steps[1].percentile, 50);  // same count as the row before: not printed
  EXPECT_EQ(steps[1].cumulative, 1);
  EXPECT_EQ(steps[2].percentile, 75);
  EXPECT_EQ(steps[2].value, 1399);
  EXPECT_EQ(steps[2].cumulative, 2);
  EXPECT_EQ(steps[3].percentile, 100);
  EXPECT_EQ(steps[3].cumulative, 2);
}

TEST(LatencyHistogram, PercentileStepsHalveTheDistance) {
  LatencyHistogram h = MakeLatencyHistogram(3);
  for (int v = 1; v <= 100000; ++v) h.Record(v);
  auto steps = h.PercentileSteps(1);
  const double expected[] = {0, 50, 75, 87.5, 93.75, 96.875, 98.4375};
  for (size_t i = 0; i < std::size(expected); ++i) {
    EXPECT_DOUBLE_EQ(steps[i].percentile, expected[i]) << i;
  }
  EXPECT_EQ(steps.back().percentile, 100);
  EXPECT_EQ(steps.back().cumulative, 100000);
  EXPECT_EQ(steps.back().value, h.Max());
  for (size_t i = 1; i < steps.size(); ++i) {
    EXPECT_GE(steps[i].cumulative, steps[i - 1].cumulative);
    EXPECT_GE(steps[i].value, steps[i - 1].value);
  }
}

TEST(LatencyHistogram, PercentilesWithinOnePercent) {
  LatencyHistogram h = MakeLatencyHistogram(3);
  for (int v = 1; v <= 2'000'000; v += 7) h.Record(v);
  for (double p : {1.0, 10.0, 50.0, 90.0, 95.0, 99.0, 99.9}) {
    double exact = p / 100 * 2'000'000;
    double got = static_cast<double>(h.ValueAtPercentile(p));
    EXPECT_NEAR(got, exact, exact * 0.01) << p;
  }
  EXPECT_NEAR(h.Mean(), 1'000'000, 10'000);
}

TEST(LatencyHistogram, RecordCountMergeReset) {
  LatencyHistogram a = MakeLatencyHistogram(3);
  LatencyHistogram b = MakeLatencyHistogram(3);
  a.Record(50, 3);
  b.Record(5000, 1);
  b.Record(40);
  a.Merge(b);
  EXPECT_EQ(a.total_count(), 5);
  EXPECT_EQ(a.Min(), 40);
  EXPECT_EQ(a.Max(), a.HighestEquivalent(5000));
  EXPECT_EQ(a.ValueAtPercentile(50), 55);
  a.Reset();
  EXPECT_EQ(a.total_count(), 0);
  EXPECT_EQ(a.Max(), 0);
}

TEST(LatencyHistogram, OutOfRangeValuesAreClamped) {
  LatencyHistogram h = MakeLatencyHistogram(3);
  h.Record(-5);
  h.Record(int64_t{1} << 40);
  EXPECT_EQ(h.total_count(), 2);
  EXPECT_EQ(h.Min(), 0);
  EXPECT_EQ(h.Max(), h.HighestEquivalent(3'000'000));
}

}  // namespace
}  // namespace vireo::benchmark
