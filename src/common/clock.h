// Wall-clock and monotonic time, and the per-command cached time used for expiry decisions.
#pragma once

#include <cstdint>

namespace vireo {

int64_t NowMs();        // unix time, milliseconds
int64_t NowUs();        // unix time, microseconds
int64_t MonotonicUs();  // for durations

// Expiry is judged against one timestamp per command (as Valkey does), so a key cannot expire
// half-way through a command that touches it twice. The execution thread refreshes it.
int64_t CommandTimeMs();
// Reads the wall clock and re-syncs its offset from the monotonic clock (periodic task).
void RefreshCommandTime();
// Per command: derives the time from a monotonic reading the caller takes anyway (for the
// command's duration) plus the offset of the last RefreshCommandTime, saving a clock read.
void SetCommandTimeFromMonotonic(int64_t monotonic_us);

// 24-bit seconds clock stored in each entry for OBJECT IDLETIME.
uint32_t LruClock();
// Seconds since an entry's clock value.
uint64_t LruIdleSeconds(uint32_t lru);

}  // namespace vireo
