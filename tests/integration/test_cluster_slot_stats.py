"""CLUSTER SLOT-STATS against valkey-server 8.0.1: the same commands sent to a cluster-enabled
Vireo node and a cluster-enabled reference node, replies compared byte for byte (key counts
after writes across slots, SLOTSRANGE, ORDERBY with LIMIT / ASC / DESC, every error, RESP3),
and the per-slot accounting of cluster-slot-stats-enabled yes: network-bytes-in and -out
compared exactly, cpu-usec only checked to grow (no timing assertions)."""

import os
import re

import pytest

from conftest import VALKEY_SERVER, RawConnection, free_port, wait_for

# Slots the single-node clusters serve: a range, and the slots of keys "a", "b", "c".
SLOT_A, SLOT_B, SLOT_C = 15495, 3300, 7365
CPU = re.compile(rb"cpu-usec\r\n:\d+")


def start_node(start_server, binary=None, stats=False, cluster=True):
    args = ["--appendonly", "no"]
    if cluster:
        args += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                 "--cluster-port", str(free_port()), "--cluster-require-full-coverage", "no"]
    if stats:
        args += ["--cluster-slot-stats-enabled", "yes"]
    return start_server(*args, binary=binary)


def serve_slots(node):
    conn = RawConnection(node.host, node.port)
    assert conn.call("CLUSTER", "ADDSLOTSRANGE", "0", "100") == "OK"
    assert conn.call("CLUSTER", "ADDSLOTS", str(SLOT_A), str(SLOT_B), str(SLOT_C)) == "OK"
    wait_for(lambda: b"cluster_state:ok" in conn.call("CLUSTER", "INFO"))
    return conn


class Pair:
    """A connection to Vireo and one to the reference; `both` sends a command to each and
    asserts the exact reply bytes are the same."""

    def __init__(self, vireo, valkey):
        self.vireo, self.valkey = vireo, valkey

    def send_raw(self, data):
        for c in (self.vireo, self.valkey):
            c.send(data)

    def raw_replies(self):
        return self.vireo.read_raw_reply(), self.valkey.read_raw_reply()

    def both(self, *cmd):
        self.send_raw(RawConnection.encode(*cmd))
        mine, ref = self.raw_replies()
        # CPU time is measured, never equal: compared as present, not by value.
        assert CPU.sub(b"cpu-usec:?", mine) == CPU.sub(b"cpu-usec:?", ref), (
            f"{cmd}: vireo {mine!r} != valkey {ref!r}")
        return mine

    def new(self):
        return Pair(RawConnection(self.vireo_node.host, self.vireo_node.port),
                    RawConnection(self.valkey_node.host, self.valkey_node.port))


def make_pair(start_server, stats=False, cluster=True):
    if not os.path.exists(VALKEY_SERVER):
        pytest.skip("needs the reference valkey-server in ../shared/reference/")
    vireo = start_node(start_server, stats=stats, cluster=cluster)
    valkey = start_node(start_server, binary=VALKEY_SERVER, stats=stats, cluster=cluster)
    if cluster:
        p = Pair(serve_slots(vireo), serve_slots(valkey))
    else:
        p = Pair(RawConnection(vireo.host, vireo.port), RawConnection(valkey.host, valkey.port))
    p.vireo_node, p.valkey_node = vireo, valkey
    return p


def slot_values(conn, slot):
    """[key-count, cpu-usec, network-bytes-in, network-bytes-out] of a slot (stats enabled)."""
    reply = conn.call("CLUSTER", "SLOT-STATS", "SLOTSRANGE", str(slot), str(slot))
    (_, metrics), = reply
    m = dict(zip(metrics[::2], metrics[1::2])) if isinstance(metrics, list) else metrics
    return [m[b"key-count"], m[b"cpu-usec"], m[b"network-bytes-in"], m[b"network-bytes-out"]]


# --------------------------------------------------------------------------------------------
# Replies and errors

