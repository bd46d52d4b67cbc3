"""Keys family and whole-database commands through redis-py and raw sockets.

Replies and error texts are redis-server 7.0's (run with VIREO_SERVER=/usr/bin/redis-server to
check the tests themselves against the reference).
"""

import pytest
import redis

from conftest import RespError


def test_del_unlink_exists_type(sr):
    sr.mset({"a": "1", "b": "2", "c": "hello"})
    assert sr.exists("a", "a", "b", "nope") == 3
    assert sr.type("c") == "string"
    assert sr.type("nope") == "none"
    assert sr.delete("a", "a", "nope") == 1
    assert sr.unlink("b", "c", "nope") == 2
    assert sr.dbsize() == 0
    with pytest.raises(redis.ResponseError, match="wrong number of arguments for 'del'"):
        sr.execute_command("DEL")


def test_unlink_large_value(sr):
    big = "x" * (8 * 1024 * 1024)
    sr.set("big", big)
    sr.append("big", "y")
    assert sr.unlink("big") == 1
    assert sr.exists("big") == 0
    assert sr.ping()


def test_rename_and_renamenx(sr):
    with pytest.raises(redis.ResponseError, match="^no such key$"):
        sr.rename("nope", "x")
    with pytest.raises(redis.ResponseError, match="^no such key$"):
        sr.renamenx("nope", "nope")
    sr.set("a", "1")
    assert sr.rename("a", "a") is True
    sr.set("b", "2")
    sr.pexpireat("a", 99999999999999)
    assert sr.rename("a", "b") is True
    assert sr.get("b") == "1"
    assert sr.pexpiretime("b") == 99999999999999
    assert sr.exists("a") == 0
    sr.set("c", "3")
    assert sr.renamenx("c", "b") is False
    assert sr.renamenx("c", "c") is False
    assert sr.renamenx("c", "d") is True
    assert sr.get("d") == "3"


def test_copy(sr):
    assert sr.copy("nope", "x") is False
    sr.set("src", "value")
    sr.pexpireat("src", 99999999999999)
    with pytest.raises(redis.ResponseError, match="^source and destination objects are the same$"):
        sr.copy("src", "src")
    assert sr.copy("src", "dst") is True
    assert sr.get("dst") == "value"
    assert sr.pexpiretime("dst") == 99999999999999
    assert sr.copy("src", "dst") is False
    sr.set("src", "changed")
    assert sr.get("dst") == "value"
    assert sr.copy("src", "dst", replace=True) is True
    assert sr.get("dst") == "changed"
    assert sr.copy("src", "src", destination_db=3) is True
    sr.execute_command("SELECT", 3)
    assert sr.get("src") == "changed"
    sr.execute_command("SELECT", 0)
    for args, msg in [(("db", "16"), "DB index is out of range"),
                      (("db", "x"), "value is not an integer or out of range"),
                      (("db",), "syntax error"),
                      (("bogus",), "syntax error")]:
        with pytest.raises(redis.ResponseError) as e:
            sr.execute_command("COPY", "src", "other", *args)
        assert str(e.value) == msg


def test_move(sr):
    sr.set("k", "v")
    with pytest.raises(redis.ResponseError, match="^source and destination objects are the same$"):
        sr.move("k", 0)
    with pytest.raises(redis.ResponseError, match="^DB index is out of range$"):
        sr.move("k", 16)
    assert sr.move("nope", 1) is False
    assert sr.move("k", 1) is True
    sr.set("k", "again")
    assert sr.move("k", 1) is False
    sr.execute_command("SELECT", 1)
    assert sr.get("k") == "v"
    sr.execute_command("SELECT", 0)


def test_touch_and_object(sr, shared_server):
    sr.set("i", "7")
    sr.set("big", "123456")
    sr.set("s", "short")
    sr.set("r", "r" * 100)
    assert sr.touch("i", "s", "nope", "i") == 3
    assert sr.object("encoding", "i") == "int"
    assert sr.object("encoding", "s") == "embstr"
    assert sr.object("encoding", "r") == "raw"
    assert sr.object("encoding", "nope") is None
    assert sr.object("refcount", "i") == 2147483647  # Valkey's shared small integers
    assert sr.object("refcount", "big") == 1
    assert sr.object("refcount", "s") == 1
    assert sr.object("idletime", "s") <= 1  # the seconds clock may tick after the TOUCH
    with pytest.raises(redis.ResponseError, match="An LFU maxmemory policy is not selected"):
        sr.object("freq", "s")
    with pytest.raises(redis.ResponseError, match=r"unknown subcommand 'NOSUCH'. Try OBJECT HELP."):
        sr.execute_command("OBJECT", "NOSUCH", "s")
    help_lines = shared_server.raw().call("OBJECT", "HELP")  # redis-py cannot parse it
    assert help_lines[0] == "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    assert help_lines[-1] == "    Print this help."
    assert len(help_lines) == 15


