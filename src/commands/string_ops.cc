#include "commands/string_ops.h"

#include <algorithm>
#include <cstdlib>

namespace vireo {
namespace {

// LCS length with two rows of the table: what LCS ... LEN needs, in O(|b|) memory.
uint32_t LcsLength(std::string_view a, std::string_view b) {
  std::vector<uint32_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

LcsStatus ComputeLcs(std::string_view a, std::string_view b, bool want_text, bool want_matches,
                     int64_t min_match_len, int64_t max_table_bytes, LcsResult* out) {
  const uint64_t rows = a.size() + 1;
  const uint64_t cols = b.size() + 1;
  // rows * cols * 4 > budget, written so that it cannot overflow.
  const uint64_t budget = max_table_bytes < 0 ? 0 : static_cast<uint64_t>(max_table_bytes);
  if (rows > budget / sizeof(uint32_t) / cols) return LcsStatus::kTooLarge;

  *out = LcsResult();
  if (!want_text && !want_matches) {
    out->length = LcsLength(a, b);
    return LcsStatus::kOk;
  }

  // table[i * cols + j] = LCS length of a[0..i) and b[0..j). malloc, not vector: a failed
  // allocation is an error reply, not an exception.
  auto* table = static_cast<uint32_t*>(std::malloc(rows * cols * sizeof(uint32_t)));
  if (table == nullptr) return LcsStatus::kNoMemory;
  auto at = [&](uint64_t i, uint64_t j) -> uint32_t& { return table[i * cols + j]; };
  for (uint64_t j = 0; j < cols; ++j) at(0, j) = 0;
  for (uint64_t i = 1; i < rows; ++i) {
    at(i, 0) = 0;
    for (uint64_t j = 1; j < cols; ++j) {
      at(i, j) = a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1
                                      : std::max(at(i - 1, j), at(i, j - 1));
    }
  }
  out->length = at(rows - 1, cols - 1);
  if (want_text) out->text.resize(out->length);

  // Walk back from the end. A match always continues the current run diagonally (the step
  // before it was a match one cell down-right, or a mismatch that closed the run), so a run
  // ends at a mismatch or when either string's first byte is reached.
  uint32_t i = static_cast<uint32_t>(a.size());
  uint32_t j = static_cast<uint32_t>(b.size());
  uint32_t k = out->length;
  bool open = false;
  LcsRange run{};
  while (i > 0 && j > 0) {
    bool close = false;
    if (a[i - 1] == b[j - 1]) {
      if (want_text) out->text[--k] = a[i - 1];
      if (!open) {
        run = {i - 1, i - 1, j - 1, j - 1};
        open = true;
      } else {
        run.a_start = i - 1;
        run.b_start = j - 1;
      }
      close = i == 1 || j == 1;
      --i;
      --j;
    } else {
      // Ties drop a byte of b: the order Valkey walks, so the same runs come out.
      if (at(i - 1, j) > at(i, j - 1)) {
        --i;
      } else {
        --j;
      }
      close = open;
    }
    if (close) {
      if (want_matches && run.Length() >= min_match_len) out->matches.push_back(run);
      open = false;
    }
  }
  std::free(table);
  return LcsStatus::kOk;
}

}  // namespace vireo
