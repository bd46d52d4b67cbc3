"""Hostile scripts are ordinary input (docs/SECURITY.md): one regression test per script-engine
CVE that Redis and Valkey fixed inside their own Lua copies, the sandbox's globals and library
members against valkey-server 8.0.1 (../shared/reference/, skipped where absent), the Lua heap
bounded by maxmemory, and `enable-scripting no`.

Every test ends by checking the server still answers: a crash fails it (and the fixture
reports it).
"""

import pytest
import redis

from conftest import kill_busy_script

# Globals a script sees: Valkey 8's, without getfenv, setfenv and newproxy (Vireo removes them:
# getfenv of a C function answers the writable real globals, newproxy makes userdata with a
# writable metatable whose __gc runs at close; COMPATIBILITY.md).
GLOBALS = sorted("""ARGV KEYS _G _VERSION __redis__err__handler assert bit cjson cmsgpack
collectgarbage coroutine error gcinfo getmetatable ipairs load loadstring math next os pairs
pcall rawequal rawget rawset redis select server setmetatable string struct table tonumber
tostring type unpack xpcall""".split())
REMOVED = ["getfenv", "setfenv", "newproxy"]
LIBRARIES = ["string", "table", "math", "os", "coroutine", "cjson", "bit", "struct", "cmsgpack",
             "redis", "server"]
MEMBERS = "local t = {} for k in pairs(%s) do t[#t + 1] = k end table.sort(t) return t"
DUMP = "string.dump(function() return 1 end)"


@pytest.fixture(scope="module")
def valkey(valkey_process):
    c = valkey_process.client()
    yield c
    c.close()


def alive(r):
    assert r.ping() is True


def test_globals_and_library_members_match_valkey(sr, valkey):
    assert sr.eval(MEMBERS % "_G", 0) == GLOBALS
    assert sorted(set(valkey.eval(MEMBERS % "_G", 0)) - set(REMOVED)) == GLOBALS
    for lib in LIBRARIES:
        assert sr.eval(MEMBERS % lib, 0) == valkey.eval(MEMBERS % lib, 0), lib
    assert sr.eval(MEMBERS % "os", 0) == ["clock"]
    assert sr.eval("return {redis.SERVER_NAME, server.VALKEY_VERSION_NUM}", 0) == [
        "valkey", 0x080001]


def test_removed_and_absent_globals_are_errors(sr):
    for name in REMOVED + ["print", "loadfile", "dofile", "require", "module", "io", "debug"]:
        with pytest.raises(redis.ResponseError,
                           match=f"nonexistent global variable '{name}'"):
            sr.eval(f"return {name}", 0)
    assert sr.eval("return type(os.clock())", 0) == "number"


@pytest.mark.parametrize("lib", LIBRARIES + ["_G"])
def test_library_tables_are_read_only(sr, lib):
    for script in [f"{lib}.x = 1", f"rawset({lib}, 'x', 1)", f"setmetatable({lib}, {{}})"]:
        with pytest.raises(redis.ResponseError, match="Attempt to modify a readonly table"):
            sr.eval(script, 0)
    alive(sr)


