#include "cluster/slot_migration.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cluster/cluster.h"
#include "commands/key_finders.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "net/socket.h"
#include "persistence/cow_snapshot.h"
#include "persistence/rdb_writer.h"
#include "protocol/command_encoder.h"
#include "protocol/reply_builder.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {
namespace {

constexpr int64_t kAckIntervalMs = 1000;

}  // namespace

SlotMigrations::SlotMigrations(Server& server, Cluster& cluster)
    : server_(server), cluster_(cluster) {}

SlotMigrations::~SlotMigrations() {
  // At shutdown the server has freed its clients already: the jobs' links are not touched.
  for (auto& job : jobs_) {
    if (job->fd >= 0) {
      server_.loop().Unwatch(job->fd);
      close(job->fd);
    }
  }
  if (sink_attached_) server_.propagator().RemoveSink(this);
  Db::SetImportingSlots(nullptr);
}

bool SlotMigrations::exporting() const {
  return std::any_of(jobs_.begin(), jobs_.end(), [](const auto& j) {
    return j->active() && j->kind == SlotMigrationJob::Kind::kExport;
  });
}

SlotMigrationJob* SlotMigrations::JobOf(const Client* c) const {
  return c == nullptr ? nullptr : c->migration;
}

void SlotMigrations::SendToPeer(SlotMigrationJob* job, const std::vector<std::string_view>& args) {
  if (job->client == nullptr) return;
  job->client->conn.Output()->append(RespCommand(args));
  server_.QueueWrite(job->client);
}

// --- Source ---------------------------------------------------------------------------------

void SlotMigrations::StartConnect(SlotMigrationJob* job) {
  ClusterNode* target = cluster_.Lookup(job->target_id);
  if (target == nullptr) {
    Finish(job, "failed", "Target node is no longer known");
    return;
  }
  // Under tls-cluster the node's plaintext port is pport; migrations use plain TCP.
  const int port = target->pport != 0 ? target->pport : target->port;
  std::string err;
  int fd = ConnectTcp(target->ip, port, &err);
  if (fd < 0) {
    Finish(job, "failed", "Unable to connect to target node: " + err);
    return;
  }
  job->fd = fd;
  job->owner = this;
  job->watcher = {&SlotMigrations::OnHandshakeEvent, job};
  job->last_io_ms = NowMs();
  server_.loop().Watch(fd, EventLoop::kWritable, &job->watcher);
}

void SlotMigrations::OnHandshakeEvent(void* obj, uint32_t events) {
  auto* job = static_cast<SlotMigrationJob*>(obj);
  job->owner->HandshakeEvent(job, events);
}

