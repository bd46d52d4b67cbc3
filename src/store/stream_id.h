// Stream entry IDs (<ms>-<seq>): ordering, successor/predecessor, text form and parsing with
// Valkey's exact acceptance rules.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vireo {

struct StreamID {
  uint64_t ms = 0;
  uint64_t seq = 0;
  auto operator<=>(const StreamID&) const = default;
  bool IsZero() const { return ms == 0 && seq == 0; }
};

inline constexpr StreamID kMinStreamId{0, 0};
inline constexpr StreamID kMaxStreamId{UINT64_MAX, UINT64_MAX};

// Successor / predecessor. False (and the id wraps to 0-0 / max) at the ends of the range.
bool IncrStreamId(StreamID* id);
bool DecrStreamId(StreamID* id);

// Longest text form: two 20-digit numbers and the dash.
inline constexpr size_t kStreamIdMaxLen = 41;
// Writes "<ms>-<seq>" into buf (>= kStreamIdMaxLen bytes) and returns its length.
size_t FormatStreamIdTo(char* buf, StreamID id);
std::string FormatStreamId(StreamID id);

// Parses a client-given ID as Valkey does: "<ms>-<seq>", or "<ms>" whose sequence is
// missing_seq; "-" and "+" are the smallest and largest IDs unless strict. When seq_given is
// non-null the form "<ms>-*" is also accepted and sets *seq_given to false. Numbers follow
// Valkey's string2ull (strict integers, else strtoull: leading zeros and spaces pass).
bool ParseStreamId(std::string_view s, StreamID* id, uint64_t missing_seq, bool strict,
                   bool* seq_given = nullptr);

// An interval bound of XRANGE/XPENDING/XAUTOCLAIM: like ParseStreamId, and a leading "("
// (with something after it) makes the bound exclusive (*exclusive; then "-"/"+" are invalid).
bool ParseStreamIntervalId(std::string_view s, StreamID* id, bool* exclusive, uint64_t missing_seq);

}  // namespace vireo
