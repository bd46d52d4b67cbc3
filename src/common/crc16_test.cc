#include "common/crc16.h"

#include <gtest/gtest.h>

#include <string>

namespace vireo {
namespace {

TEST(Crc16, XmodemCheckValue) {
  EXPECT_EQ(Crc16(""), 0);
  EXPECT_EQ(Crc16("123456789"), 0x31C3);
  EXPECT_EQ(Crc16("A"), 0x58E5);
}

TEST(Crc16, BytesAboveAsciiAreUnsigned) {
  std::string high = "\xff\x80";
  EXPECT_EQ(Crc16(high), Crc16(std::string_view("\xff\x80", 2)));
  EXPECT_NE(Crc16(high), Crc16("\x7f\x00"));
}

// Slots as a redis-server 7.0 cluster node reports them with CLUSTER KEYSLOT.
TEST(KeyHashSlot, MatchesClusterKeyslot) {
  EXPECT_EQ(KeyHashSlot("foo"), 12182);
  EXPECT_EQ(KeyHashSlot("bar"), 5061);
  EXPECT_EQ(KeyHashSlot("key:000000000001"), KeyHashSlot("key:000000000001"));
  EXPECT_EQ(KeyHashSlot("06S"), 0);
  EXPECT_EQ(KeyHashSlot("Qi"), 1);
  EXPECT_EQ(KeyHashSlot(""), 0);
}

TEST(KeyHashSlot, HashTags) {
  EXPECT_EQ(KeyHashSlot("{user1000}.following"), KeyHashSlot("user1000"));
  EXPECT_EQ(KeyHashSlot("{user1000}.followers"), KeyHashSlot("{user1000}.following"));
  EXPECT_EQ(KeyHashSlot("key:{06S}:000000000867"), 0);
  // Only the first '{' counts, and the tag ends at the first '}' after it.
  EXPECT_EQ(KeyHashSlot("foo{bar}{zap}"), KeyHashSlot("bar"));
  EXPECT_EQ(KeyHashSlot("foo{{bar}}zap"), KeyHashSlot("{bar"));
  EXPECT_EQ(KeyHashSlot("key:{8M}}:1"), KeyHashSlot("8M"));
  // An empty or unclosed tag hashes the whole key.
  EXPECT_EQ(KeyHashSlot("foo{}{bar}"), Crc16("foo{}{bar}") & 16383);
  EXPECT_EQ(KeyHashSlot("foo{bar"), Crc16("foo{bar") & 16383);
  EXPECT_EQ(KeyHashSlot("}foo{"), Crc16("}foo{") & 16383);
}

}  // namespace
}  // namespace vireo
