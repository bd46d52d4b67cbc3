// Moving slots between cluster nodes (reshard, rebalance) and repairing them (fix: uncovered
// slots, open migrating/importing slots).
#include <strings.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "cli/cluster_nodes.h"

namespace vireo::cli {
namespace {

using tools::Reply;

bool IsError(const std::optional<Reply>& r) { return r && r->type == Reply::Type::kError; }

long long CountKeysInSlot(ClusterManager* cm, ClusterNode* node, int slot) {
  auto reply = cm->Command(node, {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)});
  if (!cm->CheckReply(*node, reply, nullptr)) return -1;
  return reply->integer;
}

// The master with the most keys in the slot (the first master when none has any).
ClusterNode* NodeWithMostKeys(ClusterManager* cm, const std::vector<ClusterNode*>& nodes,
                              int slot) {
  ClusterNode* best = nullptr;
  long long most = 0;
  for (ClusterNode* n : nodes) {
    if (n->is_replica()) continue;
    long long count = CountKeysInSlot(cm, n, slot);
    if (count < 0) return nullptr;
    if (count > most || best == nullptr) {
      best = n;
      most = count;
    }
  }
  return best;
}

std::vector<ClusterNode*> AllNodes(ClusterManager* cm) {
  std::vector<ClusterNode*> out;
  for (auto& n : cm->nodes()) out.push_back(n.get());
  return out;
}

bool ClearSlotStatus(ClusterManager* cm, ClusterNode* node, int slot) {
  return cm->CheckReply(
      *node, cm->Command(node, {"CLUSTER", "SETSLOT", std::to_string(slot), "STABLE"}), nullptr);
}

bool DelSlot(ClusterManager* cm, ClusterNode* node, int slot) {
  auto reply = cm->Command(node, {"CLUSTER", "DELSLOTS", std::to_string(slot)});
  if (reply && reply->type == Reply::Type::kError &&
      reply->str.find("already unassigned") != std::string::npos) {
    return true;
  }
  return cm->CheckReply(*node, reply, nullptr);
}

void Remove(std::vector<ClusterNode*>* list, ClusterNode* node) {
  list->erase(std::remove(list->begin(), list->end(), node), list->end());
}

std::string JoinAddresses(const std::vector<ClusterNode*>& nodes) {
  std::string out;
  for (ClusterNode* n : nodes)
    out += (out.empty() ? "" : ",") + n->ip + ":" + std::to_string(n->port);
  return out;
}

void PrintSlotsList(const std::vector<int>& slots) {
  std::vector<uint8_t> set(kClusterSlots, 0);
  for (int s : slots) set[s] = 1;
  printf("%s\n", SlotsString(set).c_str());
}

}  // namespace

std::vector<ClusterManager::ReshardItem> ClusterManager::ComputeReshardTable(
    std::vector<ClusterNode*> sources, int slots) {
  std::vector<ReshardItem> moved;
  int total = 0;
  for (ClusterNode* n : sources) total += n->slots_count;
  std::stable_sort(sources.begin(), sources.end(),
                   [](ClusterNode* a, ClusterNode* b) { return a->slots_count > b->slots_count; });
  for (size_t i = 0; i < sources.size(); ++i) {
    ClusterNode* node = sources[i];
    // The first (biggest) source rounds up, the others down, as redis-cli.
    float n = static_cast<float>(slots) / total * node->slots_count;
    n = i == 0 ? std::ceil(n) : std::floor(n);
    const int max = static_cast<int>(n);
    int count = 0;
    for (int s = 0; s < kClusterSlots; ++s) {
      if (!node->slots[s]) continue;
      if (count >= max || static_cast<int>(moved.size()) >= slots) break;
      moved.push_back({node, s});
      ++count;
    }
  }
  return moved;
}

bool ClusterManager::SetSlot(ClusterNode* node, const ClusterNode& other, int slot,
                             const char* state, std::string* err) {
  auto reply = Command(node, {"CLUSTER", "SETSLOT", std::to_string(slot), state, other.name});
  if (err != nullptr) err->clear();
  if (!reply) {
    if (err != nullptr) *err = "CLUSTER SETSLOT failed to run";
    return false;
  }
  if (reply->type == Reply::Type::kError) {
    if (err != nullptr) {
      *err = reply->str;
    } else {
      PrintReplyError(*node, reply->str);
    }
    return false;
  }
  return true;
}

