// Failure detection (PFAIL by timeout, FAIL by a majority of primaries' reports) and
// failover (a replica of a failed primary asks the primaries for votes in a new epoch and
// takes the slots over with it; CLUSTER FAILOVER does it by hand) (see cluster.h).
#include <algorithm>

#include "cluster/cluster.h"
#include "cluster/cluster_link.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {

void Cluster::CheckFailures(int64_t now) {
  const int needed = MasterCount() / 2 + 1;
  for (auto& [id, node] : nodes_) {
    ClusterNode* n = node.get();
    if (n == myself_ || n->in_handshake()) continue;
    // Reports older than twice the node timeout no longer count.
    for (auto it = n->fail_reports.begin(); it != n->fail_reports.end();) {
      it = now - it->second > 2 * node_timeout_ms_ ? n->fail_reports.erase(it) : std::next(it);
    }
    if (n->ping_sent_ms != 0 && now - n->ping_sent_ms > node_timeout_ms_ &&
        !(n->flags & (kNodePfail | kNodeFail))) {
      n->flags |= kNodePfail;
      LogVerbose("*** NODE %.40s possibly failing", n->id.c_str());
      MarkConfigChanged();
    }
    if (!(n->flags & kNodePfail) || n->failed()) continue;
    int reports = 0;
    for (const auto& [reporter, when] : n->fail_reports) {
      ClusterNode* r = Lookup(reporter);
      reports += r != nullptr && r->is_master() && r->slot_count > 0;
    }
    if (myself_->is_master() && myself_->slot_count > 0) ++reports;
    if (reports < needed) continue;
    LogNotice("Marking node %.40s as failing (quorum reached).", n->id.c_str());
    n->flags = (n->flags | kNodeFail) & ~kNodePfail;
    n->fail_time_ms = now;
    BroadcastFail(n);
    MarkConfigChanged();
  }
  if (manual_failover_ && now > manual_failover_end_) {
    manual_failover_ = false;
    manual_failover_end_ = 0;
  }
}

void Cluster::ReplicaCron(int64_t now) {
  ClusterNode* master = Lookup(myself_->master_id);
  if (master == nullptr) return;
  // Follow the primary: the link may have been set up before its address was known.
  if (!server_.replication().is_replica() && !master->ip.empty()) SetMyMaster(master);
  if (manual_failover_end_ != 0 && now > manual_failover_end_) {
    LogWarning("Manual failover timed out.");
    manual_failover_end_ = 0;
    mf_master_offset_ = -1;
    failover_force_ = false;
  }
  // A manual failover starts its election once this replica has the paused primary's
  // last byte.
  if (manual_failover_end_ != 0 && !failover_force_ && mf_master_offset_ >= 0 &&
      server_.replication().offset() >= mf_master_offset_) {
    LogNotice("All master replication stream processed, manual failover can start.");
    failover_force_ = true;
    failover_auth_time_ = now;
    failover_auth_sent_ = false;
  }
  const bool eligible = (master->failed() && master->slot_count > 0) || failover_force_;
  if (!eligible) {
    failover_auth_time_ = 0;
    return;
  }
  if (NoFailover() && !failover_force_) return;
  if (!failover_force_ && !DataRecentEnough(now)) return;
  if (failover_auth_time_ == 0) {
    // Better replicas (more of the stream applied) ask first.
    int rank = 0;
    for (const auto& [id, node] : nodes_) {
      if (node.get() != myself_ && node->is_replica() && node->master_id == master->id &&
          node->repl_offset > server_.replication().offset()) {
        ++rank;
      }
    }
    failover_auth_time_ = now + 500 + rand() % 500 + rank * 1000;
    failover_auth_sent_ = false;
    failover_auth_count_ = 0;
    LogNotice("Start of election delayed for %lld milliseconds (rank #%d, offset %lld).",
              static_cast<long long>(failover_auth_time_ - now), rank,
              static_cast<long long>(server_.replication().offset()));
    return;
  }
  if (now < failover_auth_time_) return;
  if (!failover_auth_sent_) {
    failover_auth_epoch_ = ++current_epoch_;
    failover_auth_sent_ = true;
    failover_auth_count_ = 0;
    MarkConfigChanged();
    SaveConfig();
    LogNotice("Starting a failover election for epoch %llu.",
              static_cast<unsigned long long>(current_epoch_));
    const std::string epoch = std::to_string(current_epoch_);
    const std::string bitmap = SlotBitmap(master->slots);
    SendToMasters({"AUTH_REQUEST", myself_->id, epoch, master->id, bitmap,
                   failover_force_ ? "1" : "0"});
    return;
  }
  if (failover_auth_count_ >= MasterCount() / 2 + 1) {
    LogNotice("Failover election won: I'm the new master.");
    PromoteMyself();
    return;
  }
  // No majority in time: try again in a later epoch.
  if (now - failover_auth_time_ > std::max<int64_t>(2 * node_timeout_ms_, 2000)) {
    LogWarning("Failover attempt expired.");
    failover_auth_time_ = 0;
    if (manual_failover_end_ != 0) {
      manual_failover_end_ = 0;
      failover_force_ = false;
    }
  }
}

