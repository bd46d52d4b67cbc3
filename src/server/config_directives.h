// Valkey directives accepted (so existing config files load and CONFIG GET answers) but not
// acted on yet; later features move them into Config fields. Defaults are Valkey's.
// Generated from `CONFIG GET *` of redis-server 7.0 and valkey-server 8.0.1 (with its hidden
// configs, which answer only to their exact names); kinds, ranges and enum values from probing
// their CONFIG SET errors.
#pragma once

#include <cstdint>
#include <string>

namespace vireo {

enum class GenericKind { kBool, kInt, kMemory, kString, kEnum, kFlags };

// Extra checks of a kString value, as Valkey makes them (its error text when they fail).
enum class GenericCheck { kNone, kIpv4, kIpv6, kLocale, kHostname };

inline constexpr int64_t kMax64 = INT64_MAX;
inline constexpr int64_t kMin64 = INT64_MIN;
inline constexpr int64_t kMax32 = INT32_MAX;
inline constexpr int64_t kMin32 = INT32_MIN;

struct GenericDirective {
  const char* name;
  const char* default_value;
  GenericKind kind;
  bool immutable;
  int64_t min = 0;  // accepted range of kInt / kMemory values
  int64_t max = 0;
  const char* enum_values = nullptr;  // kEnum: "a,b,c" in Valkey's order
  GenericCheck check = GenericCheck::kNone;
};

// "" when value passes the check, else Valkey's error text ("Invalid IPv4 address").
std::string CheckGenericValue(GenericCheck check, const std::string& value);

inline constexpr GenericDirective kGenericDirectives[] = {
    {"acl-pubsub-default", "resetchannels", GenericKind::kEnum, false, 0, 0, "allchannels,resetchannels"},
    {"aclfile", "", GenericKind::kString, true},
    {"acllog-max-len", "128", GenericKind::kInt, false, 0, kMax64},
    {"active-defrag-cycle-max", "25", GenericKind::kInt, false, 1, 99},
    {"active-defrag-cycle-min", "1", GenericKind::kInt, false, 1, 99},
    {"active-defrag-ignore-bytes", "104857600", GenericKind::kMemory, false, 1, kMax64},
    {"active-defrag-max-scan-fields", "1000", GenericKind::kInt, false, 1, kMax64},
    {"active-defrag-threshold-lower", "10", GenericKind::kInt, false, 0, 1000},
    {"active-defrag-threshold-upper", "100", GenericKind::kInt, false, 0, 1000},
    {"activedefrag", "no", GenericKind::kBool, false},
    {"always-show-logo", "no", GenericKind::kBool, true},
    {"aof-disable-auto-gc", "no", GenericKind::kBool, false},
    {"aof-load-truncated", "yes", GenericKind::kBool, false},
    {"aof-rewrite-cpulist", "", GenericKind::kString, true},
    {"aof-rewrite-incremental-fsync", "yes", GenericKind::kBool, false},
    {"aof-timestamp-enabled", "no", GenericKind::kBool, false},
    {"aof-use-rdb-preamble", "yes", GenericKind::kBool, false},
    {"appenddirname", "appendonlydir", GenericKind::kString, true},
    {"auto-aof-rewrite-min-size", "67108864", GenericKind::kMemory, false, 0, kMax64},
    {"auto-aof-rewrite-percentage", "100", GenericKind::kInt, false, 0, kMax32},
    {"availability-zone", "", GenericKind::kString, false},
    {"bgsave-cpulist", "", GenericKind::kString, true},
    {"bind-source-addr", "", GenericKind::kString, false},
    {"bio-cpulist", "", GenericKind::kString, true},
    {"busy-reply-threshold", "5000", GenericKind::kInt, false, 0, kMax64},
    {"cluster-allow-pubsubshard-when-down", "yes", GenericKind::kBool, false},
    {"cluster-allow-reads-when-down", "no", GenericKind::kBool, false},
    {"cluster-allow-replica-migration", "yes", GenericKind::kBool, false},
    {"cluster-announce-bus-port", "0", GenericKind::kInt, false, 0, 65535},
    {"cluster-announce-client-ipv4", "", GenericKind::kString, false, 0, 0, nullptr,
     GenericCheck::kIpv4},
    {"cluster-announce-client-ipv6", "", GenericKind::kString, false, 0, 0, nullptr,
     GenericCheck::kIpv6},
    {"cluster-announce-hostname", "", GenericKind::kString, false, 0, 0, nullptr,
     GenericCheck::kHostname},
    {"cluster-announce-human-nodename", "", GenericKind::kString, false},
    {"cluster-announce-ip", "", GenericKind::kString, false},
    {"cluster-announce-port", "0", GenericKind::kInt, false, 0, 65535},
    {"cluster-announce-tls-port", "0", GenericKind::kInt, false, 0, 65535},
    {"cluster-blacklist-ttl", "60", GenericKind::kInt, false, kMin64, kMax64},
    {"cluster-config-file", "nodes.conf", GenericKind::kString, true},
    {"cluster-databases", "1", GenericKind::kInt, true, 1, kMax32},
    {"cluster-enabled", "no", GenericKind::kBool, true},
    {"cluster-link-sendbuf-limit", "0", GenericKind::kMemory, false, 0, kMax64},
    {"cluster-manual-failover-timeout", "5000", GenericKind::kInt, false, 1, kMax32},
    {"cluster-migration-barrier", "1", GenericKind::kInt, false, 0, kMax32},
    {"cluster-node-timeout", "15000", GenericKind::kInt, false, 0, kMax64},
    {"cluster-ping-interval", "0", GenericKind::kInt, false, 0, kMax64},
    {"cluster-port", "0", GenericKind::kInt, true, kMin64, kMax64},
    {"cluster-preferred-endpoint-type", "ip", GenericKind::kEnum, false, 0, 0, "ip,hostname,unknown-endpoint"},
    {"cluster-replica-no-failover", "no", GenericKind::kBool, false},
    {"cluster-replica-validity-factor", "10", GenericKind::kInt, false, 0, kMax32},
    {"cluster-require-full-coverage", "yes", GenericKind::kBool, false},
    {"cluster-slot-migration-log-max-len", "1000", GenericKind::kInt, false, 0, kMax32},
    {"crash-log-enabled", "yes", GenericKind::kBool, false},
    {"crash-memcheck-enabled", "yes", GenericKind::kBool, false},
    {"debug-context", "", GenericKind::kString, false},
    {"disable-thp", "yes", GenericKind::kBool, true},
    {"dual-channel-replication-enabled", "no", GenericKind::kBool, false},
    {"dynamic-hz", "yes", GenericKind::kBool, false},
    {"enable-debug-assert", "no", GenericKind::kBool, true},
    {"extended-redis-compatibility", "no", GenericKind::kBool, false},
    // Valkey 9.1: the keyspace hash seed; equal on every node, SCAN and CLUSTERSCAN cursors
    // stay valid from one node to another. Empty: a random seed per process.
    {"hash-seed", "", GenericKind::kString, true},
    {"hide-user-data-from-log", "yes", GenericKind::kBool, false},
    {"hll-sparse-max-bytes", "3000", GenericKind::kMemory, false, 0, kMax64},
    {"ignore-warnings", "", GenericKind::kString, false},
    {"io-threads-do-reads", "yes", GenericKind::kBool, true},
    {"jemalloc-bg-thread", "yes", GenericKind::kBool, false},
    {"key-load-delay", "0", GenericKind::kInt, false, kMin32, kMax32},
    {"loading-process-events-interval-bytes", "2097152", GenericKind::kInt, false, 1024, kMax32},
    {"locale-collate", "", GenericKind::kString, false, 0, 0, nullptr, GenericCheck::kLocale},
    {"max-new-connections-per-cycle", "10", GenericKind::kInt, false, 1, 1000},
    {"max-new-tls-connections-per-cycle", "1", GenericKind::kInt, false, 1, 1000},
    {"min-replicas-max-lag", "10", GenericKind::kInt, false, 0, kMax32},
    {"min-replicas-to-write", "0", GenericKind::kInt, false, 0, kMax32},
    {"no-appendfsync-on-rewrite", "no", GenericKind::kBool, false},
    {"oom-score-adj", "no", GenericKind::kEnum, false, 0, 0, "no,yes,relative,absolute"},
    {"oom-score-adj-values", "0 200 800", GenericKind::kString, false},
    {"primaryauth", "", GenericKind::kString, false},
    {"primaryuser", "", GenericKind::kString, false},
    {"proc-title-template", "{title} {listen-addr} {server-mode}", GenericKind::kString, false},
    {"propagation-error-behavior", "ignore", GenericKind::kEnum, false, 0, 0, "ignore,panic,panic-on-replicas"},
    {"rdb-del-sync-files", "no", GenericKind::kBool, false},
    {"rdb-save-incremental-fsync", "yes", GenericKind::kBool, false},
    {"repl-backlog-size", "10485760", GenericKind::kMemory, false, 1, kMax64},
    {"repl-backlog-ttl", "3600", GenericKind::kInt, false, 0, kMax64},
    {"repl-disable-tcp-nodelay", "no", GenericKind::kBool, false},
    {"repl-diskless-load", "disabled", GenericKind::kEnum, false, 0, 0, "disabled,on-empty-db,swapdb"},
    {"repl-diskless-sync", "yes", GenericKind::kBool, false},
    {"repl-diskless-sync-delay", "5", GenericKind::kInt, false, 0, kMax32},
    {"repl-diskless-sync-max-replicas", "0", GenericKind::kInt, false, 0, kMax32},
    {"repl-ping-replica-period", "10", GenericKind::kInt, false, 1, kMax32},
    {"repl-timeout", "60", GenericKind::kInt, false, 1, kMax32},
    {"replica-announce-ip", "", GenericKind::kString, false},
    {"replica-announce-port", "0", GenericKind::kInt, false, 0, 65535},
    {"replica-announced", "yes", GenericKind::kBool, false},
    {"replica-ignore-disk-write-errors", "no", GenericKind::kBool, false},
    {"replica-ignore-maxmemory", "yes", GenericKind::kBool, false},
    {"replica-lazy-flush", "yes", GenericKind::kBool, false},
    {"replica-priority", "100", GenericKind::kInt, false, 0, kMax32},
    {"replica-read-only", "yes", GenericKind::kBool, false},
    {"replica-serve-stale-data", "yes", GenericKind::kBool, false},
    {"replicaof", "", GenericKind::kString, true},
    {"sanitize-dump-payload", "no", GenericKind::kEnum, false, 0, 0, "no,yes,clients"},
    {"server-cpulist", "", GenericKind::kString, true},
    {"set-proc-title", "yes", GenericKind::kBool, true},
    {"shutdown-on-sigint", "default", GenericKind::kFlags, false, 0, 0,
     "default,save,nosave,now,force,safe"},
    {"shutdown-on-sigterm", "default", GenericKind::kFlags, false, 0, 0,
     "default,save,nosave,now,force,safe"},
    {"shutdown-timeout", "10", GenericKind::kInt, false, 0, kMax32},
    {"slot-migration-max-failover-repl-bytes", "0", GenericKind::kMemory, false, 0, kMax64},
    {"socket-mark-id", "0", GenericKind::kInt, true, kMin64, kMax64},
    {"stop-writes-on-bgsave-error", "yes", GenericKind::kBool, false},
    {"supervised", "no", GenericKind::kEnum, true, 0, 0, "upstart,systemd,auto,no"},
    {"syslog-enabled", "no", GenericKind::kBool, true},
    {"syslog-facility", "local0", GenericKind::kString, true},
    {"syslog-ident", "valkey", GenericKind::kString, true},
    {"tls-auth-clients", "yes", GenericKind::kEnum, false, 0, 0, "no,yes,optional"},
    // Valkey 9.0: log in as the ACL user a client certificate's field names; reload changed
    // TLS files every this many seconds (0 = never). Used by server/server_tls.cc.
    {"tls-auth-clients-user", "off", GenericKind::kEnum, false, 0, 0, "off,CN,URI"},
    {"tls-auto-reload-interval", "0", GenericKind::kInt, false, 0, kMax32},
    {"tls-ca-cert-dir", "", GenericKind::kString, false},
    {"tls-ca-cert-file", "", GenericKind::kString, false},
    {"tls-cert-file", "", GenericKind::kString, false},
    {"tls-ciphers", "", GenericKind::kString, false},
    {"tls-ciphersuites", "", GenericKind::kString, false},
    {"tls-client-cert-file", "", GenericKind::kString, false},
    {"tls-client-key-file", "", GenericKind::kString, false},
    {"tls-client-key-file-pass", "", GenericKind::kString, false},
    {"tls-cluster", "no", GenericKind::kBool, false},
    {"tls-dh-params-file", "", GenericKind::kString, false},
    {"tls-key-file", "", GenericKind::kString, false},
    {"tls-key-file-pass", "", GenericKind::kString, false},
    {"tls-port", "0", GenericKind::kInt, false, 0, 65535},
    {"tls-prefer-server-ciphers", "no", GenericKind::kBool, false},
    {"tls-protocols", "", GenericKind::kString, false},
    {"tls-replication", "no", GenericKind::kBool, false},
    {"tls-session-cache-size", "20480", GenericKind::kInt, false, 0, kMax32},
    {"tls-session-cache-timeout", "300", GenericKind::kInt, false, 0, kMax32},
    {"tls-session-caching", "yes", GenericKind::kBool, false},
    {"use-exit-on-panic", "no", GenericKind::kBool, false},
    {"watchdog-period", "0", GenericKind::kInt, false, 0, kMax32},
};

// Valkey's hidden configs: CONFIG GET answers them only when asked by exact name (no glob).
inline constexpr const char* kHiddenConfigs[] = {
    "aof-disable-auto-gc", "cluster-ping-interval", "debug-context", "enable-debug-assert",
    "key-load-delay", "loading-process-events-interval-bytes", "rdb-key-save-delay",
    "use-exit-on-panic", "watchdog-period"};

// Other names Valkey accepts, mapped to the ones Vireo stores: old names (Valkey 8.0's own
// aliases: masterauth for primaryauth, bio_cpulist for bio-cpulist, ...), and Valkey 8.1's
// names of the slow log's settings (Redis 7.0 knows only the slowlog-* ones).
inline constexpr const char* kConfigAliases[][2] = {
    {"masterauth", "primaryauth"},
    {"masteruser", "primaryuser"},
    {"aof_rewrite_cpulist", "aof-rewrite-cpulist"},
    {"bgsave_cpulist", "bgsave-cpulist"},
    {"bio_cpulist", "bio-cpulist"},
    {"server_cpulist", "server-cpulist"},
    {"slave-read-only", "replica-read-only"},
    {"lua-time-limit", "busy-reply-threshold"},
    {"slave-serve-stale-data", "replica-serve-stale-data"},
    {"hash-max-ziplist-value", "hash-max-listpack-value"},
    {"hash-max-ziplist-entries", "hash-max-listpack-entries"},
    {"list-max-ziplist-size", "list-max-listpack-size"},
    {"zset-max-ziplist-entries", "zset-max-listpack-entries"},
    {"zset-max-ziplist-value", "zset-max-listpack-value"},
    {"min-slaves-to-write", "min-replicas-to-write"},
    {"min-slaves-max-lag", "min-replicas-max-lag"},
    {"slave-priority", "replica-priority"},
    {"slaveof", "replicaof"},
    {"slave-lazy-flush", "replica-lazy-flush"},
    {"cluster-slave-no-failover", "cluster-replica-no-failover"},
    {"cluster-slave-validity-factor", "cluster-replica-validity-factor"},
    {"repl-ping-slave-period", "repl-ping-replica-period"},
    {"slave-ignore-maxmemory", "replica-ignore-maxmemory"},
    {"slave-announce-port", "replica-announce-port"},
    {"slave-announce-ip", "replica-announce-ip"},
    {"commandlog-execution-slower-than", "slowlog-log-slower-than"},
    {"commandlog-slow-execution-max-len", "slowlog-max-len"},
};

}  // namespace vireo
