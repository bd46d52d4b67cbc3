// Dual-channel full sync, the replica's side (see replication.h). After +DUALCHANNELSYNC the
// handshake's socket is parked as the main channel and the link machinery (link_fd_, the
// transfer, the load) runs on a second connection, the rdb channel: AUTH, REPLCONF
// rdb-channel 1, SYNC, then "$ENDOFF:<offset> <replid> <db> <client-id>" and the snapshot.
// On $ENDOFF the main channel names the rdb channel and asks PSYNC <replid> <offset+1>; from
// +CONTINUE on it buffers the stream, also while the snapshot loads (the loop is served
// during loads). Once both are done the rdb channel is closed and the main channel becomes the
// master client, its buffer its first input.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "common/numbers.h"
#include "protocol/command_encoder.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {

bool Replication::WantsDualChannel() const {
  // The second connection is plain TCP: over TLS the single-channel sync is used.
  return ConfigValue(server_.config(), "dual-channel-replication-enabled") == "yes" &&
         ConfigValue(server_.config(), "tls-replication") != "yes";
}

void Replication::StartRdbChannel() {
  LogNotice("PSYNC is not possible, initialize RDB channel.");
  server_.loop().Unwatch(link_fd_);
  main_fd_ = link_fd_;
  link_fd_ = -1;
  main_in_.swap(link_in_);
  link_in_.clear();
  main_state_ = MainChannelState::kWaitEndOffset;
  dual_sync_ = true;
  rdb_loaded_ = false;
  main_failed_.clear();
  repl_buffer_peak_ = 0;
  server_.loop().Watch(main_fd_, EventLoop::kReadable, &main_watcher_);
  StartConnect();
  if (link_fd_ < 0) LinkFailed("Unable to connect the RDB channel to MASTER");
}

void Replication::CloseMainChannel() {
  if (main_fd_ >= 0) {
    server_.loop().Unwatch(main_fd_);
    close(main_fd_);
    main_fd_ = -1;
  }
  main_in_.clear();
  main_in_.shrink_to_fit();
  main_state_ = MainChannelState::kNone;
  dual_sync_ = false;
  rdb_loaded_ = false;
}

bool Replication::SendRdbChannelReplconf() {
  return LinkSend(RespCommand({"REPLCONF", "capa", "eof", "rdb-only", "1", "rdb-channel", "1",
                               "listening-port", std::to_string(server_.tcp_port())}));
}

