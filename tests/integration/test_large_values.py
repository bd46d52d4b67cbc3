"""Large string values: replies of 16 KB and more are sent from the value itself (no copy into
the output buffer). Whatever happens to the key before the reply leaves - an overwrite, an
in-place edit, a delete, a flush freed on another thread - the reply carries the value as it
was when the command ran, and every byte count (CLIENT LIST, COMMANDLOG) includes it."""

import os
import time
from pathlib import Path

import pytest

from conftest import RawConnection, wait_for

BIG = 100_000
# More than the kernel's socket buffers take (several MB on loopback), so replies stay queued.
HUGE = 1_000_000


def slow_reader(server):
    """A raw connection that reads only when told: with HUGE values its replies wait in the
    server's output while later commands run. (A small SO_RCVBUF would do it with less, but
    makes loopback TCP crawl at one window per delayed ACK.)"""
    return RawConnection(server.host, server.port)


def wait_for_output(r, name, commands):
    """Waits until client `name` has run `commands` commands and still has replies queued."""
    for _ in range(500):
        for cl in r.client_list():
            if cl["name"] == name and int(cl["tot-cmds"]) >= commands:
                assert int(cl["omem"]) > 0, "replies were all sent: nothing tested"
                return
        time.sleep(0.02)
    raise AssertionError("pipeline did not run")


def test_replies_keep_the_value_the_command_saw(server, r):
    value = os.urandom(HUGE)
    r.set("k", value)
    c = slow_reader(server)
    c.call("CLIENT", "SETNAME", "slow")
    cmds = []
    want = []
    cur = value
    for i in range(40):
        cmds.append(("GET", "k"))
        want.append(cur)
        cur += b"x"
        cmds.append(("APPEND", "k", "x"))
        want.append(len(cur))
    cmds += [("GET", "k"), ("SETRANGE", "k", 3, "ZZZ")]
    want += [cur, len(cur)]
    cur = cur[:3] + b"ZZZ" + cur[6:]
    cmds += [("MGET", "k", "k"), ("SETBIT", "k", 0, 1)]
    want += [[cur, cur], (cur[0] >> 7) & 1]
    cur = bytes([cur[0] | 0x80]) + cur[1:]
    cmds += [("GET", "k"), ("SET", "k", b"y" * len(cur))]  # a same-size SET reuses in place
    want += [cur, "OK"]
    cmds += [("GET", "k"), ("GETDEL", "k"), ("GET", "k")]
    want += [b"y" * len(cur), b"y" * len(cur), None]
    c.send(b"".join(RawConnection.encode(*cmd) for cmd in cmds))
    wait_for_output(r, "slow", len(cmds) + 1)
    for expected in want:
        assert c.read_reply() == expected


@pytest.mark.parametrize("how", ["DEL", "UNLINK", "FLUSHALL ASYNC", "FLUSHALL SYNC"])
def test_a_freed_value_still_reaches_the_reader(server, r, how):
    values = [os.urandom(HUGE + i) for i in range(20)]
    for i, v in enumerate(values):
        r.set(f"k{i}", v)
    c = slow_reader(server)
    c.call("CLIENT", "SETNAME", "slow")
    c.send(b"".join(RawConnection.encode("GET", f"k{i}") for i in range(20)))
    wait_for_output(r, "slow", 21)
    if how in ("DEL", "UNLINK"):
        assert r.execute_command(how, *[f"k{i}" for i in range(20)]) == 20
    else:
        r.execute_command(*how.split())
    # New values may take the freed values' memory: the replies must not see them.
    for i in range(20):
        r.set(f"n{i}", os.urandom(HUGE + i))
    for v in values:
        assert c.read_reply() == v


def test_a_client_closing_with_replies_queued_frees_them(server, r):
    r.set("k", b"v" * HUGE)
    before = r.info("memory")["used_memory"]
    for i in range(5):
        c = slow_reader(server)
        c.call("CLIENT", "SETNAME", f"gone{i}")
        c.send(RawConnection.encode("GET", "k") * 50)
        wait_for_output(r, f"gone{i}", 51)
        c.close()
    r.delete("k")
    for _ in range(100):
        if r.info("memory")["used_memory"] < before:
            break
        time.sleep(0.02)
    assert r.info("memory")["used_memory"] < before
    assert r.ping()


