// CLUSTER, ASKING, READONLY and READWRITE (the cluster itself is cluster/cluster.h).
#include "cluster/cluster.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/crc16.h"
#include "common/numbers.h"
#include "server/server.h"

namespace vireo {
namespace {

// Cluster commands answer the same error on a server without cluster mode.
bool RequireCluster(CommandContext& ctx) {
  if (ctx.server.cluster() != nullptr) return true;
  ctx.reply.Error(errors::kClusterDisabled);
  return false;
}

void CmdCluster(CommandContext& ctx) {
  // Valkey 9.1 answers CLUSTER KEYSLOT without cluster mode too: it is arithmetic on the key
  // (the table has checked its arity already).
  if (ctx.server.cluster() == nullptr && EqualsIgnoreCase(ctx.arg(1), "keyslot")) {
    ctx.reply.Integer(KeyHashSlot(ctx.arg(2)));
    return;
  }
  if (RequireCluster(ctx)) ctx.server.cluster()->Command(&ctx.client, ctx.args, ctx.reply);
}

void CmdAsking(CommandContext& ctx) {
  if (!RequireCluster(ctx)) return;
  ctx.client.flags |= kClientAsking;
  ctx.reply.Ok();
}

// READONLY and READWRITE work without cluster mode too, as in Valkey 8.0: they decide whether
// a client with CLIENT CAPA redirect may read on a replica.
void CmdReadonly(CommandContext& ctx) {
  ctx.client.flags |= kClientReadOnlyReplica;
  ctx.reply.Ok();
}

void CmdReadwrite(CommandContext& ctx) {
  ctx.client.flags &= ~kClientReadOnlyReplica;
  ctx.reply.Ok();
}

}  // namespace

void RegisterClusterCommands(CommandTable& t) {
  const uint64_t admin = kAclAdmin | kAclSlow | kAclDangerous;
  const uint32_t admin_flags = kCmdAdmin | kCmdStale;
  const uint32_t info_flags = kCmdStale;
  CommandSpec cluster{.name = "cluster", .arity = -2, .acl = kAclSlow, .group = "cluster",
                      .summary = "A container for Redis Cluster commands.", .since = "3.0.0",
                      .complexity = "Depends on subcommand."};
  struct Sub {
    const char* name;
    int arity;
    bool admin;
    const char* summary;
    uint32_t extra = 0;  // flags beyond the admin / info set, as Valkey 8.0.1 gives them
  };
  constexpr uint32_t kNoAsync = kCmdNoAsyncLoading;
  static const Sub kSubs[] = {
      {"addslots", -3, true, "Assigns new hash slots to a node.", kNoAsync},
      {"addslotsrange", -4, true, "Assigns new hash slot ranges to a node.", kNoAsync},
      {"bumpepoch", 2, true, "Advances the cluster config epoch.", kNoAsync},
      {"cancelslotmigrations", 2, true, "Cancel all current ongoing slot migration operations.",
       kNoAsync},
      {"count-failure-reports", 3, true,
       "Returns the number of active failure reports active for a node."},
      {"countkeysinslot", 3, false, "Returns the number of keys in a hash slot."},
      {"delslots", -3, true, "Sets hash slots as unbound for a node.", kNoAsync},
      {"delslotsrange", -4, true, "Sets hash slot ranges as unbound for a node.", kNoAsync},
      {"failover", -2, true, "Forces a replica to perform a manual failover of its master.",
       kNoAsync},
      {"flushslots", 2, true, "Deletes all slots information from a node.", kNoAsync},
      {"forget", 3, true, "Removes a node from the nodes table.", kNoAsync},
      {"getkeysinslot", 4, false, "Returns the key names in a hash slot."},
      {"getslotmigrations", 2, true,
       "Gets the status of ongoing and recently finished slot import and export operations.",
       kNoAsync},
      {"help", 2, false, "Returns helpful text about the different subcommands.", kCmdLoading},
      {"info", 2, false, "Returns information about the state of a node.", kCmdLoading},
      {"keyslot", 3, false, "Returns the hash slot for a key."},
      {"links", 2, false, "Returns a list of all TCP links to and from peer nodes."},
      {"meet", -4, true, "Forces a node to handshake with another node.", kNoAsync},
      {"migrateslots", -4, true, "Migrate the given slots from this node to the specified nodes.",
       kNoAsync},
      {"myid", 2, false, "Returns the ID of a node.", kCmdLoading},
      {"myshardid", 2, false, "Returns the shard ID of a node.", kCmdLoading},
      {"nodes", 2, false, "Returns the cluster configuration for a node.", kCmdLoading},
      {"replicas", 3, true, "Lists the replica nodes of a master node."},
      {"replicate", 3, true, "Configure a node as replica of a master node.", kNoAsync},
      {"reset", -2, true, "Resets a node.", kCmdNoScript},
      {"saveconfig", 2, true, "Forces a node to save the cluster configuration to disk.",
       kNoAsync},
      {"set-config-epoch", 3, true, "Sets the configuration epoch for a new node.", kNoAsync},
      {"setslot", -4, true, "Binds a hash slot to a node.", kNoAsync},
      {"shards", 2, false, "Returns the mapping of cluster slots to shards.", kCmdLoading},
      {"slaves", 3, true, "Lists the replica nodes of a master node."},
      {"slots", 2, false, "Returns the mapping of cluster slots to nodes.", kCmdLoading},
      {"syncslots", -2, true, "A container for internal slot migration commands.", kNoAsync},
  };
  for (const Sub& s : kSubs) {
    cluster.subcommands.push_back(
        {.name = std::string("cluster|") + s.name, .arity = s.arity,
         .flags = (s.admin ? admin_flags : info_flags) | s.extra,
         .acl = s.admin ? admin : kAclSlow,
         .handler = CmdCluster, .group = "cluster", .summary = s.summary, .since = "3.0.0",
         .complexity = "O(1)"});
  }
  cluster.subcommands.push_back(ClusterSlotStatsSpec());
  t.Add(std::move(cluster));
  t.Add(ClusterScanSpec());
  const uint64_t conn = kAclFast | kAclConnection;
  t.Add({.name = "asking", .arity = 1, .flags = kCmdFast, .acl = conn, .handler = CmdAsking,
         .group = "cluster", .summary = "Signals that a cluster client is following an -ASK "
                                        "redirect.",
         .since = "3.0.0", .complexity = "O(1)"});
  t.Add({.name = "readonly", .arity = 1, .flags = kCmdLoading | kCmdStale | kCmdFast,
         .acl = conn, .handler = CmdReadonly, .group = "cluster",
         .summary = "Enables read-only queries for a connection to a Redis Cluster replica node.",
         .since = "3.0.0", .complexity = "O(1)"});
  t.Add({.name = "readwrite", .arity = 1, .flags = kCmdLoading | kCmdStale | kCmdFast,
         .acl = conn, .handler = CmdReadwrite, .group = "cluster",
         .summary = "Enables read-write queries for a connection to a Reids Cluster replica "
                    "node.",
         .since = "3.0.0", .complexity = "O(1)"});
}

}  // namespace vireo
