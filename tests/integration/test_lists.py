"""List family against the real server: replies, encodings and blocking (BLPOP & co).

Blocking tests park raw connections and wait (without timing assertions) until INFO shows
them blocked before the next step, so arrival order is well defined.
"""

import pytest

from conftest import SERVER_BINARY, RespError, wait_for

# Redis 7.0 (which these tests can also run against) has no listpack lists and no compression.
vireo_only = pytest.mark.skipif("redis-server" in SERVER_BINARY,
                                reason="listpack encoding / node compression are newer")


def blocked(r):
    return int(r.info("clients")["blocked_clients"])


def park(server, r, *cmd, expect=None):
    """Sends a blocking command on a new raw connection and waits until it is blocked."""
    before = blocked(r)
    c = server.raw()
    c.send_command(*cmd)
    wait_for(lambda: blocked(r) == before + 1 if expect is None else expect)
    return c


# ---------------------------------------------------------------------------------------------
# Plain commands

def test_push_pop_range(r):
    assert r.rpush("l", "a", "b", "c") == 3
    assert r.lpush("l", "z") == 4
    assert r.lrange("l", 0, -1) == ["z", "a", "b", "c"]
    assert r.lpop("l") == "z"
    assert r.rpop("l", 2) == ["c", "b"]
    assert r.lpop("l", 5) == ["a"]
    assert r.exists("l") == 0
    assert r.lpop("l") is None
    assert r.lpop("l", 2) is None


def test_every_command_on_a_string_is_wrongtype(r):
    r.set("s", "v")
    for cmd in (["lpush", "s", "a"], ["llen", "s"], ["lrange", "s", 0, 1], ["lindex", "s", 0],
                ["lpos", "s", "a"], ["lmove", "s", "d", "left", "left"],
                ["lmpop", 1, "s", "left"], ["blpop", "s", 0], ["brpoplpush", "s", "d", 0]):
        with pytest.raises(Exception, match="WRONGTYPE"):
            r.execute_command(*cmd)


@vireo_only
def test_encoding_follows_list_max_listpack_size(r):
    r.config_set("list-max-listpack-size", 3)
    r.rpush("l", 1, 2, 3)
    assert r.object("encoding", "l") == "listpack"
    r.rpush("l", 4)
    assert r.object("encoding", "l") == "quicklist"
    r.rpop("l", 2)  # one node of 2 elements, more than half of 3 (1): still a quicklist
    assert r.object("encoding", "l") == "quicklist"
    r.rpop("l")
    assert r.object("encoding", "l") == "listpack"
    assert r.lrange("l", 0, -1) == ["1"]


def test_large_list_reads_and_writes_across_compressed_nodes(r):
    n = 60000
    pipe = r.pipeline(transaction=False)
    for i in range(0, n, 1000):
        pipe.rpush("big", *[f"element:{j}" for j in range(i, i + 1000)])
    pipe.execute()
    assert r.object("encoding", "big") == "quicklist"
    assert r.llen("big") == n
    got = r.lrange("big", 0, -1)
    assert got == [f"element:{j}" for j in range(n)]
    assert r.lindex("big", 31337) == "element:31337"
    assert r.lrange("big", 29998, 30001) == [f"element:{j}" for j in range(29998, 30002)]
    assert r.lpos("big", "element:45000") == 45000
    assert r.lpos("big", "element:45000", rank=-1) == 45000
    assert r.lset("big", 20000, "changed")
    assert r.linsert("big", "before", "changed", "inserted") == n + 1
    assert r.lrem("big", 0, "element:40000") == 1
    assert r.lindex("big", 20000) == "inserted"
    assert r.lindex("big", 20001) == "changed"
    assert r.lindex("big", 40000) == "element:39999"
    assert r.lindex("big", 40001) == "element:40001"
    # The same content under another node size and compression depth reads the same.
    r.config_set("list-max-listpack-size", 7)
    r.config_set("list-compress-depth", 2)
    r.copy("big", "copy")
    elements = r.lrange("big", 0, -1)
    for i in range(0, len(elements), 1000):
        r.rpush("other", *elements[i:i + 1000])
    assert r.lrange("other", 0, -1) == elements
    assert r.lindex("other", -12345) == elements[-12345]
    r.ltrim("big", 100, 199)
    assert r.lrange("big", 0, -1) == elements[100:200]
    assert r.lrange("copy", 0, -1) == elements


