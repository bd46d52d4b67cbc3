// Replication, both roles, speaking Valkey's protocol (PSYNC, REPLCONF, the RDB transfer and
// the command stream), so Valkey/Redis servers can be primaries or replicas of Vireo.
//
// Primary side (primary.cc): the propagated stream (server/propagate.h) is encoded as RESP,
// kept in the backlog and sent to every replica. A replica that asks for a PSYNC its backlog
// covers gets +CONTINUE and the missing bytes; any other gets +FULLRESYNC: a fork-less BGSAVE
// starts (persistence/snapshot.h), the stream from that point waits in the replica's pending
// buffer, and once the file is written it is sent as a bulk ($<len>) followed by the pending
// stream. Replicas send REPLCONF ACK <offset> every second; WAIT counts those acks.
//
// Replica side (replica_link.cc): REPLICAOF starts a non-blocking connect and the handshake
// (PING, AUTH, REPLCONF listening-port / capa, PSYNC); a full sync is received into a temp file
// (both the $<len> and the diskless $EOF:<mark> forms), renamed over dbfilename and loaded;
// then the connection becomes the master client, whose commands run with replies dropped and
// whose bytes are passed on, unchanged, to this server's own replicas (chained replication).
// A replica does not expire keys: it hides expired ones from reads and waits for the DELs.
//
// Dual-channel full sync (Valkey 8, dual-channel-replication-enabled on both sides): a
// replica that needs a full sync is answered +DUALCHANNELSYNC on its main connection and opens
// a second one (the rdb channel: REPLCONF rdb-channel 1, SYNC) that gets
// "$ENDOFF:<offset> <replid> <db> <client-id>" and then the snapshot. The main connection
// sends REPLCONF set-rdb-client-id and PSYNC <replid> <offset+1>, and is fed the stream from
// there while the snapshot is still being sent; the replica buffers that stream while it loads
// (rdb_channel.cc). The primary keeps the stream since the snapshot in the rdb channel's
// pending buffer until the main channel has claimed it, so no backlog size can lose it.
//
// Execution thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/event_loop.h"
#include "replication/backlog.h"
#include "server/propagate.h"

namespace vireo {

struct Config;

class Server;
class TlsSession;
struct Client;

// The AUTH a node sends where it acts as a client of another (replica handshake, rdb channel,
// atomic slot migration): from primaryuser / primaryauth, "" when no password is set.
std::string PrimaryAuthCommand(const Config& config);

class Replication final : public PropagationSink {
 public:
  explicit Replication(Server& server);
  ~Replication() override;

  // --- Both roles --------------------------------------------------------------------------
  // At start-up, after the listeners: applies `replicaof host port` from the config.
  void Start();
  bool is_replica() const { return !master_host_.empty(); }
  // INFO's mem_replication_backlog: the backlog's buffer, once there is one.
  size_t BacklogMemory() const { return backlog_on_ ? backlog_.capacity() : 0; }
  // Valkey 8.0's answer to a client with CLIENT CAPA redirect that reads (without READONLY) or
  // writes on a replica: "REDIRECT host:port" of the primary; empty when c may go on.
  std::string CapaRedirect(const Client* c, uint32_t flags, uint32_t queued_flags) const;
  // "REDIRECT host:port" of the primary this replica follows.
  std::string RedirectError() const {
    return "REDIRECT " + master_host_ + ":" + std::to_string(master_port_);
  }
  const std::string& replid() const { return replid_; }
  int64_t offset() const { return offset_; }
  // Whether snapshots should record the ID and offset (a primary with a backlog, a replica).
  bool has_history() const { return backlog_on_ || is_replica(); }
  // The periodic task: handshake start/retries, timeouts, pings, acks, backlog TTL.
  void Cron();
  // After each event-loop turn: tops up the snapshot transfers to replicas.
  void Pump();
  // A client is going away (FreeClient): the master link or a replica.
  void ClientClosed(Client* c);
  // INFO replication, INFO stats' sync_* fields, and ROLE.
  std::string InfoSection();
  std::string StatsFields() const;
  void RoleReply(Client* c);
  // Commands that may not run now on a replica: READONLY / MASTERDOWN / NOREPLICAS, as
  // Valkey answers; empty when allowed.
  const char* RefuseCommand(const Client* c, uint32_t cmd_flags, bool is_write) const;
  // A write a script calls, in Valkey's order around the disk-error check: on a read-only
  // replica "-READONLY ..." (unless the script came from the primary), then on a primary
  // short of good replicas "-NOREPLICAS ...". nullptr when the write may run.
  const char* RefuseScriptWriteOnReplica(const Client* caller) const;
  const char* RefuseScriptWriteForReplicas() const;
  // Whether RefuseCommand may refuse anything (a replica, min-replicas-to-write set): one
  // flag for the command path. Refreshed on config changes and role changes.
  bool restricts() const { return restricts_; }
  void RefreshRestrictions();
  // A snapshot is being sent to a replica whose socket can take more: the loop must not sleep.
  bool transferring() const;

