"""CONFIG GET / SET / RESETSTAT / REWRITE / HELP, with Valkey's replies and error texts."""

import pytest
import redis

from conftest import RawConnection


def error_of(r, *args):
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command(*args)
    return str(e.value)


def test_config_set_get_round_trip_with_memory_units(r):
    assert r.config_set("maxmemory", "1gb")
    assert r.config_get("maxmemory") == {"maxmemory": "1073741824"}
    r.config_set("maxmemory", "100mb")
    assert r.config_get("maxmemory") == {"maxmemory": "104857600"}
    r.config_set("maxmemory", "2k")
    assert r.config_get("maxmemory") == {"maxmemory": "2000"}
    r.config_set("maxmemory", "0")
    assert r.config_get("maxmemory") == {"maxmemory": "0"}


def test_config_set_round_trips_of_each_kind(r):
    cases = {
        "hz": ("20", "20"),
        "maxmemory-policy": ("ALLKEYS-LRU", "allkeys-lru"),
        "slowlog-log-slower-than": ("-1", "-1"),
        "lazyfree-lazy-user-del": ("yes", "yes"),
        "activerehashing": ("NO", "no"),
        "save": ("100 10 200 20", "100 10 200 20"),
        "hash-max-listpack-entries": ("256", "256"),
        "repl-diskless-load": ("swapdb", "swapdb"),
        "notify-keyspace-events": ("", ""),
    }
    for name, (value, shown) in cases.items():
        assert r.config_set(name, value), name
        assert r.config_get(name) == {name: shown}, name
    r.config_set("save", "")
    assert r.config_get("save") == {"save": ""}


def test_config_get_patterns_aliases_and_dedupe(r):
    got = r.config_get("maxmemory*")
    assert set(got) == {"maxmemory", "maxmemory-policy", "maxmemory-samples",
                        "maxmemory-clients", "maxmemory-eviction-tenacity"}
    # Several patterns, one answer per parameter.
    got = r.execute_command("CONFIG", "GET", "hz", "HZ", "h?", "port")
    assert sorted(got[0::2]) == ["hz", "port"]
    # Old names still answer, as spelled.
    assert r.config_get("slave-read-only") == {"slave-read-only": "yes"}
    assert r.config_get("nosuch") == {}
    assert len(r.config_get("*")) > 150


def test_config_get_is_a_map_in_resp3(server):
    with RawConnection(server.host, server.port) as c:
        c.call("HELLO", "3")
        assert c.call("CONFIG", "GET", "hz", "maxmemory") == {b"hz": b"10", b"maxmemory": b"0"}


def test_config_set_error_texts(r):
    assert error_of(r, "CONFIG", "SET", "hz", "abc") == (
        "CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed "
        "into an integer")
    assert error_of(r, "CONFIG", "SET", "foo", "bar") == (
        "Unknown option or number of arguments for CONFIG SET - 'foo'")
    assert error_of(r, "CONFIG", "SET", "hz", "10", "maxmemory") == "syntax error"
    assert error_of(r, "CONFIG", "SET", "hz", "20", "hz", "30") == (
        "CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter")
    assert error_of(r, "CONFIG", "SET", "daemonize", "yes") == (
        "CONFIG SET failed (possibly related to argument 'daemonize') - can't set immutable "
        "config")
    assert error_of(r, "CONFIG", "SET", "dir", "/tmp") == (
        "CONFIG SET failed (possibly related to argument 'dir') - can't set protected config")
    assert error_of(r, "CONFIG", "SET", "maxmemory", "-1") == (
        "CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a "
        "memory value")
    assert error_of(r, "CONFIG", "SET", "lazyfree-lazy-user-del", "maybe") == (
        "CONFIG SET failed (possibly related to argument 'lazyfree-lazy-user-del') - argument "
        "must be 'yes' or 'no'")
    assert error_of(r, "CONFIG", "SET", "activerehashing", "maybe") == (
        "CONFIG SET failed (possibly related to argument 'activerehashing') - argument "
        "must be 'yes' or 'no'")
    assert r.config_get("activerehashing") == {"activerehashing": "yes"}  # unchanged
    assert error_of(r, "CONFIG", "SET", "loglevel", "loud") == (
        "CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) must be one "
        "of the following: debug, verbose, notice, warning, nothing")
    assert error_of(r, "CONFIG", "SET", "maxclients", "0") == (
        "CONFIG SET failed (possibly related to argument 'maxclients') - argument must be "
        "between 1 and 4294967295 inclusive")
    assert error_of(r, "CONFIG", "SET", "save", "abc") == (
        "CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters")
    assert error_of(r, "CONFIG", "SET", "hz") == (
        "wrong number of arguments for 'config|set' command")
    assert error_of(r, "CONFIG", "GET") == "wrong number of arguments for 'config|get' command"
    assert error_of(r, "CONFIG", "foo") == "unknown subcommand 'foo'. Try CONFIG HELP."


