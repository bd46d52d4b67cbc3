#include "server/latency_monitor.h"

#include <gtest/gtest.h>

#include "server/latency_tracking.h"

namespace vireo {
namespace {

TEST(LatencyMonitorTest, OneSamplePerSecondKeepsTheWorst) {
  LatencyMonitor m;
  m.AddSample("command", 20, 1000);
  m.AddSample("command", 50, 1000);
  m.AddSample("command", 30, 1000);
  m.AddSample("command", 15, 1001);
  const LatencyMonitor::Series* s = m.Find("command");
  ASSERT_NE(s, nullptr);
  auto h = s->History();
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].time_s, 1000);
  EXPECT_EQ(h[0].latency_ms, 50u);
  EXPECT_EQ(h[1].latency_ms, 15u);
  EXPECT_EQ(s->Latest().latency_ms, 15u);
  EXPECT_EQ(s->max_ms, 50u);
}

TEST(LatencyMonitorTest, RingKeepsTheLast160) {
  LatencyMonitor m;
  for (int64_t t = 1; t <= 200; ++t) m.AddSample("e", t, t);
  auto h = m.Find("e")->History();
  ASSERT_EQ(h.size(), LatencyMonitor::kSamples);
  EXPECT_EQ(h.front().time_s, 41);
  EXPECT_EQ(h.back().time_s, 200);
  EXPECT_EQ(m.Find("e")->max_ms, 200u);
}

TEST(LatencyMonitorTest, NoteHonoursTheThreshold) {
  LatencyMonitor m;
  m.Note(0, "command", 500000);  // monitoring off
  m.Note(10, "command", 9999);   // 9 ms
  EXPECT_TRUE(m.events().empty());
  m.Note(10, "command", 10000);
  ASSERT_NE(m.Find("command"), nullptr);
  EXPECT_EQ(m.Find("command")->Latest().latency_ms, 10u);
}

TEST(LatencyMonitorTest, Reset) {
  LatencyMonitor m;
  m.AddSample("a", 1, 5);
  m.AddSample("b", 1, 5);
  EXPECT_EQ(m.Find("A"), nullptr);
  EXPECT_TRUE(m.Reset("A"));
  EXPECT_FALSE(m.Reset("a"));
  EXPECT_EQ(m.ResetAll(), 1u);
  EXPECT_TRUE(m.events().empty());
}

TEST(LatencyMonitorTest, Analyze) {
  LatencyMonitor m;
  m.AddSample("command", 20, 100);
  m.AddSample("command", 50, 101);
  LatencyStats st = AnalyzeLatency(*m.Find("command"), 101);
  EXPECT_EQ(st.samples, 2u);
  EXPECT_EQ(st.avg_ms, 35u);
  EXPECT_EQ(st.mad_ms, 15u);
  EXPECT_EQ(st.period_s, 1);
  EXPECT_EQ(st.min_ms, 20u);
  EXPECT_EQ(st.max_ms, 50u);
}

TEST(LatencyTrackingTest, Percentiles) {
  std::vector<double> p;
  EXPECT_EQ(ParsePercentiles("50 99 99.9", &p), "");
  EXPECT_EQ(FormatPercentiles(p), "50 99 99.9");
  EXPECT_EQ(ParsePercentiles("50.5000 99.99999 1e2 0", &p), "");
  EXPECT_EQ(FormatPercentiles(p), "50.5 99.99999 100 0");
  EXPECT_EQ(ParsePercentiles("", &p), "");
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(ParsePercentiles("50 abc", &p), "Invalid latency-tracking-info-percentiles parameters");
  EXPECT_EQ(ParsePercentiles("101", &p),
            "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
  EXPECT_TRUE(p.empty());  // unchanged on error
}

TEST(LatencyTrackingTest, CommandHookFeedsHistogramAndMonitor) {
  Config config;
  LatencyMonitor monitor;
  CommandSpec slow{.name = "debug"};
  CommandSpec fast{.name = "get", .flags = kCmdFast};
  TrackCommandLatency(config, monitor, slow, 20000);
  EXPECT_EQ(slow.stats.latency.total(), 1u);
  EXPECT_TRUE(monitor.events().empty());  // threshold 0: monitor off
  config.latency_monitor_threshold = 10;
  TrackCommandLatency(config, monitor, slow, 20000);
  TrackCommandLatency(config, monitor, fast, 15000);
  TrackCommandLatency(config, monitor, fast, 9000);
  ASSERT_EQ(monitor.events().size(), 2u);
  EXPECT_EQ(monitor.events()[0].event, "command");
  EXPECT_EQ(monitor.events()[1].event, "fast-command");
  EXPECT_EQ(monitor.Find("fast-command")->max_ms, 15u);
  config.latency_tracking = false;
  TrackCommandLatency(config, monitor, fast, 1);
  EXPECT_EQ(fast.stats.latency.total(), 2u);
}

TEST(LatencyTrackingTest, InfoLine) {
  CommandSpec spec{.name = "ping"};
  EXPECT_EQ(LatencyStatsLine(spec, {50, 99}), "");
  spec.stats.latency.Record(20000);
  EXPECT_EQ(LatencyStatsLine(spec, {50, 99.9, 0}),
            "latency_percentiles_usec_ping:p50=20.095,p99.9=20.095,p0=19.968");
  EXPECT_EQ(LatencyStatsLine(spec, {}), "latency_percentiles_usec_ping:");
}

}  // namespace
}  // namespace vireo
