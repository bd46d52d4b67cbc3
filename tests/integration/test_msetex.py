"""MSETEX (Valkey 9.1): several keys, one shared expiry; replies, Valkey's error texts, NX/XX,
KEEPTTL, a time already past, events, ACL, key extraction and what replicas and the AOF get."""

import time

import pytest
import redis

from test_aof import aof_commands, incr_file, start_aof
from test_notifications import events, split
from test_replication import attach, caught_up

def plain(r):
    """r, with redis-py's reply parsing of COMMAND turned off (it expects its own arguments)."""
    for name in ('COMMAND',):
        r.set_response_callback(name, lambda reply, **kw: reply)
    return r


NUMKEYS = "^invalid numkeys value or out of range$"
SYNTAX = "^syntax error$"


def test_msetex_sets_with_a_shared_expiry(sr):
    assert sr.execute_command("MSETEX", "2", "a", "1", "b", "2", "EX", "100") == 1
    assert sr.mget("a", "b") == ["1", "2"]
    assert 90 <= sr.ttl("a") <= 100 and 90 <= sr.ttl("b") <= 100
    future = int(time.time() * 1000) + 100000
    assert sr.execute_command("MSETEX", "1", "c", "3", "pxat", str(future)) == 1
    assert sr.pexpiretime("c") == future
    assert sr.execute_command("MSETEX", "1", "a", "x", "KEEPTTL") == 1
    assert sr.get("a") == "x" and sr.ttl("a") > 0
    # Without an expiry option the TTL goes, as with MSET; the last value of a key wins.
    assert sr.execute_command("MSETEX", "2", "a", "y", "a", "z") == 1
    assert sr.get("a") == "z" and sr.ttl("a") == -1
    # Any old type is replaced.
    sr.rpush("l", "1")
    assert sr.execute_command("MSETEX", "1", "l", "s", "PX", "100000") == 1
    assert sr.get("l") == "s"


def test_msetex_nx_xx(sr):
    sr.set("old", "v")
    assert sr.execute_command("MSETEX", "2", "old", "1", "new", "2", "NX") == 0
    assert sr.execute_command("MSETEX", "2", "old", "1", "new", "2", "XX", "EX", "10") == 0
    assert sr.get("old") == "v" and sr.exists("new") == 0
    assert sr.execute_command("MSETEX", "1", "old", "1", "XX", "EX", "10") == 1
    assert sr.execute_command("MSETEX", "2", "n1", "1", "n2", "2", "ex", "10", "nx") == 1
    assert sr.mget("old", "n1", "n2") == ["1", "1", "2"]


def test_msetex_time_already_past(sr):
    sr.set("k1", "old")
    assert sr.execute_command("MSETEX", "2", "k1", "a", "k2", "b", "EXAT", "1") == 1
    assert sr.execute_command("MSETEX", "1", "k3", "c", "PXAT", "1") == 1
    assert sr.dbsize() == 0


@pytest.mark.parametrize("args,error", [
    (["0", "k", "v"], NUMKEYS), (["-1", "k", "v"], NUMKEYS), (["1.5", "k", "v"], NUMKEYS),
    (["n", "k", "v"], NUMKEYS), (["2147483648", "k", "v"], NUMKEYS),
    (["2", "k", "v"], SYNTAX), (["2147483647", "k", "v"], SYNTAX),
    (["1", "k", "v", "k2"], SYNTAX), (["1", "k", "v", "NX", "XX"], SYNTAX),
    (["1", "k", "v", "EX"], SYNTAX), (["1", "k", "v", "EX", "1", "PX", "1"], SYNTAX),
    (["1", "k", "v", "EX", "1", "KEEPTTL"], SYNTAX), (["1", "k", "v", "KEEPTTL", "PXAT", "1"], SYNTAX),
    (["1", "k", "v", "GET"], SYNTAX),
    (["1", "k", "v", "EX", "0"], "^invalid expire time in 'msetex' command$"),
    (["1", "k", "v", "PXAT", "-1"], "^invalid expire time in 'msetex' command$"),
    (["1", "k", "v", "EX", "1.5"], "^value is not an integer or out of range$"),
    (["1", "k", "v", "EXAT", "foo"], "^value is not an integer or out of range$"),
])
def test_msetex_errors(sr, args, error):
    with pytest.raises(redis.ResponseError, match=error):
        sr.execute_command("MSETEX", *args)
    assert sr.dbsize() == 0


