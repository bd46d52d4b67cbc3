"""vireo-cli --cluster against a Vireo cluster: create (with and without a password, with
replicas), check, info, call, fix (an open slot left by an interrupted move), reshard under a
write load, rebalance, add-node (as a master and as a replica), del-node."""

from cluster_helpers import (VIREO_CLI, client, cluster_client, create, node_id, node_role,
                             run_cli, start_nodes, wait_state_ok, WriteLoad)
from conftest import REDIS_CLI, valkey_words, wait_for

OK_COVERED = "[OK] All 16384 slots covered."
OK_AGREE = "[OK] All nodes agree about slots configuration."


def vcli(args, password=None, **kw):
    return run_cli(VIREO_CLI, args, password, **kw)


def check_clean(node, password=None):
    out = vcli(["check", f"127.0.0.1:{node.port}"], password)
    assert out.returncode == 0, out.stdout + out.stderr
    assert OK_COVERED in out.stdout and OK_AGREE in out.stdout, out.stdout
    assert "[WARNING]" not in out.stdout and "[ERR]" not in out.stdout, out.stdout
    return out.stdout


def slot_counts(nodes, password=None):
    """Slots served by each primary, as the first node's CLUSTER SHARDS says."""
    counts = {}
    for shard in client(nodes[0], password).execute_command("CLUSTER", "SHARDS"):
        shard = dict(zip(shard[::2], shard[1::2])) if isinstance(shard, list) else shard
        ranges = shard["slots"]
        primary = next(dict(zip(n[::2], n[1::2])) if isinstance(n, list) else n
                       for n in shard["nodes"]
                       if (dict(zip(n[::2], n[1::2])) if isinstance(n, list) else n)["role"]
                       == "master")
        counts[primary["port"]] = sum(b - a + 1 for a, b in zip(ranges[::2], ranges[1::2]))
    return counts


def test_create_with_password_and_replicas_check_info_call(start_server):
    pw = "s3cret"
    nodes = start_nodes(start_server, 6, password=pw)
    out = create(nodes, replicas=1, password=pw, cli=VIREO_CLI)
    assert "Adding replica" in out and OK_AGREE in out
    roles = sorted(node_role(n, pw) for n in nodes)
    assert roles == ["master"] * 3 + ["slave"] * 3
    wait_for(lambda: all(client(n, pw).info("replication").get("master_link_status", "up")
                         == "up" for n in nodes))
    rc = cluster_client(nodes, pw)
    for i in range(100):
        rc.set(f"k{i}", i)
    check_clean(nodes[0], pw)
    # Replicas get the writes asynchronously: a diskless sync's replica reports its link up
    # before its primary has seen the transfer end and streams the writes held for it.
    wait_for(lambda: sum(client(n, pw).dbsize() for n in nodes) == 200)
    info = vcli(["info", f"127.0.0.1:{nodes[1].port}"], pw)
    assert info.returncode == 0
    assert "[OK] 100 keys in 3 primaries." in info.stdout, info.stdout
    assert info.stdout.count("slots | 1 replicas.") == 3, info.stdout
    call = vcli(["call", f"127.0.0.1:{nodes[0].port}", "DBSIZE"], pw)
    assert call.returncode == 0
    lines = [l for l in call.stdout.splitlines() if l.startswith("127.0.0.1:")]
    assert len(lines) == 6 and sum(int(l.rsplit(" ", 1)[1]) for l in lines) == 200
    only = vcli(["call", f"127.0.0.1:{nodes[0].port}", "ROLE", "--cluster-only-masters"], pw)
    assert only.stdout.count("127.0.0.1:") == 3 and "slave" not in only.stdout, only.stdout
    # Byte for byte what redis-cli prints about the same cluster, in valkey-cli 8.0's words.
    for args in (["check", f"127.0.0.1:{nodes[2].port}"], ["info", f"127.0.0.1:{nodes[3].port}"],
                 ["call", f"127.0.0.1:{nodes[0].port}", "GET", "k1"]):
        ours, theirs = vcli(args, pw), run_cli(REDIS_CLI, args, pw)
        assert (ours.returncode, ours.stdout, ours.stderr) == \
            (theirs.returncode, valkey_words(theirs.stdout), theirs.stderr), args


