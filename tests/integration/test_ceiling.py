"""bench/ceiling (vireo-ceiling): the responder that stores nothing, used by bench/compare
--ceiling as the upper bound for a server on the same cores. It must answer every command a
benchmark sends, in order, whatever way the bytes are split, and count them exactly."""
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from conftest import SERVER_BINARY, free_port

# Built next to the server binary under test.
CEILING = os.path.abspath(os.environ.get("VIREO_CEILING")
                          or Path(SERVER_BINARY).parent / "vireo-ceiling")
REDIS_BENCHMARK = "/usr/bin/redis-benchmark"


@pytest.fixture
def ceiling():
    for _ in range(5):
        port = free_port()
        proc = subprocess.Popen([CEILING, "--port", str(port), "--bulk-size", "5", "--save", ""],
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        if proc.poll() is None:
            break
    yield port, proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def read_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        assert chunk, "connection closed early"
        data += chunk
    return data


def test_replies_in_order_for_any_split(ceiling):
    port, proc = ceiling
    request = (b"*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nabc\r\n"
               b"*2\r\n$3\r\nget\r\n$1\r\nk\r\nPING\r\n"
               b"*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\nsave\r\n")
    expected = (b"+PONG\r\n+OK\r\n$5\r\nxxxxx\r\n+PONG\r\n"
                b"*2\r\n$4\r\nsave\r\n$0\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port)) as s:
        for b in request:  # one byte per write
            s.sendall(bytes([b]))
        assert read_exactly(s, len(expected)) == expected
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"*1\r\n$8\r\nSHUTDOWN\r\n")
        assert proc.wait(10) == 0
    assert "vireo-ceiling: 6 commands" in proc.stderr.read()


def test_malformed_input_closes_only_that_connection(ceiling):
    port, _ = ceiling
    with socket.create_connection(("127.0.0.1", port)) as bad:
        bad.sendall(b"*1\r\n$x\r\n")
        assert bad.recv(10) == b""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"PING\r\n")
        assert read_exactly(s, 7) == b"+PONG\r\n"


@pytest.mark.skipif(not os.path.exists(REDIS_BENCHMARK), reason="no redis-benchmark")
def test_redis_benchmark_runs_against_it(ceiling):
    port, proc = ceiling
    out = subprocess.run([REDIS_BENCHMARK, "-p", str(port), "-t", "set,get", "-n", "20000",
                          "-P", "16", "-q"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "SET:" in out.stdout and "GET:" in out.stdout
    assert "Could not fetch server CONFIG" not in out.stdout + out.stderr
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"SHUTDOWN\r\n")
        proc.wait(10)
    # Every request counted: 2 x 20,000, the two CONFIG GETs at start, the SHUTDOWN.
    assert "vireo-ceiling: 40003 commands" in proc.stderr.read()