def test_key_counts_ranges_and_ordering_match_valkey(start_server):
    p = make_pair(start_server)
    p.both("CLUSTER", "SLOT-STATS", "SLOTSRANGE", "0", "16383")
    for cmd in (("SET", "a", "1"), ("SET", "b", "1"), ("SET", "{a}x", "1"), ("SET", "{a}y", "1"),
                ("MSET", "{b}1", "2", "{b}2", "2", "{b}3", "3"), ("SET", "{0}", "x"),
                ("SET", "{c}z", "1"), ("DEL", "{c}z")):
        p.both(*cmd)
    assert p.both("CLUSTER", "SLOT-STATS", "SLOTSRANGE", str(SLOT_B), str(SLOT_B)) == (
        b"*1\r\n*2\r\n:3300\r\n*2\r\n$9\r\nkey-count\r\n:4\r\n")
    for args in (("SLOTSRANGE", "0", "16383"), ("SLOTSRANGE", "99", "7365"),
                 ("SLOTSRANGE", "101", "3299"), ("SLOTSRANGE", "16383", "16383"),
                 ("SLOTSRANGE", "0", "0"),
                 ("ORDERBY", "key-count"), ("ORDERBY", "KEY-COUNT", "LIMIT", "3"),
                 ("ORDERBY", "key-count", "limit", "5", "asc"),
                 ("ORDERBY", "key-count", "DESC", "LIMIT", "2"),
                 ("ORDERBY", "key-count", "asc"), ("ORDERBY", "key-count", "limit", "16384"),
                 ("slotsrange", "3300", "15495")):
        p.both("CLUSTER", "SLOT-STATS", *args)


ERRORS = [
    (),
    ("SLOTSRANGE",),
    ("ORDERBY",),
    ("SLOTSRANGE", "0"),
    ("SLOTSRANGE", "0", "1", "2"),
    ("foo", "1", "2"),
    ("SLOTSRANGE", "a", "1"),
    ("SLOTSRANGE", "1", "a"),
    ("SLOTSRANGE", "-1", "1"),
    ("SLOTSRANGE", "0", "16384"),
    ("SLOTSRANGE", "16384", "1"),
    ("SLOTSRANGE", "5", "1"),
    ("SLOTSRANGE", "16383", "1"),
    ("SLOTSRANGE", "00005", "0010"),
    ("SLOTSRANGE", "0", "-0"),
    ("ORDERBY", "foo"),
    ("ORDERBY", "cpu-usec"),
    ("ORDERBY", "network-bytes-in"),
    ("ORDERBY", "network-bytes-out"),
    ("ORDERBY", "memory-bytes"),
    ("ORDERBY", "foo", "LIMIT", "0"),
    ("ORDERBY", "key-count", "LIMIT", "0"),
    ("ORDERBY", "key-count", "LIMIT", "-1"),
    ("ORDERBY", "key-count", "LIMIT", "16385"),
    ("ORDERBY", "key-count", "LIMIT", "x"),
    ("ORDERBY", "key-count", "LIMIT", "1.5"),
    ("ORDERBY", "key-count", "LIMIT", "03"),
    ("ORDERBY", "key-count", "LIMIT", "9223372036854775808"),
    ("ORDERBY", "key-count", "LIMIT"),
    ("ORDERBY", "key-count", "LIMIT", "2", "LIMIT", "3"),
    ("ORDERBY", "key-count", "LIMIT", "2", "LIMIT", "0"),
    ("ORDERBY", "key-count", "LIMIT", "2", "LIMIT"),
    ("ORDERBY", "key-count", "LIMIT", "0", "foo"),
    ("ORDERBY", "key-count", "ASC", "DESC"),
    ("ORDERBY", "key-count", "desc", "desc"),
    ("ORDERBY", "key-count", "ASC", "LIMIT"),
    ("ORDERBY", "key-count", "foo"),
    ("ORDERBY", "key-count", "LIMIT", "2", "DESC", "foo"),
]


@pytest.mark.parametrize("cluster", [True, False], ids=["cluster", "standalone"])
def test_errors_match_valkey(start_server, cluster):
    p = make_pair(start_server, cluster=cluster)
    for args in ERRORS:
        reply = p.both("CLUSTER", "SLOT-STATS", *args)
        assert reply.startswith(b"-"), (args, reply)
    # The subcommand as the client spelt it.
    p.both("CLUSTER", "Slot-Stats", "SLOTSRANGE", "0")
    if not cluster:
        assert p.both("CLUSTER", "SLOT-STATS", "SLOTSRANGE", "0", "1") == (
            b"-ERR This instance has cluster support disabled\r\n")