bool Cluster::NoFailover() const {
  return ConfigValue(server_.config(), "cluster-replica-no-failover") == "yes";
}

bool Cluster::AllowReplicaMigration() const {
  return ConfigValue(server_.config(), "cluster-allow-replica-migration") != "no";
}

bool Cluster::DataRecentEnough(int64_t now) {
  const Config& c = server_.config();
  const int64_t factor = ConfigValueInt(c, "cluster-replica-validity-factor", 10);
  if (factor == 0) return true;  // 0: a replica may always fail over
  // Since the link went down, or since this node started replicating when it never came up
  // (Valkey counts that case as forever; a replica then could never stand after its primary
  // died right after the first sync).
  const Replication& repl = server_.replication();
  int64_t age = repl.link_up() ? 0 : now - repl.link_down_since_ms();
  // Being cut off for the node timeout is how the primary got flagged: that part is free.
  if (age > node_timeout_ms_) age -= node_timeout_ms_;
  const int64_t ping_period = ConfigValueInt(c, "repl-ping-replica-period", 10);
  if (age <= ping_period * 1000 + node_timeout_ms_ * factor) {
    cant_failover_reason_ = 0;
    return true;
  }
  if (cant_failover_reason_ != 1) {
    cant_failover_reason_ = 1;
    LogNotice("Currently unable to failover: Disconnected from master for longer than allowed. "
              "Please check the 'cluster-replica-validity-factor' configuration option.");
  }
  return false;
}

void Cluster::ReplicaMigrationCron(int64_t now) {
  // A replica only leaves a primary that keeps more than the barrier of working replicas.
  ClusterNode* my_master = Lookup(myself_->master_id);
  if (my_master == nullptr || !state_ok_ || !AllowReplicaMigration()) return;
  const int64_t barrier = ConfigValueInt(server_.config(), "cluster-migration-barrier", 1);
  const int mine = CountWorkingReplicas(my_master);
  if (mine <= barrier) return;
  // The first orphaned primary (one that had replicas and has no working one left), and the
  // candidate to move: the smallest ID among myself and the replicas of the primaries with
  // the most working replicas.
  std::map<std::string, int> working;  // primary ID -> working replicas
  int max_replicas = 0;
  for (auto& [id, node] : nodes_) {
    if (!node->is_master()) continue;
    working[id] = CountWorkingReplicas(node.get());
    max_replicas = std::max(max_replicas, working[id]);
  }
  // Only replicas of the primaries with the most replicas move.
  if (mine != max_replicas) return;
  ClusterNode* target = nullptr;
  ClusterNode* candidate = myself_;
  for (auto& [id, node] : nodes_) {
    ClusterNode* n = node.get();
    if (!n->is_master()) continue;
    const int ok = working[id];
    const bool orphaned = !n->failed() && !(n->flags & kNodePfail) &&
                          (n->flags & kNodeMigrateTo) && ok == 0;
    if (orphaned) {
      if (target == nullptr && n->slot_count > 0) target = n;
      if (n->orphaned_ms == 0) n->orphaned_ms = now;
    } else {
      n->orphaned_ms = 0;
    }
    if (ok != max_replicas) continue;
    for (auto& [rid, r] : nodes_) {
      if (r->is_replica() && r->master_id == id && r->id < candidate->id) candidate = r.get();
    }
  }
  // The orphan's own replicas get a few seconds to announce a failover first.
  if (target != nullptr && candidate == myself_ && now - target->orphaned_ms > 5000) {
    LogNotice("Migrating to orphaned master %.40s", target->id.c_str());
    SetMyMaster(target);
  }
}

