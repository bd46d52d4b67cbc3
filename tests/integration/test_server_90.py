"""Valkey 8.1/9.0/9.1 server features: CLIENT LIST / CLIENT KILL filters (USER, ADDR, LADDR,
SKIPME, MAXAGE of 8.1; NAME, IDLE, FLAGS, LIB-NAME, LIB-VER, DB, CAPA, IP of 9.0), SHUTDOWN
SAFE (9.0), CONFIG SET io-threads at run time (9.0) and hash-seed (9.1: the same SCAN order
on every node). Where valkey-server 8.0.1 has the same syntax (the 8.0 filters) the replies are
compared with it."""

import os
import socket
import threading
import time

import pytest
import redis

import cluster_helpers
from conftest import VALKEY_SERVER, wait_for

need_valkey = pytest.mark.skipif(not os.path.exists(VALKEY_SERVER),
                                 reason="needs the reference valkey-server in ../shared/reference/")


def error_of(client, *args):
    try:
        client.execute_command(*args)
    except redis.ResponseError as e:
        return str(e)
    raise AssertionError("no error for %r" % (args,))


def listed_ids(client, *filters):
    text = client.execute_command("CLIENT", "LIST", *filters)
    if isinstance(text, bytes):
        text = text.decode()
    return [int(line.split()[0][3:]) for line in text.splitlines() if line]


# --- CLIENT LIST / CLIENT KILL filters ------------------------------------------------------

def test_client_list_filters_select_clients(start_server):
    s = start_server()
    me = s.client()
    my_id = me.client_id()
    named = s.client()
    named.client_setname("worker")
    named.execute_command("CLIENT", "SETINFO", "LIB-NAME", "mylib")
    named.execute_command("CLIENT", "SETINFO", "LIB-VER", "1.2")
    named_id = named.client_id()
    db3 = s.client(db=3)
    db3_id = db3.client_id()
    sub = s.client()
    p = sub.pubsub()
    p.subscribe("ch")
    wait_for(lambda: len(listed_ids(me, "FLAGS", "P")) == 1)
    multi = s.raw()
    multi.call("MULTI")
    everyone = set(listed_ids(me))
    assert {my_id, named_id, db3_id} <= everyone

    assert listed_ids(me, "NAME", "worker") == [named_id]
    assert listed_ids(me, "NAME", "nobody") == []
    assert listed_ids(me, "LIB-NAME", "mylib") == [named_id]
    assert listed_ids(me, "LIB-VER", "1.2") == [named_id]
    assert listed_ids(me, "LIB-NAME", "mylib", "LIB-VER", "9") == []
    assert listed_ids(me, "DB", "3") == [db3_id]
    assert listed_ids(me, "DB", "3", "NAME", "worker") == []
    assert my_id in listed_ids(me, "DB", "0")
    in_multi = me.execute_command("CLIENT", "LIST", "FLAGS", "x").splitlines()
    assert len(in_multi) == 1 and " flags=x " in in_multi[0]
    # N: only clients with no flag at all; P: the subscriber.
    assert named_id in listed_ids(me, "FLAGS", "N")
    assert len(listed_ids(me, "FLAGS", "P")) == 1
    assert listed_ids(me, "FLAGS", "P")[0] not in listed_ids(me, "FLAGS", "N")
    # SKIPME yes leaves the caller out of a list; USER, ADDR, LADDR and IP select as in KILL.
    assert my_id not in listed_ids(me, "SKIPME", "yes")
    assert my_id in listed_ids(me, "SKIPME", "no")
    assert set(listed_ids(me, "USER", "default")) == everyone
    info = me.client_info()
    assert listed_ids(me, "ADDR", info["addr"]) == [my_id]
    assert my_id in listed_ids(me, "LADDR", info["laddr"])
    assert my_id in listed_ids(me, "IP", "127.0.0.1")
    assert listed_ids(me, "IP", "127.0.0.2") == []
    assert listed_ids(me, "IP", "127.0.0") == []  # the whole address, not a prefix
    # MAXAGE and IDLE: nobody here is a second old... until someone is.
    assert listed_ids(me, "MAXAGE", "100") == []
    assert listed_ids(me, "IDLE", "100") == []
    wait_for(lambda: named_id in listed_ids(me, "IDLE", "1"), timeout=10)
    assert my_id not in listed_ids(me, "IDLE", "1")
    # CAPA r: clients that said CLIENT CAPA redirect.
    assert listed_ids(me, "CAPA", "r") == []
    named.execute_command("CLIENT", "CAPA", "redirect")
    assert listed_ids(me, "CAPA", "r") == [named_id]
    # Several filters at once, in any order, with ID lists.
    assert listed_ids(me, "ID", named_id, db3_id, "NAME", "worker") == [named_id]
    assert listed_ids(me, "TYPE", "normal", "ID", named_id) == [named_id]
    assert listed_ids(me, "TYPE", "pubsub", "ID", named_id) == []
    p.close()
    multi.close()


