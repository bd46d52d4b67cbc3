// CLUSTER SLOT-STATS accounting: what each command costs the hash slot of its keys (CPU time,
// request bytes, reply bytes), charged the way valkey-server 8.0.1 is observed to charge it,
// quirks of transactions and scripts included. Runs only under cluster-slot-stats-enabled yes.
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
namespace {

// The slot all of a command's keys hash to; -1 when it has none or they differ.
int KeysSlot(const CommandSpec& spec, const std::vector<std::string_view>& args,
             std::vector<KeyRef>* keys) {
  CommandKeys(spec, args, keys);
  int slot = -1;
  for (const KeyRef& k : *keys) {
    const int s = KeyHashSlot(args[static_cast<size_t>(k.pos)]);
    if (slot == -1) {
      slot = s;
    } else if (s != slot) {
      return -1;
    }
  }
  return slot;
}

// EXEC has no keys of its own: it is charged to the slot its queued commands share (they were
// routed one by one when queued).
int QueueSlot(const Client* c) {
  if (c->multi == nullptr) return -1;
  int slot = -1;
  std::vector<KeyRef> keys;
  std::vector<std::string_view> args;
  for (const QueuedCommand& q : c->multi->queue) {
    args.assign(q.args.begin(), q.args.end());
    CommandKeys(*q.spec, args, &keys);
    if (keys.empty()) continue;
    const int s = KeysSlot(*q.spec, args, &keys);
    if (s < 0 || (slot != -1 && s != slot)) return -1;
    slot = s;
  }
  return slot;
}

// Valkey rebuilds a request's size from its arguments: an inline one counts one space between
// arguments and "\r\n", whatever it was sent with.
size_t RequestBytes(const Client* c) {
  if (!c->inline_request) return c->request_bytes;
  size_t n = 2 + (c->args.empty() ? 0 : c->args.size() - 1);
  for (std::string_view a : c->args) n += a.size();
  return n;
}

bool IsEval(const CommandSpec* spec) { return spec->name.rfind("eval", 0) == 0; }

}  // namespace

Server::SlotStatsCall Server::BeginSlotStats(Client* c, const CommandSpec* spec,
                                             const Client* outer, const std::string* reply_out,
                                             size_t reply_before) {
  SlotStatsCall call;
  if (cluster_ == nullptr || outer != nullptr) return call;
  const bool exec = spec->name == "exec";
  call.slot = exec ? QueueSlot(c) : c->slot;
  call.repl_offset = replication_->offset();
  slot_stats_script_called_ = false;
  slot_stats_exec_slot_ = exec ? call.slot : -1;
  slot_stats_exec_out_ = reply_out;
  slot_stats_exec_start_ = reply_before;
  return call;
}

void Server::EndSlotStats(Client* c, const CommandSpec* spec, const Client* outer,
                          const SlotStatsCall& call, int64_t usec, size_t reply_bytes) {
  if (cluster_ == nullptr) return;
  SlotStats& stats = cluster_->slot_stats();
  if (outer != nullptr) {
    if (c->flags & kClientScript) {
      // A script's command: its reply (to the script) counts for its own keys' slot.
      slot_stats_script_called_ = true;
      std::vector<KeyRef> keys;
      if (const int s = KeysSlot(*spec, c->args, &keys); s >= 0) stats.AddBytesOut(s, reply_bytes);
    } else if (c == outer && slot_stats_exec_slot_ >= 0 &&
               c->reply.Output() == slot_stats_exec_out_ &&
               ReplyBytes(*c, slot_stats_exec_out_) >= slot_stats_exec_start_) {
      // A command of EXEC: Valkey charges it the whole EXEC reply built so far.
      stats.AddBytesOut(slot_stats_exec_slot_,
                        ReplyBytes(*c, slot_stats_exec_out_) - slot_stats_exec_start_);
    }
    return;
  }
  slot_stats_exec_slot_ = -1;
  if (call.slot < 0) {
    // MULTI's bytes wait for the EXEC that ends the transaction; anything else outside a
    // transaction drops them (DISCARD, an EXEC of keyless commands).
    if (spec->name == "multi") {
      c->slot_stats_multi_bytes = RequestBytes(c);
    } else if (!(c->flags & kClientMulti)) {
      c->slot_stats_multi_bytes = 0;
    }
    return;
  }
  // An EVAL whose script called a command leaves the caller without a slot in 8.0.1: nothing
  // of the EVAL itself is charged (FCALL is).
  if (IsEval(spec) && slot_stats_script_called_) return;
  // Each replica gets its own copy of what the command propagated; a replica passes its
  // master's stream on outside any command.
  const int64_t propagated = replication_->offset() - call.repl_offset;
  size_t out = reply_bytes;
  if (propagated > 0 && !replication_->is_replica()) {
    out += static_cast<size_t>(propagated) * static_cast<size_t>(replication_->ReplicaCount());
  }
  stats.AddBytesOut(call.slot, out);
  stats.AddCpu(call.slot, usec < 0 ? 0 : static_cast<uint64_t>(usec));
  stats.AddBytesIn(call.slot, RequestBytes(c) + c->slot_stats_multi_bytes);
  c->slot_stats_multi_bytes = 0;
}

void Server::AccountQueuedCommand(const Client* c) {
  if (cluster_ != nullptr && c->slot >= 0) {
    cluster_->slot_stats().AddBytesIn(c->slot, RequestBytes(c));
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
