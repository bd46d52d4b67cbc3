#include "common/clock.h"

#include <time.h>

namespace vireo {
namespace {

int64_t g_command_time_ms = 0;
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

void RefreshCommandTime() { g_command_time_ms = NowMs(); }

uint32_t LruClock() { return static_cast<uint32_t>(CommandTimeMs() / 1000) & kLruMask; }

uint64_t LruIdleSeconds(uint32_t lru) {
  uint32_t now = LruClock();
  if (now >= lru) return now - lru;
  return (kLruMask - lru) + now;
}

}  // namespace vireo
