// The TSC-based monotonic clock agrees with CLOCK_MONOTONIC and never runs backwards.
#include "common/clock.h"

#include <gtest/gtest.h>
#include <sys/types.h>
#include <time.h>

namespace vireo {
namespace {

int64_t PosixUs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// A reading of MonotonicUs between two of CLOCK_MONOTONIC; tries until the scheduler left
// the three together, so a busy machine cannot fail the comparison.
void Bracket(int64_t* lo, int64_t* mid, int64_t* hi) {
  for (int i = 0; i < 1000; ++i) {
    *lo = PosixUs();
    *mid = MonotonicUs();
    *hi = PosixUs();
    if (*hi - *lo < 100) return;
  }
}

TEST(MonotonicClock, AgreesWithClockGettime) {
  InitMonotonicClock();
  int64_t prev = MonotonicUs();
  for (int i = 0; i < 100000; ++i) {
    int64_t now = MonotonicUs();
    ASSERT_GE(now, prev);
    prev = now;
  }
  // Same origin and the same rate: readings 20 ms apart both fall inside their brackets,
  // give or take the calibration's error.
  for (int round = 0; round < 2; ++round) {
    int64_t lo, mid, hi;
    Bracket(&lo, &mid, &hi);
    EXPECT_GE(mid, lo - 200);
    EXPECT_LE(mid, hi + 200);
    struct timespec pause = {0, 20'000'000};
    nanosleep(&pause, nullptr);
  }
}

// 32-bit targets (armhf) build with 64-bit time_t and off_t (CMakeLists.txt): wall-clock
// times past January 2038 (expiry times, LASTSAVE, log stamps) and files past 2 GiB.
TEST(Platform, TimeAndFileOffsetsAre64Bit) {
  EXPECT_EQ(sizeof(time_t), 8u);
  EXPECT_EQ(sizeof(off_t), 8u);
  const time_t t = 4102444800;  // 2100-01-01 00:00:00 UTC
  struct tm out {};
  ASSERT_NE(gmtime_r(&t, &out), nullptr);
  EXPECT_EQ(out.tm_year, 200);
  EXPECT_EQ(timegm(&out), t);
}

}  // namespace
}  // namespace vireo
