// Sorted set family, part 1: shared helpers, ZADD ZINCRBY ZREM ZCARD ZSCORE ZMSCORE ZRANK
// ZREVRANK, and the family's registration. Ranges, pops, set operations and the sampling
// commands live in zset_range_commands.cc, zset_pop_commands.cc, zset_setop_commands.cc and
// zset_sample_commands.cc.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "commands/context.h"
#include "commands/digest.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/zset_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/access_clock.h"
#include "store/memory.h"
#include "store/zset_listpack.h"

namespace vireo {
namespace zset_cmd {

ZSetLimits Limits(CommandContext& ctx) {
  const Config& c = ctx.server.config();
  ZSetLimits l;
  l.max_listpack_entries = static_cast<size_t>(std::max<int64_t>(0, c.zset_max_listpack_entries));
  l.max_listpack_value = static_cast<size_t>(std::max<int64_t>(0, c.zset_max_listpack_value));
  return l;
}

Entry* FindRead(CommandContext& ctx, std::string_view key, bool* wrong) {
  *wrong = false;
  Entry* e = ctx.db->Lookup(key);
  if (e != nullptr && e->type() != ObjType::kZSet) {
    ctx.reply.Error(errors::kWrongType);
    *wrong = true;
    return nullptr;
  }
  return e;
}

Entry* FindWrite(CommandContext& ctx, std::string_view key, bool* wrong) {
  *wrong = false;
  Entry* e = ctx.db->Find(key);
  if (e == nullptr) return nullptr;
  if (e->type() != ObjType::kZSet) {
    ctx.reply.Error(errors::kWrongType);
    *wrong = true;
    return nullptr;
  }
  TouchAccess(e);
  return e;
}

void Commit(CommandContext& ctx, std::string_view key, Entry* e, const ZSet& z, size_t changes) {
  z.StoreTo(e);
  const bool emptied = z.Length() == 0;
  if (emptied) ctx.db->Delete(key);
  ctx.KeyModified(ctx.db, key, static_cast<int>(changes));
  // The caller sent the command's own event; "del" follows it, as in Valkey.
  if (emptied) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
}

namespace {

// Valkey reads range scores with strtod over the C string: the text up to a NUL byte, leading
// spaces, hex and "inf"/"infinity" accepted, overflow saturating; only NaN and trailing junk
// are refused.
bool ParseRangeScore(std::string_view s, double* out, bool* exclusive) {
  *exclusive = !s.empty() && s[0] == '(';
  if (*exclusive) s.remove_prefix(1);
  size_t nul = s.find('\0');
  if (nul != std::string_view::npos) s = s.substr(0, nul);
  char small[64];
  std::string big;
  const char* text;
  if (s.size() < sizeof(small)) {
    std::memcpy(small, s.data(), s.size());
    small[s.size()] = '\0';
    text = small;
  } else {
    big.assign(s);
    text = big.c_str();
  }
  char* end;
  double v = std::strtod(text, &end);
  if (*end != '\0' || std::isnan(v)) return false;
  *out = v;
  return true;
}

bool ParseLexBound(std::string_view s, LexBound* out) {
  if (s.empty()) return false;
  // Valkey looks at the C string, so "+" followed by a NUL byte still reads as "+".
  const bool alone = s.size() == 1 || s[1] == '\0';
  switch (s[0]) {
    case '+':
      if (!alone) return false;
      out->kind = LexBound::kPlusInf;
      return true;
    case '-':
      if (!alone) return false;
      out->kind = LexBound::kMinusInf;
      return true;
    case '(':
      out->kind = LexBound::kExclusive;
      out->value = s.substr(1);
      return true;
    case '[':
      out->kind = LexBound::kInclusive;
      out->value = s.substr(1);
      return true;
    default:
      return false;
  }
}

// Elements strictly below a lex bound used as a range start.
size_t LexStartRank(const ZSet& z, const LexBound& b) {
  switch (b.kind) {
    case LexBound::kMinusInf:
      return 0;
    case LexBound::kPlusInf:
      return z.Length();
    case LexBound::kInclusive:
      return z.LexRank(b.value, false);
    case LexBound::kExclusive:
      return z.LexRank(b.value, true);
  }
  return 0;
}

// Elements up to and including a lex bound used as a range end.
size_t LexEndRank(const ZSet& z, const LexBound& b) {
  switch (b.kind) {
    case LexBound::kMinusInf:
      return 0;
    case LexBound::kPlusInf:
      return z.Length();
    case LexBound::kInclusive:
      return z.LexRank(b.value, true);
    case LexBound::kExclusive:
      return z.LexRank(b.value, false);
  }
  return 0;
}

}  // namespace

bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange* out) {
  return ParseRangeScore(min, &out->min, &out->min_ex) &&
         ParseRangeScore(max, &out->max, &out->max_ex);
}

bool ParseLexRange(std::string_view min, std::string_view max, LexRange* out) {
  return ParseLexBound(min, &out->min) && ParseLexBound(max, &out->max);
}

RankSpan ScoreSpan(const ZSet& z, const ScoreRange& r) {
  RankSpan s;
  s.first = z.ScoreRank(r.min, r.min_ex);
  s.last = z.ScoreRank(r.max, !r.max_ex);
  return s;
}

RankSpan LexSpan(const ZSet& z, const LexRange& r) {
  RankSpan s;
  s.first = LexStartRank(z, r.min);
  s.last = LexEndRank(z, r.max);
  return s;
}

void ReplyScore(CommandContext& ctx, double score) { ctx.reply.Double(score); }

void ReplyElementsHeader(CommandContext& ctx, size_t count, bool with_scores) {
  ctx.reply.Array(with_scores && !ctx.reply.Resp3() ? 2 * count : count);
}

void ReplyElement(CommandContext& ctx, std::string_view member, double score, bool with_scores) {
  if (with_scores && ctx.reply.Resp3()) ctx.reply.Array(2);
  ctx.reply.Bulk(member);
  if (with_scores) ReplyScore(ctx, score);
}

namespace {

constexpr const char* kErrNaN = "ERR resulting score is not a number (NaN)";

void ReplyArity(CommandContext& ctx, const char* name) {
  ctx.reply.Error(std::string("ERR wrong number of arguments for '") + name + "' command");
}

// ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
// (ZINCRBY key increment member runs the same code with INCR.)
void AddGeneric(CommandContext& ctx, int flags) {
  bool ch = false;
  size_t i = 2;
  if (!(flags & kZAddIncr)) {
    for (; i < ctx.argc(); ++i) {
      std::string_view opt = ctx.arg(i);
      if (EqualsIgnoreCase(opt, "nx")) {
        flags |= kZAddNx;
      } else if (EqualsIgnoreCase(opt, "xx")) {
        flags |= kZAddXx;
      } else if (EqualsIgnoreCase(opt, "ch")) {
        ch = true;
      } else if (EqualsIgnoreCase(opt, "incr")) {
        flags |= kZAddIncr;
      } else if (EqualsIgnoreCase(opt, "gt")) {
        flags |= kZAddGt;
      } else if (EqualsIgnoreCase(opt, "lt")) {
        flags |= kZAddLt;
      } else {
        break;
      }
    }
  }
  const size_t words = ctx.argc() - i;
  if (words == 0 || words % 2 != 0) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  const size_t pairs = words / 2;
  const bool nx = flags & kZAddNx, xx = flags & kZAddXx, gt = flags & kZAddGt, lt = flags & kZAddLt,
             incr = flags & kZAddIncr;
  if (nx && xx) {
    ctx.reply.Error("ERR XX and NX options at the same time are not compatible");
    return;
  }
  if ((gt && nx) || (lt && nx) || (gt && lt)) {
    ctx.reply.Error("ERR GT, LT, and/or NX options at the same time are not compatible");
    return;
  }
  if (incr && pairs > 1) {
    ctx.reply.Error("ERR INCR option supports a single increment-element pair");
    return;
  }
  // All scores are checked before anything changes.
  double first_score = 0;
  for (size_t p = 0; p < pairs; ++p) {
    double score;
    if (!ParseDouble(ctx.arg(i + 2 * p), &score)) {
      ctx.reply.Error(errors::kNotFloat);
      return;
    }
    if (p == 0) first_score = score;
  }
  std::string_view key = ctx.arg(1);
  bool wrong;
  Entry* e = FindWrite(ctx, key, &wrong);
  if (wrong) return;
  size_t added = 0, updated = 0, processed = 0;
  double result = 0;
  if (e == nullptr && xx) {
    // Nothing to update and nothing may be created.
  } else {
    const ZSetLimits limits = Limits(ctx);
    ZSet z;
    if (e == nullptr) {
      e = ctx.db->Add(key);
      z = ZSet::Create(ctx.arg(i + 1).size(), limits);
      z.StoreTo(e);
    } else {
      z = ZSet::Of(e);
    }
    size_t longest = 0;
    for (size_t p = 0; p < pairs; ++p) {
      longest = std::max(longest, ctx.arg(i + 2 * p + 1).size());
    }
    z.FitFor(pairs, longest, limits);
    z.StoreTo(e);  // the NaN error below returns without storing
    for (size_t p = 0; p < pairs; ++p) {
      double score = first_score;
      if (p > 0) ParseDouble(ctx.arg(i + 2 * p), &score);
      ZAddResult r = z.Add(ctx.arg(i + 2 * p + 1), score, flags, limits, &result);
      if (r == ZAddResult::kNaN) {
        if (added + updated > 0) {
          z.StoreTo(e);
          ctx.KeyModified(ctx.db, key, static_cast<int>(added + updated));
          NotifyKeyspaceEvent(ctx, kNotifyZset, incr ? "zincr" : "zadd", ctx.db, key);
        }
        ctx.reply.Error(kErrNaN);
        return;
      }
      if (r == ZAddResult::kAdded) ++added;
      if (r == ZAddResult::kUpdated) ++updated;
      if (r != ZAddResult::kSkipped) ++processed;
    }
    z.StoreTo(e);
    if (added + updated > 0) {
      ctx.KeyModified(ctx.db, key, static_cast<int>(added + updated));
      NotifyKeyspaceEvent(ctx, kNotifyZset, incr ? "zincr" : "zadd", ctx.db, key);
    }
  }
  if (incr) {
    if (processed > 0) {
      ReplyScore(ctx, result);
    } else {
      ctx.reply.Null();
    }
  } else {
    ctx.reply.Integer(static_cast<int64_t>(ch ? added + updated : added));
  }
}

void CmdZAdd(CommandContext& ctx) { AddGeneric(ctx, 0); }

// ZINCRBY key increment member
void CmdZIncrBy(CommandContext& ctx) { AddGeneric(ctx, kZAddIncr); }

// ZREM key member [member ...]
void CmdZRem(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  bool wrong;
  Entry* e = FindWrite(ctx, key, &wrong);
  if (wrong) return;
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  ZSet z = ZSet::Of(e);
  int64_t removed = 0;
  for (size_t i = 2; i < ctx.argc() && z.Length() > 0; ++i) removed += z.Remove(ctx.arg(i));
  if (removed > 0) {
    NotifyKeyspaceEvent(ctx, kNotifyZset, "zrem", ctx.db, key);
    Commit(ctx, key, e, z, static_cast<size_t>(removed));
  }
  ctx.reply.Integer(removed);
}

// ZCARD key
void CmdZCard(CommandContext& ctx) {
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  ctx.reply.Integer(e == nullptr ? 0 : static_cast<int64_t>(ZSet::Of(e).Length()));
}

// ZSCORE key member
void CmdZScore(CommandContext& ctx) {
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  double score;
  if (e == nullptr || !ZSet::Of(e).Score(ctx.arg(2), &score)) {
    ctx.reply.Null();
    return;
  }
  ReplyScore(ctx, score);
}

// ZMSCORE key member [member ...]
void CmdZMScore(CommandContext& ctx) {
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  ctx.reply.Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); ++i) {
    double score;
    if (e != nullptr && ZSet::Of(e).Score(ctx.arg(i), &score)) {
      ReplyScore(ctx, score);
    } else {
      ctx.reply.Null();
    }
  }
}

