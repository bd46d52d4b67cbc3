#include "commands/bitops.h"

#include <algorithm>
#include <cstring>

namespace vireo {
namespace {

// Bits set in a 64-bit word, without relying on a popcount instruction (the portable SWAR
// sum compiles to a dozen instructions on every target).
inline uint64_t WordPopCount(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return (x * 0x0101010101010101ULL) >> 56;
}

inline int BitAt(const uint8_t* p, uint64_t pos) { return (p[pos >> 3] >> (7 - (pos & 7))) & 1; }

}  // namespace

uint64_t PopCount(const uint8_t* p, size_t n) {
  uint64_t count = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);  // no unaligned access on strict-alignment targets
    count += WordPopCount(w);
  }
  for (; i < n; ++i) count += WordPopCount(p[i]);
  return count;
}

BitRange ResolveBitRange(int64_t len, int64_t start, int64_t end, bool bit_unit,
                         bool reject_reversed_negatives) {
  BitRange range;  // empty
  if (reject_reversed_negatives && start < 0 && end < 0 && start > end) return range;
  const int64_t total = bit_unit ? len * 8 : len;
  if (start < 0) start += total;
  if (end < 0) end += total;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= total) end = total - 1;
  if (start > end) return range;
  if (bit_unit) {
    range.first = static_cast<uint64_t>(start);
    range.last = static_cast<uint64_t>(end);
  } else {
    range.first = static_cast<uint64_t>(start) * 8;
    range.last = static_cast<uint64_t>(end) * 8 + 7;
  }
  return range;
}

uint64_t CountBitsInRange(std::string_view s, BitRange range) {
  if (range.Empty()) return 0;
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const uint64_t first_byte = range.first >> 3, last_byte = range.last >> 3;
  uint64_t count = PopCount(p + first_byte, last_byte - first_byte + 1);
  // Take back the bits of the edge bytes that lie outside the range.
  const int head = static_cast<int>(range.first & 7);     // bits before first
  const int tail = 7 - static_cast<int>(range.last & 7);  // bits after last
  if (head != 0) count -= WordPopCount(p[first_byte] & (0xFF00u >> head) & 0xFF);
  if (tail != 0) count -= WordPopCount(p[last_byte] & ((1u << tail) - 1));
  return count;
}

int64_t FindFirstBit(std::string_view s, bool bit, BitRange range) {
  if (range.Empty()) return -1;
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const int want = bit ? 1 : 0;
  uint64_t pos = range.first;
  const uint64_t last = range.last;
  for (; pos <= last && (pos & 7) != 0; ++pos) {
    if (BitAt(p, pos) == want) return static_cast<int64_t>(pos);
  }
  // Whole bytes: skip words and bytes holding only the other bit value.
  const uint64_t skip_word = bit ? 0 : ~uint64_t{0};
  const uint8_t skip_byte = bit ? 0 : 0xFF;
  while (pos + 63 <= last) {
    uint64_t w;
    std::memcpy(&w, p + (pos >> 3), 8);
    if (w != skip_word) break;
    pos += 64;
  }
  while (pos + 7 <= last) {
    if (p[pos >> 3] != skip_byte) break;
    pos += 8;
  }
  for (; pos <= last; ++pos) {
    if (BitAt(p, pos) == want) return static_cast<int64_t>(pos);
  }
  return -1;
}

void ApplyBitOp(BitOpKind op, const std::vector<std::string_view>& srcs, std::string* out) {
  size_t maxlen = 0;
  for (std::string_view s : srcs) maxlen = std::max(maxlen, s.size());
  out->assign(maxlen, '\0');
  if (srcs.empty() || maxlen == 0) return;
  auto* res = reinterpret_cast<uint8_t*>(out->data());
  const auto* first = reinterpret_cast<const uint8_t*>(srcs[0].data());
  // The rest stays zero (padding). A missing key is an empty view whose data() may be null,
  // which memcpy must not get even for 0 bytes.
  if (!srcs[0].empty()) std::memcpy(res, first, srcs[0].size());
  if (op == BitOpKind::kNot) {
    for (size_t j = 0; j < maxlen; ++j) res[j] = static_cast<uint8_t>(~res[j]);
    return;
  }
  for (size_t i = 1; i < srcs.size(); ++i) {
    const auto* src = reinterpret_cast<const uint8_t*>(srcs[i].data());
    const size_t n = srcs[i].size();
    switch (op) {
      case BitOpKind::kAnd:
        for (size_t j = 0; j < n; ++j) res[j] &= src[j];
        std::memset(res + n, 0, maxlen - n);  // AND with the zero padding
        break;
      case BitOpKind::kOr:
        for (size_t j = 0; j < n; ++j) res[j] |= src[j];
        break;
      case BitOpKind::kXor:
        for (size_t j = 0; j < n; ++j) res[j] ^= src[j];
        break;
      case BitOpKind::kNot:
        break;
    }
  }
}

