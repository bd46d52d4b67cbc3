"""The multi-part AOF: files and manifest as Valkey 7 writes them, every fsync policy and
every rewritten command family reloading to the same data, rewrites under load, CONFIG SET
appendonly at run time, torn and corrupt files, and AOF directories exchanged with Debian's
redis-server 7.0 both ways. Crash loops: test_aof_crash.py; the fork-less rewrite:
test_aof_rewrite.py."""
import contextlib
import os
import re
import shutil
import threading
import time
from pathlib import Path

import pytest
import redis

from conftest import wait_for

REDIS_SERVER = "/usr/bin/redis-server"
need_redis = pytest.mark.skipif(not os.path.exists(REDIS_SERVER), reason="no redis-server")


def start_aof(start_server, *args, binary=None, **kw):
    return start_server("--appendonly", "yes", "--enable-debug-command", "yes", *args,
                        binary=binary, **kw)


def aof_dir(s):
    return Path(s.dir) / "appendonlydir"


def incr_file(s):
    d = aof_dir(s)
    lines = (d / "appendonly.aof.manifest").read_text().splitlines()
    name = [ln.split()[1] for ln in lines if ln.endswith("type i")][-1]
    return d / name


def aof_commands(data):
    """The commands of AOF bytes, as lists of bytes (annotations skipped)."""
    out, i = [], 0
    while i < len(data):
        if data[i:i + 1] == b"#":
            i = data.index(b"\n", i) + 1
            continue
        j = data.index(b"\r\n", i)
        n = int(data[i + 1:j])
        i = j + 2
        args = []
        for _ in range(n):
            j = data.index(b"\r\n", i)
            size = int(data[i + 1:j])
            args.append(data[j + 2:j + 2 + size])
            i = j + 4 + size
        out.append(args)
    return out


def digest(c):
    return c.execute_command("DEBUG", "DIGEST")


def restart(s, crash=False):
    if crash:
        s.kill()
    else:
        s.stop()
    s._fixed_port = s.port
    s.start(port=s.port)
    return s.client()


