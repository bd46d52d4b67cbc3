// CLUSTERSCAN (Valkey 9.1): SCAN over the whole cluster, one run of slots at a time, with a
// cursor that routes like a key (cluster/cluster_scan_cursor.h).
//
// Vireo keeps one hash table for every slot (Db counts keys per slot but does not index
// them), so a slot's keys are found by walking the whole table. One walk therefore serves the
// whole run of consecutive slots this node serves from the cursor's slot, returning the keys
// of any slot in [slot, end]; the cursor carries end, so the run can only shrink (a slot moved
// away mid-walk) and never grow under a walk that has passed buckets already. When the walk
// ends the next one starts at end + 1 (on whichever node serves it). Every slot thus belongs
// to exactly one completed walk whose filter always held it, and the table's SCAN returns
// every key present for the whole walk: every key present for the whole scan is returned at
// least once. A walk that moves to another node keeps going there when the fingerprints
// match (same seed, same table order) and starts its slot over otherwise.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/cluster_scan_cursor.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/scan_options.h"
#include "common/crc16.h"
#include "common/glob.h"
#include "common/numbers.h"
#include "server/server.h"
#include "store/value.h"

namespace vireo {
namespace {

// The one slot every key a pattern matches hashes to (a literal prefix, then a hash tag with
// no wildcard in it: "{user1}:*"), or -1. Escapes are not followed: such a pattern just
// scans every slot.
int PatternSlot(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '*' || c == '?' || c == '[' || c == '\\') return -1;
    if (c != '{') continue;
    const size_t close = pattern.find('}', i + 1);
    if (close == std::string_view::npos || close == i + 1) return -1;
    std::string_view tag = pattern.substr(i + 1, close - i - 1);
    if (tag.find_first_of("*?[\\") != std::string_view::npos) return -1;
    return Crc16(tag) & (kClusterSlots - 1);
  }
  return -1;
}

void ReplyCursor(CommandContext& ctx, const std::string& cursor,
                 const std::vector<std::string_view>& keys) {
  ctx.reply.Array(2);
  ctx.reply.Bulk(cursor);
  ctx.reply.Array(keys.size());
  for (std::string_view k : keys) ctx.reply.Bulk(k);
}

std::string FreshCursor(int slot) { return FormatClusterScanCursor("0", slot, 0); }