def test_client_list_filter_errors(start_server):
    c = start_server().client()
    cases = [
        (("IDLE", "abc"), "idle is not an integer or out of range"),
        (("IDLE", "0"), "idle should be greater than 0"),
        (("IDLE", "-5"), "idle should be greater than 0"),
        (("MAXAGE", "x"), "maxage is not an integer or out of range"),
        (("MAXAGE", "0"), "maxage should be greater than 0"),
        (("FLAGS", "xZ"), "Unknown flags found in the provided filter: xZ"),
        (("CAPA", "rq"), "Unknown capa found in the provided filter: rq"),
        (("DB", "16"), "DB number should be between 0 and 15"),
        (("DB", "-1"), "DB number should be between 0 and 15"),
        (("DB", "abc"), "DB is not an integer or out of range"),
        (("USER", "ghost"), "No such user 'ghost'"),
        (("TYPE", "bogus"), "Unknown client type 'bogus'"),
        (("SKIPME", "maybe"), "syntax error"),
        (("NAME",), "syntax error"),
        (("NAME", "a", "IDLE"), "syntax error"),
        (("BOGUS", "1"), "syntax error"),
    ]
    for args, message in cases:
        assert error_of(c, "CLIENT", "LIST", *args) == message, args
    assert error_of(c, "CLIENT", "KILL", "IDLE", "0") == "idle should be greater than 0"
    assert error_of(c, "CLIENT", "KILL", "FLAGS", "!") == \
        "Unknown flags found in the provided filter: !"


def test_client_kill_new_filters(start_server):
    s = start_server()
    me = s.client()
    victims = []
    for i in range(3):
        v = s.client()
        v.client_setname(f"victim{i % 2}")
        v.ping()
        victims.append(v)
    other_db = s.client(db=5)
    other_db.ping()
    # NAME: both clients named victim0 go, nobody else.
    assert me.execute_command("CLIENT", "KILL", "NAME", "victim0") == 2
    wait_for(lambda: listed_ids(me, "NAME", "victim0") == [])
    assert len(listed_ids(me, "NAME", "victim1")) == 1
    assert me.execute_command("CLIENT", "KILL", "DB", "5") == 1
    assert me.execute_command("CLIENT", "KILL", "NAME", "victim1", "DB", "1") == 0
    # The caller is skipped unless SKIPME no; FLAGS with several letters needs all of them.
    assert me.execute_command("CLIENT", "KILL", "FLAGS", "Px") == 0
    assert me.execute_command("CLIENT", "KILL", "ID", me.client_id()) == 0
    assert me.execute_command("CLIENT", "KILL", "IP", "127.0.0.1", "NAME", "victim1") == 1
    assert me.execute_command("CLIENT", "KILL", "ID", me.client_id(), "SKIPME", "no") == 1


