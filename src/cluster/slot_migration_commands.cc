// CLUSTER MIGRATESLOTS / GETSLOTMIGRATIONS / CANCELSLOTMIGRATIONS / SYNCSLOTS: parsing, the
// errors Valkey 9 answers, the target's side of the handshake, and a replica's copy of its
// primary's imports (see slot_migration.h for the protocol).
#include <algorithm>

#include "cluster/cluster.h"
#include "cluster/slot_migration.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "common/random_hex.h"
#include "persistence/cow_snapshot.h"
#include "protocol/reply_builder.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {
namespace {

bool IsNodeName(std::string_view s) {
  if (s.size() != 40) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
  });
}

// SLOTSRANGE's pairs from args[*i] on, as Valkey checks them; advances *i past them. "" or
// the error (without "ERR ").
std::string ParseRanges(const std::vector<std::string_view>& args, size_t* i,
                        std::vector<std::pair<int, int>>* ranges) {
  while (*i < args.size()) {
    int64_t start;
    if (!ParseInt64(args[*i], &start)) break;  // the next keyword
    if (*i + 1 >= args.size()) return "No end slot for final slot range";
    int64_t end;
    if (start < 0 || start >= kClusterSlots || !ParseInt64(args[*i + 1], &end) || end < 0 ||
        end >= kClusterSlots) {
      return "Invalid or out of range slot";
    }
    if (start > end) {
      return "Start slot number " + std::to_string(start) + " is greater than end slot number " +
             std::to_string(end);
    }
    for (const auto& [a, b] : *ranges) {
      if (start <= b && end >= a) {
        return "Slot range " + std::to_string(start) + "-" + std::to_string(end) +
               " overlaps with previous range " + std::to_string(a) + "-" + std::to_string(b);
      }
    }
    ranges->push_back({static_cast<int>(start), static_cast<int>(end)});
    *i += 2;
  }
  if (ranges->empty()) return "No slot ranges specified";
  return "";
}

std::bitset<kClusterSlots> SlotsOf(const std::vector<std::pair<int, int>>& ranges) {
  std::bitset<kClusterSlots> slots;
  for (const auto& [a, b] : ranges) {
    for (int s = a; s <= b; ++s) slots.set(static_cast<size_t>(s));
  }
  return slots;
}

}  // namespace

std::string SlotRangesText(const std::vector<std::pair<int, int>>& ranges) {
  std::string out;
  for (const auto& [a, b] : ranges) {
    if (!out.empty()) out += ' ';
    out += std::to_string(a) + "-" + std::to_string(b);
  }
  return out;
}

void SlotMigrations::Command(Client* c, std::string_view sub,
                             const std::vector<std::string_view>& args, ReplyBuilder& r) {
  if (sub == "getslotmigrations") return GetSlotMigrations(r);
  if (sub == "syncslots") return SyncSlots(c, args, r);
  if (sub == "cancelslotmigrations") return CancelSlotMigrations(r);
  MigrateSlots(args, r);
}

