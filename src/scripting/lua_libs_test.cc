// In-process checks of cmsgpack and struct. The expected bytes and texts are redis-server
// 7.0's (tests/integration/test_scripting_libs.py compares against a live one).
#include <string>

#include "scripting/lua_libs_fixture.h"

namespace vireo {
namespace {

TEST_F(LuaLibsTest, PackPicksTheSmallestEncoding) {
  EXPECT_EQ(Eval("cmsgpack.pack({1,2,3,'a',{x=1}})"),
            std::string("\x95\x01\x02\x03\xa1\x61\x81\xa1\x78\x01"));
  const struct {
    const char* lua;
    std::string bytes;
  } cases[] = {
      {"127", "\x7f"},
      {"128", "\xcc\x80"},
      {"255", "\xcc\xff"},
      {"256", std::string("\xcd\x01\x00", 3)},
      {"65535", "\xcd\xff\xff"},
      {"65536", std::string("\xce\x00\x01\x00\x00", 5)},
      {"2^32", std::string("\xcf\x00\x00\x00\x01\x00\x00\x00\x00", 9)},
      {"-1", "\xff"},
      {"-32", "\xe0"},
      {"-33", "\xd0\xdf"},
      {"-128", "\xd0\x80"},
      {"-129", "\xd1\xff\x7f"},
      {"-32769", "\xd2\xff\xff\x7f\xff"},
      {"-2^31-1", "\xd3\xff\xff\xff\xff\x7f\xff\xff\xff"},
      {"-0.0", std::string("\x00", 1)},
      {"1.5", std::string("\xca\x3f\xc0\x00\x00", 5)},
      {"0.1", "\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a"},
      {"nil, true, false", "\xc0\xc3\xc2"},
      {"{}", "\x90"},
      {"{[2]=1}", "\x81\x02\x01"},
      {"function() end", "\xc0"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(Eval(std::string("cmsgpack.pack(") + c.lua + ")"), c.bytes) << c.lua;
  }
}

TEST_F(LuaLibsTest, PackStringAndContainerHeaders) {
  EXPECT_EQ(Eval("cmsgpack.pack(string.rep('a', 31)):sub(1, 1)"), "\xbf");
  EXPECT_EQ(Eval("cmsgpack.pack(string.rep('a', 32)):sub(1, 2)"), "\xd9\x20");
  EXPECT_EQ(Eval("cmsgpack.pack(string.rep('a', 256)):sub(1, 3)"), std::string("\xda\x01\x00", 3));
  EXPECT_EQ(Eval("cmsgpack.pack(string.rep('a', 65536)):sub(1, 5)"),
            std::string("\xdb\x00\x01\x00\x00", 5));
  EXPECT_EQ(Eval("(function() local t = {} for i = 1, 16 do t[i] = 0 end "
                 "return cmsgpack.pack(t):sub(1, 3) end)()"),
            std::string("\xdc\x00\x10", 3));
}

TEST_F(LuaLibsTest, PackNestsSixteenTablesDeep) {
  EXPECT_EQ(Eval("(function() local t = {} t[1] = t return cmsgpack.pack(t) end)()"),
            std::string(16, '\x91') + "\xc0");
}

TEST_F(LuaLibsTest, UnpackRoundTripsAndReportsBadInput) {
  EXPECT_EQ(Eval("select('#', cmsgpack.unpack(cmsgpack.pack(1, 'x', {2}, nil)))"), "4");
  EXPECT_EQ(Eval("cmsgpack.unpack(cmsgpack.pack({a={b=-70000.5}})).a.b"), "-70000.5");
  EXPECT_EQ(Eval("cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255')"), "-1");
  std::string missing = Eval("cmsgpack.unpack('\\146\\1')");
  EXPECT_NE(missing.find("Missing bytes in input."), std::string::npos) << missing;
  std::string bad = Eval("cmsgpack.unpack('\\196\\1a')");
  EXPECT_NE(bad.find("Bad data format in input."), std::string::npos) << bad;
  EXPECT_EQ(Eval("cmsgpack.unpack('\\129\\192\\1')"), "error: table index is nil");
}

TEST_F(LuaLibsTest, UnpackOneAndLimitReturnTheNextOffset) {
  EXPECT_EQ(Eval("table.concat({cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3))}, ',')"), "1,1");
  EXPECT_EQ(Eval("table.concat({cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 2)}, ',')"), "-1,3");
  EXPECT_EQ(Eval("table.concat({cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}, ',')"), "2,1,2");
  EXPECT_EQ(Eval("table.concat({cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 0)}, ',')"), "1,2,3");
  EXPECT_EQ(Eval("table.concat({cmsgpack.unpack_limit('\\1\\2\\3', 0, 1)}, ',')"), "1");
  std::string past = Eval("cmsgpack.unpack_one('\\1', 5)");
  EXPECT_NE(past.find("Start offset 5 greater than input length 1."), std::string::npos) << past;
}

TEST_F(LuaLibsTest, StructPacksUnpacksAndSizes) {
  EXPECT_EQ(Eval("struct.pack('>i4', 1)"), std::string("\x00\x00\x00\x01", 4));
  EXPECT_EQ(Eval("struct.pack('<h', -2)"), "\xfe\xff");
  EXPECT_EQ(Eval("struct.pack('!<bi4', 1, 2)"), std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8));
  EXPECT_EQ(Eval("struct.pack('<i16', -1)"), std::string(8, '\xff') + std::string(8, '\0'));
  EXPECT_EQ(Eval("struct.pack('s', 'ab')"), std::string("ab\0", 3));
  EXPECT_EQ(Eval("table.concat({struct.unpack('>hH', '\\255\\254\\255\\255')}, ',')"),
            "-2,65535,5");
  EXPECT_EQ(Eval("table.concat({struct.unpack('bc0', '\\3abcde')}, ',')"), "abc,5");
  EXPECT_EQ(Eval("struct.size('!bxi4bd')"), "24");
  EXPECT_EQ(Eval("struct.size('<bxi4bd')"), "15");
  EXPECT_EQ(Eval("struct.size('!i3i3')"), "10");
}

TEST_F(LuaLibsTest, StructErrorTexts) {
  const struct {
    const char* lua;
    const char* text;
  } cases[] = {
      {"struct.pack('z', 1)", "bad argument #1 to 'pack' (invalid format option 'z')"},
      {"struct.pack('i33', 1)", "integral size 33 is larger than limit of 32"},
      {"struct.pack('i99999999999', 1)", "integral size overflow"},
      {"struct.pack('!3i4', 1)", "alignment 3 is not a power of 2"},
      {"struct.pack('b')", "bad argument #2 to 'pack' (number expected, got nil)"},
      {"struct.pack('c3', 'ab')", "bad argument #3 to 'pack' (string too short)"},
      {"struct.unpack('<i4', '\\1')", "bad argument #2 to 'unpack' (data string too short)"},
      {"struct.unpack('b', '\\1', 0)", "bad argument #3 to 'unpack' (offset must be 1 or greater)"},
      {"struct.unpack('s', 'abc')", "unfinished string in data"},
      {"struct.unpack('c0', 'abc')", "format 'c0' needs a previous size"},
      {"struct.size('s')", "bad argument #1 to 'size' (option 's' has no fixed size)"},
  };
  for (const auto& c : cases) {
    std::string r = Eval(c.lua);
    EXPECT_EQ(r.rfind("error: ", 0), 0u) << c.lua << " -> " << r;
    EXPECT_NE(r.find(c.text), std::string::npos) << c.lua << " -> " << r;
  }
}

}  // namespace
}  // namespace vireo
