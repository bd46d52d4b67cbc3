"""io-threads: I/O threads read, parse and write; the execution thread runs the commands.

Servers here run with `--events-per-io-thread 0`, so every batch of reads and writes is
handed to the I/O threads however light the load (the default keeps light loads on the
execution thread).
"""

import os
import random
import socket
import struct
import threading

import pytest
import redis

from conftest import RawConnection, RespError, wait_for

THREADED = ("--io-threads", "4", "--events-per-io-thread", "0")


@pytest.fixture
def ts(start_server):
    return start_server(*THREADED)


def send_in_pieces(conn, data, rng):
    """Sends bytes split at random points, so commands straddle reads."""
    i = 0
    while i < len(data):
        n = rng.choice((1, 7, 100, 4096, 65536))
        conn.send(data[i:i + n])
        i += n


def test_info_and_config(ts, start_server):
    c = ts.client()
    for i in range(20):
        c.set(f"k{i}", i)
    info = c.info()
    assert info["io_threads_active"] == 1
    assert info["io_threaded_reads_processed"] > 0
    assert info["io_threaded_writes_processed"] > 0
    assert c.config_get("io-threads") == {"io-threads": "4"}
    # Valkey 9.0: settable at run time (test_server_90.py changes it under load).
    assert c.config_set("io-threads", "2") in (True, "OK")
    assert c.config_get("io-threads") == {"io-threads": "2"}
    assert c.set("after", 1) and c.get("after") == "1"
    single = start_server("--io-threads", "1").client()
    single.set("a", 1)
    info = single.info()
    assert info["io_threads_active"] == 0
    assert info["io_threaded_reads_processed"] == 0
    assert info["io_threaded_writes_processed"] == 0


def test_warning_when_threads_exceed_cpus(start_server):
    cpus = len(os.sched_getaffinity(0))
    over = start_server("--io-threads", str(cpus + 1))
    assert over.client().ping()
    assert "io-threads is %d but this process may run on only %d CPUs" % (cpus + 1, cpus) \
        in over.log()
    if cpus >= 2:
        fits = start_server("--io-threads", str(cpus))
        assert fits.client().ping()
        assert "may run on only" not in fits.log()


