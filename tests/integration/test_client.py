"""CLIENT subcommands and MONITOR over real connections."""

import re
import time

import pytest

from conftest import SERVER_BINARY, RespError, Verbatim, wait_for

# Features newer than the redis-server 7.0 these tests can also be run against.
after_7_0 = pytest.mark.skipif("redis-server" in SERVER_BINARY,
                               reason="Valkey 7.2+ behaviour; the reference is Redis 7.0")

# One CLIENT LIST line: Valkey 8.0's fields in its order (7.0's plus watch, lib-name, lib-ver
# and the traffic counters; optional here so the file also runs against redis-server 7.0).
LINE = re.compile(
    r"id=(\d+) addr=(\S*) laddr=(\S*) fd=\d+ name=(\S*) age=\d+ idle=\d+ flags=([A-Za-z]+) "
    r"db=(\d+) sub=0 psub=0 ssub=0 multi=-1( watch=0)? qbuf=(\d+) qbuf-free=\d+ argv-mem=\d+ "
    r"multi-mem=0 rbs=\d+ rbp=\d+ obl=\d+ oll=\d+ omem=\d+ tot-mem=\d+ events=rw? cmd=(\S+) "
    r"user=(\S+) redir=-1 resp=([23])( lib-name=\S* lib-ver=\S*)?"
    r"( tot-net-in=\d+ tot-net-out=\d+ tot-cmds=\d+)?$")

MONITOR_LINE = re.compile(r"^\d+\.\d{6} \[(\d+) ([^\]]+)\] (.*)$")


def parse_list(text):
    """CLIENT LIST text -> list of dicts (the fields of each line), checking the format."""
    if isinstance(text, bytes):
        text = text.decode()
    assert text == "" or text.endswith("\n")
    out = []
    for line in text.splitlines():
        assert LINE.match(line), line
        out.append(dict(field.split("=", 1) for field in line.split(" ")))
    return out


def client_list(conn, *args):
    reply = conn.call("CLIENT", "LIST", *args)
    assert not isinstance(reply, RespError), reply
    return parse_list(reply)




# ---------------------------------------------------------------------------------------------
# ID, names, LIST, INFO

def test_id_and_names(sr):
    cid = sr.client_id()
    assert isinstance(cid, int) and cid > 0
    assert sr.client_getname() is None
    assert sr.client_setname("worker-1") is True
    assert sr.client_getname() == "worker-1"
    with pytest.raises(Exception) as e:
        sr.client_setname("a b")
    assert str(e.value) == "Client names cannot contain spaces, newlines or special characters."
    assert sr.client_setname("") is True
    assert sr.client_getname() is None


def test_list_lines_and_order(server):
    a = server.raw()
    b = server.raw()
    a_id = a.call("CLIENT", "ID")
    b_id = b.call("CLIENT", "ID")
    assert b_id > a_id
    assert a.call("CLIENT", "SETNAME", "alpha") == "OK"
    assert a.call("SELECT", "5") == "OK"
    clients = client_list(b)
    ids = [int(c["id"]) for c in clients]
    assert ids == sorted(ids)
    by_id = {int(c["id"]): c for c in clients}
    me, other = by_id[b_id], by_id[a_id]
    assert me["cmd"] == "client|list" and me["flags"] == "N"
    assert other["cmd"] == "select" and other["name"] == "alpha" and other["db"] == "5"
    assert re.fullmatch(r"127\.0\.0\.1:\d+", me["addr"])
    assert me["laddr"] == "127.0.0.1:%d" % server.port
    assert me["user"] == "default" and me["resp"] == "2"
    # TYPE and ID filters; ids are listed in the order asked, repeats included.
    assert {int(c["id"]) for c in client_list(b, "TYPE", "normal")} >= {a_id, b_id}
    assert client_list(b, "TYPE", "pubsub") == []
    assert [int(c["id"]) for c in client_list(b, "ID", b_id, a_id, 999999, b_id)] == \
        [b_id, a_id, b_id]
    assert b.call("CLIENT", "LIST", "TYPE", "foo") == RespError("ERR Unknown client type 'foo'")
    assert b.call("CLIENT", "LIST", "ID", "x") == RespError("ERR Invalid client ID")


