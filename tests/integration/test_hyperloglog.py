"""HyperLogLog end to end, and values moving between redis-server 7.0 and Vireo.

A HyperLogLog is a string in Redis's exact layout: a value made by one server (GET) and stored
in the other (SET) must estimate and grow identically there. Every other expectation holds
for redis-server 7.0 too (run with VIREO_SERVER=/usr/bin/redis-server).
"""

import os

import pytest
import redis

REDIS_SERVER = "/usr/bin/redis-server"
NOT_HLL = "WRONGTYPE Key is not a valid HyperLogLog string value."
CORRUPT = "INVALIDOBJ Corrupted HLL object detected"


def error_of(client, *args):
    with pytest.raises(redis.ResponseError) as info:
        client.execute_command(*args)
    return str(info.value)


def elements(lo, hi):
    return [f"el:{i}" for i in range(lo, hi)]


def add_many(client, key, lo, hi, batch=2000):
    for start in range(lo, hi, batch):
        client.pfadd(key, *elements(start, min(hi, start + batch)))


@pytest.fixture
def b(server):
    return server.client(decode_responses=False)


@pytest.fixture
def ref(start_server):
    """A redis-server 7.0 client (bytes), the reference the values come from."""
    if not os.path.exists(REDIS_SERVER):
        pytest.skip("needs Debian's redis-server")
    return start_server(binary=REDIS_SERVER).client(decode_responses=False)


def test_pfadd_pfcount_basics(r):
    assert r.pfcount("h") == 0
    assert r.pfadd("h", "a", "b", "c") == 1
    assert r.pfadd("h", "a", "b") == 0
    assert r.pfcount("h") == 3
    assert r.type("h") == "string"
    assert r.object("encoding", "h") == "raw"
    assert r.pfadd("empty") == 1
    assert r.pfadd("empty") == 0
    assert r.pfcount("empty") == 0
    assert r.pfcount("h", "empty", "missing") == 3
    r.pfadd("other", "c", "d")
    assert r.pfcount("h", "other") == 4
    assert r.pfcount("h") == 3  # the union did not change h


def test_cached_cardinality_in_the_value(r, b):
    r.pfadd("h", "a", "b", "c")
    v = b.get("h")
    assert v[:4] == b"HYLL" and v[4] == 1  # sparse
    assert v[15] & 0x80  # the cached estimate is stale after PFADD
    assert r.pfcount("h") == 3
    assert b.get("h")[8:16] == b"\x03" + b"\x00" * 7


def test_sparse_to_dense(r):
    r.pfadd("h", *elements(0, 100))
    assert r.execute_command("PFDEBUG", "ENCODING", "h") == "sparse"
    assert r.execute_command("PFDEBUG", "DECODE", "h").startswith(("Z:", "z:", "v:"))
    add_many(r, "h", 100, 5000)
    assert r.execute_command("PFDEBUG", "ENCODING", "h") == "dense"
    assert r.strlen("h") == 12304
    assert abs(r.pfcount("h") - 5000) < 5000 * 0.05
    regs = r.execute_command("PFDEBUG", "GETREG", "h")
    assert len(regs) == 16384 and max(regs) <= 51
    assert error_of(r, "PFDEBUG", "DECODE", "h") == "HLL encoding is not sparse"


def test_sparse_max_bytes_is_read_at_each_write(r):
    r.config_set("hll-sparse-max-bytes", "50")
    for i in range(12):
        r.pfadd("h", f"e{i}")
    assert r.execute_command("PFDEBUG", "ENCODING", "h") == "dense"
    r.config_set("hll-sparse-max-bytes", "3000")
    r.pfadd("g", *[f"e{i}" for i in range(12)])
    assert r.execute_command("PFDEBUG", "ENCODING", "g") == "sparse"


def test_pfmerge(r):
    r.pfadd("a", *elements(0, 300))
    r.pfadd("b", *elements(200, 600))
    assert r.pfmerge("m", "a", "b") is True
    assert r.pfcount("m") == r.pfcount("a", "b")
    assert r.execute_command("PFDEBUG", "ENCODING", "m") == "sparse"
    assert r.pfmerge("m") is True  # destination only: unchanged
    assert r.pfmerge("new") is True
    assert r.pfcount("new") == 0
    assert r.execute_command("PFDEBUG", "TODENSE", "a") == 1
    assert r.pfmerge("m2", "a", "b") is True
    assert r.execute_command("PFDEBUG", "ENCODING", "m2") == "dense"
    assert r.pfcount("m2") == r.pfcount("m")


