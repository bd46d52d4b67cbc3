#include "benchmark/histogram.h"

#include <algorithm>
#include <cmath>

namespace vireo::benchmark {
namespace {

int Log2Floor(uint64_t v) { return 63 - __builtin_clzll(v); }

}  // namespace

LatencyHistogram::LatencyHistogram(int64_t lowest_discernible, int64_t highest,
                                   int significant_figures) {
  significant_figures = std::clamp(significant_figures, 1, 5);
  lowest_discernible = std::max<int64_t>(lowest_discernible, 1);
  unit_magnitude_ = Log2Floor(static_cast<uint64_t>(lowest_discernible));
  // Enough linear sub-buckets per range that two neighbours differ by less than one unit of
  // the last significant figure.
  int64_t resolution = 2;
  for (int i = 0; i < significant_figures; ++i) resolution *= 10;
  int sub_bucket_count_magnitude = static_cast<int>(std::ceil(std::log2(resolution)));
  sub_bucket_half_count_magnitude_ = std::max(sub_bucket_count_magnitude, 1) - 1;
  int64_t sub_bucket_count = int64_t{1} << sub_bucket_count_magnitude;
  sub_bucket_half_count_ = sub_bucket_count / 2;
  sub_bucket_mask_ = (sub_bucket_count - 1) << unit_magnitude_;
  highest_ = std::max(highest, 2 * lowest_discernible);
  int ranges = 1;
  for (int64_t untrackable = sub_bucket_count << unit_magnitude_; untrackable <= highest_;
       untrackable <<= 1) {
    ++ranges;
  }
  counts_.assign((ranges + 1) * sub_bucket_half_count_, 0);
}

int LatencyHistogram::BucketIndexOf(int64_t value) const {
  int pow2_ceiling = 64 - __builtin_clzll(static_cast<uint64_t>(value | sub_bucket_mask_));
  return pow2_ceiling - unit_magnitude_ - (sub_bucket_half_count_magnitude_ + 1);
}

int LatencyHistogram::CountsIndexOf(int64_t value) const {
  int bucket = BucketIndexOf(value);
  int64_t sub_bucket = value >> (bucket + unit_magnitude_);
  return static_cast<int>(((int64_t{bucket} + 1) << sub_bucket_half_count_magnitude_) +
                          (sub_bucket - sub_bucket_half_count_));
}

int64_t LatencyHistogram::ValueFromIndex(int index) const {
  int bucket = (index >> sub_bucket_half_count_magnitude_) - 1;
  int64_t sub_bucket = (index & (sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
  if (bucket < 0) {
    sub_bucket -= sub_bucket_half_count_;
    bucket = 0;
  }
  return sub_bucket << (bucket + unit_magnitude_);
}

int64_t LatencyHistogram::BucketWidth(int index) const {
  int bucket = std::max((index >> sub_bucket_half_count_magnitude_) - 1, 0);
  return int64_t{1} << (bucket + unit_magnitude_);
}

int64_t LatencyHistogram::BucketLowest(int i) const { return ValueFromIndex(i); }

int64_t LatencyHistogram::BucketHighest(int i) const {
  return ValueFromIndex(i) + BucketWidth(i) - 1;
}

int64_t LatencyHistogram::LowestEquivalent(int64_t value) const {
  return ValueFromIndex(CountsIndexOf(std::max<int64_t>(value, 0)));
}

int64_t LatencyHistogram::HighestEquivalent(int64_t value) const {
  return BucketHighest(CountsIndexOf(std::max<int64_t>(value, 0)));
}

void LatencyHistogram::Record(int64_t value, int64_t count) {
  value = std::clamp<int64_t>(value, 0, highest_);
  counts_[CountsIndexOf(value)] += count;
  total_count_ += count;
  min_value_ = std::min(min_value_, value);
  max_value_ = std::max(max_value_, value);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < counts_.size() && i < other.counts_.size(); ++i) {
    counts_[i] += other.counts_[i];
  }
  total_count_ += other.total_count_;
  min_value_ = std::min(min_value_, other.min_value_);
  max_value_ = std::max(max_value_, other.max_value_);
}

void LatencyHistogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_count_ = 0;
  min_value_ = INT64_MAX;
  max_value_ = 0;
}

int64_t LatencyHistogram::Min() const {
  if (total_count_ == 0 || counts_[0] > 0) return 0;
  return LowestEquivalent(min_value_);
}

int64_t LatencyHistogram::Max() const {
  if (max_value_ == 0) return 0;
  return HighestEquivalent(max_value_);
}

double LatencyHistogram::Mean() const {
  if (total_count_ == 0) return 0;
  double sum = 0;
  for (int i = 0; i < bucket_count(); ++i) {
    if (counts_[i] == 0) continue;
    sum += static_cast<double>(counts_[i]) * (BucketLowest(i) + (BucketWidth(i) >> 1));
  }
  return sum / static_cast<double>(total_count_);
}

int64_t LatencyHistogram::ValueAtPercentile(double percentile) const {
  double requested = std::min(percentile, 100.0);
  int64_t wanted = static_cast<int64_t>(requested / 100 * total_count_ + 0.5);
  wanted = std::max<int64_t>(wanted, 1);
  int64_t cumulative = 0;
  for (int i = 0; i < bucket_count(); ++i) {
    cumulative += counts_[i];
    if (cumulative >= wanted) return percentile == 0.0 ? BucketLowest(i) : BucketHighest(i);
  }
  return 0;
}

std::vector<LatencyHistogram::Step> LatencyHistogram::PercentileSteps(
    int ticks_per_half_distance) const {
  std::vector<Step> steps;
  if (total_count_ == 0) {
    steps.push_back({100.0, 0, 0});
    return steps;
  }
  double target = 0;
  int64_t cumulative = 0;
  for (int i = 0; i < bucket_count(); ++i) {
    if (counts_[i] == 0) continue;
    cumulative += counts_[i];
    double reached = 100.0 * static_cast<double>(cumulative) / total_count_;
    while (target <= reached) {
      steps.push_back({target, BucketHighest(i), cumulative});
      // The last bucket reports the first target it reaches, then the closing 100% row.
      if (cumulative == total_count_) break;
      int64_t halvings = static_cast<int64_t>(std::log(100 / (100.0 - target)) / std::log(2)) + 1;
      int64_t ticks = ticks_per_half_distance * static_cast<int64_t>(std::pow(2, halvings));
      target += 100.0 / ticks;
    }
    if (cumulative == total_count_) {
      steps.push_back({100.0, BucketHighest(i), cumulative});
      break;
    }
  }
  return steps;
}

LatencyHistogram MakeLatencyHistogram(int precision) {
  return LatencyHistogram(10, 3'000'000, precision);
}

}  // namespace vireo::benchmark