// CLUSTER MIGRATESLOTS SLOTSRANGE start end [start end ...] NODE id [SLOTSRANGE ... NODE id]
void SlotMigrations::MigrateSlots(const std::vector<std::string_view>& args, ReplyBuilder& r) {
  ClusterNode* me = cluster_.myself();
  if (!me->is_master()) {
    r.Error("ERR Slot migration can only be used on primary nodes");
    return;
  }
  for (int s = 0; s < kClusterSlots; ++s) {
    if (!cluster_.migrating_[static_cast<size_t>(s)].empty()) {
      r.Error("ERR Slots are being manually migrated");
      return;
    }
    if (!cluster_.importing_[static_cast<size_t>(s)].empty()) {
      r.Error("ERR Slots are being manually imported");
      return;
    }
  }
  struct Block {
    std::vector<std::pair<int, int>> ranges;
    ClusterNode* target;
  };
  std::vector<Block> blocks;
  size_t i = 2;
  while (i < args.size()) {
    if (!EqualsIgnoreCase(args[i], "slotsrange")) {
      r.Error("ERR syntax error");
      return;
    }
    ++i;
    Block b;
    if (std::string e = ParseRanges(args, &i, &b.ranges); !e.empty()) {
      r.Error("ERR " + e);
      return;
    }
    const ClusterNode* owner = nullptr;
    for (const auto& [a, z] : b.ranges) {
      for (int s = a; s <= z; ++s) {
        const ClusterNode* o = cluster_.SlotOwner(s);
        if (o == nullptr) {
          r.Error("ERR Slot " + std::to_string(s) + " has no node served");
          return;
        }
        if (owner != nullptr && o != owner) {
          r.Error("ERR Requested slots span multiple shards");
          return;
        }
        owner = o;
      }
    }
    if (owner != me) {
      r.Error("ERR Slots are not served by this node");
      return;
    }
    if (i + 1 >= args.size() || !EqualsIgnoreCase(args[i], "node")) {
      r.Error("ERR syntax error");
      return;
    }
    std::string_view id = args[i + 1];
    i += 2;
    if (!IsNodeName(id)) {
      r.Error("ERR Invalid node name");
      return;
    }
    b.target = cluster_.Lookup(id);
    if (b.target == nullptr) {
      r.Error("ERR Unknown node name");
      return;
    }
    if (b.target == me) {
      r.Error("ERR Target node can not be this node");
      return;
    }
    if (!b.target->is_master()) {
      r.Error("ERR Target node is not a primary");
      return;
    }
    blocks.push_back(std::move(b));
  }
  std::bitset<kClusterSlots> all;
  for (const Block& b : blocks) {
    std::bitset<kClusterSlots> s = SlotsOf(b.ranges);
    if ((all & s).any()) {
      r.Error("ERR Slot ranges in migrations overlap");
      return;
    }
    all |= s;
  }
  for (const auto& job : jobs_) {
    if (!job->active() || job->kind != SlotMigrationJob::Kind::kExport) continue;
    std::bitset<kClusterSlots> both = job->slots & all;
    if (both.any()) {
      size_t s = 0;
      while (!both.test(s)) ++s;
      r.Error("ERR I am already migrating slot " + std::to_string(s));
      return;
    }
  }
  const int64_t now_s = NowMs() / 1000;
  for (Block& b : blocks) {
    auto job = std::make_unique<SlotMigrationJob>();
    job->name = RandomHex(40);
    job->kind = SlotMigrationJob::Kind::kExport;
    job->ranges = std::move(b.ranges);
    job->slots = SlotsOf(job->ranges);
    job->source_id = me->id;
    job->target_id = b.target->id;
    job->create_s = job->update_s = job->ack_s = now_s;
    job->state = "connecting";
    job->last_io_ms = NowMs();
    SlotMigrationJob* p = job.get();
    jobs_.push_back(std::move(job));
    LogNotice("Slot migration %s: exporting slots %s to %.40s", p->name.c_str(),
              SlotRangesText(p->ranges).c_str(), p->target_id.c_str());
    StartConnect(p);
  }
  r.Ok();
}

void SlotMigrations::GetSlotMigrations(ReplyBuilder& r) const {
  auto text = [&r](const char* name, const std::string& value) {
    r.Bulk(name);
    r.Bulk(value);
  };
  auto number = [&r](const char* name, int64_t value) {
    r.Bulk(name);
    r.Integer(value);
  };
  r.Array(jobs_.size());
  for (const auto& job : jobs_) {
    r.Map(11);
    text("name", job->name);
    text("operation", job->kind == SlotMigrationJob::Kind::kExport ? "EXPORT" : "IMPORT");
    text("slot_ranges", SlotRangesText(job->ranges));
    text("target_node", job->target_id);
    text("source_node", job->source_id);
    number("create_time", job->create_s);
    number("last_update_time", job->update_s);
    number("last_ack_time", job->ack_s);
    text("state", job->state);
    text("message", job->message);
    number("cow_size", 0);  // fork-less: the snapshot's extra memory is the link's buffer
  }
}

void SlotMigrations::CancelSlotMigrations(ReplyBuilder& r) {
  bool any = false;
  for (auto& job : jobs_) {
    if (job->active() && job->kind == SlotMigrationJob::Kind::kExport) {
      Finish(job.get(), "cancelled", "Cancelled by CLUSTER CANCELSLOTMIGRATIONS");
      any = true;
    }
  }
  if (!any) {
    r.Error("ERR No migrations ongoing");
    return;
  }
  r.Ok();
}

// --- The stream between the two sides -------------------------------------------------------

