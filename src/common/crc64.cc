#include "common/crc64.h"

#include <array>

namespace vireo {
namespace {

constexpr uint64_t kReflectedPoly = 0x95ac9329ac4bc9b5ULL;  // bit-reversed 0xad93d23594c935a9

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes, so eight
// input bytes are folded per step (a file of several GB is checksummed while it is written).
struct Tables {
  std::array<std::array<uint64_t, 256>, 8> t{};
  constexpr Tables() {
    for (uint64_t b = 0; b < 256; ++b) {
      uint64_t crc = b;
      for (int i = 0; i < 8; ++i) crc = (crc & 1) ? (crc >> 1) ^ kReflectedPoly : crc >> 1;
      t[0][b] = crc;
    }
    for (size_t b = 0; b < 256; ++b) {
      for (size_t k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFF];
    }
  }
};

const Tables kTables;

}  // namespace

uint64_t Crc64(uint64_t crc, const void* data, size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  const auto& t = kTables.t;
  while (len >= 8) {
    // Byte-wise little-endian load: no unaligned access, any host byte order.
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    crc ^= v;
    crc = t[7][crc & 0xFF] ^ t[6][(crc >> 8) & 0xFF] ^ t[5][(crc >> 16) & 0xFF] ^
          t[4][(crc >> 24) & 0xFF] ^ t[3][(crc >> 32) & 0xFF] ^ t[2][(crc >> 40) & 0xFF] ^
          t[1][(crc >> 48) & 0xFF] ^ t[0][crc >> 56];
    p += 8;
    len -= 8;
  }
  while (len-- > 0) crc = t[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
  return crc;
}

}  // namespace vireo
