// Cluster mode: the node table, slots, state, the config file, the cron and redirections
// (see cluster.h).
#include "cluster/cluster.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cluster/cluster_link.h"
#include "cluster/nodes_file.h"
#include "commands/command_table.h"
#include "commands/key_finders.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/random_hex.h"
#include "persistence/file_io.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"
#include "server/transaction.h"

namespace vireo {

Cluster::Cluster(Server& server)
    : server_(server), migrations_(std::make_unique<SlotMigrations>(server, *this)) {
  bus_watcher_ = {&Cluster::OnBusAccept, this};
}

Cluster::~Cluster() {
  for (auto& l : links_) l->Close();
}

bool Cluster::Init(std::string* error) {
  const Config& c = server_.config();
  std::string interrupted_imports;
  config_file_ = ConfigValue(c, "cluster-config-file");
  node_timeout_ms_ = std::max<int64_t>(ConfigValueInt(c, "cluster-node-timeout", 15000), 1);
  std::ifstream in(config_file_);
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    NodesFile file;
    if (!ParseNodesFile(text.str(), &file, error)) return false;
    current_epoch_ = file.current_epoch;
    last_vote_epoch_ = file.last_vote_epoch;
    interrupted_imports = file.atomic_imports;
    for (auto& n : file.nodes) {
      std::bitset<kClusterSlots> slots = n->slots;
      n->slots.reset();
      n->slot_count = 0;
      ClusterNode* node = AddNode(std::move(n));
      if (node->flags & kNodeMyself) myself_ = node;
      for (int s = 0; s < kClusterSlots; ++s) {
        if (slots[s]) SetSlot(s, node);
      }
    }
    if (myself_ != nullptr) {
      LogNotice("Node configuration loaded, I'm %.40s", myself_->id.c_str());
    }
  }
  if (myself_ == nullptr) {
    auto me = std::make_unique<ClusterNode>();
    me->id = RandomHex(40);
    me->flags = kNodeMyself | kNodeMaster;
    myself_ = AddNode(std::move(me));
    LogNotice("No cluster configuration found, I'm %.40s", myself_->id.c_str());
  }
  int64_t cport = ConfigValueInt(c, "cluster-port", 0);
  bus_listen_port_ = static_cast<int>(cport != 0 ? cport : ClientPort() + 10000);
  RefreshMyAddress();
  if (!ListenBus(error)) return false;
  UpdateState();
  // Imports cut short by the restart: their partial keys (from the snapshot or replayed
  // from the AOF) belong to the slots' owner.
  if (!interrupted_imports.empty() && myself_->is_master()) {
    migrations_->DropInterruptedImports(interrupted_imports);
  }
  SaveConfig();
  // A replica restarted from its config file follows its primary again.
  if (myself_->is_replica() && !myself_->master_id.empty()) {
    ClusterNode* master = Lookup(myself_->master_id);
    if (master != nullptr) SetMyMaster(master);
  }
  return true;
}

ClusterNode* Cluster::Lookup(std::string_view id) {
  auto it = nodes_.find(std::string(id));
  return it == nodes_.end() ? nullptr : it->second.get();
}

ClusterNode* Cluster::AddNode(std::unique_ptr<ClusterNode> node) {
  node->created_ms = NowMs();
  ClusterNode* raw = node.get();
  nodes_[node->id] = std::move(node);
  MarkConfigChanged();
  return raw;
}

void Cluster::DeleteNode(ClusterNode* node) {
  if (node == myself_) return;
  for (int s = 0; s < kClusterSlots; ++s) {
    if (slots_[static_cast<size_t>(s)] == node) ClearSlot(s);
  }
  if (node->link != nullptr) node->link->Close();
  for (auto& l : links_) {
    if (l->node() == node) l->DetachNode();
  }
  for (auto& [id, other] : nodes_) other->fail_reports.erase(node->id);
  nodes_.erase(node->id);
  MarkConfigChanged();
}

void Cluster::RenameNode(ClusterNode* node, const std::string& id) {
  auto it = nodes_.find(node->id);
  std::unique_ptr<ClusterNode> owned = std::move(it->second);
  nodes_.erase(it);
  owned->id = id;
  nodes_[id] = std::move(owned);
  MarkConfigChanged();
}