def test_errors(r):
    r.set("s", "not an hll")
    r.set("n", "12345")
    r.rpush("l", "x")
    for key in ("s", "n"):
        assert error_of(r, "PFADD", key, "a") == NOT_HLL
        assert error_of(r, "PFCOUNT", key) == NOT_HLL
        assert error_of(r, "PFMERGE", "d", key) == NOT_HLL
    assert error_of(r, "PFCOUNT", "l").startswith("WRONGTYPE Operation against a key")
    assert error_of(r, "PFCOUNT", "x", "l").startswith("WRONGTYPE Operation against a key")
    assert r.exists("d") == 0
    # Opcodes covering fewer registers than the 16384 of a HyperLogLog.
    r.set("bad", b"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7e\xff")
    assert error_of(r, "PFCOUNT", "bad") == CORRUPT
    assert error_of(r, "PFCOUNT", "bad", "x") == CORRUPT
    assert error_of(r, "PFMERGE", "d", "bad") == CORRUPT
    assert error_of(r, "PFDEBUG", "TODENSE", "bad") == CORRUPT
    assert error_of(r, "PFDEBUG", "GETREG", "missing") == "The specified key does not exist"
    assert error_of(r, "PFDEBUG", "NOPE", "bad") == "Unknown PFDEBUG subcommand 'NOPE'"
    assert error_of(r, "PFADD").startswith("wrong number of arguments")
    assert r.execute_command("PFSELFTEST") == "OK"


def test_redis_values_load_in_vireo(b, ref):
    """GET a HyperLogLog from redis-server, SET it here: same counts, same bytes after edits."""
    add_many(ref, "sparse", 0, 400)
    add_many(ref, "dense", 0, 30000)
    ref.pfcount("dense")  # caches the estimate inside the value
    for key in (b"sparse", b"dense"):
        b.set(key, ref.get(key))
    for key in ("sparse", "dense"):
        assert b.pfcount(key) == ref.pfcount(key)
        assert b.get(key) == ref.get(key)
    # Grow both on both servers: identical values and estimates.
    for server in (b, ref):
        server.pfadd("sparse", *elements(400, 700))
        server.pfadd("dense", *elements(25000, 40000))
        server.pfmerge("merged", "sparse", "dense")
        server.pfmerge("sparse2", "sparse")
    for key in ("sparse", "dense", "merged", "sparse2"):
        assert b.get(key) == ref.get(key), key
        assert b.pfcount(key) == ref.pfcount(key), key
        assert b.get(key) == ref.get(key), key
    assert b.pfcount("sparse", "dense", "nothing") == ref.pfcount("sparse", "dense", "nothing")


def test_vireo_values_load_in_redis(b, ref):
    for server in (b, ref):
        server.config_set("hll-sparse-max-bytes", "1000")
    add_many(b, "h", 0, 1200, batch=97)
    add_many(ref, "h", 0, 1200, batch=97)
    assert b.get("h") == ref.get("h")
    ref.set("from_vireo", b.get("h"))
    assert ref.pfcount("from_vireo") == b.pfcount("h")
    assert ref.execute_command("PFDEBUG", "GETREG", "from_vireo") == \
        b.execute_command("PFDEBUG", "GETREG", "h")


def test_sparse_runs_past_the_last_register_as_valkey(server, valkey_process):
    """A VAL run past the last register ends the walk (valid when the registers before it were
    all covered); a zero run past it is corruption: as valkey-server 8.0.1 (found by
    run_compat against it)."""
    base = b"HYLL\x01\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00"
    tails = [b"\x7f\xff\x89", b"\x7f\xff", b"\x89", b"\x7f\xfe\x89", b"\x7f\xff\x00", b"",
             b"\x7f\xfe\x80\x89", b"\x7f\xfe\x80\x00"]
    commands = [("PFMERGE", "h2", "h0", "h3", "h0"), ("PFMERGE", "h2", "h0"),
                ("PFCOUNT", "h0", "h0"), ("PFCOUNT", "h0"), ("PFADD", "h0", "a"),
                ("PFADD", "h0", *map(str, range(300))), ("PFDEBUG", "GETREG", "h0")]

    def replies(client):
        out = []
        for tail in tails:
            for cmd in commands:
                client.flushall()
                client.set("h0", base + tail)
                try:
                    out.append(client.execute_command(*cmd))
                except redis.ResponseError as e:
                    out.append(f"ERR {e}")
        return out

    assert replies(server.client()) == replies(valkey_process.client())
