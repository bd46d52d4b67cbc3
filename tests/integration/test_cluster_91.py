"""Valkey 9.1's cluster additions (issue 28, "Seeing the slots"): CLUSTERSCAN over three
primaries (coverage with COUNT / MATCH / TYPE / SLOT, cursors carried from node to node by
their MOVED redirects, keys added and removed mid-scan, slots moving mid-scan with atomic
slot migration, replicas with READONLY, errors), CLUSTER KEYSLOT without cluster mode, and
the availability-zone field of CLUSTER SHARDS and CLUSTER SLOTS carried by the cluster bus."""

import pytest
import redis

from cluster_helpers import client, create, node_id, start_nodes
from conftest import wait_for

# Valkey 9.1's documentation: {06S} is slot 0's tag, {Qi} slot 1's.
TAG0, TAG1 = "06S", "Qi"


def crc16(data):
    crc = 0
    for byte in data.encode():
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def cursor_slot(cursor):
    tag = cursor[cursor.index("{") + 1:cursor.index("}")]
    return crc16(tag) & 16383


def error_of(c, *args):
    """The error text (redis-py drops a leading "ERR ")."""
    with pytest.raises(redis.ResponseError) as e:
        c.execute_command(*args)
    return str(e.value)


class Scanner:
    """Drives CLUSTERSCAN as a cluster client would: each call goes to the node the last
    answer pointed at, and a MOVED redirect is followed with the same cursor."""

    def __init__(self, nodes):
        self.by_port = {n.port: client(n) for n in nodes}
        self.current = next(iter(self.by_port.values()))
        self.calls = self.redirects = 0

    def step(self, cursor, *opts):
        for _ in range(10):
            self.calls += 1
            try:
                return self.current.execute_command("CLUSTERSCAN", cursor, *opts)
            except redis.ResponseError as e:
                if not str(e).startswith("MOVED "):
                    raise
                self.redirects += 1
                self.current = self.by_port[int(str(e).rsplit(":", 1)[1])]
        raise AssertionError("redirected in circles")

    def scan(self, *opts, cursor="0", on_step=None):
        keys = []
        while True:
            cursor, batch = self.step(cursor, *opts)
            keys += batch
            if on_step is not None:
                on_step(cursor)
            if cursor == "0":
                return keys


@pytest.fixture
def three(start_server):
    nodes = start_nodes(start_server, 3)
    create(nodes)
    return nodes


def owner_of(nodes, slot):
    for n in nodes:
        for first, last, primary, *_ in client(n).execute_command("CLUSTER", "SLOTS"):
            if first <= slot <= last:
                return next(m for m in nodes if m.port == primary[1])
    raise AssertionError(f"slot {slot} unassigned")


def fill(nodes, keys):
    rc = redis.RedisCluster(startup_nodes=[redis.cluster.ClusterNode("127.0.0.1", n.port)
                                           for n in nodes], decode_responses=True)
    for k, kind in keys.items():
        if kind == "string":
            rc.set(k, "v")
        elif kind == "hash":
            rc.hset(k, "f", "v")
        elif kind == "list":
            rc.rpush(k, "a")
        else:
            rc.sadd(k, "m")
    rc.close()