def test_resp3_replies_match_valkey(start_server):
    for stats in (False, True):
        p = make_pair(start_server, stats=stats)
        p.send_raw(RawConnection.encode("HELLO", "3"))
        p.raw_replies()
        p.both("SET", "{b}k", "v")
        p.both("CLUSTER", "SLOT-STATS", "SLOTSRANGE", "99", "100")
        p.both("CLUSTER", "SLOT-STATS", "ORDERBY", "key-count", "LIMIT", "2")
        reply = p.vireo.call("CLUSTER", "SLOT-STATS", "SLOTSRANGE", str(SLOT_B), str(SLOT_B))
        assert isinstance(reply[0][1], dict) and reply[0][1][b"key-count"] == 1
        assert len(reply[0][1]) == (4 if stats else 1)


def test_command_info_and_docs_match_valkey(start_server):
    p = make_pair(start_server)
    p.both("COMMAND", "INFO", "cluster|slot-stats")


# --------------------------------------------------------------------------------------------
# Accounting (cluster-slot-stats-enabled yes)

def deltas(p, slot, action, conns=None):
    """Runs action (a function of a Pair) and returns, for Vireo and the reference, how the
    slot's [key-count, cpu-usec, network-bytes-in, network-bytes-out] changed."""
    admin = p.admin
    before = [slot_values(c, slot) for c in admin]
    action(conns or p.new())
    after = [slot_values(c, slot) for c in admin]
    return [[x - y for x, y in zip(a, b)] for a, b in zip(after, before)]


def stats_pair(start_server):
    p = make_pair(start_server, stats=True)
    p.admin = (p.vireo, p.valkey)
    return p


def assert_bytes_match(d, expect=None):
    """Key counts and network bytes the same as the reference's (and as expected)."""
    (mine, ref) = d
    assert mine[0] == ref[0] and mine[2:] == ref[2:], f"vireo {mine} != valkey {ref}"
    if expect is not None:
        assert mine[2:] == list(expect)


def test_cpu_time_is_charged(start_server):
    p = stats_pair(start_server)

    def writes(q):
        q.send_raw(b"".join(RawConnection.encode("SET", "b", "x" * 1000) for _ in range(500)))
        for _ in range(500):
            q.raw_replies()
    d = deltas(p, SLOT_B, writes)
    assert d[0][1] > 0 and d[1][1] > 0
    request = len(RawConnection.encode("SET", "b", "x" * 1000))
    assert d[0][2] == d[1][2] == 500 * request and d[0][3] == d[1][3] == 500 * 5


def test_known_commands_charge_exact_bytes(start_server):
    p = stats_pair(start_server)
    # SET b 1: a 27-byte request, "+OK\r\n" back; one more key.
    d = deltas(p, SLOT_B, lambda q: q.both("SET", "b", "1"))
    assert_bytes_match(d, (27, 5))
    assert d[0][0] == 1
    assert_bytes_match(deltas(p, SLOT_B, lambda q: q.both("GET", "b")), (20, 7))
    # A miss in another slot; a keyless command charges nothing.
    assert_bytes_match(deltas(p, SLOT_A, lambda q: q.both("GET", "a")), (20, 5))
    assert_bytes_match(deltas(p, SLOT_B, lambda q: q.both("PING")), (0, 0))

    def inline(q):
        q.send_raw(b"get b\r\n")
        q.raw_replies()
    assert_bytes_match(deltas(p, SLOT_B, inline), (7, 7))

    def pipelined(q):
        q.send_raw(RawConnection.encode("GET", "b") + RawConnection.encode("GET", "b"))
        assert q.raw_replies()[0] == q.raw_replies()[0]
    assert_bytes_match(deltas(p, SLOT_B, pipelined), (40, 14))
    # An error reply of a command that ran is charged; a refused command is not.
    assert_bytes_match(deltas(p, SLOT_B, lambda q: q.both("LPUSH", "b", "x")))
    assert_bytes_match(deltas(p, SLOT_B, lambda q: q.both("GET", "b", "c")), (0, 0))
    assert_bytes_match(deltas(p, SLOT_B, lambda q: q.both("MGET", "a", "b")), (0, 0))
    assert_bytes_match(deltas(p, SLOT_B, lambda q: q.both("DEL", "b")), (20, 4))


