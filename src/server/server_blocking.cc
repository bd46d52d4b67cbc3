// Clients blocked on keys: parking, waking in arrival order, timeouts, CLIENT UNBLOCK.
#include <algorithm>

#include "cluster/cluster.h"
#include "commands/context.h"
#include "commands/command_table.h"
#include "common/clock.h"
#include "replication/replication.h"
#include "server/server.h"

namespace vireo {

bool CommandContext::CanBlock() const { return !(client.flags & kClientDenyBlocking); }

void CommandContext::Block(const std::vector<std::string_view>& keys, int64_t deadline_ms,
                           ObjType type, BlockTimeoutReply on_timeout, bool unblock_on_nokey,
                           const std::vector<std::string>* rewritten_args) {
  BlockState state;
  if (rewritten_args != nullptr) {
    state.args = *rewritten_args;
  } else {
    state.args.assign(args.begin(), args.end());
  }
  state.keys.assign(keys.begin(), keys.end());
  state.db = db->index();
  state.deadline_ms = deadline_ms;
  state.type = type;
  state.on_timeout = on_timeout;
  state.unblock_on_nokey = unblock_on_nokey;
  server.BlockClient(&client, std::move(state));
}

void Server::BlockClient(Client* c, BlockState state) {
  c->flags |= kClientBlocked;
  // Woken but nothing left for it: it waits on, first in line as before.
  if (rerunning_ == c && c->block) return;
  state.since_ms = NowMs();
  c->block = std::make_unique<BlockState>(std::move(state));
  blocking_.Add(c);
}

void Server::RerunBlocked(Client* c) {
  c->flags &= ~kClientBlocked;
  rerunning_ = c;
  const std::vector<std::string>& saved = c->block->args;
  c->args.assign(saved.begin(), saved.end());
  Execute(c);
  c->args.clear();
  rerunning_ = nullptr;
  if (!(c->flags & kClientBlocked)) EndBlock(c);
}

void Server::ServeReadyKeys() {
  if (serving_ready_) return;  // the outer call keeps looping until nothing is ready
  serving_ready_ = true;
  while (blocking_.HasReady()) {
    for (auto& [db_index, key] : blocking_.TakeReady()) {
      Db* db = dbs_[static_cast<size_t>(db_index)].get();
      for (Client* c : blocking_.Waiters(db_index, key)) {
        if (!(c->flags & kClientBlocked) || !c->block) continue;
        // Only a value of the awaited type wakes a waiter (a list replaced by a string
        // leaves BLPOP waiting); waiters that asked for it also wake on deletion.
        const Entry* e = db->Find(key);
        if ((e == nullptr || e->type() != c->block->type) && !c->block->unblock_on_nokey) {
          continue;
        }
        RerunBlocked(c);
      }
    }
  }
  serving_ready_ = false;
}

void Server::EndBlock(Client* c) {
  if (c->block->on_timeout == BlockTimeoutReply::kReplicaCount ||
      c->block->on_timeout == BlockTimeoutReply::kAofCounts) {
    replication_->RemoveWaiter(c);
  }
  c->flags &= ~kClientBlocked;
  blocking_.Remove(c);
  c->block.reset();
  unblocked_.push_back(c);
}

void Server::ResumeUnblocked() {
  while (!unblocked_.empty()) {
    std::vector<Client*> batch;
    batch.swap(unblocked_);
    for (Client* c : batch) {
      if (clients_.count(c->id) == 0) continue;
      ProcessInput(c);
    }
  }
}

namespace {

// Points c's reply at its output (or nowhere under CLIENT REPLY OFF) for an answer outside
// the command that blocked it.
void PrepareUnblockReply(Client* c) {
  c->reply.SetOutput((c->flags & kClientReplyOff) ? &c->discard : c->conn.Output());
  c->reply.SetResp3(c->resp == 3);
}

// A blocked command answered without running again (timeout, CLIENT UNBLOCK, the server
// turning replica) completes there: counted as Server::Call counts a command (commandstats,
// total_commands_processed, CLIENT LIST tot-cmds), as Valkey does.
void CountUnblocked(Server& server, Client* c, bool failed) {
  const std::vector<std::string_view> args(c->block->args.begin(), c->block->args.end());
  if (const CommandSpec* spec = Commands().Resolve(args); spec != nullptr) {
    ++spec->stats.calls;
    if (failed) ++spec->stats.failed_calls;
  }
  ++server.stats().total_commands_processed;
  ++c->commands;
}

void ReplyTimeout(Server& server, Client* c) {
  PrepareUnblockReply(c);
  const bool shutdown = c->block->on_timeout == BlockTimeoutReply::kShutdown;
  if (c->block->on_timeout == BlockTimeoutReply::kReplicaCount) {
    Replication& repl = server.replication();
    c->reply.Integer(repl.AckedReplicas(repl.WaitOffset(c)));
  } else if (c->block->on_timeout == BlockTimeoutReply::kAofCounts) {
    Replication& repl = server.replication();
    auto [local, replicas] = repl.AofWaitCounts(repl.WaitOffset(c));
    c->reply.Array(2);
    c->reply.Integer(local);
    c->reply.Integer(replicas);
  } else if (shutdown) {
    c->reply.Error("ERR Errors trying to SHUTDOWN. Check logs.");
  } else if (c->block->on_timeout == BlockTimeoutReply::kNullBulk) {
    c->reply.Null();
  } else {
    c->reply.NullArray();
  }
  CountUnblocked(server, c, shutdown);
}

}  // namespace

void Server::HandleBlockTimeouts() {
  int64_t next = blocking_.NextDeadline();
  if (next == 0) return;
  int64_t now = NowMs();
  if (now < next) return;
  for (Client* c : blocking_.Expired(now)) {
    ReplyTimeout(*this, c);
    EndBlock(c);
  }
}

void Server::UnblockAllForReplicaOf() {
  std::vector<Client*> blocked;
  for (auto& [id, c] : clients_) {
    if (c->flags & kClientBlocked) blocked.push_back(c);
  }
  for (Client* c : blocked) {
    PrepareUnblockReply(c);
    if (c->flags & kClientCapaRedirect) {
      c->reply.Error(replication_->RedirectError());
    } else {
      c->reply.Error("UNBLOCKED force unblock from blocking operation, instance state changed "
                     "(master -> replica?)");
    }
    CountUnblocked(*this, c, true);
    c->flags |= kClientCloseAfterReply;
    EndBlock(c);
    QueueWrite(c);
  }
}

void Server::RedirectBlockedClients() {
  if (cluster_ == nullptr) return;
  std::vector<std::pair<Client*, std::string>> moved;
  for (auto& [id, c] : clients_) {
    if (!(c->flags & kClientBlocked) || c->block == nullptr) continue;
    std::string redirect = cluster_->BlockedRedirect(c, c->block->keys);
    if (!redirect.empty()) moved.emplace_back(c, std::move(redirect));
  }
  for (auto& [c, redirect] : moved) {
    PrepareUnblockReply(c);
    c->reply.Error(redirect);
    CountUnblocked(*this, c, true);
    EndBlock(c);
    QueueWrite(c);
  }
}

void Server::UnblockClient(Client* c, bool with_error) {
  if (with_error) {
    PrepareUnblockReply(c);
    c->reply.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
    CountUnblocked(*this, c, true);
  } else {
    ReplyTimeout(*this, c);
  }
  EndBlock(c);
}

}  // namespace vireo
