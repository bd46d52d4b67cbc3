// In-process checks of the bit library: the examples of the LuaBitOp API documentation, then
// edge cases whose expected values are valkey-server 8.0.1's (LuaBitOp with its tohex fix).
#include <initializer_list>
#include <string>
#include <utility>

#include "scripting/lua_libs_fixture.h"

namespace vireo {
namespace {

class LuaBitTest : public LuaLibsTest {
 protected:
  // Each case is {expression, expected text of its value}. Eval shows numbers as tostring
  // does, exactly (a script's EVAL reply would truncate them to integers).
  void ExpectAll(std::initializer_list<std::pair<const char*, const char*>> cases) {
    for (const auto& [expr, want] : cases) EXPECT_EQ(Eval(expr), want) << expr;
  }
};

TEST_F(LuaBitTest, OpenLeavesTheGlobalTableOnTheStack) {
  EXPECT_EQ(OpenBitLib(L), 1);
  EXPECT_TRUE(lua_istable(L, -1));
  lua_getglobal(L, "bit");
  EXPECT_TRUE(lua_rawequal(L, -1, -2));
  lua_settop(L, 0);
}

TEST_F(LuaBitTest, TableHasExactlyTheTwelveFunctions) {
  EXPECT_EQ(Eval("(function() local t = {} for k, v in pairs(bit) do t[#t + 1] = k .. '=' .. "
                 "type(v) end table.sort(t) return table.concat(t, ' ') end)()"),
            "arshift=function band=function bnot=function bor=function bswap=function "
            "bxor=function lshift=function rol=function ror=function rshift=function "
            "tobit=function tohex=function");
}

// Every example of http://bitop.luajit.org/api.html, as equalities the script checks.
TEST_F(LuaBitTest, ApiDocumentationExamples) {
  const char* examples[] = {
      "bit.tobit(0xffffffff) == -1",
      "bit.tobit(0xffffffff + 1) == 0",
      "bit.tobit(2^40 + 1234) == 1234",
      "bit.tohex(1) == '00000001'",
      "bit.tohex(-1) == 'ffffffff'",
      "bit.tohex(0xffffffff) == 'ffffffff'",
      "bit.tohex(-1, -4) == 'FFFF'",
      "bit.tohex(0x21, 4) == '0021'",
      "bit.tohex(0x87654321, 4) == '4321'",
      "bit.bnot(0) == -1",
      "bit.tohex(bit.bnot(0)) == 'ffffffff'",
      "bit.tohex(bit.bnot(0x12345678)) == 'edcba987'",
      "bit.bor(1, 2, 4, 8) == 15",
      "bit.band(0x12345678, 0xff) == 0x78",
      "bit.bxor(0xa5a5f0f0, 0xaa55ff00) == 0x0ff00ff0",
      "bit.tohex(bit.bxor(0xa5a5f0f0, 0xaa55ff00)) == '0ff00ff0'",
      "bit.lshift(1, 0) == 1",
      "bit.lshift(1, 8) == 256",
      "bit.lshift(1, 40) == 256",
      "bit.rshift(256, 8) == 1",
      "bit.rshift(-256, 8) == 16777215",
      "bit.arshift(256, 8) == 1",
      "bit.arshift(-256, 8) == -1",
      "bit.tohex(bit.lshift(0x87654321, 12)) == '54321000'",
      "bit.lshift(0x87654321, 12) == 0x54321000",
      "bit.rshift(0x87654321, 12) == 0x00087654",
      "bit.tohex(bit.arshift(0x87654321, 12)) == 'fff87654'",
      "bit.arshift(0x87654321, 12) == bit.tobit(0xfff87654)",
      "bit.rol(0x12345678, 12) == 0x45678123",
      "bit.ror(0x12345678, 12) == 0x67812345",
      "bit.bswap(0x12345678) == 0x78563412",
      "bit.bswap(0x78563412) == 0x12345678",
  };
  for (const char* example : examples) {
    EXPECT_EQ(Eval(std::string("tostring(") + example + ")"), "true") << example;
  }
}

TEST_F(LuaBitTest, ToBitWrapsLikeLuaBitOp) {
  ExpectAll({
      {"bit.tobit(2147483647)", "2147483647"},
      {"bit.tobit(-2147483648)", "-2147483648"},
      {"bit.tobit(2^31)", "-2147483648"},
      {"bit.tobit(-2^31 - 1)", "2147483647"},
      {"bit.tobit(-0)", "0"},  // never -0
      {"bit.tobit(2^51 - 1)", "-1"},
      {"bit.tobit(-2^51)", "0"},
      // Non-integral: to nearest, ties to even.
      {"bit.tobit(0.5)", "0"},
      {"bit.tobit(1.5)", "2"},
      {"bit.tobit(2.5)", "2"},
      {"bit.tobit(0.5000000001)", "1"},
      {"bit.tobit(-0.5)", "0"},
      {"bit.tobit(-1.5)", "-2"},
      {"bit.tobit(-2.5)", "-2"},
      {"bit.tobit(2147483647.5)", "-2147483648"},
      {"bit.tobit(-2147483648.5)", "-2147483648"},
      {"bit.tobit(4294967295.5)", "0"},
      // Past 2^51 the value is the low bits of x + 2^52 + 2^51, not x modulo 2^32.
      {"bit.tobit(2^51 + 1)", "0"},
      {"bit.tobit(-2^51 - 1)", "-2"},
      {"bit.tobit(2^52 + 3)", "2"},
      {"bit.tobit(2^63)", "0"},
      {"bit.tobit(1e20)", "2025163840"},
      {"bit.tobit(-1e20)", "2025163840"},
      {"bit.tobit(1e300)", "-2013235812"},
      {"bit.tobit(-1e300)", "-2013235812"},
      {"bit.tobit(0/0)", "0"},
      {"bit.tobit(1/0)", "0"},
      {"bit.tobit(-1/0)", "0"},
      // Strings Lua converts to numbers are numbers.
      {"bit.tobit('12')", "12"},
      {"bit.tobit('0x10')", "16"},
      {"bit.tobit(' 7 ')", "7"},
  });
}

TEST_F(LuaBitTest, ToHexDigitCounts) {
  ExpectAll({
      {"bit.tohex(65535, -2147483648)", "0000FFFF"},  // Debian's lua-bitop crashed here
      {"bit.tohex(65535, 2147483647)", "0000ffff"},
      {"bit.tohex(65535, 0)", ""},
      {"bit.tohex(65535, -8)", "0000FFFF"},
      {"bit.tohex(65535, 9)", "0000ffff"},
      {"bit.tohex(65535, -9)", "0000FFFF"},
      {"bit.tohex(65535, 1)", "f"},
      {"bit.tohex(65535, -1)", "F"},
      {"bit.tohex(65535, 1.5)", "ff"},
      {"bit.tohex(65535, 2.5)", "ff"},
      {"bit.tohex(65535, -0.5)", ""},
      {"bit.tohex(65535, 2^32 + 3)", "fff"},
      {"bit.tohex(65535, -2^31 - 1)", "0000ffff"},
      {"bit.tohex(65535, 1e300)", "0000FFFF"},
      {"bit.tohex(65535, 0/0)", ""},
      {"bit.tohex(65535, 1/0)", ""},
      {"bit.tohex(-2147483648)", "80000000"},
      {"bit.tohex(2147483647, -8)", "7FFFFFFF"},
      {"bit.tohex(-2147483648, -2147483648)", "80000000"},
      {"bit.tohex(1e300)", "8800759c"},
      {"bit.tohex(0/0)", "00000000"},
      {"bit.tohex(-0)", "00000000"},
      {"bit.tohex('255', '2')", "ff"},
  });
}

TEST_F(LuaBitTest, LogicOnTheExtremes) {
  ExpectAll({
      {"bit.bnot(-2147483648)", "2147483647"},
      {"bit.bnot(2147483647)", "-2147483648"},
      {"bit.bnot(-1)", "0"},
      {"bit.band(1)", "1"},
      {"bit.bor(2^31)", "-2147483648"},
      {"bit.bxor(-2147483648)", "-2147483648"},
      {"bit.band(-1, 2^31)", "-2147483648"},
      {"bit.band(-2147483648, 2147483647)", "0"},
      {"bit.bor(2^31, 1)", "-2147483647"},
      {"bit.bor(-2147483648, 2147483647)", "-1"},
      {"bit.bxor(-2147483648, 2147483647)", "-1"},
      {"bit.bxor(-1, -1, -1)", "-1"},
      {"bit.band(-1, -1, -1, 0xff, 0xf0f)", "15"},
  });
}

TEST_F(LuaBitTest, ShiftsAndRotatesUseTheLowFiveBitsOfTheCount) {
  ExpectAll({
      {"bit.lshift(1, 31)", "-2147483648"},
      {"bit.lshift(1, 32)", "1"},
      {"bit.lshift(1, -1)", "-2147483648"},
      {"bit.lshift(1, -2147483648)", "1"},
      {"bit.lshift(1, 2147483647)", "-2147483648"},
      {"bit.lshift(1, 2^31)", "1"},
      {"bit.lshift(1, 1.5)", "4"},
      {"bit.lshift(2147483647, 1)", "-2"},
      {"bit.rshift(-2147483648, 31)", "1"},
      {"bit.rshift(-2147483648, 0)", "-2147483648"},
      {"bit.rshift(2147483647, 30)", "1"},
      {"bit.arshift(-2147483648, 31)", "-1"},
      {"bit.arshift(-2147483648, -1)", "-1"},
      {"bit.arshift(2147483647, 31)", "0"},
      {"bit.arshift(-2147483648, 32)", "-2147483648"},
      {"bit.rol(-2147483648, 1)", "1"},
      {"bit.rol(1, -1)", "-2147483648"},
      {"bit.rol(0x12345678, 0)", "305419896"},
      {"bit.rol(0x12345678, 32)", "305419896"},
      {"bit.rol(2147483647, 1)", "-2"},
      {"bit.ror(1, 1)", "-2147483648"},
      {"bit.ror(1, 33)", "-2147483648"},
      {"bit.ror(-2147483648, -2147483648)", "-2147483648"},
      {"bit.ror(2147483647, 31)", "-2"},
  });
}

TEST_F(LuaBitTest, ByteSwap) {
  ExpectAll({
      {"bit.bswap(-2147483648)", "128"},
      {"bit.bswap(2147483647)", "-129"},
      {"bit.bswap(-1)", "-1"},
      {"bit.bswap(0)", "0"},
      {"bit.bswap(0xff)", "-16777216"},
  });
}

TEST_F(LuaBitTest, ArgumentErrorsAreLuaLCheckNumbers) {
  ExpectAll({
      {"bit.tohex()",
       "error: user_script:1: bad argument #1 to 'tohex' (number expected, got no value)"},
      {"bit.tobit()",
       "error: user_script:1: bad argument #1 to 'tobit' (number expected, got no value)"},
      {"bit.tobit('x')",
       "error: user_script:1: bad argument #1 to 'tobit' (number expected, got string)"},
      {"bit.tobit({})",
       "error: user_script:1: bad argument #1 to 'tobit' (number expected, got table)"},
      {"bit.bnot(true)",
       "error: user_script:1: bad argument #1 to 'bnot' (number expected, got boolean)"},
      {"bit.tohex(1, 'x')",
       "error: user_script:1: bad argument #2 to 'tohex' (number expected, got string)"},
      // An explicit nil count is not an absent one.
      {"bit.tohex(1, nil)",
       "error: user_script:1: bad argument #2 to 'tohex' (number expected, got nil)"},
      {"bit.tohex('x', 'y')",
       "error: user_script:1: bad argument #1 to 'tohex' (number expected, got string)"},
      {"bit.band()",
       "error: user_script:1: bad argument #1 to 'band' (number expected, got no value)"},
      {"bit.bor()",
       "error: user_script:1: bad argument #1 to 'bor' (number expected, got no value)"},
      {"bit.bxor()",
       "error: user_script:1: bad argument #1 to 'bxor' (number expected, got no value)"},
      {"bit.band(1, nil)",
       "error: user_script:1: bad argument #2 to 'band' (number expected, got nil)"},
      // The first argument is checked first, then the others from the last one down.
      {"bit.band('x', 'y')",
       "error: user_script:1: bad argument #1 to 'band' (number expected, got string)"},
      {"bit.band(1, 'x', 'y')",
       "error: user_script:1: bad argument #3 to 'band' (number expected, got string)"},
      {"bit.bor(1, 2, {}, nil)",
       "error: user_script:1: bad argument #4 to 'bor' (number expected, got nil)"},
      {"bit.lshift()",
       "error: user_script:1: bad argument #1 to 'lshift' (number expected, got no value)"},
      {"bit.lshift(1)",
       "error: user_script:1: bad argument #2 to 'lshift' (number expected, got no value)"},
      {"bit.lshift('x', 'y')",
       "error: user_script:1: bad argument #1 to 'lshift' (number expected, got string)"},
      {"bit.rshift(1)",
       "error: user_script:1: bad argument #2 to 'rshift' (number expected, got no value)"},
      {"bit.arshift(1)",
       "error: user_script:1: bad argument #2 to 'arshift' (number expected, got no value)"},
      {"bit.rol(1, 'a')",
       "error: user_script:1: bad argument #2 to 'rol' (number expected, got string)"},
      {"bit.ror(1)",
       "error: user_script:1: bad argument #2 to 'ror' (number expected, got no value)"},
      {"bit.bswap()",
       "error: user_script:1: bad argument #1 to 'bswap' (number expected, got no value)"},
  });
}

TEST_F(LuaBitTest, ManyArguments) {
  // Thousands of arguments (through unpack) fold like two.
  EXPECT_EQ(Eval("bit.bor(unpack((function() local t = {} for i = 1, 7000 do "
                 "t[i] = 2^(i % 32) end return t end)()))"),
            "-1");
}

}  // namespace
}  // namespace vireo
