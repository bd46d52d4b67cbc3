// Replication, the primary's side: the stream, the backlog, PSYNC, the snapshot transfer,
// acks and WAIT (see replication.h).
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cluster/cluster.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "common/random_hex.h"
#include "persistence/aof_writer.h"
#include "persistence/cow_snapshot.h"
#include "persistence/snapshot.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {
namespace {

// A replica's file transfer sends at most this much per event-loop turn.
constexpr int64_t kBulkBudgetPerTurn = 32 << 20;
// Over TLS the file is copied through the replica's output buffer this much at a time.
constexpr int64_t kTlsBulkChunk = 1 << 20;

// REPLCONF version: digits and dots, as "8.0.1".
bool IsVersionString(std::string_view v) {
  if (v.empty() || v.size() > 32) return false;
  for (char ch : v) {
    if (!(ch >= '0' && ch <= '9') && ch != '.') return false;
  }
  return true;
}

}  // namespace

Replication::Replication(Server& server) : server_(server) {
  replid_ = RandomHex(40);
  replid2_ = std::string(40, '0');
  link_watcher_ = {&Replication::OnLinkEvent, this};
  main_watcher_ = {&Replication::OnMainChannelEvent, this};
}

Replication::~Replication() {
  for (auto& r : replicas_) {
    if (r->fd >= 0) close(r->fd);
  }
  CancelLink();
}

void Replication::NewReplid() { replid_ = RandomHex(40); }

void Replication::ShiftReplid() {
  replid2_ = replid_;
  second_replid_offset_ = offset_ + 1;
  NewReplid();
  LogNotice("Setting secondary replication ID to %s, valid up to offset: %lld. New replication "
            "ID is %s",
            replid2_.c_str(), static_cast<long long>(second_replid_offset_), replid_.c_str());
}

Replication::Replica* Replication::FindReplica(const Client* c) {
  for (auto& r : replicas_) {
    if (r->client == c) return r.get();
  }
  return nullptr;
}

void Replication::EnsureBacklog() {
  if (backlog_on_) return;
  backlog_.Reset(static_cast<size_t>(ConfigValueInt(server_.config(), "repl-backlog-size", 10 << 20)), offset_);
  backlog_on_ = true;
  server_.propagator().AddSink(this);
}

void Replication::AppendToStream(std::string_view bytes) {
  offset_ += static_cast<int64_t>(bytes.size());
  if (backlog_on_) backlog_.Append(bytes);
  for (auto& r : replicas_) {
    switch (r->state) {
      case ReplicaState::kOnline:
        r->client->conn.Output()->append(bytes);
        server_.QueueWrite(r->client);
        server_.EnforceOutputLimit(r->client);
        break;
      case ReplicaState::kWaitBgsaveEnd:
      case ReplicaState::kSendBulk:
      case ReplicaState::kRdbSent:
        // An rdb channel keeps the stream only until its main channel has taken it over.
        if (r->rdb_channel && r->main_attached) break;
        if (r->state == ReplicaState::kRdbSent && !r->rdb_channel) break;
        r->pending.append(bytes);
        if (r->rdb_channel) {
          // A replica whose main channel never comes must not hold the stream forever.
          const int64_t hard =
              server_.config().client_obuf_limits.Of(ClientClass::kReplica).hard;
          if (hard > 0 && static_cast<int64_t>(r->pending.size()) > hard) {
            LogWarning("Client %s closed: the stream kept for its main channel passed the "
                       "replica output buffer limit",
                       r->client->addr.c_str());
            r->pending.clear();
            r->main_attached = true;
            server_.CloseClientAsync(r->client);
          }
        }
        break;
      default:
        break;
    }
  }
}

void Replication::Feed(int db, const std::string_view* args, size_t argc) {
  // A replica passes its master's stream on byte for byte (MasterApplied) instead.
  if (is_replica()) return;
  std::string out;
  if (db != stream_db_ && db >= 0) {
    std::string index = std::to_string(db);
    std::string_view select[] = {"SELECT", index};
    AppendRespCommand(&out, select, 2);
    stream_db_ = db;
  }
  AppendRespCommand(&out, args, argc);
  AppendToStream(out);
}

