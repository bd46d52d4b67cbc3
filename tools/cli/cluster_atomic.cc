// Moving slots for reshard and rebalance with Valkey 9.0's atomic slot migration (CLUSTER
// MIGRATESLOTS, one job per source, polled with CLUSTER GETSLOTMIGRATIONS), and key by key with
// MIGRATE where either end lacks it.
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <utility>

#include "cli/cluster_nodes.h"

namespace vireo::cli {
namespace {

using tools::Reply;

constexpr useconds_t kPollIntervalUs = 100 * 1000;
// Gossip normally spreads the target's new epoch within a few hundred milliseconds; this only
// bounds the wait on a cluster that is partitioned.
constexpr std::chrono::seconds kAgreeTimeout{30};

using Ranges = std::vector<std::pair<int, int>>;

Ranges SlotRanges(std::vector<int> slots) {
  std::sort(slots.begin(), slots.end());
  Ranges out;
  for (int s : slots) {
    if (!out.empty() && out.back().second + 1 == s) {
      out.back().second = s;
    } else {
      out.emplace_back(s, s);
    }
  }
  return out;
}

// As CLUSTER GETSLOTMIGRATIONS prints slot_ranges: "0-5 7-7".
std::string RangesText(const Ranges& ranges) {
  std::string out;
  for (const auto& [a, b] : ranges) {
    out += (out.empty() ? "" : " ") + std::to_string(a) + "-" + std::to_string(b);
  }
  return out;
}

// One CLUSTER GETSLOTMIGRATIONS entry, field -> value (field pairs under RESP2, a map under
// RESP3; numbers as text).
using Job = std::map<std::string, std::string>;

std::vector<Job> ParseJobs(const Reply& reply) {
  std::vector<Job> jobs;
  for (const Reply& entry : reply.elements) {
    Job job;
    for (size_t i = 0; i + 1 < entry.elements.size(); i += 2) {
      const Reply& v = entry.elements[i + 1];
      job[entry.elements[i].str] =
          v.type == Reply::Type::kInteger ? std::to_string(v.integer) : v.str;
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::string Field(const Job& job, const char* name) {
  auto it = job.find(name);
  return it == job.end() ? std::string() : it->second;
}

bool IsUnknownCommand(const std::string& err) {
  return strncasecmp(err.c_str(), "ERR unknown subcommand", 22) == 0 ||
         strncasecmp(err.c_str(), "ERR unknown command", 19) == 0;
}

// Whether the CLUSTER NODES text gives every slot of `ranges` to node `id`.
bool Owns(const std::string& cluster_nodes, const std::string& id, const Ranges& ranges) {
  std::vector<uint8_t> owned(kClusterSlots, 0);
  for (const std::string& line : SplitLines(cluster_nodes)) {
    std::vector<std::string> f = SplitSpaces(line);
    if (f.size() < 9 || f[0] != id) continue;
    for (size_t i = 8; i < f.size(); ++i) {
      if (f[i].empty() || f[i][0] == '[') continue;
      const size_t dash = f[i].find('-');
      const int a = atoi(f[i].c_str());
      const int b = dash == std::string::npos ? a : atoi(f[i].c_str() + dash + 1);
      for (int s = std::max(a, 0); s <= b && s < kClusterSlots; ++s) owned[s] = 1;
    }
  }
  for (const auto& [a, b] : ranges) {
    for (int s = a; s <= b; ++s) {
      if (!owned[s]) return false;
    }
  }
  return true;
}

std::string Address(const ClusterNode& n) { return n.ip + ":" + std::to_string(n.port); }

std::string LostConnection(const ClusterNode& n) {
  return "lost the connection to " + Address(n) + " during the slot migration";
}

}  // namespace

bool ClusterManager::SupportsAtomicMigration(ClusterNode* node) {
  if (!node->atomic_migration.has_value()) {
    auto reply = Command(node, {"COMMAND", "INFO", "CLUSTER|MIGRATESLOTS"});
    // Servers without it answer a nil entry; an error (COMMAND renamed or refused) counts as no.
    node->atomic_migration = reply && reply->type == Reply::Type::kArray &&
                             !reply->elements.empty() &&
                             reply->elements[0].type == Reply::Type::kArray;
  }
  return *node->atomic_migration;
}

bool ClusterManager::MoveSlots(const std::vector<ReshardItem>& table, ClusterNode* target,
                               int move_options, std::string* err) {
  size_t i = 0;
  while (i < table.size()) {
    ClusterNode* source = table[i].source;
    size_t end = i;
    std::vector<int> slots;
    for (; end < table.size() && table[end].source == source; ++end) {
      slots.push_back(table[end].slot);
    }
    if (opts().atomic_migration ||
        (SupportsAtomicMigration(source) && SupportsAtomicMigration(target))) {
      switch (MoveSlotsAtomically(source, target, slots, move_options, err)) {
        case AtomicMove::kMoved:
          i = end;
          continue;
        case AtomicMove::kFailed:
          return false;
        case AtomicMove::kUnsupported:
          break;  // key by key below
      }
    }
    for (; i < end; ++i) {
      if (!MoveSlot(source, target, table[i].slot, move_options, err)) return false;
      if (move_options & kMoveQuiet) {
        printf("#");
        fflush(stdout);
      }
    }
  }
  return true;
}

ClusterManager::AtomicMove ClusterManager::MoveSlotsAtomically(ClusterNode* source,
                                                               ClusterNode* target,
                                                               const std::vector<int>& slots,
                                                               int move_options, std::string* err) {
  err->clear();
  const Ranges ranges = SlotRanges(slots);
  const std::string ranges_text = RangesText(ranges);
  auto lost = [&](const ClusterNode& n) {
    *err = LostConnection(n);
    return AtomicMove::kFailed;
  };
  // The jobs the source already lists: ours is the one that is new.
  auto listed = Command(source, {"CLUSTER", "GETSLOTMIGRATIONS"});
  if (!listed) return lost(*source);
  std::vector<std::string> before;
  if (listed->type != Reply::Type::kError) {
    for (const Job& job : ParseJobs(*listed)) before.push_back(Field(job, "name"));
  }
  std::vector<std::string> args = {"CLUSTER", "MIGRATESLOTS", "SLOTSRANGE"};
  for (const auto& [a, b] : ranges) {
    args.push_back(std::to_string(a));
    args.push_back(std::to_string(b));
  }
  args.insert(args.end(), {"NODE", target->name});
  auto started = Command(source, args);
  if (!started) return lost(*source);
  if (started->type == Reply::Type::kError) {
    if (IsUnknownCommand(started->str)) {
      Log(LogLevel::kWarn,
          "*** Node %s does not support atomic slot migration, moving keys one by one\n",
          Address(*source).c_str());
      return AtomicMove::kUnsupported;
    }
    *err = started->str;
    return AtomicMove::kFailed;
  }
  // The lines key-by-key moves print, without the dots (keys are not moved one by one).
  if (!(move_options & kMoveQuiet)) {
    for (int s : slots) {
      printf("Moving slot %d from %s to %s: \n", s, Address(*source).c_str(),
             Address(*target).c_str());
    }
    fflush(stdout);
  }
  if (!WaitForMigration(source, *target, ranges, before, err)) return AtomicMove::kFailed;
  if (move_options & kMoveUpdate) {
    for (int s : slots) {
      if (source->slots[s]) --source->slots_count;
      if (!target->slots[s]) ++target->slots_count;
      source->slots[s] = 0;
      target->slots[s] = 1;
    }
  }
  if (move_options & kMoveQuiet) {
    printf("%s", std::string(slots.size(), '#').c_str());
    fflush(stdout);
  }
  // The source and target agree once the job succeeded; the other nodes learn it by gossip.
  // Waiting for them keeps a `--cluster check` right after the reshard clean.
  const auto deadline = std::chrono::steady_clock::now() + kAgreeTimeout;
  for (;;) {
    bool agreed = true;
    for (auto& n : nodes_) {
      auto reply = Command(n.get(), {"CLUSTER", "NODES"});
      // A node that cannot answer has no say.
      if (reply && reply->type != Reply::Type::kError && !Owns(reply->str, target->name, ranges)) {
        agreed = false;
        break;
      }
    }
    if (agreed) break;
    if (std::chrono::steady_clock::now() > deadline) {
      Log(LogLevel::kWarn, "*** Not every node knows yet that %s serves slots %s\n",
          Address(*target).c_str(), ranges_text.c_str());
      break;
    }
    usleep(kPollIntervalUs);
  }
  return AtomicMove::kMoved;
}

bool ClusterManager::WaitForMigration(ClusterNode* source, const ClusterNode& target,
                                      const Ranges& slot_ranges,
                                      const std::vector<std::string>& before, std::string* err) {
  const std::string ranges = RangesText(slot_ranges);
  for (;;) {
    auto reply = Command(source, {"CLUSTER", "GETSLOTMIGRATIONS"});
    if (!reply) {
      *err = LostConnection(*source);
      return false;
    }
    if (reply->type == Reply::Type::kError) {
      *err = reply->str;
      return false;
    }
    const Job* job = nullptr;
    const std::vector<Job> jobs = ParseJobs(*reply);
    for (const Job& j : jobs) {
      if (Field(j, "operation") == "EXPORT" && Field(j, "slot_ranges") == ranges &&
          Field(j, "target_node") == target.name &&
          std::find(before.begin(), before.end(), Field(j, "name")) == before.end()) {
        job = &j;  // the newest one wins
      }
    }
    if (job == nullptr) {
      // Only a finished job leaves the log (cluster-slot-migration-log-max-len): ask the
      // source who owns the slots now.
      auto nodes = Command(source, {"CLUSTER", "NODES"});
      if (nodes && nodes->type != Reply::Type::kError &&
          Owns(nodes->str, target.name, slot_ranges)) {
        return true;
      }
      *err =
          "the slot migration of slots " + ranges + " is no longer listed by " + Address(*source);
      return false;
    }
    const std::string state = Field(*job, "state");
    if (state == "success") return true;
    if (state == "failed" || state == "cancelled") {
      *err = "slot migration " + Field(*job, "name") + " of slots " + ranges + " " + state + ": " +
             Field(*job, "message");
      return false;
    }
    usleep(kPollIntervalUs);
  }
}

}  // namespace vireo::cli
