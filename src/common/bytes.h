// Equality of two byte ranges of one length, inline: keys and command names are mostly under
// 17 bytes, where a call into libc's memcmp costs more than the comparison itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace vireo {

inline bool BytesEqual(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    // Two overlapping 8-byte words cover 8 to 16 bytes.
    uint64_t a1, b1, a2, b2;
    std::memcpy(&a1, a, 8);
    std::memcpy(&b1, b, 8);
    std::memcpy(&a2, a + n - 8, 8);
    std::memcpy(&b2, b + n - 8, 8);
    return ((a1 ^ b1) | (a2 ^ b2)) == 0;
  }
  if (n >= 4) {
    uint32_t a1, b1, a2, b2;
    std::memcpy(&a1, a, 4);
    std::memcpy(&b1, b, 4);
    std::memcpy(&a2, a + n - 4, 4);
    std::memcpy(&b2, b + n - 4, 4);
    return ((a1 ^ b1) | (a2 ^ b2)) == 0;
  }
  // 1 to 3 bytes: the first, middle and last cover every position, without a loop.
  if (n == 0) return true;
  return ((a[0] ^ b[0]) | (a[n >> 1] ^ b[n >> 1]) | (a[n - 1] ^ b[n - 1])) == 0;
}

}  // namespace vireo
