"""A Valkey 8.0.1 config file starts Vireo: every directive valkey-server 8.0.1 knows (what its
CONFIG GET * lists, plus its hidden configs) loads from a file with Valkey's default value.
Where the reference binary is at hand (../shared/reference/valkey-server, skipped otherwise),
CONFIG GET answers the same defaults and CONFIG SET refuses the same bad values in the same
words. test_config.py covers CONFIG itself; test_vireo_conf.py the repository's vireo.conf."""

import grp
import os
import socket

import pytest
import redis

import cluster_helpers
from conftest import IO_THREADS, REPO_ROOT, wait_for

VALKEY_SERVER = os.path.join(REPO_ROOT, "..", "shared", "reference", "valkey-server")

# (name, default) as valkey-server 8.0.1 answers CONFIG GET, started with --save "" (its real
# default save points are "3600 1 300 100 60 10000"), CONFIG GET * first, then its hidden
# configs by name. bind, dir and port are left out: the fixture gives those.
VALKEY_DEFAULTS = [
    ('acl-pubsub-default', 'resetchannels'),
    ('aclfile', ''),
    ('acllog-max-len', '128'),
    ('active-defrag-cycle-max', '25'),
    ('active-defrag-cycle-min', '1'),
    ('active-defrag-ignore-bytes', '104857600'),
    ('active-defrag-max-scan-fields', '1000'),
    ('active-defrag-threshold-lower', '10'),
    ('active-defrag-threshold-upper', '100'),
    ('active-expire-effort', '1'),
    ('activedefrag', 'no'),
    ('activerehashing', 'yes'),
    ('always-show-logo', 'no'),
    ('aof-load-truncated', 'yes'),
    ('aof-rewrite-cpulist', ''),
    ('aof-rewrite-incremental-fsync', 'yes'),
    ('aof-timestamp-enabled', 'no'),
    ('aof-use-rdb-preamble', 'yes'),
    ('aof_rewrite_cpulist', ''),
    ('appenddirname', 'appendonlydir'),
    ('appendfilename', 'appendonly.aof'),
    ('appendfsync', 'everysec'),
    ('appendonly', 'no'),
    ('auto-aof-rewrite-min-size', '67108864'),
    ('auto-aof-rewrite-percentage', '100'),
    ('availability-zone', ''),
    ('bgsave-cpulist', ''),
    ('bgsave_cpulist', ''),
    ('bind-source-addr', ''),
    ('bio-cpulist', ''),
    ('bio_cpulist', ''),
    ('busy-reply-threshold', '5000'),
    ('client-output-buffer-limit', 'normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60'),
    ('client-query-buffer-limit', '1073741824'),
    ('cluster-allow-pubsubshard-when-down', 'yes'),
    ('cluster-allow-reads-when-down', 'no'),
    ('cluster-allow-replica-migration', 'yes'),
    ('cluster-announce-bus-port', '0'),
    ('cluster-announce-client-ipv4', ''),
    ('cluster-announce-client-ipv6', ''),
    ('cluster-announce-hostname', ''),
    ('cluster-announce-human-nodename', ''),
    ('cluster-announce-ip', ''),
    ('cluster-announce-port', '0'),
    ('cluster-announce-tls-port', '0'),
    ('cluster-blacklist-ttl', '60'),
    ('cluster-config-file', 'nodes.conf'),
    ('cluster-enabled', 'no'),
    ('cluster-link-sendbuf-limit', '0'),
    ('cluster-migration-barrier', '1'),
    ('cluster-node-timeout', '15000'),
    ('cluster-port', '0'),
    ('cluster-preferred-endpoint-type', 'ip'),
    ('cluster-replica-no-failover', 'no'),
    ('cluster-replica-validity-factor', '10'),
    ('cluster-require-full-coverage', 'yes'),
    ('cluster-slave-no-failover', 'no'),
    ('cluster-slave-validity-factor', '10'),
    ('cluster-slot-stats-enabled', 'no'),
    ('crash-log-enabled', 'yes'),
    ('crash-memcheck-enabled', 'yes'),
    ('daemonize', 'no'),
    ('databases', '16'),
    ('dbfilename', 'dump.rdb'),
    ('disable-thp', 'yes'),
    ('dual-channel-replication-enabled', 'no'),
    ('dynamic-hz', 'yes'),
    ('enable-debug-command', 'no'),
    ('enable-module-command', 'no'),
    ('enable-protected-configs', 'no'),
    ('events-per-io-thread', '2'),
    ('extended-redis-compatibility', 'no'),
    ('hash-max-listpack-entries', '512'),
    ('hash-max-listpack-value', '64'),
    ('hash-max-ziplist-entries', '512'),
    ('hash-max-ziplist-value', '64'),
    ('hide-user-data-from-log', 'yes'),
    ('hll-sparse-max-bytes', '3000'),
    ('hz', '10'),
    ('ignore-warnings', ''),
    ('io-threads', '1'),
    ('io-threads-do-reads', 'yes'),
    ('jemalloc-bg-thread', 'yes'),
    ('latency-monitor-threshold', '0'),
    ('latency-tracking', 'yes'),
    ('latency-tracking-info-percentiles', '50 99 99.9'),
    ('lazyfree-lazy-eviction', 'yes'),
    ('lazyfree-lazy-expire', 'yes'),
    ('lazyfree-lazy-server-del', 'yes'),
    ('lazyfree-lazy-user-del', 'yes'),
    ('lazyfree-lazy-user-flush', 'yes'),
    ('lfu-decay-time', '1'),
    ('lfu-log-factor', '10'),
    ('list-compress-depth', '0'),
    ('list-max-listpack-size', '-2'),
    ('list-max-ziplist-size', '-2'),
    ('locale-collate', ''),
    ('logfile', ''),
    ('loglevel', 'notice'),
    ('lua-time-limit', '5000'),
    ('masterauth', ''),
    ('masteruser', ''),
    ('max-new-connections-per-cycle', '10'),
    ('max-new-tls-connections-per-cycle', '1'),
    ('maxclients', '10000'),
    ('maxmemory', '0'),
    ('maxmemory-clients', '0'),
    ('maxmemory-eviction-tenacity', '10'),
    ('maxmemory-policy', 'noeviction'),
    ('maxmemory-samples', '5'),
    ('min-replicas-max-lag', '10'),
    ('min-replicas-to-write', '0'),
    ('min-slaves-max-lag', '10'),
    ('min-slaves-to-write', '0'),
    ('no-appendfsync-on-rewrite', 'no'),
    ('notify-keyspace-events', ''),
    ('oom-score-adj', 'no'),
    ('oom-score-adj-values', '0 200 800'),
    ('pidfile', ''),
    ('prefetch-batch-max-size', '16'),
    ('primaryauth', ''),
    ('primaryuser', ''),
    ('proc-title-template', '{title} {listen-addr} {server-mode}'),
    ('propagation-error-behavior', 'ignore'),
    ('protected-mode', 'yes'),
    ('proto-max-bulk-len', '536870912'),
    ('rdb-del-sync-files', 'no'),
    ('rdb-save-incremental-fsync', 'yes'),
    ('rdbchecksum', 'yes'),
    ('rdbcompression', 'yes'),
    ('repl-backlog-size', '10485760'),
    ('repl-backlog-ttl', '3600'),
    ('repl-disable-tcp-nodelay', 'no'),
    ('repl-diskless-load', 'disabled'),
    ('repl-diskless-sync', 'yes'),
    ('repl-diskless-sync-delay', '5'),
    ('repl-diskless-sync-max-replicas', '0'),
    ('repl-ping-replica-period', '10'),
    ('repl-ping-slave-period', '10'),
    ('repl-timeout', '60'),
    ('replica-announce-ip', ''),
    ('replica-announce-port', '0'),
    ('replica-announced', 'yes'),
    ('replica-ignore-disk-write-errors', 'no'),
    ('replica-ignore-maxmemory', 'yes'),
    ('replica-lazy-flush', 'yes'),
    ('replica-priority', '100'),
    ('replica-read-only', 'yes'),
    ('replica-serve-stale-data', 'yes'),
    ('replicaof', ''),
    ('requirepass', ''),
    ('sanitize-dump-payload', 'no'),
    ('save', ''),
    ('server-cpulist', ''),
    ('server_cpulist', ''),
    ('set-max-intset-entries', '512'),
    ('set-max-listpack-entries', '128'),
    ('set-max-listpack-value', '64'),
    ('set-proc-title', 'yes'),
    ('shutdown-on-sigint', 'default'),
    ('shutdown-on-sigterm', 'default'),
    ('shutdown-timeout', '10'),
    ('slave-announce-ip', ''),
    ('slave-announce-port', '0'),
    ('slave-ignore-maxmemory', 'yes'),
    ('slave-lazy-flush', 'yes'),
    ('slave-priority', '100'),
    ('slave-read-only', 'yes'),
    ('slave-serve-stale-data', 'yes'),
    ('slaveof', ''),
    ('slowlog-log-slower-than', '10000'),
    ('slowlog-max-len', '128'),
    ('socket-mark-id', '0'),
    ('stop-writes-on-bgsave-error', 'yes'),
    ('stream-node-max-bytes', '4096'),
    ('stream-node-max-entries', '100'),
    ('supervised', 'no'),
    ('syslog-enabled', 'no'),
    ('syslog-facility', 'local0'),
    ('syslog-ident', 'valkey'),
    ('tcp-backlog', '511'),
    ('tcp-keepalive', '300'),
    ('timeout', '0'),
    ('tls-auth-clients', 'yes'),
    ('tls-ca-cert-dir', ''),
    ('tls-ca-cert-file', ''),
    ('tls-cert-file', ''),
    ('tls-ciphers', ''),
    ('tls-ciphersuites', ''),
    ('tls-client-cert-file', ''),
    ('tls-client-key-file', ''),
    ('tls-client-key-file-pass', ''),
    ('tls-cluster', 'no'),
    ('tls-dh-params-file', ''),
    ('tls-key-file', ''),
    ('tls-key-file-pass', ''),
    ('tls-port', '0'),
    ('tls-prefer-server-ciphers', 'no'),
    ('tls-protocols', ''),
    ('tls-replication', 'no'),
    ('tls-session-cache-size', '20480'),
    ('tls-session-cache-timeout', '300'),
    ('tls-session-caching', 'yes'),
    ('tracking-table-max-keys', '1000000'),
    ('unixsocket', ''),
    ('unixsocketgroup', ''),
    ('unixsocketperm', '0'),
    ('zset-max-listpack-entries', '128'),
    ('zset-max-listpack-value', '64'),
    ('zset-max-ziplist-entries', '128'),
    ('zset-max-ziplist-value', '64'),
    ('aof-disable-auto-gc', 'no'),
    ('cluster-ping-interval', '0'),
    ('debug-context', ''),
    ('enable-debug-assert', 'no'),
    ('key-load-delay', '0'),
    ('loading-process-events-interval-bytes', '2097152'),
    ('rdb-key-save-delay', '0'),
    ('use-exit-on-panic', 'no'),
    ('watchdog-period', '0'),
]
HIDDEN = {"aof-disable-auto-gc", "cluster-ping-interval", "debug-context", "enable-debug-assert",
          "key-load-delay", "loading-process-events-interval-bytes", "rdb-key-save-delay",
          "use-exit-on-panic", "watchdog-period"}
