// The server: owns the keyspace, the clients, the listeners and the event loop, and runs
// commands. Everything here runs on the execution thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/acl_log.h"
#include "acl/acl_store.h"
#include "acl/permission.h"
#include "commands/command_table.h"
#include "net/event_loop.h"
#include "net/io_thread_pool.h"
#include "persistence/snapshot_state.h"
#include "server/blocking.h"
#include "server/client.h"
#include "server/command_log.h"
#include "server/config.h"
#include "server/io_threads.h"
#include "server/latency_tracking.h"
#include "server/oom_score.h"
#include "server/transaction.h"
#include "server/propagate.h"
#include "server/pubsub.h"
#include "server/tracking.h"
#include "store/db.h"

namespace vireo {

class Aof;
class Cluster;
class Replication;
class MetricsEndpoint;
class ScriptEngine;
class TlsContext;
enum class ShutdownSave;  // persistence/snapshot.h

struct ServerStats {
  uint64_t total_connections_received = 0;
  uint64_t total_commands_processed = 0;
  uint64_t rejected_connections = 0;
  uint64_t total_error_replies = 0;
  uint64_t unexpected_error_replies = 0;
  uint64_t total_reads_processed = 0;
  uint64_t total_writes_processed = 0;
  uint64_t net_input_bytes = 0;   // from closed clients; live ones are added on demand
  uint64_t net_output_bytes = 0;
  uint64_t evicted_clients = 0;
  uint64_t client_query_buffer_limit_disconnections = 0;
  uint64_t client_output_buffer_limit_disconnections = 0;
  uint64_t io_threaded_reads_processed = 0;  // reads (and parses) done by I/O threads
  uint64_t io_threaded_writes_processed = 0;
  // ACL refusals (INFO acl_access_denied_*).
  uint64_t acl_denied_auth = 0;
  uint64_t acl_denied_cmd = 0;
  uint64_t acl_denied_key = 0;
  uint64_t acl_denied_channel = 0;
  uint64_t acl_denied_db = 0;  // Valkey 9.1's acl_access_denied_db
  std::map<std::string, uint64_t> error_codes;  // INFO errorstats
  // Instantaneous ops/sec: samples taken by the periodic task.
  int64_t ops_sample_time_ms = 0;
  uint64_t ops_sample_count = 0;
  double instantaneous_ops_per_sec = 0;
};

class Server {
 public:
  explicit Server(Config config);
  ~Server();

  // Opens listeners and prepares databases; false with *error if the server cannot start.
  bool Init(std::string* error);
  // Prepares databases only, without listeners or signals (in-process command tests).
  void InitForTests();
  // Serves until SHUTDOWN or a termination signal.
  void Run();

  Config& config() { return config_; }
  Db* db(int i) { return dbs_[static_cast<size_t>(i)].get(); }
  int db_count() const { return static_cast<int>(dbs_.size()); }
  KeyspaceStats& keyspace_stats() { return keyspace_stats_; }
  ServerStats& stats() { return stats_; }
  const std::unordered_map<uint64_t, Client*>& clients() const { return clients_; }
  Client* FindClient(uint64_t id);

  // Counters and times shown by INFO.
  int64_t start_time_ms() const { return start_time_ms_; }
  uint64_t dirty() const { return dirty_; }
  void AddDirty(uint64_t n) { dirty_ += n; }
  int64_t last_save_time() const { return last_save_time_; }
  void set_last_save_time(int64_t unix_s) { last_save_time_ = unix_s; }
  void SetDirty(uint64_t n) { dirty_ = n; }
  // RDB snapshots: the BGSAVE child, last save outcome (persistence/snapshot.h).
  SnapshotState& snapshot() { return snapshot_; }
  const SnapshotState& snapshot() const { return snapshot_; }
  int tcp_port() const { return static_cast<int>(config_.port); }
  const std::string& run_id() const { return run_id_; }
  const std::string& executable() const { return executable_; }
  void set_executable(std::string path) { executable_ = std::move(path); }

  // COMMANDLOG's logs; SLOWLOG is the slow one (server/command_log.h).
  CommandLog& command_log(CommandLogType type) { return command_logs_[static_cast<int>(type)]; }
  // Latency monitor (LATENCY; server/latency_monitor.h).
  LatencyMonitor& latency_monitor() { return latency_monitor_; }

