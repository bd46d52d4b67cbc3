#include "store/pair_pack.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vireo {
namespace {

std::vector<std::string> Strings(const unsigned char* pack) {
  std::vector<std::string> out;
  for (pairpack::Pos p = pairpack::First(pack); p != nullptr; p = pairpack::Next(pack, p)) {
    out.emplace_back(pairpack::Get(p));
  }
  return out;
}

TEST(PairPackTest, EmptyPackIsOneByte) {
  unsigned char* p = pairpack::New();
  EXPECT_EQ(pairpack::Bytes(p), 1u);
  EXPECT_EQ(pairpack::Pairs(p), 0u);
  EXPECT_EQ(pairpack::First(p), nullptr);
  EXPECT_EQ(pairpack::FindField(p, "a"), nullptr);
  pairpack::Free(p);
}

TEST(PairPackTest, TenShortPairsFitIn64Bytes) {
  unsigned char* p = pairpack::New();
  for (int i = 0; i < 10; ++i) {
    p = pairpack::Append(p, "f" + std::to_string(i), "v" + std::to_string(i));
  }
  EXPECT_EQ(pairpack::Bytes(p), 61u);  // 1 header byte + 20 * (1 length + 2 bytes)
  EXPECT_EQ(pairpack::Pairs(p), 10u);
  pairpack::Pos f = pairpack::FindField(p, "f7");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(pairpack::Get(pairpack::Next(p, f)), "v7");
  EXPECT_EQ(pairpack::Get(pairpack::SeekPair(p, 3)), "f3");
  // A value equal to a field name is not found as a field.
  EXPECT_EQ(pairpack::FindField(p, "v7"), nullptr);
  pairpack::Free(p);
}

TEST(PairPackTest, ReplaceAndDeleteKeepTheOtherPairs) {
  unsigned char* p = pairpack::New();
  p = pairpack::Append(p, "a", "1");
  p = pairpack::Append(p, "", "");
  p = pairpack::Append(p, "c", "3");
  p = pairpack::Replace(p, pairpack::Next(p, pairpack::FindField(p, "a")), "x");  // same size
  p = pairpack::Replace(p, pairpack::Next(p, pairpack::FindField(p, "")), std::string(300, 'y'));
  EXPECT_EQ(Strings(p), (std::vector<std::string>{"a", "x", "", std::string(300, 'y'), "c", "3"}));
  p = pairpack::Replace(p, pairpack::Next(p, pairpack::FindField(p, "")), "");
  p = pairpack::DeletePair(p, pairpack::FindField(p, "a"));
  EXPECT_EQ(Strings(p), (std::vector<std::string>{"", "", "c", "3"}));
  p = pairpack::DeletePair(p, pairpack::FindField(p, "c"));
  p = pairpack::DeletePair(p, pairpack::FindField(p, ""));
  EXPECT_EQ(pairpack::Bytes(p), 1u);
  pairpack::Free(p);
}

TEST(PairPackTest, HeaderGrowsPastOneVarintByte) {
  // 127 payload bytes fit a one-byte header; the next append needs two and moves the payload.
  unsigned char* p = pairpack::New();
  std::string big(123, 'z');  // 1 + 123 + 1 + 2 = 127 payload bytes
  p = pairpack::Append(p, big, "vv");
  EXPECT_EQ(pairpack::Bytes(p), 128u);
  p = pairpack::Append(p, "k", "w");
  EXPECT_EQ(pairpack::Bytes(p), 2u + 131u);
  EXPECT_EQ(Strings(p), (std::vector<std::string>{big, "vv", "k", "w"}));
  unsigned char* copy = pairpack::Dup(p);
  EXPECT_EQ(Strings(copy), Strings(p));
  p = pairpack::DeletePair(p, pairpack::FindField(p, big));  // and back to one byte
  EXPECT_EQ(pairpack::Bytes(p), 1u + 4u);
  EXPECT_EQ(Strings(p), (std::vector<std::string>{"k", "w"}));
  pairpack::Free(p);
  pairpack::Free(copy);
}

}  // namespace
}  // namespace vireo
