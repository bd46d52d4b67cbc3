// LATENCY: the latency monitor's samples (server/latency_monitor.h) and the per-command
// latency histograms of latency-tracking (common/latency_histogram.h). Texts, advice and the
// graph follow Valkey's, as redis-server 7.0 prints them.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

#include "commands/context.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/numbers.h"
#include "common/sparkline.h"
#include "server/server.h"

namespace vireo {
namespace {

constexpr int kGraphColumns = 80;
constexpr int kGraphRows = 4;

int64_t NowSeconds() { return static_cast<int64_t>(std::time(nullptr)); }

// LATENCY LATEST
void CmdLatencyLatest(CommandContext& ctx) {
  const auto& events = ctx.server.latency_monitor().events();
  ctx.reply.Array(events.size());
  for (const LatencyMonitor::Series& s : events) {
    ctx.reply.Array(4);
    ctx.reply.Bulk(s.event);
    ctx.reply.Integer(s.Latest().time_s);
    ctx.reply.Integer(s.Latest().latency_ms);
    ctx.reply.Integer(s.max_ms);
  }
}

// LATENCY HISTORY event
void CmdLatencyHistory(CommandContext& ctx) {
  const LatencyMonitor::Series* s = ctx.server.latency_monitor().Find(ctx.arg(2));
  if (s == nullptr) {
    ctx.reply.EmptyArray();
    return;
  }
  std::vector<LatencyMonitor::Sample> history = s->History();
  ctx.reply.Array(history.size());
  for (const LatencyMonitor::Sample& sample : history) {
    ctx.reply.Array(2);
    ctx.reply.Integer(sample.time_s);
    ctx.reply.Integer(sample.latency_ms);
  }
}

// LATENCY RESET [event ...]
void CmdLatencyReset(CommandContext& ctx) {
  LatencyMonitor& monitor = ctx.server.latency_monitor();
  if (ctx.argc() == 2) {
    ctx.reply.Integer(static_cast<int64_t>(monitor.ResetAll()));
    return;
  }
  int64_t reset = 0;
  for (size_t i = 2; i < ctx.argc(); ++i) reset += monitor.Reset(ctx.arg(i)) ? 1 : 0;
  ctx.reply.Integer(reset);
}

// "12s", "3m", "5h", "2d": how long ago a sample was, as the graph labels it.
std::string Ago(int64_t elapsed) {
  if (elapsed < 60) return std::to_string(elapsed) + "s";
  if (elapsed < 3600) return std::to_string(elapsed / 60) + "m";
  if (elapsed < 3600 * 24) return std::to_string(elapsed / 3600) + "h";
  return std::to_string(elapsed / (3600 * 24)) + "d";
}

// LATENCY GRAPH event
void CmdLatencyGraph(CommandContext& ctx) {
  const LatencyMonitor::Series* s = ctx.server.latency_monitor().Find(ctx.arg(2));
  if (s == nullptr) {
    ctx.reply.Error("ERR No samples available for event '" + std::string(ctx.arg(2)) + "'");
    return;
  }
  int64_t now = NowSeconds();
  std::vector<SparkSample> samples;
  uint32_t low = 0, high = 0;
  for (const LatencyMonitor::Sample& sample : s->History()) {
    if (samples.empty() || sample.latency_ms < low) low = sample.latency_ms;
    if (samples.empty() || sample.latency_ms > high) high = sample.latency_ms;
    samples.push_back({static_cast<double>(sample.latency_ms), Ago(now - sample.time_s)});
  }
  char head[256];
  snprintf(head, sizeof(head), "%s - high %u ms, low %u ms (all time high %u ms)\n",
           s->event.c_str(), high, low, s->max_ms);
  std::string graph = head;
  graph += std::string(kGraphColumns, '-') + "\n";
  graph += RenderSparkline(samples, kGraphColumns, kGraphRows);
  ctx.reply.Verbatim("txt", graph);
}

// Bytes of transparent huge pages this process maps (they make forks and writes slow).
int64_t AnonHugePagesKb() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("AnonHugePages:", 0) == 0) {
      long long kb = 0;  // %lld: int64_t is long on x86-64 but long long on armhf
      sscanf(line.c_str() + 14, "%lld", &kb);
      return kb;
    }
  }
  return 0;
}

