#include "benchmark/report.h"

#include <cstdio>

namespace vireo::benchmark {
namespace {

// Latencies are recorded in microseconds and printed in milliseconds.
double Ms(int64_t us) { return static_cast<double>(us) / 1000.0; }

double RequestsPerSecond(const TestResult& r) {
  if (r.elapsed_us <= 0) return 0;
  return static_cast<double>(r.finished) * 1e6 / static_cast<double>(r.elapsed_us);
}

void PrintHeader(const ReportContext& ctx, const TestResult& r) {
  const Options& o = *ctx.options;
  printf("====== %s ======\n", r.title.c_str());
  printf("  %lld requests completed in %.2f seconds\n", static_cast<long long>(r.finished),
         static_cast<double>(r.elapsed_us) / 1e6);
  printf("  %d parallel clients\n", o.clients);
  printf("  %d bytes payload\n", o.data_size);
  printf("  keep alive: %d\n", o.keepalive);
  if (o.cluster) {
    printf("  cluster mode: yes (%zu primaries)\n", ctx.node_configs.size());
    for (size_t i = 0; i < ctx.node_configs.size(); ++i) {
      const auto& config = ctx.node_configs[i];
      if (!config) continue;
      printf("  node [%zu] configuration:\n", i);
      printf("    save: %s\n", config->save.empty() ? "NONE" : config->save.c_str());
      printf("    appendonly: %s\n", config->appendonly.c_str());
    }
  } else if (ctx.server) {
    printf("  host configuration \"save\": %s\n", ctx.server->save.c_str());
    printf("  host configuration \"appendonly\": %s\n", ctx.server->appendonly.c_str());
  }
  printf("  multi-thread: %s\n", o.threads > 0 ? "yes" : "no");
  if (o.threads > 0) printf("  threads: %d\n", o.threads);
  printf("\n");
}

void PrintRow(double percent, int64_t value_us, int64_t cumulative) {
  printf("%3.3f%% <= %.3f milliseconds (cumulative count %lld)\n", percent, Ms(value_us),
         static_cast<long long>(cumulative));
}

// Rows where the cumulative count moved on, plus the row that reaches the total.
void PrintPercentiles(const LatencyHistogram& h) {
  printf("Latency by percentile distribution:\n");
  int64_t previous = -1;
  for (const LatencyHistogram::Step& step : h.PercentileSteps(1)) {
    if (step.cumulative != previous || step.cumulative == h.total_count()) {
      PrintRow(step.percentile, step.value, step.cumulative);
    }
    previous = step.cumulative;
  }
  printf("\n");
}

// Cumulative counts at every 0.1 ms up to 2 ms, then at every 1 ms; each level reports at
// the bucket holding it, with that bucket's highest value.
void PrintCumulative(const LatencyHistogram& h) {
  printf("Cumulative distribution of latencies:\n");
  const int64_t total = h.total_count();
  int64_t unit = 100;
  int64_t level = unit;
  int64_t level_lowest = h.LowestEquivalent(level);
  int64_t cumulative = 0;
  int64_t previous = -1;
  for (int i = 0; i < h.bucket_count() && total > 0; ++i) {
    cumulative += h.BucketCount(i);
    bool finished = false;
    while (h.BucketLowest(i) >= level_lowest) {
      if (cumulative != previous || cumulative == total) {
        PrintRow(100.0 * static_cast<double>(cumulative) / static_cast<double>(total),
                 h.BucketHighest(i), cumulative);
      }
      previous = cumulative;
      level += unit;
      level_lowest = h.LowestEquivalent(level);
      if (h.BucketHighest(i) > 2000) unit = 1000;
      // Done once everything is counted, unless the next bucket lies beyond the next level.
      if (cumulative == total &&
          (i + 1 >= h.bucket_count() || h.BucketLowest(i + 1) <= level_lowest)) {
        finished = true;
        break;
      }
    }
    if (finished) break;
  }
  printf("\n");
}

void PrintSummary(const TestResult& r) {
  const LatencyHistogram& h = *r.latencies;
  printf("Summary:\n");
  printf("  throughput summary: %.2f requests per second\n", RequestsPerSecond(r));
  printf("  latency summary (msec):\n");
  printf("    %9s %9s %9s %9s %9s %9s\n", "avg", "min", "p50", "p95", "p99", "max");
  printf("    %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", h.Mean() / 1000.0, Ms(h.Min()),
         Ms(h.ValueAtPercentile(50)), Ms(h.ValueAtPercentile(95)), Ms(h.ValueAtPercentile(99)),
         Ms(h.Max()));
}

}  // namespace

void PrintCsvHeader() {
  printf(
      "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\","
      "\"p95_latency_ms\",\"p99_latency_ms\",\"max_latency_ms\"\n");
}

void PrintResult(const ReportContext& ctx, const TestResult& r) {
  const Options& o = *ctx.options;
  const LatencyHistogram& h = *r.latencies;
  if (o.csv) {
    printf("\"%s\",\"%.2f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\",\"%.3f\"\n",
           r.title.c_str(), RequestsPerSecond(r), h.Mean() / 1000.0, Ms(h.Min()),
           Ms(h.ValueAtPercentile(50)), Ms(h.ValueAtPercentile(95)), Ms(h.ValueAtPercentile(99)),
           Ms(h.Max()));
  } else if (o.quiet) {
    printf("%s: %.2f requests per second, p50=%.3f msec\n", r.title.c_str(), RequestsPerSecond(r),
           Ms(h.ValueAtPercentile(50)));
  } else {
    PrintHeader(ctx, r);
    PrintPercentiles(h);
    PrintCumulative(h);
    PrintSummary(r);
  }
  fflush(stdout);
}

void ProgressLine::Show(const std::string& title, double rps, double overall_rps, double avg_ms,
                        double overall_avg_ms) {
  if (!enabled_) return;
  Clear();
  last_width_ = printf("%s: rps=%.1f (overall: %.1f) avg_msec=%.3f (overall: %.3f)\r",
                       title.c_str(), rps, overall_rps, avg_ms, overall_avg_ms);
  fflush(stdout);
}

void ProgressLine::ShowClients(int live) {
  if (!enabled_) return;
  printf("clients: %d\r", live);
  fflush(stdout);
}

void ProgressLine::Clear() {
  if (!enabled_ || last_width_ == 0) return;
  printf("%*s\r", last_width_, " ");
  last_width_ = 0;
  fflush(stdout);
}

}  // namespace vireo::benchmark
