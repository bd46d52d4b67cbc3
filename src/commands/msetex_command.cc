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
  StringOptions opt;
  if (options_at > ctx.argc() ||
      !ParseStringOptions(ctx.args, options_at, StringOptionsOf::kMSetEx, &opt)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t when = 0;
  if ((opt.flags & kOptAnyExpire) && !ParseOptionExpire(ctx, opt, "msetex", &when)) return;
  const size_t n = static_cast<size_t>(num_keys);
  if (opt.flags & (kOptNx | kOptXx)) {
    const bool must_exist = (opt.flags & kOptXx) != 0;
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
                         (opt.flags & kOptKeepTtl) != 0, when != 0);
    if (when != 0) (void)ctx.db->SetExpire(e, when);
    ctx.KeyModified(ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifyString, "set", ctx.db, key);
    if (when != 0) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "expire", ctx.db, key);
  }
  // Relative times and EXAT replay as PXAT with the absolute time (Valkey 9.1).
  if (ctx.Propagating() && (opt.flags & (kOptEx | kOptPx | kOptExAt))) {
    std::vector<std::string> args(ctx.args.begin(), ctx.args.end());
    args[opt.expire_at - 1] = "PXAT";
    args[opt.expire_at] = std::to_string(when);
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