// The advice LATENCY DOCTOR may give, in the order it prints them.
enum Advice {
  kAdviceSlowlogEnable,
  kAdviceSlowlogTuning,
  kAdviceSlowlogInspect,
  kAdviceScheduler,
  kAdviceLocalDisk,
  kAdviceSsd,
  kAdviceDataWriteback,
  kAdviceDiskContention,
  kAdviceNoAppendfsync,
  kAdviceRelaxFsync,
  kAdviceWriteLoad,
  kAdviceHz,
  kAdviceLargeObjects,
  kAdviceMassEviction,
  kAdviceDisableThp,
  kAdviceCount
};

// Which advice an event calls for (by Valkey's event names), and how many it counts.
int AdviseFor(std::string_view event, const Config& config, bool* advise) {
  auto set = [&](std::initializer_list<Advice> list) {
    for (Advice a : list) advise[a] = true;
    return static_cast<int>(list.size());
  };
  if (EqualsIgnoreCase(event, "command")) {
    int n = 0;
    if (config.slowlog_log_slower_than < 0 || config.slowlog_max_len == 0) {
      n += set({kAdviceSlowlogEnable});
    } else if (config.slowlog_log_slower_than / 1000 > config.latency_monitor_threshold) {
      n += set({kAdviceSlowlogTuning});
    }
    return n + set({kAdviceSlowlogInspect, kAdviceLargeObjects});
  }
  if (EqualsIgnoreCase(event, "fast-command")) return set({kAdviceScheduler});
  if (EqualsIgnoreCase(event, "aof-write-pending-fsync")) {
    return set({kAdviceLocalDisk, kAdviceDiskContention, kAdviceSsd, kAdviceDataWriteback});
  }
  if (EqualsIgnoreCase(event, "aof-write-active-child")) {
    return set({kAdviceNoAppendfsync, kAdviceDataWriteback, kAdviceSsd});
  }
  if (EqualsIgnoreCase(event, "aof-write-alone")) {
    return set({kAdviceLocalDisk, kAdviceDataWriteback, kAdviceSsd});
  }
  if (EqualsIgnoreCase(event, "aof-fsync-always")) return set({kAdviceRelaxFsync});
  if (EqualsIgnoreCase(event, "aof-fstat") || EqualsIgnoreCase(event, "rdb-unlink-temp-file")) {
    return set({kAdviceDiskContention, kAdviceLocalDisk});
  }
  if (EqualsIgnoreCase(event, "aof-rewrite-diff-write") || EqualsIgnoreCase(event, "aof-rename")) {
    return set({kAdviceWriteLoad, kAdviceDataWriteback, kAdviceSsd, kAdviceLocalDisk});
  }
  if (EqualsIgnoreCase(event, "expire-cycle")) return set({kAdviceHz, kAdviceLargeObjects});
  if (EqualsIgnoreCase(event, "eviction-del")) return set({kAdviceLargeObjects});
  if (EqualsIgnoreCase(event, "eviction-cycle")) return set({kAdviceMassEviction});
  return 0;
}

