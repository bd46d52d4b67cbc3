#include "server/server.h"


#include <signal.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "commands/context.h"
#include "commands/errors.h"
#include "common/bytes.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "common/random_hex.h"
#include "common/split_args.h"
#include "net/socket.h"
#include "scripting/script_engine.h"
#include "server/startup_log.h"
#include "cluster/cluster.h"
#include "persistence/aof_loader.h"
#include "persistence/aof_writer.h"
#include "persistence/cow_snapshot.h"
#include "persistence/disk_errors.h"
#include "persistence/snapshot.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/eviction.h"
#include "server/metrics_endpoint.h"
#include "server/notify.h"
#include "server/redact.h"
#include "server/supervise.h"
#include "store/hash_field_expire.h"
#include "store/lazy_free.h"
#include "store/memory.h"

namespace vireo {
namespace {

Server* g_server = nullptr;
volatile sig_atomic_t g_signal_shutdown = 0;

// Holds the signal number; the main loop logs it (logging is not async-signal-safe).
void OnTerminationSignal(int sig) { g_signal_shutdown = sig; }

const char* TerminationSignalName(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

void RecordErrorCode(std::string_view msg) {
  if (g_server == nullptr) return;
  size_t sp = msg.find(' ');
  std::string code(msg.substr(0, sp == std::string_view::npos ? msg.size() : sp));
  ServerStats& st = g_server->stats();
  ++st.total_error_replies;
  // Valkey caps distinct codes at 128 so a client cannot grow the table without bound.
  auto it = st.error_codes.find(code);
  if (it != st.error_codes.end()) {
    ++it->second;
  } else if (st.error_codes.size() < 128) {
    st.error_codes[code] = 1;
  }
}

constexpr const char* kProtectedModeMessage =
    "-DENIED Valkey is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Valkey you may "
    "adopt one of the following solutions: 1) Just disable protected mode sending the command "
    "'CONFIG SET protected-mode no' from the loopback interface by connecting to Valkey from "
    "the same host the server is running, however MAKE SURE Valkey is not publicly accessible "
    "from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) "
    "Alternatively you can just disable the protected mode by editing the Valkey configuration "
    "file, and setting the protected mode option to 'no', and then restarting the server. 3) If "
    "you started the server manually just for testing, restart it with the '--protected-mode "
    "no' option. 4) Set up an authentication password for the default user. NOTE: You only "
    "need to do one of the above things in order for the server to start accepting connections "
    "from the outside.\r\n";

}  // namespace

Server* TheServer() { return g_server; }

Server::Server(Config config) : config_(std::move(config)) {
  g_server = this;
  SetErrorReplyHook(&RecordErrorCode);
  InstallKeyspaceEventHooks();
  ApplyEvictionConfig(config_);
  RefreshCommandLogGate();
  tracking_.SetHooks(
      {this, [](void* s, uint64_t id) { return static_cast<Server*>(s)->FindClient(id); },
       [](void* s, Client* c, std::string_view f) { static_cast<Server*>(s)->DeliverPush(c, f); }});
}

Server::~Server() {
  for (auto& [id, c] : clients_) delete c;
  clients_.clear();
  for (auto& l : listeners_) close(l->fd);
  g_server = nullptr;
}

void Server::InitForTests() {
  start_time_ms_ = NowMs();
  last_save_time_ = start_time_ms_ / 1000;
  run_id_ = RandomHex(40);
  // Cluster mode has cluster-databases of them (Valkey 9; 1 by default, as before 9.0).
  const int64_t databases = ConfigValue(config_, "cluster-enabled") == "yes"
                                ? ConfigValueInt(config_, "cluster-databases", 1)
                                : config_.databases;
  for (int64_t i = 0; i < databases; ++i) {
    dbs_.push_back(std::make_unique<Db>(static_cast<int>(i), &keyspace_stats_));
  }
  aof_ = std::make_unique<Aof>(*this);
  replication_ = std::make_unique<Replication>(*this);
}

bool Server::Init(std::string* error) {
  InitForTests();
  if (!LoadAclAtStartup(error)) return false;
  if (config_.port != 0 && !OpenTcpListeners(static_cast<int>(config_.port), false, error)) {
    return false;
  }
  if (!InitTls(error)) return false;
  if (!config_.unixsocket.empty()) {
    std::string err;
    int fd = ListenUnix(config_.unixsocket, static_cast<int>(config_.unixsocketperm),
                        static_cast<int>(config_.tcp_backlog), &err, config_.unixsocketgroup);
    if (fd < 0) {
      *error = err;
      return false;
    }
    auto l = std::make_unique<Listener>(Listener{fd, true, {}, this});
    l->watcher = {&Server::OnListenerEvent, l.get()};
    loop_.Watch(fd, EventLoop::kReadable, &l->watcher);
    listeners_.push_back(std::move(l));
  }
  if (listeners_.empty()) {
    *error = "Configured to not listen anywhere, exiting.";
    return false;
  }
  if (!StartMetricsEndpoint(*this, &metrics_, error)) return false;
  TrackThreadAllocations();  // the maxmemory gauge follows this thread's allocations
  UseValueArena();           // large values on huge pages (store/memory.h)
  SetAllocatorBackgroundThreads(ConfigValue(config_, "jemalloc-bg-thread") == "yes");
  StartIoThreads();
  signal(SIGPIPE, SIG_IGN);
  struct sigaction sa = {};
  sa.sa_handler = OnTerminationSignal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  LogInitialized(config_);
  // Listening already, as Valkey: clients get LOADING while the dataset loads instead of a
  // refused connection. A corrupt file still stops the start; no half dataset is served.
  // With appendonly yes the AOF is the dataset, as in Valkey (persistence/aof_loader.h).
  if (config_.appendonly ? !StartAofAtStartup(*this, error)
                         : !LoadSnapshotAtStartup(*this, error)) {
    return false;
  }
  oom_score_.Init();      // before replicaof in the config changes the role
  ApplyOomScoreAdj();
  replication_->Start();  // after the load: the file's replication ID and offset continue
  if (ConfigValue(config_, "cluster-enabled") == "yes") {
    cluster_ = std::make_unique<Cluster>(*this);
    if (!cluster_->Init(error)) return false;
    for (auto& db : dbs_) db->TrackSlots();  // keys per slot from now on
  }
  loop_.SetTimer(1000 / std::clamp<int64_t>(config_.hz, 1, 500), [this] { Cron(); });
  // A running fork-less snapshot (BGSAVE) gets a slice after each turn's replies are out,
  // and keeps the loop from sleeping while it has work.
  loop_.SetAfterEvents([this] {
    replication_->Pump();
    FlushPendingWrites();
    AdvanceRehash();
    CowSnapshot::RunSlice();
  });
  loop_.SetWaitLimit([this]() -> int64_t {
    int64_t deadline = blocking_.NextDeadline();
    int64_t limit = deadline == 0 ? -1 : std::max<int64_t>(0, deadline - NowMs());
    if (replication_->transferring() || !yielded_.empty()) return int64_t{0};
    int64_t snapshot = CowSnapshot::WaitMs();
    return snapshot >= 0 && (limit < 0 || snapshot < limit) ? snapshot : limit;
  });
  return true;
}

void Server::Run() {
  loop_.Run();
  if (aof_ != nullptr) aof_->Shutdown();  // written and fsynced before the last replies
  for (Client* c : std::vector<Client*>(pending_writes_)) WriteToClient(c);
  if (!config_.unixsocket.empty()) unlink(config_.unixsocket.c_str());
  if (!config_.pidfile.empty()) unlink(config_.pidfile.c_str());
}

Client* Server::FindClient(uint64_t id) {
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second;
}

bool Server::OpenTcpListeners(int port, bool tls, std::string* error) {
  const size_t before = listeners_.size();
  bool any = false;
  for (const std::string& addr : config_.bind) {
    std::string err;
    int fd = ListenTcp(addr, port, static_cast<int>(config_.tcp_backlog), &err);
    if (fd < 0) {
      // "-addr" marks an optional address (e.g. IPv6 missing): warn and go on.
      if (!addr.empty() && addr[0] == '-') {
        LogWarning("%s", err.c_str());
        continue;
      }
      *error = err;
      // All or nothing (CONFIG SET tls-port keeps its old port).
      for (size_t i = before; i < listeners_.size(); ++i) {
        loop_.Unwatch(listeners_[i]->fd);
        close(listeners_[i]->fd);
      }
      listeners_.resize(before);
      return false;
    }
    any = true;
    auto l = std::make_unique<Listener>(Listener{fd, false, {}, this, tls});
    l->watcher = {&Server::OnListenerEvent, l.get()};
    loop_.Watch(fd, EventLoop::kReadable, &l->watcher);
    listeners_.push_back(std::move(l));
  }
  if (!any) {
    *error = "Failed listening on port " + std::to_string(port) + (tls ? " (tls)" : " (tcp)") +
             ", aborting.";
  }
  return any;
}

void Server::OnListenerEvent(void* obj, uint32_t) {
  auto* l = static_cast<Listener*>(obj);
  l->server->AcceptClients(l->fd, l->unix_socket, l->tls);
}

void Server::AcceptClients(int listen_fd, bool unix_socket, bool tls) {
  // Bounded per event so a connection storm cannot starve connected clients.
  for (int i = 0; i < 1000; ++i) {
    int fd = AcceptConnection(listen_fd);
    if (fd < 0) return;
    ++stats_.total_connections_received;
    // A TLS peer cannot read plaintext before its handshake: refusals just close.
    if (static_cast<int64_t>(clients_.size()) >= config_.maxclients) {
      static const char kMsg[] = "-ERR max number of clients reached\r\n";
      ssize_t ignored = tls ? 0 : write(fd, kMsg, sizeof(kMsg) - 1);
      (void)ignored;
      ++stats_.rejected_connections;
      close(fd);
      continue;
    }
    if (ProtectedModeDenies(config_.protected_mode, !acl_.default_user()->nopass(), unix_socket,
                            !unix_socket && IsLoopbackPeer(fd))) {
      ssize_t ignored = tls ? 0 : write(fd, kProtectedModeMessage, strlen(kProtectedModeMessage));
      (void)ignored;
      ++stats_.rejected_connections;
      close(fd);
      continue;
    }
    TlsSession* session = tls ? AcceptTls(fd) : nullptr;
    if (tls && session == nullptr) {
      close(fd);
      continue;
    }
    if (!unix_socket) {
      SetNoDelay(fd);
      if (config_.tcp_keepalive > 0) SetKeepAlive(fd, static_cast<int>(config_.tcp_keepalive));
    }
    auto* c = new Client(next_client_id_++, fd);
    if (session != nullptr) c->conn.SetTls(session);
    c->watcher = {&Server::OnClientEvent, c};
    c->ctime_ms = c->last_interaction_ms = NowMs();
    c->addr = PeerAddress(fd);
    c->laddr = LocalAddress(fd);
    if (unix_socket) {
      c->flags |= kClientUnixSocket;
      c->addr = config_.unixsocket + ":0";
      c->laddr = c->addr;
    }
    SetClientUser(c, acl_.default_user());
    c->authenticated = !AuthRequired();
    clients_[c->id] = c;
    loop_.Watch(fd, EventLoop::kReadable, &c->watcher);
  }
}

Client* Server::AdoptConnection(int fd, uint32_t flags, TlsSession* tls) {
  auto* c = new Client(next_client_id_++, fd);
  if (tls != nullptr) c->conn.SetTls(tls);
  c->watcher = {&Server::OnClientEvent, c};
  c->ctime_ms = c->last_interaction_ms = NowMs();
  c->addr = PeerAddress(fd);
  c->laddr = LocalAddress(fd);
  c->flags |= flags;
  c->authenticated = true;
  clients_[c->id] = c;
  loop_.Watch(fd, EventLoop::kReadable, &c->watcher);
  return c;
}

void Server::FeedClientInput(Client* c, std::string_view bytes) {
  if (bytes.empty()) return;
  c->conn.AppendInput(bytes.data(), bytes.size());
  ProcessInput(c);
}

void Server::OnClientEvent(void* obj, uint32_t events) {
  auto* c = static_cast<Client*>(obj);
  g_server->HandleClientEvent(c, events);
}

void Server::HandleClientEvent(Client* c, uint32_t events) {
  // A busy script's caller waits (reads included) until its script ends.
  if (c == busy_caller_) return;
  if (events & EventLoop::kWritable) {
    // A TLS read that had to send first goes on now that it can.
    if (c->conn.ReadWantsWritable()) [[unlikely]] events |= EventLoop::kReadable;
    const uint64_t id = c->id;  // c may be freed by the write
    WriteToClient(c);
    if (clients_.count(id) == 0) return;
  }
  if (!(events & EventLoop::kReadable)) return;
  // Read, parsed and run after the poll, in a batch (server_io.cc). A paused client keeps
  // reading (the level-triggered loop would spin on unread bytes); ProcessInput leaves its
  // commands waiting, and the query buffer limit still applies.
  QueueRead(c);
}

void Server::HandleRead(Client* c, Connection::ReadResult r) {
  if (r == Connection::ReadResult::kWouldBlock) {
    if (c->conn.ReadWantsWritable()) [[unlikely]] WatchWritable(c);
    return;
  }
  if (r != Connection::ReadResult::kData) {
    if (r == Connection::ReadResult::kError && c->conn.tls() != nullptr) LogTlsFailure(c);
    FreeClient(c);
    return;
  }
  c->last_interaction_ms = NowMs();
  // The handshake is over once data arrives: the certificate may name the client's user.
  if (c->conn.tls() != nullptr && !c->tls_peer_checked) [[unlikely]] {
    LoginFromCertificate(c);
  }
  if (QueryBufferOverLimit(c)) {
    FreeClient(c);
    return;
  }
  ProcessInput(c);
}

bool Server::QueryBufferOverLimit(Client* c) {
  // The master's stream and an atomic migration's stream are exempt, as Valkey's primary.
  if (static_cast<int64_t>(c->conn.QueryBytes()) <= config_.client_query_buffer_limit ||
      (c->flags & kClientMaster) || c->migration != nullptr) {
    return false;
  }
  LogWarning("Closing client that reached max query buffer length: id=%llu addr=%s",
             static_cast<unsigned long long>(c->id), c->addr.c_str());
  ++stats_.client_query_buffer_limit_disconnections;
  return true;
}

void Server::MaybeReadBigArg(Client* c) {
  // The master's stream and a migration's are passed on as the bytes in the input buffer, and
  // TLS reads through the library: their arguments stay in the input.
  size_t at = 0, len = 0;
  if (c->conn.HasBigArg() || c->parser.HasDetachedBulk() || !c->parser.PendingBulk(&at, &len) ||
      len < Connection::kBigArgMin || c->conn.tls() != nullptr ||
      (c->flags & kClientMaster) || c->migration != nullptr) {
    return;
  }
  if (c->conn.InputSize() - at < len + 2) c->conn.BeginBigArg(at, len + 2);
}

[[gnu::noinline]] bool Server::ReadMoreOfBigArg(Client* c, int* reads) {
  // The pipeline's next values are often in the socket already; without this, each one would
  // wait for the next event-loop turn and be answered with a write of its own. Only for a
  // client alone in its turn: reading on for one while others wait puts their first replies
  // behind its whole pipeline (SET -d 65536 -P 16 from 50 clients: 1.9x Valkey's throughput,
  // but twice its p99).
  if (io_running_.size() > 1 || *reads >= kBigArgReadsPerPass || !c->conn.BigArgArriving() ||
      (c->flags & (kClientCloseAfterReply | kClientCloseAsap | kClientPaused | kClientBlocked))) {
    return false;
  }
  // The replies so far go out before reading on (once a pass), so the pipeline's first reply
  // does not wait for the rest of its values; the others leave together at the end. As at the
  // end of a turn, the AOF is written (and fsynced per policy) before any reply leaves.
  if (*reads == 0 && c->conn.PendingOutput() > 0) {
    if (aof_ != nullptr) aof_->BeforeReplies();
    if (c->conn.Flush() == Connection::WriteResult::kError) {
      CloseClientAsync(c);
      return false;
    }
  }
  ++*reads;
  // An end or error is left to the next event, which reports it again.
  if (c->conn.Read(0) != Connection::ReadResult::kData) return false;
  // HandleRead's check, for this read (no other event may come: the client may wait).
  if (QueryBufferOverLimit(c)) {
    CloseClientAsync(c);
    return false;
  }
  return true;
}

[[gnu::noinline]] bool Server::FlushWithinPass(Client* c, size_t* flush_at) {
  if (io_pool_ != nullptr) {
    *flush_at = SIZE_MAX;
    return true;
  }
  // As at the end of a turn, the AOF is written (and fsynced per policy) before any reply
  // leaves.
  if (aof_ != nullptr) aof_->BeforeReplies();
  switch (c->conn.Flush()) {
    case Connection::WriteResult::kDone:
      return true;
    case Connection::WriteResult::kPending:
      *flush_at = SIZE_MAX;  // the end of the turn watches for writability
      return true;
    case Connection::WriteResult::kError:
      break;
  }
  CloseClientAsync(c);
  return false;
}

[[gnu::noinline]] bool Server::YieldPass(Client* c) {
  if (c->conn.InputSize() == 0 || c->yielded || (c->flags & kClientMaster) ||
      c->migration != nullptr ||
      (c->flags & (kClientCloseAfterReply | kClientCloseAsap | kClientPaused | kClientBlocked))) {
    return false;
  }
  c->yielded = true;
  yielded_.push_back(c);
  return true;
}

void Server::ResumeYielded() {
  if (yielded_.empty()) return;
  std::vector<Client*> batch;
  batch.swap(yielded_);
  const size_t saved = pass_budget_;
  pass_budget_ = batch.size() + io_reads_.size() > 1 ? kPassBudget : SIZE_MAX;
  for (Client* c : batch) {
    if (clients_.count(c->id) == 0) continue;  // freed (FreeClient drops it from yielded_ too)
    c->yielded = false;
    ProcessInput(c);
  }
  pass_budget_ = saved;
}

RequestParser::Result Server::ParseWithBigArg(Client* c, const ParserLimits& limits,
                                              size_t* consumed, size_t* request_extra) {
  if (!c->parser.InProgress()) {
    c->conn.ReleaseBigArg();  // the previous command's, which has run
  } else if (c->conn.BigArgComplete() && !c->parser.HasDetachedBulk()) {
    c->parser.TakeBulkFrom(c->conn.BigArgData());
  }
  const size_t big = c->conn.BigArgSize();
  RequestParser::Result r =
      c->parser.Parse(c->conn.InputData(), c->conn.InputSize(), limits, consumed, &c->args);
  if (r == RequestParser::Result::kCommand) *request_extra = big;
  return r;
}

void Server::ProcessInput(Client* c) {
  ParserLimits limits;
  // The master's and a slot migration's streams may carry any value the peer holds (Valkey
  // exempts its primary the same way).
  limits.max_bulk_len = ((c->flags & kClientMaster) || c->migration != nullptr)
                            ? std::max<int64_t>(config_.proto_max_bulk_len, 4LL << 30)
                            : config_.proto_max_bulk_len;
  limits.authenticated = c->authenticated;
  // Look-ahead over a pipeline: the next few complete commands are parsed before their turn
  // and the bucket of each one's first argument prefetched, so those cache misses overlap the
  // current command's work; they then run from that parse instead of being parsed again. A
  // parser of its own, so the client's is untouched; it takes only multibulk commands (inline
  // ones live in the parser's storage) and stops at anything else.
  constexpr size_t kLookAhead = Client::kLookAhead;
  constexpr size_t kEntryDistance = Client::kEntryDistance;
  size_t ahead_bytes[kLookAhead];  // ring over c->ahead: commands after the current one
  uint64_t ahead_hash[kLookAhead];  // of each one's first argument, when it has one
  size_t ahead_head = 0;
  size_t ahead_count = 0;
  size_t ahead_off = 0;  // input bytes parsed ahead, from InputData()
  bool ahead_done = false;
  RequestParser ahead_parser;
  if (c->io_parsed != 0) {
    // An I/O thread parsed the first commands (io-threads > 1): they fill the ring from its
    // first slot, as if parsed ahead here.
    Db* db = dbs_[static_cast<size_t>(c->db_index)].get();
    ahead_count = c->io_parsed;
    for (size_t i = 0; i < ahead_count; ++i) {
      ahead_bytes[i] = c->io_parsed_bytes[i];
      ahead_off += ahead_bytes[i];
      if (c->ahead[i].size() > 1) {
        ahead_hash[i] = c->io_hashed ? c->io_hash[i] : db->Prefetch(c->ahead[i][1]);
      }
    }
    if (!c->io_hashed) {
      // Not prefetched with the batch (a read on its own): the first entries now.
      for (size_t i = 0; i < std::min(ahead_count, kEntryDistance); ++i) {
        if (c->ahead[i].size() > 1) db->PrefetchEntry(ahead_hash[i]);
      }
    }
    ahead_done = c->io_parse_stopped;
    c->io_parsed = 0;
    c->io_hashed = false;
  }
  int big_arg_reads = 0;
  size_t flush_at = kFlushWithinPass;
  size_t pass_bytes = 0;  // the large requests run in this pass
  while (c->conn.InputSize() > 0 && !(c->flags & (kClientCloseAfterReply | kClientCloseAsap |
                                                  kClientPaused | kClientBlocked))) {
    if (limits.authenticated != c->authenticated) {
      // AUTH or RESET changed the request limits: what was parsed ahead under the old ones
      // is parsed again.
      limits.authenticated = c->authenticated;
      ahead_count = 0;
      ahead_off = 0;
      ahead_done = false;
    }
    Db* db = dbs_[static_cast<size_t>(c->db_index)].get();  // the command's (before a SELECT)
    size_t consumed = 0;
    size_t request_extra = 0;  // a big argument's bytes, read apart from the input
    RequestParser::Result r;
    bool hashed = false;  // the look-ahead computed args[1]'s hash: key_hash
    uint64_t key_hash = 0;
    if (ahead_count > 0) {
      c->args.swap(c->ahead[ahead_head]);
      consumed = ahead_bytes[ahead_head];
      if (c->args.size() > 1) {
        hashed = true;
        key_hash = ahead_hash[ahead_head];  // a copy: the slot is refilled below
      }
      ahead_head = (ahead_head + 1) % kLookAhead;
      --ahead_count;
      if (ahead_count >= kEntryDistance) {
        size_t later = (ahead_head + kEntryDistance - 1) % kLookAhead;
        if (c->ahead[later].size() > 1) db->PrefetchEntry(ahead_hash[later]);
      }
      if (ahead_count > 0 && c->ahead[ahead_head].size() > 1) {
        // The next command's first entry has arrived by now (requested commands earlier).
        db->PrefetchNext(c->ahead[ahead_head][1], ahead_hash[ahead_head]);
      }
      r = RequestParser::Result::kCommand;
    } else if (c->conn.HasBigArg()) [[unlikely]] {
      r = ParseWithBigArg(c, limits, &consumed, &request_extra);
    } else {
      r = c->parser.Parse(c->conn.InputData(), c->conn.InputSize(), limits, &consumed, &c->args);
    }
    if (r == RequestParser::Result::kIncomplete) {
      MaybeReadBigArg(c);
      // (Nothing is parsed ahead here, so the read may move the input.)
      if (c->conn.HasBigArg() && ReadMoreOfBigArg(c, &big_arg_reads)) [[unlikely]] continue;
      break;
    }
    if (r == RequestParser::Result::kError) {
      // Valkey replies the protocol error (unless replies are off), then closes the connection.
      c->reply.SetOutput((c->flags & kClientReplyOff) ? &c->discard : c->conn.Output());
      c->reply.Error(std::string("ERR ") + std::string(c->parser.Error()));
      LogVerbose("Protocol error (%s) from client: id=%llu addr=%s",
                 std::string(c->parser.Error()).c_str(), static_cast<unsigned long long>(c->id),
                 c->addr.c_str());
      c->flags |= kClientCloseAfterReply;
      c->conn.ConsumeInput(c->conn.InputSize());
      break;
    }
    if (r == RequestParser::Result::kCommand) {
      if ((paused() && IsPausedFor(c, Commands().Resolve(c->args))) ||
          (cluster_ != nullptr && cluster_->migrations().holding() && HeldForMigration(c)))
          [[unlikely]] {
        // Leave the command in the buffer; the parser re-reads it on resume.
        c->flags |= kClientPaused;
        paused_clients_.push_back(c);
        c->args.clear();
        c->conn.ReturnBigArgToInput();
        break;
      }
      if (!ahead_done) {
        if (ahead_off < consumed) ahead_off = consumed;
        const char* data = c->conn.InputData();
        size_t size = c->conn.InputSize();
        while (ahead_count < kLookAhead && ahead_off < size) {
          size_t slot = (ahead_head + ahead_count) % kLookAhead;
          std::vector<std::string_view>& args = c->ahead[slot];
          if (data[ahead_off] != '*' ||
              ahead_parser.Parse(data + ahead_off, size - ahead_off, limits, &ahead_bytes[slot],
                                 &args) != RequestParser::Result::kCommand) {
            ahead_done = true;
            break;
          }
          ++ahead_count;
          if (args.size() > 1) ahead_hash[slot] = db->Prefetch(args[1]);
          ahead_off += ahead_bytes[slot];
        }
      }
      if (hashed) db->HintHash(c->args[1], key_hash);
      c->request_bytes = consumed + request_extra;
      if (config_.cluster_slot_stats_enabled) [[unlikely]] {
        c->inline_request = c->conn.InputData()[0] != '*';  // CLUSTER SLOT-STATS counts it apart
      }
      if (c->flags & kClientMaster) [[unlikely]] {
        // The master's commands see keys its DELs have not removed yet; what they applied
        // goes on to this server's replicas unchanged.
        Db::SetExpiryMode(Db::ExpiryMode::kKeep);
        Execute(c);
        RefreshExpiryMode();
        replication_->MasterApplied(c->conn.InputData(), consumed);
      } else if (c->migration != nullptr) [[unlikely]] {
        // As the master's stream: the source decides when its keys expire.
        Db::SetExpiryMode(Db::ExpiryMode::kKeep);
        Execute(c);
        RefreshExpiryMode();
        // The import stream's replies are dropped; an error (OOM, ...) ends the import.
        if (!c->discard.empty() && c->discard[0] == '-' && cluster_ != nullptr) {
          std::string_view e(c->discard);
          e.remove_prefix(1);
          if (size_t eol = e.find('\r'); eol != std::string_view::npos) e = e.substr(0, eol);
          cluster_->migrations().ImportCommandFailed(c, e);
        }
      } else {
        Execute(c);
      }
      if (hashed) db->ClearHint();  // before its bytes are consumed
      // CLIENT CACHING covers the next command or transaction only; CLIENT's own subcommands
      // keep it, as in Valkey.
      if ((c->flags & kClientTrackingCaching) && !(c->flags & kClientMulti) &&
          !EqualsIgnoreCase(c->args[0], "client")) {
        c->flags &= ~kClientTrackingCaching;
      }
      if (blocking_.HasReady()) ServeReadyKeys();
      EnforceOutputLimit(c);
    }
    c->conn.ConsumeInput(consumed);
    c->args.clear();
    ahead_off = ahead_off > consumed ? ahead_off - consumed : 0;
    if (c->conn.Output()->size() >= flush_at) [[unlikely]] {
      if (!FlushWithinPass(c, &flush_at)) break;
    }
    // Only large requests count: a read of small commands brings at most 16 KB of them.
    if (consumed + request_extra >= kPassLargeRequest) [[unlikely]] {
      pass_bytes += consumed + request_extra;
      if (pass_bytes >= pass_budget_ && YieldPass(c)) break;
    }
  }
  // A big argument whose command has run (unless SET kept it as the value).
  if (c->conn.HasBigArg() && !c->parser.InProgress()) [[unlikely]] c->conn.ReleaseBigArg();
  AccountClientMemory(c);
  if (c->conn.PendingOutput() > 0 && !(c->flags & kClientPendingWrite)) {
    c->flags |= kClientPendingWrite;
    pending_writes_.push_back(c);
  } else if ((c->flags & kClientCloseAfterReply) && c->conn.PendingOutput() == 0) {
    FreeClient(c);
  }
}

void Server::AdvanceRehash() {
  const uint64_t ran = stats_.total_commands_processed - rehash_commands_seen_;
  rehash_commands_seen_ = stats_.total_commands_processed;
  if (ran == 0) return;
  // Not tied to activerehashing, which (as in Valkey) governs only the periodic task's share.
  // Capped, so one large turn costs at most a few tens of microseconds.
  const size_t steps = static_cast<size_t>(std::min<uint64_t>(ran, 1000));
  for (auto& db : dbs_) {
    if (db->Rehashing()) db->RehashSteps(steps);
  }
}

void Server::FlushPendingWrites() {
  // Replies of a whole event batch go out together: one write per client per loop turn.
  // Clients held by a pause that has ended run their waiting commands first, here rather than
  // inside the command that ended it, so no client runs commands inside another's.
  if (!paused_clients_.empty() && (!paused() || recheck_held_)) {
    recheck_held_ = false;
    std::vector<Client*> resume;
    resume.swap(paused_clients_);
    for (Client* c : resume) c->flags &= ~kClientPaused;
    for (Client* c : resume) {
      // An earlier resumed client may have killed this one (CLIENT KILL): that only marks it.
      ProcessInput(c);
    }
  }
  HandleBlockTimeouts();
  ResumeUnblocked();
  if (tracking_.Armed()) {
    tracking_.BroadcastPending();
    tracking_.EnforceLimit(config_.tracking_table_max_keys);
  }
  // Clients over maxmemory-clients go before their replies are written.
  if (config_.maxmemory_clients != 0) EvictClients();
  replication_->FlushAckRequest();
  // The AOF is written (and under appendfsync always, fsynced) before any reply goes out.
  if (aof_ != nullptr) aof_->BeforeReplies();
  std::vector<Client*> batch;
  batch.swap(pending_writes_);
  if (io_pool_ != nullptr) {
    WriteBatch(batch);
  } else {
    for (Client* c : batch) {
      if (clients_.count(c->id) == 0) continue;
      c->flags &= ~kClientPendingWrite;
      WriteToClient(c);
    }
  }
  for (Client* c : std::vector<Client*>(to_close_)) FreeClient(c);
  to_close_.clear();
  if (g_signal_shutdown) ShutdownOnSignal();
}

void Server::WriteToClient(Client* c) {
  if (c->flags & kClientCloseAsap) {
    FreeClient(c);
    return;
  }
  ++stats_.total_writes_processed;
  AfterFlush(c, c->conn.Flush());
}

void Server::AfterFlush(Client* c, Connection::WriteResult r) {
  if (r == Connection::WriteResult::kError) {
    FreeClient(c);
    return;
  }
  if (r == Connection::WriteResult::kPending) {
    if (!c->watching_writable) {
      loop_.Watch(c->conn.fd(), EventLoop::kReadable | EventLoop::kWritable, &c->watcher);
      c->watching_writable = true;
    }
    AccountClientMemory(c);
    return;
  }
  AccountClientMemory(c);
  if (c->watching_writable) {
    loop_.Watch(c->conn.fd(), EventLoop::kReadable, &c->watcher);
    c->watching_writable = false;
  }
  if (c->flags & kClientCloseAfterReply) FreeClient(c);
}

void Server::FreeClient(Client* c) {
  if (clients_.erase(c->id) == 0) return;
  loop_.Unwatch(c->conn.fd());
  if (c->flags & (kClientReplica | kClientMaster | kClientBlocked)) replication_->ClientClosed(c);
  if (c->migration != nullptr && cluster_ != nullptr) cluster_->migrations().ClientClosed(c);
  if (c->block) blocking_.Remove(c);
  if (c->multi) watches_.UnwatchAll(c);
  if (c->subs) pubsub_.RemoveClient(c);
  if (c->flags & kClientTracking) tracking_.Disable(c);
  stats_.net_input_bytes += c->conn.BytesRead();
  stats_.net_output_bytes += c->conn.BytesWritten();
  client_mem_total_ -= c->mem_accounted;
  auto drop = [c](std::vector<Client*>& v) {
    v.erase(std::remove(v.begin(), v.end(), c), v.end());
  };
  drop(pending_writes_);
  drop(monitors_);
  drop(paused_clients_);
  drop(yielded_);
  drop(to_close_);
  drop(unblocked_);
  delete c;
}

void Server::CloseClientAsync(Client* c) {
  if (c->flags & kClientCloseAsap) return;  // already queued: freeing twice would be fatal
  c->flags |= kClientCloseAsap;
  to_close_.push_back(c);
}

void Server::AddMonitor(Client* c) {
  if (std::find(monitors_.begin(), monitors_.end(), c) == monitors_.end()) monitors_.push_back(c);
  c->flags |= kClientMonitor;
}

void Server::RemoveMonitor(Client* c) {
  monitors_.erase(std::remove(monitors_.begin(), monitors_.end(), c), monitors_.end());
  c->flags &= ~kClientMonitor;
}

void Server::Pause(PausePurpose purpose, int64_t end_ms, bool writes_only) {
  PauseState& p = pauses_[static_cast<int>(purpose)];
  // A pause during a pause can only extend the time and widen the scope, as in Valkey.
  if (p.end_ms != 0) {
    p.end_ms = std::max(p.end_ms, end_ms);
    p.writes_only = p.writes_only && writes_only;
  } else {
    p.end_ms = std::max<int64_t>(end_ms, 1);  // 0 means "not paused"
    p.writes_only = writes_only;
  }
  ApplyPauses();
}

void Server::Unpause(PausePurpose purpose) {
  // The held clients resume in FlushPendingWrites, after the current command and event batch.
  pauses_[static_cast<int>(purpose)] = PauseState{};
  ApplyPauses();
}

void Server::ApplyPauses() {
  const bool was_paused = paused();
  pause_end_ms_ = 0;
  pause_writes_only_ = true;
  for (const PauseState& p : pauses_) {
    if (p.end_ms == 0) continue;
    pause_end_ms_ = pause_end_ms_ == 0 ? p.end_ms : std::min(pause_end_ms_, p.end_ms);
    pause_writes_only_ = pause_writes_only_ && p.writes_only;
  }
  if (!paused()) pause_writes_only_ = false;
  if (paused() != was_paused) RefreshExpiryMode();
}

void Server::RefreshExpiryMode() {
  Db::SetExpiryMode(replication_->is_replica() || paused() ? Db::ExpiryMode::kHide
                                                           : Db::ExpiryMode::kDelete);
}

bool Server::HeldForMigration(const Client* c) const {
  const CommandSpec* spec = Commands().Resolve(c->args);
  if (spec == nullptr || ((c->flags & kClientMulti) && spec->name != "exec")) return false;
  return cluster_->migrations().HoldsWrite(c, spec);
}

bool Server::IsPausedFor(const Client* c, const CommandSpec* spec) const {
  // Commands Execute rejects anyway (unknown, wrong arity, NOAUTH) get their error at once,
  // as in Valkey, where those checks come before the pause.
  if (spec == nullptr) return false;
  int argc = static_cast<int>(c->args.size());
  if ((spec->arity > 0 && argc != spec->arity) || (spec->arity < 0 && argc < -spec->arity)) {
    return false;
  }
  if (!c->authenticated && !(spec->flags & kCmdNoAuth)) return false;
  // A replica refuses writes (READONLY) before holding them, as Valkey does.
  if (replication_->restricts() &&
      replication_->RefuseCommand(c, spec->flags, (spec->flags & kCmdWrite) != 0) != nullptr) {
    return false;
  }
  if (!pause_writes_only_) return true;
  // WRITE pauses also hold commands that may write (EVAL, PUBLISH in a cluster, ...), and
  // an EXEC whose queue holds such commands.
  const uint32_t writes = kCmdWrite | kCmdMayReplicate;
  if ((c->flags & kClientMulti) && c->multi && (c->multi->queued_flags & writes) &&
      spec->name == "exec") {
    return true;
  }
  return (spec->flags & writes) != 0;
}

void Server::ShutdownOnSignal() {
  const int signal = g_signal_shutdown;
  const char* sig = TerminationSignalName(signal);
  g_signal_shutdown = 0;
  if (shutdown_wait_.active) {
    // Already waiting for replicas: a second Ctrl-C means now, without saving (as Valkey).
    if (signal == SIGINT) {
      LogWarning("You insist... exiting now.");
      RequestShutdown(1);
    }
    return;
  }
  // Valkey's line, so log watchers written for it match.
  LogWarning("Received %s scheduling shutdown...", sig);
  // shutdown-on-sigterm / shutdown-on-sigint: "default", or save / nosave / now / force / safe.
  const std::string how =
      ConfigValue(config_, signal == SIGINT ? "shutdown-on-sigint" : "shutdown-on-sigterm");
  auto has = [&how](std::string_view word) { return how.find(word) != std::string::npos; };
  const ShutdownSave mode = has("nosave") ? ShutdownSave::kNoSave
                            : has("save") ? ShutdownSave::kSave
                                          : ShutdownSave::kDefault;
  if (BeginShutdown(mode, has("now"), has("force"), has("safe")) == ShutdownStep::kFailed) {
    LogWarning(
        "%s received but errors trying to shut down the server, check the logs for more "
        "information",
        sig);
  }
}

void Server::RequestShutdown(int exit_code) {
  if (!shutdown_requested_) SupervisorStopping();
  shutdown_requested_ = true;
  exit_code_ = exit_code;
  loop_.Stop();
}

void Server::ApplyOomScoreAdj() {
  oom_score_.Apply(ConfigValue(config_, "oom-score-adj"),
                   ConfigValue(config_, "oom-score-adj-values"), replication_->is_replica());
}

void Server::OnConfigChanged(std::string_view name) {
  if (name == "oom-score-adj" || name == "oom-score-adj-values") ApplyOomScoreAdj();
  if (name == "loglevel") ConfigureLog(config_.loglevel, config_.logfile);
  if (name == "log-format" || name == "log-timestamp-format") {
    SetLogFormats(config_.log_format, config_.log_timestamp_format);
  }
  if (name == "commandlog-request-larger-than" || name == "commandlog-reply-larger-than") {
    RefreshCommandLogGate();
  }
  if (name == "maxmemory-policy" || name == "lfu-log-factor" || name == "lfu-decay-time") {
    ApplyEvictionConfig(config_);
  }
  // A lowered limit takes effect at once, as in Valkey.
  if (name == "maxmemory" || name == "maxmemory-policy") PerformEvictions(*this);
  if (name == "io-threads") ApplyIoThreads();
  if (name == "jemalloc-bg-thread") {
    SetAllocatorBackgroundThreads(ConfigValue(config_, "jemalloc-bg-thread") == "yes");
  }
  if (name == "hz") loop_.SetTimerPeriod(1000 / std::clamp<int64_t>(config_.hz, 1, 500));
  if (aof_ != nullptr) AofConfigChanged(*this, name);
  replication_->RefreshRestrictions();
  if (name == "requirepass") acl_.SetRequirePass(config_.requirepass);
  if (name == "acl-pubsub-default") {
    acl_.set_all_channels_default(ConfigValue(config_, "acl-pubsub-default") == "allchannels");
  }
  if (name == "acllog-max-len") acl_log_.Trim(ConfigValueInt(config_, "acllog-max-len", 128));
  if ((name == "maxmemory-clients" || name == "maxmemory") && config_.maxmemory_clients != 0) {
    RecountClientMemory();  // shares were not kept while the limit was off
    EvictClients();
  }
}

void Server::Cron() {
  RefreshCommandTime();
  int64_t now = NowMs();
  if (pause_end_ms_ != 0 && now >= pause_end_ms_) {
    for (int p = 0; p < static_cast<int>(PausePurpose::kCount); ++p) {
      if (pauses_[p].end_ms != 0 && now >= pauses_[p].end_ms) {
        Unpause(static_cast<PausePurpose>(p));
      }
    }
  }
  // Active expiry, like Valkey's slow cycle: slices of buckets per database while more than
  // ~10% of a slice had expired, within 25% of a tick (more with active-expire-effort).
  // A cycle out of time resumes with the same database next tick; otherwise the next one
  // starts, so a busy database cannot starve the others.
  // A replica's keys expire by its master's DELs only, and paused clients see still data.
  if (config_.active_expire_enabled && !replication_->is_replica() && !paused()) {
    int64_t effort = std::clamp<int64_t>(config_.active_expire_effort, 1, 10) - 1;
    int64_t tick_us = 1000000 / std::clamp<int64_t>(config_.hz, 1, 500);
    int64_t budget_us = tick_us * (25 + 2 * effort) / 100;
    size_t buckets = static_cast<size_t>(200 * (effort + 1));
    size_t stale_percent = static_cast<size_t>(10 - effort);
    int64_t start = MonotonicUs();
    bool out_of_time = false;
    size_t n = 0;
    for (; n < dbs_.size(); ++n) {
      Db* db = dbs_[(expire_next_db_ + n) % dbs_.size()].get();
      while (db->VolatileCount() > 0) {
        size_t expired = db->ActiveExpire(buckets);
        out_of_time = MonotonicUs() - start > budget_us;
        if (out_of_time || expired * 100 < buckets * stale_percent) break;
      }
      if (out_of_time) break;
    }
    expire_next_db_ = (expire_next_db_ + (out_of_time ? n : 1)) % dbs_.size();
    // Hash fields with their own TTL: a bounded sweep per database (a no-op while no hash has
    // a volatile field).
    for (auto& db : dbs_) {
      Db* d = db.get();
      auto on_expired = [this, d](std::string_view key, size_t, bool deleted) {
        watches_.Touch(d, key);
        NotifyKeyspaceEvent(*this, kNotifyHash, "hexpired", d->index(), key);
        if (deleted) NotifyKeyspaceEvent(*this, kNotifyGeneric, "del", d->index(), key);
      };
      ActiveExpireHashFields(d, buckets, CommandTimeMs(), kActiveExpireMaxFields, on_expired);
    }
    keyspace_stats_.expire_cycle_cpu_us += static_cast<uint64_t>(MonotonicUs() - start);
    latency_monitor_.Note(config_.latency_monitor_threshold, "expire-cycle",
                          MonotonicUs() - start);
  }
  {
    // activerehashing: like Valkey, up to a millisecond per run of this task finishes a
    // rehash (a table of 10M keys would otherwise hold both bucket arrays for a long while).
    const int64_t deadline = config_.activerehashing ? MonotonicUs() + 1000 : 0;
    for (auto& db : dbs_) {
      if (db->Housekeeping(deadline)) break;
    }
  }
  SnapshotCron(*this);
  TlsAutoReloadCron(now);
  if (aof_ != nullptr) aof_->Cron();
  replication_->Cron();
  ShutdownCheck();
  if (cluster_ != nullptr) cluster_->Cron();
  if (config_.timeout > 0) {
    std::vector<Client*> idle;
    for (auto& [id, c] : clients_) {
      if (c->flags & (kClientMonitor | kClientBlocked | kClientPaused)) continue;
      if (now - c->last_interaction_ms > config_.timeout * 1000) idle.push_back(c);
    }
    for (Client* c : idle) FreeClient(c);
  }
  // Clients idle for a while give their drained read buffer back (16 KB each adds up), and
  // an output buffer that busy turns kept.
  for (auto& [id, c] : clients_) {
    if (now - c->last_interaction_ms > 2000) {
      c->conn.ReleaseInputIfEmpty();
      c->conn.ReleaseOutputIfEmpty();
    }
  }
  if (config_.maxmemory_clients != 0) {
    RecountClientMemory();  // corrects shares that changed where no one accounted for them
    EvictClients();
  }
  // Instantaneous ops/sec over the last interval.
  if (stats_.ops_sample_time_ms != 0 && now > stats_.ops_sample_time_ms) {
    double ops = static_cast<double>(stats_.total_commands_processed - stats_.ops_sample_count);
    stats_.instantaneous_ops_per_sec =
        ops * 1000.0 / static_cast<double>(now - stats_.ops_sample_time_ms);
  }
  stats_.ops_sample_time_ms = now;
  stats_.ops_sample_count = stats_.total_commands_processed;
  if (g_signal_shutdown) ShutdownOnSignal();
}

void Server::FeedMonitors(Client* c, const std::vector<std::string_view>& args) {
  if (monitors_.empty()) return;
  // Secrets never reach monitors (server/redact.h).
  std::vector<bool> redact = SecretArguments(args);
  int64_t us = NowUs();
  char head[64];
  snprintf(head, sizeof(head), "+%lld.%06lld [%d ", static_cast<long long>(us / 1000000),
           static_cast<long long>(us % 1000000), c->db_index);
  std::string line = head;
  if (c->flags & kClientUnixSocket) line += "unix:" + config_.unixsocket;
  else line += c->addr;
  line += ']';
  for (size_t i = 0; i < args.size(); ++i) {
    line += ' ';
    line += redact[i] ? "\"(redacted)\"" : QuoteArg(args[i]);
  }
  line += "\r\n";
  // The client's own command reaches it too when it is a monitor itself, as in Valkey.
  for (Client* m : monitors_) {
    m->conn.Output()->append(line);
    if (!(m->flags & kClientPendingWrite)) {
      m->flags |= kClientPendingWrite;
      pending_writes_.push_back(m);
    }
  }
}

void Server::LogLargeCommand(Client* c, const std::vector<std::string_view>& args,
                             uint64_t reply_growth) {
  if (c->request_bytes >= static_cast<uint64_t>(config_.commandlog_request_larger_than)) {
    PushCommandLog(CommandLogType::kLargeRequest, c, args, static_cast<int64_t>(c->request_bytes));
  }
  // A growth past 2^62 is a buffer flushed during the command: its size is unknown.
  if (reply_growth >= static_cast<uint64_t>(config_.commandlog_reply_larger_than) &&
      reply_growth < (uint64_t{1} << 62)) {
    PushCommandLog(CommandLogType::kLargeReply, c, args, static_cast<int64_t>(reply_growth));
  }
}

void Server::PushCommandLog(CommandLogType type, Client* c,
                            const std::vector<std::string_view>& args, int64_t value) {
  int64_t max_len = config_.slowlog_max_len;
  if (type == CommandLogType::kLargeRequest) max_len = config_.commandlog_large_request_max_len;
  if (type == CommandLogType::kLargeReply) max_len = config_.commandlog_large_reply_max_len;
  // A script's commands: Valkey's "?:0".
  command_log(type).Push(args, value, c->conn.fd() < 0 ? "?:0" : c->addr, c->name, max_len);
}

void Server::Execute(Client* c) {
  const std::vector<std::string_view>& args = c->args;
  const int64_t start = MonotonicUs();
  SetCommandTimeFromMonotonic(start);
  // CLIENT REPLY OFF / SKIP: the reply is built into a scratch buffer and dropped.
  bool silent = (c->flags & (kClientReplyOff | kClientReplySkipNext | kClientMaster)) != 0 ||
                c->migration != nullptr;
  if (c->flags & kClientReplySkipNext) c->flags &= ~kClientReplySkipNext;
  c->discard.clear();
  c->reply.SetOutput(silent ? &c->discard : c->conn.Output());
  c->reply.SetResp3(c->resp == 3);
  // A refusal below marks an open transaction failed (server/transaction.h).
  RejectionGuard rejection_guard(*this, c);

  const CommandSpec* cmd = c->cached_cmd;
  std::string_view name = args[0];
  if (cmd == nullptr || name.size() != c->cached_cmd_len ||
      !BytesEqual(name.data(), c->cached_cmd_name, name.size())) {
    cmd = Commands().Find(name);
    if (cmd != nullptr && name.size() <= sizeof(c->cached_cmd_name)) {
      std::memcpy(c->cached_cmd_name, name.data(), name.size());
      c->cached_cmd_len = name.size();
      c->cached_cmd = cmd;
    }
  }
  const CommandSpec* spec = cmd;
  if (cmd == nullptr) {
    std::string list;
    for (size_t i = 1; i < args.size() && list.size() < 128; ++i) {
      size_t room = 128 - list.size();
      list += "'" + std::string(args[i].substr(0, room)) + "' ";
    }
    c->reply.Error("ERR unknown command '" + std::string(args[0].substr(0, 128)) +
                   "', with args beginning with: " + list);
    return;
  }
  if (cmd->IsContainer() && args.size() >= 2) {
    spec = cmd->FindSubcommand(args[1]);
    if (spec == nullptr) {
      c->reply.Error("ERR unknown subcommand '" + std::string(args[1].substr(0, 128)) +
                     "'. Try " + ToUpper(args[0]) + " HELP.");  // as called (rename-command)
      // Valkey has no command to charge an unknown subcommand to: no commandstats line.
      return;
    }
  }
  int argc = static_cast<int>(args.size());
  if ((spec->arity > 0 && argc != spec->arity) || (spec->arity < 0 && argc < -spec->arity)) {
    c->reply.Error("ERR wrong number of arguments for '" + spec->name + "' command");
    ++spec->stats.rejected_calls;
    return;
  }
  // DEBUG and MODULE's protected subcommands are refused right after the arity check, before
  // NOAUTH and ACL, as in Valkey.
  if (spec->flags & kCmdProtected) {
    const bool module = cmd->name == "module";
    const std::string& mode = module ? config_.enable_module_command : config_.enable_debug_command;
    bool local = (c->flags & kClientUnixSocket) || IsLoopbackPeer(c->conn.fd());
    if (mode == "no" || (mode == "local" && !local)) {
      c->reply.Error("ERR " + ToUpper(cmd->name) + " command not allowed. If the " +
                     (module ? "enable-module-command" : "enable-debug-command") +
                     " option is set to \"local\", you can run it from a local connection, "
                     "otherwise you need to set this option in the configuration file, and then "
                     "restart the server.");
      ++spec->stats.rejected_calls;
      return;
    }
  }
  if (!c->authenticated && !(spec->flags & kCmdNoAuth) && AuthRequired()) {
    c->reply.Error(errors::kNoAuth);
    ++spec->stats.rejected_calls;
    return;
  }
  // MULTI, WATCH, SYNC, ... inside MULTI: refused, which fails the transaction (Valkey 8).
  if ((c->flags & kClientMulti) && (spec->flags & kCmdNoMulti)) {
    c->reply.Error(errors::kNotAllowedInMulti);
    ++spec->stats.rejected_calls;
    return;
  }
  // ACL (server_acl.cc): one flag test for a user allowed everything.
  if (c->flags & kClientAclRestricted) [[unlikely]] {
    std::string refusal;
    if (!AclPermits(c, spec, args, AclDb(c), "toplevel", &refusal)) {
      c->reply.Error(refusal);
      ++spec->stats.rejected_calls;
      return;
    }
  }
  // A script past busy-reply-threshold: only allow-busy commands, and SHUTDOWN only NOSAVE.
  if (busy_caller_ != nullptr &&
      (!(spec->flags & kCmdAllowBusy) ||
       (spec->name == "shutdown" &&
        std::none_of(args.begin() + 1, args.end(),
                     [](std::string_view a) { return EqualsIgnoreCase(a, "nosave"); })))) {
    c->reply.Error(busy_eval_ ? "BUSY Valkey is busy running a script. You can only call SCRIPT "
                                "KILL or SHUTDOWN NOSAVE."
                              : "BUSY Valkey is busy running a script. You can only call "
                                "FUNCTION KILL or SHUTDOWN NOSAVE.");
    ++spec->stats.rejected_calls;
    return;
  }
  if (loading_ && !(spec->flags & kCmdLoading)) [[unlikely]] {
    c->reply.Error("LOADING Valkey is loading the dataset in memory");
    ++spec->stats.rejected_calls;
    return;
  }
  // A MONITOR client counts as a replica: it may not touch the keyspace (Valkey's rule).
  if ((c->flags & kClientMonitor) &&
      (spec->flags & (kCmdWrite | kCmdReadonly | kCmdMayReplicate))) {
    c->reply.Error(errors::kReplicaKeyspace);
    ++spec->stats.rejected_calls;
    return;
  }
  // RESP2 subscribed mode: the connection carries messages, so only the subscribe family,
  // PING, QUIT and RESET may run (RESP3 pushes make this unnecessary).
  if ((c->flags & kClientPubSub) && c->resp == 2 && !AllowedWhileSubscribed(spec->name)) {
    c->reply.Error("ERR Can't execute '" + spec->FullName() +
                   "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed "
                   "in this context");
    ++spec->stats.rejected_calls;
    return;
  }
  // Cluster mode: keys of another node's slot get MOVED/ASK, keys of several slots CROSSSLOT.
  if (cluster_ != nullptr) {
    std::string redirect = cluster_->Redirect(c, spec, args);
    if (!redirect.empty()) {
      // A redirected EXEC ends its transaction and answers the redirection as it is (no
      // EXECABORT), as Valkey.
      if (spec->name == "exec" && (c->flags & kClientMulti)) {
        DiscardTransaction(*this, c);
        rejection_guard.Admit();
      }
      c->reply.Error(redirect);
      ++spec->stats.rejected_calls;
      return;
    }
  }
  if ((c->flags & kClientCapaRedirect) && cluster_ == nullptr) [[unlikely]] {
    const uint32_t queued = spec->name == "exec" && c->multi ? c->multi->queued_flags : 0;
    if (std::string redirect = replication_->CapaRedirect(c, CheckedFlags(c, spec), queued);
        !redirect.empty()) {
      c->reply.Error(redirect);
      ++spec->stats.rejected_calls;
      return;
    }
  }
  // maxmemory: evict first; refuse what may grow memory if that was not enough. Not while
  // a busy script serves others: its keys must stay put (Valkey's rule).
  // A replica: READONLY / MASTERDOWN; a primary short of good replicas: NOREPLICAS.
  if (replication_->restricts()) [[unlikely]] {
    const uint32_t flags = CheckedFlags(c, spec);
    const bool write = (flags & kCmdWrite) ||
                       (spec->name == "exec" && c->multi && (c->multi->queued_flags & kCmdWrite));
    if (const char* refusal = replication_->RefuseCommand(c, flags, write)) {
      c->reply.Error(refusal);
      ++spec->stats.rejected_calls;
      return;
    }
  }
  if (config_.maxmemory != 0 && busy_caller_ == nullptr && !(c->flags & kClientMaster) &&
      RejectForMaxmemory(*this, c, spec, CheckedFlags(c, spec))) {
    ++spec->stats.rejected_calls;
    return;
  }
  // Persistence cannot write (disk full, ...): writes and PING get MISCONF, reads go on
  // (persistence/disk_errors.h).
  if ((!snapshot_.last_bgsave_ok || aof_->write_failing()) && !(c->flags & kClientMaster))
      [[unlikely]] {
    const bool write = (CheckedFlags(c, spec) & kCmdWrite) || spec->name == "ping" ||
                       (spec->name == "exec" && c->multi && (c->multi->queued_flags & kCmdWrite));
    if (std::string refusal = write ? DiskErrorRefusal(*this) : ""; !refusal.empty()) {
      c->reply.Error(refusal);
      ++spec->stats.rejected_calls;
      return;
    }
  }
  rejection_guard.Admit();
  if ((c->flags & kClientMulti) && QueueInMulti(*this, c, spec)) {
    if (config_.cluster_slot_stats_enabled) [[unlikely]] AccountQueuedCommand(c);
    return;
  }
  Call(c, spec, start);
}

void Server::Call(Client* c, const CommandSpec* spec, int64_t start) {
  const std::vector<std::string_view>& args = c->args;
  uint64_t errors_before = stats_.total_error_replies;
  uint64_t nested_before = nested_errors_;
  CommandContext ctx{*this, *c, args, c->reply, dbs_[static_cast<size_t>(c->db_index)].get()};
  Client* outer = executing_;  // EXEC runs its commands inside its own
  // executing_ stays the client of the outermost command (a script's caller, not the script's
  // own client), as Valkey's current client: its pushes wait, its reads are tracked.
  if (outer == nullptr) executing_ = c;
  // Set before running, so CLIENT LIST shows a blocked command; EXEC's queued commands leave
  // it at "exec", as in Valkey.
  if (outer == nullptr) c->last_cmd = &spec->name;
  // Propagation (server/propagate.h): one flag test while no AOF or replica listens.
  const uint64_t dirty_before = dirty_;
  const bool propagating = propagator_.active();
  Propagator::Frame frame;
  int64_t offset_before = 0;
  if (propagating) [[unlikely]] {
    propagator_.Enter(&frame);
    offset_before = replication_->offset();
  }
  // The reply's size, for the large-reply command log: the growth of this buffer (a handler
  // that switches to another one has replied nothing here).
  const std::string* const reply_out = c->reply.Output();
  const size_t reply_before = ReplyBytes(*c, reply_out);
  // CLUSTER SLOT-STATS: one branch while its accounting is off.
  const bool slot_stats = config_.cluster_slot_stats_enabled;
  SlotStatsCall stats_call;
  if (slot_stats) [[unlikely]] stats_call = BeginSlotStats(c, spec, outer, reply_out, reply_before);
  spec->handler(ctx);
  if (propagating) [[unlikely]] {
    // Feeding the AOF (and writing it ahead past 1 MB, Aof::UnitDone) and the replicas is
    // not the command's time, as in Valkey: the slow log and the "command" latency event
    // leave it out.
    const int64_t leave_us = MonotonicUs();
    propagator_.Leave(&frame, c->db_index, args, dirty_ > dirty_before);
    start += MonotonicUs() - leave_us;
    if (outer == nullptr && replication_->offset() != offset_before) {
      c->woff = replication_->offset();
    }
  }
  // Client-side caching: the keys a tracking client read may be in its cache now.
  if ((executing_->flags & kClientTracking) && (spec->flags & kCmdReadonly)) {
    tracking_.RememberKeys(executing_, *spec, args);
  }
  executing_ = outer;
  if (outer == nullptr && !deferred_pushes_.empty()) {
    c->conn.Output()->append(deferred_pushes_);
    deferred_pushes_.clear();
    QueueWrite(c);
  }
  // Monitors see a command once, after its first run (so SELECT shows the new db; a command
  // that blocked, when it arrived), never admin ones: as Valkey 8.
  if (!monitors_.empty() && !(spec->flags & (kCmdSkipMonitor | kCmdAdmin)) && rerunning_ != c) {
    FeedMonitors(c, args);
  }
  // A command that started waiting is counted and logged when it finally completes.
  if (c->flags & kClientBlocked) return;
  int64_t duration = MonotonicUs() - start;
  if (slot_stats) [[unlikely]] {
    // A reply dropped by CLIENT REPLY OFF/SKIP never reaches the network.
    const size_t after = ReplyBytes(*c, reply_out);
    const size_t sent = reply_out == &c->discard || after < reply_before ? 0 : after - reply_before;
    EndSlotStats(c, spec, outer, stats_call, duration, sent);
  }
  ++spec->stats.calls;
  spec->stats.usec += static_cast<uint64_t>(duration);
  TrackCommandLatency(config_, latency_monitor_, *spec, duration);
  // Error replies of the commands this one ran (EXEC's queue) failed those, not this one.
  // Without any, nested_errors_ is still nested_before (what every nested call left it at).
  if (uint64_t errors = stats_.total_error_replies - errors_before; errors != 0) [[unlikely]] {
    if (errors > nested_errors_ - nested_before) ++spec->stats.failed_calls;
    nested_errors_ = nested_before + errors;
  }
  ++stats_.total_commands_processed;
  // CLIENT LIST tot-cmds: a script's commands count for its caller, as in Valkey.
  ++(outer != nullptr ? outer : c)->commands;
  if (!(spec->flags & kCmdSkipSlowlog)) {
    // 64-bit, so a flushed buffer wraps past 2^62 on 32-bit builds too (LogLargeCommand).
    LogCommand(c, args, duration,
               uint64_t{ReplyBytes(*c, reply_out)} - uint64_t{reply_before});
  }
  if (c->flags & kClientReplySkip) {
    c->flags &= ~kClientReplySkip;
    c->flags |= kClientReplySkipNext;
  }
}

uint32_t Server::CheckedFlags(const Client* c, const CommandSpec* spec) {
  const std::string& name = spec->name;
  if (name.rfind("eval", 0) != 0 && name.rfind("fcall", 0) != 0) return spec->flags;
  uint32_t script;
  if (!scripts().DeclaredFlags(c->args, name, &script)) return spec->flags;
  // Valkey's mapping: the script's declaration replaces write, deny-oom and stale.
  uint32_t flags = spec->flags & ~(kCmdStale | kCmdDenyOom | kCmdWrite);
  if (!(script & (kScriptAllowOom | kScriptNoWrites))) flags |= kCmdDenyOom;
  if (!(script & kScriptNoWrites)) flags |= kCmdWrite;
  if (script & kScriptAllowStale) flags |= kCmdStale;
  return flags;
}

ScriptEngine& Server::scripts() {
  if (scripts_ == nullptr) scripts_ = std::make_unique<ScriptEngine>(*this);
  return *scripts_;
}

void Server::SetScriptBusy(Client* caller, bool eval) {
  busy_caller_ = caller;
  busy_eval_ = eval;
}

void Server::ClearScriptBusy() { busy_caller_ = nullptr; }

bool Server::ServeWhileLoading() {
  ServeWhileBusy();
  // SIGTERM or SHUTDOWN stop a load: nothing is saved from a half-loaded dataset.
  if (g_signal_shutdown && !shutdown_requested_) {
    LogWarning("Received %s during loading, exiting without saving.",
               TerminationSignalName(g_signal_shutdown));
    RequestShutdown(0);
  }
  return !shutdown_requested_;
}

void Server::ServeWhileBusy() {
  // Other clients' commands run as top-level commands, not inside the script's.
  Client* executing = executing_;
  executing_ = nullptr;
  loop_.PollIo(0);
  RunQueuedReads();
  std::vector<Client*> batch;
  batch.swap(pending_writes_);
  for (Client* c : batch) {
    if (c == busy_caller_) {
      pending_writes_.push_back(c);
      continue;
    }
    if (clients_.count(c->id) == 0) continue;
    c->flags &= ~kClientPendingWrite;
    WriteToClient(c);
  }
  std::vector<Client*> closing;
  closing.swap(to_close_);
  for (Client* c : closing) {
    if (c == busy_caller_) {
      to_close_.push_back(c);
    } else {
      FreeClient(c);
    }
  }
  executing_ = executing;
}

void CommandContext::KeyModified(Db* target, std::string_view key, int changes) {
  server.AddDirty(static_cast<uint64_t>(changes));
  server.blocking().MarkReady(target->index(), key);
  server.watches().Touch(target, key);
  if (server.tracking().Armed()) server.tracking().Invalidate(key, server.executing());
}

void CommandContext::Dirty(int changes) { server.AddDirty(static_cast<uint64_t>(changes)); }

}  // namespace vireo
