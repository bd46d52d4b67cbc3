"""INFO: sections, field names and formats as Valkey prints them, parsed by redis-py."""

import os
import re

import pytest
import redis

from conftest import RawConnection, Verbatim, redis_cli

DEFAULT_SECTIONS = ["Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU",
                    "Modules", "Errorstats", "Cluster", "Keyspace"]


def raw_info(server, *sections):
    """INFO's text as sent (redis-py would parse it into a dict)."""
    with RawConnection(server.host, server.port) as c:
        return c.call("INFO", *sections).decode()


def section_titles(text):
    return [line[2:] for line in text.split("\r\n") if line.startswith("# ")]


def test_info_fields_parse_with_redis_py(sr, shared_server):
    info = sr.info()
    if "vireo_version" in info:
        assert info["redis_version"] == "7.2.4"
    assert re.fullmatch(r"\d+\.\d+\.\d+", str(info["redis_version"]))
    # Valkey 8 (and Vireo) say server_mode; Redis 7.0, the other reference, redis_mode.
    assert info.get("server_mode", info.get("redis_mode")) == "standalone"
    assert info["multiplexing_api"] == "epoll"
    assert info["arch_bits"] in (32, 64)
    assert isinstance(info["process_id"], int)
    assert re.fullmatch(r"[0-9a-f]{40}", info["run_id"])
    assert info["tcp_port"] == shared_server.port
    assert isinstance(info["uptime_in_seconds"], int)
    assert info["uptime_in_days"] == info["uptime_in_seconds"] // 86400
    assert info["hz"] == 10 and info["configured_hz"] == 10
    assert info["executable"]
    assert info["config_file"] == ""
    # VIREO_IO_THREADS (conftest) puts every batch on the I/O threads.
    threaded = int(os.environ.get("VIREO_IO_THREADS") or 1) > 1
    assert info["io_threads_active"] == (1 if threaded else 0)
    # Clients
    assert info["connected_clients"] >= 1
    assert info["blocked_clients"] == 0
    assert info["maxclients"] == 10000
    # Memory
    assert isinstance(info["used_memory"], int)
    if info["mem_allocator"].startswith("jemalloc"):  # libc counts are 0 under sanitizers
        assert info["used_memory"] > 0
    assert re.fullmatch(r"\d+(\.\d\d[KMGTP])?B?", info["used_memory_human"])
    assert info["used_memory_rss"] > 0
    assert info["used_memory_peak"] >= 0
    assert info["maxmemory"] == 0
    assert info["maxmemory_human"] == "0B"
    assert info["maxmemory_policy"] == "noeviction"
    assert info["mem_allocator"].startswith(("jemalloc", "libc"))
    assert info["lazyfree_pending_objects"] == 0
    assert isinstance(info["lazyfreed_objects"], int)
    # Persistence
    assert info["loading"] == 0
    assert isinstance(info["rdb_changes_since_last_save"], int)
    assert info["rdb_bgsave_in_progress"] == 0
    assert isinstance(info["rdb_last_save_time"], int)
    assert info["rdb_last_bgsave_status"] == "ok"
    assert info["aof_enabled"] == 0
    # Stats
    for field in ("total_connections_received", "total_commands_processed",
                  "instantaneous_ops_per_sec", "total_net_input_bytes",
                  "total_net_output_bytes", "rejected_connections", "expired_keys",
                  "evicted_keys", "keyspace_hits", "keyspace_misses", "total_error_replies",
                  "total_reads_processed", "total_writes_processed"):
        assert isinstance(info[field], int), field
    # Replication
    assert info["role"] == "master"
    assert info["connected_slaves"] == 0
    assert re.fullmatch(r"[0-9a-f]{40}", info["master_replid"])
    assert info["master_repl_offset"] == 0
    # CPU
    assert isinstance(info["used_cpu_sys"], float)
    assert isinstance(info["used_cpu_user"], float)
    # Cluster
    assert info["cluster_enabled"] == 0


def test_info_default_all_and_named_sections(shared_server):
    assert section_titles(raw_info(shared_server)) == DEFAULT_SECTIONS
    assert section_titles(raw_info(shared_server, "default")) == DEFAULT_SECTIONS
    everything = section_titles(raw_info(shared_server, "everything"))
    assert "Commandstats" in everything and "Server" in everything
    assert "Commandstats" in section_titles(raw_info(shared_server, "all"))
    # Valkey's order whatever the order asked; names are case-insensitive; unknown ignored.
    assert section_titles(raw_info(shared_server, "KEYSPACE", "cpu", "bogus")) == [
        "CPU", "Keyspace"]
    assert raw_info(shared_server, "bogus") == ""