def test_info_is_own_line(server):
    c = server.raw()
    info = c.call("CLIENT", "INFO")
    (line,) = parse_list(info)
    assert line["cmd"] == "client|info"
    assert int(line["id"]) == c.call("CLIENT", "ID")
    # RESP3: a verbatim string.
    c.call("HELLO", "3")
    info = c.call("CLIENT", "INFO")
    assert isinstance(info, Verbatim) and info.format == "txt"
    assert parse_list(info)[0]["resp"] == "3"


def test_redis_py_parses_list_and_info(r):
    r.client_setname("pyclient")
    names = [c["name"] for c in r.client_list()]
    assert "pyclient" in names
    assert r.client_info()["name"] == "pyclient"


@after_7_0
def test_setinfo_shows_in_list(server):
    c = server.raw()
    assert c.call("CLIENT", "SETINFO", "LIB-NAME", "mylib") == "OK"
    assert c.call("CLIENT", "SETINFO", "lib-ver", "1.2.3") == "OK"
    (line,) = parse_list(c.call("CLIENT", "INFO"))
    assert line["lib-name"] == "mylib" and line["lib-ver"] == "1.2.3"
    assert c.call("CLIENT", "SETINFO", "color", "x") == RespError("ERR Unrecognized option 'color'")


@after_7_0
def test_no_evict_no_touch_flags(server):
    c = server.raw()
    assert c.call("CLIENT", "NO-EVICT", "on") == "OK"
    assert c.call("CLIENT", "NO-TOUCH", "on") == "OK"
    assert parse_list(c.call("CLIENT", "INFO"))[0]["flags"] == "eT"
    assert c.call("CLIENT", "NO-EVICT", "off") == "OK"
    assert c.call("CLIENT", "NO-TOUCH", "off") == "OK"
    assert parse_list(c.call("CLIENT", "INFO"))[0]["flags"] == "N"
    assert c.call("CLIENT", "NO-EVICT", "maybe") == RespError("ERR syntax error")


def test_getredir_and_help(sr):
    assert sr.execute_command("CLIENT", "GETREDIR") == -1
    lines = sr.execute_command("CLIENT", "HELP")
    assert lines[0] == "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    assert "HELP" in lines


# ---------------------------------------------------------------------------------------------
# KILL

def test_kill_old_form(server):
    victim = server.raw()
    killer = server.raw()
    addr = parse_list(victim.call("CLIENT", "INFO"))[0]["addr"]
    assert killer.call("CLIENT", "KILL", addr) == "OK"
    assert victim.is_closed()
    assert killer.call("CLIENT", "KILL", addr) == RespError("ERR No such client")
    assert killer.call("PING") == "PONG"


def test_kill_filters(server):
    a, b, c = server.raw(), server.raw(), server.raw()
    a_id = a.call("CLIENT", "ID")
    b_info = parse_list(b.call("CLIENT", "INFO"))[0]
    assert c.call("CLIENT", "KILL", "ID", a_id) == 1
    assert a.is_closed()
    assert c.call("CLIENT", "KILL", "ID", a_id) == 0
    assert c.call("CLIENT", "KILL", "ADDR", b_info["addr"], "ID", 999999) == 0
    assert c.call("CLIENT", "KILL", "ADDR", b_info["addr"], "LADDR", b_info["laddr"]) == 1
    assert b.is_closed()
    d, e = server.raw(), server.raw()
    d.call("PING")
    e.call("PING")
    # TYPE normal with the default SKIPME yes: everyone but the caller.
    assert c.call("CLIENT", "KILL", "TYPE", "normal", "USER", "default") == 2
    assert d.is_closed() and e.is_closed()
    assert c.call("PING") == "PONG"
    assert c.call("CLIENT", "KILL", "USER", "nobody") == RespError("ERR No such user 'nobody'")
    assert c.call("CLIENT", "KILL", "ID", "0") == \
        RespError("ERR client-id should be greater than 0")


