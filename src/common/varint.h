// Unsigned LEB128 varints: 7 bits per byte, low group first, high bit = more follows. The
// packed encodings (streams' nodes, small hashes) use them for lengths and deltas.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vireo {

inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Writes v at p and returns the byte after it.
inline unsigned char* PutVarint(unsigned char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<unsigned char>(v);
  return p;
}

// Reads the varint at p into *v and returns the byte after it. The input is trusted (built
// by this process), so no bounds are checked.
inline const unsigned char* GetVarint(const unsigned char* p, uint64_t* v) {
  uint64_t r = 0;
  int shift = 0;
  while (*p & 0x80) {
    r |= static_cast<uint64_t>(*p++ & 0x7F) << shift;
    shift += 7;
  }
  *v = r | (static_cast<uint64_t>(*p++) << shift);
  return p;
}

inline const unsigned char* SkipVarint(const unsigned char* p) {
  while (*p & 0x80) ++p;
  return p + 1;
}

}  // namespace vireo