// CLUSTERSCAN cursor [MATCH pattern] [COUNT count] [TYPE type] [SLOT slot]
void CmdClusterScan(CommandContext& ctx) {
  Cluster* cluster = ctx.server.cluster();
  if (cluster == nullptr) {
    ctx.reply.Error(errors::kClusterDisabled);
    return;
  }
  ClusterScanCursor cur;
  if (!ParseClusterScanCursor(ctx.arg(1), &cur)) {
    ctx.reply.Error(errors::kClusterScanCursor);
    return;
  }
  ScanOptions opt;
  if (!ParseScanOptions(ctx, 2, nullptr, true, &opt, true)) return;
  std::vector<std::string_view> none;
  // A pattern that names one slot scans that slot only, as does SLOT; both naming different
  // slots match nothing.
  const int pattern_slot = opt.MatchesAll() ? -1 : PatternSlot(opt.pattern);
  int only = opt.slot;
  if (pattern_slot >= 0) {
    if (only >= 0 && only != pattern_slot) {
      if (!cur.start && cur.slot != only) {
        ctx.reply.Error(errors::kClusterScanSlotMismatch);
      } else {
        ReplyCursor(ctx, "0", none);
      }
      return;
    }
    only = pattern_slot;
  }
  if (cur.start) {
    // The first call only names the first slot; the scan proper starts on its owner.
    ReplyCursor(ctx, FreshCursor(only >= 0 ? only : 0), none);
    return;
  }
  if (opt.slot >= 0 && cur.slot != opt.slot) {
    ctx.reply.Error(errors::kClusterScanSlotMismatch);
    return;
  }
  if (only >= 0 && cur.slot != only) {
    // The pattern's slot is ahead: jump there; behind: nothing left to match.
    ReplyCursor(ctx, cur.slot < only ? FreshCursor(only) : "0", none);
    return;
  }
  const std::string redirect = cluster->SlotRedirect(&ctx.client, cur.slot);
  if (!redirect.empty()) {
    ctx.reply.Error(redirect);
    return;
  }
  // The run of slots served here from the cursor's slot on (a replica: its primary's).
  auto served = [cluster](int s) { return cluster->InMyShard(cluster->SlotOwner(s)); };
  int run_end = cur.slot;
  if (only < 0) {
    while (run_end + 1 < kClusterSlots && served(run_end + 1)) ++run_end;
  }
  Db* db = ctx.server.db(0);
  int first = cur.slot;
  int end = run_end;
  uint64_t table_cursor = 0;
  const bool resume = cur.fingerprint == LocalScanFingerprint();
  if (resume) {
    UnpackScanLocal(cur.local, &table_cursor, &end);
    if (end < first) {
      ctx.reply.Error(errors::kClusterScanCursor);
      return;
    }
    if (end > run_end) end = run_end;  // slots moved away: the next walk covers them
  } else {
    // A fresh walk: empty slots at its start are passed over (a key added to one later was
    // not there for the whole scan).
    while (first <= end && db->KeysInSlot(first) == 0) ++first;
  }
  std::vector<std::string_view> keys;
  if (first <= end) {
    // Visit buckets until COUNT keys of the walk's slots were seen (before MATCH and TYPE),
    // within a bucket budget grown by how sparse those slots are in the table, so a small
    // run in a large keyspace takes a bounded number of calls, each bounded in time.
    uint64_t in_run = 0;
    for (int s = first; s <= end; ++s) in_run += db->KeysInSlot(s);
    const uint64_t want = static_cast<uint64_t>(opt.count);
    const uint64_t sparseness = in_run == 0 ? 1 : db->Size() / in_run + 1;
    uint64_t budget = want > UINT64_MAX / 10 ? UINT64_MAX : want * 10;
    budget = budget > UINT64_MAX / sparseness ? UINT64_MAX : budget * sparseness;
    const uint64_t floor = want > UINT64_MAX / 10 ? UINT64_MAX : want * 10;
    budget = std::min(budget, std::max<uint64_t>(floor, 100000));
    uint64_t seen = 0;
    const bool all = opt.MatchesAll();
    do {
      table_cursor = db->Scan(table_cursor, [&](const Entry* e) {
        const int s = KeyHashSlot(e->Key());
        if (s < first || s > end) return;
        ++seen;
        if (!all && !GlobMatch(opt.pattern, e->Key())) return;
        if (opt.has_type && !EqualsIgnoreCase(opt.type, TypeName(e->type()))) return;
        keys.push_back(e->Key());
      });
    } while (table_cursor != 0 && --budget != 0 && seen < want);
  }
  if (first <= end && table_cursor != 0) {
    uint64_t local = 0;
    // A table cursor too large to pack (2^50 buckets) would start the walk over.
    ReplyCursor(ctx,
                PackScanLocal(table_cursor, end, &local)
                    ? FormatClusterScanCursor(LocalScanFingerprint(), first, local)
                    : FreshCursor(first),
                keys);
    return;
  }
  // The walk is over: on to the slot after the run, or done.
  const bool last = only >= 0 || end + 1 >= kClusterSlots;
  ReplyCursor(ctx, last ? std::string("0") : FreshCursor(end + 1), keys);
}

}  // namespace

CommandSpec ClusterScanSpec() {
  return {.name = "clusterscan", .arity = -2, .flags = kCmdReadonly,
          .acl = kAclKeyspace | kAclRead | kAclSlow, .handler = CmdClusterScan,
          .group = "cluster", .summary = "Iterates over the keys in the cluster.",
          .since = "9.1.0",
          .complexity = "O(N) where N is the number of elements returned."};
}

}  // namespace vireo