def test_byte_counts_include_referenced_replies(server, r):
    r.set("k", b"v" * BIG)
    r.config_set("commandlog-reply-larger-than", BIG)
    c = RawConnection(server.host, server.port)
    c.call("CLIENT", "SETNAME", "counted")
    assert c.call("GET", "k") == b"v" * BIG
    me = [cl for cl in r.client_list() if cl["name"] == "counted"][0]
    assert int(me["tot-net-out"]) > BIG
    (logged,) = r.execute_command("COMMANDLOG", "GET", "-1", "large-reply")
    assert logged[2] == BIG + len(str(BIG)) + 5  # "$100000\r\n" + value + "\r\n"


def test_small_replies_around_large_ones_keep_their_order(server, r):
    r.set("big", b"B" * BIG)
    r.set("small", "s")
    c = RawConnection(server.host, server.port)
    cmds = []
    for i in range(300):
        cmds.append(("GET", "big") if i % 3 == 0 else ("GET", "small") if i % 3 == 1 else ("PING",))
    c.send(b"".join(RawConnection.encode(*cmd) for cmd in cmds))
    for i in range(300):
        want = b"B" * BIG if i % 3 == 0 else b"s" if i % 3 == 1 else "PONG"
        assert c.read_reply() == want


# Big arguments (32 KB and more) still arriving when their header is parsed are read into a
# buffer of their own, which SET keeps as the value (no copy). Whatever the split of the bytes
# and whatever comes after the argument, the commands must see the same arguments.

def send_in_pieces(conn, data, piece=7000, pause=0.002):
    for i in range(0, len(data), piece):
        conn.send(data[i:i + piece])
        time.sleep(pause)


@pytest.mark.parametrize("piece", [1, 4096, 65536])
def test_big_arguments_arriving_in_pieces(start_server, piece):
    server = start_server("--enable-debug-command", "yes")
    c = RawConnection(server.host, server.port)
    big = os.urandom(100_000)
    big2 = os.urandom(70_000)
    cmds = [("SET", "k", big, "EX", "1000"), ("GET", "k"),
            ("APPEND", "k", b"more"), ("SETRANGE", "k", 5, b"!!"),
            ("MSET", "m1", big, "m2", big2),  # two big arguments in one command
            ("HSET", "h", "f", big2), ("RPUSH", "l", big, "x"),
            ("SET", "k2", big2, "GET"), ("SET", "k2", big, "KEEPTTL", "GET"), ("PING",)]
    data = b"".join(RawConnection.encode(*cmd) for cmd in cmds)
    if piece == 1:
        # Header and the first bytes of the argument together, then the rest in one piece.
        cut = data.index(big) + 100
        send_in_pieces(c, data[:cut], piece=cut)
        send_in_pieces(c, data[cut:], piece=len(data))
    else:
        send_in_pieces(c, data, piece=piece)
    assert c.read_reply() == "OK"
    assert c.read_reply() == big
    assert c.read_reply() == len(big) + 4
    assert c.read_reply() == len(big) + 4
    assert c.read_reply() == "OK"
    assert c.read_reply() == 1
    assert c.read_reply() == 2
    assert c.read_reply() is None
    assert c.read_reply() == big2
    assert c.read_reply() == "PONG"
    want = bytearray(big + b"more")
    want[5:7] = b"!!"
    rb = server.client(decode_responses=False)
    assert rb.get("k") == bytes(want) and 0 < rb.ttl("k") <= 1000
    assert rb.get("m1") == big and rb.get("m2") == big2
    assert rb.hget("h", "f") == big2 and rb.lrange("l", 0, -1) == [big, b"x"]
    assert rb.get("k2") == big
    assert rb.object("encoding", "k2") == b"raw"
    # A value kept from the argument is an ordinary value: reload, digest, copies.
    digest = rb.execute_command("DEBUG", "DIGEST-VALUE", "k2")
    assert rb.copy("k2", "k3") and rb.get("k3") == big
    assert rb.execute_command("DEBUG", "DIGEST-VALUE", "k3") == digest


def test_a_pipelined_stream_of_big_values(server, r):
    """Each read after a big argument is short (the next command's start), so read boundaries
    fall everywhere in a stream of big SETs mixed with small commands: every value lands
    whole and every reply in order."""
    c = RawConnection(server.host, server.port)
    values = [os.urandom(32_768 + i * 4_099) for i in range(24)]
    cmds = []
    for i, v in enumerate(values):
        cmds.append(("SET", f"s{i}", v))
        if i % 5 == 0:
            cmds += [("INCR", "n"), ("GET", f"s{i}")]
    c.send(b"".join(RawConnection.encode(*cmd) for cmd in cmds))
    for i, v in enumerate(values):
        assert c.read_reply() == "OK"
        if i % 5 == 0:
            assert c.read_reply() == i // 5 + 1
            assert c.read_reply() == v
    rb = server.client(decode_responses=False)
    for i, v in enumerate(values):
        assert rb.get(f"s{i}") == v


