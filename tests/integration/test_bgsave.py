"""Fork-less BGSAVE: the file is the dataset as it was when BGSAVE started, whatever the
commands running during the save do (overwrite, delete, expire, rename, move, add, FLUSHDB,
SWAPDB), and the server serves them meanwhile. rdb-key-save-delay slows the save's walk so
that the writes overlap it. FLUSHALL, SAVE, DEBUG RELOAD and SHUTDOWN during a save."""
import os
import shutil
import time

import pytest
import redis

from conftest import wait_for
from test_rdb import REDIS_SERVER, dataset, populate

DELAY_US = 2000  # rdb-key-save-delay: ~50 keys of populate() take 0.1 s, 500 keys 1 s


def start_vireo(start_server, *args):
    return start_server("--enable-debug-command", "yes", *args)


def bgsave_running(c):
    return c.info("persistence")["rdb_bgsave_in_progress"] == 1


def wait_saved(c, saves):
    wait_for(lambda: c.info("persistence")["rdb_saves"] >= saves, timeout=30)
    info = c.info("persistence")
    assert info["rdb_bgsave_in_progress"] == 0
    assert info["rdb_last_bgsave_status"] == "ok"


def load_copy(start_server, src, binary=None):
    """A second server started on a copy of src's dump.rdb."""
    extra = () if binary else ("--enable-debug-command", "yes")
    s = start_server(*extra, binary=binary)
    s.stop()
    shutil.copy(src.dir / "dump.rdb", s.dir / "dump.rdb")
    s.start()
    return s


def fill(c, n):
    p = c.pipeline(transaction=False)
    for i in range(n):
        p.set(f"pad:{i}", f"value-{i}")
    p.execute()


def mutate_everything(c):
    """Changes every key populate() wrote (and more) in every way a command can."""
    p = c.pipeline(transaction=False)
    p.set("s:int", 1)
    p.append("s:short", " world")
    p.incr("s:bigint")
    p.delete("s:long")
    p.persist("s:ttl")
    p.expire("s:bin", 1_000_000)
    p.pfadd("hll", "new-element")
    p.setbit("bitmap", 7, 1)
    p.lpush("l:small", "front")
    p.rpop("l:big")
    p.lset("l:long", 0, "replaced")
    p.hset("h:small", "f1", "changed")
    p.hdel("h:big", "field:1")
    p.sadd("set:int", 99)
    p.srem("set:str", "a")
    p.spop("set:big")
    p.zadd("z:small", {"a": 100})
    p.zrem("z:big", "m1")
    p.xadd("x:1", {"late": "entry"})
    p.xack("x:1", "g1", "1000-0")
    p.xtrim("x:big", maxlen=10)
    p.rename("h:longval", "h:renamed")
    p.rename("set:bigint", "z:inf")  # over an existing key
    p.move("zz:missing", 3)
    p.set("brand:new", "created during the save")
    p.rpush("brand:list", 1, 2)
    p.execute()
    c.select(3)
    c.set("db3:key", "changed in db 3")
    c.move("db3:list", 0)
    c.select(0)
    for i in range(0, 400, 3):
        c.set(f"pad:{i}", "overwritten")
    for i in range(1, 400, 7):
        c.delete(f"pad:{i}")
    for i in range(2, 400, 11):
        c.pexpire(f"pad:{i}", 10)  # gone long before the save ends


