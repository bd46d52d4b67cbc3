"""Atomic slot migration (Valkey 9.0's CLUSTER MIGRATESLOTS / GETSLOTMIGRATIONS /
CANCELSLOTMIGRATIONS / SYNCSLOTS): replies and errors as Valkey's documentation and its own
tests give them, keys moved with the writes made meanwhile, clients never redirected with ASK
or TRYAGAIN, and every failure leaving the source owning everything."""

import threading
import time

import pytest
import redis

from cluster_helpers import client, create, node_id, start_nodes, wait_state_ok
from conftest import RespError, wait_for

# Hash tags of known slots (a key "{06S}:x" hashes to slot 0, ...).
TAG = {0: "{06S}", 1: "{Qi}", 16381: "{0TG}", 16382: "{4oi}", 16383: "{6ZJ}"}


def cluster_of_three(start_server, replicas=0, extra=()):
    nodes = start_nodes(start_server, 3 * (1 + replicas),
                        extra=("--enable-debug-command", "yes", *extra))
    create(nodes, replicas=replicas)
    primaries = [n for n in nodes if client(n).execute_command("ROLE")[0] == "master"]
    # Order by the first slot they serve: primaries[0] has slot 0, primaries[2] slot 16383.
    primaries.sort(key=lambda n: min(int(r.split("-")[0]) for r in _my_ranges(n)))
    return nodes, primaries


def _my_ranges(node):
    for line in client(node).execute_command("CLUSTER", "NODES").splitlines():
        if "myself" in line:
            return [r for r in line.split()[8:] if not r.startswith("[")]
    return []


def migrations(node):
    out = []
    for entry in client(node).execute_command("CLUSTER", "GETSLOTMIGRATIONS"):
        if isinstance(entry, list):
            entry = dict(zip(entry[::2], entry[1::2]))
        out.append(entry)
    return out


def job_of(node, slot):
    """The newest job that covers slot."""
    for m in reversed(migrations(node)):
        for r in m["slot_ranges"].split():
            a, _, b = r.partition("-")
            if int(a) <= slot <= int(b or a):
                return m
    return None


def by_name(node, name):
    return next((m for m in migrations(node) if m["name"] == name), None)


def wait_field(node, name, field, value, timeout=15.0):
    try:
        wait_for(lambda: (by_name(node, name) or {}).get(field) == value, timeout=timeout)
    except AssertionError:
        raise AssertionError(f"{field} != {value}: {by_name(node, name)}") from None


def owner_port(node, slot):
    for line in client(node).execute_command("CLUSTER", "NODES").splitlines():
        parts = line.split()
        for r in parts[8:]:
            if r.startswith("["):
                continue
            a, _, b = r.partition("-")
            if int(a) <= slot <= int(b or a):
                return int(parts[1].split(":")[1].split("@")[0])
    return None


def wait_owner(nodes, slot, node, timeout=15.0):
    for n in nodes:
        wait_for(lambda n=n: owner_port(n, slot) == node.port, timeout=timeout)


def populate(node, tag, count, prefix="k"):
    c = client(node)
    pipe = c.pipeline(transaction=False)
    for i in range(count):
        pipe.set(f"{tag}:{prefix}:{i}", f"v{i}")
    pipe.execute()


def debug(nodes, what, value):
    for n in nodes:
        client(n).execute_command("DEBUG", "SLOTMIGRATION", what, value)


@pytest.fixture
def three(start_server):
    return cluster_of_three(start_server)


