// What a cluster node knows about one node of the cluster (itself included): identity,
// addresses, role, failure state, epochs and the slots it serves. Plain data: the cluster
// logic (cluster/cluster.h) and the nodes file (cluster/nodes_file.h) read and change it.
#pragma once

#include <bitset>
#include <cstdint>
#include <map>
#include <string>

#include "common/crc16.h"

namespace vireo {

enum ClusterNodeFlag : uint32_t {
  kNodeMyself = 1u << 0,
  kNodeMaster = 1u << 1,
  kNodeReplica = 1u << 2,
  kNodePfail = 1u << 3,      // this node cannot reach it (node timeout passed)
  kNodeFail = 1u << 4,       // a majority of primaries agreed it failed
  kNodeHandshake = 1u << 5,  // met, first PONG not received yet (the ID is a placeholder)
  kNodeNoAddr = 1u << 6,
  kNodeMeet = 1u << 7,       // send MEET rather than PING on the next contact
  kNodeMigrateTo = 1u << 8,  // local: a primary that had replicas (a replica migration target)
  kNodeNoFailover = 1u << 9,
};

class ClusterLink;

struct ClusterNode {
  std::string id;  // 40 hex characters
  std::string ip;
  int port = 0;
  int cport = 0;
  // tls-cluster: the plaintext client port (port is then the TLS one); 0 when unknown.
  int pport = 0;
  uint32_t flags = 0;
  std::string master_id;  // for a replica: its primary's ID ("" when unknown)
  uint64_t config_epoch = 0;
  int64_t ping_sent_ms = 0;      // 0 when no ping is waiting for its pong
  int64_t pong_received_ms = 0;
  int64_t data_received_ms = 0;
  int64_t fail_time_ms = 0;
  int64_t repl_offset = 0;
  // availability-zone as the node announces it in its PINGs ("" when unset); for myself the
  // config is read instead (Cluster::AvailabilityZone).
  std::string availability_zone;
  std::bitset<kClusterSlots> slots;
  int slot_count = 0;
  // Primaries that reported this node as failing, with when they said so.
  std::map<std::string, int64_t> fail_reports;
  ClusterLink* link = nullptr;  // outbound connection to its bus port
  int64_t created_ms = 0;
  int64_t orphaned_ms = 0;  // since when this primary has had no working replica (0: it has)

  bool is_master() const { return (flags & kNodeMaster) != 0; }
  bool is_replica() const { return (flags & kNodeReplica) != 0; }
  bool failed() const { return (flags & kNodeFail) != 0; }
  bool in_handshake() const { return (flags & kNodeHandshake) != 0; }
};

}  // namespace vireo
