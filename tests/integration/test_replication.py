"""Replication: full and partial sync, the stream, WAIT, read-only replicas, min-replicas,
chains, promotion, and interoperability with Debian's redis-server 7.0 in both directions."""

import os
import signal
import time

import pytest
import redis

from conftest import RespError, wait_for
from test_rdb import dataset, populate

REDIS_SERVER = "/usr/bin/redis-server"
need_redis = pytest.mark.skipif(not os.path.exists(REDIS_SERVER), reason="no redis-server")
DEBUG = ("--enable-debug-command", "yes")


def repl_info(r):
    return r.info("replication")


def stats(r):
    return r.info("stats")


def wait_link_up(r):
    # A sanitizer build with io-threads 4, on CPUs a background build shares, once took over
    # 10 s to bring the link up (CI of 3b103d6); so did a Release build while the sanitizer
    # build ran beside the tests (CI of d1d2e30).
    wait_for(lambda: repl_info(r).get("master_link_status") == "up", timeout=30)


def attach(replica, primary):
    r = replica.client()
    assert r.replicaof("127.0.0.1", primary.port) in (True, "OK")
    wait_link_up(r)
    return r


def caught_up(p, r):
    """The replica has applied everything the primary has sent (after WAIT)."""
    def done():
        return repl_info(r).get("slave_repl_offset") == repl_info(p)["master_repl_offset"]
    wait_for(done)


def same_data(a, b):
    """Dataset comparison that also holds between Vireo and redis-server, whose DEBUG DIGEST
    algorithms differ."""
    ca = a.client(decode_responses=False)
    cb = b.client(decode_responses=False)
    return dataset(ca) == dataset(cb)


def check_stream_and_partial_resync(primary, replica):
    """After a full sync: the stream reaches the replica, and a dropped link resumes with a
    partial resync."""
    p = primary.client()
    r = replica.client()
    p.set("later", "1")
    primary.client(db=3).rpush("l3", "a", "b")
    assert p.wait(1, 5000) == 1
    caught_up(p, r)
    assert same_data(primary, replica)
    p.client_kill_filter(_type="slave")
    p.set("during", "2")
    wait_for(lambda: stats(p)["sync_partial_ok"] == 1)
    assert p.wait(1, 5000) == 1
    caught_up(p, r)
    assert r.get("during") == "2"
    assert stats(p)["sync_full"] == 1


TARGET = {"yes": "target: replicas sockets", "no": "target: disk"}


@pytest.mark.parametrize("diskless", ["yes", "no"])
def test_full_sync_of_every_type_then_the_stream(start_server, diskless):
    primary = start_server(*DEBUG, "--repl-diskless-sync", diskless)
    replica = start_server(*DEBUG)
    p = primary.client()
    populate(p)
    p.execute_command("SET", "big", "x" * 300000)
    r = attach(replica, primary)
    assert p.wait(1, 5000) == 1
    caught_up(p, r)
    assert r.execute_command("DEBUG", "DIGEST") == p.execute_command("DEBUG", "DIGEST")
    # The stream: writes in several databases, expiries, a transaction.
    p.set("n", 12345)
    p.incr("n")
    p2 = primary.client(db=3)
    p2.set("in3", "three")
    tx = p.pipeline(transaction=True)
    tx.lpush("l", "new").hset("h", "f99", "z").delete("s")
    tx.execute()
    assert p.wait(1, 5000) == 1
    caught_up(p, r)
    assert r.get("n") == "12346"
    assert replica.client(db=3).get("in3") == "three"
    assert r.execute_command("DEBUG", "DIGEST") == p.execute_command("DEBUG", "DIGEST")
    info = repl_info(p)
    assert info["connected_slaves"] == 1
    assert info["slave0"]["state"] == "online"
    assert info["slave0"]["port"] == replica.port
    assert stats(p)["sync_full"] == 1
    role = p.execute_command("ROLE")
    assert role[0] == "master" and role[2][0][1] == str(replica.port)
    rrole = r.execute_command("ROLE")
    assert rrole[:4] == ["slave", "127.0.0.1", primary.port, "connected"]
    assert TARGET[diskless] in primary.log()
    # Diskless: the snapshot went to the socket only, no file on the primary.
    assert (primary.dir / "dump.rdb").exists() == (diskless == "no")