uint64_t GetUnsignedField(const uint8_t* p, uint64_t offset, int bits) {
  uint64_t value = 0;
  for (int j = 0; j < bits; ++j) value = (value << 1) | static_cast<uint64_t>(BitAt(p, offset + j));
  return value;
}

int64_t GetSignedField(const uint8_t* p, uint64_t offset, int bits) {
  uint64_t u = GetUnsignedField(p, offset, bits);
  // Sign-extend from the field's top bit.
  if (bits < 64 && (u & (uint64_t{1} << (bits - 1)))) u |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(u);
}

void SetField(uint8_t* p, uint64_t offset, int bits, uint64_t value) {
  for (int j = 0; j < bits; ++j) {
    const uint64_t pos = offset + j;
    const uint8_t mask = static_cast<uint8_t>(1u << (7 - (pos & 7)));
    if ((value >> (bits - 1 - j)) & 1) {
      p[pos >> 3] |= mask;
    } else {
      p[pos >> 3] &= static_cast<uint8_t>(~mask);
    }
  }
}

namespace {

// Copies the (up to) 9 bytes holding a field of up to 64 bits at offset, zero-padded past the
// end of s; the field then starts at bit (offset & 7) of buf.
void CopyFieldBytes(std::string_view s, uint64_t offset, uint8_t buf[9]) {
  std::memset(buf, 0, 9);
  const uint64_t byte = offset >> 3;
  if (byte >= s.size()) return;
  const size_t n = std::min<uint64_t>(9, s.size() - byte);
  std::memcpy(buf, s.data() + byte, n);
}

}  // namespace

uint64_t ReadUnsignedField(std::string_view s, uint64_t offset, int bits) {
  uint8_t buf[9];
  CopyFieldBytes(s, offset, buf);
  return GetUnsignedField(buf, offset & 7, bits);
}

int64_t ReadSignedField(std::string_view s, uint64_t offset, int bits) {
  uint8_t buf[9];
  CopyFieldBytes(s, offset, buf);
  return GetSignedField(buf, offset & 7, bits);
}

bool AddSignedField(int64_t value, int64_t incr, int bits, BitOverflow ow, int64_t* out) {
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  // The headroom is computed as Valkey computes it, in wrapping 64-bit arithmetic: for a
  // value within `max` of INT64_MIN (only a SET value can be that far out of range) it wraps
  // negative, so such a value counts as overflowing upwards and saturates to the maximum.
  const auto max_incr =
      static_cast<int64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(value));
  const auto min_incr =
      static_cast<int64_t>(static_cast<uint64_t>(min) - static_cast<uint64_t>(value));
  const bool up =
      value > max || (bits != 64 && incr > max_incr) || (value >= 0 && incr > 0 && incr > max_incr);
  const bool down = !up && (value < min || (bits != 64 && incr < min_incr) ||
                            (value < 0 && incr < 0 && incr < min_incr));
  if (!up && !down) {
    *out = value + incr;
    return true;
  }
  if (ow == BitOverflow::kSat) {
    *out = up ? max : min;
  } else if (ow == BitOverflow::kWrap) {
    uint64_t c = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
    if (bits < 64) {
      const uint64_t high = ~uint64_t{0} << bits;
      c = (c & (uint64_t{1} << (bits - 1))) ? (c | high) : (c & ~high);
    }
    *out = static_cast<int64_t>(c);
  }
  return false;
}

bool AddUnsignedField(uint64_t value, int64_t incr, int bits, BitOverflow ow, uint64_t* out) {
  const uint64_t max = (uint64_t{1} << bits) - 1;  // bits <= 63
  const uint64_t magnitude =
      incr < 0 ? static_cast<uint64_t>(-(incr + 1)) + 1 : static_cast<uint64_t>(incr);
  bool up = value > max || (incr > 0 && magnitude > max - value);
  bool down = !up && incr < 0 && magnitude > value;
  if (!up && !down) {
    *out = value + static_cast<uint64_t>(incr);
    return true;
  }
  if (ow == BitOverflow::kSat) {
    *out = up ? max : 0;
  } else if (ow == BitOverflow::kWrap) {
    *out = (value + static_cast<uint64_t>(incr)) & max;
  }
  return false;
}

}  // namespace vireo
