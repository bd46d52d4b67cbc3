// String family: GET SET SETNX SETEX PSETEX GETSET GETDEL GETEX MGET MSET MSETNX APPEND STRLEN
// GETRANGE SUBSTR SETRANGE INCR DECR INCRBY DECRBY INCRBYFLOAT LCS, and Valkey's DELIFEQ
// (MSETEX is in msetex_command.cc).
#include <climits>
#include <cmath>
#include <cstdio>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/string_family.h"
#include "commands/string_ops.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/access_clock.h"
#include "store/blob_pins.h"
#include "store/lazy_free.h"
#include "store/memory.h"
#include "store/value.h"

namespace vireo {
namespace {

// ---------------------------------------------------------------------------------------------
// Helpers over the keyspace, independent of how a string is encoded.

void ReplyInvalidExpire(CommandContext& ctx, const char* command) {
  char msg[96];
  std::snprintf(msg, sizeof(msg), errors::kInvalidExpire, command);
  ctx.reply.Error(msg);
}

// Turns an expire argument into an absolute unix time in ms, with Valkey's checks: positive,
// and no overflow when scaled to ms or added to now. Replies the error and returns false when
// the argument is refused.
bool ParseExpireTime(CommandContext& ctx, std::string_view arg, bool seconds, bool absolute,
                     const char* command, int64_t* when_ms) {
  int64_t v;
  if (!ParseInt64(arg, &v)) {
    ctx.reply.Error(errors::kNotInteger);
    return false;
  }
  if (v <= 0 || (seconds && v > INT64_MAX / 1000)) {
    ReplyInvalidExpire(ctx, command);
    return false;
  }
  if (seconds) v *= 1000;
  if (!absolute) {
    int64_t now = CommandTimeMs();
    if (v > INT64_MAX - now) {
      ReplyInvalidExpire(ctx, command);
      return false;
    }
    v += now;
  }
  *when_ms = v;
  return true;
}

bool IsString(const Entry* e) { return e->type() == ObjType::kString; }

// Key's live entry for a write: no hit/miss stats, but the access clock moves as on a read.
Entry* FindForWrite(Db* db, std::string_view key) {
  Entry* e = db->Find(key);
  if (e != nullptr) TouchAccess(e);
  return e;
}

// Replies WRONGTYPE and returns false when e holds something other than a string.
bool CheckString(CommandContext& ctx, const Entry* e) {
  if (IsString(e)) return true;
  ctx.reply.Error(errors::kWrongType);
  return false;
}

// Replies e's string value (int-encoded values are formatted on the stack). A large value
// going straight to the client's output is sent from the value itself: the reply pins it
// (store/blob_pins.h) until it is written. How large depends on whether values live on huge
// pages (ReplyByReferenceMin); the check is here, off the path of shorter values.
[[gnu::noinline]] bool ReplyStringByReference(CommandContext& ctx, const Entry* e) {
  static const size_t by_reference_min = ReplyByReferenceMin(UseValueArena());
  if (e->str->len < by_reference_min || !ctx.reply.CanReference()) return false;
  PinBlob(e->str);
  ctx.reply.BulkRef({e->str->data, e->str->len, &UnpinBlob, e->str});
  return true;
}

[[gnu::always_inline]] inline void ReplyString(CommandContext& ctx, const Entry* e) {
  if (e->encoding() == Encoding::kRaw && e->str->len >= kReplyByReferenceMin) [[unlikely]] {
    if (ReplyStringByReference(ctx, e)) return;
  }
  char buf[24];
  ctx.reply.Bulk(StringValue(e, buf));
}

// The largest string APPEND/SETRANGE may build: proto-max-bulk-len, and never more than a
// string blob's 32-bit length can hold (with room for its growth slack).
int64_t MaxStringSize(CommandContext& ctx) {
  constexpr int64_t kBlobLimit = (int64_t{1} << 32) - (int64_t{4} << 20);
  int64_t limit = ctx.server.config().proto_max_bulk_len;
  return limit < kBlobLimit ? limit : kBlobLimit;
}

// Replies the size error and returns false when a string of size + extra bytes is too long.
bool CheckStringSize(CommandContext& ctx, int64_t size, int64_t extra) {
  if (size > MaxStringSize(ctx) - extra) {
    ctx.reply.Error(errors::kStringTooLong);
    return false;
  }
  return true;
}

// Stores value under key the way SET does: any previous value, of any type, is replaced and
// its TTL dropped unless keep_ttl. e is key's live entry or nullptr. will_expire: the caller
// sets a TTL next, so a new entry gets room for it at once. Returns the entry.
// Sets e's value to the command's argument `value`: a big argument read into its own buffer
// (net/connection.h) becomes the value as it is, anything else is copied.
[[gnu::noinline]] bool AdoptBigArgument(CommandContext& ctx, Entry* e, std::string_view value) {
  size_t size = 0;
  void* p = ctx.client.conn.TakeBigArg(value, &size);
  if (p == nullptr) return false;
  static_assert(Connection::kBigArgHeadroom == sizeof(StrBlob), "room for the header");
  AdoptRawString(e, p, value.size(), size);
  return true;
}

inline void SetStringArgument(CommandContext& ctx, Entry* e, std::string_view value) {
  if (value.size() >= Connection::kBigArgMin) [[unlikely]] {
    if (AdoptBigArgument(ctx, e, value)) return;
  }
  SetStringValue(e, value);
}

// StoreString over a collection big enough to free in the background (rare): the key gets a
// fresh entry holding value. nullptr when e is not such a collection.
[[gnu::noinline]] Entry* ReplaceBigCollection(CommandContext& ctx, Entry* e, std::string_view key,
                                              std::string_view value, bool keep_ttl,
                                              bool will_expire) {
  if (FreeEffort(e) <= kLazyFreeThreshold || !ctx.server.config().lazyfree_lazy_server_del) {
    return nullptr;
  }
  Db* db = ctx.db;
  int64_t expire_ms = e->expire_ms();
  Entry* old = db->Detach(key);
  LazyFreeEntry(old);
  e = db->Add(key, will_expire || (keep_ttl && expire_ms != 0));
  SetStringArgument(ctx, e, value);
  if (keep_ttl && expire_ms != 0) e = db->SetExpire(e, expire_ms);
  return e;
}

// Inline, with the rare case apart: the new key and the overwrite of a string are on every
// SET's path.
inline Entry* StoreString(CommandContext& ctx, Entry* e, std::string_view key,
                          std::string_view value, bool keep_ttl, bool will_expire = false) {
  if (e == nullptr) {
    e = ctx.db->Add(key, will_expire);
    SetStringArgument(ctx, e, value);
    return e;
  }
  if (!IsString(e)) [[unlikely]] {
    if (Entry* fresh = ReplaceBigCollection(ctx, e, key, value, keep_ttl, will_expire)) {
      return fresh;
    }
  }
  // The common overwrite: the entry stays where it is and only its value changes.
  SetStringArgument(ctx, e, value);
  if (!keep_ttl && e->expire_ms() != 0) e = ctx.db->SetExpire(e, 0);
  return e;
}

// Sets e's value to s as a string made in one piece that is never int-encoded (INCRBYFLOAT's
// results): embstr when short, raw otherwise.
void SetPlainStringValue(Entry* e, std::string_view s) { SetNonIntStringValue(e, s); }

// Applies an absolute expiry to key's entry e after a write. A time already past deletes the
// key at once, so it reads as missing (and DBSIZE agrees) without waiting for lazy expiry.
void ApplyExpire(CommandContext& ctx, Entry* e, std::string_view key, int64_t when_ms) {
  if (when_ms <= CommandTimeMs()) {
    ctx.db->Delete(key, ctx.server.config().lazyfree_lazy_expire);
  } else {
    (void)ctx.db->SetExpire(e, when_ms);
  }
}

// What SET/SETEX/PSETEX propagate when they set a TTL: the absolute time (Valkey 7).
void PropagateSetPxat(CommandContext& ctx, std::string_view key, std::string_view value,
                      int64_t when_ms) {
  ctx.PropagateAs({"SET", std::string(key), std::string(value), "PXAT", std::to_string(when_ms)});
}

// The integer value of a string entry; false when it does not hold a canonical int64.
bool EntryInt64(const Entry* e, int64_t* out) {
  if (e->encoding() == Encoding::kInt) {
    *out = e->ival;
    return true;
  }
  char buf[24];
  return ParseInt64(StringValue(e, buf), out);
}

// INCR/DECR/INCRBY/DECRBY: adds delta to key's integer, creating it at 0.
void IncrementBy(CommandContext& ctx, int64_t delta) {
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  int64_t value = 0;
  if (e != nullptr) {
    if (!CheckString(ctx, e)) return;
    if (!EntryInt64(e, &value)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
  }
  if ((delta < 0 && value < 0 && delta < INT64_MIN - value) ||
      (delta > 0 && value > 0 && delta > INT64_MAX - value)) {
    ctx.reply.Error(errors::kOverflow);
    return;
  }
  value += delta;
  if (e == nullptr) e = ctx.db->Add(key);
  SetIntValue(e, value);  // keeps the TTL, like Valkey
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyString, "incrby", ctx.db, key);
  ctx.reply.Integer(value);
}

// Parses an INCRBY/DECRBY amount, replying the error when it is not an integer.
bool ParseAmount(CommandContext& ctx, std::string_view arg, int64_t* out) {
  if (ParseInt64(arg, out)) return true;
  ctx.reply.Error(errors::kNotInteger);
  return false;
}

// MSET and MSETNX take key/value pairs: an odd count is an arity error.
bool CheckPairs(CommandContext& ctx, const char* command) {
  if (ctx.argc() % 2 == 1) return true;
  char msg[80];
  std::snprintf(msg, sizeof(msg), "ERR wrong number of arguments for '%s' command", command);
  ctx.reply.Error(msg);
  return false;
}

// ---------------------------------------------------------------------------------------------
// Handlers

// GET key
void CmdGet(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (!CheckString(ctx, e)) return;
  ReplyString(ctx, e);
}

// SET's arguments for replicas and the AOF when they differ from the client's: GET changes
// nothing and IFEQ has been decided here (and a Redis 7.0 replica would refuse it).
std::vector<std::string> SetArgsToPropagate(const std::vector<std::string_view>& args) {
  std::vector<std::string> out(args.begin(), args.begin() + 3);
  for (size_t i = 3; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "IFEQ")) {
      ++i;
    } else if (!EqualsIgnoreCase(args[i], "GET")) {
      out.emplace_back(args[i]);
    }
  }
  return out;
}

