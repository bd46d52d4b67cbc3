// Hash field expiry, as in Valkey 9: HEXPIRE HPEXPIRE HEXPIREAT HPEXPIREAT HTTL HPTTL
// HEXPIRETIME HPEXPIRETIME HPERSIST HGETEX HSETEX. A field whose TTL has passed is invisible
// (purged on access, see hash_cmd::FindHash, and by the active sweep in
// store/hash_field_expire.h); a hash whose last field goes is deleted.
#include <climits>
#include <cstdio>
#include <string>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/hash_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "store/hash_field_expire.h"

namespace vireo::hash_cmd {
namespace {

using errors::kNumFieldsMismatch;

// Position of the first FIELDS token at or after `from` that still has an argument after it
// (Valkey's scan for the block), or 0 when there is none.
size_t FindFieldsToken(const CommandContext& ctx, size_t from) {
  for (size_t i = from; i + 1 < ctx.argc(); ++i) {
    if (EqualsIgnoreCase(ctx.arg(i), "FIELDS")) return i;
  }
  return 0;
}

void ReplyInvalidExpire(CommandContext& ctx) {
  ctx.reply.Error("ERR invalid expire time in '" + ToLower(ctx.arg(0)) + "' command");
}

// Valkey's convertExpireArgumentToUnixTime: a non-negative integer in seconds or ms, relative
// to base_ms (0 for the *AT forms), without overflow. Replies the error on failure.
bool ToUnixMs(CommandContext& ctx, std::string_view arg, bool seconds, int64_t base_ms,
              int64_t* when_ms) {
  int64_t v;
  if (!ParseInt64(arg, &v)) {
    ctx.reply.Error(errors::kNotInteger);
    return false;
  }
  if (v < 0 || (seconds && v > INT64_MAX / 1000)) {
    ReplyInvalidExpire(ctx);
    return false;
  }
  if (seconds) v *= 1000;
  if (v > INT64_MAX - base_ms) {
    ReplyInvalidExpire(ctx);
    return false;
  }
  *when_ms = v + base_ms;
  return true;
}

// HEXPIRE / HPEXPIRE / HEXPIREAT / HPEXPIREAT key time [NX | XX | GT | LT] FIELDS numfields
// field [field ...]
void ExpireFields(CommandContext& ctx, bool seconds, bool absolute) {
  size_t fields_at = FindFieldsToken(ctx, 3);
  int64_t num_fields = 0;
  unsigned condition = hash::kNone;
  if (fields_at != 0) {
    for (size_t i = 3; i < fields_at; ++i) {
      std::string_view opt = ctx.arg(i);
      if (EqualsIgnoreCase(opt, "NX")) {
        condition |= hash::kNx;
      } else if (EqualsIgnoreCase(opt, "XX")) {
        condition |= hash::kXx;
      } else if (EqualsIgnoreCase(opt, "GT")) {
        condition |= hash::kGt;
      } else if (EqualsIgnoreCase(opt, "LT")) {
        condition |= hash::kLt;
      } else {
        ctx.reply.Error(std::string(errors::kUnsupportedOptionPrefix) + std::string(opt));
        return;
      }
    }
    if ((condition & hash::kNx) && (condition & (hash::kXx | hash::kGt | hash::kLt))) {
      ctx.reply.Error(errors::kExpireNxConflict);
      return;
    }
    if ((condition & hash::kGt) && (condition & hash::kLt)) {
      ctx.reply.Error(errors::kExpireGtLtConflict);
      return;
    }
    if (!ParseInt64(ctx.arg(fields_at + 1), &num_fields)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
  }
  size_t first = fields_at + 2;
  if (num_fields <= 0 || static_cast<uint64_t>(num_fields) != ctx.argc() - first) {
    ctx.reply.Error(kNumFieldsMismatch);
    return;
  }
  int64_t now = CommandTimeMs();
  int64_t when;
  if (!ToUnixMs(ctx, ctx.arg(2), seconds, absolute ? 0 : now, &when)) return;
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, true, &e)) return;
  ctx.reply.Array(static_cast<size_t>(num_fields));
  int updated = 0;
  int deleted = 0;
  for (size_t i = first; i < ctx.argc(); ++i) {
    int result = e == nullptr ? -2 : hash::SetExpire(e, ctx.arg(i), when, condition, now);
    updated += result == 1;
    deleted += result == 2;
    ctx.reply.Integer(result);
  }
  // Every form replays as HPEXPIREAT with the absolute time (as Valkey).
  if (ctx.Propagating() && (!absolute || seconds)) {
    std::vector<std::string> args(ctx.args.begin(), ctx.args.end());
    args[0] = "HPEXPIREAT";
    args[2] = std::to_string(when);
    ctx.PropagateAs(std::move(args));
  }
  if (updated + deleted == 0) return;
  ctx.KeyModified(ctx.db, key, updated + deleted);
  if (updated != 0) NotifyKeyspaceEvent(ctx, kNotifyHash, "hexpire", ctx.db, key);
  if (deleted != 0) FieldsExpired(ctx, e, key, static_cast<size_t>(deleted));
}

void CmdHExpire(CommandContext& ctx) { ExpireFields(ctx, true, false); }
void CmdHPExpire(CommandContext& ctx) { ExpireFields(ctx, false, false); }
void CmdHExpireAt(CommandContext& ctx) { ExpireFields(ctx, true, true); }
void CmdHPExpireAt(CommandContext& ctx) { ExpireFields(ctx, false, true); }

// The numfields argument of HTTL-style commands (key FIELDS numfields field...): Valkey reads
// it at position 3 and checks it against the argument count.
bool ParseFieldCount(CommandContext& ctx, const char* mismatch_error) {
  int64_t num_fields;
  if (!ParseInt64(ctx.arg(3), &num_fields)) {
    ctx.reply.Error(errors::kNotInteger);
    return false;
  }
  if (num_fields <= 0 || static_cast<uint64_t>(num_fields) != ctx.argc() - 4) {
    ctx.reply.Error(mismatch_error);
    return false;
  }
  return true;
}

// HTTL / HPTTL / HEXPIRETIME / HPEXPIRETIME key FIELDS numfields field [field ...]
void FieldTtls(CommandContext& ctx, bool seconds, bool absolute) {
  if (!ParseFieldCount(ctx, errors::kSyntax)) return;
  Entry* e;
  if (!FindHash(ctx, ctx.arg(1), false, &e)) return;
  int64_t base = absolute ? 0 : CommandTimeMs();
  ctx.reply.Array(ctx.argc() - 4);
  for (size_t i = 4; i < ctx.argc(); ++i) {
    int64_t when = e == nullptr ? -2 : hash::GetExpire(e, ctx.arg(i));
    if (when < 0) {
      ctx.reply.Integer(when);
      continue;
    }
    int64_t ms = when - base;
    if (ms < 0) ms = 0;
    ctx.reply.Integer(seconds ? (ms + 500) / 1000 : ms);
  }
}

void CmdHTtl(CommandContext& ctx) { FieldTtls(ctx, true, false); }
void CmdHPTtl(CommandContext& ctx) { FieldTtls(ctx, false, false); }
void CmdHExpireTime(CommandContext& ctx) { FieldTtls(ctx, true, true); }
void CmdHPExpireTime(CommandContext& ctx) { FieldTtls(ctx, false, true); }

// HPERSIST key FIELDS numfields field [field ...]
void CmdHPersist(CommandContext& ctx) {
  if (!ParseFieldCount(ctx, kNumFieldsMismatch)) return;
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, true, &e)) return;
  ctx.reply.Array(ctx.argc() - 4);
  int changes = 0;
  for (size_t i = 4; i < ctx.argc(); ++i) {
    int result = e == nullptr ? -2 : hash::Persist(e, ctx.arg(i));
    if (result == 1) ++changes;
    ctx.reply.Integer(result);
  }
  if (changes == 0) return;
  ctx.KeyModified(ctx.db, key, changes);
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hpersist", ctx.db, key);
}

