// The options shared by SCAN, SSCAN, HSCAN and ZSCAN, parsed once with Valkey's errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vireo {

struct CommandContext;

struct ScanOptions {
  int64_t count = 10;
  std::string_view pattern = "*";
  std::string_view type;   // SCAN's TYPE filter
  bool has_type = false;
  bool flag = false;       // the family's extra word was given (NOVALUES, NOSCORES)
  int slot = -1;           // CLUSTERSCAN's SLOT (-1: not given)

  bool MatchesAll() const { return pattern == "*"; }
};

// Parses [MATCH pattern] [COUNT count] from argument `first` on, plus the word `flag`
// (nullptr: none), where allow_type [TYPE type] and where allow_slot [SLOT slot] (once). On a
// bad option replies Valkey's error and returns false.
bool ParseScanOptions(CommandContext& ctx, size_t first, const char* flag, bool allow_type,
                      ScanOptions* out, bool allow_slot = false);

}  // namespace vireo
