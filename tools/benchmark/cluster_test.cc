#include "benchmark/cluster.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/crc16.h"

namespace vireo::benchmark {
namespace {

TEST(BenchmarkCluster, SlotTagsAreRedisBenchmarks) {
  // The tags redis-benchmark 7.0 put into keys for each node's first slot.
  EXPECT_EQ(SlotTag(0), "06S");
  EXPECT_EQ(SlotTag(1), "Qi");
  EXPECT_EQ(SlotTag(5461), "8M");
  EXPECT_EQ(SlotTag(10923), "63n");
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    std::string_view tag = SlotTag(slot);
    ASSERT_GE(tag.size(), 1u);
    ASSERT_LE(tag.size(), 3u);
    ASSERT_EQ(KeyHashSlot(tag), slot) << tag;
  }
}

TEST(BenchmarkCluster, ParseClusterNodes) {
  const char* text =
      "0764f85861dc0b4afa9d7bb1f798774fb82bbc1d 127.0.0.1:20609@30609 master - 0 1795996609965 "
      "1 connected 0-5460\n"
      "9ea46fbbc730f79ab324849571cc9f6ebb0b97ee 127.0.0.1:39495@49495 myself,master - 0 "
      "1795996604000 2 connected 5461-10921 10922 "
      "[10922->-e4b285a983e70afc85c8e63400eb410ccf4a6fd1]\n"
      "aaaa85a983e70afc85c8e63400eb410ccf4a6fd1 127.0.0.1:25452@35452 slave "
      "e4b285a983e70afc85c8e63400eb410ccf4a6fd1 0 1795996609000 3 connected\n"
      "e4b285a983e70afc85c8e63400eb410ccf4a6fd1 127.0.0.1:25451@35451,host.example master - 0 "
      "1795996609000 3 connected 10923-16383\n";
  std::vector<ClusterNode> nodes;
  ASSERT_TRUE(ParseClusterNodes(text, Endpoint{"127.0.0.1", 39495, ""}, &nodes));
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].name, "0764f85861dc0b4afa9d7bb1f798774fb82bbc1d");
  EXPECT_EQ(nodes[0].port, 20609);
  EXPECT_EQ(nodes[0].slots.size(), 5461u);
  EXPECT_EQ(nodes[1].ip, "127.0.0.1");
  EXPECT_EQ(nodes[1].port, 39495);
  EXPECT_EQ(nodes[1].slots.front(), 5461);
  EXPECT_EQ(nodes[1].slots.back(), 10922);
  EXPECT_EQ(nodes[1].slots.size(), 5462u);
  EXPECT_EQ(nodes[2].port, 25451);
  EXPECT_EQ(nodes[2].slots.front(), 10923);
}

TEST(BenchmarkCluster, LoneNodeWithoutAddressTakesTheSeeds) {
  std::vector<ClusterNode> nodes;
  ASSERT_TRUE(ParseClusterNodes("abc :0@0 myself,master - 0 0 0 connected 0-16383\n",
                                Endpoint{"10.0.0.1", 7000, ""}, &nodes));
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].ip, "10.0.0.1");
  EXPECT_EQ(nodes[0].port, 7000);
  EXPECT_FALSE(ParseClusterNodes("garbage\n", Endpoint{}, &nodes));
}

}  // namespace
}  // namespace vireo::benchmark