# Not file lines Valkey itself loads: `replicaof ""` needs a host and a port.
NOT_IN_FILE = {"replicaof", "slaveof"}
# With $VIREO_IO_THREADS the fixture starts every Vireo with its own io-threads settings.
IO_THREAD_SETTINGS = {"io-threads", "events-per-io-thread"} if IO_THREADS else set()

# The directives Valkey 8.0 added or renamed, which stopped Vireo's start-up before, with a
# value other than the default where one is allowed (issue 27).
NEW_DIRECTIVES = [
    ("enable-debug-assert", "yes"), ("hide-user-data-from-log", "no"),
    ("dual-channel-replication-enabled", "no"), ("primaryauth", "x"), ("primaryuser", "y"),
    ("availability-zone", "az1"), ("cluster-slot-stats-enabled", "no"),
    ("extended-redis-compatibility", "no"), ("locale-collate", "C"), ("server-cpulist", "0"),
    ("bio-cpulist", "0"), ("aof-rewrite-cpulist", "0"), ("bgsave-cpulist", "0"),
    ("max-new-connections-per-cycle", "20"), ("max-new-tls-connections-per-cycle", "2"),
    ("unixsocketgroup", None),  # the test's own group: start-up gives the socket to it
    ("cluster-announce-client-ipv4", "1.2.3.4"), ("cluster-announce-client-ipv6", "::1"),
    ("cluster-announce-human-nodename", "n"), ("cluster-blacklist-ttl", "30"),
    ("watchdog-period", "0"), ("cluster-ping-interval", "0"), ("debug-context", "ctx"),
    ("use-exit-on-panic", "no"),
]
BAD_VALUES = ["abc", "-1", "0", "1001", "4294967296", "9223372036854775808", "1k", "a b",
              "1.2.3", "01.2.3.4", "::ffff:1.2.3.4", "en_US.bogus", "a_b", ""]