std::optional<Reply> ClusterManager::MigrateKeys(ClusterNode* source, ClusterNode* target,
                                                 const Reply& keys, bool replace, int db) {
  std::vector<std::string> args = {"MIGRATE", target->ip,          std::to_string(target->port),
                                   "",        std::to_string(db), std::to_string(opts().timeout_ms)};
  if (replace) args.push_back("REPLACE");
  if (options_.password.has_value()) {
    if (options_.user.has_value()) {
      args.insert(args.end(), {"AUTH2", *options_.user, *options_.password});
    } else {
      args.insert(args.end(), {"AUTH", *options_.password});
    }
  }
  args.push_back("KEYS");
  for (const Reply& key : keys.elements) args.push_back(key.str);
  return Command(source, args);
}

int ClusterManager::DatabaseCount(ClusterNode* node) {
  auto reply = Command(node, {"CONFIG", "GET", "cluster-databases"});
  if (!reply || reply->type == Reply::Type::kError || reply->elements.size() != 2) return 1;
  const int n = atoi(reply->elements[1].str.c_str());
  return n > 1 ? n : 1;
}

bool ClusterManager::MigrateKeysInSlot(ClusterNode* source, ClusterNode* target, int slot,
                                       bool verbose, std::string* err) {
  // Valkey 9's cluster-databases: every database's keys of the slot move, each into the same
  // database on the target.
  const int dbs = DatabaseCount(source);
  for (int db = 0; db < dbs; ++db) {
    if (dbs > 1 && !Command(source, {"SELECT", std::to_string(db)})) return false;
    const bool ok = MigrateKeysInSlotDb(source, target, slot, db, verbose, err);
    if (dbs > 1) Command(source, {"SELECT", "0"});
    if (!ok) return false;
  }
  return true;
}

bool ClusterManager::MigrateKeysInSlotDb(ClusterNode* source, ClusterNode* target, int slot,
                                         int db, bool verbose, std::string* err) {
  for (;;) {
    auto keys = Command(source, {"CLUSTER", "GETKEYSINSLOT", std::to_string(slot),
                                 std::to_string(opts().pipeline)});
    if (!keys) return false;
    if (keys->type == Reply::Type::kError) {
      if (err != nullptr) *err = keys->str;
      PrintReplyError(*source, keys->str);
      return false;
    }
    if (keys->elements.empty()) return true;
    auto migrated = MigrateKeys(source, target, *keys, false, db);
    if (!migrated) return false;
    if (migrated->type == Reply::Type::kError) {
      const bool busy =
          migrated->str.find("BUSYKEY Target key name already exists") != std::string::npos;
      bool ok = false;
      if (busy) {
        Log(LogLevel::kWarn, "\n*** Target key exists\n");
        if (!opts().replace) {
          // redis-cli compares the two values first (DEBUG DIGEST-VALUE); we ask for
          // --cluster-replace instead.
          Log(LogLevel::kError,
              "*** Found key(s) in both source node and target node.\n"
              "    Source node: %s:%d\n    Target node: %s:%d\n"
              "Please fix the above key(s) manually and try again or relaunch the command \n"
              "with --cluster-replace option to force key overriding.\n",
              source->ip.c_str(), source->port, target->ip.c_str(), target->port);
          return false;
        }
        Log(LogLevel::kWarn, "*** Replacing target keys...\n");
        migrated = MigrateKeys(source, target, *keys, true, db);
        ok = migrated && migrated->type != Reply::Type::kError;
      }
      if (!ok) {
        if (migrated) {
          if (err != nullptr) *err = migrated->str;
          printf("\n");
          PrintReplyError(*source, migrated->str);
        }
        return false;
      }
    }
    if (verbose) {
      printf("%s", std::string(keys->elements.size(), '.').c_str());
      fflush(stdout);
    }
  }
}

bool ClusterManager::MoveSlot(ClusterNode* source, ClusterNode* target, int slot, int move_options,
                              std::string* err) {
  if (!(move_options & kMoveQuiet)) {
    printf("Moving slot %d from %s:%d to %s:%d: ", slot, source->ip.c_str(), source->port,
           target->ip.c_str(), target->port);
    fflush(stdout);
  }
  if (err != nullptr) err->clear();
  const bool cold = move_options & kMoveCold;
  if (!cold) {
    if (!SetSlot(target, *source, slot, "importing", err)) return false;
    if (!SetSlot(source, *target, slot, "migrating", err)) return false;
  }
  const bool migrated = MigrateKeysInSlot(source, target, slot, move_options & kMoveVerbose, err);
  if (!(move_options & kMoveQuiet)) printf("\n");
  if (!migrated) return false;
  if (!cold) {
    // The target first: it propagates the new owner, and the slot never ends up ownerless.
    if (!SetSlot(target, *target, slot, "node", err)) return false;
    // A source that just lost its last slot may already have turned into a replica.
    std::string source_err;
    if (!SetSlot(source, *target, slot, "node", &source_err) &&
        source_err.compare(0, 41, "ERR Please use SETSLOT only with masters.") != 0) {
      if (err != nullptr) *err = source_err;
      return false;
    }
    for (auto& n : nodes_) {
      if (n.get() == target || n.get() == source || (n->flags & ClusterNode::kSlave)) continue;
      if (!SetSlot(n.get(), *target, slot, "node", err)) return false;
    }
  }
  if (move_options & kMoveUpdate) {
    if (source->slots[slot]) --source->slots_count;
    if (!target->slots[slot]) ++target->slots_count;
    source->slots[slot] = 0;
    target->slots[slot] = 1;
  }
  return true;
}

