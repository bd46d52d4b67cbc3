#include "scripting/lua_hardening.h"

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <lua.hpp>

#include "scripting/lua_pattern_lib.h"

namespace vireo {
namespace {

size_t g_max_json_bytes = kMaxJsonBytes;

// A reader that hands the chunk to lua_load in one piece.
struct ChunkText {
  const char* data;
  size_t size;
};

const char* ReadChunk(lua_State*, void* ud, size_t* size) {
  auto* text = static_cast<ChunkText*>(ud);
  *size = text->size;
  text->size = 0;
  return *size == 0 ? nullptr : text->data;
}

// loadstring(s [, chunkname]): nil and the message on error, as Lua's.
int CheckedLoadString(lua_State* L) {
  size_t len;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* chunkname = luaL_optstring(L, 2, s);
  if (LoadChunk(L, std::string_view(s, len), chunkname) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

// load(func [, chunkname])'s reader, as stock Lua's (the piece func returns is kept in stack
// slot 3 while the parser reads it; errors raised here reach load's caller as its nil and
// message), plus the checks of LoadChunk: a first piece starting with the signature byte is
// preceded by a space, and the pieces may not add up past kMaxChunkBytes.
struct ReaderState {
  size_t total = 0;
  bool resume_piece = false;  // a space was returned; the piece in slot 3 comes next
};

const char* ReadFromFunction(lua_State* L, void* ud, size_t* size) {
  auto* st = static_cast<ReaderState*>(ud);
  if (st->resume_piece) {
    st->resume_piece = false;
    return lua_tolstring(L, 3, size);
  }
  luaL_checkstack(L, 2, "too many nested functions");
  lua_pushvalue(L, 1);
  lua_call(L, 0, 1);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    *size = 0;
    return nullptr;
  }
  if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
  lua_replace(L, 3);
  const char* piece = lua_tolstring(L, 3, size);
  const bool first = st->total == 0;
  st->total += *size;
  if (st->total > kMaxChunkBytes) {
    luaL_error(L, "source too large to compile (over %d bytes)", static_cast<int>(kMaxChunkBytes));
  }
  if (first && *size > 0 && piece[0] == LUA_SIGNATURE[0]) {
    st->resume_piece = true;
    *size = 1;
    return " ";
  }
  return piece;
}

int CheckedLoad(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* chunkname = luaL_optstring(L, 2, "=(load)");
  lua_settop(L, 3);              // 3: the piece being read
  lua_pushstring(L, chunkname);  // 4: the chunk name, anchored (CVE-2025-49844)
  ReaderState st;
  if (lua_load(L, ReadFromFunction, &st, chunkname) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

// A number argument as stock luaL_optint makes it on x86-64 (to 64 bits, out of range and
// NaN giving INT64_MIN, then the low 32 bits), without its undefined conversion.
int OptIntAsLua(lua_State* L, int arg, int def) {
  if (lua_isnoneornil(L, arg)) return def;
  lua_Number n = luaL_checknumber(L, arg);
  int64_t wide = INT64_MIN;
  if (n > -9223372036854775808.0 && n < 9223372036854775808.0) wide = static_cast<int64_t>(n);
  return static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(wide)));
}

// unpack(t [, i [, j]]) with the element count computed without overflow and the stack
// checked before it is used (CVE-2025-46817: stock 5.1 computes j - i + 1 in int).
int CheckedUnpack(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  int i = OptIntAsLua(L, 2, 1);
  int e = lua_isnoneornil(L, 3) ? static_cast<int>(lua_objlen(L, 1)) : OptIntAsLua(L, 3, 0);
  if (i > e) return 0;
  const long long n = static_cast<long long>(e) - i + 1;
  if (n >= INT_MAX || !lua_checkstack(L, static_cast<int>(n)))
    return luaL_error(L, "too many results to unpack");
  for (int k = i;; ++k) {
    lua_rawgeti(L, 1, k);
    if (k == e) break;
  }
  return static_cast<int>(n);
}

// Upper bound of the JSON text lua-cjson writes for the value at idx, stopping once it
// passes `budget` (so shared subtables cannot make the walk long). Values cjson refuses
// (functions, cycles, too deep) count little: cjson reports them itself.
size_t JsonBound(lua_State* L, int idx, int depth, size_t budget) {
  switch (lua_type(L, idx)) {
    case LUA_TSTRING:
      // cjson reserves six bytes per character (\u00XX) plus the quotes.
      return lua_objlen(L, idx) * 6 + 2;
    case LUA_TNUMBER:
      return 32;
    case LUA_TTABLE:
      break;
    default:
      return 8;
  }
  if (depth > 1000 || !lua_checkstack(L, 3)) return 2;
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  size_t total = 2;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    total += 1 + JsonBound(L, -2, depth + 1, budget) + JsonBound(L, -1, depth + 1, budget);
    lua_pop(L, 1);
    if (total > budget) {
      lua_pop(L, 1);
      break;
    }
  }
  return total;
}

int JsonTooLarge(lua_State* L) {
  return luaL_error(L, "Cannot serialise: JSON text would exceed %d bytes",
                    static_cast<int>(g_max_json_bytes));
}

// Raises Lua's memory error again (status LUA_ERRMEM, which the engine answers with OOM):
// the API has no call for it, so the next allocation is made to fail.
[[noreturn]] void RaiseMemoryError(lua_State* L) {
  void* ud = nullptr;
  if (lua_getallocf(L, &ud) == LuaHeapAlloc) static_cast<LuaHeap*>(ud)->fail_next = true;
  lua_newuserdata(L, 1);
  lua_error(L);  // another allocator: a plain error carrying the message
  abort();
}

// Raises again, from the calling C function, an error status rc that a protected call of a
// stock function returned, as if the script had called that function directly: at the
// script's line, and naming the function where stock Lua, called from C, says '?'.
[[noreturn]] void RaiseAgain(lua_State* L, int rc) {
  if (rc == LUA_ERRMEM) RaiseMemoryError(L);
  if (lua_type(L, -1) == LUA_TSTRING) {
    // The name the wrapper was called by, as Lua resolves it (none through pcall).
    lua_Debug ar;
    if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "n", &ar) && ar.name != nullptr) {
      lua_pushfstring(L, "to '%s'", ar.name);
      luaL_gsub(L, lua_tostring(L, -2), "to '?'", lua_tostring(L, -1));
      lua_replace(L, -3);
      lua_pop(L, 1);
    }
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
  }
  lua_error(L);
  abort();
}

