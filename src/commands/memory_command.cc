// MEMORY USAGE | STATS | DOCTOR | PURGE | MALLOC-STATS | HELP (redis-cli --memkeys relies on
// USAGE).
#include <string>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/server_family.h"
#include "common/numbers.h"
#include "server/server.h"
#include "store/memory.h"
#include "store/value.h"

namespace vireo {
namespace {

// MEMORY USAGE key [SAMPLES count]. Vireo measures every element (sizes are tracked per
// allocation), so SAMPLES is validated but changes nothing.
void CmdMemoryUsage(CommandContext& ctx) {
  for (size_t i = 3; i < ctx.argc(); i += 2) {
    if (i + 1 >= ctx.argc() || !EqualsIgnoreCase(ctx.arg(i), "samples")) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    int64_t samples;
    if (!ParseInt64(ctx.arg(i + 1), &samples)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
    if (samples < 0) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  const Entry* e = ctx.db->Lookup(ctx.arg(2), false);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Integer(static_cast<int64_t>(EntryMemory(e)));
}

// Client buffers, the part of used_memory that is not data.
size_t ClientsMemory(Server& server) {
  size_t n = 0;
  for (const auto& [id, c] : server.clients()) {
    n += c->conn.InputCapacity() + c->conn.Output()->capacity();
  }
  return n;
}

// MEMORY STATS: Valkey's keys, with zero for the parts Vireo does not have yet.
void CmdMemoryStats(CommandContext& ctx) {
  Server& server = ctx.server;
  size_t used = UsedMemory();
  size_t peak = PeakMemory(used);
  size_t startup = std::min(StartupMemory(), used);
  size_t clients = ClientsMemory(server);
  size_t overhead = std::min(used, startup + clients);
  size_t keys = 0;
  int nonempty = 0;
  for (int i = 0; i < server.db_count(); ++i) {
    keys += server.db(i)->Size();
    nonempty += server.db(i)->Size() != 0;
  }
  size_t dataset = used - overhead;
  size_t net = used > startup ? used - startup : 0;
  size_t rss = ResidentMemory();
  ReplyBuilder& r = ctx.reply;
  r.Map(19 + static_cast<size_t>(nonempty));
  auto num = [&](const char* name, size_t v) {
    r.Bulk(name);
    r.Integer(static_cast<int64_t>(v));
  };
  auto real = [&](const char* name, double v) {
    r.Bulk(name);
    r.Double(v);
  };
  num("peak.allocated", peak);
  num("total.allocated", used);
  num("startup.allocated", startup);
  num("replication.backlog", 0);
  num("clients.slaves", 0);
  num("clients.normal", clients);
  num("cluster.links", 0);
  num("aof.buffer", 0);
  num("lua.caches", 0);
  num("functions.caches", 0);
  for (int i = 0; i < server.db_count(); ++i) {
    if (server.db(i)->Size() == 0) continue;
    r.Bulk("db." + std::to_string(i));
    r.Map(2);
    num("overhead.hashtable.main", 0);  // the table's buckets are counted in dataset.bytes
    num("overhead.hashtable.expires", 0);  // expiry lives in the entries
  }
  num("overhead.total", overhead);
  num("keys.count", keys);
  num("keys.bytes-per-key", keys ? net / keys : 0);
  num("dataset.bytes", dataset);
  real("dataset.percentage",
       net ? 100.0 * static_cast<double>(dataset) / static_cast<double>(net) : 0);
  real("peak.percentage", peak ? 100.0 * static_cast<double>(used) / static_cast<double>(peak) : 0);
  num("allocator.allocated", used);
  num("fragmentation.bytes", rss > used ? rss - used : 0);
  real("fragmentation", used ? static_cast<double>(rss) / static_cast<double>(used) : 0);
}

void CmdMemoryDoctor(CommandContext& ctx) {
  // Valkey's report needs at least 5 MB of data to judge anything; below that it says so.
  if (UsedMemory() < 5 * 1024 * 1024) {
    ctx.reply.Verbatim(
        "txt",
        "Hi Sam, this instance is empty or is using very little memory, my issues detector "
        "can't be used in these conditions. Please, leave for your mission on Earth and fill "
        "it with some data. The new Sam and I will be back to our programming as soon as I "
        "finished rebooting.\n");
    return;
  }
  ctx.reply.Verbatim("txt",
                     "Hi Sam, I can't find any memory issue in your instance. I can only "
                     "account for what occurs on this base.\n");
}

void CmdMemoryPurge(CommandContext& ctx) {
  PurgeAllocator();
  ctx.reply.Ok();
}

void CmdMemoryMallocStats(CommandContext& ctx) { ctx.reply.Verbatim("txt", AllocatorStats()); }

void CmdMemoryHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"DOCTOR", "    Return memory problems reports.", "MALLOC-STATS",
             "    Return internal statistics report from the memory allocator.", "PURGE",
             "    Attempt to purge dirty pages for reclamation by the allocator.", "STATS",
             "    Return information about the memory usage of the server.",
             "USAGE <key> [SAMPLES <count>]",
             "    Return memory in bytes used by <key> and its value. Nested values are",
             "    sampled up to <count> times (default: 5, 0 means sample all)."});
}

}  // namespace

void RegisterMemoryCommand(CommandTable& t) {
  CommandSpec memory{.name = "memory", .arity = -2, .acl = kAclSlow, .group = "server",
                     .summary = "A container for memory diagnostics commands", .since = "4.0.0",
                     .complexity = "Depends on subcommand."};
  const char* o1 = "O(1)";
  memory.subcommands = {
      {.name = "memory|doctor", .arity = 2, .acl = kAclSlow, .handler = CmdMemoryDoctor,
       .group = "server", .summary = "Outputs memory problems report", .since = "4.0.0",
       .complexity = o1},
      {.name = "memory|help", .arity = 2, .flags = kCmdLoading | kCmdStale, .acl = kAclSlow,
       .handler = CmdMemoryHelp, .group = "server",
       .summary = "Show helpful text about the different subcommands", .since = "4.0.0",
       .complexity = o1},
      {.name = "memory|malloc-stats", .arity = 2, .acl = kAclSlow,
       .handler = CmdMemoryMallocStats, .group = "server",
       .summary = "Show allocator internal stats", .since = "4.0.0",
       .complexity = "Depends on how much memory is allocated, could be slow"},
      {.name = "memory|purge", .arity = 2, .acl = kAclSlow, .handler = CmdMemoryPurge,
       .group = "server", .summary = "Ask the allocator to release memory", .since = "4.0.0",
       .complexity = "Depends on how much memory is allocated, could be slow"},
      {.name = "memory|stats", .arity = 2, .acl = kAclSlow, .handler = CmdMemoryStats,
       .group = "server", .summary = "Show memory usage details", .since = "4.0.0",
       .complexity = o1},
      {.name = "memory|usage", .arity = -3, .flags = kCmdReadonly, .acl = kAclRead | kAclSlow,
       .first_key = 2, .last_key = 2, .key_step = 1, .handler = CmdMemoryUsage,
       .group = "server", .summary = "Estimate the memory usage of a key", .since = "4.0.0",
       .complexity = "O(N) where N is the number of samples."},
  };
  t.Add(std::move(memory));
}

}  // namespace vireo