def test_command_errors_match_valkey(three):
    nodes, (p0, p1, p2) = three
    c0, c1, c2 = client(p0), client(p1), client(p2)
    id0, id1, id2 = node_id(p0), node_id(p1), node_id(p2)
    fake = "a" * 40

    def err(c, *args):
        with pytest.raises(redis.ResponseError) as e:
            c.execute_command(*args)
        return str(e.value)

    m = ["CLUSTER", "MIGRATESLOTS"]
    assert "wrong number of arguments" in err(c0, *m)
    assert err(c0, *m, "INVALID", "0", "1") == "syntax error"
    assert "wrong number of arguments" in err(c0, *m, "SLOTSRANGE")
    assert err(c0, *m, "SLOTSRANGE", "0") == "No end slot for final slot range"
    assert err(c0, *m, "SLOTSRANGE", "16385", "16388") == "Invalid or out of range slot"
    assert err(c0, *m, "SLOTSRANGE", "16380", "16388") == "Invalid or out of range slot"
    assert err(c0, *m, "SLOTSRANGE", "a", "0") == "No slot ranges specified"
    assert err(c0, *m, "SLOTSRANGE", "0", "a") == "Invalid or out of range slot"
    assert err(c0, *m, "SLOTSRANGE", "1", "0") == \
        "Start slot number 1 is greater than end slot number 0"
    assert err(c0, *m, "SLOTSRANGE", "0", "16383") == "Requested slots span multiple shards"
    assert err(c0, *m, "SLOTSRANGE", "0", "5", "3", "6") == \
        "Slot range 3-6 overlaps with previous range 0-5"
    assert err(c0, *m, "SLOTSRANGE", "3", "6", "0", "5") == \
        "Slot range 0-5 overlaps with previous range 3-6"
    assert err(c0, *m, "SLOTSRANGE", "0", "0") == "syntax error"
    assert err(c0, *m, "SLOTSRANGE", "0", "0", "NODE") == "syntax error"
    assert err(c0, *m, "SLOTSRANGE", "0", "0", "NODE", "blah") == "Invalid node name"
    assert err(c0, *m, "SLOTSRANGE", "0", "0", "NODE", fake) == "Unknown node name"
    assert err(c0, *m, "SLOTSRANGE", "1", "1", "NODE", id1, "SLOTSRANGE", "0", "2", "NODE",
               id2) == "Slot ranges in migrations overlap"
    assert err(c2, *m, "SLOTSRANGE", "0", "0", "NODE", id0) == \
        "Slots are not served by this node"
    assert err(c0, *m, "SLOTSRANGE", "0", "0", "NODE", id0) == \
        "Target node can not be this node"
    c0.execute_command("CLUSTER", "SETSLOT", "0", "MIGRATING", id1)
    c1.execute_command("CLUSTER", "SETSLOT", "0", "IMPORTING", id0)
    assert err(c0, *m, "SLOTSRANGE", "16383", "16383") == "Slots are being manually migrated"
    assert err(c1, *m, "SLOTSRANGE", "16383", "16383") == "Slots are being manually imported"
    c0.execute_command("CLUSTER", "SETSLOT", "0", "STABLE")
    c1.execute_command("CLUSTER", "SETSLOT", "0", "STABLE")
    c0.execute_command("CLUSTER", "DELSLOTS", "0")
    assert err(c0, *m, "SLOTSRANGE", "0", "0") == "Slot 0 has no node served"
    c0.execute_command("CLUSTER", "ADDSLOTS", "0")
    assert "wrong number of arguments" in err(c0, "CLUSTER", "CANCELSLOTMIGRATIONS", "ARG")
    assert "wrong number of arguments" in err(c0, "CLUSTER", "GETSLOTMIGRATIONS", "ARG")
    assert err(c0, "DEBUG", "SLOTMIGRATION", "PREVENT-NOTHING", "1") == "syntax error"
    assert "wrong number of arguments" in err(c0, "DEBUG", "SLOTMIGRATION", "PREVENT-PAUSE")
    assert "must be" in err(c0, "CONFIG", "SET", "cluster-slot-migration-log-max-len", "-1")
    assert "argument" in err(c0, "CONFIG", "SET", "slot-migration-max-failover-repl-bytes",
                             "lots").lower()
    assert err(c0, "CLUSTER", "CANCELSLOTMIGRATIONS") == "No migrations ongoing"
    assert c0.execute_command("CLUSTER", "GETSLOTMIGRATIONS") == []
    # The stream's steps are refused to plain clients; unknown ones are a syntax error.
    for step in ["REQUEST-PAUSE", "REQUEST-FAILOVER", "SNAPSHOT-EOF", "PAUSED",
                 "FAILOVER-GRANTED", "ACK"]:
        assert err(c0, "CLUSTER", "SYNCSLOTS", step) == \
            f"CLUSTER SYNCSLOTS {step} should only be used by slot migration clients"
    assert err(c0, "CLUSTER", "SYNCSLOTS", "UNKNOWN") == "syntax error"
    assert err(c0, "CLUSTER", "SYNCSLOTS") == "syntax error"
    # Only a replica's primary may tell it about an import.
    assert err(c0, "CLUSTER", "SYNCSLOTS", "TRACK-IMPORT", fake, id2, "SLOTSRANGE", "1",
               "1") == "CLUSTER SYNCSLOTS TRACK-IMPORT should only be used by slot migration clients"
    e = ["CLUSTER", "SYNCSLOTS", "ESTABLISH"]
    assert err(c0, *e) == "syntax error"
    assert err(c0, *e, "NAME", fake, "SLOTSRANGE", "0", "0") == "syntax error"
    assert err(c0, *e, "SOURCE", id2, "SLOTSRANGE", "0", "0") == "syntax error"
    assert err(c0, *e, "SOURCE", id2, "NAME", fake) == "syntax error"
    assert err(c0, *e, "SOURCE", id2, "NAME", fake, "SLOTSRANGE", "0") == \
        "No end slot for final slot range"
    assert err(c0, *e, "SOURCE", fake, "NAME", fake, "SLOTSRANGE", "16383", "16383") == \
        "Target node does not know the source node"
    assert err(c0, *e, "SOURCE", id1, "NAME", fake, "SLOTSRANGE", "16383", "16383") == \
        "Target node does not agree about current slot ownership"
    assert err(c0, *e, "SOURCE", "invalid", "NAME", fake, "SLOTSRANGE", "1", "1") == \
        "syntax error"
    assert err(c0, *e, "SOURCE", id2, "NAME", "invalid", "SLOTSRANGE", "1", "1") == \
        "syntax error"
    assert err(c0, *e, "SOURCE", id2, "NAME", fake, "SLOTSRANGE", "16383", "16383",
               "SLOTSRANGE", "16383", "16383") == "syntax error"
    assert err(c0, *e, "SOURCE", id2, "NAME", fake, "NAME", fake, "SLOTSRANGE", "1",
               "1") == "syntax error"
    assert err(c0, *e, "SOURCE", id2, "NAME", fake, "SLOTSRANGE", "16383", "16383",
               "BAD_FIELD", "x") == "syntax error"


