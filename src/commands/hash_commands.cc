// Hash commands: HSET HSETNX HGET HMGET HMSET HDEL HLEN HSTRLEN HEXISTS HKEYS HVALS HGETALL
// HINCRBY HINCRBYFLOAT HRANDFIELD HSCAN (the field-expiry commands are in
// hash_expire_commands.cc). The encodings live behind store/hash_value.h.
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "commands/context.h"
#include "commands/digest.h"
#include "commands/errors.h"
#include "commands/hash_family.h"
#include "commands/registry.h"
#include "commands/scan_options.h"
#include "common/clock.h"
#include "common/glob.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/access_clock.h"
#include "store/hash_field_expire.h"
#include "store/memory.h"

namespace vireo {
namespace hash_cmd {

hash::Limits LimitsOf(const CommandContext& ctx) {
  const Config& c = ctx.server.config();
  return hash::Limits{c.hash_max_listpack_entries, c.hash_max_listpack_value};
}

bool FindHash(CommandContext& ctx, std::string_view key, bool for_write, Entry** out) {
  Entry* e = for_write ? ctx.db->Find(key) : ctx.db->Lookup(key);
  *out = nullptr;
  if (e == nullptr) return true;
  if (e->type() != ObjType::kHash) {
    ctx.reply.Error(errors::kWrongType);
    return false;
  }
  if (for_write) TouchAccess(e);
  if (size_t n = hash::PurgeExpired(e, CommandTimeMs()); n != 0) {
    if (FieldsExpired(ctx, e, key, n)) return true;
  }
  *out = e;
  return true;
}

Entry* AddHash(CommandContext& ctx, std::string_view key) {
  Entry* e = ctx.db->Add(key);
  hash::InitEmpty(e);
  return e;
}

bool DeleteIfEmpty(CommandContext& ctx, Entry* e, std::string_view key) {
  if (hash::Length(e) != 0) return false;
  ctx.db->Delete(key);
  return true;
}

bool FieldsExpired(CommandContext& ctx, Entry* e, std::string_view key, size_t n) {
  CountExpiredHashFields(n);
  // Not a write of the client's, but WATCH and blocked clients must see the change.
  ctx.KeyModified(ctx.db, key, 0);
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hexpired", ctx.db, key);
  if (!DeleteIfEmpty(ctx, e, key)) return false;
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
  return true;
}

void ReplyArityError(CommandContext& ctx) {
  ctx.reply.Error("ERR wrong number of arguments for '" + ToLower(ctx.arg(0)) + "' command");
}

}  // namespace hash_cmd

namespace {

using hash::Item;
using hash_cmd::FindHash;
using hash_cmd::ReplyItem;

std::string_view ItemText(const Item& item, char* buf) { return item.View(buf); }

// HSET key field value [field value ...] / HMSET (replies OK instead of the count added)
void SetFields(CommandContext& ctx, bool reply_count) {
  if (ctx.argc() % 2 == 1) {
    hash_cmd::ReplyArityError(ctx);
    return;
  }
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, true, &e)) return;
  if (e == nullptr) e = hash_cmd::AddHash(ctx, key);
  hash::Limits limits = hash_cmd::LimitsOf(ctx);
  size_t strings = ctx.argc() - 2;
  hash::PrepareWrite(e, &ctx.args[2], strings, limits);
  int64_t added = 0;
  for (size_t i = 2; i < ctx.argc(); i += 2) {
    added += hash::Set(e, ctx.arg(i), ctx.arg(i + 1), limits) ? 1 : 0;
  }
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hset", ctx.db, key);
  if (reply_count) {
    ctx.reply.Integer(added);
  } else {
    ctx.reply.Ok();
  }
}

void CmdHSet(CommandContext& ctx) { SetFields(ctx, true); }
void CmdHMSet(CommandContext& ctx) { SetFields(ctx, false); }

// HSETNX key field value
void CmdHSetNx(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, true, &e)) return;
  if (e != nullptr && hash::Exists(e, ctx.arg(2))) {
    ctx.reply.Integer(0);
    return;
  }
  if (e == nullptr) e = hash_cmd::AddHash(ctx, key);
  hash::Limits limits = hash_cmd::LimitsOf(ctx);
  hash::PrepareWrite(e, &ctx.args[2], 2, limits);
  hash::Set(e, ctx.arg(2), ctx.arg(3), limits);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hset", ctx.db, key);
  ctx.reply.Integer(1);
}

