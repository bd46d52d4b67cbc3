"""Numbered databases in cluster mode (Valkey 9.0's cluster-databases): SELECT, MOVE, SWAPDB
and COPY ... DB within that many databases, slots covering every database (redirections,
COUNTKEYSINSLOT / GETKEYSINSLOT per selected database, SLOT-STATS over all of them), and atomic
slot migration moving a slot's keys of every database. With the default (1) cluster mode
answers as Valkey 8."""

import pytest
import redis

from cluster_helpers import client, create, node_id, start_nodes
from conftest import wait_for
from test_atomic_slot_migration import TAG, by_name, job_of, owner_port, wait_field


def err(c, *args):
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command(*args)
    return str(e.value)


def test_one_database_answers_as_valkey_8(start_server):
    nodes = start_nodes(start_server, 1)
    c = client(nodes[0])
    c.execute_command("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
    wait_for(lambda: "cluster_state:ok" in c.execute_command("CLUSTER", "INFO"))
    assert c.config_get("cluster-databases") == {"cluster-databases": "1"}
    assert err(c, "SELECT", "1") == "SELECT is not allowed in cluster mode"
    assert err(c, "SELECT", "100") == "SELECT is not allowed in cluster mode"
    assert err(c, "SELECT", "-1") == "SELECT is not allowed in cluster mode"
    c.set("a", "1")
    assert err(c, "MOVE", "a", "1") == "MOVE is not allowed in cluster mode"
    assert err(c, "MOVE", "a", "x") == "MOVE is not allowed in cluster mode"
    assert err(c, "SWAPDB", "0", "1") == "SWAPDB is not allowed in cluster mode"
    assert err(c, "COPY", "a", "{a}b", "DB", "1") == "DB index is out of range"
    assert c.execute_command("COPY", "a", "{a}b", "DB", "0") == 1
    assert c.info("keyspace") == {"db0": {"keys": 2, "expires": 0, "avg_ttl": 0}}


def test_numbered_databases_across_the_cluster(start_server):
    nodes = start_nodes(start_server, 6, extra=("--cluster-databases", "4",
                                                 "--enable-debug-command", "yes"))
    create(nodes, replicas=1)
    by_port = {n.port: n for n in nodes}
    owner = by_port[owner_port(nodes[0], 16383)]
    primaries = [n for n in nodes if client(n).execute_command("ROLE")[0] == "master"]
    other = next(n for n in primaries if n is not owner)
    c = client(owner)
    with pytest.raises(redis.ResponseError):
        c.config_set("cluster-databases", "8")  # start-up only
    assert err(c, "SELECT", "4") == "DB index is out of range"
    c.execute_command("SELECT", "3")
    c.set(f"{TAG[16383]}:k", "db3")
    c.execute_command("SELECT", "0")
    c.set(f"{TAG[16383]}:k", "db0")
    c.set(f"{TAG[16383]}:j", "db0")
    # COUNTKEYSINSLOT / GETKEYSINSLOT: the selected database.
    assert c.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 2
    c.execute_command("SELECT", "3")
    assert c.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 1
    assert c.execute_command("CLUSTER", "GETKEYSINSLOT", "16383", "10") == [f"{TAG[16383]}:k"]
    assert c.get(f"{TAG[16383]}:k") == "db3"
    # SLOT-STATS counts every database.
    stats = c.execute_command("CLUSTER", "SLOT-STATS", "SLOTSRANGE", "16383", "16383")
    assert stats[0][1][1] == 3
    # A key of another node's slot is redirected in any database.
    o = client(other)
    o.execute_command("SELECT", "2")
    assert err(o, "GET", f"{TAG[16383]}:k").startswith("MOVED 16383")
    # MOVE, SWAPDB, COPY ... DB within the databases.
    assert c.execute_command("MOVE", f"{TAG[16383]}:k", "1") == 1
    assert err(c, "MOVE", f"{TAG[16383]}:k", "4") == "DB index is out of range"
    assert c.execute_command("SWAPDB", "1", "2") is True
    assert c.execute_command("COPY", f"{TAG[16383]}:j", f"{TAG[16383]}:j2", "DB", "2") == 0
    c.execute_command("SELECT", "0")
    assert c.execute_command("COPY", f"{TAG[16383]}:j", f"{TAG[16383]}:j2", "DB", "2") == 1
    c.execute_command("SELECT", "2")
    assert sorted(c.keys("*")) == [f"{TAG[16383]}:j2", f"{TAG[16383]}:k"]
    # A slot cannot be given away by hand while any database holds its keys.
    c.execute_command("SELECT", "0")
    c.delete(f"{TAG[16383]}:k", f"{TAG[16383]}:j")
    assert "still hold keys for this hash slot" in err(
        c, "CLUSTER", "SETSLOT", "16383", "NODE", node_id(other))
    # Atomic migration moves the slot's keys of every database, writes made meanwhile too.
    for n in nodes:
        client(n).execute_command("DEBUG", "SLOTMIGRATION", "PREVENT-PAUSE", "1")
    c.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383", "NODE",
                      node_id(other))
    name = job_of(owner, 16383)["name"]
    wait_field(owner, name, "state", "waiting-to-pause")
    c.execute_command("SELECT", "3")
    c.set(f"{TAG[16383]}:late", "db3")
    for n in nodes:
        client(n).execute_command("DEBUG", "SLOTMIGRATION", "PREVENT-PAUSE", "0")
    wait_field(owner, name, "state", "success")
    assert by_name(other, name)["state"] == "success"
    o.execute_command("SELECT", "2")
    assert sorted(o.keys("*")) == [f"{TAG[16383]}:j2", f"{TAG[16383]}:k"]
    o.execute_command("SELECT", "3")
    assert o.get(f"{TAG[16383]}:late") == "db3"
    # The new owner's replica has them in the same databases.
    replica = next(n for n in nodes if client(n).execute_command("ROLE")[0] == "slave" and
                   client(n).execute_command("ROLE")[2] == other.port)
    rc = client(replica)
    rc.execute_command("SELECT", "3")
    wait_for(lambda: rc.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 1)
    rc.execute_command("SELECT", "2")
    wait_for(lambda: rc.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 2)
    for db in range(4):
        c.execute_command("SELECT", str(db))
        assert c.dbsize() == 0


