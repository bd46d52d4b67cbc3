// In-process tests of the script libraries of lua_libs.h: a fresh Lua state with the standard
// libraries, cmsgpack, struct and bit, and Eval to run an expression in it, e.g.
// EXPECT_EQ(Eval("bit.tohex(255, 2)"), "ff").
#pragma once

#include <gtest/gtest.h>

#include <lua.hpp>
#include <string>

#include "scripting/lua_libs.h"

namespace vireo {

class LuaLibsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    L = luaL_newstate();
    luaL_openlibs(L);
    OpenCmsgpackLib(L);
    OpenStructLib(L);
    OpenBitLib(L);
    lua_settop(L, 0);
  }
  void TearDown() override { lua_close(L); }

  // Runs `return <expr>` in a chunk named as EVAL names scripts (errors read "user_script:1:
  // ..."); returns its first value as lua_tolstring gives it ("?" for one that is neither a
  // string nor a number), or "error: <message>".
  std::string Eval(const std::string& expr) {
    std::string code = "return " + expr;
    std::string r;
    if (luaL_loadbuffer(L, code.data(), code.size(), "=user_script") != 0 ||
        lua_pcall(L, 0, 1, 0) != 0) {
      r = "error: ";
    }
    size_t len = 0;
    const char* s = lua_tolstring(L, -1, &len);
    r.append(s == nullptr ? "?" : std::string(s, len));
    lua_settop(L, 0);
    return r;
  }

  lua_State* L = nullptr;
};

}  // namespace vireo