def wait_rewrite(c, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = c.info("persistence")
        if not info["aof_rewrite_in_progress"] and not info["aof_rewrite_scheduled"]:
            return info
        time.sleep(0.05)
    raise AssertionError("rewrite did not finish")


def populate(c):
    p = c.pipeline(transaction=False)
    p.set("s", "v")
    p.set("n", 10)
    p.incr("n")
    p.append("s", "w")
    p.rpush("l", *range(20))
    p.hset("h", mapping={f"f{i}": i for i in range(10)})
    p.sadd("set", *range(30))
    p.zadd("z", {f"m{i}": i / 3 for i in range(20)})
    p.xadd("x", {"a": 1}, id="1-1")
    p.set("ttl", "v", ex=1000)
    p.execute()
    c.select(5)
    c.set("db5", "yes")
    c.select(0)


def test_files_manifest_and_fsync_policies_reload(start_server):
    for policy in ("always", "everysec", "no"):
        s = start_aof(start_server, "--appendfsync", policy)
        c = s.client()
        populate(c)
        before = digest(c)
        d = aof_dir(s)
        assert (d / "appendonly.aof.manifest").read_text() == (
            "file appendonly.aof.1.base.rdb seq 1 type b\n"
            "file appendonly.aof.1.incr.aof seq 1 type i\n")
        assert (d / "appendonly.aof.1.base.rdb").read_bytes().startswith(b"REDIS")
        assert c.execute_command("DEBUG", "LOADAOF") == "OK"
        assert digest(c) == before
        c = restart(s)
        assert digest(c) == before
        assert c.get("s") == "vw" and 990 < c.ttl("ttl") <= 1000
        info = c.info("persistence")
        assert info["aof_enabled"] == 1 and info["aof_last_write_status"] == "ok"
        for field in ("aof_current_size", "aof_base_size", "aof_pending_rewrite",
                      "aof_buffer_length", "aof_pending_bio_fsync", "aof_delayed_fsync"):
            assert field in info
        s.stop()


def test_a_large_turn_is_written_between_commands(start_server):
    """Past 1 MB, the AOF buffer is written between commands instead of at the turn's end, so
    it stays small and in cache. A 1.5 MB transaction followed in the same read by DEBUG
    SLEEP: its SETs are in the file while the server sleeps, and reload."""
    s = start_aof(start_server)
    c = s.client()
    c.set("warm", "1")
    wait_for(lambda: c.info("persistence")["aof_pending_bio_fsync"] == 0)
    path = incr_file(s)
    before = path.stat().st_size
    value = b"v" * 16384
    conn = s.raw()
    conn.send(b"".join([conn.encode("MULTI")] +
                       [conn.encode("SET", f"k{i}", value) for i in range(96)] +
                       [conn.encode("EXEC"), conn.encode("DEBUG", "SLEEP", "2")]))
    time.sleep(0.6)
    during = path.stat().st_size  # the server is in DEBUG SLEEP
    replies = [conn.read_reply() for _ in range(99)]
    assert replies[-1] == "OK" and len(replies[-2]) == 96
    assert during - before >= 96 * len(value)
    conn.close()
    c = restart(s)
    assert c.dbsize() == 97 and c.get("k95") == value.decode()
    s.stop()


def test_writes_go_on_while_a_background_fsync_is_behind(start_server):
    """Under everysec a write waits while a background fsync runs (up to 2 s, as Valkey), but
    not past 1 MB: a buffer held through a long fsync grew to hundreds of MB during an AOF
    rewrite, and its one write then held the server for up to 300 ms. The fsync is slowed
    with DEBUG AOF-FSYNC-DELAY (Vireo's)."""
    s = start_aof(start_server)
    c = s.client()
    path = incr_file(s)
    for bad in (["x"], ["-1"], ["600001"], [], ["1", "2"]):
        with pytest.raises(redis.ResponseError):
            c.execute_command("DEBUG", "AOF-FSYNC-DELAY", *bad)
    assert c.execute_command("DEBUG", "AOF-FSYNC-DELAY", "4000") == "OK"
    c.set("first", "v")
    assert wait_for(lambda: c.info("persistence")["aof_pending_bio_fsync"] == 1)
    before = path.stat().st_size
    value = "v" * 16384
    pipe = c.pipeline(transaction=False)
    for i in range(256):  # 4 MB
        pipe.set(f"k{i}", value)
    pipe.execute()
    info = c.info("persistence")
    assert info["aof_pending_bio_fsync"] == 1, "the fsync ended too soon to tell"
    assert info["aof_buffer_length"] < (1 << 20) + 20000
    assert path.stat().st_size - before >= 3 * (1 << 20)
    assert info["aof_delayed_fsync"] == 0
    assert c.execute_command("DEBUG", "AOF-FSYNC-DELAY", "0") == "OK"
    # Everything is in the file after a restart (what the fsync still held included).
    c = restart(s)
    assert c.dbsize() == 257 and c.get("k255") == value
    s.stop()


def test_rewritten_commands_reload_to_same_data(start_server):
    s = start_aof(start_server, "--appendfsync", "always")
    c = s.client()
    c.set("e", "v")
    c.expire("e", 500)
    c.pexpire("e", 400000, nx=False)
    c.set("e2", "v", ex=100)
    c.setex("e3", 100, "v")
    c.psetex("e4", 100000, "v")
    c.set("e5", "v", exat=int(time.time()) + 1000, get=True)
    c.set("g", "v")
    c.getex("g", px=300000)
    c.set("gp", "v", ex=100)
    c.getex("gp", persist=True)
    c.set("f", "1.5", ex=1000)
    c.incrbyfloat("f", 0.1)
    c.hincrbyfloat("hf", "x", 2.5)
    c.sadd("sp", *range(50))
    c.spop("sp")
    c.spop("sp", 5)
    c.sadd("sp2", 1, 2)
    c.spop("sp2", 10)
    c.rpush("bl", *range(10))
    c.blpop("bl", 1)
    c.brpop("bl", 1)
    c.blmove("bl", "bl2", 1, "LEFT", "RIGHT")
    c.brpoplpush("bl", "bl2", 1)
    c.execute_command("LMPOP", 1, "bl", "LEFT", "COUNT", 2)
    c.execute_command("BLMPOP", 1, 1, "bl", "RIGHT")
    c.zadd("bz", {f"m{i}": i for i in range(10)})
    c.bzpopmin("bz", 1)
    c.bzpopmax("bz", 1)
    c.execute_command("ZMPOP", 1, "bz", "MIN", "COUNT", 2)
    c.execute_command("BZMPOP", 1, 1, "bz", "MAX")
    c.set("d", "x")
    payload = c.dump("d")
    c.restore("r1", 100000, payload)
    c.restore("r1", 200000, payload, replace=True)
    for i in range(30):
        c.xadd("xs", {"i": i})
    c.xadd("xs", {"i": "last"}, maxlen=10, approximate=True)
    c.xtrim("xs", maxlen=5, approximate=True)
    c.hset("hx", mapping={"a": 1, "b": 2, "c": 3})
    c.execute_command("HEXPIRE", "hx", 100, "FIELDS", 1, "a")
    c.execute_command("HPEXPIRE", "hx", 100000, "NX", "FIELDS", 1, "b")
    c.execute_command("HSETEX", "hx", "EX", 200, "FIELDS", 1, "d", "4")
    c.execute_command("HGETEX", "hx", "PX", 300000, "FIELDS", 1, "c")
    c.expire("gone", 10)
    c.set("past", "v")
    c.pexpireat("past", 1)
    tx = c.pipeline(transaction=True)
    tx.set("t1", 1).incr("t1").select(2).set("t2", 2).select(0)
    tx.execute()
    c.eval("redis.call('set', KEYS[1], 'a'); redis.call('select', 3); "
           "redis.call('set', KEYS[1], 'b'); return redis.call('incr', 'cnt')", 1, "ev")
    c.function_load("#!lua name=lib\nredis.register_function('f', function(k, a) "
                    "redis.call('spop', k[1]); return redis.call('rpush', k[1] .. 'l', 'x') end)")
    c.sadd("fs", *range(5))
    c.fcall("f", 1, "fs")

    # A blocked pop served by another client's push.
    got = []
    t = threading.Thread(target=lambda: got.append(s.client().blpop("waited", 10)))
    t.start()
    deadline = time.monotonic() + 10
    while c.info("clients")["blocked_clients"] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    c.rpush("waited", "a", "b")
    t.join()
    assert got == [("waited", "a")]

    before = {db: digest(c.__class__(port=s.port, db=db, decode_responses=True))
              for db in (0, 2, 3)}
    names = {cmd[0].upper() for cmd in aof_commands(incr_file(s).read_bytes())}
    assert not names & {b"EXPIRE", b"PEXPIRE", b"SETEX", b"PSETEX", b"GETEX", b"INCRBYFLOAT",
                        b"HINCRBYFLOAT", b"SPOP", b"BLPOP", b"BRPOP", b"BLMOVE", b"BRPOPLPUSH",
                        b"BZPOPMIN", b"BZPOPMAX", b"LMPOP", b"BLMPOP", b"ZMPOP", b"BZMPOP",
                        b"EVAL", b"FCALL", b"HEXPIRE", b"HPEXPIRE"}, names
    for cmd in aof_commands(incr_file(s).read_bytes()):
        if cmd[0] in (b"HSETEX", b"HGETEX"):
            assert b"PXAT" in cmd and b"EX" not in cmd and b"PX" not in cmd, cmd
    xadds = [cmd for cmd in aof_commands(incr_file(s).read_bytes()) if cmd[0] == b"XADD"]
    assert all(b"*" not in cmd and b"~" not in cmd for cmd in xadds)
    c = restart(s, crash=True)
    after = {db: digest(c.__class__(port=s.port, db=db, decode_responses=True))
             for db in (0, 2, 3)}
    assert after == before
    assert c.llen("wait") == 0 and c.lrange("waited", 0, -1) == ["b"]
    assert c.exists("past") == 0


def test_keys_expired_while_down_stay_gone(start_server):
    s = start_aof(start_server)
    c = s.client()
    c.set("short", "v", px=300)
    c.set("touched", "v", px=300)
    c.append("touched", "x")  # replayed before its expiry has passed, under the frozen clock
    c.set("long", "v", ex=1000)
    c.set("plain", "v")
    s.stop()
    time.sleep(0.5)
    c = restart(s)
    assert c.exists("short", "touched") == 0
    assert c.get("long") == "v" and c.get("plain") == "v"
    assert b"DEL" in incr_file(s).read_bytes() or c.dbsize() == 2


@contextlib.contextmanager
def write_load(s, prefix="k", keys=500):
    """A client thread writing while the block runs: INCR counter, RPUSH log <i> and SET
    <prefix><i % keys> <i>, so counter == LLEN log. Its errors fail the test at the end."""
    stop = threading.Event()
    errors = []

    def writer():
        w = s.client()
        i = 0
        try:
            while not stop.is_set():
                w.incr("counter")
                w.rpush("log", i)
                w.set(f"{prefix}{i % keys}", i)
                i += 1
        except Exception as e:  # surfaced below
            errors.append(e)

    t = threading.Thread(target=writer)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()
    assert not errors


def test_bgrewriteaof_under_write_load(start_server):
    s = start_aof(start_server, "--appendfsync", "everysec")
    c = s.client()
    populate(c)
    with write_load(s):
        time.sleep(0.2)
        assert c.bgrewriteaof() in ("Background append only file rewriting started", True)
        assert wait_rewrite(c)["aof_last_bgrewrite_status"] == "ok"
        time.sleep(0.2)
        with pytest.raises(redis.ResponseError, match="already in progress"):
            c.bgrewriteaof()
            c.bgrewriteaof()
        wait_rewrite(c)
        time.sleep(0.1)
    before = digest(c)
    assert c.info("persistence")["aof_rewrites"] >= 1
    # The replaced files are unlinked in the background, after the rewrite ends.
    assert wait_for(lambda: not {"appendonly.aof.1.base.rdb", "appendonly.aof.1.incr.aof"} &
                    set(os.listdir(aof_dir(s))))
    c = restart(s)
    assert digest(c) == before
    assert int(c.get("counter")) == c.llen("log")


def test_rewrite_without_rdb_preamble_and_timestamps(start_server):
    s = start_aof(start_server, "--aof-use-rdb-preamble", "no", "--aof-timestamp-enabled", "yes",
                  "--appendfsync", "always")
    c = s.client()
    populate(c)
    c.bgrewriteaof()
    wait_rewrite(c)
    c.set("later", 1)
    before = digest(c)
    base = aof_dir(s) / "appendonly.aof.2.base.aof"
    # As redis 7.0: the command-format base opens with a timestamp annotation.
    assert re.match(rb"#TS:\d+\r\n\*2\r\n\$6\r\nSELECT", base.read_bytes())
    time.sleep(1.1)
    assert b"#TS:" in incr_file(s).read_bytes()
    c = restart(s)
    assert digest(c) == before


def test_config_set_appendonly_at_runtime(start_server):
    s = start_server("--enable-debug-command", "yes")
    c = s.client()
    populate(c)
    assert c.config_set("appendonly", "yes")
    info = wait_rewrite(c)
    assert info["aof_enabled"] == 1
    c.set("after", "enable")
    before = digest(c)
    s.stop()
    s.args += ["--appendonly", "yes"]
    c = restart(s)
    assert digest(c) == before
    c.config_set("appendonly", "no")
    assert c.info("persistence")["aof_enabled"] == 0


def _start_fails(s):
    s.start(wait=False)
    rc = s.proc.wait(timeout=20)
    s.expect_crash = True
    return rc, s.log()


def test_torn_tail_and_corrupt_files(start_server):
    s = start_aof(start_server, "--appendfsync", "always")
    c = s.client()
    c.set("a", 1)
    c.rpush("b", 1, 2)
    s.stop()
    f = incr_file(s)
    good = f.read_bytes()
    torn = good + b"*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$2\r\nab"
    f.write_bytes(torn)
    s.args += ["--aof-load-truncated", "no"]
    rc, log = _start_fails(s)
    assert rc != 0 and "Unexpected end of file" in log and str(f.name) in log
    s.args[-1] = "yes"
    s.start(port=s.port)
    c = s.client()
    assert c.get("a") == "1" and c.exists("c") == 0
    assert f.read_bytes() == good  # the torn command was cut off
    c.set("after", "torn")
    s.stop()
    # Garbage in the middle refuses the start, naming the file and the offset.
    data = f.read_bytes()
    f.write_bytes(good + b"garbage!\r\n" + data[len(good):])
    rc, log = _start_fails(s)
    assert rc != 0 and f.name in log and f"offset {len(good)}" in log
    f.write_bytes(data)
    # A manifest naming a file that is not there, and a truncated base, refuse too.
    manifest = aof_dir(s) / "appendonly.aof.manifest"
    text = manifest.read_text()
    manifest.write_text(text + "file appendonly.aof.9.incr.aof seq 9 type i\n")
    rc, log = _start_fails(s)
    assert rc != 0 and "appendonly.aof.9.incr.aof" in log
    manifest.write_text(text)
    base = aof_dir(s) / "appendonly.aof.1.base.rdb"
    whole = base.read_bytes()
    base.write_bytes(whole[: len(whole) // 2])
    rc, log = _start_fails(s)
    assert rc != 0 and base.name in log
    base.write_bytes(whole)
    s.start(port=s.port)
    assert s.client().get("after") == "torn"


def _dataset(c):
    out = {}
    for db in (0, 5):
        c.select(db)
        for k in sorted(c.keys("*")):
            t = c.type(k)
            v = {"string": lambda: c.get(k), "list": lambda: c.lrange(k, 0, -1),
                 "hash": lambda: sorted(c.hgetall(k).items()), "set": lambda: sorted(c.smembers(k)),
                 "zset": lambda: c.zrange(k, 0, -1, withscores=True),
                 "stream": lambda: c.xrange(k)}[t]()
            out[(db, k)] = (t, v, c.pexpiretime(k) > 0)
    c.select(0)
    return out


@need_redis
def test_aof_directories_load_both_ways(start_server):
    vs = start_aof(start_server)
    vc = vs.client()
    populate(vc)
    vc.set("x2", 1, ex=100)
    vc.spop("set", 3)
    vc.bgrewriteaof()
    wait_rewrite(vc)
    vc.incrbyfloat("fl", 1.25)
    vc.rpush("l", "tail")
    expected = _dataset(vc)
    vs.stop()
    rs = start_aof(start_server, binary=REDIS_SERVER)
    rs.stop()
    shutil.rmtree(aof_dir(rs))
    shutil.copytree(aof_dir(vs), aof_dir(rs))
    rs.start(port=rs.port)
    rc = rs.client()
    assert _dataset(rc) == expected
    rc.set("from-redis", "yes")
    rc.getex("x2", px=50000)
    rc.bgrewriteaof()
    wait_rewrite(rc)
    rc.hincrbyfloat("h", "f1", 0.5)
    expected = _dataset(rc)
    rs.stop()
    shutil.rmtree(aof_dir(vs))
    shutil.copytree(aof_dir(rs), aof_dir(vs))
    vs.start(port=vs.port)
    assert _dataset(vs.client()) == expected


def _groups(c, key):
    out = []
    for g in c.xinfo_groups(key):
        pel = [(e["message_id"], e["consumer"], e["times_delivered"])
               for e in c.xpending_range(key, g["name"], "-", "+", 1000)]
        consumers = sorted((x["name"], x["pending"]) for x in c.xinfo_consumers(key, g["name"]))
        out.append((g["name"], g["last-delivered-id"], g.get("entries-read"), pel, consumers))
    return out


def test_consumer_groups_replay_without_the_clock(start_server):
    s = start_aof(start_server, "--appendfsync", "always")
    c = s.client()
    for i in range(10):
        c.xadd("st", {"i": i}, id=f"{i + 1}-0")
    c.xgroup_create("st", "g", id="0")
    c.xgroup_create("st", "g2", id="0")
    c.xreadgroup("g", "alice", {"st": ">"}, count=4)
    c.xreadgroup("g2", "carol", {"st": ">"}, count=3, noack=True)
    time.sleep(0.05)
    c.xautoclaim("st", "g", "bob", 20, "0-0", count=2)  # claims only what is 20 ms idle
    c.xclaim("st", "g", "dave", 10, ["3-0"])
    c.xdel("st", "4-0")
    c.xautoclaim("st", "g", "bob", 0, "0-0")  # 4-0 is gone: dropped from the PEL
    c.xreadgroup("g", "erin", {"st": ">"}, count=1)
    before = _groups(c, "st")
    names = {cmd[0].upper() for cmd in aof_commands(incr_file(s).read_bytes())}
    assert not names & {b"XREADGROUP", b"XAUTOCLAIM"}
    c = restart(s, crash=True)
    assert _groups(c, "st") == before


def test_functions_survive_rewrite_and_reload(start_server):
    for preamble in ("yes", "no"):
        s = start_aof(start_server, "--aof-use-rdb-preamble", preamble)
        c = s.client()
        c.function_load("#!lua name=keep\nredis.register_function('kf', function(k, a) "
                        "return redis.call('incr', k[1]) end)")
        c.fcall("kf", 1, "n")
        c.bgrewriteaof()
        wait_rewrite(c)
        c.fcall("kf", 1, "n")
        c = restart(s)
        assert c.fcall("kf", 1, "n") == 3
        s.stop()


def test_auto_rewrite_on_growth(start_server):
    s = start_aof(start_server, "--auto-aof-rewrite-min-size", "4096",
                  "--auto-aof-rewrite-percentage", "0")
    c = s.client()
    for i in range(100):
        c.set(f"k{i % 10}", "x" * 100)
    # Turned on once the file has grown: writes that arrive while the rewrite runs count
    # into aof_base_size, and a slow (sanitizer) build once took 23 of them that way.
    assert c.config_set("auto-aof-rewrite-percentage", "100")
    deadline = time.monotonic() + 20
    while c.info("persistence")["aof_rewrites"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    info = wait_rewrite(c)
    assert info["aof_rewrites"] >= 1
    assert info["aof_base_size"] < 4096  # ten keys, not a hundred writes
    before = digest(c)
    c = restart(s)
    assert digest(c) == before