void Replication::MasterApplied(const char* data, size_t n) {
  AppendToStream(std::string_view(data, n));
  if (ack_after_apply_) {
    ack_after_apply_ = false;
    SendAck();
  }
}

void Replication::Psync(Client* c, std::string_view replid, std::string_view offset_arg,
                        bool sync_command) {
  std::string* out = c->conn.Output();
  if (is_replica() && !link_up()) {
    out->append("-NOMASTERLINK Can't SYNC while not connected with my master\r\n");
    return;
  }
  Replica* r = FindReplica(c);
  if (r == nullptr) {
    replicas_.push_back(std::make_unique<Replica>());
    r = replicas_.back().get();
    r->client = c;
  }
  c->flags |= kClientReplica;
  r->ack_ms = NowMs();
  int64_t from = 0;
  const bool parsed = ParseInt64(offset_arg, &from);
  if (!sync_command && parsed && r->rdb_client_id != 0 &&
      ContinueFromRdbChannel(r, replid, from)) {
    return;
  }
  if (!sync_command && parsed && backlog_on_ &&
      (replid == replid_ || (replid == replid2_ && from <= second_replid_offset_)) &&
      backlog_.Covers(from)) {
    out->append(r->capa_psync2 ? "+CONTINUE " + replid_ + "\r\n" : "+CONTINUE\r\n");
    backlog_.CopyFrom(from, out);
    r->state = ReplicaState::kOnline;
    r->ack_offset = from - 1;
    ++sync_partial_ok_;
    LogNotice("Replica %s asks for synchronization: partial resynchronization accepted, sending "
              "%lld bytes of backlog starting from offset %lld.",
              c->addr.c_str(), static_cast<long long>(offset_ - from + 1),
              static_cast<long long>(from));
    return;
  }
  if (!sync_command && replid != "?") ++sync_partial_err_;
  if (!sync_command && OffersDualChannel(*r)) {
    // The snapshot comes over a second connection, which this one names in its next PSYNC.
    // Not a replica yet: its next PSYNC is judged (CmdPsync ignores a replica's).
    r->state = ReplicaState::kHandshake;
    c->flags &= ~kClientReplica;
    out->append("+DUALCHANNELSYNC\r\n");
    LogNotice("Replica %s is capable of dual channel synchronization, and partial sync isn't "
              "possible. Full sync will continue with dedicated RDB channel.",
              c->addr.c_str());
    return;
  }
  ++sync_full_;
  LogNotice("Replica %s asks for synchronization: full resync requested", c->addr.c_str());
  r->state = ReplicaState::kWaitBgsaveStart;
  r->wait_since_ms = NowMs();
  r->pending.clear();
  r->old_sync = sync_command;
  r->main_attached = false;
  r->snapshot_offset = -1;
  EnsureBacklog();
  StartFullSync();
}

void Replication::StartFullSync() {
  bool waiting = std::any_of(replicas_.begin(), replicas_.end(), [](const auto& r) {
    return r->state == ReplicaState::kWaitBgsaveStart;
  });
  // Another walk (an AOF rewrite, a slot migration) holds the one snapshot: wait for it
  // before anything is promised to the replicas (the cron retries).
  if (!waiting || BackgroundSaveRunning(server_) || CowSnapshot::Busy()) return;
  if (StartDisklessSync()) return;
  std::string err;
  if (!StartBackgroundSave(server_, &err)) return;  // another snapshot walks: the cron retries
  snapshot_for_replicas_ = true;
  // The snapshot holds the data up to offset_; the stream from here waits in pending, and
  // starts with a SELECT.
  for (auto& r : replicas_) {
    if (r->state != ReplicaState::kWaitBgsaveStart) continue;
    r->client->conn.Output()->append(SyncHeader(r.get()));  // SYNC alone gets none
    server_.QueueWrite(r->client);
    r->state = ReplicaState::kWaitBgsaveEnd;
    r->socket_index = -1;
    r->pending.clear();
  }
  stream_db_ = -1;
  AnnounceImports();
  LogNotice("Starting BGSAVE for SYNC with target: disk");
}

