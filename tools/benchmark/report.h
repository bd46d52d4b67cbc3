// What vireo-benchmark prints, in redis-benchmark 7.0's forms: the full report of a test,
// the -q line, --csv rows, and the live progress line on a terminal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "benchmark/endpoint.h"
#include "benchmark/histogram.h"
#include "benchmark/options.h"

namespace vireo::benchmark {

// The set-up facts the full report repeats for every test.
struct ReportContext {
  const Options* options = nullptr;
  std::optional<ServerConfig> server;                     // without --cluster
  std::vector<std::optional<ServerConfig>> node_configs;  // with --cluster, one per primary
};

struct TestResult {
  std::string title;
  int64_t finished = 0;
  int64_t elapsed_us = 0;
  const LatencyHistogram* latencies = nullptr;
};

void PrintCsvHeader();

// Prints one finished test as the options ask: full report, -q line or --csv row.
void PrintResult(const ReportContext& context, const TestResult& result);

// The line rewritten in place while a test runs ("SET: rps=... (overall: ...) avg_msec=...");
// shown only when stdout is a terminal.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  void Show(const std::string& title, double rps, double overall_rps, double avg_ms,
            double overall_avg_ms);
  // "clients: N", the line of idle mode (-I).
  void ShowClients(int live);
  // Blanks the line before the result is printed over it.
  void Clear();

 private:
  bool enabled_;
  int last_width_ = 0;
};

}  // namespace vireo::benchmark