void Cluster::SetSlot(int slot, ClusterNode* owner) {
  ClusterNode*& cur = slots_[static_cast<size_t>(slot)];
  if (cur == owner) return;
  if (InMyShard(cur)) slot_stats_.Reset(slot);
  if (cur != nullptr) {
    cur->slots.reset(static_cast<size_t>(slot));
    --cur->slot_count;
  }
  cur = owner;
  owner->slots.set(static_cast<size_t>(slot));
  ++owner->slot_count;
  MarkConfigChanged();
  owners_changed_ = true;
}

void Cluster::ClearSlot(int slot) {
  ClusterNode*& cur = slots_[static_cast<size_t>(slot)];
  if (cur == nullptr) return;
  if (InMyShard(cur)) slot_stats_.Reset(slot);
  cur->slots.reset(static_cast<size_t>(slot));
  --cur->slot_count;
  cur = nullptr;
  MarkConfigChanged();
  owners_changed_ = true;
}

void Cluster::AfterSlotChanges() {
  if (!owners_changed_) return;
  owners_changed_ = false;
  migrations_->SlotsChanged();
  server_.RedirectBlockedClients();
}

std::string Cluster::BlockedRedirect(const Client* c, const std::vector<std::string>& keys) const {
  if (keys.empty()) return "";
  const int slot = KeyHashSlot(keys.front());
  const ClusterNode* owner = slots_[static_cast<size_t>(slot)];
  if (owner == nullptr) return "CLUSTERDOWN Hash slot not served";
  if (owner == myself_ || !importing_[static_cast<size_t>(slot)].empty()) return "";
  return RedirectTo("MOVED", slot, *owner, c);
}

std::string Cluster::RedirectTo(const char* kind, int slot, const ClusterNode& to,
                                const Client* c) const {
  return std::string(kind) + " " + std::to_string(slot) + " " + to.ip + ":" +
         std::to_string(PortFor(to, c));
}

int Cluster::MasterCount() const {
  int n = 0;
  for (const auto& [id, node] : nodes_) n += node->is_master() && node->slot_count > 0;
  return n;
}

void Cluster::UpdateState() {
  bool ok = true;
  const bool full = ConfigValue(server_.config(), "cluster-require-full-coverage") != "no";
  if (full) {
    for (ClusterNode* owner : slots_) {
      if (owner == nullptr || owner->failed()) {
        ok = false;
        break;
      }
    }
  }
  // A primary on the minority side of a partition stops serving (it cannot reach a majority
  // of the primaries).
  if (ok && myself_->is_master()) {
    int reachable = 0;
    int size = 0;
    for (const auto& [id, node] : nodes_) {
      if (!node->is_master() || node->slot_count == 0) continue;
      ++size;
      if (!(node->flags & (kNodePfail | kNodeFail))) ++reachable;
    }
    if (size > 0 && reachable < size / 2 + 1) ok = false;
  }
  if (ok != state_ok_) {
    state_ok_ = ok;
    LogNotice("Cluster state changed: %s", ok ? "ok" : "fail");
  }
}

void Cluster::SetMyMaster(ClusterNode* master) {
  // A primary handing over by hand stops holding its clients.
  if (manual_failover_) {
    manual_failover_ = false;
    server_.Unpause(Server::PausePurpose::kFailover);
  }
  // A primary giving up its slots becomes an empty replica.
  for (int s = 0; s < kClusterSlots; ++s) {
    if (slots_[static_cast<size_t>(s)] == myself_) ClearSlot(s);
  }
  myself_->flags = (myself_->flags & ~kNodeMaster) | kNodeReplica;
  myself_->master_id = master->id;
  master->flags |= kNodeMigrateTo;
  std::string reply;
  if (!master->ip.empty()) server_.replication().ReplicaOf(master->ip, master->port, &reply);
  MarkConfigChanged();
  PingAll();  // the new role is news for everyone
}

int Cluster::ClientPort() const {
  // tls-cluster: clients (and replicas, over tls-replication) are sent to the TLS port.
  const Config& c = server_.config();
  if (ConfigValue(c, "tls-cluster") == "yes") {
    return static_cast<int>(ConfigValueInt(c, "tls-port", 0));
  }
  return server_.tcp_port();
}

int Cluster::PortFor(const ClusterNode& n, const Client* c) const {
  if (n.pport == 0 || c == nullptr || c->conn.tls() != nullptr) return n.port;
  return n.pport;
}

