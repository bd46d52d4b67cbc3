"""Cluster mode: creation with redis-cli --cluster create (the seed's scenario, with a
password), redirections, both benchmarks in --cluster mode, redis-py's RedisCluster,
resharding under load, failover with kill -9, rejoining from nodes.conf, CLUSTER errors;
announced ports, cluster-replica-validity-factor, replica migration and its barrier,
cluster-allow-replica-migration. Shared helpers: cluster_helpers.py."""

import socket
import subprocess
import threading
import time

import pytest
import redis

from cluster_helpers import (NODE_TIMEOUT, client, cluster_client, create, my_slots, node_id,
                             node_role, owned, start_nodes, WriteLoad)
from conftest import REDIS_CLI, built_binary, free_port, wait_for

BENCHMARK = built_binary("VIREO_BENCHMARK", "vireo-benchmark")


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
        mine = my_slots(c)
        assert all(c.execute_command("CLUSTER", "KEYSLOT", k) in mine for k in c.keys("*"))


def test_redirections_and_errors(start_server):
    nodes = start_nodes(start_server, 3)
    create(nodes)
    c = client(nodes[0])
    key_elsewhere = next(f"k{i}" for i in range(1000)
                         if c.execute_command("CLUSTER", "COUNTKEYSINSLOT",
                                              c.execute_command("CLUSTER", "KEYSLOT", f"k{i}")) == 0
                         and not owned(c, c.execute_command("CLUSTER", "KEYSLOT", f"k{i}")))
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


def test_non_cluster_server_refuses_cluster_commands(server):
    c = server.client()
    # READONLY and READWRITE work without cluster mode since Valkey 8.0 (CLIENT CAPA redirect).
    for args in (("CLUSTER", "INFO"), ("ASKING",)):
        with pytest.raises(redis.ResponseError) as e:
            c.execute_command(*args)
        assert str(e.value) == "This instance has cluster support disabled"


