"""RDB files and DUMP payloads exchanged with Debian's redis-server 7.0 both ways, corrupt
files refused, SAVE/BGSAVE/LASTSAVE/INFO persistence, data kept across a restart."""
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import redis

REDIS_SERVER = "/usr/bin/redis-server"
REDIS_CHECK_RDB = "/usr/bin/redis-check-rdb"

need_redis = pytest.mark.skipif(not os.path.exists(REDIS_SERVER), reason="no redis-server")


def populate(c):
    """Every type and encoding, small and big, expiries, several databases."""
    b = c  # decode_responses=False client
    p = b.pipeline(transaction=False)
    p.set("s:int", 12345)
    p.set("s:bigint", 1234567890123456789)
    p.set("s:neg", -70000)
    p.set("s:short", "hello")
    p.set("s:long", "abc" * 200)  # LZF-compressible
    p.set("s:bin", bytes(range(256)))
    p.set("s:ttl", "v", px=10_000_000)
    p.pfadd("hll", *[f"e{i}" for i in range(50)])
    p.setbit("bitmap", 1000, 1)
    p.rpush("l:small", "a", "b", "1", "-2", "300000")
    p.rpush("l:big", *[f"item-{i}" for i in range(2000)])
    p.rpush("l:long", "x" * 200, "y")
    p.hset("h:small", mapping={"f1": "v1", "f2": "2", "n": "-17"})
    p.hset("h:big", mapping={f"field:{i}": f"value:{i}" for i in range(700)})
    p.hset("h:longval", mapping={"a": "z" * 100})
    p.sadd("set:int", 1, 2, 3, -5, 70000, 5000000000)
    p.sadd("set:str", "a", "b", "c")
    p.sadd("set:big", *[f"m{i}" for i in range(600)])
    p.sadd("set:bigint", *range(1000))
    p.zadd("z:small", {"a": 1, "b": 2.5, "c": -3})
    p.zadd("z:big", {f"m{i}": i * 0.5 for i in range(300)})
    p.zadd("z:inf", {"lo": float("-inf"), "hi": float("inf"), "mid": 0})
    p.expire("z:small", 100000)
    for i in range(60):
        fields = {"temp": str(20 + i % 5), "hum": "40.5"} if i % 7 else {"other": "x", "n": i}
        p.xadd("x:1", fields, id=f"{1000 + i}-{i % 3}")
    p.execute()
    b.xdel("x:1", "1010-1")
    b.xgroup_create("x:1", "g1", id="0")
    b.xgroup_create("x:1", "g2", id="$")
    b.xreadgroup("g1", "alice", {"x:1": ">"}, count=10)
    b.xreadgroup("g1", "bob", {"x:1": ">"}, count=5)
    b.xack("x:1", "g1", "1001-1")
    b.xgroup_createconsumer("x:1", "g2", "idle")
    for i in range(250):
        b.xadd("x:big", {"k": f"v{i}", "i": i})
    b.xadd("x:trimmed", {"a": 1}, id="5-1")
    b.xadd("x:trimmed", {"a": 2}, id="6-1")
    b.xtrim("x:trimmed", maxlen=0)
    b.select(3)
    b.set("db3:key", "in db 3")
    b.rpush("db3:list", 1, 2, 3)
    b.select(0)


def key_state(c, key):
    t = c.type(key).decode()
    pexp = c.execute_command("PEXPIRETIME", key)
    if t == "string":
        v = c.get(key)
    elif t == "list":
        v = c.lrange(key, 0, -1)
    elif t == "hash":
        v = sorted(c.hgetall(key).items())
    elif t == "set":
        v = sorted(c.smembers(key))
    elif t == "zset":
        v = c.zrange(key, 0, -1, withscores=True)
    elif t == "stream":
        info = c.xinfo_stream(key)
        meta = [info.get(k) for k in ("length", "last-generated-id", "max-deleted-entry-id",
                                      "entries-added", "recorded-first-entry-id")]
        groups = []
        for g in c.xinfo_groups(key):
            name = g["name"]
            pel = [(e["message_id"], e["consumer"], e["times_delivered"])
                   for e in c.xpending_range(key, name, "-", "+", 1000)]
            consumers = [(x["name"], x["pending"]) for x in c.xinfo_consumers(key, name)]
            groups.append((name, g["consumers"], g["pending"], g["last-delivered-id"],
                           g.get("entries-read"), g.get("lag"), pel, consumers))
        v = (c.xrange(key), meta, groups)
    else:
        v = None
    return t, v, pexp


