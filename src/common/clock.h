// Wall-clock and monotonic time, and the per-command cached time used for expiry decisions.
#pragma once

#include <cstdint>

namespace vireo {

int64_t NowMs();        // unix time, milliseconds
int64_t NowUs();        // unix time, microseconds
int64_t MonotonicUs();  // for durations

// Makes MonotonicUs read the CPU's time-stamp counter when it runs at a constant rate in
// every power state (x86-64 constant_tsc + nonstop_tsc), calibrated against CLOCK_MONOTONIC
// for a few milliseconds: a few instructions instead of a vDSO call, and two readings per
// command. Call once at start-up, before other threads exist. Returns the clock's name for
// the log ("X86 TSC @ N ticks/us" or "POSIX clock_gettime").
const char* InitMonotonicClock();

// Expiry is judged against one timestamp per command (as Valkey does), so a key cannot expire
// half-way through a command that touches it twice. The execution thread refreshes it.
int64_t CommandTimeMs();
// Reads the wall clock and re-syncs its offset from the monotonic clock (periodic task).
void RefreshCommandTime();
// Per command: derives the time from a monotonic reading the caller takes anyway (for the
// command's duration) plus the offset of the last RefreshCommandTime, saving a clock read.
void SetCommandTimeFromMonotonic(int64_t monotonic_us);

// Sets the per-command time outright. AOF loading freezes it at 1 ms so nothing counts as
// expired while a log replays (Valkey never expires keys while loading); the next
// RefreshCommandTime or SetCommandTimeFromMonotonic resumes the real clock.
void SetCommandTimeMs(int64_t ms);

// 24-bit seconds clock stored in each entry for OBJECT IDLETIME.
uint32_t LruClock();
// Seconds since an entry's clock value.
uint64_t LruIdleSeconds(uint32_t lru);

}  // namespace vireo
