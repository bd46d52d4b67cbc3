// CLUSTER subcommands: what they change in the node table and how they answer, in Valkey's
// formats and error texts (see cluster.h).
#include <algorithm>

#include "cluster/cluster.h"
#include "cluster/cluster_link.h"
#include "cluster/nodes_file.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "common/random_hex.h"
#include "protocol/reply_builder.h"
#include "replication/replication.h"
#include "server/server.h"

namespace vireo {
namespace {

bool ParseSlot(std::string_view arg, int* slot) {
  int64_t v;
  if (!ParseInt64(arg, &v) || v < 0 || v >= kClusterSlots) return false;
  *slot = static_cast<int>(v);
  return true;
}

std::string Endpoint(const ClusterNode& n) { return n.ip.empty() ? "?" : n.ip; }

}  // namespace

std::vector<std::string> Cluster::KeysInSlot(Db* db, int slot, int64_t count) {
  // There is no per-slot key index (it would cost bytes per key). A walk resumes where the
  // last one for this slot stopped: a reshard asks for a batch, migrates it away and asks
  // again, so emptying a slot costs about one pass over the table instead of one per batch.
  // The slot's key count says when every key wanted has been met, so the walk never goes
  // round more than once.
  std::vector<std::string> keys;
  const uint64_t want = std::min<uint64_t>(static_cast<uint64_t>(count), db->KeysInSlot(slot));
  if (want == 0) return keys;
  if (getkeys_db_ != db->index() || getkeys_resume_.empty()) {
    getkeys_resume_.assign(kClusterSlots, 0);
    getkeys_db_ = db->index();
  }
  const uint64_t start = getkeys_resume_[static_cast<size_t>(slot)];
  uint64_t cursor = start;
  // One full cycle: from start to the end, then (start != 0) from the beginning on.
  const int cycle = start == 0 ? 1 : 2;
  int wraps = 0;
  do {
    cursor = db->ScanEntries(cursor, [&](const Entry* e) {
      if (keys.size() < want && KeyHashSlot(e->Key()) == slot) keys.emplace_back(e->Key());
    });
    if (cursor == 0) ++wraps;
  } while (keys.size() < want && wraps < cycle);
  getkeys_resume_[static_cast<size_t>(slot)] = cursor;
  return keys;
}

void Cluster::ReplyNodes(ReplyBuilder& r) const { r.Verbatim("txt", NodesText(false)); }

std::string Cluster::AvailabilityZone(const ClusterNode& n) const {
  return &n == myself_ ? ConfigValue(server_.config(), "availability-zone") : n.availability_zone;
}

void Cluster::ReplySlots(const Client* c, ReplyBuilder& r) const {
  struct Range {
    int first, last;
    const ClusterNode* owner;
  };
  std::vector<Range> ranges;
  for (int s = 0; s < kClusterSlots; ++s) {
    const ClusterNode* owner = slots_[static_cast<size_t>(s)];
    if (owner == nullptr) continue;
    if (!ranges.empty() && ranges.back().owner == owner && ranges.back().last == s - 1) {
      ranges.back().last = s;
    } else {
      ranges.push_back({s, s, owner});
    }
  }
  auto node_entry = [&](const ClusterNode& n) {
    r.Array(4);
    r.Bulk(Endpoint(n));
    r.Integer(PortFor(n, c));
    r.Bulk(n.id);
    // Valkey 9.1: the zone in the networking metadata, only when the node has one.
    const std::string az = AvailabilityZone(n);
    r.Map(az.empty() ? 0 : 1);
    if (!az.empty()) {
      r.Bulk("availability-zone");
      r.Bulk(az);
    }
  };
  r.Array(ranges.size());
  for (const Range& range : ranges) {
    std::vector<const ClusterNode*> replicas;
    for (const auto& [id, n] : nodes_) {
      if (n->is_replica() && n->master_id == range.owner->id && !n->failed()) {
        replicas.push_back(n.get());
      }
    }
    r.Array(3 + replicas.size());
    r.Integer(range.first);
    r.Integer(range.last);
    node_entry(*range.owner);
    for (const ClusterNode* rep : replicas) node_entry(*rep);
  }
}

void Cluster::ReplyShards(const Client* c, ReplyBuilder& r) const {
  std::vector<const ClusterNode*> masters;
  for (const auto& [id, n] : nodes_) {
    if (n->is_master()) masters.push_back(n.get());
  }
  r.Array(masters.size());
  for (const ClusterNode* m : masters) {
    std::vector<const ClusterNode*> members = {m};
    for (const auto& [id, n] : nodes_) {
      if (n->is_replica() && n->master_id == m->id) members.push_back(n.get());
    }
    r.Map(2);
    r.Bulk("slots");
    std::vector<std::pair<int, int>> ranges;
    for (int s = 0; s < kClusterSlots; ++s) {
      if (!m->slots[static_cast<size_t>(s)]) continue;
      if (!ranges.empty() && ranges.back().second == s - 1) {
        ranges.back().second = s;
      } else {
        ranges.push_back({s, s});
      }
    }
    r.Array(ranges.size() * 2);
    for (auto [a, b] : ranges) {
      r.Integer(a);
      r.Integer(b);
    }
    r.Bulk("nodes");
    r.Array(members.size());
    for (const ClusterNode* n : members) {
      // Valkey 9.1: "availability-zone" after the others, only when the node has one.
      const std::string az = AvailabilityZone(*n);
      r.Map(az.empty() ? 7 : 8);
      r.Bulk("id");
      r.Bulk(n->id);
      r.Bulk("port");
      r.Integer(PortFor(*n, c));
      r.Bulk("ip");
      r.Bulk(Endpoint(*n));
      r.Bulk("endpoint");
      r.Bulk(Endpoint(*n));
      r.Bulk("role");
      r.Bulk(n->is_master() ? "master" : "replica");
      r.Bulk("replication-offset");
      r.Integer(n == myself_ ? server_.replication().offset() : n->repl_offset);
      r.Bulk("health");
      r.Bulk(n->failed() ? "fail" : (n->flags & kNodePfail) ? "loading" : "online");
      if (!az.empty()) {
        r.Bulk("availability-zone");
        r.Bulk(az);
      }
    }
  }
}

void Cluster::Command(Client* c, const std::vector<std::string_view>& args, ReplyBuilder& r) {
  RefreshMyAddress();  // a CONFIG SET cluster-announce-* shows at once
  const std::string sub = ToLower(args[1]);
  // COUNTKEYSINSLOT / GETKEYSINSLOT look at the client's database (cluster-databases).
  Db* db = server_.db(c != nullptr ? c->db_index : 0);
  auto holds_keys = [&] {
    for (int i = 0; i < server_.db_count(); ++i) {
      if (server_.db(i)->Size() != 0) return true;
    }
    return false;
  };
  auto unknown_node = [&](std::string_view id) {
    r.Error("ERR Unknown node " + std::string(id));
  };
  if (sub == "migrateslots" || sub == "getslotmigrations" || sub == "cancelslotmigrations" ||
      sub == "syncslots") {
    migrations_->Command(c, sub, args, r);
  } else if (sub == "info") {
    r.Verbatim("txt", InfoFields());
  } else if (sub == "nodes") {
    ReplyNodes(r);
  } else if (sub == "myid") {
    r.Bulk(myself_->id);
  } else if (sub == "myshardid") {
    r.Bulk(myself_->is_replica() ? myself_->master_id : myself_->id);
  } else if (sub == "slots") {
    ReplySlots(c, r);
  } else if (sub == "shards") {
    ReplyShards(c, r);
  } else if (sub == "keyslot") {
    r.Integer(KeyHashSlot(args[2]));
  } else if (sub == "countkeysinslot") {
    int slot;
    if (!ParseSlot(args[2], &slot)) {
      r.Error("ERR Invalid slot");
      return;
    }
    r.Integer(static_cast<int64_t>(db->KeysInSlot(slot)));
  } else if (sub == "getkeysinslot") {
    int slot;
    int64_t count;
    if (!ParseSlot(args[2], &slot) || !ParseInt64(args[3], &count) || count < 0) {
      r.Error("ERR Invalid slot or number of keys");
      return;
    }
    std::vector<std::string> keys = KeysInSlot(db, slot, count);
    r.Array(keys.size());
    for (const std::string& k : keys) r.Bulk(k);
  } else if (sub == "meet") {
    int64_t port, cport;
    if (!ParseInt64(args[3], &port) || port < 0 || port > 65535) {
      r.Error("ERR Invalid base port specified: " + std::string(args[3]));
      return;
    }
    cport = port + 10000;
    if (args.size() > 4 && (!ParseInt64(args[4], &cport) || cport < 0 || cport > 65535)) {
      r.Error("ERR Invalid bus port specified: " + std::string(args[4]));
      return;
    }
    if (args.size() > 5) {
      r.Error("ERR syntax error");
      return;
    }
    std::string ip(args[2]);
    if (ip.empty() || ip.find_first_not_of("0123456789abcdefABCDEF.:") != std::string::npos) {
      r.Error("ERR Invalid node address specified: " + ip + ":" + std::string(args[3]));
      return;
    }
    auto node = std::make_unique<ClusterNode>();
    node->id = RandomHex(40);
    node->ip = ip;
    node->port = static_cast<int>(port);
    node->cport = static_cast<int>(cport);
    node->flags = kNodeHandshake | kNodeMeet;
    AddNode(std::move(node));
    r.Ok();
  } else if (sub == "addslots" || sub == "delslots" || sub == "addslotsrange" ||
             sub == "delslotsrange") {
    const bool add = sub[0] == 'a';
    const bool range = sub.size() > 8 && sub.substr(sub.size() - 5) == "range";
    if (range && (args.size() - 2) % 2 != 0) {
      r.Error("ERR wrong number of arguments for 'cluster|" + sub + "' command");
      return;
    }
    std::vector<int> slots;
    for (size_t i = 2; i < args.size(); i += range ? 2 : 1) {
      int first, last;
      if (!ParseSlot(args[i], &first) || (range && !ParseSlot(args[i + 1], &last))) {
        r.Error("ERR Invalid or out of range slot");
        return;
      }
      if (!range) last = first;
      if (first > last) {
        r.Error("ERR start slot number " + std::to_string(first) +
                " is greater than end slot number " + std::to_string(last));
        return;
      }
      for (int s = first; s <= last; ++s) slots.push_back(s);
    }
    std::vector<bool> seen(kClusterSlots, false);
    for (int s : slots) {
      if (add && slots_[static_cast<size_t>(s)] != nullptr) {
        r.Error("ERR Slot " + std::to_string(s) + " is already busy");
        return;
      }
      if (!add && slots_[static_cast<size_t>(s)] == nullptr) {
        r.Error("ERR Slot " + std::to_string(s) + " is already unassigned");
        return;
      }
      if (seen[static_cast<size_t>(s)]) {
        r.Error("ERR Slot " + std::to_string(s) + " specified multiple times");
        return;
      }
      seen[static_cast<size_t>(s)] = true;
    }
    for (int s : slots) {
      if (add) {
        importing_[static_cast<size_t>(s)].clear();
        SetSlot(s, myself_);
      } else {
        ClearSlot(s);
      }
    }
    UpdateState();
    SaveConfig(false);
    r.Ok();
  } else if (sub == "flushslots") {
    if (holds_keys()) {
      r.Error("ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
      return;
    }
    for (int s = 0; s < kClusterSlots; ++s) {
      if (slots_[static_cast<size_t>(s)] == myself_) ClearSlot(s);
    }
    SaveConfig(false);
    r.Ok();
  } else if (sub == "set-config-epoch") {
    int64_t epoch;
    if (!ParseInt64(args[2], &epoch) || epoch < 0) {
      r.Error("ERR Invalid config epoch specified: " + std::string(args[2]));
      return;
    }
    if (nodes_.size() > 1) {
      r.Error("ERR The user can assign a config epoch only when the node does not know any "
              "other node.");
      return;
    }
    if (myself_->config_epoch != 0) {
      r.Error("ERR Node config epoch is already non-zero");
      return;
    }
    myself_->config_epoch = static_cast<uint64_t>(epoch);
    current_epoch_ = std::max(current_epoch_, myself_->config_epoch);
    SaveConfig();
    r.Ok();
  } else if (sub == "bumpepoch") {
    uint64_t max_epoch = 0;
    for (const auto& [id, n] : nodes_) max_epoch = std::max(max_epoch, n->config_epoch);
    const bool bumped = myself_->config_epoch == 0 || myself_->config_epoch != max_epoch;
    if (bumped) {
      myself_->config_epoch = ++current_epoch_;
      SaveConfig();
    }
    r.Simple((bumped ? "BUMPED " : "STILL ") + std::to_string(myself_->config_epoch));
  } else if (sub == "saveconfig") {
    SaveConfig();
    r.Ok();
  } else if (sub == "forget") {
    ClusterNode* n = Lookup(args[2]);
    if (n == nullptr) return unknown_node(args[2]);
    if (n == myself_) {
      r.Error("ERR I tried hard but I can't forget myself...");
      return;
    }
    if (myself_->is_replica() && myself_->master_id == n->id) {
      r.Error("ERR Can't forget my master!");
      return;
    }
    // Not re-added from gossip for cluster-blacklist-ttl seconds (Valkey's default 60).
    const int64_t ttl = ConfigValueInt(server_.config(), "cluster-blacklist-ttl", 60);
    forgotten_[n->id] = NowMs() + std::clamp<int64_t>(ttl, 0, INT32_MAX) * 1000;
    DeleteNode(n);
    UpdateState();
    SaveConfig(false);
    r.Ok();
  } else if (sub == "replicate") {
    ClusterNode* n = Lookup(args[2]);
    if (n == nullptr) return unknown_node(args[2]);
    if (n == myself_) {
      r.Error("ERR Can't replicate myself");
      return;
    }
    if (!n->is_master()) {
      r.Error("ERR I can only replicate a master, not a replica.");
      return;
    }
    if (myself_->is_master() && (myself_->slot_count != 0 || holds_keys())) {
      r.Error("ERR To set a master the node must be empty and without assigned slots.");
      return;
    }
    SetMyMaster(n);
    SaveConfig();
    r.Ok();
  } else if (sub == "replicas" || sub == "slaves") {
    ClusterNode* n = Lookup(args[2]);
    if (n == nullptr) return unknown_node(args[2]);
    if (!n->is_master()) {
      r.Error("ERR The specified node is not a master");
      return;
    }
    std::vector<std::string> lines;
    OpenSlots none;
    for (const auto& [id, rep] : nodes_) {
      if (rep->is_replica() && rep->master_id == n->id) {
        lines.push_back(NodeLine(*rep, rep->link != nullptr && rep->link->connected(), none));
      }
    }
    r.Array(lines.size());
    for (const std::string& l : lines) r.Bulk(l);
  } else if (sub == "count-failure-reports") {
    ClusterNode* n = Lookup(args[2]);
    if (n == nullptr) return unknown_node(args[2]);
    r.Integer(static_cast<int64_t>(n->fail_reports.size()));
  } else if (sub == "setslot") {
    if (myself_->is_replica()) {
      r.Error("ERR Please use SETSLOT only with masters.");
      return;
    }
    int slot;
    if (!ParseSlot(args[2], &slot)) {
      r.Error("ERR Invalid or out of range slot");
      return;
    }
    const std::string action = ToLower(args[3]);
    const size_t s = static_cast<size_t>(slot);
    // Manual and atomic migration exclude each other (Valkey 9's errors).
    if (action == "migrating" || action == "importing") {
      if (migrations_->importing()) {
        r.Error("ERR Slot import in progress");
        return;
      }
      if (migrations_->exporting()) {
        r.Error("ERR Slot export in progress");
        return;
      }
    }
    if (action == "stable" && args.size() == 4) {
      migrating_[s].clear();
      importing_[s].clear();
    } else if ((action == "migrating" || action == "importing" || action == "node") &&
               args.size() == 5) {
      ClusterNode* n = Lookup(args[4]);
      if (n == nullptr) {
        r.Error("ERR I don't know about node " + std::string(args[4]));
        return;
      }
      if (action == "migrating") {
        if (slots_[s] != myself_) {
          r.Error("ERR I'm not the owner of hash slot " + std::to_string(slot));
          return;
        }
        if (!n->is_master()) {
          r.Error("ERR Target node is not a master");
          return;
        }
        migrating_[s] = n->id;
      } else if (action == "importing") {
        if (slots_[s] == myself_) {
          r.Error("ERR I'm already the owner of hash slot " + std::to_string(slot));
          return;
        }
        if (!n->is_master()) {
          r.Error("ERR Target node is not a master");
          return;
        }
        importing_[s] = n->id;
      } else {  // NODE
        if (n->is_replica()) {
          r.Error("ERR Can't assign hashslot " + std::to_string(slot) + " to a replica node");
          return;
        }
        if (slots_[s] == myself_ && n != myself_) {
          int64_t left = 0;
          for (int i = 0; i < server_.db_count(); ++i) left += server_.db(i)->KeysInSlot(slot);
          if (left != 0) {
            r.Error("ERR Can't assign hashslot " + std::to_string(slot) +
                    " to a different node while I still hold keys for this hash slot.");
            return;
          }
        }
        if (n != myself_) migrating_[s].clear();
        // The importing node takes the slot in a new epoch of its own, so the claim wins
        // everywhere without a vote.
        if (n == myself_ && !importing_[s].empty()) {
          importing_[s].clear();
          if (myself_->config_epoch == 0 || myself_->config_epoch < current_epoch_) {
            myself_->config_epoch = ++current_epoch_;
          }
        }
        const bool was_mine = slots_[s] == myself_;
        SetSlot(slot, n);
        // A primary that gave away its last slot follows the node that took it.
        if (was_mine && n != myself_ && myself_->slot_count == 0 && AllowReplicaMigration()) {
          LogNotice("Configuration change detected. Reconfiguring myself as a replica of %.40s",
                    n->id.c_str());
          SetMyMaster(n);
        }
      }
    } else {
      r.Error("ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
      return;
    }
    UpdateState();
    // A new epoch taken by the importing node or a role change is saved durably.
    SaveConfig(current_epoch_ != saved_epoch_ || myself_->is_replica());
    r.Ok();
  } else if (sub == "failover") {
    bool force = false, takeover = false;
    if (args.size() == 3) {
      force = EqualsIgnoreCase(args[2], "force");
      takeover = EqualsIgnoreCase(args[2], "takeover");
      if (!force && !takeover) {
        r.Error("ERR syntax error");
        return;
      }
    } else if (args.size() > 3) {
      r.Error("ERR syntax error");
      return;
    }
    if (myself_->is_master()) {
      r.Error("ERR You should send CLUSTER FAILOVER to a replica");
      return;
    }
    ClusterNode* master = Lookup(myself_->master_id);
    if (master == nullptr) {
      r.Error("ERR I'm a replica but my master is unknown to me");
      return;
    }
    if (!force && !takeover && (master->failed() || master->link == nullptr ||
                                !master->link->connected())) {
      r.Error("ERR Master is down or failed, please use CLUSTER FAILOVER FORCE");
      return;
    }
    StartManualFailover(force, takeover);
    r.Ok();
  } else if (sub == "reset") {
    bool hard = false;
    if (args.size() == 3) {
      hard = EqualsIgnoreCase(args[2], "hard");
      if (!hard && !EqualsIgnoreCase(args[2], "soft")) {
        r.Error("ERR syntax error");
        return;
      }
    } else if (args.size() > 3) {
      r.Error("ERR syntax error");
      return;
    }
    if (myself_->is_master() && holds_keys()) {
      r.Error("ERR CLUSTER RESET can't be called with master nodes containing keys");
      return;
    }
    if (myself_->is_replica()) {
      BecomeMaster();
      for (int i = 0; i < server_.db_count(); ++i) server_.db(i)->Clear(false);
    }
    for (int s = 0; s < kClusterSlots; ++s) {
      ClearSlot(s);
      migrating_[static_cast<size_t>(s)].clear();
      importing_[static_cast<size_t>(s)].clear();
    }
    std::vector<ClusterNode*> others;
    for (auto& [id, n] : nodes_) {
      if (n.get() != myself_) others.push_back(n.get());
    }
    for (ClusterNode* n : others) DeleteNode(n);
    if (hard) {
      current_epoch_ = 0;
      last_vote_epoch_ = 0;
      myself_->config_epoch = 0;
      RenameNode(myself_, RandomHex(40));
    }
    UpdateState();
    SaveConfig();
    r.Ok();
  } else if (sub == "links") {
    size_t n = 0;
    for (const auto& l : links_) n += l->fd() >= 0 && l->node() != nullptr;
    r.Array(n);
    for (const auto& l : links_) {
      if (l->fd() < 0 || l->node() == nullptr) continue;
      r.Map(6);
      r.Bulk("direction");
      r.Bulk(l->inbound() ? "from" : "to");
      r.Bulk("node");
      r.Bulk(l->node()->id);
      r.Bulk("create-time");
      r.Integer(l->created_ms());
      r.Bulk("events");
      r.Bulk(l->events());
      r.Bulk("send-buffer-allocated");
      r.Integer(static_cast<int64_t>(l->send_buffer_allocated()));
      r.Bulk("send-buffer-used");
      r.Integer(static_cast<int64_t>(l->send_buffer_used()));
    }
  } else if (sub == "help") {
    static const char* kHelp[] = {
        "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ADDSLOTS <slot> [<slot> ...]", "ADDSLOTSRANGE <start slot> <end slot> [...]",
        "BUMPEPOCH", "COUNT-FAILURE-REPORTS <node-id>", "COUNTKEYSINSLOT <slot>",
        "DELSLOTS <slot> [<slot> ...]", "DELSLOTSRANGE <start slot> <end slot> [...]",
        "FAILOVER [FORCE|TAKEOVER]", "FORGET <node-id>", "FLUSHSLOTS",
        "GETKEYSINSLOT <slot> <count>", "INFO", "KEYSLOT <key>", "LINKS",
        "MEET <ip> <port> [<bus-port>]", "MYID", "MYSHARDID", "NODES",
        "REPLICATE <node-id>", "REPLICAS <node-id>", "RESET [HARD|SOFT]", "SAVECONFIG",
        "SET-CONFIG-EPOCH <epoch>",
        // One line split in two (the parentheses tell clang the concatenation is meant).
        ("SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|"
         "STABLE|NODE <node-id>)"),
        "SHARDS", "SLOTS",
        "SLOT-STATS SLOTSRANGE <start slot> <end slot> | ORDERBY <metric> [LIMIT <n>] [ASC|DESC]",
        "HELP"};
    r.Array(sizeof(kHelp) / sizeof(kHelp[0]));
    for (const char* line : kHelp) r.Simple(line);
  } else {
    r.Error("ERR unknown subcommand '" + std::string(args[1]) + "'. Try CLUSTER HELP.");
  }
}

}  // namespace vireo