void Replication::AnnounceImports() {
  // A replica synced from a snapshot taken mid-import learns of the import from the stream
  // that follows it (the others ignore a repeat).
  if (Cluster* cluster = server_.cluster()) cluster->migrations().AnnounceImports();
}

std::string Replication::SyncHeader(Replica* r) {
  std::string header;
  if (r->rdb_channel) {
    // The db the stream after the snapshot is in; a primary's starts with a SELECT anyway,
    // a chained replica passes its master's on unchanged.
    const int db = is_replica() && master_ != nullptr ? master_->db_index : std::max(stream_db_, 0);
    r->snapshot_offset = offset_;
    header = "$ENDOFF:" + std::to_string(offset_) + " " + replid_ + " " + std::to_string(db) +
             " " + std::to_string(r->client->id) + "\r\n";
  }
  if (!r->old_sync) header += "+FULLRESYNC " + replid_ + " " + std::to_string(offset_) + "\r\n";
  return header;
}

bool Replication::StartDisklessSync() {
  const Config& config = server_.config();
  if (ConfigValue(config, "repl-diskless-sync") != "yes") return false;
  // Every waiting replica must read an EOF-framed stream; otherwise all get a file, as Valkey.
  int64_t oldest = INT64_MAX;
  int64_t count = 0;
  for (auto& r : replicas_) {
    if (r->state != ReplicaState::kWaitBgsaveStart) continue;
    // The snapshot thread writes plain sockets: a TLS replica gets the file instead. An rdb
    // channel asks with SYNC but reads the EOF form.
    if (!r->capa_eof || (r->old_sync && !r->rdb_channel) || r->client->conn.tls() != nullptr) {
      return false;
    }
    oldest = std::min(oldest, r->wait_since_ms);
    ++count;
  }
  // Wait a little for more replicas to share one transfer (the cron comes back).
  const int64_t delay_ms = ConfigValueInt(config, "repl-diskless-sync-delay", 5) * 1000;
  const int64_t max_replicas = ConfigValueInt(config, "repl-diskless-sync-max-replicas", 0);
  if (NowMs() - oldest < delay_ms && !(max_replicas > 0 && count >= max_replicas)) return true;
  std::vector<int> sockets;
  std::vector<Replica*> chosen;
  for (auto& r : replicas_) {
    if (r->state != ReplicaState::kWaitBgsaveStart) continue;
    Client* c = r->client;
    // The snapshot thread writes the socket from here on: earlier replies must be out.
    if (c->conn.PendingOutput() > 0 && c->conn.Flush() != Connection::WriteResult::kDone) {
      continue;  // the next transfer takes it
    }
    // Each socket's own header line(s) go first, from here; the snapshot thread writes the
    // rest. A fresh socket takes a line this short, or the replica is given up.
    c->conn.Output()->append(SyncHeader(r.get()));
    if (c->conn.Flush() != Connection::WriteResult::kDone) {
      server_.CloseClientAsync(c);
      continue;
    }
    int fd = dup(c->conn.fd());
    if (fd < 0) {
      server_.CloseClientAsync(c);
      continue;
    }
    r->socket_index = static_cast<int>(sockets.size());
    sockets.push_back(fd);
    chosen.push_back(r.get());
  }
  if (sockets.empty()) return true;
  const std::string mark = RandomHex(40);
  std::string preamble = "$EOF:" + mark + "\r\n";
  std::string err;
  if (!StartSocketTransfer(server_, std::move(sockets), std::move(preamble), mark, &err)) {
    // Their header is out: they cannot wait for the next transfer.
    for (Replica* r : chosen) {
      r->socket_index = -1;
      server_.CloseClientAsync(r->client);
    }
    return true;
  }
  // The snapshot holds the data up to offset_; the stream from here waits in pending.
  stream_db_ = -1;
  for (Replica* r : chosen) {
    r->state = ReplicaState::kWaitBgsaveEnd;
    r->pending.clear();
  }
  AnnounceImports();
  LogNotice("Starting BGSAVE for SYNC with target: replicas sockets");
  return true;
}