@vireo_only
def test_long_list_memory_is_compact(r):
    """Interior nodes are LZF-compressed: "element:N" lists take a few bytes per element."""
    before = int(r.info("memory")["used_memory"])
    n = 200000
    pipe = r.pipeline(transaction=False)
    for i in range(0, n, 1000):
        pipe.rpush("big", *[f"element:{j}" for j in range(i, i + 1000)])
    pipe.execute()
    per_element = (int(r.info("memory")["used_memory"]) - before) / n
    assert per_element < 10, per_element  # Redis 7.0 uses about 16


# ---------------------------------------------------------------------------------------------
# Blocking

def test_blpop_is_served_by_a_push(server, r):
    c = park(server, r, "BLPOP", "k", "0")
    assert r.rpush("k", "v") == 1
    assert c.read_reply() == [b"k", b"v"]
    assert r.exists("k") == 0
    assert blocked(r) == 0


def test_waiters_are_served_in_arrival_order(server, r):
    clients = [park(server, r, "BLPOP", "k", "0") for _ in range(3)]
    r.rpush("k", "a", "b", "c", "d")
    assert [c.read_reply() for c in clients] == [[b"k", b"a"], [b"k", b"b"], [b"k", b"c"]]
    assert r.lrange("k", 0, -1) == ["d"]


def test_one_push_serves_only_what_it_pushed(server, r):
    first = park(server, r, "BRPOP", "k", "0")
    second = park(server, r, "BRPOP", "k", "0")
    r.lpush("k", "x")
    assert first.read_reply() == [b"k", b"x"]
    assert blocked(r) == 1
    r.lpush("k", "y")
    assert second.read_reply() == [b"k", b"y"]


def test_blpop_takes_the_first_key_that_gets_data(server, r):
    c = park(server, r, "BLPOP", "k1", "k2", "k3", "0")
    r.rpush("k3", "three")
    assert c.read_reply() == [b"k3", b"three"]


def test_blmpop_served_with_count(server, r):
    c = park(server, r, "BLMPOP", "0", "2", "k1", "k2", "RIGHT", "COUNT", "2")
    r.rpush("k2", "a", "b", "c")
    assert c.read_reply() == [b"k2", [b"c", b"b"]]
    assert r.lrange("k2", 0, -1) == ["a"]


def test_timeouts_float_and_errors(server, r):
    c = server.raw()
    assert c.call("BLPOP", "k", "0.05") is None
    c.send_command("BRPOPLPUSH", "k", "d", "0.05")
    assert c.read_line() == b"*-1"  # a timed-out BRPOPLPUSH/BLMOVE answers a null array
    c.send_command("BLMOVE", "k", "d", "LEFT", "LEFT", "0.01")
    assert c.read_line() == b"*-1"
    assert c.call("BLPOP", "k", "-1") == RespError("ERR timeout is negative")
    assert c.call("BLPOP", "k", "x") == RespError("ERR timeout is not a float or out of range")
    assert c.call("BLMPOP", "0.01", "1", "k", "LEFT") is None
    assert blocked(r) == 0


def test_blmove_chain(server, r):
    a = park(server, r, "BLMOVE", "src", "mid", "LEFT", "RIGHT", "0")
    b = park(server, r, "BLMOVE", "mid", "dst", "LEFT", "RIGHT", "0")
    c = park(server, r, "BLPOP", "dst", "0")
    r.rpush("src", "x")
    assert a.read_reply() == b"x"
    assert b.read_reply() == b"x"
    assert c.read_reply() == [b"dst", b"x"]
    assert r.exists("src", "mid", "dst") == 0


def test_brpoplpush_rotates_when_served(server, r):
    c = park(server, r, "BRPOPLPUSH", "ring", "ring", "0")
    r.rpush("ring", "a", "b")
    assert c.read_reply() == b"b"
    assert r.lrange("ring", 0, -1) == ["b", "a"]