void SlotMigrations::HandshakeEvent(SlotMigrationJob* job, uint32_t events) {
  job->last_io_ms = NowMs();
  if (job->state == "connecting") {
    int err = 0;
    socklen_t len = sizeof(err);
    getsockopt(job->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0 || !(events & EventLoop::kWritable)) {
      Finish(job, "failed",
             std::string("Unable to connect to target node: ") + strerror(err != 0 ? err : EIO));
      return;
    }
    std::string out = PrimaryAuthCommand(server_.config());
    job->auth_sent = !out.empty();
    std::vector<std::string> words = {"CLUSTER", "SYNCSLOTS", "ESTABLISH", "SOURCE",
                                      job->source_id, "NAME", job->name, "SLOTSRANGE"};
    for (const auto& [a, b] : job->ranges) {
      words.push_back(std::to_string(a));
      words.push_back(std::to_string(b));
    }
    out += RespCommand(std::vector<std::string_view>(words.begin(), words.end()));
    // A fresh socket's buffer always takes a few hundred bytes.
    if (send(job->fd, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) {
      Finish(job, "failed", std::string("Unable to write to target node: ") + strerror(errno));
      return;
    }
    SetState(job, "establishing");
    server_.loop().Watch(job->fd, EventLoop::kReadable, &job->watcher);
    return;
  }
  char buf[4096];
  for (;;) {
    ssize_t n = read(job->fd, buf, sizeof(buf));
    if (n > 0) {
      job->in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    Finish(job, "failed", "Connection lost to target");
    return;
  }
  for (;;) {
    size_t eol = job->in.find("\r\n");
    if (eol == std::string::npos) return;
    std::string line = job->in.substr(0, eol);
    job->in.erase(0, eol + 2);
    if (job->auth_sent) {
      job->auth_sent = false;
      if (!line.empty() && line[0] == '-') {
        Finish(job, "failed", "Failed to AUTH to target node: " + line.substr(1));
        return;
      }
      continue;
    }
    if (line.empty() || line[0] != '+') {
      std::string why = line.size() > 1 ? line.substr(1) : "unexpected reply";
      if (why.rfind("ERR ", 0) == 0) why.erase(0, 4);
      Finish(job, "failed", why);
      return;
    }
    // Established: from now on the connection is a client whose commands are SYNCSLOTS steps.
    const int fd = job->fd;
    server_.loop().Unwatch(fd);
    job->fd = -1;
    std::string leftover;
    leftover.swap(job->in);
    job->client = server_.AdoptConnection(fd, 0);
    job->client->migration = job;
    job->client->name = "slot-migration-" + job->name.substr(0, 8);
    job->last_ack_sent_ms = NowMs();
    SetState(job, "waiting-to-snapshot");
    StartSnapshot(job);
    if (job->client != nullptr && !leftover.empty()) server_.FeedClientInput(job->client, leftover);
    return;
  }
}

void SlotMigrations::StartSnapshot(SlotMigrationJob* job) {
  if (CowSnapshot::Busy()) return;  // a BGSAVE or rewrite walks: the cron tries again
  CowSnapshotOptions opt;
  opt.commands = true;
  opt.write = RdbWriteOptionsFrom(server_.config());
  opt.key_save_delay_us = server_.config().rdb_key_save_delay;
  opt.slots = &job->slots;
  Client* c = job->client;
  opt.deliver = [this, c](std::string&& bytes) {
    c->conn.Output()->append(bytes);
    server_.QueueWrite(c);
  };
  opt.backlog = [c] { return c->conn.PendingOutput(); };
  std::vector<Db*> dbs;
  for (int i = 0; i < server_.db_count(); ++i) dbs.push_back(server_.db(i));
  std::string err;
  job->snapshot = CowSnapshot::Start(dbs, std::move(opt), &err);
  if (job->snapshot == nullptr) {
    Finish(job, "failed", "Unable to start the snapshot: " + err);
    return;
  }
  // Writes from this instant on are captured; the snapshot holds everything before it.
  SetState(job, "snapshotting");
  job->pending.clear();
  job->out_db = -1;
  RefreshSink();
}

void SlotMigrations::PollSnapshot(SlotMigrationJob* job) {
  if (job->snapshot == nullptr) return;
  CowSnapshot::Status s = job->snapshot->Poll();
  if (s == CowSnapshot::Status::kRunning) return;
  std::string err = job->snapshot->error();
  job->snapshot.reset();
  if (s != CowSnapshot::Status::kSucceeded) {
    Finish(job, "failed", "Snapshot failed: " + err);
    return;
  }
  // The snapshot's stream selected its own databases: the captured writes say theirs.
  SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "SNAPSHOT-EOF"});
  if (job->client == nullptr) return;
  job->client->conn.Output()->append(job->pending);
  job->pending.clear();
  job->pending.shrink_to_fit();
  job->streaming = true;
  SetState(job, "streaming");
  server_.QueueWrite(job->client);
  server_.EnforceOutputLimit(job->client);
}

void SlotMigrations::TryPause(SlotMigrationJob* job) {
  if (job->state != "waiting-to-pause" || prevent_pause_ || job->client == nullptr) return;
  const int64_t allowed =
      ConfigValueInt(server_.config(), "slot-migration-max-failover-repl-bytes", 0);
  if (static_cast<int64_t>(job->client->conn.PendingOutput()) > allowed) return;
  job->holding_writes = true;
  RefreshHolds();
  SetState(job, "failover-paused");
  SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "PAUSED"});
}

void SlotMigrations::AppendStream(SlotMigrationJob* job, int db, const std::string_view* args,
                                  size_t argc) {
  std::string* out = job->streaming ? job->client->conn.Output() : &job->pending;
  if (db != job->out_db) {
    out->append(RespCommand({"SELECT", std::to_string(db)}));
    job->out_db = db;
  }
  out->append(RespCommand(std::vector<std::string_view>(args, args + argc)));
  if (job->streaming) {
    server_.QueueWrite(job->client);
    server_.EnforceOutputLimit(job->client);
  } else {
    // Captured writes wait beside the snapshot; they count against the replica output
    // limit as the client's buffer would.
    const OutputBufferLimit& limit = server_.config().client_obuf_limits.Of(ClientClass::kReplica);
    if (limit.hard != 0 && job->pending.size() + job->client->conn.PendingOutput() >
                               static_cast<size_t>(limit.hard)) {
      server_.CloseClientAsync(job->client);
    }
  }
}

