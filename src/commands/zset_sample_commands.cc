// Sorted set family, part 5: ZRANDMEMBER and ZSCAN, the commands that visit a random sample or
// a hash-ordered slice of a set.
#include <algorithm>
#include <charconv>
#include <string>
#include <unordered_set>
#include <vector>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/scan_options.h"
#include "commands/zset_family.h"
#include "common/glob.h"
#include "common/numbers.h"
#include "store/zset_listpack.h"

namespace vireo::zset_cmd {
namespace {

// ZRANDMEMBER with a count: negative counts may repeat members, positive ones do not. The
// whole set comes back highest score first (as Valkey 7 replies it); a distinct sample comes
// in the set's order.
void RandMemberWithCount(CommandContext& ctx, int64_t count, bool with_scores) {
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  if (e == nullptr || count == 0) {
    ctx.reply.EmptyArray();
    return;
  }
  ZSet z = ZSet::Of(e);
  const size_t size = z.Length();
  const bool unique = count > 0;
  const uint64_t n = unique ? static_cast<uint64_t>(count) : 0 - static_cast<uint64_t>(count);
  if (!unique || n == 1) {
    ReplyElementsHeader(ctx, n, with_scores);
    if (z.IsListPack()) {
      // Seeking in a listpack walks it; index the elements once.
      std::vector<ZSet::Iterator> at;
      at.reserve(size);
      for (ZSet::Iterator it = z.Seek(0); it.Valid(); it.Next()) at.push_back(it);
      for (uint64_t i = 0; i < n; ++i) {
        ZSet::Iterator& it = at[z.RandomRank()];
        ReplyElement(ctx, it.Member(), it.Score(), with_scores);
      }
    } else {
      for (uint64_t i = 0; i < n; ++i) {
        ZSet::Iterator it = z.Seek(z.RandomRank());
        ReplyElement(ctx, it.Member(), it.Score(), with_scores);
      }
    }
    return;
  }
  if (n >= size) {
    ReplyElementsHeader(ctx, size, with_scores);
    for (ZSet::Iterator it = z.Seek(size - 1); it.Valid(); it.Prev()) {
      ReplyElement(ctx, it.Member(), it.Score(), with_scores);
    }
    return;
  }
  ReplyElementsHeader(ctx, n, with_scores);
  if (n * 3 > size) {
    // Selection sampling: one ordered pass, each element kept with probability needed/left.
    uint64_t needed = n, left = size;
    for (ZSet::Iterator it = z.Seek(0); needed > 0; it.Next(), --left) {
      if (hash_table_internal::NextRandom() % left < needed) {
        ReplyElement(ctx, it.Member(), it.Score(), with_scores);
        --needed;
      }
    }
    return;
  }
  // Few picks from many: Floyd's distinct sample of ranks, then each found by rank.
  std::unordered_set<size_t> picked;
  for (size_t j = size - n; j < size; ++j) {
    size_t r = hash_table_internal::NextRandom() % (j + 1);
    if (!picked.insert(r).second) picked.insert(j);
  }
  std::vector<size_t> ranks(picked.begin(), picked.end());
  std::sort(ranks.begin(), ranks.end());
  for (size_t r : ranks) {
    ZSet::Iterator it = z.Seek(r);
    ReplyElement(ctx, it.Member(), it.Score(), with_scores);
  }
}

}  // namespace

// ZRANDMEMBER key [count [WITHSCORES]]
void CmdZRandMember(CommandContext& ctx) {
  if (ctx.argc() >= 3) {
    int64_t count;
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
    bool with_scores = false;
    if (ctx.argc() > 4 || (ctx.argc() == 4 && !EqualsIgnoreCase(ctx.arg(3), "withscores"))) {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    if (ctx.argc() == 4) {
      with_scores = true;
      // The reply would hold twice as many items as a signed long can count.
      if (count < -INT64_MAX / 2 || count > INT64_MAX / 2) {
        ctx.reply.Error("ERR value is out of range");
        return;
      }
    }
    RandMemberWithCount(ctx, count, with_scores);
    return;
  }
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  ZSet z = ZSet::Of(e);
  ZSet::Iterator it = z.Seek(z.RandomRank());
  ctx.reply.Bulk(it.Member());
}

// ZSCAN key cursor [MATCH pattern] [COUNT count] [NOSCORES]
void CmdZScan(CommandContext& ctx) {
  uint64_t cursor;
  if (!ParseScanCursor(ctx.arg(2), &cursor)) {
    ctx.reply.Error(errors::kInvalidCursor);
    return;
  }
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  if (e == nullptr) {
    ctx.reply.Array(2);
    ctx.reply.Bulk("0");
    ctx.reply.EmptyArray();
    return;
  }
  ScanOptions opt;
  if (!ParseScanOptions(ctx, 3, "noscores", false, &opt)) return;
  int64_t count = opt.count;
  std::string_view pattern = opt.pattern;
  bool no_scores = opt.flag;
  const bool all = opt.MatchesAll();
  // Member and score texts to reply; a listpack's integers are formatted on the fly, and its
  // scores go out as stored (as Valkey replies them), so both are kept as strings.
  std::vector<std::string> items;
  auto collect = [&](std::string_view member, std::string_view score) {
    if (!all && !GlobMatch(pattern, member)) return;
    items.emplace_back(member);
    if (!no_scores) items.emplace_back(score);
  };
  ZSet z = ZSet::Of(e);
  char sbuf[32];
  if (z.IsListPack()) {
    for (ZSet::Iterator it = z.Seek(0); it.Valid(); it.Next()) {
      collect(it.Member(), it.ScoreText(sbuf));
    }
    cursor = 0;
  } else {
    // As Valkey: stop once about `count` reply items (member and score each count) were
    // seen, or after 10 * count buckets, so a sparse table cannot stall the server.
    const uint64_t want = static_cast<uint64_t>(count);
    uint64_t max_steps = want > UINT64_MAX / 10 ? UINT64_MAX : want * 10;
    uint64_t seen = 0;
    do {
      cursor = z.Scan(cursor, [&](std::string_view member, double score) {
        seen += 2;
        // Valkey 8 still formats these with "%.17g".
        collect(member, std::string_view(sbuf, FormatDoubleG17To(sbuf, score)));
      });
    } while (cursor != 0 && --max_steps != 0 && seen < want);
  }
  char cbuf[24];
  auto [end, ec] = std::to_chars(cbuf, cbuf + sizeof(cbuf), cursor);
  (void)ec;
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::string_view(cbuf, static_cast<size_t>(end - cbuf)));
  ctx.reply.Array(items.size());
  for (const std::string& item : items) ctx.reply.Bulk(item);
}

}  // namespace vireo::zset_cmd
