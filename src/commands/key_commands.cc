// Keys family: DEL UNLINK EXISTS TYPE RENAME RENAMENX COPY MOVE TOUCH OBJECT RANDOMKEY KEYS SCAN.
// Expiry commands live in expire_commands.cc, whole-database ones in db_commands.cc.
#include <charconv>
#include <climits>
#include <string_view>
#include <vector>

#include "cluster/cluster.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/scan_options.h"
#include "commands/server_family.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/glob.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/access_clock.h"
#include "store/value.h"

namespace vireo {
namespace {

// Keys gathered for one KEYS/SCAN reply (the reply needs the count first). Kept between
// commands so a SCAN step does not allocate; the views die with the command.
std::vector<std::string_view>& ScratchKeys() {
  static std::vector<std::string_view> keys;
  keys.clear();
  return keys;
}

// Empties the scratch list, giving back the memory a big KEYS reply made it take.
void ReleaseScratchKeys(std::vector<std::string_view>& keys) {
  if (keys.capacity() > 4096) {
    std::vector<std::string_view>().swap(keys);
  } else {
    keys.clear();
  }
}

// Valkey's getIntFromObjectOrReply: an int64 that also fits an int. Null on success, else
// the error to reply.
const char* ParseIntArg(std::string_view s, int* out) {
  int64_t v;
  if (!ParseInt64(s, &v)) return errors::kNotInteger;
  if (v < INT_MIN || v > INT_MAX) return errors::kIntRange;
  *out = static_cast<int>(v);
  return nullptr;
}

// The database named by a DB argument (COPY ... DB n, MOVE), or nullptr after replying.
Db* ParseDbArg(CommandContext& ctx, std::string_view s) {
  int index;
  if (const char* err = ParseIntArg(s, &index)) {
    ctx.reply.Error(err);
    return nullptr;
  }
  if (index < 0 || index >= ctx.server.db_count()) {
    ctx.reply.Error(errors::kDbIndexOutOfRange);
    return nullptr;
  }
  return ctx.server.db(index);
}

bool PolicyIsLfu(Server& server) {
  return server.config().maxmemory_policy.find("lfu") != std::string::npos;
}

// DEL and UNLINK: the number of keys removed.
void DeleteKeys(CommandContext& ctx, bool lazy) {
  int64_t deleted = 0;
  for (size_t i = 1; i < ctx.argc(); ++i) {
    if (ctx.db->Delete(ctx.arg(i), lazy)) {
      ctx.KeyModified(ctx.db, ctx.arg(i));
      NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, ctx.arg(i));
      ++deleted;
    }
  }
  ctx.reply.Integer(deleted);
}

// RENAME and RENAMENX. The value moves to a new entry (the key is stored inline), so even a
// huge value renames in O(1).
void RenameKey(CommandContext& ctx, bool nx) {
  std::string_view src = ctx.arg(1);
  std::string_view dst = ctx.arg(2);
  if (ctx.db->Find(src) == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
    return;
  }
  if (src == dst) {
    nx ? ctx.reply.Integer(0) : ctx.reply.Ok();
    return;
  }
  if (ctx.db->Find(dst) != nullptr) {
    if (nx) {
      ctx.reply.Integer(0);
      return;
    }
    ctx.db->Delete(dst, ctx.server.config().lazyfree_lazy_server_del);
  }
  ctx.db->Attach(RekeyEntry(ctx.db->Detach(src), dst));
  ctx.KeyModified(ctx.db, src, 0);
  ctx.KeyModified(ctx.db, dst);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "rename_from", ctx.db, src);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "rename_to", ctx.db, dst);
  nx ? ctx.reply.Integer(1) : ctx.reply.Ok();
}

// DEL key [key ...]
void CmdDel(CommandContext& ctx) { DeleteKeys(ctx, ctx.server.config().lazyfree_lazy_user_del); }

// UNLINK key [key ...]
void CmdUnlink(CommandContext& ctx) { DeleteKeys(ctx, true); }

// EXISTS key [key ...]
void CmdExists(CommandContext& ctx) {
  int64_t count = 0;
  for (size_t i = 1; i < ctx.argc(); ++i) {
    if (ctx.db->Lookup(ctx.arg(i), /*touch=*/false) != nullptr) ++count;
  }
  ctx.reply.Integer(count);
}

// TYPE key
void CmdType(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(1), /*touch=*/false);
  ctx.reply.Simple(e == nullptr ? "none" : TypeName(e->type()));
}

// RENAME key newkey
void CmdRename(CommandContext& ctx) { RenameKey(ctx, false); }

// RENAMENX key newkey
void CmdRenameNx(CommandContext& ctx) { RenameKey(ctx, true); }

