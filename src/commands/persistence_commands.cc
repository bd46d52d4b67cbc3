// Persistence family: SAVE BGSAVE DUMP RESTORE (LASTSAVE and SHUTDOWN live in
// server_commands.cc, DEBUG RELOAD in debug_command.cc). The file work is in
// persistence/snapshot.h; the payload format in persistence/rdb_{reader,writer}.h.
#include <string>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "persistence/cow_snapshot.h"
#include "persistence/aof_writer.h"
#include "persistence/rdb_reader.h"
#include "persistence/rdb_writer.h"
#include "persistence/snapshot.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/access_clock.h"
#include "store/value.h"

namespace vireo {
namespace {

constexpr const char* kBgsaveInProgress = "ERR Background save already in progress";
constexpr const char* kAnotherSnapshot =
    "ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in "
    "order to schedule a BGSAVE whenever possible.";
constexpr const char* kBadPayload = "ERR DUMP payload version or checksum are wrong";
constexpr const char* kBadDataFormat = "ERR Bad data format";
constexpr const char* kBusyKey = "BUSYKEY Target key name already exists.";
constexpr const char* kBadTtl = "ERR Invalid TTL value, must be >= 0";
constexpr const char* kBadIdle = "ERR Invalid IDLETIME value, must be >= 0";
constexpr const char* kBadFreq = "ERR Invalid FREQ value, must be >= 0 and <= 255";

// SAVE
void CmdSave(CommandContext& ctx) {
  if (BackgroundSaveRunning(ctx.server)) {
    ctx.reply.Error(kBgsaveInProgress);
    return;
  }
  std::string error;
  if (SaveSnapshot(ctx.server, &error)) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Error("ERR");
  }
}

// BGSAVE [SCHEDULE]
void CmdBgsave(CommandContext& ctx) {
  bool schedule = false;
  if (ctx.argc() > 1) {
    if (ctx.argc() == 2 && EqualsIgnoreCase(ctx.arg(1), "schedule")) {
      schedule = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (BackgroundSaveRunning(ctx.server)) {
    ctx.reply.Error(kBgsaveInProgress);
    return;
  }
  // Another snapshot (an AOF rewrite's base file) walks the keyspace: one at a time.
  if (CowSnapshot::Busy() || (ctx.server.aof() != nullptr && ctx.server.aof()->rewrite_running())) {
    if (schedule) {
      ctx.server.snapshot().bgsave_scheduled = true;
      ctx.reply.Simple("Background saving scheduled");
    } else {
      ctx.reply.Error(kAnotherSnapshot);
    }
    return;
  }
  // Inside EXEC (the only place BGSAVE runs with blocking denied: it is refused in scripts)
  // the save waits for the cron, as Valkey's fork does. SCHEDULE alone has no AOF rewrite child to
  // wait for yet, so it starts at once.
  if (ctx.client.flags & kClientDenyBlocking) {
    ctx.server.snapshot().bgsave_scheduled = true;
    ctx.reply.Simple("Background saving scheduled");
    return;
  }
  (void)schedule;
  std::string error;
  if (StartBackgroundSave(ctx.server, &error)) {
    ctx.reply.Simple("Background saving started");
  } else {
    ctx.reply.Error("ERR");
  }
}

// BGREWRITEAOF
void CmdBgrewriteaof(CommandContext& ctx) {
  // Inside EXEC it waits for the cron, as Valkey's does.
  std::string r = ctx.server.aof()->RequestRewrite(ctx.client.flags & kClientDenyBlocking);
  if (r.rfind("ERR ", 0) == 0) {
    ctx.reply.Error(r);
  } else {
    ctx.reply.Simple(r);
  }
}

// DUMP key
void CmdDump(CommandContext& ctx) {
  Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Bulk(DumpPayload(e, RdbWriteOptionsFrom(ctx.server.config())));
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
void CmdRestore(CommandContext& ctx) {
  bool replace = false, absttl = false;
  int64_t idle = -1, freq = -1;
  for (size_t i = 4; i < ctx.argc(); ++i) {
    std::string_view a = ctx.arg(i);
    bool more = i + 1 < ctx.argc();
    if (EqualsIgnoreCase(a, "replace")) {
      replace = true;
    } else if (EqualsIgnoreCase(a, "absttl")) {
      absttl = true;
    } else if (EqualsIgnoreCase(a, "idletime") && more && freq == -1) {
      if (!ParseInt64(ctx.arg(++i), &idle)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (idle < 0) {
        ctx.reply.Error(kBadIdle);
        return;
      }
    } else if (EqualsIgnoreCase(a, "freq") && more && idle == -1) {
      if (!ParseInt64(ctx.arg(++i), &freq)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (freq < 0 || freq > 255) {
        ctx.reply.Error(kBadFreq);
        return;
      }
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  std::string_view key = ctx.arg(1);
  if (!replace && ctx.db->Find(key) != nullptr) {
    ctx.reply.Error(kBusyKey);
    return;
  }
  int64_t ttl;
  if (!ParseInt64(ctx.arg(2), &ttl)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (ttl < 0) {
    ctx.reply.Error(kBadTtl);
    return;
  }
  std::string_view payload = ctx.arg(3);
  if (!VerifyDumpPayload(payload)) {
    ctx.reply.Error(kBadPayload);
    return;
  }
  Entry* e = LoadDumpPayload(payload, key, RdbLoadLimitsFrom(ctx.server.config()));
  if (e == nullptr) {
    ctx.reply.Error(kBadDataFormat);
    return;
  }
  bool deleted = replace && ctx.db->Delete(key, ctx.server.config().lazyfree_lazy_server_del);
  if (ttl != 0 && !absttl) ttl += CommandTimeMs();
  if (ttl != 0 && ttl <= CommandTimeMs()) {
    // Already expired: nothing is created, but a replaced key is gone.
    FreeEntry(e);
    if (deleted) {
      ctx.KeyModified(ctx.db, key);
      NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
    }
    ctx.reply.Ok();
    return;
  }
  ctx.db->Attach(e);
  if (ttl != 0) e = ctx.db->SetExpire(e, ttl);
  RestoreAccessClock(e, idle, freq);
  // A relative TTL replays as the absolute time it meant (Valkey 7 appends ABSTTL).
  if (ttl != 0 && !absttl && ctx.Propagating()) {
    std::vector<std::string> args(ctx.args.begin(), ctx.args.end());
    args[2] = std::to_string(ttl);
    args.emplace_back("ABSTTL");
    ctx.PropagateAs(std::move(args));
  }
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "restore", ctx.db, key);
  ctx.reply.Ok();
}

}  // namespace

void RegisterPersistenceCommands(CommandTable& t) {
  const uint64_t admin = kAclAdmin | kAclSlow | kAclDangerous;
  t.Add({.name = "save",
         .arity = 1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoMulti | kCmdNoAsyncLoading,
         .acl = admin,
         .handler = CmdSave,
         .group = "server",
         .summary = "Synchronously saves the database(s) to disk.",
         .since = "1.0.0",
         .complexity = "O(N) where N is the total number of keys in all databases"});
  t.Add({.name = "bgsave",
         .arity = -1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading,
         .acl = admin,
         .handler = CmdBgsave,
         .group = "server",
         .summary = "Asynchronously saves the database(s) to disk.",
         .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "bgrewriteaof",
         .arity = 1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdNoAsyncLoading,
         .acl = admin,
         .handler = CmdBgrewriteaof,
         .group = "server",
         .summary = "Asynchronously rewrites the append-only file to disk.",
         .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "dump",
         .arity = 2,
         .flags = kCmdReadonly,
         .acl = kAclKeyspace | kAclRead | kAclSlow,
         .first_key = 1,
         .last_key = 1,
         .key_step = 1,
         .handler = CmdDump,
         .group = "generic",
         .summary = "Returns a serialized representation of the value stored at a key.",
         .since = "2.6.0",
         .complexity = "O(1) to access the key and additional O(N*M) to serialize it, where N is "
                       "the number of Redis objects composing the value and M their average "
                       "size. For small string values the time complexity is thus O(1)+O(1*M) "
                       "where M is small, so simply O(1)."});
  CommandSpec restore{.name = "restore",
         .arity = -4,
         .flags = kCmdWrite | kCmdDenyOom,
         .acl = kAclKeyspace | kAclWrite | kAclSlow | kAclDangerous,
         .first_key = 1,
         .last_key = 1,
         .key_step = 1,
         .handler = CmdRestore,
         .group = "generic",
         .summary = "Creates a key from the serialized representation of a value.",
         .since = "2.6.0",
         .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the "
                       "serialized value, where N is the number of Redis objects composing the "
                       "value and M their average size. For small string values the time "
                       "complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However "
                       "for sorted set values the complexity is O(N*M*log(N)) because inserting "
                       "values into sorted sets is O(log(N))."};
  t.Add(restore);
  // What MIGRATE sends in a cluster: RESTORE that acts as if ASKING came first.
  restore.name = "restore-asking";
  restore.flags |= kCmdAsking;
  restore.summary = "An internal command for migrating keys in a cluster.";
  restore.since = "3.0.0";
  t.Add(std::move(restore));
}

}  // namespace vireo
