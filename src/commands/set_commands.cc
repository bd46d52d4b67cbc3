// Set family: SADD SREM SMEMBERS SISMEMBER SMISMEMBER SCARD SPOP SRANDMEMBER SMOVE SINTER
// SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE SSCAN. The encodings live in
// store/set_value.h; this file parses arguments and shapes replies.
#include <algorithm>
#include <charconv>
#include <climits>
#include <string_view>
#include <vector>

#include "commands/context.h"
#include "commands/digest.h"
#include "commands/errors.h"
#include "commands/scan_options.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/glob.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/access_clock.h"
#include "store/memory.h"
#include "store/set_value.h"

namespace vireo {
namespace {

constexpr const char* kCountNotPositive = "ERR value is out of range, must be positive";
constexpr const char* kRandCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and "
    "9223372036854775807";
constexpr const char* kNumKeysNotPositive = "ERR numkeys should be greater than 0";
constexpr const char* kTooManyNumKeys = "ERR Number of keys can't be greater than number of args";
constexpr const char* kLimitNegative = "ERR LIMIT can't be negative";

// A reply with repeated random members stops (and the client is closed) past this size, so a
// huge negative SRANDMEMBER count cannot exhaust memory.
constexpr size_t kMaxRandomReplyBytes = size_t{512} << 20;

// ---------------------------------------------------------------------------------------------
// Helpers

SetLimits LimitsOf(CommandContext& ctx) {
  const Config& c = ctx.server.config();
  auto clamp = [](int64_t v) { return v < 0 ? size_t{0} : static_cast<size_t>(v); };
  return {clamp(c.set_max_intset_entries), clamp(c.set_max_listpack_entries),
          clamp(c.set_max_listpack_value)};
}

bool IsSet(const Entry* e) { return e->type() == ObjType::kSet; }

// Key's live entry for a write: no hit/miss stats, but the access clock moves.
Entry* FindForWrite(Db* db, std::string_view key) {
  Entry* e = db->Find(key);
  if (e != nullptr) TouchAccess(e);
  return e;
}

// Replies WRONGTYPE and returns false when e exists and is not a set.
bool CheckSetOrMissing(CommandContext& ctx, const Entry* e) {
  if (e == nullptr || IsSet(e)) return true;
  ctx.reply.Error(errors::kWrongType);
  return false;
}

void ReplyElem(CommandContext& ctx, const SetElem& el) {
  if (el.is_int) {
    ctx.reply.BulkInt(el.ival);
  } else {
    ctx.reply.Bulk(el.str);
  }
}

void ReplyWholeSet(CommandContext& ctx, const SetObj& s) {
  ctx.reply.Set(SetSize(s));
  SetForEach(s, [&](const SetElem& el) {
    ReplyElem(ctx, el);
    return true;
  });
}

// Members gathered for a reply whose length is known only at the end. Kept between commands
// so replies do not allocate; the views die with the command.
std::vector<SetElem>& Scratch() {
  static std::vector<SetElem> elems;
  elems.clear();
  return elems;
}

void ReleaseScratch(std::vector<SetElem>& elems) {
  if (elems.capacity() > 4096) {
    std::vector<SetElem>().swap(elems);
  } else {
    elems.clear();
  }
}

// Makes the set s (non-empty) the value of dst, replacing whatever dst held (TTL included), as
// the *STORE commands do; an empty s deletes dst instead. Replies the new size.
void StoreResult(CommandContext& ctx, std::string_view dst, SetObj s) {
  Db* db = ctx.db;
  size_t size = SetSize(s);
  bool existed = db->Delete(dst, ctx.server.config().lazyfree_lazy_server_del);
  if (size == 0) {
    SetFree(s);
    if (existed) {
      ctx.KeyModified(db, dst);
      NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", db, dst);
    }
    ctx.reply.Integer(0);
    return;
  }
  PutSet(db->Add(dst), s);
  ctx.KeyModified(db, dst);
  // The event is the command's name: sinterstore, sunionstore, sdiffstore.
  NotifyKeyspaceEvent(ctx, kNotifySet, ToLower(ctx.arg(0)), db, dst);
  ctx.reply.Integer(static_cast<int64_t>(size));
}

// The sets named by keys, for reading (nullptr for a missing key). False after replying
// WRONGTYPE for the first key holding another type.
bool LookupSets(CommandContext& ctx, size_t first, size_t count, std::vector<const Entry*>* out) {
  out->clear();
  for (size_t i = first; i < first + count; ++i) {
    const Entry* e = ctx.db->Lookup(ctx.arg(i));
    if (!CheckSetOrMissing(ctx, e)) return false;
    out->push_back(e);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Single-key commands

// SADD key member [member ...]
void CmdSAdd(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  if (!CheckSetOrMissing(ctx, e)) return;
  SetLimits lim = LimitsOf(ctx);
  size_t n = ctx.argc() - 2;
  SetObj s;
  if (e == nullptr) {
    s = SetCreate(ctx.arg(2), n, lim);
    e = ctx.db->Add(key);
  } else {
    s = SetOf(e);
    SetMaybeConvert(&s, n, lim);
  }
  int added = 0;
  for (size_t i = 2; i < ctx.argc(); ++i) added += SetAdd(&s, ctx.arg(i), lim);
  PutSet(e, s);
  if (added > 0) {
    ctx.KeyModified(ctx.db, key, added);
    NotifyKeyspaceEvent(ctx, kNotifySet, "sadd", ctx.db, key);
  }
  ctx.reply.Integer(added);
}

// SREM key member [member ...]
void CmdSRem(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  if (!CheckSetOrMissing(ctx, e)) return;
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  SetObj s = SetOf(e);
  int removed = 0;
  bool emptied = false;
  for (size_t i = 2; i < ctx.argc(); ++i) {
    if (!SetRemove(&s, ctx.arg(i))) continue;
    ++removed;
    if (SetSize(s) == 0) {
      emptied = true;
      break;
    }
  }
  PutSet(e, s);
  if (emptied) ctx.db->Delete(key);
  if (removed > 0) {
    ctx.KeyModified(ctx.db, key, removed);
    NotifyKeyspaceEvent(ctx, kNotifySet, "srem", ctx.db, key);
    if (emptied) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
  }
  ctx.reply.Integer(removed);
}

// SMEMBERS key
void CmdSMembers(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (!CheckSetOrMissing(ctx, e)) return;
  if (e == nullptr) {
    ctx.reply.Set(0);
    return;
  }
  ReplyWholeSet(ctx, SetOf(e));
}

// SISMEMBER key member
void CmdSIsMember(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (!CheckSetOrMissing(ctx, e)) return;
  ctx.reply.Integer(e != nullptr && SetContains(SetOf(e), ctx.arg(2)) ? 1 : 0);
}

// SMISMEMBER key member [member ...]
void CmdSMIsMember(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (!CheckSetOrMissing(ctx, e)) return;
  ctx.reply.Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); ++i) {
    ctx.reply.Integer(e != nullptr && SetContains(SetOf(e), ctx.arg(i)) ? 1 : 0);
  }
}

// SCARD key
void CmdSCard(CommandContext& ctx) {
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (!CheckSetOrMissing(ctx, e)) return;
  ctx.reply.Integer(e != nullptr ? static_cast<int64_t>(SetSize(SetOf(e))) : 0);
}

// SPOP key count, count >= 1 and below the set's size: as Valkey, pop one at a time while
// few are taken, else keep `remaining` random members in a new set and return the old one.
// popped (when not null) collects the members for propagation.
void PopSome(CommandContext& ctx, Entry* e, size_t count, std::vector<std::string>* popped) {
  char buf[24];
  SetObj s = SetOf(e);
  size_t remaining = SetSize(s) - count;
  ctx.reply.Set(count);
  if (remaining * 5 > count) {
    for (size_t i = 0; i < count; ++i) {
      SetElem el = SetRandom(s);
      ReplyElem(ctx, el);
      if (popped != nullptr) popped->emplace_back(el.View(buf));
      SetRemoveElem(&s, el);
    }
    PutSet(e, s);
    return;
  }
  SetLimits lim = LimitsOf(ctx);
  SetObj kept;
  bool have_kept = false;
  if (s.enc == Encoding::kListPack) {
    kept = SetCreateEmpty(Encoding::kListPack);
    have_kept = true;
  }
  for (size_t i = 0; i < remaining; ++i) {
    SetElem el = SetRandom(s);
    if (!have_kept) {
      kept = SetCreateEmpty(el.is_int ? Encoding::kIntSet : Encoding::kListPack);
      have_kept = true;
    }
    SetAddElem(&kept, el, lim);  // copies the member before it leaves s
    SetRemoveElem(&s, el);
  }
  SetForEach(s, [&](const SetElem& el) {
    ReplyElem(ctx, el);
    if (popped != nullptr) popped->emplace_back(el.View(buf));
    return true;
  });
  SetFree(s);
  PutSet(e, kept);
}

// SPOP key [count]
void CmdSPop(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  if (ctx.argc() > 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t count = 1;
  bool with_count = ctx.argc() == 3;
  if (with_count && (!ParseInt64(ctx.arg(2), &count) || count < 0)) {
    ctx.reply.Error(kCountNotPositive);
    return;
  }
  Entry* e = FindForWrite(ctx.db, key);
  if (!CheckSetOrMissing(ctx, e)) return;
  if (e == nullptr || (with_count && count == 0)) {
    if (with_count) {
      ctx.reply.Set(0);
    } else {
      ctx.reply.Null();
    }
    return;
  }
  SetObj s = SetOf(e);
  size_t size = SetSize(s);
  if (!with_count) {
    SetElem el = SetRandom(s);
    ReplyElem(ctx, el);
    // A random pop replays as the removal of what it took (Valkey 7).
    if (ctx.Propagating()) {
      char buf[24];
      ctx.PropagateAs({"SREM", std::string(key), std::string(el.View(buf))});
    }
    SetRemoveElem(&s, el);
    PutSet(e, s);
    if (size == 1) ctx.db->Delete(key);
    ctx.KeyModified(ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifySet, "spop", ctx.db, key);
    if (size == 1) NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
    return;
  }
  if (static_cast<uint64_t>(count) >= size) {
    ReplyWholeSet(ctx, s);
    if (ctx.Propagating()) ctx.PropagateAs({"DEL", std::string(key)});
    ctx.db->Delete(key);
    ctx.KeyModified(ctx.db, key, static_cast<int>(size));
    NotifyKeyspaceEvent(ctx, kNotifySet, "spop", ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, key);
    return;
  }
  std::vector<std::string> srem;
  if (ctx.Propagating()) srem = {"SREM", std::string(key)};
  PopSome(ctx, e, static_cast<size_t>(count), ctx.Propagating() ? &srem : nullptr);
  // One SREM of every member taken (Valkey 8 batches them; 7.0 wraps single SREMs in MULTI).
  if (ctx.Propagating()) ctx.PropagateAs(std::move(srem));
  ctx.KeyModified(ctx.db, key, static_cast<int>(count));
  NotifyKeyspaceEvent(ctx, kNotifySet, "spop", ctx.db, key);
}

// SRANDMEMBER key count
void RandomMembers(CommandContext& ctx) {
  int64_t l;
  if (!ParseInt64(ctx.arg(2), &l)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (l == INT64_MIN) {
    ctx.reply.Error(kRandCountRange);
    return;
  }
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (!CheckSetOrMissing(ctx, e)) return;
  if (e == nullptr || l == 0) {
    ctx.reply.EmptyArray();
    return;
  }
  SetObj s = SetOf(e);
  size_t size = SetSize(s);
  uint64_t count = l < 0 ? static_cast<uint64_t>(-l) : static_cast<uint64_t>(l);
  if (l < 0 || count == 1) {
    // With repetition: every draw independent.
    ctx.reply.Array(count);
    SetDrawer drawer(s);
    std::string* out = ctx.reply.Output();
    for (uint64_t i = 0; i < count; ++i) {
      ReplyElem(ctx, drawer.Next());
      if ((i & 1023) == 1023 && out->size() > kMaxRandomReplyBytes) {
        ctx.server.CloseClientAsync(&ctx.client);
        return;
      }
    }
    return;
  }
  if (count >= size) {
    ctx.reply.Array(size);
    SetForEach(s, [&](const SetElem& el) {
      ReplyElem(ctx, el);
      return true;
    });
    return;
  }
  std::vector<SetElem>& picked = Scratch();
  SetSampleDistinct(s, static_cast<size_t>(count), &picked);
  ctx.reply.Array(picked.size());
  for (const SetElem& el : picked) ReplyElem(ctx, el);
  ReleaseScratch(picked);
}

// SRANDMEMBER key [count]
void CmdSRandMember(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (ctx.argc() == 3) {
    RandomMembers(ctx);
    return;
  }
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (!CheckSetOrMissing(ctx, e)) return;
  if (e == nullptr) {
    ctx.reply.Null();
    return;
  }
  ReplyElem(ctx, SetRandom(SetOf(e)));
}

// SMOVE source destination member
void CmdSMove(CommandContext& ctx) {
  std::string_view src_key = ctx.arg(1), dst_key = ctx.arg(2), member = ctx.arg(3);
  Entry* src = FindForWrite(ctx.db, src_key);
  Entry* dst = FindForWrite(ctx.db, dst_key);
  if (src == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (!CheckSetOrMissing(ctx, src) || !CheckSetOrMissing(ctx, dst)) return;
  if (src == dst) {
    ctx.reply.Integer(SetContains(SetOf(src), member) ? 1 : 0);
    return;
  }
  SetObj s = SetOf(src);
  if (!SetRemove(&s, member)) {
    ctx.reply.Integer(0);
    return;
  }
  PutSet(src, s);
  // Valkey's order: srem (and del) on the source before the destination is created.
  NotifyKeyspaceEvent(ctx, kNotifySet, "srem", ctx.db, src_key);
  if (SetSize(s) == 0) {
    ctx.db->Delete(src_key);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, src_key);
  }
  SetLimits lim = LimitsOf(ctx);
  SetObj d;
  if (dst == nullptr) {
    d = SetCreate(member, 1, lim);
    dst = ctx.db->Add(dst_key);
  } else {
    d = SetOf(dst);
  }
  bool added = SetAdd(&d, member, lim);
  PutSet(dst, d);
  ctx.KeyModified(ctx.db, src_key);
  if (added) {
    ctx.KeyModified(ctx.db, dst_key);
    NotifyKeyspaceEvent(ctx, kNotifySet, "sadd", ctx.db, dst_key);
  }
  ctx.reply.Integer(1);
}

// SSCAN key cursor [MATCH pattern] [COUNT count]
void CmdSScan(CommandContext& ctx) {
  uint64_t cursor;
  if (!ParseScanCursor(ctx.arg(2), &cursor)) {
    ctx.reply.Error(errors::kInvalidCursor);
    return;
  }
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (!CheckSetOrMissing(ctx, e)) return;
  if (e == nullptr) {
    ctx.reply.Array(2);
    ctx.reply.Bulk("0");
    ctx.reply.EmptyArray();
    return;
  }
  ScanOptions opt;
  if (!ParseScanOptions(ctx, 3, nullptr, false, &opt)) return;
  int64_t count = opt.count;
  std::string_view pattern = opt.pattern;
  bool all = opt.MatchesAll();
  SetObj s = SetOf(e);
  std::vector<SetElem>& found = Scratch();
  // As SCAN: stop after `count` members or 10 * count buckets, whichever comes first.
  uint64_t want = static_cast<uint64_t>(count);
  uint64_t max_steps = want > UINT64_MAX / 10 ? UINT64_MAX : want * 10;
  uint64_t seen = 0;
  char buf[24];
  do {
    cursor = SetScan(s, cursor, [&](const SetElem& el) {
      ++seen;
      if (all || GlobMatch(pattern, el.View(buf))) found.push_back(el);
    });
  } while (cursor != 0 && --max_steps != 0 && seen < want);
  char cbuf[24];
  auto [end, ec] = std::to_chars(cbuf, cbuf + sizeof(cbuf), cursor);
  (void)ec;
  ctx.reply.Array(2);
  ctx.reply.Bulk(std::string_view(cbuf, static_cast<size_t>(end - cbuf)));
  ctx.reply.Array(found.size());
  for (const SetElem& el : found) ReplyElem(ctx, el);
  ReleaseScratch(found);
}

// ---------------------------------------------------------------------------------------------
// Multi-key commands

// The intersection of keys[first .. first+count): replied (no dst), counted up to limit
// (count_only; limit 0 = all) or stored into dst.
void Intersect(CommandContext& ctx, size_t first, size_t count, std::string_view dst,
               bool count_only, uint64_t limit) {
  std::vector<const Entry*> entries;
  if (!LookupSets(ctx, first, count, &entries)) return;
  bool any_missing = false;
  for (const Entry* e : entries) any_missing |= e == nullptr;
  if (any_missing) {
    if (!dst.empty() || count_only) {
      if (!dst.empty() && ctx.db->Delete(dst)) {
        ctx.KeyModified(ctx.db, dst);
        NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, dst);
      }
      ctx.reply.Integer(0);
    } else {
      ctx.reply.Set(0);
    }
    return;
  }
  std::vector<SetObj> sets;
  for (const Entry* e : entries) sets.push_back(SetOf(e));
  // Smallest first: its members are the candidates, checked against the others.
  std::stable_sort(sets.begin(), sets.end(),
                   [](const SetObj& a, const SetObj& b) { return SetSize(a) < SetSize(b); });
  bool store = !dst.empty();
  SetLimits lim = LimitsOf(ctx);
  SetObj result;
  if (store) {
    // As Valkey: an intset result from an intset, else a listpack that may grow or convert.
    result =
        SetCreateEmpty(sets[0].enc == Encoding::kIntSet ? Encoding::kIntSet : Encoding::kListPack);
  }
  std::vector<SetElem>& found = Scratch();
  uint64_t cardinality = 0;
  bool only_integers = true;
  SetForEach(sets[0], [&](const SetElem& el) {
    for (size_t j = 1; j < sets.size(); ++j) {
      if (sets[j].ptr != sets[0].ptr && !SetContainsElem(sets[j], el)) return true;
    }
    ++cardinality;
    if (count_only) return limit == 0 || cardinality < limit;
    if (!store) {
      found.push_back(el);
      return true;
    }
    int64_t v = el.ival;
    if (!el.is_int && ParseInt64(el.str, &v)) {
      SetAddElem(&result, SetElem::Int(v), lim);
    } else {
      only_integers &= el.is_int;
      SetAddElem(&result, el, lim);
    }
    return true;
  });
  if (count_only) {
    ctx.reply.Integer(static_cast<int64_t>(cardinality));
  } else if (!store) {
    ctx.reply.Set(found.size());
    for (const SetElem& el : found) ReplyElem(ctx, el);
  } else {
    if (only_integers) SetMaybeConvertToIntset(&result, lim);
    StoreResult(ctx, dst, result);
  }
  ReleaseScratch(found);
}

enum class SetOp { kUnion, kDiff };

// The union or difference of keys[first..]: replied, or stored into dst when given.
void UnionOrDiff(CommandContext& ctx, size_t first, std::string_view dst, SetOp op) {
  std::vector<const Entry*> entries;
  if (!LookupSets(ctx, first, ctx.argc() - first, &entries)) return;
  SetLimits lim = LimitsOf(ctx);
  // Built as Valkey builds it, from an empty intset, so the encoding comes out the same.
  SetObj result = SetCreateEmpty(Encoding::kIntSet);
  if (op == SetOp::kUnion) {
    for (const Entry* e : entries) {
      if (e == nullptr) continue;
      SetForEach(SetOf(e), [&](const SetElem& el) {
        SetAddElem(&result, el, lim);
        return true;
      });
    }
  } else if (entries[0] != nullptr) {
    SetObj base = SetOf(entries[0]);
    SetForEach(base, [&](const SetElem& el) {
      for (size_t j = 1; j < entries.size(); ++j) {
        if (entries[j] == nullptr) continue;
        if (entries[j] == entries[0] || SetContainsElem(SetOf(entries[j]), el)) return true;
      }
      SetAddElem(&result, el, lim);
      return true;
    });
  }
  if (!dst.empty()) {
    StoreResult(ctx, dst, result);
    return;
  }
  ReplyWholeSet(ctx, result);
  SetFree(result);
}

// SINTER key [key ...]
void CmdSInter(CommandContext& ctx) { Intersect(ctx, 1, ctx.argc() - 1, {}, false, 0); }

// SINTERSTORE destination key [key ...]
void CmdSInterStore(CommandContext& ctx) {
  Intersect(ctx, 2, ctx.argc() - 2, ctx.arg(1), false, 0);
}

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void CmdSInterCard(CommandContext& ctx) {
  int64_t numkeys;
  if (!ParseInt64(ctx.arg(1), &numkeys) || numkeys < 1) {
    ctx.reply.Error(kNumKeysNotPositive);
    return;
  }
  if (static_cast<uint64_t>(numkeys) > ctx.argc() - 2) {
    ctx.reply.Error(kTooManyNumKeys);
    return;
  }
  int64_t limit = 0;
  for (size_t i = 2 + static_cast<size_t>(numkeys); i < ctx.argc(); ++i) {
    if (EqualsIgnoreCase(ctx.arg(i), "limit") && i + 1 < ctx.argc()) {
      ++i;
      if (!ParseInt64(ctx.arg(i), &limit) || limit < 0) {
        ctx.reply.Error(kLimitNegative);
        return;
      }
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  Intersect(ctx, 2, static_cast<size_t>(numkeys), {}, true, static_cast<uint64_t>(limit));
}

// SUNION key [key ...]
void CmdSUnion(CommandContext& ctx) { UnionOrDiff(ctx, 1, {}, SetOp::kUnion); }
// SUNIONSTORE destination key [key ...]
void CmdSUnionStore(CommandContext& ctx) { UnionOrDiff(ctx, 2, ctx.arg(1), SetOp::kUnion); }
// SDIFF key [key ...]
void CmdSDiff(CommandContext& ctx) { UnionOrDiff(ctx, 1, {}, SetOp::kDiff); }
// SDIFFSTORE destination key [key ...]
void CmdSDiffStore(CommandContext& ctx) { UnionOrDiff(ctx, 2, ctx.arg(1), SetOp::kDiff); }

// ---------------------------------------------------------------------------------------------
// Hooks for generic key commands (DEL, COPY, MEMORY USAGE, DEBUG DIGEST)

void FreeSetValue(Encoding enc, void* obj) { SetFree({enc, obj}); }
size_t SetValueFreeEffort(Encoding enc, const void* obj) {
  return SetFreeEffort({enc, const_cast<void*>(obj)});
}
size_t SetValueMemory(Encoding enc, const void* obj) {
  return SetMemory({enc, const_cast<void*>(obj)});
}
void* CopySetValue(Encoding enc, const void* obj) {
  return SetCopy({enc, const_cast<void*>(obj)}).ptr;
}

// Order-insensitive: equal sets digest equally whatever their encoding or history.
void DigestSet(const Entry* e, unsigned char out[kDigestSize]) {
  char buf[24];
  SetForEach(SetOf(e), [&](const SetElem& el) {
    XorDigest(out, el.View(buf));
    return true;
  });
}

}  // namespace

// The table reads best one command per paragraph, not one field per line.
// clang-format off
void RegisterSetCommands(CommandTable& t) {
  RegisterCollectionOps(ObjType::kSet,
                        {FreeSetValue, SetValueFreeEffort, SetValueMemory, CopySetValue});
  RegisterValueDigest(ObjType::kSet, DigestSet);
  const uint64_t rd = kAclRead | kAclSet;
  const uint64_t wr = kAclWrite | kAclSet;
  const char* set_size = "O(N) where N is the set cardinality.";
  const char* union_cost = "O(N) where N is the total number of elements in all given sets.";
  const char* diff_cost = "O(N) where N is the total number of elements in all given sets.";
  const char* inter_cost = "O(N*M) worst case where N is the cardinality of the smallest set "
                           "and M is the number of sets.";
  t.Add({.name = "sadd", .arity = -3, .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
         .acl = wr | kAclFast, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdSAdd, .group = "set",
         .summary = "Adds one or more members to a set. Creates the key if it doesn't exist.",
         .since = "1.0.0",
         .complexity = "O(1) for each element added, so O(N) to add N elements when the "
                       "command is called with multiple arguments."});
  t.Add({.name = "srem", .arity = -3, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSRem, .group = "set",
         .summary = "Removes one or more members from a set. Deletes the set if the last "
                    "member was removed.",
         .since = "1.0.0", .complexity = "O(N) where N is the number of members to be removed."});
  t.Add({.name = "smembers", .arity = 2, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSMembers, .group = "set",
         .summary = "Returns all members of a set.", .since = "1.0.0", .complexity = set_size});
  t.Add({.name = "sismember", .arity = 3, .flags = kCmdReadonly | kCmdFast,
         .acl = rd | kAclFast, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdSIsMember, .group = "set",
         .summary = "Determines whether a member belongs to a set.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "smismember", .arity = -3, .flags = kCmdReadonly | kCmdFast,
         .acl = rd | kAclFast, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdSMIsMember, .group = "set",
         .summary = "Determines whether multiple members belong to a set.", .since = "6.2.0",
         .complexity = "O(N) where N is the number of elements being checked for membership"});
  t.Add({.name = "scard", .arity = 2, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSCard, .group = "set",
         .summary = "Returns the number of members in a set.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "spop", .arity = -2, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSPop, .group = "set",
         .summary = "Returns one or more random members from a set after removing them. "
                    "Deletes the set if the last member was popped.",
         .since = "1.0.0",
         .complexity = "Without the count argument O(1), otherwise O(N) where N is the value "
                       "of the passed count."});
  t.Add({.name = "srandmember", .arity = -2, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSRandMember,
         .group = "set", .summary = "Get one or multiple random members from a set",
         .since = "1.0.0",
         .complexity = "Without the count argument O(1), otherwise O(N) where N is the "
                       "absolute value of the passed count."});
  t.Add({.name = "smove", .arity = 4, .flags = kCmdWrite | kCmdFast, .acl = wr | kAclFast,
         .first_key = 1, .last_key = 2, .key_step = 1, .handler = CmdSMove, .group = "set",
         .summary = "Moves a member from one set to another.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "sinter", .arity = -2, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = -1, .key_step = 1, .handler = CmdSInter, .group = "set",
         .summary = "Returns the intersect of multiple sets.", .since = "1.0.0",
         .complexity = inter_cost});
  t.Add({.name = "sintercard", .arity = -3, .flags = kCmdReadonly | kCmdMovableKeys,
         .acl = rd | kAclSlow, .handler = CmdSInterCard, .group = "set",
         .summary = "Returns the number of members of the intersect of multiple sets.",
         .since = "7.0.0", .complexity = inter_cost});
  t.Add({.name = "sinterstore", .arity = -3, .flags = kCmdWrite | kCmdDenyOom,
         .acl = wr | kAclSlow, .first_key = 1, .last_key = -1, .key_step = 1,
         .handler = CmdSInterStore, .group = "set",
         .summary = "Stores the intersect of multiple sets in a key.", .since = "1.0.0",
         .complexity = inter_cost});
  t.Add({.name = "sunion", .arity = -2, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = -1, .key_step = 1, .handler = CmdSUnion, .group = "set",
         .summary = "Returns the union of multiple sets.", .since = "1.0.0",
         .complexity = union_cost});
  t.Add({.name = "sunionstore", .arity = -3, .flags = kCmdWrite | kCmdDenyOom,
         .acl = wr | kAclSlow, .first_key = 1, .last_key = -1, .key_step = 1,
         .handler = CmdSUnionStore, .group = "set",
         .summary = "Stores the union of multiple sets in a key.", .since = "1.0.0",
         .complexity = union_cost});
  t.Add({.name = "sdiff", .arity = -2, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = -1, .key_step = 1, .handler = CmdSDiff, .group = "set",
         .summary = "Returns the difference of multiple sets.", .since = "1.0.0",
         .complexity = diff_cost});
  t.Add({.name = "sdiffstore", .arity = -3, .flags = kCmdWrite | kCmdDenyOom,
         .acl = wr | kAclSlow, .first_key = 1, .last_key = -1, .key_step = 1,
         .handler = CmdSDiffStore, .group = "set",
         .summary = "Stores the difference of multiple sets in a key.", .since = "1.0.0",
         .complexity = diff_cost});
  t.Add({.name = "sscan", .arity = -3, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSScan, .group = "set",
         .summary = "Iterates over members of a set.", .since = "2.8.0",
         .complexity = "O(1) for every call. O(N) for a complete iteration, including enough "
                       "command calls for the cursor to return back to 0. N is the number of "
                       "elements inside the collection."});
}
// clang-format on

}  // namespace vireo
