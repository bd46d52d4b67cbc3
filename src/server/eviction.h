// maxmemory: evicting keys under maxmemory-policy before commands run, and refusing
// commands that may grow memory when nothing more can be evicted (Valkey's rules).
// Execution thread only.
#pragma once

#include <cstdint>

namespace vireo {

struct Client;
struct CommandSpec;
struct Config;
class Server;

enum class EvictionResult {
  kOk,       // used memory is within maxmemory (or there is no limit)
  kRunning,  // keys were evicted but the time budget ran out first; the next command goes on
  kFail,     // over the limit and nothing (more) can be evicted
};

// Evicts keys until used memory is at most maxmemory, within maxmemory-eviction-tenacity's
// time budget.
EvictionResult PerformEvictions(Server& server);

// Server::Execute's step when maxmemory is set: evicts, then refuses (replying Valkey's OOM
// error, true) a command that may grow memory while still over the limit: a denyoom command,
// EXEC of a queue holding one, and anything queued inside MULTI. flags: the command's, or
// those its script declares (Server::CheckedFlags).
bool RejectForMaxmemory(Server& server, Client* c, const CommandSpec* spec, uint32_t flags);

// Whether the last top-level command found memory over the limit with nothing to evict
// (scripts refuse denyoom calls then, as Valkey's pre-command OOM state).
bool CommandStartedOutOfMemory();

// Applies maxmemory-policy / lfu-log-factor / lfu-decay-time to the keyspace's access clocks
// (start-up and CONFIG SET).
void ApplyEvictionConfig(const Config& config);

// INFO stats.
struct EvictionStats {
  uint64_t evicted_keys = 0;
  uint64_t total_exceeded_ms = 0;    // total_eviction_exceeded_time
  uint64_t current_exceeded_ms = 0;  // current_eviction_exceeded_time
};
EvictionStats GetEvictionStats();
// CONFIG RESETSTAT.
void ResetEvictionStats();

}  // namespace vireo