std::string AdviceText(Advice a, const Config& config) {
  const std::string threshold_us = std::to_string(config.latency_monitor_threshold * 1000);
  switch (a) {
    case kAdviceSlowlogEnable:
      return "- There are latency issues with potentially slow commands you are using. Try to "
             "enable the Slow Log Valkey feature using the command 'CONFIG SET "
             "slowlog-log-slower-than " +
             threshold_us +
             "'. If the Slow log is disabled Valkey "
             "is not able to log slow commands execution for you.\n";
    case kAdviceSlowlogTuning:
      return "- Your current Slow Log configuration only logs events that are slower than your "
             "configured latency monitor threshold. Please use 'CONFIG SET "
             "slowlog-log-slower-than " +
             threshold_us + "'.\n";
    case kAdviceSlowlogInspect:
      return "- Check your Slow Log to understand what are the commands you are running which "
             "are too slow to execute. Please check https://valkey.io/commands/slowlog for more "
             "information.\n";
    case kAdviceScheduler:
      return "- The system is slow to execute Valkey code paths not containing system calls. "
             "This usually means the system does not provide Valkey CPU time to run for long "
             "periods. You should try to:\n"
             "  1) Lower the system load.\n"
             "  2) Use a computer / VM just for Valkey if you are running other software in the "
             "same system.\n"
             "  3) Check if you have a \"noisy neighbour\" problem.\n"
             "  4) Check with 'valkey-cli --intrinsic-latency 100' what is the intrinsic latency "
             "in your system.\n"
             "  5) Check if the problem is allocator-related by recompiling Valkey with "
             "MALLOC=libc, if you are using Jemalloc. However this may create fragmentation "
             "problems.\n";
    case kAdviceLocalDisk:
      return "- It is strongly advised to use local disks for persistence, especially if you "
             "are using AOF. Remote disks provided by platform-as-a-service providers are known "
             "to be slow.\n";
    case kAdviceSsd:
      return "- SSD disks are able to reduce fsync latency, and total time needed for "
             "snapshotting and AOF log rewriting (resulting in smaller memory usage). With "
             "extremely high write load SSD disks can be a good option. However Valkey should "
             "perform reasonably with high load using normal disks. Use this advice as a last "
             "resort.\n";
    case kAdviceDataWriteback:
      return "- Mounting ext3/4 filesystems with data=writeback can provide a performance boost "
             "compared to data=ordered, however this mode of operation provides less "
             "guarantees, and sometimes it can happen that after a hard crash the AOF file will "
             "have a half-written command at the end and will require to be repaired before "
             "Valkey restarts.\n";
    case kAdviceDiskContention:
      return "- Try to lower the disk contention. This is often caused by other disk intensive "
             "processes running in the same computer (including other Valkey instances).\n";
    case kAdviceNoAppendfsync:
      return "- Assuming from the point of view of data safety this is viable in your "
             "environment, you could try to enable the 'no-appendfsync-on-rewrite' option, so "
             "that fsync will not be performed while there is a child rewriting the AOF file or "
             "producing an RDB file (the moment where there is high disk contention).\n";
    case kAdviceRelaxFsync:
      if (config.appendfsync != "always") return "";
      return "- Your fsync policy is set to 'always'. It is very hard to get good performances "
             "with such a setup, if possible try to relax the fsync policy to 'onesec'.\n";
    case kAdviceWriteLoad:
      return "- Latency during the AOF atomic rename operation or when the final difference is "
             "flushed to the AOF file at the end of the rewrite, sometimes is caused by very "
             "high write load, causing the AOF buffer to get very large. If possible try to "
             "send less commands to accomplish the same work, or use Lua scripts to group "
             "multiple operations into a single EVALSHA call.\n";
    case kAdviceHz:
      if (config.hz >= 100) return "";
      return "- In order to make the Valkey keys expiring process more incremental, try to set "
             "the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n";
    case kAdviceLargeObjects:
      return "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a "
             "blocking operation. If you have very large objects that are often deleted, "
             "expired, or evicted, try to fragment those objects into multiple smaller "
             "objects.\n";
    case kAdviceMassEviction:
      return "- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of "
             "large objects via sets or sorted sets intersections, STORE option of SORT, Valkey "
             "Cluster large keys migrations (RESTORE command), may create sudden memory "
             "pressure forcing the server to block trying to evict keys. \n";
    case kAdviceDisableThp:
      return "- I detected a non zero amount of anonymous huge pages used by your process. "
             "This creates very serious latency events in different conditions, especially "
             "when Valkey is persisting on disk. To disable THP support use the command 'echo "
             "never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it "
             "into /etc/rc.local so that the command will be executed again after a reboot. "
             "Note that even if you have already disabled THP, you still need to restart the "
             "Valkey process to get rid of the huge pages already created.\n";
    case kAdviceCount:
      break;
  }
  return "";
}

