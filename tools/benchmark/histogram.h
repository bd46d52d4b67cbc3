// Latency histogram with HDR-style log-linear buckets, the layout redis-benchmark reports
// from, so percentiles and printed values come out in the same steps.
#pragma once

#include <cstdint>
#include <vector>

namespace vireo::benchmark {

// Records non-negative integer values (microseconds here). Values below `lowest_discernible`
// share the finest buckets; the bucket width then doubles with each power of two, keeping
// `significant_figures` decimal digits of resolution (relative error under 10^-figures).
// Values above `highest` are recorded as `highest`. Not thread-safe: one per thread, merged.
class LatencyHistogram {
 public:
  // significant_figures is clamped to 1..5, lowest_discernible to >= 1.
  LatencyHistogram(int64_t lowest_discernible, int64_t highest, int significant_figures);

  void Record(int64_t value, int64_t count = 1);
  // Adds another histogram's counts; both must have been built with the same arguments.
  void Merge(const LatencyHistogram& other);
  void Reset();

  int64_t total_count() const { return total_count_; }
  // The lowest value sharing the smallest recorded value's bucket (0 when empty).
  int64_t Min() const;
  // The highest value sharing the largest recorded value's bucket (0 when empty).
  int64_t Max() const;
  // Mean of the bucket midpoints, weighted by their counts (0 when empty).
  double Mean() const;
  // The highest value of the bucket holding the value at `percentile` (0..100); for 0 the
  // lowest value of the first non-empty bucket.
  int64_t ValueAtPercentile(double percentile) const;

  // Bucket access, for reports that walk the distribution. Buckets are contiguous and
  // ascending; bucket i covers [BucketLowest(i), BucketHighest(i)].
  int bucket_count() const { return static_cast<int>(counts_.size()); }
  int64_t BucketCount(int i) const { return counts_[i]; }
  int64_t BucketLowest(int i) const;
  int64_t BucketHighest(int i) const;
  int64_t LowestEquivalent(int64_t value) const;
  int64_t HighestEquivalent(int64_t value) const;

  // One row of a percentile walk: `percentile` reached at a bucket whose highest value is
  // `value`, with `cumulative` values at or below it.
  struct Step {
    double percentile;
    int64_t value;
    int64_t cumulative;
  };
  // The HDR percentile walk: 0%, then steps that halve the remaining distance to 100%
  // (`ticks_per_half_distance` rows per halving), each reported at the first bucket that
  // reaches it, ending with a 100% row at the last non-empty bucket.
  std::vector<Step> PercentileSteps(int ticks_per_half_distance) const;

 private:
  int BucketIndexOf(int64_t value) const;  // which power-of-two range
  int CountsIndexOf(int64_t value) const;
  int64_t ValueFromIndex(int index) const;
  int64_t BucketWidth(int index) const;

  int unit_magnitude_;  // log2 of the finest bucket width
  int sub_bucket_half_count_magnitude_;
  int64_t sub_bucket_half_count_;
  int64_t sub_bucket_mask_;
  int64_t highest_;
  std::vector<int64_t> counts_;
  int64_t total_count_ = 0;
  int64_t min_value_ = INT64_MAX;
  int64_t max_value_ = 0;
};

// The histogram request latencies go into: microseconds from 10 (so the finest buckets are
// 8 us wide) to 3 seconds, as redis-benchmark records them, with `precision` significant
// figures (--precision).
LatencyHistogram MakeLatencyHistogram(int precision);

}  // namespace vireo::benchmark
