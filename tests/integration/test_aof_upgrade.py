"""A pre-7 single-file AOF (`appendfilename` in `dir`, no `appenddirname`) is upgraded at
start-up as Valkey 7 / redis-server 7.0 do: it moves into the AOF directory under its own
name as the base, a manifest names it, and an incremental file follows. Both the
command-format file (with a torn tail) and the RDB-preamble-then-commands file; each run
side by side with Debian's redis-server where present."""
import os
import shutil

import pytest

from conftest import RawConnection, wait_for
from test_aof import aof_dir, restart, start_aof, wait_rewrite
from test_rdb import REDIS_SERVER, dataset, populate

TORN = b"*3\r\n$3\r\nSET\r\n$4\r\ntorn"


def commands(*cmds):
    return b"".join(RawConnection.encode(*c) for c in cmds)


def start_on_old_file(start_server, content, binary=None):
    """A server (appendonly yes) started on a dir holding only content as appendonly.aof."""
    s = start_aof(start_server, binary=binary)
    s.stop()
    shutil.rmtree(aof_dir(s))
    (s.dir / "appendonly.aof").write_bytes(content)
    s.start(port=s.port)
    return s


def layout(s):
    d = aof_dir(s)
    return (sorted(os.listdir(d)), (d / "appendonly.aof.manifest").read_text(),
            os.path.exists(s.dir / "appendonly.aof"))


def binaries():
    return [None] + ([REDIS_SERVER] if os.path.exists(REDIS_SERVER) else [])


def test_command_file_becomes_the_base(start_server):
    old = commands(("SELECT", 0), ("SET", "a", 1), ("RPUSH", "l", "x", "y"), ("SELECT", 2),
                   ("SET", "b", 2), ("HSET", "h", "f", "v"), ("SELECT", 0), ("INCR", "a")) + TORN
    servers = [start_on_old_file(start_server, old, binary) for binary in binaries()]
    results = [(layout(s), dataset(s.client(decode_responses=False))) for s in servers]
    got_layout, got_data = results[0]
    assert got_layout == (
        ["appendonly.aof", "appendonly.aof.1.incr.aof", "appendonly.aof.manifest"],
        "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
        False)
    assert got_data[(0, b"a")][1] == b"2" and got_data[(0, b"l")][1] == [b"x", b"y"]
    assert (0, b"torn") not in got_data  # the torn tail was cut (aof-load-truncated)
    for other in results[1:]:
        assert other == results[0]
    assert ("Successfully migrated an old-style AOF file (appendonly.aof) into the AOF "
            "directory (appendonlydir).") in servers[0].log()

    # The upgraded AOF goes on as any other: writes survive a restart, and a rewrite
    # replaces the old file by a numbered base.
    s = start_on_old_file(start_server, old)
    c = s.client()
    c.set("after", "upgrade")
    c = restart(s)
    assert c.get("a") == "2" and c.get("after") == "upgrade"
    c.bgrewriteaof()
    assert wait_rewrite(c)["aof_last_bgrewrite_status"] == "ok"
    # The replaced files are unlinked in the background (as Valkey's), after the rewrite ends.
    want = ["appendonly.aof.2.base.rdb", "appendonly.aof.2.incr.aof", "appendonly.aof.manifest"]
    assert wait_for(lambda: sorted(os.listdir(aof_dir(s))) == want)
    c = restart(s)
    assert c.get("a") == "2" and c.get("after") == "upgrade" and c.lrange("l", 0, -1) == ["x", "y"]


def test_rdb_preamble_file_with_a_command_tail(start_server):
    src = start_aof(start_server, "--appendonly", "no")
    sc = src.client(decode_responses=False)
    populate(sc)
    assert sc.save()
    rdb = (src.dir / "dump.rdb").read_bytes()
    src.stop()
    old = rdb + commands(("SELECT", 0), ("INCR", "s:int"), ("DEL", "s:long"),
                         ("SET", "tail:key", "from the tail"), ("SELECT", 3),
                         ("RPUSH", "db3:list", 4))
    servers = [start_on_old_file(start_server, old, binary) for binary in binaries()]
    results = [(layout(s), dataset(s.client(decode_responses=False))) for s in servers]
    (names, manifest, leftover), data = results[0]
    assert names == ["appendonly.aof", "appendonly.aof.1.incr.aof", "appendonly.aof.manifest"]
    assert not leftover
    assert data[(0, b"s:int")][1] == b"12346" and (0, b"s:long") not in data
    assert data[(0, b"tail:key")][1] == b"from the tail"
    assert data[(3, b"db3:list")][1] == [b"1", b"2", b"3", b"4"]
    for other in results[1:]:
        assert other == results[0]
    assert "Reading the remaining AOF tail..." in servers[0].log()


def test_interrupted_upgrade_is_finished_and_real_aofs_are_left_alone(start_server):
    old = commands(("SET", "k", "old"))
    # A crash after the manifest was written but before the file moved.
    s = start_aof(start_server)
    s.stop()
    shutil.rmtree(aof_dir(s))
    os.mkdir(aof_dir(s))
    (aof_dir(s) / "appendonly.aof.manifest").write_text("file appendonly.aof seq 1 type b\n")
    (s.dir / "appendonly.aof").write_bytes(old)
    s.start(port=s.port)
    assert s.client().get("k") == "old"
    assert not os.path.exists(s.dir / "appendonly.aof")
    # A multi-part AOF in place: a stray appendonly.aof in dir is not loaded or moved.
    s.client().set("k", "new")
    s.stop()
    (s.dir / "appendonly.aof").write_bytes(commands(("SET", "k", "stray")))
    s.start(port=s.port)
    assert s.client().get("k") == "new"
    assert os.path.exists(s.dir / "appendonly.aof")


@pytest.mark.parametrize("bad", [b"*2\r\n$3\r\nGET\r\nxx", b"garbage\r\n"])
def test_bad_old_file_refuses_to_start(start_server, bad):
    s = start_aof(start_server, "--aof-load-truncated", "no")
    s.stop()
    shutil.rmtree(aof_dir(s))
    (s.dir / "appendonly.aof").write_bytes(commands(("SET", "k", "v")) + bad)
    s.expect_crash = True
    with pytest.raises(RuntimeError, match="appendonly.aof"):
        s.start(port=s.port)
