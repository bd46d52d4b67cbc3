"""FAILOVER: a primary hands its role to a replica (pausing writes until one has caught up,
then PSYNC ... FAILOVER), with TO, FORCE, TIMEOUT and ABORT, its errors, and the hand-over in
both directions between Vireo and Debian's redis-server 7.0. The state-machine and error tests
run against both servers and expect the same replies."""

import os
import time

import pytest
import redis

from conftest import RawConnection, free_port, wait_for
from test_replication import attach, caught_up, repl_info, same_data, stats

REDIS_SERVER = "/usr/bin/redis-server"
have_redis = os.path.exists(REDIS_SERVER)
need_redis = pytest.mark.skipif(not have_redis, reason="no redis-server")
# The primary's implementation: Vireo, and redis-server as the reference for the same test.
IMPLS = ["vireo", pytest.param("redis", marks=need_redis)]


def primary_of(start_server, impl, *args):
    return start_server(*args, binary=REDIS_SERVER if impl == "redis" else None)


def fake_replica(primary, listening_port, online=True):
    """A connection that registers as a replica listening on listening_port and never acks,
    so it never catches up with the stream."""
    conn = RawConnection(primary.host, primary.port)
    assert conn.call("REPLCONF", "listening-port", listening_port) == "OK"
    if not online:
        # Kept waiting by a diskless sync's delay (the caller's repl-diskless-sync-delay): a
        # replica without capa eof gets a disk snapshot at the next cron tick, and a loaded
        # machine let that tick pass between seeing wait_bgsave and the caller's command.
        assert conn.call("REPLCONF", "capa", "eof") == "OK"
    conn.send_command("PSYNC", "?", "-1")
    # Online once the snapshot went out (the RDB stays unread in the socket).
    want = "online" if online else "wait_bgsave"
    wait_for(lambda: repl_info(primary.client()).get("slave0", {}).get("state") == want)
    return conn


def lagging_primary(start_server, impl, *args, port=7):
    """A primary whose only replica (said to listen on port) is behind by one write, for good."""
    primary = primary_of(start_server, impl, *args)
    fake = fake_replica(primary, port)
    primary.client().set("before", "1")
    return primary, fake


def gone(primary):
    """The closed fake replica is gone, so stopping the primary does not wait for it."""
    if primary.proc.poll() is None:
        wait_for(lambda: repl_info(primary.client())["connected_slaves"] == 0)


def failover_state(r):
    return repl_info(r)["master_failover_state"]


def held_clients(r):
    return [c for c in r.client_list() if "b" in c["flags"]]


@pytest.mark.parametrize("impl", IMPLS)
def test_errors_match_valkey(start_server, impl):
    primary = primary_of(start_server, impl)
    p = primary.client()
    for args, text in (
            (("TO",), "syntax error"),
            (("TO", "127.0.0.1"), "syntax error"),
            (("TO", "127.0.0.1", "abc"), "value is not an integer or out of range"),
            (("TIMEOUT",), "syntax error"),
            (("TIMEOUT", "abc"), "value is not an integer or out of range"),
            (("TIMEOUT", "0"), "FAILOVER timeout must be greater than 0"),
            (("TIMEOUT", "-5"), "FAILOVER timeout must be greater than 0"),
            (("TIMEOUT", "5", "TIMEOUT", "6"), "syntax error"),
            (("ABORT", "TIMEOUT", "10"), "syntax error"),
            (("ABORT", "ABORT"), "syntax error"),
            (("BOGUS",), "syntax error"),
            (("ABORT",), "No failover in progress."),
            ((), "FAILOVER requires connected replicas."),
            (("FORCE",), "FAILOVER requires connected replicas."),
            (("TO", "127.0.0.1", "1", "TIMEOUT", "9"), "FAILOVER requires connected replicas.")):
        with pytest.raises(redis.ResponseError) as e:
            p.execute_command("FAILOVER", *args)
        assert str(e.value) == text, args
    fake = fake_replica(primary, 7)
    for args, text in (
            (("FORCE",), "FAILOVER with force option requires both a timeout and target HOST "
                         "and IP."),
            (("TO", "127.0.0.1", "8", "FORCE"), "FAILOVER with force option requires both a "
                                                "timeout and target HOST and IP."),
            (("TO", "127.0.0.1", "8"), "FAILOVER target HOST and PORT is not a replica."),
            # Addresses are compared as the replica list shows them, not resolved.
            (("TO", "localhost", "7"), "FAILOVER target HOST and PORT is not a replica.")):
        with pytest.raises(redis.ResponseError) as e:
            p.execute_command("FAILOVER", *args)
        assert str(e.value) == text, args
    # PSYNC ... FAILOVER is only for a replica, of the history the sender follows.
    with pytest.raises(redis.ResponseError) as e:
        p.execute_command("PSYNC", "0" * 40, "1", "FAILOVER")
    assert str(e.value) == "PSYNC FAILOVER can't be sent to a master."
    assert p.info("replication")["role"] == "master"
    fake.close()
    gone(primary)