def test_slots_move_with_their_keys(three):
    nodes, (p0, p1, p2) = three
    populate(p2, TAG[16383], 1000)
    populate(p2, TAG[16382], 10)  # a slot that stays
    assert client(p2).execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383",
                                      "16383", "NODE", node_id(p0)) == "OK"
    name = job_of(p2, 16383)["name"]
    wait_owner(nodes, 16383, p0)
    wait_field(p2, name, "state", "success")
    wait_field(p0, name, "state", "success")
    c0, c2 = client(p0), client(p2)
    assert c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 1000
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16382") == 10
    assert c0.get(f"{TAG[16383]}:k:7") == "v7"
    export, imp = by_name(p2, name), by_name(p0, name)
    assert export["operation"] == "EXPORT" and imp["operation"] == "IMPORT"
    for m in (export, imp):
        assert m["slot_ranges"] == "16383-16383"
        assert m["source_node"] == node_id(p2) and m["target_node"] == node_id(p0)
        assert m["message"] == "" and m["cow_size"] == 0
        assert m["create_time"] <= m["last_update_time"] <= int(time.time()) + 1
        assert list(m) == ["name", "operation", "slot_ranges", "target_node", "source_node",
                           "create_time", "last_update_time", "last_ack_time", "state",
                           "message", "cow_size"]
    with pytest.raises(redis.ResponseError, match=f"MOVED 16383 127.0.0.1:{p0.port}"):
        c2.get(f"{TAG[16383]}:k:7")
    # RESP3: a map per job.
    r3 = p2.raw()
    r3.call("HELLO", "3")
    entry = r3.call("CLUSTER", "GETSLOTMIGRATIONS")[0]
    assert isinstance(entry, dict) and entry[b"state"] == b"success"
    # And back again, several ranges in one job.
    populate(p0, TAG[1], 5)
    assert c0.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "0", "1", "16383",
                              "16383", "NODE", node_id(p2)) == "OK"
    name = job_of(p0, 0)["name"]
    assert job_of(p0, 0)["slot_ranges"] == "0-1 16383-16383"
    wait_field(p0, name, "state", "success")
    wait_owner(nodes, 0, p2)
    wait_owner(nodes, 16383, p2)
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 1000
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "1") == 5
    assert c0.execute_command("DBSIZE") == 0