// ZRANK / ZREVRANK key member [WITHSCORE]
void RankGeneric(CommandContext& ctx, bool reverse) {
  if (ctx.argc() > 4) {
    ReplyArity(ctx, reverse ? "zrevrank" : "zrank");
    return;
  }
  bool with_score = false;
  if (ctx.argc() == 4) {
    if (!EqualsIgnoreCase(ctx.arg(3), "withscore")) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    with_score = true;
  }
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  size_t rank;
  double score;
  if (e == nullptr || !ZSet::Of(e).Rank(ctx.arg(2), &rank, &score)) {
    if (with_score) {
      ctx.reply.NullArray();
    } else {
      ctx.reply.Null();
    }
    return;
  }
  if (reverse) rank = ZSet::Of(e).Length() - 1 - rank;
  if (with_score) ctx.reply.Array(2);
  ctx.reply.Integer(static_cast<int64_t>(rank));
  if (with_score) ReplyScore(ctx, score);
}

void CmdZRank(CommandContext& ctx) { RankGeneric(ctx, false); }
void CmdZRevRank(CommandContext& ctx) { RankGeneric(ctx, true); }

// DEBUG DIGEST: members and scores in order (the order is canonical, the encoding is not seen).
// Vireo's digest is its own, not Valkey's: scores stay in "%.17g" so digests stay as they were.
void DigestZSet(const Entry* e, unsigned char out[kDigestSize]) {
  ZSet z = ZSet::Of(e);
  std::string buf;
  char sbuf[kDoubleTextSize];
  for (ZSet::Iterator it = z.Seek(0); it.Valid(); it.Next()) {
    std::string_view m = it.Member();
    buf.assign(m.data(), m.size());
    buf.push_back('\0');
    buf.append(sbuf, FormatDoubleG17To(sbuf, it.Score()));
    MixDigest(out, buf);
  }
}

}  // namespace
}  // namespace zset_cmd