  // MONITOR: the client starts receiving every command.
  void AddMonitor(Client* c);
  void RemoveMonitor(Client* c);

  // Until end_ms, clients' commands (writes only when writes_only) wait. Each purpose pauses
  // and ends on its own, as in Valkey: CLIENT UNPAUSE does not end a failover's pause. While
  // any pause lasts the dataset stays still: keys neither expire nor get evicted.
  enum class PausePurpose { kClientCommand, kFailover, kShutdown, kCount };
  void Pause(PausePurpose purpose, int64_t end_ms, bool writes_only);
  void Unpause(PausePurpose purpose);
  // An atomic slot migration stopped holding writes to its slots: the held clients run their
  // commands again after this event batch (those still held wait again).
  void ResumeHeldClients() { recheck_held_ = true; }
  bool paused() const { return pause_end_ms_ != 0; }
  bool paused_for(PausePurpose purpose) const {
    return pauses_[static_cast<int>(purpose)].end_ms != 0;
  }
  // Lookups of logically expired keys: hidden on a replica or while paused (nothing may
  // change the data then), deleted otherwise. Called when either changes.
  void RefreshExpiryMode();

  // Shutting down (SHUTDOWN, SIGTERM/SIGINT; server_shutdown.cc). Unless now, a primary
  // whose replicas lag behind first pauses writes and waits for them, up to shutdown-timeout
  // seconds; then the final save (mode) and exit. A failed save keeps the server running
  // unless force; so does safe (Valkey 9's SHUTDOWN SAFE) on a cluster primary that serves
  // slots. kWaiting: SHUTDOWN blocks its client until the wait ends.
  enum class ShutdownStep { kExiting, kWaiting, kFailed };
  ShutdownStep BeginShutdown(ShutdownSave mode, bool now, bool force, bool safe = false);
  bool shutdown_waiting() const { return shutdown_wait_.active; }
  // SHUTDOWN ABORT: false when no shutdown waits.
  bool AbortShutdown();
  // Ends a wait whose replicas caught up or whose time is up (the cron, acks).
  void ShutdownCheck();

  // Closes the client after its pending reply is written (QUIT) or at once (KILL).
  void CloseClientAsync(Client* c);
  // Asks the server to stop after the current command; with save, persistence runs first.
  void RequestShutdown(int exit_code = 0);

  // Applies CONFIG SET side effects (hz, maxclients, ...) after a successful change.
  void OnConfigChanged(std::string_view name);
  // oom-score-adj for the current role (server/oom_score.h); roles changes call it too.
  void ApplyOomScoreAdj();

  // Pub/Sub (server_pubsub.cc). DeliverPush appends a message frame built for RESP2 (its
  // first '*' becomes '>' for RESP3 clients), bypassing CLIENT REPLY OFF as Valkey does, and
  // cuts the client off when it passes its output buffer limit.
  PubSub& pubsub() { return pubsub_; }
  // Pushes for the client whose command is running wait until that command's reply is
  // complete (as in Valkey 7.2+): a push inside a half-built reply would corrupt it.
  void DeliverPush(Client* c, std::string_view frame);
  // Queues c's output for the end of the event batch.
  void QueueWrite(Client* c);
  // CLUSTER SLOT-STATS (server_slot_stats.cc): SPUBLISH's message, as delivered to receivers
  // subscribers, counts as network bytes out of the channel's slot.
  void AccountShardFanOut(std::string_view channel, std::string_view message, size_t receivers);
  // Wakes the loop when c's socket can take more (bytes sent around its output buffer).
  void WatchWritable(Client* c) { AfterFlush(c, Connection::WriteResult::kPending); }
  // client-output-buffer-limit for c's class; true when c was scheduled to close. Inline:
  // it runs after every command, and a class without a limit (normal, by default) is done
  // after the class test.
  bool EnforceOutputLimit(Client* c) {
    const OutputBufferLimit& limit = config_.client_obuf_limits.Of(
        ((c->flags & kClientReplica) || c->migration != nullptr) ? ClientClass::kReplica
        : (c->flags & kClientPubSub) ? ClientClass::kPubSub
                                     : ClientClass::kNormal);
    if (limit.hard == 0 && limit.soft == 0) return false;
    return EnforceSetOutputLimit(c, limit);
  }
  // maxmemory-clients (server_client_eviction.cc): AccountClientMemory refreshes c's share of
  // the client memory total after its buffers changed; EvictClients closes the biggest
  // evictable clients while the total is at the limit; RecountClientMemory redoes every share.
  void AccountClientMemory(Client* c);
  void EvictClients();
  void RecountClientMemory();