void Cluster::RefreshMyAddress() {
  const Config& c = server_.config();
  const bool tls = ConfigValue(c, "tls-cluster") == "yes";
  const int64_t port =
      ConfigValueInt(c, tls ? "cluster-announce-tls-port" : "cluster-announce-port", 0);
  const int64_t cport = ConfigValueInt(c, "cluster-announce-bus-port", 0);
  const int my_port = static_cast<int>(port != 0 ? port : ClientPort());
  const int my_cport = static_cast<int>(cport != 0 ? cport : bus_listen_port_);
  const std::string ip = ConfigValue(c, "cluster-announce-ip");
  const int my_pport = tls ? server_.tcp_port() : 0;
  bool changed = my_port != myself_->port || my_cport != myself_->cport ||
                 my_pport != myself_->pport;
  myself_->pport = my_pport;
  myself_->port = my_port;
  myself_->cport = my_cport;
  // Without an announced IP the node keeps the address its peers reached it on.
  if (!ip.empty() && ip != myself_->ip) {
    myself_->ip = ip;
    changed = true;
  }
  if (changed) {
    MarkConfigChanged();
    PingAll();  // peers learn the new address from the header
  }
}

int Cluster::CountWorkingReplicas(const ClusterNode* master) const {
  int n = 0;
  for (const auto& [id, node] : nodes_) {
    n += node->is_replica() && node->master_id == master->id && !node->failed();
  }
  return n;
}

void Cluster::PingAll() {
  for (auto& l : links_) {
    if (!l->inbound() && l->connected() && l->node() != nullptr && !l->node()->in_handshake()) {
      SendPing(l.get(), "PING");
    }
  }
}

void Cluster::BecomeMaster() {
  myself_->flags = (myself_->flags & ~kNodeReplica) | kNodeMaster;
  myself_->master_id.clear();
  std::string reply;
  server_.replication().ReplicaOf("", 0, &reply);
  MarkConfigChanged();
}

std::string Cluster::NodesText(bool for_file) const {
  std::string out;
  OpenSlots open{&migrating_, &importing_};
  for (const auto& [id, node] : nodes_) {
    if (!for_file && node->in_handshake() && node->id.empty()) continue;
    bool up = node->link != nullptr && node->link->connected();
    out += NodeLine(*node, up, open);
    out += '\n';
  }
  if (for_file) {
    out += "vars currentEpoch " + std::to_string(current_epoch_) + " lastVoteEpoch " +
           std::to_string(last_vote_epoch_);
    const std::string imports = migrations_->ImportsForFile();
    if (!imports.empty()) out += " atomicImports " + imports;
    out += "\n";
  }
  return out;
}

void Cluster::SaveConfig(bool durable) {
  config_dirty_ = false;
  if (durable) saved_epoch_ = current_epoch_;
  std::string error;
  if (!WriteFileAtomically(config_file_, NodesText(true), &error, durable)) {
    LogWarning("Could not save the cluster config file: %s", error.c_str());
  }
}

void Cluster::Cron() {
  const int64_t now = NowMs();
  ++cron_ticks_;
  node_timeout_ms_ = std::max<int64_t>(ConfigValueInt(server_.config(), "cluster-node-timeout",
                                                      15000), 1);
  RefreshMyAddress();  // CONFIG SET cluster-announce-* takes effect here
  for (auto it = forgotten_.begin(); it != forgotten_.end();) {
    it = it->second <= now ? forgotten_.erase(it) : std::next(it);
  }
  for (ClusterLink* l : dead_links_) {
    links_.erase(std::remove_if(links_.begin(), links_.end(),
                                [l](const auto& p) { return p.get() == l; }),
                 links_.end());
  }
  dead_links_.clear();
  std::vector<ClusterNode*> stale;
  for (auto& [id, node] : nodes_) {
    ClusterNode* n = node.get();
    if (n == myself_ || (n->flags & kNodeNoAddr)) continue;
    // A handshake that got no answer within the node timeout is given up.
    if (n->in_handshake() && now - n->created_ms > std::max<int64_t>(node_timeout_ms_, 1000)) {
      stale.push_back(n);
      continue;
    }
    if (n->link == nullptr) Connect(n);
  }
  for (ClusterNode* n : stale) DeleteNode(n);
  // Once a second a few random nodes; the one heard from least recently gets a PING.
  if (cron_ticks_ % 10 == 0 && nodes_.size() > 1) {
    ClusterNode* oldest = nullptr;
    for (int i = 0; i < 5; ++i) {
      auto it = nodes_.begin();
      std::advance(it, static_cast<long>(static_cast<size_t>(rand()) % nodes_.size()));
      ClusterNode* n = it->second.get();
      if (n == myself_ || n->link == nullptr || !n->link->connected() || n->ping_sent_ms != 0 ||
          n->in_handshake()) {
        continue;
      }
      if (oldest == nullptr || n->pong_received_ms < oldest->pong_received_ms) oldest = n;
    }
    if (oldest != nullptr) SendPing(oldest->link, "PING");
  }
  for (auto& [id, node] : nodes_) {
    ClusterNode* n = node.get();
    if (n == myself_ || n->link == nullptr || n->in_handshake()) continue;
    // A link with a ping unanswered for half the timeout is suspect: reconnect it.
    if (n->link->connected() && n->ping_sent_ms != 0 &&
        now - n->ping_sent_ms > node_timeout_ms_ / 2 &&
        now - n->data_received_ms > node_timeout_ms_ / 2) {
      n->link->Close();
      continue;
    }
    if (n->link->connected() && n->ping_sent_ms == 0 &&
        now - n->pong_received_ms > node_timeout_ms_ / 2) {
      SendPing(n->link, "PING");
    }
  }
  CheckFailures(now);
  if (myself_->is_replica()) {
    ReplicaCron(now);
    ReplicaMigrationCron(now);
  }
  UpdateState();
  AfterSlotChanges();
  migrations_->Cron(now);
  if (config_dirty_) SaveConfig(current_epoch_ != saved_epoch_);
}

