"""Disk full: the server runs in a private mount namespace with its `dir` on a 1 MB tmpfs
that a ballast file nearly fills. A failing BGSAVE (with save points and
stop-writes-on-bgsave-error) and a failing AOF write refuse writes and PING with MISCONF
while reads go on, and writes work again once the ballast is removed (through
/proc/<pid>/root, the server's view of the mounts). Each case runs side by side with
Debian's redis-server where present and the replies are compared."""
import os
import random
import subprocess

import pytest
import redis

from conftest import SERVER_BINARY, wait_for

REDIS_SERVER = "/usr/bin/redis-server"
WRAPPER = """#!/bin/sh
exec unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs "$TMPFS_DIR" &&
  dd if=/dev/zero of="$TMPFS_DIR/ballast" bs=1k count=900 2>/dev/null &&
  exec "$REAL_BINARY" "$@"' sh "$@"
"""


@pytest.fixture
def small_disk(tmp_path):
    """start(binary, *args) -> a server whose dir is a nearly full tmpfs."""
    probe = tmp_path / "probe"
    probe.mkdir()
    r = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=64k tmpfs {probe}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"unshare/mount not permitted here: {r.stderr.strip()}")
    wrapper = tmp_path / "wrap.sh"
    wrapper.write_text(WRAPPER)
    wrapper.chmod(0o755)
    return wrapper


def start(start_server, wrapper, binary, *args):
    disk = wrapper.parent / f"disk{random.randrange(1 << 30)}"
    disk.mkdir()
    s = start_server("--dir", str(disk), "--enable-debug-command", "yes", *args,
                     binary=str(wrapper), env={"TMPFS_DIR": str(disk), "REAL_BINARY": binary})
    s.ballast = f"/proc/{s.pid}/root{disk}/ballast"
    return s


def as_redis_70(seen):
    """The MISCONF text names Valkey in Vireo (as valkey-server 8 does), Redis in 7.0."""
    def one(v):
        if not isinstance(v, str):
            return v
        return v.replace("MISCONF Valkey is", "MISCONF Redis is").replace(
            "check the Valkey logs", "check the Redis logs")
    return [one(v) for v in seen] if isinstance(seen, list) else seen


def same_on_every_server(run):
    """run(binary) for vireo-server and redis-server (when present): each returns what its
    clients saw, which must be equal."""
    binaries = [SERVER_BINARY] + ([REDIS_SERVER] if os.path.exists(REDIS_SERVER) else [])
    seen = [as_redis_70(run(binary)) for binary in binaries]
    for other in seen[1:]:
        assert other == seen[0]


def fill_random(c, seed, n=200):
    """n values of 1000 hex digits (LZF cannot shrink them): n KB, more than the disk has
    left."""
    rng = random.Random(seed)
    p = c.pipeline(transaction=False)
    for i in range(n):
        p.set(f"k{i}", rng.randbytes(500).hex())
    p.execute()


def reply(c, *args):
    try:
        return c.execute_command(*args)
    except redis.ResponseError as e:
        return f"error: {e}"


def refused_and_served(c):
    """What a client sees while the disk error lasts."""
    return [reply(c, "SET", "new", "v"), reply(c, "PING"), reply(c, "GET", "k0"),
            reply(c, "EVAL", "return 1", 0),
            reply(c, "EVAL", "return redis.call('set', 'q', 1)", 0),
            reply(c, "MULTI"), reply(c, "SET", "new", "v"), reply(c, "EXEC")]


def test_failed_bgsave_stops_writes_until_a_save_succeeds(start_server, small_disk):
    def run(binary):
        s = start(start_server, small_disk, binary, "--save", "3600 1")
        c = s.client()
        fill_random(c, 1)
        assert c.bgsave()
        wait_for(lambda: c.info("persistence")["rdb_bgsave_in_progress"] == 0)
        assert c.info("persistence")["rdb_last_bgsave_status"] == "err"
        during = refused_and_served(c)
        name = "Redis" if binary == REDIS_SERVER else "Valkey"
        assert during[0].startswith(f"error: MISCONF {name} is configured to save RDB snapshots")
        assert during[1] == during[0] and len(during[2]) == 1000  # PING refused, GET served
        # stop-writes-on-bgsave-error no lets writes through despite the failed save.
        c.config_set("stop-writes-on-bgsave-error", "no")
        assert c.set("allowed", 1)
        c.config_set("stop-writes-on-bgsave-error", "yes")
        assert reply(c, "SET", "new", "v") == during[0]
        os.unlink(s.ballast)
        assert c.bgsave()
        wait_for(lambda: c.info("persistence")["rdb_bgsave_in_progress"] == 0)
        assert c.info("persistence")["rdb_last_bgsave_status"] == "ok"
        assert c.set("after", "recovery") and c.ping()
        return during

    same_on_every_server(run)


def test_aof_write_error_refuses_writes_until_the_disk_has_room(start_server, small_disk):
    def run(binary):
        s = start(start_server, small_disk, binary, "--appendonly", "yes",
                  "--appendfsync", "everysec")
        c = s.client()
        rng = random.Random(2)
        acked = 0
        while True:
            r = reply(c, "SET", f"k{acked}", rng.randbytes(500).hex())
            if r is not True:
                break
            acked += 1
        assert r.startswith("error: MISCONF Errors writing to the AOF file: No space left")
        assert 0 < acked < 200
        during = refused_and_served(c)
        assert during[1] == r and during[2] is not None and c.dbsize() == acked
        assert c.info("persistence")["aof_last_write_status"] == "err"
        digest = c.execute_command("DEBUG", "DIGEST")
        os.unlink(s.ballast)
        wait_for(lambda: reply(c, "SET", "after", "recovery") is True)
        assert c.info("persistence")["aof_last_write_status"] == "ok" and c.ping()
        # Every acknowledged write made it to the AOF once the disk had room.
        c.delete("after")
        assert c.execute_command("DEBUG", "DIGEST") == digest
        assert c.execute_command("DEBUG", "LOADAOF") == "OK"
        assert c.execute_command("DEBUG", "DIGEST") == digest and c.dbsize() == acked
        return during

    same_on_every_server(run)


def test_rewrite_that_finds_no_room_fails_and_is_retried(start_server, small_disk):
    def run(binary):
        s = start(start_server, small_disk, binary)
        c = s.client()
        fill_random(c, 3)
        # CONFIG SET appendonly yes writes a base of 200 KB: more than the disk has left.
        assert c.config_set("appendonly", "yes")
        wait_for(lambda: c.info("persistence")["aof_last_bgrewrite_status"] == "err")
        info = c.info("persistence")
        during = [reply(c, "SET", "during", "v"), info["aof_enabled"]]
        assert "Background AOF rewrite terminated with error" in s.log()
        os.unlink(s.ballast)
        if not info["aof_rewrite_in_progress"]:
            c.bgrewriteaof()
        wait_for(lambda: c.info("persistence")["aof_last_bgrewrite_status"] == "ok", timeout=30)
        wait_for(lambda: c.info("persistence")["aof_rewrite_in_progress"] == 0)
        digest = c.execute_command("DEBUG", "DIGEST")
        assert c.execute_command("DEBUG", "LOADAOF") == "OK"
        assert c.execute_command("DEBUG", "DIGEST") == digest and c.get("during") == "v"
        return during

    same_on_every_server(run)
