// Server side of Pub/Sub: delivering messages to clients and the output buffer limits that
// keep a slow subscriber from growing memory without bound.
#include "common/clock.h"
#include "common/log.h"
#include "server/server.h"

namespace vireo {

void Server::QueueWrite(Client* c) {
  if (c->flags & kClientPendingWrite) return;
  c->flags |= kClientPendingWrite;
  pending_writes_.push_back(c);
}

void Server::DeliverPush(Client* c, std::string_view frame) {
  if (c->flags & kClientCloseAsap) return;  // on its way out: nothing more for it
  std::string* out = c == executing_ ? &deferred_pushes_ : c->conn.Output();
  if (c->resp == 3) {
    out->push_back('>');
    out->append(frame.data() + 1, frame.size() - 1);
  } else {
    out->append(frame);
  }
  QueueWrite(c);
  if (!EnforceOutputLimit(c)) AccountClientMemory(c);
}

bool Server::EnforceSetOutputLimit(Client* c, const OutputBufferLimit& limit) {
  if (c->flags & kClientCloseAsap) return true;
  const uint64_t used = c->conn.PendingOutput();
  // The common case, under both limits, needs no clock read.
  if ((limit.soft == 0 || used < static_cast<uint64_t>(limit.soft)) &&
      (limit.hard == 0 || used < static_cast<uint64_t>(limit.hard))) {
    c->obuf_soft_since_ms = 0;
    return false;
  }
  if (!OutputLimitExceeded(limit, used, NowMs(), &c->obuf_soft_since_ms)) {
    return false;
  }
  LogWarning("Client id=%llu addr=%s scheduled to be closed ASAP for overcoming of output "
             "buffer limits.",
             static_cast<unsigned long long>(c->id), c->addr.c_str());
  ++stats_.client_output_buffer_limit_disconnections;
  CloseClientAsync(c);
  return true;
}

}  // namespace vireo