@need_valkey
def test_client_filters_valkey8_syntax_matches_reference(start_server):
    """The filters Valkey 8.0.1 has answer as it does (the forms Vireo extends aside)."""
    vireo = start_server().client()
    valkey = start_server(binary=VALKEY_SERVER).client()
    cases = [
        ("CLIENT", "LIST", "ID"), ("CLIENT", "LIST", "ID", "abc"), ("CLIENT", "LIST", "ID", "0"), ("CLIENT", "LIST", "ID", "-1", "1"),
        ("CLIENT", "LIST", "ID", "3", "abc"),
        ("CLIENT", "LIST", "TYPE", "bogus"), ("CLIENT", "LIST", "TYPE"),
        ("CLIENT", "KILL", "ID", "0"), ("CLIENT", "KILL", "ID", "abc"),
        ("CLIENT", "KILL", "MAXAGE", "x"), ("CLIENT", "KILL", "MAXAGE", "-1"),
        ("CLIENT", "KILL", "USER", "ghost"), ("CLIENT", "KILL", "SKIPME", "x"),
        ("CLIENT", "KILL", "TYPE", "x"), ("CLIENT", "KILL", "ADDR"),
        ("CLIENT", "KILL", "1.2.3.4:5"), ("CLIENT", "KILL", "ID", "99999"),
        ("CLIENT", "KILL", "ADDR", "1.2.3.4:5", "SKIPME", "no"),
    ]
    for args in cases:
        def reply(c):
            try:
                return ("ok", c.execute_command(*args))
            except redis.ResponseError as e:
                return ("err", str(e))
        assert reply(vireo) == reply(valkey), args


# --- SHUTDOWN SAFE --------------------------------------------------------------------------

def test_shutdown_safe_refuses_on_a_primary_with_slots(start_server, tmp_path):
    nodes = cluster_helpers.start_nodes(start_server, 3)
    cluster_helpers.create(nodes)
    cluster_helpers.wait_state_ok(nodes)
    c = nodes[0].client()
    assert error_of(c, "SHUTDOWN", "SAFE") == "Errors trying to SHUTDOWN. Check logs."
    assert error_of(c, "SHUTDOWN", "NOSAVE", "SAFE") == "Errors trying to SHUTDOWN. Check logs."
    assert "SHUTDOWN SAFE" in nodes[0].log()
    assert c.ping()
    assert error_of(c, "SHUTDOWN", "SAFE", "ABORT") == "syntax error"
    # FORCE overrides SAFE: the node goes, and the others see the cluster fail.
    with pytest.raises(redis.ConnectionError):
        c.execute_command("SHUTDOWN", "SAFE", "FORCE")
    wait_for(lambda: not nodes[0].is_alive(), timeout=20)
    others = [n.client() for n in nodes[1:]]
    wait_for(lambda: all(o.cluster("INFO")["cluster_state"] == "fail" for o in others),
             timeout=60)


def test_shutdown_safe_outside_cluster_and_on_a_replica_shuts_down(start_server):
    s = start_server()
    with pytest.raises(redis.ConnectionError):
        s.client().execute_command("SHUTDOWN", "SAFE", "NOSAVE")
    wait_for(lambda: not s.is_alive(), timeout=20)
    # An empty cluster primary (no slots) is safe to stop too.
    node = start_server("--cluster-enabled", "yes")
    with pytest.raises(redis.ConnectionError):
        node.client().execute_command("SHUTDOWN", "SAFE")
    wait_for(lambda: not node.is_alive(), timeout=20)


def test_shutdown_on_sigterm_safe_keeps_a_primary_with_slots(start_server):
    nodes = cluster_helpers.start_nodes(start_server, 3, extra=("--shutdown-on-sigterm",
                                                                "safe"))
    cluster_helpers.create(nodes)
    cluster_helpers.wait_state_ok(nodes)
    c = nodes[0].client()
    assert c.config_get("shutdown-on-sigterm") == {"shutdown-on-sigterm": "safe"}
    os.kill(nodes[0].pid, 15)
    wait_for(lambda: "errors trying to shut down the server" in nodes[0].log(), timeout=10)
    assert nodes[0].is_alive() and c.ping()
    assert c.config_set("shutdown-on-sigterm", "safe force") in (True, "OK")
    os.kill(nodes[0].pid, 15)
    wait_for(lambda: not nodes[0].is_alive(), timeout=20)


# --- io-threads at run time -----------------------------------------------------------------

