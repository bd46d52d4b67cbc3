"""Lua scripting against the real server: EVAL/EVALSHA/SCRIPT, the sandbox, read-only
scripts, busy scripts (BUSY for other clients, SCRIPT KILL / FUNCTION KILL, UNKILLABLE after a
write, SHUTDOWN NOSAVE), and functions (FUNCTION LOAD/LIST/DELETE/DUMP/RESTORE, FCALL), with
several clients at once. Nothing asserts on time: busy states are awaited with wait_for.
"""

import os

import pytest
import redis

from conftest import RespError, wait_for

BUSY_EVAL = RespError("BUSY Valkey is busy running a script. You can only call SCRIPT KILL or "
                      "SHUTDOWN NOSAVE.")
BUSY_FUNCTION = RespError("BUSY Valkey is busy running a script. You can only call FUNCTION "
                          "KILL or SHUTDOWN NOSAVE.")

LIB = """#!lua name=mylib
local function key_of(keys) return keys[1] end
redis.register_function('setter', function(keys, args)
  return redis.call('set', key_of(keys), args[1])
end)
redis.register_function{function_name='getter', callback=function(keys)
  return redis.call('get', keys[1])
end, flags={'no-writes'}, description='reads a key'}
"""


def test_eval_and_evalsha_share_the_cache(sr):
    assert sr.eval("return redis.call('set', KEYS[1], ARGV[1])", 1, "k", "v") == "OK"
    sha = sr.script_load("return redis.call('get', KEYS[1])")
    assert sr.evalsha(sha, 1, "k") == "v"
    assert sr.script_exists(sha, "0" * 40) == [True, False]
    assert sr.script_flush() is True
    with pytest.raises(redis.exceptions.NoScriptError):
        sr.evalsha(sha, 1, "k")


def test_benchmark_seed_script_and_server_alias(sr):
    # vireo-benchmark's seed: `script load "server.call('set','foo','bar')"`.
    sha = sr.execute_command("SCRIPT", "LOAD", "server.call('set','foo','bar')")
    assert len(sha) == 40
    assert sr.evalsha(sha, 0) is None
    assert sr.get("foo") == "bar"
    assert sr.eval("return server.pcall('get', 'foo')", 0) == "bar"


def test_conversions_seen_by_a_client(sr):
    assert sr.eval("return {1, 2.9, 'x', true, false, nil, 7}", 0) == [1, 2, "x", 1, None]
    assert sr.eval("return redis.status_reply('FINE')", 0) == "FINE"
    with pytest.raises(redis.ResponseError, match="^MY error$"):
        sr.eval("return redis.error_reply('MY error')", 0)
    sr.hset("h", "f", "v")
    assert sr.eval("redis.setresp(3) local t = redis.call('hgetall', 'h') return t.map.f", 0) == "v"


def test_sandbox(sr):
    with pytest.raises(redis.ResponseError, match="Attempt to modify a readonly table"):
        sr.eval("x = 1", 0)
    with pytest.raises(redis.ResponseError, match="Attempt to modify a readonly table"):
        sr.eval("redis.call = function() end", 0)
    for name in ["io", "loadfile", "dofile", "print", "debug", "require"]:
        with pytest.raises(redis.ResponseError, match=f"nonexistent global variable '{name}'"):
            sr.eval(f"return {name}", 0)
    # The globals stay intact for the next script.
    assert sr.eval("return type(redis.call)", 0) == "function"
    assert sr.eval("return cjson.encode({a = bit.band(6, 3)})", 0) == '{"a":2}'


def test_bit_library_edges(sr):
    # Vireo's own bit library (src/scripting/lua_bit.cc; the unit tests cover the rest). Debian's
    # lua-bitop crashed the server on this tohex count. Replies as valkey-server 8.0 gives them.
    assert sr.eval("return bit.tohex(65535, -2147483648)", 0) == "0000FFFF"
    assert sr.eval("return {bit.tobit(2^31), bit.bswap(0x12345678), bit.rol(1, -1)}", 0) == [
        -2147483648, 0x78563412, -2147483648]
    with pytest.raises(redis.ResponseError,
                       match=r"bad argument #1 to 'tohex' \(number expected, got no value\)"):
        sr.eval("return bit.tohex()", 0)
    assert sr.ping()