  // --- Primary side -------------------------------------------------------------------------
  // PSYNC replid offset / SYNC from c.
  void Psync(Client* c, std::string_view replid, std::string_view offset, bool sync_command);
  // REPLCONF from c (listening-port, capa, ack, getack, ip-address, rdb-only); false with
  // *error on a bad option.
  bool Replconf(Client* c, const std::vector<std::string_view>& args, bool* reply_ok,
                std::string* error);
  // Replica: "REPLCONF capa dual-channel" goes into the handshake (dual-channel-replication-
  // enabled yes, not over TLS).
  bool WantsDualChannel() const;
  // Called when BGSAVE finished (snapshot.cc): sends the file to the replicas waiting for it.
  void BackgroundSaveDone(bool ok, const std::string& path);
  // A diskless transfer ended (snapshot.cc): delivered[i] says whether the i-th socket given
  // to it received everything.
  void SocketTransferDone(bool ok, const std::vector<bool>& delivered);
  // Replicas whose last ack covers offset (WAIT).
  int AckedReplicas(int64_t offset) const;
  int ReplicaCount() const;
  // Replicas whose last ack is behind the stream (a shutdown waits for them).
  int LaggingReplicas() const;
  // At shutdown: each lagging replica, and how many are in sync, to the log.
  void LogShutdownSync() const;
  // Asks every replica for an ack (WAIT, WAITAOF, a shutdown): one GETACK goes into the
  // stream before the loop turn's replies, however many asked, and not inside a command,
  // whose client would otherwise count it among its own writes.
  void RequestAcks();
  void FlushAckRequest() {
    if (acks_requested_) SendAckRequest();
  }
  // WAIT clients waiting for acks: woken when enough arrived.
  void AddWaiter(Client* c, int64_t offset, int64_t numreplicas);
  void RemoveWaiter(Client* c);
  // The offset c's WAIT waits for (the current offset when it does not wait).
  int64_t WaitOffset(const Client* c) const;
  // WAITAOF: replicas whose AOF is fsynced up to offset (REPLCONF ACK ... FACK).
  int AofAckedReplicas(int64_t offset) const;
  // WAITAOF waiters: numlocal 0 or 1 (the local AOF must be fsynced up to offset).
  void AddAofWaiter(Client* c, int64_t offset, int64_t numlocal, int64_t numreplicas);
  // WAITAOF's answer for writes up to offset: [fsynced locally (0 or 1), replicas fsynced].
  std::pair<int, int> AofWaitCounts(int64_t offset) const;
  // The local AOF fsynced further (aof_writer.cc): WAITAOF waiters may be done, a replica
  // tells its primary.
  void LocalAofFsynced();
  // An AOF without a backlog counts each propagated command as one byte of offset, so WAITAOF
  // has an offset to wait for without replicas (as Valkey).
  void AdvanceOffsetForAof() { if (!backlog_on_) ++offset_; }

