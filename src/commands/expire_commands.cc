// Expiry family: EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL EXPIRETIME PEXPIRETIME PERSIST.
// Keys are expired lazily by Db::Find and actively by the server's periodic task.
#include <climits>
#include <cstdio>
#include <string>
#include <string_view>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"

namespace vireo {
namespace {

// The NX / XX / GT / LT conditions of the EXPIRE family.
enum ExpireCondition : unsigned {
  kExpireNx = 1u << 0,
  kExpireXx = 1u << 1,
  kExpireGt = 1u << 2,
  kExpireLt = 1u << 3,
};

// Parses the conditions after the time argument; false after replying with an error.
bool ParseExpireConditions(CommandContext& ctx, unsigned* conditions) {
  unsigned c = 0;
  for (size_t i = 3; i < ctx.argc(); ++i) {
    std::string_view opt = ctx.arg(i);
    if (EqualsIgnoreCase(opt, "nx")) {
      c |= kExpireNx;
    } else if (EqualsIgnoreCase(opt, "xx")) {
      c |= kExpireXx;
    } else if (EqualsIgnoreCase(opt, "gt")) {
      c |= kExpireGt;
    } else if (EqualsIgnoreCase(opt, "lt")) {
      c |= kExpireLt;
    } else {
      ctx.reply.Error(errors::kUnsupportedOptionPrefix + std::string(opt));
      return false;
    }
  }
  if ((c & kExpireNx) && (c & (kExpireXx | kExpireGt | kExpireLt))) {
    ctx.reply.Error(errors::kExpireNxConflict);
    return false;
  }
  if ((c & kExpireGt) && (c & kExpireLt)) {
    ctx.reply.Error(errors::kExpireGtLtConflict);
    return false;
  }
  *conditions = c;
  return true;
}

// True if the conditions allow replacing the current expiry (0 = none, i.e. infinite) by
// when_ms.
bool ConditionsAllow(unsigned c, int64_t current_ms, int64_t when_ms) {
  if ((c & kExpireNx) && current_ms != 0) return false;
  if ((c & kExpireXx) && current_ms == 0) return false;
  // No expiry counts as an infinite TTL: nothing is greater, everything is less.
  if ((c & kExpireGt) && (current_ms == 0 || when_ms <= current_ms)) return false;
  if ((c & kExpireLt) && current_ms != 0 && when_ms >= current_ms) return false;
  return true;
}

void ReplyInvalidExpire(CommandContext& ctx, const char* command) {
  char msg[96];
  snprintf(msg, sizeof(msg), errors::kInvalidExpire, command);
  ctx.reply.Error(msg);
}

// Propagated as an absolute PEXPIREAT (conditions kept), or as the deletion a past time
// made (Valkey 7).
void PropagateExpire(CommandContext& ctx, std::string_view key, int64_t when, bool deleted) {
  if (deleted) {
    const char* del = ctx.server.config().lazyfree_lazy_expire ? "UNLINK" : "DEL";
    ctx.PropagateAs({del, std::string(key)});
    return;
  }
  std::vector<std::string> args{"PEXPIREAT", std::string(key), std::to_string(when)};
  for (size_t i = 3; i < ctx.argc(); ++i) args.emplace_back(ctx.arg(i));
  ctx.PropagateAs(std::move(args));
}

// EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT: `relative` adds the command time; `seconds` scales
// the argument. A time already past deletes the key and still replies 1, as Valkey does.
void SetExpireGeneric(CommandContext& ctx, const char* command, bool relative, bool seconds) {
  unsigned conditions;
  if (!ParseExpireConditions(ctx, &conditions)) return;
  int64_t when;
  if (!ParseInt64(ctx.arg(2), &when)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (seconds) {
    if (when > INT64_MAX / 1000 || when < INT64_MIN / 1000) {
      ReplyInvalidExpire(ctx, command);
      return;
    }
    when *= 1000;
  }
  int64_t now = CommandTimeMs();
  if (relative) {
    if (when > INT64_MAX - now) {
      ReplyInvalidExpire(ctx, command);
      return;
    }
    when += now;
  }
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db->Find(key);
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (!ConditionsAllow(conditions, e->expire_ms(), when)) {
    ctx.reply.Integer(0);
    return;
  }
  if (when <= now) {
    ctx.db->Delete(key, ctx.server.config().lazyfree_lazy_expire);
  } else {
    e = ctx.db->SetExpire(e, when);
  }
  if (ctx.Propagating()) PropagateExpire(ctx, key, when, when <= now);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, when <= now ? "del" : "expire", ctx.db, key);
  ctx.reply.Integer(1);
}

// TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 for a missing key, -1 without expiry. Seconds are
// rounded to the nearest, as Valkey rounds them.
void ReplyTtl(CommandContext& ctx, bool ms, bool absolute) {
  const Entry* e = ctx.db->Lookup(ctx.arg(1), /*touch=*/false);
  if (e == nullptr) {
    ctx.reply.Integer(-2);
    return;
  }
  if (e->expire_ms() == 0) {
    ctx.reply.Integer(-1);
    return;
  }
  int64_t t = absolute ? e->expire_ms() : e->expire_ms() - CommandTimeMs();
  if (t < 0) t = 0;
  // Rounded without adding 500 first, which overflows for an expiry near INT64_MAX.
  ctx.reply.Integer(ms ? t : t / 1000 + (t % 1000 >= 500 ? 1 : 0));
}

// EXPIRE key seconds [NX | XX | GT | LT]
void CmdExpire(CommandContext& ctx) { SetExpireGeneric(ctx, "expire", true, true); }

// PEXPIRE key milliseconds [NX | XX | GT | LT]
void CmdPExpire(CommandContext& ctx) { SetExpireGeneric(ctx, "pexpire", true, false); }

// EXPIREAT key unix-time-seconds [NX | XX | GT | LT]
void CmdExpireAt(CommandContext& ctx) { SetExpireGeneric(ctx, "expireat", false, true); }

// PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT]
void CmdPExpireAt(CommandContext& ctx) { SetExpireGeneric(ctx, "pexpireat", false, false); }

// TTL key
void CmdTtl(CommandContext& ctx) { ReplyTtl(ctx, false, false); }

// PTTL key
void CmdPTtl(CommandContext& ctx) { ReplyTtl(ctx, true, false); }

// EXPIRETIME key
void CmdExpireTime(CommandContext& ctx) { ReplyTtl(ctx, false, true); }

// PEXPIRETIME key
void CmdPExpireTime(CommandContext& ctx) { ReplyTtl(ctx, true, true); }

// PERSIST key
void CmdPersist(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db->Find(key);
  if (e == nullptr || e->expire_ms() == 0) {
    ctx.reply.Integer(0);
    return;
  }
  e = ctx.db->SetExpire(e, 0);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "persist", ctx.db, key);
  ctx.reply.Integer(1);
}

}  // namespace

