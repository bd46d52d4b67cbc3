// Replication as users see it: INFO replication, ROLE, and the refusals a replica or a
// primary short of good replicas answers (see replication.h).
#include <cstdarg>
#include <cstdio>

#include "commands/command_table.h"
#include "common/clock.h"
#include "common/log.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {

namespace {

void Line(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void Line(std::string* out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  *out += buf;
  *out += "\r\n";
}

const char* ReplicaStateName(int state) {
  switch (state) {
    case 0:
      return "wait_bgsave";
    case 1:
      return "wait_bgsave";
    case 2:
      return "send_bulk";
    case 3:
      return "online";
    case 5:  // an rdb channel after its snapshot, until its replica closes it
      return "wait_bgsave";
    default:
      return "handshake";
  }
}

}  // namespace

const char* Replication::LinkStateName() const {
  switch (link_) {
    case LinkState::kConnect:
      return "connect";
    case LinkState::kConnecting:
      return "connecting";
    case LinkState::kHandshake:
      return "handshake";
    case LinkState::kTransfer:
      return "sync";
    case LinkState::kConnected:
      return "connected";
    case LinkState::kNone:
      break;
  }
  return "none";
}

std::string Replication::InfoSection() {
  std::string out;
  const int64_t now = NowMs();
  if (is_replica()) {
    Line(&out, "role:slave");
    Line(&out, "master_host:%s", master_host_.c_str());
    Line(&out, "master_port:%lld", static_cast<long long>(master_port_));
    Line(&out, "master_link_status:%s", link_up() ? "up" : "down");
    Line(&out, "master_last_io_seconds_ago:%lld",
         link_up() ? static_cast<long long>((now - master_->last_interaction_ms) / 1000) : -1LL);
    Line(&out, "master_sync_in_progress:%d", sync_in_progress_ ? 1 : 0);
    Line(&out, "slave_read_repl_offset:%lld", static_cast<long long>(offset_));
    Line(&out, "slave_repl_offset:%lld", static_cast<long long>(offset_));
    // Dual-channel sync: the primary's stream this replica holds while the snapshot loads.
    Line(&out, "replicas_repl_buffer_size:%zu", dual_sync_ ? main_in_.size() : size_t{0});
    Line(&out, "replicas_repl_buffer_peak:%zu", repl_buffer_peak_);
    if (sync_in_progress_) {
      Line(&out, "master_sync_total_bytes:%lld", static_cast<long long>(transfer_size_));
      Line(&out, "master_sync_read_bytes:%lld", static_cast<long long>(transfer_read_));
      Line(&out, "master_sync_left_bytes:%lld",
           static_cast<long long>(transfer_size_ >= 0 ? transfer_size_ - transfer_read_ : -1));
      Line(&out, "master_sync_perc:%.2f",
           transfer_size_ > 0 ? 100.0 * static_cast<double>(transfer_read_) /
                                    static_cast<double>(transfer_size_)
                              : 0.0);
      Line(&out, "master_sync_last_io_seconds_ago:%lld",
           static_cast<long long>((now - link_last_io_ms_) / 1000));
    }
    if (!link_up()) {
      Line(&out, "master_link_down_since_seconds:%lld",
           static_cast<long long>((now - link_down_since_ms_) / 1000));
    }
    Line(&out, "slave_priority:%lld",
         static_cast<long long>(ConfigValueInt(server_.config(), "replica-priority", 100)));
    Line(&out, "slave_read_only:%d", read_only_ ? 1 : 0);
    Line(&out, "replica_announced:%d", (ConfigValue(server_.config(), "replica-announced") == "yes") ? 1 : 0);
  } else {
    Line(&out, "role:master");
  }
  int connected = 0;
  std::string lines;
  for (const auto& r : replicas_) {
    if (r->state == ReplicaState::kHandshake) continue;
    const std::string ip = ReplicaIp(*r);
    // A dual-channel sync lists both connections until the rdb channel is closed.
    const bool main_channel = InBackgroundTransfer(*r);
    const char* type = r->rdb_channel ? "rdb-channel" : main_channel ? "main-channel" : "replica";
    const char* state =
        main_channel ? "bg_transfer" : ReplicaStateName(static_cast<int>(r->state));
    Line(&lines, "slave%d:ip=%s,port=%lld,state=%s,offset=%lld,lag=%lld,type=%s", connected,
         ip.c_str(), static_cast<long long>(r->listening_port), state,
         static_cast<long long>(r->ack_offset), static_cast<long long>((now - r->ack_ms) / 1000),
         type);
    ++connected;
  }
  Line(&out, "connected_slaves:%d", connected);
  out += lines;
  Line(&out, "replicas_waiting_psync:%d", ReplicasWaitingPsync());
  if (!is_replica()) {
    const int64_t min_write = ConfigValueInt(server_.config(), "min-replicas-to-write", 0);
    if (min_write > 0) Line(&out, "min_slaves_good_slaves:%d", GoodReplicas());
  }
  Line(&out, "master_failover_state:%s", FailoverStateName());
  Line(&out, "master_replid:%s", replid_.c_str());
  Line(&out, "master_replid2:%s", replid2_.c_str());
  Line(&out, "master_repl_offset:%lld", static_cast<long long>(offset_));
  Line(&out, "second_repl_offset:%lld", static_cast<long long>(second_replid_offset_));
  Line(&out, "repl_backlog_active:%d", backlog_on_ ? 1 : 0);
  Line(&out, "repl_backlog_size:%lld",
       static_cast<long long>(ConfigValueInt(server_.config(), "repl-backlog-size", 10 << 20)));
  Line(&out, "repl_backlog_first_byte_offset:%lld",
       static_cast<long long>(backlog_on_ ? backlog_.first_offset() : 0));
  Line(&out, "repl_backlog_histlen:%lld",
       static_cast<long long>(backlog_on_ ? backlog_.size() : 0));
  return out;
}

void Replication::LogShutdownSync() const {
  int total = 0;
  const int64_t now = NowMs();
  for (const auto& r : replicas_) {
    if (r->state == ReplicaState::kHandshake) continue;
    ++total;
    if (r->ack_offset >= offset_) continue;
    LogWarning("Lagging replica %s:%lld reported offset %lld behind master, lag=%lld, state=%s.",
               ReplicaIp(*r).c_str(), static_cast<long long>(r->listening_port),
               static_cast<long long>(offset_ - r->ack_offset),
               static_cast<long long>((now - r->ack_ms) / 1000),
               ReplicaStateName(static_cast<int>(r->state)));
  }
  if (total > 0) {
    LogNotice("%d of %d replicas are in sync when shutting down.", total - LaggingReplicas(),
              total);
  }
}

std::string Replication::StatsFields() const {
  std::string out;
  Line(&out, "sync_full:%llu", static_cast<unsigned long long>(sync_full_));
  Line(&out, "sync_partial_ok:%llu", static_cast<unsigned long long>(sync_partial_ok_));
  Line(&out, "sync_partial_err:%llu", static_cast<unsigned long long>(sync_partial_err_));
  return out;
}

void Replication::RoleReply(Client* c) {
  ReplyBuilder& r = c->reply;
  if (is_replica()) {
    r.Array(5);
    r.Bulk("slave");
    r.Bulk(master_host_);
    r.Integer(master_port_);
    r.Bulk(LinkStateName());
    r.Integer(link_up() ? offset_ : -1);
    return;
  }
  r.Array(3);
  r.Bulk("master");
  r.Integer(offset_);
  size_t n = 0;
  for (const auto& r2 : replicas_) n += r2->state == ReplicaState::kOnline;
  r.Array(n);
  for (const auto& rep : replicas_) {
    if (rep->state != ReplicaState::kOnline) continue;
    r.Array(3);
    r.Bulk(ReplicaIp(*rep));
    r.Bulk(std::to_string(rep->listening_port));
    r.Bulk(std::to_string(rep->ack_offset));
  }
}

void Replication::RefreshRestrictions() {
  read_only_ = (ConfigValue(server_.config(), "replica-read-only") == "yes");
  serve_stale_ = (ConfigValue(server_.config(), "replica-serve-stale-data") == "yes");
  min_replicas_ = ConfigValueInt(server_.config(), "min-replicas-to-write", 0);
  if (ConfigValueInt(server_.config(), "min-replicas-max-lag", 10) == 0) min_replicas_ = 0;
  restricts_ = is_replica() || min_replicas_ > 0;
  SetLogRole(is_replica() ? 'S' : 'M');
}

const char* Replication::RefuseCommand(const Client* c, uint32_t cmd_flags, bool is_write) const {
  if (is_replica()) {
    if (is_master_client(c)) return nullptr;
    if (is_write && read_only_) return "READONLY You can't write against a read only replica.";
    if (!link_up() && !(cmd_flags & kCmdStale) && !serve_stale_) {
      return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
    }
    return nullptr;
  }
  if (is_write && min_replicas_ > 0 && GoodReplicas() < min_replicas_) {
    return "NOREPLICAS Not enough good replicas to write.";
  }
  return nullptr;
}

const char* Replication::RefuseScriptWriteOnReplica(const Client* caller) const {
  if (!is_replica() || !read_only_ || is_master_client(caller)) return nullptr;
  return "-READONLY You can't write against a read only replica.";
}

const char* Replication::RefuseScriptWriteForReplicas() const {
  if (is_replica() || min_replicas_ == 0 || GoodReplicas() >= min_replicas_) return nullptr;
  return "-NOREPLICAS Not enough good replicas to write.";
}

std::string Replication::CapaRedirect(const Client* c, uint32_t flags,
                                      uint32_t queued_flags) const {
  if (!is_replica() || is_master_client(c)) return "";
  const bool write = ((flags | queued_flags) & kCmdWrite) != 0;
  const bool read = ((flags | queued_flags) & kCmdReadonly) != 0;
  if (!write && !(read && !(c->flags & kClientReadOnlyReplica))) return "";
  return RedirectError();
}

}  // namespace vireo
