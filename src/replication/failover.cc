// FAILOVER: a primary hands its role to one of its replicas without losing a write. Writes
// pause; once a replica has acknowledged the whole stream (or the timeout passed, with FORCE)
// the primary becomes that replica's replica and asks it, with PSYNC ... FAILOVER, to take
// over; the target promotes itself and answers +CONTINUE with its new history. A rejected
// PSYNC makes the old primary a primary again. The protocol is Valkey's, so either side may
// be a Valkey/Redis server (see replication.h).
#include <algorithm>
#include <limits>

#include "common/clock.h"
#include "common/log.h"
#include "replication/replication.h"
#include "server/client.h"
#include "server/server.h"

namespace vireo {

std::string Replication::ReplicaIp(const Replica& r) {
  if (!r.ip.empty()) return r.ip;
  return r.client->addr.substr(0, r.client->addr.rfind(':'));
}

const char* Replication::FailoverStateName() const {
  switch (failover_) {
    case FailoverState::kWaitForSync:
      return "waiting-for-sync";
    case FailoverState::kInProgress:
      return "failover-in-progress";
    case FailoverState::kNone:
      break;
  }
  return "no-failover";
}

std::string Replication::FailoverTargetName() const {
  if (failover_host_.empty()) return "any replica";
  return failover_host_ + ":" + std::to_string(failover_port_);
}

std::string Replication::StartFailover(const std::string& host, int64_t port, bool force,
                                       int64_t timeout_ms) {
  // Valkey's checks, in its order.
  if (failover_ != FailoverState::kNone) return "ERR FAILOVER already in progress.";
  if (is_replica()) return "ERR FAILOVER is not valid when server is a replica.";
  const bool any = std::any_of(replicas_.begin(), replicas_.end(), [](const auto& r) {
    return r->state != ReplicaState::kHandshake;
  });
  if (!any) return "ERR FAILOVER requires connected replicas.";
  if (force && (timeout_ms == 0 || host.empty())) {
    return "ERR FAILOVER with force option requires both a timeout and target HOST and IP.";
  }
  if (!host.empty()) {
    auto target = std::find_if(replicas_.begin(), replicas_.end(), [&](const auto& r) {
      return r->state != ReplicaState::kHandshake && r->listening_port == port &&
             ReplicaIp(*r) == host;
    });
    if (target == replicas_.end()) return "ERR FAILOVER target HOST and PORT is not a replica.";
    if ((*target)->state != ReplicaState::kOnline) {
      return "ERR FAILOVER target replica is not online.";
    }
  }
  failover_ = FailoverState::kWaitForSync;
  failover_host_ = host;
  failover_port_ = port;
  failover_force_ = force;
  failover_end_ms_ = timeout_ms == 0 ? 0 : NowMs() + timeout_ms;
  LogNotice("FAILOVER requested to %s.", FailoverTargetName().c_str());
  // Until the hand-over ends: no new writes, so the stream stops growing and a replica can
  // catch up with all of it. The cron skips its pings to replicas meanwhile for that reason.
  server_.Pause(Server::PausePurpose::kFailover, std::numeric_limits<int64_t>::max(), true);
  return "";
}

std::string Replication::AbortFailover() {
  if (failover_ == FailoverState::kNone) return "ERR No failover in progress.";
  EndFailover("Failover manually aborted");
  return "";
}

void Replication::FailoverCheck() {
  if (failover_ != FailoverState::kWaitForSync) return;
  for (const auto& r : replicas_) {
    if (r->state != ReplicaState::kOnline || r->ack_offset < offset_) continue;
    const std::string ip = ReplicaIp(*r);
    if (!failover_host_.empty() && (ip != failover_host_ || r->listening_port != failover_port_)) {
      continue;
    }
    LogNotice("Failover target %s:%lld is synced, failing over.", ip.c_str(),
              static_cast<long long>(r->listening_port));
    FailoverTo(ip, r->listening_port);
    return;
  }
  if (failover_end_ms_ == 0 || NowMs() < failover_end_ms_) return;
  if (!failover_force_) {
    EndFailover("Replica never caught up before timeout");
    return;
  }
  LogNotice("FAILOVER to %s time out exceeded, failing over.", FailoverTargetName().c_str());
  FailoverTo(failover_host_, failover_port_);
}

void Replication::FailoverTo(const std::string& host, int64_t port) {
  failover_ = FailoverState::kInProgress;
  failover_host_ = host;
  failover_port_ = port;
  // The handshake sends this server's own ID and offset with FAILOVER (HandshakeStep). The
  // data stays: a rejected hand-over returns to it.
  std::string reply;
  ReplicaOf(host, port, &reply);
}

void Replication::FailoverPsyncAnswered(bool accepted) {
  if (failover_ != FailoverState::kInProgress) return;
  if (!accepted) {
    EndFailover("Failover target rejected psync request");
    return;
  }
  LogNotice("Failover to %s succeeded: it is the primary now.", FailoverTargetName().c_str());
  EndFailover(nullptr);
}

void Replication::EndFailover(const char* why) {
  const bool began = failover_ == FailoverState::kInProgress;
  if (why != nullptr) {
    LogNotice("FAILOVER to %s aborted: %s", FailoverTargetName().c_str(), why);
  }
  failover_ = FailoverState::kNone;
  failover_host_.clear();
  failover_port_ = 0;
  failover_end_ms_ = 0;
  failover_force_ = false;
  if (why != nullptr && began) PromoteToPrimary("failover aborted");
  // Held writes run now: on a primary, or refused as READONLY once this is a replica.
  server_.Unpause(Server::PausePurpose::kFailover);
}

std::string Replication::AcceptFailover(const Client* c, std::string_view replid) {
  if (!is_replica()) return "ERR PSYNC FAILOVER can't be sent to a master.";
  if (replid != replid_) return "ERR PSYNC FAILOVER replid must match my replid.";
  LogNotice("Failover request received for replid %s.", replid_.c_str());
  PromoteToPrimary("failover request from '" + c->addr + "'");
  return "";
}

}  // namespace vireo