def test_getkeysinslot_batches_cover_the_slot(start_server):
    """A reshard's loop (GETKEYSINSLOT a batch, move it, ask again) sees every key once, with
    keys added and removed between batches, in any database."""
    nodes = start_nodes(start_server, 1, extra=("--cluster-databases", "2"))
    c = client(nodes[0])
    c.execute_command("CLUSTER", "ADDSLOTSRANGE", "0", "16383")
    wait_for(lambda: "cluster_state:ok" in c.execute_command("CLUSTER", "INFO"))
    for db in ("1", "0"):
        c.execute_command("SELECT", db)
        c.mset({f"{TAG[16383]}:{i}": i for i in range(3000)})
        c.mset({f"{TAG[16382]}:{i}": i for i in range(3000)})  # another slot, interleaved
        seen, added = [], 0
        while True:
            batch = c.execute_command("CLUSTER", "GETKEYSINSLOT", "16383", "17")
            if not batch:
                break
            assert len(batch) == min(17, c.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383"))
            seen += batch
            c.delete(*batch)
            if added < 200:
                c.set(f"{TAG[16383]}:new:{added}", 1)
                added += 1
        assert len(seen) == len(set(seen)) == 3000 + 200
        assert c.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16382") == 3000
        assert c.execute_command("CLUSTER", "GETKEYSINSLOT", "16382", "5000") and \
            len(c.execute_command("CLUSTER", "GETKEYSINSLOT", "16382", "5000")) == 3000


def test_key_by_key_moves_take_every_database(start_server):
    """`vireo-cli --cluster fix` finishing a slot left open by hand moves it key by key
    (MIGRATE); with cluster-databases every database's keys of the slot go, each into its own
    database on the target."""
    from cluster_helpers import VIREO_CLI, run_cli
    nodes = start_nodes(start_server, 3, extra=("--cluster-databases", "3"))
    create(nodes)
    by_port = {n.port: n for n in nodes}
    src = by_port[owner_port(nodes[0], 16383)]
    dst = next(n for n in nodes if n is not src)
    s, d = client(src), client(dst)
    for db in ("0", "2"):
        s.execute_command("SELECT", db)
        s.mset({f"{TAG[16383]}:{db}:{i}": i for i in range(50)})
    s.execute_command("SELECT", "0")
    d.execute_command("CLUSTER", "SETSLOT", "16383", "IMPORTING", node_id(src))
    s.execute_command("CLUSTER", "SETSLOT", "16383", "MIGRATING", node_id(dst))
    out = run_cli(VIREO_CLI, ["fix", f"127.0.0.1:{src.port}", "--cluster-yes"])
    assert out.returncode == 0, out.stdout + out.stderr
    wait_for(lambda: owner_port(src, 16383) == dst.port)
    for db in ("0", "2"):
        d.execute_command("SELECT", db)
        assert d.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 50
        assert d.get(f"{TAG[16383]}:{db}:7") == "7"
        s.execute_command("SELECT", db)
        assert s.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0