// COPY source destination [DB destination-db] [REPLACE]
void CmdCopy(CommandContext& ctx) {
  std::string_view src = ctx.arg(1);
  std::string_view dst = ctx.arg(2);
  Db* target = ctx.db;
  bool replace = false;
  for (size_t i = 3; i < ctx.argc(); ++i) {
    if (EqualsIgnoreCase(ctx.arg(i), "replace")) {
      replace = true;
    } else if (EqualsIgnoreCase(ctx.arg(i), "db") && i + 1 < ctx.argc()) {
      target = ParseDbArg(ctx, ctx.arg(++i));
      if (target == nullptr) return;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (target == ctx.db && src == dst) {
    ctx.reply.Error(errors::kSameObject);
    return;
  }
  const Entry* e = ctx.db->Lookup(src);  // a read of the source, as Valkey counts it
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (target->Find(dst) != nullptr) {
    if (!replace) {
      ctx.reply.Integer(0);
      return;
    }
    target->Delete(dst, ctx.server.config().lazyfree_lazy_server_del);
  }
  target->Attach(CopyEntry(e, dst));
  ctx.KeyModified(target, dst);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "copy_to", target, dst);
  ctx.reply.Integer(1);
}

// MOVE key db
void CmdMove(CommandContext& ctx) {
  // Cluster mode with one database (cluster-databases 1) refuses before parsing, as Valkey.
  if (ctx.server.cluster() != nullptr && ctx.server.db_count() == 1) {
    ctx.reply.Error("ERR MOVE is not allowed in cluster mode");
    return;
  }
  std::string_view key = ctx.arg(1);
  Db* target = ParseDbArg(ctx, ctx.arg(2));
  if (target == nullptr) return;
  if (target == ctx.db) {
    ctx.reply.Error(errors::kSameObject);
    return;
  }
  if (ctx.db->Find(key) == nullptr || target->Find(key) != nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  target->Attach(ctx.db->Detach(key));
  ctx.KeyModified(ctx.db, key, 0);
  ctx.KeyModified(target, key);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "move_from", ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "move_to", target, key);
  ctx.reply.Integer(1);
}

// TOUCH key [key ...]
void CmdTouch(CommandContext& ctx) {
  int64_t count = 0;
  for (size_t i = 1; i < ctx.argc(); ++i) {
    if (ctx.db->Lookup(ctx.arg(i)) != nullptr) ++count;
  }
  ctx.reply.Integer(count);
}

// OBJECT ENCODING key
void CmdObjectEncoding(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(2), /*touch=*/false);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Bulk(EncodingName(e->encoding()));
}

// OBJECT REFCOUNT key
// Valkey shares one object per integer 0..9999 (unless an LRU/LFU maxmemory policy needs a
// clock per key) and reports INT_MAX for those. We share nothing, but report what Valkey
// would so clients probing it see the same answer; everything else is 1.
void CmdObjectRefcount(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(2), /*touch=*/false);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  const Config& config = ctx.server.config();
  bool per_key_clock =
      config.maxmemory != 0 && (config.maxmemory_policy.find("lru") != std::string::npos ||
                                config.maxmemory_policy.find("lfu") != std::string::npos);
  bool shared = e->type() == ObjType::kString && e->encoding() == Encoding::kInt && e->ival >= 0 &&
                e->ival < 10000 && !per_key_clock;
  ctx.reply.Integer(shared ? INT_MAX : 1);
}

// OBJECT IDLETIME key
void CmdObjectIdletime(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(2), /*touch=*/false);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (PolicyIsLfu(ctx.server)) {
    ctx.reply.Error(errors::kLfuSelected);
    return;
  }
  ctx.reply.Integer(static_cast<int64_t>(LruIdleSeconds(e->lru())));
}

// OBJECT FREQ key
// The LFU counter after decay (store/access_clock.h).
void CmdObjectFreq(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(2), /*touch=*/false);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (!PolicyIsLfu(ctx.server)) {
    ctx.reply.Error(errors::kLfuNotSelected);
    return;
  }
  ctx.reply.Integer(LfuFrequency(e));
}

// OBJECT HELP
void CmdObjectHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"ENCODING <key>",
             "    Return the kind of internal representation used in order to store the value",
             "    associated with a <key>.", "FREQ <key>",
             "    Return the access frequency index of the <key>. The returned integer is",
             "    proportional to the logarithm of the recent access frequency of the key.",
             "IDLETIME <key>",
             "    Return the idle time of the <key>, that is the approximated number of",
             "    seconds elapsed since the last access to the key.", "REFCOUNT <key>",
             "    Return the number of references of the value associated with the specified",
             "    <key>."});
}