def test_writes_during_the_migration_arrive_and_keys_stay_hidden(three):
    nodes, (p0, p1, p2) = three
    c0, c2 = client(p0), client(p2)
    populate(p2, TAG[16383], 300, "before")
    populate(p2, TAG[16381], 50, "other")
    debug(nodes, "PREVENT-PAUSE", 1)
    # A slow snapshot, so writes land while it is sent.
    c2.config_set("rdb-key-save-delay", 2000)
    assert c2.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383",
                              "NODE", node_id(p0)) == "OK"
    name = job_of(p2, 16383)["name"]
    assert by_name(p2, name)["state"] in ("connecting", "establishing", "snapshotting")
    populate(p2, TAG[16383], 300, "during")
    c2.delete(f"{TAG[16383]}:before:0")
    c2.incr(f"{TAG[16383]}:counter")
    wait_field(p2, name, "state", "waiting-to-pause")
    wait_field(p0, name, "state", "waiting-for-paused")
    c2.config_set("rdb-key-save-delay", 0)
    populate(p2, TAG[16383], 300, "after")
    with c2.pipeline(transaction=True) as t:
        t.set(f"{TAG[16383]}:tx1", "a")
        t.set(f"{TAG[16383]}:tx2", "b")
        t.execute()
    c2.rpush(f"{TAG[16383]}:list", *range(1000))
    c2.pexpire(f"{TAG[16383]}:after:1", 100000)
    # The target holds them but shows none: DBSIZE, KEYS, SCAN, RANDOMKEY.
    wait_for(lambda: c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 903)
    assert c0.dbsize() == 0
    assert c0.keys("*") == [] and c0.scan(0, count=1000) == (0, [])
    assert c0.randomkey() is None
    c0.set(f"{TAG[0]}:mine", "x")  # a key of the target's own slot stays visible
    assert c0.keys("*") == [f"{TAG[0]}:mine"] and c0.dbsize() == 1
    assert c0.randomkey() == f"{TAG[0]}:mine"
    c0.delete(f"{TAG[0]}:mine")
    # The source's client links are marked E, the target's i.
    assert "flags=E" in c2.execute_command("CLIENT", "LIST")
    assert "flags=i" in c0.execute_command("CLIENT", "LIST")
    debug(nodes, "PREVENT-PAUSE", 0)
    wait_field(p2, name, "state", "success")
    wait_owner(nodes, 16383, p0)
    assert c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 903
    assert c0.dbsize() == 903
    assert c0.get(f"{TAG[16383]}:before:0") is None
    assert c0.get(f"{TAG[16383]}:during:299") == "v299"
    assert c0.get(f"{TAG[16383]}:counter") == "1"
    assert c0.mget(f"{TAG[16383]}:tx1", f"{TAG[16383]}:tx2") == ["a", "b"]
    assert c0.llen(f"{TAG[16383]}:list") == 1000
    assert 0 < c0.pttl(f"{TAG[16383]}:after:1") <= 100000
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16381") == 50
    assert "flags=E" not in c2.execute_command("CLIENT", "LIST")


def test_cancel_leaves_the_source_owning_everything(three):
    nodes, (p0, p1, p2) = three
    c0, c2 = client(p0), client(p2)
    populate(p2, TAG[16383], 500)
    debug(nodes, "PREVENT-PAUSE", 1)
    c2.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383", "NODE",
                       node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "waiting-to-pause")
    wait_for(lambda: c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 500)
    with pytest.raises(redis.ResponseError, match="I am already migrating slot 16383"):
        c2.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383", "NODE",
                           node_id(p0))
    # Manual and atomic migration exclude each other.
    with pytest.raises(redis.ResponseError, match="Slot import in progress"):
        c0.execute_command("CLUSTER", "SETSLOT", "0", "MIGRATING", node_id(p1))
    with pytest.raises(redis.ResponseError, match="Slot export in progress"):
        c2.execute_command("CLUSTER", "SETSLOT", "16383", "MIGRATING", node_id(p1))
    assert c2.execute_command("CLUSTER", "CANCELSLOTMIGRATIONS") == "OK"
    assert by_name(p2, name)["state"] == "cancelled"
    wait_field(p0, name, "state", "failed")
    assert "Connection lost to source" in by_name(p0, name)["message"]
    wait_for(lambda: c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0)
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 500
    assert owner_port(p1, 16383) == p2.port
    debug(nodes, "PREVENT-PAUSE", 0)