// HGET key field
void CmdHGet(CommandContext& ctx) {
  Entry* e;
  if (!FindHash(ctx, ctx.arg(1), false, &e)) return;
  Item value;
  if (e == nullptr || !hash::Get(e, ctx.arg(2), &value)) {
    ctx.reply.Null();
    return;
  }
  ReplyItem(ctx.reply, value);
}

// HMGET key field [field ...]
void CmdHMGet(CommandContext& ctx) {
  Entry* e;
  if (!FindHash(ctx, ctx.arg(1), false, &e)) return;
  ctx.reply.Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); ++i) {
    Item value;
    if (e != nullptr && hash::Get(e, ctx.arg(i), &value)) {
      ReplyItem(ctx.reply, value);
    } else {
      ctx.reply.Null();
    }
  }
}

// HDEL key field [field ...]
void CmdHDel(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, true, &e)) return;
  int64_t deleted = 0;
  bool key_removed = false;
  if (e != nullptr) {
    for (size_t i = 2; i < ctx.argc(); ++i) {
      if (!hash::Delete(e, ctx.arg(i))) continue;
      ++deleted;
      if ((key_removed = hash_cmd::DeleteIfEmpty(ctx, e, key))) break;
    }
    if (deleted != 0) {
      ctx.KeyModified(ctx.db, key);
      NotifyKeyspaceEvent(ctx, kNotifyHash, "hdel", ctx.db, key);
      if (key_removed) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
    }
  }
  ctx.reply.Integer(deleted);
}

// HGETDEL key FIELDS numfields field [field ...] (Valkey 9.1). Like Valkey, the FIELDS word
// itself is not checked: numfields is read at its fixed place. Replicates as itself.
void CmdHGetDel(CommandContext& ctx) {
  int64_t num_fields;
  if (!ParseInt64(ctx.arg(3), &num_fields)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (num_fields <= 0 || static_cast<uint64_t>(num_fields) != ctx.argc() - 4) {
    ctx.reply.Error(errors::kNumFieldsMismatch);
    return;
  }
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, true, &e)) return;
  ctx.reply.Array(ctx.argc() - 4);
  int deleted = 0;
  bool key_removed = false;
  for (size_t i = 4; i < ctx.argc(); ++i) {
    hash::Item value;
    if (e == nullptr || !hash::Get(e, ctx.arg(i), &value)) {
      ctx.reply.Null();
      continue;
    }
    hash_cmd::ReplyItem(ctx.reply, value);  // before the field goes
    hash::Delete(e, ctx.arg(i));
    ++deleted;
    if ((key_removed = hash_cmd::DeleteIfEmpty(ctx, e, key))) e = nullptr;
  }
  if (deleted == 0) return;
  ctx.KeyModified(ctx.db, key, deleted);
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hdel", ctx.db, key);
  if (key_removed) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
}

// HLEN key
void CmdHLen(CommandContext& ctx) {
  Entry* e;
  if (!FindHash(ctx, ctx.arg(1), false, &e)) return;
  ctx.reply.Integer(e == nullptr ? 0 : static_cast<int64_t>(hash::Length(e)));
}

// HSTRLEN key field
void CmdHStrLen(CommandContext& ctx) {
  Entry* e;
  if (!FindHash(ctx, ctx.arg(1), false, &e)) return;
  Item value;
  bool found = e != nullptr && hash::Get(e, ctx.arg(2), &value);
  ctx.reply.Integer(found ? static_cast<int64_t>(hash::ItemLength(value)) : 0);
}

// HEXISTS key field
void CmdHExists(CommandContext& ctx) {
  Entry* e;
  if (!FindHash(ctx, ctx.arg(1), false, &e)) return;
  ctx.reply.Integer(e != nullptr && hash::Exists(e, ctx.arg(2)) ? 1 : 0);
}

// HKEYS / HVALS / HGETALL key
void ReplyAll(CommandContext& ctx, bool fields, bool values) {
  Entry* e;
  if (!FindHash(ctx, ctx.arg(1), false, &e)) return;
  size_t n = e == nullptr ? 0 : hash::Length(e);
  if (fields && values) {
    ctx.reply.Map(n);
  } else {
    ctx.reply.Array(n);
  }
  if (e == nullptr) return;
  hash::Iterator it(e);
  while (it.Next()) {
    if (fields) ReplyItem(ctx.reply, it.field());
    if (values) ReplyItem(ctx.reply, it.value());
  }
}

