"""LATENCY (monitor and histograms), INFO latencystats, latency-tracking configs, and the
parts of SLOWLOG that redis-server 7.0 has beyond the basics (redaction, script clients).

Latency events are made with DEBUG SLEEP 0.02 under latency-monitor-threshold 10: the tests
only check that an event exists, never how long anything took."""

import os
import re

import pytest
import redis

from conftest import VALKEY_SERVER

# valkey-server 8.0.1's texts (Redis 7.0's talk to Dave at more length).
DISABLED = (
    "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Valkey instance. "
    "You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable "
    "it.\n")
NO_SPIKES = (
    "No latency spike was observed during the lifetime of this Valkey instance, not in the "
    "slightest bit.\n")
BUCKETS = {1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16908, 33816,
           67633, 135266, 270532, 541065, 1082130}


@pytest.fixture
def srv(start_server):
    return start_server("--enable-debug-command", "yes")


@pytest.fixture
def lr(srv):
    return srv.client()


def info_text(srv, *sections):
    return srv.raw().call("INFO", *sections).decode()


def error_of(r, *args):
    with pytest.raises(redis.ResponseError) as e:
        r.execute_command(*args)
    return str(e.value)


def spike(r):
    r.config_set("latency-monitor-threshold", "10")
    r.execute_command("DEBUG", "SLEEP", "0.02")


# ---- LATENCY: arity, help, unknown subcommands

def test_latency_help_and_errors(lr):
    lines = lr.execute_command("LATENCY", "HELP")
    assert lines[0] == "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    assert lines[1:4] == ["DOCTOR", "    Return a human readable latency analysis report.",
                          "GRAPH <event>"]
    assert "HISTOGRAM [COMMAND ...]" in lines
    assert lines[-2:] == ["HELP", "    Print this help."]
    assert len(lines) == 17
    assert error_of(lr, "LATENCY") == "wrong number of arguments for 'latency' command"
    assert error_of(lr, "LATENCY", "foo") == "unknown subcommand 'foo'. Try LATENCY HELP."
    for sub, args in (("history", ()), ("history", ("a", "b")), ("graph", ()),
                      ("latest", ("x",)), ("doctor", ("x",)), ("help", ("x",))):
        assert error_of(lr, "LATENCY", sub, *args) == (
            f"wrong number of arguments for 'latency|{sub}' command")


def test_latency_is_empty_while_monitoring_is_off(lr):
    assert lr.config_get("latency-monitor-threshold") == {"latency-monitor-threshold": "0"}
    lr.execute_command("DEBUG", "SLEEP", "0.02")
    assert lr.execute_command("LATENCY", "LATEST") == []
    assert lr.execute_command("LATENCY", "HISTORY", "command") == []
    assert lr.execute_command("LATENCY", "RESET") == 0
    assert lr.execute_command("LATENCY", "DOCTOR") == DISABLED
    assert error_of(lr, "LATENCY", "GRAPH", "command") == (
        "No samples available for event 'command'")


# ---- the monitor

def test_latency_latest_history_reset(lr):
    spike(lr)
    latest = lr.execute_command("LATENCY", "LATEST")
    assert len(latest) == 1
    event, when, last, worst = latest[0]
    assert event == "command"
    assert when > 1600000000 and last >= 10 and worst >= last
    history = lr.execute_command("LATENCY", "HISTORY", "command")
    assert len(history) == 1 and history[0] == [when, last]
    assert lr.execute_command("LATENCY", "HISTORY", "nosuch") == []
    assert lr.execute_command("LATENCY", "HISTORY", "COMMAND") == []  # names are exact here
    assert lr.execute_command("LATENCY", "RESET", "nosuch") == 0
    assert lr.execute_command("LATENCY", "RESET", "Command", "nosuch") == 1  # but not here
    assert lr.execute_command("LATENCY", "LATEST") == []
    spike(lr)
    assert lr.execute_command("LATENCY", "RESET") == 1
    assert lr.execute_command("LATENCY", "RESET") == 0


def test_latency_graph(lr):
    spike(lr)
    graph = lr.execute_command("LATENCY", "GRAPH", "command")
    lines = graph.split("\n")
    assert re.fullmatch(r"command - high (\d+) ms, low \1 ms \(all time high \1 ms\)", lines[0])
    assert lines[1] == "-" * 80
    # One sample: four rows with its '_' at the bottom, a blank row, its label ("0s") downwards.
    assert lines[2:7] == [" ", " ", " ", "_", " "]
    assert lines[7].isdigit() and lines[8] == "s" and lines[9:] == [""]