  // PropagationSink: one command for the stream.
  void Feed(int db, const std::string_view* args, size_t argc) override;

  // --- FAILOVER: a coordinated hand-over to a replica (failover.cc) ----------------------------
  // FAILOVER [TO host port [FORCE]] [TIMEOUT ms] (an empty host: the first replica to catch
  // up; timeout_ms 0: none): "" or the error. Writes pause until the failover ends.
  std::string StartFailover(const std::string& host, int64_t port, bool force,
                            int64_t timeout_ms);
  // FAILOVER ABORT: "" or the error.
  std::string AbortFailover();
  bool failover_active() const { return failover_ != FailoverState::kNone; }
  // INFO's master_failover_state.
  const char* FailoverStateName() const;
  // PSYNC <replid> <offset> FAILOVER from the primary handing over: this replica becomes a
  // primary when replid is the history it follows. "" or the error.
  std::string AcceptFailover(const Client* c, std::string_view replid);

  // --- Replica side -------------------------------------------------------------------------
  // REPLICAOF host port: "" or an error text. NO ONE with an empty host.
  std::string ReplicaOf(const std::string& host, int64_t port, std::string* reply);
  // Stops replicating and serves as a primary; why goes to the log.
  void PromoteToPrimary(const std::string& why);
  bool is_master_client(const Client* c) const { return c != nullptr && c == master_; }
  // The master client applied n bytes of the stream at data: counted into the offset and
  // passed on to this server's replicas.
  void MasterApplied(const char* data, size_t n);
  // REPLCONF GETACK from the master: the ack goes out at once.
  void SendAck();
  bool link_up() const { return master_ != nullptr; }
  // Replica: when the link to the master was lost or REPLICAOF started (NowMs()).
  int64_t link_down_since_ms() const { return link_down_since_ms_; }

 private:
  enum class ReplicaState {
    kWaitBgsaveStart,  // full sync requested, a snapshot will start for it
    kWaitBgsaveEnd,    // its snapshot is being written; stream goes to pending
    kSendBulk,         // the file is being sent
    kOnline,
    kHandshake,        // sent REPLCONF, no PSYNC yet (or answered +DUALCHANNELSYNC)
    kRdbSent,          // rdb channel: snapshot delivered, the replica closes it after loading
  };
  struct Replica {
    Client* client;
    ReplicaState state;
    std::string pending;  // stream since its snapshot started
    int fd = -1;          // the snapshot file while sending
    int64_t file_size = 0;
    int64_t file_sent = 0;
    int64_t ack_offset = 0;
    int64_t ack_ms = 0;
    int64_t fack_offset = -1;  // REPLCONF ACK ... FACK: its AOF fsynced this far
    int64_t listening_port = 0;
    std::string ip;
    bool capa_eof = false;
    bool capa_psync2 = false;
    bool old_sync = false;  // SYNC: no +FULLRESYNC line, no acks
    bool socket_full = false;  // the bulk waits for the socket to drain
    int64_t wait_since_ms = 0;  // asked for a full sync (repl-diskless-sync-delay)
    int socket_index = -1;      // its place in a diskless transfer, -1 when by disk
    // Dual-channel full sync.
    bool capa_dual_channel = false;  // REPLCONF capa dual-channel
    bool rdb_channel = false;        // REPLCONF rdb-channel 1: takes the snapshot only
    bool main_attached = false;      // rdb channel: its main channel took the stream
    int64_t snapshot_offset = -1;    // rdb channel: the $ENDOFF offset, once sent
    uint64_t rdb_client_id = 0;      // main channel: REPLCONF set-rdb-client-id
  };
  struct Waiter {
    Client* client;
    int64_t offset;
    int64_t numreplicas;
    int64_t numlocal = -1;  // WAITAOF's; -1 for WAIT
  };