def test_diskless_sync_gathers_replicas_into_one_transfer(start_server):
    # The delay would hold the transfer for a minute; the second replica starts it.
    primary = start_server(*DEBUG, "--repl-diskless-sync-delay", "60",
                           "--repl-diskless-sync-max-replicas", "2")
    p = primary.client()
    populate(p)
    replicas = [start_server(*DEBUG) for _ in range(2)]
    for s in replicas:
        s.client().replicaof("127.0.0.1", primary.port)
    for s in replicas:
        wait_for(lambda: repl_info(s.client()).get("master_link_status") == "up", timeout=30)
    assert primary.log().count(TARGET["yes"]) == 1
    assert stats(p)["sync_full"] == 2
    p.set("after", "1")
    assert p.wait(2, 5000) == 2
    for s in replicas:
        caught_up(p, s.client())
        assert s.client().execute_command("DEBUG", "DIGEST") == p.execute_command("DEBUG", "DIGEST")


def test_diskless_transfer_survives_a_replica_that_goes_away(start_server):
    # rdb-key-save-delay keeps the transfer running while one replica is killed mid-way.
    primary = start_server(*DEBUG, "--repl-diskless-sync-max-replicas", "2",
                           "--repl-diskless-sync-delay", "60")
    p = primary.client()
    p.execute_command("DEBUG", "POPULATE", 2000)
    p.config_set("rdb-key-save-delay", 1000)
    quitter, stayer = start_server(*DEBUG), start_server(*DEBUG)
    quitter.client().replicaof("127.0.0.1", primary.port)
    stayer.client().replicaof("127.0.0.1", primary.port)
    wait_for(lambda: TARGET["yes"] in primary.log())
    quitter.kill()
    r = stayer.client()
    wait_for(lambda: repl_info(r).get("master_link_status") == "up", timeout=60)
    assert r.dbsize() == 2000
    wait_for(lambda: repl_info(p)["connected_slaves"] == 1)


def test_replica_hides_expired_keys_until_the_primary_deletes_them(start_server):
    primary = start_server()
    replica = start_server()
    p = primary.client()
    r = attach(replica, primary)
    p.config_set("hz", 1)  # slow active expiry on the primary
    p.set("soon", "v", px=200)
    assert p.wait(1, 5000) == 1
    time.sleep(0.3)
    assert r.get("soon") is None            # hidden on read
    assert r.dbsize() in (0, 1)             # not deleted by the replica itself
    p.get("soon")                           # lazy expiry on the primary sends the DEL
    assert p.wait(1, 5000) == 1
    wait_for(lambda: r.dbsize() == 0)


def test_read_only_replica_and_writable_replica(start_server):
    primary = start_server()
    replica = start_server()
    r = attach(replica, primary)
    with pytest.raises(redis.exceptions.ReadOnlyError) as e:
        r.set("k", "v")
    assert str(e.value) == "You can't write against a read only replica."
    # Reads and admin commands still work.
    assert r.get("k") is None
    r.config_set("replica-read-only", "no")
    assert r.set("local", "v")
    assert r.get("local") == "v"
    assert repl_info(r)["slave_read_only"] == 0


