// The text form of cluster nodes: one CLUSTER NODES line per node, which is also what the
// cluster config file (nodes.conf) holds, followed there by a "vars" line with the epochs.
// Format as Valkey's:
//   <id> <ip>:<port>@<cport> <flags> <master-id|-> <ping-sent> <pong-recv> <config-epoch>
//   <connected|disconnected> <slot|first-last> ...
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cluster/cluster_node.h"

namespace vireo {

// "myself,master", "slave", "master,fail?", ... ("noflags" when none applies).
std::string NodeFlagsText(uint32_t flags);
// Parses a flags field; false on an unknown flag.
bool ParseNodeFlags(const std::string& text, uint32_t* flags);
// Appends the slot ranges of a slot set (" 0-5460 5462").
void AppendSlotRanges(const std::bitset<kClusterSlots>& slots, std::string* out);

// One line without the trailing newline. link_up: the state column for nodes other than
// myself. For myself, open slots follow as [slot->-id] (migrating) and [slot-<-id]
// (importing).
struct OpenSlots {
  const std::array<std::string, kClusterSlots>* migrating = nullptr;  // target IDs or ""
  const std::array<std::string, kClusterSlots>* importing = nullptr;  // source IDs or ""
};
std::string NodeLine(const ClusterNode& node, bool link_up, const OpenSlots& open);

struct NodesFile {
  std::vector<std::unique_ptr<ClusterNode>> nodes;  // myself among them (kNodeMyself)
  uint64_t current_epoch = 0;
  uint64_t last_vote_epoch = 0;
  // Vireo's own var: slots of atomic imports running when the file was saved ("0-9,20-29"),
  // whose partial keys a restart must drop.
  std::string atomic_imports;
};

// Parses a nodes.conf text; false with *error naming the line.
bool ParseNodesFile(const std::string& text, NodesFile* out, std::string* error);

}  // namespace vireo