@pytest.mark.parametrize("fsync", ["always", "everysec"])
def test_replies_sent_while_reading_on_follow_the_aof(start_server, fsync):
    """Reading on for a big argument sends the replies so far first; under AOF they must not
    leave before their commands are in the file (a turn's replies go out after the AOF write).
    The DEBUG SLEEP after the big SET holds the pass: a reply sent early is then read while
    its command is still only in the server's AOF buffer."""
    s = start_server("--appendonly", "yes", "--appendfsync", fsync,
                     "--enable-debug-command", "yes")
    incr = Path(s.dir) / "appendonlydir" / "appendonly.aof.1.incr.aof"
    assert wait_for(lambda: incr.exists())
    c = RawConnection(s.host, s.port)
    c.send(RawConnection.encode("SET", "first", "v") +
           RawConnection.encode("SET", "big", b"b" * 300_000) +
           RawConnection.encode("DEBUG", "SLEEP", "1"))
    assert c.read_reply() == "OK"
    assert b"first" in incr.read_bytes()
    assert c.read_reply() == "OK"
    assert c.read_reply() == "OK"


@pytest.mark.parametrize("fsync", ["always", "everysec"])
def test_replies_sent_within_a_turn_follow_the_aof(start_server, fsync):
    """A pipeline's replies go out once 64 KB of them pile up (COMMAND DOCS is 150 KB), before
    the turn ends; under AOF not before their commands are in the file. The DEBUG SLEEP at
    the end holds the turn: the first replies are read while the turn still runs. Nothing is
    written before the pipeline: under everysec a write waits while a background fsync runs
    (and its replies go out meanwhile, as in Valkey)."""
    s = start_server("--appendonly", "yes", "--appendfsync", fsync,
                     "--enable-debug-command", "yes", "--io-threads", "1")
    incr = Path(s.dir) / "appendonlydir" / "appendonly.aof.1.incr.aof"
    assert wait_for(lambda: incr.exists())
    r = s.client()
    assert wait_for(lambda: r.info("persistence")["aof_pending_bio_fsync"] == 0)
    c = RawConnection(s.host, s.port)
    t0 = time.monotonic()
    c.send(RawConnection.encode("SET", "first", "v") + RawConnection.encode("COMMAND", "DOCS") +
           RawConnection.encode("DEBUG", "SLEEP", "2"))
    assert c.read_reply() == "OK"
    assert b"first" in incr.read_bytes()
    assert len(c.read_reply()) > 100
    assert time.monotonic() - t0 < 1.5, "replies waited for the end of the turn"
    assert c.read_reply() == "OK"


def test_a_slow_reader_of_a_long_pipeline_of_copied_replies(server, r):
    """Sends within a turn stop once the socket is full (a slow reader): the replies queue in
    the output as before and all arrive in order, and the server serves others meanwhile."""
    values = [bytes([65 + i % 26]) * 9000 for i in range(26)]
    for i, v in enumerate(values):
        r.set(f"c{i}", v)
    c = slow_reader(server)
    c.call("CLIENT", "SETNAME", "slow")
    n = 3000  # 27 MB of replies: more than the socket buffers take
    c.send(b"".join(RawConnection.encode("GET", f"c{i % 26}") for i in range(n)))
    wait_for_output(r, "slow", n)
    assert r.ping()
    for i in range(n):
        assert c.read_reply() == values[i % 26]
    assert c.call("PING") == "PONG"


def test_a_blocked_client_stops_reading_on_its_big_values(server, r):
    """Big values are read on within one pass (ProcessInput), but not past a command that
    blocks: the values after it wait in the socket and run, in order, once it is served."""
    c = RawConnection(server.host, server.port)
    values = [os.urandom(60_000 + i) for i in range(4)]
    cmds = [("SET", "b0", values[0]), ("BLPOP", "blist", "0"),
            ("SET", "b1", values[1]), ("SET", "b2", values[2]), ("GET", "b1"),
            ("SET", "b3", values[3])]
    c.send(b"".join(RawConnection.encode(*cmd) for cmd in cmds))
    assert c.read_reply() == "OK"
    assert wait_for(lambda: r.info("clients")["blocked_clients"] == 1)
    assert r.exists("b1", "b2", "b3") == 0
    r.lpush("blist", "x")
    assert c.read_reply() == [b"blist", b"x"]
    assert c.read_reply() == "OK"
    assert c.read_reply() == "OK"
    assert c.read_reply() == values[1]
    assert c.read_reply() == "OK"
    rb = server.client(decode_responses=False)
    assert [rb.get(f"b{i}") for i in range(4)] == values