def test_latency_doctor(lr):
    lr.config_set("latency-monitor-threshold", "10")
    report = lr.execute_command("LATENCY", "DOCTOR")
    # Where the kernel gives this process transparent huge pages, DOCTOR says so instead.
    assert report == NO_SPIKES or "anonymous huge pages used by your process" in report
    lr.execute_command("DEBUG", "SLEEP", "0.02")
    report = lr.execute_command("LATENCY", "DOCTOR")
    assert report.startswith("Latency spikes are observed in this Valkey instance.\n\n"
                             "1. command: 1 latency spikes (average ")
    assert "\n\nHere is some advice for you:\n\n- Check your Slow Log" in report
    assert "- Deleting, expiring or evicting" in report
    # slowlog-log-slower-than above the threshold: advice to lower it.
    lr.config_set("slowlog-log-slower-than", "50000")
    assert ("Please use 'CONFIG SET slowlog-log-slower-than 10000'."
            in lr.execute_command("LATENCY", "DOCTOR"))
    lr.config_set("slowlog-log-slower-than", "-1")
    assert ("Try to enable the Slow Log Valkey feature using the command 'CONFIG SET "
            "slowlog-log-slower-than 10000'." in lr.execute_command("LATENCY", "DOCTOR"))


def test_latency_doctor_resp3_is_verbatim(start_server):
    s = start_server()
    raw = s.raw()
    raw.call("HELLO", "3")
    reply = raw.call("LATENCY", "DOCTOR")
    assert reply.format == "txt" and reply == DISABLED


# ---- latency-tracking: LATENCY HISTOGRAM and INFO latencystats

def histogram_map(flat):
    """RESP2 flattens the maps: [name, [calls, n, histogram_usec, [k, v, ...]], ...]."""
    out = {}
    for i in range(0, len(flat), 2):
        fields = dict(zip(flat[i + 1][::2], flat[i + 1][1::2]))
        buckets = fields["histogram_usec"]
        out[flat[i]] = (fields["calls"], list(zip(buckets[::2], buckets[1::2])))
    return out


def test_latency_histogram(lr):
    lr.config_resetstat()  # the fixture's own PINGs
    for _ in range(3):
        lr.ping()
    lr.config_get("maxmemory")
    flat = lr.execute_command("LATENCY", "HISTOGRAM", "ping", "nosuch", "CONFIG|GET", "config")
    # Unknown names are skipped, a container stands for its subcommands, repeats repeat.
    assert flat[:3:2] == ["ping", "config|get"]
    assert sorted(flat[4::2]) == ["config|get", "config|resetstat"]
    got = histogram_map(flat)
    calls, buckets = got["ping"]
    assert calls == 3
    assert buckets[-1][1] == 3
    assert all(k in BUCKETS for k, _ in buckets)
    assert [v for _, v in buckets] == sorted(v for _, v in buckets)
    assert got["config|get"][0] == 1
    everything = histogram_map(lr.execute_command("LATENCY", "HISTOGRAM"))
    assert {"ping", "config|get", "latency|histogram"} <= set(everything)
    assert lr.execute_command("LATENCY", "HISTOGRAM", "nosuch", "get") == []
    lr.config_resetstat()
    assert histogram_map(lr.execute_command("LATENCY", "HISTOGRAM", "ping")) == {}


def test_latency_histogram_resp3(start_server):
    r = start_server().raw()
    r.call("HELLO", "3")
    r.call("CONFIG", "RESETSTAT")
    r.call("PING")
    got = r.call("LATENCY", "HISTOGRAM", "ping")
    assert list(got) == [b"ping"]
    assert got[b"ping"][b"calls"] == 1
    ((bucket, count),) = got[b"ping"][b"histogram_usec"].items()
    assert bucket in BUCKETS and count == 1


def test_info_latencystats(srv, lr):
    lr.ping()
    (before, _), = histogram_map(lr.execute_command("LATENCY", "HISTOGRAM", "ping")).values()
    text = info_text(srv, "latencystats")
    assert text.startswith("# Latencystats\r\n")
    assert re.search(r"^latency_percentiles_usec_ping:p50=\d+\.\d{3},p99=\d+\.\d{3},"
                     r"p99\.9=\d+\.\d{3}\r$", text, re.M)
    assert "# Latencystats" not in info_text(srv)
    assert "# Latencystats" in info_text(srv, "all")
    lr.config_set("latency-tracking-info-percentiles", "50.5 100 0")
    assert lr.config_get("latency-tracking-info-percentiles") == {
        "latency-tracking-info-percentiles": "50.5 100 0"}
    line = re.search(r"^latency_percentiles_usec_ping:[^\r]*",
                     info_text(srv, "latencystats"), re.M).group(0)
    assert re.fullmatch(r"latency_percentiles_usec_ping:p50\.5=[\d.]+,p100=[\d.]+,p0=[\d.]+",
                        line)
    lr.config_set("latency-tracking-info-percentiles", "")
    assert re.search(r"^latency_percentiles_usec_ping:\r$",
                     info_text(srv, "latencystats"), re.M)
    lr.config_set("latency-tracking", "no")
    assert info_text(srv, "latencystats") == "# Latencystats\r\n"
    lr.ping()
    lr.config_set("latency-tracking", "yes")
    # Off means nothing recorded; what was recorded stays.
    (calls, _), = histogram_map(lr.execute_command("LATENCY", "HISTOGRAM", "ping")).values()
    assert calls == before


