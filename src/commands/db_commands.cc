// Whole-database commands: DBSIZE FLUSHDB FLUSHALL SWAPDB.
#include <climits>
#include <string_view>

#include "cluster/cluster.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/numbers.h"
#include "persistence/snapshot.h"
#include "server/server.h"

namespace vireo {
namespace {

// The [ASYNC | SYNC] argument of FLUSHDB / FLUSHALL; without it lazyfree-lazy-user-flush
// decides. False after replying with a syntax error.
bool ParseFlushMode(CommandContext& ctx, bool* async) {
  if (ctx.argc() == 1) {
    *async = ctx.server.config().lazyfree_lazy_user_flush;
    return true;
  }
  if (ctx.argc() == 2 && EqualsIgnoreCase(ctx.arg(1), "async")) {
    *async = true;
    return true;
  }
  if (ctx.argc() == 2 && EqualsIgnoreCase(ctx.arg(1), "sync")) {
    *async = false;
    return true;
  }
  ctx.reply.Error(errors::kSyntax);
  return false;
}

// Empties db and returns how many keys it held (they count as changes, as in Valkey).
int FlushDb(Db* db, bool async) {
  size_t removed = db->Size();
  db->Clear(async);
  return removed > INT_MAX ? INT_MAX : static_cast<int>(removed);
}

// A SWAPDB index: an int in range; false after replying (bad_number names which argument).
bool ParseSwapIndex(CommandContext& ctx, std::string_view s, const char* bad_number, int* out) {
  int64_t v;
  if (!ParseInt64(s, &v) || v < INT_MIN || v > INT_MAX) {
    ctx.reply.Error(bad_number);
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

// Keys of slots an atomic migration is importing are not this node's yet: clients do not see
// them (DBSIZE, KEYS, SCAN, RANDOMKEY), as in Valkey 9.
uint64_t ImportingKeys(CommandContext& ctx) {
  Cluster* cluster = ctx.server.cluster();
  if (cluster == nullptr || !cluster->migrations().any_importing() ||
      !ctx.db->tracking_slots()) {
    return 0;
  }
  uint64_t n = 0;
  for (int s = 0; s < kClusterSlots; ++s) {
    if (cluster->migrations().Importing(s)) n += ctx.db->KeysInSlot(s);
  }
  return n;
}

// DBSIZE
void CmdDbSize(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<int64_t>(ctx.db->Size() - ImportingKeys(ctx)));
}

// FLUSHDB / FLUSHALL end every atomic slot migration of this node (Valkey 9: the operator
// retries, which is then quick).
void FailMigrations(CommandContext& ctx, const char* why = "Data was flushed") {
  if (Cluster* cluster = ctx.server.cluster()) cluster->migrations().DataReplaced(why);
}

// FLUSHDB [ASYNC | SYNC]
// A flush of an empty database changes nothing, yet must still reach replicas and the AOF
// once propagation lands (Valkey forces it).
void CmdFlushDb(CommandContext& ctx) {
  bool async;
  if (!ParseFlushMode(ctx, &async)) return;
  FailMigrations(ctx);
  ctx.DbReplaced(ctx.db);
  ctx.Dirty(FlushDb(ctx.db, async));
  ctx.reply.Ok();
}

// FLUSHALL [ASYNC | SYNC]
void CmdFlushAll(CommandContext& ctx) {
  bool async;
  if (!ParseFlushMode(ctx, &async)) return;
  FailMigrations(ctx);
  // As Valkey: a running BGSAVE is abandoned (it would write the old data), and with save
  // points the empty dataset is saved at once; the flush itself is one more change after it.
  KillBackgroundSave(ctx.server);
  int removed = 0;
  for (int i = 0; i < ctx.server.db_count(); ++i) {
    ctx.DbReplaced(ctx.server.db(i));
    int n = FlushDb(ctx.server.db(i), async);
    removed = n > INT_MAX - removed ? INT_MAX : removed + n;
  }
  ctx.Dirty(removed);
  if (!ctx.server.config().save.empty()) {
    std::string error;
    SaveSnapshot(ctx.server, &error);
  }
  ctx.Dirty();
  ctx.reply.Ok();
}

// SWAPDB index1 index2
void CmdSwapDb(CommandContext& ctx) {
  if (ctx.server.cluster() != nullptr && ctx.server.db_count() == 1) {
    ctx.reply.Error("ERR SWAPDB is not allowed in cluster mode");
    return;
  }
  int a, b;
  if (!ParseSwapIndex(ctx, ctx.arg(1), errors::kInvalidFirstDb, &a) ||
      !ParseSwapIndex(ctx, ctx.arg(2), errors::kInvalidSecondDb, &b)) {
    return;
  }
  int n = ctx.server.db_count();
  if (a < 0 || a >= n || b < 0 || b >= n) {
    ctx.reply.Error(errors::kDbIndexOutOfRange);
    return;
  }
  if (a != b) {
    FailMigrations(ctx, "Databases were swapped");
    ctx.DbReplaced(ctx.server.db(a), ctx.server.db(b));
    ctx.DbReplaced(ctx.server.db(b), ctx.server.db(a));
    ctx.server.db(a)->Swap(*ctx.server.db(b));
  }
  ctx.Dirty();
  ctx.reply.Ok();
}

}  // namespace

// clang-format off
void RegisterDbCommands(CommandTable& t) {
  const uint64_t ks = kAclKeyspace;
  t.Add({.name = "dbsize", .arity = 1, .flags = kCmdReadonly | kCmdFast,
         .acl = ks | kAclRead | kAclFast, .handler = CmdDbSize, .group = "server",
         .summary = "Returns the number of keys in the database.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "flushdb", .arity = -1, .flags = kCmdWrite,
         .acl = ks | kAclWrite | kAclSlow | kAclDangerous, .handler = CmdFlushDb,
         .group = "server", .summary = "Remove all keys from the current database.",
         .since = "1.0.0",
         .complexity = "O(N) where N is the number of keys in the selected database"});
  t.Add({.name = "flushall", .arity = -1, .flags = kCmdWrite,
         .acl = ks | kAclWrite | kAclSlow | kAclDangerous, .handler = CmdFlushAll,
         .group = "server", .summary = "Removes all keys from all databases.", .since = "1.0.0",
         .complexity = "O(N) where N is the total number of keys in all databases"});
  t.Add({.name = "swapdb", .arity = 3, .flags = kCmdWrite | kCmdFast,
         .acl = ks | kAclWrite | kAclFast | kAclDangerous, .handler = CmdSwapDb,
         .group = "server", .summary = "Swaps two Redis databases.", .since = "4.0.0",
         .complexity = "O(N) where N is the count of clients watching or blocking on keys from "
                       "both databases."});
}
// clang-format on

}  // namespace vireo