void SlotMigrations::SyncSlots(Client* c, const std::vector<std::string_view>& args,
                               ReplyBuilder& r) {
  if (args.size() < 3) {
    r.Error("ERR syntax error");
    return;
  }
  const std::string sub = ToLower(args[2]);
  if (sub == "establish") return Establish(c, args, r);
  if (sub == "track-import" || sub == "end-import") return ReplicaTrack(c, args, r);
  static const char* const kSteps[] = {"snapshot-eof", "request-pause",    "paused",
                                       "request-failover", "failover-granted", "ack"};
  if (std::find(std::begin(kSteps), std::end(kSteps), sub) == std::end(kSteps)) {
    r.Error("ERR syntax error");
    return;
  }
  SlotMigrationJob* job = JobOf(c);
  if (job == nullptr) {
    r.Error("ERR CLUSTER SYNCSLOTS " + ToUpper(args[2]) +
            " should only be used by slot migration clients");
    return;
  }
  // A finished import keeps its link until the source closes it: late steps are ignored.
  if (job->finished) return;
  job->last_io_ms = NowMs();
  if (sub == "ack") {
    job->ack_s = NowMs() / 1000;
    return;
  }
  const bool is_export = job->kind == SlotMigrationJob::Kind::kExport;
  // A step out of order ends the link (the other side is confused or hostile).
  auto out_of_order = [&] {
    LogWarning("Slot migration %s: unexpected CLUSTER SYNCSLOTS %s in state %s",
               job->name.c_str(), sub.c_str(), job->state.c_str());
    server_.CloseClientAsync(c);
  };
  if (!is_export && sub == "snapshot-eof" && job->state == "receiving-snapshot") {
    SetState(job, "waiting-for-paused");
    SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "REQUEST-PAUSE"});
  } else if (is_export && sub == "request-pause" && job->state == "streaming") {
    SetState(job, "waiting-to-pause");
    TryPause(job);
  } else if (!is_export && sub == "paused" && job->state == "waiting-for-paused") {
    // Everything the source wrote before PAUSED has been applied: nothing more can come.
    SetState(job, "failover-requested");
    SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "REQUEST-FAILOVER"});
  } else if (is_export && sub == "request-failover" && job->state == "failover-paused") {
    SetState(job, "failover-granted");
    job->grant_deadline_ms =
        NowMs() + ConfigValueInt(server_.config(), "cluster-manual-failover-timeout", 5000);
    SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "FAILOVER-GRANTED"});
  } else if (!is_export && sub == "failover-granted" && job->state == "failover-requested") {
    SetState(job, "failover-granted");
    if (!prevent_failover_) TakeOver(job);
  } else {
    out_of_order();
  }
}

// CLUSTER SYNCSLOTS ESTABLISH SOURCE <id> NAME <name> SLOTSRANGE <start> <end> ...
void SlotMigrations::Establish(Client* c, const std::vector<std::string_view>& args,
                               ReplyBuilder& r) {
  std::string source, name;
  std::vector<std::pair<int, int>> ranges;
  bool have_ranges = false;
  for (size_t i = 3; i < args.size();) {
    if (EqualsIgnoreCase(args[i], "slotsrange") && !have_ranges) {
      ++i;
      if (std::string e = ParseRanges(args, &i, &ranges); !e.empty()) {
        r.Error("ERR " + e);
        return;
      }
      have_ranges = true;
      continue;
    }
    if (i + 1 >= args.size() || !IsNodeName(args[i + 1])) {
      r.Error("ERR syntax error");
      return;
    }
    std::string* field = EqualsIgnoreCase(args[i], "source") ? &source
                         : EqualsIgnoreCase(args[i], "name") ? &name
                                                             : nullptr;
    if (field == nullptr || !field->empty()) {
      r.Error("ERR syntax error");
      return;
    }
    *field = std::string(args[i + 1]);
    i += 2;
  }
  if (source.empty() || name.empty() || !have_ranges) {
    r.Error("ERR syntax error");
    return;
  }
  if (!cluster_.myself()->is_master()) {
    r.Error("ERR Slot migration can only be used on primary nodes");
    return;
  }
  if (JobOf(c) != nullptr) {
    r.Error("ERR This connection already carries a slot migration");
    return;
  }
  ClusterNode* src = cluster_.Lookup(source);
  if (src == nullptr) {
    r.Error("ERR Target node does not know the source node");
    return;
  }
  const std::bitset<kClusterSlots> slots = SlotsOf(ranges);
  for (int s = 0; s < kClusterSlots; ++s) {
    if (!slots.test(static_cast<size_t>(s))) continue;
    if (cluster_.SlotOwner(s) != src) {
      r.Error("ERR Target node does not agree about current slot ownership");
      return;
    }
  }
  if ((slots & importing_).any()) {
    r.Error("ERR Slot is already being imported on the target by a different migration");
    return;
  }
  for (int s = 0; s < kClusterSlots; ++s) {
    const size_t i = static_cast<size_t>(s);
    if (!cluster_.importing_[i].empty() || !cluster_.migrating_[i].empty()) {
      r.Error(cluster_.importing_[i].empty() ? "ERR Slots are being manually migrated"
                                             : "ERR Slots are being manually imported");
      return;
    }
  }
  // Keys of these slots left here (a failed earlier import, stray keys) would mix with the
  // snapshot: they go first.
  DeleteSlotKeys(slots);
  auto job = std::make_unique<SlotMigrationJob>();
  job->name = name;
  job->kind = SlotMigrationJob::Kind::kImport;
  job->ranges = std::move(ranges);
  job->slots = slots;
  job->source_id = source;
  job->target_id = cluster_.myself()->id;
  job->create_s = job->update_s = job->ack_s = NowMs() / 1000;
  job->state = "receiving-snapshot";
  job->client = c;
  job->last_io_ms = job->last_ack_sent_ms = NowMs();
  c->migration = job.get();
  LogNotice("Slot migration %s: importing slots %s from %.40s", name.c_str(),
            SlotRangesText(job->ranges).c_str(), source.c_str());
  PropagateImport(job.get(), true);
  jobs_.push_back(std::move(job));
  RefreshImporting();
  // Durably before any key arrives: a restart mid-import must know to drop them.
  cluster_.SaveConfig(true);
  r.Ok();
}