std::string DoctorReport(Server& server) {
  const Config& config = server.config();
  const auto& events = server.latency_monitor().events();
  if (events.empty() && config.latency_monitor_threshold == 0) {
    return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Valkey "
           "instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
           "order to enable it.\n";
  }
  std::string report;
  bool advise[kAdviceCount] = {};
  int advices = 0;
  int64_t now = NowSeconds();
  int n = 0;
  for (const LatencyMonitor::Series& s : events) {
    if (++n == 1) {
      report += "Latency spikes are observed in this Valkey instance.\n\n";
    }
    LatencyStats st = AnalyzeLatency(s, now);
    char line[512];
    snprintf(line, sizeof(line),
             "%d. %s: %zu latency spikes (average %llums, mean deviation %llums, period %.2f "
             "sec). Worst all time event %ums.",
             n, s.event.c_str(), st.samples, static_cast<unsigned long long>(st.avg_ms),
             static_cast<unsigned long long>(st.mad_ms),
             static_cast<double>(st.period_s) / static_cast<double>(st.samples), s.max_ms);
    report += line;
    advices += AdviseFor(s.event, config, advise);
    report += '\n';
  }
  if (AnonHugePagesKb() > 0) {
    advise[kAdviceDisableThp] = true;
    ++advices;
  }
  if (n == 0 && advices == 0) {
    report +=
        "No latency spike was observed during the lifetime of this Valkey instance, not in the "
        "slightest bit.\n";
  } else if (n > 0 && advices == 0) {
    report +=
        "\nThere are latency events logged that are not easy to fix. Please get some help from "
        "Valkey community, providing this report in your help request.\n";
  } else {
    report += "\nHere is some advice for you:\n\n";
    for (int a = 0; a < kAdviceCount; ++a) {
      if (advise[a]) report += AdviceText(static_cast<Advice>(a), config);
    }
  }
  return report;
}

// LATENCY DOCTOR
void CmdLatencyDoctor(CommandContext& ctx) { ctx.reply.Verbatim("txt", DoctorReport(ctx.server)); }

// One command's entry: {calls, histogram_usec: {usec: cumulative calls}}, buckets at powers
// of two from 1 us.
void ReplyCommandHistogram(ReplyBuilder& reply, const CommandSpec& spec) {
  const LatencyHistogram& h = spec.stats.latency;
  reply.Bulk(spec.name);
  reply.Map(2);
  reply.Bulk("calls");
  reply.Integer(static_cast<int64_t>(h.total()));
  reply.Bulk("histogram_usec");
  std::vector<LatencyHistogram::Step> steps = h.CumulativeLog2(1024);
  reply.Map(steps.size());
  for (const LatencyHistogram::Step& step : steps) {
    reply.Integer(step.value / 1000);
    reply.Integer(static_cast<int64_t>(step.cumulative));
  }
}

// The command a LATENCY HISTOGRAM argument names: "get", "config|get" (nullptr if none).
const CommandSpec* LookupCommand(std::string_view name) {
  size_t bar = name.find('|');
  if (bar == std::string_view::npos) return Commands().Find(name);
  const CommandSpec* parent = Commands().Find(name.substr(0, bar));
  std::string_view sub = name.substr(bar + 1);
  if (parent == nullptr || sub.find('|') != std::string_view::npos) return nullptr;
  return parent->FindSubcommand(sub);
}

// A command and its subcommands that have samples.
void CollectWithSamples(const CommandSpec& spec, std::vector<const CommandSpec*>* out) {
  if (spec.stats.latency.total() != 0) out->push_back(&spec);
  for (const CommandSpec& sub : spec.subcommands) {
    if (sub.stats.latency.total() != 0) out->push_back(&sub);
  }
}