void Replication::SocketTransferDone(bool ok, const std::vector<bool>& delivered) {
  for (auto& r : replicas_) {
    if (r->state != ReplicaState::kWaitBgsaveEnd || r->socket_index < 0) continue;
    const size_t i = static_cast<size_t>(r->socket_index);
    r->socket_index = -1;
    Client* c = r->client;
    if (!ok || i >= delivered.size() || !delivered[i]) {
      LogWarning("Diskless transfer to replica %s failed", c->addr.c_str());
      server_.CloseClientAsync(c);
      continue;
    }
    BecomeOnline(r.get());
  }
  StartFullSync();  // replicas that arrived meanwhile
}

void Replication::BecomeOnline(Replica* r) {
  Client* c = r->client;
  if (r->rdb_channel) {
    // The stream goes over the main channel; until that one claims it, pending keeps it.
    r->state = ReplicaState::kRdbSent;
    LogNotice("Synchronization with replica %s succeeded (rdb channel)", c->addr.c_str());
    return;
  }
  c->conn.Output()->append(r->pending);
  r->pending.clear();
  r->pending.shrink_to_fit();
  r->state = ReplicaState::kOnline;
  r->ack_ms = NowMs();
  LogNotice("Synchronization with replica %s succeeded", c->addr.c_str());
  server_.QueueWrite(c);
}

void Replication::BackgroundSaveDone(bool ok, const std::string& path) {
  if (!snapshot_for_replicas_) {
    StartFullSync();
    return;
  }
  snapshot_for_replicas_ = false;
  for (auto& r : replicas_) {
    if (r->state != ReplicaState::kWaitBgsaveEnd) continue;
    int fd = ok ? open(path.c_str(), O_RDONLY | O_CLOEXEC) : -1;
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
      LogWarning("SYNC failed. BGSAVE child returned an error");
      if (fd >= 0) close(fd);
      server_.CloseClientAsync(r->client);
      continue;
    }
    r->fd = fd;
    r->file_size = sb.st_size;
    r->file_sent = 0;
    r->state = ReplicaState::kSendBulk;
    r->client->conn.Output()->append("$" + std::to_string(r->file_size) + "\r\n");
    server_.QueueWrite(r->client);
  }
  StartFullSync();  // replicas that arrived while it was written
}

bool Replication::transferring() const {
  return std::any_of(replicas_.begin(), replicas_.end(),
                     [](const auto& r) {
                       return r->state == ReplicaState::kSendBulk && !r->socket_full;
                     });
}

void Replication::Pump() {
  for (auto& r : replicas_) {
    if (r->state != ReplicaState::kSendBulk) continue;
    Client* c = r->client;
    // The $<len> header (and anything queued before it) goes out first; then the file moves
    // from the page cache to the socket with sendfile, no copy through user space. A full
    // socket leaves the rest for when it drains: the loop sleeps until it is writable (spinning
    // would take the CPU from a replica on the same core).
    r->socket_full = false;
    if (c->conn.PendingOutput() > 0 && c->conn.Flush() != Connection::WriteResult::kDone) {
      r->socket_full = true;
      server_.QueueWrite(c);
      continue;
    }
    int64_t budget = kBulkBudgetPerTurn;
    // TLS: no sendfile; the file goes through the output buffer and the session, a chunk per
    // turn, the next once the socket took this one.
    if (c->conn.tls() != nullptr && r->file_sent < r->file_size) {
      const size_t want = static_cast<size_t>(
          std::min<int64_t>(kTlsBulkChunk, r->file_size - r->file_sent));
      std::string* out = c->conn.Output();
      const size_t at = out->size();
      out->resize(at + want);
      ssize_t n = pread(r->fd, out->data() + at, want, static_cast<off_t>(r->file_sent));
      if (n <= 0) {
        out->resize(at);
        LogWarning("Read error sending DB to replica: %s", n < 0 ? strerror(errno) : "EOF");
        server_.CloseClientAsync(c);
        continue;
      }
      out->resize(at + static_cast<size_t>(n));
      r->file_sent += n;
      budget = 0;
      server_.QueueWrite(c);
    }
    while (budget > 0 && r->file_sent < r->file_size) {
      off_t off = static_cast<off_t>(r->file_sent);
      const size_t want = static_cast<size_t>(std::min<int64_t>(budget, r->file_size - r->file_sent));
      ssize_t n = sendfile(c->conn.fd(), r->fd, &off, want);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        r->socket_full = true;
        server_.WatchWritable(c);
        break;
      }
      if (n <= 0) {
        LogWarning("Write error sending DB to replica: %s", n < 0 ? strerror(errno) : "EOF");
        server_.CloseClientAsync(c);
        break;
      }
      r->file_sent += n;
      budget -= n;
    }
    if (r->file_sent == r->file_size) {
      close(r->fd);
      r->fd = -1;
      BecomeOnline(r.get());
    }
  }
}

