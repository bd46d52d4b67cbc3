"""Crash loops: under a write load the server is killed with SIGKILL, restarted on the same
directory and checked, round after round; some rounds are killed during a rewrite.

appendfsync always: a reply goes out only after its command was written and fdatasync'ed, so
no acknowledged write is ever lost. everysec: while a background fsync is behind (a busy
disk) Valkey's delayed-write rule holds the AOF write for up to 2 s with the replies already
sent, so a kill may lose the last round's writes (each round lasts well under 2 s), never an
earlier round's; what the restarted server holds must still be consistent (a prefix of the
log, transactions whole)."""
import random
import threading
import time

import pytest
import redis

from test_aof import aof_dir, start_aof, wait_rewrite


def write_load(s, acked, stop):
    """Writes until the connection dies, recording what was acknowledged."""
    w = s.client()
    try:
        while not stop.is_set():
            n = w.incr("counter")
            acked["counter"] = n
            w.set(f"k:{n}", n)
            acked["key"] = n
            w.rpush("log", n)
            acked["log"].append(n)
            w.hset("h", f"f{n % 50}", n)
            acked["hash"] = n
            if n % 10 == 0:
                p = w.pipeline(transaction=True)
                p.incr("tx")
                p.rpush("txlog", n)
                acked["tx"] = p.execute()[0]
    except (redis.ConnectionError, redis.TimeoutError):
        pass


def check(c, acked):
    assert int(c.get("counter") or 0) >= acked["counter"]
    if acked["key"]:
        assert c.get(f"k:{acked['key']}") == str(acked["key"])
    log = [int(x) for x in c.lrange("log", 0, -1)]
    assert log == sorted(log) and set(acked["log"]) <= set(log)
    if acked["hash"]:
        assert int(c.hget("h", f"f{acked['hash'] % 50}")) >= acked["hash"]
    # A transaction is all there or not at all.
    tx = int(c.get("tx") or 0)
    assert tx >= acked["tx"] and c.llen("txlog") == tx


def survived(c):
    """What the server holds after a restart, as the floor for the next rounds (everysec)."""
    counter = int(c.get("counter") or 0)
    return {"counter": counter, "key": counter if c.exists(f"k:{counter}") else 0,
            "log": [int(x) for x in c.lrange("log", 0, -1)], "hash": 0,
            "tx": int(c.get("tx") or 0)}


@pytest.mark.parametrize("policy,rounds", [("everysec", 20), ("always", 5)])
def test_crash_loop_keeps_every_acknowledged_write(start_server, policy, rounds):
    s = start_aof(start_server, "--appendfsync", policy, "--rdb-key-save-delay", "50")
    acked = {"counter": 0, "key": 0, "log": [], "hash": 0, "tx": 0}
    floor = dict(acked)  # everysec: what the previous rounds left, which must survive
    rng = random.Random(7)
    for r in range(rounds):
        c = s.client()
        if policy == "always":
            check(c, acked)
        else:
            check(c, floor)
            acked = survived(c)
            floor = {**acked, "log": list(acked["log"])}
        stop = threading.Event()
        t = threading.Thread(target=write_load, args=(s, acked, stop))
        t.start()
        if r % 4 == 3:
            c.bgrewriteaof()  # killed while the rewrite runs, or (every other time) after
            if r % 8 == 7:
                assert wait_rewrite(c)["aof_last_bgrewrite_status"] == "ok"
        time.sleep(rng.uniform(0.05, 0.2))
        s.kill()
        stop.set()
        t.join()
        s._fixed_port = s.port
        s.start(port=s.port)
    c = s.client()
    check(c, acked if policy == "always" else floor)
    assert acked["counter"] > 0 and acked["tx"] > 0
    # The bases of rewrites killed half-way were removed at the next start.
    assert not list(aof_dir(s).glob("temp-rewriteaof-*"))
