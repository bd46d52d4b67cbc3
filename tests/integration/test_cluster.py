"""Cluster mode: creation with redis-cli --cluster create (the seed's scenario, with a
password), redirections, both benchmarks in --cluster mode, redis-py's RedisCluster,
resharding under load, failover with kill -9, rejoining from nodes.conf, CLUSTER errors."""

import os
import subprocess
import threading
import time

import pytest
import redis
from redis.cluster import ClusterNode, RedisCluster

from conftest import REDIS_CLI, free_port, wait_for

BENCHMARK = os.environ.get("VIREO_BENCHMARK") or str(
    __import__("pathlib").Path(__file__).resolve().parents[2] / "build" / "vireo-benchmark")
NODE_TIMEOUT = 1000


def start_nodes(start_server, count, password=None):
    nodes = []
    for _ in range(count):
        args = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(NODE_TIMEOUT), "--cluster-port", str(free_port())]
        if password:
            args += ["--requirepass", password, "--masterauth", password]
        nodes.append(start_server(*args))
    return nodes


def client(node, password=None):
    return node.client(password=password) if password else node.client()


def create(nodes, replicas=0, password=None):
    cmd = [REDIS_CLI, "--cluster", "create"] + [f"127.0.0.1:{n.port}" for n in nodes]
    cmd += ["--cluster-replicas", str(replicas), "--cluster-yes"]
    if password:
        cmd += ["-a", password, "--no-auth-warning"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "[OK] All 16384 slots covered." in out.stdout
    for n in nodes:
        c = client(n, password)
        wait_for(lambda: c.execute_command("CLUSTER", "INFO").find("cluster_state:ok") >= 0)
    return out.stdout


def cluster_client(nodes, password=None):
    return RedisCluster(startup_nodes=[ClusterNode("127.0.0.1", n.port) for n in nodes],
                        password=password, decode_responses=True)


def node_role(node, password=None):
    return client(node, password).execute_command("ROLE")[0]


def test_seed_scenario_three_primaries_with_a_password(start_server):
    pw = "s3cret"
    nodes = start_nodes(start_server, 3, password=pw)
    create(nodes, password=pw)
    # Both load generators in cluster mode, with the password.
    for tool in (BENCHMARK, "/usr/bin/redis-benchmark"):
        out = subprocess.run([tool, "--cluster", "-h", "127.0.0.1", "-p", str(nodes[0].port),
                              "-t", "set,get", "-P", "16", "-q", "-a", pw, "-n", "20000",
                              "-r", "1000"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "SET:" in out.stdout and "GET:" in out.stdout
    # Each tool names its keys its own way: at most -r keys each.
    total = sum(client(n, pw).dbsize() for n in nodes)
    assert 0 < total <= 3000
    rc = cluster_client(nodes, pw)
    for i in range(200):
        rc.set(f"user:{i}", i)
    assert [rc.get(f"user:{i}") for i in range(200)] == [str(i) for i in range(200)]
    # Every node holds only keys of its own slots.
    for n in nodes:
        c = client(n, pw)
        mine = set()
        for line in c.execute_command("CLUSTER", "NODES").splitlines():
            if "myself" in line:
                for r in line.split()[8:]:
                    a, _, b = r.partition("-")
                    mine.update(range(int(a), int(b or a) + 1))
        assert all(c.execute_command("CLUSTER", "KEYSLOT", k) in mine for k in c.keys("*"))


def test_redirections_and_errors(start_server):
    nodes = start_nodes(start_server, 3)
    create(nodes)
    c = client(nodes[0])
    key_elsewhere = next(f"k{i}" for i in range(1000)
                         if c.execute_command("CLUSTER", "COUNTKEYSINSLOT",
                                              c.execute_command("CLUSTER", "KEYSLOT", f"k{i}")) == 0
                         and not _owned(c, c.execute_command("CLUSTER", "KEYSLOT", f"k{i}")))
    slot = c.execute_command("CLUSTER", "KEYSLOT", key_elsewhere)
    with pytest.raises(redis.ResponseError) as e:
        c.set(key_elsewhere, "v")
    assert str(e.value).startswith(f"MOVED {slot} 127.0.0.1:")
    with pytest.raises(redis.ResponseError) as e:
        c.mset({"a": 1, "b": 2})
    assert str(e.value) == "CROSSSLOT Keys in request don't hash to the same slot"
    # Hash tags keep keys together.
    rc = cluster_client(nodes)
    assert rc.mset_nonatomic({"{t}a": 1, "{t}b": 2})
    assert c.execute_command("CLUSTER", "KEYSLOT", "{t}a") == c.execute_command(
        "CLUSTER", "KEYSLOT", "{t}b")
    with pytest.raises(redis.ResponseError) as e:
        c.select(1)
    assert str(e.value) == "SELECT is not allowed in cluster mode"
    assert c.execute_command("CLUSTER", "KEYSLOT", "foo") == 12182
    assert c.execute_command("CLUSTER", "KEYSLOT", "{user1000}.following") == 3443
    for args, text in ((("CLUSTER", "ADDSLOTS", "0"), "Slot 0 is already busy"),
                       (("CLUSTER", "ADDSLOTS", "99999"), "Invalid or out of range slot"),
                       (("CLUSTER", "COUNTKEYSINSLOT", "x"), "Invalid slot"),
                       (("CLUSTER", "FORGET", "abc"), "Unknown node abc"),
                       (("CLUSTER", "SET-CONFIG-EPOCH", "5"),
                        "The user can assign a config epoch only when the node does not know "
                        "any other node."),
                       (("CLUSTER", "FAILOVER"), "You should send CLUSTER FAILOVER to a replica"),
                       (("CLUSTER", "NOPE"), "unknown subcommand 'NOPE'. Try CLUSTER HELP.")):
        with pytest.raises(redis.ResponseError) as e:
            c.execute_command(*args)
        assert str(e.value) == text
    info = c.execute_command("CLUSTER", "INFO")
    assert "cluster_known_nodes:3" in info and "cluster_size:3" in info
    shards = c.execute_command("CLUSTER", "SHARDS")
    assert len(shards) == 3
    slots = c.execute_command("CLUSTER", "SLOTS")
    assert sum(s[1] - s[0] + 1 for s in slots) == 16384


def _owned(c, slot):
    for line in c.execute_command("CLUSTER", "NODES").splitlines():
        if "myself" not in line:
            continue
        for r in line.split()[8:]:
            a, _, b = r.partition("-")
            if int(a) <= slot <= int(b or a):
                return True
    return False


def test_non_cluster_server_refuses_cluster_commands(server):
    c = server.client()
    for args in (("CLUSTER", "INFO"), ("ASKING",), ("READONLY",)):
        with pytest.raises(redis.ResponseError) as e:
            c.execute_command(*args)
        assert str(e.value) == "This instance has cluster support disabled"


def test_reshard_under_load_loses_nothing(start_server):
    nodes = start_nodes(start_server, 3)
    create(nodes)
    rc = cluster_client(nodes)
    written = {}
    stop = threading.Event()
    errors = []

    def load():
        w = cluster_client(nodes)
        i = 0
        while not stop.is_set():
            try:
                w.set(f"key:{i}", i)
                written[f"key:{i}"] = str(i)
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(repr(exc))
            i += 1

    for i in range(2000):
        rc.set(f"pre:{i}", i)
    t = threading.Thread(target=load)
    t.start()
    try:
        src = client(nodes[0]).execute_command("CLUSTER", "MYID")
        dst = client(nodes[1]).execute_command("CLUSTER", "MYID")
        out = subprocess.run([REDIS_CLI, "--cluster", "reshard", f"127.0.0.1:{nodes[0].port}",
                              "--cluster-from", src, "--cluster-to", dst,
                              "--cluster-slots", "300", "--cluster-yes"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    finally:
        stop.set()
        t.join()
    assert not errors, errors[:3]
    check = subprocess.run([REDIS_CLI, "--cluster", "check", f"127.0.0.1:{nodes[0].port}"],
                           capture_output=True, text=True, timeout=60)
    assert "[OK] All 16384 slots covered." in check.stdout
    assert "[WARNING]" not in check.stdout, check.stdout
    rc = cluster_client(nodes)
    assert all(rc.get(f"pre:{i}") == str(i) for i in range(2000))
    assert all(rc.get(k) == v for k, v in written.items())
    assert sum(client(n).dbsize() for n in nodes) == 2000 + len(written)


def test_failover_after_kill_and_rejoin(start_server):
    nodes = start_nodes(start_server, 6)
    create(nodes, replicas=1)
    rc = cluster_client(nodes)
    for i in range(300):
        rc.set(f"k{i}", i)
    # Acknowledged by a replica before the crash: must survive it.
    for n in nodes:
        c = client(n)
        if c.execute_command("ROLE")[0] == "master":
            c.execute_command("WAIT", 1, 5000)
    victim = next(n for n in nodes if node_role(n) == "master")
    victim_id = client(victim).execute_command("CLUSTER", "MYID")
    victim.expect_crash = True
    victim.kill()
    others = [n for n in nodes if n is not victim]

    def promoted():
        # Every survivor sees three healthy primaries serving slots, and the cluster ok.
        for n in others:
            c = client(n)
            lines = [l.split() for l in c.execute_command("CLUSTER", "NODES").splitlines()]
            serving = [w for w in lines if "master" in w[2] and "fail" not in w[2] and len(w) > 8]
            gone = [w for w in lines if w[0] == victim_id and "fail" in w[2] and len(w) == 8]
            if len(serving) != 3 or not gone or \
                    "cluster_state:ok" not in c.execute_command("CLUSTER", "INFO"):
                return False
        return True

    wait_for(promoted, timeout=NODE_TIMEOUT / 1000 * 10)
    rc = cluster_client(others)
    assert [rc.get(f"k{i}") for i in range(300)] == [str(i) for i in range(300)]
    # The old primary comes back as a replica of its successor.
    victim.expect_crash = False
    victim.start()
    c = client(victim)
    assert c.execute_command("CLUSTER", "MYID") == victim_id  # from nodes.conf
    wait_for(lambda: node_role(victim) == "slave", timeout=10)
    wait_for(lambda: c.info("replication").get("master_link_status") == "up", timeout=10)


def test_manual_failover(start_server):
    nodes = start_nodes(start_server, 6)
    create(nodes, replicas=1)
    replica = next(n for n in nodes if node_role(n) == "slave")
    c = client(replica)
    master_port = c.execute_command("ROLE")[2]
    master = next(n for n in nodes if n.port == master_port)
    my_id = c.execute_command("CLUSTER", "MYID")
    master_id = client(master).execute_command("CLUSTER", "MYID")
    # The primary must know it as its replica before it can hand over.
    wait_for(lambda: any(my_id in line for line in
                         client(master).execute_command("CLUSTER", "REPLICAS", master_id)))
    assert c.execute_command("CLUSTER", "FAILOVER") == "OK"
    wait_for(lambda: node_role(replica) == "master", timeout=10)
    wait_for(lambda: "cluster_state:ok" in c.execute_command("CLUSTER", "INFO"))
    # The old primary follows it.
    wait_for(lambda: node_role(master) == "slave", timeout=10)


def test_publish_reaches_every_node(start_server):
    nodes = start_nodes(start_server, 3)
    create(nodes)
    sub = client(nodes[2]).pubsub()
    sub.subscribe("news")
    wait_for(lambda: sub.get_message(timeout=0.1) is not None)
    client(nodes[0]).publish("news", "hello")

    def got():
        m = sub.get_message(timeout=0.1)
        return m if m and m["type"] == "message" else None

    assert wait_for(got)["data"] == "hello"
    sub.close()


def test_spublish_reaches_the_shards_replica(start_server):
    nodes = start_nodes(start_server, 6)
    create(nodes, replicas=1)
    channel = "orders"
    slot = client(nodes[0]).execute_command("CLUSTER", "KEYSLOT", channel)
    owner = next(n for n in nodes if node_role(n) == "master" and _owned(client(n), slot))
    replica = next(n for n in nodes if node_role(n) == "slave" and
                   client(n).execute_command("ROLE")[2] == owner.port)
    # redis-py 4.3 does not know shard channels: a raw connection instead.
    with replica.raw() as sub:
        assert sub.call("SSUBSCRIBE", channel) == [b"ssubscribe", channel.encode(), 1]
        client(owner).execute_command("SPUBLISH", channel, "one")
        assert sub.read_reply() == [b"smessage", channel.encode(), b"one"]


def test_migrate_errors_and_a_move(start_server):
    """MIGRATE's replies as redis-server 7.0 gives them, and a key moved with REPLACE."""
    source = start_server()
    target = start_server()
    s = source.client()
    s.set("k", "v", ex=1000)
    closed = free_port()
    for args, text in (((closed, "k", 0, 100, "bogus"), "syntax error"),
                       ((closed, "k", 0, 100, "keys", "k"),
                        "When using MIGRATE KEYS option, the key argument must be set to the "
                        "empty string"),
                       ((closed, "k", "x", 100), "value is not an integer or out of range"),
                       ((closed, "k", 0, 100), "IOERR error or timeout writing to target instance"),
                       (("x", "k", 0, 100), "IOERR error or timeout writing to target instance")):
        with pytest.raises(redis.ResponseError) as e:
            s.execute_command("MIGRATE", "127.0.0.1", *args)
        assert str(e.value) == text
    assert s.execute_command("MIGRATE", "127.0.0.1", target.port, "nokey", 0, 1000) == "NOKEY"
    target.client().set("k", "old")
    with pytest.raises(redis.ResponseError) as e:
        s.execute_command("MIGRATE", "127.0.0.1", target.port, "k", 0, 1000)
    assert "BUSYKEY" in str(e.value)
    assert s.execute_command("MIGRATE", "127.0.0.1", target.port, "k", 0, 1000, "REPLACE") == "OK"
    assert s.exists("k") == 0
    assert target.client().get("k") == "v" and 0 < target.client().ttl("k") <= 1000
    s.set("a", 1)
    s.set("b", 2)
    assert s.execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 1000, "COPY",
                             "KEYS", "a", "b", "c") == "OK"
    assert s.mget("a", "b") == ["1", "2"] and target.client().mget("a", "b") == ["1", "2"]
