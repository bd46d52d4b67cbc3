"""DEBUG (and its gating), SLOWLOG, TIME, LASTSAVE and SHUTDOWN."""

import re
import time

import pytest
import redis

ZERO_DIGEST = "0" * 40
DEBUG_DISABLED = (
    "DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can "
    "run it from a local connection, otherwise you need to set this option in the configuration "
    "file, and then restart the server.")


@pytest.fixture
def dr(start_server):
    """A client of a fresh server started with DEBUG enabled."""
    return start_server("--enable-debug-command", "yes").client()


def error_of(r, *args):
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command(*args)
    return str(e.value)


# ---- DEBUG gating

def test_debug_is_refused_by_default(sr):
    assert error_of(sr, "DEBUG", "DIGEST") == DEBUG_DISABLED
    assert error_of(sr, "DEBUG", "POPULATE", "10") == DEBUG_DISABLED
    assert sr.dbsize() == 0


def test_debug_local_allows_loopback_clients(start_server):
    r = start_server("--enable-debug-command", "local").client()
    assert r.execute_command("DEBUG", "DIGEST") == ZERO_DIGEST


# ---- DEBUG subcommands

def test_debug_populate(dr):
    assert dr.execute_command("DEBUG", "POPULATE", "1000")
    assert dr.dbsize() == 1000
    assert dr.get("key:0") == "value:0"
    assert dr.get("key:999") == "value:999"
    dr.execute_command("DEBUG", "POPULATE", "2", "pfx", "10")
    assert dr.get("pfx:1") == "value:1\x00\x00\x00"
    dr.execute_command("DEBUG", "POPULATE", "2", "cut", "3")
    assert dr.get("cut:1") == "val"
    # Existing keys are left alone.
    dr.set("key:5", "mine")
    dr.execute_command("DEBUG", "POPULATE", "10")
    assert dr.get("key:5") == "mine"
    assert error_of(dr, "DEBUG", "POPULATE", "-1") == "value is out of range, must be positive"
    assert error_of(dr, "DEBUG", "POPULATE", "1", "p", "x") == (
        "value is out of range, must be positive")


def test_debug_populate_a_large_dataset(dr):
    dr.execute_command("DEBUG", "POPULATE", "200000")
    assert dr.dbsize() == 200000
    assert dr.info("keyspace")["db0"]["keys"] == 200000
    memory = dr.info("memory")
    if memory["mem_allocator"].startswith("jemalloc"):  # libc counts are 0 under sanitizers
        assert memory["used_memory"] > 200000 * 32


def test_debug_digest_depends_only_on_content(start_server):
    a = start_server("--enable-debug-command", "yes").client()
    b = start_server("--enable-debug-command", "yes").client()
    assert a.execute_command("DEBUG", "DIGEST") == ZERO_DIGEST
    for i in range(200):
        a.set(f"k{i}", str(i * 7))
    for i in reversed(range(200)):
        b.set(f"k{i}", "x")
        b.append(f"k{i}", "")  # a raw-encoded string on one side
        b.set(f"k{i}", str(i * 7)) if i % 2 else b.setrange(f"k{i}", 0, str(i * 7))
    digest = a.execute_command("DEBUG", "DIGEST")
    assert re.fullmatch(r"[0-9a-f]{40}", digest) and digest != ZERO_DIGEST
    assert b.execute_command("DEBUG", "DIGEST") == digest
    b.expire("k1", 1000)
    assert b.execute_command("DEBUG", "DIGEST") != digest
    b.persist("k1")
    assert b.execute_command("DEBUG", "DIGEST") == digest
    b.set("k1", "changed")
    assert b.execute_command("DEBUG", "DIGEST") != digest
    b.flushall()
    assert b.execute_command("DEBUG", "DIGEST") == ZERO_DIGEST


def test_debug_digest_value(dr):
    dr.set("a", "123")
    dr.set("b", "12")
    dr.append("b", "3")
    da, db, missing = dr.execute_command("DEBUG", "DIGEST-VALUE", "a", "b", "nosuch")
    assert da == db and re.fullmatch(r"[0-9a-f]{40}", da)
    assert missing == ZERO_DIGEST
    assert dr.execute_command("DEBUG", "DIGEST-VALUE") == []


def test_debug_object(dr):
    dr.set("s", "hello")
    dr.set("n", "12345")
    dr.set("long", "x" * 60)
    info = dr.debug_object("s")
    assert info["encoding"] == "embstr"
    assert info["refcount"] == 1
    assert info["serializedlength"] == 6
    assert "lru" in info and "lru_seconds_idle" in info
    assert dr.debug_object("n")["encoding"] == "int"
    assert dr.debug_object("long")["encoding"] == "raw"
    assert error_of(dr, "DEBUG", "OBJECT", "nosuch") == "no such key"