def test_binary_chunks_never_load_cve_2015_4335(sr, valkey):
    # The texts valkey-server answers (its Lua parses every chunk as text).
    for r in (sr, valkey):
        assert r.eval(f"local f, e = loadstring({DUMP}) return e", 0) == (
            "[string \"\x1bLuaQ\"]:1: unexpected symbol near 'char(27)'")
        with pytest.raises(redis.ResponseError) as e:
            r.eval("\x1bLuaQ\x00", 0)
        assert str(e.value) == ("Error compiling script (new function): user_script:1: "
                                "unexpected symbol near 'char(27)'")
        with pytest.raises(redis.ResponseError) as e:
            r.script_load("\x1bLua")
        assert "unexpected symbol near 'char(27)'" in str(e.value)
        with pytest.raises(redis.ResponseError, match="^Missing library metadata$"):
            r.function_load("\x1bLuaQ")
        with pytest.raises(redis.ResponseError) as e:
            r.function_load("#!lua name=x\n\x1bLuaQ")
        assert str(e.value) == ("Error compiling function: user_function:2: unexpected symbol "
                                "near 'char(27)'")
    # load() with a reader, in one piece or byte by byte.
    reader = ("local s, i = %s, 0 local f, e = load(function() i = i + 1 "
              "return s:sub(i, i) end, '=r') return {tostring(f), e}") % DUMP
    assert sr.eval(reader, 0) == ["nil", "r:1: unexpected symbol near 'char(27)'"]
    assert sr.eval("local f = load(function() return nil end) return type(f)", 0) == "function"
    code = ("#!lua name=binlib\nserver.register_function('f', function() "
            "return tostring(loadstring(%s)) end)") % DUMP
    sr.function_load(code, replace=True)
    assert sr.fcall("f", 0) == "nil"
    sr.function_flush()
    alive(sr)


def test_text_still_loads(sr):
    assert sr.eval("return loadstring('return 1 + 1')()", 0) == 2
    assert sr.eval("local p = {'return ', '4', '2'} local i = 0 "
                   "return load(function() i = i + 1 return p[i] end)()", 0) == 42


def test_load_reader_errors_as_valkey(sr, valkey):
    for script in ["return {select(2, load(function() error('boom') end))}",
                   "return {select(2, load(function() return {} end))}",
                   "return {select(2, load(function() return nil end, '=name'))}",
                   "return {select(2, loadstring('x = = 1', '@chunk'))}",
                   "return {select(2, loadstring('return [==x'))}"]:
        assert repr(sr.eval(script, 0)) == repr(valkey.eval(script, 0)), script


def test_bit_tohex_digit_counts_cve_2024_31449(sr):
    assert sr.eval("return bit.tohex(65535, -2147483648)", 0) == "0000FFFF"
    assert sr.eval("return bit.tohex(-1, 2147483647)", 0) == "ffffffff"
    alive(sr)


@pytest.mark.parametrize("first,last", [(-2147483648, 2147483647), (0, 2147483647),
                                        (-2, 2147483645), (-2147483648, -1), (1, 1e9)])
def test_unpack_huge_ranges_cve_2025_46817(sr, first, last):
    assert sr.eval(f"local ok, e = pcall(unpack, {{}}, {first}, {last}) return e", 0) == (
        "too many results to unpack")
    alive(sr)


def test_unpack_ordinary_ranges(sr, valkey):
    for args in ["{1, 2, 3}", "{1, 2, 3}, 2", "{1, 2, 3}, 2, 3", "{1, 2, 3}, 3, 1e300",
                 "{1, 2, 3}, 1, 2^32 + 2", "{1, 2, 3}, 2.9, 3.9", "{}, 5, 4"]:
        script = f"return {{select('#', unpack({args})), unpack({args})}}"
        assert sr.eval(script, 0) == valkey.eval(script, 0), args


def test_string_metatable_is_read_only_cve_2025_46818(sr):
    for script in ["local mt = getmetatable('') mt.__index = {} return 1",
                   "getmetatable('').__index.upper = nil",
                   "rawset(getmetatable(''), '__index', {})",
                   "setmetatable(getmetatable(''), {})"]:
        with pytest.raises(redis.ResponseError, match="Attempt to modify a readonly table"):
            sr.eval(script, 0)
    assert sr.eval("return tostring(getmetatable('').__index == string)", 0) == "true"
    # Strings keep their methods for every later script.
    assert sr.eval("return ('abc'):upper()", 0) == "ABC"


