// HyperLogLog family: PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST. Values are strings in Redis's
// HLL layout (store/hyperloglog.h); commands leave them "raw", as Valkey does.
#include <cstdio>
#include <string>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/access_clock.h"
#include "store/hyperloglog.h"
#include "store/value.h"

namespace vireo {
namespace {

constexpr const char* kNotHll = "WRONGTYPE Key is not a valid HyperLogLog string value.";
constexpr const char* kCorruptHll = "INVALIDOBJ Corrupted HLL object detected";
constexpr const char* kNoSuchHllKey = "ERR The specified key does not exist";
constexpr const char* kNotSparse = "ERR HLL encoding is not sparse";
constexpr int64_t kDefaultSparseMaxBytes = 3000;

// ---------------------------------------------------------------------------------------------
// Helpers over the keyspace

Entry* FindForWrite(Db* db, std::string_view key) {
  Entry* e = db->Find(key);
  if (e != nullptr) TouchAccess(e);
  return e;
}

// hll-sparse-max-bytes, read at each write so CONFIG SET applies to the next one.
size_t SparseMaxBytes(CommandContext& ctx) {
  const auto& generic = ctx.server.config().generic;
  auto it = generic.find("hll-sparse-max-bytes");
  int64_t v;
  if (it == generic.end() || !ParseInt64(it->second, &v) || v < 0) v = kDefaultSparseMaxBytes;
  return static_cast<size_t>(v);
}

// The HyperLogLog bytes of e, or an empty view after replying the error: WRONGTYPE for
// another type, the HLL flavour of WRONGTYPE for a string that is not a valid HLL.
std::string_view HllValue(CommandContext& ctx, const Entry* e) {
  if (e->type() != ObjType::kString) {
    ctx.reply.Error(errors::kWrongType);
    return {};
  }
  if (e->encoding() != Encoding::kInt) {
    char unused[24];
    std::string_view v = StringValue(e, unused);
    if (hll::IsValid(v)) return v;
  }
  ctx.reply.Error(kNotHll);
  return {};
}

// Makes e's (valid HLL) string raw, as Valkey unshares a value before editing it, and returns
// its bytes for editing in place.
char* RawBytes(Entry* e) {
  if (e->encoding() != Encoding::kRaw) {
    char unused[24];
    std::string copy(StringValue(e, unused));
    SetRawStringValue(e, copy);
  }
  return WritableRawBlob(e)->data;
}

// ---------------------------------------------------------------------------------------------
// Handlers

// PFADD key [element [element ...]]
void CmdPfAdd(CommandContext& ctx) {
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  const size_t sparse_max = SparseMaxBytes(ctx);
  int updated = 0;
  if (e != nullptr) {
    std::string_view v = HllValue(ctx, e);
    if (v.empty()) return;
    if (hll::IsDense(v)) {
      // Dense values (12 KB) are edited in place.
      char* bytes = RawBytes(e);
      for (size_t j = 2; j < ctx.argc(); ++j) updated += hll::DenseAdd(bytes, ctx.arg(j));
      if (updated) hll::InvalidateCache(bytes);
    } else {
      std::string work(v);
      for (size_t j = 2; j < ctx.argc(); ++j) {
        int r = hll::Add(&work, ctx.arg(j), sparse_max);
        if (r < 0) {
          // Registers updated before the corrupt part stay updated, as in Valkey.
          SetRawStringValue(e, work);
          ctx.reply.Error(kCorruptHll);
          return;
        }
        updated += r;
      }
      if (updated) hll::InvalidateCache(work.data());
      if (updated || e->encoding() != Encoding::kRaw) SetRawStringValue(e, work);
    }
  } else {
    std::string work = hll::MakeEmpty();
    updated = 1;  // creating the key is an update
    for (size_t j = 2; j < ctx.argc(); ++j) updated += hll::Add(&work, ctx.arg(j), sparse_max);
    hll::InvalidateCache(work.data());
    e = ctx.db->Add(key);
    SetRawStringValue(e, work);
  }
  if (updated) {
    ctx.KeyModified(ctx.db, key, updated);
    NotifyKeyspaceEvent(ctx, kNotifyString, "pfadd", ctx.db, key);
  }
  ctx.reply.Integer(updated ? 1 : 0);
}

// PFCOUNT key [key ...]
void CmdPfCount(CommandContext& ctx) {
  if (ctx.argc() > 2) {
    // The cardinality of the union; no key is modified.
    hll::Registers max{};
    for (size_t j = 1; j < ctx.argc(); ++j) {
      const Entry* e = ctx.db->Lookup(ctx.arg(j));
      if (e == nullptr) continue;
      std::string_view v = HllValue(ctx, e);
      if (v.empty()) return;
      if (!hll::MergeInto(&max, v)) {
        ctx.reply.Error(kCorruptHll);
        return;
      }
    }
    ctx.reply.Integer(static_cast<int64_t>(hll::CountRegisters(max)));
    return;
  }
  std::string_view key = ctx.arg(1);
  Entry* e = ctx.db->Lookup(key);
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (HllValue(ctx, e).empty()) return;
  char* bytes = RawBytes(e);
  std::string_view v(bytes, e->str->len);
  uint64_t card;
  if (!hll::CachedCardinality(v, &card)) {
    if (!hll::Count(v, &card)) {
      ctx.reply.Error(kCorruptHll);
      return;
    }
    // Caching the estimate changes the value: a write, though PFCOUNT is a read command.
    hll::StoreCardinality(bytes, card);
    ctx.KeyModified(ctx.db, key);
  }
  ctx.reply.Integer(static_cast<int64_t>(card));
}

// PFMERGE destkey [sourcekey [sourcekey ...]]
void CmdPfMerge(CommandContext& ctx) {
  hll::Registers max{};
  bool use_dense = false;
  // The destination is a source too.
  for (size_t j = 1; j < ctx.argc(); ++j) {
    const Entry* e = ctx.db->Lookup(ctx.arg(j));
    if (e == nullptr) continue;
    std::string_view v = HllValue(ctx, e);
    if (v.empty()) return;
    if (hll::IsDense(v)) use_dense = true;
    if (!hll::MergeInto(&max, v)) {
      ctx.reply.Error(kCorruptHll);
      return;
    }
  }
  std::string_view key = ctx.arg(1);
  Entry* e = FindForWrite(ctx.db, key);
  std::string work;
  if (e == nullptr) {
    work = hll::MakeEmpty();
    e = ctx.db->Add(key);
    SetRawStringValue(e, work);
  } else {
    char unused[24];
    work = std::string(StringValue(e, unused));
  }
  if (use_dense && !hll::ToDense(&work)) {
    RawBytes(e);
    ctx.reply.Error(kCorruptHll);
    return;
  }
  // Registers are raised in index order, so a sparse destination takes the same shape as in
  // Valkey.
  const size_t sparse_max = SparseMaxBytes(ctx);
  for (int j = 0; j < hll::kRegisters; ++j) {
    if (max[j] != 0) hll::SetRegister(&work, j, max[j], sparse_max);
  }
  hll::InvalidateCache(work.data());
  SetRawStringValue(e, work);
  ctx.KeyModified(ctx.db, key);
  NotifyKeyspaceEvent(ctx, kNotifyString, "pfadd", ctx.db, key);
  ctx.reply.Ok();
}

// PFDEBUG GETREG | DECODE | ENCODING | TODENSE key   (and SIMD ON|OFF)
void CmdPfDebug(CommandContext& ctx) {
  std::string_view sub = ctx.arg(1);
  if (EqualsIgnoreCase(sub, "SIMD")) {
    // Vireo has no SIMD variants of the register loops; report them as disabled.
    if (!EqualsIgnoreCase(ctx.arg(2), "ON") && !EqualsIgnoreCase(ctx.arg(2), "OFF")) {
      ctx.reply.Error("ERR Argument must be ON or OFF");
      return;
    }
    ctx.reply.Simple("disabled");
    return;
  }
  std::string_view key = ctx.arg(2);
  Entry* e = FindForWrite(ctx.db, key);
  if (e == nullptr) {
    ctx.reply.Error(kNoSuchHllKey);
    return;
  }
  if (HllValue(ctx, e).empty()) return;
  RawBytes(e);
  char unused[24];
  std::string_view v = StringValue(e, unused);
  const bool dense = hll::IsDense(v);
  if (EqualsIgnoreCase(sub, "GETREG") || EqualsIgnoreCase(sub, "TODENSE")) {
    const bool getreg = EqualsIgnoreCase(sub, "GETREG");
    if (!dense) {
      std::string work(v);
      if (!hll::ToDense(&work)) {
        ctx.reply.Error(kCorruptHll);
        return;
      }
      SetRawStringValue(e, work);
      ctx.Dirty();  // the encoding change must reach replicas
    }
    if (!getreg) {
      ctx.reply.Integer(dense ? 0 : 1);
      return;
    }
    const char* bytes = e->str->data;
    ctx.reply.Array(hll::kRegisters);
    for (int j = 0; j < hll::kRegisters; ++j) ctx.reply.Integer(hll::DenseRegister(bytes, j));
  } else if (EqualsIgnoreCase(sub, "DECODE")) {
    if (dense) {
      ctx.reply.Error(kNotSparse);
      return;
    }
    ctx.reply.Bulk(hll::DecodeSparse(v));
  } else if (EqualsIgnoreCase(sub, "ENCODING")) {
    ctx.reply.Simple(dense ? "dense" : "sparse");
  } else {
    std::string msg = "ERR Unknown PFDEBUG subcommand '" + std::string(sub) + "'";
    ctx.reply.Error(msg);
  }
}

// PFSELFTEST
void CmdPfSelfTest(CommandContext& ctx) {
  std::string failure = hll::SelfTest();
  if (failure.empty()) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Error(failure);
  }
}

}  // namespace

