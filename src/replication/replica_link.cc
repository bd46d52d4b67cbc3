// Replication, the replica's side: REPLICAOF, the link to the master (connect, handshake,
// snapshot transfer), the master client's offset and acks (see replication.h).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "net/socket.h"
#include "net/tls_connection.h"
#include "net/tls_context.h"
#include "persistence/aof_writer.h"
#include "persistence/snapshot.h"
#include "protocol/command_encoder.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {

namespace {


constexpr size_t kEofMarkLen = 40;

}  // namespace

void Replication::Start() {
  RefreshRestrictions();
  auto it = server_.config().generic.find("replicaof");
  if (it == server_.config().generic.end() || it->second.empty()) return;
  size_t space = it->second.rfind(' ');
  int64_t port;
  if (space == std::string::npos ||
      !ParseInt64(std::string_view(it->second).substr(space + 1), &port)) {
    LogWarning("Ignoring replicaof '%s': expected host and port", it->second.c_str());
    return;
  }
  // The file loaded at start-up came from this history: PSYNC may continue from it.
  const SnapshotState& snap = server_.snapshot();
  if (snap.loaded_repl_id.size() == 40 && snap.loaded_repl_offset >= 0) {
    replid_ = snap.loaded_repl_id;
    offset_ = snap.loaded_repl_offset;
  }
  std::string reply;
  ReplicaOf(it->second.substr(0, space), port, &reply);
}

std::string Replication::ReplicaOf(const std::string& host, int64_t port, std::string* reply) {
  if (host.empty()) {  // NO ONE
    PromoteToPrimary("user request from 'replicaof'");
    *reply = "+OK\r\n";
    return "";
  }
  if (is_replica() && host == master_host_ && port == master_port_) {
    *reply = "+OK Already connected to specified master\r\n";
    return "";
  }
  CancelLink();
  if (master_ != nullptr) {
    Client* m = master_;
    master_ = nullptr;
    server_.CloseClientAsync(m);
  }
  master_host_ = host;
  master_port_ = port;
  server_.UnblockAllForReplicaOf();
  server_.ApplyOomScoreAdj();
  link_ = LinkState::kConnect;
  link_down_since_ms_ = NowMs();
  server_.RefreshExpiryMode();
  RefreshRestrictions();
  LogNotice("Connecting to MASTER %s:%lld", host.c_str(), static_cast<long long>(port));
  // Sooner than the next cron: the handshake starts now.
  StartConnect();
  *reply = "+OK\r\n";
  return "";
}

void Replication::PromoteToPrimary(const std::string& why) {
  if (!is_replica()) return;
  CancelLink();
  if (master_ != nullptr) {
    Client* m = master_;
    master_ = nullptr;
    server_.CloseClientAsync(m);
  }
  master_host_.clear();
  master_port_ = 0;
  link_ = LinkState::kNone;
  // Replicas of this server may continue (PSYNC with the old ID) from the new one.
  ShiftReplid();
  DisconnectReplicas();
  server_.RefreshExpiryMode();
  RefreshRestrictions();
  server_.ApplyOomScoreAdj();
  LogNotice("MASTER MODE enabled (%s)", why.c_str());
}

void Replication::CancelLink() {
  delete link_tls_;
  link_tls_ = nullptr;
  if (link_fd_ >= 0) {
    server_.loop().Unwatch(link_fd_);
    close(link_fd_);
    link_fd_ = -1;
  }
  if (transfer_fd_ >= 0) {
    close(transfer_fd_);
    transfer_fd_ = -1;
    if (!transfer_path_.empty()) unlink(transfer_path_.c_str());
  }
  link_in_.clear();
  sync_in_progress_ = false;
  CloseMainChannel();
  master_first_db_ = 0;
}

void Replication::LinkFailed(const std::string& why) {
  LogWarning("%s", why.c_str());
  CancelLink();
  if (is_replica()) link_ = LinkState::kConnect;  // the cron retries
}