// RANDOMKEY
void CmdRandomKey(CommandContext& ctx) {
  const Entry* e = ctx.db->Random();
  // Keys an atomic slot migration is importing are not shown: try again a few times, then
  // take the first visible key of a walk (none: the database looks empty).
  for (int i = 0; e != nullptr && Db::Importing(e) && i < 16; ++i) e = ctx.db->Random();
  if (e != nullptr && Db::Importing(e)) {
    e = nullptr;
    uint64_t cursor = 0;
    do {
      cursor = ctx.db->Scan(cursor, [&](const Entry* x) {
        if (e == nullptr && !Db::Importing(x)) e = x;
      });
    } while (cursor != 0 && e == nullptr);
  }
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  ctx.reply.Bulk(e->Key());
}

// KEYS pattern
void CmdKeys(CommandContext& ctx) {
  std::string_view pattern = ctx.arg(1);
  // A lone "*" matches every key, the empty one included (GlobMatch("*", "") is false).
  bool all = pattern == "*";
  std::vector<std::string_view>& keys = ScratchKeys();
  if (all) keys.reserve(ctx.db->Size());
  ctx.db->ForEach([&](const Entry* e) {
    if (Db::Importing(e)) return;
    if (all || GlobMatch(pattern, e->Key())) keys.push_back(e->Key());
  });
  ctx.reply.Array(keys.size());
  for (std::string_view k : keys) ctx.reply.Bulk(k);
  ReleaseScratchKeys(keys);
}

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
void CmdScan(CommandContext& ctx) {
  uint64_t cursor;
  if (!ParseScanCursor(ctx.arg(1), &cursor)) {
    ctx.reply.Error(errors::kInvalidCursor);
    return;
  }
  ScanOptions opt;
  if (!ParseScanOptions(ctx, 2, nullptr, true, &opt)) return;
  int64_t count = opt.count;
  std::string_view pattern = opt.pattern, type = opt.type;
  bool has_type = opt.has_type;
  bool all = opt.MatchesAll();
  // As Valkey: visit buckets until `count` keys were seen (before filtering) or 10 * count
  // buckets were visited, so a sparse table or a selective filter cannot stall the server.
  uint64_t want = static_cast<uint64_t>(count);
  uint64_t max_steps = want > UINT64_MAX / 10 ? UINT64_MAX : want * 10;
  uint64_t seen = 0;
  std::vector<std::string_view>& keys = ScratchKeys();
  do {
    cursor = ctx.db->Scan(cursor, [&](const Entry* e) {
      ++seen;
      if (Db::Importing(e)) return;
      if (!all && !GlobMatch(pattern, e->Key())) return;
      if (has_type && !EqualsIgnoreCase(type, TypeName(e->type()))) return;
      keys.push_back(e->Key());
    });
  } while (cursor != 0 && --max_steps != 0 && seen < want);
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), cursor);
  (void)ec;
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::string_view(buf, static_cast<size_t>(end - buf)));
  ctx.reply.Array(keys.size());
  for (std::string_view k : keys) ctx.reply.Bulk(k);
  ReleaseScratchKeys(keys);
}

}  // namespace