// Options of HGETEX / HSETEX before their FIELDS block.
enum ExOption : unsigned {
  kOptNx = 1u << 0,
  kOptXx = 1u << 1,
  kOptFnx = 1u << 2,
  kOptFxx = 1u << 3,
  kOptEx = 1u << 4,
  kOptPx = 1u << 5,
  kOptExAt = 1u << 6,
  kOptPxAt = 1u << 7,
  kOptKeepTtl = 1u << 8,
  kOptPersist = 1u << 9,
};
constexpr unsigned kOptAnyTime = kOptEx | kOptPx | kOptExAt | kOptPxAt;

struct ExOptions {
  unsigned flags = 0;
  std::string_view time;  // the EX/PX/EXAT/PXAT argument
};

// Parses args[from, to) as HSETEX (for_set) or HGETEX options. An option may repeat, but not
// be combined with one it excludes; anything else is a syntax error (false).
bool ParseExOptions(const CommandContext& ctx, size_t from, size_t to, bool for_set,
                    ExOptions* out) {
  unsigned& f = out->flags;
  for (size_t i = from; i < to; ++i) {
    std::string_view opt = ctx.arg(i);
    unsigned time_kind = 0;
    if (for_set && EqualsIgnoreCase(opt, "NX") && !(f & kOptXx)) {
      f |= kOptNx;
    } else if (for_set && EqualsIgnoreCase(opt, "XX") && !(f & kOptNx)) {
      f |= kOptXx;
    } else if (for_set && EqualsIgnoreCase(opt, "FNX") && !(f & kOptFxx)) {
      f |= kOptFnx;
    } else if (for_set && EqualsIgnoreCase(opt, "FXX") && !(f & kOptFnx)) {
      f |= kOptFxx;
    } else if (for_set && EqualsIgnoreCase(opt, "KEEPTTL") && !(f & kOptAnyTime)) {
      f |= kOptKeepTtl;
    } else if (!for_set && EqualsIgnoreCase(opt, "PERSIST") && !(f & kOptAnyTime)) {
      f |= kOptPersist;
    } else if (EqualsIgnoreCase(opt, "EX")) {
      time_kind = kOptEx;
    } else if (EqualsIgnoreCase(opt, "PX")) {
      time_kind = kOptPx;
    } else if (EqualsIgnoreCase(opt, "EXAT")) {
      time_kind = kOptExAt;
    } else if (EqualsIgnoreCase(opt, "PXAT")) {
      time_kind = kOptPxAt;
    } else {
      return false;
    }
    if (time_kind != 0) {
      unsigned excluded = (kOptAnyTime & ~time_kind) | kOptKeepTtl | kOptPersist;
      if ((f & excluded) || i + 1 >= to) return false;
      f |= time_kind;
      out->time = ctx.arg(++i);
    }
  }
  return true;
}