# Existing directives whose checks Valkey 8 changed from Redis 7.0's.
CHANGED_CHECKS = ["loglevel", "maxmemory-samples", "set-max-listpack-value", "key-load-delay",
                  "cluster-announce-hostname"]


def quoted(value):
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def valkey_config_text():
    return "".join(f"{name} {quoted(value)}\n" for name, value in VALKEY_DEFAULTS
                   if name not in NOT_IN_FILE)


def group_name():
    return grp.getgrgid(os.getgid()).gr_name


def config_values(client, names):
    return {n: client.config_get(n).get(n) for n in names}


def error_of(client, *args):
    try:
        return client.execute_command(*args)
    except redis.ResponseError as e:
        return "ERR " + str(e)


@pytest.fixture
def valkey(start_server):
    if not os.path.exists(VALKEY_SERVER):
        pytest.skip("needs the reference valkey-server in ../shared/reference/")
    return start_server(binary=os.path.abspath(VALKEY_SERVER))


def test_a_valkey_config_file_with_every_directive_starts_vireo(start_server):
    assert len(VALKEY_DEFAULTS) > 200
    server = start_server(config=valkey_config_text())
    got = config_values(server.client(), [n for n, _ in VALKEY_DEFAULTS])
    want = {n: v for n, v in VALKEY_DEFAULTS if n not in NOT_IN_FILE | IO_THREAD_SETTINGS}
    differ = {n: (v, got[n]) for n, v in want.items() if got[n] != v}
    assert not differ, f"value in the file vs CONFIG GET: {differ}"