void CmdHKeys(CommandContext& ctx) { ReplyAll(ctx, true, false); }
void CmdHVals(CommandContext& ctx) { ReplyAll(ctx, false, true); }
void CmdHGetAll(CommandContext& ctx) { ReplyAll(ctx, true, true); }

// HINCRBY key field increment
void CmdHIncrBy(CommandContext& ctx) {
  int64_t incr;
  if (!ParseInt64(ctx.arg(3), &incr)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, true, &e)) return;
  int64_t value = 0;
  Item current;
  if (e != nullptr && hash::Get(e, ctx.arg(2), &current)) {
    if (!current.IsInt()) {
      char buf[24];
      if (!ParseInt64(ItemText(current, buf), &value)) {
        ctx.reply.Error("ERR hash value is not an integer");
        return;
      }
    } else {
      value = current.ival;
    }
  }
  if ((incr < 0 && value < 0 && incr < INT64_MIN - value) ||
      (incr > 0 && value > 0 && incr > INT64_MAX - value)) {
    ctx.reply.Error(errors::kOverflow);
    return;
  }
  value += incr;
  char buf[24];
  size_t len = FormatInt64To(buf, value);
  if (e == nullptr) e = hash_cmd::AddHash(ctx, key);
  hash::Set(e, ctx.arg(2), std::string_view(buf, len), hash_cmd::LimitsOf(ctx), hash::kKeepTtl);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hincrby", ctx.db, key);
  ctx.reply.Integer(value);
}

// HINCRBYFLOAT key field increment
void CmdHIncrByFloat(CommandContext& ctx) {
  long double incr;
  if (!ParseLongDouble(ctx.arg(3), &incr)) {
    ctx.reply.Error(errors::kNotFloat);
    return;
  }
  if (std::isnan(incr) || std::isinf(incr)) {
    ctx.reply.Error("ERR value is NaN or Infinity");
    return;
  }
  std::string_view key = ctx.arg(1);
  Entry* e;
  if (!FindHash(ctx, key, true, &e)) return;
  long double value = 0;
  Item current;
  if (e != nullptr && hash::Get(e, ctx.arg(2), &current)) {
    if (current.IsInt()) {
      value = static_cast<long double>(current.ival);
    } else if (char buf[24]; !ParseLongDouble(ItemText(current, buf), &value)) {
      ctx.reply.Error("ERR hash value is not a float");
      return;
    }
  }
  value += incr;
  if (std::isnan(value) || std::isinf(value)) {
    ctx.reply.Error(errors::kNanOrInf);
    return;
  }
  std::string text = FormatLongDoubleHuman(value);
  if (e == nullptr) e = hash_cmd::AddHash(ctx, key);
  hash::Set(e, ctx.arg(2), text, hash_cmd::LimitsOf(ctx), hash::kKeepTtl);
  // The result, not the increment (Valkey 7).
  if (ctx.Propagating()) ctx.PropagateAs({"HSET", std::string(key), std::string(ctx.arg(2)), text});
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyHash, "hincrbyfloat", ctx.db, key);
  ctx.reply.Bulk(text);
}

// Replies HRANDFIELD's pairs: RESP3 nests [field, value] pairs, RESP2 flattens them.
void ReplyPairs(CommandContext& ctx, const std::vector<Item>& fields,
                const std::vector<Item>& values, bool with_values) {
  bool nested = with_values && ctx.reply.Resp3();
  ctx.reply.Array(with_values && !nested ? 2 * fields.size() : fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    if (nested) ctx.reply.Array(2);
    ReplyItem(ctx.reply, fields[i]);
    if (with_values) ReplyItem(ctx.reply, values[i]);
  }
}