  // Runs one command for c (arguments in c->args), with all checks Valkey does first; inside
  // MULTI it queues the command instead (server/transaction.h).
  void Execute(Client* c);
  // Runs spec's handler for c->args with no checks, then counts it (stats, slow log,
  // monitors): Execute's last step, and how EXEC runs its queue. start_us: MonotonicUs() when
  // the command began.
  void Call(Client* c, const CommandSpec* spec, int64_t start_us);

  // Propagation of changes to the AOF and replicas (server/propagate.h), and the AOF
  // (persistence/aof_writer.h; nullptr before Init).
  Propagator& propagator() { return propagator_; }
  Aof* aof() { return aof_.get(); }

  // Replication, both roles (replication/replication.h).
  Replication& replication() { return *replication_; }
  // Cluster mode (cluster/cluster.h); nullptr unless cluster-enabled.
  Cluster* cluster() { return cluster_.get(); }
  EventLoop& loop() { return loop_; }
  // Makes a client of an already connected socket (a replica's link to its master), with
  // flags set and authenticated; tls: the socket's TLS session, handed over.
  Client* AdoptConnection(int fd, uint32_t flags, TlsSession* tls = nullptr);
  // Runs bytes as if c had sent them.
  void FeedClientInput(Client* c, std::string_view bytes);

  // ACL users and log (acl/; server/server_acl.cc).
  AclStore& acl() { return acl_; }
  AclLog& acl_log() { return acl_log_; }
  // Makes c run as user (AUTH, HELLO, RESET; nullptr: internal, unrestricted).
  void SetClientUser(Client* c, std::shared_ptr<User> user);
  // After users changed (ACL SETUSER, LOAD, ...): clients' restricted flags follow.
  void RefreshAclClients();
  // Closes the clients authenticated as user (ACL DELUSER, LOAD), the caller after its reply.
  void KillClientsOfUser(const User* user, Client* caller);
  // Closes subscribers of user whose channels its new rules no longer allow (ACL SETUSER).
  void KillPubSubClientsOfUser(const User* user, Client* caller);
  // AUTH / HELLO AUTH: true with c authenticated as name, or false after counting and
  // logging the failure (object: the command's name).
  bool Authenticate(Client* c, std::string_view name, std::string_view password,
                    std::string_view command);
  // Whether commands of unauthenticated clients are refused (the default user has a
  // password or is off).
  bool AuthRequired() const;
  // ACL check of spec with args for c's user (c->acl_user not null), run in database db. On a
  // refusal logs it (context: "toplevel", "multi", "lua") and counts it.
  AclVerdict AclCheck(Client* c, const CommandSpec* spec, const std::vector<std::string_view>& args,
                      int db, const char* context);
  // AclCheck, with a refusal's NOPERM reply in *error: Valkey 8's text, or for "lua" the
  // Redis 7.0 text the script engine still words its own refusal from.
  bool AclPermits(Client* c, const CommandSpec* spec, const std::vector<std::string_view>& args,
                  int db, const char* context, std::string* error);
  // The database c's next command runs in for ACL: its own, or inside MULTI the one the
  // queued SELECTs lead to.
  static int AclDb(const Client* c);
  // Applies requirepass, `user` lines and aclfile at start-up; false with *error.
  bool LoadAclAtStartup(std::string* error);

  // WATCH: who watches which key (server/transaction.h).
  WatchRegistry& watches() { return watches_; }

  // Client-side caching (server/tracking.h).
  Tracking& tracking() { return tracking_; }
  // The client whose top-level command is running (a script's caller; nullptr between
  // commands).
  Client* executing() const { return executing_; }