def test_msetex_arity_acl_and_keys(server, r):
    plain(r)
    for args in ([], ["1"], ["1", "k"]):
        with pytest.raises(redis.ResponseError, match="wrong number of arguments for 'msetex'"):
            r.execute_command("MSETEX", *args)
    info = r.execute_command("COMMAND", "INFO", "MSETEX")[0]
    assert info[1] == -4 and set(info[6]) == {"@write", "@string", "@slow"}
    assert "movablekeys" in info[2] and "denyoom" in info[2]
    assert r.execute_command("COMMAND", "GETKEYS", "MSETEX", "2", "a", "1", "b", "2", "EX",
                             "5") == ["a", "b"]
    r.execute_command("ACL", "SETUSER", "u", "on", ">pw", "~a*", "+@all")
    u = server.client(username="u", password="pw")
    assert u.execute_command("MSETEX", "1", "a1", "v") == 1
    with pytest.raises(redis.exceptions.NoPermissionError):
        u.execute_command("MSETEX", "2", "a2", "v", "b", "v")
    assert r.exists("a2", "b") == 0
    r.execute_command("ACL", "SETUSER", "ro", "on", ">pw", "~*", "+@read")
    with pytest.raises(redis.exceptions.NoPermissionError, match="'msetex' command"):
        server.client(username="ro", password="pw").execute_command("MSETEX", "1", "x", "v")


def test_msetex_events(server):
    E = "__keyevent@0__:"
    got = events(server, "KEA", split(
        "msetex 2 a 1 b 2 ex 100; msetex 1 a 1 nx; msetex 1 c 1 ex 0; msetex 1 a 2;"
        "msetex 2 a 1 zz 2 exat 1"))
    got = [(ch, msg) for ch, msg in got if ch.startswith(E)]
    assert got == [(E + "set", "a"), (E + "expire", "a"), (E + "set", "b"), (E + "expire", "b"),
                   (E + "set", "a"), (E + "del", "a")]


def test_msetex_propagation(start_server):
    primary = start_aof(start_server)
    replica = start_server()
    rr = attach(replica, primary)
    c = primary.client()
    c.config_set("lazyfree-lazy-expire", "yes")
    c.execute_command("MSETEX", "2", "a", "1", "b", "2")
    assert c.execute_command("MSETEX", "2", "a", "1", "b", "2", "NX") == 0
    c.execute_command("MSETEX", "2", "a", "1", "b", "2", "ex", "100")
    c.execute_command("MSETEX", "1", "p", "1", "pxat", "9999999999999")
    c.set("gone", "v")
    c.execute_command("MSETEX", "3", "gone", "1", "nothere", "2", "gone", "3", "EXAT", "1")
    c.execute_command("MSETEX", "1", "nothere", "1", "PXAT", "1")  # nothing to replicate
    c.execute_command("WAIT", 1, 5000)
    caught_up(c, rr)
    assert rr.mget("a", "b", "p", "gone") == ["1", "2", "1", None]
    assert 0 < rr.pttl("a") <= 100000
    cmds = [cmd for cmd in aof_commands(incr_file(primary).read_bytes())
            if cmd[0].upper() in (b"MSETEX", b"UNLINK", b"DEL")]
    assert cmds[0] == [b"MSETEX", b"2", b"a", b"1", b"b", b"2"]
    assert cmds[1][:7] == [b"MSETEX", b"2", b"a", b"1", b"b", b"2", b"PXAT"]
    assert cmds[2] == [b"MSETEX", b"1", b"p", b"1", b"pxat", b"9999999999999"]
    assert cmds[3:] == [[b"UNLINK", b"gone"]]
