"""The cmsgpack and struct libraries scripts see, compared with redis-server 7.0.

Every case runs the same EVAL (or FCALL) on Debian's redis-server and on vireo-server and
compares the replies exactly: bulk strings byte for byte, errors by their full text (the
script's sha is part of it and is the same on both). Decoded Lua values are compared through
`describe`, a Lua function that prints any value (tables with sorted keys, numbers with %.17g).

A few cases depend on how the CPU converts out-of-range doubles to integers (Redis's C code
leaves that to the hardware); they are compared on x86-64 only.
"""

import os
import platform

import pytest

from conftest import RespError, ServerProcess, _teardown

REDIS_SERVER = "/usr/bin/redis-server"
X86 = platform.machine() in ("x86_64", "AMD64")

DESCRIBE = r"""
local function describe(v)
  local t = type(v)
  if t == "number" then return string.format("n:%.17g", v) end
  if t == "string" then return "s" .. #v .. ":" .. v end
  if t ~= "table" then return t .. ":" .. tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  local names = {}
  for i, k in ipairs(keys) do names[k] = describe(k) end
  table.sort(keys, function(a, b) return names[a] < names[b] end)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = names[k] .. "=" .. describe(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end
local function all(...)
  local out = {}
  for i = 1, select("#", ...) do out[#out + 1] = describe((select(i, ...))) end
  return select("#", ...) .. ":" .. table.concat(out, " ")
end
local function finish(ok, ...)
  if not ok then return "error:" .. tostring((...)) end
  return all(...)
end
local function try(f, ...) return finish(pcall(f, ...)) end
"""


@pytest.fixture(scope="module")
def pair(tmp_path_factory, server_binary):
    if not os.path.exists(REDIS_SERVER):
        pytest.skip("needs Debian's redis-server")
    servers = [ServerProcess(REDIS_SERVER, tmp_path_factory.mktemp("redis")),
               ServerProcess(server_binary, tmp_path_factory.mktemp("vireo"))]
    for s in servers:
        s.start()
    conns = [s.raw(timeout=60) for s in servers]
    yield conns
    for c in conns:
        c.close()
    _teardown(servers)


def same(pair, *command):
    """Runs the command on both servers and returns the (identical) reply."""
    ref, ours = (c.call(*command) for c in pair)
    assert ours == ref, f"{command[:2]!r}:\n redis: {ref!r}\n vireo: {ours!r}"
    return ref


def same_eval(pair, body, *args):
    return same(pair, "EVAL", body, 0, *args)


def same_described(pair, expr):
    """Compares describe() of every value `expr` (a Lua expression list) yields, run in pcall."""
    return same_eval(pair, DESCRIBE + "return try(function() return " + expr + " end)")


# --------------------------------------------------------------------------------------------
# cmsgpack.pack: encodings, byte for byte

INTEGERS = ["0", "1", "127", "128", "255", "256", "65535", "65536", "2^32-1", "2^32", "2^53",
            "2^63-1024", "-1", "-31", "-32", "-33", "-127", "-128", "-129", "-32767", "-32768",
            "-32769", "-2^31", "-2^31-1", "-2^63", "-0.0"]
FLOATS = ["1.5", "0.1", "-0.1", "1e300", "-1e300", "1e-45", "2^-149", "3.0000001", "1/0",
          "-1/0", "2^64", "-2^63-4096", "3.4028234663852886e38", "3.4028235677973366e38",
          "123456789.5", "2^24+1", "2^24+0.5"]
X86_ONLY_NUMBERS = ["2^63", "0/0"]


@pytest.mark.parametrize("expr", INTEGERS + FLOATS)
def test_pack_numbers(pair, expr):
    same_eval(pair, f"return cmsgpack.pack({expr})")
    same_described(pair, f"cmsgpack.unpack(cmsgpack.pack({expr}))")


