#include "benchmark/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vireo::benchmark {
namespace {

using testing::internal::CaptureStdout;
using testing::internal::GetCapturedStdout;

struct Parsed {
  bool run = false;
  int exit_code = -1;
  Options options;
  std::string out;
};

// Splits on single spaces.
std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t space = text.find(' ', start);
    if (space == std::string::npos) space = text.size();
    out.push_back(text.substr(start, space - start));
    start = space + 1;
  }
  return out;
}

Parsed Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "vireo-benchmark");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  Parsed p;
  CaptureStdout();
  p.run = ParseOptions(static_cast<int>(argv.size()), argv.data(), &p.options, &p.exit_code);
  p.out = GetCapturedStdout();
  return p;
}

TEST(BenchmarkOptions, Defaults) {
  Parsed p = Parse({});
  ASSERT_TRUE(p.run);
  const Options& o = p.options;
  EXPECT_EQ(o.host, "127.0.0.1");
  EXPECT_EQ(o.port, 6379);
  EXPECT_EQ(o.clients, 50);
  EXPECT_EQ(o.requests, 100000);
  EXPECT_EQ(o.data_size, 3);
  EXPECT_EQ(o.pipeline, 1);
  EXPECT_EQ(o.keepalive, 1);
  EXPECT_EQ(o.threads, 0);
  EXPECT_EQ(o.precision, 3);
  EXPECT_TRUE(o.tests.empty());
  EXPECT_TRUE(o.command.empty());
}

TEST(BenchmarkOptions, AllFlags) {
  Parsed p = Parse(
      Words("-h localhost -p 7000 -s /tmp/s -a pw --user bob -c 7 -n 123 -d 10 --dbnum 2 -3 -k 0 "
            "-r 1000 -P 16 -e -q --precision 2 --csv -l -t SET,Get -I --threads 4 --cluster "
            "--seed 42 -x --enable-tracking"));
  ASSERT_TRUE(p.run) << p.out;
  const Options& o = p.options;
  EXPECT_EQ(o.host, "localhost");
  EXPECT_EQ(o.port, 7000);
  EXPECT_EQ(o.socket_path, "/tmp/s");
  EXPECT_TRUE(o.has_password);
  EXPECT_EQ(o.password, "pw");
  EXPECT_EQ(o.user, "bob");
  EXPECT_EQ(o.clients, 7);
  EXPECT_EQ(o.requests, 123);
  EXPECT_EQ(o.data_size, 10);
  EXPECT_EQ(o.dbnum, 2);
  EXPECT_TRUE(o.resp3);
  EXPECT_EQ(o.keepalive, 0);
  EXPECT_TRUE(o.random_keys);
  EXPECT_EQ(o.keyspace, 1000);
  EXPECT_EQ(o.pipeline, 16);
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(o.precision, 2);
  EXPECT_TRUE(o.csv);
  EXPECT_TRUE(o.loop);
  EXPECT_EQ(o.tests, ",set,get,");
  EXPECT_TRUE(o.idle);
  EXPECT_EQ(o.threads, 4);
  EXPECT_TRUE(o.cluster);
  EXPECT_TRUE(o.has_seed);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_TRUE(o.stdin_arg);
  EXPECT_TRUE(o.enable_tracking);
}

TEST(BenchmarkOptions, CustomCommandAfterTheFlags) {
  Parsed p = Parse({"-n", "5", "-q", "script", "load", "server.call('set','foo','bar')", "-q"});
  ASSERT_TRUE(p.run);
  EXPECT_EQ(p.options.requests, 5);
  EXPECT_EQ(p.options.command,
            (std::vector<std::string>{"script", "load", "server.call('set','foo','bar')", "-q"}));
}

TEST(BenchmarkOptions, ClampsLikeRedisBenchmark) {
  Parsed p = Parse({"-d", "0", "-P", "-3", "--threads", "9999", "-r", "-5", "--precision", "9"});
  ASSERT_TRUE(p.run) << p.out;
  EXPECT_EQ(p.options.data_size, 1);
  EXPECT_EQ(p.options.pipeline, 1);
  EXPECT_EQ(p.options.threads, 500);
  EXPECT_EQ(p.options.keyspace, 0);
  EXPECT_EQ(p.options.precision, 4);
  EXPECT_EQ(Parse({"--precision", "-1"}).options.precision, 3);
}

TEST(BenchmarkOptions, InvalidOptionPrintsUsageAndFails) {
  Parsed p = Parse({"-n", "10", "--bogus"});
  EXPECT_FALSE(p.run);
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_EQ(p.out.rfind("Invalid option \"--bogus\" or option argument missing\n\n"
                        "Usage: vireo-benchmark [OPTIONS] [COMMAND ARGS...]\n",
                        0),
            0u);
  // A flag missing its value reads as invalid too.
  p = Parse({"-c"});
  EXPECT_FALSE(p.run);
  EXPECT_EQ(p.out.rfind("Invalid option \"-c\" or option argument missing\n", 0), 0u);
  p = Parse({"-r", "-x"});
  EXPECT_FALSE(p.run);
  EXPECT_EQ(p.out.rfind("Invalid option \"-x\" or option argument missing\n", 0), 0u);
}

TEST(BenchmarkOptions, HelpAndVersion) {
  Parsed p = Parse({"--help"});
  EXPECT_FALSE(p.run);
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.out.rfind("Usage: vireo-benchmark [OPTIONS] [COMMAND ARGS...]\n\nOptions:\n", 0), 0u);
  EXPECT_NE(
      p.out.find(" -P <numreq>        Pipeline <numreq> requests. Default 1 (no pipeline).\n"),
      std::string::npos);
  p = Parse({"--version"});
  EXPECT_FALSE(p.run);
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.out.rfind("vireo-benchmark ", 0), 0u);
}

TEST(BenchmarkOptions, Uri) {
  Parsed p = Parse({"-u", "redis://bob:se%63ret@example.com:7001/3"});
  ASSERT_TRUE(p.run);
  EXPECT_EQ(p.options.user, "bob");
  EXPECT_EQ(p.options.password, "secret");
  EXPECT_EQ(p.options.host, "example.com");
  EXPECT_EQ(p.options.port, 7001);
  EXPECT_EQ(p.options.dbnum, 3);
  p = Parse({"-u", "redis://:pw@[::1]:7002"});
  ASSERT_TRUE(p.run);
  EXPECT_TRUE(p.options.user.empty());
  EXPECT_EQ(p.options.password, "pw");
  EXPECT_EQ(p.options.host, "::1");
  EXPECT_EQ(p.options.port, 7002);
}

}  // namespace
}  // namespace vireo::benchmark