// SET key value [NX | XX | IFEQ comparison] [GET]
//     [EX s | PX ms | EXAT unix-s | PXAT unix-ms | KEEPTTL]
void CmdSet(CommandContext& ctx) {
  string_cmd::StringOptions opt;
  if (!string_cmd::ParseStringOptions(ctx.args, 3, string_cmd::StringOptionsOf::kSet, &opt)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t when_ms = 0;
  if ((opt.flags & string_cmd::kOptAnyExpire) &&
      !string_cmd::ParseOptionExpire(ctx, opt, "set", &when_ms))
    return;

  std::string_view key = ctx.arg(1);
  const bool get = (opt.flags & string_cmd::kOptGet) != 0;
  // SET ... GET reads like GET (hit/miss stats); a plain SET only needs the entry.
  Entry* e = get ? ctx.db->Lookup(key) : FindForWrite(ctx.db, key);
  if (get) {
    if (e == nullptr) {
      ctx.reply.Null();
    } else {
      if (!CheckString(ctx, e)) return;
      ReplyString(ctx, e);  // copied into the reply before the value is overwritten
    }
  }
  if (((opt.flags & string_cmd::kOptNx) && e != nullptr) ||
      ((opt.flags & string_cmd::kOptXx) && e == nullptr)) {
    if (!get) ctx.reply.Null();
    return;
  }
  if (opt.flags & string_cmd::kOptIfEq) {
    // Only over a string equal to the comparison value; another type is WRONGTYPE (with GET,
    // GET has refused it already).
    if (e != nullptr && !CheckString(ctx, e)) return;
    char buf[24];
    if (e == nullptr || StringValue(e, buf) != opt.ifeq) {
      if (!get) ctx.reply.Null();
      return;
    }
  }
  e = StoreString(ctx, e, key, ctx.arg(2), (opt.flags & string_cmd::kOptKeepTtl) != 0,
                  when_ms != 0);
  if (when_ms != 0) ApplyExpire(ctx, e, key, when_ms);
  if ((when_ms != 0 || (opt.flags & (string_cmd::kOptGet | string_cmd::kOptIfEq))) &&
      ctx.Propagating()) {
    if (when_ms != 0) {
      PropagateSetPxat(ctx, key, ctx.arg(2), when_ms);
    } else {
      ctx.PropagateAs(SetArgsToPropagate(ctx.args));
    }
  }
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyString, "set", ctx.db, key);
  if (when_ms != 0) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "expire", ctx.db, key);
  if (!get) ctx.reply.Ok();
}