bool Replication::Replconf(Client* c, const std::vector<std::string_view>& args,
                           bool* reply_ok, std::string* error) {
  *reply_ok = true;
  if ((args.size() - 1) % 2 != 0) {
    *error = "ERR syntax error";
    return false;
  }
  bool acked = false;
  Replica* r = FindReplica(c);
  auto record = [&]() {
    if (r == nullptr) {
      replicas_.push_back(std::make_unique<Replica>());
      r = replicas_.back().get();
      r->client = c;
      r->state = ReplicaState::kHandshake;
    }
    return r;
  };
  for (size_t i = 1; i + 1 < args.size(); i += 2) {
    std::string_view opt = args[i];
    std::string_view val = args[i + 1];
    if (EqualsIgnoreCase(opt, "listening-port")) {
      int64_t port;
      if (!ParseInt64(val, &port)) {
        *error = "ERR value is not an integer or out of range";
        return false;
      }
      record()->listening_port = port;
    } else if (EqualsIgnoreCase(opt, "ip-address")) {
      record()->ip = std::string(val);
    } else if (EqualsIgnoreCase(opt, "capa")) {
      if (EqualsIgnoreCase(val, "eof")) record()->capa_eof = true;
      if (EqualsIgnoreCase(val, "psync2")) record()->capa_psync2 = true;
      if (EqualsIgnoreCase(val, "dual-channel")) record()->capa_dual_channel = true;
    } else if (EqualsIgnoreCase(opt, "ack") || EqualsIgnoreCase(opt, "fack")) {
      // Acks come from replicas only and are never answered.
      *reply_ok = false;
      int64_t off;
      if (r == nullptr || !ParseInt64(val, &off)) continue;
      if (EqualsIgnoreCase(opt, "fack")) {
        r->fack_offset = std::max(r->fack_offset, off);
      } else {
        r->ack_offset = std::max(r->ack_offset, off);
        r->ack_ms = NowMs();
      }
      acked = true;  // ACK <off> FACK <aofoff>: the waiters are checked once, after both
    } else if (EqualsIgnoreCase(opt, "getack")) {
      *reply_ok = false;
      // After this command's own bytes count (MasterApplied): an ack that covers everything
      // received lets the primary's WAIT, FAILOVER or shutdown finish without another round.
      if (is_master_client(c)) ack_after_apply_ = true;
    } else if (EqualsIgnoreCase(opt, "rdb-only") || EqualsIgnoreCase(opt, "rdb-channel")) {
      int64_t flag;
      if (!ParseInt64(val, &flag)) {
        *error = "ERR value is not an integer or out of range";
        return false;
      }
      if (flag < 0 || flag > 1) {
        *error = "ERR value is out of range, value must between 0 and 1";
        return false;
      }
      // rdb-only needs nothing here: an rdb channel never gets the stream after its snapshot.
      if (EqualsIgnoreCase(opt, "rdb-channel")) record()->rdb_channel = flag == 1;
    } else if (EqualsIgnoreCase(opt, "rdb-filter-only")) {
      // Accepted; this server always sends the whole stream.
    } else if (EqualsIgnoreCase(opt, "set-rdb-client-id")) {
      int64_t id;
      if (!ParseInt64(val, &id)) {
        *error = "ERR value is not an integer or out of range";
        return false;
      }
      if (id <= 0 || FindRdbChannel(static_cast<uint64_t>(id)) == nullptr) {
        *error = "ERR Unrecognized RDB client id " + std::to_string(id);
        return false;
      }
      record()->rdb_client_id = static_cast<uint64_t>(id);
    } else if (EqualsIgnoreCase(opt, "version")) {
      if (!IsVersionString(val)) {
        *error = "ERR Unrecognized version format: " + std::string(val);
        return false;
      }
    } else {
      *error = "ERR Unrecognized REPLCONF option: " + std::string(opt);
      return false;
    }
  }
  if (acked) {
    WakeWaiters();
    FailoverCheck();
    server_.ShutdownCheck();
  }
  return true;
}

