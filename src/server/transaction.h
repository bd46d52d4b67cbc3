// MULTI/EXEC and WATCH: a client's queued commands and watched keys, and the registry of who
// watches which key. Execution thread only.
//
// Inside MULTI, Server::Execute runs its usual checks, then hands the admitted command to
// QueueInMulti instead of running it. A command refused by those checks marks the transaction
// failed (EXEC answers EXECABORT). EXEC runs the queue through Server::Call, the one place a
// command runs, so stats, slow log and monitors see each queued command as Valkey shows them;
// it is also the single place where a propagation hook will wrap the commands as one unit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vireo {

struct Client;
struct CommandSpec;
class Db;
class Server;

// One command queued between MULTI and EXEC: its spec, resolved when queued, and a copy of its
// arguments (the read buffer they were parsed from is reused meanwhile).
struct QueuedCommand {
  const CommandSpec* spec;
  std::vector<std::string> args;
};

// A key a client WATCHes.
struct WatchedKey {
  int db;
  std::string key;
  // The key existed, unexpired, at WATCH time: if it is gone or expired at EXEC, it expired
  // meanwhile (every other deletion goes through KeyModified and has marked the client).
  bool existed;
  // It was already logically expired at WATCH time: its deletion is no change (Valkey's rule).
  bool expired;
};

// A client's transaction state, created on its first MULTI or WATCH.
struct MultiState {
  std::vector<QueuedCommand> queue;
  uint32_t queued_flags = 0;  // union of the queued commands' flags (CLIENT PAUSE WRITE)
  size_t queued_bytes = 0;    // argument bytes held by the queue (CLIENT LIST multi-mem)
  std::vector<WatchedKey> watched;
  // The database the queue's next command will run in (MULTI's, then each valid queued
  // SELECT's): what ACL database rules check a command against when it is queued.
  int db = 0;
};

// Who watches which key, per database. Touching a watched key marks its watchers
// kClientDirtyCas and forgets their watches (their EXEC fails whatever happens next).
class WatchRegistry {
 public:
  bool Empty() const { return keys_ == 0; }
  size_t KeyCount() const { return keys_; }        // INFO total_watched_keys
  size_t ClientCount() const { return clients_; }  // INFO watching_clients

  // WATCH: c watches key of db (again is a no-op).
  void Watch(Client* c, Db* db, std::string_view key);
  // Forgets every key c watches (EXEC, DISCARD, UNWATCH, RESET, disconnect).
  void UnwatchAll(Client* c);
  // key of db was written or deleted. One branch when nobody watches anything.
  void Touch(Db* db, std::string_view key) {
    if (keys_ != 0) TouchSlow(db, key);
  }
  // Before emptied loses its contents: to nothing (FLUSHDB, FLUSHALL) or to replaced_with's
  // (SWAPDB, called once per side). Marks watchers of keys that change.
  void TouchDb(Db* emptied, Db* replaced_with);
  // True if a key c watched (present then) has expired since, which makes EXEC fail.
  bool WatchedKeyExpired(Server& server, const Client* c) const;

 private:
  // One watcher of a key: the client and the index of the key in its MultiState::watched
  // (that list only grows until UnwatchAll clears it, so the index stays valid).
  struct Watcher {
    Client* client;
    uint32_t index;
  };
  // Heterogeneous lookup: a write finds its key's watchers without copying the key.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using KeyWatchers =
      std::unordered_map<std::string, std::vector<Watcher>, KeyHash, std::equal_to<>>;

  void TouchSlow(Db* db, std::string_view key);
  KeyWatchers* ForDb(int db);

  std::vector<KeyWatchers> dbs_;  // by db index, grown on demand
  size_t keys_ = 0;
  size_t clients_ = 0;
};

// Server::Execute's step for a command that passed its checks while c is in MULTI (no-multi
// ones, MULTI and WATCH among them, were refused there): queues it and replies QUEUED. False
// for the commands that run at once even inside MULTI (EXEC DISCARD QUIT RESET).
bool QueueInMulti(Server& server, Client* c, const CommandSpec* spec);

// Declared where Server::Execute starts checking a command: if the command is refused before
// Admit(), an open transaction is marked failed, and a refused EXEC ends the transaction with
// EXECABORT and the reason (Valkey's rule). Costs a branch for admitted commands.
class RejectionGuard {
 public:
  RejectionGuard(Server& server, Client* c);
  ~RejectionGuard() {
    if (!admitted_) OnRejected();
  }
  RejectionGuard(const RejectionGuard&) = delete;
  RejectionGuard& operator=(const RejectionGuard&) = delete;
  void Admit() { admitted_ = true; }

 private:
  void OnRejected();

  Server& server_;
  Client* client_;
  size_t reply_mark_;  // output size before the command's reply
  bool admitted_ = false;
};

// Ends c's transaction (queue, failure marks) and forgets its watched keys: DISCARD, EXEC,
// RESET and disconnection.
void DiscardTransaction(Server& server, Client* c);

// CLIENT LIST's multi= (queued commands, -1 outside MULTI) and multi-mem=.
int MultiQueueLength(const Client& c);
size_t MultiMemory(const Client& c);

}  // namespace vireo