bool ClusterManager::AddSlots(ClusterNode* node, std::string* err) {
  std::vector<std::string> ranges = {"CLUSTER", "ADDSLOTSRANGE"};
  std::vector<std::string> single = {"CLUSTER", "ADDSLOTS"};
  for (int i = 0; i < kClusterSlots; ++i) {
    if (!node->slots[i]) continue;
    single.push_back(std::to_string(i));
    int j = i;
    while (j + 1 < kClusterSlots && node->slots[j + 1]) ++j;
    ranges.push_back(std::to_string(i));
    ranges.push_back(std::to_string(j));
    for (int k = i + 1; k <= j; ++k) single.push_back(std::to_string(k));
    i = j;
  }
  if (single.size() == 2) return false;
  auto reply = Command(node, ranges);
  // Servers before 7.0 lack ADDSLOTSRANGE.
  if (IsError(reply) && strncasecmp(reply->str.c_str(), "ERR unknown subcommand", 22) == 0) {
    reply = Command(node, single);
  }
  return CheckReply(*node, reply, err);
}

bool ClusterManager::FlushNodeConfig(ClusterNode* node, std::string* err) {
  if (!node->dirty) return false;
  err->clear();
  if (!node->replicate.empty()) {
    auto reply = Command(node, {"CLUSTER", "REPLICATE", node->replicate});
    if (!reply || reply->type == Reply::Type::kError) {
      // The replica may not know its master yet: stay dirty and retry after the join.
      if (reply) *err = reply->str;
      return false;
    }
  } else if (!AddSlots(node, err) || !err->empty()) {
    node->dirty = false;
    return false;
  }
  node->dirty = false;
  return true;
}

bool ClusterManager::SetSlotOwner(ClusterNode* owner, int slot, bool clear_state) {
  const std::string s = std::to_string(slot);
  if (!CheckReply(*owner, Command(owner, {"MULTI"}), nullptr)) return false;
  Command(owner, {"CLUSTER", "DELSLOTS", s});
  Command(owner, {"CLUSTER", "ADDSLOTS", s});
  if (clear_state) Command(owner, {"CLUSTER", "SETSLOT", s, "STABLE"});
  Command(owner, {"CLUSTER", "BUMPEPOCH"});
  auto exec = Command(owner, {"EXEC"});
  if (!CheckReply(*owner, exec, nullptr)) return false;
  // DELSLOTS of an unassigned slot fails harmlessly; any other failure in the block counts.
  for (size_t i = 0; i < exec->elements.size(); ++i) {
    const Reply& r = exec->elements[i];
    if (r.type != Reply::Type::kError) continue;
    if (i == 0 && r.str.find("already unassigned") != std::string::npos) continue;
    PrintReplyError(*owner, r.str);
    return false;
  }
  return true;
}

