// --cluster create: slot allocation, replica placement and the join of new nodes.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cli/cluster_nodes.h"

namespace vireo::cli {
namespace {

using tools::Reply;

// Replica placement score: 10000 per replica on its master's host, 1 per replica sharing a
// host with a sibling. Offenders are replicas on a host with their master group.
int AntiAffinityScore(ClusterManager* cm, std::vector<ClusterNode*>* offenders) {
  std::map<std::string, std::map<std::string, std::string>> hosts;  // ip -> master -> types
  for (auto& n : cm->nodes()) {
    const std::string& key = n->replicate.empty() ? n->name : n->replicate;
    std::string& types = hosts[n->ip][key];
    types = n->replicate.empty() ? "m" + types : types + "s";
  }
  int score = 0;
  for (auto& [ip, groups] : hosts) {
    for (auto& [master, types] : groups) {
      if (types.size() < 2) continue;
      score += types[0] == 'm' ? 10000 * static_cast<int>(types.size() - 1)
                               : static_cast<int>(types.size());
      if (offenders == nullptr) continue;
      for (auto& n : cm->nodes()) {
        if (n->replicate == master && n->ip == ip) {
          offenders->push_back(n.get());
          break;
        }
      }
    }
  }
  return score;
}

void OptimizeAntiAffinity(ClusterManager* cm) {
  if (AntiAffinityScore(cm, nullptr) == 0) return;
  cm->Log(LogLevel::kInfo, ">>> Trying to optimize slaves allocation for anti-affinity\n");
  std::mt19937 rng(static_cast<unsigned>(time(nullptr)));
  for (int iter = 500 * static_cast<int>(cm->nodes().size()); iter > 0; --iter) {
    std::vector<ClusterNode*> offenders;
    int score = AntiAffinityScore(cm, &offenders);
    if (score == 0 || offenders.empty()) break;
    // Swap the masters of an offending replica and a random other replica; keep the swap
    // unless it makes things worse.
    ClusterNode* first = offenders[rng() % offenders.size()];
    std::vector<ClusterNode*> others;
    for (auto& n : cm->nodes()) {
      if (n.get() != first && !n->replicate.empty()) others.push_back(n.get());
    }
    if (others.empty()) break;
    ClusterNode* second = others[rng() % others.size()];
    std::swap(first->replicate, second->replicate);
    first->dirty = second->dirty = true;
    if (AntiAffinityScore(cm, nullptr) > score) std::swap(first->replicate, second->replicate);
  }
  const int score = AntiAffinityScore(cm, nullptr);
  if (score == 0) {
    cm->Log(LogLevel::kSuccess, "%s\n", "[OK] Perfect anti-affinity obtained!");
  } else if (score >= 10000) {
    cm->Log(LogLevel::kWarn, "%s\n", "[WARNING] Some slaves are in the same host as their master");
  } else {
    cm->Log(LogLevel::kWarn, "%s\n",
            "[WARNING] Some slaves of the same master are in the same host");
  }
}

}  // namespace

// create host1:port1 ... hostN:portN [--cluster-replicas N]
bool CreateCluster(ClusterManager* cm, const std::vector<std::string>& args) {
  for (const std::string& addr : args) {
    std::string ip;
    int port = 0;
    if (!ParseNodeAddress(addr, &ip, &port, nullptr)) {
      fprintf(stderr, "Invalid address format: %s\n", addr.c_str());
      return false;
    }
    auto node = std::make_unique<ClusterNode>(ip, port);
    if (!cm->PrepareNewNode(node.get())) return false;
    cm->nodes().push_back(std::move(node));
  }
  auto& nodes = cm->nodes();
  const int node_count = static_cast<int>(nodes.size());
  const int replicas = cm->opts().replicas;
  const int masters_count = node_count / (replicas + 1);
  if (masters_count < 3) {
    cm->Log(LogLevel::kError,
            "*** ERROR: Invalid configuration for cluster creation.\n"
            "*** Valkey Cluster requires at least 3 primary nodes.\n"
            "*** This is not possible with %d nodes and %d replicas per node.",
            node_count, replicas);
    cm->Log(LogLevel::kError, "\n*** At least %d nodes are required.\n", 3 * (replicas + 1));
    return false;
  }
  cm->Log(LogLevel::kInfo, ">>> Performing hash slots allocation on %d nodes...\n", node_count);
  // Interleave the nodes by host so masters spread over hosts first.
  std::vector<std::string> ips;
  std::vector<std::vector<ClusterNode*>> by_ip;
  for (auto& n : nodes) {
    auto it = std::find(ips.begin(), ips.end(), n->ip);
    if (it == ips.end()) {
      ips.push_back(n->ip);
      by_ip.emplace_back();
      it = ips.end() - 1;
    }
    by_ip[it - ips.begin()].push_back(n.get());
  }
  std::vector<ClusterNode*> interleaved;
  for (size_t round = 0; static_cast<int>(interleaved.size()) < node_count; ++round) {
    for (auto& group : by_ip) {
      if (round < group.size()) interleaved.push_back(group[round]);
    }
  }
  std::vector<ClusterNode*> masters(interleaved.begin(), interleaved.begin() + masters_count);
  std::vector<ClusterNode*> spares(interleaved.begin() + masters_count, interleaved.end());

  const float slots_per_node = kClusterSlots / static_cast<float>(masters_count);
  long first = 0;
  float cursor = 0.0f;
  for (int i = 0; i < masters_count; ++i) {
    ClusterNode* master = masters[i];
    long last = lround(cursor + slots_per_node - 1);
    if (last > kClusterSlots || i == masters_count - 1) last = kClusterSlots - 1;
    if (last < first) last = first;
    printf("Primary[%d] -> Slots %ld - %ld\n", i, first, last);
    master->slots_count = 0;
    for (long j = first; j <= last; ++j) {
      master->slots[j] = 1;
      ++master->slots_count;
    }
    master->dirty = true;
    first = last + 1;
    cursor += slots_per_node;
  }

  // Rotating the spares often gives a better start for the anti-affinity pass.
  if (!spares.empty()) std::rotate(spares.begin(), spares.begin() + 1, spares.end());
  size_t spare_start = 0;
  int available = static_cast<int>(spares.size());
  bool assign_unused = false;
  for (;;) {
    for (ClusterNode* master : masters) {
      for (int assigned = 0; assigned < replicas && available > 0;) {
        // Prefer a spare on another host; else take the first one left.
        ClusterNode* replica = nullptr;
        int first_index = -1;
        for (size_t j = spare_start; j < spares.size(); ++j) {
          if (spares[j] == nullptr) continue;
          if (spares[j]->ip != master->ip) {
            replica = spares[j];
            spares[j] = nullptr;
            break;
          }
          if (first_index < 0) first_index = static_cast<int>(j);
        }
        if (replica == nullptr && first_index >= 0) {
          replica = spares[first_index];
          spare_start = first_index + 1;
        }
        if (replica == nullptr) break;
        ++assigned;
        --available;
        replica->replicate = master->name;
        replica->dirty = true;
        printf("Adding replica %s:%d to %s:%d\n", replica->ip.c_str(), replica->port,
               master->ip.c_str(), master->port);
        if (assign_unused) break;
      }
    }
    if (assign_unused || available <= 0) break;
    assign_unused = true;
    printf("Adding extra replicas...\n");
  }
  OptimizeAntiAffinity(cm);
  cm->ShowNodes();
  if (!ConfirmWithYes(*cm, "Can I set the above configuration?", false)) return true;

  std::string err;
  for (auto& node : nodes) {
    const bool was_dirty = node->dirty;
    if (!cm->FlushNodeConfig(node.get(), &err) && was_dirty && node->replicate.empty()) {
      if (!err.empty()) cm->PrintReplyError(*node, err);
      return false;
    }
  }
  cm->Log(LogLevel::kInfo, ">>> Nodes configuration updated\n");
  cm->Log(LogLevel::kInfo, ">>> Assign a different config epoch to each node\n");
  int epoch = 1;
  for (auto& node : nodes) {
    cm->Command(node.get(), {"CLUSTER", "SET-CONFIG-EPOCH", std::to_string(epoch++)});
  }
  cm->Log(LogLevel::kInfo, ">>> Sending CLUSTER MEET messages to join the cluster\n");
  std::string first_ip;
  if (!ResolveIp(nodes[0]->ip, &first_ip)) {
    fprintf(stderr, "Invalid IP address or hostname specified: %s\n", nodes[0]->ip.c_str());
    return false;
  }
  const std::vector<std::string> meet = MeetCommand(first_ip, *nodes[0]);
  for (size_t i = 1; i < nodes.size(); ++i) {
    auto reply = cm->Command(nodes[i].get(), meet);
    if (!reply) {
      fprintf(stderr, "Failed to send CLUSTER MEET command.\n");
      return false;
    }
    if (reply->type == Reply::Type::kError) {
      cm->PrintReplyError(*nodes[i], reply->str);
      return false;
    }
  }
  // Give the join a second to start, so the wait does not see empty nodes agreeing.
  sleep(1);
  cm->WaitForClusterJoin();
  // Replicas can only be configured once they know their masters.
  for (auto& node : nodes) {
    if (!node->dirty) continue;
    if (!cm->FlushNodeConfig(node.get(), &err) && node->replicate.empty()) {
      if (!err.empty()) cm->PrintReplyError(*node, err);
      return false;
    }
  }
  std::unique_ptr<ClusterNode> entry = std::move(nodes[0]);
  nodes.clear();
  if (!cm->LoadFromNode(std::move(entry))) return false;
  cm->CheckCluster(false);
  return true;
}

}  // namespace vireo::cli
