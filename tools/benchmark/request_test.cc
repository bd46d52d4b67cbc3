#include "benchmark/request.h"

#include <gtest/gtest.h>

#include <string>

namespace vireo::benchmark {
namespace {

TEST(BenchmarkRequest, EncodeCommand) {
  EXPECT_EQ(EncodeCommand({"SET", "k", ""}), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
}

TEST(BenchmarkRequest, FindsPlaceholders) {
  RequestTemplate t =
      MakeRequestTemplate(EncodeCommand({"SET", "k{tag}:__rand_int____rand_int__", "x"}));
  ASSERT_EQ(t.rand_offsets.size(), 2u);
  ASSERT_EQ(t.tag_offsets.size(), 1u);
  EXPECT_EQ(t.bytes.substr(t.rand_offsets[0], 12), "__rand_int__");
  EXPECT_EQ(t.rand_offsets[1], t.rand_offsets[0] + 12);
  EXPECT_EQ(t.bytes.substr(t.tag_offsets[0], 5), "{tag}");
}

TEST(BenchmarkRequest, RepeatKeepsEveryCopysPlaceholders) {
  RequestTemplate one = MakeRequestTemplate(EncodeCommand({"GET", "key:__rand_int__"}));
  RequestTemplate three = RepeatRequest(one, 3);
  EXPECT_EQ(three.bytes, one.bytes + one.bytes + one.bytes);
  ASSERT_EQ(three.rand_offsets.size(), 3u);
  EXPECT_EQ(three.rand_offsets[2], one.rand_offsets[0] + 2 * one.bytes.size());
}

TEST(BenchmarkRequest, WriteRandIntAndTag) {
  std::string s = "key:__rand_int__";
  WriteRandInt(&s[4], 42);
  EXPECT_EQ(s, "key:000000000042");
  WriteRandInt(&s[4], 1234567890123ULL);  // wraps into 12 digits
  EXPECT_EQ(s, "key:234567890123");
  std::string k = "key:{tag}:1";
  WriteSlotTag(&k[4], "06S");
  EXPECT_EQ(k, "key:{06S}:1");
  WriteSlotTag(&k[4], "8M");
  EXPECT_EQ(k, "key:{8M}}:1");  // padded as redis-benchmark pads it
  WriteSlotTag(&k[4], "A");
  EXPECT_EQ(k, "key:{A}}}:1");
}

}  // namespace
}  // namespace vireo::benchmark
