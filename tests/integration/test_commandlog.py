"""COMMANDLOG (Valkey 8.1): the slow log (shared with SLOWLOG), and the logs of commands with a
large request or a large reply, with their settings, limits and errors."""

import pytest

from conftest import RawConnection, RespError

TYPES = ("slow", "large-request", "large-reply")


@pytest.fixture
def c(start_server):
    server = start_server("--enable-debug-command", "yes")
    with RawConnection(server.host, server.port) as conn:
        yield conn


def lengths(c):
    return [c.call("COMMANDLOG", "LEN", t) for t in TYPES]


def test_defaults_log_nothing_small_and_aliases_share_the_slow_log(c):
    assert lengths(c) == [0, 0, 0]
    assert c.call("CONFIG", "GET", "commandlog-*") == [
        b"commandlog-request-larger-than", b"1048576",
        b"commandlog-large-request-max-len", b"128",
        b"commandlog-reply-larger-than", b"1048576",
        b"commandlog-large-reply-max-len", b"128",
        b"commandlog-execution-slower-than", b"10000",
        b"commandlog-slow-execution-max-len", b"128"]
    # Valkey 8.1's names set what SLOWLOG uses, and the other way round.
    assert c.call("CONFIG", "SET", "commandlog-execution-slower-than", "0") == "OK"
    assert c.call("CONFIG", "GET", "slowlog-log-slower-than") == [
        b"slowlog-log-slower-than", b"0"]
    c.call("PING")
    c.call("CONFIG", "SET", "slowlog-log-slower-than", "-1")
    assert c.call("SLOWLOG", "LEN") == c.call("COMMANDLOG", "LEN", "slow") > 0
    assert c.call("SLOWLOG", "GET", "1") == c.call("COMMANDLOG", "GET", "1", "slow")
    assert c.call("COMMANDLOG", "RESET", "slow") == "OK"
    assert c.call("SLOWLOG", "LEN") == 0


def test_only_commands_past_a_threshold_are_logged(c):
    c.call("CLIENT", "SETNAME", "logger")
    c.call("CONFIG", "SET", "commandlog-execution-slower-than", "100000")
    c.call("PING")
    c.call("DEBUG", "SLEEP", "0.2")
    c.call("CONFIG", "SET", "commandlog-request-larger-than", "1024")
    c.call("PING")
    value = "A" * 1024
    c.call("SET", "k", value)
    c.call("CONFIG", "SET", "commandlog-reply-larger-than", "1024")
    c.call("PING")
    c.call("GET", "k")
    assert lengths(c) == [1, 1, 1]
    (slow,) = c.call("COMMANDLOG", "GET", "-1", "slow")
    assert slow[0] == 0 and slow[2] >= 200000
    assert slow[3] == [b"DEBUG", b"SLEEP", b"0.2"]
    assert slow[5] == b"logger"
    (request,) = c.call("COMMANDLOG", "GET", "-1", "large-request")
    # The request's RESP size: *3 $3 SET $1 k $1024 <1024 bytes>.
    assert request[0] == 0 and request[2] == 4 + 9 + 7 + 7 + 1024 + 2
    assert request[3] == [b"SET", b"k", b"A" * 128 + b"... (896 more bytes)"]
    assert request[4].startswith(b"127.0.0.1:") and request[5] == b"logger"
    (reply,) = c.call("COMMANDLOG", "GET", "-1", "large-reply")
    assert reply[2] == 7 + 1024 + 2  # $1024\r\n ... \r\n
    assert reply[3] == [b"GET", b"k"]


def test_every_command_at_threshold_zero_and_the_length_limits(c):
    for name in ("slow-execution", "large-request", "large-reply"):
        c.call("CONFIG", "SET", f"commandlog-{name}-max-len", "10")
    for setting in ("execution-slower-than", "request-larger-than", "reply-larger-than"):
        c.call("CONFIG", "SET", f"commandlog-{setting}", "0")
    for _ in range(30):
        c.call("PING")
    assert lengths(c) == [10, 10, 10]
    for t in TYPES:
        assert len(c.call("COMMANDLOG", "GET", "5", t)) == 5
        assert len(c.call("COMMANDLOG", "GET", "-1", t)) == 10
        assert len(c.call("COMMANDLOG", "GET", "0", t)) == 0
        newest = c.call("COMMANDLOG", "GET", "1", t)[0]
        assert newest[0] > c.call("COMMANDLOG", "GET", "-1", t)[-1][0]  # newest first
    for name in ("slow-execution", "large-request", "large-reply"):
        c.call("CONFIG", "SET", f"commandlog-{name}-max-len", "0")
    c.call("PING")
    assert lengths(c) == [0, 0, 0]
    # -1 turns a log off.
    for name in ("slow-execution", "large-request", "large-reply"):
        c.call("CONFIG", "SET", f"commandlog-{name}-max-len", "10")
    for setting in ("execution-slower-than", "request-larger-than", "reply-larger-than"):
        c.call("CONFIG", "SET", f"commandlog-{setting}", "-1")
    for t in TYPES:
        c.call("COMMANDLOG", "RESET", t)
    c.call("PING")
    assert lengths(c) == [0, 0, 0]


def test_exec_is_not_logged_its_commands_are(c):
    c.call("CONFIG", "SET", "commandlog-reply-larger-than", "100")
    c.call("SET", "big", "x" * 200)
    c.call("MULTI")
    c.call("GET", "big")
    c.call("PING")
    assert len(c.call("EXEC")) == 2
    assert [e[3] for e in c.call("COMMANDLOG", "GET", "-1", "large-reply")] == [
        [b"GET", b"big"]]


def test_errors_and_help(c):
    type_error = RespError(
        "ERR type should be one of the following: slow, large-request, large-reply")
    count_error = RespError("ERR count should be greater than or equal to -1")
    assert c.call("COMMANDLOG", "GET", "1", "fast") == type_error
    assert c.call("COMMANDLOG", "LEN", "nope") == type_error
    assert c.call("COMMANDLOG", "RESET", "") == type_error
    assert c.call("COMMANDLOG", "GET", "-2", "slow") == count_error
    assert c.call("COMMANDLOG", "GET", "x", "nope") == count_error  # the count goes first
    assert c.call("COMMANDLOG", "GET", "1") == RespError(
        "ERR wrong number of arguments for 'commandlog|get' command")
    assert c.call("COMMANDLOG", "LEN") == RespError(
        "ERR wrong number of arguments for 'commandlog|len' command")
    assert c.call("COMMANDLOG", "NOPE") == RespError(
        "ERR unknown subcommand 'NOPE'. Try COMMANDLOG HELP.")
    assert c.call("COMMANDLOG", "len", "LARGE-REPLY") == 0  # any case
    help_lines = c.call("COMMANDLOG", "HELP")
    assert help_lines[0].startswith("COMMANDLOG <subcommand> [<arg> [value] [opt] ...].")
    assert "GET <count> <type>" in help_lines and "RESET <type>" in help_lines
    assert c.call("CONFIG", "SET", "commandlog-reply-larger-than", "-2") == RespError(
        "ERR CONFIG SET failed (possibly related to argument 'commandlog-reply-larger-than') - "
        "argument must be between -1 and 9223372036854775807 inclusive")