void SlotMigrations::Feed(int db, const std::string_view* args, size_t argc) {
  if (argc == 0) return;
  // Transactions are not kept as such: the target applies the stream before anyone can see
  // the slots, so only the order matters.
  if (EqualsIgnoreCase(args[0], "multi") || EqualsIgnoreCase(args[0], "exec")) return;
  args_.assign(args, args + argc);
  const CommandSpec* spec = Commands().Resolve(args_);
  if (spec == nullptr) return;
  keys_.clear();
  if (CommandKeys(*spec, args_, &keys_) == 0) return;  // FUNCTION LOAD, ...: not slot data
  const size_t slot = KeyHashSlot(args_[static_cast<size_t>(keys_[0].pos)]);
  for (auto& job : jobs_) {
    if (job->kind != SlotMigrationJob::Kind::kExport || !job->active() ||
        job->client == nullptr || (job->snapshot == nullptr && !job->streaming) ||
        !job->slots.test(slot)) {
      continue;
    }
    AppendStream(job.get(), db, args, argc);
  }
}

// --- Target ---------------------------------------------------------------------------------

void SlotMigrations::TakeOver(SlotMigrationJob* job) {
  cluster_.ClaimSlots(job->slots);
  LogNotice("Slot migration %s: took over slots %s", job->name.c_str(),
            SlotRangesText(job->ranges).c_str());
  SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "ACK"});
  Finish(job, "success", "");
}

// --- Both -----------------------------------------------------------------------------------

void SlotMigrations::SetState(SlotMigrationJob* job, const char* state) {
  job->state = state;
  job->update_s = NowMs() / 1000;
}

void SlotMigrations::Finish(SlotMigrationJob* job, const char* state, const std::string& message) {
  if (job->finished) return;
  job->finished = true;
  const bool success = std::strcmp(state, "success") == 0;
  SetState(job, state);
  job->message = message;
  if (job->snapshot != nullptr) {
    job->snapshot->Abort();
    job->snapshot.reset();
  }
  job->pending.clear();
  job->pending.shrink_to_fit();
  if (job->fd >= 0) {
    server_.loop().Unwatch(job->fd);
    close(job->fd);
    job->fd = -1;
  }
  // A successful import keeps the link (and the job as its owner) until the source, which
  // learns the outcome from the bus, closes it; anything else ends the link now.
  const bool keep_link = success && job->kind == SlotMigrationJob::Kind::kImport;
  if (job->client != nullptr && !keep_link) {
    job->client->migration = nullptr;
    server_.CloseClientAsync(job->client);
    job->client = nullptr;
  }
  if (job->kind == SlotMigrationJob::Kind::kImport) {
    RefreshImporting();
    if (!job->replicated) cluster_.SaveConfig(true);  // the running imports, for a restart
    // A replica's copy ends with its primary's deletions already applied; a primary (also a
    // promoted replica) deletes and tells its own replicas.
    if (cluster_.myself()->is_master()) {
      if (!success) DeleteSlotKeys(job->slots);
      PropagateImport(job, false);
    }
  } else if (success) {
    DeleteSlotKeys(job->slots);
  }
  if (job->holding_writes) {
    job->holding_writes = false;
    RefreshHolds();
  }
  RefreshSink();
  if (success) {
    LogNotice("Slot migration %s: %s succeeded", job->name.c_str(),
              job->kind == SlotMigrationJob::Kind::kExport ? "export" : "import");
  } else {
    LogWarning("Slot migration %s: %s %s: %s", job->name.c_str(),
               job->kind == SlotMigrationJob::Kind::kExport ? "export" : "import", state,
               message.c_str());
  }
  TrimLog();
}

void SlotMigrations::DeleteSlotKeys(const std::bitset<kClusterSlots>& slots) {
  for (int i = 0; i < server_.db_count(); ++i) {
    Db* db = server_.db(i);
    if (db->Size() == 0) continue;
    std::vector<std::string> keys;
    db->ForEachEntry([&](const Entry* e) {
      if (slots.test(KeyHashSlot(e->Key()))) keys.emplace_back(e->Key());
    });
    for (const std::string& k : keys) {
      if (db->Delete(k)) {
        PropagateDeletion(server_, i, k, false);
        server_.AddDirty(1);
        server_.watches().Touch(db, k);
        if (server_.tracking().Armed()) server_.tracking().Invalidate(k, nullptr);
      }
    }
  }
}