def test_the_new_directives_load_from_a_file_and_the_command_line(start_server, tmp_path):
    given = [(n, group_name() if v is None else v) for n, v in NEW_DIRECTIVES]
    from_file = start_server("--unixsocket", tmp_path / "f.sock",
                             config="".join(f"{n} {quoted(v)}\n" for n, v in given))
    args = [a for n, v in given for a in ("--" + n, v)]
    from_flags = start_server("--unixsocket", tmp_path / "c.sock", *args)
    for server in (from_file, from_flags):
        assert config_values(server.client(), [n for n, _ in given]) == dict(given)


def test_a_bare_save_line_drops_the_default_points_as_valkey_does(start_server):
    def save_of(text):
        return start_server(config=text).client().config_get("save")["save"]
    assert save_of("save\n") == ""
    assert save_of("save\nsave 100 1\n") == "100 1"
    # Only the first save line replaces the defaults: a later bare one adds nothing.
    assert save_of("save 100 1\nsave\n") == "100 1"
    assert save_of("save 100 1\nsave \"\"\n") == ""


def test_primaryauth_and_primaryuser_are_masterauth_and_masteruser(r):
    r.config_set("masterauth", "pw1")
    assert r.config_get("primaryauth") == {"primaryauth": "pw1"}
    r.config_set("primaryuser", "u1")
    assert r.config_get("masteruser") == {"masteruser": "u1"}
    assert r.config_get("*auth") == {"primaryauth": "pw1", "masterauth": "pw1"}


def test_a_replica_authenticates_with_primaryuser_and_primaryauth(start_server):
    primary = start_server("--requirepass", "secret")
    pc = primary.client(password="secret")
    pc.execute_command("ACL", "SETUSER", "repl", "on", ">replpw", "+@all", "~*", "&*")
    pc.set("k", "v")
    replica = start_server("--primaryuser", "repl", "--primaryauth", "replpw",
                           "--replicaof", "127.0.0.1", str(primary.port))
    rc = replica.client()
    wait_for(lambda: rc.info("replication")["master_link_status"] == "up")
    wait_for(lambda: rc.get("k") == "v")


def test_primaryauth_is_redacted_in_the_slow_log(r):
    r.config_set("slowlog-log-slower-than", 0)
    r.execute_command("CONFIG", "SET", "primaryauth", "s1", "primaryuser", "s2")
    r.execute_command("CONFIG", "SET", "tls-key-file-pass", "s3")
    logged = [e["command"] for e in r.slowlog_get(3)]
    assert b"CONFIG SET tls-key-file-pass (redacted)" in logged
    assert b"CONFIG SET primaryauth (redacted) primaryuser (redacted)" in logged


def test_hidden_configs_answer_only_by_exact_name(r):
    listed = r.config_get("*")
    for name in HIDDEN:
        assert name not in listed
        assert name in r.config_get(name)
    assert r.config_get("watchdog-perio?") == {}


