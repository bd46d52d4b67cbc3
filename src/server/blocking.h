// Clients blocked on keys (BLPOP, BZPOPMIN, BLMOVE, XREAD BLOCK, ...): who waits on which key,
// in arrival order, and the deadlines. When a write makes a watched key ready, the waiting
// clients re-run their command in arrival order after the writing command finishes (the way
// Valkey 7 serves them), so each family's blocking logic is just its non-blocking logic.
#pragma once

#include <cstdint>
#include <list>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "store/entry.h"

namespace vireo {

// What a client gets when its wait times out (or CLIENT UNBLOCK ... TIMEOUT).
enum class BlockTimeoutReply : uint8_t {
  kNullArray,  // BLPOP, BRPOP, BLMPOP, BZPOPMIN/MAX, BZMPOP, XREAD: "*-1" (RESP3 "_")
  kNullBulk,   // BLMOVE, BRPOPLPUSH: "$-1" (RESP3 "_")
  kReplicaCount,  // WAIT: the replicas that acknowledged (replication/replication.h)
  kAofCounts,     // WAITAOF: [fsynced locally, replicas fsynced]
  kShutdown,      // SHUTDOWN waiting for replicas: it failed or was aborted (an error)
};

// Parses a blocking command's timeout in seconds (float allowed, 0 = forever) into an absolute
// deadline in unix ms (0 = none). On failure *error is Valkey's text: "timeout is not a float
// or out of range", "timeout is negative", "timeout is out of range".
bool ParseBlockTimeout(std::string_view arg, int64_t now_ms, int64_t* deadline_ms,
                       std::string* error);
// Same for a timeout given in milliseconds (XREAD BLOCK ms).
bool ParseBlockTimeoutMs(std::string_view arg, int64_t now_ms, int64_t* deadline_ms,
                         std::string* error);

// A blocked client's wait (held by the client).
struct BlockState {
  std::vector<std::string> args;  // the command to run again
  std::vector<std::string> keys;
  int db = 0;
  int64_t deadline_ms = 0;        // 0 = forever
  ObjType type = ObjType::kList;  // the value type that wakes the client
  BlockTimeoutReply on_timeout = BlockTimeoutReply::kNullArray;
  bool unblock_on_nokey = false;  // also wake when the key is deleted or changes type (XREADGROUP)
  int64_t since_ms = 0;
};

struct Client;

// Which clients wait on which (db, key), in arrival order, which keys writes made ready, and
// the deadlines. Pure bookkeeping: the server decides what waking up means.
class BlockingRegistry {
 public:
  // Registers c, whose c->block is set, on its keys and deadline.
  void Add(Client* c);
  // Forgets c everywhere (served, timed out, unblocked or disconnected).
  void Remove(Client* c);

  bool Empty() const { return waiters_.empty(); }
  // Called for every modified key: cheap when nobody waits.
  void MarkReady(int db, std::string_view key) {
    if (!waiters_.empty()) MarkReadySlow(db, key);
  }
  // Every waited-on key of db (-1: of every db): FLUSHDB, FLUSHALL and SWAPDB replace whole
  // databases, which deletes keys XREADGROUP waits on and may bring values BLPOP waits for.
  void MarkDbReady(int db);
  bool HasReady() const { return !ready_.empty(); }
  // The keys made ready since the last call, in the order they became ready.
  std::vector<std::pair<int, std::string>> TakeReady();
  // The clients waiting on key, first arrival first.
  std::vector<Client*> Waiters(int db, std::string_view key) const;

  // Unix ms of the earliest deadline, 0 if none.
  int64_t NextDeadline() const { return deadlines_.empty() ? 0 : deadlines_.begin()->first; }
  // Clients whose deadline is <= now_ms, earliest first (still registered).
  std::vector<Client*> Expired(int64_t now_ms) const;

  size_t BlockedClients() const { return clients_; }
  size_t KeyCount() const { return waiters_.size(); }
  size_t NoKeyCount() const { return nokey_keys_; }

 private:
  static std::string MapKey(int db, std::string_view key);
  void MarkReadySlow(int db, std::string_view key);

  struct Waiting {
    std::list<Client*> clients;
    size_t nokey = 0;  // waiters that also wake on deletion
  };
  std::unordered_map<std::string, Waiting> waiters_;
  std::vector<std::pair<int, std::string>> ready_;
  std::unordered_set<std::string> ready_set_;
  std::set<std::pair<int64_t, Client*>> deadlines_;
  size_t clients_ = 0;
  size_t nokey_keys_ = 0;
};

}  // namespace vireo
