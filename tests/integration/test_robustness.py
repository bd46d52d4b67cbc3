"""Robustness under abuse: connection storms, clients vanishing mid-command and mid-reply, a
huge pipeline in one write, bulks at the proto-max-bulk-len edge, SIGTERM under write load and
DEBUG SLEEP while others wait. Each test checks the server still answers and leaks nothing
(connected_clients back to the test's own clients); none asserts on timing.

Already covered elsewhere, so not repeated here: connection churn of 200 sockets
(test_network.test_connection_churn), peers that reset before their replies
(test_network.test_error_reply_for_closed_peer_does_not_crash), a 1000-command pipeline
(test_protocol), the proto-max-bulk-len edge set by flag (test_protocol.
test_smaller_proto_max_bulk_len; here it is set at run time with CONFIG SET).
"""

import signal
import socket
import struct
import threading

import pytest

from conftest import HOST, wait_for


def connected_clients(r):
    return r.info("clients")["connected_clients"]


def settle_to(r, n):
    """Waits until the server counts n clients (it sees closes asynchronously)."""
    wait_for(lambda: connected_clients(r) == n, timeout=20)


def reset_close(s):
    """Closes with an RST instead of a FIN (SO_LINGER 0), as a crashed peer would."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


# ---------------------------------------------------------------------------------------------
# Connection storms and vanishing clients

def test_ten_thousand_connections_opened_and_dropped(server):
    r = server.client()
    before = r.info("stats")["total_connections_received"]
    total = 10_000
    wave = 250  # open a wave, then drop it: the listen backlog never overflows
    for start in range(0, total, wave):
        socks = [socket.create_connection((HOST, server.port)) for _ in range(wave)]
        for i, s in enumerate(socks):
            if i % 4 == 0:
                s.sendall(b"PING\r\n")  # some speak before going
            if i % 2 == 0:
                reset_close(s)
            else:
                s.close()
    assert r.ping()
    settle_to(r, 1)
    stats = r.info("stats")
    # A connection reset while still in the listen queue may never reach accept(); every one
    # closed gracefully does.
    assert total // 2 <= stats["total_connections_received"] - before <= total
    assert r.set("still", "here") and r.get("still") == "here"


def test_clients_vanishing_mid_command(server):
    r = server.client()
    r.set("k", "original")
    partials = [
        # Half of a 100 KB bulk: the server has allocated for the whole argument.
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\n" + b"x" * 50_000,
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nab",   # a few bytes into the value
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5",          # inside a bulk header
        b"*3\r\n$3\r\nSET\r\n",                       # between arguments
        b"*2000000\r\n",                              # a huge multibulk header only
        b"SET k inline-without-newline",               # inline, no end of line
    ]
    for round_no in range(20):
        for p in partials:
            s = socket.create_connection((HOST, server.port))
            s.sendall(p)
            if round_no % 2:
                reset_close(s)
            else:
                s.close()
    assert r.get("k") == "original"  # no half command ever ran
    settle_to(r, 1)
    # The buffers of the vanished clients went with them.
    assert all(int(c["qbuf"]) < 100_000 for c in r.client_list())
    assert r.incr("n") == 1


def test_clients_vanishing_mid_reply(server):
    r = server.client()
    value = b"v" * (1 << 20)
    r.set("big", value)
    get_big = b"*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n"
    for i in range(30):
        s = socket.create_connection((HOST, server.port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(get_big * 20)  # ~20 MB of replies that are never read
        if i % 2:
            s.recv(1000)  # read a little, then go
        if i % 3 == 0:
            reset_close(s)
        else:
            s.close()
    assert r.ping()
    settle_to(r, 1)
    # Replies queued for the gone clients were freed with them: the only client left holds
    # no output.
    (me,) = r.client_list()
    assert int(me["omem"]) == 0
    assert r.strlen("big") == len(value)


# ---------------------------------------------------------------------------------------------
# A million commands in one write

def test_million_command_pipeline_in_one_write(server):
    n = 1_000_000
    r = server.client()
    s = socket.create_connection((HOST, server.port))
    payload = b"*2\r\n$4\r\nINCR\r\n$7\r\ncounter\r\n" * n
    sender = threading.Thread(target=s.sendall, args=(payload,))
    sender.start()  # one sendall; replies are read meanwhile so neither side stalls
    expected = b"".join(b":%d\r\n" % i for i in range(1, n + 1))
    got = bytearray()
    s.settimeout(60)
    while len(got) < len(expected):
        chunk = s.recv(1 << 20)
        assert chunk, "server closed the connection after %d bytes" % len(got)
        got += chunk
    sender.join()
    assert bytes(got) == expected  # every reply, in order, none extra so far
    s.sendall(b"PING\r\n")
    assert s.recv(100) == b"+PONG\r\n"
    s.close()
    assert r.get("counter") == str(n)
    assert r.info("stats")["total_commands_processed"] >= n


# ---------------------------------------------------------------------------------------------
# proto-max-bulk-len set at run time

def test_bulk_at_proto_max_bulk_len_and_one_past(server):
    r = server.client()
    assert r.config_set("proto-max-bulk-len", "1mb")
    limit = 1024 * 1024
    c = server.raw()
    assert c.call("SET", "edge", b"x" * limit) == "OK"
    assert r.strlen("edge") == limit
    c.send(b"*3\r\n$3\r\nSET\r\n$4\r\nedge\r\n$%d\r\n" % (limit + 1))
    assert c.read_until_closed() == b"-ERR Protocol error: invalid bulk length\r\n"
    # Commands that build a value past the limit are refused with their own error.
    with pytest.raises(Exception, match="string exceeds maximum allowed size"):
        r.append("edge", "y")
    assert r.strlen("edge") == limit
    assert r.ping()


# ---------------------------------------------------------------------------------------------
# SIGTERM / SIGINT

@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_termination_signal_is_logged_as_valkey_does(start_server, sig):
    server = start_server()
    server.proc.send_signal(sig)
    assert server.proc.wait(timeout=30) == 0
    server._stopped_by_us = True
    log = server.log()
    assert f"Received {sig.name} scheduling shutdown..." in log
    assert log.index("scheduling shutdown...") < log.index("User requested shutdown...")


# ---------------------------------------------------------------------------------------------
# SIGTERM under write load

def test_sigterm_under_write_load_saves_every_acknowledged_write(start_server):
    server = start_server("--save", "3600 1")
    r = server.client()
    r.set("before", "1")
    acked = []
    stop = threading.Event()
    errors = []

    def writer(tag):
        c = socket.create_connection((HOST, server.port))
        c.settimeout(10)
        buf = b""
        i = 0
        try:
            while not stop.is_set():
                batch = [f"{tag}:{i + j}" for j in range(50)]
                c.sendall(b"".join(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n"
                                   % (len(k), k.encode()) for k in batch))
                for k in batch:
                    while b"\r\n" not in buf:
                        chunk = c.recv(65536)
                        if not chunk:
                            return  # the server went down: later keys were never acknowledged
                        buf += chunk
                    line, buf = buf.split(b"\r\n", 1)
                    if line != b"+OK":
                        errors.append(line)
                        return
                    acked.append(k)
                i += 50
        except OSError:
            return  # reset by the exiting server
        finally:
            c.close()

    threads = [threading.Thread(target=writer, args=(t,)) for t in ("a", "b", "c")]
    for t in threads:
        t.start()
    wait_for(lambda: len(acked) >= 3000, timeout=30)
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=30) == 0
    server._stopped_by_us = True
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert not errors
    assert "DB saved on disk" in server.log()
    server.start(port=server.port)
    r = server.client()
    assert r.get("before") == "1"
    present = set(r.keys("*"))
    missing = [k for k in acked if k not in present]
    assert not missing, f"{len(missing)} acknowledged writes lost, e.g. {missing[:5]}"


# ---------------------------------------------------------------------------------------------
# DEBUG SLEEP

def test_debug_sleep_while_clients_wait(start_server):
    server = start_server("--enable-debug-command", "yes")
    sleeper = server.raw()
    waiting = [server.raw() for _ in range(5)]
    sleeper.send_command("DEBUG", "SLEEP", "1")
    # Their commands arrive while the server sleeps; each gets its answer afterwards.
    for i, c in enumerate(waiting):
        c.send_command("SET", f"w{i}", i)
        c.send_command("INCR", "shared")
    assert sleeper.read_reply() == "OK"
    for i, c in enumerate(waiting):
        assert c.read_reply() == "OK"
        assert isinstance(c.read_reply(), int)
    r = server.client()
    assert r.get("shared") == "5"
    assert [r.get(f"w{i}") for i in range(5)] == [str(i) for i in range(5)]
    # New connections made during a sleep are accepted afterwards too.
    sleeper.send_command("DEBUG", "SLEEP", "0.5")
    late = socket.create_connection((HOST, server.port))
    late.sendall(b"PING\r\n")
    late.settimeout(10)
    assert late.recv(100) == b"+PONG\r\n"
    late.close()
    assert sleeper.read_reply() == "OK"
    assert r.ping()