def test_clusterscan_covers_the_cluster(three):
    nodes = three
    kinds = ("string", "hash", "list", "set")
    keys = {f"user:{i}": kinds[i % 4] for i in range(1500)}
    keys.update({f"{{{TAG1}}}:item:{i}": "string" for i in range(40)})
    fill(nodes, keys)
    c = client(nodes[0])
    # The first call only names slot 0, on any node.
    for n in nodes:
        assert client(n).execute_command("CLUSTERSCAN", "0") == [f"0-{{{TAG0}}}-0", []]
    for count in ((), ("COUNT", "3"), ("COUNT", "1000")):
        s = Scanner(nodes)
        found = s.scan(*count)
        assert set(found) == set(keys), count
        assert s.redirects >= 2  # the cursor went from node to node
    # MATCH and TYPE filter what a walk returns.
    assert set(Scanner(nodes).scan("MATCH", "user:1*")) == {k for k in keys if k.startswith("user:1")}
    hashes = Scanner(nodes).scan("TYPE", "hash", "COUNT", "50")
    assert set(hashes) == {k for k, t in keys.items() if t == "hash"}
    both = Scanner(nodes).scan("MATCH", "user:2*", "TYPE", "list")
    assert set(both) == {k for k, t in keys.items() if t == "list" and k.startswith("user:2")}
    # A pattern naming one slot goes straight to it and stops after it.
    assert c.execute_command("CLUSTERSCAN", "0", "MATCH", f"{{{TAG1}}}:*") == [f"0-{{{TAG1}}}-0", []]
    assert c.execute_command("CLUSTERSCAN", f"0-{{{TAG0}}}-0", "MATCH", f"{{{TAG1}}}:*") == [
        f"0-{{{TAG1}}}-0", []]
    assert c.execute_command("CLUSTERSCAN", f"0-{{{TAG1}}}-0", "MATCH", f"{{{TAG0}}}:*") == ["0", []]
    s = Scanner(nodes)
    tagged = s.scan("MATCH", f"{{{TAG1}}}:*", "COUNT", "7")
    assert set(tagged) == {k for k in keys if k.startswith(f"{{{TAG1}}}")}
    assert s.calls < 40
    # SLOT keeps the scan in one slot and ends it there.
    slot1 = Scanner(nodes).scan("SLOT", "1", "COUNT", "5")
    assert set(slot1) == {k for k in keys if k.startswith(f"{{{TAG1}}}")}
    assert c.execute_command("CLUSTERSCAN", "0", "SLOT", "1") == [f"0-{{{TAG1}}}-0", []]
    assert c.execute_command("CLUSTERSCAN", "0", "SLOT", "0", "MATCH", f"{{{TAG1}}}:*") == ["0", []]
    # An empty slot served here ends a SLOT scan at once.
    owner = client(owner_of(nodes, 16383))
    assert owner.execute_command("CLUSTERSCAN", "0-{6ZJ}-0", "SLOT", "16383") == ["0", []]


def test_clusterscan_cursor_names_the_slot_and_redirects(three):
    nodes = three
    fill(nodes, {f"k{i}": "string" for i in range(300)})
    o0 = owner_of(nodes, 0)
    other = next(n for n in nodes if n is not o0)
    # A node that does not serve the cursor's slot redirects as for a key of that slot.
    err = error_of(client(other), "CLUSTERSCAN", f"0-{{{TAG0}}}-0")
    assert err == f"MOVED 0 127.0.0.1:{o0.port}"
    # The owner walks its run of slots; mid-walk cursors keep naming the walk's first slot
    # (its first non-empty one) with this node's fingerprint, and a finished walk names the
    # next node's first slot.
    cursor, _ = client(o0).execute_command("CLUSTERSCAN", f"0-{{{TAG0}}}-0", "COUNT", "2")
    fp = cursor.split("-", 1)[0]
    walk_slot = cursor_slot(cursor)
    assert fp != "0" and owner_of(nodes, walk_slot) is o0
    assert client(o0).execute_command("CLUSTER", "COUNTKEYSINSLOT", walk_slot) > 0
    assert all(client(o0).execute_command("CLUSTER", "COUNTKEYSINSLOT", s) == 0
               for s in range(walk_slot))
    while cursor != "0" and cursor.startswith(fp):
        assert cursor_slot(cursor) == walk_slot
        cursor, _ = client(o0).execute_command("CLUSTERSCAN", cursor, "COUNT", "50")
    assert cursor.startswith("0-")
    last_slot = cursor_slot(cursor)
    assert owner_of(nodes, last_slot) is not o0
    assert owner_of(nodes, last_slot - 1) is o0
    # Mid-walk cursors resume on the node that gave them.
    mid, first_keys = client(o0).execute_command("CLUSTERSCAN", f"0-{{{TAG0}}}-0", "COUNT", "1")
    assert mid.startswith(fp)
    rest = Scanner(nodes).scan(cursor=mid)
    assert set(first_keys) | set(rest) == {f"k{i}" for i in range(300)}
    # A fingerprint this node did not make (another seed, another layout) starts the slot over.
    assert set(Scanner(nodes).scan(cursor=f"zzz-{{{TAG0}}}-123456789")) == {
        f"k{i}" for i in range(300)}


def test_clusterscan_keys_added_and_removed_mid_scan(three):
    nodes = three
    stay = {f"stay:{i}": "string" for i in range(600)}
    gone = {f"gone:{i}": "string" for i in range(300)}
    fill(nodes, {**stay, **gone})
    rc = redis.RedisCluster(startup_nodes=[redis.cluster.ClusterNode("127.0.0.1", n.port)
                                           for n in nodes], decode_responses=True)
    steps = [0]

    def churn(_cursor):
        steps[0] += 1
        if steps[0] == 3:
            for k in gone:
                rc.delete(k)
        if steps[0] % 5 == 0:
            for i in range(20):
                rc.set(f"new:{steps[0]}:{i}", "v")

    found = set(Scanner(nodes).scan("COUNT", "20", on_step=churn))
    rc.close()
    assert set(stay) <= found  # present for the whole scan: returned
    assert all(k.split(":")[0] in ("stay", "gone", "new") for k in found)