// SETNX key value
void CmdSetNx(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  if (FindForWrite(ctx.db, key) != nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  StoreString(ctx, nullptr, key, ctx.arg(2), false);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyString, "set", ctx.db, key);
  ctx.reply.Integer(1);
}

// SETEX / PSETEX: key, a relative time in seconds or ms, value.
void SetWithExpire(CommandContext& ctx, bool seconds, const char* command) {
  int64_t when_ms;
  if (!ParseExpireTime(ctx, ctx.arg(2), seconds, /*absolute=*/false, command, &when_ms)) return;
  std::string_view key = ctx.arg(1);
  Entry* e = StoreString(ctx, FindForWrite(ctx.db, key), key, ctx.arg(3), false, true);
  (void)ctx.db->SetExpire(e, when_ms);
  if (ctx.Propagating()) PropagateSetPxat(ctx, key, ctx.arg(3), when_ms);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyString, "set", ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "expire", ctx.db, key);
  ctx.reply.Ok();
}

// SETEX key seconds value
void CmdSetEx(CommandContext& ctx) { SetWithExpire(ctx, true, "setex"); }

// PSETEX key milliseconds value
void CmdPSetEx(CommandContext& ctx) { SetWithExpire(ctx, false, "psetex"); }

// GETSET key value
void CmdGetSet(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db->Lookup(key);
  if (e == nullptr) {
    ctx.reply.Null();
  } else {
    if (!CheckString(ctx, e)) return;
    ReplyString(ctx, e);
  }
  StoreString(ctx, e, key, ctx.arg(2), false);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyString, "set", ctx.db, key);
}

