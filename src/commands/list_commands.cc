// List family: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE LINDEX LSET LINSERT LREM LTRIM
// LPOS LMOVE RPOPLPUSH LMPOP and the blocking BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP.
// The data work lives in store/list_value; handlers parse, call it and reply.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands/context.h"
#include "commands/digest.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/access_clock.h"
#include "store/list_value.h"
#include "store/memory.h"

namespace vireo {
namespace {

constexpr const char* kPositive = "ERR value is out of range, must be positive";
constexpr const char* kRankZero =
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
    "negative to start from the end of the list";
constexpr const char* kNumKeys = "ERR numkeys should be greater than 0";
constexpr const char* kCountPositive = "ERR count should be greater than 0";

// ---------------------------------------------------------------------------------------------
// Helpers

ListLimits Limits(CommandContext& ctx) {
  const Config& c = ctx.server.config();
  return {c.list_max_listpack_size, c.list_compress_depth};
}

// Key's live entry for a write: no hit/miss stats, but the access clock moves.
Entry* FindForWrite(Db* db, std::string_view key) {
  Entry* e = db->Find(key);
  if (e != nullptr) TouchAccess(e);
  return e;
}

// Replies WRONGTYPE and returns false when e holds something other than a list.
bool CheckList(CommandContext& ctx, const Entry* e) {
  if (e->type() == ObjType::kList) return true;
  ctx.reply.Error(errors::kWrongType);
  return false;
}

void ReplyElement(ReplyBuilder& r, const unsigned char* p) {
  lp::Value v = lp::Get(p);
  if (v.IsInt()) {
    r.BulkInt(v.ival);
  } else {
    r.Bulk({reinterpret_cast<const char*>(v.str), v.len});
  }
}

// Replies n elements as an array, from index `from` towards the tail (or the head).
void ReplyRange(CommandContext& ctx, const Entry* e, size_t from, size_t n, bool reverse) {
  ctx.reply.Array(n);
  if (n == 0) return;
  ListCursor c(e, from, reverse);
  while (n-- > 0) ReplyElement(ctx.reply, c.Next());
}

// Integer argument within [min, max]; Valkey's errors (msg replaces both when given).
bool ParseRange(CommandContext& ctx, std::string_view arg, int64_t min, int64_t max, int64_t* out,
                const char* msg = nullptr) {
  if (!ParseInt64(arg, out)) {
    ctx.reply.Error(msg != nullptr ? msg : errors::kNotInteger);
    return false;
  }
  if (*out < min || *out > max) {
    if (msg != nullptr) {
      ctx.reply.Error(msg);
    } else {
      char buf[128];
      std::snprintf(buf, sizeof(buf),
                    "ERR value is out of range, value must between %" PRId64 " and %" PRId64, min,
                    max);
      ctx.reply.Error(buf);
    }
    return false;
  }
  return true;
}

bool ParseIndex(CommandContext& ctx, std::string_view arg, int64_t* out) {
  if (ParseInt64(arg, out)) return true;
  ctx.reply.Error(errors::kNotInteger);
  return false;
}

// LEFT / RIGHT (any case); replies the syntax error otherwise.
bool ParseEnd(CommandContext& ctx, std::string_view arg, ListEnd* end) {
  if (EqualsIgnoreCase(arg, "left")) {
    *end = ListEnd::kHead;
  } else if (EqualsIgnoreCase(arg, "right")) {
    *end = ListEnd::kTail;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  return true;
}

bool ParseTimeout(CommandContext& ctx, std::string_view arg, int64_t* deadline_ms) {
  std::string err;
  if (ParseBlockTimeout(arg, NowMs(), deadline_ms, &err)) return true;
  ctx.reply.Error("ERR " + err);
  return false;
}

// After elements left a list: an emptied list loses its key, a smaller one may be packed again.
// The caller has sent the command's own event; "del" follows it here, as in Valkey.
void ElementsRemoved(CommandContext& ctx, Entry* e, std::string_view key, size_t n) {
  bool emptied = ListLength(e) == 0;
  if (emptied) {
    ctx.db->Delete(key);
  } else {
    ListShrinking(e, Limits(ctx));
  }
  ctx.KeyModified(ctx.db, key, static_cast<int>(n));
  if (emptied) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
}

const char* PopEvent(ListEnd end) { return end == ListEnd::kHead ? "lpop" : "rpop"; }

// Pops up to count elements from one end of e, replying them as an array (RPOP order is
// tail first), then removes them.
void PopRange(CommandContext& ctx, Entry* e, std::string_view key, ListEnd end, size_t count) {
  size_t len = ListLength(e);
  size_t n = count < len ? count : len;
  bool head = end == ListEnd::kHead;
  ReplyRange(ctx, e, head ? 0 : len - 1, n, !head);
  ListDeleteRange(e, head ? 0 : len - n, n, Limits(ctx));
  NotifyKeyspaceEvent(ctx, kNotifyList, PopEvent(end), ctx.db, key);
  ElementsRemoved(ctx, e, key, n);
}

// Pops from the first non-empty list among keys: [key, element] (count < 0) or
// [key, [elements...]]. Returns false when every key is missing; true once it replied,
// WRONGTYPE included.
bool PopFirstNonEmpty(CommandContext& ctx, const std::vector<std::string_view>& keys, ListEnd end,
                      int64_t count) {
  for (std::string_view key : keys) {
    Entry* e = FindForWrite(ctx.db, key);
    if (e == nullptr) continue;
    if (!CheckList(ctx, e)) return true;
    // Blocking and multi-key pops replay as the plain pop they did (Valkey 7).
    if (ctx.Propagating()) {
      std::vector<std::string> pop{end == ListEnd::kHead ? "LPOP" : "RPOP", std::string(key)};
      if (count >= 0) {
        uint64_t n = std::min<uint64_t>(static_cast<uint64_t>(count), ListLength(e));
        pop.push_back(std::to_string(n));
      }
      ctx.PropagateAs(std::move(pop));
    }
    ctx.reply.Array(2);
    ctx.reply.Bulk(key);
    if (count >= 0) {
      PopRange(ctx, e, key, end, static_cast<size_t>(count));
    } else {
      ReplyElement(ctx.reply, ListPeek(e, end));
      ListPop(e, end);
      NotifyKeyspaceEvent(ctx, kNotifyList, PopEvent(end), ctx.db, key);
      ElementsRemoved(ctx, e, key, 1);
    }
    return true;
  }
  return false;
}

// An element copied out of a list before the list changes (LMOVE may pop and push one list).
class ElementCopy {
 public:
  explicit ElementCopy(const unsigned char* p) {
    lp::Value v = lp::Get(p);
    is_int_ = v.IsInt();
    if (is_int_) {
      view_ = {small_, FormatInt64To(small_, v.ival)};
    } else if (v.len <= sizeof(small_)) {
      std::memcpy(small_, v.str, v.len);
      view_ = {small_, v.len};
    } else {
      big_.assign(reinterpret_cast<const char*>(v.str), v.len);
      view_ = big_;
    }
  }
  std::string_view view() const { return view_; }
  // Bytes Valkey counts for the conversion check: integers are not counted.
  size_t counted_bytes() const { return is_int_ ? 0 : view_.size(); }

 private:
  char small_[128];
  std::string big_;
  std::string_view view_;
  bool is_int_;
};

// Moves one element from the source list (args[1], non-empty) to the destination (args[2]).
void MoveElement(CommandContext& ctx, Entry* src, ListEnd from, ListEnd to) {
  std::string_view src_key = ctx.arg(1), dst_key = ctx.arg(2);
  Entry* dst = FindForWrite(ctx.db, dst_key);
  if (dst != nullptr && !CheckList(ctx, dst)) return;
  ElementCopy value(ListPeek(src, from));
  ListPop(src, from);
  if (dst == nullptr) {
    dst = ctx.db->Add(dst_key);
    ListInit(dst);
  }
  ListLimits limits = Limits(ctx);
  ListGrowing(dst, limits, 1, value.counted_bytes());
  ListPush(dst, value.view(), to, limits);
  ctx.KeyModified(ctx.db, dst_key, 0);
  NotifyKeyspaceEvent(ctx, kNotifyList, to == ListEnd::kHead ? "lpush" : "rpush", ctx.db,
                      dst_key);
  ctx.reply.Bulk(value.view());
  NotifyKeyspaceEvent(ctx, kNotifyList, PopEvent(from), ctx.db, src_key);
  ElementsRemoved(ctx, src, src_key, 1);
}

// ---------------------------------------------------------------------------------------------
// Commands

// LPUSH/RPUSH/LPUSHX/RPUSHX key element [element ...]
void Push(CommandContext& ctx, ListEnd end, bool only_existing) {
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  if (e != nullptr && !CheckList(ctx, e)) return;
  if (e == nullptr) {
    if (only_existing) {
      ctx.reply.Integer(0);
      return;
    }
    e = ctx.db->Add(key);
    ListInit(e);
  }
  ListLimits limits = Limits(ctx);
  size_t n = ctx.argc() - 2, bytes = 0;
  for (size_t i = 2; i < ctx.argc(); ++i) bytes += ctx.args[i].size();
  ListGrowing(e, limits, n, bytes);
  for (size_t i = 2; i < ctx.argc(); ++i) ListPush(e, ctx.args[i], end, limits);
  ctx.KeyModified(ctx.db, key, static_cast<int>(n));
  NotifyKeyspaceEvent(ctx, kNotifyList, end == ListEnd::kHead ? "lpush" : "rpush", ctx.db, key);
  ctx.reply.Integer(static_cast<int64_t>(ListLength(e)));
}

void CmdLPush(CommandContext& ctx) { Push(ctx, ListEnd::kHead, false); }
void CmdRPush(CommandContext& ctx) { Push(ctx, ListEnd::kTail, false); }
void CmdLPushX(CommandContext& ctx) { Push(ctx, ListEnd::kHead, true); }
void CmdRPushX(CommandContext& ctx) { Push(ctx, ListEnd::kTail, true); }

// LPOP/RPOP key [count]
void Pop(CommandContext& ctx, ListEnd end) {
  if (ctx.argc() > 3) {
    ctx.reply.Error("ERR wrong number of arguments for '" +
                    std::string(end == ListEnd::kHead ? "lpop" : "rpop") + "' command");
    return;
  }
  bool has_count = ctx.argc() == 3;
  int64_t count = 0;
  if (has_count && !ParseRange(ctx, ctx.arg(2), 0, INT64_MAX, &count, kPositive)) return;
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  if (e == nullptr) {
    if (has_count) {
      ctx.reply.NullArray();
    } else {
      ctx.reply.Null();
    }
    return;
  }
  if (!CheckList(ctx, e)) return;
  if (has_count) {
    if (count == 0) {
      ctx.reply.EmptyArray();
    } else {
      PopRange(ctx, e, key, end, static_cast<size_t>(count));
    }
    return;
  }
  ReplyElement(ctx.reply, ListPeek(e, end));
  ListPop(e, end);
  NotifyKeyspaceEvent(ctx, kNotifyList, PopEvent(end), ctx.db, key);
  ElementsRemoved(ctx, e, key, 1);
}

void CmdLPop(CommandContext& ctx) { Pop(ctx, ListEnd::kHead); }
void CmdRPop(CommandContext& ctx) { Pop(ctx, ListEnd::kTail); }

// LLEN key
void CmdLLen(CommandContext& ctx) {
  Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (!CheckList(ctx, e)) return;
  ctx.reply.Integer(static_cast<int64_t>(ListLength(e)));
}

// Clamps [start, end] (negative = from the end) to a list of len; false when empty.
bool ClampRange(int64_t len, int64_t* start, int64_t* end) {
  if (*start < 0) *start += len;
  if (*end < 0) *end += len;
  if (*start < 0) *start = 0;
  if (*start > *end || *start >= len) return false;
  if (*end >= len) *end = len - 1;
  return true;
}

// LRANGE key start stop
void CmdLRange(CommandContext& ctx) {
  int64_t start, end;
  if (!ParseIndex(ctx, ctx.arg(2), &start) || !ParseIndex(ctx, ctx.arg(3), &end)) return;
  Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e == nullptr) {
    ctx.reply.EmptyArray();
    return;
  }
  if (!CheckList(ctx, e)) return;
  if (!ClampRange(static_cast<int64_t>(ListLength(e)), &start, &end)) {
    ctx.reply.EmptyArray();
    return;
  }
  ReplyRange(ctx, e, static_cast<size_t>(start), static_cast<size_t>(end - start + 1), false);
}

// LINDEX key index
void CmdLIndex(CommandContext& ctx) {
  Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (!CheckList(ctx, e)) return;
  int64_t index;
  if (!ParseIndex(ctx, ctx.arg(2), &index)) return;
  int64_t len = static_cast<int64_t>(ListLength(e));
  if (index < 0) index += len;
  if (index < 0 || index >= len) {
    ctx.reply.Null();
    return;
  }
  ListCursor c(e, static_cast<size_t>(index), false);
  ReplyElement(ctx.reply, c.Next());
}

// LSET key index element
void CmdLSet(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  if (e == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
    return;
  }
  if (!CheckList(ctx, e)) return;
  int64_t index;
  if (!ParseIndex(ctx, ctx.arg(2), &index)) return;
  ListLimits limits = Limits(ctx);
  ListGrowing(e, limits, 1, ctx.arg(3).size());
  int64_t len = static_cast<int64_t>(ListLength(e));
  if (index < 0) index += len;
  if (index < 0 || index >= len) {
    ctx.reply.Error(errors::kOutOfRange);
    return;
  }
  ListReplace(e, static_cast<size_t>(index), ctx.arg(3), limits);
  ListShrinking(e, limits);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyList, "lset", ctx.db, key);
  ctx.reply.Ok();
}

// LINSERT key BEFORE|AFTER pivot element
void CmdLInsert(CommandContext& ctx) {
  bool after;
  if (EqualsIgnoreCase(ctx.arg(2), "after")) {
    after = true;
  } else if (EqualsIgnoreCase(ctx.arg(2), "before")) {
    after = false;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (!CheckList(ctx, e)) return;
  ListLimits limits = Limits(ctx);
  // As Valkey: the list converts as if the element will fit, before the pivot is searched.
  ListGrowing(e, limits, 1, ctx.arg(4).size());
  int64_t at = ListFind(e, ctx.arg(3));
  if (at < 0) {
    ctx.reply.Integer(-1);
    return;
  }
  ListInsert(e, static_cast<size_t>(at), ctx.arg(4), after, limits);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyList, "linsert", ctx.db, key);
  ctx.reply.Integer(static_cast<int64_t>(ListLength(e)));
}

// LREM key count element
void CmdLRem(CommandContext& ctx) {
  int64_t count;
  if (!ParseRange(ctx, ctx.arg(2), -INT64_MAX, INT64_MAX, &count)) return;
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (!CheckList(ctx, e)) return;
  size_t limit = static_cast<size_t>(count < 0 ? -count : count);
  size_t removed = ListRemove(e, ctx.arg(3), limit, count < 0, Limits(ctx));
  if (removed > 0) {
    NotifyKeyspaceEvent(ctx, kNotifyList, "lrem", ctx.db, key);
    ElementsRemoved(ctx, e, key, removed);
  }
  ctx.reply.Integer(static_cast<int64_t>(removed));
}

// LTRIM key start stop
void CmdLTrim(CommandContext& ctx) {
  int64_t start, end;
  if (!ParseIndex(ctx, ctx.arg(2), &start) || !ParseIndex(ctx, ctx.arg(3), &end)) return;
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  if (e == nullptr) {
    ctx.reply.Ok();
    return;
  }
  if (!CheckList(ctx, e)) return;
  int64_t len = static_cast<int64_t>(ListLength(e));
  int64_t left = len, right = 0;  // elements to trim at each end
  if (ClampRange(len, &start, &end)) {
    left = start;
    right = len - end - 1;
  }
  ListLimits limits = Limits(ctx);
  ListDeleteRange(e, 0, static_cast<size_t>(left), limits);
  if (right > 0)
    ListDeleteRange(e, static_cast<size_t>(len - left - right), static_cast<size_t>(right), limits);
  // Valkey sends "ltrim" even when nothing was trimmed.
  NotifyKeyspaceEvent(ctx, kNotifyList, "ltrim", ctx.db, key);
  if (left + right > 0) ElementsRemoved(ctx, e, key, static_cast<size_t>(left + right));
  ctx.reply.Ok();
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
void CmdLPos(CommandContext& ctx) {
  int64_t rank = 1, count = -1, maxlen = 0;  // count -1: no COUNT option
  for (size_t i = 3; i < ctx.argc(); ++i) {
    std::string_view opt = ctx.arg(i);
    bool more = i + 1 < ctx.argc();
    if (EqualsIgnoreCase(opt, "RANK") && more) {
      if (!ParseRange(ctx, ctx.arg(++i), -INT64_MAX, INT64_MAX, &rank)) return;
      if (rank == 0) {
        ctx.reply.Error(kRankZero);
        return;
      }
    } else if (EqualsIgnoreCase(opt, "COUNT") && more) {
      if (!ParseRange(ctx, ctx.arg(++i), 0, INT64_MAX, &count, "ERR COUNT can't be negative")) {
        return;
      }
    } else if (EqualsIgnoreCase(opt, "MAXLEN") && more) {
      if (!ParseRange(ctx, ctx.arg(++i), 0, INT64_MAX, &maxlen, "ERR MAXLEN can't be negative")) {
        return;
      }
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  bool reverse = rank < 0;
  if (reverse) rank = -rank;
  Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e == nullptr) {
    if (count != -1) {
      ctx.reply.EmptyArray();
    } else {
      ctx.reply.Null();
    }
    return;
  }
  if (!CheckList(ctx, e)) return;
  int64_t len = static_cast<int64_t>(ListLength(e));
  std::string_view element = ctx.arg(2);
  std::vector<int64_t> found;
  int64_t matches = 0;
  ListCursor c(e, reverse ? static_cast<size_t>(len - 1) : 0, reverse);
  int64_t i = 0;
  for (const unsigned char* p = c.Next(); p != nullptr && (maxlen == 0 || i < maxlen);
       p = c.Next(), ++i) {
    if (!lp::Equals(p, element) || ++matches < rank) continue;
    found.push_back(reverse ? len - i - 1 : i);
    if (count == -1 || (count > 0 && static_cast<int64_t>(found.size()) >= count)) break;
  }
  if (count != -1) {
    ctx.reply.Array(found.size());
    for (int64_t idx : found) ctx.reply.Integer(idx);
  } else if (!found.empty()) {
    ctx.reply.Integer(found[0]);
  } else {
    ctx.reply.Null();
  }
}

// LMOVE source destination LEFT|RIGHT LEFT|RIGHT / RPOPLPUSH source destination
void Move(CommandContext& ctx, ListEnd from, ListEnd to) {
  Entry* src = FindForWrite(ctx.db, ctx.arg(1));
  if (src == nullptr) {
    ctx.reply.Null();
    return;
  }
  if (!CheckList(ctx, src)) return;
  MoveElement(ctx, src, from, to);
}

void CmdLMove(CommandContext& ctx) {
  ListEnd from, to;
  if (!ParseEnd(ctx, ctx.arg(3), &from) || !ParseEnd(ctx, ctx.arg(4), &to)) return;
  Move(ctx, from, to);
}

void CmdRPopLPush(CommandContext& ctx) { Move(ctx, ListEnd::kTail, ListEnd::kHead); }

// The parsed tail of LMPOP / BLMPOP: numkeys key [key ...] LEFT|RIGHT [COUNT count].
struct MPopArgs {
  std::vector<std::string_view> keys;
  ListEnd end = ListEnd::kHead;
  int64_t count = 1;
};

bool ParseMPop(CommandContext& ctx, size_t numkeys_at, MPopArgs* out) {
  int64_t numkeys;
  if (!ParseRange(ctx, ctx.arg(numkeys_at), 1, INT64_MAX, &numkeys, kNumKeys)) return false;
  if (numkeys >= static_cast<int64_t>(ctx.argc() - numkeys_at - 1)) {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  size_t where = numkeys_at + 1 + static_cast<size_t>(numkeys);
  out->keys.assign(ctx.args.begin() + static_cast<std::ptrdiff_t>(numkeys_at + 1),
                   ctx.args.begin() + static_cast<std::ptrdiff_t>(where));
  if (!ParseEnd(ctx, ctx.arg(where), &out->end)) return false;
  bool has_count = false;
  for (size_t i = where + 1; i < ctx.argc(); ++i) {
    if (!has_count && EqualsIgnoreCase(ctx.arg(i), "COUNT") && i + 1 < ctx.argc()) {
      if (!ParseRange(ctx, ctx.arg(++i), 1, INT64_MAX, &out->count, kCountPositive)) {
        return false;
      }
      has_count = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]
void CmdLMPop(CommandContext& ctx) {
  MPopArgs a;
  if (!ParseMPop(ctx, 1, &a)) return;
  if (!PopFirstNonEmpty(ctx, a.keys, a.end, a.count)) ctx.reply.NullArray();
}

// Waits on keys, or (inside MULTI / scripts) answers at once: BLMOVE / BRPOPLPUSH (single)
// with a null bulk, the pops with a null array. A wait that times out answers a null array
// for all of them, as Valkey does (BLMOVE too).
void BlockOrNull(CommandContext& ctx, const std::vector<std::string_view>& keys,
                 int64_t deadline_ms, bool single) {
  if (!ctx.CanBlock()) {
    if (single) {
      ctx.reply.Null();
    } else {
      ctx.reply.NullArray();
    }
    return;
  }
  ctx.Block(keys, deadline_ms, ObjType::kList, BlockTimeoutReply::kNullArray);
}

// BLPOP/BRPOP key [key ...] timeout
void BlockingPop(CommandContext& ctx, ListEnd end) {
  int64_t deadline;
  if (!ParseTimeout(ctx, ctx.arg(ctx.argc() - 1), &deadline)) return;
  std::vector<std::string_view> keys(ctx.args.begin() + 1, ctx.args.end() - 1);
  if (PopFirstNonEmpty(ctx, keys, end, -1)) return;
  BlockOrNull(ctx, keys, deadline, false);
}

void CmdBLPop(CommandContext& ctx) { BlockingPop(ctx, ListEnd::kHead); }
void CmdBRPop(CommandContext& ctx) { BlockingPop(ctx, ListEnd::kTail); }

// BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
void CmdBLMPop(CommandContext& ctx) {
  MPopArgs a;
  if (!ParseMPop(ctx, 2, &a)) return;
  int64_t deadline;
  if (!ParseTimeout(ctx, ctx.arg(1), &deadline)) return;
  if (PopFirstNonEmpty(ctx, a.keys, a.end, a.count)) return;
  BlockOrNull(ctx, a.keys, deadline, false);
}

// BLMOVE / BRPOPLPUSH: only the source is looked at before waiting (as Valkey).
void BlockingMove(CommandContext& ctx, ListEnd from, ListEnd to, std::string_view timeout) {
  int64_t deadline;
  if (!ParseTimeout(ctx, timeout, &deadline)) return;
  Entry* src = FindForWrite(ctx.db, ctx.arg(1));
  if (src != nullptr && !CheckList(ctx, src)) return;
  if (src != nullptr) {
    if (ctx.Propagating()) {
      std::vector<std::string> move{ctx.argc() == 4 ? "RPOPLPUSH" : "LMOVE",
                                    std::string(ctx.arg(1)), std::string(ctx.arg(2))};
      if (ctx.argc() == 6) {
        move.emplace_back(ctx.arg(3));
        move.emplace_back(ctx.arg(4));
      }
      ctx.PropagateAs(std::move(move));
    }
    MoveElement(ctx, src, from, to);
    return;
  }
  BlockOrNull(ctx, {ctx.arg(1)}, deadline, true);
}

// BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout
void CmdBLMove(CommandContext& ctx) {
  ListEnd from, to;
  if (!ParseEnd(ctx, ctx.arg(3), &from) || !ParseEnd(ctx, ctx.arg(4), &to)) return;
  BlockingMove(ctx, from, to, ctx.arg(5));
}

// BRPOPLPUSH source destination timeout
void CmdBRPopLPush(CommandContext& ctx) {
  BlockingMove(ctx, ListEnd::kTail, ListEnd::kHead, ctx.arg(3));
}

// DEBUG DIGEST(-VALUE): elements in order.
void DigestList(const Entry* e, unsigned char out[kDigestSize]) {
  size_t len = ListLength(e);
  if (len == 0) return;
  ListCursor c(e, 0, false);
  char buf[24];
  for (const unsigned char* p = c.Next(); p != nullptr; p = c.Next()) {
    MixDigest(out, lp::Get(p).View(buf));
  }
}

}  // namespace

void RegisterListCommands(CommandTable& t) {
  RegisterCollectionOps(ObjType::kList, {FreeListValue, ListFreeEffort, ListMemory, CopyListValue});
  RegisterValueDigest(ObjType::kList, DigestList);

  const uint64_t rd = kAclRead | kAclList;
  const uint64_t wr = kAclWrite | kAclList;
  const uint32_t write_oom = kCmdWrite | kCmdDenyOom;
  const char* push_complexity =
      "O(1) for each element added, so O(N) to add N elements when the command is called with "
      "multiple arguments.";
  const char* pop_complexity = "O(N) where N is the number of elements returned";
  const char* mpop_complexity =
      "O(N+M) where N is the number of provided keys and M is the number of elements returned.";
  const char* bpop_complexity = "O(N) where N is the number of provided keys.";
  // clang-format off
  t.Add({.name = "lpush", .arity = -3, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdLPush, .group = "list",
         .summary = "Prepend one or multiple elements to a list", .since = "1.0.0",
         .complexity = push_complexity});
  t.Add({.name = "rpush", .arity = -3, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdRPush, .group = "list",
         .summary = "Append one or multiple elements to a list", .since = "1.0.0",
         .complexity = push_complexity});
  t.Add({.name = "lpushx", .arity = -3, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdLPushX, .group = "list",
         .summary = "Prepend an element to a list, only if the list exists", .since = "2.2.0",
         .complexity = push_complexity});
  t.Add({.name = "rpushx", .arity = -3, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdRPushX, .group = "list",
         .summary = "Append an element to a list, only if the list exists", .since = "2.2.0",
         .complexity = push_complexity});
  t.Add({.name = "lpop", .arity = -2, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdLPop, .group = "list",
         .summary = "Remove and get the first elements in a list", .since = "1.0.0",
         .complexity = pop_complexity});
  t.Add({.name = "rpop", .arity = -2, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdRPop, .group = "list",
         .summary = "Remove and get the last elements in a list", .since = "1.0.0",
         .complexity = pop_complexity});
  t.Add({.name = "llen", .arity = 2, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdLLen, .group = "list",
         .summary = "Get the length of a list", .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "lrange", .arity = 4, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdLRange, .group = "list",
         .summary = "Get a range of elements from a list", .since = "1.0.0",
         .complexity = "O(S+N) where S is the distance of start offset from HEAD for small "
                       "lists, from nearest end (HEAD or TAIL) for large lists; and N is the "
                       "number of elements in the specified range."});
  t.Add({.name = "lindex", .arity = 3, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdLIndex, .group = "list",
         .summary = "Get an element from a list by its index", .since = "1.0.0",
         .complexity = "O(N) where N is the number of elements to traverse to get to the "
                       "element at index. This makes asking for the first or the last element "
                       "of the list O(1)."});
  t.Add({.name = "lset", .arity = 4, .flags = write_oom, .acl = wr | kAclSlow, .first_key = 1,
         .last_key = 1, .key_step = 1, .handler = CmdLSet, .group = "list",
         .summary = "Set the value of an element in a list by its index", .since = "1.0.0",
         .complexity = "O(N) where N is the length of the list. Setting either the first or "
                       "the last element of the list is O(1)."});
  t.Add({.name = "linsert", .arity = 5, .flags = write_oom, .acl = wr | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdLInsert, .group = "list",
         .summary = "Insert an element before or after another element in a list",
         .since = "2.2.0",
         .complexity = "O(N) where N is the number of elements to traverse before seeing the "
                       "value pivot. This means that inserting somewhere on the left end on "
                       "the list (head) can be considered O(1) and inserting somewhere on the "
                       "right end (tail) is O(N)."});
  t.Add({.name = "lrem", .arity = 4, .flags = kCmdWrite, .acl = wr | kAclSlow, .first_key = 1,
         .last_key = 1, .key_step = 1, .handler = CmdLRem, .group = "list",
         .summary = "Remove elements from a list", .since = "1.0.0",
         .complexity = "O(N+M) where N is the length of the list and M is the number of "
                       "elements removed."});
  t.Add({.name = "ltrim", .arity = 4, .flags = kCmdWrite, .acl = wr | kAclSlow, .first_key = 1,
         .last_key = 1, .key_step = 1, .handler = CmdLTrim, .group = "list",
         .summary = "Trim a list to the specified range", .since = "1.0.0",
         .complexity = "O(N) where N is the number of elements to be removed by the "
                       "operation."});
  t.Add({.name = "lpos", .arity = -3, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdLPos, .group = "list",
         .summary = "Return the index of matching elements on a list", .since = "6.0.6",
         .complexity = "O(N) where N is the number of elements in the list, for the average "
                       "case. When searching for elements near the head or the tail of the "
                       "list, or when the MAXLEN option is provided, the command may run in "
                       "constant time."});
  t.Add({.name = "lmove", .arity = 5, .flags = write_oom, .acl = wr | kAclSlow, .first_key = 1,
         .last_key = 2, .key_step = 1, .handler = CmdLMove, .group = "list",
         .summary = "Pop an element from a list, push it to another list and return it",
         .since = "6.2.0", .complexity = "O(1)"});
  t.Add({.name = "rpoplpush", .arity = 3, .flags = write_oom, .acl = wr | kAclSlow,
         .first_key = 1, .last_key = 2, .key_step = 1, .handler = CmdRPopLPush,
         .group = "list",
         .summary = "Remove the last element in a list, prepend it to another list and return "
                    "it",
         .since = "1.2.0", .complexity = "O(1)"});
  t.Add({.name = "lmpop", .arity = -4, .flags = kCmdWrite | kCmdMovableKeys,
         .acl = wr | kAclSlow, .handler = CmdLMPop, .group = "list",
         .summary = "Pop elements from a list", .since = "7.0.0",
         .complexity = mpop_complexity});
  const uint32_t blocking = kCmdWrite | kCmdBlocking;
  const uint64_t bacl = wr | kAclSlow | kAclBlocking;
  t.Add({.name = "blpop", .arity = -3, .flags = blocking, .acl = bacl, .first_key = 1,
         .last_key = -2, .key_step = 1, .handler = CmdBLPop, .group = "list",
         .summary = "Remove and get the first element in a list, or block until one is "
                    "available",
         .since = "2.0.0", .complexity = bpop_complexity});
  t.Add({.name = "brpop", .arity = -3, .flags = blocking, .acl = bacl, .first_key = 1,
         .last_key = -2, .key_step = 1, .handler = CmdBRPop, .group = "list",
         .summary = "Remove and get the last element in a list, or block until one is "
                    "available",
         .since = "2.0.0", .complexity = bpop_complexity});
  t.Add({.name = "blmove", .arity = 6, .flags = blocking | kCmdDenyOom, .acl = bacl,
         .first_key = 1, .last_key = 2, .key_step = 1, .handler = CmdBLMove, .group = "list",
         .summary = "Pop an element from a list, push it to another list and return it; or "
                    "block until one is available",
         .since = "6.2.0", .complexity = "O(1)"});
  t.Add({.name = "brpoplpush", .arity = 4, .flags = blocking | kCmdDenyOom, .acl = bacl,
         .first_key = 1, .last_key = 2, .key_step = 1, .handler = CmdBRPopLPush,
         .group = "list",
         .summary = "Pop an element from a list, push it to another list and return it; or "
                    "block until one is available",
         .since = "2.2.0", .complexity = "O(1)"});
  t.Add({.name = "blmpop", .arity = -5, .flags = kCmdWrite | kCmdBlocking | kCmdMovableKeys,
         .acl = bacl, .handler = CmdBLMPop, .group = "list",
         .summary = "Pop elements from a list, or block until one is available",
         .since = "7.0.0", .complexity = mpop_complexity});
  // clang-format on
}

}  // namespace vireo