def test_info_layout_is_crlf_lines_with_blank_line_between_sections(shared_server):
    text = raw_info(shared_server, "cpu", "cluster")
    assert text.startswith("# CPU\r\nused_cpu_sys:")
    assert text.endswith("\r\n\r\n# Cluster\r\ncluster_enabled:0\r\n")


def test_info_is_verbatim_text_in_resp3(shared_server):
    with RawConnection(shared_server.host, shared_server.port) as c:
        c.call("HELLO", "3")
        reply = c.call("INFO", "server")
        assert isinstance(reply, Verbatim) and reply.format == "txt"
        assert reply.startswith("# Server\r\n")


def test_info_keyspace(sr):
    sr.set("a", "1")
    sr.set("b", "2", ex=100)
    sr.execute_command("SELECT", 3)
    info = sr.info("keyspace")
    assert info["db0"]["keys"] == 2
    assert info["db0"]["expires"] == 1
    assert "avg_ttl" in info["db0"]
    assert "db3" not in info


def test_info_commandstats_and_errorstats(start_server):
    s = start_server()
    r = s.client()
    r.config_resetstat()
    r.set("k", "v")
    r.get("k")
    r.get("k")
    r.config_get("hz")
    with pytest.raises(redis.ResponseError):
        r.execute_command("CONFIG", "SET", "hz", "abc")
    with pytest.raises(redis.ResponseError):
        r.execute_command("NOSUCHCOMMAND")
    stats = r.info("commandstats")
    assert stats["cmdstat_get"]["calls"] == 2
    assert stats["cmdstat_set"]["calls"] == 1
    for field in ("usec", "usec_per_call", "rejected_calls", "failed_calls"):
        assert field in stats["cmdstat_get"]
    assert stats["cmdstat_config|get"]["calls"] == 1
    assert stats["cmdstat_config|set"]["failed_calls"] == 1
    # redis-py leaves "count=2" unparsed (no comma), so look at the text.
    assert "errorstat_ERR:count=2\r\n" in raw_info(s, "errorstats")
    assert r.info("stats")["total_error_replies"] == 2


def test_info_stats_counters(start_server):
    r = start_server().client()
    r.set("present", "1")
    r.config_resetstat()
    r.get("present")
    r.get("missing")
    stats = r.info("stats")
    assert stats["keyspace_hits"] == 1
    assert stats["keyspace_misses"] == 1
    before = stats["total_commands_processed"]
    before_in = stats["total_net_input_bytes"]
    r.set("big", "x" * 100000)
    stats = r.info("stats")
    assert stats["total_commands_processed"] >= before + 2
    assert stats["total_net_input_bytes"] >= before_in + 100000


def test_info_net_bytes_include_closed_clients(start_server):
    s = start_server()
    r = s.client()
    other = s.client()
    other.set("x", "y" * 50000)
    before = r.info("stats")["total_net_input_bytes"]
    other.close()
    assert r.info("stats")["total_net_input_bytes"] >= before


def test_info_clients_and_persistence_counters(start_server):
    s = start_server()
    r = s.client()
    r2 = s.client()
    r2.ping()
    assert r.info("clients")["connected_clients"] == 2
    before = r.info("persistence")["rdb_changes_since_last_save"]
    r.set("a", "1")
    r.set("b", "2")
    assert r.info("persistence")["rdb_changes_since_last_save"] == before + 2


def test_info_memory_reflects_maxmemory_setting(start_server):
    r = start_server().client()
    r.config_set("maxmemory", "1gb")
    r.config_set("maxmemory-policy", "allkeys-lru")
    mem = r.info("memory")
    assert mem["maxmemory"] == 1073741824
    assert mem["maxmemory_human"] == "1.00G"
    assert mem["maxmemory_policy"] == "allkeys-lru"
    assert mem["used_memory_peak"] >= mem["used_memory"]


def test_info_through_redis_cli(shared_server):
    out = redis_cli(shared_server, "info", "server")
    assert out.startswith("# Server")
    assert "redis_version:" in out
