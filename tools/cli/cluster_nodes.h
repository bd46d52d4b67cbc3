// The cluster as the --cluster manager sees it: nodes loaded from CLUSTER NODES, their slots,
// the consistency and coverage checks, and slot migration. Messages, colors and ordering follow
// redis-cli 7.0, so scripts that read its output keep working.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/options.h"
#include "common/connection.h"

namespace vireo::cli {

constexpr int kClusterSlots = 16384;

struct ClusterNode {
  enum Flag : int {
    kMyself = 1 << 0,
    kSlave = 1 << 1,
    kFriend = 1 << 2,
    kNoAddr = 1 << 3,
    kDisconnected = 1 << 4,
    kFail = 1 << 5,
  };

  ClusterNode(std::string ip_, int port_) : ip(std::move(ip_)), port(port_) {}

  std::unique_ptr<tools::Connection> conn;
  std::string name;  // node id
  std::string ip;
  int port = 0;
  int bus_port = 0;
  int flags = 0;
  std::vector<std::string> flag_names;  // as CLUSTER NODES lists them
  std::string replicate;                // master id when a replica, else empty
  uint64_t current_epoch = 0;
  bool dirty = false;  // slots or replicate changed locally, not yet sent
  std::vector<uint8_t> slots = std::vector<uint8_t>(kClusterSlots, 0);
  int slots_count = 0;
  int replicas_count = 0;
  std::vector<std::unique_ptr<ClusterNode>> friends;
  std::vector<std::pair<std::string, std::string>> migrating;  // slot, destination id
  std::vector<std::pair<std::string, std::string>> importing;  // slot, source id
  float weight = 1.0f;
  int balance = 0;
  std::optional<bool> atomic_migration;  // has CLUSTER MIGRATESLOTS; unset until asked

  bool is_replica() const { return (flags & kSlave) != 0 || !replicate.empty(); }
  void ResetSlots();
};

// Log levels of the cluster manager's messages (bold, yellow, red, green on an xterm).
enum class LogLevel { kInfo, kWarn, kError, kSuccess };

class ClusterManager {
 public:
  explicit ClusterManager(const Options& options);

  const ClusterOptions& opts() const { return options_.cluster; }
  const Options& options() const { return options_; }
  std::vector<std::unique_ptr<ClusterNode>>& nodes() { return nodes_; }
  int errors() const { return errors_; }
  int unreachable_masters() const { return unreachable_masters_; }
  bool fix_mode = false;

  void Log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  // "Node ip:port replied with error:\n<err>" in red.
  void PrintReplyError(const ClusterNode& node, const std::string& err);
  // Records a check failure and prints it.
  void OnError(const std::string& err);

  // Connects (and authenticates) a node; prints "Could not connect..." on failure.
  bool Connect(ClusterNode* node);
  // Sends a command; nullopt on I/O failure.
  std::optional<tools::Reply> Command(ClusterNode* node, const std::vector<std::string>& args);
  // A reply that is present and not an error; otherwise its error text goes to *err (when
  // given) or is printed.
  bool CheckReply(const ClusterNode& node, const std::optional<tools::Reply>& reply,
                  std::string* err);

  // "[ERR] Node ip:port is not configured as a cluster node." / "... is not empty ...".
  void PrintNotClusterNode(const ClusterNode& node, const std::string& err);
  void PrintNotEmpty(const ClusterNode& node, const std::string& err);
  // Connects a node that is to join a cluster and checks that it is an empty cluster node.
  bool PrepareNewNode(ClusterNode* node);
  // INFO cluster says cluster_enabled:1.
  bool IsClusterNode(ClusterNode* node, std::string* err);
  // No keys in db0 and knows no other node.
  bool IsEmpty(ClusterNode* node, std::string* err);
  // Parses CLUSTER NODES into node (and, with friends, the other nodes into node->friends).
  bool LoadInfo(ClusterNode* node, bool friends, std::string* err);
  // Loads the whole cluster through one node: it and its reachable friends become nodes().
  bool LoadFromNode(std::unique_ptr<ClusterNode> node);

  ClusterNode* NodeByName(const std::string& name);
  ClusterNode* NodeByAbbreviatedName(const std::string& prefix);
  ClusterNode* MasterWithLeastReplicas();

  // Printing.
  std::string NodeInfo(const ClusterNode& node, int indent) const;
  void ShowNodes() const;
  void ShowClusterInfo();
  // The consistency, open-slot and coverage checks; false when the cluster has problems.
  bool CheckCluster(bool quiet);
  bool IsConfigConsistent();
  void WaitForClusterJoin();

