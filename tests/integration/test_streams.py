"""Stream family against the real server: redis-py's stream helpers, the time-series memory
footprint, and blocking XREAD / XREADGROUP (arrival order, timeouts, disconnects, keys or
groups going away).

Blocking tests park raw connections and wait (without timing assertions) until INFO shows
them blocked before the next step, so arrival order is well defined.
"""

import pytest
import redis

from conftest import SERVER_BINARY, RespError, wait_for

# Valkey 8 behaviour that Redis 7.0 (which these tests can also run against) lacks.
vireo_only = pytest.mark.skipif("redis-server" in SERVER_BINARY,
                                reason="Valkey 8 behaviour (XREAD +, XREADGROUP re-run errors)")


def blocked(r):
    return int(r.info("clients")["blocked_clients"])


def park(server, r, *cmd):
    """Sends a blocking command on a new raw connection and waits until it is blocked."""
    before = blocked(r)
    c = server.raw()
    c.send_command(*cmd)
    wait_for(lambda: blocked(r) == before + 1)
    return c


def entries(reply):
    """[[id, [f, v, ...]], ...] from a raw reply, as (id, {f: v}) tuples."""
    return [(e[0].decode(), dict(zip(e[1][::2], e[1][1::2]))) for e in reply]


# ---------------------------------------------------------------------------------------------
# Plain commands through redis-py's helpers

def test_redis_py_stream_helpers(sr):
    ids = [sr.xadd("s", {"temp": "21.5", "hum": i}) for i in range(200)]
    assert ids == sorted(ids, key=lambda x: tuple(map(int, x.split("-"))))
    assert len(set(ids)) == 200
    assert sr.xlen("s") == 200
    first = sr.xrange("s", count=1)
    assert first == [(ids[0], {"temp": "21.5", "hum": "0"})]
    assert sr.xrevrange("s", count=1)[0][0] == ids[-1]
    assert sr.xread({"s": ids[-2]}) == [["s", [(ids[-1], {"temp": "21.5", "hum": "199"})]]]
    sr.xgroup_create("s", "g", id="0")
    got = sr.xreadgroup("g", "alice", {"s": ">"}, count=3)
    assert [e[0] for e in got[0][1]] == ids[:3]
    summary = sr.xpending("s", "g")
    assert summary["pending"] == 3 and summary["min"] == ids[0] and summary["max"] == ids[2]
    assert summary["consumers"] == [{"name": "alice", "pending": 3}]
    detail = sr.xpending_range("s", "g", min="-", max="+", count=10)
    assert [d["message_id"] for d in detail] == ids[:3]
    assert all(d["consumer"] == "alice" and d["times_delivered"] == 1 for d in detail)
    claimed = sr.xautoclaim("s", "g", "bob", min_idle_time=0, start_id="0-0", count=2)
    assert [e[0] for e in claimed[1]] == ids[:2]
    assert sr.xack("s", "g", *ids[:3]) == 3
    info = sr.xinfo_stream("s")
    assert info["length"] == 200 and info["groups"] == 1
    assert info["first-entry"][0] == ids[0] and info["last-entry"][0] == ids[-1]
    groups = sr.xinfo_groups("s")
    assert groups[0]["name"] == "g" and groups[0]["pending"] == 0
    assert groups[0]["entries-read"] == 3 and groups[0]["lag"] == 197
    names = [c["name"] for c in sr.xinfo_consumers("s", "g")]
    assert names == ["alice", "bob"]
    assert sr.xtrim("s", maxlen=10, approximate=False) == 190
    assert sr.xdel("s", ids[-1]) == 1
    assert sr.xlen("s") == 9
    assert sr.type("s") == "stream"


def test_node_size_directives(sr):
    assert sr.config_get("stream-node-max-*") == {"stream-node-max-bytes": "4096",
                                                  "stream-node-max-entries": "100"}
    sr.config_set("stream-node-max-entries", 2)
    try:
        for i in range(1, 8):
            sr.xadd("s", {"f": i}, id=f"{i}-0")
        assert sr.xinfo_stream("s")["radix-tree-keys"] == 4
        assert sr.xtrim("s", maxlen=2, approximate=True) == 4  # whole nodes only
    finally:
        sr.config_set("stream-node-max-entries", 100)


def test_auto_ids_follow_the_clock_and_stay_monotonic(sr):
    sr.xadd("s", {"f": "v"}, id="99999999999999-5")  # far in the future: "*" continues after
    assert sr.xadd("s", {"f": "v"}) == "99999999999999-6"
    assert sr.xadd("s", {"f": "v"}, id="99999999999999-*") == "99999999999999-7"
    assert sr.xadd("s", {"f": "v"}, id="100000000000000-*") == "100000000000000-0"


