#include "scripting/functions.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <lua.hpp>

#include "common/clock.h"
#include "common/glob.h"
#include "common/numbers.h"
#include "scripting/lua_env.h"
#include "scripting/lua_hardening.h"
#include "scripting/script_engine.h"

namespace vireo {
namespace {

constexpr int64_t kLoadTimeoutUs = 500 * 1000;  // as Redis: library code must return quickly
int64_t g_load_start_us = 0;

constexpr int kLoadHookInstructions = 100000;

void LoadTimeoutHook(lua_State* L, lua_Debug*) {
  if (MonotonicUs() - g_load_start_us > kLoadTimeoutUs) RaiseErrorTable(L, "FUNCTION LOAD timeout");
  // Heavy allocation brings the hook forward (LuaHeapAlloc); then it goes back to its pace.
  if (lua_gethookcount(L) != kLoadHookInstructions) {
    lua_sethook(L, LoadTimeoutHook, LUA_MASKCOUNT, kLoadHookInstructions);
  }
}

bool ValidName(std::string_view name) {
  if (name.empty()) return false;
  for (char ch : name) {
    if (!isalnum(static_cast<unsigned char>(ch)) && ch != '_') return false;
  }
  return true;
}

constexpr const char* kBadName =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least "
    "one character long";

// `#!lua name=<lib>`: "" with *name, or the error text (without "ERR ").
std::string ParseLibraryHeader(std::string_view code, std::string* name) {
  if (code.substr(0, 2) != "#!") return "Missing library metadata";
  size_t eol = code.find('\n');
  if (eol == std::string_view::npos) return "Invalid library metadata";
  std::string_view line = code.substr(0, eol);
  std::vector<std::string_view> parts = ShebangWords(line);
  bool have_name = false;
  for (size_t p = 1; p < parts.size(); ++p) {
    if (parts[p].substr(0, 5) != "name=") {
      return "Invalid metadata value given: " + std::string(parts[p]);
    }
    *name = std::string(parts[p].substr(5));
    have_name = true;
  }
  std::string engine(parts[0].substr(2));
  for (char& ch : engine) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
  if (engine != "lua") return "Engine '" + std::string(parts[0].substr(2)) + "' not found";
  if (!have_name) return "Library name was not given";
  return "";
}

// The library environment's __index while loading: only `redis` (and `server`) exist.
int LoadingIndex(lua_State* L) {
  const char* k = lua_tostring(L, 2);
  if (k != nullptr && (strcmp(k, "redis") == 0 || strcmp(k, "server") == 0)) {
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
  }
  return LuaMissingName(L);
}

}  // namespace

FunctionLibraries::FunctionLibraries(ScriptEngine& engine, lua_State* L) : engine_(engine), L_(L) {
  // The restricted redis table: register_function, log and the constants.
  lua_newtable(L_);
  lua_pushlightuserdata(L_, this);
  lua_pushcclosure(L_, &FunctionLibraries::RegisterFunction, 1);
  lua_setfield(L_, -2, "register_function");
  lua_getglobal(L_, "redis");
  for (const char* f : {"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
                        "REDIS_VERSION", "REDIS_VERSION_NUM"}) {
    lua_getfield(L_, -1, f);
    lua_setfield(L_, -3, f);
  }
  lua_pop(L_, 1);
  lua_newtable(L_);
  lua_pushcfunction(L_, LuaMissingName);
  lua_setfield(L_, -2, "__index");
  lua_pushcfunction(L_, LuaReadonlyWrite);
  lua_setfield(L_, -2, "__newindex");
  lua_setmetatable(L_, -2);
  load_api_ref_ = luaL_ref(L_, LUA_REGISTRYINDEX);
}

FunctionLibraries::~FunctionLibraries() = default;  // the Lua state goes with the engine

size_t FunctionLibraries::CodeBytes() const {
  size_t n = 0;
  for (const auto& [name, lib] : libs_) n += lib.code.size();
  return n;
}

void FunctionLibraries::Release(FunctionLibrary& lib) {
  for (LuaFunction& f : lib.functions) luaL_unref(L_, LUA_REGISTRYINDEX, f.ref);
  lib.functions.clear();
}

bool FunctionLibraries::Load(std::string_view code, bool replace, std::string* out) {
  std::string name;
  std::string err = ParseLibraryHeader(code, &name);
  if (!err.empty()) {
    *out = "ERR " + err;
    return false;
  }
  if (!ValidName(name)) {
    *out = std::string("ERR ") + kBadName;
    return false;
  }
  auto existing = libs_.find(name);
  if (existing != libs_.end() && !replace) {
    *out = "ERR Library '" + name + "' already exists";
    return false;
  }
  std::string source(code);
  source[0] = '-';  // the header line becomes a comment, so line numbers stay
  source[1] = '-';
  if (LoadChunk(L_, source, "@user_function") != 0) {
    const char* msg = lua_tostring(L_, -1);
    *out = std::string("ERR Error compiling function: ") + (msg == nullptr ? "" : msg);
    lua_pop(L_, 1);
    return false;
  }
  // The library's environment: only the restricted redis while loading; afterwards (for the
  // functions and the helpers they call) the script globals.
  lua_newtable(L_);  // env
  lua_newtable(L_);  // its metatable
  lua_rawgeti(L_, LUA_REGISTRYINDEX, load_api_ref_);
  lua_pushcclosure(L_, LoadingIndex, 1);
  lua_setfield(L_, -2, "__index");
  lua_pushcfunction(L_, LuaReadonlyWrite);
  lua_setfield(L_, -2, "__newindex");
  lua_pushvalue(L_, -1);
  lua_setmetatable(L_, -3);  // stack: chunk, env, meta
  lua_pushvalue(L_, -2);
  lua_setfenv(L_, -4);  // chunk's env
  lua_insert(L_, -3);   // meta, chunk, env
  lua_pop(L_, 1);       // meta, chunk
  PushErrorHandler(L_);
  lua_insert(L_, -2);  // meta, handler, chunk

  FunctionLibrary lib;
  lib.name = name;
  lib.code = std::string(code);
  loading_ = &lib;
  g_load_start_us = MonotonicUs();
  lua_sethook(L_, LoadTimeoutHook, LUA_MASKCOUNT, kLoadHookInstructions);
  engine_.LimitHeap();
  int rc = lua_pcall(L_, 0, 0, -2);
  lua_sethook(L_, nullptr, 0, 0);
  engine_.UnlimitHeap(rc == LUA_ERRMEM);
  loading_ = nullptr;
  if (rc != 0) {
    std::string msg = rc == LUA_ERRMEM ? "not enough memory" : "ERR unknown error";
    if (lua_istable(L_, -1)) {
      lua_getfield(L_, -1, "err");
      if (lua_isstring(L_, -1)) msg = lua_tostring(L_, -1);
      lua_pop(L_, 1);
    }
    lua_pop(L_, 3);  // error, handler, meta
    Release(lib);
    *out = "ERR Error registering functions: " + msg;
    return false;
  }
  lua_pop(L_, 1);  // handler
  // From now on the library sees the script globals directly (a table __index, no C call).
  lua_pushvalue(L_, LUA_GLOBALSINDEX);
  lua_setfield(L_, -2, "__index");
  lua_pop(L_, 1);
  if (lib.functions.empty()) {
    *out = "ERR No functions registered";
    return false;
  }
  for (const LuaFunction& f : lib.functions) {
    auto it = fns_.find(f.name);
    if (it != fns_.end() &&
        (existing == libs_.end() ||
         std::none_of(existing->second.functions.begin(), existing->second.functions.end(),
                      [&](const LuaFunction& g) { return EqualsIgnoreCase(g.name, f.name); }))) {
      Release(lib);
      *out = "ERR Function " + f.name + " already exists";
      return false;
    }
  }
  if (existing != libs_.end()) Delete(name);
  auto [pos, inserted] = libs_.emplace(name, std::move(lib));
  for (const LuaFunction& f : pos->second.functions) fns_[f.name] = &f;
  *out = name;
  return true;
}

int FunctionLibraries::RegisterFunction(lua_State* L) {
  return static_cast<FunctionLibraries*>(lua_touserdata(L, lua_upvalueindex(1)))->Register(L);
}

// server.register_function(name, callback) or server.register_function{function_name=...,
// callback=..., flags={...}, description=...}. Errors longjmp: only plain locals until the
// arguments are validated.
int FunctionLibraries::Register(lua_State* L) {
  if (loading_ == nullptr) {
    RaiseErrorTable(L, "server.register_function can only be called on FUNCTION LOAD command");
  }
  const char* name = nullptr;
  const char* description = nullptr;
  uint32_t flags = 0;
  int callback_idx = 0;
  const int argc = lua_gettop(L);
  if (argc == 1) {
    if (!lua_istable(L, 1)) {
      RaiseErrorTable(L,
                      "calling server.register_function with a single argument is only "
                      "applicable to Lua table (representing named arguments).");
    }
    lua_pushnil(L);
    while (lua_next(L, 1) != 0) {
      const char* key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
      if (strcmp(key, "function_name") == 0) {
        if (!lua_isstring(L, -1)) {
          RaiseErrorTable(
              L, "function_name argument given to server.register_function must be a string");
        }
        name = lua_tostring(L, -1);
      } else if (strcmp(key, "description") == 0) {
        if (!lua_isstring(L, -1)) {
          RaiseErrorTable(
              L, "description argument given to server.register_function must be a string");
        }
        description = lua_tostring(L, -1);
      } else if (strcmp(key, "callback") == 0) {
        if (!lua_isfunction(L, -1)) {
          RaiseErrorTable(
              L, "callback argument given to server.register_function must be a function");
        }
      } else if (strcmp(key, "flags") == 0) {
        if (!lua_istable(L, -1)) {
          RaiseErrorTable(L,
                          "flags argument to server.register_function must be a table representing "
                          "function flags");
        }
        for (int j = 1;; ++j) {
          lua_rawgeti(L, -1, j);
          if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
          }
          uint32_t flag;
          const char* s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
          if (!ParseScriptFlag(s, &flag)) RaiseErrorTable(L, "unknown flag given");
          flags |= flag;
          lua_pop(L, 1);
        }
      } else {
        RaiseErrorTable(L, "unknown argument given to server.register_function");
      }
      lua_pop(L, 1);
    }
    if (name == nullptr)
      RaiseErrorTable(L, "server.register_function must get a function name argument");
    lua_getfield(L, 1, "callback");
    if (lua_isnil(L, -1))
      RaiseErrorTable(L, "server.register_function must get a callback argument");
    callback_idx = lua_gettop(L);
  } else if (argc == 2) {
    if (!lua_isstring(L, 1)) {
      RaiseErrorTable(L, "first argument to server.register_function must be a string");
    }
    if (!lua_isfunction(L, 2)) {
      RaiseErrorTable(L, "second argument to server.register_function must be a function");
    }
    name = lua_tostring(L, 1);
    callback_idx = 2;
  } else {
    RaiseErrorTable(L, "wrong number of arguments to server.register_function");
  }
  if (!ValidName(name)) RaiseErrorTable(L, kBadName);
  for (const LuaFunction& g : loading_->functions) {
    if (g.name == name) RaiseErrorTable(L, "Function already exists in the library");
  }
  lua_pushvalue(L, callback_idx);
  int ref = luaL_ref(L, LUA_REGISTRYINDEX);
  LuaFunction& f = loading_->functions.emplace_back();
  f.name = name;
  f.has_description = description != nullptr;
  if (description != nullptr) f.description = description;
  f.flags = flags;
  f.ref = ref;
  return 0;
}