void Cluster::ClaimSlots(const std::bitset<kClusterSlots>& slots) {
  myself_->config_epoch = ++current_epoch_;
  for (int s = 0; s < kClusterSlots; ++s) {
    if (slots.test(static_cast<size_t>(s))) SetSlot(s, myself_);
  }
  UpdateState();
  SaveConfig(true);
  PingAll();
}

std::string Cluster::Redirect(Client* c, const CommandSpec* spec,
                              const std::vector<std::string_view>& args) {
  const bool asking = (c->flags & kClientAsking) != 0 || (spec->flags & kCmdAsking) != 0;
  c->flags &= ~kClientAsking;  // ASKING covers the next command only
  c->slot = -1;
  // The master's commands are never redirected; CLUSTER SLOT-STATS still charges them.
  const bool from_master = server_.replication().is_master_client(c);
  if ((from_master || c->migration != nullptr) && !server_.config().cluster_slot_stats_enabled) {
    return "";
  }
  // Reused across commands: no allocation per command once warm.
  std::vector<KeyRef>& keys = key_positions_;
  std::vector<std::string_view>& names = key_names_;
  names.clear();
  bool write = (spec->flags & kCmdWrite) != 0;
  if (spec->flags & kCmdPubSub) {
    // Shard channels hash to slots as keys do; their key specs say not_key (no key for
    // COMMAND GETKEYS or ACL), so their legacy range names them.
    const int argc = static_cast<int>(args.size());
    const int last = spec->last_key >= 0 ? spec->last_key : argc + spec->last_key;
    for (int i = spec->first_key; i > 0 && i <= last && i < argc; ++i) {
      names.push_back(args[static_cast<size_t>(i)]);
    }
  } else if (spec->name == "exec" && c->multi != nullptr && (c->flags & kClientMulti)) {
    // EXEC: its queued commands' keys, again (the slot may have moved since they queued).
    for (const QueuedCommand& q : c->multi->queue) {
      if (q.spec == nullptr) continue;
      std::vector<std::string_view>& qargs = queued_args_;
      qargs.assign(q.args.begin(), q.args.end());
      CommandKeys(*q.spec, qargs, &keys);
      for (const KeyRef& k : keys) names.push_back(q.args[static_cast<size_t>(k.pos)]);
    }
    write = (c->multi->queued_flags & kCmdWrite) != 0;
  } else {
    CommandKeys(*spec, args, &keys);
    for (const KeyRef& k : keys) names.push_back(args[static_cast<size_t>(k.pos)]);
  }
  if (names.empty()) return "";
  int slot = -1;
  for (std::string_view name : names) {
    int s = KeyHashSlot(name);
    if (slot == -1) {
      slot = s;
    } else if (s != slot) {
      return from_master ? "" : "CROSSSLOT Keys in request don't hash to the same slot";
    }
  }
  c->slot = slot;  // read only when the command runs, i.e. when this returns ""
  // The master's stream, and an atomic migration's stream into slots this node imports.
  if (from_master || c->migration != nullptr) return "";
  ClusterNode* owner = slots_[static_cast<size_t>(slot)];
  // MIGRATE runs where it is sent while the slot is open here, so keys can move freely in
  // either direction (how --cluster fix gathers stray keys).
  const size_t si = static_cast<size_t>(slot);
  if ((!migrating_[si].empty() || !importing_[si].empty()) && spec->name == "migrate") return "";
  if (!state_ok_ && !(ConfigValue(server_.config(), "cluster-allow-reads-when-down") == "yes" &&
                      !write)) {
    return owner == nullptr ? "CLUSTERDOWN Hash slot not served" : "CLUSTERDOWN The cluster is down";
  }
  if (owner == nullptr) return "CLUSTERDOWN Hash slot not served";
  auto moved = [&](const char* kind, ClusterNode* to) { return RedirectTo(kind, slot, *to, c); };
  Db* db = server_.db(c->db_index);
  if (owner == myself_) {
    const std::string& target = migrating_[static_cast<size_t>(slot)];
    if (target.empty()) return "";
    // Migrating: keys already moved are asked for at the target.
    size_t missing = 0;
    for (std::string_view name : names) missing += db->FindRaw(name) == nullptr;
    if (missing == 0) return "";
    if (missing < names.size()) return "TRYAGAIN Multiple keys request during rehashing of slot";
    ClusterNode* to = Lookup(target);
    return to == nullptr ? "" : moved("ASK", to);
  }
  if (asking && !importing_[static_cast<size_t>(slot)].empty()) {
    size_t missing = 0;
    for (std::string_view name : names) missing += db->FindRaw(name) == nullptr;
    if (names.size() > 1 && missing != 0 && missing != names.size()) {
      return "TRYAGAIN Multiple keys request during rehashing of slot";
    }
    return "";
  }
  // READONLY clients read from a replica of the slot's primary; shard channels are served by
  // replicas without it, as in Valkey.
  if (((c->flags & kClientReadOnlyReplica) || (spec->flags & kCmdPubSub)) && !write &&
      myself_->is_replica() &&
      myself_->master_id == owner->id) {
    return "";
  }
  return moved("MOVED", owner);
}