void SlotMigrations::AnnounceImports() {
  for (const auto& job : jobs_) {
    if (job->active() && job->kind == SlotMigrationJob::Kind::kImport && !job->replicated) {
      PropagateImport(job.get(), true);
    }
  }
}

void SlotMigrations::PropagateImport(const SlotMigrationJob* job, bool start) {
  std::vector<std::string> words = {"CLUSTER", "SYNCSLOTS", start ? "TRACK-IMPORT" : "END-IMPORT",
                                    job->name};
  if (start) {
    words.push_back(job->source_id);
    words.push_back("SLOTSRANGE");
    for (const auto& [a, b] : job->ranges) {
      words.push_back(std::to_string(a));
      words.push_back(std::to_string(b));
    }
  } else {
    words.push_back(job->state);
  }
  server_.propagator().Also(0, std::move(words));
}

// CLUSTER SYNCSLOTS TRACK-IMPORT <name> <source> SLOTSRANGE ... | END-IMPORT <name> <state>:
// only from this replica's primary.
void SlotMigrations::ReplicaTrack(Client* c, const std::vector<std::string_view>& args,
                                  ReplyBuilder& r) {
  if (!server_.replication().is_master_client(c)) {
    r.Error("ERR CLUSTER SYNCSLOTS " + ToUpper(args[2]) +
            " should only be used by slot migration clients");
    return;
  }
  if (args.size() < 5 || !IsNodeName(args[3])) {
    r.Error("ERR syntax error");
    return;
  }
  const std::string name(args[3]);
  const bool known = std::any_of(jobs_.begin(), jobs_.end(), [&](const auto& j) {
    return j->replicated && j->active() && j->name == name;
  });
  if (EqualsIgnoreCase(args[2], "end-import")) {
    for (auto& job : jobs_) {
      if (job->replicated && job->active() && job->name == name) {
        const std::string state(args[4]);
        Finish(job.get(), state == "success" ? "success" : "failed",
               state == "success" ? "" : "The import failed on the primary");
      }
    }
    r.Ok();
    return;
  }
  if (known) {  // announced again after a full sync of another replica
    r.Ok();
    return;
  }
  size_t i = 6;
  std::vector<std::pair<int, int>> ranges;
  if (args.size() < 8 || !EqualsIgnoreCase(args[5], "slotsrange") || !IsNodeName(args[4]) ||
      !ParseRanges(args, &i, &ranges).empty() || i != args.size()) {
    r.Error("ERR syntax error");
    return;
  }
  auto job = std::make_unique<SlotMigrationJob>();
  job->name = name;
  job->kind = SlotMigrationJob::Kind::kImport;
  job->replicated = true;
  job->ranges = std::move(ranges);
  job->slots = SlotsOf(job->ranges);
  job->source_id = std::string(args[4]);
  job->target_id = cluster_.myself()->master_id;
  job->create_s = job->update_s = job->ack_s = NowMs() / 1000;
  job->state = "replicating";
  jobs_.push_back(std::move(job));
  RefreshImporting();
  r.Ok();
}

}  // namespace vireo