def test_clusterscan_across_slot_migrations(three):
    nodes = three
    o0 = owner_of(nodes, 0)
    target = next(n for n in nodes if n is not o0)
    tagged = {f"{{{TAG0}}}:m:{i}": "string" for i in range(400)}
    others = {f"other:{i}": "string" for i in range(800)}
    fill(nodes, {**tagged, **others})
    # A SLOT scan of slot 0, interrupted by moving slot 0 away.
    c0 = client(o0)
    cursor, before = c0.execute_command("CLUSTERSCAN", f"0-{{{TAG0}}}-0", "SLOT", "0", "COUNT", "20")
    assert cursor != "0" and before
    assert c0.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "0", "0",
                              "NODE", node_id(target)) == "OK"
    wait_for(lambda: owner_of(nodes, 0) is target and
             error_of(c0, "CLUSTERSCAN", cursor, "SLOT", "0").startswith("MOVED 0 "), timeout=30)
    after = Scanner([target]).scan("SLOT", "0", cursor=cursor)
    assert set(before) | set(after) == set(tagged)
    # A whole-cluster scan while a range of slots moves between two nodes.
    src = owner_of(nodes, 16383)
    dst = next(n for n in nodes if n is not src and n is not target)
    moved = [False]

    def move(cursor):
        if not moved[0] and cursor != "0" and cursor_slot(cursor) >= 5000:
            moved[0] = True
            assert client(src).execute_command(
                "CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16000", "16383",
                "NODE", node_id(dst)) == "OK"

    found = Scanner(nodes).scan("COUNT", "10", on_step=move)
    assert moved[0]
    assert set(found) >= set(tagged) | set(others)


def test_clusterscan_on_replicas(start_server):
    nodes = start_nodes(start_server, 6)
    create(nodes, replicas=1)
    keys = {f"r:{i}": "string" for i in range(500)}
    fill(nodes, keys)
    wait_for(lambda: sum(client(n).dbsize() for n in nodes) == 2 * len(keys), timeout=20)
    replica = next(n for n in nodes if client(n).execute_command("ROLE")[0] == "slave")
    rc = client(replica)
    entry = next(e for e in rc.execute_command("CLUSTER", "SLOTS")
                 if any(x[2] == node_id(replica) for x in e[3:]))
    first, last = entry[0], entry[1]
    start = rc.execute_command("CLUSTERSCAN", "0", "SLOT", first)[0]
    assert cursor_slot(start) == first
    # Without READONLY a replica redirects to its primary, as for a key.
    assert error_of(rc, "CLUSTERSCAN", start) == f"MOVED {first} 127.0.0.1:{entry[2][1]}"
    rc.execute_command("READONLY")
    found, cursor = [], start
    while cursor != "0" and first <= cursor_slot(cursor) <= last:
        cursor, batch = rc.execute_command("CLUSTERSCAN", cursor, "COUNT", "25")
        found += batch
    primary = next(n for n in nodes if n.port == entry[2][1])
    assert set(found) == set(client(primary).keys("*"))


def test_clusterscan_errors(three, start_server):
    c = client(three[0])
    for bad in ("invalid", "abc-def-ghi", "0-", "0-{0}", "1", "0-{06S}-x", "0-{}-0"):
        assert error_of(c, "CLUSTERSCAN", bad) == "Invalid cursor", bad
    assert error_of(c, "CLUSTERSCAN") == "wrong number of arguments for 'clusterscan' command"
    start = f"0-{{{TAG0}}}-0"
    assert error_of(c, "CLUSTERSCAN", start, "UNKNOWNOPTION") == "syntax error"
    assert error_of(c, "CLUSTERSCAN", start, "COUNT", "10", "BAD") == "syntax error"
    assert error_of(c, "CLUSTERSCAN", "0", "COUNT", "0") == "syntax error"
    assert error_of(c, "CLUSTERSCAN", "0", "COUNT", "-1") == "syntax error"
    assert error_of(c, "CLUSTERSCAN", "0", "COUNT", "x") == (
        "value is not an integer or out of range")
    assert error_of(c, "CLUSTERSCAN", "0", "TYPE", "notatype") == "unknown type name 'notatype'"
    assert error_of(c, "CLUSTERSCAN", start, "SLOT", "20000") == "Invalid or out of range slot"
    assert error_of(c, "CLUSTERSCAN", start, "SLOT", "-1") == "Invalid or out of range slot"
    assert error_of(c, "CLUSTERSCAN", start, "SLOT", "0", "SLOT", "0") == (
        "SLOT option can only be specified once")
    assert error_of(c, "CLUSTERSCAN", start, "SLOT", "1") == "Cursor slot mismatch"
    # SCAN has no SLOT.
    assert error_of(c, "SCAN", "0", "SLOT", "0") == "syntax error"
    standalone = start_server().client()
    assert error_of(standalone, "CLUSTERSCAN", "0") == (
        "This instance has cluster support disabled")


