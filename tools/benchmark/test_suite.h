// The tests vireo-benchmark runs: the default suite of valkey-benchmark (names, order and
// payloads as redis-benchmark 7.0 sends them) or one custom command.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "benchmark/options.h"

namespace vireo::benchmark {

struct BenchmarkTest {
  std::string title;    // as printed ("SET", "LRANGE_100 (first 100 elements)")
  std::string request;  // one request's bytes, placeholders included
};

// Value data as redis-benchmark makes it: printable bytes from a fixed-seed generator whose
// state carries over between calls (each -l round sends new data, the same on every run).
class PayloadGenerator {
 public:
  std::string Next(int size);

 private:
  uint32_t state_ = 1234;
};

// Whether -t (`filter`, as Options::tests holds it) selects the test named `name`
// (lower case); an empty filter selects everything.
bool IsTestSelected(std::string_view filter, std::string_view name);

// The selected default tests. In cluster mode every key carries a "{tag}" placeholder.
std::vector<BenchmarkTest> DefaultTests(const Options& options, std::string_view data);

// A command given on the command line: titled by its words joined with spaces.
BenchmarkTest CustomTest(const std::vector<std::string>& args);

}  // namespace vireo::benchmark