def test_debug_sleep_set_active_expire_and_errors(dr):
    assert dr.execute_command("DEBUG", "SLEEP", "0")
    assert dr.execute_command("DEBUG", "SLEEP", "0.01")
    assert dr.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "0")
    dr.set("gone", "1", px=1)
    time.sleep(0.3)
    assert dr.dbsize() == 1  # nobody expires it in the background now
    assert dr.execute_command("DEBUG", "SET-ACTIVE-EXPIRE", "1")
    assert error_of(dr, "DEBUG", "ERROR", "CUSTOM failure") == "CUSTOM failure"
    assert error_of(dr, "DEBUG", "JMAP") == (
        "unknown subcommand or wrong number of arguments for 'JMAP'. Try DEBUG HELP.")
    assert error_of(dr, "DEBUG", "OBJECT") == (
        "unknown subcommand or wrong number of arguments for 'OBJECT'. Try DEBUG HELP.")
    help_lines = dr.execute_command("DEBUG", "HELP")
    assert help_lines[0].startswith("DEBUG <subcommand>")
    assert "POPULATE <count> [<prefix>] [<size>]" in help_lines


# ---- SLOWLOG

def test_slowlog_records_get_len_reset(start_server):
    r = start_server().client()
    r.client_setname("tester")
    r.config_set("slowlog-log-slower-than", "0")
    r.set("k", "v")
    r.get("k")
    entries = r.slowlog_get(2)
    assert len(entries) == 2
    # redis-py 4.3 joins the arguments as bytes whatever decode_responses says.
    commands = [e["command"] for e in entries]
    commands = [c.decode() if isinstance(c, bytes) else c for c in commands]
    assert commands == ["GET k", "SET k v"]
    assert entries[0]["id"] == entries[1]["id"] + 1
    assert abs(entries[0]["start_time"] - time.time()) < 60
    assert entries[0]["duration"] >= 0
    assert r.slowlog_len() >= 3
    assert len(r.slowlog_get(-1)) == r.slowlog_len() - 1  # SLOWLOG GET is itself logged after
    raw = r.execute_command("SLOWLOG", "GET", "1")
    assert raw[0][4].startswith("127.0.0.1:")
    assert raw[0][5] == "tester"
    assert r.slowlog_reset()
    r.config_set("slowlog-log-slower-than", "-1")
    assert r.slowlog_len() == 1  # the RESET itself; logging was off after the CONFIG SET


def test_slowlog_max_len_and_argument_trimming(start_server):
    r = start_server().client()
    r.config_set("slowlog-max-len", "3")
    r.config_set("slowlog-log-slower-than", "0")
    for i in range(10):
        r.echo(str(i))
    assert r.slowlog_len() == 3
    r.execute_command("ECHO", "y" * 200)
    args = r.execute_command("SLOWLOG", "GET", "1")[0][3]
    assert args[1] == "y" * 128 + "... (72 more bytes)"
    r.execute_command("MSET", *[str(i) for i in range(40)])
    args = r.execute_command("SLOWLOG", "GET", "1")[0][3]
    assert len(args) == 32 and args[-1] == "... (10 more arguments)"


def test_slowlog_errors_and_help(sr):
    assert error_of(sr, "SLOWLOG", "GET", "abc") == "count should be greater than or equal to -1"
    assert error_of(sr, "SLOWLOG", "GET", "-2") == "count should be greater than or equal to -1"
    assert error_of(sr, "SLOWLOG", "LEN", "x") == (
        "wrong number of arguments for 'slowlog|len' command")
    assert error_of(sr, "SLOWLOG", "foo") == "unknown subcommand 'foo'. Try SLOWLOG HELP."
    lines = sr.execute_command("SLOWLOG", "HELP")
    assert lines[0] == "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"


# ---- TIME, LASTSAVE, SHUTDOWN

def test_time_and_lastsave(sr):
    secs, usecs = sr.time()
    assert abs(secs - time.time()) < 60
    assert 0 <= usecs < 1000000
    assert abs(sr.lastsave().timestamp() - time.time()) < 3600


def test_shutdown_stops_the_server(start_server):
    s = start_server()
    r = s.client()
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command("SHUTDOWN", "ABORT")
    assert str(e.value) == "No shutdown in progress."
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command("SHUTDOWN", "NOSAVE", "SAVE")
    assert str(e.value) == "syntax error"
    r.shutdown(nosave=True)
    assert s.proc.wait(timeout=10) == 0


def test_shutdown_save_also_stops(start_server):
    s = start_server()
    s.client().shutdown(save=True)
    assert s.proc.wait(timeout=10) == 0