// LATENCY HISTOGRAM [command ...]
void CmdLatencyHistogram(CommandContext& ctx) {
  std::vector<const CommandSpec*> specs;
  if (ctx.argc() == 2) {
    for (const CommandSpec* spec : Commands().All()) CollectWithSamples(*spec, &specs);
  } else {
    // Unknown names are skipped; a name given twice is answered twice, as in Valkey.
    for (size_t i = 2; i < ctx.argc(); ++i) {
      if (const CommandSpec* spec = LookupCommand(ctx.arg(i))) CollectWithSamples(*spec, &specs);
    }
  }
  ctx.reply.Map(specs.size());
  for (const CommandSpec* spec : specs) ReplyCommandHistogram(ctx.reply, *spec);
}

// LATENCY HELP
void CmdLatencyHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"DOCTOR", "    Return a human readable latency analysis report.", "GRAPH <event>",
             "    Return an ASCII latency graph for the <event> class.", "HISTORY <event>",
             "    Return time-latency samples for the <event> class.", "LATEST",
             "    Return the latest latency samples for all events.", "RESET [<event> ...]",
             "    Reset latency data of one or more <event> classes.",
             "    (default: reset all data for all event classes)", "HISTOGRAM [COMMAND ...]",
             "    Return a cumulative distribution of latencies in the format of a histogram "
             "for the specified command names.",
             "    If no commands are specified then all histograms are replied."});
}

}  // namespace

void RegisterLatencyCommands(CommandTable& t) {
  const uint32_t flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  const uint64_t acl = kAclAdmin | kAclSlow | kAclDangerous;
  CommandSpec latency{.name = "latency",
                      .arity = -2,
                      .acl = kAclSlow,
                      .group = "server",
                      .summary = "A container for latency diagnostics commands.",
                      .since = "2.8.13",
                      .complexity = "Depends on subcommand."};
  latency.subcommands = {
      {.name = "latency|doctor",
       .arity = 2,
       .flags = flags,
       .acl = acl,
       .handler = CmdLatencyDoctor,
       .group = "server",
       .summary = "Returns a human-readable latency analysis report.",
       .since = "2.8.13",
       .complexity = "O(1)"},
      {.name = "latency|graph",
       .arity = 3,
       .flags = flags,
       .acl = acl,
       .handler = CmdLatencyGraph,
       .group = "server",
       .summary = "Returns a latency graph for an event.",
       .since = "2.8.13",
       .complexity = "O(1)"},
      {.name = "latency|help",
       .arity = 2,
       .flags = kCmdLoading | kCmdStale,
       .acl = kAclSlow,
       .handler = CmdLatencyHelp,
       .group = "server",
       .summary = "Returns helpful text about the different subcommands.",
       .since = "2.8.13",
       .complexity = "O(1)"},
      {.name = "latency|histogram",
       .arity = -2,
       .flags = flags,
       .acl = acl,
       .handler = CmdLatencyHistogram,
       .group = "server",
       .summary = "Returns the cumulative distribution of latencies of a subset or all "
                  "commands.",
       .since = "7.0.0",
       .complexity = "O(N) where N is the number of commands with latency information being "
                     "retrieved."},
      {.name = "latency|history",
       .arity = 3,
       .flags = flags,
       .acl = acl,
       .handler = CmdLatencyHistory,
       .group = "server",
       .summary = "Returns timestamp-latency samples for an event.",
       .since = "2.8.13",
       .complexity = "O(1)"},
      {.name = "latency|latest",
       .arity = 2,
       .flags = flags,
       .acl = acl,
       .handler = CmdLatencyLatest,
       .group = "server",
       .summary = "Returns the latest latency samples for all events.",
       .since = "2.8.13",
       .complexity = "O(1)"},
      {.name = "latency|reset",
       .arity = -2,
       .flags = flags,
       .acl = acl,
       .handler = CmdLatencyReset,
       .group = "server",
       .summary = "Resets the latency data for one or more events.",
       .since = "2.8.13",
       .complexity = "O(1)"},
  };
  t.Add(std::move(latency));
}

}  // namespace vireo
