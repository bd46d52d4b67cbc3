// Client-side caching (CLIENT TRACKING): which clients may hold which keys, and the
// invalidation messages owed to them when those keys change. Execution thread only.
//
// Default mode remembers, per key, the ids of the tracking clients that read it; the first
// change of the key sends each of them one invalidation and forgets the key. BCAST mode
// instead registers prefixes: every changed key matching one is collected and broadcast to
// the prefix's clients once per event-loop turn (BroadcastPending). Like Valkey, keys are
// tracked by name only (not per database), and a client that stops tracking leaves its
// keys in the table until they change.
//
// The table knows nothing of sockets: it builds each message as a RESP frame (RESP2 array
// form) and hands it to TrackingHooks::deliver, which is Server::DeliverPush in the server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vireo {

struct Client;
struct CommandSpec;

// How messages leave the table; owner is passed back to both.
struct TrackingHooks {
  void* owner = nullptr;
  // The connected client with this id, or nullptr.
  Client* (*find)(void* owner, uint64_t id) = nullptr;
  // Appends frame (RESP2 array form; '*' becomes '>' for RESP3 clients) to c's output.
  void (*deliver)(void* owner, Client* c, std::string_view frame) = nullptr;
};

class Tracking {
 public:
  void SetHooks(TrackingHooks hooks) { hooks_ = hooks; }

  // False while no key and no prefix is tracked: writes then skip the table with this one
  // check.
  bool Armed() const { return !keys_.empty() || !prefixes_.empty(); }

  // CLIENT TRACKING ON's option checks that depend on state: "" or the error text (without
  // "ERR ") for prefixes that overlap c's existing ones or each other.
  std::string CheckPrefixes(const Client& c, const std::vector<std::string_view>& prefixes) const;
  // CLIENT TRACKING ON: options are kClientTracking* flags (BCAST, OPTIN, OPTOUT, NOLOOP);
  // prefixes add to those c already has (BCAST with none means the empty prefix).
  void Enable(Client* c, uint64_t redirect, uint32_t options,
              const std::vector<std::string_view>& prefixes);
  // CLIENT TRACKING OFF, RESET and disconnects.
  void Disable(Client* c);
  // c's BCAST prefixes, in byte order.
  std::vector<std::string> PrefixesOf(const Client& c) const;

  // After a read-only command of c (a tracking client): remembers the command's keys, unless
  // OPTIN/OPTOUT and CLIENT CACHING say otherwise.
  void RememberKeys(Client* c, const CommandSpec& spec, const std::vector<std::string_view>& args);
  // key changed. current: the client whose command runs (NOLOOP clients hear nothing of their
  // own changes), nullptr outside commands; with broadcast, BCAST clients hear of it too.
  void Invalidate(std::string_view key, const Client* current, bool broadcast = true);
  // The keyspace was flushed: every tracking client gets an invalidation with a null key
  // list, and the table is emptied. command_seq identifies the flushing command: FLUSHALL
  // empties every database but sends one message.
  void InvalidateAll(uint64_t command_seq);
  // End of an event-loop turn: sends the collected BCAST invalidations.
  void BroadcastPending();
  // Forgets keys (sending their invalidations) while more than max_keys are tracked, with an
  // effort that grows while the table stays over (tracking-table-max-keys; 0 = no limit).
  void EnforceLimit(int64_t max_keys);

  // INFO.
  size_t ClientCount() const { return clients_.size(); }
  size_t KeyCount() const { return keys_.size(); }
  size_t ItemCount() const { return items_; }
  size_t PrefixCount() const { return prefixes_.size(); }

 private:
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  struct NameEq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  // A BCAST prefix: its clients, and the keys changed this turn with the id of the client
  // that changed each last (0: none), for NOLOOP.
  struct Prefix {
    std::set<uint64_t> clients;
    std::map<std::string, uint64_t, std::less<>> changed;
  };

  // Sends payload (a RESP array of keys, or a null) to c or to its redirect target.
  void Send(Client* c, std::string_view payload);

  TrackingHooks hooks_;
  std::unordered_map<std::string, std::vector<uint64_t>, NameHash, NameEq> keys_;
  size_t items_ = 0;  // (key, client) pairs in keys_
  std::map<std::string, Prefix, std::less<>> prefixes_;
  // Tracking clients by id (connection order) with their BCAST prefixes.
  std::map<uint64_t, std::set<std::string, std::less<>>> clients_;
  uint64_t last_flush_seq_ = UINT64_MAX;
  int limit_effort_ = 0;  // consecutive turns EnforceLimit ended over the limit
  std::string frame_;     // reused message buffer
};

}  // namespace vireo
