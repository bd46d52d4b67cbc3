#include "common/clock.h"

#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace vireo {
namespace {

// MonotonicUs from the TSC: base_us + (tsc - base_tsc) * us_per_tick_q32 / 2^32. Written once
// by InitMonotonicClock, read-only afterwards.
struct TscClock {
  bool on = false;
  uint64_t base_tsc = 0;
  int64_t base_us = 0;
  uint64_t us_per_tick_q32 = 0;
};
TscClock g_tsc;
char g_clock_name[64] = "POSIX clock_gettime";

int64_t PosixMonotonicNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t g_command_time_ms = 0;
int64_t g_wall_minus_monotonic_us = 0;
bool g_wall_offset_set = false;
constexpr uint32_t kLruMask = (1u << 24) - 1;

}  // namespace

int64_t NowUs() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

int64_t NowMs() { return NowUs() / 1000; }

int64_t MonotonicUs() {
#if defined(__x86_64__)
  if (g_tsc.on) {
    unsigned __int128 ticks = __rdtsc() - g_tsc.base_tsc;
    return g_tsc.base_us + static_cast<int64_t>((ticks * g_tsc.us_per_tick_q32) >> 32);
  }
#endif
  return PosixMonotonicNs() / 1000;
}

const char* InitMonotonicClock() {
#if defined(__x86_64__)
  // Only a TSC that ticks at one rate whatever the CPU's frequency or sleep state counts time.
  FILE* f = fopen("/proc/cpuinfo", "r");
  if (f == nullptr) return g_clock_name;
  bool constant = false, nonstop = false;
  char line[4096];
  while (fgets(line, sizeof(line), f) != nullptr) {
    if (strncmp(line, "flags", 5) != 0) continue;
    constant = strstr(line, " constant_tsc") != nullptr;
    nonstop = strstr(line, " nonstop_tsc") != nullptr;
    break;
  }
  fclose(f);
  if (!constant || !nonstop) return g_clock_name;
  // Each end of the window pairs a clock_gettime with the TSC read just before and after it;
  // a pair the scheduler split (a wide bracket) is taken again, keeping the tightest.
  auto sample = [](uint64_t* tsc, int64_t* ns) {
    uint64_t best = UINT64_MAX;
    *tsc = 0;
    *ns = PosixMonotonicNs();
    for (int i = 0; i < 100 && best > 4000; ++i) {
      uint64_t before = __rdtsc();
      int64_t t = PosixMonotonicNs();
      uint64_t after = __rdtsc();
      if (after >= before && after - before < best) {
        best = after - before;
        *tsc = before + (after - before) / 2;
        *ns = t;
      }
    }
  };
  uint64_t tsc0 = 0, tsc1 = 0;
  int64_t ns0 = 0, ns1 = 0;
  sample(&tsc0, &ns0);
  constexpr int64_t kWindowNs = 5'000'000;
  do {
    sample(&tsc1, &ns1);
  } while (ns1 - ns0 < kWindowNs);
  // A rate no real TSC has (under 100 MHz or over 20 GHz) means a broken reading.
  if (tsc0 == 0 || tsc1 <= tsc0) return g_clock_name;
  uint64_t ticks_per_us = (tsc1 - tsc0) * 1000 / static_cast<uint64_t>(ns1 - ns0);
  if (ticks_per_us < 100 || ticks_per_us > 20000) return g_clock_name;
  // Microseconds per tick in 32.32 fixed point.
  unsigned __int128 q = (static_cast<unsigned __int128>(ns1 - ns0) << 32) / 1000;
  g_tsc.us_per_tick_q32 = static_cast<uint64_t>(q / (tsc1 - tsc0));
  g_tsc.base_tsc = tsc1;
  g_tsc.base_us = ns1 / 1000;
  g_tsc.on = true;
  snprintf(g_clock_name, sizeof(g_clock_name), "X86 TSC @ %llu ticks/us",
           static_cast<unsigned long long>(ticks_per_us));
#endif
  return g_clock_name;
}

int64_t CommandTimeMs() {
  if (g_command_time_ms == 0) RefreshCommandTime();
  return g_command_time_ms;
}

void RefreshCommandTime() {
  int64_t mono = MonotonicUs();
  int64_t wall = NowUs();
  g_wall_minus_monotonic_us = wall - mono;
  g_wall_offset_set = true;
  g_command_time_ms = wall / 1000;
}

void SetCommandTimeFromMonotonic(int64_t monotonic_us) {
  if (!g_wall_offset_set) {
    RefreshCommandTime();
    return;
  }
  g_command_time_ms = (monotonic_us + g_wall_minus_monotonic_us) / 1000;
}

void SetCommandTimeMs(int64_t ms) { g_command_time_ms = ms; }

uint32_t LruClock() { return static_cast<uint32_t>(CommandTimeMs() / 1000) & kLruMask; }

uint64_t LruIdleSeconds(uint32_t lru) {
  uint32_t now = LruClock();
  if (now >= lru) return now - lru;
  return (kLruMask - lru) + now;
}

}  // namespace vireo
