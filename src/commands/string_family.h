// Helpers of the string family (string_commands.cc) shared with msetex_command.cc.
#pragma once

#include <cstdint>
#include <string_view>

#include "commands/command_table.h"
#include "commands/context.h"

namespace vireo::string_cmd {

// An EX/PX/EXAT/PXAT argument as an absolute unix time in ms, with SET's checks (a positive
// integer, no overflow); replies the error naming `command` and returns false when refused.
bool ExpireArgToUnixMs(CommandContext& ctx, std::string_view arg, bool seconds, bool absolute,
                       const char* command, int64_t* when_ms);
// Key's live entry for a write (no hit/miss statistics), or nullptr.
Entry* FindStringForWrite(CommandContext& ctx, std::string_view key);
// Stores value under key as SET does (any old value of any type replaced, its TTL dropped
// unless keep_ttl); e is key's live entry or nullptr. Returns the entry.
Entry* SetString(CommandContext& ctx, Entry* e, std::string_view key, std::string_view value,
                 bool keep_ttl, bool will_expire);

// MSETEX, from msetex_command.cc.
void RegisterMSetExCommand(CommandTable& t);

}  // namespace vireo::string_cmd