def test_reshard_under_load_loses_nothing(start_server):
    nodes = start_nodes(start_server, 3)
    create(nodes)
    rc = cluster_client(nodes)
    for i in range(2000):
        rc.set(f"pre:{i}", i)
    with WriteLoad(nodes) as load:
        src = client(nodes[0]).execute_command("CLUSTER", "MYID")
        dst = client(nodes[1]).execute_command("CLUSTER", "MYID")
        out = subprocess.run([REDIS_CLI, "--cluster", "reshard", f"127.0.0.1:{nodes[0].port}",
                              "--cluster-from", src, "--cluster-to", dst,
                              "--cluster-slots", "300", "--cluster-yes"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr
    written = load.written
    assert not load.errors, load.errors[:3]
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
    owner = next(n for n in nodes if node_role(n) == "master" and owned(client(n), slot))
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


# --------------------------------------------------------------------------------------------
# Announced addresses, replica validity, replica migration

class Forwarder:
    """A TCP relay on a free port to target_port (a node reached only through its announced
    port). Counts the connections it relayed."""

    def __init__(self, target_port):
        self.target = target_port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            try:
                up = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                conn.close()
                continue
            for a, b in ((conn, up), (up, conn)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src, dst):
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.sock.close()


def test_announced_port_and_bus_port(start_server):
    nodes = start_nodes(start_server, 3)
    node = nodes[1]
    c = client(node)
    bus = int(c.config_get("cluster-port")["cluster-port"])
    data_fwd, bus_fwd = Forwarder(node.port), Forwarder(bus)
    try:
        # Set at run time: the node advertises them from its next heartbeat.
        c.config_set("cluster-announce-port", data_fwd.port)
        c.config_set("cluster-announce-bus-port", bus_fwd.port)
        mine = next(l for l in c.execute_command("CLUSTER", "NODES").splitlines() if "myself" in l)
        assert mine.split()[1].endswith(f":{data_fwd.port}@{bus_fwd.port}")
        create(nodes)
        my_id = node_id(node)
        other = client(nodes[0])
        line = next(l for l in other.execute_command("CLUSTER", "NODES").splitlines()
                    if l.startswith(my_id))
        assert line.split()[1] == f"127.0.0.1:{data_fwd.port}@{bus_fwd.port}"
        # The peers reach its bus only through the announced port.
        wait_for(lambda: bus_fwd.accepted >= 2)
        slots = [s for s in other.execute_command("CLUSTER", "SLOTS") if s[2][2] == my_id]
        assert slots and slots[0][2][:2] == ["127.0.0.1", data_fwd.port]
        shard = next(s for s in other.execute_command("CLUSTER", "SHARDS")
                     if s[3][0][1] == my_id)
        assert dict(zip(shard[3][0][::2], shard[3][0][1::2]))["port"] == data_fwd.port
        first = slots[0][0]
        key = next(f"k{i}" for i in range(100000)
                   if other.execute_command("CLUSTER", "KEYSLOT", f"k{i}") == first)
        with pytest.raises(redis.ResponseError) as e:
            other.set(key, "v")
        assert str(e.value) == f"MOVED {first} 127.0.0.1:{data_fwd.port}"
        # A cluster client follows the redirection to the announced port.
        rc = cluster_client([nodes[0]])
        rc.set(key, "v")
        assert rc.get(key) == "v" and c.get(key) == "v"
        assert data_fwd.accepted >= 1
        rc.close()
        # Back to the real ports: the peers follow.
        c.config_set("cluster-announce-port", 0)
        c.config_set("cluster-announce-bus-port", 0)
        wait_for(lambda: f"127.0.0.1:{node.port}@{bus} " in other.execute_command(
            "CLUSTER", "NODES"))
    finally:
        data_fwd.close()
        bus_fwd.close()


def replica_and_primary(nodes):
    replica = next(n for n in nodes if node_role(n) == "slave")
    port = client(replica).execute_command("ROLE")[2]
    return replica, next(n for n in nodes if n.port == port)


def test_replica_validity_factor(start_server):
    nodes = start_nodes(start_server, 6)
    create(nodes, replicas=1)
    replica, primary = replica_and_primary(nodes)
    r = client(replica)
    wait_for(lambda: r.info("replication")["master_link_status"] == "up")
    # Allowed: node timeout * 1 + 1 s of ping period, beyond the node timeout itself.
    r.config_set("cluster-replica-validity-factor", 1)
    r.config_set("repl-ping-replica-period", 1)
    # The replication link goes down (the primary now wants a password the replica lacks)
    # while the cluster bus stays up.
    p = primary.client()
    p.config_set("requirepass", "validity")
    p.execute_command("CLIENT", "KILL", "TYPE", "replica")
    wait_for(lambda: r.info("replication")["master_link_status"] == "down")
    time.sleep(3.5)  # the link has now been down longer than the replica may be
    primary.kill()
    wait_for(lambda: "Disconnected from master for longer than allowed" in replica.log(),
             timeout=15)
    assert node_role(replica) == "slave"
    # 0: a replica may always fail over.
    r.config_set("cluster-replica-validity-factor", 0)
    wait_for(lambda: node_role(replica) == "master", timeout=15)
    wait_for(lambda: "cluster_state:ok" in r.execute_command("CLUSTER", "INFO"), timeout=15)


def test_replica_migration_respects_the_barrier(start_server):
    nodes = start_nodes(start_server, 7)
    create(nodes[:6], replicas=1)
    masters = [n for n in nodes[:6] if node_role(n) == "master"]
    rich, poor = masters[0], masters[1]
    extra = nodes[6]
    e = client(extra)
    e.execute_command("CLUSTER", "MEET", "127.0.0.1", nodes[0].port,
                      client(nodes[0]).config_get("cluster-port")["cluster-port"])
    wait_for(lambda: node_id(rich) in e.execute_command("CLUSTER", "NODES"))
    wait_for(lambda: e.execute_command("CLUSTER", "REPLICATE", node_id(rich)) == "OK")
    rich_replicas = [n for n in nodes if n is not rich and node_role(n) == "slave" and
                     client(n).execute_command("ROLE")[2] == rich.port]
    assert len(rich_replicas) == 2
    poor_replica = next(n for n in nodes if node_role(n) == "slave" and
                        client(n).execute_command("ROLE")[2] == poor.port)
    # Every replica must see both of the rich primary's replicas before the orphan appears.
    wait_for(lambda: all(len(client(n).execute_command("CLUSTER", "REPLICAS", node_id(rich)))
                         == 2 for n in nodes if n is not poor_replica))
    for n in nodes:
        client(n).config_set("cluster-migration-barrier", 2)
    poor_id = node_id(poor_replica)
    poor_replica.kill()
    survivors = [n for n in nodes if n is not poor_replica]
    wait_for(lambda: all(f"{poor_id} " in l and "fail" in l.split()[2]
                         for n in survivors
                         for l in client(n).execute_command("CLUSTER", "NODES").splitlines()
                         if l.startswith(poor_id)), timeout=15)
    # Orphaned past the 5 s grace period, but the rich primary would be left with fewer
    # replicas than the barrier: nobody moves.
    time.sleep(6)
    assert [client(n).execute_command("ROLE")[2] for n in rich_replicas] == [rich.port] * 2
    for n in survivors:
        client(n).config_set("cluster-migration-barrier", 1)
    wait_for(lambda: any(client(n).execute_command("ROLE")[2] == poor.port
                         for n in rich_replicas), timeout=15)
    moved = next(n for n in rich_replicas if client(n).execute_command("ROLE")[2] == poor.port)
    assert node_id(moved) == min(node_id(n) for n in rich_replicas)
    assert "Migrating to orphaned master" in moved.log()


def move_empty_slot(src, dst, slot):
    s, d = client(src), client(dst)
    sid, did = node_id(src), node_id(dst)
    d.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", sid)
    s.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", did)
    d.execute_command("CLUSTER", "SETSLOT", slot, "NODE", did)
    return s.execute_command("CLUSTER", "SETSLOT", slot, "NODE", did)


def test_allow_replica_migration_when_the_last_slot_goes(start_server):
    nodes = start_nodes(start_server, 4)
    create(nodes[:3])
    extra, owner = nodes[3], nodes[0]
    e = client(extra)
    e.execute_command("CLUSTER", "MEET", "127.0.0.1", owner.port,
                      client(owner).config_get("cluster-port")["cluster-port"])
    wait_for(lambda: all(node_id(extra) in client(n).execute_command("CLUSTER", "NODES")
                         for n in nodes[:3]))
    wait_for(lambda: len(e.execute_command("CLUSTER", "NODES").splitlines()) == 4)
    # no: a primary that gives its last slot away stays an empty primary.
    e.config_set("cluster-allow-replica-migration", "no")
    assert move_empty_slot(owner, extra, 0) == "OK"
    assert move_empty_slot(extra, owner, 0) == "OK"
    assert node_role(extra) == "master"
    # yes (the default): it follows the node that took its last slot.
    e.config_set("cluster-allow-replica-migration", "yes")
    assert move_empty_slot(owner, extra, 1) == "OK"
    assert move_empty_slot(extra, owner, 1) == "OK"
    wait_for(lambda: e.execute_command("ROLE")[:3] == ["slave", "127.0.0.1", owner.port])
    # SETSLOT is for primaries only.
    with pytest.raises(redis.ResponseError) as err:
        e.execute_command("CLUSTER", "SETSLOT", 1, "STABLE")
    assert str(err.value) == "Please use SETSLOT only with masters."


def test_cluster_links_fields(start_server):
    nodes = start_nodes(start_server, 3)
    before_ms = int(time.time() * 1000)
    create(nodes)
    c = client(nodes[0])
    others = {node_id(n) for n in nodes[1:]}
    # Both directions to every other node, once the handshakes are over.
    wait_for(lambda: len(c.execute_command("CLUSTER", "LINKS")) == 4)
    seen = set()
    for link in c.execute_command("CLUSTER", "LINKS"):
        # RESP2 flattens each link's map into a list: the field order is redis 7.0's.
        fields = dict(zip(link[::2], link[1::2]))
        assert link[::2] == ["direction", "node", "create-time", "events",
                             "send-buffer-allocated", "send-buffer-used"]
        assert fields["node"] in others
        seen.add((fields["direction"], fields["node"]))
        assert before_ms - 1000 <= fields["create-time"] <= int(time.time() * 1000) + 1000
        # An idle link waits for reads only and holds no queued output, as redis reports it.
        assert fields["events"] in ("r", "rw")
        assert 0 <= fields["send-buffer-used"] <= max(fields["send-buffer-allocated"], 0)
    assert seen == {(d, n) for d in ("to", "from") for n in others}
    with pytest.raises(redis.ResponseError, match="wrong number of arguments"):
        c.execute_command("CLUSTER", "LINKS", "extra")
