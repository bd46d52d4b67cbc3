// Sorted set family, part 4: pops. ZPOPMIN ZPOPMAX BZPOPMIN BZPOPMAX ZMPOP BZMPOP. The blocking
// forms serve like the plain ones when a key has members, else park the client (the server
// re-runs the command when a key they wait on is written).
#include <algorithm>
#include <string>
#include <vector>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/zset_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"

namespace vireo::zset_cmd {
namespace {

// How a pop's reply is shaped.
enum class PopReply {
  kSingle,  // ZPOPMIN key: member, score
  kCount,   // ZPOPMIN key count: flat pairs (RESP2) or pairs (RESP3)
  kKeyed,   // BZPOPMIN: key, member, score
  kNested,  // ZMPOP/BZMPOP: key, [[member, score], ...]
};

// Pops up to count elements from the low (or, max, the high) end of key's non-empty set.
void PopFrom(CommandContext& ctx, std::string_view key, Entry* e, bool max, size_t count,
             PopReply shape) {
  ZSet z = ZSet::Of(e);
  const size_t len = z.Length();
  const size_t n = std::min(count, len);
  // Blocking and multi-key pops replay as the plain pop they did (Valkey 7).
  if ((shape == PopReply::kKeyed || shape == PopReply::kNested) && ctx.Propagating()) {
    std::vector<std::string> pop{max ? "ZPOPMAX" : "ZPOPMIN", std::string(key)};
    if (shape == PopReply::kNested) pop.push_back(std::to_string(n));
    ctx.PropagateAs(std::move(pop));
  }
  switch (shape) {
    case PopReply::kSingle:
      ctx.reply.Array(2);
      break;
    case PopReply::kCount:
      ReplyElementsHeader(ctx, n, true);
      break;
    case PopReply::kKeyed:
      ctx.reply.Array(3);
      ctx.reply.Bulk(key);
      break;
    case PopReply::kNested:
      ctx.reply.Array(2);
      ctx.reply.Bulk(key);
      ctx.reply.Array(n);
      break;
  }
  ZSet::Iterator it = z.Seek(max ? len - 1 : 0);
  for (size_t i = 0; i < n; ++i) {
    if (shape == PopReply::kCount) {
      ReplyElement(ctx, it.Member(), it.Score(), true);
    } else {
      if (shape == PopReply::kNested) ctx.reply.Array(2);
      ctx.reply.Bulk(it.Member());
      ReplyScore(ctx, it.Score());
    }
    if (max) {
      it.Prev();
    } else {
      it.Next();
    }
  }
  if (max) {
    z.RemoveRange(len - n, len - 1);
  } else {
    z.RemoveRange(0, n - 1);
  }
  NotifyKeyspaceEvent(ctx, kNotifyZset, max ? "zpopmax" : "zpopmin", ctx.db, key);
  Commit(ctx, key, e, z, n);
}

// The first key holding a sorted set, in order; WRONGTYPE (and *wrong) at the first key of
// another type met before it. nullptr when none holds one.
Entry* FirstNonEmpty(CommandContext& ctx, const std::vector<std::string_view>& keys,
                     std::string_view* found, bool* wrong) {
  for (std::string_view key : keys) {
    Entry* e = FindWrite(ctx, key, wrong);
    if (*wrong) return nullptr;
    if (e != nullptr) {
      *found = key;
      return e;
    }
  }
  return nullptr;
}

// ZPOPMIN / ZPOPMAX key [count]
void PopGeneric(CommandContext& ctx, bool max) {
  if (ctx.argc() > 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t count = 1;
  const bool counted = ctx.argc() == 3;
  if (counted && (!ParseInt64(ctx.arg(2), &count) || count < 0)) {
    ctx.reply.Error("ERR value is out of range, must be positive");
    return;
  }
  std::string_view key = ctx.arg(1);
  bool wrong = false;
  Entry* e = FindWrite(ctx, key, &wrong);
  if (wrong) return;
  if (e == nullptr || count == 0) {
    ctx.reply.EmptyArray();
    return;
  }
  PopFrom(ctx, key, e, max, static_cast<size_t>(count),
          counted ? PopReply::kCount : PopReply::kSingle);
}

// Serves a blocking pop from the first non-empty key, or blocks (or, unable to block, replies
// the timeout's null).
void ServeOrBlock(CommandContext& ctx, const std::vector<std::string_view>& keys, int64_t deadline,
                  bool max, size_t count, PopReply shape) {
  std::string_view found;
  bool wrong = false;
  Entry* e = FirstNonEmpty(ctx, keys, &found, &wrong);
  if (wrong) return;
  if (e != nullptr) {
    PopFrom(ctx, found, e, max, count, shape);
    return;
  }
  if (!ctx.CanBlock()) {
    ctx.reply.NullArray();
    return;
  }
  ctx.Block(keys, deadline, ObjType::kZSet, BlockTimeoutReply::kNullArray);
}

bool ParseTimeout(CommandContext& ctx, std::string_view arg, int64_t* deadline) {
  std::string error;
  if (!ParseBlockTimeout(arg, NowMs(), deadline, &error)) {
    ctx.reply.Error("ERR " + error);
    return false;
  }
  return true;
}

// BZPOPMIN / BZPOPMAX key [key ...] timeout
void BlockingPopGeneric(CommandContext& ctx, bool max) {
  int64_t deadline;
  if (!ParseTimeout(ctx, ctx.arg(ctx.argc() - 1), &deadline)) return;
  std::vector<std::string_view> keys(ctx.args.begin() + 1, ctx.args.end() - 1);
  ServeOrBlock(ctx, keys, deadline, max, 1, PopReply::kKeyed);
}

// ZMPOP / BZMPOP: numkeys key [key ...] MIN|MAX [COUNT count], numkeys at numkeys_index.
void MPopGeneric(CommandContext& ctx, size_t numkeys_index, bool blocking) {
  int64_t numkeys;
  if (!ParseInt64(ctx.arg(numkeys_index), &numkeys) || numkeys < 1) {
    ctx.reply.Error("ERR numkeys should be greater than 0");
    return;
  }
  if (static_cast<uint64_t>(numkeys) >= ctx.argc() - numkeys_index - 1) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  const size_t where_index = numkeys_index + static_cast<size_t>(numkeys) + 1;
  bool max;
  if (EqualsIgnoreCase(ctx.arg(where_index), "min")) {
    max = false;
  } else if (EqualsIgnoreCase(ctx.arg(where_index), "max")) {
    max = true;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t count = -1;
  for (size_t j = where_index + 1; j < ctx.argc(); ++j) {
    const bool more = j + 1 < ctx.argc();
    if (count == -1 && more && EqualsIgnoreCase(ctx.arg(j), "count")) {
      ++j;
      if (!ParseInt64(ctx.arg(j), &count) || count < 1) {
        ctx.reply.Error("ERR count should be greater than 0");
        return;
      }
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if (count == -1) count = 1;
  std::vector<std::string_view> keys(ctx.args.begin() + static_cast<long>(numkeys_index) + 1,
                                     ctx.args.begin() + static_cast<long>(where_index));
  if (blocking) {
    int64_t deadline;
    if (!ParseTimeout(ctx, ctx.arg(1), &deadline)) return;
    ServeOrBlock(ctx, keys, deadline, max, static_cast<size_t>(count), PopReply::kNested);
    return;
  }
  std::string_view found;
  bool wrong = false;
  Entry* e = FirstNonEmpty(ctx, keys, &found, &wrong);
  if (wrong) return;
  if (e == nullptr) {
    ctx.reply.NullArray();
    return;
  }
  PopFrom(ctx, found, e, max, static_cast<size_t>(count), PopReply::kNested);
}

}  // namespace

void CmdZPopMin(CommandContext& ctx) { PopGeneric(ctx, false); }
void CmdZPopMax(CommandContext& ctx) { PopGeneric(ctx, true); }
void CmdBZPopMin(CommandContext& ctx) { BlockingPopGeneric(ctx, false); }
void CmdBZPopMax(CommandContext& ctx) { BlockingPopGeneric(ctx, true); }
// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
void CmdZMPop(CommandContext& ctx) { MPopGeneric(ctx, 1, false); }
// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
void CmdBZMPop(CommandContext& ctx) { MPopGeneric(ctx, 2, true); }

}  // namespace vireo::zset_cmd