int Replication::ReplicaCount() const {
  return static_cast<int>(std::count_if(replicas_.begin(), replicas_.end(), [](const auto& r) {
    return r->state == ReplicaState::kOnline;
  }));
}

int Replication::LaggingReplicas() const {
  return static_cast<int>(std::count_if(replicas_.begin(), replicas_.end(), [&](const auto& r) {
    return r->state != ReplicaState::kHandshake && !r->rdb_channel && r->ack_offset < offset_;
  }));
}

int Replication::AckedReplicas(int64_t offset) const {
  return static_cast<int>(std::count_if(replicas_.begin(), replicas_.end(), [&](const auto& r) {
    return r->state == ReplicaState::kOnline && r->ack_offset >= offset;
  }));
}

void Replication::RequestAcks() { acks_requested_ = true; }

void Replication::SendAckRequest() {
  acks_requested_ = false;
  if (ReplicaCount() == 0) return;
  AppendToStream("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n");
}

void Replication::AddWaiter(Client* c, int64_t offset, int64_t numreplicas) {
  waiters_.push_back({c, offset, numreplicas});
}

void Replication::RemoveWaiter(Client* c) {
  waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(),
                                [c](const Waiter& w) { return w.client == c; }),
                 waiters_.end());
}

int Replication::AofAckedReplicas(int64_t offset) const {
  return static_cast<int>(std::count_if(replicas_.begin(), replicas_.end(), [&](const auto& r) {
    return r->state == ReplicaState::kOnline && r->fack_offset >= offset;
  }));
}

void Replication::AddAofWaiter(Client* c, int64_t offset, int64_t numlocal,
                               int64_t numreplicas) {
  waiters_.push_back({c, offset, numreplicas, numlocal});
}

std::pair<int, int> Replication::AofWaitCounts(int64_t offset) const {
  const Aof* aof = server_.aof();
  const int local = aof != nullptr && aof->fsynced_reploff() >= offset ? 1 : 0;
  return {local, AofAckedReplicas(offset)};
}

void Replication::LocalAofFsynced() {
  if (is_replica()) {
    SendAck();  // the primary's WAITAOF counts this replica's FACK
    return;
  }
  if (!waiters_.empty()) WakeWaiters();
}

void Replication::WakeWaiters() {
  std::vector<Client*> ready;
  for (const Waiter& w : waiters_) {
    if (w.numlocal < 0) {
      if (AckedReplicas(w.offset) >= w.numreplicas) ready.push_back(w.client);
      continue;
    }
    auto [local, replicas] = AofWaitCounts(w.offset);
    if (local >= w.numlocal && replicas >= w.numreplicas) ready.push_back(w.client);
  }
  // UnblockClient answers with the count (the wait's "timeout" reply) and removes the waiter.
  for (Client* c : ready) server_.UnblockClient(c, false);
}

int64_t Replication::WaitOffset(const Client* c) const {
  for (const Waiter& w : waiters_) {
    if (w.client == c) return w.offset;
  }
  return offset_;
}

