"""Bitmaps end to end: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO.

Every expectation holds for redis-server 7.0 too (run with VIREO_SERVER=/usr/bin/redis-server),
except where marked as Valkey 8 behaviour.
"""

import pytest
import redis

BAD_OFFSET = "bit offset is not an integer or out of range"
BAD_BIT = "bit is not an integer or out of range"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


def error_of(client, *args):
    with pytest.raises(redis.ResponseError) as info:
        client.execute_command(*args)
    return str(info.value)


def is_vireo(client):
    return "vireo_version" in client.info("server")


@pytest.fixture
def b(server):
    return server.client(decode_responses=False)


def test_setbit_getbit(r, b):
    assert r.setbit("k", 7, 1) == 0
    assert r.setbit("k", 7, 1) == 1
    assert r.setbit("k", 7, 0) == 1
    assert r.setbit("k", 100, 1) == 0
    assert b.get("k") == b"\x00" * 12 + b"\x08"
    assert r.object("encoding", "k") == "raw"
    assert r.getbit("k", 100) == 1
    assert r.getbit("k", 101) == 0
    assert r.getbit("k", 10 ** 6) == 0
    assert r.getbit("missing", 0) == 0
    r.set("n", 12)  # int-encoded "12": 0x31 0x32
    assert [r.getbit("n", i) for i in range(8)] == [0, 0, 1, 1, 0, 0, 0, 1]
    assert r.setbit("n", 6, 1) == 0
    assert r.get("n") == "32"
    assert r.object("encoding", "n") == "raw"


def test_offset_and_value_errors(r):
    for bad in ("-1", "abc", "", "1.5", "4294967296", "9223372036854775808"):
        assert error_of(r, "SETBIT", "k", bad, "1") == BAD_OFFSET
        assert error_of(r, "GETBIT", "k", bad) == BAD_OFFSET
    for bad in ("2", "-1", "x", ""):
        assert error_of(r, "SETBIT", "k", "0", bad) == BAD_BIT
    assert r.exists("k") == 0
    r.config_set("proto-max-bulk-len", "1mb")
    assert error_of(r, "SETBIT", "k", str(8 * 1024 * 1024), "1") == BAD_OFFSET
    assert r.setbit("k", 8 * 1024 * 1024 - 1, 1) == 0
    assert r.strlen("k") == 1024 * 1024
    assert r.bitcount("k") == 1
    r.rpush("l", "x")
    assert error_of(r, "SETBIT", "l", "0", "1") == WRONGTYPE
    assert error_of(r, "GETBIT", "l", "0") == WRONGTYPE


def test_large_bitmap(r):
    n = 100_000_000
    assert r.setbit("big", n - 1, 1) == 0
    assert r.strlen("big") == n // 8
    assert r.bitcount("big") == 1
    assert r.bitpos("big", 1) == n - 1
    assert r.bitpos("big", 0) == 0
    assert r.bitcount("big", -1, -1) == 1
    assert r.execute_command("BITPOS", "big", "1", "0", "-2") == -1


def test_bitcount(r):
    r.set("k", "foobar")
    assert r.bitcount("k") == 26
    assert r.bitcount("k", 0, 0) == 4
    assert r.bitcount("k", 1, 1) == 6
    assert r.bitcount("k", 1, 1, "BYTE") == 6
    assert r.bitcount("k", 5, 30, "BIT") == 17
    assert r.bitcount("k", -2, -1) == 7
    assert r.bitcount("k", -1, -3) == 0
    assert r.bitcount("missing") == 0
    assert error_of(r, "BITCOUNT", "k", "0", "1", "bits") == "syntax error"
    assert error_of(r, "BITCOUNT", "k", "0", "1", "BIT", "x") == "syntax error"
    assert error_of(r, "BITCOUNT", "k", "a", "1") == "value is not an integer or out of range"


def test_arguments_checked_before_the_key(r):
    """Valkey 8 checks BITCOUNT/BITPOS arguments first; Redis 7.0 answers a missing key with 0
    (or -1) and another type with WRONGTYPE whatever the arguments."""
    r.rpush("l", "x")
    if not is_vireo(r):
        assert r.execute_command("BITCOUNT", "missing", "a", "1") == 0
        assert error_of(r, "BITPOS", "l", "1", "a") == WRONGTYPE
        return
    not_int = "value is not an integer or out of range"
    assert error_of(r, "BITCOUNT", "missing", "a", "1") == not_int
    assert error_of(r, "BITCOUNT", "l", "0", "1", "bits") == "syntax error"
    assert error_of(r, "BITPOS", "missing", "1", "a") == not_int
    assert error_of(r, "BITPOS", "l", "1", "a") == not_int


def test_bitcount_optional_end(r):
    """Valkey 8 made BITCOUNT's end optional (Redis 7.0: syntax error)."""
    r.set("k", "foobar")
    if not is_vireo(r):
        assert error_of(r, "BITCOUNT", "k", "1") == "syntax error"
        return
    assert r.execute_command("BITCOUNT", "k", "1") == 22
    assert r.execute_command("BITCOUNT", "k", "-1") == 4