// GETDEL key
void CmdGetDel(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  const Entry* e = ctx.db->Lookup(key);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (!CheckString(ctx, e)) return;
  ReplyString(ctx, e);
  ctx.db->Delete(key);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
}

// DELIFEQ key value (Valkey 9.0): deletes the key when it holds exactly this string, the
// release of a lock that is still one's own. Replicas get a DEL.
void CmdDelIfEq(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  const Entry* e = FindForWrite(ctx.db, key);
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (!CheckString(ctx, e)) return;
  char buf[24];
  if (StringValue(e, buf) != ctx.arg(2)) {
    ctx.reply.Integer(0);
    return;
  }
  ctx.db->Delete(key, ctx.server.config().lazyfree_lazy_user_del);
  if (ctx.Propagating()) ctx.PropagateAs({"DEL", std::string(key)});
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
  ctx.reply.Integer(1);
}

// GETEX key [EX s | PX ms | EXAT unix-s | PXAT unix-ms | PERSIST]
void CmdGetEx(CommandContext& ctx) {
  string_cmd::StringOptions opt;
  if (!string_cmd::ParseStringOptions(ctx.args, 2, string_cmd::StringOptionsOf::kGetEx, &opt)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db->Lookup(key);
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (!CheckString(ctx, e)) return;
  // Valkey checks the type before the expire argument: WRONGTYPE wins over a bad time.
  int64_t when_ms = 0;
  if ((opt.flags & string_cmd::kOptAnyExpire) &&
      !string_cmd::ParseOptionExpire(ctx, opt, "getex", &when_ms))
    return;
  ReplyString(ctx, e);
  if (when_ms != 0) {
    bool past = when_ms <= CommandTimeMs();
    ApplyExpire(ctx, e, key, when_ms);
    if (ctx.Propagating()) {
      const char* del = ctx.server.config().lazyfree_lazy_expire ? "UNLINK" : "DEL";
      ctx.PropagateAs(past ? std::vector<std::string>{del, std::string(key)}
                           : std::vector<std::string>{"PEXPIREAT", std::string(key),
                                                      std::to_string(when_ms)});
    }
    ctx.KeyModified(ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, past ? "del" : "expire", ctx.db, key);
  } else if ((opt.flags & string_cmd::kOptPersist) && e->expire_ms() != 0) {
    (void)ctx.db->SetExpire(e, 0);
    if (ctx.Propagating()) ctx.PropagateAs({"PERSIST", std::string(key)});
    ctx.KeyModified(ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "persist", ctx.db, key);
  }
}

// MGET key [key ...]
void CmdMGet(CommandContext& ctx) {
  ctx.reply.Array(ctx.argc() - 1);
  for (size_t i = 1; i < ctx.argc(); ++i) {
    const Entry* e = ctx.db->Lookup(ctx.arg(i));
    if (e == nullptr || !IsString(e)) {
      ctx.reply.Null();
    } else {
      ReplyString(ctx, e);
    }
  }
}

// MSET key value [key value ...]
void CmdMSet(CommandContext& ctx) {
  if (!CheckPairs(ctx, "mset")) return;
  for (size_t i = 1; i < ctx.argc(); i += 2) {
    std::string_view key = ctx.arg(i);
    StoreString(ctx, FindForWrite(ctx.db, key), key, ctx.arg(i + 1), false);
    ctx.KeyModified(ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifyString, "set", ctx.db, key);
  }
  ctx.reply.Ok();
}

// MSETNX key value [key value ...]
void CmdMSetNx(CommandContext& ctx) {
  if (!CheckPairs(ctx, "msetnx")) return;
  for (size_t i = 1; i < ctx.argc(); i += 2) {
    if (FindForWrite(ctx.db, ctx.arg(i)) != nullptr) {
      ctx.reply.Integer(0);
      return;
    }
  }
  for (size_t i = 1; i < ctx.argc(); i += 2) {
    std::string_view key = ctx.arg(i);
    // A key named twice is found by the second store: the last value wins, as in Valkey.
    StoreString(ctx, FindForWrite(ctx.db, key), key, ctx.arg(i + 1), false);
    ctx.KeyModified(ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifyString, "set", ctx.db, key);
  }
  ctx.reply.Integer(1);
}

// APPEND key value
void CmdAppend(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  std::string_view value = ctx.arg(2);
  Entry* e = FindForWrite(ctx.db, key);
  size_t len;
  if (e == nullptr) {
    // A new key is stored like SET stores it (so "123" becomes int-encoded).
    e = ctx.db->Add(key);
    SetStringValue(e, value);
    len = value.size();
  } else {
    if (!CheckString(ctx, e)) return;
    if (!CheckStringSize(ctx, static_cast<int64_t>(StringLength(e)),
                         static_cast<int64_t>(value.size()))) {
      return;
    }
    len = AppendToString(e, value);
  }
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyString, "append", ctx.db, key);
  ctx.reply.Integer(static_cast<int64_t>(len));
}

