// Pure algorithms behind the string family: no keyspace, no replies, testable on their own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

// One run of consecutive matching bytes of an LCS: a[a_start..a_end] == b[b_start..b_end].
struct LcsRange {
  uint32_t a_start, a_end;
  uint32_t b_start, b_end;
  uint32_t Length() const { return a_end - a_start + 1; }
};

struct LcsResult {
  uint32_t length = 0;          // length of the longest common subsequence
  std::string text;             // the subsequence itself (when asked for)
  std::vector<LcsRange> matches;  // its runs, last run first, as Valkey lists them
};

enum class LcsStatus {
  kOk,
  kTooLarge,  // the dynamic-programming table would exceed the caller's byte budget
  kNoMemory,  // the table could not be allocated
};

// Longest common subsequence of a and b, by the classic O(|a|*|b|) table. The table costs
// (|a|+1)*(|b|+1)*4 bytes, refused above max_table_bytes. With want_text or want_matches the
// table is walked back from the end, preferring to drop a byte of b on ties, so the chosen
// subsequence and runs are the ones Valkey reports; runs shorter than min_match_len are left
// out of matches.
LcsStatus ComputeLcs(std::string_view a, std::string_view b, bool want_text, bool want_matches,
                     int64_t min_match_len, int64_t max_table_bytes, LcsResult* out);

}  // namespace vireo
