#include "benchmark/report.h"

#include <gtest/gtest.h>

#include <string>

namespace vireo::benchmark {
namespace {

using testing::internal::CaptureStdout;
using testing::internal::GetCapturedStdout;

std::string Print(const Options& o, const TestResult& r, const ReportContext* given = nullptr) {
  ReportContext ctx;
  if (given != nullptr) ctx = *given;
  ctx.options = &o;
  CaptureStdout();
  PrintResult(ctx, r);
  return GetCapturedStdout();
}

// The PING_INLINE report redis-benchmark 7.0 printed for two requests of 0.172 and 1.395 ms
// (-n 2 -c 1 -d 5), apart from the elapsed time and throughput it measured.
TEST(BenchmarkReport, FullReportAsRedisBenchmark) {
  LatencyHistogram h = MakeLatencyHistogram(3);
  h.Record(172);
  h.Record(1395);
  Options o;
  o.clients = 1;
  o.data_size = 5;
  ReportContext ctx;
  ctx.server = ServerConfig{"", "no"};
  TestResult r{"PING_INLINE", 2, 2000, &h};
  EXPECT_EQ(Print(o, r, &ctx),
            "====== PING_INLINE ======\n"
            "  2 requests completed in 0.00 seconds\n"
            "  1 parallel clients\n"
            "  5 bytes payload\n"
            "  keep alive: 1\n"
            "  host configuration \"save\": \n"
            "  host configuration \"appendonly\": no\n"
            "  multi-thread: no\n"
            "\n"
            "Latency by percentile distribution:\n"
            "0.000% <= 0.175 milliseconds (cumulative count 1)\n"
            "75.000% <= 1.399 milliseconds (cumulative count 2)\n"
            "100.000% <= 1.399 milliseconds (cumulative count 2)\n"
            "\n"
            "Cumulative distribution of latencies:\n"
            "0.000% <= 0.103 milliseconds (cumulative count 0)\n"
            "50.000% <= 0.207 milliseconds (cumulative count 1)\n"
            "100.000% <= 1.407 milliseconds (cumulative count 2)\n"
            "\n"
            "Summary:\n"
            "  throughput summary: 1000.00 requests per second\n"
            "  latency summary (msec):\n"
            "          avg       min       p50       p95       p99       max\n"
            "        0.784     0.168     0.175     1.399     1.399     1.399\n");
}

TEST(BenchmarkReport, CumulativeStepsWidenAfterTwoMilliseconds) {
  LatencyHistogram h = MakeLatencyHistogram(3);
  for (int v : {50, 1950, 2050, 2150, 4500, 9000}) h.Record(v);
  Options o;
  TestResult r{"SET", 6, 1'000'000, &h};
  std::string out = Print(o, r);
  size_t at = out.find("Cumulative distribution of latencies:\n");
  ASSERT_NE(at, std::string::npos);
  std::string section = out.substr(at, out.find("\n\n", at) - at);
  EXPECT_EQ(section,
            "Cumulative distribution of latencies:\n"
            "16.667% <= 0.103 milliseconds (cumulative count 1)\n"
            "33.333% <= 2.007 milliseconds (cumulative count 2)\n"
            "50.000% <= 2.103 milliseconds (cumulative count 3)\n"
            "66.667% <= 3.103 milliseconds (cumulative count 4)\n"
            "83.333% <= 5.103 milliseconds (cumulative count 5)\n"
            "100.000% <= 9.103 milliseconds (cumulative count 6)");
}

TEST(BenchmarkReport, ClusterAndThreadsHeader) {
  LatencyHistogram h = MakeLatencyHistogram(3);
  h.Record(100);
  Options o;
  o.cluster = true;
  o.threads = 3;
  ReportContext ctx;
  ctx.node_configs = {ServerConfig{"", "no"}, std::nullopt, ServerConfig{"3600 1", "yes"}};
  std::string out = Print(o, TestResult{"SET", 1, 1000, &h}, &ctx);
  EXPECT_NE(out.find("  keep alive: 1\n"
                     "  cluster mode: yes (3 primaries)\n"
                     "  node [0] configuration:\n"
                     "    save: NONE\n"
                     "    appendonly: no\n"
                     "  node [2] configuration:\n"
                     "    save: 3600 1\n"
                     "    appendonly: yes\n"
                     "  multi-thread: yes\n"
                     "  threads: 3\n\n"),
            std::string::npos)
      << out;
}

TEST(BenchmarkReport, QuietAndCsv) {
  LatencyHistogram h = MakeLatencyHistogram(3);
  h.Record(500, 10);
  Options o;
  o.quiet = true;
  TestResult r{"SET", 10, 200, &h};
  EXPECT_EQ(Print(o, r), "SET: 50000.00 requests per second, p50=0.503 msec\n");
  o.quiet = false;
  o.csv = true;
  EXPECT_EQ(Print(o, r),
            "\"SET\",\"50000.00\",\"0.500\",\"0.496\",\"0.503\",\"0.503\",\"0.503\",\"0.503\"\n");
  CaptureStdout();
  PrintCsvHeader();
  EXPECT_EQ(GetCapturedStdout(),
            "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
            "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n");
}

TEST(BenchmarkReport, ProgressLineOnlyOnATerminal) {
  CaptureStdout();
  ProgressLine off(false);
  off.Show("SET", 1, 2, 3, 4);
  off.Clear();
  EXPECT_EQ(GetCapturedStdout(), "");
  CaptureStdout();
  ProgressLine on(true);
  on.Show("SET", 1000, 2000.5, 0.25, 0.125);
  on.Clear();
  std::string line = "SET: rps=1000.0 (overall: 2000.5) avg_msec=0.250 (overall: 0.125)\r";
  EXPECT_EQ(GetCapturedStdout(), line + std::string(line.size(), ' ') + "\r");
}

}  // namespace
}  // namespace vireo::benchmark
