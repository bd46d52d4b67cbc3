#include "acl/password.h"

#include <gtest/gtest.h>

namespace vireo {
namespace {

TEST(AclPasswordTest, Sha256KnownVectors) {
  EXPECT_EQ(HashPassword(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(HashPassword("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(HashPassword("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // What redis-server 7.0 shows for ">pw".
  EXPECT_EQ(HashPassword("pw"), "30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4");
}

TEST(AclPasswordTest, HashSyntax) {
  EXPECT_TRUE(IsPasswordHash(HashPassword("x")));
  EXPECT_FALSE(IsPasswordHash("abc"));
  std::string upper = HashPassword("x");
  upper[0] = 'A';
  EXPECT_FALSE(IsPasswordHash(upper));
  EXPECT_FALSE(IsPasswordHash(HashPassword("x") + "0"));
}

TEST(AclPasswordTest, HashesEqual) {
  EXPECT_TRUE(HashesEqual(HashPassword("a"), HashPassword("a")));
  EXPECT_FALSE(HashesEqual(HashPassword("a"), HashPassword("b")));
  EXPECT_FALSE(HashesEqual("ab", "abc"));
}

}  // namespace
}  // namespace vireo
