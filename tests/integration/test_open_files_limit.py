"""maxclients and the open files limit, as Valkey: at start the server raises RLIMIT_NOFILE to
maxclients + 32 (or lowers maxclients to what the limit allows, with its warnings), CONFIG SET
maxclients refuses a number the limit cannot hold, and 10,000 idle clients are held while the
server keeps answering."""
import contextlib
import os
import resource
import socket

import pytest
import redis

from conftest import wait_for

SOFT, HARD = resource.getrlimit(resource.RLIMIT_NOFILE)


@contextlib.contextmanager
def soft_limit(n):
    """Children started inside inherit a soft limit of n."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (n, HARD))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT, HARD))


def can_exceed_hard_limit():
    """Whether a process here may raise its hard limit (root with CAP_SYS_RESOURCE)."""
    pid = os.fork()
    if pid == 0:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (HARD + 64, HARD + 64))
            os._exit(0)
        except (ValueError, OSError):
            os._exit(1)
    return os.waitpid(pid, 0)[1] == 0


def test_start_raises_the_soft_limit_for_maxclients(start_server):
    if HARD != resource.RLIM_INFINITY and HARD < 2032:
        pytest.skip("hard open files limit below 2032")
    with soft_limit(256):
        s = start_server("--maxclients", "2000")
    assert "Increased maximum number of open files to 2032 (it was originally set to 256)." \
        in s.log()
    assert s.client().config_get("maxclients") == {"maxclients": "2000"}


@pytest.mark.skipif(HARD == resource.RLIM_INFINITY or HARD > 1 << 20,
                    reason="no finite hard open files limit")
def test_maxclients_beyond_the_limit_is_reduced_and_refused_at_runtime(start_server):
    if can_exceed_hard_limit():
        pytest.skip("this process may raise its hard limit: nothing is reduced")
    s = start_server("--maxclients", str(HARD))
    c = s.client()
    allowed = HARD - 32
    assert c.config_get("maxclients") == {"maxclients": str(allowed)}
    log = s.log()
    assert f"You requested maxclients of {HARD} requiring at least {HARD + 32} max file " \
        "descriptors." in log
    assert f"maxclients has been reduced to {allowed} to compensate for low ulimit." in log
    with pytest.raises(redis.ResponseError) as e:
        c.config_set("maxclients", HARD + 1000)
    assert str(e.value) == (
        "CONFIG SET failed (possibly related to argument 'maxclients') - The operating "
        f"system is not able to handle the specified number of clients, try with {allowed}")
    assert c.config_get("maxclients") == {"maxclients": str(allowed)}
    assert c.config_set("maxclients", 100)
    assert c.config_get("maxclients") == {"maxclients": "100"}


def test_ten_thousand_idle_clients_are_held(start_server):
    n = 10000
    if HARD != resource.RLIM_INFINITY and HARD < n + 200:
        pytest.skip("hard open files limit too low for 10,000 clients here")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(SOFT, n + 200), HARD))
    socks = []
    try:
        s = start_server("--maxclients", str(n + 10))
        c = s.client()
        for i in range(n):
            socks.append(socket.create_connection(("127.0.0.1", s.port)))
        wait_for(lambda: c.info("clients")["connected_clients"] == n + 1, timeout=60)
        # Idle clients cost the others nothing visible: commands still run.
        assert c.set("k", "v") and c.get("k") == "v"
        # One idle client among them still gets its answer.
        socks[n // 2].sendall(b"PING\r\n")
        assert socks[n // 2].recv(16) == b"+PONG\r\n"
        for sock in socks:
            sock.close()
        socks = []
        wait_for(lambda: c.info("clients")["connected_clients"] == 1, timeout=60)
    finally:
        for sock in socks:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT, HARD))