def test_unixsocketgroup_gives_the_socket_file_to_the_group(start_server, tmp_path):
    sock = tmp_path / "g.sock"
    group = grp.getgrgid(os.getgid())
    start_server("--unixsocket", sock, "--unixsocketperm", "770",
                 "--unixsocketgroup", group.gr_name)
    assert os.stat(sock).st_gid == group.gr_gid
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(sock))
        s.sendall(b"PING\r\n")
        assert s.recv(16) == b"+PONG\r\n"


def test_an_unknown_unixsocketgroup_stops_start_up(start_server, tmp_path):
    server = start_server("--unixsocket", tmp_path / "x.sock", "--unixsocketgroup",
                          "no-such-group-vireo", wait=False)
    assert server.proc.wait(timeout=10) != 0
    assert "getgrnam error for group 'no-such-group-vireo'" in server.log()


def test_cluster_blacklist_ttl_is_how_long_a_forgotten_node_stays_out(start_server):
    a, b, c = cluster_helpers.start_nodes(start_server, 3)
    cluster_helpers.create([a, b, c])
    ca = a.client()
    gone = cluster_helpers.node_id(c)
    ca.config_set("cluster-blacklist-ttl", 1)
    ca.execute_command("CLUSTER", "FORGET", gone)
    assert gone not in ca.execute_command("CLUSTER", "NODES")
    # b and c still gossip about c: past the TTL, a meets it again (the default keeps it out
    # for 60 s).
    wait_for(lambda: gone in ca.execute_command("CLUSTER", "NODES"), timeout=20)


def test_loglevel_nothing_is_accepted(r):
    r.config_set("loglevel", "nothing")
    assert r.config_get("loglevel") == {"loglevel": "nothing"}


def test_defaults_are_valkeys(start_server, valkey):
    """Both started the same way: every name Valkey knows answers the same CONFIG GET."""
    names = [n for n, _ in VALKEY_DEFAULTS] + ["bind"]
    vireo = config_values(start_server().client(), names)
    reference = config_values(valkey.client(), names)
    skipped = IO_THREAD_SETTINGS
    differ = {n: (reference[n], vireo[n]) for n in names
              if n not in skipped and vireo[n] != reference[n]}
    assert not differ, f"valkey-server vs vireo-server: {differ}"


def test_config_set_refuses_what_valkey_refuses_in_its_words(start_server, valkey):
    names = [n for n, _ in NEW_DIRECTIVES] + CHANGED_CHECKS
    vc, rc = start_server().client(), valkey.client()
    differ = {}
    for name in names:
        for value in BAD_VALUES:
            want = error_of(rc, "CONFIG", "SET", name, value)
            got = error_of(vc, "CONFIG", "SET", name, value)
            if got != want:
                differ[(name, value)] = (want, got)
    assert not differ, f"valkey-server vs vireo-server: {differ}"


def test_multi_parameter_config_set_is_all_or_nothing_as_valkey(start_server, valkey):
    """Issue 27: a CONFIG SET of several parameters that fails on one changes none, with
    Valkey's texts (duplicates, bad values, protected and immutable ones, unknown names)."""
    cases = [
        ("maxmemory", "10mb", "maxmemory-policy", "bogus"), ("maxmemory", "10mb", "hz", "abc"),
        ("hz", "20", "hz", "30"), ("maxmemory", "10mb", "MAXMEMORY", "20mb"),
        ("maxmemory-policy", "allkeys-lru", "appendonly", "maybe"),
        ("save", "100 1", "dir", "/nonexistent/dir"), ("daemonize", "yes", "hz", "8"),
        ("hz", "9", "nosuch", "1"), ("hz",),
        ("hz", "9", "lua-time-limit", "100", "busy-reply-threshold", "200"),
    ]
    names = ["maxmemory", "maxmemory-policy", "hz", "save", "busy-reply-threshold"]

    def outcome(client):
        out = []
        for case in cases:
            client.config_set("maxmemory", "0")
            client.config_set("hz", "10")
            client.config_set("maxmemory-policy", "noeviction")
            client.config_set("save", "")
            client.config_set("busy-reply-threshold", "5000")
            try:
                out.append(client.execute_command("CONFIG", "SET", *case))
            except redis.ResponseError as e:
                out.append(str(e))
            out.append(config_values(client, names))
        return out

    assert outcome(start_server().client()) == outcome(valkey.client())
