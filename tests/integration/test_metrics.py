"""The Prometheus endpoint (metrics-port): GET /metrics over HTTP on the bind addresses, in the
text exposition format 0.0.4, served by the event loop without blocking clients."""

import re
import socket

import pytest
import redis

from conftest import HOST, free_port, wait_for

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^{}]*\})? (-?[0-9]+(\.[0-9]+)?)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def http(port, request, timeout=10.0):
    """Sends raw request bytes; returns (status code, headers dict, body) once the server has
    closed the connection."""
    with socket.create_connection((HOST, port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
    assert int(headers["content-length"]) == len(body)
    assert headers["connection"] == "close"
    return status, headers, body.decode()


def scrape(port):
    status, headers, body = http(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200, body
    assert headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return body


def parse(body):
    """{family: (type, [(labels dict, value)])}, checking the format as it goes: a TYPE line
    before its samples, one per family, each family's samples in one group."""
    families, current = {}, None
    for line in body.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert name not in families, f"second TYPE line for {name}"
            assert kind in ("counter", "gauge")
            families[name] = (kind, [])
            current = name
            continue
        assert not line.startswith("#"), line
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        assert m.group(1) == current, f"{m.group(1)} outside its group"
        labels = dict(LABEL.findall(m.group(2) or ""))
        families[current][1].append((labels, float(m.group(3))))
    return families


def value(families, name, **labels):
    for got, v in families[name][1]:
        if got == labels:
            return v
    raise KeyError(f"{name}{labels}")


@pytest.fixture
def metrics(start_server):
    port = free_port()
    server = start_server("--metrics-port", port)
    server.metrics_port = port
    return server


def test_scrape_shows_info_fields_keyspace_and_commandstats(metrics):
    r = metrics.client()
    for i in range(5):
        r.set(f"k{i}", "v")
    r.select(2)
    r.set("t", "v", ex=100)
    r.get("t")
    families = parse(scrape(metrics.metrics_port))
    assert families["vireo_connected_clients"][0] == "gauge"
    assert value(families, "vireo_connected_clients") >= 1
    assert families["vireo_total_commands_processed"][0] == "counter"
    assert value(families, "vireo_total_commands_processed") >= 8
    assert value(families, "vireo_used_memory") > 0
    assert families["vireo_db_keys"][0] == "gauge"
    assert value(families, "vireo_db_keys", db="db0") == 5
    assert value(families, "vireo_db_keys", db="db2") == 1
    assert value(families, "vireo_db_expires", db="db2") == 1
    assert families["vireo_commands_total"][0] == "counter"
    assert value(families, "vireo_commands_total", cmd="set") == 6
    assert value(families, "vireo_commands_total", cmd="get") == 1
    assert value(families, "vireo_commands_duration_seconds_total", cmd="set") >= 0
    [(info_labels, info)] = families["vireo_info"][1]
    assert info == 1 and info_labels["role"] == "master"
    # Text fields are not samples.
    assert "vireo_used_memory_human" not in families
    assert "vireo_run_id" not in families


def test_counters_follow_the_server(metrics):
    r = metrics.client()
    before = value(parse(scrape(metrics.metrics_port)), "vireo_keyspace_misses")
    r.get("missing")
    r.get("missing")
    after = parse(scrape(metrics.metrics_port))
    assert value(after, "vireo_keyspace_misses") == before + 2
    r.execute_command("CONFIG", "GET", "maxmemory")
    families = parse(scrape(metrics.metrics_port))
    assert value(families, "vireo_commands_total", cmd="config|get") == 1
    r.set("k", "s")
    with pytest.raises(redis.ResponseError):
        r.lpush("k", "x")
    assert value(parse(scrape(metrics.metrics_port)), "vireo_errors_total", err="WRONGTYPE") == 1


def test_only_get_metrics_is_served(metrics):
    port = metrics.metrics_port
    assert http(port, b"GET / HTTP/1.1\r\n\r\n")[0] == 404
    assert http(port, b"GET /metricsx HTTP/1.0\r\n\r\n")[0] == 404
    status, headers, _ = http(port, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    assert status == 405 and headers["allow"] == "GET"
    assert http(port, b"*1\r\n$4\r\nPING\r\n\r\n")[0] == 400
    assert http(port, b"GET /metrics?x=1 HTTP/1.0\r\n\r\n")[0] == 200
    assert metrics.client().ping()


def test_oversized_request_is_refused(metrics):
    status, _, _ = http(metrics.metrics_port, b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 9000)
    assert status == 431
    assert metrics.client().ping()


def test_a_slow_request_blocks_nobody(metrics):
    port = metrics.metrics_port
    with socket.create_connection((HOST, port), timeout=10) as slow:
        slow.sendall(b"GET /metr")
        assert metrics.client().set("a", "1")
        assert "vireo_connected_clients" in scrape(port)
        slow.sendall(b"ics HTTP/1.1\r\n\r\n")
        data = b""
        while chunk := slow.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"\nvireo_db_keys{db=\"db0\"} 1\n" in data


def test_idle_connections_are_bounded(metrics):
    port = metrics.metrics_port
    idle = [socket.create_connection((HOST, port), timeout=10) for _ in range(20)]
    try:
        scrape(port)  # accepted after all of them: the oldest were shut down to make room
        for s in idle[:4]:
            assert s.recv(1) == b""
        assert metrics.client().ping()
    finally:
        for s in idle:
            s.close()


def test_metrics_port_is_a_start_up_setting(metrics, start_server):
    r = metrics.client()
    assert r.config_get("metrics-port") == {"metrics-port": str(metrics.metrics_port)}
    with pytest.raises(Exception, match="immutable"):
        r.config_set("metrics-port", free_port())
    assert start_server().client().config_get("metrics-port") == {"metrics-port": "0"}


def test_metrics_bind_moves_only_the_endpoint(start_server):
    """metrics-bind: the endpoint on its own addresses (both loopback), the data port stays on
    bind; CONFIG GET shows it, CONFIG SET refuses it, and it is empty (bind's) by default."""
    port = free_port()
    server = start_server("--bind", "127.0.0.1", "--metrics-port", port,
                          "--metrics-bind", "127.0.0.2 -::2")
    r = server.client()
    assert r.ping()
    assert r.config_get("metrics-bind") == {"metrics-bind": "127.0.0.2 -::2"}
    with pytest.raises(Exception, match="immutable"):
        r.config_set("metrics-bind", "127.0.0.1")
    with socket.create_connection(("127.0.0.2", port), timeout=10) as s:
        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        assert s.recv(65536).startswith(b"HTTP/1.1 200 OK\r\n")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((HOST, port), timeout=10).close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.2", server.port), timeout=10).close()
    assert start_server().client().config_get("metrics-bind") == {"metrics-bind": ""}


def test_taken_metrics_port_stops_the_start(start_server):
    port = free_port()
    server = start_server("--port", port, "--metrics-port", port, wait=False)
    wait_for(lambda: not server.is_alive())
    assert server.proc.returncode == 1
    assert "metrics" in server.log()


def test_request_then_half_close_is_answered(metrics):
    with socket.create_connection((HOST, metrics.metrics_port), timeout=10) as s:
        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        s.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 200 OK\r\n")
