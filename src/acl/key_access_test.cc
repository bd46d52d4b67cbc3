#include "acl/key_access.h"

#include <gtest/gtest.h>

#include "acl/selector.h"

namespace vireo {
namespace {

uint8_t Need(std::vector<std::string_view> args, int pos) {
  RegisterAllCommands();
  const CommandSpec* spec = Commands().Resolve(args);
  EXPECT_NE(spec, nullptr);
  return KeyAccessNeeded(*spec, args, pos);
}

constexpr uint8_t kR = kAclPermRead, kW = kAclPermWrite, kRW = kAclPermAll;

TEST(AclKeyAccessTest, FromRedis70KeySpecs) {
  EXPECT_EQ(Need({"get", "k"}, 1), kR);
  EXPECT_EQ(Need({"del", "k"}, 1), kW);
  EXPECT_EQ(Need({"exists", "k"}, 1), 0);
  EXPECT_EQ(Need({"incr", "k"}, 1), kRW);
  EXPECT_EQ(Need({"copy", "a", "b"}, 1), kR);
  EXPECT_EQ(Need({"copy", "a", "b"}, 2), kW);
  EXPECT_EQ(Need({"zunionstore", "d", "2", "a", "b"}, 1), kW);
  EXPECT_EQ(Need({"zunionstore", "d", "2", "a", "b"}, 4), kR);
  EXPECT_EQ(Need({"object", "encoding", "k"}, 2), 0);
}

TEST(AclKeyAccessTest, KeywordSpecsAndVariableFlags) {
  EXPECT_EQ(Need({"georadius", "g", "0", "0", "1", "km", "store", "d"}, 1), kR);
  EXPECT_EQ(Need({"georadius", "g", "0", "0", "1", "km", "store", "d"}, 7), kW);
  EXPECT_EQ(Need({"xread", "streams", "a", "b", "0", "0"}, 3), kR);
  EXPECT_EQ(Need({"sort", "k", "store", "d"}, 1), kR);
  EXPECT_EQ(Need({"sort", "k", "store", "d"}, 3), kW);
  EXPECT_EQ(Need({"set", "k", "v"}, 1), kW);
  EXPECT_EQ(Need({"set", "k", "v", "get"}, 1), kRW);
  EXPECT_EQ(Need({"bitfield", "k", "get", "u8", "0"}, 1), kR);
  EXPECT_EQ(Need({"bitfield", "k", "incrby", "u8", "0", "1"}, 1), kRW);
}

}  // namespace
}  // namespace vireo
