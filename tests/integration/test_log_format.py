"""log-format and log-timestamp-format (Valkey 8.1): the shape of every log line, at start-up
and after CONFIG SET, and Valkey's errors for values it does not know."""

import re
import subprocess

import pytest
import redis

from conftest import SERVER_BINARY, wait_for

TIMESTAMPS = {
    "legacy": r"\d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}\.\d{3}",
    "iso8601": r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}",
    "milliseconds": r"\d{13}",
}


def line_pattern(log_format, timestamp_format, message):
    when = TIMESTAMPS[timestamp_format]
    if log_format == "legacy":
        return re.compile(rf"^\d+:M {when} \* {re.escape(message)}$", re.M)
    return re.compile(rf'^pid=\d+ role=primary timestamp="{when}" level=notice '
                      rf'message="{re.escape(message)}"$', re.M)


@pytest.mark.parametrize("timestamp_format", sorted(TIMESTAMPS))
@pytest.mark.parametrize("log_format", ["legacy", "logfmt"])
def test_start_up_lines_take_the_configured_shape(start_server, log_format, timestamp_format):
    s = start_server("--log-format", log_format, "--log-timestamp-format", timestamp_format)
    assert line_pattern(log_format, timestamp_format,
                        "Ready to accept connections tcp").search(s.log()), s.log()
    r = s.client()
    assert r.config_get("log-format") == {"log-format": log_format}
    assert r.config_get("log-timestamp-format") == {"log-timestamp-format": timestamp_format}


def test_the_defaults_are_legacy(server):
    r = server.client()
    assert r.config_get("log-*") == {"log-format": "legacy", "log-timestamp-format": "legacy"}
    assert line_pattern("legacy", "legacy", "Ready to accept connections tcp").search(server.log())


def test_config_set_changes_the_next_lines(start_server):
    s = start_server("--enable-debug-command", "yes")
    r = s.client()
    r.config_set("log-format", "logfmt")
    r.execute_command("DEBUG", "LOG", "first")
    assert wait_for(lambda: re.search(
        rf'^pid=\d+ role=primary timestamp="{TIMESTAMPS["legacy"]}" level=warning '
        r'message="DEBUG LOG: first"$', s.log(), re.M)), s.log()
    r.config_set("log-timestamp-format", "milliseconds")
    r.execute_command("DEBUG", "LOG", "second")
    assert wait_for(lambda: re.search(
        r'^pid=\d+ role=primary timestamp="\d{13}" level=warning message="DEBUG LOG: second"$',
        s.log(), re.M)), s.log()
    # Both in one CONFIG SET, back to the legacy line with an ISO 8601 time.
    r.config_set("log-format", "legacy", "log-timestamp-format", "iso8601")
    r.execute_command("DEBUG", "LOG", "third")
    assert wait_for(lambda: re.search(
        rf"^\d+:M {TIMESTAMPS['iso8601']} # DEBUG LOG: third$", s.log(), re.M)), s.log()


def test_logfmt_messages_stay_on_one_line(start_server):
    s = start_server("--enable-debug-command", "yes", "--log-format", "logfmt")
    s.client().execute_command("DEBUG", "LOG", 'a "quoted"\nword')
    assert wait_for(lambda: "message=\"DEBUG LOG: a 'quoted' word\"" in s.log()), s.log()


def test_config_set_loglevel_applies_at_once(start_server):
    s = start_server("--enable-debug-command", "yes")
    r = s.client()
    r.config_set("loglevel", "nothing")
    r.execute_command("DEBUG", "LOG", "hidden")
    r.config_set("loglevel", "warning")
    r.execute_command("DEBUG", "LOG", "shown")
    assert wait_for(lambda: "DEBUG LOG: shown" in s.log()), s.log()
    assert "DEBUG LOG: hidden" not in s.log()


@pytest.mark.parametrize("name, value, choices", [
    ("log-format", "json", "legacy, logfmt"),
    ("log-format", "", "legacy, logfmt"),
    ("log-timestamp-format", "rfc3339", "legacy, iso8601, milliseconds"),
    ("log-timestamp-format", "1", "legacy, iso8601, milliseconds"),
])
def test_config_set_refuses_unknown_values(server, name, value, choices):
    r = server.client()
    with pytest.raises(redis.ResponseError) as e:
        r.config_set(name, value)
    assert str(e.value) == (f"CONFIG SET failed (possibly related to argument '{name}') - "
                            f"argument(s) must be one of the following: {choices}")
    assert r.config_get(name) == {name: "legacy"}


def test_config_set_is_case_insensitive(server):
    r = server.client()
    r.config_set("log-format", "LOGFMT")
    r.config_set("log-timestamp-format", "ISO8601")
    assert r.config_get("log-*") == {"log-format": "logfmt", "log-timestamp-format": "iso8601"}


@pytest.mark.parametrize("name, value, choices", [
    ("log-format", "json", "legacy, logfmt"),
    ("log-timestamp-format", "epoch", "legacy, iso8601, milliseconds"),
])
def test_a_bad_value_at_start_up_is_fatal(name, value, choices):
    out = subprocess.run([SERVER_BINARY, "--port", "0", f"--{name}", value],
                         capture_output=True, text=True, timeout=10)
    assert out.returncode == 1
    assert "FATAL CONFIG FILE ERROR" in out.stderr
    assert f"argument(s) must be one of the following: {choices}" in out.stderr


def test_config_rewrite_keeps_the_formats(start_server, tmp_path):
    s = start_server(config="log-format logfmt\n")
    r = s.client()
    r.config_set("log-timestamp-format", "milliseconds")
    r.config_rewrite()
    text = s.config_path.read_text()
    assert "log-format logfmt" in text
    assert "log-timestamp-format milliseconds" in text


def test_a_user_without_permission_cannot_set_them(server):
    r = server.client()
    r.execute_command("ACL", "SETUSER", "plain", "on", "nopass", "+@all", "-@dangerous")
    u = server.client(username="plain", password="x")
    with pytest.raises(redis.exceptions.NoPermissionError):
        u.config_set("log-format", "logfmt")
    assert r.config_get("log-format") == {"log-format": "legacy"}
