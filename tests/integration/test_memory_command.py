"""MEMORY USAGE / STATS / DOCTOR / PURGE / MALLOC-STATS / HELP, with Valkey's replies and errors
(the texts were taken from redis-server 7.0.15), and redis-cli --memkeys, which needs USAGE."""

import pytest
import redis

from conftest import redis_cli


def test_usage_counts_the_value(sr):
    sr.set("small", "v")
    sr.set("big", "x" * 10000)
    small = sr.memory_usage("small")
    assert isinstance(small, int) and 0 < small < 200
    assert sr.memory_usage("big") > 10000
    sr.rpush("list", *range(1000))
    assert sr.memory_usage("list") > sr.memory_usage("small")
    assert sr.memory_usage("missing") is None
    assert sr.execute_command("MEMORY", "USAGE", "small", "SAMPLES", "0") == small


@pytest.mark.parametrize("args,error", [
    (["USAGE", "k", "SAMPLES", "x"], "value is not an integer or out of range"),
    (["USAGE", "k", "SAMPLES", "-1"], "syntax error"),
    (["USAGE", "k", "SAMPLES"], "syntax error"),
    (["USAGE", "k", "FOO"], "syntax error"),
    (["USAGE"], "wrong number of arguments for 'memory|usage' command"),
    (["FOO"], "unknown subcommand 'FOO'. Try MEMORY HELP."),
])
def test_usage_errors(sr, args, error):
    sr.set("k", "v")
    with pytest.raises(redis.ResponseError, match=error.replace("(", r"\(").replace("|", r"\|")):
        sr.execute_command("MEMORY", *args)


def test_stats_doctor_purge_help(sr):
    sr.set("k", "v")
    stats = sr.memory_stats()
    for field in ("peak.allocated", "total.allocated", "startup.allocated", "keys.count",
                  "dataset.bytes", "overhead.total", "fragmentation"):
        assert field in stats, field
    assert stats["keys.count"] == 1
    assert "db.0" in stats
    assert sr.execute_command("MEMORY", "DOCTOR").startswith("Hi Sam")
    assert sr.memory_purge() is True
    assert sr.execute_command("MEMORY", "HELP")[0].startswith("MEMORY <subcommand>")
    assert sr.command_getkeys("MEMORY", "USAGE", "k") == ["k"]


def test_cli_memkeys(shared_server, sr):
    sr.set("a", "1")
    sr.set("b", "y" * 5000)
    out = redis_cli(shared_server, "--memkeys")
    assert "Biggest string found" in out and '"b"' in out, out