void Replication::DropReplica(Client* c) {
  for (auto it = replicas_.begin(); it != replicas_.end(); ++it) {
    if ((*it)->client != c) continue;
    if ((*it)->fd >= 0) close((*it)->fd);
    if ((*it)->state == ReplicaState::kOnline) {
      LogNotice("Connection with replica %s lost.", c->addr.c_str());
    }
    // An rdb channel's replica has loaded (or given up): its main channel's acks start now.
    if ((*it)->rdb_channel) {
      for (auto& m : replicas_) {
        if (m->rdb_client_id == c->id) m->ack_ms = NowMs();
      }
    }
    replicas_.erase(it);
    break;
  }
  if (replicas_.empty()) no_replicas_since_ms_ = NowMs();
}

void Replication::ClientClosed(Client* c) {
  RemoveWaiter(c);
  if (c == master_) {
    master_ = nullptr;
    link_ = LinkState::kConnect;
    link_down_since_ms_ = NowMs();
    LogNotice("Connection with master lost.");
    return;
  }
  if (c->flags & kClientReplica || FindReplica(c) != nullptr) DropReplica(c);
}

void Replication::DisconnectReplicas() {
  // Those still in the handshake follow nothing yet: their PSYNC is judged when it comes
  // (a FAILOVER target keeps the old primary's connection this way).
  for (auto& r : replicas_) {
    if (r->state != ReplicaState::kHandshake) server_.CloseClientAsync(r->client);
  }
}

void Replication::PrimaryCron(int64_t now) {
  // Pings keep the replicas' timeouts from firing on an idle stream.
  const int64_t period = ConfigValueInt(server_.config(), "repl-ping-replica-period", 10) * 1000;
  // Not during a failover: the stream must stay still for a replica to catch up with it.
  if (!is_replica() && !replicas_.empty() && now - last_ping_ms_ >= period &&
      !server_.paused_for(Server::PausePurpose::kFailover)) {
    last_ping_ms_ = now;
    if (ReplicaCount() > 0) AppendToStream("*1\r\n$4\r\nPING\r\n");
  }
  // Whole seconds, as Valkey counts them: acks come every second, so repl-timeout 1 allows
  // up to two seconds of silence.
  const int64_t timeout_s = ConfigValueInt(server_.config(), "repl-timeout", 60);
  for (auto& r : replicas_) {
    if (r->state == ReplicaState::kOnline && r->capa_psync2 && !InBackgroundTransfer(*r) &&
        now / 1000 - r->ack_ms / 1000 > timeout_s) {
      LogWarning("Disconnecting timedout replica (streaming sync): %s", r->client->addr.c_str());
      server_.CloseClientAsync(r->client);
    }
  }
  StartFullSync();
  // Without replicas for repl-backlog-ttl seconds, a primary frees the backlog; its ID
  // changes so nobody resyncs against history it no longer has.
  const int64_t ttl = ConfigValueInt(server_.config(), "repl-backlog-ttl", 3600);
  if (backlog_on_ && !is_replica() && replicas_.empty() && ttl > 0 &&
      now - no_replicas_since_ms_ > ttl * 1000) {
    backlog_on_ = false;
    backlog_.Reset(1, offset_);
    server_.propagator().RemoveSink(this);
    NewReplid();
    replid2_ = std::string(40, '0');
    second_replid_offset_ = -1;
    LogNotice("Replication backlog freed after %lld seconds without connected replicas.",
              static_cast<long long>(ttl));
  }
  const int64_t backlog_size = ConfigValueInt(server_.config(), "repl-backlog-size", 10 << 20);
  if (backlog_on_ && static_cast<size_t>(backlog_size) != backlog_.capacity()) {
    backlog_.Resize(static_cast<size_t>(backlog_size));
  }
  if (!waiters_.empty()) WakeWaiters();
  FailoverCheck();
}

int Replication::GoodReplicas() const {
  const int64_t lag = ConfigValueInt(server_.config(), "min-replicas-max-lag", 10) * 1000;
  const int64_t now = NowMs();
  return static_cast<int>(std::count_if(replicas_.begin(), replicas_.end(), [&](const auto& r) {
    return r->state == ReplicaState::kOnline && now - r->ack_ms <= lag;
  }));
}

}  // namespace vireo