// The absolute expiry the EX/PX/EXAT/PXAT option asks for (replies the error on failure).
bool OptionTime(CommandContext& ctx, const ExOptions& opt, int64_t* when_ms) {
  bool seconds = (opt.flags & (kOptEx | kOptExAt)) != 0;
  bool absolute = (opt.flags & (kOptExAt | kOptPxAt)) != 0;
  return ToUnixMs(ctx, opt.time, seconds, absolute ? 0 : CommandTimeMs(), when_ms);
}

// OptionTime for HGETEX, which replays with PXAT and the absolute time in place of the option.
bool OptionExpire(CommandContext& ctx, const ExOptions& opt, int64_t* when_ms) {
  if (!OptionTime(ctx, opt, when_ms)) return false;
  if (ctx.Propagating() && !(opt.flags & kOptPxAt)) {
    std::vector<std::string> args(ctx.args.begin(), ctx.args.end());
    for (size_t i = 1; i < args.size(); ++i) {
      if (ctx.args[i].data() == opt.time.data()) {
        args[i - 1] = "PXAT";
        args[i] = std::to_string(*when_ms);
      }
    }
    ctx.PropagateAs(std::move(args));
  }
  return true;
}

// HGETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds |
//   PXAT unix-time-milliseconds | PERSIST] FIELDS numfields field [field ...]
void CmdHGetEx(CommandContext& ctx) {
  size_t fields_at = FindFieldsToken(ctx, 2);
  int64_t num_fields = -1;
  ExOptions opt;
  if (fields_at != 0) {
    if (!ParseExOptions(ctx, 2, fields_at, false, &opt)) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    if (!ParseInt64(ctx.arg(fields_at + 1), &num_fields)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
  }
  size_t first = fields_at + 2;
  if (num_fields <= 0 || static_cast<uint64_t>(num_fields) != ctx.argc() - first) {
    ctx.reply.Error(kNumFieldsMismatch);
    return;
  }
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, false, &e)) return;
  int64_t now = CommandTimeMs();
  int64_t when = 0;
  bool set_expiry = (opt.flags & kOptAnyTime) != 0;
  if (set_expiry && !OptionExpire(ctx, opt, &when)) return;
  bool expire_now = set_expiry && when <= now;
  bool persist = (opt.flags & kOptPersist) != 0;
  ctx.reply.Array(static_cast<size_t>(num_fields));
  int changes = 0;
  for (size_t i = first; i < ctx.argc(); ++i) {
    hash::Item value;
    if (e == nullptr || !hash::Get(e, ctx.arg(i), &value)) {
      ctx.reply.Null();
      continue;
    }
    ReplyItem(ctx.reply, value);  // before the field changes
    if (expire_now) {
      hash::Delete(e, ctx.arg(i));
      ++changes;
    } else if (set_expiry) {
      changes += hash::SetExpire(e, ctx.arg(i), when, hash::kNone, now) == 1 ? 1 : 0;
    } else if (persist) {
      changes += hash::Persist(e, ctx.arg(i)) == 1 ? 1 : 0;
    }
  }
  if (changes == 0) return;
  ctx.KeyModified(ctx.db, key, changes);
  if (expire_now) {
    FieldsExpired(ctx, e, key, static_cast<size_t>(changes));
  } else {
    NotifyKeyspaceEvent(ctx, kNotifyHash, set_expiry ? "hexpire" : "hpersist", ctx.db, key);
  }
}