@after_7_0
def test_kill_maxage(server):
    young = server.raw()
    young.call("PING")
    c = server.raw()
    # Only clients connected for at least MAXAGE seconds go.
    assert c.call("CLIENT", "KILL", "MAXAGE", 1000) == 0
    assert young.call("PING") == "PONG"
    # Valkey 8.0 refuses 0 and below.
    for age in (0, -5):
        assert c.call("CLIENT", "KILL", "MAXAGE", age) == \
            RespError("ERR maxage should be greater than 0")
    young_id = young.call("CLIENT", "ID")
    wait_for(lambda: int(client_list(c, "ID", young_id)[0]["age"]) >= 1)
    assert c.call("CLIENT", "KILL", "MAXAGE", 1) == 1  # everyone else (SKIPME yes)
    assert young.is_closed()
    assert c.call("CLIENT", "KILL", "MAXAGE", "soon") == \
        RespError("ERR maxage is not an integer or out of range")


def test_kill_self_replies_then_closes(server):
    c = server.raw()
    my_id = c.call("CLIENT", "ID")
    c.send_command("CLIENT", "KILL", "ID", my_id, "SKIPME", "no")
    c.send_command("PING")  # never runs
    assert c.read_reply() == 1
    assert c.read_until_closed() == b""
    assert server.client().ping()


def test_kill_twice_in_one_pipeline(server):
    victim = server.raw()
    vid = victim.call("CLIENT", "ID")
    killer = server.raw()
    kill = killer.encode("CLIENT", "KILL", "ID", vid)
    killer.send(kill + kill)
    assert killer.read_reply() == 1
    assert killer.read_reply() == 0
    assert victim.is_closed()
    assert killer.call("PING") == "PONG"


# ---------------------------------------------------------------------------------------------
# REPLY

def test_reply_off_skip_on(server):
    c = server.raw()
    c.send(b"CLIENT REPLY OFF\r\nSET a 1\r\nGET a\r\nNOSUCH\r\nCLIENT REPLY ON\r\nGET a\r\n")
    assert c.read_reply() == "OK"
    assert c.read_reply() == b"1"
    c.send(b"CLIENT REPLY SKIP\r\nINCR a\r\nGET a\r\n")
    assert c.read_reply() == b"2"
    c.send(b"CLIENT REPLY SKIP\r\nCLIENT REPLY ON\r\nPING\r\n")
    assert c.read_reply() == "OK"
    assert c.read_reply() == "PONG"
    assert c.call("CLIENT", "REPLY", "maybe") == RespError("ERR syntax error")


@after_7_0
def test_reply_off_then_quit_closes(server):
    c = server.raw()
    c.send(b"CLIENT REPLY OFF\r\nQUIT\r\n")
    assert c.read_until_closed() == b""


# ---------------------------------------------------------------------------------------------
# PAUSE

def held_flags(conn, cid):
    found = client_list(conn, "ID", cid)
    return found[0]["flags"] if found else None


def test_pause_write_holds_writes_not_reads(server):
    admin, writer, reader = server.raw(), server.raw(), server.raw()
    assert reader.call("SET", "a", "old") == "OK"
    wid = writer.call("CLIENT", "ID")
    assert admin.call("CLIENT", "PAUSE", 60000, "WRITE") == "OK"
    # Pipelined: the write is held, and the read behind it waits its turn.
    writer.send(b"SET a new\r\nINCR n\r\nINCR n\r\nGET a\r\n")
    wait_for(lambda: "b" in held_flags(admin, wid))
    assert reader.call("GET", "a") == b"old"          # reads are not paused
    assert reader.call("GET", "n") is None
    # A paused client keeps reading (its query buffer grows) without running anything.
    writer.send(b"PING\r\n" * 100)
    wait_for(lambda: int(client_list(admin, "ID", wid)[0]["qbuf"]) >= 600)
    assert reader.call("GET", "a") == b"old"
    assert admin.call("CLIENT", "UNPAUSE") == "OK"
    assert [writer.read_reply() for _ in range(4)] == ["OK", 1, 2, b"new"]
    assert [writer.read_reply() for _ in range(100)] == ["PONG"] * 100
    assert reader.call("GET", "n") == b"2"


def test_pause_all_holds_everything_until_timeout(server):
    admin, other = server.raw(), server.raw()
    start = time.monotonic()
    assert admin.call("CLIENT", "PAUSE", 300, "ALL") == "OK"
    other.send(b"PING\r\n")
    admin.send(b"GET x\r\n")  # the pausing client is held too
    assert other.read_reply() == "PONG"
    assert admin.read_reply() is None
    # Replies cannot come before the pause ends (a lower bound, never flaky).
    assert time.monotonic() - start >= 0.25