def test_cjson_sizes_past_int_buffers_cve_2022_24834(sr):
    # 360 MB * 6 is past INT_MAX: lua-cjson's buffer size wrapped and it wrote out of bounds.
    script = """local s = string.rep('a', 360 * 1024 * 1024)
local ok1, e1 = pcall(cjson.encode, s)
local ok2, e2 = pcall(cjson.new().encode, {s})
s = nil
collectgarbage()
return {tostring(ok1), e1, tostring(ok2), e2}"""
    too_large = "Cannot serialise: JSON text would exceed 1073741824 bytes"
    # Building 360 MB takes seconds on a loaded machine: more than sr's 10 s timeout.
    slow = redis.Redis(**{**sr.connection_pool.connection_kwargs, "socket_timeout": 120})
    got = slow.eval(script, 0)
    slow.close()
    assert got[0] == "false" and got[1].endswith(too_large)
    assert got[2] == "false" and got[3].endswith(too_large)
    assert sr.eval("return cjson.encode({a = {1, 'x'}})", 0) == '{"a":[1,"x"]}'
    assert sr.eval("return cjson.new().decode('[1,2]')[2]", 0) == 2
    alive(sr)


def test_chunk_names_survive_collections_cve_2025_49844(sr):
    # A full collection at every allocation while compiling under many fresh chunk names.
    script = """collectgarbage('setpause', 0) collectgarbage('setstepmul', 1000)
local src = {} for i = 1, 150 do src[#src + 1] = 'local v' .. i .. ' = "' .. i .. '"' end
src = table.concat(src, '\\n') .. '\\nreturn v150'
local out
for i = 1, 20 do
  local f = loadstring(src, '@chunk_' .. i .. string.rep('x', i))
  out = f()
  local g, e = loadstring('x = = 1', '@bad_' .. i)
  assert(e:find('bad_' .. i, 1, true))
end
collectgarbage('setpause', 200) collectgarbage('setstepmul', 200)
return out"""
    assert sr.eval(script, 0) == "150"
    alive(sr)


def test_long_brackets_of_any_ordinary_level_cve_2025_46819(sr):
    # Sources over 1 GiB, the only ones stock Lua's lexer miscomputes, are refused before the
    # lexer (unit test LuaHardening.RefusesSourcesPastTheLexersIntRange: building one here would
    # take seconds and gigabytes); long brackets of any other level still work.
    assert sr.eval("return loadstring('return [' .. string.rep('=', 5000) .. '[x]' .. "
                   "string.rep('=', 5000) .. ']')()", 0) == "x"
    with pytest.raises(redis.ResponseError, match="invalid long string delimiter"):
        sr.eval("return [==x", 0)
    alive(sr)


def test_deep_patterns_refused(sr):
    # Stock 5.1's matcher recursed once per item until the C stack overflowed; Vireo's own
    # matcher (lua_pattern.h, test_script_patterns.py) stops at 1000 nested items.
    with pytest.raises(redis.ResponseError, match="pattern too complex"):
        sr.eval("return string.find(string.rep('a', 150000), string.rep('a?', 150000))", 0)
    assert sr.eval("return string.find(string.rep('a', 900), string.rep('a?', 900))", 0) == 1
    with pytest.raises(redis.ResponseError, match="too many captures"):
        sr.eval("return ('x'):gsub(string.rep('(', 600) .. string.rep(')', 600), '')", 0)
    assert sr.eval("return string.find(string.rep('a?', 2000), string.rep('a?', 1000), 1, "
                   "true)", 0) == 1
    assert sr.eval("return ('a1b2'):gsub('%d', 'x')", 0) == "axbx"
    alive(sr)


def test_recursion_and_coroutines_end_in_errors(sr):
    with pytest.raises(redis.ResponseError, match="stack overflow"):
        sr.eval("local function f(n) return 1 + f(n + 1) end return f(1)", 0)
    with pytest.raises(redis.ResponseError, match="C stack overflow"):
        sr.eval("local function f() return coroutine.wrap(f)() end return f()", 0)
    with pytest.raises(redis.ResponseError, match="loop in gettable"):
        sr.eval("local t = setmetatable({}, {}) getmetatable(t).__index = t return t.x", 0)
    alive(sr)