def test_errors_name_the_script_and_line(sr):
    with pytest.raises(redis.ResponseError) as e:
        sr.eval("local a = 1\nreturn redis.call('nosuch')", 0)
    msg = str(e.value)
    assert msg.startswith("Unknown command called from script script: ")
    assert msg.endswith(", on @user_script:2.")
    with pytest.raises(redis.ResponseError, match="Wrong number of args calling command from script"):
        sr.eval("return redis.call('get')", 0)


def test_read_only_scripts(sr):
    with pytest.raises(redis.ResponseError, match="Write commands are not allowed from read-only"):
        sr.eval_ro("return redis.call('set', 'k', 'v')", 1, "k")
    with pytest.raises(redis.ResponseError, match="Write commands are not allowed from read-only"):
        sr.eval("#!lua flags=no-writes\nreturn redis.call('del', 'k')", 0)
    sr.set("k", "v")
    assert sr.eval_ro("return redis.call('get', KEYS[1])", 1, "k") == "v"
    sha = sr.script_load("return redis.call('incr', KEYS[1])")
    with pytest.raises(redis.ResponseError, match="Write commands are not allowed"):
        sr.evalsha_ro(sha, 1, "n")


def test_script_writes_are_seen_by_other_clients(server):
    a, b = server.client(), server.client()
    b.set("k", "1")
    with b.pipeline(transaction=True) as p:
        p.watch("k")
        a.eval("return redis.call('incr', KEYS[1])", 1, "k")  # invalidates b's WATCH
        p.multi()
        p.set("k", "x")
        with pytest.raises(redis.WatchError):
            p.execute()
    assert b.get("k") == "2"


def test_script_writes_fire_keyspace_events(server):
    a = server.client()
    a.config_set("notify-keyspace-events", "KEA")
    sub = server.client().pubsub()
    sub.psubscribe("__keyevent@0__:*")
    wait_for(lambda: sub.get_message(timeout=0.1) is not None)
    a.eval("redis.call('set', 'k', 'v') redis.call('del', 'k')", 0)
    events = []
    wait_for(lambda: (events.append(sub.get_message(timeout=0.1)) or
                      [m["channel"] for m in events if m] ==
                      ["__keyevent@0__:set", "__keyevent@0__:del"]))
    sub.close()


def busy_server(start_server):
    s = start_server("--busy-reply-threshold", "20")
    return s, s.raw(), s.raw()


def test_busy_script_is_killed_by_another_client(start_server):
    server, runner, other = busy_server(start_server)
    runner.send_command("EVAL", "local i = 0 while true do i = i + 1 end", "0")
    wait_for(lambda: other.call("PING") == BUSY_EVAL)
    assert other.call("FUNCTION", "KILL") == BUSY_EVAL
    assert other.call("SCRIPT", "KILL") == "OK"
    err = runner.read_reply()
    assert isinstance(err, RespError)
    assert str(err).startswith("ERR Script killed by user with SCRIPT KILL... script: ")
    assert other.call("PING") == "PONG"
    assert runner.call("PING") == "PONG"
    assert other.call("SCRIPT", "KILL") == RespError("NOTBUSY No scripts in execution right now.")


def test_pcall_cannot_swallow_script_kill(start_server):
    server, runner, other = busy_server(start_server)
    runner.send_command("EVAL", "while true do pcall(function() while true do end end) end", "0")
    wait_for(lambda: other.call("PING") == BUSY_EVAL)
    assert other.call("SCRIPT", "KILL") == "OK"
    assert isinstance(runner.read_reply(), RespError)
    assert runner.call("PING") == "PONG"


def test_script_that_wrote_is_unkillable_until_shutdown_nosave(start_server):
    server, runner, other = busy_server(start_server)
    runner.send_command("EVAL", "redis.call('set', 'x', '1') while true do end", "0")
    wait_for(lambda: other.call("PING") == BUSY_EVAL)
    assert str(other.call("SCRIPT", "KILL")).startswith("UNKILLABLE Sorry the script already")
    assert other.call("SHUTDOWN") == BUSY_EVAL
    other.send_command("SHUTDOWN", "NOSAVE")
    wait_for(lambda: not server.is_alive())


