#include "scripting/lua_env.h"

#include <openssl/evp.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <lua.hpp>
#include <string>

#include "commands/registry.h"
#include "common/log.h"
#include "scripting/lua_hardening.h"
#include "scripting/lua_libs.h"
#include "scripting/lua_reply.h"

extern "C" {
int luaopen_cjson(lua_State* L);
}

namespace vireo {
namespace {

// Registry keys (addresses unique to this file).
char kRealGlobalsKey;
char kProtectedMetaKey;

constexpr const char* kReadonly = "Attempt to modify a readonly table";

int ReadonlyNewIndex(lua_State* L) { return luaL_error(L, "%s", kReadonly); }

int MissingGlobal(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                    name == nullptr ? "?" : name);
}

// True when the value at idx is one of the read-only views.
bool IsProtected(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  lua_getfield(L, -1, "__vireo_protected");
  bool p = lua_toboolean(L, -1) != 0;
  lua_pop(L, 2);
  return p;
}

// rawset and setmetatable refuse the read-only views (as Redis's patched Lua does).
int GuardedRawset(lua_State* L) {
  if (IsProtected(L, 1)) {
    lua_pushstring(L, kReadonly);
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// next/pairs see through a view to its table, so iterating `redis` or `string` works.
void Unwrap(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE || !IsProtected(L, idx)) return;
  lua_getmetatable(L, idx);
  lua_getfield(L, -1, "__index");
  lua_replace(L, idx);
  lua_pop(L, 1);
}

int ViewNext(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  Unwrap(L, 1);
  lua_settop(L, 2);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

// pcall that hands error tables ({err=...}, as redis.call raises) back as their message
// string, as Redis 7.0 does.
int Pcall(lua_State* L) {
  luaL_checkany(L, 1);
  int argc = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) == 0) return lua_gettop(L);
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "err");
    if (lua_isstring(L, -1)) {
      lua_replace(L, -2);
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pushboolean(L, 0);
  lua_replace(L, 1);
  lua_settop(L, 2);
  return 2;
}

int ViewPairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));  // next
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// Replaces the table at the top of the stack with a read-only view of it.
void MakeView(lua_State* L) {
  lua_newtable(L);  // view
  lua_newtable(L);  // its metatable
  lua_pushvalue(L, -3);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, ReadonlyNewIndex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 1);
  lua_setfield(L, -2, "__vireo_protected");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_remove(L, -2);
}

void SetNumber(lua_State* L, const char* name, int v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, name);
}

// redis.error_reply(msg): {err=msg}, the leading '-' dropped.
int ErrorReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
    PushErrorTable(L, "wrong number or type of arguments");
    return 1;
  }
  size_t len;
  const char* s = lua_tolstring(L, 1, &len);
  std::string_view msg(s, len);
  if (!msg.empty() && msg[0] == '-') {
    PushErrorTable(L, msg);
  } else {
    PushErrorTable(L, "-" + std::string(msg));
  }
  return 1;
}

// redis.status_reply(msg): {ok=msg}.
int StatusReply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, 1) != LUA_TSTRING) {
    PushErrorTable(L, "wrong number or type of arguments");
    return 1;
  }
  lua_createtable(L, 0, 1);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "ok");
  return 1;
}

int Sha1HexFn(lua_State* L) {
  if (lua_gettop(L) != 1) RaiseErrorTable(L, "wrong number of arguments");
  size_t len;
  const char* s = lua_tolstring(L, 1, &len);
  char hex[41];
  Sha1Hex(s == nullptr ? std::string_view() : std::string_view(s, len), hex);
  lua_pushlstring(L, hex, 40);
  return 1;
}

// redis.log(level, ...): the arguments joined by spaces, at that level.
int Log(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc < 2) RaiseErrorTable(L, "server.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) RaiseErrorTable(L, "First argument must be a number (log level).");
  int level = NumberToInt(lua_tonumber(L, 1));
  if (level < 0 || level > 3) RaiseErrorTable(L, "Invalid log level.");  // Valkey 8's text
  std::string msg;
  for (int i = 2; i <= argc; ++i) {
    size_t len;
    const char* s = lua_tolstring(L, i, &len);
    if (s == nullptr) continue;
    if (i > 2) msg.push_back(' ');
    msg.append(s, len);
  }
  LogAt(static_cast<LogLevel>(level), "%s", msg.c_str());
  return 0;
}

int ReplicateCommands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

int Breakpoint(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}

int DebugFn(lua_State*) { return 0; }

// os.clock(): the process's CPU seconds, as Lua's own.
int OsClock(lua_State* L) {
  lua_pushnumber(L, static_cast<lua_Number>(clock()) / static_cast<lua_Number>(CLOCKS_PER_SEC));
  return 1;
}

// An error outside any protected call: nothing sensible remains but to stop, loudly.
int Panic(lua_State* L) {
  const char* msg = lua_tostring(L, -1);
  LogWarning("Lua panic (unprotected error in call to Lua API): %s", msg ? msg : "?");
  abort();
}