def test_latency_configs(lr):
    assert lr.config_get("latency-*") == {
        "latency-monitor-threshold": "0", "latency-tracking": "yes",
        "latency-tracking-info-percentiles": "50 99 99.9"}
    prefix = ("CONFIG SET failed (possibly related to argument "
              "'latency-tracking-info-percentiles') - ")
    assert error_of(lr, "CONFIG", "SET", "latency-tracking-info-percentiles", "50 abc") == (
        prefix + "Invalid latency-tracking-info-percentiles parameters")
    assert error_of(lr, "CONFIG", "SET", "latency-tracking-info-percentiles", "101") == (
        prefix + "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]")
    assert lr.config_get("latency-tracking-info-percentiles") == {
        "latency-tracking-info-percentiles": "50 99 99.9"}
    assert error_of(lr, "CONFIG", "SET", "latency-monitor-threshold", "-1") == (
        "CONFIG SET failed (possibly related to argument 'latency-monitor-threshold') - "
        "argument must be between 0 and 9223372036854775807 inclusive")


def test_latency_configs_from_the_command_line(start_server):
    r = start_server("--latency-tracking-info-percentiles", "99 99.99",
                     "--latency-monitor-threshold", "5", "--latency-tracking", "no").client()
    assert r.config_get("latency-*") == {
        "latency-monitor-threshold": "5", "latency-tracking": "no",
        "latency-tracking-info-percentiles": "99 99.99"}


# ---- SLOWLOG beyond the basics

def test_slowlog_redacts_secrets_and_names_clients(lr):
    lr.config_set("slowlog-log-slower-than", "0")
    lr.client_setname("me")
    with pytest.raises(redis.ResponseError):
        lr.execute_command("AUTH", "user", "pw")
    lr.execute_command("CONFIG", "SET", "maxmemory", "0", "masterauth", "q")
    lr.execute_command("EVAL", "return redis.call('set', 'a', 'b')", "0")
    entries = lr.execute_command("SLOWLOG", "GET", "4")
    by_cmd = {e[3][0].lower(): e for e in entries}
    assert by_cmd["auth"][3] == ["AUTH", "(redacted)", "(redacted)"]
    assert by_cmd["config"][3] == ["CONFIG", "SET", "maxmemory", "0", "masterauth",
                                   "(redacted)"]
    assert re.fullmatch(r"127\.0\.0\.1:\d+", by_cmd["auth"][4]) and by_cmd["auth"][5] == "me"
    # The script's own SET, logged for the script client.
    assert by_cmd["set"][3] == ["set", "a", "b"]
    assert by_cmd["set"][4:] == ["?:0", ""]
    assert by_cmd["eval"][5] == "me"


# ---- AOF latency events (Valkey's names), against the reference server where it is present

def server_binary(which):
    """None (Vireo) or the reference valkey-server; skips where it is absent."""
    if which != "valkey":
        return None
    if not os.path.exists(VALKEY_SERVER):
        pytest.skip("needs the reference valkey-server in ../shared/reference/")
    return VALKEY_SERVER


@pytest.mark.parametrize("which", ["vireo", "valkey"])
def test_aof_writes_are_latency_events(start_server, which):
    """A write of the AOF buffer slower than the threshold is the event "aof-write" and one of
    "aof-write-alone" / "-active-child" / "-pending-fsync" (what it ran beside): a 64 MB SET
    is a 64 MB write, well past 1 ms."""
    s = start_server("--appendonly", "yes", "--appendfsync", "no",
                     "--latency-monitor-threshold", "1", binary=server_binary(which))
    r = s.client()
    r.set("big", "x" * (64 << 20))
    events = {e[0] for e in r.execute_command("LATENCY", "LATEST")}
    assert "aof-write" in events
    assert events & {"aof-write-alone", "aof-write-active-child", "aof-write-pending-fsync"}
    assert r.execute_command("LATENCY", "HISTORY", "aof-write")


@pytest.mark.parametrize("which", ["vireo", "valkey"])
def test_the_aof_write_is_not_the_command_s_time(start_server, which):
    """A command's time (slow log, the "command" event) ends before its AOF feed and write, as
    in Valkey (which writes in beforeSleep; Vireo writes ahead past 1 MB right after the
    command): the 128 MB SET is logged faster than the write of its AOF buffer took."""
    s = start_server("--appendonly", "yes", "--appendfsync", "no",
                     "--latency-monitor-threshold", "1", "--slowlog-log-slower-than", "0",
                     binary=server_binary(which))
    r = s.client()
    r.slowlog_reset()
    r.set("big", "x" * (128 << 20))
    latest = {e[0]: e for e in r.execute_command("LATENCY", "LATEST")}
    assert "aof-write" in latest
    write_ms = latest["aof-write"][2]
    set_us = [e["duration"] for e in r.slowlog_get(10)
              if e["command"][:7] in (b"SET big", "SET big")]
    assert len(set_us) == 1
    assert set_us[0] / 1000 < write_ms