@pytest.mark.parametrize("impl", IMPLS)
def test_named_target_must_be_online(start_server, impl):
    primary = primary_of(start_server, impl, "--repl-diskless-sync-delay", 100)
    fake = fake_replica(primary, 7, online=False)
    with pytest.raises(redis.ResponseError) as e:
        primary.client().execute_command("FAILOVER", "TO", "127.0.0.1", 7)
    assert str(e.value) == "FAILOVER target replica is not online."
    fake.close()
    gone(primary)


def test_replica_refuses_failover_and_cluster_mode_points_elsewhere(start_server):
    primary = start_server()
    r = attach(start_server(), primary)
    with pytest.raises(redis.ResponseError, match="^FAILOVER is not valid when server is a "
                                                  "replica.$"):
        r.execute_command("FAILOVER")
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command("PSYNC", "0" * 40, "1", "FAILOVER")
    assert str(e.value) == "PSYNC FAILOVER replid must match my replid."
    assert repl_info(r)["role"] == "slave"
    node = start_server("--cluster-enabled", "yes").client()
    for args in ((), ("BOGUS",)):
        with pytest.raises(redis.ResponseError) as e:
            node.execute_command("FAILOVER", *args)
        assert str(e.value) == ("FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER "
                                "command instead.")


@pytest.mark.parametrize("impl", IMPLS)
def test_waiting_holds_writes_until_the_timeout_aborts(start_server, impl):
    primary, fake = lagging_primary(start_server, impl)
    p = primary.client()
    assert p.execute_command("FAILOVER", "TIMEOUT", 1500) == "OK"
    assert failover_state(p) == "waiting-for-sync"
    writer = primary.raw()
    writer.send_command("SET", "held", "1")
    wait_for(lambda: held_clients(p))
    assert p.get("before") == "1"  # reads go on
    # Only the failover ends its own pause; the rest is refused while it runs.
    assert p.execute_command("CLIENT", "UNPAUSE") == "OK"
    time.sleep(0.2)
    assert held_clients(p) and p.get("held") is None
    for args, text in ((("FAILOVER",), "FAILOVER already in progress."),
                       (("REPLICAOF", "127.0.0.1", "1"), "REPLICAOF not allowed while failing "
                                                         "over."),
                       (("REPLICAOF", "NO", "ONE"), "REPLICAOF not allowed while failing over.")):
        with pytest.raises(redis.ResponseError) as e:
            p.execute_command(*args)
        assert str(e.value) == text
    # No replica caught up within the timeout: the failover ends, the write runs.
    wait_for(lambda: failover_state(p) == "no-failover")
    assert writer.read_reply() == "OK"
    assert p.get("held") == "1"
    assert p.info("replication")["role"] == "master"
    wait_for(lambda: "aborted: Replica never caught up before timeout" in primary.log())
    fake.close()
    gone(primary)


@pytest.mark.parametrize("impl", IMPLS)
def test_abort_while_waiting_releases_the_writes(start_server, impl):
    primary, fake = lagging_primary(start_server, impl)
    p = primary.client()
    assert p.execute_command("FAILOVER") == "OK"
    writer = primary.raw()
    writer.send_command("INCR", "n")
    wait_for(lambda: held_clients(p))
    assert p.execute_command("FAILOVER", "ABORT") == "OK"
    assert writer.read_reply() == 1
    assert failover_state(p) == "no-failover"
    assert "aborted: Failover manually aborted" in primary.log()
    fake.close()
    gone(primary)


@pytest.mark.parametrize("impl", IMPLS)
def test_force_fails_over_after_the_timeout_and_abort_returns_to_primary(start_server, impl):
    unused = free_port()
    primary, fake = lagging_primary(start_server, impl, port=unused)
    p = primary.client()
    assert p.execute_command("FAILOVER", "TO", "127.0.0.1", unused, "FORCE",
                             "TIMEOUT", 100) == "OK"
    # Past the timeout it becomes the target's replica anyway; nothing listens there, so the
    # hand-over stays in progress, retrying, as in Valkey.
    wait_for(lambda: failover_state(p) == "failover-in-progress")
    info = repl_info(p)
    assert info["role"] == "slave" and info["master_port"] == unused
    with pytest.raises(redis.ReadOnlyError):
        p.set("x", "1")  # a replica refuses writes at once, paused or not
    assert p.execute_command("FAILOVER", "ABORT") == "OK"
    info = repl_info(p)
    assert info["role"] == "master" and info["master_failover_state"] == "no-failover"
    p.set("after", "2")
    assert p.mget("before", "after") == ["1", "2"]
    fake.close()
    gone(primary)


