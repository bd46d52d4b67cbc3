// vireo-benchmark: a drop-in for valkey-benchmark / redis-benchmark, built to outrun them so
// that it measures the server rather than itself.
#include "benchmark/benchmark.h"
#include "benchmark/options.h"

int main(int argc, char** argv) {
  vireo::benchmark::Options options;
  int exit_code = 0;
  if (!vireo::benchmark::ParseOptions(argc, argv, &options, &exit_code)) return exit_code;
  return vireo::benchmark::RunBenchmark(std::move(options));
}
