"""Doubles answer as valkey-server 8.0.1's, byte for byte, in RESP2 and RESP3.

Valkey 8 prints a double with fpconv's Grisu2 digits (shortest for nearly every value) in its
own layout, integral values within +-2^62 as integers, and stores listpack scores the same way;
ZSCAN of a skiplist set, INCRBYFLOAT, HINCRBYFLOAT and GEO replies kept their older forms. Each
test runs the same commands against the reference binary (../shared/reference/valkey-server,
skipped where absent) and against vireo-server, and compares the raw replies.
"""

import os
import random
import struct

import pytest

from conftest import REPO_ROOT

VALKEY_SERVER = os.path.join(REPO_ROOT, "..", "shared", "reference", "valkey-server")

# The probed values: layout thresholds, integers around 2^53 and 2^62, extremes, both zeros,
# infinities, and values whose Grisu2 digits are not the shortest (1e23, 1.0000001e-6).
VALUES = [
    "0.1", "0.2", "0.30000000000000004", "1", "-1", "2.5", "-2.5", "100", "1234567", "12345678",
    "0.3333333333333333", "1e-5", "1e-6", "1e-7", "1.5e-7", "1.234e-4", "0.0012345",
    "123456789.12345679", "1.2345678901234567e3", "1.2345678901234567e4", "1e15", "1e16", "1e17",
    "1e18", "1e19", "1e20", "1e21", "1e22", "1e23", "1.5e17", "123456789012345678",
    "9007199254740992", "9007199254740993", "4611686018427387904", "4611686018427388928",
    "-4611686018427388928", "9223372036854775808", "1.2345e21", "-9.87654321e18", "5e-324",
    "2.2250738585072014e-308", "1.7976931348623157e308", "-1.7976931348623157e308",
    "1.7976931348623157e300", "1.0000001e-6", "3.4816163452111288e+68", "-0.0", "0", "inf",
    "-inf",
]


@pytest.fixture
def pair(start_server):
    """(vireo, valkey), both fresh."""
    if not os.path.exists(VALKEY_SERVER):
        pytest.skip("needs the reference valkey-server in ../shared/reference/")
    return start_server(), start_server(binary=os.path.abspath(VALKEY_SERVER))


def replies(server, protocol, commands):
    """The raw reply bytes of each command, sent in batches on one connection."""
    c = server.raw()
    if protocol == 3:
        c.call("HELLO", "3")
    out = []
    for i in range(0, len(commands), 500):
        batch = commands[i:i + 500]
        c.send(b"".join(c.encode(*cmd) for cmd in batch))
        out += [c.read_raw_reply() for _ in batch]
    c.close()
    return out


def assert_same(pair, protocol, commands):
    vireo, valkey = pair
    want = replies(valkey, protocol, commands)
    got = replies(vireo, protocol, commands)
    differ = [(" ".join(map(str, cmd)), w, g)
              for cmd, w, g in zip(commands, want, got) if w != g]
    assert not differ, f"{len(differ)} of {len(commands)} differ (command, valkey, vireo): " \
                       f"{differ[:10]}"


def setup_sets(values):
    """lp: a listpack set; sl: the same members in a skiplist set (one long member forces it)."""
    cmds = [("FLUSHALL",)]
    for i, v in enumerate(values):
        cmds.append(("ZADD", "lp", v, f"m{i}"))
        cmds.append(("ZADD", "sl", v, f"m{i}"))
    cmds.append(("ZADD", "sl", "0", "x" * 100))
    return cmds


@pytest.mark.parametrize("protocol", [2, 3])
def test_sorted_set_scores_reply_as_valkey(pair, protocol):
    members = [f"m{i}" for i in range(len(VALUES))]
    cmds = setup_sets(VALUES)
    cmds += [("OBJECT", "ENCODING", "lp"), ("OBJECT", "ENCODING", "sl")]
    for key in ("lp", "sl"):
        cmds += [("ZSCORE", key, m) for m in members]
        cmds += [("ZMSCORE", key, *members),
                 ("ZRANGE", key, "0", "-1", "WITHSCORES"),
                 ("ZRANGE", key, "+inf", "-inf", "BYSCORE", "REV", "WITHSCORES"),
                 ("ZRANGEBYSCORE", key, "-inf", "+inf", "WITHSCORES"),
                 ("ZREVRANGEBYSCORE", key, "+inf", "-inf", "WITHSCORES", "LIMIT", "1", "5"),
                 ("ZREVRANGE", key, "0", "-1", "WITHSCORES"),
                 ("ZRANK", key, "m0", "WITHSCORE"), ("ZREVRANK", key, "m22", "WITHSCORE")]
    cmds += [("ZUNION", "2", "lp", "sl", "WITHSCORES"),
             ("ZUNION", "2", "lp", "sl", "WEIGHTS", "0.1", "3", "AGGREGATE", "SUM", "WITHSCORES"),
             ("ZINTER", "2", "lp", "sl", "AGGREGATE", "MAX", "WITHSCORES"),
             ("ZDIFF", "2", "sl", "nokey", "WITHSCORES"),
             ("ZUNIONSTORE", "u", "2", "lp", "lp", "WEIGHTS", "0.5", "0.25"),
             ("ZRANGE", "u", "0", "-1", "WITHSCORES"),
             ("ZSCAN", "lp", "0", "COUNT", "1000"), ("ZSCAN", "u", "0", "COUNT", "1000")]
    for i, v in enumerate(VALUES):
        if v not in ("inf", "-inf"):
            cmds += [("ZINCRBY", "lp", "0.1", f"m{i}"), ("ZADD", "sl", "INCR", v, f"m{i}"),
                     ("ZINCRBY", "fresh", v, f"m{i}")]
    cmds += [("ZRANGE", "lp", "0", "-1", "WITHSCORES"), ("ZSCAN", "lp", "0", "COUNT", "1000"),
             ("ZPOPMIN", "lp", "3"), ("ZPOPMAX", "sl", "3"), ("BZPOPMIN", "lp", "0"),
             ("BZPOPMAX", "sl", "0"), ("ZMPOP", "2", "lp", "sl", "MIN", "COUNT", "3"),
             ("BZMPOP", "0", "1", "sl", "MAX", "COUNT", "3"),
             ("ZADD", "one", "0.1", "a"), ("ZRANDMEMBER", "one", "-3", "WITHSCORES"),
             ("ZRANDMEMBER", "one", "1", "WITHSCORES"),
             ("ZRANGESTORE", "st", "lp", "0", "-1"), ("ZSCAN", "st", "0", "COUNT", "1000")]
    assert_same(pair, protocol, cmds)


