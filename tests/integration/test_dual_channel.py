"""Dual-channel full sync (Valkey 8's dual-channel-replication-enabled): the snapshot on a
second connection (the rdb channel), the stream on the main one from the snapshot's offset,
buffered by the replica while it loads. Vireo in both roles, with the reference valkey-server
8.0.1 in both roles (skipped where it is absent), the fall-back to a single-channel sync, and
hostile peers."""

import os
import socket
import threading
import time

import pytest

from conftest import VALKEY_SERVER, RespError, RawConnection, wait_for

REDIS_SERVER = "/usr/bin/redis-server"
need_valkey = pytest.mark.skipif(not os.path.exists(VALKEY_SERVER),
                                 reason="needs the reference valkey-server in ../shared/reference/")
need_redis = pytest.mark.skipif(not os.path.exists(REDIS_SERVER), reason="no redis-server")
DEBUG = ("--enable-debug-command", "yes")
DUAL = ("--dual-channel-replication-enabled", "yes")
# The primary's side of a dual-channel sync: diskless, no waiting for more replicas.
DUAL_PRIMARY = (*DUAL, *DEBUG, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
# A replica that loads slowly (20 us per key) and answers INFO every KB of the load: with the
# default 2 MB interval a snapshot just under 2 MB was loaded without one INFO answered, so the
# buffered stream was never seen (the CI failure of 2026-12-03).
SLOW_LOAD = ("--key-load-delay", "20", "--loading-process-events-interval-bytes", "1024")


def repl_info(r):
    return r.info("replication")


class Writer:
    """Writes to the primary from a thread while a sync runs: counters and fresh keys."""

    def __init__(self, primary):
        self.client = primary.client()
        self.stop = threading.Event()
        self.count = 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.is_set():
            pipe = self.client.pipeline(transaction=False)
            for _ in range(20):
                self.count += 1
                pipe.incr("counter")
                pipe.set(f"w:{self.count}", self.count)
            pipe.execute()
            time.sleep(0.002)

    def finish(self):
        self.stop.set()
        self.thread.join(10)


def watch_sync(replica, primary, timeout=60):
    """Polls both sides' INFO until the link is up; returns what was seen on the way: the
    primary's replica types and states, and the replica's buffer sizes."""
    r = replica.client()
    p = primary.client()
    seen = {"types": set(), "states": set(), "buffer": 0, "waiting_psync": 0}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ri = repl_info(r)
        seen["buffer"] = max(seen["buffer"], int(ri.get("replicas_repl_buffer_size", 0)))
        pi = repl_info(p)
        for k, v in pi.items():
            if k.startswith("slave") and isinstance(v, dict):
                seen["types"].add(v.get("type"))
                seen["states"].add(v.get("state"))
        seen["waiting_psync"] = max(seen["waiting_psync"], pi.get("replicas_waiting_psync", 0))
        if ri.get("master_link_status") == "up" and ri.get("master_sync_in_progress") == 0:
            return seen
        time.sleep(0.01)
    raise AssertionError("the replica did not sync within %ss" % timeout)


def converge(primary, replica):
    """Writes stopped: the replica reaches the primary's offset and holds the same data."""
    p = primary.client()
    r = replica.client()
    assert p.wait(1, 10000) == 1
    wait_for(lambda: repl_info(r)["master_repl_offset"] == repl_info(p)["master_repl_offset"],
             timeout=30)
    assert r.dbsize() == p.dbsize()
    assert r.get("counter") == p.get("counter")
    # DEBUG DIGEST's algorithm differs between Vireo and Valkey: the string values instead.
    keys = sorted(p.scan_iter(count=1000))
    for i in range(0, len(keys), 1000):
        chunk = keys[i:i + 1000]
        assert r.mget(chunk) == p.mget(chunk)


def keeps_streaming(primary, replica):
    p = primary.client()
    r = replica.client()
    p.set("after-sync", "yes")
    p.rpush("after-list", "a", "b")
    assert p.wait(1, 10000) == 1
    wait_for(lambda: r.get("after-sync") == "yes")
    assert r.lrange("after-list", 0, -1) == ["a", "b"]


def dual_sync_with_writes(primary, replica, keys=60000):
    """Fills the primary, attaches the replica while a writer runs, and checks the outcome."""
    p = primary.client()
    p.execute_command("DEBUG", "POPULATE", keys, "key", 20)
    writer = Writer(primary)
    try:
        time.sleep(0.05)
        r = replica.client()
        assert r.replicaof("127.0.0.1", primary.port) in (True, "OK")
        seen = watch_sync(replica, primary)
        time.sleep(0.2)  # writes go on over the established link too
    finally:
        writer.finish()
    assert writer.count > 0
    converge(primary, replica)
    keeps_streaming(primary, replica)
    return seen


# --- Vireo on both sides ---------------------------------------------------------------------

# A backlog smaller than what is written during the sync: the main channel's stream comes from
# what the rdb channel kept, not from the backlog.
@pytest.mark.parametrize("backlog", ["1mb", "16kb"])
def test_vireo_to_vireo_dual_channel_sync_under_writes(start_server, backlog):
    primary = start_server(*DUAL_PRIMARY, "--repl-backlog-size", backlog)
    # The slow load keeps the replica loading long enough for the stream to pile up.
    replica = start_server(*DUAL, *DEBUG, *SLOW_LOAD)
    seen = dual_sync_with_writes(primary, replica)
    # Both connections were listed while the snapshot was loaded; the replica buffered.
    assert {"rdb-channel", "main-channel"} <= seen["types"]
    assert "bg_transfer" in seen["states"]
    assert seen["buffer"] > 0
    ri = repl_info(replica.client())
    assert ri["replicas_repl_buffer_size"] == 0
    assert ri["replicas_repl_buffer_peak"] >= seen["buffer"]
    pi = repl_info(primary.client())
    assert pi["connected_slaves"] == 1
    assert pi["slave0"]["type"] == "replica" and pi["slave0"]["state"] == "online"
    assert pi["replicas_waiting_psync"] == 0
    stats = primary.client().info("stats")
    assert stats["sync_full"] == 1 and stats["sync_partial_ok"] == 1
    assert "dedicated RDB channel" in primary.log()
    assert "initialize RDB channel" in replica.log()


def test_dual_channel_then_partial_resync_after_a_dropped_link(start_server):
    primary = start_server(*DUAL_PRIMARY)
    replica = start_server(*DUAL, *DEBUG)
    p = primary.client()
    p.execute_command("DEBUG", "POPULATE", 1000)
    r = replica.client()
    r.replicaof("127.0.0.1", primary.port)
    watch_sync(replica, primary)
    p.client_kill_filter(_type="slave")
    p.set("during", "1")
    wait_for(lambda: p.info("stats")["sync_partial_ok"] == 2)  # the main channel's, then this
    assert p.wait(1, 5000) == 1
    wait_for(lambda: r.get("during") == "1")
    assert p.info("stats")["sync_full"] == 1


@pytest.mark.parametrize("why", ["primary-disabled", "primary-disk-sync"])
def test_vireo_falls_back_to_one_channel(start_server, why):
    args = ("--repl-diskless-sync", "no") if why == "primary-disk-sync" else ()
    primary = start_server(*DEBUG, *(DUAL if why == "primary-disk-sync" else ()), *args)
    replica = start_server(*DUAL, *DEBUG)
    primary.client().execute_command("DEBUG", "POPULATE", 1000)
    replica.client().replicaof("127.0.0.1", primary.port)
    watch_sync(replica, primary)
    converge(primary, replica)
    keeps_streaming(primary, replica)
    assert "initialize RDB channel" not in replica.log()
    assert "dedicated RDB channel" not in primary.log()


@need_redis
def test_vireo_replica_falls_back_with_redis_server_primary(start_server):
    primary = start_server("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
                           binary=REDIS_SERVER)
    replica = start_server(*DUAL, *DEBUG)
    p = primary.client()
    for i in range(500):
        p.set(f"k{i}", i)
    replica.client().replicaof("127.0.0.1", primary.port)
    watch_sync(replica, primary)
    r = replica.client()
    p.set("after", "1")
    assert p.wait(1, 10000) == 1
    wait_for(lambda: r.get("after") == "1")
    assert r.dbsize() == p.dbsize()
    assert "initialize RDB channel" not in replica.log()


# --- With the reference valkey-server 8.0.1 --------------------------------------------------

@need_valkey
def test_valkey_replica_dual_channel_sync_from_vireo(start_server):
    primary = start_server(*DUAL_PRIMARY)
    replica = start_server(*DUAL, *DEBUG, *SLOW_LOAD, "--appendonly", "no",
                           binary=VALKEY_SERVER)
    seen = dual_sync_with_writes(primary, replica)
    assert {"rdb-channel", "main-channel"} <= seen["types"]
    assert seen["buffer"] > 0  # Valkey's replica buffered Vireo's stream while loading
    pi = repl_info(primary.client())
    assert pi["slave0"]["type"] == "replica" and pi["slave0"]["state"] == "online"
    assert "dedicated RDB channel" in primary.log()


@need_valkey
def test_vireo_replica_dual_channel_sync_from_valkey(start_server):
    primary = start_server(*DUAL_PRIMARY, "--appendonly", "no", binary=VALKEY_SERVER)
    replica = start_server(*DUAL, *DEBUG, *SLOW_LOAD)
    seen = dual_sync_with_writes(primary, replica)
    assert {"rdb-channel", "main-channel"} <= seen["types"]
    assert seen["buffer"] > 0
    assert repl_info(replica.client())["replicas_repl_buffer_peak"] > 0
    assert "initialize RDB channel" in replica.log()


@need_valkey
def test_vireo_replica_falls_back_when_valkey_primary_has_it_off(start_server):
    primary = start_server(*DEBUG, "--appendonly", "no", binary=VALKEY_SERVER)
    replica = start_server(*DUAL, *DEBUG)
    primary.client().execute_command("DEBUG", "POPULATE", 1000)
    replica.client().replicaof("127.0.0.1", primary.port)
    watch_sync(replica, primary)
    converge(primary, replica)
    assert "initialize RDB channel" not in replica.log()


@need_valkey
def test_replconf_dual_channel_errors_match_valkey(start_server, valkey_process):
    vireo = start_server(*DUAL)
    cases = [
        ("REPLCONF", "set-rdb-client-id", "abc"),
        ("REPLCONF", "set-rdb-client-id", "999"),
        ("REPLCONF", "rdb-channel", "2"),
        ("REPLCONF", "rdb-channel", "x"),
        ("REPLCONF", "rdb-only", "-1"),
        ("REPLCONF", "version", "x"),
        ("REPLCONF", "version", "8.0.1"),
        ("REPLCONF", "capa", "dual-channel"),
    ]
    for args in cases:
        got = []
        for server in (vireo, valkey_process):
            c = RawConnection("127.0.0.1", server.port)
            got.append(c.call(*args))
            c.sock.close()
        assert got[0] == got[1], args


# --- The protocol, byte by byte, and hostile peers -------------------------------------------

def read_line(sock, buf):
    while b"\r\n" not in buf[0]:
        data = sock.recv(65536)
        if not data:
            raise AssertionError("connection closed")
        buf[0] += data
    line, buf[0] = buf[0].split(b"\r\n", 1)
    return line


def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def test_primary_speaks_the_dual_channel_protocol(start_server):
    primary = start_server(*DUAL_PRIMARY)
    p = primary.client()
    p.set("before", "1")
    main = socket.create_connection(("127.0.0.1", primary.port), timeout=10)
    mbuf = [b""]
    main.sendall(resp("REPLCONF", "capa", "eof", "capa", "psync2", "capa", "dual-channel"))
    assert read_line(main, mbuf) == b"+OK"
    main.sendall(resp("PSYNC", "?", "-1"))
    assert read_line(main, mbuf) == b"+DUALCHANNELSYNC"
    rdb = socket.create_connection(("127.0.0.1", primary.port), timeout=10)
    rbuf = [b""]
    rdb.sendall(resp("REPLCONF", "capa", "eof", "rdb-only", "1", "rdb-channel", "1"))
    assert read_line(rdb, rbuf) == b"+OK"
    rdb.sendall(b"SYNC\r\n")
    line = b""
    while not line:  # newlines may keep the link alive first
        line = read_line(rdb, rbuf).lstrip(b"\n")
    assert line.startswith(b"$ENDOFF:"), line
    offset, replid, db, client_id = line[len(b"$ENDOFF:"):].split(b" ")
    assert len(replid) == 40 and int(db) == 0
    assert replid.decode() == repl_info(p)["master_replid"]
    header = read_line(rdb, rbuf)
    assert header.startswith(b"$EOF:") and len(header) == 45
    # Written while the snapshot is out: the main channel gets it from the snapshot's offset.
    p.set("during", "2")
    main.sendall(resp("REPLCONF", "set-rdb-client-id", client_id))
    assert read_line(main, mbuf) == b"+OK"
    main.sendall(resp("PSYNC", replid, int(offset) + 1))
    assert read_line(main, mbuf) == b"+CONTINUE " + replid
    while b"during" not in mbuf[0]:
        mbuf[0] += main.recv(65536)
    assert mbuf[0].startswith(b"*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n")
    mark = header[5:]
    while not rbuf[0].endswith(mark):
        data = rdb.recv(65536)
        assert data
        rbuf[0] += data
    assert rbuf[0].startswith(b"REDIS")
    info = repl_info(p)
    types = {v["type"] for k, v in info.items() if k.startswith("slave")}
    assert types == {"rdb-channel", "main-channel"}
    assert info["replicas_waiting_psync"] == 0
    rdb.close()
    wait_for(lambda: repl_info(p).get("slave0", {}).get("type") == "replica")
    main.close()


def test_primary_refuses_bad_dual_channel_requests(start_server):
    primary = start_server(*DUAL_PRIMARY)
    c = RawConnection("127.0.0.1", primary.port)
    assert c.call("REPLCONF", "set-rdb-client-id", "abc") == RespError(
        "ERR value is not an integer or out of range")
    assert c.call("REPLCONF", "set-rdb-client-id", "-5") == RespError(
        "ERR Unrecognized RDB client id -5")
    assert c.call("REPLCONF", "rdb-channel", "7") == RespError(
        "ERR value is out of range, value must between 0 and 1")
    # A client id that is not an rdb channel is not one either.
    own = c.call("CLIENT", "ID")
    assert c.call("REPLCONF", "set-rdb-client-id", own) == RespError(
        f"ERR Unrecognized RDB client id {own}")
    # A PSYNC that claims a snapshot that never was gets an ordinary full sync.
    main = socket.create_connection(("127.0.0.1", primary.port), timeout=10)
    buf = [b""]
    main.sendall(resp("REPLCONF", "capa", "eof", "capa", "psync2"))
    assert read_line(main, buf) == b"+OK"
    main.sendall(resp("PSYNC", "0" * 40, 1))
    assert read_line(main, buf).startswith(b"+FULLRESYNC")
    main.close()
    assert primary.client().ping()


def serve_bad_dual_sync(listener, endoff_lines, stop):
    """A fake primary: answers +DUALCHANNELSYNC on the main channel and a malformed $ENDOFF
    on each rdb channel, one line per connection attempt."""
    listener.settimeout(0.2)
    conns = []
    attempt = 0
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        conns.append(conn)
        conn.settimeout(5)
        data = b""
        try:
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
                if b"PSYNC" in data:
                    conn.sendall(b"+DUALCHANNELSYNC\r\n")
                    break
                if b"SYNC" in data:
                    conn.sendall(endoff_lines[attempt % len(endoff_lines)] + b"\r\n")
                    attempt += 1
                    break
                if data.count(b"\r\n") >= 1 and data.endswith(b"\r\n"):
                    # PING / REPLCONF: one +OK per command seen so far
                    n = data.count(b"*")
                    conn.sendall(b"+OK\r\n" * n)
                    data = b""
        except OSError:
            pass
    for c in conns:
        c.close()


def test_replica_survives_malformed_endoff(start_server):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    bad = [b"$ENDOFF:", b"$ENDOFF:abc def 0 1", b"$ENDOFF:5 short 0 1",
           b"$ENDOFF:5 " + b"a" * 40 + b" 99999 1", b"$ENDOFF:-1 " + b"a" * 40 + b" 0 1",
           b"$ENDOFF:5 " + b"a" * 40 + b" 0 1 extra", b"$ENDOFF:5 " + b"a" * 40 + b" 0 0",
           b"-ERR no"]
    stop = threading.Event()
    t = threading.Thread(target=serve_bad_dual_sync, args=(listener, bad, stop), daemon=True)
    t.start()
    replica = start_server(*DUAL)
    r = replica.client()
    r.set("mine", "1")
    r.replicaof("127.0.0.1", port)
    wait_for(lambda: replica.log().count("initialize RDB channel") >= 3, timeout=20)
    stop.set()
    t.join(5)
    listener.close()
    assert r.ping()
    assert repl_info(r)["master_link_status"] == "down"
    assert "malformed $ENDOFF" in replica.log()