  // Blocking commands (server_blocking.cc).
  BlockingRegistry& blocking() { return blocking_; }
  // Parks c with state (CommandContext::Block). A client re-running its command after a
  // wake-up that must wait again keeps its place in line and its original deadline.
  void BlockClient(Client* c, BlockState state);
  // CLIENT UNBLOCK: ends c's wait with the timeout reply or the UNBLOCKED error.
  void UnblockClient(Client* c, bool with_error);
  // The server has become a replica: every blocked client gets UNBLOCKED (REDIRECT to the new
  // primary with CLIENT CAPA redirect) and is closed once that is out, as Valkey does, instead
  // of waiting for keys its writes can no longer fill.
  void UnblockAllForReplicaOf();
  // Cluster mode: clients blocked on keys of slots now served elsewhere get MOVED.
  void RedirectBlockedClients();

  // Lua scripts and functions (scripting/script_engine.h), created on first use.
  ScriptEngine& scripts();
  // The flags Execute's refusals (replica, maxmemory, disk errors) go by: EVAL and FCALL take
  // those their script declares (`#!lua flags=...`, a function's flags), as Valkey.
  uint32_t CheckedFlags(const Client* c, const CommandSpec* spec);
  bool has_scripts() const { return scripts_ != nullptr; }
  // A script ran past busy-reply-threshold: until ClearScriptBusy other clients' commands
  // without allow-busy get BUSY, and the script's hook calls ServeWhileBusy, which serves
  // client I/O once (no timers, nothing for the caller) so SCRIPT KILL can reach it.
  void SetScriptBusy(Client* caller, bool eval);
  void ClearScriptBusy();
  void ServeWhileBusy();
  // While a dataset file loads (start-up, a replica's full sync) commands without the
  // loading flag get LOADING, and the loader calls ServeWhileBusy between parts of the file.
  void SetLoading(bool on) { loading_ = on; }
  // Serves clients once during a load; false when a shutdown was asked for (stop loading).
  bool ServeWhileLoading();
  bool loading() const { return loading_; }
  bool shutdown_requested() const { return shutdown_requested_; }
  // The process's exit status once Run returns (1: cut short by a second SIGINT).
  int exit_code() const { return exit_code_; }
  // io-threads > 1 and the last batch of reads or writes went to the I/O threads.
  bool io_threads_active() const { return io_threads_active_; }

  // TLS (server_tls.cc). The contexts built from the tls-* directives; nullptr while neither
  // tls-port, tls-replication nor tls-cluster is set.
  TlsContext* tls() const { return tls_.get(); }
  // CONFIG SET of tls-* directives: rebuilds the contexts (and reopens tls-port) from the
  // candidate configuration before it is applied. "" or the error text for the reply.
  // name: the (first) tls-* directive being set, for the log.
  std::string ReconfigureTls(const Config& candidate, std::string_view name);
  // tls-auto-reload-interval: from Cron, rebuilds the contexts when the certificate, key or
  // CA files changed since they were loaded (new connections use them; open ones keep
  // theirs). A failed reload keeps the old contexts.
  void TlsAutoReloadCron(int64_t now_ms);
  // EVAL and FCALL (skip_monitor for Call) show themselves to monitors first, before the
  // commands their script runs, whatever their outcome: as Valkey 8.
  void FeedMonitorsBeforeScript(Client* c, const std::vector<std::string_view>& args) {
    if (!monitors_.empty()) FeedMonitors(c, args);
  }