def test_file_is_the_dataset_at_bgsave_time(start_server):
    vs = start_vireo(start_server, "--rdb-key-save-delay", str(DELAY_US))
    c = vs.client(decode_responses=False)
    populate(c)
    fill(c, 400)
    digest = c.execute_command("DEBUG", "DIGEST")
    expected = dataset(c)
    assert vs.raw().call("BGSAVE") == "Background saving started"
    assert bgsave_running(c)
    mutate_everything(c)
    # The server serves while the save runs, with the new values.
    assert bgsave_running(c)
    assert c.get("s:int") == b"1" and c.get("brand:new") is not None
    assert c.ping()
    with pytest.raises(redis.ResponseError, match="Background save already in progress"):
        c.bgsave()
    with pytest.raises(redis.ResponseError, match="Background save already in progress"):
        c.save()
    info = c.info("persistence")
    assert info["current_save_keys_total"] == len(expected)
    assert 0 < info["current_save_keys_processed"] <= info["current_save_keys_total"]
    assert info["rdb_current_bgsave_time_sec"] >= 0
    # No fork: the "copy-on-write" figures are the snapshot's queued output, and the fork
    # percentage is the walk's progress.
    assert 0 <= info["current_cow_size"] <= info["current_cow_peak"]
    assert 0.0 < info["current_fork_perc"] <= 100.0
    wait_saved(c, 1)
    done = c.info("persistence")
    assert done["rdb_current_bgsave_time_sec"] == -1
    assert done["rdb_last_cow_size"] >= max(info["current_cow_peak"], 1)
    assert done["current_cow_peak"] == 0 and done["current_fork_perc"] == 0
    assert not list(vs.dir.glob("temp-*.rdb"))

    vs2 = load_copy(start_server, vs)
    c2 = vs2.client(decode_responses=False)
    assert c2.execute_command("DEBUG", "DIGEST") == digest
    assert dataset(c2) == expected

    if os.path.exists(REDIS_SERVER):
        rs = load_copy(start_server, vs, binary=REDIS_SERVER)
        got = dataset(rs.client(decode_responses=False))
        assert got.keys() == expected.keys()
        for k in expected:
            assert got[k] == expected[k], k


def test_flushdb_and_swapdb_during_bgsave(start_server):
    vs = start_vireo(start_server, "--rdb-key-save-delay", str(DELAY_US))
    c = vs.client()
    fill(c, 200)
    c.select(1)
    fill(c, 100)
    c.select(2)
    c.set("only-in-2", "x")
    c.select(0)
    digest = c.execute_command("DEBUG", "DIGEST")
    assert c.bgsave()
    c.set("pad:5", "changed")  # saved before the flush, with its old value
    c.flushdb()  # db 0's unsaved keys still go to the file
    c.set("pad:6", "after flush")
    c.swapdb(1, 2)  # keys stay in the database they had at the start
    c.select(1)
    c.set("only-in-2", "changed after swap")
    c.select(2)
    c.delete("pad:3")
    c.select(0)
    assert bgsave_running(c)
    wait_saved(c, 1)
    c2 = load_copy(start_server, vs).client()
    assert c2.execute_command("DEBUG", "DIGEST") == digest
    c2.select(2)
    assert c2.dbsize() == 1 and c2.get("only-in-2") == "x"


def test_flushall_abandons_the_save(start_server):
    vs = start_vireo(start_server, "--rdb-key-save-delay", "100000")
    c = vs.client()
    fill(c, 100)
    assert c.bgsave()
    assert bgsave_running(c)
    assert c.flushall()
    info = c.info("persistence")
    assert info["rdb_bgsave_in_progress"] == 0 and info["rdb_last_bgsave_status"] == "ok"
    assert info["rdb_saves"] == 0
    assert not list(vs.dir.glob("temp-*.rdb"))
    assert not (vs.dir / "dump.rdb").exists()  # save "": FLUSHALL saves nothing
    # The next save starts from a consistent keyspace and is complete.
    c.config_set("rdb-key-save-delay", 0)
    fill(c, 50)
    digest = c.execute_command("DEBUG", "DIGEST")
    assert c.bgsave()
    wait_saved(c, 1)
    c2 = load_copy(start_server, vs).client()
    assert c2.execute_command("DEBUG", "DIGEST") == digest


def test_flushall_with_save_points_saves_the_empty_dataset(start_server):
    vs = start_vireo(start_server, "--save", "3600 1000", "--rdb-key-save-delay", "100000")
    c = vs.client()
    fill(c, 50)
    assert c.bgsave()
    assert c.flushall()
    info = c.info("persistence")
    assert info["rdb_bgsave_in_progress"] == 0 and info["rdb_saves"] == 1
    assert info["rdb_changes_since_last_save"] == 1
    assert not list(vs.dir.glob("temp-*.rdb"))
    c2 = load_copy(start_server, vs).client()
    assert c2.dbsize() == 0


