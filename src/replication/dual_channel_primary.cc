// Dual-channel full sync, the primary's side (see replication.h): which replicas are offered
// it, and the main channel's PSYNC served from the stream its rdb channel kept.
#include <algorithm>

#include "common/clock.h"
#include "common/log.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {

bool Replication::OffersDualChannel(const Replica& r) const {
  // As Valkey: only with diskless sync, where the rdb channel's socket takes the snapshot
  // straight from the snapshot thread. TLS connections take the file path: not offered.
  const Config& config = server_.config();
  return r.capa_dual_channel && r.capa_eof && !r.rdb_channel &&
         r.client->conn.tls() == nullptr &&
         ConfigValue(config, "dual-channel-replication-enabled") == "yes" &&
         ConfigValue(config, "repl-diskless-sync") == "yes";
}

Replication::Replica* Replication::FindRdbChannel(uint64_t client_id) {
  for (auto& r : replicas_) {
    if (r->rdb_channel && r->client->id == client_id) return r.get();
  }
  return nullptr;
}

bool Replication::ContinueFromRdbChannel(Replica* r, std::string_view replid, int64_t from) {
  Replica* rdb = FindRdbChannel(r->rdb_client_id);
  // Only the exact point its snapshot ended, in this history, once $ENDOFF went out; anything
  // else is judged as an ordinary PSYNC.
  if (rdb == nullptr || rdb->main_attached || rdb->snapshot_offset < 0 || replid != replid_ ||
      from != rdb->snapshot_offset + 1) {
    return false;
  }
  Client* c = r->client;
  std::string* out = c->conn.Output();
  out->append("+CONTINUE " + replid_ + "\r\n");
  out->append(rdb->pending);
  rdb->pending.clear();
  rdb->pending.shrink_to_fit();
  rdb->main_attached = true;
  r->state = ReplicaState::kOnline;
  r->ack_offset = from - 1;
  r->ack_ms = NowMs();
  ++sync_partial_ok_;
  LogNotice("Replica %s main channel asks for synchronization: the stream from offset %lld "
            "follows its rdb channel's snapshot.",
            c->addr.c_str(), static_cast<long long>(from));
  server_.QueueWrite(c);
  return true;
}

bool Replication::InBackgroundTransfer(const Replica& r) const {
  if (r.rdb_client_id == 0) return false;
  return std::any_of(replicas_.begin(), replicas_.end(), [&](const auto& x) {
    return x->rdb_channel && x->client->id == r.rdb_client_id;
  });
}

int Replication::ReplicasWaitingPsync() const {
  return static_cast<int>(std::count_if(replicas_.begin(), replicas_.end(), [](const auto& r) {
    return r->rdb_channel && !r->main_attached && r->state != ReplicaState::kHandshake;
  }));
}

}  // namespace vireo
