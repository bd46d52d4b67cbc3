// Cluster mode: the node table, slot ownership, epochs, the cluster bus and the redirections
// clients get, as Valkey's cluster specification describes them for clients and tools
// (CLUSTER commands and their output formats, MOVED/ASK, nodes.conf).
//
// The bus between Vireo nodes (cluster-port, default port + 10000) carries RESP arrays:
// PING/PONG/MEET with the sender's view of itself (ID, addresses, role, epochs, a 2 KB slot
// bitmap) and gossip about a few other nodes; FAIL, UPDATE, PUBLISH, failover votes. Every
// node keeps one outbound link per known node and answers on inbound ones.
//
// Slots move by config epoch: a primary's claim replaces the known owner's when its epoch is
// greater, so after a failover or a resharding every node converges on the newest claims.
//
// Execution thread only.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_node.h"
#include "cluster/slot_migration.h"
#include "cluster/slot_stats.h"
#include "commands/command_table.h"
#include "net/event_loop.h"

namespace vireo {

class Server;
struct Client;
class ClusterLink;
class Db;
class ReplyBuilder;
class TlsContext;

class Cluster {
 public:
  explicit Cluster(Server& server);
  ~Cluster();

  // Loads (or creates) the config file and opens the bus port; false with *error.
  bool Init(std::string* error);
  // The periodic task (every server cron tick).
  void Cron();

  // --- Clients ------------------------------------------------------------------------------
  // The redirection or refusal c must get instead of running spec with its args (MOVED,
  // ASK, CROSSSLOT, TRYAGAIN, CLUSTERDOWN), or "" when it runs here.
  std::string Redirect(Client* c, const CommandSpec* spec, const std::vector<std::string_view>& args);
  // The redirection or refusal a read of slot by c gets (CLUSTERSCAN routes by its cursor's
  // slot, not by a key), or "" when this node serves it to c.
  std::string SlotRedirect(const Client* c, int slot) const;
  // CLUSTER <subcommand>: the reply, written to r.
  void Command(Client* c, const std::vector<std::string_view>& args, ReplyBuilder& r);
  std::string InfoFields() const;
  // PUBLISH: delivered to the other nodes too; SPUBLISH: to the other nodes of this shard
  // (the slot's primary and its replicas).
  void BroadcastPublish(std::string_view channel, std::string_view message);
  void ShardPublish(std::string_view channel, std::string_view message);

  ClusterNode* myself() { return myself_; }
  ClusterNode* Lookup(std::string_view id);
  bool state_ok() const { return state_ok_; }
  ClusterNode* SlotOwner(int slot) const { return slots_[static_cast<size_t>(slot)]; }
  // CLUSTER SLOT-STATS counters; a slot's are cleared when this node's shard loses it.
  SlotStats& slot_stats() { return slot_stats_; }
  // Atomic slot migrations (CLUSTER MIGRATESLOTS) from and to this node.
  SlotMigrations& migrations() { return *migrations_; }
  // An atomic migration's hand-off: this primary takes the slots in a new config epoch of its
  // own (the claim wins everywhere without a vote) and tells every node at once.
  void ClaimSlots(const std::bitset<kClusterSlots>& slots);
  // The redirection a client blocked on keys (BLPOP, ...) gets once their slot is served
  // elsewhere, or "" while it is still served here.
  std::string BlockedRedirect(const Client* c, const std::vector<std::string>& keys) const;
  // This node, or the primary it replicates: the shard whose slots SLOT-STATS reports.
  bool InMyShard(const ClusterNode* n) const {
    return n != nullptr && (n == myself_ || (myself_->is_replica() && n->id == myself_->master_id));
  }

 private:
  friend class ClusterLink;
  friend class SlotMigrations;  // reads the manual MIGRATING / IMPORTING marks

  // Node table.
  ClusterNode* AddNode(std::unique_ptr<ClusterNode> node);
  void DeleteNode(ClusterNode* node);
  void RenameNode(ClusterNode* node, const std::string& id);
  void SetSlot(int slot, ClusterNode* owner);
  // After slots changed owner: migrations learn it, clients blocked on moved keys are
  // redirected (as Valkey does in its event loop).
  void AfterSlotChanges();
  void ClearSlot(int slot);
  int MasterCount() const;  // primaries serving at least one slot (the quorum's base)
  void UpdateState();
  void SetMyMaster(ClusterNode* master);
  void PingAll();
  void BecomeMaster();
  // The addresses this node announces: cluster-announce-ip/port/bus-port or the real ones.
  void RefreshMyAddress();
  // CLUSTER FORGET keeps a node out for a minute, so gossip does not bring it back.
  bool Forgotten(const std::string& id) const { return forgotten_.count(id) != 0; }
  int CountWorkingReplicas(const ClusterNode* master) const;
  // durable: fsync'd (epochs, votes, roles); slot moves are saved without, as Valkey does,
  // or a reshard spends its time in fsync.
  void SaveConfig(bool durable = true);
  std::string NodesText(bool for_file) const;
  void MarkConfigChanged() { config_dirty_ = true; }

