#include "common/crc64.h"

#include <gtest/gtest.h>

#include <string>

namespace vireo {
namespace {

TEST(Crc64, JonesCheckValue) {
  EXPECT_EQ(Crc64(0, "", 0), 0u);
  EXPECT_EQ(Crc64(0, "123456789", 9), 0xe9c6d914c4b8d9caULL);
}

// The table-driven code against the bit-at-a-time definition.
TEST(Crc64, MatchesBitwiseDefinition) {
  std::string s;
  for (int i = 0; i < 777; ++i) s += static_cast<char>((i * 131) ^ (i >> 3));
  uint64_t ref = 0;
  for (unsigned char b : s) {
    ref ^= b;
    for (int k = 0; k < 8; ++k) ref = (ref & 1) ? (ref >> 1) ^ 0x95ac9329ac4bc9b5ULL : ref >> 1;
  }
  EXPECT_EQ(Crc64(0, s.data(), s.size()), ref);
}

TEST(Crc64, ChainedEqualsWhole) {
  std::string s;
  for (int i = 0; i < 1000; ++i) s += static_cast<char>(i * 7 + 3);
  uint64_t whole = Crc64(0, s.data(), s.size());
  for (size_t cut : {0, 1, 7, 8, 9, 333, 999, 1000}) {
    uint64_t c = Crc64(0, s.data(), cut);
    EXPECT_EQ(Crc64(c, s.data() + cut, s.size() - cut), whole) << cut;
  }
}

}  // namespace
}  // namespace vireo