def test_script_heap_bounded_by_maxmemory(start_server):
    s = start_server("--maxmemory", "64mb")
    # The 200 MB string at the end took over 10 s on the sanitizer build beside other tests.
    r = s.client(decode_responses=True, socket_timeout=120)
    for script in ["local t = {} for i = 1, 1e8 do t[i] = i end return #t",
                   "return #string.rep('x', 1e9)",
                   "local t = {} for i = 1, 1e7 do t[i] = 'v' .. i end return #t"]:
        with pytest.raises(redis.ResponseError) as e:
            r.eval(script, 0)
        assert str(e.value) == "OOM command not allowed when used memory > 'maxmemory'."
        peak = r.info("memory")["used_memory_peak"]
        assert peak < (64 + 32 + 16) * 1024 * 1024, peak
    # A script may catch it and go on; the next scripts run normally.
    assert r.eval("local ok, e = pcall(string.rep, 'x', 1e9) return e", 0) == "not enough memory"
    assert r.eval("return #string.rep('x', 1e6)", 0) == 1000000
    # A slow (sanitizer) build may meet FUNCTION LOAD's 500 ms timeout before the memory limit:
    # either way the load stops.
    with pytest.raises(redis.ResponseError, match="Error registering functions: "
                       "(not enough memory|ERR FUNCTION LOAD timeout)"):
        r.function_load("#!lua name=big\nlocal t = {} for i = 1, 1e8 do t[i] = i end")
    r.config_set("maxmemory", "0")
    assert r.eval("return #string.rep('x', 2e8)", 0) == 200000000
    alive(r)


def peak_rss_mb(server):
    with open(f"/proc/{server.proc.pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no VmHWM")


def test_script_outputs_bounded_by_maxmemory(start_server):
    # One 10 MB string referenced 200 times is 2 GB of reply or arguments the Lua heap never
    # holds; MGET of one 10 MB key 200 times is 2 GB of reply.
    s = start_server("--maxmemory", "64mb")
    r = s.client(decode_responses=True, socket_timeout=120)  # 10 MB strings are slow under ASan
    r.set("k", "x" * 10_000_000)
    refs = "local s = string.rep('x', 1e7) local t = {} for i = 1, 200 do t[i] = s end "
    for script in [refs + "return t",
                   refs + "for i = 1, 200 do t[i] = {ok = s} end return t",
                   refs + "for i = 1, 200 do t[i] = {err = s} end return t",
                   "redis.setresp(3) " + refs +
                   "for i = 1, 200 do t[i] = {verbatim_string = {format = 'txt', string = s}} end "
                   "return t",
                   refs + "return redis.call('rpush', 'l', unpack(t))",
                   "local t = {} for i = 1, 200 do t[i] = 'k' end "
                   "return #redis.call('mget', unpack(t))"]:
        with pytest.raises(redis.ResponseError) as e:
            r.eval(script, 0)
        assert str(e.value).startswith("OOM command not allowed when used memory > 'maxmemory'.")
        assert peak_rss_mb(s) < 500, script
    assert r.llen("l") == 0
    # The error is catchable inside the script, and ordinary sizes pass.
    assert r.eval("local t = {} for i = 1, 200 do t[i] = 'k' end "
                  "return redis.pcall('mget', unpack(t))['err']", 0).startswith("OOM ")
    assert r.eval("local s = string.rep('y', 1e6) return {s, s, s}", 0) == ["y" * 1000000] * 3
    assert len(r.eval("return redis.call('mget', 'k', 'k')", 0)) == 2
    r.config_set("maxmemory", "0")
    assert r.eval("local s = string.rep('x', 1e7) local t = {} for i = 1, 30 do t[i] = s end "
                  "return #redis.call('mget', 'k', 'k', 'k')", 0) == 3
    alive(r)


HEAVY_LOOPS = [
    "for i = 1, 1e6 do local s = string.rep('x', 1e7) end",
    "coroutine.wrap(function() for i = 1, 1e6 do local s = string.rep('x', 1e7) end end)()",
    "local t = {} for i = 1, 1e6 do t[i % 4] = string.rep('y', 1e7) .. i end",
]


