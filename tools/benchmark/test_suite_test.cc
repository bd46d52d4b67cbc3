#include "benchmark/test_suite.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "benchmark/request.h"

namespace vireo::benchmark {
namespace {

// The titles joined with '|'.
std::string Titles(const std::vector<BenchmarkTest>& tests) {
  std::string out;
  for (const auto& t : tests) out += (out.empty() ? "" : "|") + t.title;
  return out;
}

TEST(BenchmarkTestSuite, PayloadIsRedisBenchmarksData) {
  PayloadGenerator g;
  EXPECT_EQ(g.Next(5), "VXKeH");  // what redis-benchmark -d 5 sends
  PayloadGenerator h;
  EXPECT_EQ(h.Next(8), "VXKeHogK");
  EXPECT_NE(g.Next(5), "VXKeH");  // the next -l round sends new data
}

TEST(BenchmarkTestSuite, DefaultListInOrder) {
  EXPECT_EQ(Titles(DefaultTests(Options(), "xxx")),
            "PING_INLINE|PING_MBULK|SET|GET|INCR|LPUSH|RPUSH|LPOP|RPOP|SADD|HSET|SPOP|ZADD|ZPOPMIN|"
            "LPUSH (needed to benchmark LRANGE)|LRANGE_100 (first 100 elements)|"
            "LRANGE_300 (first 300 elements)|LRANGE_500 (first 500 elements)|"
            "LRANGE_600 (first 600 elements)|MSET (10 keys)|XADD");
}

TEST(BenchmarkTestSuite, Payloads) {
  Options o;
  auto tests = DefaultTests(o, "abc");
  auto find = [&](const std::string& title) {
    for (const auto& t : tests) {
      if (t.title == title) return t.request;
    }
    return std::string("missing");
  };
  EXPECT_EQ(find("PING_INLINE"), "PING\r\n");
  EXPECT_EQ(find("SET"), EncodeCommand({"SET", "key:__rand_int__", "abc"}));
  EXPECT_EQ(find("INCR"), EncodeCommand({"INCR", "counter:__rand_int__"}));
  EXPECT_EQ(find("SADD"), EncodeCommand({"SADD", "myset", "element:__rand_int__"}));
  EXPECT_EQ(find("ZADD"), EncodeCommand({"ZADD", "myzset", "0", "element:__rand_int__"}));
  EXPECT_EQ(find("LRANGE_500 (first 500 elements)"),
            EncodeCommand({"LRANGE", "mylist", "0", "499"}));
  EXPECT_EQ(find("XADD"), EncodeCommand({"XADD", "mystream", "*", "myfield", "abc"}));
  EXPECT_EQ(MakeRequestTemplate(find("MSET (10 keys)")).rand_offsets.size(), 10u);
  o.random_keys = true;
  tests = DefaultTests(o, "abc");
  EXPECT_EQ(find("ZADD"),
            EncodeCommand({"ZADD", "myzset", "__rand_int__", "element:__rand_int__"}));
}

TEST(BenchmarkTestSuite, ClusterKeysCarryATag) {
  Options o;
  o.cluster = true;
  o.tests = ",set,lpush,xadd,";
  auto tests = DefaultTests(o, "v");
  ASSERT_EQ(tests.size(), 3u);
  EXPECT_EQ(tests[0].request, EncodeCommand({"SET", "key:{tag}:__rand_int__", "v"}));
  EXPECT_EQ(tests[1].request, EncodeCommand({"LPUSH", "mylist:{tag}", "v"}));
  EXPECT_EQ(tests[2].request, EncodeCommand({"XADD", "mystream:{tag}", "*", "myfield", "v"}));
}

TEST(BenchmarkTestSuite, Selection) {
  EXPECT_TRUE(IsTestSelected("", "set"));
  EXPECT_TRUE(IsTestSelected(",set,get,", "get"));
  EXPECT_FALSE(IsTestSelected(",set,get,", "ge"));
  Options o;
  o.tests = ",ping,lrange_300,";
  EXPECT_EQ(Titles(DefaultTests(o, "x")),
            "PING_INLINE|PING_MBULK|LPUSH (needed to benchmark LRANGE)|"
            "LRANGE_300 (first 300 elements)");
  o.tests = ",lrange,";
  EXPECT_EQ(DefaultTests(o, "x").size(), 5u);
}

TEST(BenchmarkTestSuite, CustomCommand) {
  BenchmarkTest t = CustomTest({"script", "load", "server.call('set','foo','bar')"});
  EXPECT_EQ(t.title, "script load server.call('set','foo','bar')");
  EXPECT_EQ(t.request, EncodeCommand({"script", "load", "server.call('set','foo','bar')"}));
}

}  // namespace
}  // namespace vireo::benchmark