// The error handler: see PushErrorHandler.
int ErrorHandler(lua_State* L) {
  lua_Debug ar;
  bool have = lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar);
  // Raised by a C function (error, redis.call): the script line is one level further.
  if (have && strcmp(ar.what, "C") == 0)
    have = lua_getstack(L, 2, &ar) && lua_getinfo(L, "Sl", &ar);
  lua_settop(L, 1);
  if (lua_type(L, 1) != LUA_TTABLE) {
    std::string msg = "ERR ";
    switch (lua_type(L, 1)) {
      case LUA_TSTRING:
      case LUA_TNUMBER: {
        size_t len;
        const char* s = lua_tolstring(L, 1, &len);
        msg.append(s, len);
        break;
      }
      case LUA_TNIL:
        msg += "nil";
        break;
      case LUA_TBOOLEAN:
        msg += lua_toboolean(L, 1) ? "true" : "false";
        break;
      default: {
        char buf[64];
        snprintf(buf, sizeof(buf), "%s: %p", luaL_typename(L, 1), lua_topointer(L, 1));
        msg += buf;
      }
    }
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, msg.data(), msg.size());
    lua_setfield(L, -2, "err");
    lua_replace(L, 1);
  }
  if (have) {
    lua_pushstring(L, ar.source);
    lua_setfield(L, 1, "source");
    lua_pushnumber(L, ar.currentline);
    lua_setfield(L, 1, "line");
  }
  return 1;
}

void RemoveGlobal(lua_State* L, const char* name) {
  lua_pushnil(L);
  lua_setglobal(L, name);
}

}  // namespace

int LuaMissingName(lua_State* L) { return MissingGlobal(L); }

int NumberToInt(double n) {
  if (!(n > -2147483649.0 && n < 2147483648.0)) return INT_MIN;
  return static_cast<int>(n);
}
int LuaReadonlyWrite(lua_State* L) { return ReadonlyNewIndex(L); }

void Sha1Hex(std::string_view s, char* out) {
  // One reused context: OpenSSL 3's one-shot SHA1() fetches the algorithm every call.
  static EVP_MD* md = EVP_MD_fetch(nullptr, "SHA1", nullptr);
  static EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_DigestInit_ex(ctx, md, nullptr);
  EVP_DigestUpdate(ctx, s.data(), s.size());
  EVP_DigestFinal_ex(ctx, digest, &n);
  static const char kHex[] = "0123456789abcdef";
  for (unsigned int i = 0; i < 20; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 15];
  }
  out[40] = '\0';
}

void PushErrorTable(lua_State* L, std::string_view msg) {
  lua_createtable(L, 0, 3);
  // "-CODE message" keeps its code; a bare "-message" gets ERR, like a plain message.
  if (!msg.empty() && msg[0] == '-' && msg.find(' ') != std::string_view::npos) {
    lua_pushlstring(L, msg.data() + 1, msg.size() - 1);
  } else {
    if (!msg.empty() && msg[0] == '-') msg.remove_prefix(1);
    std::string m = "ERR ";
    m.append(msg);
    lua_pushlstring(L, m.data(), m.size());
  }
  lua_setfield(L, -2, "err");
}

void RaiseErrorTable(lua_State* L, std::string_view msg) {
  PushErrorTable(L, msg);
  lua_error(L);
  __builtin_unreachable();
}

void PushErrorHandler(lua_State* L) { lua_pushcfunction(L, ErrorHandler); }

void SetScriptGlobal(lua_State* L, const char* name) {
  lua_pushlightuserdata(L, &kRealGlobalsKey);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_insert(L, -2);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}

