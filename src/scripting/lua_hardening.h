// Vireo's own fixes for the flaws of stock Lua 5.1 (Debian's liblua5.1) and lua-cjson that a
// script can reach, where Redis and Valkey patch their private Lua copies instead (see
// docs/SECURITY.md for each CVE): text-only chunk loading with an anchored chunk name, a
// checked `unpack`, an interruptible pattern matcher, a read-only string metatable,
// size-checked cjson, and a Lua heap that a script cannot grow past a limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

struct lua_State;

namespace vireo {

// The Lua heap's accounting, passed to lua_newstate as the allocator's userdata. Growth that
// would take `used` past `limit` fails (Lua raises "not enough memory"); frees and shrinks
// always succeed. The owner raises the limit only around script runs (SetScriptHeapLimit).
struct LuaHeap {
  size_t used = 0;
  size_t limit = static_cast<size_t>(-1);
  bool fail_next = false;  // the next growth fails: re-raises a memory error (CallStock)
  // The thread running now (the state, or the coroutine it resumed) and the bytes allocated
  // since its count hook was last brought forward (see LuaHeapAlloc).
  lua_State* running = nullptr;
  size_t since_hook = 0;
};
inline constexpr size_t kHookEveryBytes = size_t{64} << 20;

// lua_Alloc over malloc that keeps *static_cast<LuaHeap*>(ud) up to date.
void* LuaHeapAlloc(void* ud, void* ptr, size_t osize, size_t nsize);

// The limit for a script about to run: unlimited without maxmemory; else the heap may grow by
// what is left below maxmemory (used_memory already counts the heap) plus kScriptHeapMargin.
inline constexpr size_t kScriptHeapMargin = 32u << 20;
size_t ScriptHeapLimit(const LuaHeap& heap, uint64_t maxmemory, uint64_t used_memory);

// Compiles Lua source text like luaL_loadbuffer, but never loads a precompiled (binary) chunk
// (Lua 5.1 does not verify bytecode): one is rejected with the syntax error a text parser
// gives ("unexpected symbol near 'char(27)'"), as in Valkey. The chunk name stays anchored on
// the stack while the parser runs (CVE-2025-49844), and sources over kMaxChunkBytes, the only
// ones whose long brackets and line counts stock Lua's lexer miscomputes, are refused
// (CVE-2025-46819). Pushes the function, or the error
// message; returns 0 or the lua_load status.
int LoadChunk(lua_State* L, std::string_view code, const char* chunkname);
inline constexpr size_t kMaxChunkBytes = size_t{1} << 30;

// Replaces the base library's loadstring, load and unpack with checked versions,
// coroutine.resume and coroutine.wrap with ones that keep LuaHeap::running, the string
// library's pattern functions with Vireo's interruptible matcher (lua_pattern_lib.h),
// table.insert with one that refuses positions below 1, and makes the string
// metatable read-only (getmetatable('') answers a read-only view of it). Call after the
// base and string libraries are open, before the globals become read-only. `make_view`
// replaces the table at the top of the stack with its read-only view.
void HardenBaseLibrary(lua_State* L, void (*make_view)(lua_State*));

// Wraps cjson.encode / cjson.decode (and those of tables cjson.new returns) in checks that
// refuse inputs whose sizes overflow lua-cjson's int buffers (CVE-2022-24834). Expects the
// cjson table at the top of the stack.
void HardenCjson(lua_State* L);

// The largest JSON text cjson.encode may produce and cjson.decode may read (below lua-cjson's
// INT_MAX buffer sizes, with room for its doubling growth).
inline constexpr size_t kMaxJsonBytes = size_t{1} << 30;

// Test hook: the largest JSON size the checks allow, normally kMaxJsonBytes.
void SetMaxJsonBytesForTests(size_t bytes);

}  // namespace vireo