@pytest.mark.skipif(not X86, reason="Redis's result depends on x86 double conversion")
@pytest.mark.parametrize("expr", X86_ONLY_NUMBERS)
def test_pack_numbers_x86(pair, expr):
    same_eval(pair, f"return cmsgpack.pack({expr})")


def test_pack_known_bytes(pair):
    assert same_eval(pair, 'return cmsgpack.pack({1,2,3,"a",{x=1}})') == \
        b"\x95\x01\x02\x03\xa1a\x81\xa1x\x01"
    assert same_eval(pair, "return cmsgpack.pack(nil, true, false)") == b"\xc0\xc3\xc2"
    assert same_eval(pair, "return cmsgpack.pack(1.5, 0.1)") == \
        b"\xca\x3f\xc0\x00\x00\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a"


@pytest.mark.parametrize("n", [0, 1, 31, 32, 255, 256, 65535, 65536, 100000])
def test_pack_strings(pair, n):
    same_eval(pair, f'return cmsgpack.pack(string.rep("a\\0", {n}):sub(1, {n}))')
    same_eval(pair, f'local s = string.rep("xy", {n}):sub(1, {n}) '
                    "return cmsgpack.unpack(cmsgpack.pack(s)) == s")


@pytest.mark.parametrize("n", [0, 1, 15, 16, 65535, 65536])
def test_pack_arrays_and_maps(pair, n):
    same_eval(pair, f"local t = {{}} for i = 1, {n} do t[i] = i end return cmsgpack.pack(t)")
    # Maps in lua_next order: the same Lua 5.1 hashing on both sides gives the same order.
    same_eval(pair, f'local t = {{}} for i = 1, {n} do t["k" .. i] = i end '
                    "return cmsgpack.pack(t)")
    same_eval(pair, f"local t = {{}} for i = 1, {n} do t[i] = i * 1.5 end "
                    "local u = cmsgpack.unpack(cmsgpack.pack(t)) "
                    f"for i = 1, {n} do if u[i] ~= t[i] then return i end end return #u")
    same_eval(pair, f'local t = {{}} for i = 1, {n} do t["k" .. i] = i end '
                    "local u = cmsgpack.unpack(cmsgpack.pack(t)) local c = 0 "
                    "for k, v in pairs(u) do if t[k] ~= v then return k end c = c + 1 end "
                    "return c")


TABLES = ["{}", "{1,nil,3}", "{[1]=1,[2]=2,x=3}", "{[2]=1}", "{[1.5]=1}", "{[0]=1}",
          "{[-1]=1}", "{a=1,b=2,c=3,[true]=4,[5]=6}", "{1,2,[4]=4}", "{[{1}]=2}",
          "{{1,{2,{3}}},{a={b={c='d'}}}}", "{f=function() end, 1}", "{[1]=1,[2]=2,[3]=nil}",
          "{['1']=1}", "{1, 'two', {three=3}, false, true}"]


@pytest.mark.parametrize("expr", TABLES)
def test_pack_tables(pair, expr):
    same_eval(pair, f"return cmsgpack.pack({expr})")
    same_described(pair, f"cmsgpack.unpack(cmsgpack.pack({expr}))")


@pytest.mark.parametrize("depth", [14, 15, 16, 17, 20, 100])
def test_pack_nesting_limit(pair, depth):
    same_eval(pair, f"local t = {{}} local c = t for i = 1, {depth} do c[1] = {{}} c = c[1] end "
                    "c[1] = 5 return cmsgpack.pack(t)")
    same_eval(pair, f"local t = {{}} local c = t for i = 1, {depth} do c.a = {{}} c = c.a end "
                    "return cmsgpack.pack(1, t)")
    same_eval(pair, f"local t = {{}} local c = t for i = 1, {depth} do c[{{i}}] = {{}} "
                    "c = c[next(c)] end return #cmsgpack.pack(t)")


