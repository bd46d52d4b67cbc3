// Shared pieces of the sorted set command family (zset_*commands.cc): key lookups with type
// checks, Valkey's range parsers, reply shapes, and the handlers each file defines.
#pragma once

#include <cstdint>
#include <string_view>

#include "commands/context.h"
#include "store/zset_value.h"

namespace vireo::zset_cmd {

// The encoding thresholds in force now (CONFIG SET applies to the next write).
ZSetLimits Limits(CommandContext& ctx);

// Key lookups. A key of another type replies WRONGTYPE and sets *wrong (the entry is then null).
Entry* FindRead(CommandContext& ctx, std::string_view key, bool* wrong);
Entry* FindWrite(CommandContext& ctx, std::string_view key, bool* wrong);
// After a write to e: stores the (possibly moved) handle back, or deletes the key when the set
// became empty; then KeyModified with the number of elements changed (Valkey's dirty count).
void Commit(CommandContext& ctx, std::string_view key, Entry* e, const ZSet& z, size_t changes);

// A score interval as ZRANGEBYSCORE takes it: "(" for exclusive, strtod syntax otherwise.
struct ScoreRange {
  double min = 0, max = 0;
  bool min_ex = false, max_ex = false;
};
bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange* out);
inline constexpr const char* kErrScoreRange = "ERR min or max is not a float";

// A lex interval: "[x" inclusive, "(x" exclusive, "-" and "+" the ends.
struct LexBound {
  enum Kind : uint8_t { kInclusive, kExclusive, kMinusInf, kPlusInf } kind = kInclusive;
  std::string_view value;
};
struct LexRange {
  LexBound min, max;
};
bool ParseLexRange(std::string_view min, std::string_view max, LexRange* out);
inline constexpr const char* kErrLexRange = "ERR min or max not valid string range item";

// Ranks [first, last) of the elements inside a range (first >= last: none).
struct RankSpan {
  size_t first = 0, last = 0;
  size_t Size() const { return last > first ? last - first : 0; }
};
RankSpan ScoreSpan(const ZSet& z, const ScoreRange& r);
RankSpan LexSpan(const ZSet& z, const LexRange& r);

// A score reply (ReplyBuilder::Double): bulk text in RESP2, a double in RESP3.
void ReplyScore(CommandContext& ctx, double score);
// Replies count elements: members alone, or member/score pairs (flat in RESP2, [member,
// score] pairs in RESP3, as Valkey's range replies do).
void ReplyElementsHeader(CommandContext& ctx, size_t count, bool with_scores);
void ReplyElement(CommandContext& ctx, std::string_view member, double score, bool with_scores);

// Handlers defined across the family's files.
void CmdZRange(CommandContext& ctx);
void CmdZRangeStore(CommandContext& ctx);
void CmdZRangeByScore(CommandContext& ctx);
void CmdZRevRangeByScore(CommandContext& ctx);
void CmdZRangeByLex(CommandContext& ctx);
void CmdZRevRangeByLex(CommandContext& ctx);
void CmdZRevRange(CommandContext& ctx);
void CmdZRemRangeByRank(CommandContext& ctx);
void CmdZRemRangeByScore(CommandContext& ctx);
void CmdZRemRangeByLex(CommandContext& ctx);
void CmdZCount(CommandContext& ctx);
void CmdZLexCount(CommandContext& ctx);

void CmdZPopMin(CommandContext& ctx);
void CmdZPopMax(CommandContext& ctx);
void CmdBZPopMin(CommandContext& ctx);
void CmdBZPopMax(CommandContext& ctx);
void CmdZMPop(CommandContext& ctx);
void CmdBZMPop(CommandContext& ctx);

void CmdZRandMember(CommandContext& ctx);
void CmdZScan(CommandContext& ctx);

void CmdZUnion(CommandContext& ctx);
void CmdZInter(CommandContext& ctx);
void CmdZDiff(CommandContext& ctx);
void CmdZUnionStore(CommandContext& ctx);
void CmdZInterStore(CommandContext& ctx);
void CmdZDiffStore(CommandContext& ctx);
void CmdZInterCard(CommandContext& ctx);

}  // namespace vireo::zset_cmd