def test_shorter_pause_does_not_end_a_longer_one(server):
    admin, writer = server.raw(), server.raw()
    wid = writer.call("CLIENT", "ID")
    assert admin.call("CLIENT", "PAUSE", 60000, "WRITE") == "OK"
    assert admin.call("CLIENT", "PAUSE", 1, "WRITE") == "OK"
    writer.send(b"SET a 1\r\n")
    wait_for(lambda: "b" in held_flags(admin, wid))
    time.sleep(0.3)  # well past the short pause and several timer ticks
    assert "b" in held_flags(admin, wid)
    assert admin.call("GET", "a") is None
    assert admin.call("CLIENT", "UNPAUSE") == "OK"
    assert writer.read_reply() == "OK"
    assert admin.call("GET", "a") == b"1"


def test_kill_held_client_then_unpause(server):
    admin, held, other = server.raw(), server.raw(), server.raw()
    hid = held.call("CLIENT", "ID")
    assert admin.call("CLIENT", "PAUSE", 60000, "WRITE") == "OK"
    held.send(b"SET a 1\r\nSET b 2\r\n")
    other.send(b"SET c 3\r\n")
    wait_for(lambda: "b" in held_flags(admin, hid))
    assert admin.call("CLIENT", "KILL", "ID", hid) == 1
    assert held.is_closed()
    assert admin.call("CLIENT", "UNPAUSE") == "OK"
    assert other.read_reply() == "OK"
    assert admin.call("MGET", "a", "b", "c") == [None, None, b"3"]


def test_pause_keeps_the_data_still(server):
    """While clients are paused nothing changes the dataset, as in Valkey: expired keys are
    hidden from reads but stay (no lookup or expiry cycle deletes them), and nothing is
    evicted, so a replica can catch up with a stream that no longer grows."""
    admin = server.raw()

    def stat(name):
        return int(info_fields(admin.call("INFO", "stats"))[name])

    for i in range(300):
        assert admin.call("SET", f"v{i}", "x" * 100) == "OK"
    assert admin.call("SET", "short", "v", "PX", 50) == "OK"
    assert admin.call("CLIENT", "PAUSE", 60000, "WRITE") == "OK"
    time.sleep(0.4)  # past the TTL and several expiry cycles (a lower bound: never flaky)
    assert admin.call("GET", "short") is None
    assert admin.call("EXISTS", "short") == 0
    assert admin.call("DBSIZE") == 301 and stat("expired_keys") == 0
    assert admin.call("CLIENT", "UNPAUSE") == "OK"
    wait_for(lambda: stat("expired_keys") == 1)
    assert admin.call("DBSIZE") == 300

    assert admin.call("CONFIG", "SET", "maxmemory-policy", "allkeys-random") == "OK"
    assert admin.call("CLIENT", "PAUSE", 60000, "WRITE") == "OK"
    assert admin.call("CONFIG", "SET", "maxmemory", 1) == "OK"
    assert admin.call("DBSIZE") == 300 and stat("evicted_keys") == 0
    assert admin.call("CLIENT", "UNPAUSE") == "OK"
    assert admin.call("CONFIG", "SET", "maxmemory", 0) == "OK"
    assert stat("evicted_keys") > 0


def info_fields(text):
    text = text.decode() if isinstance(text, bytes) else text
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def test_pause_arguments(sr):
    with pytest.raises(Exception, match="timeout is negative"):
        sr.execute_command("CLIENT", "PAUSE", -1)
    with pytest.raises(Exception, match="CLIENT PAUSE mode must be WRITE or ALL"):
        sr.execute_command("CLIENT", "PAUSE", 10, "READ")
    with pytest.raises(Exception, match="timeout is not an integer or out of range"):
        sr.execute_command("CLIENT", "PAUSE", "soon")


# ---------------------------------------------------------------------------------------------
# MONITOR

def monitor_lines(m, n):
    out = []
    for _ in range(n):
        reply = m.read_reply()
        match = MONITOR_LINE.match(reply)
        assert match, reply
        out.append((int(match.group(1)), match.group(2), match.group(3)))
    return out


