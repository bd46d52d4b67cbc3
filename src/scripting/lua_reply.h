// Conversions between RESP replies and Lua values, by Valkey's (Redis 7.0's) rules for
// scripts. Pure functions over a lua_State: no server state.
#pragma once

#include <cstddef>
#include <string_view>

#include "protocol/reply_builder.h"

struct lua_State;

namespace vireo {

// Parses the one complete RESP2/RESP3 reply at data[0..len) and pushes it as a Lua value:
// integer -> number, bulk -> string, null bulk/array -> false (RESP3 null -> nil), array ->
// table, status -> {ok=s}, error -> {err=s}, map -> {map={k=v}}, set -> {set={m=true}},
// boolean -> boolean, double -> {double=n}, big number -> {big_number=s}, verbatim ->
// {verbatim_string={format=f, string=s}}. Returns the bytes consumed, 0 on malformed input
// (then nothing is pushed).
size_t PushReplyAsLua(lua_State* L, const char* data, size_t len);

// Writes the Lua value at stack index idx as a reply: numbers are truncated to integers,
// strings are bulks, true is 1 (a boolean when resp3_script), false and nil are nulls, tables
// with err/ok/double/big_number/map/set/verbatim_string fields are those replies, other
// tables are arrays cut at the first nil.
void LuaToReply(lua_State* L, int idx, ReplyBuilder& reply, bool resp3_script);

// Copies s with CR and LF replaced by spaces (status and error texts must be one line).
void AppendOneLine(std::string* out, std::string_view s);

}  // namespace vireo