def test_pack_other_values_and_arguments(pair):
    same_eval(pair, "local t = {} t[1] = t return cmsgpack.pack(t)")
    same_eval(pair, "return cmsgpack.pack(function() end, coroutine.create(function() end))")
    same_eval(pair, 'return cmsgpack.pack("a", nil, "b", 1, {2})')
    same_eval(pair, "return cmsgpack.pack(cmsgpack.pack(1, 2), {cmsgpack.pack(3)})")
    same_eval(pair, "return cmsgpack.pack()")
    same_eval(pair, "local t = {} for i = 1, 4000 do t[i] = i end "
                    "return #cmsgpack.pack(unpack(t))")
    same_eval(pair, "local t = {} for i = 1, 4001 do t[i] = i end "
                    "return cmsgpack.pack(unpack(t))")
    same_described(pair, "cmsgpack.pack(unpack({}, 1, 4001))")


# --------------------------------------------------------------------------------------------
# cmsgpack.unpack / unpack_one / unpack_limit

def test_unpack_every_type_byte(pair):
    # Each first byte followed by enough filler: what it decodes to, or the error.
    same_eval(pair, DESCRIBE + r"""
      local out = {}
      for b = 0, 255 do
        for _, fill in ipairs({"", "\1", "\0\0", string.rep("\1", 9), string.rep("\0", 40)}) do
          local r = try(cmsgpack.unpack_one, string.char(b) .. fill)
          out[#out + 1] = b .. "+" .. #fill .. " " .. r
        end
      end
      return out""")


def test_unpack_values(pair):
    for expr in ['cmsgpack.unpack(cmsgpack.pack(1, 2, "x"))', 'cmsgpack.unpack("")',
                 'cmsgpack.unpack("\\192\\195\\194\\1")', "cmsgpack.unpack(5)",
                 'cmsgpack.unpack("\\206\\255\\255\\255\\255")',
                 'cmsgpack.unpack("\\207\\255\\255\\255\\255\\255\\255\\255\\255")',
                 'cmsgpack.unpack("\\207\\128\\0\\0\\0\\0\\0\\0\\0")',
                 'cmsgpack.unpack("\\211\\128\\0\\0\\0\\0\\0\\0\\0")',
                 'cmsgpack.unpack("\\210\\128\\0\\0\\0")', 'cmsgpack.unpack("\\208\\128")',
                 'cmsgpack.unpack("\\209\\128\\0")', 'cmsgpack.unpack("\\202\\127\\128\\0\\0")',
                 'cmsgpack.unpack("\\203\\63\\185\\153\\153\\153\\153\\153\\154")',
                 'cmsgpack.unpack("\\222\\0\\1\\1\\2")', 'cmsgpack.unpack("\\220\\0\\2\\1\\2")',
                 'cmsgpack.unpack("\\221\\0\\0\\0\\2\\1\\2")',
                 'cmsgpack.unpack("\\223\\0\\0\\0\\1\\161k\\192")',
                 'cmsgpack.unpack("\\130\\1\\192\\2\\3")',
                 'cmsgpack.unpack("\\217\\3abc\\218\\0\\1d\\219\\0\\0\\0\\0")',
                 'cmsgpack.unpack("\\146\\1")', 'cmsgpack.unpack("\\146\\193")',
                 'cmsgpack.unpack("\\1\\205\\1")', 'cmsgpack.unpack("\\196\\3abc")',
                 'cmsgpack.unpack("\\199\\1\\5a")', 'cmsgpack.unpack("\\212\\1\\5")',
                 'cmsgpack.unpack("\\219\\255\\255\\255\\255")',
                 'cmsgpack.unpack("\\221\\255\\255\\255\\255")',
                 'cmsgpack.unpack("\\223\\255\\255\\255\\255")', "cmsgpack.unpack()",
                 "cmsgpack.unpack({})", 'cmsgpack.unpack("\\1\\2", 9, 9)']:
        same_described(pair, expr)