 private:
  // CLUSTER SLOT-STATS accounting (server_slot_stats.cc), run only while
  // cluster-slot-stats-enabled is yes. Begin, before a command runs: the slot a top-level
  // command is charged to (EXEC: its queue's common slot; -1: none) and the replication
  // stream's end. End, when it completed: charges it (or, nested in EXEC or a script, what
  // Valkey charges for that).
  struct SlotStatsCall {
    int slot = -1;
    int64_t repl_offset = 0;
  };
  SlotStatsCall BeginSlotStats(Client* c, const CommandSpec* spec, const Client* outer,
                               const std::string* reply_out, size_t reply_before);
  void EndSlotStats(Client* c, const CommandSpec* spec, const Client* outer,
                    const SlotStatsCall& call, int64_t usec, size_t reply_bytes);
  // A command queued in MULTI: its request bytes go to its slot now.
  void AccountQueuedCommand(const Client* c);
  // EnforceOutputLimit for a class that has a limit: the size test, then the close.
  bool EnforceSetOutputLimit(Client* c, const OutputBufferLimit& limit);
  static void OnListenerEvent(void* obj, uint32_t events);
  static void OnClientEvent(void* obj, uint32_t events);
  void AcceptClients(int listen_fd, bool unix_socket, bool tls);
  // Listens on port at every bind address; false with *error (fatal at start-up).
  bool OpenTcpListeners(int port, bool tls, std::string* error);
  // At start-up: builds the TLS contexts and opens tls-port when configured.
  bool InitTls(std::string* error);
  // A TLS client whose read failed: logged the way Valkey logs a failed accept.
  void LogTlsFailure(Client* c);
  // tls-auth-clients-user: after c's handshake, logs it in as the enabled ACL user its
  // certificate's field names; otherwise it stays as it was.
  void LoginFromCertificate(Client* c);
  // The TLS session for a socket accepted on tls-port; nullptr when none can be made.
  TlsSession* AcceptTls(int fd);
  void HandleClientEvent(Client* c, uint32_t events);
  // After a read of c's socket: closes, limits, then ProcessInput.
  void HandleRead(Client* c, Connection::ReadResult r);
  // io-threads (server_io.cc): reads queued by events go to the I/O threads as one batch
  // after the poll; replies of FlushPendingWrites likewise. The execution thread waits for
  // each batch, so no command ever runs while an I/O thread holds a client.
  void StartIoThreads();
  // Starts or stops I/O threads to match io-threads (CONFIG SET at run time too).
  void ApplyIoThreads();
  void QueueRead(Client* c);
  void RunQueuedReads();
  void DrainReadBatch();
  // A client's pass over its input stops after kPassBudget bytes of requests when other
  // clients are in the same batch (pass_budget_), and goes on in the next turn (yielded_),
  // ahead of that turn's reads. A pass takes whatever one read brought (up to 112 KB after a
  // mid-size value, Connection::kAfterMidArgRead), and every reply of a turn waits for the
  // whole turn: 50 clients' pipelines of 16 KB values made turns of hundreds of commands, and
  // the wait for a pipeline's first reply twice Valkey's, which reads 16 KB per client per
  // turn. The budget keeps the large reads (one system call per several values) and bounds
  // the turn instead.
  static constexpr size_t kPassBudget = 64 * 1024;
  static constexpr size_t kPassLargeRequest = 1024;  // smaller requests are not counted
  // Marks c's pass as yielded (true) when it has commands left that would run now.
  bool YieldPass(Client* c);
  void ResumeYielded();
  // Prefetches the keys of the next commands of the batched clients from `from` on
  // (prefetch-batch-max-size of them) before any of those clients runs.
  void PrefetchReadBatch(size_t from);
  void WriteBatch(std::vector<Client*>& batch);
  int IoParticipants(size_t jobs) const;
  void AfterFlush(Client* c, Connection::WriteResult r);
  // Parses and runs the commands in c's input buffer.
  void ProcessInput(Client* c);
  // A big bulk argument still arriving is read into a buffer of its own from now on (SET keeps
  // it as the value without a copy; net/connection.h).
  void MaybeReadBigArg(Client* c);
  // With a big argument still arriving after ProcessInput's commands, for a client alone in
  // its event-loop turn: reads on (true when bytes came) so that a pipeline of big values is
  // answered in one pass, within a budget of kBigArgReadsPerPass reads (*reads counts them).
  static constexpr int kBigArgReadsPerPass = 16;
  bool ReadMoreOfBigArg(Client* c, int* reads);
  // Replies a pass has piled up to kFlushWithinPass bytes go out before its next command runs
  // (without I/O threads, which do the writing then): a pipeline of large values would
  // otherwise grow the output buffer to the whole pass's replies (-P 16 of 16 KB values: a
  // 512 KB buffer, each new client faulting in 190 pages on its first pass, a fifth of a
  // short GET run's time); at this size it stays within 128 KB, for the cost of a send per
  // 64 KB. Once a send is short (the client reads slowly) or I/O threads write, *flush_at
  // turns SIZE_MAX for the rest of the pass. False when the connection failed (the client is
  // closing).
  static constexpr size_t kFlushWithinPass = 64 * 1024;
  bool FlushWithinPass(Client* c, size_t* flush_at);
  // Whether c's unparsed input is past client-query-buffer-limit (logged and counted then; the
  // caller closes it).
  bool QueryBufferOverLimit(Client* c);
  // ProcessInput's parse while c has a big argument: hands it to the parser once complete, or
  // frees it once its command has run; *request_extra: its bytes, on a command.
  RequestParser::Result ParseWithBigArg(Client* c, const ParserLimits& limits, size_t* consumed,
                                        size_t* request_extra);
  void FlushPendingWrites();
  // After each turn: a running keyspace rehash moves as many buckets as the turn ran
  // commands, as Valkey moves one per lookup (Find here is const). Without it a read-only
  // load would leave the rehash to cron (activerehashing: a millisecond per tick, or nothing)
  // while every lookup walks two chains.
  void AdvanceRehash();
  uint64_t rehash_commands_seen_ = 0;
  void WriteToClient(Client* c);
  void FreeClient(Client* c);
  void Cron();
  // SIGTERM/SIGINT: a shutdown as shutdown-on-sigterm / shutdown-on-sigint say (by default
  // SHUTDOWN's); a second SIGINT during the wait for replicas exits at once.
  void ShutdownOnSignal();
  void FeedMonitors(Client* c, const std::vector<std::string_view>& args);
  // The command logs for a command that ran for duration_us and grew its reply buffer by
  // reply_growth (wrapped around when the buffer was flushed meanwhile). Inline, as it runs
  // after every command and usually logs nothing: a threshold of -1 (off) is the largest
  // unsigned value, and one compare of the sizes' OR against the lower size threshold rules
  // out both size logs.
  void LogCommand(Client* c, const std::vector<std::string_view>& args, int64_t duration_us,
                  uint64_t reply_growth) {
    if (static_cast<uint64_t>(duration_us) >=
        static_cast<uint64_t>(config_.slowlog_log_slower_than)) {
      PushCommandLog(CommandLogType::kSlow, c, args, duration_us);
    }
    if ((reply_growth | c->request_bytes) >= commandlog_size_gate_) [[unlikely]] {
      LogLargeCommand(c, args, reply_growth);
    }
  }
  void LogLargeCommand(Client* c, const std::vector<std::string_view>& args,
                       uint64_t reply_growth);
  void RefreshCommandLogGate() {
    commandlog_size_gate_ = std::min(static_cast<uint64_t>(config_.commandlog_request_larger_than),
                                     static_cast<uint64_t>(config_.commandlog_reply_larger_than));
  }
  void PushCommandLog(CommandLogType type, Client* c, const std::vector<std::string_view>& args,
                      int64_t value);
  bool IsPausedFor(const Client* c, const CommandSpec* spec) const;
  // A write to a slot an atomic migration is handing off waits (cluster/slot_migration.h).
  bool HeldForMigration(const Client* c) const;
  // Wakes clients waiting on keys that writes made ready, in arrival order, until no key is
  // ready (a served BLMOVE can make another key ready).
  void ServeReadyKeys();
  // Ends waits whose deadline has passed.
  void HandleBlockTimeouts();
  // Ends c's wait (its reply, if any, is already written); its pipelined input resumes in
  // ResumeUnblocked, after the current command, so no client runs inside another's command.
  void EndBlock(Client* c);
  void ResumeUnblocked();
  void RerunBlocked(Client* c);

