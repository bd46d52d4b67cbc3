// The sandboxed Lua state scripts run in: Lua 5.1's base, table, string, math and coroutine
// libraries (no os, io, debug, loadfile, dofile, print, ...), cjson, bit, cmsgpack and struct,
// and a `redis` table (also named `server`, as in Valkey 8) whose engine-independent functions
// are set here.
// Globals, library tables and the string metatable are read-only, with Valkey's error texts;
// loading, unpack and cjson are hardened (lua_hardening.h).
#pragma once

#include <string_view>

struct lua_State;

namespace vireo {

struct LuaHeap;

using LuaCFunction = int (*)(lua_State*);

struct LuaEngineFunction {
  const char* name;  // field of the redis table
  LuaCFunction fn;   // called with the engine pointer as upvalue 1
};

// Creates the state. `engine_fns` (ending with {nullptr, nullptr}) are added to the redis
// table as closures over `engine`. The redis table's functions see the real tables; scripts
// see read-only views. Its memory is counted in *heap (lua_hardening.h), which must outlive
// it. Caller owns the state (lua_close).
lua_State* NewScriptState(const LuaEngineFunction* engine_fns, void* engine,
                          std::string_view version, LuaHeap* heap);

// Sets a global in the real globals table (KEYS, ARGV), bypassing the read-only view: pops
// the value at the top of the stack.
void SetScriptGlobal(lua_State* L, const char* name);

// Pushes the error handler scripts run under (lua_pcall's errfunc): it turns any error into a
// table {err=..., source=..., line=...}, strings becoming "ERR <message>".
void PushErrorHandler(lua_State* L);

// Pushes {err=msg} ("ERR " is prepended unless msg starts with '-', which is dropped): the
// shape of every error a script sees.
void PushErrorTable(lua_State* L, std::string_view msg);

// Raises {err=msg} as a Lua error (never returns).
[[noreturn]] void RaiseErrorTable(lua_State* L, std::string_view msg);

// Metamethods of the read-only tables: reading a missing name is an error ("Script attempted
// to access nonexistent global variable"), and so is any write.
int LuaMissingName(lua_State* L);
int LuaReadonlyWrite(lua_State* L);

// A Lua number as an int the way a C cast gives it on x86 (out of range and NaN: INT_MIN),
// without the cast's undefined behaviour: for script arguments such as redis.setresp(1e308).
int NumberToInt(double n);

// Hex SHA1 of s into out[40] (plus a NUL at out[40]).
void Sha1Hex(std::string_view s, char* out);

}  // namespace vireo