@pytest.mark.parametrize("command", [["FLUSHALL", "SYNC"], ["FLUSHDB", "ASYNC"]])
@pytest.mark.parametrize("side", ["source", "target"])
def test_flush_on_either_side_fails_the_migration(three, side, command):
    nodes, (p0, p1, p2) = three
    c0, c2 = client(p0), client(p2)
    populate(p2, TAG[16383], 200)
    debug(nodes, "PREVENT-PAUSE", 1)
    c2.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383", "NODE",
                       node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_for(lambda: c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 200)
    (c2 if side == "source" else c0).execute_command(*command)
    flushed, other = (p2, p0) if side == "source" else (p0, p2)
    wait_field(flushed, name, "state", "failed")
    wait_field(other, name, "state", "failed")
    assert "Data was flushed" in by_name(flushed, name)["message"]
    wait_for(lambda: c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0)
    assert owner_port(p0, 16383) == p2.port
    debug(nodes, "PREVENT-PAUSE", 0)


def test_log_length_and_failed_connections(three, start_server):
    nodes, (p0, p1, p2) = three
    c0 = client(p0)
    id1, p2_id = node_id(p1), node_id(p2)
    c0.config_set("cluster-slot-migration-log-max-len", 1)
    # The target refuses the import (it imports the slot by hand): the job fails with its error.
    client(p1).execute_command("CLUSTER", "SETSLOT", "0", "IMPORTING", node_id(p0))
    c0.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "0", "0", "NODE", id1)
    first = job_of(p0, 0)["name"]
    wait_field(p0, first, "state", "failed")
    assert "Slots are being manually imported" in by_name(p0, first)["message"]
    client(p1).execute_command("CLUSTER", "SETSLOT", "0", "STABLE")
    # A wrong primaryauth: the target refuses the AUTH.
    client(p1).config_set("requirepass", "secret")
    c0.config_set("primaryauth", "wrong")
    c0.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "0", "0", "NODE", id1)
    second = job_of(p0, 0)["name"]
    wait_field(p0, second, "state", "failed")
    assert "Failed to AUTH to target node" in by_name(p0, second)["message"]
    assert [m["name"] for m in migrations(p0)] == [second]  # the log keeps one
    # The right password works.
    c0.config_set("primaryauth", "secret")
    populate(p0, TAG[0], 20)
    c0.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "0", "0", "NODE", id1)
    third = job_of(p0, 0)["name"]
    wait_field(p0, third, "state", "success")
    assert client(p1, "secret").execute_command("CLUSTER", "COUNTKEYSINSLOT", "0") == 20
    # A target that is down: connection refused.
    p1.stop()
    c0.config_set("cluster-slot-migration-log-max-len", 10)
    p2.stop()
    c0.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "2", "2", "NODE", p2_id)
    last = job_of(p0, 2)["name"]
    wait_field(p0, last, "state", "failed")
    assert "Unable to connect to target node: Connection refused" in by_name(p0, last)["message"]


def test_target_or_source_lost_mid_migration(start_server):
    nodes, (p0, p1, p2) = cluster_of_three(start_server)
    c0, c2 = client(p0), client(p2)
    populate(p2, TAG[16383], 300)
    populate(p0, TAG[0], 300)
    debug(nodes, "PREVENT-PAUSE", 1)
    # Target killed: the source keeps its keys and slots.
    c2.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383", "NODE",
                       node_id(p1))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "waiting-to-pause")
    p1.kill()
    wait_field(p2, name, "state", "failed")
    assert "Connection lost to target" in by_name(p2, name)["message"]
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 300
    assert c2.get(f"{TAG[16383]}:k:3") == "v3"
    # Source killed: the target drops what it received.
    c0.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "0", "0", "NODE", node_id(p2))
    name = job_of(p0, 0)["name"]
    wait_field(p0, name, "state", "waiting-to-pause")
    wait_for(lambda: c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "0") == 300)
    p0.kill()
    wait_field(p2, name, "state", "failed")
    assert "Connection lost to source" in by_name(p2, name)["message"]
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "0") == 0
    assert c2.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 300