@pytest.mark.skipif("redis-server" in SERVER_BINARY, reason="vireo's own node encoding")
def test_time_series_memory_is_small(sr):
    """One `temp 21.5 hum 40` sample a second: under 8 bytes each (Redis 7.0 uses about 21)."""
    before = int(sr.info("memory")["used_memory"])
    n = 100000
    pipe = sr.pipeline(transaction=False)
    for i in range(n):
        pipe.xadd("ts", {"temp": "21.5", "hum": "40"}, id=f"{1700000000000 + i * 1000}-0")
        if i % 5000 == 4999:
            pipe.execute()
    pipe.execute()
    per_entry = (int(sr.info("memory")["used_memory"]) - before) / n
    assert per_entry < 8, per_entry
    assert sr.xrange("ts", "-", "+", count=1)[0][1] == {"temp": "21.5", "hum": "40"}
    assert sr.xlen("ts") == n


# ---------------------------------------------------------------------------------------------
# Blocking XREAD

def test_xread_dollar_is_served_by_the_next_xadd(server, r):
    r.xadd("s", {"old": "1"}, id="1-0")
    c = park(server, r, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
    # A change that brings nothing new (the client runs again and keeps waiting on 1-0).
    r.xdel("s", "1-0")
    assert blocked(r) == 1
    r.xadd("s", {"new": "2"}, id="2-0")
    assert entries(c.read_reply()[0][1]) == [("2-0", {b"new": b"2"})]
    assert blocked(r) == 0


def test_every_xread_waiter_sees_the_entry(server, r):
    clients = [park(server, r, "XREAD", "BLOCK", "0", "STREAMS", "s", "$") for _ in range(3)]
    r.xadd("s", {"f": "v"}, id="5-0")
    for c in clients:
        assert c.read_reply() == [[b"s", [[b"5-0", [b"f", b"v"]]]]]


def test_xread_waits_on_several_keys(server, r):
    c = park(server, r, "XREAD", "COUNT", "1", "BLOCK", "0", "STREAMS", "a", "b", "$", "$")
    r.xadd("b", {"x": "1"}, id="3-0")
    assert c.read_reply() == [[b"b", [[b"3-0", [b"x", b"1"]]]]]


def test_xread_timeouts_and_errors(server, r):
    c = server.raw()
    assert c.call("XREAD", "BLOCK", "20", "STREAMS", "s", "$") is None
    assert c.call("XREAD", "BLOCK", "-1", "STREAMS", "s", "$") == RespError(
        "ERR timeout is negative")
    assert c.call("XREAD", "BLOCK", "x", "STREAMS", "s", "$") == RespError(
        "ERR timeout is not an integer or out of range")
    r.xgroup_create("s", "g", id="$", mkstream=True)
    assert c.call("XREADGROUP", "GROUP", "g", "c", "BLOCK", "20", "STREAMS", "s", ">") is None
    assert blocked(r) == 0


def test_xread_keeps_waiting_when_the_key_is_deleted_or_replaced(server, r):
    r.xadd("s", {"f": "v"}, id="666-0")
    c = park(server, r, "XREAD", "BLOCK", "0", "STREAMS", "s", "$")
    r.delete("s")
    r.set("s", "string")
    assert blocked(r) == 1
    r.delete("s")
    r.xadd("s", {"f": "v"}, id="667-0")
    assert c.read_reply() == [[b"s", [[b"667-0", [b"f", b"v"]]]]]


def test_xread_inside_multi_does_not_block(server, r):
    c = server.raw()
    if isinstance(c.call("MULTI"), RespError):
        pytest.skip("no MULTI yet")
    assert c.call("XREAD", "BLOCK", "0", "STREAMS", "s", "$") == "QUEUED"
    assert c.call("EXEC") == [None]


@vireo_only
def test_xread_plus_returns_the_last_entry_and_blocks_on_empty_streams(server, r):
    r.xadd("s", {"a": "1"}, id="1-0")
    r.xadd("s", {"b": "2"}, id="2-0")
    c = server.raw()
    assert c.call("XREAD", "STREAMS", "s", "+") == [[b"s", [[b"2-0", [b"b", b"2"]]]]]
    waiter = park(server, r, "XREAD", "BLOCK", "0", "STREAMS", "empty", "+")
    r.xadd("empty", {"c": "3"}, id="1-0")
    assert waiter.read_reply() == [[b"empty", [[b"1-0", [b"c", b"3"]]]]]


# ---------------------------------------------------------------------------------------------
# Blocking XREADGROUP

def test_xreadgroup_waiters_are_served_in_arrival_order(server, r):
    r.xgroup_create("s", "g", id="$", mkstream=True)
    cmd = ("XREADGROUP", "GROUP", "g", "{}", "COUNT", "1", "BLOCK", "0", "STREAMS", "s", ">")
    clients = [park(server, r, *[a.format(f"c{i}") for a in cmd]) for i in range(3)]
    r.xadd("s", {"n": "1"}, id="1-0")
    r.xadd("s", {"n": "2"}, id="2-0")
    assert clients[0].read_reply() == [[b"s", [[b"1-0", [b"n", b"1"]]]]]
    assert clients[1].read_reply() == [[b"s", [[b"2-0", [b"n", b"2"]]]]]
    assert blocked(r) == 1
    r.xadd("s", {"n": "3"}, id="3-0")
    assert clients[2].read_reply() == [[b"s", [[b"3-0", [b"n", b"3"]]]]]
    owners = {d["message_id"]: d["consumer"] for d in
              r.xpending_range("s", "g", min="-", max="+", count=10)}
    assert owners == {"1-0": "c0", "2-0": "c1", "3-0": "c2"}


def test_disconnect_while_blocked_loses_nothing(server, r):
    r.xgroup_create("s", "g", id="$", mkstream=True)
    gone = park(server, r, "XREADGROUP", "GROUP", "g", "gone", "BLOCK", "0", "STREAMS", "s", ">")
    stays = park(server, r, "XREADGROUP", "GROUP", "g", "stays", "BLOCK", "0", "STREAMS", "s",
                 ">")
    gone.close()
    wait_for(lambda: blocked(r) == 1)
    r.xadd("s", {"f": "v"}, id="1-0")
    assert stays.read_reply() == [[b"s", [[b"1-0", [b"f", b"v"]]]]]
    pending = r.xpending("s", "g")
    assert pending["consumers"] == [{"name": "stays", "pending": 1}]
    assert blocked(r) == 0


@vireo_only
def test_xreadgroup_waiter_gets_nogroup_when_the_key_or_group_goes(server, r):
    for kill in (lambda: r.delete("s"), lambda: r.xgroup_destroy("s", "g")):
        r.delete("s")
        r.xadd("s", {"f": "v"}, id="666-0")
        r.xgroup_create("s", "g", id="$")
        c = park(server, r, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s",
                 ">")
        kill()
        reply = c.read_reply()
        assert isinstance(reply, RespError) and str(reply).startswith("NOGROUP"), reply
        assert blocked(r) == 0


@vireo_only
def test_flush_and_swapdb_wake_xreadgroup_waiters(server, r):
    for kill in (lambda: r.flushall(), lambda: r.flushdb(),
                 lambda: r.execute_command("SWAPDB", "0", "1")):
        r.delete("s")
        r.xadd("s", {"f": "v"}, id="666-0")
        r.xgroup_create("s", "g", id="$")
        c = park(server, r, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s",
                 ">")
        kill()
        reply = c.read_reply()
        assert isinstance(reply, RespError) and str(reply).startswith("NOGROUP"), reply
        assert blocked(r) == 0
        r.flushall()


@vireo_only
def test_xreadgroup_waiter_gets_wrongtype_when_the_key_changes_type(server, r):
    r.xadd("s", {"f": "v"}, id="666-0")
    r.xgroup_create("s", "g", id="$")
    c = park(server, r, "XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "s", ">")
    r.set("s", "val")
    reply = c.read_reply()
    assert isinstance(reply, RespError) and "WRONGTYPE" in str(reply)


def test_client_unblock_of_a_stream_reader(server, r):
    c = server.raw()
    cid = c.call("CLIENT", "ID")
    c.send_command("XREAD", "BLOCK", "0", "STREAMS", "s", "$")
    wait_for(lambda: blocked(r) == 1)
    assert r.execute_command("CLIENT", "UNBLOCK", cid) == 1
    assert c.read_reply() is None
    assert c.call("XLEN", "s") == 0


def test_xreadgroup_plus_id_explained_as_valkey(server, valkey_process):
    """Valkey 8 refuses XREADGROUP's "+" with the same explanation as "$" (found by run_compat
    against valkey-server 8.0.1); XREAD's "+" reads the last entry."""
    cases = [("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "x", "+"),
             ("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "x", "x", "0", "+"),
             ("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "x", "x", "+", "0"),
             ("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "nokey", "+"),
             ("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "x", "$"),
             ("XREAD", "STREAMS", "x", "+")]

    def replies(client):
        client.flushall()
        client.xadd("x", {"a": "b"}, id="1-1")
        client.xgroup_create("x", "g", id="0")
        out = []
        for case in cases:
            try:
                out.append(client.execute_command(*case))
            except redis.ResponseError as e:
                out.append(str(e))
        return out

    assert replies(server.client()) == replies(valkey_process.client())
