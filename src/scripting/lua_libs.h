// The two Lua C libraries Redis 7.0 scripts see besides cjson and bit, for which Debian has no
// package: cmsgpack (MessagePack, lua_cmsgpack.cc) and struct (binary packing, lua_struct.cc).
// Written for Vireo from the MessagePack specification and the struct library's documentation;
// their encoding choices, limits and error texts follow redis-server 7.0's observed behaviour.
#pragma once

struct lua_State;

namespace vireo {

// luaopen_* convention: each sets its global table (`cmsgpack`, `struct`) and leaves it on the
// stack (returns 1). The caller makes them read-only like the other library tables.
int OpenCmsgpackLib(lua_State* L);
int OpenStructLib(lua_State* L);

}  // namespace vireo
