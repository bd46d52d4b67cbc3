"""Shutting down a primary with replicas, as Valkey 7 does: unless NOW, it pauses writes and
waits up to shutdown-timeout for lagging replicas to acknowledge the whole stream before the
final save and exit; SHUTDOWN ABORT ends the wait; SIGTERM/SIGINT follow shutdown-on-sigterm /
shutdown-on-sigint. Tests that need no Vireo-only behaviour run against redis-server 7.0 too
and expect the same replies and log lines."""

import os
import signal

import pytest
import redis

from conftest import RespError, wait_for
from test_failover import IMPLS, gone, lagging_primary, primary_of
from test_replication import attach

SHUTDOWN_FAILED = RespError("ERR Errors trying to SHUTDOWN. Check logs.")


def blocked_in_shutdown(primary):
    return [c for c in primary.client().client_list() if c["cmd"] == "shutdown"]


@pytest.mark.parametrize("impl", IMPLS)
def test_abort_ends_the_wait_and_releases_writes(start_server, impl):
    primary, fake = lagging_primary(start_server, impl, "--shutdown-timeout", 60)
    p = primary.client()
    first, second, writer = primary.raw(), primary.raw(), primary.raw()
    first.send_command("SHUTDOWN")
    wait_for(lambda: blocked_in_shutdown(primary))
    # While it waits: reads are served, writes are held, a second SHUTDOWN (NOW too) waits
    # with the first.
    assert p.get("before") == "1"
    writer.send_command("SET", "held", "1")
    second.send_command("SHUTDOWN", "NOW")
    wait_for(lambda: len(blocked_in_shutdown(primary)) == 2)
    assert p.get("held") is None
    assert primary.raw().call("SHUTDOWN", "ABORT") == "OK"
    assert first.read_reply() == SHUTDOWN_FAILED
    assert second.read_reply() == SHUTDOWN_FAILED
    assert writer.read_reply() == "OK"
    assert "Shutdown manually aborted." in primary.log()
    with pytest.raises(redis.ResponseError, match="^No shutdown in progress.$"):
        p.execute_command("SHUTDOWN", "ABORT")
    assert primary.proc.poll() is None
    fake.close()
    gone(primary)


@pytest.mark.parametrize("impl", IMPLS)
def test_a_replica_that_never_catches_up_delays_the_exit_by_the_timeout(start_server, impl):
    primary, fake = lagging_primary(start_server, impl, "--shutdown-timeout", 1)
    conn = primary.raw()
    conn.send_command("SHUTDOWN", "NOSAVE")
    assert primary.proc.wait(timeout=20) == 0
    log = primary.log()
    assert "Waiting for replicas before shutting down." in log
    assert "Lagging replica 127.0.0.1:7 reported offset" in log
    assert "0 of 1 replicas are in sync when shutting down." in log
    fake.close()
    gone(primary)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("how", [("SHUTDOWN", "NOW"), "timeout 0"])
def test_now_or_no_timeout_do_not_wait(start_server, impl, how):
    args = ("--shutdown-timeout", 0) if how == "timeout 0" else ()
    primary, fake = lagging_primary(start_server, impl, *args)
    primary.raw().send_command(*(how if isinstance(how, tuple) else ("SHUTDOWN",)))
    assert primary.proc.wait(timeout=20) == 0
    assert "Waiting for replicas" not in primary.log()
    fake.close()
    gone(primary)


@pytest.mark.parametrize("impl", IMPLS)
def test_sigterm_waits_for_replicas_too_unless_configured_now(start_server, impl):
    primary, fake = lagging_primary(start_server, impl, "--shutdown-timeout", 60)
    os.kill(primary.proc.pid, signal.SIGTERM)
    wait_for(lambda: "Waiting for replicas before shutting down." in primary.log())
    assert primary.proc.poll() is None
    assert primary.raw().call("SHUTDOWN", "ABORT") == "OK"
    # shutdown-on-sigterm now: no wait.
    assert primary.client().config_set("shutdown-on-sigterm", "now")
    os.kill(primary.proc.pid, signal.SIGTERM)
    assert primary.proc.wait(timeout=20) == 0
    fake.close()
    gone(primary)


def test_second_sigint_during_the_wait_exits_at_once(start_server):
    primary, fake = lagging_primary(start_server, "vireo", "--shutdown-timeout", 60)
    primary.expect_crash = True  # exit code 1, by request
    os.kill(primary.proc.pid, signal.SIGINT)
    wait_for(lambda: "Waiting for replicas before shutting down." in primary.log())
    os.kill(primary.proc.pid, signal.SIGINT)
    assert primary.proc.wait(timeout=20) == 1
    assert "You insist... exiting now." in primary.log()
    fake.close()
    gone(primary)


def test_client_unblock_does_not_end_a_shutdown_wait(start_server):
    # redis-server 7.0 crashes here; Valkey answers 0, as Vireo does.
    primary, fake = lagging_primary(start_server, "vireo", "--shutdown-timeout", 60)
    conn = primary.raw()
    conn.send_command("SHUTDOWN")
    waiting = wait_for(lambda: blocked_in_shutdown(primary))
    p = primary.client()
    assert p.client_unblock(waiting[0]["id"]) == 0
    assert p.client_unblock(waiting[0]["id"], error=True) == 0
    assert primary.raw().call("SHUTDOWN", "ABORT") == "OK"
    assert conn.read_reply() == SHUTDOWN_FAILED
    fake.close()
    gone(primary)


def test_every_write_reaches_the_replica_before_the_primary_exits(start_server):
    primary = start_server("--shutdown-timeout", 30)
    replica = start_server()
    r = attach(replica, primary)
    conn = primary.raw()
    # The replica acks once a second: without the wait the primary would be gone before the
    # last of these reached it.
    pipeline = b"".join(conn.encode("RPUSH", "list", i) for i in range(20000))
    conn.send(pipeline + conn.encode("SHUTDOWN", "NOSAVE"))
    assert primary.proc.wait(timeout=30) == 0
    assert r.llen("list") == 20000
    assert "1 of 1 replicas are in sync when shutting down." in primary.log()


def test_a_replica_shuts_down_without_waiting(start_server):
    primary = start_server()
    replica = start_server("--shutdown-timeout", 60)
    attach(replica, primary)
    replica.raw().send_command("SHUTDOWN", "NOSAVE")
    assert replica.proc.wait(timeout=30) == 0
    assert "Waiting for replicas" not in replica.log()


@pytest.mark.parametrize("impl", IMPLS)
def test_shutdown_on_signal_takes_several_flags(start_server, impl):
    r = primary_of(start_server, impl).client()
    for value, stored in (("nosave now", "nosave now"), ("default now", "now"),
                          ("now nosave force", "nosave now force"), ("DEFAULT", "default")):
        assert r.config_set("shutdown-on-sigint", value)
        assert r.config_get("shutdown-on-sigint")["shutdown-on-sigint"] == stored
    # Valkey 9.0 added safe (SHUTDOWN SAFE); 8.0.1 lists the five before it.
    allowed = "default, save, nosave, now, force" + (", safe" if impl == "vireo" else "")
    for value, text in (("save nosave", "shutdown options SAVE and NOSAVE can't be used "
                                        "simultaneously"),
                        ("bogus", "argument(s) must be one of the following: " + allowed),
                        ("", "argument(s) must be one of the following: " + allowed)):
        with pytest.raises(redis.ResponseError) as e:
            r.config_set("shutdown-on-sigterm", value)
        assert str(e.value) == ("CONFIG SET failed (possibly related to argument "
                                "'shutdown-on-sigterm') - " + text)
