#include "store/access_clock.h"

#include <random>

namespace vireo {
namespace {

bool g_lfu = false;
int64_t g_log_factor = 10;
int64_t g_decay_minutes = 1;

double UniformRandom() {
  static std::mt19937_64 gen{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(gen);
}

}  // namespace

void SetAccessClockPolicy(bool lfu, int64_t log_factor, int64_t decay_minutes) {
  g_lfu = lfu;
  g_log_factor = log_factor;
  g_decay_minutes = decay_minutes;
}

bool AccessClockIsLfu() { return g_lfu; }

uint32_t NewAccessClock() { return g_lfu ? LfuPack(LfuMinutesNow(), kLfuInitCounter) : LruClock(); }

uint32_t LfuMinutesNow() { return static_cast<uint32_t>(CommandTimeMs() / 60000) & 0xFFFF; }

uint32_t LfuElapsedMinutes(uint32_t now, uint32_t then) {
  return now >= then ? now - then : 65535 - then + now;
}

uint8_t LfuDecayed(uint32_t clock24, uint32_t now_minutes, int64_t decay_minutes) {
  uint8_t counter = clock24 & 0xFF;
  if (decay_minutes <= 0) return counter;
  uint64_t periods =
      LfuElapsedMinutes(now_minutes, clock24 >> 8) / static_cast<uint64_t>(decay_minutes);
  return periods >= counter ? 0 : static_cast<uint8_t>(counter - periods);
}

uint8_t LfuLogIncrement(uint8_t counter, int64_t log_factor, double r) {
  if (counter == 255) return 255;
  double base = counter > kLfuInitCounter ? counter - kLfuInitCounter : 0;
  double p = 1.0 / (base * static_cast<double>(log_factor) + 1);
  return r < p ? counter + 1 : counter;
}

uint8_t LfuFrequency(const Entry* e) {
  return LfuDecayed(e->lru(), LfuMinutesNow(), g_decay_minutes);
}

void RestoreAccessClock(Entry* e, int64_t idle_seconds, int64_t freq) {
  if (g_lfu && freq >= 0) {
    e->SetLru(LfuPack(LfuMinutesNow(), static_cast<uint8_t>(freq > 255 ? 255 : freq)));
  } else if (!g_lfu && idle_seconds >= 0) {
    uint32_t idle = static_cast<uint32_t>(idle_seconds > 0xFFFFFF ? 0xFFFFFF : idle_seconds);
    e->SetLru((LruClock() - idle) & 0xFFFFFF);
  } else {
    e->SetLru(NewAccessClock());
  }
}

void TouchLfu(Entry* e) {
  uint32_t now = LfuMinutesNow();
  uint8_t counter = LfuDecayed(e->lru(), now, g_decay_minutes);
  counter = LfuLogIncrement(counter, g_log_factor, UniformRandom());
  e->SetLru(LfuPack(now, counter));
}

}  // namespace vireo