def test_wait_semantics(start_server):
    primary = start_server()
    p = primary.client()
    p.set("a", 1)
    assert p.wait(0, 0) == 0
    assert p.wait(1, 50) == 0      # nobody to ack: times out with the count
    replica = start_server()
    r = attach(replica, primary)
    p.set("b", 2)
    assert p.wait(1, 0) == 1
    assert p.wait(2, 100) == 1
    tx = p.pipeline(transaction=True)
    tx.set("c", 3)
    tx.wait(5, 0)                   # cannot block inside MULTI: answers at once
    assert tx.execute()[1] in (0, 1)
    with pytest.raises(redis.ResponseError) as e:
        r.wait(1, 10)
    # valkey-server 8.0.1's text (Redis 7.0's said "since Redis 4.0").
    assert str(e.value) == (
        "WAIT cannot be used with replica instances. Please also note that if a replica is "
        "configured to be writable (which is not the default) writes to replicas are just local "
        "and are not propagated.")
    for args, text in ((("1", "-1"), "ERR timeout is negative"),
                       (("x", "1"), "ERR value is not an integer or out of range"),
                       (("0", "x"), "ERR timeout is not an integer or out of range")):
        with pytest.raises(redis.ResponseError) as e:
            p.execute_command("WAIT", *args)
        assert str(e.value) == text.removeprefix("ERR ") or str(e.value) == text


def test_min_replicas_to_write(start_server):
    primary = start_server()
    p = primary.client()
    p.config_set("min-replicas-to-write", 1)
    with pytest.raises(redis.ResponseError) as e:
        p.set("k", "v")
    assert str(e.value) == "NOREPLICAS Not enough good replicas to write."
    assert p.get("k") is None       # reads are fine
    replica = start_server()
    attach(replica, primary)
    wait_for(lambda: repl_info(p).get("min_slaves_good_slaves") == 1)
    assert p.set("k", "v")
    p.config_set("min-replicas-to-write", 0)


def test_partial_resync_after_the_link_drops(start_server):
    primary = start_server()
    replica = start_server()
    p = primary.client()
    r = attach(replica, primary)
    for i in range(100):
        p.set(f"k{i}", i)
    assert p.wait(1, 5000) == 1
    p.client_kill_filter(_type="slave")
    for i in range(100, 200):
        p.set(f"k{i}", i)
    wait_for(lambda: stats(p)["sync_partial_ok"] == 1)
    assert p.wait(1, 5000) == 1
    caught_up(p, r)
    assert r.get("k199") == "199"
    assert stats(p)["sync_full"] == 1


def test_killed_replica_restarts_with_a_partial_resync(start_server):
    primary = start_server()
    p = primary.client()
    for i in range(50):
        p.set(f"k{i}", i)
    replica = start_server("--replicaof", f"127.0.0.1 {primary.port}")
    r = replica.client()
    wait_link_up(r)
    assert p.wait(1, 5000) == 1
    replica.expect_crash = True
    replica.kill()
    for i in range(50, 120):
        p.set(f"k{i}", i)
    replica.expect_crash = False
    replica.start()
    r = replica.client()
    wait_link_up(r)
    assert p.wait(1, 5000) == 1
    caught_up(p, r)
    assert r.dbsize() == 120
    assert stats(p)["sync_partial_ok"] == 1
    assert stats(p)["sync_full"] == 1


def test_replica_stopped_past_the_backlog_needs_a_full_sync(start_server):
    primary = start_server("--repl-backlog-size", "16384", "--repl-timeout", "1")
    replica = start_server()
    p = primary.client()
    r = attach(replica, primary)
    os.kill(replica.pid, signal.SIGSTOP)
    try:
        # No acks: the primary drops it after repl-timeout, then the writes overflow the
        # backlog while it cannot read them.
        wait_for(lambda: repl_info(p)["connected_slaves"] == 0, timeout=15)
        for i in range(100):
            p.set(f"k{i}", "x" * 1000)   # 100 KB: more than the backlog holds
    finally:
        os.kill(replica.pid, signal.SIGCONT)
    wait_for(lambda: stats(p)["sync_full"] == 2, timeout=15)
    wait_link_up(r)
    assert p.wait(1, 5000) == 1
    assert r.get("k99") == "x" * 1000