lua_State* NewScriptState(const LuaEngineFunction* engine_fns, void* engine,
                          std::string_view version, LuaHeap* heap) {
  lua_State* L = lua_newstate(LuaHeapAlloc, heap);
  if (L == nullptr) return nullptr;
  lua_atpanic(L, Panic);
  const struct {
    const char* name;
    lua_CFunction open;
  } libs[] = {{"", luaopen_base},
              {LUA_TABLIBNAME, luaopen_table},
              {LUA_STRLIBNAME, luaopen_string},
              {LUA_MATHLIBNAME, luaopen_math},
              {"cjson", luaopen_cjson},
              {"bit", OpenBitLib},
              {"cmsgpack", OpenCmsgpackLib},
              {"struct", OpenStructLib}};
  for (const auto& lib : libs) {
    lua_pushcfunction(L, lib.open);
    lua_pushstring(L, lib.name);
    lua_call(L, 1, 1);
    // cjson returns its table without setting a global.
    if (strcmp(lib.name, "cjson") == 0) {
      HardenCjson(L);
      lua_setglobal(L, "cjson");
    } else {
      lua_pop(L, 1);
    }
  }
  HardenBaseLibrary(L, MakeView);
  // os: only clock, as in Valkey.
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, OsClock);
  lua_setfield(L, -2, "clock");
  lua_setglobal(L, "os");
  for (const char* name : {"print", "dofile", "loadfile", "getfenv", "setfenv", "newproxy"}) {
    RemoveGlobal(L, name);
  }
  // next/pairs/rawset that understand the views.
  lua_pushcfunction(L, ViewNext);
  lua_pushvalue(L, -1);
  lua_setglobal(L, "next");
  lua_pushcclosure(L, ViewPairs, 1);
  lua_setglobal(L, "pairs");
  lua_pushcfunction(L, Pcall);
  lua_setglobal(L, "pcall");
  // Redis 7.0 exposes its error handler under this name; scripts can see it.
  lua_pushcfunction(L, ErrorHandler);
  lua_setglobal(L, "__redis__err__handler");
  lua_getglobal(L, "rawset");
  lua_pushcclosure(L, GuardedRawset, 1);
  lua_setglobal(L, "rawset");
  lua_getglobal(L, "setmetatable");
  lua_pushcclosure(L, GuardedRawset, 1);
  lua_setglobal(L, "setmetatable");

  // The redis table.
  lua_newtable(L);
  const luaL_Reg plain[] = {{"error_reply", ErrorReply},
                            {"status_reply", StatusReply},
                            {"sha1hex", Sha1HexFn},
                            {"log", Log},
                            {"replicate_commands", ReplicateCommands},
                            {"breakpoint", Breakpoint},
                            {"debug", DebugFn},
                            {nullptr, nullptr}};
  for (const luaL_Reg* r = plain; r->name != nullptr; ++r) {
    lua_pushcfunction(L, r->func);
    lua_setfield(L, -2, r->name);
  }
  for (const LuaEngineFunction* f = engine_fns; f->name != nullptr; ++f) {
    lua_pushlightuserdata(L, engine);
    lua_pushcclosure(L, f->fn, 1);
    lua_setfield(L, -2, f->name);
  }
  SetNumber(L, "LOG_DEBUG", 0);
  SetNumber(L, "LOG_VERBOSE", 1);
  SetNumber(L, "LOG_NOTICE", 2);
  SetNumber(L, "LOG_WARNING", 3);
  SetNumber(L, "REPL_NONE", 0);
  SetNumber(L, "REPL_AOF", 1);
  SetNumber(L, "REPL_SLAVE", 2);
  SetNumber(L, "REPL_REPLICA", 2);
  SetNumber(L, "REPL_ALL", 3);
  std::string v(version);
  lua_pushlstring(L, v.data(), v.size());
  lua_setfield(L, -2, "REDIS_VERSION");
  int major = 0, minor = 0, patch = 0;
  sscanf(v.c_str(), "%d.%d.%d", &major, &minor, &patch);
  SetNumber(L, "REDIS_VERSION_NUM", (major << 16) | (minor << 8) | patch);
  // Valkey 8's names: the server and the Valkey release whose behaviour Vireo follows.
  lua_pushliteral(L, "valkey");
  lua_setfield(L, -2, "SERVER_NAME");
  lua_pushstring(L, kValkeyCompatVersion);
  lua_setfield(L, -2, "VALKEY_VERSION");
  sscanf(kValkeyCompatVersion, "%d.%d.%d", &major, &minor, &patch);
  SetNumber(L, "VALKEY_VERSION_NUM", (major << 16) | (minor << 8) | patch);
  lua_setglobal(L, "redis");

  // Library tables become read-only views; `server` is the same view as `redis`.
  for (const char* name : {"string", "table", "math", "os", "coroutine", "cjson", "bit", "cmsgpack",
                           "struct", "redis"}) {
    lua_getglobal(L, name);
    MakeView(L);
    if (strcmp(name, "redis") == 0) {
      lua_pushvalue(L, -1);
      lua_setglobal(L, "server");
    }
    lua_setglobal(L, name);
  }
  // Method calls on strings go through the view too.
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  lua_getglobal(L, "string");
  lua_setfield(L, -2, "__index");
  lua_pop(L, 2);

  // The globals: real table G (with a metatable that refuses missing names) behind a view
  // that becomes the thread's globals, so every function compiled from now on (scripts,
  // loadstring) reads through it and cannot write.
  lua_pushvalue(L, LUA_GLOBALSINDEX);  // G
  lua_pushlightuserdata(L, &kRealGlobalsKey);
  lua_pushvalue(L, -2);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  lua_pushcfunction(L, MissingGlobal);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  MakeView(L);  // G, view
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "_G");  // G._G = view
  lua_replace(L, LUA_GLOBALSINDEX);
  lua_pop(L, 1);
  lua_pushlightuserdata(L, &kProtectedMetaKey);
  lua_pushboolean(L, 1);
  lua_rawset(L, LUA_REGISTRYINDEX);
  return L;
}

}  // namespace vireo