def test_functions(server):
    a, b = server.client(), server.client()
    assert a.function_load(LIB) == "mylib"
    with pytest.raises(redis.ResponseError, match="Library 'mylib' already exists"):
        a.function_load(LIB)
    assert b.fcall("setter", 1, "k", "v") == "OK"
    assert b.fcall_ro("getter", 1, "k") == "v"
    with pytest.raises(redis.ResponseError, match="Can not execute a script with write flag"):
        b.fcall_ro("setter", 1, "k", "w")
    libs = b.function_list(library="my*")
    assert libs[0][1] == "mylib"
    fns = {f[1]: f for f in libs[0][5]}
    assert fns["getter"][3] == "reads a key" and fns["getter"][5] == ["no-writes"]
    assert fns["setter"][3] is None
    with pytest.raises(redis.ResponseError, match="nonexistent global variable 'call'"):
        a.function_load("#!lua name=bad\nredis.call('ping')")
    payload = a.function_dump()
    assert a.function_delete("mylib")
    with pytest.raises(redis.ResponseError, match="Function not found"):
        b.fcall("getter", 1, "k")
    assert a.function_restore(payload)
    assert b.fcall("getter", 1, "k") == "v"
    stats = b.execute_command("FUNCTION", "STATS")
    assert stats[3] == ["LUA", ["libraries_count", 1, "functions_count", 2]]
    assert a.function_flush()
    assert a.function_list() == []


def test_busy_function_is_killed_by_function_kill(start_server):
    server, runner, other = busy_server(start_server)
    assert other.call("FUNCTION", "LOAD",
                      "#!lua name=spin\nredis.register_function('spin', function() "
                      "while true do end end)") == b"spin"
    runner.send_command("FCALL", "spin", "0")
    wait_for(lambda: other.call("PING") == BUSY_FUNCTION)
    stats = other.call("FUNCTION", "STATS")
    assert stats[1][:4] == [b"name", b"spin", b"command", [b"FCALL", b"spin", b"0"]]
    assert other.call("SCRIPT", "KILL") == BUSY_FUNCTION
    assert other.call("FUNCTION", "KILL") == "OK"
    assert isinstance(runner.read_reply(), RespError)
    assert runner.call("FCALL", "nosuch", "0") == RespError("ERR Function not found")


def test_lua_time_limit_is_an_alias(server):
    c = server.client()
    assert c.config_set("lua-time-limit", "1234") is True
    assert c.config_get("busy-reply-threshold") == {"busy-reply-threshold": "1234"}
    c.script_load("return 1")
    c.function_load("#!lua name=l\nredis.register_function('f', function() return 1 end)")
    info = c.info("memory")
    assert info["number_of_cached_scripts"] == 1
    assert info["number_of_functions"] == 1 and info["number_of_libraries"] == 1
    assert info["used_memory_lua"] > 0


def _declared_flag_replies(server):
    """Replies to scripts with and without declared flags under maxmemory, EVAL_RO, and on a
    stale read-only replica (its master unreachable)."""
    c = server.raw()
    out = []
    write = "#!lua\nreturn 1"
    no_writes = "#!lua flags=no-writes\nreturn 1"
    stale_ok = "#!lua flags=no-writes,allow-stale\nreturn 1"
    c.call("CONFIG", "SET", "maxmemory", "1")
    out += [c.call("EVAL", s, 0) for s in (write, no_writes, "return 1")]
    c.call("CONFIG", "SET", "maxmemory", "0")
    out.append(c.call("EVAL_RO", write, 0))
    c.call("REPLICAOF", "127.0.0.1", "1")
    out.append(c.call("EVAL", write, 0))
    c.call("CONFIG", "SET", "replica-serve-stale-data", "no")
    out += [c.call("EVAL", s, 0) for s in (write, no_writes, stale_ok, "return 1")]
    c.call("REPLICAOF", "NO", "ONE")
    return out


def test_declared_script_flags_are_checked_before_the_script_runs(start_server):
    replies = _declared_flag_replies(start_server())
    assert replies[0] == RespError("OOM command not allowed when used memory > 'maxmemory'.")
    assert replies[3] == RespError(
        "ERR Can not execute a script with write flag using *_ro command.")
    assert replies[4] == RespError("READONLY You can't write against a read only replica.")
    assert replies[-2] == 1
    if os.path.exists("/usr/bin/redis-server"):
        assert replies == _declared_flag_replies(start_server(binary="/usr/bin/redis-server"))