def dataset(c):
    out = {}
    for db in (0, 3):
        c.select(db)
        for k in sorted(c.keys("*")):
            out[(db, k)] = key_state(c, k)
    c.select(0)
    return out


def digests(c):
    return c.execute_command("DEBUG", "DIGEST")


def start_redis(start_server, tmp_path, **kw):
    return start_server("--enable-debug-command", "yes", binary=REDIS_SERVER, **kw)


def start_vireo(start_server, *args, **kw):
    return start_server("--enable-debug-command", "yes", *args, **kw)


@need_redis
def test_redis_file_loads_in_vireo(start_server, tmp_path):
    rs = start_redis(start_server, tmp_path)
    rc = rs.client(decode_responses=False)
    populate(rc)
    assert rc.save()
    expected = dataset(rc)
    vs = start_vireo(start_server)
    vs.stop()
    shutil.copy(rs.dir / "dump.rdb", vs.dir / "dump.rdb")
    vs.start()
    vc = vs.client(decode_responses=False)
    got = dataset(vc)
    assert got.keys() == expected.keys()
    for k in expected:
        assert got[k] == expected[k], k
    info = vc.info("persistence")
    assert info["rdb_last_load_keys_loaded"] == len(expected)


@need_redis
def test_vireo_file_loads_in_redis(start_server, tmp_path):
    vs = start_vireo(start_server)
    vc = vs.client(decode_responses=False)
    populate(vc)
    assert vc.save()
    expected = dataset(vc)
    check = subprocess.run([REDIS_CHECK_RDB, str(vs.dir / "dump.rdb")], capture_output=True,
                           text=True, timeout=20)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "RDB looks OK" in check.stdout
    rs = start_redis(start_server, tmp_path)
    rs.stop()
    shutil.copy(vs.dir / "dump.rdb", rs.dir / "dump.rdb")
    rs.start()
    rc = rs.client(decode_responses=False)
    got = dataset(rc)
    assert got.keys() == expected.keys()
    for k in expected:
        assert got[k] == expected[k], k
    # Vireo's DEBUG DIGEST is its own (it does not match redis-server's), so it checks
    # Vireo's own round trip: save, empty, load back.
    before = digests(vc)
    assert vc.execute_command("DEBUG", "RELOAD") == b"OK"
    assert digests(vc) == before
    assert dataset(vc) == expected


@need_redis
def test_dump_restore_both_ways(start_server, tmp_path):
    rs = start_redis(start_server, tmp_path)
    vs = start_vireo(start_server)
    rc = rs.client(decode_responses=False)
    vc = vs.client(decode_responses=False)
    populate(rc)
    for src, dst in ((rc, vc), (vc, rc)):
        dst.flushall()
        for k in src.keys("*"):
            payload = src.dump(k)
            dst.restore(k, 0, payload)
        src.select(0)
        for k in src.keys("*"):
            s_state, d_state = key_state(src, k), key_state(dst, k)
            assert s_state[:2] == d_state[:2], k
    # A copy of vireo's own data restored into vireo, with options.
    payload = vc.dump("h:small")
    with pytest.raises(redis.ResponseError, match="BUSYKEY Target key name already exists."):
        vc.restore("h:small", 0, payload)
    assert vc.restore("h:small", 0, payload, replace=True, idletime=1000)
    assert vc.object("idletime", "h:small") >= 1000
    assert vc.restore("abs", int(time.time() * 1000) + 100000, payload, absttl=True)
    assert 0 < vc.pttl("abs") <= 100000
    assert vc.restore("gone", 1, payload, absttl=True)  # already expired: not created
    assert not vc.exists("gone")
    bad = bytearray(payload)
    bad[1] ^= 0xFF
    for p in (bytes(bad), b"short", payload[:-10] + b"\x0c\x00" + payload[-8:]):
        with pytest.raises(redis.ResponseError,
                           match="DUMP payload version or checksum are wrong"):
            vc.restore("x", 0, p)
    for args, err in (((-1,), "Invalid TTL value, must be >= 0"),
                      ((0, "idletime", -1), "Invalid IDLETIME value, must be >= 0"),
                      ((0, "freq", 256), "Invalid FREQ value, must be >= 0 and <= 255"),
                      ((0, "bogus"), "syntax error"),
                      (("abc",), "value is not an integer or out of range")):
        ttl, *rest = args
        with pytest.raises(redis.ResponseError, match=err):
            vc.execute_command("RESTORE", "new", ttl, payload, *rest)
    assert vc.dump("missing") is None