def test_config_set_io_threads_at_run_time_keeps_clients(start_server):
    s = start_server("--io-threads", "1", "--events-per-io-thread", "0")
    c = s.client()
    keep = [s.client() for _ in range(8)]
    for i, k in enumerate(keep):
        k.set(f"k{i}", i)
    stop = threading.Event()
    errors = []
    count = [0]

    def pipeline_writer():
        w = s.client()
        try:
            while not stop.is_set():
                p = w.pipeline(transaction=False)
                for j in range(50):
                    p.incr("counter")
                p.execute()
                count[0] += 50
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    writer = threading.Thread(target=pipeline_writer, daemon=True)
    writer.start()
    for n in (4, 2, 1, 3, 1, 4):
        assert c.config_set("io-threads", n) in (True, "OK")
        assert c.config_get("io-threads") == {"io-threads": str(n)}
        wait_for(lambda: count[0] > 0)
        before = count[0]
        wait_for(lambda: count[0] > before + 200, timeout=20)
        for i, k in enumerate(keep):
            assert k.get(f"k{i}") == str(i)
        assert c.info()["io_threads_active"] in (0, 1)
    stop.set()
    writer.join(10)
    assert not errors
    assert int(c.get("counter")) == count[0]
    log = s.log()
    assert "Started 3 I/O threads" in log and "Stopped 3 I/O threads" in log
    assert "Started 1 I/O threads" in log and "Stopped 1 I/O threads" in log
    for bad in ("0", "129", "abc", "-1"):
        with pytest.raises(redis.ResponseError):
            c.config_set("io-threads", bad)
    assert c.config_get("io-threads") == {"io-threads": "4"}


# --- hash-seed ------------------------------------------------------------------------------

def scan_order(client, count=10):
    order, cursor = [], 0
    while True:
        cursor, keys = client.scan(cursor, count=count)
        order.extend(keys)
        if cursor == 0:
            return order


def test_hash_seed_gives_every_node_the_same_scan_order(start_server):
    a = start_server("--hash-seed", "shared-seed").client()
    b = start_server("--hash-seed", "shared-seed").client()
    other = start_server().client()
    keys = [f"key:{i}" for i in range(2000)]
    # Inserted in different orders: the buckets, hence the SCAN order, are the same anyway.
    for k in keys:
        a.set(k, 1)
    for k in reversed(keys):
        b.set(k, 1)
        other.set(k, 1)
    order_a = scan_order(a)
    assert sorted(order_a) == sorted(keys)
    # Step by step the same keys (a rehash the cron finishes may still run just after SETs).
    wait_for(lambda: _same_buckets(a, b), timeout=10)
    # A cursor from one node continues on the other: every key is seen.
    cursor, first = a.scan(0, count=500)
    seen = set(first)
    while cursor != 0:
        cursor, more = b.scan(cursor, count=500)
        seen.update(more)
    assert seen == set(keys)
    assert a.config_get("hash-seed") == {"hash-seed": "shared-seed"}
    with pytest.raises(redis.ResponseError, match="immutable"):
        a.config_set("hash-seed", "other")
    # Without a seed, each process draws its own: the order differs (2000 keys, 2048 buckets).
    assert scan_order(other) != order_a


def _same_buckets(a, b):
    """Keys come bucket by bucket; within a bucket the order follows insertion. Two nodes with
    one seed list the same set of keys for every cursor step."""
    ca = cb = 0
    while True:
        ca, ka = a.scan(ca, count=1)
        cb, kb = b.scan(cb, count=1)
        if ca != cb or set(ka) != set(kb):
            return False
        if ca == 0:
            return True


def test_new_forms_need_the_same_permissions(start_server):
    s = start_server()
    admin = s.client()
    admin.execute_command("ACL", "SETUSER", "plain", "on", ">pw", "~*", "+@all", "-@admin",
                          "-@dangerous")
    user = s.client(username="plain", password="pw")
    for args in (("CLIENT", "KILL", "NAME", "x", "IDLE", "5"),
                 ("CLIENT", "LIST", "FLAGS", "N", "DB", "0"),
                 ("SHUTDOWN", "SAFE"), ("CONFIG", "SET", "io-threads", "2")):
        with pytest.raises(redis.exceptions.NoPermissionError):
            user.execute_command(*args)
    log = admin.acl_log()
    assert {e["object"] for e in log} >= {"client|kill", "client|list", "shutdown", "config|set"}
    assert admin.config_get("io-threads") == {"io-threads": "1"} or os.environ.get(
        "VIREO_IO_THREADS")
    assert s.is_alive()