void Replication::RdbChannelHandshake() {
  if (handshake_step_ == 0) {  // connected: no PING, AUTH when configured
    bool sent_auth;
    if (!SendPrimaryAuth(&sent_auth)) return;
    if (sent_auth) {
      handshake_step_ = 10;
      return;
    }
    if (!SendRdbChannelReplconf()) return;
    handshake_step_ = 11;
    return;
  }
  for (;;) {
    size_t eol = link_in_.find('\n');
    if (eol == std::string::npos) return;
    std::string line = link_in_.substr(0, eol);
    link_in_.erase(0, eol + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;  // keepalive newlines while the snapshot is prepared
    const bool error = line[0] == '-';
    switch (handshake_step_) {
      case 10:  // AUTH
        if (error) {
          LinkFailed("Unable to AUTH to MASTER on the RDB channel: " + line);
          return;
        }
        if (!SendRdbChannelReplconf()) return;
        handshake_step_ = 11;
        break;
      case 11:  // REPLCONF
        if (error) {
          LinkFailed("Master refused the RDB channel: " + line);
          return;
        }
        if (!LinkSend(RespCommand({"SYNC"}))) return;
        handshake_step_ = 12;
        break;
      case 12:  // SYNC: $ENDOFF, then the snapshot
        if (line.rfind("$ENDOFF:", 0) != 0) {
          LinkFailed("Unexpected reply to SYNC on the RDB channel: '" + line + "'");
          return;
        }
        if (!ParseEndOffset(line)) return;
        link_ = LinkState::kTransfer;
        transfer_size_ = -2;  // the $EOF / $<len> header comes next
        transfer_read_ = 0;
        sync_in_progress_ = true;
        return;  // the caller goes on with ReadTransfer
      default:
        return;
    }
  }
}

bool Replication::ParseEndOffset(const std::string& line) {
  // $ENDOFF:<offset> <replid> <db> <client-id>: four fields, each checked.
  std::vector<std::string_view> f;
  std::string_view rest = std::string_view(line).substr(8);
  while (!rest.empty() && f.size() < 5) {
    const size_t sp = rest.find(' ');
    f.push_back(rest.substr(0, sp));
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  }
  int64_t off = 0, db = 0, id = 0;
  if (f.size() != 4 || !ParseInt64(f[0], &off) || off < 0 || f[1].size() != 40 ||
      !ParseInt64(f[2], &db) || db < 0 || db >= server_.db_count() || !ParseInt64(f[3], &id) ||
      id <= 0) {
    LinkFailed("Master replied with a malformed $ENDOFF line: '" + line.substr(0, 200) + "'");
    return false;
  }
  psync_replid_ = std::string(f[1]);
  psync_offset_ = off;
  master_first_db_ = static_cast<int>(db);
  LogNotice("Received the end offset from master: replid %s, offset %lld; the main channel "
            "asks for the stream from there.",
            psync_replid_.c_str(), static_cast<long long>(off));
  main_state_ = MainChannelState::kWaitReplconf;
  // PSYNC waits for this reply: Valkey refuses a PSYNC while a reply is still queued.
  if (!MainChannelSend(RespCommand({"REPLCONF", "set-rdb-client-id", std::string(f[3])}))) {
    LinkFailed("Error writing to MASTER on the main channel: " + std::string(strerror(errno)));
    return false;
  }
  MainChannelReplies();  // anything that came before
  return link_ != LinkState::kConnect;
}

bool Replication::MainChannelSend(const std::string& bytes) {
  // A few dozen bytes on an otherwise idle socket: the buffer takes them at once.
  ssize_t n = send(main_fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  return n == static_cast<ssize_t>(bytes.size());
}

void Replication::OnMainChannelEvent(void* obj, uint32_t events) {
  static_cast<Replication*>(obj)->MainChannelEvent(events);
}

void Replication::MainChannelEvent(uint32_t /*events*/) {
  if (main_fd_ < 0) return;
  const int64_t hard = server_.config().client_obuf_limits.Of(ClientClass::kReplica).hard;
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = read(main_fd_, buf, sizeof(buf));
    if (n > 0) {
      main_in_.append(buf, static_cast<size_t>(n));
      repl_buffer_peak_ = std::max(repl_buffer_peak_, main_in_.size());
      if (n < static_cast<ssize_t>(sizeof(buf))) break;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    main_failed_ = "Master closed the main channel during the dual-channel sync";
    server_.loop().Unwatch(main_fd_);
    if (!loading_) LinkFailed(main_failed_);
    return;
  }
  // Past the replica output limit the socket is left unread: the primary holds the rest (and
  // applies its own limit) until the snapshot is loaded and the master client reads again.
  if (hard > 0 && static_cast<int64_t>(main_in_.size()) >= hard) {
    LogWarning("Replication buffer of the dual-channel sync is full (%zu bytes): pausing the "
               "main channel until the snapshot is loaded",
               main_in_.size());
    server_.loop().Unwatch(main_fd_);
  }
  MainChannelReplies();
}

void Replication::MainChannelReplies() {
  while (main_state_ == MainChannelState::kWaitReplconf ||
         main_state_ == MainChannelState::kWaitContinue) {
    size_t eol = main_in_.find('\n');
    if (eol == std::string::npos) return;
    std::string line = main_in_.substr(0, eol);
    main_in_.erase(0, eol + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::string why;
    if (main_state_ == MainChannelState::kWaitReplconf) {
      if (line[0] == '-') {
        why = "Master refused REPLCONF set-rdb-client-id: " + line;
      } else if (!MainChannelSend(
                     RespCommand({"PSYNC", psync_replid_, std::to_string(psync_offset_ + 1)}))) {
        why = "Error writing to MASTER on the main channel: " + std::string(strerror(errno));
      }
      main_state_ = MainChannelState::kWaitContinue;
    } else if (line.rfind("+CONTINUE", 0) == 0) {
      main_state_ = MainChannelState::kBuffering;
      LogNotice("Successful partial resynchronization on the main channel: the stream is "
                "buffered until the snapshot is loaded.");
    } else {
      why = "Unexpected reply to PSYNC on the main channel: " + line.substr(0, 200);
    }
    if (!why.empty()) {
      main_failed_ = why;
      server_.loop().Unwatch(main_fd_);
      if (!loading_) LinkFailed(why);
      return;
    }
  }
  if (main_state_ == MainChannelState::kBuffering && rdb_loaded_ && !loading_) CompleteSync();
}

void Replication::FinishDualSync() {
  // The rdb channel is done: closing it tells the primary so. The main channel takes over
  // the link; BecomeConnected adopts it with the buffered stream.
  server_.loop().Unwatch(link_fd_);
  close(link_fd_);
  link_fd_ = main_fd_;
  main_fd_ = -1;
  link_in_.swap(main_in_);
  main_in_.clear();
  main_in_.shrink_to_fit();
  main_state_ = MainChannelState::kNone;
  dual_sync_ = false;
  rdb_loaded_ = false;
}

}  // namespace vireo