// HSETEX's expiry option and the conditions checked on this server only, as its replicas and
// the AOF get it: PXAT with the absolute time in place of EX/PX/EXAT, NX/XX/FNX/FXX dropped
// (what they tested may differ there).
std::vector<std::string> HSetExPropagated(const CommandContext& ctx, size_t fields_at,
                                          const ExOptions& opt, int64_t when_ms) {
  std::vector<std::string> args;
  args.reserve(ctx.argc());
  for (size_t i = 0; i < ctx.argc(); ++i) {
    std::string_view a = ctx.arg(i);
    if (i >= 2 && i < fields_at) {
      if (EqualsIgnoreCase(a, "NX") || EqualsIgnoreCase(a, "XX") || EqualsIgnoreCase(a, "FNX") ||
          EqualsIgnoreCase(a, "FXX")) {
        continue;
      }
      if (i + 1 < fields_at && ctx.arg(i + 1).data() == opt.time.data()) {
        args.emplace_back("PXAT");
        args.push_back(std::to_string(when_ms));
        ++i;
        continue;
      }
    }
    args.emplace_back(a);
  }
  return args;
}

// HSETEX key [NX | XX] [FNX | FXX] [EX seconds | PX milliseconds | EXAT unix-time-seconds |
//   PXAT unix-time-milliseconds | KEEPTTL] FIELDS numfields field value [field value ...]
// NX/XX test the key, FNX/FXX the fields (Valkey 9.1). Replies 1 when every field was set (or,
// with a time already past, deleted), else 0.
void CmdHSetEx(CommandContext& ctx) {
  size_t fields_at = FindFieldsToken(ctx, 2);
  int64_t num_fields = 0;
  ExOptions opt;
  if (fields_at != 0) {
    if (!ParseExOptions(ctx, 2, fields_at, true, &opt)) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    if (!ParseInt64(ctx.arg(fields_at + 1), &num_fields)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
  }
  size_t first = fields_at + 2;
  if (num_fields <= 0 || num_fields > INT64_MAX / 2 ||
      static_cast<uint64_t>(num_fields) * 2 != ctx.argc() - first) {
    ctx.reply.Error(kNumFieldsMismatch);
    return;
  }
  // The time is checked before the key is looked at: a command that fails leaves no trace,
  // not even the lazy expiry (and its "hexpired" event) of the key's old fields.
  int64_t expire = 0;  // for hash::Set: 0 none, kKeepTtl, or absolute ms
  bool expire_now = false;
  if (opt.flags & kOptKeepTtl) {
    expire = hash::kKeepTtl;
  } else if (opt.flags & kOptAnyTime) {
    if (!OptionTime(ctx, opt, &expire)) return;
    expire_now = expire <= CommandTimeMs();
  }
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, true, &e)) return;
  if (((opt.flags & kOptNx) && e != nullptr) || ((opt.flags & kOptXx) && e == nullptr)) {
    ctx.reply.Integer(0);
    return;
  }
  if (opt.flags & (kOptFnx | kOptFxx)) {
    bool must_exist = (opt.flags & kOptFxx) != 0;
    if (e == nullptr && must_exist) {
      ctx.reply.Integer(0);
      return;
    }
    for (size_t i = first; e != nullptr && i < ctx.argc(); i += 2) {
      if (hash::Exists(e, ctx.arg(i)) != must_exist) {
        ctx.reply.Integer(0);
        return;
      }
    }
  }
  if (expire_now) {
    // Fields written with a time already past go at once, as if they had expired; replicas
    // get an HDEL of the fields that were there.
    std::vector<std::string> hdel = {"HDEL", std::string(key)};
    int deleted = 0;
    for (size_t i = first; e != nullptr && i < ctx.argc(); i += 2) {
      if (!hash::Delete(e, ctx.arg(i))) continue;
      ++deleted;
      hdel.emplace_back(ctx.arg(i));
    }
    ctx.reply.Integer(deleted == num_fields ? 1 : 0);
    if (deleted == 0) return;
    ctx.KeyModified(ctx.db, key, deleted);
    if (ctx.Propagating()) ctx.PropagateAs(std::move(hdel));
    FieldsExpired(ctx, e, key, static_cast<size_t>(deleted));
    return;
  }
  if (e == nullptr) e = AddHash(ctx, key);
  hash::Limits limits = LimitsOf(ctx);
  for (size_t i = first; i < ctx.argc(); i += 2) {
    hash::Set(e, ctx.arg(i), ctx.arg(i + 1), limits, expire);
  }
  ctx.reply.Integer(1);
  ctx.KeyModified(ctx.db, key, static_cast<int>(num_fields));
  if (ctx.Propagating() &&
      (opt.flags & (kOptNx | kOptXx | kOptFnx | kOptFxx | kOptEx | kOptPx | kOptExAt))) {
    ctx.PropagateAs(HSetExPropagated(ctx, fields_at, opt, expire));
  }
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hset", ctx.db, key);
  if (opt.flags & kOptAnyTime) NotifyKeyspaceEvent(ctx, kNotifyHash, "hexpire", ctx.db, key);
}

}  // namespace