  // Bus (cluster_bus.cc).
  bool ListenBus(std::string* error);
  static void OnBusAccept(void* obj, uint32_t events);
  void Connect(ClusterNode* node);
  // tls-cluster yes: the contexts bus links are made with; nullptr for plain links.
  TlsContext* BusTls() const;
  // The port nodes announce to clients: tls-port with tls-cluster yes, else port.
  int ClientPort() const;
  // The port of n a client should use: under tls-cluster, plaintext clients are given the
  // node's plaintext port (as Valkey's pport), TLS clients its TLS port.
  int PortFor(const ClusterNode& n, const Client* c) const;
  void SendPing(ClusterLink* link, const char* type);
  void BroadcastFail(ClusterNode* node);
  void SendToMasters(const std::vector<std::string_view>& fields);
  void HandleMessage(ClusterLink* link, const std::vector<std::string_view>& msg);
  void HandlePing(ClusterLink* link, const std::vector<std::string_view>& msg);
  void UpdateSlotsFrom(ClusterNode* sender, std::string_view bitmap, uint64_t epoch);
  void LinkClosed(ClusterLink* link);

  // Failure detection and failover (cluster_failover.cc).
  void CheckFailures(int64_t now);
  void ReplicaCron(int64_t now);
  void HandleAuthRequest(ClusterLink* link, ClusterNode* sender,
                         const std::vector<std::string_view>& msg);
  void StartManualFailover(bool force, bool takeover);
  void HandleAuthAck(ClusterNode* sender, uint64_t epoch);
  void PromoteMyself();
  bool NoFailover() const;  // cluster-replica-no-failover
  // cluster-replica-validity-factor: false (logged once) when this replica's data is too old.
  bool DataRecentEnough(int64_t now);
  // cluster-migration-barrier: a replica of the primary with most replicas moves to an
  // orphaned primary.
  void ReplicaMigrationCron(int64_t now);
  bool AllowReplicaMigration() const;

  // Commands (cluster_commands_impl in cluster_admin.cc).
  void ReplyNodes(ReplyBuilder& r) const;
  // "MOVED <slot> <ip>:<port>" (or ASK) for c: the port its transport uses (PortFor).
  std::string RedirectTo(const char* kind, int slot, const ClusterNode& to,
                         const Client* c) const;
  // CLUSTER GETKEYSINSLOT: up to count keys of slot in db.
  std::vector<std::string> KeysInSlot(Db* db, int slot, int64_t count);
  // c: the asking client, whose transport picks the port shown (PortFor).
  void ReplySlots(const Client* c, ReplyBuilder& r) const;
  void ReplyShards(const Client* c, ReplyBuilder& r) const;
  // n's availability-zone ("" when unset): myself's from the config, so CONFIG SET shows at
  // once; the others' from their last PING.
  std::string AvailabilityZone(const ClusterNode& n) const;

  Server& server_;
  std::map<std::string, std::unique_ptr<ClusterNode>> nodes_;
  ClusterNode* myself_ = nullptr;
  std::array<ClusterNode*, kClusterSlots> slots_{};
  SlotStats slot_stats_;
  std::unique_ptr<SlotMigrations> migrations_;
  std::array<std::string, kClusterSlots> migrating_;  // target node IDs
  std::array<std::string, kClusterSlots> importing_;  // source node IDs
  uint64_t current_epoch_ = 0;
  uint64_t last_vote_epoch_ = 0;
  uint64_t saved_epoch_ = 0;  // current_epoch_ at the last durable save
  bool state_ok_ = false;
  bool config_dirty_ = false;
  bool owners_changed_ = false;
  std::string config_file_;
  int64_t node_timeout_ms_ = 15000;
  int bus_fd_ = -1;
  int bus_listen_port_ = 0;  // cluster-port (the announced one may differ)
  std::map<std::string, int64_t> forgotten_;  // node ID -> until when it stays forgotten
  int cant_failover_reason_ = 0;  // the last "unable to failover" logged
  IoWatcher bus_watcher_;
  std::vector<std::unique_ptr<ClusterLink>> links_;
  std::vector<ClusterLink*> dead_links_;
  uint64_t cron_ticks_ = 0;
  std::vector<KeyRef> key_positions_;  // Redirect's scratch
  std::vector<std::string_view> key_names_;
  std::vector<std::string_view> queued_args_;  // one queued command's arguments (EXEC)
  std::vector<uint64_t> getkeys_resume_;  // per slot: where GETKEYSINSLOT's last walk stopped
  int getkeys_db_ = -1;
  uint64_t messages_sent_ = 0;
  uint64_t messages_received_ = 0;
  // Failover, replica side.
  int64_t failover_auth_time_ = 0;
  int failover_auth_count_ = 0;
  bool failover_auth_sent_ = false;
  uint64_t failover_auth_epoch_ = 0;
  bool manual_failover_ = false;    // primary: a replica asked to take over (mflags in PINGs)
  bool failover_force_ = false;     // replica: the election does not wait for a FAIL
  int64_t manual_failover_end_ = 0;
  int64_t mf_master_offset_ = -1;   // replica: the paused primary's final offset
  // Primaries' votes: when this node voted for a replica of each primary.
  std::map<std::string, int64_t> voted_time_;
};

}  // namespace vireo