bool FunctionLibraries::NoCaseLess::operator()(std::string_view a, std::string_view b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return tolower(static_cast<unsigned char>(x)) < tolower(static_cast<unsigned char>(y));
  });
}

bool FunctionLibraries::Delete(std::string_view name) {
  auto it = libs_.find(name);
  if (it == libs_.end()) return false;
  for (const LuaFunction& f : it->second.functions) {
    auto fi = fns_.find(f.name);
    if (fi != fns_.end()) fns_.erase(fi);
  }
  Release(it->second);
  libs_.erase(it);
  return true;
}

void FunctionLibraries::Flush() {
  for (auto& [name, lib] : libs_) Release(lib);
  libs_.clear();
  fns_.clear();
  lua_gc(L_, LUA_GCCOLLECT, 0);
}

const LuaFunction* FunctionLibraries::Find(std::string_view name) const {
  auto it = fns_.find(name);
  return it == fns_.end() ? nullptr : it->second;
}

void FunctionLibraries::List(ReplyBuilder& reply, std::string_view pattern, bool with_code) const {
  size_t n = 0;
  for (const auto& [name, lib] : libs_) {
    if (pattern.empty() || GlobMatch(pattern, name, false)) ++n;
  }
  reply.Array(n);
  for (const auto& [name, lib] : libs_) {
    if (!pattern.empty() && !GlobMatch(pattern, name, false)) continue;
    reply.Map(with_code ? 4 : 3);
    reply.Bulk("library_name");
    reply.Bulk(name);
    reply.Bulk("engine");
    reply.Bulk("LUA");
    reply.Bulk("functions");
    reply.Array(lib.functions.size());
    for (const LuaFunction& f : lib.functions) {
      reply.Map(3);
      reply.Bulk("name");
      reply.Bulk(f.name);
      reply.Bulk("description");
      if (f.has_description) {
        reply.Bulk(f.description);
      } else {
        reply.Null();
      }
      reply.Bulk("flags");
      std::vector<const char*> names;
      for (const char* flag :
           {"no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys"}) {
        uint32_t bit;
        ParseScriptFlag(flag, &bit);
        if (f.flags & bit) names.push_back(flag);
      }
      reply.Set(names.size());
      for (const char* flag : names) reply.Simple(flag);
    }
    if (with_code) {
      reply.Bulk("library_code");
      reply.Bulk(lib.code);
    }
  }
}