// clang-format off
void RegisterExpireCommands(CommandTable& t) {
  const uint64_t write_acl = kAclKeyspace | kAclWrite | kAclFast;
  const uint64_t read_acl = kAclKeyspace | kAclRead | kAclFast;
  const uint32_t write_flags = kCmdWrite | kCmdFast;
  const uint32_t read_flags = kCmdReadonly | kCmdFast;
  t.Add({.name = "expire", .arity = -3, .flags = write_flags, .acl = write_acl, .first_key = 1,
         .last_key = 1, .key_step = 1, .handler = CmdExpire, .group = "generic",
         .summary = "Sets the expiration time of a key in seconds.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "pexpire", .arity = -3, .flags = write_flags, .acl = write_acl,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdPExpire,
         .group = "generic", .summary = "Sets the expiration time of a key in milliseconds.",
         .since = "2.6.0", .complexity = "O(1)"});
  t.Add({.name = "expireat", .arity = -3, .flags = write_flags, .acl = write_acl,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdExpireAt,
         .group = "generic",
         .summary = "Sets the expiration time of a key to a Unix timestamp.", .since = "1.2.0",
         .complexity = "O(1)"});
  t.Add({.name = "pexpireat", .arity = -3, .flags = write_flags, .acl = write_acl,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdPExpireAt,
         .group = "generic",
         .summary = "Sets the expiration time of a key to a Unix milliseconds timestamp.",
         .since = "2.6.0", .complexity = "O(1)"});
  t.Add({.name = "ttl", .arity = 2, .flags = read_flags, .acl = read_acl, .first_key = 1,
         .last_key = 1, .key_step = 1, .handler = CmdTtl, .group = "generic",
         .summary = "Returns the expiration time in seconds of a key.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "pttl", .arity = 2, .flags = read_flags, .acl = read_acl, .first_key = 1,
         .last_key = 1, .key_step = 1, .handler = CmdPTtl, .group = "generic",
         .summary = "Returns the expiration time in milliseconds of a key.", .since = "2.6.0",
         .complexity = "O(1)"});
  t.Add({.name = "expiretime", .arity = 2, .flags = read_flags, .acl = read_acl,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdExpireTime,
         .group = "generic", .summary = "Returns the expiration time of a key as a Unix timestamp.",
         .since = "7.0.0", .complexity = "O(1)"});
  t.Add({.name = "pexpiretime", .arity = 2, .flags = read_flags, .acl = read_acl,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdPExpireTime,
         .group = "generic",
         .summary = "Returns the expiration time of a key as a Unix milliseconds timestamp.",
         .since = "7.0.0", .complexity = "O(1)"});
  t.Add({.name = "persist", .arity = 2, .flags = write_flags, .acl = write_acl,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdPersist,
         .group = "generic", .summary = "Removes the expiration time of a key.",
         .since = "2.2.0", .complexity = "O(1)"});
}
// clang-format on

}  // namespace vireo