def test_replica_over_its_output_buffer_limit_is_dropped(start_server):
    """client-output-buffer-limit's replica class: a replica that stops reading is dropped
    once the stream waiting for it passes the hard limit, and comes back with a full sync
    (the 1 MB backlog no longer covers it)."""
    primary = start_server("--client-output-buffer-limit", "replica 1mb 0 0")
    replica = start_server()
    p = primary.client()
    r = attach(replica, primary)
    os.kill(replica.pid, signal.SIGSTOP)
    try:
        value = "x" * 100_000
        for i in range(600):  # 60 MB: more than the loopback socket buffers take
            p.set(f"k{i}", value)
        wait_for(lambda: repl_info(p)["connected_slaves"] == 0)
    finally:
        os.kill(replica.pid, signal.SIGCONT)
    assert stats(p)["client_output_buffer_limit_disconnections"] == 1
    assert "scheduled to be closed ASAP for overcoming of output buffer limits" in primary.log()
    wait_for(lambda: stats(p)["sync_full"] == 2, timeout=30)
    wait_for(lambda: repl_info(r).get("master_link_status") == "up", timeout=30)
    assert p.wait(1, 5000) == 1
    caught_up(p, r)
    assert r.dbsize() == 600


def test_capa_redirect_sends_data_commands_to_the_primary(start_server):
    """Valkey 8.0: on a standalone replica, a client that said CLIENT CAPA redirect gets
    -REDIRECT primary:port for writes, and for reads unless it said READONLY."""
    primary = start_server()
    replica = start_server()
    r = attach(replica, primary)
    p = primary.client()
    p.set("k", "v")
    assert p.wait(1, 5000) == 1  # WAIT counts acks of its own client's writes: the same client
    caught_up(p, r)
    redirect = RespError(f"REDIRECT 127.0.0.1:{primary.port}")
    with replica.raw() as c:
        assert c.call("GET", "k") == b"v"  # without the capability: as before
        assert c.call("SET", "k", "w") == RespError(
            "READONLY You can't write against a read only replica.")
        assert c.call("CLIENT", "CAPA", "nosuch", "REDIRECT") == "OK"
        assert c.call("GET", "k") == redirect
        assert c.call("SET", "k", "w") == redirect
        assert c.call("PING") == "PONG"  # no data: served here
        assert c.call("READONLY") == "OK"
        assert c.call("GET", "k") == b"v"
        assert c.call("SET", "k", "w") == redirect
        assert c.call("MULTI") == "OK"
        assert c.call("SET", "k", "w") == redirect
        assert c.call("EXEC") == RespError(
            "EXECABORT Transaction discarded because of previous errors.")
        assert c.call("READWRITE") == "OK"
        assert c.call("EXISTS", "k") == redirect
        replica.client().replicaof("no", "one")
        assert c.call("SET", "k", "w") == "OK"  # a primary serves everything
    with primary.raw() as c:
        assert c.call("CLIENT", "CAPA", "redirect") == "OK"
        assert c.call("GET", "k") == b"v"
    with replica.raw() as c:
        assert c.call("CLIENT", "CAPA") == RespError(
            "ERR wrong number of arguments for 'client|capa' command")


@pytest.mark.parametrize("impl", ["vireo", pytest.param("redis", marks=need_redis)])
def test_becoming_a_replica_unblocks_blocked_clients(start_server, impl):
    """Clients waiting on keys when the server turns replica get UNBLOCKED and are closed (a
    CLIENT CAPA redirect one: REDIRECT to the new primary, Valkey 8), as in redis-server."""
    primary = start_server()
    server = start_server(binary=REDIS_SERVER if impl == "redis" else None)
    waiters = [server.raw(), server.raw()]
    if impl == "vireo":
        assert waiters[1].call("CLIENT", "CAPA", "redirect") == "OK"
    for w in waiters:
        w.send_command("BLPOP", "q", "0")
    wait_for(lambda: server.client().info("clients")["blocked_clients"] == 2)
    server.client().replicaof("127.0.0.1", primary.port)
    assert waiters[0].read_reply() == RespError(
        "UNBLOCKED force unblock from blocking operation, instance state changed "
        "(master -> replica?)")
    if impl == "vireo":
        assert waiters[1].read_reply() == RespError(f"REDIRECT 127.0.0.1:{primary.port}")
    for w in waiters:
        assert w.is_closed()
    assert server.client().info("clients")["blocked_clients"] == 0


