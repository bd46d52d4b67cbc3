"""Sorted set family against the real server: replies, encodings, big sets and blocking pops.

Blocking tests park raw connections and wait (without timing assertions) until INFO shows
them blocked before the next step, so arrival order is well defined.
"""

import random

import pytest
import redis

from conftest import SERVER_BINARY, RespError, wait_for

# Redis 7.0 (which these tests can also run against) lacks ZRANK WITHSCORE and ZSCAN NOSCORES.
vireo_only = pytest.mark.skipif("redis-server" in SERVER_BINARY,
                                reason="Valkey 7.2/8 additions")

WRONGTYPE = RespError("WRONGTYPE Operation against a key holding the wrong kind of value")


def blocked(r):
    return int(r.info("clients")["blocked_clients"])


def park(server, r, *cmd):
    """Sends a blocking command on a new raw connection and waits until it is blocked."""
    before = blocked(r)
    c = server.raw()
    c.send_command(*cmd)
    wait_for(lambda: blocked(r) == before + 1)
    return c


# ---------------------------------------------------------------------------------------------
# Plain commands

def test_add_range_score(server, r):
    assert r.zadd("z", {"a": 1, "b": 2.5, "c": -3}) == 3
    assert r.zrange("z", 0, -1, withscores=True) == [("c", -3.0), ("a", 1.0), ("b", 2.5)]
    assert r.zscore("z", "b") == 2.5
    assert r.zincrby("z", 0.1, "a") == pytest.approx(1.1)
    # Valkey 8 prints the shortest digits that read back; Redis 7.0 prints "%.17g".
    want = b"1.1000000000000001" if "redis-server" in SERVER_BINARY else b"1.1"
    assert server.raw().call("ZSCORE", "z", "a") == want
    assert r.zrangebyscore("z", "(1", "+inf") == ["a", "b"]
    assert r.zrevrange("z", 0, 0) == ["b"]
    assert r.zcard("z") == 3
    assert r.zrem("z", "a", "b", "c") == 3
    assert r.exists("z") == 0


def test_errors_and_wrongtype(r):
    r.set("s", "v")
    for cmd in (["ZADD", "s", "1", "a"], ["ZRANGE", "s", "0", "-1"], ["ZPOPMIN", "s"],
                ["ZUNIONSTORE", "d", "1", "s"], ["ZSCAN", "s", "0"], ["BZPOPMIN", "s", "0"]):
        with pytest.raises(Exception, match="WRONGTYPE"):
            r.execute_command(*cmd)
    r.zadd("z", {"m": "inf"})
    with pytest.raises(Exception, match="resulting score is not a number"):
        r.execute_command("ZADD", "z", "INCR", "-inf", "m")
    with pytest.raises(Exception, match="min or max is not a float"):
        r.execute_command("ZCOUNT", "z", "x", "1")
    with pytest.raises(Exception, match="not valid string range item"):
        r.execute_command("ZLEXCOUNT", "z", "a", "b")


def test_encoding_converts_at_the_exact_boundaries(r):
    r.zadd("z", {f"m{i}": i for i in range(128)})
    assert r.object("encoding", "z") == "listpack"
    r.zadd("z", {"m128": 128})
    assert r.object("encoding", "z") == "skiplist"
    r.zadd("v", {"x" * 64: 1})
    assert r.object("encoding", "v") == "listpack"
    r.zadd("v", {"y" * 65: 1})
    assert r.object("encoding", "v") == "skiplist"
    # CONFIG SET applies to the next write.
    r.config_set("zset-max-listpack-entries", 2)
    r.zadd("w", {"a": 1, "b": 2})
    assert r.object("encoding", "w") == "listpack"
    r.zadd("w", {"c": 3})
    assert r.object("encoding", "w") == "skiplist"
    # Stored results choose the encoding that fits.
    assert r.zrangestore("d", "z", 0, 1) == 2
    assert r.object("encoding", "d") == "listpack"
    assert r.zunionstore("d", ["w"]) == 3
    assert r.object("encoding", "d") == "skiplist"


def test_resp3_shapes(server):
    c = server.raw()
    assert c.call("HELLO", "3")[b"proto"] == 3
    c.call("ZADD", "z", "1", "a", "2.5", "b")
    assert c.call("ZSCORE", "z", "b") == 2.5
    assert c.call("ZRANGE", "z", "0", "-1", "WITHSCORES") == [[b"a", 1.0], [b"b", 2.5]]
    assert c.call("ZRANGE", "z", "0", "-1") == [b"a", b"b"]
    assert c.call("ZPOPMIN", "z") == [b"a", 1.0]
    c.call("ZADD", "z", "1", "a")
    assert c.call("ZPOPMAX", "z", "1") == [[b"b", 2.5]]
    assert c.call("ZMPOP", "1", "z", "MIN") == [b"z", [[b"a", 1.0]]]
    assert c.call("ZMPOP", "1", "z", "MIN") is None
    assert c.call("ZRANDMEMBER", "z") is None


