#include "common/latency_histogram.h"

#include <algorithm>
#include <cstring>

namespace vireo {

LatencyHistogram& LatencyHistogram::operator=(const LatencyHistogram& other) {
  if (this == &other) return *this;
  total_ = other.total_;
  if (other.counts_ == nullptr) {
    counts_.reset();
  } else {
    if (counts_ == nullptr) Allocate();
    std::memcpy(counts_.get(), other.counts_.get(), sizeof(uint64_t) * kCountsLen);
  }
  return *this;
}

void LatencyHistogram::Allocate() { counts_ = std::make_unique<uint64_t[]>(kCountsLen); }

void LatencyHistogram::Reset() {
  counts_.reset();
  total_ = 0;
}

int64_t LatencyHistogram::ValueAtIndex(int index) {
  int bucket = (index >> kSubBucketHalfBits) - 1;
  int64_t sub = (index & (kSubBucketHalf - 1)) + kSubBucketHalf;
  if (bucket < 0) {  // bucket 0's lower half
    sub -= kSubBucketHalf;
    bucket = 0;
  }
  return sub << bucket;
}

int64_t LatencyHistogram::LowestEquivalent(int64_t v) { return ValueAtIndex(IndexOf(v)); }

int64_t LatencyHistogram::HighestEquivalent(int64_t v) {
  int index = IndexOf(v);
  int bucket = std::max(0, (index >> kSubBucketHalfBits) - 1);
  return ValueAtIndex(index) + (int64_t{1} << bucket) - 1;
}

int64_t LatencyHistogram::ValueAtPercentile(double percentile) const {
  if (total_ == 0) return 0;
  double p = std::min(percentile, 100.0);
  auto wanted = static_cast<uint64_t>(p / 100.0 * static_cast<double>(total_) + 0.5);
  wanted = std::max<uint64_t>(wanted, 1);
  uint64_t seen = 0;
  for (int i = 0; i < kCountsLen; ++i) {
    seen += counts_[i];
    if (seen >= wanted) {
      int64_t v = ValueAtIndex(i);
      return percentile == 0.0 ? v : HighestEquivalent(v);
    }
  }
  return 0;
}

std::vector<LatencyHistogram::Step> LatencyHistogram::CumulativeLog2(int64_t first) const {
  std::vector<Step> steps;
  if (total_ == 0) return steps;
  uint64_t cumulative = 0, reported = 0;
  int next = 0;  // first index not yet summed
  for (int64_t level = first; cumulative < total_; level *= 2) {
    int last = level > kMaxValue ? kCountsLen - 1 : IndexOf(level);
    for (; next <= last; ++next) cumulative += counts_[next];
    if (cumulative > reported) {
      steps.push_back({HighestEquivalent(level), cumulative});
      reported = cumulative;
    }
  }
  return steps;
}

}  // namespace vireo
