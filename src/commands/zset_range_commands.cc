// Sorted set family, part 2: ranges. ZRANGE ZRANGESTORE ZRANGEBYSCORE ZREVRANGEBYSCORE
// ZRANGEBYLEX ZREVRANGEBYLEX ZREVRANGE ZREMRANGEBYRANK ZREMRANGEBYSCORE ZREMRANGEBYLEX ZCOUNT
// ZLEXCOUNT. Every kind of range becomes a span of ranks, so one walk serves them all.
#include <algorithm>
#include <vector>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/zset_family.h"
#include "common/numbers.h"
#include "server/notify.h"

namespace vireo::zset_cmd {
namespace {

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

// Clamps ZRANGE-style indexes (negative from the end) to ranks [start, end] of a set of len
// elements; false when the range is empty.
bool NormalizeRankRange(int64_t start, int64_t end, size_t len, size_t* first, size_t* last) {
  const int64_t n = static_cast<int64_t>(len);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (start > end || start >= n) return false;
  if (end >= n) end = n - 1;
  *first = static_cast<size_t>(start);
  *last = static_cast<size_t>(end);
  return true;
}

// Visits count elements from rank `from`, upwards or (reverse) downwards.
template <typename Fn>
void WalkRanks(const ZSet& z, size_t from, size_t count, bool reverse, Fn&& fn) {
  ZSet::Iterator it = z.Seek(from);
  for (size_t i = 0; i < count && it.Valid(); ++i) {
    fn(it.Member(), it.Score());
    if (reverse) {
      it.Prev();
    } else {
      it.Next();
    }
  }
}

// Stores the collected result in dst (replacing whatever it held) or deletes dst when empty.
void StoreResult(CommandContext& ctx, std::string_view dst, std::vector<ZNode*>* nodes) {
  const size_t count = nodes->size();
  if (count == 0) {
    if (ctx.db->Delete(dst)) {
      ctx.KeyModified(ctx.db, dst);
      NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, dst);
    }
  } else {
    ZSet z = ZSet::FromNodes(nodes, Limits(ctx));
    ctx.db->Delete(dst);
    Entry* e = ctx.db->Add(dst);
    z.StoreTo(e);
    ctx.KeyModified(ctx.db, dst);
    NotifyKeyspaceEvent(ctx, kNotifyZset, "zrangestore", ctx.db, dst);
  }
  ctx.reply.Integer(static_cast<int64_t>(count));
}

// The ZRANGE family. key_index is the source key's position; ZRANGESTORE (store) has the
// destination before it. type and direction are preset by the legacy commands.
void RangeGeneric(CommandContext& ctx, size_t key_index, bool store, RangeType type,
                  Direction dir) {
  bool with_scores = false;
  int64_t offset = 0, limit = -1;
  for (size_t j = key_index + 3; j < ctx.argc(); ++j) {
    const size_t left = ctx.argc() - j - 1;
    std::string_view opt = ctx.arg(j);
    if (!store && EqualsIgnoreCase(opt, "withscores")) {
      with_scores = true;
    } else if (EqualsIgnoreCase(opt, "limit") && left >= 2) {
      if (!ParseInt64(ctx.arg(j + 1), &offset) || !ParseInt64(ctx.arg(j + 2), &limit)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      j += 2;
    } else if (dir == Direction::kAuto && EqualsIgnoreCase(opt, "rev")) {
      dir = Direction::kReverse;
    } else if (type == RangeType::kAuto && EqualsIgnoreCase(opt, "bylex")) {
      type = RangeType::kLex;
    } else if (type == RangeType::kAuto && EqualsIgnoreCase(opt, "byscore")) {
      type = RangeType::kScore;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (dir == Direction::kAuto) dir = Direction::kForward;
  if (type == RangeType::kAuto) type = RangeType::kRank;
  const bool reverse = dir == Direction::kReverse;
  if (with_scores && type == RangeType::kLex) {
    ctx.reply.Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    return;
  }
  if ((offset != 0 || limit != -1) && type == RangeType::kRank) {
    ctx.reply.Error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return;
  }
  std::string_view min_arg = ctx.arg(key_index + 1), max_arg = ctx.arg(key_index + 2);
  // Reverse score and lex ranges are written max first.
  if (reverse && type != RangeType::kRank) std::swap(min_arg, max_arg);
  int64_t start = 0, end = 0;
  ScoreRange score_range;
  LexRange lex_range;
  if (type == RangeType::kRank) {
    if (!ParseInt64(min_arg, &start) || !ParseInt64(max_arg, &end)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
  } else if (type == RangeType::kScore) {
    if (!ParseScoreRange(min_arg, max_arg, &score_range)) {
      ctx.reply.Error(kErrScoreRange);
      return;
    }
  } else if (!ParseLexRange(min_arg, max_arg, &lex_range)) {
    ctx.reply.Error(kErrLexRange);
    return;
  }

  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(key_index), &wrong);
  if (wrong) return;
  size_t from = 0, count = 0;
  ZSet z;
  if (e != nullptr) {
    z = ZSet::Of(e);
    const size_t len = z.Length();
    if (type == RangeType::kRank) {
      size_t first, last;
      if (NormalizeRankRange(start, end, len, &first, &last)) {
        count = last - first + 1;
        from = reverse ? len - 1 - first : first;
      }
    } else {
      RankSpan span = type == RangeType::kScore ? ScoreSpan(z, score_range) : LexSpan(z, lex_range);
      // A negative offset skips everything, a negative limit means no limit (as Valkey).
      const size_t size = span.Size();
      if (offset >= 0 && static_cast<uint64_t>(offset) < size) {
        count = size - static_cast<size_t>(offset);
        if (limit >= 0) count = std::min(count, static_cast<size_t>(limit));
        from = reverse ? span.last - 1 - static_cast<size_t>(offset)
                       : span.first + static_cast<size_t>(offset);
      }
    }
  }
  if (store) {
    // Valkey fills the destination one element at a time, starting as a listpack when the
    // size is known to fit (or unknown: score and lex ranges) and converting when an element
    // does not; elements that passed through the listpack lose a -0 sign there.
    const ZSetLimits limits = Limits(ctx);
    bool packed = (type == RangeType::kRank ? count : 0) <= limits.max_listpack_entries;
    std::vector<ZNode*> nodes;
    nodes.reserve(count);
    if (count > 0) {
      WalkRanks(z, from, count, reverse, [&](std::string_view member, double score) {
        if (nodes.size() + 1 > limits.max_listpack_entries ||
            member.size() > limits.max_listpack_value) {
          packed = false;
        }
        if (packed && score == 0) score = 0.0;
        nodes.push_back(NewZNode(member, score));
      });
    }
    StoreResult(ctx, ctx.arg(1), &nodes);
    return;
  }
  ReplyElementsHeader(ctx, count, with_scores);
  if (count == 0) return;
  WalkRanks(z, from, count, reverse, [&](std::string_view member, double score) {
    ReplyElement(ctx, member, score, with_scores);
  });
}

// ZREMRANGEBYRANK / ZREMRANGEBYSCORE / ZREMRANGEBYLEX key min max
void RemRangeGeneric(CommandContext& ctx, RangeType type) {
  int64_t start = 0, end = 0;
  ScoreRange score_range;
  LexRange lex_range;
  if (type == RangeType::kRank) {
    if (!ParseInt64(ctx.arg(2), &start) || !ParseInt64(ctx.arg(3), &end)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
  } else if (type == RangeType::kScore) {
    if (!ParseScoreRange(ctx.arg(2), ctx.arg(3), &score_range)) {
      ctx.reply.Error(kErrScoreRange);
      return;
    }
  } else if (!ParseLexRange(ctx.arg(2), ctx.arg(3), &lex_range)) {
    ctx.reply.Error(kErrLexRange);
    return;
  }
  std::string_view key = ctx.arg(1);
  bool wrong;
  Entry* e = FindWrite(ctx, key, &wrong);
  if (wrong) return;
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  ZSet z = ZSet::Of(e);
  RankSpan span;
  if (type == RangeType::kRank) {
    size_t first, last;
    if (NormalizeRankRange(start, end, z.Length(), &first, &last)) span = {first, last + 1};
  } else {
    span = type == RangeType::kScore ? ScoreSpan(z, score_range) : LexSpan(z, lex_range);
  }
  const size_t removed = span.Size();
  if (removed > 0) {
    z.RemoveRange(span.first, span.last - 1);
    // zremrangebyrank, zremrangebyscore or zremrangebylex: the command's name.
    NotifyKeyspaceEvent(ctx, kNotifyZset, ToLower(ctx.arg(0)), ctx.db, key);
    Commit(ctx, key, e, z, removed);
  }
  ctx.reply.Integer(static_cast<int64_t>(removed));
}

}  // namespace

// ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
void CmdZRange(CommandContext& ctx) {
  RangeGeneric(ctx, 1, false, RangeType::kAuto, Direction::kAuto);
}

// ZRANGESTORE dst src min max [BYSCORE|BYLEX] [REV] [LIMIT offset count]
void CmdZRangeStore(CommandContext& ctx) {
  RangeGeneric(ctx, 2, true, RangeType::kAuto, Direction::kAuto);
}

// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
void CmdZRangeByScore(CommandContext& ctx) {
  RangeGeneric(ctx, 1, false, RangeType::kScore, Direction::kForward);
}

// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
void CmdZRevRangeByScore(CommandContext& ctx) {
  RangeGeneric(ctx, 1, false, RangeType::kScore, Direction::kReverse);
}

// ZRANGEBYLEX key min max [LIMIT offset count]
void CmdZRangeByLex(CommandContext& ctx) {
  RangeGeneric(ctx, 1, false, RangeType::kLex, Direction::kForward);
}

// ZREVRANGEBYLEX key max min [LIMIT offset count]
void CmdZRevRangeByLex(CommandContext& ctx) {
  RangeGeneric(ctx, 1, false, RangeType::kLex, Direction::kReverse);
}

// ZREVRANGE key start stop [WITHSCORES]
void CmdZRevRange(CommandContext& ctx) {
  RangeGeneric(ctx, 1, false, RangeType::kRank, Direction::kReverse);
}

void CmdZRemRangeByRank(CommandContext& ctx) { RemRangeGeneric(ctx, RangeType::kRank); }
void CmdZRemRangeByScore(CommandContext& ctx) { RemRangeGeneric(ctx, RangeType::kScore); }
void CmdZRemRangeByLex(CommandContext& ctx) { RemRangeGeneric(ctx, RangeType::kLex); }

// ZCOUNT key min max
void CmdZCount(CommandContext& ctx) {
  ScoreRange range;
  if (!ParseScoreRange(ctx.arg(2), ctx.arg(3), &range)) {
    ctx.reply.Error(kErrScoreRange);
    return;
  }
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  ctx.reply.Integer(e == nullptr ? 0 : static_cast<int64_t>(ScoreSpan(ZSet::Of(e), range).Size()));
}

// ZLEXCOUNT key min max
void CmdZLexCount(CommandContext& ctx) {
  LexRange range;
  if (!ParseLexRange(ctx.arg(2), ctx.arg(3), &range)) {
    ctx.reply.Error(kErrLexRange);
    return;
  }
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  ctx.reply.Integer(e == nullptr ? 0 : static_cast<int64_t>(LexSpan(ZSet::Of(e), range).Size()));
}

}  // namespace vireo::zset_cmd