std::vector<std::string> FunctionLibraries::Codes() const {
  std::vector<std::string> codes;
  for (const auto& [name, lib] : libs_) codes.push_back(lib.code);
  return codes;
}

bool FunctionLibraries::Restore(const std::vector<std::string>& codes, std::string_view policy,
                                std::string* error) {
  bool ok = true;
  // All or nothing: on any failure the libraries are as before.
  std::vector<std::string> saved;
  for (const auto& [name, lib] : libs_) saved.push_back(lib.code);
  if (policy == "flush") Flush();
  std::string out;
  std::vector<std::string> restored;  // names from the payload so far
  for (const std::string& code : codes) {
    std::string name;
    ParseLibraryHeader(code, &name);
    // Valkey's two texts: a name repeated inside the payload fails like FUNCTION LOAD (quoted),
    // a clash with a library already there has its own message.
    bool repeated = std::find(restored.begin(), restored.end(), name) != restored.end();
    if (repeated || (policy == "append" && libs_.count(name) != 0)) {
      *error = repeated ? "ERR Library '" + name + "' already exists"
                        : "ERR Library " + name + " already exists";
      ok = false;
      break;
    }
    restored.push_back(name);
    if (!Load(code, true, &out)) {
      *error = out;
      ok = false;
      break;
    }
  }
  if (!ok) {
    Flush();
    for (const std::string& code : saved) Load(code, true, &out);
  }
  return ok;
}

}  // namespace vireo