  // Primary side.
  Replica* FindReplica(const Client* c);
  void EnsureBacklog();
  void AppendToStream(std::string_view bytes);
  void StartFullSync();
  // repl-diskless-sync: streams a snapshot to the waiting replicas' sockets (after
  // repl-diskless-sync-delay), or returns false to let the caller use a file.
  bool StartDisklessSync();
  // The snapshot is through: the pending stream follows it and r is online (an rdb channel
  // waits for its replica to close it instead).
  void BecomeOnline(Replica* r);
  // The line(s) before a snapshot: +FULLRESYNC, and $ENDOFF for an rdb channel.
  std::string SyncHeader(Replica* r);
  // Cluster mode: the target's running slot imports, into the stream after a full sync's
  // snapshot.
  void AnnounceImports();
  // Dual-channel (primary side).
  bool OffersDualChannel(const Replica& r) const;
  Replica* FindRdbChannel(uint64_t client_id);
  // PSYNC on a main channel whose rdb channel sent $ENDOFF: +CONTINUE from the pending stream.
  bool ContinueFromRdbChannel(Replica* r, std::string_view replid, int64_t from);
  // A main channel whose rdb channel is still sending (INFO's bg_transfer, no ack timeout).
  bool InBackgroundTransfer(const Replica& r) const;
  int ReplicasWaitingPsync() const;
  void DropReplica(Client* c);
  void DisconnectReplicas();
  void PrimaryCron(int64_t now);
  // The address a replica is listed under (INFO, ROLE, FAILOVER TO).
  static std::string ReplicaIp(const Replica& r);
  // Online replicas whose last ack is within min-replicas-max-lag.
  int GoodReplicas() const;
  void WakeWaiters();
  void SendAckRequest();
  void NewReplid();
  void ShiftReplid();  // promotion / new master: the old id stays valid up to offset_

  // FAILOVER (failover.cc).
  enum class FailoverState { kNone, kWaitForSync, kInProgress };
  // Waiting: hands over once a replica has everything (or the timeout passed). From the cron
  // and from acks.
  void FailoverCheck();
  // Becomes a replica of the chosen target, whose PSYNC carries FAILOVER.
  void FailoverTo(const std::string& host, int64_t port);
  // The target answered PSYNC: done, or (rejected) back to primary.
  void FailoverPsyncAnswered(bool accepted);
  // Ends the failover and its pause; with why, aborts it (back to primary if it had begun).
  void EndFailover(const char* why);
  std::string FailoverTargetName() const;

  // Replica side (replica_link.cc).
  void StartConnect();
  void CancelLink();
  void LinkEvent(uint32_t events);
  static void OnLinkEvent(void* obj, uint32_t events);
  bool LinkSend(const std::string& bytes);
  // read() on the link, through TLS with tls-replication (errno EAGAIN when nothing came).
  ssize_t LinkRead(char* buf, size_t n);
  // tls-replication: drives the link's TLS handshake; true once it is done.
  bool LinkTlsHandshake();
  void HandshakeStep();
  bool SendListeningPort();
  // AUTH with primaryuser/primaryauth when configured (*sent); false if the link failed.
  bool SendPrimaryAuth(bool* sent);
  const char* LinkStateName() const;
  bool ReadTransfer();
  void FinishTransfer();
  // Replaces the dataset with the received RDB at path; false (link failed) when it fails.
  bool LoadTransfer(const std::string& path, bool keep_old_on_failure);
  // The dataset is the master's: take its history and become its connected replica.
  void CompleteSync();
  void BecomeConnected();
  void LinkFailed(const std::string& why);
  // Dual-channel full sync, replica side (rdb_channel.cc).
  void StartRdbChannel();
  void RdbChannelHandshake();
  bool SendRdbChannelReplconf();
  bool ParseEndOffset(const std::string& line);
  bool MainChannelSend(const std::string& bytes);
  static void OnMainChannelEvent(void* obj, uint32_t events);
  void MainChannelEvent(uint32_t events);
  void MainChannelReplies();
  // The snapshot is loaded (or the main channel's PSYNC was answered): once both, the main
  // channel becomes the master link with what it buffered as its first input.
  void FinishDualSync();
  void CloseMainChannel();

