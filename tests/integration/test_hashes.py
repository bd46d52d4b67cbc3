"""Hash family end to end: redis-py, raw RESP2/RESP3 sockets, encodings and field expiry.

The tests without field expiry hold for redis-server 7.0 too (HSCAN NOVALUES and the
HEXPIRE family are Valkey 8/9 additions).
"""

import time

import pytest
import redis


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


def test_basics(sr):
    assert sr.hset("h", mapping={"a": "1", "b": "two"}) == 2
    assert sr.hget("h", "a") == "1"
    assert sr.hmget("h", ["a", "x", "b"]) == ["1", None, "two"]
    assert sr.hgetall("h") == {"a": "1", "b": "two"}
    assert sorted(sr.hkeys("h")) == ["a", "b"]
    assert sorted(sr.hvals("h")) == ["1", "two"]
    assert sr.hlen("h") == 2
    assert sr.hstrlen("h", "b") == 3
    assert sr.hexists("h", "a") and not sr.hexists("h", "x")
    assert sr.hincrby("h", "a", 41) == 42
    assert sr.hincrbyfloat("h", "f", "2.5") == 2.5
    assert sr.hsetnx("h", "a", "nope") == 0
    assert sr.hdel("h", "a", "b", "f", "x") == 3
    assert sr.exists("h") == 0
    assert sr.type("h") == "none"


def test_errors_match_valkey(sr):
    sr.set("s", "x")
    assert error_of(sr, "HGET", "s", "a").startswith("WRONGTYPE")
    assert error_of(sr, "HSET", "h", "a") == "wrong number of arguments for 'hset' command"
    assert error_of(sr, "HSET", "h", "a", "1", "b") == \
        "wrong number of arguments for 'hset' command"
    sr.hset("h", "s", "abc")
    assert error_of(sr, "HINCRBY", "h", "s", "1") == "hash value is not an integer"
    assert error_of(sr, "HINCRBYFLOAT", "h", "s", "1") == "hash value is not a float"
    assert error_of(sr, "HSCAN", "h", "x") == "invalid cursor"
    assert error_of(sr, "HRANDFIELD", "h", "1", "WITH") == "syntax error"


def test_binary_fields_and_values(sr):
    field, value = b"f\x00\xff\r\n", b"\x00" * 100 + b"end"
    c = redis.Redis(host=sr.connection_pool.connection_kwargs["host"],
                    port=sr.connection_pool.connection_kwargs["port"])
    assert c.hset("bin", field, value) == 1
    assert c.hget("bin", field) == value
    assert c.hgetall("bin") == {field: value}
    c.close()


def test_encoding_boundaries_and_config_set(sr):
    sr.config_set("hash-max-listpack-entries", 4)
    sr.config_set("hash-max-listpack-value", 10)
    try:
        sr.hset("lp", mapping={f"f{i}": "v" for i in range(4)})
        assert sr.object("encoding", "lp") == "listpack"
        sr.hset("lp", "f4", "v")
        assert sr.object("encoding", "lp") == "hashtable"
        sr.hset("val", "f", "x" * 10)
        assert sr.object("encoding", "val") == "listpack"
        sr.hset("val", "g", "x" * 11)
        assert sr.object("encoding", "val") == "hashtable"
        assert sr.hget("val", "f") == "x" * 10
    finally:
        sr.config_set("hash-max-listpack-entries", 512)
        sr.config_set("hash-max-listpack-value", 64)
    sr.hset("later", mapping={f"f{i}": "v" for i in range(6)})
    assert sr.object("encoding", "later") == "listpack"


