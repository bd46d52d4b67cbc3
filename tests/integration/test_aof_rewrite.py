"""The AOF rewrite without fork: with aof-use-rdb-preamble (the default) the new base is a
point-in-time snapshot written between event-loop turns, as BGSAVE's, so writes made while
it runs land in the new incremental file only and a restart gives the live dataset. One
snapshot at a time: BGSAVE and BGREWRITEAOF wait for each other. rdb-key-save-delay slows
the snapshot's walk so that the writes overlap it."""
import os

import pytest
import redis

from conftest import wait_for
from test_aof import aof_dir, digest, restart, start_aof, wait_rewrite, write_load
from test_bgsave import fill, mutate_everything
from test_rdb import dataset, populate

# rdb-key-save-delay: the ~450 keys below keep the walk going ~2 s, longer than the checks made
# while it runs take on a loaded machine (at ~0.5 s a run on two test workers outlasted it).
DELAY_US = 4000
FORKLESS_LOG = "Background append only file rewriting started (fork-less snapshot"


def child_pids(pid):
    """Processes whose parent is pid."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(entry))
    return out


def in_progress(c):
    return c.info("persistence")["aof_rewrite_in_progress"] == 1


@pytest.mark.parametrize("preamble", ["yes", "no"])
def test_rewrite_under_writes_reloads_to_the_live_dataset(start_server, preamble):
    # Either base format: an RDB preamble, or the dataset as commands.
    s = start_aof(start_server, "--appendfsync", "everysec", "--rdb-key-save-delay", DELAY_US,
                  "--aof-use-rdb-preamble", preamble)
    c = s.client(decode_responses=False)
    populate(c)
    fill(c, 400)
    raw = s.raw()
    assert raw.call("BGREWRITEAOF") == "Background append only file rewriting started"
    with write_load(s, prefix="pad:", keys=400):
        assert in_progress(c)
        assert child_pids(s.pid) == []  # no forked writer
        mutate_everything(c)
        assert in_progress(c)
        # One snapshot at a time.
        assert raw.call("BGSAVE").message.startswith("ERR Another child process is active")
        assert raw.call("BGSAVE", "SCHEDULE") == "Background saving scheduled"
        with pytest.raises(redis.ResponseError, match="already in progress"):
            c.bgrewriteaof()
        info = wait_rewrite(c)
        assert info["aof_last_bgrewrite_status"] == "ok" and info["aof_rewrites"] == 1
        wait_for(lambda: c.info("persistence")["rdb_saves"] >= 1, timeout=30)
    log = s.log()
    assert FORKLESS_LOG in log and "rewriting started by pid" not in log
    base = "appendonly.aof.2.base." + ("rdb" if preamble == "yes" else "aof")
    # The replaced files are unlinked in the background, after the rewrite ends.
    assert wait_for(lambda: sorted(os.listdir(aof_dir(s))) ==
                    [base, "appendonly.aof.2.incr.aof", "appendonly.aof.manifest"])
    head = (aof_dir(s) / base).read_bytes()[:256]
    if preamble == "yes":
        assert head.startswith(b"REDIS") and b"aof-base" in head
    else:
        assert head.startswith((b"*2\r\n$6\r\nSELECT\r\n", b"*3\r\n$8\r\nFUNCTION\r\n"))
    before, expected = digest(c), dataset(c)
    restart(s)
    c = s.client(decode_responses=False)
    assert digest(c) == before
    assert dataset(c) == expected
    assert int(c.get("counter")) == c.llen("log") > 0


def test_rewrite_waits_for_bgsave_and_stops_with_appendonly_no(start_server):
    s = start_aof(start_server, "--rdb-key-save-delay", DELAY_US)
    c = s.client()
    fill(c, 300)
    raw = s.raw()
    assert raw.call("BGSAVE") == "Background saving started"
    assert raw.call("BGREWRITEAOF") == "Background append only file rewriting scheduled"
    assert c.info("persistence")["aof_rewrite_scheduled"] == 1
    wait_for(lambda: in_progress(c), timeout=30)
    assert c.info("persistence")["rdb_bgsave_in_progress"] == 0
    c.set("during", "rewrite")
    # Turning the AOF off abandons the rewrite and its temp file.
    assert c.config_set("appendonly", "no")
    info = c.info("persistence")
    assert info["aof_rewrite_in_progress"] == 0 and info["aof_enabled"] == 0
    assert not [n for n in os.listdir(aof_dir(s)) if n.startswith("temp-")]
    # On again: a new rewrite starts, and the data survives a restart.
    assert c.config_set("appendonly", "yes")
    assert wait_rewrite(c)["aof_last_bgrewrite_status"] == "ok"
    before = digest(c)
    c = restart(s)
    assert digest(c) == before and c.get("during") == "rewrite"


def test_full_sync_during_a_rewrite_waits_without_failing_a_save(start_server):
    # The replica's BGSAVE finds the rewrite's snapshot walking: it waits for it, and the
    # refusal is not a failed save (with save points that would turn writes into MISCONF).
    p = start_aof(start_server, "--rdb-key-save-delay", 5000, "--save", "3600 1000000")
    c = p.client()
    fill(c, 1000)  # a walk of ~5 s
    # The replica starts first, its link held back by a password it lacks, so a slow start
    # (sanitizers, a loaded machine) cannot outlast the rewrite: once the rewrite walks it gets
    # the password and asks for its full sync within a second or so.
    c.config_set("requirepass", "secret")
    replica = start_server("--replicaof", f"127.0.0.1 {p.port}")
    rc = replica.client()
    c.bgrewriteaof()
    wait_for(lambda: in_progress(c))
    rc.config_set("masterauth", "secret")
    wait_for(lambda: c.info("replication")["connected_slaves"] == 1, timeout=30)
    assert c.set("during", "rewrite") and c.ping()
    assert c.info("persistence")["rdb_last_bgsave_status"] == "ok"
    wait_for(lambda: rc.get("during") == "rewrite", timeout=60)
    assert rc.dbsize() == c.dbsize()
    assert c.info("persistence")["rdb_last_bgsave_status"] == "ok"
    # The replica waited on its one connection: it was not given +FULLRESYNC and dropped
    # because the rewrite held the snapshot (it used to reconnect every 100 ms meanwhile).
    assert p.log_path.read_text().count("asks for synchronization") == 1