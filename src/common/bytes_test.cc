#include "common/bytes.h"

#include <gtest/gtest.h>

#include <string>

namespace vireo {
namespace {

// Every length up to 40 and every differing position, against memcmp.
TEST(BytesEqual, MatchesMemcmpAtEveryLengthAndPosition) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'k');
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + i % 26);
    std::string b = a;
    EXPECT_TRUE(BytesEqual(a.data(), b.data(), n)) << n;
    for (size_t i = 0; i < n; ++i) {
      b[i] ^= 0x20;
      EXPECT_FALSE(BytesEqual(a.data(), b.data(), n)) << n << " " << i;
      b[i] ^= 0x20;
    }
  }
}

}  // namespace
}  // namespace vireo