def test_big_argument_of_a_paused_client_runs_after_unpause(server, r):
    r.client_pause(100_000, all=False)  # WRITE: the SET waits
    c = RawConnection(server.host, server.port)
    big = os.urandom(200_000)
    send_in_pieces(c, RawConnection.encode("SET", "k", big) + RawConnection.encode("GET", "k"))
    time.sleep(0.2)
    assert r.exists("k") == 0
    r.client_unpause()
    assert c.read_reply() == "OK"
    assert c.read_reply() == big


def test_big_arguments_count_as_request_bytes(server, r):
    r.config_set("commandlog-request-larger-than", 100_000)
    c = RawConnection(server.host, server.port)
    big = b"q" * 150_000
    send_in_pieces(c, RawConnection.encode("SET", "k", big))
    assert c.read_reply() == "OK"
    (logged,) = r.execute_command("COMMANDLOG", "GET", "-1", "large-request")
    assert logged[2] == len(RawConnection.encode("SET", "k", big))


def test_big_argument_past_the_query_buffer_limit_closes_the_client(server, r):
    r.config_set("client-query-buffer-limit", "1mb")
    c = RawConnection(server.host, server.port)
    c.send(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3000000\r\n")
    try:
        send_in_pieces(c, b"z" * 2_000_000, piece=65536, pause=0)
    except OSError:
        pass
    assert c.is_closed()
    assert r.info("stats")["client_query_buffer_limit_disconnections"] == 1
    assert r.exists("k") == 0


def test_client_leaving_in_the_middle_of_a_big_argument(server, r):
    for _ in range(5):
        c = RawConnection(server.host, server.port)
        c.send(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$500000\r\n" + b"p" * 100_000)
        time.sleep(0.05)
        c.close()
    assert r.ping() and r.exists("k") == 0


def test_values_on_small_pages_around_the_by_reference_size(start_server,
                                                            no_thp_server_binary):
    """Where values have no huge pages (here the process has THP turned off, prctl
    PR_SET_THP_DISABLE), replies are copied up to 32 KB and referenced from there
    (store/blob_pins.h): both sides of that line keep the value the command saw."""
    s = start_server(binary=no_thp_server_binary)
    c = s.raw()
    for size in (16 * 1024, 24 * 1024, 32 * 1024 - 1, 32 * 1024, 64 * 1024):
        value = os.urandom(size)
        cmds = [("SET", "k", value)]
        want = ["OK"]
        for _ in range(8):
            cmds += [("GET", "k"), ("APPEND", "k", "x")]
            want += [value, len(value) + 1]
            value += b"x"
        cmds += [("GET", "k"), ("DEL", "k"), ("GET", "k")]
        want += [value, 1, None]
        c.send(b"".join(RawConnection.encode(*cmd) for cmd in cmds))
        assert [c.read_reply() for _ in cmds] == want, size


def test_a_busy_output_buffer_is_kept_until_its_client_idles(start_server):
    """A client whose copied replies fill a large output buffer (40 GETs of 8 KB in one turn)
    keeps it for its next turns instead of regrowing it each time (CLIENT LIST rbs), and gives
    it back once idle for a couple of seconds. The buffer holds 64 KB of replies and one more
    before they are sent within the turn, not the turn's 328 KB (a new client's buffer grown
    to that faulted in 190 pages; with I/O threads they leave at the end of the turn)."""
    server = start_server("--io-threads", "1")
    r = server.client(decode_responses=False)
    r.set("v", b"v" * 8192)
    c = server.raw()
    c.call("CLIENT", "SETNAME", "busy")
    c.send(b"".join(RawConnection.encode("GET", "v") for _ in range(40)))
    assert [c.read_reply() for _ in range(40)] == [b"v" * 8192] * 40

    def rbs():
        return next(int(cl["rbs"]) for cl in r.client_list() if cl["name"] == "busy")
    assert 64 * 1024 < rbs() <= 160 * 1024
    wait_for(lambda: rbs() <= 64 * 1024, timeout=10)
    assert c.call("GET", "v") == b"v" * 8192