@vireo_only
def test_valkey8_options(server, r):
    r.zadd("z", {"a": 1, "b": 2})
    c = server.raw()
    assert c.call("ZRANK", "z", "b", "WITHSCORE") == [1, b"2"]
    assert c.call("ZREVRANK", "z", "b", "WITHSCORE") == [0, b"2"]
    assert c.call("ZRANK", "z", "nosuch", "WITHSCORE") is None
    assert c.call("ZSCAN", "z", "0", "NOSCORES") == [b"0", [b"a", b"b"]]


def test_set_operations_with_plain_sets(r):
    r.zadd("a", {"x": 1, "y": 2})
    r.sadd("s", "y", "z")
    assert r.zunion(["a", "s"], withscores=True) == [("x", 1.0), ("z", 1.0), ("y", 3.0)]
    assert r.zinter(["a", "s"], aggregate="MAX", withscores=True) == [("y", 2.0)]
    assert r.zdiff(["a", "s"]) == ["x"]
    assert r.zintercard(2, ["a", "s"]) == 1
    assert r.zinterstore("d", {"a": 2, "s": 10}) == 1
    assert r.zrange("d", 0, -1, withscores=True) == [("y", 14.0)]


def test_big_set_agrees_with_a_model(r):
    rng = random.Random(5)
    model = {}
    pipe = r.pipeline(transaction=False)
    for i in range(20000):
        m, s = f"m{rng.randrange(15000)}", rng.randrange(1000) / 4
        model[m] = s
        pipe.zadd("big", {m: s})
    for m in list(model)[:3000]:
        del model[m]
        pipe.zrem("big", m)
    pipe.execute()
    order = sorted(model.items(), key=lambda kv: (kv[1], kv[0]))
    assert r.object("encoding", "big") == "skiplist"
    assert r.zcard("big") == len(order)
    assert r.zrange("big", 0, -1, withscores=True) == order
    assert r.zrange("big", -10, -1) == [m for m, _ in order[-10:]]
    for i in range(0, len(order), 997):
        assert r.zrank("big", order[i][0]) == i
        assert r.zrevrank("big", order[i][0]) == len(order) - 1 - i
    assert r.zcount("big", 10, "(20") == sum(1 for _, s in order if 10 <= s < 20)
    assert r.zrangebyscore("big", 100, "+inf", start=5, num=3) == \
        [m for m, s in order if s >= 100][5:8]
    assert r.zremrangebyrank("big", 0, 99) == 100
    assert r.zpopmax("big", 5) == [(m, s) for m, s in reversed(order[-5:])]
    assert r.zrange("big", 0, 0) == [order[100][0]]


def test_zscan_returns_every_member_present_for_the_whole_scan(r):
    r.zadd("z", {f"m{i}": i for i in range(3000)})
    seen, cursor, step = set(), 0, 0
    while True:
        cursor, items = r.zscan("z", cursor, count=50)
        seen.update(m for m, _ in items)
        # Change the set while scanning: the first 3000 members stay throughout.
        r.zadd("z", {f"new{step}-{j}": j for j in range(20)})
        r.zrem("z", *[f"new{step - 1}-{j}" for j in range(20)])
        step += 1
        if cursor == 0:
            break
    assert {f"m{i}" for i in range(3000)} <= seen


def test_copy_rename_unlink_of_big_sets(r):
    r.zadd("z", {f"m{i}": i for i in range(5000)})
    assert r.copy("z", "c") == 1
    r.zrem("z", "m0")
    assert r.zcard("c") == 5000
    assert r.rename("c", "r") is True
    assert r.zscore("r", "m0") == 0
    assert r.unlink("r") == 1
    r.flushall(asynchronous=True)
    assert r.dbsize() == 0


# ---------------------------------------------------------------------------------------------
# Blocking pops

def test_several_clients_served_in_arrival_order(server, r):
    clients = [park(server, r, "BZPOPMIN", "z", "0") for _ in range(3)]
    r.zadd("z", {"c": 3, "a": 1, "b": 2, "d": 4})
    assert [c.read_reply() for c in clients] == [[b"z", b"a", b"1"], [b"z", b"b", b"2"],
                                                 [b"z", b"c", b"3"]]
    assert r.zrange("z", 0, -1) == ["d"]
    assert blocked(r) == 0


