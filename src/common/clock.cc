#include "common/clock.h"

#include <time.h>

namespace vireo {
namespace {

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
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
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

uint32_t LruClock() { return static_cast<uint32_t>(CommandTimeMs() / 1000) & kLruMask; }

uint64_t LruIdleSeconds(uint32_t lru) {
  uint32_t now = LruClock();
  if (now >= lru) return now - lru;
  return (kLruMask - lru) + now;
}

}  // namespace vireo