// The wrappers' second half: calls the stock function (upvalue 1) with every argument the
// wrapper got and answers its results; its errors are raised again by RaiseAgain.
int CallStock(lua_State* L, int results) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  const int rc = lua_pcall(L, lua_gettop(L) - 1, results, 0);
  if (rc != 0) RaiseAgain(L, rc);
  return lua_gettop(L);
}

LuaHeap* HeapOf(lua_State* L) {
  void* ud = nullptr;
  return lua_getallocf(L, &ud) == LuaHeapAlloc ? static_cast<LuaHeap*>(ud) : nullptr;
}

// coroutine.resume(co, ...): the stock function, with the heap's running thread set to co
// while it runs, so heavy allocation inside the coroutine brings co's count hook forward.
int TrackedResume(lua_State* L) {
  lua_State* co = lua_tothread(L, 1);
  luaL_argcheck(L, co != nullptr, 1, "coroutine expected");
  LuaHeap* heap = HeapOf(L);
  lua_State* outer = heap != nullptr ? heap->running : nullptr;
  if (heap != nullptr) heap->running = co;
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  const int rc = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  if (heap != nullptr) heap->running = outer;
  if (rc != 0) RaiseAgain(L, rc);
  return lua_gettop(L);
}

// The function coroutine.wrap returns; upvalue 1 is the coroutine, 2 the tracked resume.
// As stock 5.1's: the coroutine's results, or its error raised again at the caller's line.
int TrackedWrapCall(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  if (lua_toboolean(L, 1)) return lua_gettop(L) - 1;
  lua_settop(L, 2);
  if (lua_isstring(L, -1)) {
    luaL_where(L, 1);
    lua_insert(L, -2);
    lua_concat(L, 2);
  }
  return lua_error(L);
}

// coroutine.wrap(f): upvalue 1 is coroutine.create, 2 the tracked resume.
int TrackedWrap(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_pushcclosure(L, TrackedWrapCall, 2);
  return 1;
}

// cjson.encode's wrapper: upvalue 1 is lua-cjson's function.
int CheckedEncode(lua_State* L) {
  if (lua_gettop(L) >= 1 && JsonBound(L, 1, 0, g_max_json_bytes) > g_max_json_bytes)
    return JsonTooLarge(L);
  return CallStock(L, LUA_MULTRET);
}

// cjson.decode's wrapper: lua-cjson sizes its scratch buffer from the text's length in int.
int CheckedDecode(lua_State* L) {
  if (lua_type(L, 1) == LUA_TSTRING && lua_objlen(L, 1) > g_max_json_bytes)
    return luaL_error(L, "Cannot parse: JSON text exceeds %d bytes",
                      static_cast<int>(g_max_json_bytes));
  return CallStock(L, LUA_MULTRET);
}

void WrapField(lua_State* L, const char* name, lua_CFunction wrapper) {
  lua_getfield(L, -1, name);
  if (lua_isfunction(L, -1)) {
    lua_pushcclosure(L, wrapper, 1);
    lua_setfield(L, -2, name);
  } else {
    lua_pop(L, 1);
  }
}

int CheckedNew(lua_State* L) {
  CallStock(L, 1);
  if (lua_istable(L, -1)) HardenCjson(L);
  return 1;
}