def test_transactions_charge_like_valkey(start_server):
    p = stats_pair(start_server)
    p.both("SET", "b", "1")
    p.both("SET", "{b}1", "1")

    def tx(*queued, pipeline=False, end="EXEC"):
        def run(q):
            cmds = [("MULTI",), *queued, (end,)]
            if pipeline:
                q.send_raw(b"".join(RawConnection.encode(*cmd) for cmd in cmds))
                for _ in cmds:
                    mine, ref = q.raw_replies()
                    assert mine == ref
            else:
                for cmd in cmds:
                    q.both(*cmd)
        return run
    # MULTI's and EXEC's requests go with the queued commands' (charged when queued), a
    # keyless command's not; each command of EXEC is charged EXEC's reply so far, and EXEC
    # its whole reply.
    assert_bytes_match(deltas(p, SLOT_B, tx(("SET", "b", "3"), ("PING",))),
                       (15 + 27 + 14, (4 + 5) + 16 + 16))
    assert_bytes_match(deltas(p, SLOT_B, tx(("PING",), ("SET", "b", "2"), pipeline=True)))
    assert_bytes_match(deltas(p, SLOT_B, tx(("GET", "b"), ("GET", "{b}1"), ("GET", "{b}2"))))
    assert_bytes_match(deltas(p, SLOT_B, tx(("SET", "b", "3"), end="DISCARD")), (27, 0))
    assert_bytes_match(deltas(p, SLOT_B, tx(("PING",))), (0, 0))

    def watched(q):
        q.both("WATCH", "b")
        tx(("GET", "b"),)(q)
    assert_bytes_match(deltas(p, SLOT_B, watched))


def test_inline_requests_count_as_valkey_rebuilds_them(start_server):
    p = stats_pair(start_server)
    p.both("SET", "b", "1")
    for request in (b"get b\r\n", b"get    b  \r\n", b"get b\n"):
        def inline(q, request=request):
            q.send_raw(request)
            mine, ref = q.raw_replies()
            assert mine == ref
        assert_bytes_match(deltas(p, SLOT_B, inline), (7, 7))


def test_client_reply_off_charges_no_output(start_server):
    p = stats_pair(start_server)
    quiet = p.new()
    quiet.send_raw(RawConnection.encode("CLIENT", "REPLY", "OFF"))

    def get(q):
        # REPLY ON answers once the GET before it has run.
        q.send_raw(RawConnection.encode("GET", "b") + RawConnection.encode("CLIENT", "REPLY", "ON"))
        assert q.raw_replies() == (b"+OK\r\n", b"+OK\r\n")
    assert_bytes_match(deltas(p, SLOT_B, get, conns=quiet), (20, 0))


def test_scripts_charge_like_valkey(start_server):
    p = stats_pair(start_server)
    p.both("SET", "b", "2")
    p.both("FUNCTION", "LOAD", "#!lua name=lib\n"
           "redis.register_function('f', function(keys, args) return redis.call('get', keys[1]) "
           "end)\nredis.register_function('g', function(keys, args) return 1 end)")
    # An EVAL whose script called a command: only that command's reply (for its own slot);
    # one that called none, or failed first, is charged as any command; FCALL always is.
    cases = [
        ("EVAL", "return redis.call('get',KEYS[1])", "1", "b"),
        ("EVAL_RO", "return redis.call('get',KEYS[1])", "1", "b"),
        ("EVAL", "return redis.call('ping')", "1", "b"),
        ("EVAL", "return 1", "1", "b"),
        ("EVAL", "return redis.call('nosuch')", "1", "b"),
        ("EVAL", "retur 1", "1", "b"),
        ("EVALSHA", "0" * 40, "1", "b"),
        ("FCALL", "f", "1", "b"),
        ("FCALL", "g", "1", "b"),
    ]
    for i, cmd in enumerate(cases):
        d = deltas(p, SLOT_B, lambda q, cmd=cmd: q.both(*cmd))
        assert_bytes_match(d)
        if i < 3:
            assert d[0][1] == d[1][1] == 0, (cmd, d)  # no CPU time either


