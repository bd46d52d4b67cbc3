// INFO [section ...]: the server's state as "field:value" lines grouped in "# Section" blocks,
// with Valkey's section and field names so monitoring tools and clients parse it unchanged.
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "commands/context.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "persistence/aof_writer.h"
#include "persistence/cow_snapshot.h"
#include "scripting/functions.h"
#include "scripting/script_engine.h"
#include "server/eviction.h"
#include "replication/replication.h"
#include "server/server.h"
#include "server/supervise.h"
#include "store/lazy_free.h"
#include "store/memory.h"

namespace vireo {
namespace {

// Sections in the order Valkey prints them; `in_default` marks those plain INFO shows.
struct Section {
  const char* name;    // as requested, lower case
  const char* title;   // as printed after "# "
  bool in_default;
  void (*render)(Server& server, std::string* out);
};

// Appends one "field:value\r\n" line formatted like printf.
void Line(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void Line(std::string* out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof(buf)) {
    out->append(buf, static_cast<size_t>(n));
  } else {
    std::string big(static_cast<size_t>(n) + 1, '\0');
    va_start(ap, fmt);
    vsnprintf(big.data(), big.size(), fmt, ap);
    va_end(ap);
    out->append(big.data(), static_cast<size_t>(n));
  }
  out->append("\r\n");
}

// Valkey's human-readable byte counts: "0B", "894.95K", "11.57M", ...
std::string BytesToHuman(uint64_t n) {
  static const char kUnits[] = "KMGTP";
  if (n < 1024) return std::to_string(n) + "B";
  double v = static_cast<double>(n) / 1024;
  for (size_t i = 0; i < sizeof(kUnits) - 1; ++i) {
    if (v < 1024 || i == sizeof(kUnits) - 2) {
      char buf[64];
      snprintf(buf, sizeof(buf), "%.2f%c", v, kUnits[i]);
      return buf;
    }
    v /= 1024;
  }
  return std::to_string(n) + "B";
}

// Memory taken right after start-up (INFO used_memory_startup), captured at registration.
size_t g_startup_memory = 0;
size_t g_peak_memory = 0;

}  // namespace

bool ExtendedRedisCompat(const Config& config) {
  return ConfigValue(config, "extended-redis-compatibility") == "yes";
}

namespace {

bool ClusterEnabled(const Config& config) {
  return ConfigValue(config, "cluster-enabled") == "yes";
}

// Valkey 8's listenerN lines, N being the connection type (0 tcp, 1 unix, 2 tls): the bind
// addresses and port of each listener that is on.
void RenderListeners(const Config& config, std::string* out) {
  auto listener = [&](int index, const char* type, const std::vector<std::string>& binds,
                      int64_t port) {
    *out += "listener" + std::to_string(index) + ":name=" + type;
    for (const std::string& b : binds) *out += ",bind=" + b;
    if (port != 0) *out += ",port=" + std::to_string(port);
    *out += "\r\n";
  };
  if (config.port != 0) listener(0, "tcp", config.bind, config.port);
  if (!config.unixsocket.empty()) listener(1, "unix", {config.unixsocket}, 0);
  const int64_t tls_port = ConfigValueInt(config, "tls-port", 0);
  if (tls_port != 0) listener(2, "tls", config.bind, tls_port);
}

void RenderServer(Server& server, std::string* out) {
  struct utsname name;
  if (uname(&name) != 0) name = {};
  int64_t now_us = NowUs();
  int64_t uptime = (now_us / 1000 - server.start_time_ms()) / 1000;
  const Config& config = server.config();
  // Valkey 8.0.1's fields in its order; vireo_version is Vireo's own.
  Line(out, "redis_version:%s", kCompatVersion);
  Line(out, "server_name:valkey");
  Line(out, "valkey_version:%s", kValkeyCompatVersion);
  Line(out, "vireo_version:%s", VIREO_VERSION);
  Line(out, "redis_git_sha1:00000000");
  Line(out, "redis_git_dirty:0");
  Line(out, "redis_build_id:0");
  Line(out, "%s:%s", ExtendedRedisCompat(config) ? "redis_mode" : "server_mode",
       ClusterEnabled(config) ? "cluster" : "standalone");
  Line(out, "os:%s %s %s", name.sysname, name.release, name.machine);
  Line(out, "arch_bits:%d", static_cast<int>(sizeof(long) * 8));
  Line(out, "monotonic_clock:POSIX clock_gettime");
  Line(out, "multiplexing_api:epoll");
#ifdef __GNUC__
  Line(out, "gcc_version:%d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  Line(out, "gcc_version:0.0.0");
#endif
  Line(out, "process_id:%d", static_cast<int>(getpid()));
  Line(out, "process_supervised:%s", SupervisionName());
  Line(out, "run_id:%s", server.run_id().c_str());
  Line(out, "tcp_port:%d", server.tcp_port());
  Line(out, "server_time_usec:%lld", static_cast<long long>(now_us));
  Line(out, "uptime_in_seconds:%lld", static_cast<long long>(uptime));
  Line(out, "uptime_in_days:%lld", static_cast<long long>(uptime / 86400));
  Line(out, "hz:%lld", static_cast<long long>(config.hz));
  Line(out, "configured_hz:%lld", static_cast<long long>(config.hz));
  Line(out, "lru_clock:%u", LruClock());
  Line(out, "executable:%s", server.executable().c_str());
  Line(out, "config_file:%s", config.config_file.c_str());
  Line(out, "io_threads_active:%d", server.io_threads_active() ? 1 : 0);
  Line(out, "availability_zone:%s", ConfigValue(config, "availability-zone").c_str());
  RenderListeners(config, out);
}

void RenderClients(Server& server, std::string* out) {
  size_t blocked = 0, max_in = 0, max_out = 0, pubsub = 0;
  for (const auto& [id, c] : server.clients()) {
    if (c->flags & kClientBlocked) ++blocked;
    if (c->flags & kClientPubSub) ++pubsub;
    max_in = std::max(max_in, c->conn.InputCapacity());
    max_out = std::max(max_out, c->conn.PendingOutput());
  }
  Line(out, "connected_clients:%zu", server.clients().size());
  Line(out, "cluster_connections:0");
  Line(out, "maxclients:%lld", static_cast<long long>(server.config().maxclients));
  Line(out, "client_recent_max_input_buffer:%zu", max_in);
  Line(out, "client_recent_max_output_buffer:%zu", max_out);
  Line(out, "blocked_clients:%zu", blocked);
  Line(out, "tracking_clients:%zu", server.tracking().ClientCount());
  Line(out, "pubsub_clients:%zu", pubsub);
  Line(out, "watching_clients:%zu", server.watches().ClientCount());
  Line(out, "clients_in_timeout_table:%zu", blocked);
  Line(out, "total_watched_keys:%zu", server.watches().KeyCount());
  Line(out, "total_blocking_keys:%zu", server.blocking().KeyCount());
  Line(out, "total_blocking_keys_on_nokey:%zu", server.blocking().NoKeyCount());
}

void RenderMemory(Server& server, std::string* out) {
  const Config& config = server.config();
  size_t used = UsedMemory();
  size_t rss = ResidentMemory();
  g_peak_memory = std::max(g_peak_memory, used);
  // Clients' buffers: replicas' apart, as Valkey's mem_clients_slaves.
  size_t clients_memory = 0, replicas_memory = 0, replicas_output = 0;
  for (const auto& [id, c] : server.clients()) {
    size_t bytes = c->conn.InputCapacity() + c->conn.Output()->capacity();
    if (c->flags & kClientReplica) {
      replicas_memory += bytes;
      replicas_output += c->conn.PendingOutput();
    } else {
      clients_memory += bytes;
    }
  }
  const size_t backlog = server.replication().BacklogMemory();
  size_t startup = std::min(g_startup_memory, used);
  size_t overhead = std::min(used, startup + clients_memory + replicas_memory + backlog);
  size_t dataset = used - overhead;
  uint64_t system_memory = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                           static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  double net = static_cast<double>(used > startup ? used - startup : 0);
  Line(out, "used_memory:%zu", used);
  Line(out, "used_memory_human:%s", BytesToHuman(used).c_str());
  Line(out, "used_memory_rss:%zu", rss);
  Line(out, "used_memory_rss_human:%s", BytesToHuman(rss).c_str());
  Line(out, "used_memory_peak:%zu", g_peak_memory);
  Line(out, "used_memory_peak_human:%s", BytesToHuman(g_peak_memory).c_str());
  Line(out, "used_memory_peak_perc:%.2f%%",
       g_peak_memory ? 100.0 * static_cast<double>(used) / static_cast<double>(g_peak_memory)
                     : 0.0);
  Line(out, "used_memory_overhead:%zu", overhead);
  Line(out, "used_memory_startup:%zu", startup);
  Line(out, "used_memory_dataset:%zu", dataset);
  Line(out, "used_memory_dataset_perc:%.2f%%",
       net > 0 ? 100.0 * static_cast<double>(dataset) / net : 0.0);
  const AllocatorFigures alloc = ReadAllocatorFigures();
  Line(out, "allocator_allocated:%zu", alloc.allocated);
  Line(out, "allocator_active:%zu", alloc.active);
  Line(out, "allocator_resident:%zu", alloc.resident);
  Line(out, "total_system_memory:%llu", static_cast<unsigned long long>(system_memory));
  Line(out, "total_system_memory_human:%s", BytesToHuman(system_memory).c_str());
  // Scripts and functions share one Lua heap (counted as eval's); the Lua state exists only
  // once a script or function was used.
  size_t lua = 0, eval_bytes = 0, fn_bytes = 0, scripts = 0, functions = 0, libraries = 0;
  if (server.has_scripts()) {
    ScriptEngine& engine = server.scripts();
    lua = engine.LuaMemory();
    eval_bytes = engine.ScriptsBodyBytes();
    scripts = engine.CachedScripts();
    fn_bytes = engine.functions().CodeBytes();
    functions = engine.functions().FunctionCount();
    libraries = engine.functions().LibraryCount();
  }
  Line(out, "used_memory_lua:%zu", lua);
  Line(out, "used_memory_vm_eval:%zu", lua);
  Line(out, "used_memory_lua_human:%s", BytesToHuman(lua).c_str());
  Line(out, "used_memory_scripts_eval:%zu", eval_bytes);
  Line(out, "number_of_cached_scripts:%zu", scripts);
  Line(out, "number_of_functions:%zu", functions);
  Line(out, "number_of_libraries:%zu", libraries);
  Line(out, "used_memory_vm_functions:0");
  Line(out, "used_memory_vm_total:%zu", lua);
  Line(out, "used_memory_vm_total_human:%s", BytesToHuman(lua).c_str());
  Line(out, "used_memory_functions:%zu", fn_bytes);
  Line(out, "used_memory_scripts:%zu", eval_bytes + fn_bytes);
  Line(out, "used_memory_scripts_human:%s", BytesToHuman(eval_bytes + fn_bytes).c_str());
  Line(out, "maxmemory:%lld", static_cast<long long>(config.maxmemory));
  Line(out, "maxmemory_human:%s", BytesToHuman(static_cast<uint64_t>(config.maxmemory)).c_str());
  Line(out, "maxmemory_policy:%s", config.maxmemory_policy.c_str());
  // Where the process's memory goes beyond what it uses: free space in the allocator's
  // pages, pages the allocator keeps resident, and resident memory outside the allocator.
  auto ratio = [](size_t a, size_t b) {
    return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
  };
  auto excess = [](size_t a, size_t b) {
    return static_cast<long long>(a) - static_cast<long long>(b);
  };
  Line(out, "allocator_frag_ratio:%.2f", ratio(alloc.active, alloc.allocated));
  Line(out, "allocator_frag_bytes:%lld", excess(alloc.active, alloc.allocated));
  Line(out, "allocator_rss_ratio:%.2f", ratio(alloc.resident, alloc.active));
  Line(out, "allocator_rss_bytes:%lld", excess(alloc.resident, alloc.active));
  Line(out, "rss_overhead_ratio:%.2f", ratio(rss, alloc.resident));
  Line(out, "rss_overhead_bytes:%lld", excess(rss, alloc.resident));
  Line(out, "mem_fragmentation_ratio:%.2f",
       used ? static_cast<double>(rss) / static_cast<double>(used) : 0.0);
  Line(out, "mem_fragmentation_bytes:%lld",
       static_cast<long long>(rss) - static_cast<long long>(used));
  Line(out, "mem_not_counted_for_evict:0");
  Line(out, "mem_replication_backlog:%zu", backlog);
  Line(out, "mem_total_replication_buffers:%zu", backlog + replicas_output);
  Line(out, "mem_clients_slaves:%zu", replicas_memory);
  Line(out, "mem_clients_normal:%zu", clients_memory);
  Line(out, "mem_cluster_links:0");
  Line(out, "mem_aof_buffer:0");
  size_t rehashing = 0;
  for (int i = 0; i < server.db_count(); ++i) rehashing += server.db(i)->RehashingBytes();
  Line(out, "mem_overhead_db_hashtable_rehashing:%zu", rehashing);
  Line(out, "mem_allocator:%s", AllocatorName());
  Line(out, "active_defrag_running:0");
  Line(out, "lazyfree_pending_objects:%zu", LazyFreePending());
  Line(out, "lazyfreed_objects:%zu", LazyFreedObjects());
}

void RenderPersistence(Server& server, std::string* out) {
  const SnapshotState& snap = server.snapshot();
  int64_t now = NowMs();
  Line(out, "loading:%d", server.loading() ? 1 : 0);
  Line(out, "async_loading:0");
  // No fork: the "copy-on-write" memory is the running snapshot's queued output.
  const CowSnapshot* running = snap.bgsave.get();
  Line(out, "current_cow_peak:%zu", running ? running->peak_queued_bytes() : 0);
  Line(out, "current_cow_size:%zu", running ? running->queued_bytes() : 0);
  Line(out, "current_cow_size_age:0");
  Line(out, "current_fork_perc:%.2f",
       running && running->keys_total() > 0
           ? 100.0 * static_cast<double>(running->keys_processed()) / running->keys_total()
           : 0.0);
  Line(out, "current_save_keys_processed:%llu",
       static_cast<unsigned long long>(snap.bgsave ? snap.bgsave->keys_processed() : 0));
  Line(out, "current_save_keys_total:%llu",
       static_cast<unsigned long long>(snap.bgsave ? snap.bgsave->keys_total() : 0));
  Line(out, "rdb_changes_since_last_save:%llu",
       static_cast<unsigned long long>(server.dirty()));
  Line(out, "rdb_bgsave_in_progress:%d", snap.bgsave ? 1 : 0);
  Line(out, "rdb_last_save_time:%lld", static_cast<long long>(server.last_save_time()));
  Line(out, "rdb_last_bgsave_status:%s", snap.last_bgsave_ok ? "ok" : "err");
  Line(out, "rdb_last_bgsave_time_sec:%lld", static_cast<long long>(snap.last_bgsave_time_sec));
  Line(out, "rdb_current_bgsave_time_sec:%lld",
       static_cast<long long>(snap.bgsave ? (now - snap.bgsave_start_ms) / 1000 : -1));
  Line(out, "rdb_saves:%llu", static_cast<unsigned long long>(snap.saves));
  Line(out, "rdb_last_cow_size:%zu", snap.last_cow_size);
  Line(out, "rdb_last_load_keys_expired:%llu",
       static_cast<unsigned long long>(snap.last_load_keys_expired));
  Line(out, "rdb_last_load_keys_loaded:%llu",
       static_cast<unsigned long long>(snap.last_load_keys_loaded));
  if (server.aof() != nullptr) {
    server.aof()->RenderInfo(out);  // aof_* and module_fork_* (persistence/aof_writer.h)
  } else {
    Line(out, "aof_enabled:0");
    Line(out, "aof_rewrite_in_progress:0");
    Line(out, "aof_rewrite_scheduled:0");
    Line(out, "aof_last_rewrite_time_sec:-1");
    Line(out, "aof_current_rewrite_time_sec:-1");
    Line(out, "aof_last_bgrewrite_status:ok");
    Line(out, "aof_rewrites:0");
    Line(out, "aof_rewrites_consecutive_failures:0");
    Line(out, "aof_last_write_status:ok");
    Line(out, "aof_last_cow_size:0");
    Line(out, "module_fork_in_progress:0");
    Line(out, "module_fork_last_cow_size:0");
  }
  if (server.loading()) {
    // Valkey's ETA: the time so far scaled by what is left.
    const int64_t elapsed_ms = now - snap.loading_start_ms;
    const size_t total = snap.loading_total_bytes, loaded = snap.loading_loaded_bytes;
    const double perc = total == 0 ? 0 : 100.0 * static_cast<double>(loaded) / total;
    const int64_t eta = loaded == 0 ? 1
        : static_cast<int64_t>(static_cast<double>(elapsed_ms) / 1000 * (total - loaded) / loaded);
    Line(out, "loading_start_time:%lld", static_cast<long long>(snap.loading_start_ms / 1000));
    Line(out, "loading_total_bytes:%zu", total);
    Line(out, "loading_rdb_used_mem:0");
    Line(out, "loading_loaded_bytes:%zu", loaded);
    Line(out, "loading_loaded_perc:%.2f", perc);
    Line(out, "loading_eta_seconds:%lld", static_cast<long long>(eta));
  }
}

void RenderStats(Server& server, std::string* out) {
  const ServerStats& st = server.stats();
  const KeyspaceStats& ks = server.keyspace_stats();
  // Closed clients' bytes are in the counters; live clients' are added here. The counters are
  // unsigned and CONFIG RESETSTAT may leave them "negative" (mod 2^64) to cancel live bytes.
  uint64_t in = st.net_input_bytes, out_bytes = st.net_output_bytes;
  for (const auto& [id, c] : server.clients()) {
    in += c->conn.BytesRead();
    out_bytes += c->conn.BytesWritten();
  }
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  Line(out, "total_connections_received:%llu", u(st.total_connections_received));
  Line(out, "total_commands_processed:%llu", u(st.total_commands_processed));
  Line(out, "instantaneous_ops_per_sec:%lld",
       static_cast<long long>(st.instantaneous_ops_per_sec + 0.5));
  Line(out, "total_net_input_bytes:%llu", u(in));
  Line(out, "total_net_output_bytes:%llu", u(out_bytes));
  Line(out, "total_net_repl_input_bytes:0");
  Line(out, "total_net_repl_output_bytes:0");
  Line(out, "instantaneous_input_kbps:0.00");
  Line(out, "instantaneous_output_kbps:0.00");
  Line(out, "instantaneous_input_repl_kbps:0.00");
  Line(out, "instantaneous_output_repl_kbps:0.00");
  Line(out, "rejected_connections:%llu", u(st.rejected_connections));
  *out += server.replication().StatsFields();
  Line(out, "expired_keys:%llu", u(ks.expired_keys));
  Line(out, "expired_stale_perc:%.2f", static_cast<double>(ks.expired_stale_perc));
  Line(out, "expired_time_cap_reached_count:0");
  Line(out, "expire_cycle_cpu_milliseconds:%llu", u(ks.expire_cycle_cpu_us / 1000));
  const EvictionStats ev = GetEvictionStats();
  Line(out, "evicted_keys:%llu", u(ev.evicted_keys));
  Line(out, "evicted_clients:%llu", u(st.evicted_clients));
  Line(out, "total_eviction_exceeded_time:%llu", u(ev.total_exceeded_ms));
  Line(out, "current_eviction_exceeded_time:%llu", u(ev.current_exceeded_ms));
  Line(out, "keyspace_hits:%llu", u(ks.keyspace_hits));
  Line(out, "keyspace_misses:%llu", u(ks.keyspace_misses));
  Line(out, "pubsub_channels:%zu", server.pubsub().ChannelCount(PubSubSpace::kGlobal));
  Line(out, "pubsub_patterns:%zu", server.pubsub().PatternCount());
  Line(out, "pubsubshard_channels:%zu", server.pubsub().ChannelCount(PubSubSpace::kShard));
  Line(out, "latest_fork_usec:0");
  Line(out, "total_forks:0");
  Line(out, "migrate_cached_sockets:0");
  Line(out, "slave_expires_tracked_keys:0");
  Line(out, "active_defrag_hits:0");
  Line(out, "active_defrag_misses:0");
  Line(out, "active_defrag_key_hits:0");
  Line(out, "active_defrag_key_misses:0");
  Line(out, "total_active_defrag_time:0");
  Line(out, "current_active_defrag_time:0");
  Line(out, "tracking_total_keys:%zu", server.tracking().KeyCount());
  Line(out, "tracking_total_items:%zu", server.tracking().ItemCount());
  Line(out, "tracking_total_prefixes:%zu", server.tracking().PrefixCount());
  Line(out, "unexpected_error_replies:%llu", u(st.unexpected_error_replies));
  Line(out, "total_error_replies:%llu", u(st.total_error_replies));
  Line(out, "dump_payload_sanitizations:0");
  Line(out, "total_reads_processed:%llu", u(st.total_reads_processed));
  Line(out, "total_writes_processed:%llu", u(st.total_writes_processed));
  Line(out, "io_threaded_reads_processed:%llu", u(st.io_threaded_reads_processed));
  Line(out, "io_threaded_writes_processed:%llu", u(st.io_threaded_writes_processed));
  Line(out, "client_query_buffer_limit_disconnections:%llu",
       u(st.client_query_buffer_limit_disconnections));
  Line(out, "client_output_buffer_limit_disconnections:%llu",
       u(st.client_output_buffer_limit_disconnections));
  Line(out, "reply_buffer_shrinks:0");
  Line(out, "reply_buffer_expands:0");
  // ACL refusals, named and placed as Valkey 8 prints them (Redis 7.0 has none).
  Line(out, "acl_access_denied_auth:%llu", u(st.acl_denied_auth));
  Line(out, "acl_access_denied_cmd:%llu", u(st.acl_denied_cmd));
  Line(out, "acl_access_denied_key:%llu", u(st.acl_denied_key));
  Line(out, "acl_access_denied_channel:%llu", u(st.acl_denied_channel));
  Line(out, "acl_access_denied_db:%llu", u(st.acl_denied_db));
}

void RenderReplication(Server& server, std::string* out) {
  *out += server.replication().InfoSection();
}

void RenderCpu(Server&, std::string* out) {
  auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  struct rusage self = {}, children = {}, thread = {};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);
  Line(out, "used_cpu_sys:%.6f", seconds(self.ru_stime));
  Line(out, "used_cpu_user:%.6f", seconds(self.ru_utime));
  Line(out, "used_cpu_sys_children:%.6f", seconds(children.ru_stime));
  Line(out, "used_cpu_user_children:%.6f", seconds(children.ru_utime));
  Line(out, "used_cpu_sys_main_thread:%.6f", seconds(thread.ru_stime));
  Line(out, "used_cpu_user_main_thread:%.6f", seconds(thread.ru_utime));
}

void RenderModules(Server&, std::string*) {}

void AppendCommandStats(const CommandSpec& spec, std::string* out) {
  const CommandStats& s = spec.stats;
  if (s.calls == 0 && s.failed_calls == 0 && s.rejected_calls == 0) return;
  Line(out, "cmdstat_%s:calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,"
       "failed_calls=%llu",
       spec.name.c_str(), static_cast<unsigned long long>(s.calls),
       static_cast<unsigned long long>(s.usec),
       s.calls ? static_cast<double>(s.usec) / static_cast<double>(s.calls) : 0.0,
       static_cast<unsigned long long>(s.rejected_calls),
       static_cast<unsigned long long>(s.failed_calls));
}

void RenderCommandStats(Server&, std::string* out) {
  for (const CommandSpec* spec : Commands().All()) {
    AppendCommandStats(*spec, out);
    for (const CommandSpec& sub : spec->subcommands) AppendCommandStats(sub, out);
  }
}

void RenderErrorStats(Server& server, std::string* out) {
  for (const auto& [code, count] : server.stats().error_codes) {
    Line(out, "errorstat_%s:count=%llu", code.c_str(), static_cast<unsigned long long>(count));
  }
}

void RenderLatencyStats(Server& server, std::string* out) {
  const std::vector<double>& percentiles = server.config().latency_tracking_info_percentiles;
  auto add = [&](const CommandSpec& spec) {
    std::string line = LatencyStatsLine(spec, percentiles);
    if (!line.empty()) *out += line + "\r\n";
  };
  // Nothing while latency-tracking is off, as in Valkey (the samples are kept).
  if (!server.config().latency_tracking) return;
  for (const CommandSpec* spec : Commands().All()) {
    add(*spec);
    for (const CommandSpec& sub : spec->subcommands) add(sub);
  }
}

void RenderCluster(Server& server, std::string* out) {
  Line(out, "cluster_enabled:%d", ClusterEnabled(server.config()) ? 1 : 0);
}

void RenderKeyspace(Server& server, std::string* out) {
  for (int i = 0; i < server.db_count(); ++i) {
    Db* db = server.db(i);
    if (db->Size() == 0) continue;
    Line(out, "db%d:keys=%zu,expires=%zu,avg_ttl=0", i, db->Size(), db->VolatileCount());
  }
}

constexpr Section kSections[] = {
    {"server", "Server", true, RenderServer},
    {"clients", "Clients", true, RenderClients},
    {"memory", "Memory", true, RenderMemory},
    {"persistence", "Persistence", true, RenderPersistence},
    {"stats", "Stats", true, RenderStats},
    {"replication", "Replication", true, RenderReplication},
    {"cpu", "CPU", true, RenderCpu},
    {"modules", "Modules", true, RenderModules},
    {"commandstats", "Commandstats", false, RenderCommandStats},
    {"errorstats", "Errorstats", true, RenderErrorStats},
    {"latencystats", "Latencystats", false, RenderLatencyStats},
    {"cluster", "Cluster", true, RenderCluster},
    {"keyspace", "Keyspace", true, RenderKeyspace},
};
constexpr size_t kSectionCount = sizeof(kSections) / sizeof(kSections[0]);

}  // namespace

std::string InfoText(Server& server, const std::vector<std::string_view>& sections) {
  bool wanted[kSectionCount] = {};
  if (sections.empty()) {
    for (size_t i = 0; i < kSectionCount; ++i) wanted[i] = kSections[i].in_default;
  }
  for (std::string_view name : sections) {
    bool all = EqualsIgnoreCase(name, "all") || EqualsIgnoreCase(name, "everything");
    bool def = EqualsIgnoreCase(name, "default");
    // Unknown section names are ignored, as in Valkey.
    for (size_t i = 0; i < kSectionCount; ++i) {
      if (all || (def && kSections[i].in_default) || EqualsIgnoreCase(name, kSections[i].name)) {
        wanted[i] = true;
      }
    }
  }
  std::string text;
  for (size_t i = 0; i < kSectionCount; ++i) {
    if (!wanted[i]) continue;
    if (!text.empty()) text += "\r\n";
    text += "# ";
    text += kSections[i].title;
    text += "\r\n";
    kSections[i].render(server, &text);
  }
  return text;
}

namespace {

// INFO [section [section ...]]
void CmdInfo(CommandContext& ctx) {
  std::vector<std::string_view> sections(ctx.args.begin() + 1, ctx.args.end());
  ctx.reply.Verbatim("txt", InfoText(ctx.server, sections));
}

}  // namespace

size_t StartupMemory() { return g_startup_memory; }

size_t PeakMemory(size_t used) {
  g_peak_memory = std::max(g_peak_memory, used);
  return g_peak_memory;
}

void RegisterInfoCommand(CommandTable& t) {
  g_startup_memory = UsedMemory();
  t.Add({.name = "info", .arity = -1, .flags = kCmdLoading | kCmdStale,
         .acl = kAclSlow | kAclDangerous, .handler = CmdInfo, .group = "server",
         .summary = "Returns information and statistics about the server.", .since = "1.0.0",
         .complexity = "O(1)"});
}

}  // namespace vireo
