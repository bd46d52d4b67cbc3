"""Large string values: replies of 16 KB and more are sent from the value itself (no copy into
the output buffer). Whatever happens to the key before the reply leaves - an overwrite, an
in-place edit, a delete, a flush freed on another thread - the reply carries the value as it
was when the command ran, and every byte count (CLIENT LIST, COMMANDLOG) includes it."""

import os
import time

import pytest

from conftest import RawConnection

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