def test_object_under_lfu_policy(r):
    r.set("k", "v")
    r.config_set("maxmemory-policy", "allkeys-lfu")
    assert isinstance(r.object("freq", "k"), int)
    with pytest.raises(redis.ResponseError, match="An LFU maxmemory policy is selected"):
        r.object("idletime", "k")


def test_object_missing_key_resp3(server):
    raw = server.raw()
    raw.call("HELLO", "3")
    assert raw.call("OBJECT", "ENCODING", "nope") is None
    assert raw.call("TYPE", "nope") == "none"
    assert raw.call("RANDOMKEY") is None


def test_randomkey(sr):
    assert sr.randomkey() is None
    sr.set("only", "1")
    assert sr.randomkey() == "only"
    sr.mset({f"k{i}": i for i in range(50)})
    seen = {sr.randomkey() for _ in range(200)}
    assert len(seen) > 5
    assert seen <= {"only"} | {f"k{i}" for i in range(50)}


def test_keys_patterns(sr):
    for k in ["a", "b", "ab", "hello", "hallo", "h*llo", ""]:
        sr.set(k, "1")
    assert sorted(sr.keys("*")) == sorted(["a", "b", "ab", "hello", "hallo", "h*llo", ""])
    assert sorted(sr.keys("?")) == ["a", "b"]
    assert sorted(sr.keys("h[ae]llo")) == ["hallo", "hello"]
    assert sr.keys("h\\*llo") == ["h*llo"]
    assert sr.keys("nomatch*") == []


def test_scan_full_iteration_and_options(sr):
    sr.mset({f"user:{i}": "v" for i in range(300)})
    sr.mset({f"item:{i}": "v" for i in range(300)})
    assert set(sr.scan_iter()) == {f"user:{i}" for i in range(300)} | {
        f"item:{i}" for i in range(300)}
    assert set(sr.scan_iter(match="user:1?", count=7)) == {f"user:1{i}" for i in range(10)}
    assert len(set(sr.scan_iter(_type="string", count=1000))) == 600
    assert list(sr.scan_iter(_type="list")) == []
    cursor, keys = sr.scan(0, count=1000000)
    assert cursor == 0 and len(keys) == 600


def test_scan_errors(sr):
    for args, msg in [(("abc",), "invalid cursor"),
                      (("18446744073709551616",), "invalid cursor"),
                      (("0", "COUNT", "0"), "syntax error"),
                      (("0", "COUNT", "x"), "value is not an integer or out of range"),
                      (("0", "MATCH"), "syntax error"),
                      (("0", "BOGUS", "1"), "syntax error"),
                      # Valkey 8: a negative cursor, an empty one and an unknown TYPE are
                      # refused (Redis 7.0 took them as 2^64-1, 0 and "matches nothing").
                      (("-1",), "invalid cursor"),
                      (("",), "invalid cursor"),
                      (("0", "TYPE", "nosuch", "COUNT", "x"), "unknown type name 'nosuch'"),
                      (("0", "COUNT", "x", "TYPE", "nosuch"),
                       "value is not an integer or out of range")]:
        with pytest.raises(redis.ResponseError) as e:
            sr.execute_command("SCAN", *args)
        assert str(e.value) == msg


def test_scan_returns_cursor_as_bulk_string(server):
    raw = server.raw()
    raw.call("SET", "k", "v")
    assert raw.call("SCAN", "0") == [b"0", [b"k"]]


def test_scan_while_inserting(sr):
    """Every key present for the whole scan is returned, while inserts grow the table."""
    original = {f"orig:{i}" for i in range(2000)}
    sr.mset({k: "v" for k in original})
    seen = set()
    cursor = 0
    steps = 0
    added = 0
    while True:
        cursor, keys = sr.scan(cursor, count=20)
        seen.update(keys)
        steps += 1
        if steps <= 60:
            # Insert during the first part of the scan so the table resizes under it.
            sr.mset({f"new:{added + j}": "v" for j in range(200)})
            added += 200
        if cursor == 0:
            break
        assert steps < 100000
    assert original <= seen
    assert sr.dbsize() == 2000 + added


def test_dbsize_flushdb_flushall(sr):
    sr.mset({"a": "1", "b": "2"})
    assert sr.dbsize() == 2
    sr.execute_command("SELECT", 2)
    sr.set("c", "3")
    assert sr.flushdb() is True
    assert sr.dbsize() == 0
    sr.execute_command("SELECT", 0)
    assert sr.dbsize() == 2
    assert sr.flushdb(asynchronous=True) is True
    assert sr.dbsize() == 0
    sr.set("a", "1")
    assert sr.execute_command("FLUSHDB", "SYNC") in (True, "OK")
    assert sr.dbsize() == 0
    with pytest.raises(redis.ResponseError, match="^syntax error$"):
        sr.execute_command("FLUSHDB", "NOW")
    for db in range(3):
        sr.execute_command("SELECT", db)
        sr.set("k", "v")
    assert sr.flushall(asynchronous=True) is True
    for db in range(3):
        sr.execute_command("SELECT", db)
        assert sr.dbsize() == 0
    sr.execute_command("SELECT", 0)
    sr.set("k", "v")
    assert sr.flushall() is True
    assert sr.dbsize() == 0
    with pytest.raises(redis.ResponseError, match="^syntax error$"):
        sr.execute_command("FLUSHALL", "ASYNC", "SYNC")