void Cluster::HandleAuthRequest(ClusterLink* link, ClusterNode* sender,
                                const std::vector<std::string_view>& msg) {
  int64_t req_epoch = 0;
  if (!ParseInt64(msg[2], &req_epoch)) return;
  if (static_cast<uint64_t>(req_epoch) > current_epoch_) current_epoch_ = static_cast<uint64_t>(req_epoch);
  if (!myself_->is_master() || myself_->slot_count == 0) return;
  if (static_cast<uint64_t>(req_epoch) < current_epoch_) return;
  if (last_vote_epoch_ == current_epoch_) return;  // one vote per epoch
  ClusterNode* master = Lookup(msg[3]);
  const bool force = msg[5] == "1";
  if (master == nullptr || !master->is_master() || sender->master_id != master->id ||
      (!master->failed() && !force)) {
    return;
  }
  const int64_t now = NowMs();
  auto voted = voted_time_.find(master->id);
  if (voted != voted_time_.end() && now - voted->second < 2 * node_timeout_ms_) return;
  // A claim older than what we know for any of those slots is refused.
  for (size_t s = 0; s < static_cast<size_t>(kClusterSlots); ++s) {
    if (!BitmapHas(msg[4], s)) continue;
    ClusterNode* owner = slots_[s];
    if (owner != nullptr && owner->config_epoch > static_cast<uint64_t>(req_epoch)) return;
  }
  last_vote_epoch_ = current_epoch_;
  voted_time_[master->id] = now;
  SaveConfig();  // the vote must survive a restart
  link->Send({"AUTH_ACK", myself_->id, std::to_string(current_epoch_)});
  ++messages_sent_;
  LogNotice("Failover auth granted to %.40s for epoch %llu", sender->id.c_str(),
            static_cast<unsigned long long>(current_epoch_));
}

void Cluster::HandleAuthAck(ClusterNode* sender, uint64_t epoch) {
  if (!failover_auth_sent_ || epoch < failover_auth_epoch_) return;
  if (!sender->is_master() || sender->slot_count == 0) return;
  ++failover_auth_count_;
}

void Cluster::PromoteMyself() {
  ClusterNode* old = Lookup(myself_->master_id);
  BecomeMaster();
  if (old != nullptr) {
    for (int s = 0; s < kClusterSlots; ++s) {
      if (old->slots[static_cast<size_t>(s)]) SetSlot(s, myself_);
    }
  }
  myself_->config_epoch = failover_auth_epoch_ != 0 ? failover_auth_epoch_ : ++current_epoch_;
  failover_auth_time_ = 0;
  failover_auth_sent_ = false;
  failover_auth_epoch_ = 0;
  failover_force_ = false;
  manual_failover_end_ = 0;
  mf_master_offset_ = -1;
  UpdateState();
  SaveConfig();
  // Everyone hears the new claim now rather than at the next ping.
  PingAll();
}

void Cluster::StartManualFailover(bool force, bool takeover) {
  const int64_t now = NowMs();
  if (takeover) {
    // No votes: a new epoch of our own (the operator knows the primaries cannot vote).
    failover_auth_epoch_ = ++current_epoch_;
    LogNotice("Taking over the master (user request).");
    PromoteMyself();
    return;
  }
  manual_failover_end_ = now + 5000;
  if (force) {
    LogNotice("Forced failover user request accepted.");
    failover_force_ = true;
    failover_auth_time_ = now;
    failover_auth_sent_ = false;
    return;
  }
  LogNotice("Manual failover user request accepted.");
  mf_master_offset_ = -1;
  ClusterNode* master = Lookup(myself_->master_id);
  if (master != nullptr && master->link != nullptr && master->link->connected()) {
    master->link->Send({"MFSTART", myself_->id, "0"});
    ++messages_sent_;
  }
}

}  // namespace vireo