def test_listpack_score_text_is_valkeys_in_dump(pair):
    """The listpack blob (so the RDB files Vireo writes) holds Valkey 8's score text; the
    payload's last 10 bytes (RDB version and CRC) are left out."""
    cmds = setup_sets(VALUES[:40])
    cmds += [("ZUNIONSTORE", "u", "1", "lp", "WEIGHTS", "0.1"), ("DUMP", "lp"), ("DUMP", "u")]
    vireo, valkey = pair
    want, got = replies(valkey, 2, cmds), replies(vireo, 2, cmds)
    assert [w[:-12] for w in want[-2:]] == [g[:-12] for g in got[-2:]]


def test_skiplist_zscan_keeps_percent_17g(pair):
    """ZSCAN of a skiplist set still prints "%.17g" in Valkey 8 (bucket order differs, so the
    pairs are compared as sets)."""
    vireo, valkey = pair
    cmds = setup_sets(VALUES) + [("ZSCAN", "sl", "0", "COUNT", "1000")]
    results = []
    for server in (valkey, vireo):
        c = server.raw()
        for cmd in cmds[:-1]:
            c.call(*cmd)
        cursor, flat = c.call(*cmds[-1])
        assert cursor == b"0"
        results.append(sorted(zip(flat[::2], flat[1::2])))
    assert results[0] == results[1]
    assert (b"m0", b"0.10000000000000001") in results[1]


@pytest.mark.parametrize("protocol", [2, 3])
def test_float_increments_and_geo_reply_as_valkey(pair, protocol):
    cmds = [("FLUSHALL",)]
    for v in VALUES[:-2] + ["1e-20", "3e300"]:
        cmds += [("SET", "f", "0"), ("INCRBYFLOAT", "f", v), ("INCRBYFLOAT", "f", "0.1"),
                 ("HSET", "h", "f", "0"), ("HINCRBYFLOAT", "h", "f", v),
                 ("HINCRBYFLOAT", "h", "f", "0.1")]
    cmds += [("GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
              "Catania", "-122.27652", "37.805186", "Oakland"),
             ("GEOPOS", "g", "Palermo", "Catania", "Oakland", "none"),
             ("GEODIST", "g", "Palermo", "Catania"), ("GEODIST", "g", "Palermo", "Oakland", "mi"),
             ("GEOSEARCH", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ASC",
              "WITHDIST", "WITHCOORD", "WITHHASH"),
             ("GEORADIUS", "g", "15", "37", "20000", "km", "ASC", "WITHDIST", "WITHCOORD"),
             ("ZSCORE", "g", "Palermo"), ("ZRANGE", "g", "0", "-1", "WITHSCORES"),
             # distances stored as scores: listpack text and replies
             ("GEOSEARCHSTORE", "gd", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "20000", "km",
              "ASC", "STOREDIST"),
             ("ZSCAN", "gd", "0"), ("ZRANGE", "gd", "0", "-1", "WITHSCORES")]
    assert_same(pair, protocol, cmds)


def random_doubles(rng, n):
    out = []
    while len(out) < n:
        kind = len(out) % 5
        if kind == 0:  # any finite bit pattern
            v = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            if v != v or v in (float("inf"), float("-inf")):
                continue
            out.append(repr(v))
        elif kind == 1:  # short decimals at any exponent
            out.append(f"{rng.randrange(1, 10 ** rng.randrange(1, 18))}e{rng.randrange(-330, 300)}")
        elif kind == 2:
            out.append(repr(rng.uniform(-1e6, 1e6)))
        elif kind == 3:  # integers up to 2^64, many past 2^53 and 2^62
            out.append(str(rng.randrange(-2 ** 64, 2 ** 64) >> rng.randrange(0, 64)))
        else:
            out.append(repr(rng.random() * 10.0 ** rng.randrange(-30, 30)))
    return out


@pytest.mark.parametrize("protocol", [2, 3])
def test_random_doubles_through_zadd_and_zscore(pair, protocol):
    values = random_doubles(random.Random(8001 + protocol), 3000)
    cmds = [("FLUSHALL",)]
    for i, v in enumerate(values):
        cmds += [("ZADD", f"lp{i // 100}", v, f"m{i}"), ("ZADD", "sl", v, f"m{i}")]
    cmds += [("ZSCORE", "sl", f"m{i}") for i in range(len(values))]
    cmds += [("ZSCORE", f"lp{i // 100}", f"m{i}") for i in range(len(values))]
    cmds += [("ZINCRBY", "inc", v, f"m{i}") for i, v in enumerate(values)]
    cmds += [("ZSCAN", f"lp{k}", "0", "COUNT", "1000") for k in range(len(values) // 100)]
    assert_same(pair, protocol, cmds)
