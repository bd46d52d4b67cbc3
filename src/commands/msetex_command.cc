// MSETEX numkeys key value [key value ...] [NX | XX] [EX seconds | PX milliseconds |
//   EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]   (Valkey 9.1)
// MSET with one expiry shared by every key; NX / XX ask that all the keys be missing / exist.
#include <climits>
#include <string>
#include <unordered_set>
#include <vector>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/string_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/value.h"

namespace vireo::string_cmd {
namespace {

constexpr const char* kErrNumKeys = "ERR invalid numkeys value or out of range";

enum MSetExFlag : unsigned {
  kNx = 1u << 0,
  kXx = 1u << 1,
  kKeepTtl = 1u << 2,
  kEx = 1u << 3,
  kPx = 1u << 4,
  kExAt = 1u << 5,
  kPxAt = 1u << 6,
};
constexpr unsigned kAnyTime = kEx | kPx | kExAt | kPxAt;

struct MSetExOptions {
  unsigned flags = 0;
  size_t time_at = 0;  // index of the EX/PX/EXAT/PXAT argument
};

// Parses args[from..] as the options; false is a syntax error. An option may repeat, but not
// meet one it excludes (as SET's).
bool ParseOptions(const CommandContext& ctx, size_t from, MSetExOptions* out) {
  unsigned& f = out->flags;
  for (size_t i = from; i < ctx.argc(); ++i) {
    std::string_view opt = ctx.arg(i);
    unsigned time_kind = 0;
    if (EqualsIgnoreCase(opt, "NX") && !(f & kXx)) {
      f |= kNx;
    } else if (EqualsIgnoreCase(opt, "XX") && !(f & kNx)) {
      f |= kXx;
    } else if (EqualsIgnoreCase(opt, "KEEPTTL") && !(f & kAnyTime)) {
      f |= kKeepTtl;
    } else if (EqualsIgnoreCase(opt, "EX")) {
      time_kind = kEx;
    } else if (EqualsIgnoreCase(opt, "PX")) {
      time_kind = kPx;
    } else if (EqualsIgnoreCase(opt, "EXAT")) {
      time_kind = kExAt;
    } else if (EqualsIgnoreCase(opt, "PXAT")) {
      time_kind = kPxAt;
    } else {
      return false;
    }
    if (time_kind != 0) {
      if ((f & ((kAnyTime & ~time_kind) | kKeepTtl)) || i + 1 >= ctx.argc()) return false;
      f |= time_kind;
      out->time_at = ++i;
    }
  }
  return true;
}

// A time already past: nothing is stored, the keys that existed go (as if they had expired)
// and replicas get one DEL / UNLINK of them.
void DeleteExpiredAtOnce(CommandContext& ctx, size_t num_keys) {
  const bool lazy = ctx.server.config().lazyfree_lazy_expire;
  std::vector<std::string> del = {lazy ? "UNLINK" : "DEL"};
  std::unordered_set<std::string_view> seen;
  for (size_t k = 0; k < num_keys; ++k) {
    std::string_view key = ctx.arg(2 + 2 * k);
    if (!seen.insert(key).second || FindStringForWrite(ctx, key) == nullptr) continue;
    ctx.db->Delete(key, lazy);
    del.emplace_back(key);
    ctx.KeyModified(ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
  }
  if (del.size() == 1) return;  // nothing was there: nothing to replicate
  if (ctx.Propagating()) ctx.PropagateAs(std::move(del));
}

void CmdMSetEx(CommandContext& ctx) {
  int64_t num_keys;
  if (!ParseInt64(ctx.arg(1), &num_keys) || num_keys <= 0 || num_keys > INT_MAX) {
    ctx.reply.Error(kErrNumKeys);
    return;
  }
  // num_keys <= INT_MAX: the sum cannot overflow.
  const uint64_t options_at = 2 + 2 * static_cast<uint64_t>(num_keys);
  MSetExOptions opt;
  if (options_at > ctx.argc() || !ParseOptions(ctx, options_at, &opt)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t when = 0;
  if (opt.flags & kAnyTime) {
    const bool seconds = (opt.flags & (kEx | kExAt)) != 0;
    const bool absolute = (opt.flags & (kExAt | kPxAt)) != 0;
    if (!ExpireArgToUnixMs(ctx, ctx.arg(opt.time_at), seconds, absolute, "msetex", &when)) {
      return;
    }
  }
  const size_t n = static_cast<size_t>(num_keys);
  if (opt.flags & (kNx | kXx)) {
    const bool must_exist = (opt.flags & kXx) != 0;
    for (size_t k = 0; k < n; ++k) {
      if ((FindStringForWrite(ctx, ctx.arg(2 + 2 * k)) != nullptr) != must_exist) {
        ctx.reply.Integer(0);
        return;
      }
    }
  }
  ctx.reply.Integer(1);
  if (when != 0 && when <= CommandTimeMs()) {
    DeleteExpiredAtOnce(ctx, n);
    return;
  }
  for (size_t k = 0; k < n; ++k) {
    std::string_view key = ctx.arg(2 + 2 * k);
    // A key named twice is found by the second store: the last value wins.
    Entry* e = SetString(ctx, FindStringForWrite(ctx, key), key, ctx.arg(3 + 2 * k),
                         (opt.flags & kKeepTtl) != 0, when != 0);
    if (when != 0) (void)ctx.db->SetExpire(e, when);
    ctx.KeyModified(ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifyString, "set", ctx.db, key);
    if (when != 0) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "expire", ctx.db, key);
  }
  // Relative times and EXAT replay as PXAT with the absolute time (Valkey 9.1).
  if (ctx.Propagating() && (opt.flags & (kEx | kPx | kExAt))) {
    std::vector<std::string> args(ctx.args.begin(), ctx.args.end());
    args[opt.time_at - 1] = "PXAT";
    args[opt.time_at] = std::to_string(when);
    ctx.PropagateAs(std::move(args));
  }
}

}  // namespace

void RegisterMSetExCommand(CommandTable& t) {
  // Keys by the key spec (numkeys at 1, then every other argument), as Valkey's.
  t.Add({.name = "msetex",
         .arity = -4,
         .flags = kCmdWrite | kCmdDenyOom | kCmdMovableKeys,
         .acl = kAclWrite | kAclString | kAclSlow,
         .handler = CmdMSetEx,
         .group = "string",
         .summary = "Atomically creates or modifies the string values of one or more keys, and "
                    "optionally set their expiration.",
         .since = "9.1.0",
         .complexity = "O(N) where N is the number of keys to set."});
}

}  // namespace vireo::string_cmd