int ClusterManager::FixSlotsCoverage(const std::vector<uint8_t>& covered) {
  if (unreachable_masters_ > 0 && !opts().fix_with_unreachable) {
    Log(LogLevel::kWarn,
        "*** Fixing slots coverage with %d unreachable masters is dangerous: vireo-cli will "
        "assume that slots about masters that are not reachable are not covered, and will try "
        "to reassign them to the reachable nodes. This can cause data loss and is rarely what "
        "you want to do. If you really want to proceed use the "
        "--cluster-fix-with-unreachable-masters option.\n",
        unreachable_masters_);
    exit(1);
  }
  Log(LogLevel::kInfo, ">>> Fixing slots coverage...\n");
  // For each uncovered slot, the masters that still hold keys of it.
  std::vector<int> none, single, multi;
  std::vector<std::vector<ClusterNode*>> holders(kClusterSlots);
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    if (covered[slot]) continue;
    for (auto& n : nodes_) {
      if (n->is_replica()) continue;
      auto keys = Command(n.get(), {"CLUSTER", "GETKEYSINSLOT", std::to_string(slot), "1"});
      if (!CheckReply(*n, keys, nullptr)) return -1;
      if (!keys->elements.empty()) holders[slot].push_back(n.get());
    }
    const size_t count = holders[slot].size();
    (count == 0 ? none : count == 1 ? single : multi).push_back(slot);
  }
  int fixed = 0;
  // Every repair asks, even with --cluster-yes.
  if (!none.empty()) {
    printf("The following uncovered slots have no keys across the cluster:\n");
    PrintSlotsList(none);
    if (ConfirmWithYes(*this, "Fix these slots by covering with a random node?", true)) {
      std::vector<ClusterNode*> masters;
      for (auto& n : nodes_) {
        if (!n->is_replica()) masters.push_back(n.get());
      }
      std::mt19937 rng(std::random_device{}());
      for (int slot : none) {
        ClusterNode* n = masters[rng() % masters.size()];
        Log(LogLevel::kInfo, ">>> Covering slot %d with %s:%d\n", slot, n->ip.c_str(), n->port);
        if (!SetSlotOwner(n, slot, false)) return -1;
        n->slots[slot] = 1;
        ++fixed;
      }
    }
  }
  if (!single.empty()) {
    printf("The following uncovered slots have keys in just one node:\n");
    PrintSlotsList(single);
    if (ConfirmWithYes(*this, "Fix these slots by covering with those nodes?", true)) {
      for (int slot : single) {
        ClusterNode* n = holders[slot][0];
        Log(LogLevel::kInfo, ">>> Covering slot %d with %s:%d\n", slot, n->ip.c_str(), n->port);
        if (!SetSlotOwner(n, slot, false)) return -1;
        n->slots[slot] = 1;
        ++fixed;
      }
    }
  }
  if (!multi.empty()) {
    printf("The following uncovered slots have keys in multiple nodes:\n");
    PrintSlotsList(multi);
    if (ConfirmWithYes(*this, "Fix these slots by moving keys into a single node?", true)) {
      for (int slot : multi) {
        ClusterNode* target = NodeWithMostKeys(this, holders[slot], slot);
        if (target == nullptr) return -1;
        Log(LogLevel::kInfo, ">>> Covering slot %d moving keys to %s:%d\n", slot,
            target->ip.c_str(), target->port);
        if (!SetSlotOwner(target, slot, true)) return -1;
        target->slots[slot] = 1;
        for (ClusterNode* src : holders[slot]) {
          if (src == target) continue;
          // The source imports the slot while its keys leave, so MIGRATE is not redirected.
          if (!SetSlot(src, *target, slot, "NODE", nullptr) ||
              !SetSlot(src, *target, slot, "IMPORTING", nullptr) ||
              !MoveSlot(src, target, slot, kMoveVerbose | kMoveCold, nullptr) ||
              !ClearSlotStatus(this, src, slot)) {
            return -1;
          }
        }
        ++fixed;
      }
    }
  }
  return fixed;
}

