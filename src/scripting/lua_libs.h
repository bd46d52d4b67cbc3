// Lua C libraries scripts see besides cjson: cmsgpack (MessagePack, lua_cmsgpack.cc), struct
// (binary packing, lua_struct.cc) and bit (32-bit bitwise operations, lua_bit.cc). Written for
// Vireo from the MessagePack specification, the struct library's documentation and the LuaBitOp
// API; their encoding choices, limits and error texts follow redis-server 7.0's and
// valkey-server 8.0's observed behaviour.
#pragma once

struct lua_State;

namespace vireo {

// luaopen_* convention: each sets its global table (`cmsgpack`, `struct`, `bit`) and leaves it
// on the stack (returns 1). The caller makes them read-only like the other library tables.
int OpenCmsgpackLib(lua_State* L);
int OpenStructLib(lua_State* L);
int OpenBitLib(lua_State* L);

}  // namespace vireo