// table.insert(t, pos, v): stock 5.1 moves every slot from #t + 1 down to pos, so a far
// negative pos loops up to 2^31 times inside one C call (no hook, no SCRIPT KILL). A position
// below 1 is refused with Lua 5.3's message; upvalue 1 is the stock function.
int CheckedInsert(lua_State* L) {
  // The position as stock luaL_checkint reads it: 2^31 wraps to INT32_MIN.
  if (lua_gettop(L) == 3 && lua_isnumber(L, 2) && OptIntAsLua(L, 2, 1) < 1)
    return luaL_argerror(L, 2, "position out of bounds");
  return CallStock(L, LUA_MULTRET);
}

}  // namespace

void* LuaHeapAlloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* heap = static_cast<LuaHeap*>(ud);
  if (nsize == 0) {
    free(ptr);
    heap->used -= osize;
    return nullptr;
  }
  // osize is 0 for a new block (ptr == nullptr); growth past the limit fails.
  if (nsize > osize) {
    if (heap->used + (nsize - osize) > heap->limit || heap->fail_next) {
      heap->fail_next = false;
      return nullptr;
    }
    // A few instructions can allocate gigabytes (string.rep in a loop): past each
    // kHookEveryBytes, the running thread's count hook (the busy-script check) runs at its
    // next instruction instead of up to 100,000 instructions later. Setting a hook is safe
    // anywhere; it runs nothing now.
    heap->since_hook += nsize - osize;
    if (heap->since_hook >= kHookEveryBytes && heap->running != nullptr) {
      heap->since_hook = 0;
      if (lua_Hook hook = lua_gethook(heap->running)) {
        lua_sethook(heap->running, hook, lua_gethookmask(heap->running), 1);
      }
    }
  }
  void* p = realloc(ptr, nsize);
  if (p == nullptr) return nullptr;
  heap->used = heap->used - osize + nsize;
  return p;
}

size_t ScriptHeapLimit(const LuaHeap& heap, uint64_t maxmemory, uint64_t used_memory) {
  if (maxmemory == 0) return SIZE_MAX;
  // In 64 bits: maxmemory may pass a 32-bit size_t.
  uint64_t room = maxmemory > used_memory ? maxmemory - used_memory : 0;
  uint64_t limit = heap.used + room + kScriptHeapMargin;
  return limit > SIZE_MAX || limit < room ? SIZE_MAX : static_cast<size_t>(limit);
}

int LoadChunk(lua_State* L, std::string_view code, const char* chunkname) {
  // Stock Lua's lexer computes long-bracket offsets and line numbers in int: a 2 GiB source
  // reads outside its buffer (CVE-2025-46819). Nothing near that size is compiled.
  if (code.size() > kMaxChunkBytes) {
    lua_pushfstring(L, "source too large to compile (over %d bytes)",
                    static_cast<int>(kMaxChunkBytes));
    return LUA_ERRSYNTAX;
  }
  // Stock Lua's parser makes the chunk name a string without anchoring it; one equal string
  // already on the stack is the one it finds, so a collection during parsing cannot free it.
  lua_pushstring(L, chunkname);
  // A chunk starting with Lua's signature byte would go to the undumper; with a space before
  // that byte the parser reads it and fails on it, as Valkey's parser-only Lua does.
  static const char kRefused[] = " " LUA_SIGNATURE;
  ChunkText text{code.data(), code.size()};
  if (!code.empty() && code[0] == LUA_SIGNATURE[0]) text = ChunkText{kRefused, 2};
  int rc = lua_load(L, ReadChunk, &text, chunkname);
  lua_remove(L, -2);
  return rc;
}

void HardenBaseLibrary(lua_State* L, void (*make_view)(lua_State*)) {
  if (LuaHeap* heap = HeapOf(L)) heap->running = L;
  lua_getglobal(L, "coroutine");
  lua_getfield(L, -1, "resume");
  lua_pushcclosure(L, TrackedResume, 1);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "resume");
  lua_getfield(L, -2, "create");
  lua_insert(L, -2);
  lua_pushcclosure(L, TrackedWrap, 2);
  lua_setfield(L, -2, "wrap");
  lua_pop(L, 1);
  lua_pushcfunction(L, CheckedLoadString);
  lua_setglobal(L, "loadstring");
  lua_pushcfunction(L, CheckedLoad);
  lua_setglobal(L, "load");
  lua_pushcfunction(L, CheckedUnpack);
  lua_setglobal(L, "unpack");
  lua_getglobal(L, "string");
  SetPatternFunctions(L);
  lua_pop(L, 1);
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "insert");
  lua_pushcclosure(L, CheckedInsert, 1);
  lua_setfield(L, -2, "insert");
  lua_pop(L, 1);
  // getmetatable('') answers the metatable's __metatable field: a read-only view, so no script
  // can change how strings index (CVE-2025-46818), while the VM still reads the real table.
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_pushvalue(L, -1);
  make_view(L);
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 2);
}

void HardenCjson(lua_State* L) {
  WrapField(L, "encode", CheckedEncode);
  WrapField(L, "decode", CheckedDecode);
  WrapField(L, "new", CheckedNew);
}

void SetMaxJsonBytesForTests(size_t bytes) { g_max_json_bytes = bytes; }

}  // namespace vireo