def test_flushall_async_large(sr):
    pipe = sr.pipeline(transaction=False)
    for i in range(20000):
        pipe.set(f"key:{i}", "v" * 50)
    pipe.execute()
    assert sr.dbsize() == 20000
    assert sr.flushall(asynchronous=True) is True
    assert sr.dbsize() == 0
    sr.set("after", "1")
    assert sr.get("after") == "1"


def test_lazyfree_lazy_user_flush(r):
    r.config_set("lazyfree-lazy-user-flush", "yes")
    r.mset({f"k{i}": "v" for i in range(100)})
    assert r.flushdb() is True
    assert r.dbsize() == 0


def test_swapdb(sr):
    sr.set("in0", "a")
    sr.execute_command("SELECT", 1)
    sr.set("in1", "b")
    sr.execute_command("SELECT", 0)
    assert sr.swapdb(0, 1) is True
    assert sr.get("in1") == "b"
    assert sr.exists("in0") == 0
    assert sr.swapdb(0, 0) is True
    for args, msg in [((0, 16), "DB index is out of range"),
                      (("x", 1), "invalid first DB index"),
                      ((1, "x"), "invalid second DB index")]:
        with pytest.raises(redis.ResponseError) as e:
            sr.execute_command("SWAPDB", *args)
        assert str(e.value) == msg
    assert sr.swapdb(1, 0) is True
    assert sr.get("in0") == "a"


def test_swapdb_seen_by_other_client(server):
    a = server.client()
    b = server.client()
    a.set("k", "from0")
    b.execute_command("SELECT", 5)
    assert b.get("k") is None
    a.swapdb(0, 5)
    assert b.get("k") == "from0"
    assert a.get("k") is None


def test_command_info_key_specs(shared_server):
    raw = shared_server.raw()
    info = raw.call("COMMAND", "INFO", "rename", "del", "scan", "expire", "ttl", "flushall")
    if isinstance(info, RespError) or not info or info[0] is None:
        pytest.skip("COMMAND INFO not available yet")
    by_name = {entry[0]: entry[1:6] for entry in info}
    assert by_name[b"rename"] == [3, ["write"], 1, 2, 1]
    assert by_name[b"del"] == [-2, ["write"], 1, -1, 1]
    assert by_name[b"scan"] == [-2, ["readonly"], 0, 0, 0]
    assert by_name[b"expire"] == [-3, ["write", "fast"], 1, 1, 1]
    assert by_name[b"ttl"] == [2, ["readonly", "fast"], 1, 1, 1]
    assert by_name[b"flushall"] == [-1, ["write"], 0, 0, 0]


def test_raw_errors(raw):
    assert raw.call("RENAME", "nope", "x") == RespError("ERR no such key")
    assert raw.call("OBJECT") == RespError("ERR wrong number of arguments for 'object' command")
    assert raw.call("OBJECT", "ENCODING") == RespError(
        "ERR wrong number of arguments for 'object|encoding' command")
    assert raw.call("MOVE", "k", "99999999999") == RespError(
        "ERR value is out of range, value must between -2147483648 and 2147483647")


def test_scan_type_and_cursor_as_valkey(server, valkey_process):
    """Valkey 8 refuses a TYPE no key can have, and reads cursors as strtoull after refusing
    negative canonical integers (found by run_compat against valkey-server 8.0.1)."""
    cases = [("SCAN", "0", "TYPE", "nosuchtype"), ("SCAN", "0", "TYPE", "STRING"),
             ("SCAN", "0", "TYPE", ""), ("SCAN", "0", "TYPE", "bad", "COUNT", "0"),
             ("SCAN", "0", "COUNT", "0", "TYPE", "bad"), ("SCAN", " 0"), ("SCAN", "-1"),
             ("SCAN", ""), ("SCAN", "+0"), ("SCAN", "-18446744073709551616"),
             ("HSCAN", "h", " 0"), ("HSCAN", "h", "-1"), ("SSCAN", "s", "\t0"),
             ("ZSCAN", "z", "")]

    def replies(client):
        client.flushall()
        client.set("k", "v")
        client.hset("h", "f", "v")
        client.sadd("s", "m")
        client.zadd("z", {"m": 1})
        out = []
        for case in cases:
            try:
                cursor, items = client.execute_command(*case)
                out.append((cursor, sorted(items)))  # each server's own table order
            except redis.ResponseError as e:
                out.append(str(e))
        return out

    assert replies(server.client()) == replies(valkey_process.client())