def test_bzpopmax_and_bzmpop_with_several_keys(server, r):
    a = park(server, r, "BZPOPMAX", "k1", "k2", "0")
    b = park(server, r, "BZMPOP", "0", "2", "k1", "k2", "MAX", "COUNT", "2")
    r.zadd("k2", {"x": 1, "y": 2, "z": 3})
    assert a.read_reply() == [b"k2", b"z", b"3"]
    assert b.read_reply() == [b"k2", [[b"y", b"2"], [b"x", b"1"]]]
    assert r.exists("k2") == 0


def test_store_into_a_waited_key_wakes_the_waiter(server, r):
    c = park(server, r, "BZPOPMIN", "dst", "0")
    r.zadd("src", {"a": 5})
    assert r.zunionstore("dst", ["src"]) == 1
    assert c.read_reply() == [b"dst", b"a", b"5"]


def test_timeouts_and_argument_errors(server, r):
    c = server.raw()
    assert c.call("BZPOPMIN", "z", "0.05") is None
    assert c.call("BZMPOP", "0.01", "1", "z", "MIN") is None
    assert c.call("BZPOPMIN", "z", "-1") == RespError("ERR timeout is negative")
    assert c.call("BZPOPMAX", "z", "x") == RespError("ERR timeout is not a float or out of range")
    assert c.call("BZMPOP", "0", "0", "z", "MIN") == \
        RespError("ERR numkeys should be greater than 0")
    assert blocked(r) == 0


def test_waiter_ignores_other_types_and_other_databases(server, r):
    c = park(server, r, "BZPOPMIN", "k", "0")
    r.set("k", "string")  # not a sorted set: keeps waiting
    assert blocked(r) == 1
    r.delete("k")
    other = server.client(db=1)
    other.zadd("k", {"elsewhere": 1})
    assert blocked(r) == 1
    r.zadd("k", {"here": 2})
    assert c.read_reply() == [b"k", b"here", b"2"]
    r.set("s", "v")
    assert server.raw().call("BZPOPMIN", "s", "0") == WRONGTYPE


def test_disconnect_while_blocked_loses_nothing(server, r):
    gone = park(server, r, "BZPOPMIN", "z", "0")
    stays = park(server, r, "BZPOPMIN", "z", "0")
    gone.close()
    wait_for(lambda: blocked(r) == 1)
    r.zadd("z", {"first": 1, "second": 2})
    assert stays.read_reply() == [b"z", b"first", b"1"]
    assert r.zrange("z", 0, -1) == ["second"]
    stays.close()
    wait_for(lambda: blocked(r) == 0)
    assert r.zadd("z", {"third": 3}) == 1
    assert r.zcard("z") == 2


def test_client_unblock(server, r):
    c = park(server, r, "BZPOPMIN", "z", "0")
    cid = next(int(cl["id"]) for cl in r.client_list() if "b" in cl["flags"])
    assert r.client_unblock(cid) is True
    assert c.read_reply() is None
    assert c.call("ZADD", "z", "1", "a") == 1


def test_encoding_follows_the_command_not_what_it_added_as_valkey(server, valkey_process):
    """ZADD/GEOADD convert a listpack when the command brings more members or a longer one
    than a listpack holds, even if XX/NX leave them out (valkey-server 8.0.1; found by
    run_compat against it)."""
    long = "v" * 100
    many = [x for i in range(129) for x in ("1", f"m{i}")]
    cases = [
        [("ZADD", "z", "1", "a"), ("ZADD", "z", "XX", "1", long)],
        [("ZADD", "z", "1", "a"), ("ZADD", "z", "XX", "INCR", "1", long)],
        [("ZADD", "z", "1", "a"), ("ZADD", "z", "NX", "1", "a")],
        [("ZADD", "z", "1", "a"), ("ZADD", "z", "XX", "1", "a", "1", long)],
        [("GEOADD", "z", "1", "1", "a"), ("GEOADD", "z", "XX", "1", "1", long)],
        [("ZADD", "z", "1", "a"), ("ZADD", "z", "XX", *many)],
        [("ZADD", "z", "1", "a"), ("ZADD", "z", "XX", *many[:256])],
        [("ZADD", "z", "inf", "a" * 50), ("CONFIG", "SET", "zset-max-listpack-value", "10"),
         ("ZADD", "z", "INCR", "-inf", "a" * 50),
         ("CONFIG", "SET", "zset-max-listpack-value", "64")],
    ]

    def outcome(client):
        out = []
        for case in cases:
            client.flushall()
            for cmd in case:
                try:
                    client.execute_command(*cmd)
                except redis.ResponseError as e:
                    out.append(str(e))
            out.append((client.object("encoding", "z"), client.zrange("z", 0, -1, withscores=True)))
        return out

    assert outcome(server.client()) == outcome(valkey_process.client())