@pytest.mark.parametrize("impl", ["vireo", pytest.param("redis", marks=need_redis)])
def test_scripts_may_not_write_where_clients_may_not(start_server, impl):
    """A script without flags is refused its writes on a read-only replica (READONLY) and on a
    primary short of good replicas (NOREPLICAS), as redis-server 7.0 refuses them; its reads
    go on."""
    binary = REDIS_SERVER if impl == "redis" else None
    primary = start_server(binary=binary)
    replica = start_server(binary=binary)
    r = attach(replica, primary)
    p = primary.client()
    p.set("k", "v")
    assert p.wait(1, 5000) == 1  # WAIT counts acks of its own client's writes: the same client
    caught_up(p, r)
    write = "return redis.call('set', 'k', 'w')"
    with replica.raw() as c:
        refused = c.call("EVAL", write, "0")
        assert isinstance(refused, RespError)
        assert str(refused).startswith("READONLY You can't write against a read only replica. "
                                       "script: ")
        assert c.call("EVAL", "return redis.pcall('set', 'k', 'w')", "0") == RespError(
            "READONLY You can't write against a read only replica.")
        assert c.call("EVAL", "return redis.call('get', 'k')", "0") == b"v"
        assert c.call("CONFIG", "SET", "replica-read-only", "no") == "OK"
        assert c.call("EVAL", write, "0") == "OK"
    lonely = start_server("--min-replicas-to-write", "1", binary=binary)
    with lonely.raw() as c:
        assert str(c.call("EVAL", write, "0")).startswith(
            "NOREPLICAS Not enough good replicas to write. script: ")
        assert c.call("EVAL", "return redis.call('get', 'k')", "0") is None


def test_info_memory_counts_the_backlog_and_the_replicas(start_server):
    primary = start_server("--repl-backlog-size", "2mb")
    p = primary.client()
    assert p.info("memory")["mem_replication_backlog"] == 0  # no backlog before a replica
    replica = start_server()
    attach(replica, primary)
    mem = p.info("memory")
    assert mem["mem_replication_backlog"] == 2 * 1024 * 1024
    assert mem["mem_total_replication_buffers"] >= mem["mem_replication_backlog"]
    assert mem["mem_clients_slaves"] > 0
    assert mem["used_memory_overhead"] >= mem["mem_replication_backlog"]


@pytest.mark.parametrize("impl", ["vireo", pytest.param("redis", marks=need_redis)])
def test_oom_score_adj_follows_the_role(start_server, impl):
    """oom-score-adj writes /proc/<pid>/oom_score_adj: the base score plus the role's value
    (yes/relative), the value itself (absolute), the base again (no)."""
    with open("/proc/self/oom_score_adj") as f:
        base = int(f.read())  # the server inherits the test's
    server = start_server("--oom-score-adj", "yes", "--oom-score-adj-values", "10 200 800",
                          binary=REDIS_SERVER if impl == "redis" else None)

    def score():
        with open(f"/proc/{server.pid}/oom_score_adj") as f:
            return int(f.read())
    r = server.client()
    assert score() == min(base + 10, 1000)
    r.replicaof("127.0.0.1", 1)  # nothing listens there: the role is what counts
    assert score() == min(base + 200, 1000)
    r.config_set("oom-score-adj", "absolute")
    assert score() == 200
    r.config_set("oom-score-adj", "no")
    assert score() == base
    r.config_set("oom-score-adj", "absolute")
    r.replicaof("no", "one")
    assert score() == 10
    r.config_set("oom-score-adj-values", "5 50 500")
    assert score() == 5