@pytest.mark.parametrize("impl", IMPLS)
def test_target_that_rejects_the_psync_sends_the_primary_back(start_server, impl):
    stranger = start_server()  # a primary of another history, standing where the replica says
    primary, fake = lagging_primary(start_server, impl, port=stranger.port)
    p = primary.client()
    assert p.execute_command("FAILOVER", "TO", "127.0.0.1", stranger.port, "FORCE",
                             "TIMEOUT", 100) == "OK"
    wait_for(lambda: "Failover target rejected psync request" in primary.log())
    wait_for(lambda: failover_state(p) == "no-failover")
    assert repl_info(p)["role"] == "master"
    p.set("after", "2")
    assert stranger.client().dbsize() == 0
    assert stranger.client().info("replication")["role"] == "master"
    fake.close()
    gone(primary)


def test_failover_to_any_replica_keeps_every_write(start_server):
    primary = start_server()
    replica = start_server()
    p = primary.client()
    for i in range(200):
        p.set(f"k{i}", i)
    r = attach(replica, primary)
    caught_up(p, r)
    full_syncs = stats(p)["sync_full"]
    # Writes sent while the failover runs are held, then refused by the new replica.
    writer = primary.raw()
    assert p.execute_command("FAILOVER") == "OK"
    writer.send_command("SET", "late", "1")
    wait_for(lambda: repl_info(r)["role"] == "master")
    wait_for(lambda: repl_info(p)["role"] == "slave" and
             repl_info(p)["master_link_status"] == "up")
    reply = writer.read_reply()
    assert isinstance(reply, Exception) and str(reply).startswith("READONLY")
    assert failover_state(p) == "no-failover" and failover_state(r) == "no-failover"
    assert repl_info(p)["master_port"] == replica.port
    # The old primary continued the new one's history (partial), no full sync either way.
    assert stats(r)["sync_partial_ok"] == 1 and stats(r)["sync_full"] == 0
    assert stats(p)["sync_full"] == full_syncs
    assert repl_info(r)["master_replid2"] == repl_info(p)["master_replid2"]
    r.set("new", "primary")
    wait_for(lambda: p.get("new") == "primary")
    assert same_data(primary, replica)
    assert "Failover target 127.0.0.1:%d is synced, failing over." % replica.port in primary.log()
    assert "MASTER MODE enabled (failover request from" in replica.log()


def test_failover_to_a_named_replica_among_two(start_server):
    primary = start_server()
    first, second = start_server(), start_server()
    p = primary.client()
    p.set("x", "1")
    r1, r2 = attach(first, primary), attach(second, primary)
    assert p.wait(2, 5000) == 2
    assert p.execute_command("FAILOVER", "TO", "127.0.0.1", second.port) == "OK"
    wait_for(lambda: repl_info(r2)["role"] == "master")
    wait_for(lambda: repl_info(p).get("master_link_status") == "up")
    assert repl_info(p)["master_port"] == second.port
    # The other replica still follows the old primary, which now passes the new one's
    # stream on (it reconnects there with a partial resync after the history changed).
    r2.set("y", "2")
    wait_for(lambda: r1.get("y") == "2")
    assert repl_info(r1)["role"] == "slave" and repl_info(r1)["master_port"] == primary.port
    assert stats(p)["sync_full"] == 2


@need_redis
@pytest.mark.parametrize("direction", ["vireo-to-redis", "redis-to-vireo"])
def test_hand_over_between_vireo_and_redis_server(start_server, direction):
    old, new = ((None, REDIS_SERVER) if direction == "vireo-to-redis"
                else (REDIS_SERVER, None))
    primary = start_server(binary=old)
    replica = start_server(binary=new)
    p = primary.client()
    for i in range(100):
        p.rpush("list", i)
    r = attach(replica, primary)
    p.rpush("list", "synced")
    assert p.wait(1, 5000) == 1  # the replica is online at the primary, and acked
    caught_up(p, r)
    assert p.execute_command("FAILOVER", "TO", "127.0.0.1", replica.port, "TIMEOUT",
                             10000) == "OK"
    wait_for(lambda: repl_info(r)["role"] == "master")
    wait_for(lambda: repl_info(p).get("master_link_status") == "up")
    assert failover_state(p) == "no-failover"
    assert stats(r)["sync_partial_ok"] == 1
    r.rpush("list", "after")
    wait_for(lambda: p.lindex("list", -1) == "after")
    assert same_data(primary, replica)


def test_pause_on_a_replica_refuses_writes_at_once(start_server):
    primary = start_server()
    r = attach(start_server(), primary)
    assert r.execute_command("CLIENT", "PAUSE", 60000, "WRITE") == "OK"
    with pytest.raises(redis.ReadOnlyError):
        r.set("x", "1")
    assert r.execute_command("CLIENT", "UNPAUSE") == "OK"