void Replication::StartConnect() {
  std::string err;
  int fd = ConnectTcp(master_host_, static_cast<int>(master_port_), &err);
  if (fd < 0) {
    LogWarning("Unable to connect to MASTER: %s", err.c_str());
    link_ = LinkState::kConnect;
    return;
  }
  link_fd_ = fd;
  link_ = LinkState::kConnecting;
  link_last_io_ms_ = NowMs();
  server_.loop().Watch(fd, EventLoop::kWritable, &link_watcher_);
  LogNotice("MASTER <-> REPLICA sync started");
}

void Replication::OnLinkEvent(void* obj, uint32_t events) {
  static_cast<Replication*>(obj)->LinkEvent(events);
}

bool Replication::LinkSend(const std::string& bytes) {
  // Handshake commands are a few dozen bytes: a fresh socket's buffer always takes them.
  ssize_t n = link_tls_ != nullptr ? link_tls_->Send(bytes.data(), bytes.size())
                                  : send(link_fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (n != static_cast<ssize_t>(bytes.size())) {
    LinkFailed(std::string("Error writing to MASTER: ") + (n < 0 ? strerror(errno) : "short write"));
    return false;
  }
  return true;
}

ssize_t Replication::LinkRead(char* buf, size_t n) {
  return link_tls_ == nullptr ? read(link_fd_, buf, n) : link_tls_->Recv(buf, n);
}

bool Replication::LinkTlsHandshake() {
  const TlsSession::Status s = link_tls_->Handshake();
  if (s == TlsSession::Status::kOk) return true;
  if (s == TlsSession::Status::kWantRead || s == TlsSession::Status::kWantWrite) {
    server_.loop().Watch(link_fd_,
                         s == TlsSession::Status::kWantRead ? EventLoop::kReadable
                                                            : EventLoop::kWritable,
                         &link_watcher_);
    return false;
  }
  LinkFailed("Failed to complete the TLS handshake with MASTER: " +
             (s == TlsSession::Status::kClosed ? std::string("connection closed")
                                               : link_tls_->error()));
  return false;
}

void Replication::LinkEvent(uint32_t events) {
  link_last_io_ms_ = NowMs();
  if (link_ == LinkState::kConnecting) {
    if (link_tls_ == nullptr) {
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(link_fd_, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0 || !(events & EventLoop::kWritable)) {
        LinkFailed(std::string("Error condition on socket for SYNC: ") + strerror(err));
        return;
      }
      LogNotice("Non blocking connect for SYNC fired the event.");
      if (ConfigValue(server_.config(), "tls-replication") == "yes") {
        // The handshake runs over the following events, before the PING.
        TlsContext* tls = server_.tls();
        link_tls_ = tls == nullptr ? nullptr : TlsSession::Connect(tls->client_ctx(), link_fd_);
        if (link_tls_ == nullptr) {
          LinkFailed("Unable to connect to MASTER over TLS: TLS is not configured");
          return;
        }
      }
    }
    if (link_tls_ != nullptr && !LinkTlsHandshake()) return;
    server_.loop().Watch(link_fd_, EventLoop::kReadable, &link_watcher_);
    link_ = LinkState::kHandshake;
    handshake_step_ = 0;
    if (dual_sync_) {  // the second connection of a dual-channel sync
      RdbChannelHandshake();
      return;
    }
    LinkSend(RespCommand({"PING"}));
    return;
  }
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = LinkRead(buf, sizeof(buf));
    if (n > 0) {
      link_in_.append(buf, static_cast<size_t>(n));
      // During the transfer each read goes to disk at once: the buffer stays small and the
      // file grows while the master is still sending.
      if (link_ == LinkState::kTransfer) {
        if (!ReadTransfer() || link_ != LinkState::kTransfer) return;
      }
      // TLS reads end at a record: only EAGAIN says the socket is drained.
      if (n < static_cast<ssize_t>(sizeof(buf)) && link_tls_ == nullptr) break;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    LinkFailed("Master closed the connection during the replication handshake");
    return;
  }
  if (link_ == LinkState::kHandshake) HandshakeStep();
  if (link_ == LinkState::kTransfer) ReadTransfer();
}

bool Replication::SendListeningPort() {
  // Over TLS the primary is told the TLS port, the one its replicas list shows.
  const bool tls = ConfigValue(server_.config(), "tls-replication") == "yes";
  std::string port = tls ? ConfigValue(server_.config(), "tls-port")
                         : std::to_string(server_.tcp_port());
  const auto& generic = server_.config().generic;
  auto announce = generic.find("replica-announce-port");
  if (announce != generic.end() && announce->second != "0") port = announce->second;
  return LinkSend(RespCommand({"REPLCONF", "listening-port", port}));
}

void Replication::HandshakeStep() {
  if (dual_sync_) {
    RdbChannelHandshake();
    return;
  }
  for (;;) {
    size_t eol = link_in_.find('\n');
    if (eol == std::string::npos) return;
    std::string line = link_in_.substr(0, eol);
    link_in_.erase(0, eol + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;  // keepalive newlines
    const bool error = line[0] == '-';
    switch (handshake_step_) {
      case 0: {  // PING
        // Without AUTH yet, a protected master answers NOAUTH: that still proves it alive.
        if (error && line.rfind("-NOAUTH", 0) != 0 && line.rfind("-NOPERM", 0) != 0 &&
            line.rfind("-ERR operation not permitted", 0) != 0) {
          LinkFailed("Error reply to PING from master: '" + line + "'");
          return;
        }
        LogNotice("Master replied to PING, replication can continue...");
        bool sent_auth;
        if (!SendPrimaryAuth(&sent_auth)) return;
        if (sent_auth) {
          handshake_step_ = 1;
          break;
        }
        if (!SendListeningPort()) return;
        handshake_step_ = 2;
        break;
      }
      case 1:  // AUTH
        if (error) {
          LinkFailed("Unable to AUTH to MASTER: " + line);
          return;
        }
        if (!SendListeningPort()) return;
        handshake_step_ = 2;
        break;
      case 2:  // listening-port: errors are not fatal
        // A primary that does not know dual-channel ignores the capa and answers +FULLRESYNC.
        dual_channel_asked_ = WantsDualChannel();
        if (!LinkSend(dual_channel_asked_
                          ? RespCommand({"REPLCONF", "capa", "eof", "capa", "psync2", "capa",
                                         "dual-channel"})
                          : RespCommand({"REPLCONF", "capa", "eof", "capa", "psync2"}))) {
          return;
        }
        handshake_step_ = 3;
        break;
      case 3: {  // capa
        // This server's own ID and offset: a master that knows them (our old primary, or a
        // sibling promoted from the same history) continues instead of sending everything.
        // A primary handing over (FAILOVER) asks the target to take its place.
        std::string from = std::to_string(offset_ + 1);
        if (!LinkSend(failover_ == FailoverState::kInProgress
                          ? RespCommand({"PSYNC", replid_, from, "FAILOVER"})
                          : RespCommand({"PSYNC", replid_, from}))) {
          return;
        }
        LogNotice("Trying a partial resynchronization (request %s:%s).", replid_.c_str(),
                  from.c_str());
        handshake_step_ = 4;
        break;
      }
      case 4: {  // PSYNC
        if (line.rfind("+FULLRESYNC", 0) == 0) {
          char id[64] = {0};
          long long off = 0;
          if (sscanf(line.c_str(), "+FULLRESYNC %63s %lld", id, &off) != 2 ||
              strlen(id) != 40) {
            LinkFailed("Master replied with wrong +FULLRESYNC syntax.");
            return;
          }
          psync_replid_ = id;
          psync_offset_ = off;
          FailoverPsyncAnswered(true);
          LogNotice("Full resync from master: %s:%lld", id, off);
          link_ = LinkState::kTransfer;
          transfer_size_ = -2;  // header not read yet
          transfer_read_ = 0;
          sync_in_progress_ = true;
          return;  // the caller goes on with ReadTransfer
        }
        if (line == "+DUALCHANNELSYNC" && dual_channel_asked_) {
          StartRdbChannel();
          return;
        }
        if (line.rfind("+CONTINUE", 0) == 0) {
          std::string id = line.size() > 10 ? line.substr(10) : replid_;
          if (id.size() == 40 && id != replid_) {
            replid2_ = replid_;
            second_replid_offset_ = offset_ + 1;
            replid_ = id;
            DisconnectReplicas();  // they learn the new ID when they come back
          }
          LogNotice("Successful partial resynchronization with master.");
          FailoverPsyncAnswered(true);
          BecomeConnected();
          return;
        }
        if (failover_ == FailoverState::kInProgress) {
          LogWarning("Unexpected reply to PSYNC from master: %s", line.c_str());
          FailoverPsyncAnswered(false);  // back to primary: the link is gone
          return;
        }
        LinkFailed("Unexpected reply to PSYNC from master: " + line);
        return;
      }
      default:
        return;
    }
  }
}

bool Replication::ReadTransfer() {
  if (transfer_size_ == -2) {
    // Newlines keep the link alive while the master prepares the snapshot.
    size_t skip = 0;
    while (skip < link_in_.size() && link_in_[skip] == '\n') ++skip;
    link_in_.erase(0, skip);
    size_t eol = link_in_.find("\r\n");
    if (eol == std::string::npos) return true;
    std::string header = link_in_.substr(0, eol);
    link_in_.erase(0, eol + 2);
    if (header.empty() || header[0] != '$') {
      LinkFailed("Bad protocol from MASTER, the first byte is not '$' (we received '" + header +
                 "'), are you sure the host and port are right?");
      return false;
    }
    // repl-diskless-load: the transfer is kept in memory, never in a file, and loaded from
    // there (swapdb keeps the old dataset until the new one has loaded).
    const std::string load_mode = ConfigValue(server_.config(), "repl-diskless-load");
    bool empty = true;
    for (int i = 0; i < server_.db_count(); ++i) empty = empty && server_.db(i)->Size() == 0;
    const bool to_memory = load_mode == "swapdb" || (load_mode == "on-empty-db" && empty);
    diskless_load_keep_old_ = load_mode == "swapdb";
    const char* dest = to_memory ? "memory" : "disk";
    if (header.rfind("$EOF:", 0) == 0 && header.size() == 5 + kEofMarkLen) {
      eof_mark_ = header.substr(5);
      transfer_size_ = -1;
      LogNotice("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to %s",
                dest);
    } else {
      int64_t size;
      if (!ParseInt64(std::string_view(header).substr(1), &size) || size < 0) {
        LinkFailed("Bad transfer size from MASTER: " + header);
        return false;
      }
      transfer_size_ = size;
      LogNotice("MASTER <-> REPLICA sync: receiving %lld bytes from master to %s",
                static_cast<long long>(size), dest);
    }
    if (to_memory) {
      transfer_path_.clear();
      transfer_fd_ = memfd_create("vireo-full-sync", MFD_CLOEXEC);
    } else {
      transfer_path_ = "temp-" + std::to_string(NowMs() / 1000) + "." +
                       std::to_string(getpid()) + ".rdb";
      transfer_fd_ =
          open(transfer_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    }
    if (transfer_fd_ < 0) {
      LinkFailed("Opening the temp file needed for MASTER <-> REPLICA synchronization: " +
                 std::string(strerror(errno)));
      return false;
    }
  }
  size_t usable = link_in_.size();
  bool done = false;
  if (transfer_size_ >= 0) {
    usable = static_cast<size_t>(
        std::min<int64_t>(static_cast<int64_t>(usable), transfer_size_ - transfer_read_));
    done = transfer_read_ + static_cast<int64_t>(usable) == transfer_size_;
  } else {
    // The last 40 bytes may be the mark: held back until more arrives or they match.
    if (link_in_.size() >= kEofMarkLen &&
        link_in_.compare(link_in_.size() - kEofMarkLen, kEofMarkLen, eof_mark_) == 0) {
      usable = link_in_.size() - kEofMarkLen;
      done = true;
    } else {
      usable = link_in_.size() > kEofMarkLen ? link_in_.size() - kEofMarkLen : 0;
    }
  }
  size_t written = 0;
  while (written < usable) {
    ssize_t n = write(transfer_fd_, link_in_.data() + written, usable - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      LinkFailed("Write error or short write writing to the DB dump file needed for MASTER <-> "
                 "REPLICA synchronization: " + std::string(strerror(errno)));
      return false;
    }
    written += static_cast<size_t>(n);
  }
  transfer_read_ += static_cast<int64_t>(usable);
  link_in_.erase(0, usable);
  if (done) {
    if (transfer_size_ < 0) link_in_.erase(0, kEofMarkLen);
    FinishTransfer();
  }
  return true;
}

void Replication::FinishTransfer() {
  if (transfer_path_.empty()) {
    // In memory: loaded through the descriptor's /proc name, no dump file is written.
    const int fd = transfer_fd_;
    transfer_fd_ = -1;
    const bool loaded = LoadTransfer("/proc/self/fd/" + std::to_string(fd),
                                     diskless_load_keep_old_);
    close(fd);
    if (loaded) CompleteSync();
    return;
  }
  if (fsync(transfer_fd_) != 0 || close(transfer_fd_) != 0) {
    transfer_fd_ = -1;
    LinkFailed("Failed trying to sync the temp DB to disk in MASTER <-> REPLICA synchronization: " +
               std::string(strerror(errno)));
    return;
  }
  transfer_fd_ = -1;
  const std::string& target = server_.config().dbfilename;
  if (rename(transfer_path_.c_str(), target.c_str()) != 0) {
    LinkFailed("Failed trying to rename the temp DB into " + target +
               " in MASTER <-> REPLICA synchronization: " + strerror(errno));
    unlink(transfer_path_.c_str());
    return;
  }
  if (LoadTransfer(target, false)) CompleteSync();
}

bool Replication::LoadTransfer(const std::string& path, bool keep_old_on_failure) {
  // Replicas of this server followed the old history: they must sync again.
  DisconnectReplicas();
  // Clients are served while the file loads; the master's bytes wait in the socket.
  server_.loop().Unwatch(link_fd_);
  if (!keep_old_on_failure) LogNotice("MASTER <-> REPLICA sync: Flushing old data");
  LogNotice("MASTER <-> REPLICA sync: Loading DB in memory");
  std::string err;
  // The loop is served during the load: a dual-channel main channel keeps buffering, and its
  // failure waits for the load's end.
  loading_ = true;
  const bool loaded = ReplaceDatasetFromFile(server_, path, &err, keep_old_on_failure);
  loading_ = false;
  if (loaded && !main_failed_.empty()) {
    LinkFailed(main_failed_);
    return false;
  }
  if (!loaded) {
    LinkFailed("Failed trying to load the MASTER synchronization DB from " +
               std::string(transfer_path_.empty() ? "memory" : "disk") + ": " + err);
    return false;
  }
  return true;
}

void Replication::CompleteSync() {
  if (dual_sync_) {
    // Dual-channel: the main channel's PSYNC must have been answered too.
    if (main_state_ != MainChannelState::kBuffering) {
      rdb_loaded_ = true;
      return;
    }
    FinishDualSync();
  }
  replid_ = psync_replid_;
  offset_ = psync_offset_;
  replid2_ = std::string(40, '0');
  second_replid_offset_ = -1;
  stream_db_ = -1;
  if (backlog_on_) {
    backlog_.Reset(backlog_.capacity(), offset_);
  }
  sync_in_progress_ = false;
  LogNotice("MASTER <-> REPLICA sync: Finished with success");
  // The AOF describes the old dataset: it starts over from a rewrite of the new one.
  Aof* aof = server_.aof();
  if (aof != nullptr && aof->enabled()) {
    aof->Disable();
    std::string aof_error;
    if (!aof->Enable(&aof_error)) {
      LogWarning("Failed enabling the AOF after successful master synchronization: %s",
                 aof_error.c_str());
    }
  }
  BecomeConnected();
}

void Replication::BecomeConnected() {
  // The link's socket becomes the master client; bytes already read are its first input.
  const int fd = link_fd_;
  server_.loop().Unwatch(fd);
  link_fd_ = -1;
  std::string leftover;
  leftover.swap(link_in_);
  link_ = LinkState::kConnected;
  EnsureBacklog();  // so replicas of this one, now or after a promotion, can continue
  master_last_io_ms_ = NowMs();
  master_ = server_.AdoptConnection(fd, kClientMaster, link_tls_);
  link_tls_ = nullptr;  // the master client's connection owns it now
  master_->addr = master_host_ + ":" + std::to_string(master_port_);
  // After a dual-channel sync the stream goes on in the db $ENDOFF named.
  master_->db_index = master_first_db_;
  master_first_db_ = 0;
  // The master waits for the first ack before streaming (a diskless transfer's end).
  SendAck();
  server_.FeedClientInput(master_, leftover);
}

std::string PrimaryAuthCommand(const Config& config) {
  const auto& generic = config.generic;
  auto user = generic.find("primaryuser");  // alias masteruser
  auto pass = generic.find("primaryauth");  // alias masterauth
  if (pass == generic.end() || pass->second.empty()) return "";
  const bool has_user = user != generic.end() && !user->second.empty();
  return has_user ? RespCommand({"AUTH", user->second, pass->second})
                  : RespCommand({"AUTH", pass->second});
}

bool Replication::SendPrimaryAuth(bool* sent) {
  const std::string auth = PrimaryAuthCommand(server_.config());
  *sent = !auth.empty();
  return !*sent || LinkSend(auth);
}

void Replication::SendAck() {
  if (master_ == nullptr) return;
  // With the AOF on, FACK says how far it is fsynced (the primary's WAITAOF), as Valkey.
  const Aof* aof = server_.aof();
  if (aof != nullptr && aof->fsynced_reploff() >= 0) {
    master_->conn.Output()->append(RespCommand({"REPLCONF", "ACK", std::to_string(offset_),
                                                "FACK",
                                                std::to_string(aof->fsynced_reploff())}));
  } else {
    master_->conn.Output()->append(
        RespCommand({"REPLCONF", "ACK", std::to_string(offset_)}));
  }
  server_.QueueWrite(master_);
  last_ack_ms_ = NowMs();
}

void Replication::Cron() {
  const int64_t now = NowMs();
  if (is_replica()) {
    const int64_t timeout = ConfigValueInt(server_.config(), "repl-timeout", 60) * 1000;
    switch (link_) {
      case LinkState::kConnect:
        StartConnect();
        break;
      case LinkState::kConnecting:
      case LinkState::kHandshake:
      case LinkState::kTransfer:
        if (now - link_last_io_ms_ > timeout) {
          LinkFailed(link_ == LinkState::kTransfer
                         ? "Timeout receiving bulk data from MASTER... If the problem persists try "
                           "to set the 'repl-timeout' parameter in redis.conf to a larger value."
                         : "Timeout connecting to the MASTER...");
        }
        break;
      case LinkState::kConnected:
        if (master_ != nullptr && now / 1000 - master_->last_interaction_ms / 1000 > timeout / 1000) {
          LogWarning("MASTER timeout: no data nor PING received...");
          server_.CloseClientAsync(master_);
        } else if (now - last_ack_ms_ >= 1000) {
          SendAck();
        }
        break;
      case LinkState::kNone:
        break;
    }
  }
  PrimaryCron(now);
}

}  // namespace vireo