// STRLEN key
void CmdStrLen(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (!CheckString(ctx, e)) return;
  ctx.reply.Integer(static_cast<int64_t>(StringLength(e)));
}

// GETRANGE key start end (also SUBSTR)
void CmdGetRange(CommandContext& ctx) {
  int64_t start, end;
  if (!ParseInt64(ctx.arg(2), &start) || !ParseInt64(ctx.arg(3), &end)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e == nullptr) {
    ctx.reply.Bulk("");
    return;
  }
  if (!CheckString(ctx, e)) return;
  char buf[24];
  std::string_view value = StringValue(e, buf);
  const int64_t len = static_cast<int64_t>(value.size());
  // Both negative and reversed: empty, before clamping could turn them into a valid range.
  if (start < 0 && end < 0 && start > end) {
    ctx.reply.Bulk("");
    return;
  }
  if (start < 0) start += len;  // cannot overflow: len >= 0 and start < 0
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (len == 0 || start > end) {
    ctx.reply.Bulk("");
    return;
  }
  ctx.reply.Bulk(value.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
}

// SETRANGE key offset value
void CmdSetRange(CommandContext& ctx) {
  int64_t offset;
  if (!ParseInt64(ctx.arg(2), &offset)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (offset < 0) {
    ctx.reply.Error(errors::kOffsetOutOfRange);
    return;
  }
  std::string_view key = ctx.arg(1);
  std::string_view value = ctx.arg(3);
  Entry* e = FindForWrite(ctx.db, key);
  if (e != nullptr && !CheckString(ctx, e)) return;
  if (value.empty()) {
    // Nothing to write: no key is created and an existing one is left untouched.
    ctx.reply.Integer(e == nullptr ? 0 : static_cast<int64_t>(StringLength(e)));
    return;
  }
  if (!CheckStringSize(ctx, offset, static_cast<int64_t>(value.size()))) return;
  size_t len;
  if (e == nullptr && offset == 0) {
    e = ctx.db->Add(key);
    SetRawStringValue(e, value);  // exact size: nothing to pad
    len = value.size();
  } else {
    if (e == nullptr) {
      e = ctx.db->Add(key);
      SetRawStringValue(e, "");
    }
    len = SetRangeInString(e, static_cast<size_t>(offset), value);
  }
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyString, "setrange", ctx.db, key);
  ctx.reply.Integer(static_cast<int64_t>(len));
}

// INCR key
void CmdIncr(CommandContext& ctx) { IncrementBy(ctx, 1); }

// DECR key
void CmdDecr(CommandContext& ctx) { IncrementBy(ctx, -1); }

// INCRBY key increment
void CmdIncrBy(CommandContext& ctx) {
  int64_t delta;
  if (ParseAmount(ctx, ctx.arg(2), &delta)) IncrementBy(ctx, delta);
}

// DECRBY key decrement
void CmdDecrBy(CommandContext& ctx) {
  int64_t delta;
  if (!ParseAmount(ctx, ctx.arg(2), &delta)) return;
  if (delta == INT64_MIN) {  // its negation does not fit
    ctx.reply.Error(errors::kDecrementOverflow);
    return;
  }
  IncrementBy(ctx, -delta);
}

// INCRBYFLOAT key increment
void CmdIncrByFloat(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  long double value = 0;
  if (e != nullptr) {
    if (!CheckString(ctx, e)) return;
    if (e->encoding() == Encoding::kInt) {
      value = static_cast<long double>(e->ival);
    } else if (char buf[24]; !ParseLongDouble(StringValue(e, buf), &value)) {
      ctx.reply.Error(errors::kNotFloat);
      return;
    }
  }
  long double incr;
  if (!ParseLongDouble(ctx.arg(2), &incr)) {
    ctx.reply.Error(errors::kNotFloat);
    return;
  }
  value += incr;
  if (std::isnan(value) || std::isinf(value)) {
    ctx.reply.Error(errors::kNanOrInf);
    return;
  }
  std::string text = FormatLongDoubleHuman(value);
  if (e == nullptr) e = ctx.db->Add(key);
  SetPlainStringValue(e, text);  // keeps the TTL
  // The result, not the increment: float arithmetic may differ elsewhere (Valkey 7).
  if (ctx.Propagating()) ctx.PropagateAs({"SET", std::string(key), text, "KEEPTTL"});
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyString, "incrbyfloat", ctx.db, key);
  ctx.reply.Bulk(text);
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]
void CmdLcs(CommandContext& ctx) {
  const Entry* ea = ctx.db->Lookup(ctx.arg(1));
  const Entry* eb = ctx.db->Lookup(ctx.arg(2));
  if ((ea != nullptr && !IsString(ea)) || (eb != nullptr && !IsString(eb))) {
    ctx.reply.Error(errors::kLcsNotStrings);
    return;
  }
  bool want_len = false, want_idx = false, with_match_len = false;
  int64_t min_match_len = 0;
  for (size_t i = 3; i < ctx.argc(); ++i) {
    std::string_view opt = ctx.arg(i);
    if (EqualsIgnoreCase(opt, "IDX")) {
      want_idx = true;
    } else if (EqualsIgnoreCase(opt, "LEN")) {
      want_len = true;
    } else if (EqualsIgnoreCase(opt, "WITHMATCHLEN")) {
      with_match_len = true;
    } else if (EqualsIgnoreCase(opt, "MINMATCHLEN") && i + 1 < ctx.argc()) {
      if (!ParseInt64(ctx.arg(++i), &min_match_len)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (min_match_len < 0) min_match_len = 0;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (want_idx && want_len) {
    ctx.reply.Error(errors::kLcsIdxAndLen);
    return;
  }
  char buf_a[24], buf_b[24];
  std::string_view a = ea == nullptr ? std::string_view() : StringValue(ea, buf_a);
  std::string_view b = eb == nullptr ? std::string_view() : StringValue(eb, buf_b);
  LcsResult lcs;
  LcsStatus status = ComputeLcs(a, b, /*want_text=*/!want_idx && !want_len, want_idx,
                                min_match_len, ctx.server.config().proto_max_bulk_len, &lcs);
  if (status == LcsStatus::kTooLarge) {
    ctx.reply.Error(errors::kLcsTooLarge);
    return;
  }
  if (status == LcsStatus::kNoMemory) {
    ctx.reply.Error(errors::kLcsNoMemory);
    return;
  }
  if (want_len) {
    ctx.reply.Integer(lcs.length);
    return;
  }
  if (!want_idx) {
    ctx.reply.Bulk(lcs.text);
    return;
  }
  ctx.reply.Map(2);
  ctx.reply.Bulk("matches");
  ctx.reply.Array(lcs.matches.size());
  for (const LcsRange& m : lcs.matches) {
    ctx.reply.Array(with_match_len ? 3 : 2);
    ctx.reply.Array(2);
    ctx.reply.Integer(m.a_start);
    ctx.reply.Integer(m.a_end);
    ctx.reply.Array(2);
    ctx.reply.Integer(m.b_start);
    ctx.reply.Integer(m.b_end);
    if (with_match_len) ctx.reply.Integer(m.Length());
  }
  ctx.reply.Bulk("len");
  ctx.reply.Integer(lcs.length);
}

}  // namespace

namespace string_cmd {

bool ParseStringOptions(const std::vector<std::string_view>& args, size_t start,
                        StringOptionsOf of, StringOptions* out) {
  const bool set_like = of != StringOptionsOf::kGetEx;  // SET and MSETEX
  const bool set = of == StringOptionsOf::kSet;
  uint32_t& f = out->flags;
  for (size_t i = start; i < args.size(); ++i) {
    std::string_view opt = args[i];
    bool has_next = i + 1 < args.size();
    uint32_t expire_kind = 0;
    if (EqualsIgnoreCase(opt, "NX") && set_like && !(f & (kOptXx | kOptIfEq))) {
      f |= kOptNx;
    } else if (EqualsIgnoreCase(opt, "XX") && set_like && !(f & (kOptNx | kOptIfEq))) {
      f |= kOptXx;
    } else if (EqualsIgnoreCase(opt, "IFEQ") && set && has_next &&
               !(f & (kOptNx | kOptXx | kOptIfEq))) {
      f |= kOptIfEq;
      out->ifeq = args[++i];
    } else if (EqualsIgnoreCase(opt, "GET") && set) {
      f |= kOptGet;
    } else if (EqualsIgnoreCase(opt, "KEEPTTL") && set_like &&
               !(f & (kOptAnyExpire | kOptPersist))) {
      f |= kOptKeepTtl;
    } else if (EqualsIgnoreCase(opt, "PERSIST") && !set_like &&
               !(f & (kOptAnyExpire | kOptKeepTtl))) {
      f |= kOptPersist;
    } else if (EqualsIgnoreCase(opt, "EX")) {
      expire_kind = kOptEx;
    } else if (EqualsIgnoreCase(opt, "PX")) {
      expire_kind = kOptPx;
    } else if (EqualsIgnoreCase(opt, "EXAT")) {
      expire_kind = kOptExAt;
    } else if (EqualsIgnoreCase(opt, "PXAT")) {
      expire_kind = kOptPxAt;
    } else {
      return false;
    }
    if (expire_kind != 0) {
      uint32_t excluded = (kOptAnyExpire & ~expire_kind) | kOptKeepTtl | kOptPersist;
      if ((f & excluded) || !has_next) return false;
      f |= expire_kind;
      out->expire_at = ++i;
      out->expire = args[i];
    }
  }
  return true;
}

bool ParseOptionExpire(CommandContext& ctx, const StringOptions& opt, const char* command,
                       int64_t* when_ms) {
  bool seconds = (opt.flags & (kOptEx | kOptExAt)) != 0;
  bool absolute = (opt.flags & (kOptExAt | kOptPxAt)) != 0;
  return ParseExpireTime(ctx, opt.expire, seconds, absolute, command, when_ms);
}

Entry* FindStringForWrite(CommandContext& ctx, std::string_view key) {
  return FindForWrite(ctx.db, key);
}

Entry* SetString(CommandContext& ctx, Entry* e, std::string_view key, std::string_view value,
                 bool keep_ttl, bool will_expire) {
  return StoreString(ctx, e, key, value, keep_ttl, will_expire);
}

}  // namespace string_cmd

void RegisterStringCommands(CommandTable& t) {
  const uint64_t rd = kAclRead | kAclString;
  const uint64_t wr = kAclWrite | kAclString;
  const uint32_t write_oom = kCmdWrite | kCmdDenyOom;
  t.Add({.name = "get", .arity = 2, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGet, .group = "string",
         .summary = "Get the value of a key", .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "set", .arity = -3, .flags = write_oom, .acl = wr | kAclSlow, .first_key = 1,
         .last_key = 1, .key_step = 1, .handler = CmdSet, .group = "string",
         .summary = "Set the string value of a key", .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "setnx", .arity = 3, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSetNx, .group = "string",
         .summary = "Set the value of a key, only if the key does not exist", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "setex", .arity = 4, .flags = write_oom, .acl = wr | kAclSlow, .first_key = 1,
         .last_key = 1, .key_step = 1, .handler = CmdSetEx, .group = "string",
         .summary = "Set the value and expiration of a key", .since = "2.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "psetex", .arity = 4, .flags = write_oom, .acl = wr | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdPSetEx, .group = "string",
         .summary = "Set the value and expiration in milliseconds of a key", .since = "2.6.0",
         .complexity = "O(1)"});
  t.Add({.name = "getset", .arity = 3, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGetSet, .group = "string",
         .summary = "Set the string value of a key and return its old value", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "getdel", .arity = 2, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGetDel, .group = "string",
         .summary = "Get the value of a key and delete the key", .since = "6.2.0",
         .complexity = "O(1)"});
  t.Add({.name = "delifeq", .arity = 3, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdDelIfEq, .group = "string",
         .summary = "Delete key if value matches string.", .since = "9.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "getex", .arity = -2, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGetEx, .group = "string",
         .summary = "Get the value of a key and optionally set its expiration",
         .since = "6.2.0", .complexity = "O(1)"});
  t.Add({.name = "mget", .arity = -2, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
         .first_key = 1, .last_key = -1, .key_step = 1, .handler = CmdMGet, .group = "string",
         .summary = "Get the values of all the given keys", .since = "1.0.0",
         .complexity = "O(N) where N is the number of keys to retrieve."});
  t.Add({.name = "mset", .arity = -3, .flags = write_oom, .acl = wr | kAclSlow, .first_key = 1,
         .last_key = -1, .key_step = 2, .handler = CmdMSet, .group = "string",
         .summary = "Set multiple keys to multiple values", .since = "1.0.1",
         .complexity = "O(N) where N is the number of keys to set."});
  t.Add({.name = "msetnx", .arity = -3, .flags = write_oom, .acl = wr | kAclSlow,
         .first_key = 1, .last_key = -1, .key_step = 2, .handler = CmdMSetNx, .group = "string",
         .summary = "Set multiple keys to multiple values, only if none of the keys exist",
         .since = "1.0.1", .complexity = "O(N) where N is the number of keys to set."});
  t.Add({.name = "append", .arity = 3, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdAppend, .group = "string",
         .summary = "Append a value to a key", .since = "2.0.0",
         .complexity = "O(1). The amortized time complexity is O(1) assuming the appended "
                       "value is small and the already present value is of any size, since "
                       "the dynamic string library used by Redis will double the free space "
                       "available on every reallocation."});
  t.Add({.name = "strlen", .arity = 2, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdStrLen, .group = "string",
         .summary = "Get the length of the value stored in a key", .since = "2.2.0",
         .complexity = "O(1)"});
  const char* range_complexity =
      "O(N) where N is the length of the returned string. The complexity is ultimately "
      "determined by the returned length, but because creating a substring from an existing "
      "string is very cheap, it can be considered O(1) for small strings.";
  t.Add({.name = "getrange", .arity = 4, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGetRange,
         .group = "string", .summary = "Get a substring of the string stored at a key",
         .since = "2.4.0", .complexity = range_complexity});
  t.Add({.name = "substr", .arity = 4, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGetRange,
         .group = "string", .summary = "Get a substring of the string stored at a key",
         .since = "1.0.0", .complexity = range_complexity});
  t.Add({.name = "setrange", .arity = 4, .flags = write_oom, .acl = wr | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSetRange,
         .group = "string",
         .summary = "Overwrite part of a string at key starting at the specified offset",
         .since = "2.2.0",
         .complexity = "O(1), not counting the time taken to copy the new string in place. "
                       "Usually, this string is very small so the amortized complexity is "
                       "O(1). Otherwise, complexity is O(M) with M being the length of the "
                       "value argument."});
  t.Add({.name = "incr", .arity = 2, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdIncr, .group = "string",
         .summary = "Increment the integer value of a key by one", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "decr", .arity = 2, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdDecr, .group = "string",
         .summary = "Decrement the integer value of a key by one", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "incrby", .arity = 3, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdIncrBy, .group = "string",
         .summary = "Increment the integer value of a key by the given amount",
         .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "decrby", .arity = 3, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdDecrBy, .group = "string",
         .summary = "Decrement the integer value of a key by the given number",
         .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "incrbyfloat", .arity = 3, .flags = write_oom | kCmdFast,
         .acl = wr | kAclFast, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdIncrByFloat, .group = "string",
         .summary = "Increment the float value of a key by the given amount", .since = "2.6.0",
         .complexity = "O(1)"});
  t.Add({.name = "lcs", .arity = -3, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 2, .key_step = 1, .handler = CmdLcs, .group = "string",
         .summary = "Find longest common substring", .since = "7.0.0",
         .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively"});
  string_cmd::RegisterMSetExCommand(t);
}

}  // namespace vireo
