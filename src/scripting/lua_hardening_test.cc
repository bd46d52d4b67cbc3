// lua_hardening.h against stock Lua 5.1: each check refuses what would reach a flaw of
// liblua or lua-cjson, and lets ordinary input through.
#include "scripting/lua_hardening.h"

#include <sys/mman.h>

#include <string>

#include "scripting/lua_libs_fixture.h"

extern "C" int luaopen_cjson(lua_State* L);

namespace vireo {
namespace {

class LuaHardeningTest : public LuaLibsTest {
 protected:
  void SetUp() override {
    LuaLibsTest::SetUp();
    // No views here: the metatable's __metatable is the table itself.
    HardenBaseLibrary(L, [](lua_State*) {});
    lua_pushcfunction(L, luaopen_cjson);
    lua_call(L, 0, 1);
    HardenCjson(L);
    lua_setglobal(L, "cjson");
  }
  void TearDown() override {
    SetMaxJsonBytesForTests(kMaxJsonBytes);
    LuaLibsTest::TearDown();
  }
  // LoadChunk's message, or "ok".
  std::string Load(std::string_view code, const char* name = "=user_script") {
    int top = lua_gettop(L);
    int rc = LoadChunk(L, code, name);
    EXPECT_EQ(lua_gettop(L), top + 1);  // the anchor is gone again
    std::string r = rc == 0 ? "ok" : lua_tostring(L, -1);
    lua_settop(L, top);
    return r;
  }
};

TEST_F(LuaHardeningTest, BinaryChunksFailAsTextWould) {
  ASSERT_EQ(luaL_loadstring(L, "return string.dump(function() return 1 end)"), 0);
  ASSERT_EQ(lua_pcall(L, 0, 1, 0), 0);
  size_t len;
  const char* dump = lua_tolstring(L, -1, &len);
  std::string bytecode(dump, len);
  lua_pop(L, 1);
  ASSERT_EQ(bytecode[0], '\033');
  EXPECT_EQ(Load(bytecode), "user_script:1: unexpected symbol near 'char(27)'");
  EXPECT_EQ(Load("\033"), "user_script:1: unexpected symbol near 'char(27)'");
  EXPECT_EQ(Load("return 1"), "ok");
  EXPECT_EQ(Load(""), "ok");
  EXPECT_EQ(Eval("select(2, loadstring(string.dump(function() end)))"),
            "[string \"\033LuaQ\"]:1: unexpected symbol near 'char(27)'");
  EXPECT_EQ(Eval("select(2, load(function() return nil end))"), "?");  // a function, no error
  EXPECT_EQ(Eval("loadstring('return 7')()"), "7");
}

TEST_F(LuaHardeningTest, RefusesSourcesPastTheLexersIntRange) {
  // Address space only: the check refuses before reading a byte.
  const size_t size = kMaxChunkBytes + 1;
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) GTEST_SKIP() << "no room for 1 GiB of address space";
  EXPECT_EQ(Load(std::string_view(static_cast<const char*>(p), size)),
            "source too large to compile (over 1073741824 bytes)");
  munmap(p, size);
}

TEST_F(LuaHardeningTest, UnpackCountsWithoutOverflow) {
  for (const char* range : {"-2147483648, 2147483647", "0, 2147483647", "-2, 2147483645",
                            "-2147483648, -1", "1, 1e9"}) {
    EXPECT_EQ(Eval(std::string("select(2, pcall(unpack, {}, ") + range + "))"),
              "too many results to unpack")
        << range;
  }
  EXPECT_EQ(Eval("select('#', unpack({1, 2, 3}))"), "3");
  EXPECT_EQ(Eval("select('#', unpack({1, 2, 3}, 2))"), "2");
  EXPECT_EQ(Eval("select('#', unpack({}, 5, 4))"), "0");
  EXPECT_EQ(Eval("select('#', unpack({}, 2147483640, 2147483647))"), "8");
  // Out-of-range numbers convert as stock Lua does on x86-64 (1e300 -> 0), without UB.
  EXPECT_EQ(Eval("select('#', unpack({1, 2, 3}, 3, 1e300))"), "0");
  EXPECT_EQ(Eval("select('#', unpack({1, 2, 3}, 1, 2^32 + 2))"), "2");
  EXPECT_EQ(Eval("select(2, pcall(unpack))"),
            "bad argument #1 to '?' (table expected, got no value)");
}

TEST_F(LuaHardeningTest, DeepPatternsAreRefused) {
  // Stock 5.1 recursed once per item until the C stack overflowed.
  EXPECT_EQ(Eval("select(2, pcall(string.find, string.rep('a', 150000), "
                 "string.rep('a?', 150000)))"),
            "pattern too complex");
  EXPECT_EQ(Eval("string.find(string.rep('a', 600), string.rep('a?', 600))"), "1");
  EXPECT_EQ(Eval("select(2, pcall(string.gsub, 'x', string.rep('()', 300), ''))"),
            "too many captures");
  EXPECT_EQ(Eval("string.find(string.rep('a?', 600), string.rep('a?', 600), 1, true)"), "1");
  EXPECT_EQ(Eval("select(2, ('a1b2'):gsub('%d', 'x'))"), "2");
  EXPECT_EQ(Eval("string.match('key:42', '(%a+):(%d+)')"), "key");
}

// A count hook that fails the call at its first run, as SCRIPT KILL's does.
void KillAtFirstHook(lua_State* L, lua_Debug*) {
  lua_pushliteral(L, "killed");
  lua_error(L);
}

TEST_F(LuaHardeningTest, BacktrackingPatternsMeetTheCountHook) {
  // Exponential backtracking: hours inside one C call of stock 5.1, which no hook reached.
  lua_sethook(L, KillAtFirstHook, LUA_MASKCOUNT, 1000000000);
  EXPECT_EQ(Eval("select(2, pcall(string.find, string.rep('a', 40), "
                 "string.rep('a*', 30) .. 'b'))"),
            "killed");
  EXPECT_EQ(Eval("select(2, pcall(string.gsub, string.rep('a', 300000), '.-b', ''))"),
            "killed");
  EXPECT_EQ(Eval("select(2, pcall(function() for w in string.gmatch(string.rep('(', 300000), "
                 "'%b()') do end end))"),
            "killed");
  // A set of 300 KB scanned at each of 5,000 positions: each scan counts.
  EXPECT_EQ(Eval("select(2, pcall(string.find, string.rep('a', 5000), '[' .. "
                 "string.rep('b-c', 100000) .. ']'))"),
            "killed");
  // Short matches never reach the check.
  EXPECT_EQ(Eval("string.gsub('hello world', '(%w+)', '<%1>')"), "<hello> <world>");
  lua_sethook(L, nullptr, 0, 0);
}

TEST_F(LuaHardeningTest, TableInsertRefusesPositionsBelowOne) {
  // Stock 5.1 moved 2^31 slots for this, in one C call no hook interrupts.
  EXPECT_EQ(Eval("select(2, pcall(table.insert, {}, -2^31, 'x'))"),
            "bad argument #2 to '?' (position out of bounds)");
  EXPECT_EQ(Eval("select(2, pcall(table.insert, {}, 2^31, 'x'))"),  // wraps to -2^31
            "bad argument #2 to '?' (position out of bounds)");
  EXPECT_EQ(Eval("select(2, pcall(table.insert, {}, 0, 'x'))"),
            "bad argument #2 to '?' (position out of bounds)");
  EXPECT_EQ(Eval("(function() local t = {1, 3} table.insert(t, 2, 2) table.insert(t, 4) "
                 "table.insert(t, 9, 9) return table.concat(t, ',') .. ',' .. t[9] end)()"),
            "1,2,3,4,9");
}

TEST_F(LuaHardeningTest, StringMetatableAnswersItsReadOnlyStandIn) {
  EXPECT_EQ(Eval("tostring(rawequal(getmetatable(''), getmetatable('').__metatable))"), "true");
  EXPECT_EQ(Eval("('abc'):upper()"), "ABC");
}

TEST_F(LuaHardeningTest, JsonSizesAreCheckedBeforeLuaCjson) {
  SetMaxJsonBytesForTests(1000);
  EXPECT_EQ(Eval("cjson.encode(string.rep('a', 150))"), '"' + std::string(150, 'a') + '"');
  EXPECT_EQ(Eval("select(2, pcall(cjson.encode, string.rep('a', 170)))"),
            "Cannot serialise: JSON text would exceed 1000 bytes");
  EXPECT_EQ(Eval("select(2, pcall(cjson.encode, {{string.rep('a', 100)}, string.rep('b', 80)}))"),
            "Cannot serialise: JSON text would exceed 1000 bytes");
  EXPECT_EQ(Eval("select(2, pcall(cjson.new().encode, {string.rep('a', 170)}))"),
            "Cannot serialise: JSON text would exceed 1000 bytes");
  // A table shared a million times over stops the walk at the budget.
  EXPECT_EQ(Eval("select(2, pcall(cjson.encode, (function() local t = {1} for i = 1, 20 do "
                 "t = {t, t} end return t end)()))"),
            "Cannot serialise: JSON text would exceed 1000 bytes");
  EXPECT_EQ(Eval("select(2, pcall(cjson.decode, '[' .. string.rep(' ', 1000) .. ']'))"),
            "Cannot parse: JSON text exceeds 1000 bytes");
  EXPECT_EQ(Eval("cjson.decode('[1, \"x\"]')[2]"), "x");
  EXPECT_EQ(Eval("cjson.new().decode('{\"a\":5}').a"), "5");
}

TEST(LuaHeapTest, GrowthStopsAtTheLimitAndFreesAlwaysWork) {
  LuaHeap heap;
  lua_State* L = lua_newstate(LuaHeapAlloc, &heap);
  ASSERT_NE(L, nullptr);
  luaL_openlibs(L);
  EXPECT_GT(heap.used, 0u);
  heap.limit = heap.used + (1u << 20);
  ASSERT_EQ(luaL_loadstring(L, "local t = {} for i = 1, 1e7 do t[i] = i end"), 0);
  EXPECT_EQ(lua_pcall(L, 0, 0, 0), LUA_ERRMEM);
  EXPECT_STREQ(lua_tostring(L, -1), "not enough memory");
  EXPECT_LE(heap.used, heap.limit);
  lua_pop(L, 1);
  heap.limit = static_cast<size_t>(-1);
  lua_gc(L, LUA_GCCOLLECT, 0);
  ASSERT_EQ(luaL_loadstring(L, "return #string.rep('x', 4e6)"), 0);
  ASSERT_EQ(lua_pcall(L, 0, 1, 0), 0);
  EXPECT_EQ(lua_tointeger(L, -1), 4000000);
  lua_close(L);
  EXPECT_EQ(heap.used, 0u);
}

TEST(LuaHeapTest, MemoryErrorsInsideWrappedFunctionsStayMemoryErrors) {
  LuaHeap heap;
  lua_State* L = lua_newstate(LuaHeapAlloc, &heap);
  ASSERT_NE(L, nullptr);
  luaL_openlibs(L);
  HardenBaseLibrary(L, [](lua_State*) {});
  lua_pushcfunction(L, luaopen_cjson);
  lua_call(L, 0, 1);
  HardenCjson(L);
  lua_setglobal(L, "cjson");
  ASSERT_EQ(luaL_dostring(L, "s = string.rep('x', 4e6)"), 0);
  heap.limit = heap.used + (1u << 20);
  // lua-cjson builds the text with malloc; pushing it as a Lua string fails inside the stock
  // function, which the wrapper called in a protected call.
  ASSERT_EQ(luaL_loadstring(L, "return cjson.encode(s)"), 0);
  EXPECT_EQ(lua_pcall(L, 0, 1, 0), LUA_ERRMEM);
  EXPECT_FALSE(heap.fail_next);
  lua_pop(L, 1);
  heap.limit = static_cast<size_t>(-1);
  ASSERT_EQ(luaL_dostring(L, "return #cjson.encode(s)"), 0);
  EXPECT_EQ(lua_tointeger(L, -1), 4000002);
  lua_close(L);
}

// A count hook that stops the script at its first run.
void StopAtHook(lua_State* L, lua_Debug*) {
  lua_pushliteral(L, "stopped");
  lua_error(L);
}

TEST(LuaHeapTest, HeavyAllocationBringsTheCountHookForward) {
  LuaHeap heap;
  lua_State* L = lua_newstate(LuaHeapAlloc, &heap);
  ASSERT_NE(L, nullptr);
  luaL_openlibs(L);
  HardenBaseLibrary(L, [](lua_State*) {});
  EXPECT_EQ(heap.running, L);
  // Few instructions, much memory: the hook (due every 10^9 instructions) runs all the same,
  // in the main thread and inside coroutines.
  lua_sethook(L, StopAtHook, LUA_MASKCOUNT, 1000000000);
  for (const char* script :
       {"for i = 1, 1000 do local s = string.rep('x', 1e6) end",
        "coroutine.wrap(function() for i = 1, 1000 do local s = string.rep('x', 1e6) end end)()",
        "local ok, e = coroutine.resume(coroutine.create(function() "
        "for i = 1, 1000 do local s = string.rep('x', 1e6) end end)) error(e, 0)"}) {
    ASSERT_EQ(luaL_loadstring(L, script), 0);
    ASSERT_NE(lua_pcall(L, 0, 0, 0), 0) << script;
    // (coroutine.wrap adds the caller's position, as stock 5.1 does)
    EXPECT_TRUE(std::string(lua_tostring(L, -1)).ends_with("stopped")) << script;
    lua_pop(L, 1);
    EXPECT_EQ(heap.running, L);
    lua_sethook(L, StopAtHook, LUA_MASKCOUNT, 1000000000);
  }
  lua_sethook(L, nullptr, 0, 0);
  // Coroutines behave as stock 5.1's.
  ASSERT_EQ(luaL_dostring(L, "local co = coroutine.wrap(function(a) local b = coroutine.yield(a "
                             "+ 1) return b * 2 end) return co(1) + co(10)"),
            0);
  EXPECT_EQ(lua_tointeger(L, -1), 22);
  lua_pop(L, 1);
  ASSERT_EQ(luaL_dostring(L, "local f = coroutine.wrap(function() error('boom') end) "
                             "return select(2, pcall(f))"),
            0);
  EXPECT_TRUE(std::string(lua_tostring(L, -1)).ends_with("...\"]:1: boom"));
  lua_pop(L, 1);
  ASSERT_EQ(luaL_dostring(L, "local co = coroutine.create(function() end) coroutine.resume(co) "
                             "return select(2, coroutine.resume(co))"),
            0);
  EXPECT_STREQ(lua_tostring(L, -1), "cannot resume dead coroutine");
  lua_pop(L, 1);
  ASSERT_EQ(luaL_dostring(L, "return select(2, pcall(coroutine.resume, 1))"), 0);
  EXPECT_STREQ(lua_tostring(L, -1), "bad argument #1 to '?' (coroutine expected)");
  lua_close(L);
}

TEST(LuaHeapTest, ScriptLimitFollowsMaxmemory) {
  LuaHeap heap;
  heap.used = 1000;
  EXPECT_EQ(ScriptHeapLimit(heap, 0, 5000), static_cast<size_t>(-1));
  EXPECT_EQ(ScriptHeapLimit(heap, 10000, 4000), 1000 + 6000 + kScriptHeapMargin);
  EXPECT_EQ(ScriptHeapLimit(heap, 10000, 20000), 1000 + kScriptHeapMargin);
  // maxmemory past a 32-bit size_t (armhf) leaves the heap unbounded rather than wrapping.
  EXPECT_EQ(ScriptHeapLimit(heap, uint64_t{1} << 62, 0),
            sizeof(size_t) == 8 ? 1000 + (size_t{1} << 62) + kScriptHeapMargin : SIZE_MAX);
}

}  // namespace
}  // namespace vireo