def test_bitpos(r, b):
    b.set("k", b"\xff\xf0\x00")
    assert r.bitpos("k", 0) == 12
    assert r.bitpos("k", 1) == 0
    assert r.bitpos("k", 1, 2) == -1
    assert r.bitpos("k", 1, 7, 15, "BIT") == 7
    assert r.bitpos("k", 0, 0, 11, "BIT") == -1
    b.set("ones", b"\xff\xff")
    assert r.bitpos("ones", 0) == 16  # no end given: zero padding to the right
    assert r.bitpos("ones", 0, 0, -1) == -1
    assert r.bitpos("missing", 0) == 0
    assert r.bitpos("missing", 1) == -1
    assert error_of(r, "BITPOS", "k", "2") == "The bit argument must be 1 or 0."
    assert error_of(r, "BITPOS", "k", "1", "0", "1", "x") == "syntax error"


def test_bitop(r, b):
    r.set("a", "foobar")
    r.set("b", "abcdef")
    assert r.bitop("AND", "d", "a", "b") == 6
    assert r.get("d") == "`bc`ab"
    assert r.bitop("OR", "d", "a", "b") == 6
    assert r.get("d") == "goofev"
    assert r.bitop("XOR", "d", "a", "missing") == 6
    assert r.get("d") == "foobar"
    b.set("short", b"\xff")
    assert r.bitop("AND", "d", "a", "short") == 6
    assert b.get("d") == b"f\x00\x00\x00\x00\x00"
    assert r.bitop("NOT", "d", "short") == 1
    assert b.get("d") == b"\x00"
    assert r.object("encoding", "d") == "raw"
    r.expire("d", 100)
    assert r.bitop("OR", "d", "d", "a") == 6
    assert r.ttl("d") == -1
    assert r.bitop("AND", "d", "missing") == 0
    assert r.exists("d") == 0
    assert error_of(r, "BITOP", "NOT", "d", "a", "b") == \
        "BITOP NOT must be called with a single source key."
    assert error_of(r, "BITOP", "NAND", "d", "a") == "syntax error"
    r.rpush("l", "x")
    assert error_of(r, "BITOP", "AND", "d", "a", "l") == WRONGTYPE
    assert r.bitop("AND", "l", "a") == 6  # the destination may hold any type
    assert r.get("l") == "foobar"


def test_bitfield(r, b):
    bf = r.bitfield("k")
    bf.set("i8", 0, 100).get("i8", 0).incrby("i8", 0, 100)
    assert bf.execute() == [0, 100, -56]
    assert r.bitfield("k").overflow("SAT").incrby("i8", 0, -100).execute() == [-128]
    assert r.bitfield("k").overflow("FAIL").incrby("i8", 0, -1).get("i8", 0).execute() == \
        [None, -128]
    assert r.bitfield("k").set("u8", "#2", -1).get("u8", 16).execute() == [0, 255]
    assert r.bitfield("k").set("i64", 64, -2).get("i64", 64).get("u63", 64).execute() == \
        [0, -2, 2 ** 63 - 1]
    assert r.execute_command("BITFIELD", "k", "OVERFLOW", "SAT", "INCRBY", "u63", "64",
                             "9223372036854775807") == [2 ** 63 - 1]
    assert r.execute_command("BITFIELD", "missing", "GET", "u8", "0") == [0]
    assert r.exists("missing") == 0
    assert r.execute_command("BITFIELD", "k") == []
    assert r.execute_command("BITFIELD_RO", "k", "GET", "u8", "16") == [255]
    assert error_of(r, "BITFIELD_RO", "k", "SET", "u8", "0", "1") == \
        "BITFIELD_RO only supports the GET subcommand"
    type_error = ("Invalid bitfield type. Use something like i16 u8. Note that u64 is not "
                  "supported but i64 is.")
    for bad in ("u64", "i65", "i0", "I8", "x8", ""):
        assert error_of(r, "BITFIELD", "k", "GET", bad, "0") == type_error
    assert error_of(r, "BITFIELD", "k", "GET", "u8", "#-1") == BAD_OFFSET
    assert error_of(r, "BITFIELD", "k", "OVERFLOW", "WRAPS") == "Invalid OVERFLOW type specified"
    assert error_of(r, "BITFIELD", "k", "GET", "u8") == "syntax error"
    assert error_of(r, "BITFIELD", "k", "INCRBY", "u8", "0", "x") == \
        "value is not an integer or out of range"
    r.rpush("l", "x")
    assert error_of(r, "BITFIELD", "l", "GET", "u8", "0") == WRONGTYPE
    assert error_of(r, "BITFIELD_RO", "l", "GET", "u8", "0") == WRONGTYPE