def test_concurrent_pipelines_with_big_values(ts):
    errors = []

    def worker(n):
        rng = random.Random(n)
        try:
            conn = RawConnection(ts.host, ts.port, timeout=30)
            expected = []
            out = []
            for i in range(150):
                size = rng.choice((3, 3, 100, 20000, 300000))
                value = (b"%d:%d:" % (n, i)) * (size // 8 + 1)
                key = "c%d:k%d" % (n, i % 20)
                out.append(RawConnection.encode("SET", key, value))
                expected.append("OK")
                out.append(RawConnection.encode("GET", key))
                expected.append(value)
                out.append(RawConnection.encode("INCR", "c%d:n" % n))
                expected.append(i + 1)
                if len(out) > 30:
                    send_in_pieces(conn, b"".join(out), rng)
                    out = []
                    got = [conn.read_reply() for _ in range(len(expected))]
                    if got != expected:
                        errors.append((n, i))
                        return
                    expected = []
            send_in_pieces(conn, b"".join(out), rng)
            got = [conn.read_reply() for _ in range(len(expected))]
            if got != expected:
                errors.append((n, "end"))
            conn.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append((n, repr(e)))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    c = ts.client()
    assert [int(c.get("c%d:n" % n)) for n in range(8)] == [150] * 8


def test_pubsub_fan_out_while_publishers_pipeline(ts):
    subs = []
    for _ in range(20):
        s = ts.raw()
        s.send_command("SUBSCRIBE", "news")
        assert s.read_reply() == [b"subscribe", b"news", 1]
        subs.append(s)
    errors = []
    per_publisher = 200

    def publish(p):
        try:
            conn = RawConnection(ts.host, ts.port, timeout=30)
            data = b"".join(RawConnection.encode("PUBLISH", "news", "p%d:%d" % (p, i))
                            for i in range(per_publisher))
            send_in_pieces(conn, data, random.Random(p))
            got = [conn.read_reply() for _ in range(per_publisher)]
            if got != [20] * per_publisher:
                errors.append((p, got[:5]))
            conn.close()
        except Exception as e:  # noqa: BLE001
            errors.append((p, repr(e)))

    threads = [threading.Thread(target=publish, args=(p,)) for p in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for s in subs:
        seen = {p: [] for p in range(4)}
        for _ in range(4 * per_publisher):
            kind, channel, msg = s.read_reply()
            assert (kind, channel) == (b"message", b"news")
            p, i = msg.decode()[1:].split(":")
            seen[int(p)].append(int(i))
        assert all(v == list(range(per_publisher)) for v in seen.values())


def test_blocking_pops_woken_by_other_clients(ts):
    waiters = []
    for i in range(12):
        w = ts.raw()
        w.send_command("BLPOP", "q%d" % (i % 3), "0")
        waiters.append(w)
    c = ts.client()
    wait_for(lambda: c.info("clients")["blocked_clients"] == 12)
    pusher = ts.raw()
    pusher.send(b"".join(RawConnection.encode("RPUSH", "q%d" % (i % 3), "v%d" % i)
                         for i in range(12)))
    assert [pusher.read_reply() for _ in range(12)] == [1] * 12
    got = sorted(w.read_reply()[1] for w in waiters)
    assert got == sorted(b"v%d" % i for i in range(12))
    assert c.info("clients")["blocked_clients"] == 0


def test_clients_disconnecting_mid_pipeline(ts):
    rng = random.Random(7)
    for n in range(30):
        s = socket.create_connection((ts.host, ts.port))
        data = b"".join(RawConnection.encode("SET", "d%d" % i, "x" * rng.choice((1, 5000)))
                        for i in range(200))
        cut = rng.randrange(len(data))
        s.sendall(data[:cut])
        if n % 2:
            # RST instead of FIN: the server sees an error, possibly mid-write.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    c = ts.client()
    assert c.ping()
    wait_for(lambda: c.info("clients")["connected_clients"] == 1)


def test_client_kill_of_a_busy_client(ts):
    c = ts.client()
    busy = ts.raw()
    busy_id = busy.call("CLIENT", "ID")
    stop = threading.Event()
    result = {}

    def flood():
        try:
            chunk = b"".join(RawConnection.encode("INCR", "busy") for _ in range(100))
            while not stop.is_set():
                busy.send(chunk)
                for _ in range(100):
                    busy.read_reply()
        except (ConnectionError, OSError) as e:
            result["closed"] = repr(e)

    t = threading.Thread(target=flood)
    t.start()
    wait_for(lambda: int(c.get("busy") or 0) > 500)
    assert c.client_kill_filter(_id=busy_id) == 1
    t.join(timeout=20)
    stop.set()
    assert "closed" in result
    assert c.ping()


def test_monitor_multi_and_errors(ts):
    mon = ts.raw()
    assert mon.call("MONITOR") == "OK"
    c = ts.raw()
    c.send(b"".join([RawConnection.encode("MULTI"), RawConnection.encode("SET", "m", "1"),
                     RawConnection.encode("INCR", "m"), RawConnection.encode("EXEC")]))
    assert [c.read_reply() for _ in range(4)] == ["OK", "QUEUED", "QUEUED", ["OK", 2]]
    lines = [mon.read_reply() for _ in range(4)]
    assert [line.split('"')[1] for line in lines] == ["MULTI", "SET", "INCR", "EXEC"]
    # A protocol error is answered, then the connection closes.
    bad = ts.raw()
    bad.send(b"*1\r\n$x\r\n")
    assert bad.read_reply() == RespError("ERR Protocol error: invalid bulk length")
    assert bad.is_closed()
    # QUIT after a pipeline: every reply, then the close.
    q = ts.raw()
    q.send(RawConnection.encode("SET", "q", "1") + RawConnection.encode("QUIT"))
    assert q.read_reply() == "OK"
    assert q.read_reply() == "OK"
    assert q.is_closed()


def test_busy_script_serves_clients_read_in_the_same_batch(start_server):
    # A PING read in the same batch as the EVAL that turns busy must still get BUSY (and a
    # SCRIPT KILL sent that way must still reach the script).
    s = start_server(*THREADED, "--busy-reply-threshold", "10")
    for _ in range(5):
        runner, other = s.raw(), s.raw()
        runner.send_command("EVAL", "while true do end", "0")
        other.send_command("PING")
        assert other.read_reply() == RespError(
            "BUSY Valkey is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
            "NOSAVE.")
        assert other.call("SCRIPT", "KILL") == "OK"
        assert isinstance(runner.read_reply(), RespError)
        assert runner.call("PING") == "PONG"