def test_spublish_fan_out_counts_as_bytes_out(start_server):
    p = stats_pair(start_server)
    subs = [p.new(), p.new()]
    for s in subs:
        s.both("SSUBSCRIBE", "b")
    d = deltas(p, SLOT_B, lambda q: q.both("SPUBLISH", "b", "hello"))
    # ":2\r\n" to the publisher, a 36-byte smessage to each subscriber.
    assert_bytes_match(d, (36, 4 + 2 * 36))
    for s in subs:
        mine, ref = s.raw_replies()
        assert mine == ref == b"*3\r\n$8\r\nsmessage\r\n$1\r\nb\r\n$5\r\nhello\r\n"
    d = deltas(p, SLOT_B, lambda q: q.both("SUNSUBSCRIBE", "b"), conns=subs[0])
    assert_bytes_match(d, (30, 34))


def test_blocked_command_is_charged_when_served(start_server):
    p = stats_pair(start_server)
    waiter = p.new()

    def block(q):
        q.send_raw(RawConnection.encode("BLPOP", "{b}l", "0"))
    assert_bytes_match(deltas(p, SLOT_B, block, conns=waiter), (0, 0))

    def push(q):
        q.both("LPUSH", "{b}l", "v")
        mine, ref = waiter.raw_replies()
        assert mine == ref == b"*2\r\n$4\r\n{b}l\r\n$1\r\nv\r\n"
    d = deltas(p, SLOT_B, push)
    # LPUSH's request and ":1\r\n", plus BLPOP's request and reply.
    assert_bytes_match(d, (32 + 32, 4 + 21))

    def time_out(q):
        q.both("BLPOP", "{b}none", "0.05")
    # A wait that times out is charged no bytes.
    assert_bytes_match(deltas(p, SLOT_B, time_out), (0, 0))


def test_resets_toggles_and_disabled_metrics(start_server):
    p = stats_pair(start_server)
    p.both("GET", "c")
    assert slot_values(p.vireo, SLOT_C)[2:] == slot_values(p.valkey, SLOT_C)[2:] == [20, 5]
    # Losing a slot forgets its counters.
    p.both("CLUSTER", "DELSLOTS", str(SLOT_C))
    p.both("CLUSTER", "SLOT-STATS", "SLOTSRANGE", str(SLOT_C), str(SLOT_C))
    p.both("CLUSTER", "ADDSLOTS", str(SLOT_C))
    assert slot_values(p.vireo, SLOT_C) == [0, 0, 0, 0]
    # Turned off: nothing is charged, what was counted stays, and only key-count is shown
    # (the other metrics are unknown to ORDERBY).
    p.both("GET", "b")
    kept = slot_values(p.vireo, SLOT_B)
    p.both("CONFIG", "SET", "cluster-slot-stats-enabled", "no")
    p.both("GET", "b")
    p.both("CLUSTER", "SLOT-STATS", "SLOTSRANGE", str(SLOT_B), str(SLOT_B))
    p.both("CLUSTER", "SLOT-STATS", "ORDERBY", "cpu-usec")
    p.both("CONFIG", "SET", "cluster-slot-stats-enabled", "yes")
    assert slot_values(p.vireo, SLOT_B) == kept
    # ORDERBY the accounted metrics (values equal across servers for the byte counts).
    p.both("SET", "a", "xxxxxxxxxx")
    for metric in ("network-bytes-in", "network-bytes-out"):
        p.both("CLUSTER", "SLOT-STATS", "ORDERBY", metric, "LIMIT", "3")
    mine = p.vireo.call("CLUSTER", "SLOT-STATS", "ORDERBY", "cpu-usec", "LIMIT", "2")
    assert {mine[0][0], mine[1][0]} == {SLOT_A, SLOT_B}
    # CONFIG RESETSTAT clears every slot's counters (not key counts).
    p.both("CONFIG", "RESETSTAT")
    assert slot_values(p.vireo, SLOT_B) == slot_values(p.valkey, SLOT_B) == [0, 0, 0, 0]
    assert slot_values(p.vireo, SLOT_A)[0] == 1