def test_unpack_truncated_input(pair):
    # Every prefix of a message using every family: each is "Missing bytes" or a value list.
    same_eval(pair, DESCRIBE + r"""
      local s = cmsgpack.pack({1, -1, 300, -300, 70000, -70000, 2^40, -2^40, 1.5, 0.1,
                               "short", string.rep("m", 40), string.rep("l", 300), true, false,
                               {a = {b = {}}}})
      local out = {}
      for i = 0, #s do out[#out + 1] = try(cmsgpack.unpack, s:sub(1, i)) end
      return out""")


def test_unpack_errors_seen_by_the_script(pair):
    # Not under pcall: the error reply as a client sees it.
    for body in ['return cmsgpack.unpack("\\193")', 'return cmsgpack.unpack("\\146\\1")',
                 'return cmsgpack.unpack("\\129\\192\\1")',
                 'return cmsgpack.unpack("\\129\\203\\127\\248\\0\\0\\0\\0\\0\\0\\1")',
                 "return cmsgpack.unpack()", "return cmsgpack.pack()",
                 'return cmsgpack.unpack_one("\\1", 5)', 'return cmsgpack.unpack_one("\\1", -1)',
                 'return cmsgpack.unpack_limit("\\1")', 'return cmsgpack.unpack_one("\\1", "x")']:
        reply = same_eval(pair, body)
        assert isinstance(reply, RespError), body


@pytest.mark.parametrize("args", ["", ", 0", ", 1", ", 2", ", 3", ", 4", ", -1", ", 1.7", ', "1"',
                                  ", nil", ", 2^32+1", ", 2^31", ", -2^31-1"])
def test_unpack_one_offsets(pair, args):
    same_described(pair, f"cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3){args})")
    same_described(pair, f'cmsgpack.unpack_one(cmsgpack.pack("abc", {{1}}, 3){args})')


@pytest.mark.parametrize("args", ["0", "1", "2", "3", "5", "2, 2", "1, 3", "0, 0", "0, 1", "0, 3",
                                  "-1",
                                  "-2, 1", "1, 7", "2^32+1", "2^31", "1, -1", "2, 1.9"])
def test_unpack_limit_offsets(pair, args):
    same_described(pair, f"cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), {args})")
    same_described(pair, f'cmsgpack.unpack_limit("", {args})')


def test_unpack_walk_with_offsets(pair):
    same_eval(pair, DESCRIBE + r"""
      local s = cmsgpack.pack({1, 2}, "x", {y = true}, 4.5, nil, -7)
      local out, off = {}, 0
      while off ~= -1 do
        local r = {cmsgpack.unpack_limit(s, 2, off)}
        off = r[1]
        out[#out + 1] = describe(r)
      end
      return out""")


def test_unpack_stack_limits(pair):
    # How many values / how deep before "stack overflow (...)": the same limits as Redis.
    for lua in [
        'string.rep("\\1", 7999)', 'string.rep("\\1", 8000)',
        'string.rep("\\145", 3999) .. "\\1"', 'string.rep("\\145", 4000) .. "\\1"',
        'string.rep("\\145", 3998) .. "\\144"', 'string.rep("\\145", 3999) .. "\\144"',
        'string.rep("\\129\\1", 3999) .. "\\1"', 'string.rep("\\129\\1", 4000) .. "\\1"',
        '"\\1" .. string.rep("\\145", 3998) .. "\\1"',
        '"\\1" .. string.rep("\\145", 3999) .. "\\1"',
        '"\\1\\1" .. string.rep("\\145", 3998) .. "\\1"',
        'string.rep("\\129\\145\\1", 3998) .. "\\1"', 'string.rep("\\129\\145\\1", 3999) .. "\\1"',
    ]:
        same_eval(pair, f"local ok, e = pcall(cmsgpack.unpack, {lua}) "
                        "return {tostring(ok), type(e) == 'string' and e or type(e)}")
    for call in ['cmsgpack.unpack_limit(string.rep("\\1", 9000), 7998)',
                 'cmsgpack.unpack_limit(string.rep("\\1", 9000), 7999)',
                 'cmsgpack.unpack_limit(string.rep("\\1", 9000), 7998, 0)',
                 'cmsgpack.unpack_limit(string.rep("\\1", 9000), 0, 1000)',
                 'cmsgpack.unpack_one(string.rep("\\145", 3999) .. "\\1", 0)']:
        same_eval(pair, f"local r = {{pcall(function() return {call} end)}} "
                        "return {tostring(r[1]), #r, tostring(r[2])}")
    same_eval(pair, 'return cmsgpack.unpack(string.rep("\\1", 9000))')


