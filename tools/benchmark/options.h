// Command-line options of vireo-benchmark: the flags, defaults, help text and error messages
// of redis-benchmark / valkey-benchmark.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vireo::benchmark {

struct Options {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string socket_path;  // -s: overrides host and port when set
  bool has_password = false;
  std::string password;  // -a
  std::string user;      // --user (used only with -a)
  int clients = 50;
  int64_t requests = 100000;
  int data_size = 3;
  int dbnum = 0;
  bool resp3 = false;
  int threads = 0;  // 0: one event loop, reported as "multi-thread: no"
  bool cluster = false;
  bool enable_tracking = false;
  int keepalive = 1;
  bool random_keys = false;  // -r given
  int64_t keyspace = 0;
  int pipeline = 1;
  bool quiet = false;
  int precision = 3;  // significant figures of the latency histogram
  bool csv = false;
  bool loop = false;
  std::string tests;  // -t, lower-cased and wrapped in commas (",set,get,"); empty = all
  bool idle = false;
  bool stdin_arg = false;
  bool has_seed = false;
  uint64_t seed = 0;
  std::vector<std::string> command;  // a custom command after the options
};

// Parses argv as redis-benchmark does. Returns true when the benchmark should run; otherwise
// it has printed what it had to (help, version, "Invalid option ...") and *exit_code is the
// process exit status.
bool ParseOptions(int argc, char** argv, Options* out, int* exit_code);

// The help text, as printed by --help and after an invalid option.
void PrintUsage();

}  // namespace vireo::benchmark