  // Slot moves (reshard, rebalance, fix).
  struct ReshardItem {
    ClusterNode* source;
    int slot;
  };
  std::vector<ReshardItem> ComputeReshardTable(std::vector<ClusterNode*> sources, int slots);
  enum MoveOptions { kMoveVerbose = 1, kMoveQuiet = 2, kMoveUpdate = 4, kMoveCold = 8 };
  bool MoveSlot(ClusterNode* source, ClusterNode* target, int slot, int move_options,
                std::string* err);
  // Moves every slot of the table (runs of one source each) to target: one atomic slot
  // migration per source when both ends support it (or --cluster-use-atomic-slot-migration),
  // else MoveSlot per slot. kMoveQuiet prints a '#' per slot moved. False with *err set (or the
  // error printed) when a move failed; the rest of the table is not tried. err is required.
  bool MoveSlots(const std::vector<ReshardItem>& table, ClusterNode* target, int move_options,
                 std::string* err);
  // COMMAND INFO CLUSTER|MIGRATESLOTS answers an entry (Valkey 9.0 and Vireo); asked once.
  bool SupportsAtomicMigration(ClusterNode* node);
  bool SetSlot(ClusterNode* node, const ClusterNode& other, int slot, const char* state,
               std::string* err);
  // CLUSTER ADDSLOTSRANGE (falling back to ADDSLOTS) for every slot the node claims.
  bool AddSlots(ClusterNode* node, std::string* err);
  // Sends a dirty node's slots or CLUSTER REPLICATE; false when it failed or was not dirty.
  bool FlushNodeConfig(ClusterNode* node, std::string* err);
  // Assigns an uncovered slot to owner atomically (MULTI, DELSLOTS, ADDSLOTS, BUMPEPOCH).
  bool SetSlotOwner(ClusterNode* owner, int slot, bool clear_state);
  // Coverage repair of `fix`; returns the number of slots fixed, -1 on failure.
  int FixSlotsCoverage(const std::vector<uint8_t>& covered);
  // Open-slot repair of `fix` for one slot.
  bool FixOpenSlot(int slot);

 private:
  std::string ConfigSignature(ClusterNode* node);
  bool MigrateKeysInSlot(ClusterNode* source, ClusterNode* target, int slot, bool verbose,
                         std::string* err);
  // One database's keys of the slot (the source connection has it selected).
  bool MigrateKeysInSlotDb(ClusterNode* source, ClusterNode* target, int slot, int db,
                           bool verbose, std::string* err);
  // The node's cluster-databases (Valkey 9); 1 where the config does not exist.
  int DatabaseCount(ClusterNode* node);
  std::optional<tools::Reply> MigrateKeys(ClusterNode* source, ClusterNode* target,
                                          const tools::Reply& keys, bool replace, int db);
  enum class AtomicMove { kMoved, kFailed, kUnsupported };
  // One CLUSTER MIGRATESLOTS from source to target, polled until the job ends, then waits for
  // the nodes to agree on the new owner. kUnsupported: the source refused the command, nothing
  // moved.
  AtomicMove MoveSlotsAtomically(ClusterNode* source, ClusterNode* target,
                                 const std::vector<int>& slots, int move_options, std::string* err);
  // Polls CLUSTER GETSLOTMIGRATIONS on source until the export of `ranges` to target that is
  // not among the `before` names ends; false with *err unless it succeeded.
  bool WaitForMigration(ClusterNode* source, const ClusterNode& target,
                        const std::vector<std::pair<int, int>>& ranges,
                        const std::vector<std::string>& before, std::string* err);

  const Options& options_;
  bool colors_ = false;
  std::vector<std::unique_ptr<ClusterNode>> nodes_;
  int errors_ = 0;
  int unreachable_masters_ = 0;
};

// The newline-terminated lines of a reply (CLUSTER NODES), and a line's space-separated fields.
std::vector<std::string> SplitLines(const std::string& text);
std::vector<std::string> SplitSpaces(const std::string& line);
// "[0-5460],[10923]" for the slots set in `slots`.
std::string SlotsString(const std::vector<uint8_t>& slots);
// ip:port[@bus_port][,hostname]; false without a ':'.
bool ParseNodeAddress(std::string addr, std::string* ip, int* port, int* bus_port);
// Reads a yes/no answer; --cluster-yes answers yes unless ignore_yes_flag.
bool ConfirmWithYes(const ClusterManager& cm, const char* question, bool ignore_yes_flag);
// The numeric address of a host name (CLUSTER MEET takes addresses only).
bool ResolveIp(const std::string& host, std::string* ip);

// CLUSTER MEET ip port, with the bus port when it is not port + 10000.
std::vector<std::string> MeetCommand(const std::string& ip, const ClusterNode& node);

// --cluster create host1:port1 ... hostN:portN (cluster_create.cc).
bool CreateCluster(ClusterManager* cm, const std::vector<std::string>& addresses);

}  // namespace vireo::cli