def test_reshard_under_load_then_rebalance(start_server):
    nodes = start_nodes(start_server, 3)
    create(nodes, cli=VIREO_CLI)
    rc = cluster_client(nodes)
    for i in range(1000):
        rc.set(f"pre:{i}", i)
    with WriteLoad(nodes) as load:
        out = vcli(["reshard", f"127.0.0.1:{nodes[0].port}", "--cluster-from",
                    node_id(nodes[0]), "--cluster-to", node_id(nodes[1]),
                    "--cluster-slots", "150", "--cluster-yes"])
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr
        assert "Moving slot 0 from 127.0.0.1:" in out.stdout
    written = load.written
    assert not load.errors, load.errors[:3]
    assert written
    check_clean(nodes[2])
    counts = slot_counts(nodes)
    assert counts[nodes[0].port] == 5461 - 150 and counts[nodes[1].port] == 5462 + 150
    out = vcli(["rebalance", f"127.0.0.1:{nodes[2].port}"])
    assert out.returncode == 0, out.stdout + out.stderr
    assert ">>> Rebalancing across 3 nodes." in out.stdout, out.stdout
    wait_for(lambda: sorted(slot_counts(nodes).values()) == [5461, 5461, 5462])
    check_clean(nodes[0])
    rc = cluster_client(nodes)
    assert all(rc.get(f"pre:{i}") == str(i) for i in range(1000))
    assert all(rc.get(k) == v for k, v in written.items())
    assert sum(client(n).dbsize() for n in nodes) == 1000 + len(written)
    out = vcli(["rebalance", f"127.0.0.1:{nodes[2].port}"])
    assert "*** No rebalancing needed!" in out.stdout


def slot_keys(c, slot, count):
    """count keys that hash to slot (hash tags over a few candidate tags)."""
    tag = next(f"t{i}" for i in range(100000) if c.execute_command("CLUSTER", "KEYSLOT",
                                                                    f"t{i}") == slot)
    return [f"{{{tag}}}:{i}" for i in range(count)]


def test_fix_interrupted_migrations(start_server):
    nodes = start_nodes(start_server, 3)
    create(nodes, cli=VIREO_CLI)
    rc = cluster_client(nodes)
    src, dst = client(nodes[0]), client(nodes[1])
    src_id, dst_id = node_id(nodes[0]), node_id(nodes[1])
    # The first primary serves slots 0-5460. Slot 100: cut short once the slot was opened on
    # both sides; slot 200: cut short after one of its keys moved.
    keys = {100: slot_keys(src, 100, 5), 200: slot_keys(src, 200, 5)}
    for ks in keys.values():
        for k in ks:
            rc.set(k, k)
    for slot in keys:
        assert dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", src_id) == "OK"
        assert src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id) == "OK"
    assert src.execute_command("MIGRATE", "127.0.0.1", nodes[1].port, keys[200][0], 0,
                               5000) == "OK"
    out = vcli(["check", f"127.0.0.1:{nodes[0].port}"])
    assert out.returncode == 1
    assert f"[WARNING] Node 127.0.0.1:{nodes[0].port} has slots in migrating state 100,200." \
        in out.stdout, out.stdout
    assert f"[WARNING] Node 127.0.0.1:{nodes[1].port} has slots in importing state 100,200." \
        in out.stdout, out.stdout
    assert "[WARNING] The following slots are open: 100,200." in out.stdout
    out = vcli(["fix", f"127.0.0.1:{nodes[2].port}"])
    assert out.returncode == 0, out.stdout + out.stderr
    # The untouched slot goes on to the target; the other comes back to its owner (which
    # holds most of its keys), as redis-cli decides.
    assert f"Case 1: Moving slot 100 from 127.0.0.1:{nodes[0].port} to 127.0.0.1:" \
        f"{nodes[1].port}" in out.stdout, out.stdout
    assert f"*** Configuring 127.0.0.1:{nodes[0].port} as the slot owner" in out.stdout
    assert f"Case 2: Moving all the 200 slot keys to its owner 127.0.0.1:{nodes[0].port}" \
        in out.stdout, out.stdout
    wait_for(lambda: "[WARNING]" not in vcli(["check", f"127.0.0.1:{nodes[0].port}"]).stdout)
    check_clean(nodes[0])
    assert dst.execute_command("CLUSTER", "COUNTKEYSINSLOT", 100) == 5
    assert src.execute_command("CLUSTER", "COUNTKEYSINSLOT", 200) == 5
    rc = cluster_client(nodes)
    assert [rc.get(k) for k in keys[100] + keys[200]] == keys[100] + keys[200]


