// Pure algorithms behind the bitmap family (BITCOUNT, BITPOS, BITOP, BITFIELD): no keyspace,
// no replies, testable on their own. Bits are numbered as Valkey numbers them: bit 0 is the
// most significant bit of byte 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

// Bits set in the n bytes at p.
uint64_t PopCount(const uint8_t* p, size_t n);

// An inclusive range of bit positions; empty when first > last.
struct BitRange {
  uint64_t first = 1;
  uint64_t last = 0;
  bool Empty() const { return first > last; }
};

// Resolves BITCOUNT/BITPOS's start and end against a string of len bytes, in bytes or (with
// bit_unit) in bits: negative values count from the end, then both are clamped into the
// string. With reject_reversed_negatives (BITCOUNT), start and end both negative with
// start > end give an empty range before clamping could make them overlap.
BitRange ResolveBitRange(int64_t len, int64_t start, int64_t end, bool bit_unit,
                         bool reject_reversed_negatives);

// Bits set in s within range (which must lie inside s unless empty).
uint64_t CountBitsInRange(std::string_view s, BitRange range);

// Position of the first bit equal to `bit` within range of s, or -1 when there is none.
int64_t FindFirstBit(std::string_view s, bool bit, BitRange range);

enum class BitOpKind { kAnd, kOr, kXor, kNot };

// BITOP: out = op over srcs byte by byte, shorter sources read as zero-padded up to the
// longest (NOT takes one source). out gets the longest source's length.
void ApplyBitOp(BitOpKind op, const std::vector<std::string_view>& srcs, std::string* out);

// Bitfield integers of 1..64 bits stored most significant bit first from bit `offset` of p,
// which must hold those bits.
uint64_t GetUnsignedField(const uint8_t* p, uint64_t offset, int bits);
int64_t GetSignedField(const uint8_t* p, uint64_t offset, int bits);
// Stores the low `bits` bits of value.
void SetField(uint8_t* p, uint64_t offset, int bits, uint64_t value);
// As the getters, reading zeros beyond the end of s (BITFIELD GET past the string).
uint64_t ReadUnsignedField(std::string_view s, uint64_t offset, int bits);
int64_t ReadSignedField(std::string_view s, uint64_t offset, int bits);

enum class BitOverflow { kWrap, kSat, kFail };

// value + incr for a signed field of `bits` (1..64) bits. Returns false when the sum does
// not fit; *out is then the result the overflow policy gives (two's-complement wrap, or the
// nearest limit for kSat; unspecified for kFail). On success *out is the sum. As in Valkey,
// a value within 2^(bits-1) of INT64_MIN (a SET value) counts as too large, not too small.
bool AddSignedField(int64_t value, int64_t incr, int bits, BitOverflow ow, int64_t* out);
// The same for an unsigned field of 1..63 bits. value is taken as given (a SET value cast
// from a negative integer is a huge value, so it overflows upwards and saturates to the max).
bool AddUnsignedField(uint64_t value, int64_t incr, int bits, BitOverflow ow, uint64_t* out);

}  // namespace vireo
