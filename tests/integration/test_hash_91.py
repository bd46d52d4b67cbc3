"""Valkey 9.1's hash additions: HGETDEL, and HSETEX's NX/XX (key) and FNX/FXX (fields)
conditions, checked before anything changes, with what replicas and the AOF get."""

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


E = "__keyevent@0__:"


def test_hgetdel_replies_and_deletes(sr):
    sr.hset("h", mapping={"f1": "v1", "f2": "v2", "f3": "3"})
    assert sr.execute_command("HGETDEL", "h", "FIELDS", "1", "f2") == ["v2"]
    assert sr.execute_command("HGETDEL", "h", "FIELDS", "1", "f2") == [None]
    assert sr.execute_command("HGETDEL", "h", "FIELDS", "2", "f2", "f3") == [None, "3"]
    assert sr.hgetall("h") == {"f1": "v1"}
    # The same field twice: the second sees it gone.
    assert sr.execute_command("HGETDEL", "h", "FIELDS", "2", "f1", "f1") == ["v1", None]
    assert sr.exists("h") == 0
    assert sr.execute_command("HGETDEL", "nokey", "FIELDS", "2", "a", "b") == [None, None]


def test_hgetdel_errors(sr):
    sr.set("s", "v")
    with pytest.raises(redis.ResponseError, match="^WRONGTYPE"):
        sr.execute_command("HGETDEL", "s", "FIELDS", "1", "a")
    with pytest.raises(redis.ResponseError,
                       match=r"^wrong number of arguments for 'hgetdel' command$"):
        sr.execute_command("HGETDEL", "h", "FIELDS", "1")
    for count in ("0", "-1", "2", "4"):
        with pytest.raises(redis.ResponseError, match="^numfields should be greater than 0 "
                           "and match the provided number of fields$"):
            sr.execute_command("HGETDEL", "h", "FIELDS", count, "a", "b", "c")
    with pytest.raises(redis.ResponseError, match="^value is not an integer or out of range$"):
        sr.execute_command("HGETDEL", "h", "FIELDS", "x", "a")


def test_hgetdel_acl(server, r):
    plain(r)
    r.hset("h", "a", "1")
    r.execute_command("ACL", "SETUSER", "reader", "on", ">pw", "~*", "+@read")
    u = server.client(username="reader", password="pw")
    with pytest.raises(redis.exceptions.NoPermissionError, match="'hgetdel' command"):
        u.execute_command("HGETDEL", "h", "FIELDS", "1", "a")
    assert r.hget("h", "a") == "1"
    cats = r.execute_command("COMMAND", "INFO", "HGETDEL")[0]
    assert set(cats[6]) == {"@write", "@hash", "@fast"}
    assert r.execute_command("COMMAND", "GETKEYS", "HGETDEL", "h", "FIELDS", "1", "a") == ["h"]


def test_hgetdel_events(server):
    got = events(server, "Egh", split(
        "hset h a 1 b 2; hgetdel h fields 1 x; hgetdel h fields 2 a x; hgetdel h fields 1 b;"
        "hgetdel h fields 0 a"))
    assert got == [(E + "hset", "h"), (E + "hdel", "h"), (E + "hdel", "h"), (E + "del", "h")]


def test_hsetex_key_and_field_conditions(sr):
    assert sr.execute_command("HSETEX", "h", "XX", "FIELDS", "1", "a", "1") == 0
    assert sr.exists("h") == 0
    assert sr.execute_command("HSETEX", "h", "NX", "FIELDS", "1", "a", "1") == 1
    assert sr.execute_command("HSETEX", "h", "NX", "FIELDS", "1", "b", "2") == 0
    assert sr.execute_command("HSETEX", "h", "XX", "FNX", "FIELDS", "1", "b", "2") == 1
    assert sr.execute_command("HSETEX", "h", "XX", "FXX", "FIELDS", "2", "a", "x", "c", "3") == 0
    assert sr.hgetall("h") == {"a": "1", "b": "2"}
    with pytest.raises(redis.ResponseError, match="^syntax error$"):
        sr.execute_command("HSETEX", "h", "NX", "XX", "FIELDS", "1", "a", "1")
    with pytest.raises(redis.ResponseError, match="^syntax error$"):
        sr.execute_command("HSETEX", "h", "FNX", "FXX", "FIELDS", "1", "a", "1")
    # A time already past deletes the fields: 1 only when every field was there.
    assert sr.execute_command("HSETEX", "h", "PX", "0", "FIELDS", "2", "a", "x", "zz", "y") == 0
    assert sr.execute_command("HSETEX", "h", "EXAT", "1", "FIELDS", "1", "b", "x") == 1
    assert sr.exists("h") == 0
    assert sr.execute_command("HSETEX", "h", "PX", "0", "FIELDS", "1", "a", "x") == 0
    assert sr.exists("h") == 0


def test_hsetex_errors_change_nothing(server):
    r = server.client()
    r.hset("h", "a", "1")
    for bad in (["EX", "-1"], ["PX", "abc"], ["EX", "99999999999999999"]):
        with pytest.raises(redis.ResponseError):
            r.execute_command("HSETEX", "h", *bad, "FIELDS", "1", "a", "2")
    assert r.hget("h", "a") == "1"
    got = events(server, "Eghx", split(
        "hset h a 1; hsetex h ex -1 fields 1 a 2; hsetex h fnx ex 10 fields 1 a 2;"
        "hsetex h nx fields 1 b 2; hsetex h fields 2 a 1; hsetex h xx fxx ex 100 fields 1 a 3"))
    assert got == [(E + "hset", "h"), (E + "hset", "h"), (E + "hexpire", "h")]


def test_hsetex_and_hgetdel_propagation(start_server):
    primary = start_aof(start_server)
    replica = start_server()
    rr = attach(replica, primary)
    c = primary.client()
    c.hset("h", mapping={"a": "1", "b": "2", "c": "3"})
    assert c.execute_command("HSETEX", "h", "XX", "FXX", "EX", "100", "FIELDS", "1", "a", "9") == 1
    assert c.execute_command("HSETEX", "h", "NX", "FIELDS", "1", "a", "0") == 0
    assert c.execute_command("HSETEX", "h", "PX", "0", "FIELDS", "2", "b", "1", "nope", "1") == 0
    assert c.execute_command("HGETDEL", "h", "FIELDS", "2", "c", "nope") == ["3", None]
    assert c.execute_command("HGETDEL", "h", "FIELDS", "1", "nope") == [None]
    c.execute_command("WAIT", 1, 5000)
    caught_up(c, rr)
    assert rr.hgetall("h") == {"a": "9"}
    ttl = rr.execute_command("HPTTL", "h", "FIELDS", "1", "a")[0]
    assert 0 < ttl <= 100000
    cmds = [cmd for cmd in aof_commands(incr_file(primary).read_bytes())
            if cmd[0].upper() in (b"HSETEX", b"HDEL", b"HGETDEL")]
    assert cmds[0][:3] == [b"HSETEX", b"h", b"PXAT"]
    assert cmds[0][4:] == [b"FIELDS", b"1", b"a", b"9"]
    assert cmds[1:] == [[b"HDEL", b"h", b"b"], [b"HGETDEL", b"h", b"FIELDS", b"2", b"c", b"nope"]]
