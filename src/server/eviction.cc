#include "server/eviction.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <thread>

#include "commands/command_table.h"
#include "commands/errors.h"
#include "common/clock.h"
#include "server/client.h"
#include "server/config.h"
#include "server/notify.h"
#include "server/server.h"
#include "server/transaction.h"
#include "store/access_clock.h"
#include "store/db.h"
#include "store/eviction_pool.h"
#include "store/lazy_free.h"
#include "store/memory.h"
#include "store/value.h"

namespace vireo {
namespace {

enum class Policy { kNoEviction, kLru, kLfu, kTtl, kRandom };

struct PolicyInfo {
  Policy policy;
  bool volatile_only;  // only keys with a TTL are candidates
};

PolicyInfo ParsePolicy(const std::string& name) {
  if (name == "allkeys-lru") return {Policy::kLru, false};
  if (name == "allkeys-lfu") return {Policy::kLfu, false};
  if (name == "allkeys-random") return {Policy::kRandom, false};
  if (name == "volatile-lru") return {Policy::kLru, true};
  if (name == "volatile-lfu") return {Policy::kLfu, true};
  if (name == "volatile-random") return {Policy::kRandom, true};
  if (name == "volatile-ttl") return {Policy::kTtl, true};
  return {Policy::kNoEviction, false};
}

// used_memory for the per-command check. A full reading of the allocator's statistics costs
// tens of microseconds, so between readings the figure follows the allocation balance of the
// execution and I/O threads, which jemalloc counts per thread at the cost of a load each.
// Values handed to the lazy-free thread are discounted until the next full reading. Without
// those counters every reading is a full one.
class MemoryGauge {
 public:
  // A figure no older than max_age_us (a full reading when the last one is older).
  size_t Read(int64_t max_age_us) {
    int64_t balance = 0;
    const bool counters = TrackedAllocationBalance(&balance);
    const int64_t now = MonotonicUs();
    if (!counters || last_us_ == 0 || now - last_us_ > max_age_us) {
      base_ = UsedMemory();
      balance0_ = balance;
      last_us_ = now;
      lazy_ = 0;
      return base_;
    }
    int64_t est = static_cast<int64_t>(base_) + (balance - balance0_) - static_cast<int64_t>(lazy_);
    return est < 0 ? 0 : static_cast<size_t>(est);
  }
  void DiscountLazyFree(size_t bytes) { lazy_ += bytes; }

