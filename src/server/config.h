// Server configuration: the directive table shared by the config file, command-line flags,
// CONFIG GET/SET/REWRITE. Names, value syntax and defaults follow Valkey.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/output_limits.h"

namespace vireo {

struct SavePoint {
  int64_t seconds;
  int64_t changes;
};

struct Config {
  // Network
  int64_t port = 6379;
  std::vector<std::string> bind = {"*", "-::*"};
  bool bind_explicit = false;  // protected mode only applies when bind was left default
  int64_t tcp_backlog = 511;
  std::string unixsocket;
  std::string unixsocketgroup;  // group the socket file is given ("": the process's)
  int64_t unixsocketperm = 0;
  int64_t timeout = 0;
  int64_t tcp_keepalive = 300;
  int64_t maxclients = 10000;
  bool protected_mode = true;
  // enable-scripting no (start-up only): EVAL*, SCRIPT, FCALL* and FUNCTION are removed.
  bool enable_scripting = true;
  int64_t io_threads = 1;
  // Events per active I/O thread in a batch (Valkey 8's hidden config); 0 = always all.
  int64_t events_per_io_thread = 2;
  // Valkey 8.1's: the keys of up to this many batched clients are prefetched together (0 or
  // 1: no prefetching across clients).
  int64_t prefetch_batch_max_size = 16;
  // Vireo's own: HTTP port of the Prometheus endpoint on the bind addresses; 0 = off
  // (server/metrics_endpoint.h).
  int64_t metrics_port = 0;
  // Vireo's own: the addresses the metrics endpoint listens on; empty: the bind addresses
  std::vector<std::string> metrics_bind;
  // General
  int64_t databases = 16;
  int64_t hz = 10;
  bool daemonize = false;
  std::string pidfile;
  std::string logfile;
  std::string loglevel = "notice";
  // Valkey 8.1's log line shape (common/log.h): legacy or logfmt, and its timestamp.
  std::string log_format = "legacy";
  std::string log_timestamp_format = "legacy";
  std::string dir;  // filled with the working directory at start-up
  std::string requirepass;
  // `user <name> <rules...>` lines of the config file, applied at start-up (acl/).
  std::vector<std::vector<std::string>> acl_users;
  std::string enable_debug_command = "no";
  std::string enable_protected_configs = "no";
  std::string enable_module_command = "no";
  // Limits
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  int64_t client_query_buffer_limit = 1024LL * 1024 * 1024;
  int64_t maxmemory = 0;
  // Client eviction past this much client memory: bytes, or a negative number for a
  // percentage of maxmemory ("10%" is -10, as CONFIG GET shows it back); 0 = off.
  int64_t maxmemory_clients = 0;
  std::string maxmemory_policy = "noeviction";
  int64_t maxmemory_samples = 5;
  int64_t maxmemory_eviction_tenacity = 10;
  int64_t lfu_log_factor = 10;
  int64_t lfu_decay_time = 1;  // minutes
  // Persistence (used by later issues; accepted now so Valkey config files load)
  std::vector<SavePoint> save = {{3600, 1}, {300, 100}, {60, 10000}};
  std::string dbfilename = "dump.rdb";
  bool rdbcompression = true;
  bool rdbchecksum = true;
  int64_t rdb_key_save_delay = 0;  // us per key saved by BGSAVE's walk (tests overlap writes)
  bool appendonly = false;
  std::string appendfilename = "appendonly.aof";
  std::string appendfsync = "everysec";
  // Slow log
  int64_t slowlog_log_slower_than = 10000;  // alias commandlog-execution-slower-than
  int64_t slowlog_max_len = 128;            // alias commandlog-slow-execution-max-len
  int64_t commandlog_request_larger_than = 1048576;
  int64_t commandlog_large_request_max_len = 128;
  int64_t commandlog_reply_larger_than = 1048576;
  int64_t commandlog_large_reply_max_len = 128;
  // Latency monitor (ms; 0 = off) and per-command latency histograms.
  int64_t latency_monitor_threshold = 0;
  bool latency_tracking = true;
  std::vector<double> latency_tracking_info_percentiles = {50.0, 99.0, 99.9};
  // Lazy freeing
  bool lazyfree_lazy_user_del = true;  // the five: Valkey 8 defaults
  bool lazyfree_lazy_user_flush = true;
  bool lazyfree_lazy_expire = true;
  bool lazyfree_lazy_server_del = true;
  bool lazyfree_lazy_eviction = true;
  bool active_expire_enabled = true;  // DEBUG SET-ACTIVE-EXPIRE
  int64_t active_expire_effort = 1;
  // Cron spends up to a millisecond per run finishing a keyspace rehash.
  bool activerehashing = true;
  // Collection encodings: packed up to these sizes, then the large encoding.
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;
  int64_t list_max_listpack_size = -2;  // > 0: entries per node; -1..-5: 4/8/16/32/64 KB
  int64_t list_compress_depth = 0;
  int64_t set_max_intset_entries = 512;
  int64_t set_max_listpack_entries = 128;
  int64_t set_max_listpack_value = 64;
  int64_t zset_max_listpack_entries = 128;
  int64_t zset_max_listpack_value = 64;
  int64_t stream_node_max_bytes = 4096;  // 0 = Valkey's 1 GB cap
  int64_t stream_node_max_entries = 100;  // 0 = no limit
  // Pub/Sub and keyspace notifications.
  OutputBufferLimits client_obuf_limits;  // client-output-buffer-limit
  uint32_t notify_keyspace_events = 0;    // NotifyFlag bits (server/notify.h)
  // Client-side caching: past this many tracked keys some are invalidated (0 = no limit).
  int64_t tracking_table_max_keys = 1000000;
  // Cluster mode: per-slot CPU time and network bytes for CLUSTER SLOT-STATS.
  bool cluster_slot_stats_enabled = false;
  // Valkey directives accepted but not modeled yet (config_directives.h), by name.
  std::map<std::string, std::string> generic;
  // Path of the config file given at start-up (for CONFIG REWRITE), "" if none.
  std::string config_file;
};

enum class ConfigSource { kFile, kCommandLine, kRuntime };

// Applies one directive (`name` and its arguments). Returns an empty string on success or
// the error text Valkey gives ("argument couldn't be parsed into an integer", ...).
std::string ApplyConfigDirective(Config* config, std::string_view name,
                                 const std::vector<std::string>& args, ConfigSource source);

// Parses config text (file contents plus flags turned into lines). On error returns false and
// fills *error with Valkey's multi-line fatal message naming the line.
bool LoadConfigText(Config* config, std::string_view text, std::string* error);

// Turns `[configfile] [--name value ...]` into config text the way valkey-server does
// (reading the file, "-" meaning stdin). Returns false with *error on an unreadable file.
bool BuildConfigText(int argc, char** argv, std::string* text, std::string* config_file,
                     std::string* error);

// All (name, value) pairs whose name matches the glob, for CONFIG GET. Values are formatted
// as Valkey formats them (memory as plain bytes, bools yes/no, save as "3600 1 300 100").
std::vector<std::pair<std::string, std::string>> ConfigGet(const Config& config,
                                                           std::string_view pattern);

// A directive's current value as CONFIG GET shows it ("" when unknown), and as a number
// (fallback when it is not one). For the many directives still kept as text.
std::string ConfigValue(const Config& config, std::string_view name);
int64_t ConfigValueInt(const Config& config, std::string_view name, int64_t fallback);

// CONFIG SET for one name; "" on success or the error reason. Immutable directives fail.
std::string ConfigSet(Config* config, std::string_view name, std::string_view value);

// True if name (or an alias) is a known directive.
bool IsConfigName(std::string_view name);

// The directive's canonical name ("replica-read-only" for "slave-read-only"), "" if unknown.
std::string ConfigCanonicalName(std::string_view name);

// True for directives CONFIG SET may change only when enable-protected-configs allows it.
bool IsProtectedConfig(std::string_view name);
// True for directives only the config file and command line may set.
bool IsImmutableConfig(std::string_view name);

// Rewrites the config file as Valkey does: comments and unknown lines stay, directives in the
// file get their current values in place, others are appended when not at their defaults.
// False with *error ("The server is running without a config file", I/O errors).
bool ConfigRewrite(const Config& config, const std::string& path, std::string* error);

}  // namespace vireo