FN_LIB = ("#!lua name=fnlib\n"
          "redis.register_function('fget', function(keys) return redis.call('get', keys[1]) end)")


def _crc64(data):
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x95AC9329AC4BC9B5 if crc & 1 else 0)
    return crc


def _payload(body, version=10):
    body += version.to_bytes(2, "little")
    return body + _crc64(body).to_bytes(8, "little")


@need_redis
def test_function_payloads_and_files_both_ways(start_server, tmp_path):
    rs = start_redis(start_server, tmp_path)
    vs = start_vireo(start_server)
    rc = rs.client(decode_responses=False)
    vc = vs.client(decode_responses=False)
    rc.function_load(FN_LIB)
    payload = rc.function_dump()
    assert vc.function_dump() == _payload(b"")
    assert vc.function_restore(payload)
    assert vc.function_dump() == payload  # byte for byte the same format
    vc.set("k", "v")
    assert vc.fcall("fget", 1, "k") == b"v"
    rc.function_flush()
    assert rc.function_restore(vc.function_dump())
    for c in (vc, rc):  # the same errors from both
        with pytest.raises(redis.ResponseError, match="Library fnlib already exists"):
            c.function_restore(payload)
        twice = _payload(payload[:-10] * 2)
        with pytest.raises(redis.ResponseError, match="Library 'fnlib' already exists"):
            c.function_restore(twice, "replace")
        for body, err in ((b"\x01abc", "given type is not a function"),
                          (b"\xf5", "Failed loading library payload"),
                          (b"\xf5\x03abc", "Missing library metadata")):
            with pytest.raises(redis.ResponseError, match=err):
                c.function_restore(_payload(body))
        with pytest.raises(redis.ResponseError, match="DUMP payload version or checksum"):
            c.function_restore(payload[:-1] + bytes([payload[-1] ^ 1]))
    # RDB files carry the libraries both ways; DEBUG RELOAD keeps them.
    assert vc.save()
    assert vc.execute_command("DEBUG", "RELOAD") == b"OK"
    assert vc.fcall("fget", 1, "k") == b"v"
    rs.stop()
    shutil.copy(vs.dir / "dump.rdb", rs.dir / "dump.rdb")
    rs.start()
    rc = rs.client(decode_responses=False)
    assert rc.fcall("fget", 1, "k") == b"v"
    rc.function_delete("fnlib")
    rc.function_load(FN_LIB.replace("fget", "fget2"))
    assert rc.save()
    vs.stop()
    shutil.copy(rs.dir / "dump.rdb", vs.dir / "dump.rdb")
    vs.start()
    vc = vs.client(decode_responses=False)
    assert vc.fcall("fget2", 1, "k") == b"v"
    assert len(vc.function_list()) == 1


def _write_corrupt_and_start(start_server, src, mutate):
    vs = start_vireo(start_server)
    vs.stop()
    data = bytearray(Path(src).read_bytes())
    (vs.dir / "dump.rdb").write_bytes(bytes(mutate(data)))
    vs.start(wait=False)
    rc = vs.proc.wait(timeout=20)
    vs.expect_crash = True
    return rc, vs.log()


