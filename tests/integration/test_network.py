"""Listeners and connection limits: query buffer limit, maxclients, idle timeout, unix
sockets, IPv6 loopback, protected mode, slow readers and connection churn."""

import os
import re
import shutil
import socket
import stat
import tempfile

import pytest
import redis

from conftest import HOST, RawConnection, wait_for




@pytest.fixture
def short_dir():
    """A directory with a short path: unix socket paths are limited to ~107 bytes."""
    d = tempfile.mkdtemp(prefix="vireo-", dir="/tmp")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def ipv6_loopback_available():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------
# Query buffer limit

def test_query_buffer_limit(start_server):
    server = start_server("--client-query-buffer-limit", "1mb")
    c = server.raw()
    assert c.call("SET", "fits", b"x" * 900000) == "OK"
    # A bulk argument bigger than the limit: the connection is closed, without a reply, once
    # the buffered part passes the limit.
    c.send(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n")
    try:
        c.send(b"y" * 1500000)
    except OSError:
        pass  # the server may close while we are still sending
    assert c.read_until_closed() == b""
    other = server.client()
    assert other.exists("k") == 0
    assert other.strlen("fits") == 900000
    # Many small commands adding up to more than the limit in one write are fine: they are
    # consumed as they are parsed.
    p = server.raw()
    p.send(b"".join(p.encode("SET", "p%d" % i, b"v" * 1000) for i in range(2000)))
    assert [p.read_reply() for _ in range(2000)] == ["OK"] * 2000


# ---------------------------------------------------------------------------------------------
# maxclients

def connect_with_retry(server):
    """A connection that got in (the start-up probe may still hold a slot for a moment)."""
    def attempt():
        c = RawConnection(server.host, server.port)
        reply = c.call("PING")
        if reply == "PONG":
            return c
        c.close()
        return None
    return wait_for(attempt)


def test_maxclients(start_server):
    server = start_server("--maxclients", "2")
    a = connect_with_retry(server)
    b = connect_with_retry(server)
    third = RawConnection(server.host, server.port)
    assert third.read_until_closed() == b"-ERR max number of clients reached\r\n"
    third.close()
    assert a.call("PING") == "PONG" and b.call("PING") == "PONG"
    # A freed slot can be taken again.
    a.close()
    c = connect_with_retry(server)
    assert c.call("SET", "k", "v") == "OK"
    b.close()
    c.close()


# ---------------------------------------------------------------------------------------------
# Idle timeout

def test_idle_timeout_closes_clients(start_server):
    server = start_server("--timeout", "1")
    c = server.raw()
    assert c.call("PING") == "PONG"
    assert c.read_until_closed(timeout=15) == b""
    assert server.client().ping()


def test_idle_timeout_spares_paused_clients(start_server):
    server = start_server("--timeout", "1")
    admin, writer = server.raw(), server.raw()
    assert admin.call("CLIENT", "PAUSE", 3000, "WRITE") == "OK"
    writer.send(b"SET k v\r\n")
    # Held by the pause for longer than the idle timeout, yet still served afterwards.
    assert writer.read_reply() == "OK"
    assert server.client().get("k") == "v"


# ---------------------------------------------------------------------------------------------
# Unix sockets, IPv6, protected mode

def test_unix_socket(start_server, short_dir):
    path = os.path.join(short_dir, "vireo.sock")
    server = start_server("--unixsocket", path, "--unixsocketperm", "700")
    st = os.stat(path)
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o700
    c = redis.Redis(unix_socket_path=path, decode_responses=True)
    try:
        assert c.set("k", "v") and c.get("k") == "v"
        assert c.config_get("unixsocketperm") == {"unixsocketperm": "700"}
        info = c.client_info()
        assert info["addr"] == path + ":0" and info["laddr"] == path + ":0"
        assert info["flags"] == "U"
        # MONITOR shows unix clients as unix:<path>.
        m = server.raw()
        assert m.call("MONITOR") == "OK"
        c.get("k")
        line = m.read_reply()
        assert re.fullmatch(r"\d+\.\d{6} \[0 unix:%s\] \"GET\" \"k\"" % re.escape(path), line), line
        # The old form of CLIENT KILL takes the unix address too.
        victim = redis.Redis(unix_socket_path=path)
        victim.ping()
        ids = [cl["id"] for cl in c.client_list() if cl["addr"] == path + ":0"]
        assert len(ids) == 2
        assert c.client_kill_filter(_id=max(ids, key=int)) == 1
    finally:
        c.close()
    # TCP still works alongside.
    assert server.client().get("k") == "v"


def test_unix_socket_only(start_server, short_dir):
    path = os.path.join(short_dir, "only.sock")
    server = start_server("--port", "0", "--unixsocket", path, wait=False)

    def ping():
        try:
            return redis.Redis(unix_socket_path=path, socket_timeout=2).ping()
        except (redis.ConnectionError, OSError):
            return False
    wait_for(ping)
    server.stop()
    assert not os.path.exists(path)  # removed at shutdown


@pytest.mark.skipif(not ipv6_loopback_available(), reason="no IPv6 loopback")
def test_bind_ipv4_and_ipv6_loopback(start_server):
    server = start_server("--bind", "127.0.0.1", "::1")
    v4 = redis.Redis(host="127.0.0.1", port=server.port, decode_responses=True)
    v6 = redis.Redis(host="::1", port=server.port, decode_responses=True)
    try:
        assert v4.set("k", "v")
        assert v6.get("k") == "v"
        info = v6.client_info()
        # IPv6 addresses are bracketed, as in Valkey.
        assert re.fullmatch(r"\[::1\]:\d+", info["addr"]), info["addr"]
        assert info["laddr"] == "[::1]:%d" % server.port
        assert v4.client_info()["laddr"] == "127.0.0.1:%d" % server.port
    finally:
        v4.close()
        v6.close()


def test_protected_mode_lets_loopback_in(start_server):
    # No password and protected mode on: loopback clients are still served. (Other peers
    # cannot be tested from here; the decision itself is unit-tested.)
    server = start_server("--protected-mode", "yes")
    assert server.client().ping()
    c = server.raw()
    assert c.call("CONFIG", "GET", "protected-mode") == [b"protected-mode", b"yes"]


# ---------------------------------------------------------------------------------------------
# Slow readers, churn

def test_slow_reader_gets_everything(sr, shared_server):
    value = os.urandom(1 << 20)
    writer = shared_server.raw()
    assert writer.call("SET", "big", value) == "OK"
    c = shared_server.raw()
    # Ask for ~20 MB without reading: the server must queue it and keep serving others.
    c.send(b"".join(c.encode("GET", "big") for _ in range(20)))
    assert writer.call("PING") == "PONG"
    for _ in range(20):
        assert c.read_reply() == value
    assert c.call("PING") == "PONG"


def test_connection_churn(sr, shared_server):
    for i in range(200):
        s = socket.create_connection((HOST, shared_server.port))
        if i % 3 == 0:
            s.sendall(b"PING\r\n")
            assert s.recv(16) == b"+PONG\r\n"
        elif i % 3 == 1:
            s.sendall(b"*2\r\n$3\r\nGET\r\n$1")  # half a command, then gone
        s.close()
    assert sr.ping()
    assert sr.client_list() is not None


def test_error_reply_for_closed_peer_does_not_crash(sr, shared_server):
    # The peer closes right after sending: writing the replies fails, the server moves on.
    for _ in range(20):
        s = socket.create_connection((HOST, shared_server.port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.sendall(b"PING\r\n" * 100)
        s.close()  # RST
    assert sr.ping()
    assert isinstance(sr.execute_command("CLIENT", "ID"), int)