def test_chained_replicas_and_promotion(start_server):
    a = start_server(*DEBUG)
    b = start_server(*DEBUG)
    c = start_server(*DEBUG)
    pa = a.client()
    pa.set("x", 1)
    rb = attach(b, a)
    rc = attach(c, b)
    pa.incr("x")
    assert pa.wait(1, 5000) == 1
    wait_for(lambda: rc.get("x") == "2")
    assert repl_info(rb)["connected_slaves"] == 1
    # Promote b: c continues from b without a full sync (b keeps the old ID as replid2).
    old = repl_info(rb)["master_replid"]
    assert rb.replicaof("no", "one") in (True, "OK")
    info = repl_info(rb)
    assert info["role"] == "master" and info["master_replid2"] == old
    rb.set("after", "promotion")
    wait_for(lambda: rc.get("after") == "promotion")
    assert stats(rb)["sync_partial_ok"] >= 1
    assert stats(rb)["sync_full"] == 1


def test_bad_arguments(start_server):
    r = start_server().client()
    for args, text in ((("REPLICAOF", "127.0.0.1", "abc"), "Invalid master port"),
                       (("REPLICAOF", "127.0.0.1", "70000"), "Invalid master port"),
                       (("REPLCONF", "foo", "bar"), "Unrecognized REPLCONF option: foo"),
                       (("REPLCONF", "a"), "syntax error"),
                       (("REPLICAOF", "x"), "wrong number of arguments for 'replicaof' command")):
        with pytest.raises(redis.ResponseError) as e:
            r.execute_command(*args)
        assert str(e.value) == text
    assert r.execute_command("REPLICAOF", "NO", "ONE") in (True, "OK")
    assert r.execute_command("ROLE")[0] == "master"


@need_redis
@pytest.mark.parametrize("diskless", ["yes", "no"])
def test_redis_server_replicates_from_vireo(start_server, diskless):
    primary = start_server("--repl-diskless-sync", diskless)
    populate(primary.client())
    replica = start_server(binary=REDIS_SERVER)
    attach(replica, primary)
    check_stream_and_partial_resync(primary, replica)


@need_redis
def test_valkey_conditional_writes_reach_a_redis_server_replica(start_server):
    """SET ... IFEQ (Valkey 8.1) and DELIFEQ (Valkey 9.0) reach a replica as the plain SET and
    DEL that redis-server 7.0 knows."""
    primary = start_server()
    replica = start_server(binary=REDIS_SERVER)
    p = primary.client()
    r = attach(replica, primary)
    with primary.raw() as c:
        assert c.call("SET", "lock", "me") == "OK"
        assert c.call("SET", "lock", "you", "IFEQ", "nope") is None
        assert c.call("SET", "lock", "you", "IFEQ", "me", "GET", "EX", "100") == b"me"
        assert c.call("SET", "x", "1", "IFEQ", "1") is None
        assert c.call("SET", "gone", "v") == "OK"
        assert c.call("DELIFEQ", "gone", "v") == 1
        assert c.call("DELIFEQ", "lock", "me") == 0
    assert p.wait(1, 5000) == 1
    caught_up(p, r)
    assert r.get("lock") == "you"
    assert 0 < r.ttl("lock") <= 100
    assert r.exists("x", "gone") == 0
    assert repl_info(r)["master_link_status"] == "up"  # nothing it refused broke the link


@need_redis
@pytest.mark.parametrize("diskless", ["yes", "no"])
def test_vireo_replicates_from_redis_server(start_server, diskless):
    primary = start_server("--repl-diskless-sync", diskless,
                           "--repl-diskless-sync-delay", "0", binary=REDIS_SERVER)
    populate(primary.client())
    replica = start_server()
    attach(replica, primary)
    check_stream_and_partial_resync(primary, replica)


def test_scripts_and_functions_replicate_their_effects(start_server):
    primary = start_server()
    replica = start_server()
    p = primary.client()
    r = attach(replica, primary)
    # Effects, not the script: SPOP's random choice must land the same on the replica.
    p.sadd("pool", *range(20))
    p.eval("redis.call('set', KEYS[1], 'v'); return redis.call('spop', KEYS[2])", 2, "k", "pool")
    p.function_load("#!lua name=lib\n"
                    "redis.register_function('bump', function(keys) "
                    "return redis.call('incrby', keys[1], 5) end)")
    p.fcall("bump", 1, "counter")
    assert p.wait(1, 5000) == 1
    caught_up(p, r)
    assert r.get("k") == "v"
    assert r.smembers("pool") == p.smembers("pool")
    assert r.get("counter") == "5"
    assert r.function_list() == p.function_list() != []