def test_corrupt_files_refused(start_server, tmp_path):
    vs = start_vireo(start_server)
    vc = vs.client(decode_responses=False)
    populate(vc)
    vc.save()
    src = vs.dir / "dump.rdb"
    size = src.stat().st_size

    def flip(d):
        d[size // 2] ^= 0x5A
        return d

    rc, log = _write_corrupt_and_start(start_server, src, flip)
    assert rc != 0
    assert "dump.rdb" in log and "offset" in log and "checksum" in log
    rc, log = _write_corrupt_and_start(start_server, src, lambda d: d[: size // 2])
    assert rc != 0
    assert "dump.rdb" in log and "offset" in log
    # Without a checksum the parser itself must refuse the damage, naming the offset.
    nocrc = start_vireo(start_server, "--rdbchecksum", "no")
    nocrc.client().set("k", "v")
    nocrc.client().save()
    src = nocrc.dir / "dump.rdb"
    assert src.read_bytes()[-8:] == b"\0" * 8

    def bad_opcode(d):
        assert d[9] == 0xFA  # the first AUX field
        d[9] = 0x08  # no such value type
        return d

    rc, log = _write_corrupt_and_start(start_server, src, bad_opcode)
    assert rc != 0 and "byte offset 9: unknown RDB value type 8" in log, log


def test_save_bgsave_lastsave_info_restart(start_server):
    vs = start_vireo(start_server)
    c = vs.client()
    info = c.info("persistence")
    assert info["rdb_bgsave_in_progress"] == 0 and info["rdb_saves"] == 0
    c.mset({"a": 1, "b": 2})
    c.rpush("l", 1, 2, 3)
    assert c.info("persistence")["rdb_changes_since_last_save"] == 5  # RPUSH counts elements
    with pytest.raises(redis.ResponseError, match="syntax error"):
        c.execute_command("BGSAVE", "now")
    before = c.lastsave()
    assert vs.raw().call("BGSAVE") == "Background saving started"
    deadline = time.monotonic() + 20
    while c.info("persistence")["rdb_bgsave_in_progress"] and time.monotonic() < deadline:
        time.sleep(0.02)
    # The cron reaps the child within a tick or two.
    while c.info("persistence")["rdb_saves"] < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    info = c.info("persistence")
    assert info["rdb_saves"] == 1 and info["rdb_last_bgsave_status"] == "ok"
    assert info["rdb_changes_since_last_save"] == 0
    assert c.lastsave() >= before
    assert (vs.dir / "dump.rdb").exists()
    assert not list(vs.dir.glob("temp-*.rdb"))
    c.set("after", "x")
    assert c.save()
    assert c.info("persistence")["rdb_saves"] == 2
    c.set("unsaved", "y")
    vs.restart()  # save "" and SIGTERM: no save at shutdown
    c = vs.client()
    assert c.mget("a", "b", "after", "unsaved") == ["1", "2", "x", None]
    assert c.lrange("l", 0, -1) == ["1", "2", "3"]
    assert c.info("persistence")["rdb_last_load_keys_loaded"] == 4
    c.set("kept", "z")
    try:
        c.shutdown(save=True)  # redis-py swallows the closed connection
    except redis.exceptions.ConnectionError:
        pass
    vs.proc.wait(timeout=20)
    vs.start(port=vs.port)
    c = vs.client()
    assert c.get("kept") == "z"
    assert c.execute_command("DEBUG", "RELOAD") == "OK"
    assert c.get("kept") == "z" and c.lrange("l", 0, -1) == ["1", "2", "3"]


def test_save_point_triggers_bgsave(start_server):
    vs = start_vireo(start_server, "--save", "1 1")
    c = vs.client()
    c.set("k", "v")
    # "save 1 1": once more than a second has passed with a change, the cron forks a BGSAVE.
    deadline = time.monotonic() + 15
    while c.info("persistence")["rdb_saves"] < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert c.info("persistence")["rdb_saves"] >= 1
    assert c.info("persistence")["rdb_changes_since_last_save"] == 0
    assert (vs.dir / "dump.rdb").exists()
    # Inside EXEC the fork waits for the cron.
    raw = vs.raw()
    raw.call("MULTI")
    raw.call("BGSAVE")
    assert raw.call("EXEC") == ["Background saving scheduled"]
    while c.info("persistence")["rdb_saves"] < 2 and time.monotonic() < deadline + 15:
        time.sleep(0.05)
    assert c.info("persistence")["rdb_saves"] >= 2
