// Function libraries (FUNCTION LOAD ... / FCALL): `#!lua name=<lib>` code whose top level
// registers functions with redis.register_function. Loading runs the code in an environment
// holding only a restricted `redis` (register_function, log, constants), as Redis 7.0 does;
// the functions then run with the normal script globals.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_builder.h"

struct lua_State;

namespace vireo {

class ScriptEngine;

struct LuaFunction {
  std::string name;
  std::string description;
  bool has_description = false;
  uint32_t flags = 0;  // ScriptFlag bits
  int ref = 0;         // the callback, in the Lua registry
};

struct FunctionLibrary {
  std::string name;
  std::string code;
  std::vector<LuaFunction> functions;
};

class FunctionLibraries {
 public:
  FunctionLibraries(ScriptEngine& engine, lua_State* L);
  ~FunctionLibraries();

  // FUNCTION LOAD: true with the library name in *out, or false with the error reply text.
  bool Load(std::string_view code, bool replace, std::string* out);
  bool Delete(std::string_view name);
  void Flush();
  const LuaFunction* Find(std::string_view name) const;
  // FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE] (pattern "" = all).
  void List(ReplyBuilder& reply, std::string_view pattern, bool with_code) const;
  // Every library's code (FUNCTION DUMP and RDB files serialize these).
  std::vector<std::string> Codes() const;
  // FUNCTION RESTORE: loads the codes all or nothing; policy "append", "replace" or "flush".
  bool Restore(const std::vector<std::string>& codes, std::string_view policy,
               std::string* error);

  size_t LibraryCount() const { return libs_.size(); }
  size_t FunctionCount() const { return fns_.size(); }
  size_t CodeBytes() const;

 private:
  static int RegisterFunction(lua_State* L);
  int Register(lua_State* L);
  void Release(FunctionLibrary& lib);

  ScriptEngine& engine_;
  lua_State* L_;
  int load_api_ref_ = 0;  // the restricted redis table libraries see while loading
  std::map<std::string, FunctionLibrary, std::less<>> libs_;
  // FCALL finds a function whatever the case of its name, as in Valkey (library names and
  // names within one library compare exactly).
  struct NoCaseLess {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const;
  };
  std::map<std::string, const LuaFunction*, NoCaseLess> fns_;
  FunctionLibrary* loading_ = nullptr;  // the library whose code is running
};

}  // namespace vireo
