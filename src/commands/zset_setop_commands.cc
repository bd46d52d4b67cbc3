// Sorted set family, part 3: set operations. ZUNION ZINTER ZDIFF ZUNIONSTORE ZINTERSTORE
// ZDIFFSTORE ZINTERCARD. Plain sets are accepted as inputs, every member scoring 1.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/zset_family.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "store/hash_table.h"
#include "store/set_value.h"

namespace vireo::zset_cmd {
namespace {

enum class SetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// One input: a sorted set, a plain set, or a missing key (empty).
struct Source {
  const Entry* e = nullptr;
  double weight = 1;

  size_t Length() const {
    if (e == nullptr) return 0;
    return e->type() == ObjType::kZSet ? ZSet::Of(e).Length() : SetSize(SetOf(e));
  }
  bool Find(std::string_view member, double* score) const {
    if (e == nullptr) return false;
    if (e->type() == ObjType::kZSet) return ZSet::Of(e).Score(member, score);
    *score = 1.0;
    return SetContains(SetOf(e), member);
  }
  // fn(member, score) for every element.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    if (e == nullptr) return;
    if (e->type() == ObjType::kZSet) {
      for (ZSet::Iterator it = ZSet::Of(e).Seek(0); it.Valid(); it.Next()) {
        fn(it.Member(), it.Score());
      }
      return;
    }
    char buf[24];
    SetForEach(SetOf(e), [&](const SetElem& el) {
      fn(el.View(buf), 1.0);
      return true;
    });
  }
};

// Valkey's aggregation: inf + -inf gives 0 rather than NaN; MIN/MAX keep the current value
// against NaN.
void AggregateInto(double* target, double value, Aggregate agg) {
  switch (agg) {
    case Aggregate::kSum:
      *target += value;
      if (std::isnan(*target)) *target = 0.0;
      break;
    case Aggregate::kMin:
      *target = value < *target ? value : *target;
      break;
    case Aggregate::kMax:
      *target = value > *target ? value : *target;
      break;
  }
}

bool NodeLess(const ZNode* a, const ZNode* b) {
  if (a->score != b->score) return a->score < b->score;
  return CompareMembers(a->Key(), b->Key()) < 0;
}

// Computes the operation over sources into nodes (distinct members, unordered).
void Compute(SetOp op, std::vector<Source>& src, Aggregate agg, std::vector<ZNode*>* nodes) {
  if (op == SetOp::kDiff) {
    src[0].ForEach([&](std::string_view member, double score) {
      double ignored;
      for (size_t j = 1; j < src.size(); ++j) {
        if (src[j].Find(member, &ignored)) return;
      }
      nodes->push_back(NewZNode(member, score));
    });
    return;
  }
  // Smallest inputs first, as Valkey orders them: it decides the order scores are summed in.
  std::stable_sort(src.begin(), src.end(),
                   [](const Source& a, const Source& b) { return a.Length() < b.Length(); });
  if (op == SetOp::kInter) {
    if (src[0].Length() == 0) return;
    src[0].ForEach([&](std::string_view member, double value) {
      double score = src[0].weight * value;
      if (std::isnan(score)) score = 0;
      for (size_t j = 1; j < src.size(); ++j) {
        double v;
        if (!src[j].Find(member, &v)) return;
        AggregateInto(&score, v * src[j].weight, agg);
      }
      nodes->push_back(NewZNode(member, score));
    });
    return;
  }
  HashTable<ZNode> acc;
  for (const Source& s : src) {
    s.ForEach([&](std::string_view member, double value) {
      double score = s.weight * value;
      if (std::isnan(score)) score = 0;
      ZNode* n = acc.Find(member);
      if (n == nullptr) {
        acc.Insert(NewZNode(member, score));
      } else {
        AggregateInto(&n->score, score, agg);
      }
    });
  }
  nodes->reserve(acc.Size());
  acc.Clear([&](ZNode* n) { nodes->push_back(n); });
}

// ZINTERCARD's count: members of the smallest input found in all others, up to limit (0: all).
size_t InterCard(std::vector<Source>& src, int64_t limit) {
  std::stable_sort(src.begin(), src.end(),
                   [](const Source& a, const Source& b) { return a.Length() < b.Length(); });
  size_t count = 0;
  if (src[0].Length() == 0) return 0;
  // Stop early through a flag: ForEach has no break.
  bool done = false;
  src[0].ForEach([&](std::string_view member, double) {
    if (done) return;
    double v;
    for (size_t j = 1; j < src.size(); ++j) {
      if (!src[j].Find(member, &v)) return;
    }
    ++count;
    if (limit > 0 && count >= static_cast<size_t>(limit)) done = true;
  });
  return count;
}

// The common body: numkeys at numkeys_index, keys, then options; store commands name the
// destination first.
void SetOpGeneric(CommandContext& ctx, bool store, size_t numkeys_index, SetOp op,
                  bool cardinality_only, const char* name) {
  const std::string_view dst = store ? ctx.arg(1) : std::string_view();
  int64_t numkeys;
  if (!ParseInt64(ctx.arg(numkeys_index), &numkeys)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (numkeys < 1) {
    ctx.reply.Error(std::string("ERR at least 1 input key is needed for '") + name + "' command");
    return;
  }
  if (static_cast<uint64_t>(numkeys) > ctx.argc() - numkeys_index - 1) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::vector<Source> src(static_cast<size_t>(numkeys));
  size_t j = numkeys_index + 1;
  for (Source& s : src) {
    std::string_view key = ctx.arg(j++);
    Entry* e = store ? ctx.db->Find(key) : ctx.db->Lookup(key);
    if (e != nullptr && e->type() != ObjType::kZSet && e->type() != ObjType::kSet) {
      ctx.reply.Error(errors::kWrongType);
      return;
    }
    s.e = e;
  }
  Aggregate agg = Aggregate::kSum;
  bool with_scores = false;
  int64_t limit = 0;
  const bool weighted = op != SetOp::kDiff && !cardinality_only;
  while (j < ctx.argc()) {
    const size_t remaining = ctx.argc() - j;
    std::string_view opt = ctx.arg(j);
    if (weighted && remaining >= src.size() + 1 && EqualsIgnoreCase(opt, "weights")) {
      ++j;
      for (Source& s : src) {
        if (!ParseDouble(ctx.arg(j++), &s.weight)) {
          ctx.reply.Error("ERR weight value is not a float");
          return;
        }
      }
    } else if (weighted && remaining >= 2 && EqualsIgnoreCase(opt, "aggregate")) {
      std::string_view how = ctx.arg(j + 1);
      if (EqualsIgnoreCase(how, "sum")) {
        agg = Aggregate::kSum;
      } else if (EqualsIgnoreCase(how, "min")) {
        agg = Aggregate::kMin;
      } else if (EqualsIgnoreCase(how, "max")) {
        agg = Aggregate::kMax;
      } else {
        ctx.reply.Error(errors::kSyntax);
        return;
      }
      j += 2;
    } else if (!store && !cardinality_only && EqualsIgnoreCase(opt, "withscores")) {
      with_scores = true;
      ++j;
    } else if (cardinality_only && remaining >= 2 && EqualsIgnoreCase(opt, "limit")) {
      if (!ParseInt64(ctx.arg(j + 1), &limit) || limit < 0) {
        ctx.reply.Error("ERR LIMIT can't be negative");
        return;
      }
      j += 2;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }

  if (cardinality_only) {
    ctx.reply.Integer(static_cast<int64_t>(InterCard(src, limit)));
    return;
  }
  std::vector<ZNode*> nodes;
  Compute(op, src, agg, &nodes);
  if (store) {
    const size_t count = nodes.size();
    if (count == 0) {
      if (ctx.db->Delete(dst)) {
        ctx.KeyModified(ctx.db, dst);
        NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, dst);
      }
    } else {
      ZSet z = ZSet::FromNodes(&nodes, Limits(ctx));
      ctx.db->Delete(dst);
      z.StoreTo(ctx.db->Add(dst));
      ctx.KeyModified(ctx.db, dst);
      // zunionstore, zinterstore or zdiffstore: the command's name.
      NotifyKeyspaceEvent(ctx, kNotifyZset, ToLower(ctx.arg(0)), ctx.db, dst);
    }
    ctx.reply.Integer(static_cast<int64_t>(count));
    return;
  }
  std::sort(nodes.begin(), nodes.end(), NodeLess);
  ReplyElementsHeader(ctx, nodes.size(), with_scores);
  for (ZNode* n : nodes) {
    ReplyElement(ctx, n->Key(), n->score, with_scores);
    FreeZNode(n);
  }
}

}  // namespace

// ZUNION numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
void CmdZUnion(CommandContext& ctx) { SetOpGeneric(ctx, false, 1, SetOp::kUnion, false, "zunion"); }
// ZINTER numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
void CmdZInter(CommandContext& ctx) { SetOpGeneric(ctx, false, 1, SetOp::kInter, false, "zinter"); }
// ZDIFF numkeys key [key ...] [WITHSCORES]
void CmdZDiff(CommandContext& ctx) { SetOpGeneric(ctx, false, 1, SetOp::kDiff, false, "zdiff"); }

// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX]
void CmdZUnionStore(CommandContext& ctx) {
  SetOpGeneric(ctx, true, 2, SetOp::kUnion, false, "zunionstore");
}
// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX]
void CmdZInterStore(CommandContext& ctx) {
  SetOpGeneric(ctx, true, 2, SetOp::kInter, false, "zinterstore");
}
// ZDIFFSTORE destination numkeys key [key ...]
void CmdZDiffStore(CommandContext& ctx) {
  SetOpGeneric(ctx, true, 2, SetOp::kDiff, false, "zdiffstore");
}
// ZINTERCARD numkeys key [key ...] [LIMIT limit]
void CmdZInterCard(CommandContext& ctx) {
  SetOpGeneric(ctx, false, 1, SetOp::kInter, true, "zintercard");
}

}  // namespace vireo::zset_cmd
