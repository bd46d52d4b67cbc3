// Runs what the options ask for: set-up (server configuration, cluster discovery), then each
// test in turn (or idle mode), printing results as redis-benchmark does.
#pragma once

#include "benchmark/options.h"

namespace vireo::benchmark {

// Returns the process exit status.
int RunBenchmark(Options options);

}  // namespace vireo::benchmark