def test_replicas_follow_and_clients_never_see_ask_or_tryagain(start_server):
    """A writer of two-key transactions on the migrating slot and a reader run through the
    whole migration: no ASK, TRYAGAIN or CROSSSLOT, every acknowledged write is on the new
    owner and its replica."""
    nodes, (p0, p1, p2) = cluster_of_three(start_server, replicas=1)
    populate(p2, TAG[16383], 2000)
    stop = threading.Event()
    acked, errors = {}, []

    def writer():
        # Two-key transactions through a plain client that follows MOVED by hand.
        port = p2.port
        i = 0
        while not stop.is_set():
            c = redis.Redis(port=port, decode_responses=True)
            try:
                with c.pipeline(transaction=True) as t:
                    t.set(f"{TAG[16383]}:a:{i}", i)
                    t.set(f"{TAG[16383]}:b:{i}", i)
                    t.execute()
                acked[i] = True
                i += 1
            except redis.ResponseError as exc:
                text = str(exc)
                if "MOVED" in text:
                    port = int(text.split(":")[-1].split()[0].rstrip("."))
                else:
                    errors.append(text)
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(repr(exc))
            finally:
                c.close()

    raw_errors = []

    def raw_writer():
        # A plain client that follows MOVED by hand: any other error is reported.
        port = p2.port
        i = 0
        while not stop.is_set():
            c = redis.Redis(port=port, decode_responses=True)
            try:
                c.execute_command("MSET", f"{TAG[16383]}:m:{i}", i, f"{TAG[16383]}:n:{i}", i)
                i += 1
            except redis.ResponseError as exc:
                if str(exc).startswith("MOVED"):
                    port = int(str(exc).split(":")[-1])
                else:
                    raw_errors.append(str(exc))
            finally:
                c.close()

    threads = [threading.Thread(target=writer), threading.Thread(target=raw_writer)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    client(p2).execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383",
                               "NODE", node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "success")
    time.sleep(0.3)
    stop.set()
    for t in threads:
        t.join()
    assert not errors, errors[:5]
    assert not raw_errors, raw_errors[:5]
    c0 = client(p0)
    for i in acked:
        assert c0.get(f"{TAG[16383]}:a:{i}") == str(i)
    total = c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383")
    assert total >= 2000 + 2 * len(acked)
    replica = next(n for n in nodes if client(n).execute_command("ROLE")[0] == "slave" and
                   client(n).execute_command("ROLE")[2] == p0.port)
    wait_for(lambda: client(replica).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383")
             == total)
    src_replica = next(n for n in nodes if client(n).execute_command("ROLE")[0] == "slave" and
                       client(n).execute_command("ROLE")[2] == p2.port)
    wait_for(lambda: client(src_replica).execute_command("CLUSTER", "COUNTKEYSINSLOT",
                                                         "16383") == 0)
    wait_state_ok(nodes)


def test_importing_keys_neither_expire_nor_get_evicted_on_the_target(three):
    nodes, (p0, p1, p2) = three
    c0, c2 = client(p0), client(p2)
    c2.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    pipe = c2.pipeline(transaction=False)
    for i in range(100):
        pipe.set(f"{TAG[16383]}:t:{i}", "v", px=300)
    pipe.execute()
    populate(p0, TAG[0], 100)
    debug(nodes, "PREVENT-PAUSE", 1)
    c2.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383", "NODE",
                       node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "waiting-to-pause")
    assert c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 100
    time.sleep(0.5)  # past their TTL: the target's active expiry runs, but leaves them
    # Eviction on the target takes its own keys only.
    c0.config_set("maxmemory-policy", "allkeys-random")
    used = c0.info("memory")["used_memory"]
    c0.config_set("maxmemory", used - 2000)
    try:
        c0.set(f"{TAG[0]}:more", "x" * 100)
    except redis.ResponseError:
        pass
    c0.config_set("maxmemory", 0)
    assert c0.info("stats")["evicted_keys"] > 0
    assert c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 100
    # The source's expiry deletes them, and the deletions reach the target.
    c2.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")
    wait_for(lambda: c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0)
    debug(nodes, "PREVENT-PAUSE", 0)
    wait_field(p2, name, "state", "success")


def replica_of(nodes, primary):
    for n in nodes:
        role = client(n).execute_command("ROLE")
        if role[0] == "slave" and role[2] == primary.port:
            return n
    raise AssertionError("no replica")