@pytest.mark.parametrize("script", HEAVY_LOOPS)
def test_loops_of_few_heavy_instructions_are_killable(start_server, script):
    # Each iteration is a few instructions moving 10 MB: the count hook, due every 100,000
    # instructions, came every ~25,000 iterations (minutes); heavy allocation brings it
    # forward now, so SCRIPT KILL answers at once.
    s = start_server("--busy-reply-threshold", "20")
    assert "Script killed by user with SCRIPT KILL..." in kill_busy_script(s, "EVAL", script, "0")


def test_script_cache_resets_around_gc_cve_2024_46981(sr):
    for flush in ["SYNC", "ASYNC"]:
        for i in range(20):
            sr.eval("local c = cjson.new() local co = coroutine.create(function() "
                    "coroutine.yield(c.encode({%d})) end) coroutine.resume(co) "
                    "local t = {} for j = 1, 1000 do t[j] = {j, tostring(j)} end "
                    "return #t" % i, 0)
            sr.function_load("#!lua name=l%d\nlocal keep\n"
                             "server.register_function('f%d', function() "
                             "keep = keep or cjson.new() return keep.encode({1}) end)" % (i, i))
            assert sr.fcall(f"f{i}", 0) == "[1]"
        sr.execute_command("SCRIPT", "FLUSH", flush)
        sr.execute_command("FUNCTION", "FLUSH", flush)
        assert sr.eval("collectgarbage() return 1", 0) == 1
    alive(sr)


def test_enable_scripting_no_removes_the_commands(start_server):
    s = start_server("--enable-scripting", "no")
    r = s.client(decode_responses=True)
    for args in [("EVAL", "return 1", "0"), ("EVALSHA", "a" * 40, "0"), ("EVAL_RO", "1", "0"),
                 ("EVALSHA_RO", "a" * 40, "0"), ("SCRIPT", "LOAD", "return 1"),
                 ("FCALL", "f", "0"), ("FCALL_RO", "f", "0"), ("FUNCTION", "LIST")]:
        with pytest.raises(redis.ResponseError, match=f"unknown command '{args[0]}'"):
            r.execute_command(*args)
    listed = s.raw().call("COMMAND", "LIST")
    assert b"get" in listed and not {b"eval", b"script", b"fcall", b"function"} & set(listed)
    assert r.config_get("enable-scripting") == {"enable-scripting": "no"}
    with pytest.raises(redis.ResponseError, match="immutable"):
        r.config_set("enable-scripting", "yes")
    assert "Scripting is disabled (enable-scripting no)" in s.log()
    assert r.set("k", "v") and r.get("k") == "v"
    t = start_server()
    assert t.client().config_get("enable-scripting") == {"enable-scripting": "yes"}


def test_huge_numbers_as_int_arguments(sr, valkey):
    # A C cast of 1e308 to int was undefined behaviour (UBSan; found by script_fuzzer).
    for script in ["redis.setresp(1e308)", "redis.setresp(0/0)", "redis.set_repl(-1e308)",
                   "redis.log(1e300, 'x')", "error({err='x', line=1e300})"]:
        with pytest.raises(redis.ResponseError) as ours:
            sr.eval(script, 0)
        with pytest.raises(redis.ResponseError) as theirs:
            valkey.eval(script, 0)
        assert str(ours.value).split(" script: ")[0] == str(theirs.value).split(" script: ")[0]
    alive(sr)


def test_table_insert_far_below_one_refused(sr):
    # Stock Lua 5.1 (and valkey-server 8.0.1) spend minutes moving 2^31 slots in one C call,
    # beyond SCRIPT KILL's reach (found by script_fuzzer).
    with pytest.raises(redis.ResponseError, match="position out of bounds"):
        sr.eval("table.insert({}, -2^31, 'x')", 0)
    assert sr.eval("local t = {'b'} table.insert(t, 1, 'a') table.insert(t, 'c') "
                   "return t", 0) == ["a", "b", "c"]
    alive(sr)