# --------------------------------------------------------------------------------------------
# struct

PACKS = [
    '"<bBhHlLTiIfd", -1, 255, -2, 65535, -3, 4, 5, -6, 7, 1.5, 2.5',
    '">bBhHlLTiIfd", -1, 255, -2, 65535, -3, 4, 5, -6, 7, 1.5, 2.5',
    '"bBhHlLTiIfd", 1, 2, 3, 4, 5, 6, 7, 8, 9, 0.1, 0.1',
    '"<i1i2i3i4i5i6i7i8i9i16i32", 1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11',
    '">I1I2I3I4I5I6I7I8I9I16I32", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11',
    '"<i0", 5', '">i", -1', '"<I", 2^32-1', '"<i4", 2^32+5', '"<i4", 1.7', '"<i4", -1.7',
    '"b", 300', '"b", -1', '"B", -1', '"b", "12"', '"<i8", -2^63', '"<I8", 2^63+2^20',
    '"<i16", -1', '"<I9", -1', '"<i9", 2^70', '"<f", 1e300', '"<d", 1/0', '">d", -0.0',
    '"c3", "abcd"', '"c", "abcd"', '"c0", "abcd"', '"c0", 12', '"s", "ab\\0cd"', '"s", 5',
    '"f", "1.5"', '"<b x b", 1, 2', '"xxb", 1', '"", 1', '"<b", 1, 2',
    '"!<bxi4bd", 1, 2, 3, 4.5', '"!2<bi4bd", 1, 2, 3, 4.5', '"!4<bhbi8", 1, 2, 3, 4',
    '"!i3", 1', '"!<bs", 1, "x"', '"!<bf", 1, 2', '"!<bc2", 1, "xx"', '"!<bT", 1, 2',
    '"!<b!2i4", 1, 2', '"!<b!i4", 1, 2', '"!1<bi4", 1, 2', '"!16i4", 1', '"!<bi16", 1, 2',
    '"!<i3i3bh", 1, 2, 3, 4', '"<>b>h<h", 1, 2, 3',
    # errors
    '"z", 1', '"=b", 1', '"i33", 1', '"i99999999999", 1', '"!3i4", 1', '"!0b", 1', '"!3", 1',
    '"b"', '"bb", 1', '"bc"', '"c3", "ab"', '"bc3", 1, "ab"', '"b", "x"', '"s"', "1",
]
X86_ONLY_PACKS = ['"<i8", 2^63', '"<i8", 2^64', '"<i8", 2^65', '"<i4", 0/0', '"<i8", 0/0',
                  '"<I8", 0/0', '"<i8", -2^64', '"<i8", 1/0', '"<i8", -1/0', '"<i8", 2^63+2^11']


@pytest.mark.parametrize("args", PACKS)
def test_struct_pack(pair, args):
    same_eval(pair, f"return struct.pack({args})")
    same_described(pair, f"struct.pack({args})")


@pytest.mark.skipif(not X86, reason="Redis's result depends on x86 double conversion")
@pytest.mark.parametrize("args", X86_ONLY_PACKS)
def test_struct_pack_x86(pair, args):
    same_eval(pair, f"return struct.pack({args})")


