// Transactions: MULTI EXEC DISCARD WATCH UNWATCH. The queue, the WATCH registry and the
// queuing step of dispatch live in server/transaction.
#include <string_view>
#include <vector>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "server/server.h"
#include "server/transaction.h"

namespace vireo {
namespace {

// MULTI
// Never runs inside MULTI: no_multi refuses a nested one (server/transaction.h).
void CmdMulti(CommandContext& ctx) {
  Client& c = ctx.client;
  if (c.multi == nullptr) c.multi = std::make_unique<MultiState>();
  c.multi->db = c.db_index;  // ACL database rules check queued commands from here
  c.flags |= kClientMulti;
  ctx.reply.Ok();
}

// EXEC
// Runs the queue through Server::Call, so each command is counted, slow-logged and shown to
// monitors as itself; EXEC's own error count leaves theirs out. Blocking commands answer at
// once (CanBlock is false). This loop is where MULTI/EXEC propagation will wrap the commands.
void CmdExec(CommandContext& ctx) {
  Client& c = ctx.client;
  Server& server = ctx.server;
  if (!(c.flags & kClientMulti)) {
    ctx.reply.Error(errors::kExecWithoutMulti);
    return;
  }
  if (server.watches().WatchedKeyExpired(server, &c)) c.flags |= kClientDirtyCas;
  if (c.flags & (kClientDirtyCas | kClientDirtyExec)) {
    // A refused command outweighs a touched key: EXECABORT, not the null array.
    if (c.flags & kClientDirtyExec) {
      ctx.reply.Error(errors::kExecAbort);
    } else {
      ctx.reply.NullArray();
    }
    DiscardTransaction(server, &c);
    return;
  }
  // Unwatch first: the transaction's own writes must not mark it.
  server.watches().UnwatchAll(&c);
  const bool could_block = !(c.flags & kClientDenyBlocking);
  c.flags |= kClientDenyBlocking;
  const std::vector<std::string_view> exec_args = c.args;
  size_t n = c.multi == nullptr ? 0 : c.multi->queue.size();
  ctx.reply.Array(n);
  // By index: nothing a queued command runs can end this transaction (EXEC, DISCARD, RESET
  // and MULTI are never queued), but the queue lives in c.multi.
  for (size_t i = 0; i < n; ++i) {
    const QueuedCommand& q = c.multi->queue[i];
    c.args.assign(q.args.begin(), q.args.end());
    // The user's rules may have changed since the command was queued (Valkey checks again).
    const AclDenial denial = (c.flags & kClientAclRestricted)
                                 ? server.AclCheck(&c, q.spec, c.args, c.db_index, "multi").denial
                                 : AclDenial::kNone;
    if (denial != AclDenial::kNone) {
      const char* reason = denial == AclDenial::kKey ? "no permission to touch the specified keys"
                           : denial == AclDenial::kChannel
                               ? "no permission to access one of the channels used as arguments"
                           : denial == AclDenial::kCommand
                               ? "no permission to execute the command or subcommand"
                               : "no permission";
      ctx.reply.Error(std::string("NOPERM ACLs rules changed between the moment the transaction "
                                  "was accumulated and the EXEC call. This command is no longer "
                                  "allowed for the following reason: ") +
                      reason);
      continue;
    }
    server.Call(&c, q.spec, MonotonicUs());
  }
  c.args = exec_args;
  if (could_block) c.flags &= ~kClientDenyBlocking;
  DiscardTransaction(server, &c);
}

// DISCARD
void CmdDiscard(CommandContext& ctx) {
  if (!(ctx.client.flags & kClientMulti)) {
    ctx.reply.Error(errors::kDiscardWithoutMulti);
    return;
  }
  DiscardTransaction(ctx.server, &ctx.client);
  ctx.reply.Ok();
}

// WATCH key [key ...]
// Never runs inside MULTI (no_multi).
void CmdWatch(CommandContext& ctx) {
  // Already doomed: watching more changes nothing.
  if (!(ctx.client.flags & kClientDirtyCas)) {
    for (size_t i = 1; i < ctx.argc(); ++i) {
      ctx.server.watches().Watch(&ctx.client, ctx.db, ctx.arg(i));
    }
  }
  ctx.reply.Ok();
}

// UNWATCH
void CmdUnwatch(CommandContext& ctx) {
  ctx.server.watches().UnwatchAll(&ctx.client);
  ctx.client.flags &= ~kClientDirtyCas;
  ctx.reply.Ok();
}

}  // namespace

// clang-format off
void RegisterTransactionCommands(CommandTable& t) {
  const uint32_t base = kCmdNoScript | kCmdLoading | kCmdStale;
  const uint64_t tx = kAclTransaction;
  // MULTI and WATCH say no_multi, as in Valkey 8.0.1; inside MULTI they still answer with
  // their own errors (QueueInMulti lets them run).
  t.Add({.name = "multi", .arity = 1, .flags = base | kCmdFast | kCmdNoMulti | kCmdAllowBusy,
         .acl = tx | kAclFast, .handler = CmdMulti, .group = "transactions",
         .summary = "Starts a transaction.", .since = "1.2.0", .complexity = "O(1)"});
  t.Add({.name = "exec", .arity = 1, .flags = base | kCmdSkipSlowlog,
         .acl = tx | kAclSlow, .handler = CmdExec, .group = "transactions",
         .summary = "Executes all commands in a transaction.", .since = "1.2.0",
         .complexity = "Depends on commands in the transaction"});
  t.Add({.name = "discard", .arity = 1, .flags = base | kCmdFast | kCmdAllowBusy,
         .acl = tx | kAclFast, .handler = CmdDiscard, .group = "transactions",
         .summary = "Discards a transaction.", .since = "2.0.0",
         .complexity = "O(N), when N is the number of queued commands"});
  t.Add({.name = "watch", .arity = -2, .flags = base | kCmdFast | kCmdNoMulti | kCmdAllowBusy,
         .acl = tx | kAclFast, .first_key = 1, .last_key = -1, .key_step = 1,
         .handler = CmdWatch, .group = "transactions",
         .summary = "Monitors changes to keys to determine the execution of a transaction.",
         .since = "2.2.0", .complexity = "O(1) for every key."});
  t.Add({.name = "unwatch", .arity = 1, .flags = base | kCmdFast | kCmdAllowBusy,
         .acl = tx | kAclFast, .handler = CmdUnwatch, .group = "transactions",
         .summary = "Forgets about watched keys of a transaction.", .since = "2.2.0",
         .complexity = "O(1)"});
}
// clang-format on

}  // namespace vireo