def test_failover_of_either_primary_mid_migration_cancels_it_cleanly(start_server):
    nodes, (p0, p1, p2) = cluster_of_three(start_server, replicas=1)
    populate(p2, TAG[16383], 500)
    debug(nodes, "PREVENT-PAUSE", 1)
    # The target's replica follows the import: keys hidden, the job listed.
    client(p2).execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383",
                               "NODE", node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "waiting-to-pause")
    r0 = replica_of(nodes, p0)
    wait_for(lambda: client(r0).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 500)
    assert client(r0).dbsize() == 0
    assert by_name(r0, name)["operation"] == "IMPORT"
    # The target fails over: the new primary drops the partial keys, the source keeps all.
    assert client(r0).execute_command("CLUSTER", "FAILOVER") == "OK"
    wait_field(r0, name, "state", "failed")
    assert "A failover occurred during slot import" in by_name(r0, name)["message"]
    wait_field(p2, name, "state", "failed")
    wait_for(lambda: client(r0).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0)
    wait_for(lambda: client(p0).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0)
    assert client(p2).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 500
    assert owner_port(r0, 16383) == p2.port
    # The source fails over: the target drops what it received; the new source has it all.
    client(p2).execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383",
                               "NODE", node_id(r0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "waiting-to-pause")
    wait_for(lambda: client(r0).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 500)
    r2 = replica_of(nodes, p2)
    assert client(r2).execute_command("CLUSTER", "FAILOVER") == "OK"
    wait_field(r0, name, "state", "failed")
    wait_field(p2, name, "state", "failed")
    wait_for(lambda: client(r0).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0)
    wait_for(lambda: owner_port(r0, 16383) == r2.port)
    assert client(r2).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 500
    debug(nodes, "PREVENT-PAUSE", 0)


def test_blocked_and_held_clients_get_moved_after_the_hand_off(three):
    nodes, (p0, p1, p2) = three
    c2 = client(p2)
    blocked = p2.raw()
    blocked.send_command("BLPOP", f"{TAG[16383]}:list", "0")
    wait_for(lambda: c2.info("clients")["blocked_clients"] == 1)
    debug(nodes, "PREVENT-FAILOVER", 1)
    c2.config_set("cluster-manual-failover-timeout", 60000)
    c2.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383", "NODE",
                       node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "failover-granted")
    # Writes to the slot wait; other slots and reads go on.
    held = p2.raw()
    held.send_command("SET", f"{TAG[16383]}:x", "1")
    assert c2.set(f"{TAG[16382]}:y", "1") is True
    assert c2.get(f"{TAG[16383]}:missing") is None
    wait_for(lambda: "flags=b" in c2.execute_command("CLIENT", "LIST"))
    debug(nodes, "PREVENT-FAILOVER", 0)
    # The target's grant was dropped while prevented: cancel and start again.
    c2.execute_command("CLUSTER", "CANCELSLOTMIGRATIONS")
    wait_field(p2, name, "state", "cancelled")
    assert held.read_reply() == "OK"  # released: the source still owns the slot
    c2.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383", "NODE",
                       node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "success")
    reply = blocked.read_reply()
    assert isinstance(reply, RespError) and str(reply).startswith("MOVED 16383"), reply
    assert client(p0).get(f"{TAG[16383]}:x") == "1"


def test_large_collections_move_whole_within_small_input_limits(three):
    """Big values of every type cross in batches (the AOF rewrite's command form), whatever
    the target's client-query-buffer-limit and proto-max-bulk-len; DEBUG DIGEST-VALUE matches."""
    nodes, (p0, p1, p2) = three
    c0, c2 = client(p0), client(p2)
    t = TAG[16383]
    pipe = c2.pipeline(transaction=False)
    for i in range(0, 60000, 1000):
        pipe.hset(f"{t}:hash", mapping={f"f{j}": f"v{j}" for j in range(i, i + 1000)})
        pipe.rpush(f"{t}:list", *[f"e{j}" for j in range(i, i + 1000)])
        pipe.sadd(f"{t}:set", *[f"m{j}" for j in range(i, i + 1000)])
        pipe.zadd(f"{t}:zset", {f"m{j}": j for j in range(i, i + 1000)})
    for i in range(5000):
        pipe.xadd(f"{t}:stream", {"a": i, "b": "x" * 20})
    pipe.execute()
    c2.xgroup_create(f"{t}:stream", "g", id="0")
    c2.xreadgroup("g", "consumer", {f"{t}:stream": ">"}, count=10)
    c2.set(f"{t}:big", "s" * 3_000_000)
    c2.pfadd(f"{t}:hll", *range(5000))
    c2.set(f"{t}:ttl", "v", px=600000)
    keys = [f"{t}:{k}" for k in ("hash", "list", "set", "zset", "stream", "big", "hll", "ttl")]
    before = c2.execute_command("DEBUG", "DIGEST-VALUE", *keys)
    c0.config_set("client-query-buffer-limit", "1mb")
    c0.config_set("proto-max-bulk-len", "1mb")
    c2.execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383", "NODE",
                       node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "success", timeout=60)
    assert c0.execute_command("DEBUG", "DIGEST-VALUE", *keys) == before
    assert c0.xpending(f"{t}:stream", "g")["pending"] == 10
    assert 0 < c0.pttl(f"{t}:ttl") <= 600000