  Config config_;
  EventLoop loop_;
  std::vector<std::unique_ptr<Db>> dbs_;
  KeyspaceStats keyspace_stats_;
  ServerStats stats_;

  struct Listener {
    int fd;
    bool unix_socket;
    IoWatcher watcher;
    Server* server;
    bool tls = false;  // tls-port: clients speak TLS
  };
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::unordered_map<uint64_t, Client*> clients_;
  std::vector<Client*> pending_writes_;
  std::vector<Client*> monitors_;
  std::vector<Client*> paused_clients_;
  std::vector<Client*> yielded_;  // clients whose pass stopped at the budget (Client::yielded)
  size_t pass_budget_ = SIZE_MAX;  // kPassBudget while a batch of several clients runs
  bool recheck_held_ = false;
  std::vector<Client*> to_close_;
  int64_t client_mem_total_ = 0;  // sum of clients' mem_accounted (maxmemory-clients)
  BlockingRegistry blocking_;
  WatchRegistry watches_;
  AclStore acl_;
  AclLog acl_log_;
  Tracking tracking_;
  uint64_t nested_errors_ = 0;  // error replies of commands run inside another (Call)
  PubSub pubsub_;
  Client* executing_ = nullptr;  // whose top-level command is running (pushes to it wait)
  std::string deferred_pushes_;
  std::vector<Client*> unblocked_;
  Client* rerunning_ = nullptr;  // the blocked client whose command is running again
  // CLUSTER SLOT-STATS: the running EXEC's slot and where its reply starts (its commands are
  // charged the reply so far), and whether the running script has called a command.
  int slot_stats_exec_slot_ = -1;
  const std::string* slot_stats_exec_out_ = nullptr;
  size_t slot_stats_exec_start_ = 0;
  bool slot_stats_script_called_ = false;
  bool serving_ready_ = false;
  std::unique_ptr<ScriptEngine> scripts_;
  Propagator propagator_;
  std::unique_ptr<Aof> aof_;
  std::unique_ptr<Replication> replication_;
  std::unique_ptr<Cluster> cluster_;
  std::unique_ptr<MetricsEndpoint> metrics_;  // metrics-port (server/metrics_endpoint.h)
  Client* busy_caller_ = nullptr;  // whose script is past busy-reply-threshold
  bool busy_eval_ = true;          // EVAL (SCRIPT KILL) rather than FCALL (FUNCTION KILL)
  bool loading_ = false;
  uint64_t next_client_id_ = 1;
  std::shared_ptr<TlsContext> tls_;
  // What the TLS files looked like when tls_ was built (server_tls.cc), and when
  // tls-auto-reload-interval last looked at them.
  std::string tls_materials_;
  int64_t tls_reload_checked_ms_ = 0;
  std::unique_ptr<IoThreadPool> io_pool_;  // io-threads > 1 only
  std::vector<IoReadJob> io_reads_;    // queued by this poll's events
  std::vector<IoReadJob> io_running_;  // read by the threads, run from io_running_next_
  size_t io_running_next_ = 0;
  size_t prefetched_until_ = 0;  // io_running_ jobs below this had their keys prefetched
  std::vector<IoWriteJob> io_writes_;
  bool io_threads_active_ = false;