std::string SlotMigrations::ImportsForFile() const {
  std::string out;
  for (const auto& job : jobs_) {
    if (!job->active() || job->kind != SlotMigrationJob::Kind::kImport || job->replicated) {
      continue;
    }
    for (const auto& [a, b] : job->ranges) {
      if (!out.empty()) out += ',';
      out += std::to_string(a) + "-" + std::to_string(b);
    }
  }
  return out;
}

void SlotMigrations::DropInterruptedImports(const std::string& ranges) {
  std::bitset<kClusterSlots> slots;
  for (size_t pos = 0; pos < ranges.size();) {
    size_t comma = ranges.find(',', pos);
    const std::string r = ranges.substr(pos, comma == std::string::npos ? comma : comma - pos);
    pos = comma == std::string::npos ? ranges.size() : comma + 1;
    int64_t a, b;
    const size_t dash = r.find('-');
    if (dash == std::string::npos || !ParseInt64(r.substr(0, dash), &a) ||
        !ParseInt64(r.substr(dash + 1), &b) || a < 0 || b >= kClusterSlots || a > b) {
      continue;
    }
    for (int64_t s = a; s <= b; ++s) {
      if (cluster_.SlotOwner(static_cast<int>(s)) != cluster_.myself()) {
        slots.set(static_cast<size_t>(s));
      }
    }
  }
  if (slots.none()) return;
  LogWarning("Slot migration: an import of slots %s was interrupted by a restart; dropping its "
             "partial keys", ranges.c_str());
  DeleteSlotKeys(slots);
}

void SlotMigrations::RefreshHolds() {
  held_.reset();
  for (const auto& job : jobs_) {
    if (job->holding_writes) held_ |= job->slots;
  }
  const bool was = holding_;
  holding_ = held_.any();
  if (was && !holding_) server_.ResumeHeldClients();
}

void SlotMigrations::RefreshImporting() {
  importing_.reset();
  for (const auto& job : jobs_) {
    if (job->active() && job->kind == SlotMigrationJob::Kind::kImport) importing_ |= job->slots;
  }
  Db::SetImportingSlots(importing_.any() ? &importing_ : nullptr);
}

void SlotMigrations::RefreshSink() {
  bool capture = false;
  for (const auto& job : jobs_) {
    capture = capture || (job->active() && job->kind == SlotMigrationJob::Kind::kExport &&
                          (job->snapshot != nullptr || job->streaming));
  }
  if (capture == sink_attached_) return;
  sink_attached_ = capture;
  if (capture) {
    server_.propagator().AddSink(this);
  } else {
    server_.propagator().RemoveSink(this);
  }
}

void SlotMigrations::TrimLog() {
  const int64_t max_len =
      ConfigValueInt(server_.config(), "cluster-slot-migration-log-max-len", 1000);
  size_t inactive = 0;
  for (const auto& job : jobs_) inactive += !job->active();
  for (auto it = jobs_.begin(); it != jobs_.end() && static_cast<int64_t>(inactive) > max_len;) {
    if ((*it)->active()) {
      ++it;
      continue;
    }
    if ((*it)->client != nullptr) {
      (*it)->client->migration = nullptr;
      server_.CloseClientAsync((*it)->client);
    }
    it = jobs_.erase(it);
    --inactive;
  }
}

bool SlotMigrations::HoldsWrite(const Client* c, const CommandSpec* spec) const {
  if (!holding_ || c->migration != nullptr) return false;
  const uint32_t writes = kCmdWrite | kCmdMayReplicate;
  auto held = [&](const CommandSpec& s, const std::vector<std::string_view>& args) {
    if (!(s.flags & writes)) return false;
    std::vector<KeyRef> keys;
    CommandKeys(s, args, &keys);
    for (const KeyRef& k : keys) {
      if (held_.test(KeyHashSlot(args[static_cast<size_t>(k.pos)]))) return true;
    }
    return false;
  };
  if (spec->name == "exec" && (c->flags & kClientMulti) && c->multi) {
    for (const QueuedCommand& q : c->multi->queue) {
      std::vector<std::string_view> args(q.args.begin(), q.args.end());
      if (q.spec != nullptr && held(*q.spec, args)) return true;
    }
    return false;
  }
  return held(*spec, c->args);
}

