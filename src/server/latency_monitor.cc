#include "server/latency_monitor.h"

#include <ctime>

#include "common/numbers.h"

namespace vireo {

std::vector<LatencyMonitor::Sample> LatencyMonitor::Series::History() const {
  std::vector<Sample> out;
  for (size_t i = 0; i < kSamples; ++i) {
    const Sample& s = samples[(next + i) % kSamples];
    if (s.time_s != 0) out.push_back(s);
  }
  return out;
}

void LatencyMonitor::AddSample(std::string_view event, int64_t latency_ms, int64_t now_s) {
  if (now_s == 0) now_s = static_cast<int64_t>(std::time(nullptr));
  auto ms = static_cast<uint32_t>(latency_ms);
  Series* series = nullptr;
  for (Series& s : events_) {
    if (s.event == event) series = &s;
  }
  if (series == nullptr) {
    series = &events_.emplace_back();
    series->event = std::string(event);
  }
  if (ms > series->max_ms) series->max_ms = ms;
  Sample& prev = series->samples[(series->next + kSamples - 1) % kSamples];
  if (prev.time_s == now_s) {
    if (ms > prev.latency_ms) prev.latency_ms = ms;
    return;
  }
  series->samples[series->next] = {now_s, ms};
  series->next = (series->next + 1) % kSamples;
}

const LatencyMonitor::Series* LatencyMonitor::Find(std::string_view event) const {
  for (const Series& s : events_) {
    if (s.event == event) return &s;
  }
  return nullptr;
}

bool LatencyMonitor::Reset(std::string_view event) {
  for (size_t i = 0; i < events_.size(); ++i) {
    if (EqualsIgnoreCase(events_[i].event, event)) {
      events_.erase(events_.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
  }
  return false;
}

size_t LatencyMonitor::ResetAll() {
  size_t n = events_.size();
  events_.clear();
  return n;
}

LatencyStats AnalyzeLatency(const LatencyMonitor::Series& series, int64_t now_s) {
  LatencyStats st;
  uint64_t sum = 0;
  int64_t oldest = 0;
  for (const LatencyMonitor::Sample& s : series.samples) {
    if (s.time_s == 0) continue;
    if (st.samples++ == 0) {
      st.min_ms = st.max_ms = s.latency_ms;
    } else {
      if (s.latency_ms < st.min_ms) st.min_ms = s.latency_ms;
      if (s.latency_ms > st.max_ms) st.max_ms = s.latency_ms;
    }
    sum += s.latency_ms;
    if (oldest == 0 || s.time_s < oldest) oldest = s.time_s;
  }
  if (st.samples == 0) return st;
  st.avg_ms = sum / st.samples;
  st.period_s = now_s - oldest;
  if (st.period_s == 0) st.period_s = 1;
  uint64_t deviation = 0;
  for (const LatencyMonitor::Sample& s : series.samples) {
    if (s.time_s == 0) continue;
    int64_t delta = static_cast<int64_t>(st.avg_ms) - s.latency_ms;
    deviation += static_cast<uint64_t>(delta < 0 ? -delta : delta);
  }
  st.mad_ms = deviation / st.samples;
  return st;
}

}  // namespace vireo