UNPACKS = [
    '"<i4", "\\1\\0\\0\\0"', '"<i4", "\\1\\0\\0"', '"<i4", "\\1\\0\\0\\0\\2\\0\\0\\0", 5',
    '"<i4", "\\1\\0\\0\\0\\2\\0\\0\\0", 6', '"<i4", "\\1\\0\\0\\0", 0', '"<i4", "\\1\\0\\0\\0", -1',
    '"<i4", "\\1\\0\\0\\0", 100', '"<b", ""', '"", ""', '"", "", 5', '"", "abc", -1',
    '"s", "abc"', '"s", "abc\\0de"', '"bs", "\\1"', '"s", "abc", 10', '"bc0", "\\3abcde"',
    '"c0", "abcde"', '"bc0", "\\9abcde"', '"c3", "ab"', '"c", "ab"', '"x", "ab"', '"xx", ""',
    '"c1c0", "3abc"', '"c1c0", "xabc"', '"c0", "5", 1', '"b c0", "\\0abc"', '"bb c0", "\\1\\2abc"',
    '"<bc0", "\\255abc"', '"<c1c0", "2.5abc"', '"<c3c0", "2.5abc"', '"<c3c0", "1e1abcdefghijk"',
    '"<i16", string.rep("\\255", 16)', '"<I16", string.rep("\\255", 16)',
    '"<i9", string.rep("\\255", 9)', '"<i3", "\\255\\255\\255"', '"<I3", "\\255\\255\\255"',
    '"<I8", string.rep("\\255", 8)', '"<i8", string.rep("\\255", 8)',
    '"<lLT", string.rep("\\255", 24)',
    '">i9", "\\1\\0\\0\\0\\0\\0\\0\\0\\2"', '"<i9", "\\1\\0\\0\\0\\0\\0\\0\\0\\2"',
    '">i16", "\\1" .. string.rep("\\0", 14) .. "\\2"', '"<i0", ""', '">hH", "\\255\\254\\255\\255"',
    '"<f", struct.pack("<f", 0.1)', '">d", struct.pack(">d", 0.1)', '">f", "\\127\\192\\0\\0"',
    '"!<bd", struct.pack("!<bd", 1, 2)', '"!<bi4", "\\1\\0\\0\\0\\2\\0\\0\\0"',
    '"!<bi4", "\\1\\0\\0\\0\\2\\0\\0", 1', '"!<i4", "\\0\\1\\0\\0\\0\\2\\0\\0\\0", 2',
    '"<", "abc", 10', '" ", "abc", 10', '"!4", "abc", 10', '"z", "abc", 10', '"z", "abc"',
    '"b", "\\1", "2"', '"b", "\\1", "x"', '5, "\\1"', '"b"', '"!3b", "\\1"', '"i33", ""',
    '"<bBhHlLTiIfd", struct.pack("<bBhHlLTiIfd", -1, 255, -2, 65535, -3, 4, 5, -6, 7, 1.5, 2.5)',
    '">bBhHlLTiIfd", struct.pack(">bBhHlLTiIfd", -1, 255, -2, 65535, -3, 4, 5, -6, 7, 1.5, 2.5)',
    '"!>bxhbibd s c2 c0 b", struct.pack("!>bxhbibd s c2 b", 1, 2, 3, 4, 5, 6.5, "str", "cc", 3) '
    '.. "xyz\\7", 1',
]


@pytest.mark.parametrize("args", UNPACKS)
def test_struct_unpack(pair, args):
    same_described(pair, f"struct.unpack({args})")


SIZES = ['"<bxi4bd"', '"!bxi4bd"', '"s"', '"c0"', '"c10"', '"z"', '"zi4"', '"i"', '"l"', '"T"',
         '"h"', '"f"', '"d"', '"i17"', '"i33"', '"!3"', '"!"', '"<>!4 bi4"', '"x"', '" "',
         '"!i3i3"', '"="', '"?"', '"5"', '"c2147483647"', '"c2147483648"', '"i2147483640"',
         '"!2147483640"', '"!64i8"', '"!<bi16"', "", "{}"]