// The table reads best one command per paragraph, not one field per line.
// clang-format off
void RegisterKeyCommands(CommandTable& t) {
  const uint64_t ks = kAclKeyspace;
  t.Add({.name = "del", .arity = -2, .flags = kCmdWrite, .acl = ks | kAclWrite | kAclSlow,
         .first_key = 1, .last_key = -1, .key_step = 1, .handler = CmdDel, .group = "generic",
         .summary = "Deletes one or more keys.", .since = "1.0.0",
         .complexity = "O(N) where N is the number of keys that will be removed."});
  t.Add({.name = "unlink", .arity = -2, .flags = kCmdWrite | kCmdFast,
         .acl = ks | kAclWrite | kAclFast, .first_key = 1, .last_key = -1, .key_step = 1,
         .handler = CmdUnlink, .group = "generic",
         .summary = "Asynchronously deletes one or more keys.", .since = "4.0.0",
         .complexity = "O(1) for each key removed regardless of its size."});
  t.Add({.name = "exists", .arity = -2, .flags = kCmdReadonly | kCmdFast,
         .acl = ks | kAclRead | kAclFast, .first_key = 1, .last_key = -1, .key_step = 1,
         .handler = CmdExists, .group = "generic",
         .summary = "Determines whether one or more keys exist.", .since = "1.0.0",
         .complexity = "O(N) where N is the number of keys to check."});
  t.Add({.name = "type", .arity = 2, .flags = kCmdReadonly | kCmdFast,
         .acl = ks | kAclRead | kAclFast, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdType, .group = "generic",
         .summary = "Determines the type of value stored at a key.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "rename", .arity = 3, .flags = kCmdWrite, .acl = ks | kAclWrite | kAclSlow,
         .first_key = 1, .last_key = 2, .key_step = 1, .handler = CmdRename, .group = "generic",
         .summary = "Renames a key and overwrites the destination.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "renamenx", .arity = 3, .flags = kCmdWrite | kCmdFast,
         .acl = ks | kAclWrite | kAclFast, .first_key = 1, .last_key = 2, .key_step = 1,
         .handler = CmdRenameNx, .group = "generic",
         .summary = "Renames a key only when the target key name doesn't exist.",
         .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "copy", .arity = -3, .flags = kCmdWrite | kCmdDenyOom,
         .acl = ks | kAclWrite | kAclSlow, .first_key = 1, .last_key = 2, .key_step = 1,
         .handler = CmdCopy, .group = "generic",
         .summary = "Copies the value of a key to a new key.", .since = "6.2.0",
         .complexity = "O(N) worst case for collections, where N is the number of nested items. "
                       "O(1) for string values."});
  t.Add({.name = "move", .arity = 3, .flags = kCmdWrite | kCmdFast,
         .acl = ks | kAclWrite | kAclFast, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdMove, .group = "generic", .summary = "Moves a key to another database.",
         .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "touch", .arity = -2, .flags = kCmdReadonly | kCmdFast,
         .acl = ks | kAclRead | kAclFast, .first_key = 1, .last_key = -1, .key_step = 1,
         .handler = CmdTouch, .group = "generic",
         .summary = "Returns the number of existing keys out of those specified after updating "
                    "the time they were last accessed.",
         .since = "3.2.1",
         .complexity = "O(N) where N is the number of keys that will be touched."});
  const uint64_t obj_acl = ks | kAclRead | kAclSlow;
  t.Add({.name = "object", .arity = -2, .acl = kAclSlow, .group = "generic",
         .summary = "A container for object introspection commands.", .since = "2.2.3",
         .complexity = "Depends on subcommand.",
         .subcommands = {
             {.name = "object|encoding", .arity = 3, .flags = kCmdReadonly, .acl = obj_acl,
              .first_key = 2, .last_key = 2, .key_step = 1, .handler = CmdObjectEncoding,
              .group = "generic", .summary = "Returns the internal encoding of an object.",
              .since = "2.2.3", .complexity = "O(1)"},
             {.name = "object|freq", .arity = 3, .flags = kCmdReadonly, .acl = obj_acl,
              .first_key = 2, .last_key = 2, .key_step = 1, .handler = CmdObjectFreq,
              .group = "generic", .summary = "Returns the logarithmic access frequency counter "
                                             "of an object.",
              .since = "4.0.0", .complexity = "O(1)"},
             {.name = "object|help", .arity = 2, .flags = kCmdLoading | kCmdStale,
              .acl = ks | kAclSlow, .handler = CmdObjectHelp, .group = "generic",
              .summary = "Returns helpful text about the different subcommands.",
              .since = "6.2.0", .complexity = "O(1)"},
             {.name = "object|idletime", .arity = 3, .flags = kCmdReadonly, .acl = obj_acl,
              .first_key = 2, .last_key = 2, .key_step = 1, .handler = CmdObjectIdletime,
              .group = "generic",
              .summary = "Returns the time since the last access to an object.",
              .since = "2.2.3", .complexity = "O(1)"},
             {.name = "object|refcount", .arity = 3, .flags = kCmdReadonly, .acl = obj_acl,
              .first_key = 2, .last_key = 2, .key_step = 1, .handler = CmdObjectRefcount,
              .group = "generic", .summary = "Returns the reference count of a value of a key.",
              .since = "2.2.3", .complexity = "O(1)"},
         }});
  t.Add({.name = "randomkey", .arity = 1, .flags = kCmdReadonly,
         .acl = ks | kAclRead | kAclSlow, .handler = CmdRandomKey, .group = "generic",
         .summary = "Returns a random key name from the database.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "keys", .arity = 2, .flags = kCmdReadonly,
         .acl = ks | kAclRead | kAclSlow | kAclDangerous, .handler = CmdKeys, .group = "generic",
         .summary = "Returns all key names that match a pattern.", .since = "1.0.0",
         .complexity = "O(N) with N being the number of keys in the database, under the "
                       "assumption that the key names in the database and the given pattern "
                       "have limited length."});
  t.Add({.name = "scan", .arity = -2, .flags = kCmdReadonly, .acl = ks | kAclRead | kAclSlow,
         .handler = CmdScan, .group = "generic",
         .summary = "Iterates over the key names in the database.", .since = "2.8.0",
         .complexity = "O(1) for every call. O(N) for a complete iteration, including enough "
                       "command calls for the cursor to return back to 0. N is the number of "
                       "elements inside the collection."});
}
// clang-format on

}  // namespace vireo
