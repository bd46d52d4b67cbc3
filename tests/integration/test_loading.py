"""Loading a dataset file at start-up, as Valkey: the server listens at once and answers
LOADING until the file is in (commands flagged `loading`, such as INFO, still run), INFO
persistence shows the progress, and SIGTERM or SHUTDOWN during a load exit without saving a
half-loaded dataset. key-load-delay slows the load down so the test can watch it; nothing here
depends on timing beyond waiting for a state to appear."""

import os
import re

import pytest

from conftest import RespError, wait_for

LOADING = "LOADING Valkey is loading the dataset in memory"
KEYS = 10000


def make_data(start_server, *args):
    """A server that saved KEYS keys; returns its stopped process (its dir holds the files)."""
    s = start_server("--enable-debug-command", "yes", *args)
    r = s.client()
    r.execute_command("DEBUG", "POPULATE", KEYS)
    r.save()
    s.stop()
    return s


def start_slow(start_server, data_dir, *args):
    """Starts on data_dir with a load of about 2.5 s, without waiting for it."""
    s = start_server("--dir", str(data_dir), "--key-load-delay", "250",
                     "--loading-process-events-interval-bytes", "1024", *args, wait=False)
    # Listening comes before the load: wait for the first LOADING answer.
    def loading():
        try:
            return s.raw(timeout=2).call("PING") == RespError(LOADING)
        except OSError:
            return False
    wait_for(loading, timeout=30)
    return s


def info_persistence(raw):
    text = raw.call("INFO", "persistence").decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def test_clients_get_loading_until_the_dump_is_in(start_server):
    saved = make_data(start_server)
    size = os.path.getsize(saved.dir / "dump.rdb")
    s = start_slow(start_server, saved.dir)
    c = s.raw()
    assert c.call("GET", "key:1") == RespError(LOADING)
    assert c.call("SET", "x", "1") == RespError(LOADING)
    info = info_persistence(c)
    assert info["loading"] == "1"
    assert int(info["loading_total_bytes"]) == size
    assert 0 <= int(info["loading_loaded_bytes"]) <= size
    assert 0.0 <= float(info["loading_loaded_perc"]) <= 100.0
    assert int(info["loading_start_time"]) > 0
    assert "loading_eta_seconds" in info
    wait_for(lambda: info_persistence(c)["loading"] == "0", timeout=120)
    assert "loading_total_bytes" not in info_persistence(c)
    assert c.call("DBSIZE") == KEYS
    assert c.call("GET", "key:1") == b"value:1"
    # The refused commands count as rejected calls.
    stats = c.call("INFO", "commandstats").decode()
    assert re.search(r"cmdstat_get:calls=1,.*,rejected_calls=1,", stats)


def test_sigterm_during_a_load_exits_without_saving(start_server):
    saved = make_data(start_server, "--save", "3600 1")
    before = (saved.dir / "dump.rdb").read_bytes()
    s = start_slow(start_server, saved.dir, "--save", "3600 1")
    assert s.stop() == 0
    assert "Received SIGTERM during loading" in s.log()
    assert (saved.dir / "dump.rdb").read_bytes() == before


def test_shutdown_during_a_load_does_not_save_half_the_data(start_server):
    saved = make_data(start_server, "--save", "3600 1")
    before = (saved.dir / "dump.rdb").read_bytes()
    s = start_slow(start_server, saved.dir, "--save", "3600 1")
    c = s.raw()
    c.send_command("SHUTDOWN", "SAVE")
    with pytest.raises(ConnectionError):
        c.read_reply()
    assert s.proc.wait(timeout=30) == 0
    assert (saved.dir / "dump.rdb").read_bytes() == before


def test_aof_load_answers_loading_too(start_server):
    s = start_server("--appendonly", "yes", "--enable-debug-command", "yes")
    r = s.client()
    r.execute_command("DEBUG", "POPULATE", KEYS)
    r.bgrewriteaof()
    wait_for(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0)
    r.set("after", "rewrite")  # in the incr file: replayed after the base
    s.stop()
    s2 = start_slow(start_server, s.dir, "--appendonly", "yes")
    c = s2.raw()
    assert c.call("GET", "after") == RespError(LOADING)
    assert info_persistence(c)["loading"] == "1"
    wait_for(lambda: info_persistence(c)["loading"] == "0", timeout=120)
    assert c.call("DBSIZE") == KEYS + 1
    assert c.call("GET", "after") == b"rewrite"