std::string Cluster::SlotRedirect(const Client* c, int slot) const {
  ClusterNode* owner = slots_[static_cast<size_t>(slot)];
  if (!state_ok_ && ConfigValue(server_.config(), "cluster-allow-reads-when-down") != "yes") {
    return owner == nullptr ? "CLUSTERDOWN Hash slot not served" : "CLUSTERDOWN The cluster is down";
  }
  if (owner == nullptr) return "CLUSTERDOWN Hash slot not served";
  if (owner == myself_) return "";
  if ((c->flags & kClientReadOnlyReplica) && myself_->is_replica() &&
      myself_->master_id == owner->id) {
    return "";
  }
  return RedirectTo("MOVED", slot, *owner, c);
}

std::string Cluster::InfoFields() const {
  int assigned = 0, pfail = 0, fail = 0;
  for (ClusterNode* owner : slots_) {
    if (owner == nullptr) continue;
    ++assigned;
    pfail += (owner->flags & kNodePfail) != 0;
    fail += owner->failed();
  }
  std::string out;
  auto line = [&](const std::string& k, const std::string& v) { out += k + ":" + v + "\r\n"; };
  line("cluster_state", state_ok_ ? "ok" : "fail");
  line("cluster_slots_assigned", std::to_string(assigned));
  line("cluster_slots_ok", std::to_string(assigned - pfail - fail));
  line("cluster_slots_pfail", std::to_string(pfail));
  line("cluster_slots_fail", std::to_string(fail));
  line("cluster_known_nodes", std::to_string(nodes_.size()));
  line("cluster_size", std::to_string(MasterCount()));
  line("cluster_current_epoch", std::to_string(current_epoch_));
  const ClusterNode* epoch_node = myself_;
  if (myself_->is_replica()) {
    auto it = nodes_.find(myself_->master_id);
    if (it != nodes_.end()) epoch_node = it->second.get();
  }
  line("cluster_my_epoch", std::to_string(epoch_node->config_epoch));
  line("cluster_stats_messages_sent", std::to_string(messages_sent_));
  line("cluster_stats_messages_received", std::to_string(messages_received_));
  line("total_cluster_links_buffer_limit_exceeded", "0");
  return out;
}

}  // namespace vireo
