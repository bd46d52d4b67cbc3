#include "benchmark/test_suite.h"

#include "benchmark/request.h"

namespace vireo::benchmark {

std::string PayloadGenerator::Next(int size) {
  std::string data(size, '\0');
  for (char& c : data) {
    state_ = state_ * 1103515245u + 12345u;
    c = static_cast<char>('0' + ((state_ >> 16) & 63));
  }
  return data;
}

bool IsTestSelected(std::string_view filter, std::string_view name) {
  if (filter.empty()) return true;
  std::string needle = ",";
  needle += name;
  needle += ",";
  return filter.find(needle) != std::string_view::npos;
}

std::vector<BenchmarkTest> DefaultTests(const Options& o, std::string_view data_view) {
  const std::string& filter = o.tests;
  auto selected = [&](std::string_view name) { return IsTestSelected(filter, name); };
  std::string data(data_view);
  // The slot placeholder goes into every key only in cluster mode.
  const std::string tag = o.cluster ? ":{tag}" : "";
  const std::string key = "key" + tag + ":__rand_int__";
  std::vector<BenchmarkTest> tests;
  auto add = [&](std::string title, const std::vector<std::string>& args) {
    tests.push_back({std::move(title), EncodeCommand(args)});
  };

  if (selected("ping_inline") || selected("ping")) tests.push_back({"PING_INLINE", "PING\r\n"});
  if (selected("ping_mbulk") || selected("ping")) add("PING_MBULK", {"PING"});
  if (selected("set")) add("SET", {"SET", key, data});
  if (selected("get")) add("GET", {"GET", key});
  if (selected("incr")) add("INCR", {"INCR", "counter" + tag + ":__rand_int__"});
  if (selected("lpush")) add("LPUSH", {"LPUSH", "mylist" + tag, data});
  if (selected("rpush")) add("RPUSH", {"RPUSH", "mylist" + tag, data});
  if (selected("lpop")) add("LPOP", {"LPOP", "mylist" + tag});
  if (selected("rpop")) add("RPOP", {"RPOP", "mylist" + tag});
  if (selected("sadd")) add("SADD", {"SADD", "myset" + tag, "element:__rand_int__"});
  if (selected("hset")) add("HSET", {"HSET", "myhash" + tag, "element:__rand_int__", data});
  if (selected("spop")) add("SPOP", {"SPOP", "myset" + tag});
  if (selected("zadd")) {
    std::string score = o.random_keys ? "__rand_int__" : "0";
    add("ZADD", {"ZADD", "myzset" + tag, score, "element:__rand_int__"});
  }
  if (selected("zpopmin")) add("ZPOPMIN", {"ZPOPMIN", "myzset" + tag});
  bool any_lrange = selected("lrange");
  for (const char* name : {"lrange_100", "lrange_300", "lrange_500", "lrange_600"}) {
    any_lrange = any_lrange || selected(name);
  }
  if (any_lrange) add("LPUSH (needed to benchmark LRANGE)", {"LPUSH", "mylist" + tag, data});
  for (int n : {100, 300, 500, 600}) {
    std::string name = "lrange_" + std::to_string(n);
    if (!selected("lrange") && !selected(name)) continue;
    add("LRANGE_" + std::to_string(n) + " (first " + std::to_string(n) + " elements)",
        {"LRANGE", "mylist" + tag, "0", std::to_string(n - 1)});
  }
  if (selected("mset")) {
    std::vector<std::string> args = {"MSET"};
    for (int i = 0; i < 10; ++i) {
      args.push_back(key);
      args.push_back(data);
    }
    add("MSET (10 keys)", args);
  }
  if (selected("xadd")) add("XADD", {"XADD", "mystream" + tag, "*", "myfield", data});
  return tests;
}

BenchmarkTest CustomTest(const std::vector<std::string>& args) {
  BenchmarkTest test;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) test.title += ' ';
    test.title += args[i];
  }
  test.request = EncodeCommand(args);
  return test;
}

}  // namespace vireo::benchmark