def test_oom_score_adj_values_are_checked(r):
    """Three scores in [-2000, 2000], as redis-server 7.0 checks them (stored for CONFIG GET;
    Vireo does not write oom_score_adj)."""
    prefix = "CONFIG SET failed (possibly related to argument 'oom-score-adj-values') - "
    for value in ("0 200", "0 200 800 1"):
        assert error_of(r, "CONFIG", "SET", "oom-score-adj-values", value) == (
            prefix + "wrong number of arguments")
    for value in ("a b c", "0 200 3000", "0 -2001 0"):
        assert error_of(r, "CONFIG", "SET", "oom-score-adj-values", value) == (
            prefix + "Invalid oom-score-adj-values, elements must be between -2000 and 2000.")
    assert r.config_set("oom-score-adj-values", "2000 -2000 0")
    assert r.config_get("oom-score-adj-values") == {"oom-score-adj-values": "2000 -2000 0"}


def test_config_set_several_pairs_is_all_or_nothing(r):
    assert error_of(r, "CONFIG", "SET", "hz", "20", "maxmemory", "abc").startswith(
        "CONFIG SET failed (possibly related to argument 'maxmemory')")
    assert r.config_get("hz") == {"hz": "10"}
    assert r.execute_command("CONFIG", "SET", "hz", "20", "maxmemory", "1mb") in (True, "OK")
    assert r.config_get("hz") == {"hz": "20"}
    assert r.config_get("maxmemory") == {"maxmemory": "1048576"}


def test_config_hz_is_clamped(r):
    r.config_set("hz", "10000")
    assert r.config_get("hz") == {"hz": "500"}
    assert r.info("server")["hz"] == 500
    r.config_set("hz", "0")
    assert r.config_get("hz") == {"hz": "1"}


def test_config_set_requirepass_takes_effect_for_new_connections(server):
    r = server.client()
    r.config_set("requirepass", "s3cret")
    assert r.ping()  # already-authenticated connections stay so
    fresh = server.client()
    with pytest.raises(redis.AuthenticationError):
        fresh.ping()
    authed = server.client(password="s3cret")
    assert authed.ping()
    authed.config_set("requirepass", "")
    assert server.client().ping()


def test_config_set_dir_when_protected_configs_are_enabled(start_server, tmp_path):
    s = start_server("--enable-protected-configs", "yes")
    r = s.client()
    target = tmp_path / "elsewhere"
    target.mkdir()
    r.config_set("dir", str(target))
    assert r.config_get("dir") == {"dir": str(target)}
    assert "No such file or directory" in error_of(
        r, "CONFIG", "SET", "dir", str(tmp_path / "missing"))
    assert r.config_get("dir") == {"dir": str(target)}


def test_config_resetstat(r):
    r.set("k", "v")
    r.get("k")
    r.get("missing")
    with pytest.raises(redis.ResponseError):
        r.execute_command("CONFIG", "SET", "hz", "abc")
    r.config_set("slowlog-log-slower-than", "0")
    r.ping()
    assert r.config_resetstat()
    stats = r.info("stats")
    assert stats["keyspace_hits"] == 0
    assert stats["keyspace_misses"] == 0
    assert stats["total_error_replies"] == 0
    assert r.info("errorstats") == {}
    assert set(r.info("commandstats")) == {"cmdstat_config|resetstat", "cmdstat_info"}
    assert r.slowlog_len() > 0  # not a statistic


def test_config_rewrite_without_config_file(r):
    assert error_of(r, "CONFIG", "REWRITE") == "The server is running without a config file"


def test_config_rewrite_updates_the_file_and_survives_restart(start_server):
    s = start_server(config="# tuned by hand\nhz 20\nmaxmemory 100mb\nslowlog-max-len 64\n")
    r = s.client()
    r.config_set("hz", "30")
    r.config_set("maxmemory-policy", "allkeys-lru")
    r.config_set("slowlog-max-len", "128")  # back to the default: stays in the file
    assert r.config_rewrite()
    text = s.config_path.read_text()
    lines = text.splitlines()
    assert lines[0] == "# tuned by hand"
    assert lines[1] == "hz 30"
    assert lines[2] == "maxmemory 100mb"
    assert lines[3] == "slowlog-max-len 128"
    assert "# Generated by CONFIG REWRITE" in lines
    assert "maxmemory-policy allkeys-lru" in lines
    assert text.count("\nhz ") == 1
    s.restart()
    r = s.client()
    assert r.config_get("hz") == {"hz": "30"}
    assert r.config_get("maxmemory-policy") == {"maxmemory-policy": "allkeys-lru"}
    assert r.config_get("maxmemory") == {"maxmemory": "104857600"}
    assert r.info("server")["config_file"] == str(s.config_path)


def test_config_help(r):
    lines = r.execute_command("CONFIG", "HELP")
    assert lines[0] == "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    assert "GET <pattern>" in lines and "REWRITE" in lines
    assert lines[-2:] == ["HELP", "    Print this help."]