void SlotMigrations::ClientClosed(Client* c) {
  SlotMigrationJob* job = JobOf(c);
  if (job == nullptr) return;
  job->client = nullptr;
  c->migration = nullptr;
  if (job->finished) return;
  Finish(job, "failed",
         job->kind == SlotMigrationJob::Kind::kExport ? "Connection lost to target"
                                                      : "Connection lost to source");
}

void SlotMigrations::ImportCommandFailed(Client* c, std::string_view error) {
  SlotMigrationJob* job = JobOf(c);
  if (job == nullptr || job->kind != SlotMigrationJob::Kind::kImport) return;
  Finish(job, "failed", "Command from the source failed: " + std::string(error));
}

void SlotMigrations::DataReplaced(const char* why) {
  for (auto& job : jobs_) {
    if (job->active()) Finish(job.get(), "failed", why);
  }
}

void SlotMigrations::SlotsChanged() {
  ClusterNode* me = cluster_.myself();
  for (auto& job : jobs_) {
    if (!job->active()) continue;
    if (job->kind == SlotMigrationJob::Kind::kExport) {
      ClusterNode* target = cluster_.Lookup(job->target_id);
      bool target_owns = target != nullptr, mine = true;
      for (int s = 0; s < kClusterSlots; ++s) {
        if (!job->slots.test(static_cast<size_t>(s))) continue;
        target_owns = target_owns && cluster_.SlotOwner(s) == target;
        mine = mine && cluster_.SlotOwner(s) == me;
      }
      if (target_owns && job->state == "failover-granted") {
        Finish(job.get(), "success", "");
      } else if (!mine || !me->is_master()) {
        Finish(job.get(), "failed", "Slots are no longer owned by myself");
      }
    } else if (job->replicated) {
      // Promoted before the primary's import ended: the keys are not this shard's.
      if (me->is_master()) Finish(job.get(), "failed", "A failover occurred during slot import");
    } else {
      if (!me->is_master()) {
        Finish(job.get(), "failed", "A failover occurred during slot import");
        continue;
      }
      ClusterNode* source = cluster_.Lookup(job->source_id);
      for (int s = 0; s < kClusterSlots; ++s) {
        if (job->slots.test(static_cast<size_t>(s)) && cluster_.SlotOwner(s) != source) {
          Finish(job.get(), "failed", "Slots are no longer owned by source node");
          break;
        }
      }
    }
  }
}

void SlotMigrations::Cron(int64_t now_ms) {
  SlotsChanged();
  const int64_t timeout_ms = ConfigValueInt(server_.config(), "repl-timeout", 60) * 1000;
  for (size_t i = 0; i < jobs_.size(); ++i) {
    SlotMigrationJob* job = jobs_[i].get();
    if (!job->active() || job->replicated) continue;
    if (job->client != nullptr && job->client->last_interaction_ms > job->last_io_ms) {
      job->last_io_ms = job->client->last_interaction_ms;
    }
    // While the source sends its snapshot, bytes keep flowing; the target only acks.
    const bool sending = job->snapshot != nullptr && job->kind == SlotMigrationJob::Kind::kExport;
    if (!sending && now_ms - job->last_io_ms > timeout_ms) {
      Finish(job, "failed", "Timed out after too long with no interaction");
      continue;
    }
    if (job->kind == SlotMigrationJob::Kind::kExport) {
      if (job->state == "waiting-to-snapshot" && job->client != nullptr) StartSnapshot(job);
      PollSnapshot(job);
      if (!job->active()) continue;
      TryPause(job);
      if (job->state == "failover-granted" && now_ms > job->grant_deadline_ms) {
        Finish(job, "failed", "Unpaused before migration completed");
        continue;
      }
    }
    // Heartbeats: the source's only between snapshot and stream, where the stream is whole
    // commands.
    if (job->client != nullptr && now_ms - job->last_ack_sent_ms >= kAckIntervalMs &&
        (job->kind == SlotMigrationJob::Kind::kImport || job->streaming)) {
      job->last_ack_sent_ms = now_ms;
      SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "ACK"});
    }
  }
  TrimLog();
}

}  // namespace vireo