def test_monitor_sees_commands(server):
    m = server.raw()
    assert m.call("MONITOR") == "OK"
    c = server.raw()
    addr = parse_list(c.call("CLIENT", "INFO"))[0]["addr"]
    c.call("SET", "k", "v")
    c.call("SET", b'a"b\\c', b"\x00\x01\r\n\t\x07\x08\xff \x7f")
    c.call("AUTH", "default", "secret")       # error or not, secrets never show
    c.call("HELLO", "2", "AUTH", "default", "pw")
    c.call("CONFIG", "GET", "maxmemory")       # admin: not shown
    c.call("CLIENT", "LIST")                   # admin: not shown
    c.call("NOSUCHCOMMAND")                    # rejected: not shown
    c.call("GET")                              # arity error: not shown
    c.call("SELECT", "3")
    c.call("PING")
    lines = monitor_lines(m, 7)
    assert lines[0] == (0, addr, '"CLIENT" "INFO"')
    assert lines[1] == (0, addr, '"SET" "k" "v"')
    assert lines[2] == (0, addr, '"SET" "a\\"b\\\\c" "\\x00\\x01\\r\\n\\t\\a\\b\\xff \\x7f"')
    assert lines[3] == (0, addr, '"AUTH" "(redacted)" "(redacted)"')
    assert lines[4] == (0, addr, '"HELLO" "2" "AUTH" "(redacted)" "(redacted)"')
    assert lines[5] == (3, addr, '"SELECT" "3"')   # shown after it ran: the new db
    assert lines[6] == (3, addr, '"PING"')


def test_monitor_inline_and_pipeline_order(server):
    m = server.raw()
    assert m.call("MONITOR") == "OK"
    c = server.raw()
    c.send(b'set x "a b"\r\n' + b"".join(c.encode("INCR", "n") for _ in range(50)))
    for _ in range(51):
        c.read_reply()
    lines = monitor_lines(m, 51)
    assert lines[0][2] == '"set" "x" "a b"'
    assert all(line[2] == '"INCR" "n"' for line in lines[1:])


def test_monitor_client_rules(server):
    m = server.raw()
    assert m.call("MONITOR") == "OK"
    m.send(b"MONITOR\r\nPING\r\n")  # a second MONITOR has no reply at all
    assert m.read_reply() == "PONG"
    assert monitor_lines(m, 1)[0][2] == '"PING"'  # its own commands show too
    assert m.call("GET", "k") == RespError("ERR Replica can't interact with the keyspace")
    assert m.call("RESET") == "RESET"
    assert m.call("GET", "k") is None
    # After RESET it no longer receives the feed.
    server.client().set("k", "v")
    assert m.call("PING") == "PONG"


def test_killed_monitor_stops_receiving(server):
    m = server.raw()
    assert m.call("MONITOR") == "OK"
    c = server.raw()
    (mid,) = [cl["id"] for cl in client_list(c) if cl["flags"] == "O"]
    assert c.call("CLIENT", "KILL", "ID", mid) == 1
    m.read_until_closed()
    assert c.call("SET", "k", "v") == "OK"


def test_monitor_disconnect_is_clean(server):
    m = server.raw()
    assert m.call("MONITOR") == "OK"
    m.close()
    c = server.client()
    for i in range(20):
        c.set("k%d" % i, i)
    assert c.dbsize() == 20


def test_query_buffer_shrinks_back_after_a_large_request(r):
    """Issue 27: after a 10 MB request the client's query buffer and memory are back to their
    idle size (Valkey 8 reads into a shared buffer and shows qbuf=0 qbuf-free=0 meanwhile)."""
    def fields():
        info = r.execute_command("CLIENT", "INFO")
        info = info if isinstance(info, str) else info.decode()
        return {k: int(v) for k, v in (f.split("=", 1) for f in info.split())
                if k in ("qbuf", "qbuf-free", "tot-mem")}
    before = fields()
    r.set("big", "x" * 10_000_000)
    after = fields()
    assert after["qbuf"] + after["qbuf-free"] <= 64 * 1024, after
    assert after["tot-mem"] < before["tot-mem"] + 64 * 1024, (before, after)