// HRANDFIELD key [count [WITHVALUES]]
void CmdHRandField(CommandContext& ctx) {
  int64_t count = 0;
  bool with_count = ctx.argc() >= 3;
  bool with_values = false;
  if (with_count) {
    if (!ParseInt64(ctx.arg(2), &count)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
    if (count == INT64_MIN) {
      ctx.reply.Error(
          "ERR value is out of range, value must between -9223372036854775807 and "
          "9223372036854775807");
      return;
    }
    if (ctx.argc() > 4 || (ctx.argc() == 4 && !EqualsIgnoreCase(ctx.arg(3), "withvalues"))) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    with_values = ctx.argc() == 4;
    if (with_values && (count < -INT64_MAX / 2 || count > INT64_MAX / 2)) {
      ctx.reply.Error("ERR value is out of range");
      return;
    }
  }
  Entry* e;
  if (!FindHash(ctx, ctx.arg(1), false, &e)) return;
  if (!with_count) {
    if (e == nullptr) {
      ctx.reply.Null();
      return;
    }
    Item field, value;
    hash::RandomPair(e, &field, &value);
    ReplyItem(ctx.reply, field);
    return;
  }
  if (e == nullptr || count == 0) {
    ctx.reply.EmptyArray();
    return;
  }
  if (count < 0) {
    // Streamed: a huge count must not allocate more than the reply itself.
    auto n = static_cast<size_t>(-count);
    bool nested = with_values && ctx.reply.Resp3();
    ctx.reply.Array(with_values && !nested ? 2 * n : n);
    hash::ForRandomPairs(e, n, [&](const Item& field, const Item& value) {
      if (nested) ctx.reply.Array(2);
      ReplyItem(ctx.reply, field);
      if (with_values) ReplyItem(ctx.reply, value);
    });
    return;
  }
  std::vector<Item> fields, values;
  hash::RandomDistinctPairs(e, static_cast<size_t>(count), &fields, &values);
  ReplyPairs(ctx, fields, values, with_values);
}

// HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]
void CmdHScan(CommandContext& ctx) {
  uint64_t cursor;
  if (!ParseScanCursor(ctx.arg(2), &cursor)) {
    ctx.reply.Error(errors::kInvalidCursor);
    return;
  }
  Entry* e;
  if (!FindHash(ctx, ctx.arg(1), false, &e)) return;
  if (e == nullptr) {
    ctx.reply.Array(2);
    ctx.reply.Bulk("0");
    ctx.reply.EmptyArray();
    return;
  }
  ScanOptions opt;
  if (!ParseScanOptions(ctx, 3, "novalues", false, &opt)) return;
  int64_t count = opt.count;
  std::string_view pattern = opt.pattern;
  bool has_pattern = !opt.MatchesAll(), no_values = opt.flag;
  std::vector<Item> out;
  cursor =
      hash::Scan(e, cursor, static_cast<size_t>(count), [&](const Item& field, const Item& value) {
        if (has_pattern) {
          char buf[24];
          if (!GlobMatch(pattern, ItemText(field, buf))) return;
        }
        out.push_back(field);
        if (!no_values) out.push_back(value);
      });
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::to_string(cursor));
  ctx.reply.Array(out.size());
  for (const Item& item : out) ReplyItem(ctx.reply, item);
}

// DEBUG DIGEST-VALUE of a hash: order-insensitive over (field, value, TTL) triples.
void DigestHash(const Entry* e, unsigned char out[kDigestSize]) {
  std::memset(out, 0, kDigestSize);
  std::string buf;
  char fbuf[24], vbuf[24];
  auto add = [&](std::string_view field, std::string_view value, int64_t expire) {
    buf.assign(std::to_string(field.size()));
    buf.push_back(':');
    buf.append(field);
    buf.append(value);
    if (expire != 0) buf.append("!expire!" + std::to_string(expire));
    XorDigest(out, buf);
  };
  if (e->encoding() == Encoding::kListPack) {
    hash::Iterator it(e);
    while (it.Next()) add(ItemText(it.field(), fbuf), ItemText(it.value(), vbuf), 0);
  } else {
    hash::Table(e)->ForEach([&](const HashFieldNode* n) {
      add(HashFieldTable::Field(n), HashFieldTable::Value(n), HashFieldTable::Expire(n));
    });
  }
}

}  // namespace

