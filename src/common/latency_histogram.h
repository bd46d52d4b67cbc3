// A log-linear latency histogram with the bucket layout of an HDR histogram of two significant
// digits over 1 ns .. 1 s (the layout Valkey's `latency-tracking` uses), so percentiles and
// LATENCY HISTOGRAM buckets come out as Valkey reports them. Values are nanoseconds; callers
// that measure microseconds record us * 1000.
//
// Recording is one index computation and one increment; the counts (24 KB) are allocated on
// the first Record, so a command never run costs nothing.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

namespace vireo {

class LatencyHistogram {
 public:
  static constexpr int64_t kMinValue = 1;           // 1 ns
  static constexpr int64_t kMaxValue = 1000000000;  // 1 s: longer values count as 1 s
  static constexpr int kSubBucketHalfBits = 7;      // 128 linear steps per power of two
  static constexpr int kSubBucketHalf = 1 << kSubBucketHalfBits;
  static constexpr int kBuckets = 23;  // 256 << 22 > kMaxValue
  static constexpr int kCountsLen = (kBuckets + 1) * kSubBucketHalf;

  LatencyHistogram() = default;
  LatencyHistogram(const LatencyHistogram& other) { *this = other; }
  LatencyHistogram& operator=(const LatencyHistogram& other);
  LatencyHistogram(LatencyHistogram&&) noexcept = default;
  LatencyHistogram& operator=(LatencyHistogram&&) noexcept = default;

  // Counts one value (clamped to kMinValue..kMaxValue).
  void Record(int64_t ns) {
    if (counts_ == nullptr) [[unlikely]]
      Allocate();
    ++counts_[IndexOf(Clamp(ns))];
    ++total_;
  }
  // Record(us * 1000), with the index of durations under 1 ms from a table: the per-command
  // path, a handful of instructions.
  void RecordUs(int64_t us) {
    if (counts_ == nullptr) [[unlikely]]
      Allocate();
    ++counts_[static_cast<uint64_t>(us) < kUsTableSize ? UsIndex(us) : IndexOf(Clamp(us * 1000))];
    ++total_;
  }
  void Reset();

  uint64_t total() const { return total_; }
  // The value below which `percentile` percent of the recorded values fall, as the highest
  // value of its bucket (the lowest for percentile 0); 0 when empty.
  int64_t ValueAtPercentile(double percentile) const;
  // Cumulative counts at log2 steps from `first` ns (first, 2*first, ...): each step's
  // reporting value is the highest value of its bucket. Steps whose cumulative count did not
  // grow are left out, and the walk stops once every value is counted.
  struct Step {
    int64_t value;
    uint64_t cumulative;
  };
  std::vector<Step> CumulativeLog2(int64_t first) const;

  // Bucket arithmetic, public for tests.
  static constexpr int IndexOf(int64_t v) {
    // Values below 256 share bucket 0, where each sub-bucket holds one value.
    int bucket = 63 - std::countl_zero(static_cast<uint64_t>(v) | (2 * kSubBucketHalf - 1)) -
                 kSubBucketHalfBits;
    int sub = static_cast<int>(v >> bucket);
    return ((bucket + 1) << kSubBucketHalfBits) + sub - kSubBucketHalf;
  }
  static int64_t LowestEquivalent(int64_t v);
  static int64_t HighestEquivalent(int64_t v);
  static int64_t ValueAtIndex(int index);

 private:
  static constexpr size_t kUsTableSize = 1024;
  static constexpr int64_t Clamp(int64_t ns) {
    return ns < kMinValue ? kMinValue : ns > kMaxValue ? kMaxValue : ns;
  }
  static int UsIndex(int64_t us);
  void Allocate();
  std::unique_ptr<uint64_t[]> counts_;
  uint64_t total_ = 0;
};

namespace latency_histogram_internal {
// IndexOf(us * 1000) for us below 1024.
inline constexpr auto kUsIndex = [] {
  std::array<uint16_t, 1024> t{};
  for (int64_t us = 0; us < 1024; ++us) {
    t[static_cast<size_t>(us)] = static_cast<uint16_t>(
        LatencyHistogram::IndexOf(us == 0 ? LatencyHistogram::kMinValue : us * 1000));
  }
  return t;
}();
}  // namespace latency_histogram_internal

inline int LatencyHistogram::UsIndex(int64_t us) {
  return latency_histogram_internal::kUsIndex[static_cast<size_t>(us)];
}

}  // namespace vireo