def test_a_replica_added_mid_import_learns_of_it(start_server):
    nodes, (p0, p1, p2) = cluster_of_three(start_server)
    populate(p2, TAG[16383], 300)
    debug(nodes, "PREVENT-PAUSE", 1)
    client(p2).execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383",
                               "NODE", node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "waiting-to-pause")
    # A new node joins as the target's replica: its full sync's snapshot holds the partial
    # keys, and the stream after it says they are being imported.
    new = start_nodes(start_server, 1, extra=("--enable-debug-command", "yes"))[0]
    n = client(new)
    n.execute_command("CLUSTER", "MEET", "127.0.0.1", p0.port, _bus_port(p0))
    wait_for(lambda: node_id(p0) in n.execute_command("CLUSTER", "NODES"))
    wait_for(lambda: _try(lambda: n.execute_command("CLUSTER", "REPLICATE", node_id(p0))))
    wait_for(lambda: n.info("replication").get("master_link_status") == "up", timeout=30)
    wait_for(lambda: (by_name(new, name) or {}).get("operation") == "IMPORT")
    assert n.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 300
    assert n.dbsize() == 0
    debug(nodes, "PREVENT-PAUSE", 0)
    wait_field(p2, name, "state", "success")
    wait_field(new, name, "state", "success")
    wait_for(lambda: n.dbsize() == 300)
    # The stream's offsets still agree (the announcement counted on both sides).
    wait_for(lambda: n.info("replication")["slave_repl_offset"] ==
             client(p0).info("replication")["master_repl_offset"])


def _bus_port(node):
    for line in client(node).execute_command("CLUSTER", "NODES").splitlines():
        if "myself" in line:
            return int(line.split()[1].split("@")[1].split(",")[0])
    raise AssertionError("no myself line")


def _try(fn):
    try:
        fn()
        return True
    except redis.ResponseError:
        return False


@pytest.mark.parametrize("persistence", ["aof", "rdb"])
def test_a_target_restarted_mid_import_drops_the_partial_keys(start_server, persistence):
    """nodes.conf records the running imports (fsynced before any key arrives): a target
    restarted from its AOF or its dump drops the keys of an import it did not finish."""
    extra = ("--appendonly", "yes") if persistence == "aof" else ()
    nodes, (p0, p1, p2) = cluster_of_three(start_server, extra=extra)
    populate(p2, TAG[16383], 200)
    populate(p0, TAG[0], 20)
    debug(nodes, "PREVENT-PAUSE", 1)
    client(p2).execute_command("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", "16383", "16383",
                               "NODE", node_id(p0))
    name = job_of(p2, 16383)["name"]
    wait_field(p2, name, "state", "waiting-to-pause")
    wait_for(lambda: client(p0).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 200)
    assert "atomicImports 16383-16383" in (p0.dir / "nodes.conf").read_text()
    if persistence == "rdb":
        client(p0).save()
    p0.kill()
    wait_field(p2, name, "state", "failed")
    p0._fixed_port = p0.port
    p0.start(port=p0.port)
    c0 = client(p0)
    assert c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 0
    assert c0.execute_command("CLUSTER", "COUNTKEYSINSLOT", "0") == 20
    assert "atomicImports" not in (p0.dir / "nodes.conf").read_text()
    assert client(p2).execute_command("CLUSTER", "COUNTKEYSINSLOT", "16383") == 200
    debug([p0], "PREVENT-PAUSE", 0)
    debug([p1, p2], "PREVENT-PAUSE", 0)
