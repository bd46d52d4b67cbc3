"""supervised no|upstart|systemd|auto (valkey.conf's): sd_notify datagrams on $NOTIFY_SOCKET,
as redis-server 7.0 sends them (STATUS= lines, READY=1 once it accepts connections,
STOPPING=1 at shutdown), and its log lines. The test plays systemd: a unix datagram socket in
a temp dir, or in the abstract namespace ('@' name)."""

import os
import signal
import socket

import pytest

from conftest import wait_for

READY = [b"STATUS=Vireo is loading...\n", b"STATUS=Ready to accept connections\n", b"READY=1\n"]


def receive(sock, until):
    """Datagrams until one equals `until` (or the socket's timeout ends the wait)."""
    got = []
    while until not in got:
        try:
            got.append(sock.recv(4096))
        except socket.timeout:
            break
    return got


@pytest.fixture
def notify_socket(tmp_path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(tmp_path / "notify")
    sock.bind(path)
    sock.settimeout(30)
    yield sock, path
    sock.close()


@pytest.mark.parametrize("mode", ["systemd", "auto"])
def test_systemd_hears_ready_then_stopping(start_server, notify_socket, mode):
    sock, path = notify_socket
    server = start_server("--supervised", mode, env={"NOTIFY_SOCKET": path})
    assert receive(sock, b"READY=1\n") == READY
    r = server.client()
    assert r.config_get("supervised") == {"supervised": mode}
    assert r.info("server")["process_supervised"] == "systemd"
    assert "Supervised by systemd. Please make sure you set appropriate values for " \
        "TimeoutStartSec and TimeoutStopSec in your service unit." in server.log()
    r.shutdown(nosave=True)
    assert receive(sock, b"STOPPING=1\n") == [b"STOPPING=1\n"]
    wait_for(lambda: not server.is_alive())


def test_abstract_notify_socket(start_server):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = f"vireo-test-notify-{os.getpid()}-{id(sock)}"
    sock.bind("\0" + name)
    sock.settimeout(30)
    with sock:
        start_server("--supervised", "systemd", env={"NOTIFY_SOCKET": "@" + name})
        assert receive(sock, b"READY=1\n") == READY


def test_no_and_auto_without_a_socket_stay_quiet(start_server, notify_socket):
    sock, path = notify_socket
    for mode in ("no", "auto"):
        server = start_server("--supervised", mode, env={"NOTIFY_SOCKET": "" if mode == "auto"
                                                        else path, "UPSTART_JOB": ""})
        assert server.client().info("server")["process_supervised"] == "no"
        assert "supervision" not in server.log() and "Supervised" not in server.log()
    sock.settimeout(0.2)
    assert receive(sock, b"READY=1\n") == []  # "no" sent nothing to the socket it was given


def test_missing_socket_or_job_is_logged_as_valkey(start_server):
    server = start_server("--supervised", "systemd", env={"NOTIFY_SOCKET": ""})
    assert "systemd supervision error: NOTIFY_SOCKET not found!" in server.log()
    server = start_server("--supervised", "upstart", env={"UPSTART_JOB": ""})
    assert "upstart supervision requested, but UPSTART_JOB not found!" in server.log()
    assert server.client().info("server")["process_supervised"] == "no"


def process_state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_upstart_stops_itself_when_ready(start_server):
    """upstart's `expect stop`: once ready the server raises SIGSTOP; upstart (here the test)
    sends SIGCONT and it serves on."""
    server = start_server("--supervised", "upstart", env={"UPSTART_JOB": "vireo"}, wait=False)
    assert wait_for(lambda: process_state(server.proc.pid) == "T")
    assert "supervised by upstart, will stop to signal readiness." in server.log()
    os.kill(server.proc.pid, signal.SIGCONT)
    server.wait_ready()
    assert server.client().info("server")["process_supervised"] == "upstart"


def test_supervised_takes_valkeys_values_only(start_server):
    server = start_server("--supervised", "bogus", wait=False)
    wait_for(lambda: not server.is_alive())
    assert server.proc.returncode != 0
    assert "upstart, systemd, auto, no" in server.log()
