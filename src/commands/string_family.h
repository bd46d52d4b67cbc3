// Helpers of the string family (string_commands.cc) shared with msetex_command.cc.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "commands/command_table.h"
#include "commands/context.h"

namespace vireo::string_cmd {

// Option bits of SET, GETEX and MSETEX, as their parser records them.
enum StringOption : uint32_t {
  kOptNx = 1u << 0,
  kOptXx = 1u << 1,
  kOptGet = 1u << 2,
  kOptKeepTtl = 1u << 3,
  kOptPersist = 1u << 4,
  kOptEx = 1u << 5,
  kOptPx = 1u << 6,
  kOptExAt = 1u << 7,
  kOptPxAt = 1u << 8,
  kOptIfEq = 1u << 9,  // Valkey 8.1: set only over an equal string
};
constexpr uint32_t kOptAnyExpire = kOptEx | kOptPx | kOptExAt | kOptPxAt;

struct StringOptions {
  uint32_t flags = 0;
  std::string_view expire;  // the argument of the (last) EX/PX/EXAT/PXAT
  size_t expire_at = 0;     // its index in args
  std::string_view ifeq;    // IFEQ's comparison value
};

enum class StringOptionsOf { kSet, kGetEx, kMSetEx };
// Parses SET's, GETEX's or MSETEX's options from args[start] on. An option may repeat (the
// last expire value wins) but may not be combined with one it excludes. False means
// "ERR syntax error".
bool ParseStringOptions(const std::vector<std::string_view>& args, size_t start,
                        StringOptionsOf of, StringOptions* out);

// The EX/PX/EXAT/PXAT option opt recorded as an absolute unix time in ms, with SET's checks
// (a positive integer, no overflow); replies the error naming `command` and returns false
// when refused.
bool ParseOptionExpire(CommandContext& ctx, const StringOptions& opt, const char* command,
                       int64_t* when_ms);
// Key's live entry for a write (no hit/miss statistics), or nullptr.
Entry* FindStringForWrite(CommandContext& ctx, std::string_view key);
// Stores value under key as SET does (any old value of any type replaced, its TTL dropped
// unless keep_ttl); e is key's live entry or nullptr. Returns the entry.
Entry* SetString(CommandContext& ctx, Entry* e, std::string_view key, std::string_view value,
                 bool keep_ttl, bool will_expire);

// MSETEX, from msetex_command.cc.
void RegisterMSetExCommand(CommandTable& t);

}  // namespace vireo::string_cmd