 private:
  size_t base_ = 0;
  int64_t balance0_ = 0;
  size_t lazy_ = 0;
  int64_t last_us_ = 0;
};

// Full readings: at most every 100 ms on the command path; a refusal trusts one 1 ms old.
constexpr int64_t kRefreshUs = 100000;
constexpr int64_t kConfirmUs = 1000;
constexpr int64_t kNoRefresh = INT64_MAX;

struct EvictionState {
  MemoryGauge gauge;
  PolicyInfo policy{Policy::kNoEviction, false};
  EvictionPool pool;
  int next_random_db = 0;  // random policies go round the databases
  bool oom_at_command_start = false;
  EvictionStats stats;
  int64_t exceeded_since_us = 0;  // 0 while within the limit
  std::mt19937_64 rng{std::random_device{}()};
};

EvictionState& State() {
  static EvictionState s;
  return s;
}

// Valkey's time budget per eviction pass from maxmemory-eviction-tenacity (0..100).
int64_t TimeLimitUs(int64_t tenacity) {
  if (tenacity <= 10) return 50 * tenacity;
  if (tenacity < 100) return static_cast<int64_t>(500.0 * std::pow(1.15, tenacity - 10.0));
  return INT64_MAX;
}

uint64_t Score(Policy policy, const Entry* e) {
  switch (policy) {
    case Policy::kLru:
      return LruIdleSeconds(e->lru());
    case Policy::kLfu:
      return 255 - LfuFrequency(e);
    case Policy::kTtl:
      return UINT64_MAX - static_cast<uint64_t>(e->expire_ms());
    default:
      return 0;
  }
}

// Calls fn on up to `want` live entries (only volatile ones if asked) met walking buckets
// from a random cursor: cheap sampling that needs no second index of keys with a TTL.
template <typename Fn>
void SampleDb(Db* db, bool volatile_only, size_t want, Fn&& fn) {
  uint64_t cursor = State().rng();
  size_t got = 0;
  const size_t max_steps = want * 10 + 16;
  for (size_t step = 0; got < want && step < max_steps; ++step) {
    cursor = db->Scan(cursor, [&](Entry* e) {
      if (got >= want || (volatile_only && e->expire_ms() == 0) || Db::Importing(e)) return;
      fn(e);
      ++got;
    });
  }
}

bool HasCandidates(Db* db, bool volatile_only) {
  return volatile_only ? db->VolatileCount() > 0 : db->Size() > 0;
}

// The next key to evict, by policy. False when there is none.
bool PickVictim(Server& server, int* db_index, std::string* key) {
  EvictionState& st = State();
  const PolicyInfo p = st.policy;
  const int dbs = server.db_count();
  if (p.policy == Policy::kRandom) {
    for (int i = 0; i < dbs; ++i) {
      int index = (st.next_random_db + i) % dbs;
      Db* db = server.db(index);
      if (!HasCandidates(db, p.volatile_only)) continue;
      Entry* pick = nullptr;
      if (!p.volatile_only) pick = db->Random();
      if (pick == nullptr || Db::Importing(pick)) {
        pick = nullptr;
        SampleDb(db, p.volatile_only, 1, [&](Entry* e) { pick = e; });
      }
      if (pick == nullptr) continue;
      st.next_random_db = (index + 1) % dbs;
      *db_index = index;
      key->assign(pick->Key());
      return true;
    }
    return false;
  }
  const size_t samples =
      static_cast<size_t>(std::max<int64_t>(server.config().maxmemory_samples, 1));
  // A pool's candidate may have been deleted since it was sampled: look each pick up again,
  // and refill the pool from fresh samples when it runs dry.
  for (int round = 0; round < 16; ++round) {
    bool any = false;
    for (int i = 0; i < dbs; ++i) {
      Db* db = server.db(i);
      if (!HasCandidates(db, p.volatile_only)) continue;
      any = true;
      SampleDb(db, p.volatile_only, samples,
               [&](Entry* e) { st.pool.Offer(Score(p.policy, e), i, e->Key()); });
    }
    if (!any) {
      st.pool.Clear();
      return false;
    }
    while (st.pool.PopBest(db_index, key)) {
      const Entry* e = server.db(*db_index)->FindRaw(*key);
      if (e != nullptr && (!p.volatile_only || e->expire_ms() != 0)) return true;
    }
  }
  return false;
}

// Deletes one key as an eviction, with WATCH, client-side caching and the "evicted" event,
// as Valkey does.
void EvictKey(Server& server, int db_index, const std::string& key) {
  Db* db = server.db(db_index);
  const Entry* e = db->FindRaw(key);
  if (e == nullptr) return;
  const bool lazy = server.config().lazyfree_lazy_eviction;
  if (lazy && FreeEffort(e) > kLazyFreeThreshold) State().gauge.DiscountLazyFree(EntryMemory(e));
  // An already expired key goes through lazy expiry (its "expired" event) instead.
  if (!db->Delete(key, lazy)) return;
  ++State().stats.evicted_keys;
  PropagateDeletion(server, db_index, key, lazy);
  server.watches().Touch(db, key);
  if (server.tracking().Armed()) server.tracking().Invalidate(key, nullptr);
  NotifyKeyspaceEvent(server, kNotifyEvicted, "evicted", db_index, key);
}

void UpdateExceededTime(bool over) {
  EvictionState& st = State();
  if (over) {
    if (st.exceeded_since_us == 0) st.exceeded_since_us = MonotonicUs();
  } else if (st.exceeded_since_us != 0) {
    st.stats.total_exceeded_ms +=
        static_cast<uint64_t>(MonotonicUs() - st.exceeded_since_us) / 1000;
    st.exceeded_since_us = 0;
  }
}

}  // namespace

EvictionResult PerformEvictions(Server& server) {
  const Config& config = server.config();
  EvictionState& st = State();
  if (config.maxmemory <= 0) {
    UpdateExceededTime(false);
    return EvictionResult::kOk;
  }
  // Paused clients see still data: nothing is evicted (and nothing refused for memory).
  if (server.paused()) return EvictionResult::kOk;
  const size_t limit = static_cast<size_t>(config.maxmemory);
  if (st.gauge.Read(kRefreshUs) <= limit) {
    UpdateExceededTime(false);
    return EvictionResult::kOk;
  }
  UpdateExceededTime(true);
  const int64_t start = MonotonicUs();
  const int64_t budget = TimeLimitUs(config.maxmemory_eviction_tenacity);
  std::string key;
  int db_index = 0;
  size_t evicted = 0;
  EvictionResult result = EvictionResult::kOk;
  // Each eviction's frees show in the gauge at once (no full reading in between).
  while (st.gauge.Read(kNoRefresh) > limit) {
    if (st.policy.policy == Policy::kNoEviction || !PickVictim(server, &db_index, &key)) {
      result = EvictionResult::kFail;
      break;
    }
    EvictKey(server, db_index, key);
    ++evicted;
    // Valkey looks at the clock every 16 keys.
    if ((evicted & 15) == 0 && MonotonicUs() - start > budget) {
      result = EvictionResult::kRunning;
      break;
    }
  }
  // Freed blocks cached by this thread still count in the allocator's statistics.
  if (evicted != 0) FlushThreadCache();
  // Out of keys while evicted values still wait for the lazy-free thread: as Valkey, wait for
  // it a little (up to this cycle's time budget, 1 ms at a time) before refusing the command.
  if (result == EvictionResult::kFail && LazyFreePending() > 0) {
    const int64_t wait_start = MonotonicUs();
    while (LazyFreePending() > 0 && MonotonicUs() - wait_start < budget) {
      std::this_thread::sleep_for(std::chrono::microseconds(std::min<int64_t>(budget, 1000)));
      if (st.gauge.Read(0) <= limit) {
        result = EvictionResult::kOk;
        break;
      }
    }
  }
  // Before refusing commands, make sure with a recent full reading.
  if (result == EvictionResult::kFail && st.gauge.Read(kConfirmUs) <= limit) {
    result = EvictionResult::kOk;
  }
  if (result == EvictionResult::kOk) UpdateExceededTime(false);
  server.latency_monitor().Note(config.latency_monitor_threshold, "eviction-cycle",
                                MonotonicUs() - start);
  return result;
}

bool RejectForMaxmemory(Server& server, Client* c, const CommandSpec* spec, uint32_t flags) {
  bool oom = PerformEvictions(server) == EvictionResult::kFail;
  State().oom_at_command_start = oom;
  if (!oom) return false;
  bool deny = (flags & kCmdDenyOom) != 0;
  const std::string& name = spec->name;
  if (name == "exec" && c->multi != nullptr && (c->multi->queued_flags & kCmdDenyOom)) {
    deny = true;
  }
  // Queuing takes memory too.
  if ((c->flags & kClientMulti) && name != "exec" && name != "discard" && name != "quit" &&
      name != "reset") {
    deny = true;
  }
  if (!deny) return false;
  c->reply.Error(errors::kOom);
  return true;
}

bool CommandStartedOutOfMemory() { return State().oom_at_command_start; }

void ApplyEvictionConfig(const Config& config) {
  EvictionState& st = State();
  PolicyInfo p = ParsePolicy(config.maxmemory_policy);
  if (p.policy != st.policy.policy || p.volatile_only != st.policy.volatile_only) st.pool.Clear();
  st.policy = p;
  SetAccessClockPolicy(p.policy == Policy::kLfu, config.lfu_log_factor, config.lfu_decay_time);
}

EvictionStats GetEvictionStats() {
  EvictionStats s = State().stats;
  if (State().exceeded_since_us != 0) {
    s.current_exceeded_ms = static_cast<uint64_t>(MonotonicUs() - State().exceeded_since_us) / 1000;
    s.total_exceeded_ms += s.current_exceeded_ms;
  }
  return s;
}

void ResetEvictionStats() {
  State().stats = EvictionStats{};
  if (State().exceeded_since_us != 0) State().exceeded_since_us = MonotonicUs();
}

}  // namespace vireo
