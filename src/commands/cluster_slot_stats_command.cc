// CLUSTER SLOT-STATS: per-slot key counts and, under cluster-slot-stats-enabled yes, the CPU
// time and network bytes the node's slots served (cluster/slot_stats.h), with Valkey 8.0's
// argument rules and error texts.
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/slot_stats.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/crc16.h"
#include "common/numbers.h"
#include "server/server.h"

namespace vireo {
namespace {

bool ParseSlotArg(std::string_view arg, int* slot) {
  int64_t v;
  if (!ParseInt64(arg, &v) || v < 0 || v >= kClusterSlots) return false;
  *slot = static_cast<int>(v);
  return true;
}

// Keys per slot, which the keyspace keeps, over every database (cluster-databases): a slot
// is the cluster's unit, whatever database its keys are in.
std::vector<uint64_t> KeyCounts(Server& server) {
  std::vector<uint64_t> counts(kClusterSlots, 0);
  for (int i = 0; i < server.db_count(); ++i) {
    Db* db = server.db(i);
    if (db->Size() == 0) continue;
    for (int s = 0; s < kClusterSlots; ++s) counts[static_cast<size_t>(s)] += db->KeysInSlot(s);
  }
  return counts;
}

void ReplyStats(CommandContext& ctx, const std::vector<int>& slots,
                const std::vector<uint64_t>& key_counts, bool enabled) {
  const SlotStats& stats = ctx.server.cluster()->slot_stats();
  ReplyBuilder& r = ctx.reply;
  r.Array(slots.size());
  for (int s : slots) {
    r.Array(2);
    r.Integer(s);
    r.Map(enabled ? 4 : 1);
    r.Bulk("key-count");
    r.Integer(static_cast<int64_t>(key_counts[static_cast<size_t>(s)]));
    if (!enabled) continue;
    const SlotStats::Counters& c = stats.Get(s);
    r.Bulk("cpu-usec");
    r.Integer(static_cast<int64_t>(c.cpu_usec));
    r.Bulk("network-bytes-in");
    r.Integer(static_cast<int64_t>(c.network_bytes_in));
    r.Bulk("network-bytes-out");
    r.Integer(static_cast<int64_t>(c.network_bytes_out));
  }
}

// CLUSTER SLOT-STATS SLOTSRANGE start end | ORDERBY metric [LIMIT limit] [ASC|DESC]
void CmdClusterSlotStats(CommandContext& ctx) {
  Cluster* cluster = ctx.server.cluster();
  if (cluster == nullptr) {
    ctx.reply.Error(errors::kClusterDisabled);
    return;
  }
  const bool enabled = ctx.server.config().cluster_slot_stats_enabled;
  // The shard's slots: a replica reports its primary's, as Valkey does.
  auto owned = [cluster](int s) { return cluster->InMyShard(cluster->SlotOwner(s)); };
  const size_t argc = ctx.argc();
  if (EqualsIgnoreCase(ctx.arg(2), "slotsrange") && argc == 5) {
    int start, end;
    if (!ParseSlotArg(ctx.arg(3), &start) || !ParseSlotArg(ctx.arg(4), &end)) {
      ctx.reply.Error(errors::kInvalidSlot);
      return;
    }
    if (start > end) {
      ctx.reply.Error("ERR Start slot number " + std::to_string(start) +
                      " is greater than end slot number " + std::to_string(end));
      return;
    }
    std::vector<int> slots;
    for (int s = start; s <= end; ++s) {
      if (owned(s)) slots.push_back(s);
    }
    ReplyStats(ctx, slots, KeyCounts(ctx.server), enabled);
    return;
  }
  if (!EqualsIgnoreCase(ctx.arg(2), "orderby")) {
    ctx.reply.Error("ERR unknown subcommand or wrong number of arguments for '" +
                    std::string(ctx.arg(1)) + "'. Try CLUSTER HELP.");
    return;
  }
  SlotMetric metric;
  // The accounted metrics are unknown names while accounting is off.
  if (!ParseSlotMetric(ctx.arg(3), &metric) || (!enabled && metric != SlotMetric::kKeyCount)) {
    ctx.reply.Error(errors::kSlotStatsMetric);
    return;
  }
  int64_t limit = kClusterSlots;
  bool descending = true;
  bool limit_seen = false, order_seen = false;
  for (size_t i = 4; i < argc; ++i) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "limit") && i + 1 < argc) {
      // The value is checked before the repetition, as Valkey does.
      if (!ParseInt64(ctx.arg(i + 1), &limit) || limit < 1 || limit > kClusterSlots) {
        ctx.reply.Error(errors::kSlotStatsLimit);
        return;
      }
      if (limit_seen) {
        ctx.reply.Error(errors::kSlotStatsRepeated);
        return;
      }
      limit_seen = true;
      ++i;
    } else if (EqualsIgnoreCase(a, "asc") || EqualsIgnoreCase(a, "desc")) {
      if (order_seen) {
        ctx.reply.Error(errors::kSlotStatsRepeated);
        return;
      }
      order_seen = true;
      descending = EqualsIgnoreCase(a, "desc");
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  std::vector<int> slots;
  for (int s = 0; s < kClusterSlots; ++s) {
    if (owned(s)) slots.push_back(s);
  }
  const std::vector<uint64_t> key_counts = KeyCounts(ctx.server);
  const std::vector<int> ordered = cluster->slot_stats().Order(
      slots, metric, key_counts, descending, static_cast<size_t>(limit));
  ReplyStats(ctx, ordered, key_counts, enabled);
}

}  // namespace

CommandSpec ClusterSlotStatsSpec() {
  return {.name = "cluster|slot-stats", .arity = -4, .flags = kCmdLoading | kCmdStale,
          .acl = kAclSlow, .handler = CmdClusterSlotStats, .group = "cluster",
          .summary = "Return an array of slot usage statistics for slots assigned to the "
                     "current node.",
          .since = "8.0.0",
          .complexity = "O(N) where N is the total number of slots based on arguments. "
                        "O(N*log(N)) with ORDERBY subcommand."};
}

}  // namespace vireo
