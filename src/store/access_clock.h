// The 24-bit access clock of each entry (Entry::lru), read by eviction and OBJECT
// IDLETIME/FREQ. Under an LRU (or no) policy it holds seconds of the last access; under an LFU
// policy, as in Valkey, the high 16 bits hold the minute of the last decrement and the low
// 8 bits a logarithmic access counter. Execution thread only.
#pragma once

#include <cstdint>

#include "common/clock.h"
#include "store/entry.h"

namespace vireo {

// Valkey's LFU_INIT_VAL: a new key's counter, so it is not evicted before it had a chance.
constexpr uint8_t kLfuInitCounter = 5;

// Switches how entries' clocks are kept (from maxmemory-policy, lfu-log-factor,
// lfu-decay-time). Existing clocks are not converted, as in Valkey.
void SetAccessClockPolicy(bool lfu, int64_t log_factor, int64_t decay_minutes);
bool AccessClockIsLfu();

// The clock a fresh entry starts with.
uint32_t NewAccessClock();
// A command accessed e: refreshes the LRU seconds, or decays and probabilistically bumps the
// LFU counter.
void TouchLfu(Entry* e);
inline void TouchAccess(Entry* e) {
  if (AccessClockIsLfu()) {
    TouchLfu(e);
  } else {
    e->SetLru(LruClock());
  }
}
// A loaded entry's clock (RESTORE IDLETIME/FREQ, the RDB's idle/freq opcodes; -1 = absent):
// the idle time applies under LRU, the frequency under LFU, otherwise the clock starts fresh.
void RestoreAccessClock(Entry* e, int64_t idle_seconds, int64_t freq);
// The LFU counter of e after decay (OBJECT FREQ, eviction), without storing it.
uint8_t LfuFrequency(const Entry* e);

// The pure LFU arithmetic, exposed for tests.
// Minutes clock, 16 bits, as stored in the high part of the 24 bits.
uint32_t LfuMinutesNow();
// Minutes elapsed from `then` to `now` on the 16-bit wrapping clock.
uint32_t LfuElapsedMinutes(uint32_t now, uint32_t then);
// The counter in clock24 decayed by one per decay_minutes elapsed (0 = never decays).
uint8_t LfuDecayed(uint32_t clock24, uint32_t now_minutes, int64_t decay_minutes);
// counter + 1 with probability 1 / ((counter - init) * log_factor + 1); r is uniform in [0,1).
uint8_t LfuLogIncrement(uint8_t counter, int64_t log_factor, double r);
inline uint32_t LfuPack(uint32_t minutes, uint8_t counter) {
  return ((minutes & 0xFFFF) << 8) | counter;
}

}  // namespace vireo