def test_cluster_keyslot_without_cluster_mode(start_server):
    c = start_server().client()
    # The values of Valkey's CLUSTER KEYSLOT page.
    assert c.execute_command("CLUSTER", "KEYSLOT", "somekey") == 11058
    assert c.execute_command("CLUSTER", "KEYSLOT", "foo{hash_tag}") == 2515
    assert c.execute_command("CLUSTER", "KEYSLOT", "bar{hash_tag}") == 2515
    assert c.execute_command("CLUSTER", "KEYSLOT", "{}x") == crc16("{}x") & 16383
    assert c.execute_command("CLUSTER", "KEYSLOT", "") == 0
    assert c.execute_command("cluster", "keyslot", "{06S}") == 0
    assert error_of(c, "CLUSTER", "KEYSLOT") == (
        "wrong number of arguments for 'cluster|keyslot' command")
    assert error_of(c, "CLUSTER", "KEYSLOT", "a", "b") == (
        "wrong number of arguments for 'cluster|keyslot' command")
    # Every other subcommand still needs cluster mode.
    for sub in (("INFO",), ("NODES",), ("MYID",), ("COUNTKEYSINSLOT", "1")):
        assert error_of(c, "CLUSTER", *sub) == "This instance has cluster support disabled"


def shards_zones(c):
    zones = {}
    for shard in c.execute_command("CLUSTER", "SHARDS"):
        shard = dict(zip(shard[::2], shard[1::2]))
        for node in shard["nodes"]:
            node = dict(zip(node[::2], node[1::2]))
            zones[node["id"]] = node.get("availability-zone")
    return zones


def slots_zones(c):
    zones = {}
    for entry in c.execute_command("CLUSTER", "SLOTS"):
        for node in entry[2:]:
            meta = node[3]
            meta = dict(zip(meta[::2], meta[1::2])) if isinstance(meta, list) else meta
            zones[node[2]] = meta.get("availability-zone")
    return zones


def test_availability_zone_in_shards_and_slots(start_server):
    nodes = start_nodes(start_server, 3)
    create(nodes)
    ids = [node_id(n) for n in nodes]
    # Not set anywhere: no field at all.
    for n in nodes:
        assert set(shards_zones(client(n)).values()) == {None}
        assert set(slots_zones(client(n)).values()) == {None}
    client(nodes[0]).config_set("availability-zone", "zone-a")
    client(nodes[2]).config_set("availability-zone", "zone-c")
    want = {ids[0]: "zone-a", ids[1]: None, ids[2]: "zone-c"}
    for n in nodes:
        wait_for(lambda n=n: shards_zones(client(n)) == want and slots_zones(client(n)) == want,
                 timeout=20)
    # The field goes after the others in SHARDS' node map; NODES does not change.
    node = client(nodes[1]).execute_command("CLUSTER", "SHARDS")
    flat = [x for s in node for x in s]
    assert "availability-zone" in str(flat)
    assert "zone-a" not in client(nodes[1]).execute_command("CLUSTER", "NODES")
    # Unset again: gone everywhere.
    client(nodes[0]).config_set("availability-zone", "")
    want[ids[0]] = None
    for n in nodes:
        wait_for(lambda n=n: shards_zones(client(n)) == want and slots_zones(client(n)) == want,
                 timeout=20)


def test_availability_zone_from_the_command_line_and_resp3(start_server):
    nodes = start_nodes(start_server, 3, extra=("--availability-zone", "az-1"))
    create(nodes)
    ids = [node_id(n) for n in nodes]
    for n in nodes:
        wait_for(lambda n=n: shards_zones(client(n)) == {i: "az-1" for i in ids}, timeout=20)
    raw = nodes[1].raw()
    raw.call("HELLO", "3")
    raw.send_command("CLUSTER", "SLOTS")
    slots = raw.read_raw_reply()
    assert b"%1\r\n$17\r\navailability-zone\r\n$4\r\naz-1\r\n" in slots
    raw.send_command("CLUSTER", "SHARDS")
    shards = raw.read_raw_reply()
    # Eight fields, the zone after health.
    assert b"%8\r\n$2\r\nid\r\n" in shards
    assert b"$6\r\nonline\r\n$17\r\navailability-zone\r\n$4\r\naz-1\r\n" in shards