  int64_t start_time_ms_ = 0;
  uint64_t dirty_ = 0;
  int64_t last_save_time_ = 0;
  SnapshotState snapshot_;
  std::string run_id_;
  std::string executable_;
  CommandLog command_logs_[kCommandLogTypes];
  // The lower of the two size thresholds, as unsigned (-1, off, is the largest): LogCommand's
  // one test for both size logs. OnConfigChanged keeps it.
  uint64_t commandlog_size_gate_ = 0;
  LatencyMonitor latency_monitor_;
  OomScore oom_score_;
  struct ShutdownWait {
    bool active = false;
    int64_t deadline_ms = 0;
    ShutdownSave mode{};
    bool force = false;
    bool safe = false;
  };
  // The final save and exit; false (still running) when the save failed or SAFE refused,
  // without force.
  bool FinishShutdown(ShutdownSave mode, bool force, bool safe);
  // The wait is over without exiting: writes resume, SHUTDOWN's clients get the error.
  void EndShutdownWait();
  ShutdownWait shutdown_wait_;
  struct PauseState {
    int64_t end_ms = 0;  // 0: not paused for this purpose
    bool writes_only = false;
  };
  // Folds the purposes into pause_end_ms_ (the earliest end, 0 when none is paused) and
  // pause_writes_only_ (whether every active one pauses writes only).
  void ApplyPauses();
  PauseState pauses_[static_cast<int>(PausePurpose::kCount)];
  int64_t pause_end_ms_ = 0;
  size_t expire_next_db_ = 0;  // active expiry starts here next tick
  bool pause_writes_only_ = false;
  bool shutdown_requested_ = false;
  int exit_code_ = 0;
};

// The running server (set by main); handlers reach it through their context instead.
Server* TheServer();

}  // namespace vireo