// One command per paragraph reads better than one field per line.
// clang-format off
void RegisterZSetCommands(CommandTable& t) {
  using namespace zset_cmd;
  RegisterCollectionOps(ObjType::kZSet,
                        {FreeZSetObject, ZSetFreeEffort, ZSetMemory, CopyZSetObject});
  RegisterValueDigest(ObjType::kZSet, DigestZSet);

  const uint64_t rd = kAclRead | kAclSortedSet;
  const uint64_t wr = kAclWrite | kAclSortedSet;
  const uint32_t write_oom = kCmdWrite | kCmdDenyOom;
  const char* log_n = "O(log(N)) where N is the number of elements in the sorted set.";
  auto add = [&](CommandSpec spec) {
    spec.group = "sorted-set";
    t.Add(std::move(spec));
  };
  add({.name = "zadd", .arity = -4, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZAdd,
       .summary = "Adds one or more members to a sorted set, or updates their scores. Creates "
                  "the key if it doesn't exist.", .since = "1.2.0",
       .complexity = "O(log(N)) for each item added, where N is the number of elements in "
                     "the sorted set."});
  add({.name = "zincrby", .arity = 4, .flags = write_oom | kCmdFast, .acl = wr | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZIncrBy,
       .summary = "Increments the score of a member in a sorted set.", .since = "1.2.0",
       .complexity = log_n});
  add({.name = "zrem", .arity = -3, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRem,
       .summary = "Removes one or more members from a sorted set. Deletes the sorted set if "
                  "all members were removed.", .since = "1.2.0",
       .complexity = "O(M*log(N)) with N being the number of elements in the sorted set and M "
                     "the number of elements to be removed."});
  add({.name = "zcard", .arity = 2, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZCard,
       .summary = "Returns the number of members in a sorted set.", .since = "1.2.0",
       .complexity = "O(1)"});
  add({.name = "zscore", .arity = 3, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZScore,
       .summary = "Returns the score of a member in a sorted set.", .since = "1.2.0",
       .complexity = "O(1)"});
  add({.name = "zmscore", .arity = -3, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZMScore,
       .summary = "Returns the score of one or more members in a sorted set.", .since = "6.2.0",
       .complexity = "O(N) where N is the number of members being requested."});
  add({.name = "zrank", .arity = -3, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRank,
       .summary = "Returns the index of a member in a sorted set ordered by ascending scores.",
       .since = "2.0.0", .complexity = "O(log(N))"});
  add({.name = "zrevrank", .arity = -3, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRevRank,
       .summary = "Returns the index of a member in a sorted set ordered by descending scores.",
       .since = "2.0.0", .complexity = "O(log(N))"});
  add({.name = "zcount", .arity = 4, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZCount,
       .summary = "Returns the count of members in a sorted set that have scores within a "
                  "range.", .since = "2.0.0", .complexity = log_n});
  add({.name = "zlexcount", .arity = 4, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZLexCount,
       .summary = "Returns the number of members in a sorted set within a lexicographical "
                  "range.", .since = "2.8.9", .complexity = log_n});
  const char* range_cx =
      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
      "elements returned.";
  add({.name = "zrange", .arity = -4, .flags = kCmdReadonly, .acl = rd | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRange,
       .summary = "Returns members in a sorted set within a range of indexes.", .since = "1.2.0",
       .complexity = range_cx});
  add({.name = "zrangestore", .arity = -5, .flags = write_oom, .acl = wr | kAclSlow,
       .first_key = 1, .last_key = 2, .key_step = 1, .handler = CmdZRangeStore,
       .summary = "Stores a range of members from sorted set in a key.", .since = "6.2.0",
       .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M "
                     "the number of elements stored into the destination key."});
  add({.name = "zrangebyscore", .arity = -4, .flags = kCmdReadonly, .acl = rd | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRangeByScore,
       .summary = "Returns members in a sorted set within a range of scores.", .since = "1.0.5",
       .complexity = range_cx});
  add({.name = "zrevrangebyscore", .arity = -4, .flags = kCmdReadonly, .acl = rd | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRevRangeByScore,
       .summary = "Returns members in a sorted set within a range of scores in reverse order.",
       .since = "2.2.0", .complexity = range_cx});
  add({.name = "zrangebylex", .arity = -4, .flags = kCmdReadonly, .acl = rd | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRangeByLex,
       .summary = "Returns members in a sorted set within a lexicographical range.",
       .since = "2.8.9", .complexity = range_cx});
  add({.name = "zrevrangebylex", .arity = -4, .flags = kCmdReadonly, .acl = rd | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRevRangeByLex,
       .summary = "Returns members in a sorted set within a lexicographical range in reverse "
                  "order.", .since = "2.8.9", .complexity = range_cx});
  add({.name = "zrevrange", .arity = -4, .flags = kCmdReadonly, .acl = rd | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRevRange,
       .summary = "Returns members in a sorted set within a range of indexes in reverse order.",
       .since = "1.2.0", .complexity = range_cx});
  const char* remrange_cx =
      "O(log(N)+M) with N being the number of elements in the sorted set and M the number of "
      "elements removed by the operation.";
  add({.name = "zremrangebyrank", .arity = 4, .flags = kCmdWrite, .acl = wr | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRemRangeByRank,
       .summary = "Removes members in a sorted set within a range of indexes. Deletes the "
                  "sorted set if all members were removed.", .since = "2.0.0",
       .complexity = remrange_cx});
  add({.name = "zremrangebyscore", .arity = 4, .flags = kCmdWrite, .acl = wr | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRemRangeByScore,
       .summary = "Removes members in a sorted set within a range of scores. Deletes the "
                  "sorted set if all members were removed.", .since = "1.2.0",
       .complexity = remrange_cx});
  add({.name = "zremrangebylex", .arity = 4, .flags = kCmdWrite, .acl = wr | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRemRangeByLex,
       .summary = "Removes members in a sorted set within a lexicographical range. Deletes the "
                  "sorted set if all members were removed.", .since = "2.8.9",
       .complexity = remrange_cx});
  const char* pop_cx =
      "O(log(N)*M) with N being the number of elements in the sorted set, and M being the "
      "number of elements popped.";
  add({.name = "zpopmin", .arity = -2, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZPopMin,
       .summary = "Returns the lowest-scoring members from a sorted set after removing them. "
                  "Deletes the sorted set if the last member was popped.", .since = "5.0.0",
       .complexity = pop_cx});
  add({.name = "zpopmax", .arity = -2, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZPopMax,
       .summary = "Returns the highest-scoring members from a sorted set after removing them. "
                  "Deletes the sorted set if the last member was popped.", .since = "5.0.0",
       .complexity = pop_cx});
  add({.name = "bzpopmin", .arity = -3,
       .flags = kCmdWrite | kCmdFast | kCmdBlocking,
       .acl = wr | kAclFast | kAclBlocking, .first_key = 1, .last_key = -2, .key_step = 1,
       .handler = CmdBZPopMin,
       .summary = "Removes and returns the member with the lowest score from one or more "
                  "sorted sets. Blocks until a member is available otherwise. Deletes the "
                  "sorted set if the last element was popped.", .since = "5.0.0",
       .complexity = log_n});
  add({.name = "bzpopmax", .arity = -3,
       .flags = kCmdWrite | kCmdFast | kCmdBlocking,
       .acl = wr | kAclFast | kAclBlocking, .first_key = 1, .last_key = -2, .key_step = 1,
       .handler = CmdBZPopMax,
       .summary = "Removes and returns the member with the highest score from one or more "
                  "sorted sets. Blocks until a member available otherwise.  Deletes the sorted "
                  "set if the last element was popped.", .since = "5.0.0", .complexity = log_n});
  const char* mpop_cx =
      "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of "
      "elements in the sorted set, and M being the number of elements popped.";
  add({.name = "zmpop", .arity = -4, .flags = kCmdWrite | kCmdMovableKeys, .acl = wr | kAclSlow,
       .handler = CmdZMPop,
       .summary = "Returns the highest- or lowest-scoring members from one or more sorted sets "
                  "after removing them. Deletes the sorted set if the last member was popped.",
       .since = "7.0.0", .complexity = mpop_cx});
  add({.name = "bzmpop", .arity = -5, .flags = kCmdWrite | kCmdBlocking | kCmdMovableKeys,
       .acl = wr | kAclSlow | kAclBlocking, .handler = CmdBZMPop,
       .summary = "Removes and returns a member by score from one or more sorted sets. Blocks "
                  "until a member is available otherwise. Deletes the sorted set if the last "
                  "element was popped.", .since = "7.0.0", .complexity = mpop_cx});
  add({.name = "zrandmember", .arity = -2, .flags = kCmdReadonly, .acl = rd | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZRandMember,
       .summary = "Returns one or more random members from a sorted set.", .since = "6.2.0",
       .complexity = "O(N) where N is the number of members returned"});
  const char* union_cx =
      "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M "
      "being the number of elements in the resulting sorted set.";
  const char* inter_cx =
      "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the "
      "number of input sorted sets and M being the number of elements in the resulting sorted "
      "set.";
  const char* diff_cx =
      "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, "
      "N is the size of the first set, and K is the size of the result set.";
  add({.name = "zunion", .arity = -3, .flags = kCmdReadonly | kCmdMovableKeys,
       .acl = rd | kAclSlow, .handler = CmdZUnion,
       .summary = "Returns the union of multiple sorted sets.", .since = "6.2.0",
       .complexity = union_cx});
  add({.name = "zinter", .arity = -3, .flags = kCmdReadonly | kCmdMovableKeys,
       .acl = rd | kAclSlow, .handler = CmdZInter,
       .summary = "Returns the intersect of multiple sorted sets.", .since = "6.2.0",
       .complexity = inter_cx});
  add({.name = "zdiff", .arity = -3, .flags = kCmdReadonly | kCmdMovableKeys,
       .acl = rd | kAclSlow, .handler = CmdZDiff,
       .summary = "Returns the difference between multiple sorted sets.", .since = "6.2.0",
       .complexity = diff_cx});
  add({.name = "zunionstore", .arity = -4, .flags = write_oom | kCmdMovableKeys,
       .acl = wr | kAclSlow, .first_key = 1, .last_key = 1, .key_step = 1,
       .handler = CmdZUnionStore, .summary = "Stores the union of multiple sorted sets in a key.",
       .since = "2.0.0", .complexity = union_cx});
  add({.name = "zinterstore", .arity = -4, .flags = write_oom | kCmdMovableKeys,
       .acl = wr | kAclSlow, .first_key = 1, .last_key = 1, .key_step = 1,
       .handler = CmdZInterStore,
       .summary = "Stores the intersect of multiple sorted sets in a key.", .since = "2.0.0",
       .complexity = inter_cx});
  add({.name = "zdiffstore", .arity = -4, .flags = write_oom | kCmdMovableKeys,
       .acl = wr | kAclSlow, .first_key = 1, .last_key = 1, .key_step = 1,
       .handler = CmdZDiffStore,
       .summary = "Stores the difference of multiple sorted sets in a key.", .since = "6.2.0",
       .complexity = diff_cx});
  add({.name = "zintercard", .arity = -3, .flags = kCmdReadonly | kCmdMovableKeys,
       .acl = rd | kAclSlow, .handler = CmdZInterCard,
       .summary = "Returns the number of members of the intersect of multiple sorted sets.",
       .since = "7.0.0",
       .complexity = "O(N*K) worst case with N being the smallest input sorted set, K being "
                     "the number of input sorted sets."});
  add({.name = "zscan", .arity = -3, .flags = kCmdReadonly, .acl = rd | kAclSlow,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdZScan,
       .summary = "Iterates over members and scores of a sorted set.", .since = "2.8.0",
       .complexity = "O(1) for every call. O(N) for a complete iteration, including enough "
                     "command calls for the cursor to return back to 0. N is the number of "
                     "elements inside the collection."});
}

// clang-format on

}  // namespace vireo