void RegisterHashExpireCommands(CommandTable& t) {
  auto add = [&t](const char* name, int arity, uint32_t flags, uint64_t acl, CommandHandler handler,
                  const char* summary) {
    t.Add({.name = name,
           .arity = arity,
           .flags = flags,
           .acl = acl | kAclHash | kAclFast,
           .first_key = 1,
           .last_key = 1,
           .key_step = 1,
           .handler = handler,
           .group = "hash",
           .summary = summary,
           .since = "9.0.0",
           .complexity = "O(N) where N is the number of specified fields."});
  };
  const uint32_t wr = kCmdWrite | kCmdFast;
  const uint32_t rd = kCmdReadonly | kCmdFast;
  add("hexpire", -6, wr, kAclWrite, CmdHExpire, "Sets expiry time on hash fields.");
  add("hpexpire", -6, wr, kAclWrite, CmdHPExpire,
      "Sets expiry time on hash fields in milliseconds.");
  add("hexpireat", -6, wr, kAclWrite, CmdHExpireAt,
      "Sets expiry time on hash fields as a Unix timestamp in seconds.");
  add("hpexpireat", -6, wr, kAclWrite, CmdHPExpireAt,
      "Sets expiry time on hash fields as a Unix timestamp in milliseconds.");
  add("httl", -5, rd, kAclRead, CmdHTtl,
      "Returns the remaining time to live in seconds of hash fields.");
  add("hpttl", -5, rd, kAclRead, CmdHPTtl,
      "Returns the remaining time to live in milliseconds of hash fields.");
  add("hexpiretime", -5, rd, kAclRead, CmdHExpireTime,
      "Returns the expiration time of hash fields as a Unix timestamp in seconds.");
  add("hpexpiretime", -5, rd, kAclRead, CmdHPExpireTime,
      "Returns the expiration time of hash fields as a Unix timestamp in milliseconds.");
  add("hpersist", -5, wr, kAclWrite, CmdHPersist, "Removes the expiration time of hash fields.");
  add("hgetex", -5, wr, kAclWrite, CmdHGetEx,
      "Get the value of one or more fields of a given hash key, and optionally set their "
      "expiration time.");
  add("hsetex", -6, wr | kCmdDenyOom, kAclWrite, CmdHSetEx,
      "Set the value of one or more fields of a given hash key, and optionally set their "
      "expiration time.");
}

}  // namespace vireo::hash_cmd