def start_shard(start_server, binary):
    """A primary serving slots 0 and SLOT_B and its replica, with slot stats on; returns raw
    connections to both once the replica is online."""
    buses = [free_port(), free_port()]
    nodes = [start_server("--appendonly", "no", "--cluster-enabled", "yes",
                          "--cluster-config-file", "nodes.conf", "--cluster-port", str(bus),
                          "--cluster-require-full-coverage", "no", "--cluster-node-timeout",
                          "3000", "--cluster-slot-stats-enabled", "yes", binary=binary)
             for bus in buses]
    primary, replica = (RawConnection(n.host, n.port) for n in nodes)
    assert primary.call("CLUSTER", "ADDSLOTS", "0", str(SLOT_B)) == "OK"
    assert replica.call("CLUSTER", "MEET", "127.0.0.1", str(nodes[0].port), str(buses[0])) == "OK"
    primary_id = primary.call("CLUSTER", "MYID")

    def replicated():
        try:
            return replica.call("CLUSTER", "REPLICATE", primary_id) == "OK"
        except Exception:
            return False
    wait_for(replicated, timeout=20)
    wait_for(lambda: b"state=online" in primary.call("INFO", "replication"), timeout=20)
    for c in (primary, replica):
        wait_for(lambda: b"cluster_state:ok" in c.call("CLUSTER", "INFO"), timeout=20)
    # The first write after a sync also selects the database: out of the way first.
    assert primary.call("SET", "{b}warm", "1") == "OK"
    wait_for(lambda: replica.call("DBSIZE") == 1)
    return primary, replica


def test_replication_counts_on_both_sides(start_server):
    if not os.path.exists(VALKEY_SERVER):
        pytest.skip("needs the reference valkey-server in ../shared/reference/")
    results = []
    for binary in (None, VALKEY_SERVER):
        primary, replica = start_shard(start_server, binary)
        before = slot_values(primary, SLOT_B), slot_values(replica, SLOT_B)
        assert primary.call("SET", "b", "hello") == "OK"
        wait_for(lambda: slot_values(replica, SLOT_B)[2] > before[1][2])
        after = slot_values(primary, SLOT_B), slot_values(replica, SLOT_B)
        results.append([[x - y for x, y in zip(a, b)] for a, b in zip(after, before)])
        # SPUBLISH reaches the shard's other nodes over the bus, which is not counted.
        before = slot_values(primary, SLOT_B)
        assert primary.call("SPUBLISH", "b", "hello") == 0
        assert [x - y for x, y in zip(slot_values(primary, SLOT_B), before)][2:] == [36, 4]
        # A replica reports its primary's slots.
        listed = [s for s, _ in replica.call("CLUSTER", "SLOT-STATS", "SLOTSRANGE", "0", "16383")]
        assert listed == [0, SLOT_B]
    (mine_p, mine_r), (ref_p, ref_r) = results
    # The primary: the 31-byte request, "+OK\r\n" and the command again to its one replica.
    assert mine_p[0] == ref_p[0] == 1 and mine_p[2:] == ref_p[2:] == [31, 5 + 31]
    # The replica: the command as applied from the stream, no reply.
    assert mine_r[0] == ref_r[0] == 1 and mine_r[2:] == ref_r[2:] == [31, 0]


def test_key_counts_are_kept_through_every_change(start_server):
    """Issue 28: the keyspace keeps keys per slot (COUNTKEYSINSLOT and key-count are no longer
    a keyspace walk); the counts follow writes, deletes, renames, expiry, a restart's load and
    FLUSHALL, checked against GETKEYSINSLOT."""
    node = start_node(start_server)
    conn = serve_slots(node)
    tags = ["{a}", "{b}", "{c}", "{d}"]

    def agree():
        for tag in tags:
            slot = conn.call("CLUSTER", "KEYSLOT", tag)
            keys = conn.call("CLUSTER", "GETKEYSINSLOT", str(slot), "100000")
            assert conn.call("CLUSTER", "COUNTKEYSINSLOT", str(slot)) == len(keys), tag

    for i in range(400):
        conn.call("SET", f"{tags[i % 4]}k{i}", "v")
    for i in range(0, 400, 3):
        conn.call("DEL", f"{tags[i % 4]}k{i}")
    conn.call("RENAME", "{a}k4", "{a}renamed")
    conn.call("SET", "{b}short", "v", "PX", "1")
    wait_for(lambda: conn.call("EXISTS", "{b}short") == 0)  # lazily deleted by EXISTS
    agree()
    conn.call("SAVE")
    node.restart()
    conn = RawConnection(node.host, node.port)
    assert conn.call("CLUSTER", "COUNTKEYSINSLOT", str(conn.call("CLUSTER", "KEYSLOT", "{c}"))) > 0
    agree()
    conn.call("FLUSHALL", "ASYNC")
    agree()
    assert conn.call("CLUSTER", "COUNTKEYSINSLOT", str(conn.call("CLUSTER", "KEYSLOT", "{a}"))) == 0