@pytest.mark.parametrize("fmt", SIZES)
def test_struct_size(pair, fmt):
    same_described(pair, f"struct.size({fmt})")


def test_struct_errors_seen_by_the_script(pair):
    for body in ['return struct.pack("z", 1)', 'return struct.pack("i33", 1)',
                 'return struct.pack("!3i4", 1)', 'return struct.pack("c3", "ab")',
                 'return struct.unpack("<i4", "\\1")', 'return struct.unpack("s", "abc")',
                 'return struct.unpack("c0", "abc")', 'return struct.size("s")',
                 'return struct.unpack("b", "\\1", 0)', "return struct.pack()"]:
        reply = same_eval(pair, body)
        assert isinstance(reply, RespError), body


def test_struct_result_limit(pair):
    for n, extra in [(7997, ""), (7998, ""), (7996, ", 1"), (7997, ", 1")]:
        same_eval(pair, f'local ok, e = pcall(struct.unpack, string.rep("b", {n}), '
                        f'string.rep("\\1", {n}){extra}) return {{tostring(ok), tostring(e)}}')
    same_eval(pair, 'return #{struct.unpack(string.rep("bc0", 7996), string.rep("\\1a", 7996))}')
    same_eval(pair, 'return #{struct.unpack(string.rep("bc0", 7997), string.rep("\\1a", 7997))}')
    for tail, n in [("x", 7998), ("b", 7997)]:
        same_eval(pair, f'return #{{struct.unpack(string.rep("b", 7997) .. "{tail}", '
                        f'string.rep("\\1", {n}))}}')


# --------------------------------------------------------------------------------------------
# The libraries as globals: read-only, iterable, available to functions

def test_libraries_are_read_only_globals(pair):
    for body in ["cmsgpack.x = 1", "struct.pack = 1", "cmsgpack = 1", "struct = nil",
                 "rawset(cmsgpack, 'x', 1)", "setmetatable(struct, {})",
                 "return cmsgpack.nope", "return struct.nope", "return type(cmsgpack_safe)",
                 "return {type(cmsgpack.pack), type(cmsgpack.unpack), type(cmsgpack.unpack_one), "
                 "type(cmsgpack.unpack_limit), type(struct.pack), type(struct.unpack), "
                 "type(struct.size)}",
                 "return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, "
                 "cmsgpack._DESCRIPTION}",
                 "local o = {} for k, v in pairs(struct) do o[#o + 1] = k end table.sort(o) "
                 "return o",
                 "local o = {} for k, v in pairs(cmsgpack) do o[#o + 1] = k end table.sort(o) "
                 "return o",
                 # Unsorted: the tables are filled in Redis's order, so iteration agrees too.
                 "local o = {} for k, v in pairs(cmsgpack) do o[#o + 1] = k end return o",
                 "local o = {} for k, v in pairs(struct) do o[#o + 1] = k end return o"]:
        same_eval(pair, body)
    # A library table packs as its contents (functions as nil), as Redis's plain tables do.
    for lib in ["string", "math", "table", "coroutine", "bit", "cjson", "cmsgpack", "struct"]:
        same_eval(pair, f"return cmsgpack.pack({lib}, {{{lib}}})")


def test_libraries_in_functions(pair):
    lib = """#!lua name=libs
redis.register_function('mp', function(keys, args)
  return cmsgpack.pack(cmsgpack.unpack(args[1]), struct.unpack('>I2', args[2]))
end)
redis.register_function('st', function(keys, args)
  return {struct.pack('<i4c0', tonumber(args[1]), args[2]), struct.size('!<bd')}
end)
"""
    same(pair, "FUNCTION", "LOAD", "REPLACE", lib)
    same(pair, "FCALL", "mp", 0, b"\x93\x01\xa1a\xc3", b"\x01\x02")
    same(pair, "FCALL", "st", 0, "-5", "tail")
    same(pair, "FUNCTION", "DELETE", "libs")