def test_waiter_stays_blocked_when_key_is_replaced_by_another_type(server, r):
    c = park(server, r, "BLPOP", "k", "0")
    r.rpush("other", "x")
    r.rename("other", "k")  # a list arrives by RENAME: served at once
    assert c.read_reply() == [b"k", b"x"]
    c = park(server, r, "BLPOP", "k", "0")
    r.set("k", "string")  # not a list: the waiter keeps waiting
    assert r.get("k") == "string"
    assert blocked(r) == 1
    r.delete("k")
    assert blocked(r) == 1
    r.rpush("k", "v")
    assert c.read_reply() == [b"k", b"v"]


def test_blocking_on_a_string_is_wrongtype(server, r):
    r.set("s", "v")
    c = server.raw()
    assert c.call("BLPOP", "s", "0") == RespError(
        "WRONGTYPE Operation against a key holding the wrong kind of value")
    # BLMOVE looks only at the source before waiting.
    c.send_command("BLMOVE", "nosuch", "s", "LEFT", "LEFT", "0.01")
    assert c.read_line() == b"*-1"


def blocked_id(r):
    """The id of the (only) blocked client, from its CLIENT LIST flags."""
    for line in r.execute_command("CLIENT", "LIST").splitlines():
        fields = dict(f.split("=", 1) for f in line.split())
        if "b" in fields["flags"]:
            return int(fields["id"])
    raise AssertionError("no blocked client")


def test_client_unblock(server, r):
    c = park(server, r, "BLPOP", "k", "0")
    assert r.execute_command("CLIENT", "UNBLOCK", blocked_id(r), "TIMEOUT") == 1
    assert c.read_reply() is None
    d = park(server, r, "BLMOVE", "k", "d", "LEFT", "LEFT", "0")
    cid = blocked_id(r)
    assert r.execute_command("CLIENT", "UNBLOCK", cid, "ERROR") == 1
    assert d.read_reply() == RespError("UNBLOCKED client unblocked via CLIENT UNBLOCK")
    assert r.execute_command("CLIENT", "UNBLOCK", cid) == 0
    assert blocked(r) == 0
    # The unblocked connections work on.
    assert c.call("RPUSH", "k", "a") == 1
    assert d.call("LPOP", "k") == b"a"


def test_disconnect_while_blocked_loses_nothing(server, r):
    gone = park(server, r, "BLPOP", "k", "0")
    stays = park(server, r, "BLPOP", "k", "0")
    gone.close()
    wait_for(lambda: blocked(r) == 1)
    r.rpush("k", "first", "second")
    assert stays.read_reply() == [b"k", b"first"]
    assert r.lrange("k", 0, -1) == ["second"]
    stays.close()
    wait_for(lambda: blocked(r) == 0)
    assert r.rpush("k", "third") == 2
    assert r.lrange("k", 0, -1) == ["second", "third"]


def test_push_to_another_database_does_not_wake(server, r):
    c = park(server, r, "BLPOP", "k", "0")
    other = server.client(db=1)
    other.rpush("k", "elsewhere")
    assert blocked(r) == 1
    r.rpush("k", "here")
    assert c.read_reply() == [b"k", b"here"]
    assert other.lrange("k", 0, -1) == ["elsewhere"]


def test_client_list_names_the_command_a_fresh_client_waits_in(server, r):
    park(server, r, "BLPOP", "k", "0")
    cmds = [line.split(" cmd=")[1].split(" ")[0]
            for line in r.execute_command("CLIENT", "LIST").splitlines()]
    assert sorted(cmds) == ["blpop", "client|list"]


def test_swapdb_bringing_a_list_serves_the_waiter(server, r):
    c = park(server, r, "BLPOP", "k", "0")
    server.client(db=1).rpush("k", "swapped", "in")
    assert r.execute_command("SWAPDB", "0", "1")
    assert c.read_reply() == [b"k", b"swapped"]
    assert r.lrange("k", 0, -1) == ["in"]
    assert blocked(r) == 0


def test_lmove_into_a_waited_key_wakes_the_waiter(server, r):
    c = park(server, r, "BLPOP", "dst", "0")
    r.rpush("src", "a", "b")
    assert r.lmove("src", "dst", "RIGHT", "LEFT") == "b"
    assert c.read_reply() == [b"dst", b"b"]
    assert r.exists("dst") == 0
    assert r.lrange("src", 0, -1) == ["a"]
