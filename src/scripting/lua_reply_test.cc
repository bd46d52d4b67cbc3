#include "scripting/lua_reply.h"

#include <gtest/gtest.h>

#include <lua.hpp>
#include <string>

namespace vireo {
namespace {

class LuaReplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    L = luaL_newstate();
    luaL_openlibs(L);
  }
  void TearDown() override { lua_close(L); }

  // Runs `return <expr>` and converts the value to RESP.
  std::string ToResp(const std::string& expr, bool client_resp3 = false,
                     bool script_resp3 = false) {
    std::string code = "return " + expr;
    EXPECT_EQ(luaL_dostring(L, code.c_str()), 0) << lua_tostring(L, -1);
    std::string out;
    ReplyBuilder rb(&out);
    rb.SetResp3(client_resp3);
    LuaToReply(L, -1, rb, script_resp3);
    lua_settop(L, 0);
    return out;
  }

  // Parses resp into a Lua value, then has Lua describe it with `describe` (a function body
  // over `v`).
  std::string FromResp(const std::string& resp, const std::string& describe) {
    EXPECT_EQ(PushReplyAsLua(L, resp.data(), resp.size()), resp.size());
    std::string code = "return function(v) " + describe + " end";
    luaL_dostring(L, code.c_str());
    lua_insert(L, -2);
    EXPECT_EQ(lua_pcall(L, 1, 1, 0), 0) << lua_tostring(L, -1);
    std::string r = lua_isstring(L, -1) ? lua_tostring(L, -1) : "?";
    lua_settop(L, 0);
    return r;
  }

  lua_State* L = nullptr;
};

TEST_F(LuaReplyTest, NumbersAreTruncatedToIntegers) {
  EXPECT_EQ(ToResp("3.99"), ":3\r\n");
  EXPECT_EQ(ToResp("-3.99"), ":-3\r\n");
  EXPECT_EQ(ToResp("-0.5"), ":0\r\n");
  EXPECT_EQ(ToResp("1e20"), ":-9223372036854775808\r\n");
}

TEST_F(LuaReplyTest, ScalarsAndNil) {
  EXPECT_EQ(ToResp("'abc'"), "$3\r\nabc\r\n");
  EXPECT_EQ(ToResp("nil"), "$-1\r\n");
  EXPECT_EQ(ToResp("nil", true), "_\r\n");
  EXPECT_EQ(ToResp("true"), ":1\r\n");
  EXPECT_EQ(ToResp("false"), "$-1\r\n");
  // After redis.setresp(3) booleans are booleans (RESP2 clients see 1 and 0).
  EXPECT_EQ(ToResp("false", false, true), ":0\r\n");
  EXPECT_EQ(ToResp("true", true, true), "#t\r\n");
}

TEST_F(LuaReplyTest, ArraysStopAtTheFirstNil) {
  EXPECT_EQ(ToResp("{1, 'a', nil, 4}"), "*2\r\n:1\r\n$1\r\na\r\n");
  EXPECT_EQ(ToResp("{1, 2, x = 3}"), "*2\r\n:1\r\n:2\r\n");
  EXPECT_EQ(ToResp("{x = 3}"), "*0\r\n");
  EXPECT_EQ(ToResp("{{1}, {}}"), "*2\r\n*1\r\n:1\r\n*0\r\n");
}

TEST_F(LuaReplyTest, StatusAndErrorTables) {
  EXPECT_EQ(ToResp("{ok = 'fine'}"), "+fine\r\n");
  EXPECT_EQ(ToResp("{ok = 'a\\r\\nb'}"), "+a  b\r\n");
  EXPECT_EQ(ToResp("{err = 'ERR bad'}"), "-ERR bad\r\n");
  EXPECT_EQ(ToResp("{1, {err = 'x'}}"), "*2\r\n:1\r\n-x\r\n");
  // Fields of the wrong type are ignored: the table is an (empty) array.
  EXPECT_EQ(ToResp("{err = 1}"), "*0\r\n");
}

TEST_F(LuaReplyTest, Resp3TypesDegradeForResp2Clients) {
  EXPECT_EQ(ToResp("{double = 3.5}"), "$3\r\n3.5\r\n");
  EXPECT_EQ(ToResp("{double = 3.5}", true), ",3.5\r\n");
  EXPECT_EQ(ToResp("{big_number = '123'}", true), "(123\r\n");
  EXPECT_EQ(ToResp("{map = {a = 1}}"), "*2\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(ToResp("{map = {a = 1}}", true), "%1\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(ToResp("{set = {a = true}}", true), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(ToResp("{verbatim_string = {format = 'txt', string = 'hi'}}", true),
            "=6\r\ntxt:hi\r\n");
  EXPECT_EQ(ToResp("{verbatim_string = {format = 'txt', string = 'hi'}}"), "$2\r\nhi\r\n");
}

TEST_F(LuaReplyTest, Resp2RepliesBecomeLuaValues) {
  EXPECT_EQ(FromResp(":42\r\n", "return type(v) .. v"), "number42");
  EXPECT_EQ(FromResp("$3\r\nabc\r\n", "return v"), "abc");
  EXPECT_EQ(FromResp("$-1\r\n", "return tostring(v)"), "false");
  EXPECT_EQ(FromResp("*-1\r\n", "return tostring(v)"), "false");
  EXPECT_EQ(FromResp("+OK\r\n", "return v.ok"), "OK");
  EXPECT_EQ(FromResp("-ERR no\r\n", "return v.err"), "ERR no");
  EXPECT_EQ(FromResp("*3\r\n:1\r\n$-1\r\n$1\r\nx\r\n", "return #v .. tostring(v[2]) .. v[3]"),
            "3falsex");
}

TEST_F(LuaReplyTest, Resp3RepliesBecomeLuaValues) {
  EXPECT_EQ(FromResp("%1\r\n$1\r\na\r\n:1\r\n", "return v.map.a"), "1");
  EXPECT_EQ(FromResp("~1\r\n$1\r\nm\r\n", "return tostring(v.set.m)"), "true");
  EXPECT_EQ(FromResp("_\r\n", "return tostring(v)"), "nil");
  EXPECT_EQ(FromResp("#f\r\n", "return tostring(v)"), "false");
  EXPECT_EQ(FromResp(",1.5\r\n", "return v.double"), "1.5");
  EXPECT_EQ(FromResp("(12345678901234567890\r\n", "return v.big_number"), "12345678901234567890");
  EXPECT_EQ(
      FromResp("=6\r\ntxt:hi\r\n", "return v.verbatim_string.format .. v.verbatim_string.string"),
      "txthi");
}

TEST_F(LuaReplyTest, MalformedInputPushesNothing) {
  for (std::string bad : {"", "$3\r\nab", "*2\r\n:1\r\n", "?x\r\n", ":12"}) {
    EXPECT_EQ(PushReplyAsLua(L, bad.data(), bad.size()), 0u) << bad;
    EXPECT_EQ(lua_gettop(L), 0);
  }
}

}  // namespace
}  // namespace vireo
