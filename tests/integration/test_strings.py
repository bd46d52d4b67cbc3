"""String family end to end: redis-py, raw RESP2/RESP3 sockets, expiry and size limits.

Every expectation holds for redis-server 7.0 too (run with VIREO_SERVER=/usr/bin/redis-server).
"""

import time

import pytest
import redis

from conftest import RespError, wait_for

TOO_LONG = "string exceeds maximum allowed size (proto-max-bulk-len)"


def error_of(client, *args):
    with pytest.raises(redis.ResponseError) as info:
        client.execute_command(*args)
    return str(info.value)


def eventually(predicate, timeout=5.0):
    """Polls predicate until it holds; no assertion on how long it took."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def make_list(client, key):
    try:
        client.rpush(key, "a")
    except redis.ResponseError as e:
        pytest.skip(f"no list type yet: {e}")


def test_set_get_basics(sr):
    assert sr.get("k") is None
    assert sr.set("k", "v") is True
    assert sr.get("k") == "v"
    assert sr.set("k", "w", nx=True) is None
    assert sr.set("k", "w", xx=True) is True
    assert sr.set("other", "w", xx=True) is None
    assert sr.exists("other") == 0
    assert sr.set("k", "x", get=True) == "w"
    assert sr.set("new", "x", nx=True, get=True) is None
    assert sr.get("new") == "x"


def test_set_option_errors(sr):
    assert error_of(sr, "SET", "k", "v", "NX", "XX") == "syntax error"
    assert error_of(sr, "SET", "k", "v", "EX", "10", "PX", "10") == "syntax error"
    assert error_of(sr, "SET", "k", "v", "EX", "10", "KEEPTTL") == "syntax error"
    assert error_of(sr, "SET", "k", "v", "EX") == "syntax error"
    assert error_of(sr, "SET", "k", "v", "EX", "0") == "invalid expire time in 'set' command"
    assert error_of(sr, "SET", "k", "v", "PX", "-5") == "invalid expire time in 'set' command"
    assert (error_of(sr, "SET", "k", "v", "EX", "9223372036854775807")
            == "invalid expire time in 'set' command")
    assert error_of(sr, "SET", "k", "v", "EX", "ten") == "value is not an integer or out of range"
    assert error_of(sr, "SETEX", "k", "0", "v") == "invalid expire time in 'setex' command"
    assert error_of(sr, "PSETEX", "k", "-1", "v") == "invalid expire time in 'psetex' command"
    assert error_of(sr, "GETEX", "k", "EX", "1", "PERSIST") == "syntax error"
    assert error_of(sr, "MSET", "a", "1", "b") == "wrong number of arguments for 'mset' command"
    assert sr.exists("k") == 0


def test_set_px_expires(sr):
    assert sr.set("k", "v", px=100) is True
    assert 0 < sr.pttl("k") <= 100
    assert eventually(lambda: sr.get("k") is None)
    assert sr.exists("k") == 0


def test_setex_psetex_getex_expiry(sr):
    assert sr.setex("a", 100, "v") is True
    assert 90 <= sr.ttl("a") <= 100
    assert sr.psetex("b", 100, "v") is True
    assert eventually(lambda: sr.get("b") is None)
    sr.set("c", "v")
    assert sr.getex("c", px=100) == "v"
    assert eventually(lambda: sr.exists("c") == 0)
    sr.set("d", "v", ex=100)
    assert sr.getex("d", persist=True) == "v"
    assert sr.ttl("d") == -1
    assert sr.getex("d", exat=1) == "v"
    assert sr.get("d") is None


def test_keepttl_and_overwrite_clears_ttl(sr):
    sr.set("k", "v", ex=100)
    sr.set("k", "w", keepttl=True)
    assert sr.ttl("k") > 0
    sr.set("k", "x")
    assert sr.ttl("k") == -1
    sr.set("k", "v", ex=100)
    assert sr.getset("k", "y") == "v"
    assert sr.ttl("k") == -1
    sr.set("k", "v", ex=100)
    sr.mset({"k": "z"})
    assert sr.ttl("k") == -1


def test_past_exat_deletes_key(sr):
    sr.set("k", "v")
    assert sr.set("k", "w", exat=1) is True
    assert sr.get("k") is None
    assert sr.exists("k") == 0


def test_mget_mset_msetnx(sr):
    assert sr.mset({"a": "1", "b": "2"}) is True
    assert sr.mget("a", "missing", "b") == ["1", None, "2"]
    assert sr.msetnx({"a": "x", "c": "3"}) is False
    assert sr.exists("c") == 0
    assert sr.msetnx({"c": "3", "d": "4"}) is True
    assert sr.mget("c", "d") == ["3", "4"]


def test_getdel_getset(sr):
    assert sr.getset("k", "1") is None
    assert sr.getset("k", "2") == "1"
    assert sr.getdel("k") == "2"
    assert sr.getdel("k") is None
    assert sr.exists("k") == 0


def test_append_strlen_ranges(sr):
    assert sr.append("k", "Hello") == 5
    assert sr.append("k", " World") == 11
    assert sr.get("k") == "Hello World"
    assert sr.strlen("k") == 11
    assert sr.strlen("missing") == 0
    assert sr.getrange("k", 0, 4) == "Hello"
    assert sr.getrange("k", -5, -1) == "World"
    assert sr.getrange("k", 0, -100) == "H"
    assert sr.getrange("k", 5, 2) == ""
    assert sr.getrange("missing", 0, -1) == ""
    assert sr.execute_command("SUBSTR", "k", 6, 100) == "World"
    assert sr.setrange("k", 6, "Redis") == 11
    assert sr.get("k") == "Hello Redis"
    assert sr.setrange("pad", 3, "x") == 4
    assert sr.get("pad") == "\x00\x00\x00x"
    assert sr.setrange("empty", 10, "") == 0
    assert sr.exists("empty") == 0
    assert error_of(sr, "SETRANGE", "k", "-1", "x") == "offset is out of range"


def test_incr_family(sr):
    assert sr.incr("n") == 1
    assert sr.incrby("n", 41) == 42
    assert sr.decr("n") == 41
    assert sr.decrby("n", 50) == -9
    sr.set("big", "9223372036854775807")
    assert error_of(sr, "INCR", "big") == "increment or decrement would overflow"
    assert error_of(sr, "DECRBY", "n", "-9223372036854775808") == "decrement would overflow"
    sr.set("s", "12a")
    assert error_of(sr, "INCR", "s") == "value is not an integer or out of range"
    assert error_of(sr, "INCRBY", "n", "1.5") == "value is not an integer or out of range"


def test_incrbyfloat(sr):
    assert sr.incrbyfloat("f", 10.5) == 10.5
    sr.incrbyfloat("f", 0.1)
    assert sr.get("f") == "10.6"  # the stored text, not a float's repr
    sr.set("g", "5.0e3")
    sr.execute_command("INCRBYFLOAT", "g", "2.0e2")
    assert sr.get("g") == "5200"
    assert error_of(sr, "INCRBYFLOAT", "g", "x") == "value is not a valid float"
    assert error_of(sr, "INCRBYFLOAT", "g", "inf") == "increment would produce NaN or Infinity"


def test_wrongtype(sr):
    make_list(sr, "l")
    for args in (("GET", "l"), ("SET", "l", "v", "GET"), ("APPEND", "l", "x"), ("INCR", "l"),
                 ("INCRBYFLOAT", "l", "1"), ("STRLEN", "l"), ("GETRANGE", "l", "0", "1"),
                 ("SETRANGE", "l", "0", "x"), ("GETDEL", "l"), ("GETEX", "l"),
                 ("GETSET", "l", "v")):
        with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
            sr.execute_command(*args)
    assert sr.mget("l") == [None]
    assert error_of(sr, "LCS", "l", "l") == "The specified keys must contain string values"
    assert sr.set("l", "v") is True
    assert sr.get("l") == "v"


def test_lcs(sr):
    sr.mset({"k1": "ohmytext", "k2": "mynewtext"})
    assert sr.execute_command("LCS", "k1", "k2") == "mytext"
    assert sr.execute_command("LCS", "k1", "k2", "LEN") == 6
    assert sr.execute_command("LCS", "k1", "k2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN") == [
        "matches", [[[4, 7], [5, 8], 4]], "len", 6]
    assert (error_of(sr, "LCS", "k1", "k2", "IDX", "LEN")
            == "If you want both the length and indexes, please just use IDX.")


def test_binary_values_and_resp3(shared_server, sr):
    with shared_server.raw() as raw:
        value = b"a\r\nb\x00c\xff"
        assert raw.call("SET", "bin", value) == "OK"
        assert raw.call("GET", "bin") == value
        assert raw.call("STRLEN", "bin") == len(value)
        assert raw.call("GETRANGE", "bin", 1, 3) == b"\r\nb"
        assert raw.call("GET", "missing") is None
        raw.call("HELLO", "3")
        assert raw.call("GET", "missing") is None
        raw.call("MSET", "k1", "ohmytext", "k2", "mynewtext")
        assert raw.call("LCS", "k1", "k2", "IDX") == {
            b"matches": [[[4, 7], [5, 8]], [[2, 3], [0, 1]]], b"len": 6}
        assert raw.call("INCRBYFLOAT", "f", "1.5") == b"1.5"
        assert raw.call("MGET", "k1", "missing") == [b"ohmytext", None]
        assert raw.call("SET", "k1", "v", "EX", "0") == RespError(
            "ERR invalid expire time in 'set' command")


def test_big_values(sr):
    big = "x" * (1 << 20)
    assert sr.set("big", big) is True
    assert sr.get("big") == big
    assert sr.append("big", "yz") == (1 << 20) + 2
    assert sr.getrange("big", -3, -1) == "xyz"
    assert sr.setrange("big", 2 << 20, "end") == (2 << 20) + 3
    assert sr.strlen("big") == (2 << 20) + 3


def test_pipelined_incr(sr):
    pipe = sr.pipeline(transaction=False)
    for _ in range(1000):
        pipe.incr("counter")
    results = pipe.execute()
    assert results[-1] == 1000
    assert sr.get("counter") == "1000"


def test_proto_max_bulk_len_limits_growth(start_server):
    server = start_server("--proto-max-bulk-len", "1mb")
    c = server.client()
    assert c.setrange("k", (1 << 20) - 1, "a") == 1 << 20
    assert error_of(c, "SETRANGE", "k", str(1 << 20), "a") == TOO_LONG
    assert error_of(c, "APPEND", "k", "b") == TOO_LONG
    assert c.strlen("k") == 1 << 20
    c.mset({"a": "a" * 600, "b": "a" * 600})
    assert (error_of(c, "LCS", "a", "b", "LEN")
            == "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")


def test_set_over_a_collection(start_server):
    """SET replaces a value of any type: a big collection is freed in the background (with
    lazyfree-lazy-server-del) and the key gets a fresh entry, a small one is replaced in place;
    the TTL goes unless KEEPTTL, as for strings."""
    r = start_server("--lazyfree-lazy-server-del", "yes").client()
    r.hset("big", mapping={f"f{i}": "v" * 100 for i in range(1000)})
    r.expire("big", 1000)
    r.hset("big2", mapping={f"f{i}": "v" * 100 for i in range(1000)})
    r.expire("big2", 1000)
    r.rpush("small", "a", "b")
    r.expire("small", 1000)
    before = r.info("memory")["lazyfreed_objects"]
    assert r.set("big", "s1") is True
    assert r.get("big") == "s1" and r.type("big") == "string" and r.ttl("big") == -1
    assert r.set("big2", "s2", keepttl=True) is True
    assert r.get("big2") == "s2" and 0 < r.ttl("big2") <= 1000
    assert wait_for(lambda: r.info("memory")["lazyfreed_objects"] >= before + 2)
    assert r.set("small", "s3") is True
    assert r.get("small") == "s3" and r.ttl("small") == -1
    r.rpush("small2", "a")
    r.expire("small2", 1000)
    assert r.set("small2", "x" * 40000, keepttl=True) is True
    assert r.strlen("small2") == 40000 and 0 < r.ttl("small2") <= 1000
