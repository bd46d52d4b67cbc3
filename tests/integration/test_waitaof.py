"""WAITAOF: a client's writes fsynced to the local AOF and to replicas' AOFs (REPLCONF ACK ...
FACK), the offset an AOF without replicas counts, the errors, MULTI and scripts, and a
Vireo primary or replica beside valkey-server 8.0.1 in the other role."""

import os
import time

import pytest
import redis

from conftest import VALKEY_SERVER, wait_for

need_valkey = pytest.mark.skipif(not os.path.exists(VALKEY_SERVER),
                                 reason="needs the reference valkey-server in ../shared/reference/")

REPLICA_ERROR = ("WAITAOF cannot be used with replica instances. Please also note that writes "
                 "to replicas are just local and are not propagated.")


def reply(client, *args):
    try:
        return client.execute_command(*args)
    except redis.ResponseError as e:
        return f"ERR:{e}"


def attach(replica, primary):
    r = replica.client()
    r.replicaof("127.0.0.1", primary.port)
    wait_for(lambda: r.info("replication").get("master_link_status") == "up", timeout=30)
    return r


ERROR_CASES = [
    ("WAITAOF", "x", "0", "0"), ("WAITAOF", "2", "0", "0"), ("WAITAOF", "-1", "0", "0"),
    ("WAITAOF", "0", "-1", "0"), ("WAITAOF", "0", "x", "0"), ("WAITAOF", "0", "0", "-1"),
    ("WAITAOF", "0", "0", "x"), ("WAITAOF", "0", "0", "1.5"), ("WAITAOF", "x", "x", "x"),
    ("WAITAOF", "0", "-1", "x"), ("WAITAOF", "2", "-1", "0"),
    ("WAITAOF", "0", "0", "9223372036854775807"), ("WAITAOF", "0", "0"),
    ("WAITAOF", "0", "0", "0", "0"), ("WAITAOF", "1", "0", "0"), ("WAITAOF", "0", "0", "0"),
    ("WAITAOF", "1", "0", "x"), ("WAIT", "1", "9223372036854775807"), ("WAIT", "x", "x"),
]


@need_valkey
@pytest.mark.parametrize("appendonly", ["no", "yes"])
def test_arguments_and_errors_as_valkey(start_server, appendonly):
    ours = start_server("--appendonly", appendonly).client()
    ref = start_server("--appendonly", appendonly, binary=VALKEY_SERVER).client()
    for case in ERROR_CASES:
        assert reply(ours, *case) == reply(ref, *case), case


def test_local_fsync_without_replicas(start_server):
    for policy in ("always", "everysec", "no"):
        s = start_server("--appendonly", "yes", "--appendfsync", policy)
        c = s.client()
        assert c.execute_command("WAITAOF", 0, 0, 0) == [1, 0]  # nothing written yet
        c.set("k", policy)
        # everysec: the background fsync of the next second covers it.
        assert c.execute_command("WAITAOF", 1, 0, 0) == [1, 0], policy
        assert c.execute_command("WAITAOF", 1, 1, 50) == [1, 0]  # no replica: times out
    off = start_server("--appendonly", "no").client()
    off.set("k", 1)
    assert off.execute_command("WAITAOF", 0, 0, 0) == [0, 0]
    assert off.execute_command("WAITAOF", 0, 1, 50) == [0, 0]


def test_an_aof_without_replicas_counts_one_per_propagated_command(start_server):
    servers = [start_server("--appendonly", "yes")]
    if os.path.exists(VALKEY_SERVER):
        servers.append(start_server("--appendonly", "yes", binary=VALKEY_SERVER))
    offsets = []
    for s in servers:
        c = s.client()
        c.set("a", 1)
        c.set("b", 1)
        tx = c.pipeline(transaction=True)
        tx.set("c", 1)
        tx.incr("c")
        tx.execute()
        c.eval("redis.call('set','d',1) redis.call('set','e',1)", 0)
        c.get("a")                    # a read moves nothing
        offsets.append(c.info("replication")["master_repl_offset"])
    assert offsets[0] == 10          # a, b, MULTI c c EXEC, MULTI d e EXEC
    assert len(set(offsets)) == 1, offsets


def test_inside_multi_and_scripts_answers_at_once(start_server):
    c = start_server("--appendonly", "yes", "--appendfsync", "everysec").client()
    tx = c.pipeline(transaction=True)
    tx.set("x", 1)
    tx.execute_command("WAITAOF", 1, 1, 0)   # would block forever outside MULTI
    assert tx.execute()[1] == [1, 0]          # x propagates after EXEC: not waited for
    assert c.eval("redis.call('set','y',1) return redis.call('waitaof',1,1,0)", 0) == [1, 0]


def test_client_unblock_answers_with_the_counts(start_server):
    s = start_server("--appendonly", "yes")
    c = s.client()
    cid = c.client_id()
    box = {}

    import threading
    t = threading.Thread(target=lambda: box.setdefault("r", c.execute_command("WAITAOF", 1, 1, 0)))
    t.start()
    admin = s.client()
    wait_for(lambda: admin.info("clients")["blocked_clients"] == 1)
    assert admin.client_unblock(cid) == 1
    t.join(10)
    assert box["r"] == [1, 0]


def test_vireo_replicas_acknowledge_their_fsyncs(start_server):
    primary = start_server("--appendonly", "yes")
    p = primary.client()
    with_aof = start_server("--appendonly", "yes", "--appendfsync", "everysec")
    without = start_server()
    attach(with_aof, primary)
    r = attach(without, primary)
    p.set("k", 1)
    assert p.execute_command("WAITAOF", 1, 1, 0) == [1, 1]
    assert p.wait(2, 0) == 2
    # The replica without an AOF never acknowledges an fsync.
    assert p.execute_command("WAITAOF", 0, 2, 100) == [1, 1]
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command("WAITAOF", 0, 0, 0)
    assert str(e.value) == REPLICA_ERROR
    # Each wait ends at the replica's next once-a-second fsync.
    for i in range(3):
        p.set(f"k{i}", i)
        assert p.execute_command("WAITAOF", 1, 1, 0) == [1, 1]


@need_valkey
def test_valkey_replica_of_a_vireo_primary(start_server):
    primary = start_server("--appendonly", "yes")
    p = primary.client()
    attach(start_server("--appendonly", "yes", binary=VALKEY_SERVER), primary)
    p.set("k", 1)
    assert p.execute_command("WAITAOF", 1, 1, 0) == [1, 1]


@need_valkey
def test_vireo_replica_of_a_valkey_primary(start_server):
    primary = start_server("--appendonly", "yes", binary=VALKEY_SERVER)
    p = primary.client()
    replica = start_server("--appendonly", "yes", "--appendfsync", "always")
    attach(replica, primary)
    p.set("k", 1)
    t0 = time.monotonic()
    assert p.execute_command("WAITAOF", 1, 1, 0) == [1, 1]
    assert time.monotonic() - t0 < 30
    assert replica.client().get("k") == "1"