def test_replica_aof_starts_over_after_a_full_sync(start_server):
    primary = start_server()
    p = primary.client()
    p.set("from-primary", "1")
    replica = start_server("--appendonly", "yes")
    r = replica.client()
    r.set("old", "data")
    attach(replica, primary)
    p.set("streamed", "2")
    assert p.wait(1, 5000) == 1
    wait_for(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0 and
             r.info("persistence")["aof_enabled"] == 1)
    assert r.replicaof("no", "one") in (True, "OK")
    replica.restart()
    r = replica.client()
    assert sorted(r.keys("*")) == ["from-primary", "streamed"]


@pytest.mark.parametrize("load", ["disabled", "on-empty-db", "swapdb"])
def test_repl_diskless_load_keeps_the_transfer_off_disk(start_server, load):
    primary = start_server(*DEBUG)
    replica = start_server(*DEBUG, "--repl-diskless-load", load)
    p = primary.client()
    populate(p)
    r = replica.client()
    # A replica with data: only swapdb loads from memory.
    r.set("old", "1")
    for round_, had_data in enumerate((True, False)):
        r = attach(replica, primary)
        assert p.wait(1, 5000) == 1
        caught_up(p, r)
        assert r.execute_command("DEBUG", "DIGEST") == p.execute_command("DEBUG", "DIGEST")
        to_memory = load == "swapdb" or (load == "on-empty-db" and not had_data)
        log = replica.log()
        assert log.count("from master with EOF to memory") == (
            (1 if to_memory else 0) + (1 if round_ == 1 and load == "swapdb" else 0))
        # In memory: the transfer never became the replica's dump file.
        assert (replica.dir / "dump.rdb").exists() == (not to_memory)
        # Detached and emptied, the next sync starts from an empty dataset.
        assert r.replicaof("no", "one") in (True, "OK")
        r.flushall()
        if (replica.dir / "dump.rdb").exists():
            (replica.dir / "dump.rdb").unlink()


def serve_bad_full_sync(listener, stop):
    """A fake primary: answers the replica's handshake, then sends a corrupt RDB."""
    listener.settimeout(0.2)
    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except OSError:
            continue
        with conn:
            conn.settimeout(5)
            data = b""
            try:
                while b"PSYNC" not in data.upper():
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    # One reply per command so far: +PONG for PING, +OK for the rest.
                    for line in chunk.split(b"\r\n"):
                        if line.upper() == b"PING":
                            conn.sendall(b"+PONG\r\n")
                        elif line.upper() in (b"REPLCONF", b"AUTH"):
                            conn.sendall(b"+OK\r\n")
                    data += chunk
                if b"PSYNC" in data.upper():
                    bad = b"REDIS0011" + b"\xfe\x00\xfb\x01\x00" + b"\x00\x01k\xff"
                    conn.sendall(b"+FULLRESYNC " + b"a" * 40 + b" 0\r\n$%d\r\n" % len(bad) + bad)
                    time.sleep(0.5)
            except OSError:
                pass


@pytest.mark.parametrize("load", ["disabled", "swapdb"])
def test_failed_full_sync_load_keeps_the_old_data_only_with_swapdb(start_server, load):
    import socket
    import threading
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    stop = threading.Event()
    fake = threading.Thread(target=serve_bad_full_sync, args=(listener, stop), daemon=True)
    fake.start()
    try:
        replica = start_server(*DEBUG, "--repl-diskless-load", load)
        r = replica.client()
        r.set("old", "1")
        r.replicaof("127.0.0.1", listener.getsockname()[1])
        wait_for(lambda: "Failed trying to load the MASTER synchronization DB" in replica.log())
        assert r.replicaof("no", "one") in (True, "OK")
        assert r.get("old") == ("1" if load == "swapdb" else None)
    finally:
        stop.set()
        fake.join()
        listener.close()