def test_debug_reload_and_shutdown_during_bgsave(start_server):
    vs = start_vireo(start_server, "--rdb-key-save-delay", "100000")
    c = vs.client()
    fill(c, 100)
    digest = c.execute_command("DEBUG", "DIGEST")
    assert c.bgsave()
    assert c.execute_command("DEBUG", "RELOAD") == "OK"
    assert c.execute_command("DEBUG", "DIGEST") == digest
    info = c.info("persistence")
    assert info["rdb_bgsave_in_progress"] == 0 and info["rdb_last_bgsave_status"] == "ok"
    # A BGSAVE after the reload starts cleanly; SHUTDOWN abandons it and saves in the
    # foreground (save points are configured), so the file holds the latest writes.
    c.config_set("save", "3600 1")
    assert c.bgsave()
    c.set("written", "after bgsave")
    try:
        c.shutdown()
    except redis.exceptions.ConnectionError:
        pass
    vs.proc.wait(timeout=20)
    assert not list(vs.dir.glob("temp-*.rdb"))
    vs.start(port=vs.port)
    c = vs.client()
    assert c.get("written") == "after bgsave" and c.dbsize() == 101


def test_file_errors_report_failure(start_server):
    vs = start_vireo(start_server)
    c = vs.client()
    fill(c, 10)
    # The temp file cannot be created: BGSAVE fails at once.
    blocker = vs.dir / f"temp-{vs.pid}.rdb"
    blocker.mkdir()
    with pytest.raises(redis.ResponseError):
        c.bgsave()
    assert c.info("persistence")["rdb_last_bgsave_status"] == "err"
    blocker.rmdir()
    # The rename over dbfilename fails (a non-empty directory is in the way): the writer
    # thread reports it, the temp file goes.
    (vs.dir / "dump.rdb").mkdir()
    (vs.dir / "dump.rdb" / "x").write_text("x")
    assert c.bgsave()
    wait_for(lambda: not bgsave_running(c))
    assert c.info("persistence")["rdb_last_bgsave_status"] == "err"
    assert not list(vs.dir.glob("temp-*.rdb"))
    shutil.rmtree(vs.dir / "dump.rdb")
    assert c.bgsave()
    wait_saved(c, 1)


@pytest.mark.parametrize("compression", ["yes", "no"])
def test_large_values_are_saved_as_they_were(start_server, compression):
    # Values of 16 KB and more are encoded by the writer thread from the value itself (pinned
    # until then): overwrites, in-place edits, deletes and TTLs after BGSAVE must not reach
    # the file, and Valkey/Redis must read what it holds.
    vs = start_vireo(start_server, "--rdb-key-save-delay", str(DELAY_US),
                     "--rdbcompression", compression)
    c = vs.client(decode_responses=False)
    values = {}
    for i in range(60):
        v = (os.urandom(9000) + b"z" * 30000) if i % 2 else os.urandom(5000 + 300 * i)
        c.set(f"big:{i}", v)
        values[f"big:{i}".encode()] = v
    c.expire("big:5", 1_000_000)
    fill(c, 100)
    digest = c.execute_command("DEBUG", "DIGEST")
    expected = dataset(c)
    assert vs.raw().call("BGSAVE") == "Background saving started"
    p = c.pipeline(transaction=False)
    for i in range(0, 60, 6):
        p.set(f"big:{i}", b"x" * len(values[f"big:{i}".encode()]))  # same size: reuses
    for i in range(1, 60, 6):
        p.append(f"big:{i}", b"tail")
    for i in range(2, 60, 6):
        p.setrange(f"big:{i}", 10, b"edited")
    for i in range(3, 60, 6):
        p.delete(f"big:{i}")
    for i in range(4, 60, 6):
        p.setbit(f"big:{i}", 5, 1)
    p.persist("big:5")
    p.execute()
    assert bgsave_running(c)
    wait_saved(c, 1)
    vs2 = load_copy(start_server, vs)
    c2 = vs2.client(decode_responses=False)
    assert c2.execute_command("DEBUG", "DIGEST") == digest
    assert dataset(c2) == expected
    for k, v in values.items():
        assert c2.get(k) == v
    assert c2.ttl("big:5") > 0
    if os.path.exists(REDIS_SERVER):
        rs = load_copy(start_server, vs, binary=REDIS_SERVER)
        r = rs.client(decode_responses=False)
        for k, v in values.items():
            assert r.get(k) == v
