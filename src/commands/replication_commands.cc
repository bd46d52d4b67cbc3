// REPLICAOF/SLAVEOF, PSYNC/SYNC, REPLCONF, ROLE, WAIT and FAILOVER: the commands of replication
// (the protocol and the state live in replication/replication.h).
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "persistence/aof_writer.h"
#include "replication/replication.h"
#include "server/blocking.h"
#include "server/server.h"

namespace vireo {
namespace {

void CmdReplicaOf(CommandContext& ctx) {
  Replication& repl = ctx.server.replication();
  std::string reply;
  if (repl.failover_active()) {
    ctx.reply.Error("ERR REPLICAOF not allowed while failing over.");
    return;
  }
  if (EqualsIgnoreCase(ctx.args[1], "no") && EqualsIgnoreCase(ctx.args[2], "one")) {
    repl.ReplicaOf("", 0, &reply);
    ctx.reply.Raw(reply);
    return;
  }
  if (ctx.server.cluster() != nullptr) {
    ctx.reply.Error("ERR REPLICAOF not allowed in cluster mode.");
    return;
  }
  if (ctx.client.flags & kClientReplica) {
    ctx.reply.Error("ERR Command is not valid when client is a replica.");
    return;
  }
  int64_t port;
  if (!ParseInt64(ctx.args[2], &port) || port < 0 || port > 65535) {
    ctx.reply.Error("ERR Invalid master port");
    return;
  }
  repl.ReplicaOf(std::string(ctx.args[1]), port, &reply);
  ctx.reply.Raw(reply);
}

void CmdPsync(CommandContext& ctx) {
  if (ctx.client.flags & kClientReplica) return;  // already one: ignored, as Valkey does
  // PSYNC replid offset FAILOVER: our primary hands over to this replica (FAILOVER TO).
  if (ctx.argc() > 3 && EqualsIgnoreCase(ctx.args[3], "failover")) {
    std::string error = ctx.server.replication().AcceptFailover(&ctx.client, ctx.args[1]);
    if (!error.empty()) {
      ctx.reply.Error(error);
      return;
    }
  }
  int64_t offset;
  if (!ParseInt64(ctx.args[2], &offset)) {
    ctx.reply.Error("ERR value is not an integer or out of range");
    return;
  }
  ctx.server.replication().Psync(&ctx.client, ctx.args[1], ctx.args[2], false);
}

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds]
void CmdFailover(CommandContext& ctx) {
  if (ctx.server.cluster() != nullptr) {
    ctx.reply.Error("ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command "
                    "instead.");
    return;
  }
  std::string host;
  int64_t port = 0;
  int64_t timeout_ms = 0;
  bool to = false, force = false, abort = false, timeout = false;
  for (size_t i = 1; i < ctx.argc(); ++i) {
    const std::string_view opt = ctx.arg(i);
    if (EqualsIgnoreCase(opt, "to") && !to && i + 2 < ctx.argc()) {
      if (!ParseInt64(ctx.arg(i + 2), &port)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      host = std::string(ctx.arg(i + 1));
      to = true;
      i += 2;
    } else if (EqualsIgnoreCase(opt, "force") && !force) {
      force = true;
    } else if (EqualsIgnoreCase(opt, "abort") && !abort) {
      abort = true;
    } else if (EqualsIgnoreCase(opt, "timeout") && !timeout && i + 1 < ctx.argc()) {
      if (!ParseInt64(ctx.arg(i + 1), &timeout_ms)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (timeout_ms <= 0) {
        ctx.reply.Error("ERR FAILOVER timeout must be greater than 0");
        return;
      }
      timeout = true;
      ++i;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  Replication& repl = ctx.server.replication();
  if (abort && (to || force || timeout)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  const std::string error =
      abort ? repl.AbortFailover() : repl.StartFailover(host, port, force, timeout_ms);
  if (!error.empty()) {
    ctx.reply.Error(error);
    return;
  }
  ctx.reply.Ok();
}

void CmdSync(CommandContext& ctx) {
  if (ctx.client.flags & kClientReplica) return;
  ctx.server.replication().Psync(&ctx.client, "?", "-1", true);
}

void CmdReplconf(CommandContext& ctx) {
  bool reply_ok = true;
  std::string error;
  if (!ctx.server.replication().Replconf(&ctx.client, ctx.args, &reply_ok, &error)) {
    ctx.reply.Error(error);
    return;
  }
  if (reply_ok) ctx.reply.Ok();
}

void CmdRole(CommandContext& ctx) { ctx.server.replication().RoleReply(&ctx.client); }

void CmdWait(CommandContext& ctx) {
  Replication& repl = ctx.server.replication();
  int64_t numreplicas;
  if (!ParseInt64(ctx.args[1], &numreplicas)) {
    ctx.reply.Error("ERR value is not an integer or out of range");
    return;
  }
  int64_t deadline;
  std::string error;
  if (!ParseBlockTimeoutMs(ctx.args[2], NowMs(), &deadline, &error)) {
    ctx.reply.Error("ERR " + error);
    return;
  }
  if (repl.is_replica()) {
    ctx.reply.Error(
        "ERR WAIT cannot be used with replica instances. Please also note that if a replica is "
        "configured to be writable (which is not the default) writes to replicas are just local "
        "and are not propagated.");
    return;
  }
  // The client's own writes: the offset the stream had after its last one.
  const int64_t target = ctx.client.woff;
  const int acked = repl.AckedReplicas(target);
  if (acked >= numreplicas || !ctx.CanBlock()) {
    ctx.reply.Integer(acked);
    return;
  }
  repl.AddWaiter(&ctx.client, target, numreplicas);
  repl.RequestAcks();
  ctx.Block({}, deadline, ObjType::kString, BlockTimeoutReply::kReplicaCount);
}

// WAITAOF numlocal numreplicas timeout: until the client's writes are fsynced to the local
// AOF (numlocal 1) and to numreplicas replicas' AOFs. Answers [local, replicas].
void CmdWaitAof(CommandContext& ctx) {
  Replication& repl = ctx.server.replication();
  int64_t numlocal;
  if (!ParseInt64(ctx.args[1], &numlocal)) {
    ctx.reply.Error("ERR value is not an integer or out of range");
    return;
  }
  if (numlocal < 0 || numlocal > 1) {
    ctx.reply.Error("ERR value is out of range, value must between 0 and 1");
    return;
  }
  int64_t numreplicas;
  if (!ParseInt64(ctx.args[2], &numreplicas) || numreplicas < 0) {
    ctx.reply.Error("ERR value is out of range, must be positive");
    return;
  }
  int64_t deadline;
  std::string error;
  if (!ParseBlockTimeoutMs(ctx.args[3], NowMs(), &deadline, &error)) {
    ctx.reply.Error("ERR " + error);
    return;
  }
  if (repl.is_replica()) {
    ctx.reply.Error(
        "ERR WAITAOF cannot be used with replica instances. Please also note that writes to "
        "replicas are just local and are not propagated.");
    return;
  }
  if (numlocal > 0 && !ctx.server.aof()->enabled()) {
    ctx.reply.Error(
        "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.");
    return;
  }
  const int64_t target = ctx.client.woff;
  auto [local, replicas] = repl.AofWaitCounts(target);
  if ((local >= numlocal && replicas >= numreplicas) || !ctx.CanBlock()) {
    ctx.reply.Array(2);
    ctx.reply.Integer(local);
    ctx.reply.Integer(replicas);
    return;
  }
  repl.AddAofWaiter(&ctx.client, target, numlocal, numreplicas);
  if (numreplicas > 0) repl.RequestAcks();
  ctx.Block({}, deadline, ObjType::kString, BlockTimeoutReply::kAofCounts);
}

}  // namespace

void RegisterReplicationCommands(CommandTable& t) {
  const uint64_t admin = kAclAdmin | kAclSlow | kAclDangerous;
  const char* replicaof_summary = "Configures a server as replica of another, or promotes it to "
                                  "a master.";
  t.Add({.name = "replicaof", .arity = 3,
         .flags = kCmdAdmin | kCmdNoScript | kCmdStale | kCmdNoAsyncLoading,
         .acl = admin, .handler = CmdReplicaOf, .group = "server",
         .summary = replicaof_summary, .since = "5.0.0", .complexity = "O(1)"});
  t.Add({.name = "slaveof", .arity = 3,
         .flags = kCmdAdmin | kCmdNoScript | kCmdStale | kCmdNoAsyncLoading,
         .acl = admin, .handler = CmdReplicaOf, .group = "server",
         .summary =
             "Sets a Redis server as a replica of another, or promotes it to being a master.",
         .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "psync", .arity = -3,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoMulti | kCmdNoAsyncLoading,
         .acl = admin, .handler = CmdPsync, .group = "server",
         .summary = "An internal command used in replication.", .since = "2.8.0",
         .complexity = ""});
  t.Add({.name = "failover", .arity = -1, .flags = kCmdAdmin | kCmdNoScript | kCmdStale,
         .acl = admin, .handler = CmdFailover, .group = "server",
         .summary = "Starts a coordinated failover from a server to one of its replicas.",
         .since = "6.2.0", .complexity = "O(1)"});
  t.Add({.name = "sync", .arity = 1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoMulti | kCmdNoAsyncLoading,
         .acl = admin, .handler = CmdSync, .group = "server",
         .summary = "An internal command used in replication.", .since = "1.0.0",
         .complexity = ""});
  t.Add({.name = "replconf", .arity = -1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdAllowBusy,
         .acl = admin, .handler = CmdReplconf, .group = "server",
         .summary = "An internal command for configuring the replication stream.",
         .since = "3.0.0", .complexity = "O(1)"});
  t.Add({.name = "role", .arity = 1, .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast,
         .acl = kAclAdmin | kAclFast | kAclDangerous, .handler = CmdRole, .group = "server",
         .summary = "Returns the replication role.", .since = "2.8.12", .complexity = "O(1)"});
  t.Add({.name = "wait", .arity = 3, .flags = kCmdBlocking,
         .acl = kAclSlow | kAclConnection | kAclBlocking, .handler = CmdWait, .group = "generic",
         .summary = "Blocks until the asynchronous replication of all preceding write commands "
                    "sent by the connection is completed.",
         .since = "3.0.0", .complexity = "O(1)"});
  t.Add({.name = "waitaof", .arity = 4, .flags = kCmdBlocking,
         .acl = kAclSlow | kAclConnection | kAclBlocking, .handler = CmdWaitAof,
         .group = "generic",
         .summary = "Blocks until all of the preceding write commands sent by the connection "
                    "are written to the append-only file of the primary and/or replicas.",
         .since = "7.2.0", .complexity = "O(1)"});
}

}  // namespace vireo