void RegisterHyperLogLogCommands(CommandTable& t) {
  t.Add({.name = "pfadd", .arity = -2, .flags = kCmdWrite | kCmdDenyOom | kCmdFast,
         .acl = kAclWrite | kAclHyperLogLog | kAclFast, .first_key = 1, .last_key = 1,
         .key_step = 1, .handler = CmdPfAdd, .group = "hyperloglog",
         .summary = "Adds the specified elements to the specified HyperLogLog.",
         .since = "2.8.9", .complexity = "O(1) to add every element."});
  t.Add({.name = "pfcount", .arity = -2, .flags = kCmdReadonly,
         .acl = kAclRead | kAclHyperLogLog | kAclSlow, .first_key = 1, .last_key = -1,
         .key_step = 1, .handler = CmdPfCount, .group = "hyperloglog",
         .summary = "Return the approximated cardinality of the set(s) observed by the "
                    "HyperLogLog at key(s).",
         .since = "2.8.9",
         .complexity = "O(1) with a very small average constant time when called with a "
                       "single key. O(N) with N being the number of keys, and much bigger "
                       "constant times, when called with multiple keys."});
  t.Add({.name = "pfmerge", .arity = -2, .flags = kCmdWrite | kCmdDenyOom,
         .acl = kAclWrite | kAclHyperLogLog | kAclSlow, .first_key = 1, .last_key = -1,
         .key_step = 1, .handler = CmdPfMerge, .group = "hyperloglog",
         .summary = "Merge N different HyperLogLogs into a single one.", .since = "2.8.9",
         .complexity = "O(N) to merge N HyperLogLogs, but with high constant times."});
  t.Add({.name = "pfdebug", .arity = 3, .flags = kCmdWrite | kCmdDenyOom | kCmdAdmin,
         .acl = kAclWrite | kAclHyperLogLog | kAclAdmin | kAclSlow | kAclDangerous,
         .first_key = 2, .last_key = 2, .key_step = 1, .handler = CmdPfDebug,
         .group = "hyperloglog", .summary = "Internal commands for debugging HyperLogLog values",
         .since = "2.8.9", .complexity = "N/A"});
  t.Add({.name = "pfselftest", .arity = 1, .flags = kCmdAdmin,
         .acl = kAclHyperLogLog | kAclAdmin | kAclSlow | kAclDangerous,
         .handler = CmdPfSelfTest, .group = "hyperloglog",
         .summary = "An internal command for testing HyperLogLog values", .since = "2.8.9",
         .complexity = "N/A"});
}

}  // namespace vireo