void RegisterHashCommands(CommandTable& t) {
  RegisterCollectionOps(ObjType::kHash,
                        {hash::FreeObject, hash::FreeEffort, hash::MemoryUsage, hash::CopyObject});
  RegisterValueDigest(ObjType::kHash, DigestHash);

  const uint64_t rd = kAclRead | kAclHash;
  const uint64_t wr = kAclWrite | kAclHash;
  const uint32_t write_oom = kCmdWrite | kCmdDenyOom;
  auto add = [&t](const char* name, int arity, uint32_t flags, uint64_t acl, CommandHandler handler,
                  const char* summary, const char* since, const char* complexity) {
    t.Add({.name = name,
           .arity = arity,
           .flags = flags,
           .acl = acl,
           .first_key = 1,
           .last_key = 1,
           .key_step = 1,
           .handler = handler,
           .group = "hash",
           .summary = summary,
           .since = since,
           .complexity = complexity});
  };
  add("hset", -4, write_oom | kCmdFast, wr | kAclFast, CmdHSet,
      "Creates or modifies the value of a field in a hash.", "2.0.0",
      "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the "
      "command is called with multiple field/value pairs.");
  add("hsetnx", 4, write_oom | kCmdFast, wr | kAclFast, CmdHSetNx,
      "Sets the value of a field in a hash only when the field doesn't exist.", "2.0.0", "O(1)");
  add("hmset", -4, write_oom | kCmdFast, wr | kAclFast, CmdHMSet,
      "Sets the values of multiple fields.", "2.0.0",
      "O(N) where N is the number of fields being set.");
  add("hget", 3, kCmdReadonly | kCmdFast, rd | kAclFast, CmdHGet,
      "Returns the value of a field in a hash.", "2.0.0", "O(1)");
  add("hmget", -3, kCmdReadonly | kCmdFast, rd | kAclFast, CmdHMGet,
      "Returns the values of all fields in a hash.", "2.0.0",
      "O(N) where N is the number of fields being requested.");
  add("hdel", -3, kCmdWrite | kCmdFast, wr | kAclFast, CmdHDel,
      "Deletes one or more fields and their values from a hash. Deletes the hash if no fields "
      "remain.",
      "2.0.0", "O(N) where N is the number of fields to be removed.");
  add("hgetdel", -5, kCmdWrite | kCmdFast, wr | kAclFast, CmdHGetDel,
      "Returns the values of one or more fields and deletes them from a hash.", "9.1.0",
      "O(N) where N is the number of fields to be retrieved and deleted.");
  add("hlen", 2, kCmdReadonly | kCmdFast, rd | kAclFast, CmdHLen,
      "Returns the number of fields in a hash.", "2.0.0", "O(1)");
  add("hstrlen", 3, kCmdReadonly | kCmdFast, rd | kAclFast, CmdHStrLen,
      "Returns the length of the value of a field.", "3.2.0", "O(1)");
  add("hexists", 3, kCmdReadonly | kCmdFast, rd | kAclFast, CmdHExists,
      "Determines whether a field exists in a hash.", "2.0.0", "O(1)");
  add("hkeys", 2, kCmdReadonly, rd | kAclSlow, CmdHKeys, "Returns all fields in a hash.", "2.0.0",
      "O(N) where N is the size of the hash.");
  add("hvals", 2, kCmdReadonly, rd | kAclSlow, CmdHVals, "Returns all values in a hash.", "2.0.0",
      "O(N) where N is the size of the hash.");
  add("hgetall", 2, kCmdReadonly, rd | kAclSlow, CmdHGetAll,
      "Returns all fields and values in a hash.", "2.0.0", "O(N) where N is the size of the hash.");
  add("hincrby", 4, write_oom | kCmdFast, wr | kAclFast, CmdHIncrBy,
      "Increments the integer value of a field in a hash by a number. Uses 0 as initial value "
      "if the field doesn't exist.",
      "2.0.0", "O(1)");
  add("hincrbyfloat", 4, write_oom | kCmdFast, wr | kAclFast, CmdHIncrByFloat,
      "Increments the floating point value of a field by a number. Uses 0 as initial value if "
      "the field doesn't exist.",
      "2.6.0", "O(1)");
  add("hrandfield", -2, kCmdReadonly, rd | kAclSlow, CmdHRandField,
      "Returns one or more random fields from a hash.", "6.2.0",
      "O(N) where N is the number of fields returned");
  add("hscan", -3, kCmdReadonly, rd | kAclSlow, CmdHScan,
      "Iterates over fields and values of a hash.", "2.8.0",
      "O(1) for every call. O(N) for a complete iteration, including enough command calls for "
      "the cursor to return back to 0. N is the number of elements inside the collection.");
  hash_cmd::RegisterHashExpireCommands(t);
}

}  // namespace vireo