def test_large_hash_scan_returns_every_field(sr, shared_server):
    n = 3000
    pipe = sr.pipeline(transaction=False)
    for i in range(n):
        pipe.hset("big", f"field:{i}", f"value:{i}")
    pipe.execute()
    assert sr.object("encoding", "big") == "hashtable"
    seen = dict(sr.hscan_iter("big", count=100))
    assert len(seen) == n and seen["field:1234"] == "value:1234"
    # Fields added and removed during the scan do not hide the ones present throughout.
    cursor, seen = 0, set()
    step = 0
    while True:
        cursor, items = sr.hscan("big", cursor, count=50)
        seen.update(items)
        if step < 20:
            sr.hset("big", mapping={f"extra:{step}:{j}": "x" for j in range(200)})
        step += 1
        if cursor == 0:
            break
    assert all(f"field:{i}" in seen for i in range(n))
    # (raw: redis-py 4 turns every HSCAN reply into a dict, which NOVALUES breaks)
    raw = shared_server.raw()
    cursor, keys = raw.call("HSCAN", "big", "0", "MATCH", "field:12*", "COUNT", "100000",
                            "NOVALUES")
    raw.close()
    assert cursor == b"0"
    assert sorted(keys) == sorted(f.encode() for f in (f"field:{i}" for i in range(n))
                                  if f.startswith("field:12"))


def test_hrandfield_shapes(server):
    r = server.client()
    r.hset("h", mapping={"a": "1", "b": "2", "c": "3"})
    assert r.hrandfield("h") in ("a", "b", "c")
    assert sorted(r.hrandfield("h", 10)) == ["a", "b", "c"]
    assert len(r.hrandfield("h", -10)) == 10
    flat = r.hrandfield("h", 2, withvalues=True)
    assert len(flat) == 4 and dict(zip(flat[::2], flat[1::2])).items() <= \
        {"a": "1", "b": "2", "c": "3"}.items()
    raw = server.raw()
    raw.call("HELLO", "3")
    reply = raw.call("HRANDFIELD", "h", "-3", "WITHVALUES")
    assert len(reply) == 3 and all(len(pair) == 2 for pair in reply)


def test_field_expiry_lazy(sr):
    sr.hset("h", mapping={"keep": "1", "go": "2"})
    assert sr.execute_command("HPEXPIRE", "h", "30", "FIELDS", "1", "go") == [1]
    assert sr.object("encoding", "h") == "hashtable"
    assert eventually(lambda: sr.hget("h", "go") is None)
    assert sr.hgetall("h") == {"keep": "1"}
    assert sr.hlen("h") == 1
    assert sr.execute_command("HTTL", "h", "FIELDS", "2", "keep", "go") == [-1, -2]


def test_hash_deleted_when_last_field_expires(sr):
    sr.hset("h", mapping={"a": "1", "b": "2"})
    sr.execute_command("HPEXPIRE", "h", "20", "FIELDS", "2", "a", "b")
    assert eventually(lambda: sr.hlen("h") == 0)
    assert sr.exists("h") == 0


def test_field_expiry_active_sweep(sr):
    sr.hset("h", mapping={"a": "1"})
    sr.execute_command("HPEXPIRE", "h", "20", "FIELDS", "1", "a")
    # DBSIZE does not touch the hash: only the periodic sweep can delete it.
    assert eventually(lambda: sr.dbsize() == 0, timeout=3.0)


def test_hgetex_hsetex(sr):
    assert sr.execute_command("HSETEX", "h", "EX", "100", "FIELDS", "2", "a", "1", "b", "2") == 1
    ttls = sr.execute_command("HTTL", "h", "FIELDS", "2", "a", "b")
    assert all(90 <= t <= 100 for t in ttls)
    assert sr.execute_command("HGETEX", "h", "PERSIST", "FIELDS", "1", "a") == ["1"]
    assert sr.execute_command("HTTL", "h", "FIELDS", "1", "a") == [-1]
    assert sr.execute_command("HSETEX", "h", "FNX", "FIELDS", "1", "a", "x") == 0
    assert sr.execute_command("HGETEX", "h", "PX", "0", "FIELDS", "2", "a", "b") == ["1", "2"]
    assert sr.exists("h") == 0


def test_digest_ignores_order_and_encoding(start_server):
    r = start_server("--enable-debug-command", "yes").client()
    r.hset("a", mapping={"x": "1", "y": "2"})
    r.hset("b", mapping={"y": "2", "x": "1"})
    r.hset("c", mapping={"y": "2", "x": "1", "z": "z" * 100})
    r.hdel("c", "z")
    assert r.object("encoding", "c") == "hashtable"
    digest = r.execute_command("DEBUG", "DIGEST-VALUE", "a")
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "b") == digest
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "c") == digest
