// Shutting down: the wait for lagging replicas (shutdown-timeout), the final save and exit,
// and SHUTDOWN ABORT (see Server::BeginShutdown). As in Valkey, a primary does not leave
// while its replicas miss writes it acknowledged, unless told NOW or the wait times out.
#include <limits>

#include "cluster/cluster.h"
#include "common/clock.h"
#include "common/log.h"
#include "persistence/snapshot.h"
#include "replication/replication.h"
#include "server/server.h"

namespace vireo {

Server::ShutdownStep Server::BeginShutdown(ShutdownSave mode, bool now, bool force, bool safe) {
  // Valkey's line, so log watchers written for it match.
  LogNotice("User requested shutdown...");
  const int64_t timeout_s = ConfigValueInt(config_, "shutdown-timeout", 10);
  if (!now && timeout_s > 0 && replication_->LaggingReplicas() > 0) {
    LogNotice("Waiting for replicas before shutting down.");
    shutdown_wait_ = {true, NowMs() + timeout_s * 1000, mode, force, safe};
    // No new writes, so the replicas can catch up with all of them; acks asked for now.
    Pause(PausePurpose::kShutdown, std::numeric_limits<int64_t>::max(), true);
    replication_->RequestAcks();
    return ShutdownStep::kWaiting;
  }
  return FinishShutdown(mode, force, safe) ? ShutdownStep::kExiting : ShutdownStep::kFailed;
}

bool Server::FinishShutdown(ShutdownSave mode, bool force, bool safe) {
  // SAFE: a primary that serves slots would take them down with it (the cluster fails).
  if (safe && cluster_ != nullptr && !cluster_->myself()->is_replica() &&
      cluster_->myself()->slot_count > 0) {
    if (!force) {
      LogWarning("Refusing to shut down: this primary serves %d slots and the cluster would "
                 "fail without them (SHUTDOWN SAFE). Use FORCE to shut down anyway.",
                 cluster_->myself()->slot_count);
      return false;
    }
    LogWarning("This primary serves %d slots: shutting down anyway (SAFE with FORCE).",
               cluster_->myself()->slot_count);
  }
  replication_->LogShutdownSync();
  std::string error;
  if (!SaveBeforeShutdown(*this, mode, &error) && !force) return false;
  RequestShutdown(0);
  return true;
}

void Server::ShutdownCheck() {
  if (!shutdown_wait_.active || shutdown_requested_) return;
  if (replication_->LaggingReplicas() > 0 && NowMs() < shutdown_wait_.deadline_ms) return;
  if (FinishShutdown(shutdown_wait_.mode, shutdown_wait_.force, shutdown_wait_.safe)) return;  // the clients close
  LogWarning("Errors trying to shut down the server. Check the logs for more information.");
  EndShutdownWait();
}

bool Server::AbortShutdown() {
  if (!shutdown_wait_.active || shutdown_requested_) return false;
  LogNotice("Shutdown manually aborted.");
  EndShutdownWait();
  return true;
}

void Server::EndShutdownWait() {
  shutdown_wait_ = ShutdownWait{};
  Unpause(PausePurpose::kShutdown);
  std::vector<Client*> waiting;
  for (auto& [id, c] : clients_) {
    if (c->block && c->block->on_timeout == BlockTimeoutReply::kShutdown) waiting.push_back(c);
  }
  for (Client* c : waiting) UnblockClient(c, false);  // "Errors trying to SHUTDOWN"
}

}  // namespace vireo
