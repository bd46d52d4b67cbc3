#include "common/sparkline.h"

#include <gtest/gtest.h>

namespace vireo {
namespace {

TEST(SparklineTest, TwoSamplesAsLatencyGraphDrawsThem) {
  // redis-server 7.0's LATENCY GRAPH body for spikes of 20 and 50 ms, 1 s and 0 s ago.
  EXPECT_EQ(RenderSparkline({{20, "1s"}, {50, "0s"}}, 80, 4), " #\n |\n |\n_|\n  \n10\nss\n");
}

TEST(SparklineTest, FlatSequenceSitsOnTheBottom) {
  EXPECT_EQ(RenderSparkline({{20, "0s"}}, 80, 4), " \n \n \n_\n \n0\ns\n");
}

TEST(SparklineTest, MiddleLevelsAndRaggedLabels) {
  // Range 0..12 over 12 steps: 7 fills two rows and ends in 'o' (level 1) on the third.
  EXPECT_EQ(RenderSparkline({{0, "5m"}, {7, "10s"}, {12, "0s"}}, 80, 4),
            "  #\n o|\n ||\n_||\n   \n510\nm0s\n s \n");
}

TEST(SparklineTest, WideSequencesWrap) {
  std::vector<SparkSample> s;
  for (int i = 0; i < 3; ++i) s.push_back({static_cast<double>(i), ""});
  EXPECT_EQ(RenderSparkline(s, 2, 1), "_o\n\n#\n");
  EXPECT_EQ(RenderSparkline({}, 80, 4), "");
}

}  // namespace
}  // namespace vireo
