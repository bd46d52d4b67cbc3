// CLUSTER SLOT-STATS accounting: what each command costs the hash slot of its keys (CPU time,
// request bytes, reply bytes), charged the way valkey-server 8.0.1 is observed to charge it.
// Everything here runs only under cluster-slot-stats-enabled yes.
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "commands/command_table.h"
#include "commands/key_finders.h"
#include "common/crc16.h"
#include "replication/replication.h"
#include "server/pubsub.h"
#include "server/server.h"

namespace vireo {

int Server::SlotStatsSlot(const Client* c, const CommandSpec* spec) const {
  if (cluster_ == nullptr) return -1;
  if (spec->name != "exec") return c->slot;
  // EXEC has no keys of its own: it is charged to the slot its queued commands share (they
  // were routed one by one when queued).
  if (c->multi == nullptr) return -1;
  int slot = -1;
  std::vector<KeyRef> keys;
  std::vector<std::string_view> args;
  for (const QueuedCommand& q : c->multi->queue) {
    args.assign(q.args.begin(), q.args.end());
    CommandKeys(*q.spec, args, &keys);
    for (const KeyRef& k : keys) {
      const int s = KeyHashSlot(args[static_cast<size_t>(k.pos)]);
      if (slot == -1) {
        slot = s;
      } else if (s != slot) {
        return -1;
      }
    }
  }
  return slot;
}

void Server::AccountSlotStats(Client* c, const CommandSpec* spec, int slot, int64_t usec,
                              size_t reply_bytes) {
  if (cluster_ == nullptr) return;
  if (slot < 0) {
    // MULTI's bytes wait for the EXEC that ends the transaction; anything else outside a
    // transaction drops them (DISCARD, an EXEC of keyless commands).
    if (spec->name == "multi") {
      c->slot_stats_multi_bytes = c->request_bytes;
    } else if (!(c->flags & kClientMulti)) {
      c->slot_stats_multi_bytes = 0;
    }
    return;
  }
  SlotStats& stats = cluster_->slot_stats();
  stats.AddBytesOut(slot, reply_bytes);
  // Valkey 8.0.1 charges a script (EVAL, FCALL, ...) only its reply: its own commands run
  // under the script's client, which leaves the caller without a slot by the time the script
  // ends.
  if (spec->group == "scripting") return;
  stats.AddCpu(slot, usec < 0 ? 0 : static_cast<uint64_t>(usec));
  stats.AddBytesIn(slot, c->request_bytes + c->slot_stats_multi_bytes);
  c->slot_stats_multi_bytes = 0;
}

size_t Server::ReplicatedBytes(int64_t bytes) const {
  // A replica passes its master's stream on outside any command: only a primary's count.
  if (bytes <= 0 || replication_->is_replica()) return 0;
  return static_cast<size_t>(bytes) * static_cast<size_t>(replication_->ReplicaCount());
}

void Server::AccountQueuedCommand(const Client* c) {
  if (cluster_ != nullptr && c->slot >= 0) {
    cluster_->slot_stats().AddBytesIn(c->slot, c->request_bytes);
  }
}

void Server::AccountShardFanOut(std::string_view channel, std::string_view message,
                                size_t receivers) {
  if (!config_.cluster_slot_stats_enabled || cluster_ == nullptr || receivers == 0) return;
  std::string frame;
  BuildPubSubFrame(&frame, "smessage", nullptr, channel, message);
  cluster_->slot_stats().AddBytesOut(KeyHashSlot(channel), frame.size() * receivers);
}

}  // namespace vireo