def test_add_node_as_master_and_replica_then_del_node(start_server):
    nodes = start_nodes(start_server, 5)
    first, new_master, new_replica = nodes[:3], nodes[3], nodes[4]
    create(first, cli=VIREO_CLI)
    entry = f"127.0.0.1:{first[0].port}"
    out = vcli(["add-node", f"127.0.0.1:{new_master.port}", entry])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "[OK] New node added correctly." in out.stdout
    master_id = node_id(new_master)
    # The entry node hears of it with the MEET the new node sends, then it learns the rest.
    wait_for(lambda: master_id in client(first[0]).execute_command("CLUSTER", "NODES"))
    wait_for(lambda: "[ERR]" not in vcli(["check", entry]).stdout)
    out = vcli(["add-node", f"127.0.0.1:{new_replica.port}", entry, "--cluster-slave",
                "--cluster-master-id", master_id])
    assert out.returncode == 0, out.stdout + out.stderr
    assert f">>> Configure node as replica of 127.0.0.1:{new_master.port}." in out.stdout
    wait_for(lambda: client(new_replica).execute_command("ROLE")[1:3] ==
             ["127.0.0.1", new_master.port])
    wait_for(lambda: "[WARNING]" not in vcli(["check", entry]).stdout)
    text = check_clean(first[1])
    assert "M: " + master_id in text and "0 slots | 1 replicas." in text, text
    # The new primary gets slots from all the others.
    out = vcli(["reshard", entry, "--cluster-from", "all", "--cluster-to", master_id,
                "--cluster-slots", "30", "--cluster-yes"])
    assert out.returncode == 0, out.stdout + out.stderr
    # redis-cli's plan rounds the biggest source up and the others down: 29 to 31 slots.
    moved = sum(line.startswith("Moving slot ") for line in out.stdout.splitlines())
    assert 29 <= moved <= 31, out.stdout
    wait_for(lambda: slot_counts(first).get(new_master.port) == moved)
    rc = cluster_client(first)
    rc.set("after", "rebalance")
    # del-node the replica, then refuse to delete a primary that still serves slots.
    out = vcli(["del-node", entry, node_id(new_replica)])
    assert out.returncode == 0, out.stdout + out.stderr
    assert ">>> Sending CLUSTER RESET SOFT to the deleted node." in out.stdout
    wait_for(lambda: all(node_id(new_replica) not in client(n).execute_command("CLUSTER", "NODES")
                         for n in first + [new_master]))
    out = vcli(["del-node", entry, master_id])
    assert out.returncode == 1
    assert f"[ERR] Node 127.0.0.1:{new_master.port} is not empty!" in out.stdout
    # The deleted node stays forgotten (gossip must not bring it back).
    wait_state_ok(first)
    text = check_clean(first[2])
    assert node_id(new_replica) not in text
    assert rc.get("after") == "rebalance"