  Server& server_;
  std::string replid_;
  std::string replid2_;
  int64_t second_replid_offset_ = -1;
  int64_t offset_ = 0;  // master_repl_offset
  ReplBacklog backlog_;
  bool backlog_on_ = false;
  int64_t no_replicas_since_ms_ = 0;
  int stream_db_ = -1;  // the database the stream last selected
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<Waiter> waiters_;
  bool snapshot_for_replicas_ = false;  // the running BGSAVE feeds replicas
  int64_t last_ping_ms_ = 0;
  uint64_t sync_full_ = 0;
  uint64_t sync_partial_ok_ = 0;
  uint64_t sync_partial_err_ = 0;
  FailoverState failover_ = FailoverState::kNone;
  std::string failover_host_;  // empty: any replica
  int64_t failover_port_ = 0;
  int64_t failover_end_ms_ = 0;  // 0: no timeout
  bool failover_force_ = false;

  // Replica side.
  enum class LinkState {
    kNone,
    kConnect,     // to (re)connect on the next cron
    kConnecting,  // non-blocking connect in progress
    kHandshake,
    kTransfer,
    kConnected,
  };
  std::string master_host_;
  int64_t master_port_ = 0;
  LinkState link_ = LinkState::kNone;
  int link_fd_ = -1;
  TlsSession* link_tls_ = nullptr;  // tls-replication: the link's session, until adopted
  IoWatcher link_watcher_;
  int handshake_step_ = 0;
  std::string link_in_;
  int64_t link_last_io_ms_ = 0;
  int64_t transfer_size_ = -1;  // -1: $EOF form
  std::string eof_mark_;
  int64_t transfer_read_ = 0;
  int transfer_fd_ = -1;
  std::string transfer_path_;  // empty: repl-diskless-load, the RDB goes to memory (memfd)
  bool diskless_load_keep_old_ = false;  // swapdb: the old dataset stays if the load fails
  std::string psync_replid_;  // what the master answered FULLRESYNC with
  int64_t psync_offset_ = 0;
  Client* master_ = nullptr;
  int64_t master_last_io_ms_ = 0;
  int64_t link_down_since_ms_ = 0;
  int64_t last_ack_ms_ = 0;
  bool ack_after_apply_ = false;
  bool acks_requested_ = false;  // RequestAcks: a GETACK goes out this loop turn  // GETACK: ack once the command itself counts
  bool sync_in_progress_ = false;
  // Dual-channel full sync: link_fd_ is the rdb channel, main_fd_ the parked main connection.
  enum class MainChannelState { kNone, kWaitEndOffset, kWaitReplconf, kWaitContinue, kBuffering };
  bool dual_channel_asked_ = false;  // the handshake sent capa dual-channel
  bool dual_sync_ = false;
  int main_fd_ = -1;
  IoWatcher main_watcher_;
  MainChannelState main_state_ = MainChannelState::kNone;
  std::string main_in_;  // the primary's stream while the snapshot loads
  size_t repl_buffer_peak_ = 0;
  bool rdb_loaded_ = false;
  bool loading_ = false;  // inside LoadTransfer: a main channel failure waits for its end
  std::string main_failed_;
  int master_first_db_ = 0;  // the $ENDOFF's db: the stream goes on in it
  bool restricts_ = false;
  // Cached by RefreshRestrictions for the command path.
  bool read_only_ = true;
  bool serve_stale_ = true;
  int64_t min_replicas_ = 0;
};

}  // namespace vireo