bool ClusterManager::FixOpenSlot(int slot) {
  if (unreachable_masters_ > 0 && !opts().fix_with_unreachable) {
    Log(LogLevel::kWarn,
        "*** Fixing open slots with %d unreachable masters is dangerous: vireo-cli will assume "
        "that slots about masters that are not reachable are not covered, and will try to "
        "reassign them to the reachable nodes. This can cause data loss and is rarely what you "
        "want to do. If you really want to proceed use the "
        "--cluster-fix-with-unreachable-masters option.\n",
        unreachable_masters_);
    exit(1);
  }
  Log(LogLevel::kInfo, ">>> Fixing open slot %d\n", slot);
  // Owners: nodes that claim the slot or hold keys of it.
  std::vector<ClusterNode*> owners, migrating, importing;
  for (auto& n : nodes_) {
    if (n->flags & ClusterNode::kSlave) continue;
    if (n->slots[slot]) {
      owners.push_back(n.get());
      continue;
    }
    long long count = CountKeysInSlot(this, n.get(), slot);
    if (count < 0) return false;
    if (count > 0) {
      Log(LogLevel::kWarn, "*** Found keys about slot %d in non-owner node %s:%d!\n", slot,
          n->ip.c_str(), n->port);
      owners.push_back(n.get());
    }
  }
  ClusterNode* owner = owners.size() == 1 ? owners[0] : nullptr;
  for (auto& n : nodes_) {
    if (n->flags & ClusterNode::kSlave) continue;
    auto has = [&](const std::vector<std::pair<std::string, std::string>>& list) {
      return std::any_of(list.begin(), list.end(),
                         [&](const auto& e) { return atoi(e.first.c_str()) == slot; });
    };
    if (has(n->migrating)) {
      migrating.push_back(n.get());
    } else if (has(n->importing)) {
      importing.push_back(n.get());
    } else if (n.get() != owner) {
      long long count = CountKeysInSlot(this, n.get(), slot);
      if (count < 0) return false;
      if (count > 0) {
        Log(LogLevel::kWarn, "*** Found keys about slot %d in node %s:%d!\n", slot, n->ip.c_str(),
            n->port);
        importing.push_back(n.get());
      }
    }
  }
  if (!migrating.empty()) printf("Set as migrating in: %s\n", JoinAddresses(migrating).c_str());
  if (!importing.empty()) printf("Set as importing in: %s\n", JoinAddresses(importing).c_str());

  if (owner == nullptr) {
    Log(LogLevel::kInfo,
        ">>> No single clear owner for the slot, selecting an owner by # of "
        "keys...\n");
    owner = NodeWithMostKeys(this, AllNodes(this), slot);
    if (owner == nullptr) {
      Log(LogLevel::kError, "[ERR] Can't select a slot owner. Impossible to fix.\n");
      return false;
    }
    Log(LogLevel::kWarn, "*** Configuring %s:%d as the slot owner\n", owner->ip.c_str(),
        owner->port);
    if (!ClearSlotStatus(this, owner, slot) || !SetSlotOwner(owner, slot, false)) return false;
    owner->slots[slot] = 1;
    Remove(&migrating, owner);
    Remove(&importing, owner);
  }
  // Several owners: keep one, the others import the slot from it (handled below).
  if (owners.size() > 1) {
    for (ClusterNode* n : owners) {
      if (n == owner) continue;
      if (!DelSlot(this, n, slot)) return false;
      n->slots[slot] = 0;
      if (!SetSlot(n, *owner, slot, "node", nullptr) ||
          !SetSlot(n, *owner, slot, "importing", nullptr)) {
        return false;
      }
      Remove(&importing, n);
      importing.push_back(n);
      Remove(&migrating, n);
    }
  }
  const int move = kMoveVerbose;
  if (migrating.size() == 1 && importing.size() == 1) {
    // An interrupted reshard: finish the move.
    ClusterNode* src = migrating[0];
    ClusterNode* dst = importing[0];
    Log(LogLevel::kInfo, ">>> Case 1: Moving slot %d from %s:%d to %s:%d\n", slot, src->ip.c_str(),
        src->port, dst->ip.c_str(), dst->port);
    return MoveSlot(src, dst, slot, move | kMoveUpdate, nullptr);
  }
  if (migrating.empty() && !importing.empty()) {
    // Nodes that got keys of the slot: move them all to the owner.
    Log(LogLevel::kInfo, ">>> Case 2: Moving all the %d slot keys to its owner %s:%d\n", slot,
        owner->ip.c_str(), owner->port);
    for (ClusterNode* n : importing) {
      if (n == owner) continue;
      if (!MoveSlot(n, owner, slot, move | kMoveCold, nullptr)) return false;
      Log(LogLevel::kInfo, ">>> Setting %d as STABLE in %s:%d\n", slot, n->ip.c_str(), n->port);
      if (!ClearSlotStatus(this, n, slot)) return false;
    }
    for (auto& n : nodes_) {
      if (n.get() == owner || (n->flags & ClusterNode::kSlave)) continue;
      if (!SetSlot(n.get(), *owner, slot, "NODE", nullptr)) return false;
    }
    return true;
  }
  if (importing.empty() && migrating.size() == 1) {
    // A migrating node with nothing importing: an interrupted reshard; close the slot.
    ClusterNode* src = migrating[0];
    if (src == owner || CountKeysInSlot(this, src, slot) == 0) {
      Log(LogLevel::kInfo, ">>> Case 4: Closing slot %d on %s:%d\n", slot, src->ip.c_str(),
          src->port);
      return ClearSlotStatus(this, src, slot);
    }
  }
  Log(LogLevel::kError,
      "[ERR] Sorry, vireo-cli can't fix this slot yet (work in progress). Slot is set as "
      "migrating in %s, as importing in %s, owner is %s:%d\n",
      JoinAddresses(migrating).c_str(), JoinAddresses(importing).c_str(), owner->ip.c_str(),
      owner->port);
  return false;
}

}  // namespace vireo::cli
