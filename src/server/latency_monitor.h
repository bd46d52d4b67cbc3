// The latency monitor (LATENCY LATEST / HISTORY / GRAPH / DOCTOR / RESET): per event class
// ("command", "fast-command", "expire-cycle", ...), the last 160 seconds that saw a spike at or
// above latency-monitor-threshold, one sample per second (the worst), plus the all-time worst.
// Execution thread only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

class LatencyMonitor {
 public:
  static constexpr size_t kSamples = 160;

  struct Sample {
    int64_t time_s = 0;  // 0: slot unused
    uint32_t latency_ms = 0;
  };
  struct Series {
    std::string event;
    std::array<Sample, kSamples> samples{};
    size_t next = 0;  // slot the next new second goes to
    uint32_t max_ms = 0;

    // The used slots, oldest first.
    std::vector<Sample> History() const;
    // The newest sample.
    const Sample& Latest() const { return samples[(next + kSamples - 1) % kSamples]; }
  };

  // Records duration_us for event when monitoring is on (threshold_ms > 0) and the duration,
  // in whole milliseconds, reaches it. Cheap when it does not.
  void Note(int64_t threshold_ms, std::string_view event, int64_t duration_us) {
    if (threshold_ms != 0 && duration_us / 1000 >= threshold_ms) [[unlikely]] {
      AddSample(event, duration_us / 1000, 0);
    }
  }
  // Adds a sample at now_s (0: the wall clock). Within the same second as the event's newest
  // sample only the worse latency is kept.
  void AddSample(std::string_view event, int64_t latency_ms, int64_t now_s);

  // Events in the order they were first seen.
  const std::vector<Series>& events() const { return events_; }
  const Series* Find(std::string_view event) const;
  // Drops one event's samples (its name compared case-insensitively, as Valkey's RESET does,
  // unlike HISTORY and GRAPH); true if it had any.
  bool Reset(std::string_view event);
  // Drops all; returns how many events there were.
  size_t ResetAll();

 private:
  std::vector<Series> events_;
};

// What LATENCY DOCTOR says about one event's samples.
struct LatencyStats {
  size_t samples = 0;
  uint32_t min_ms = 0, max_ms = 0;
  uint64_t avg_ms = 0;   // integer mean, as Valkey reports it
  uint64_t mad_ms = 0;   // mean absolute deviation from avg_ms
  int64_t period_s = 0;  // seconds from the oldest sample to now (at least 1)
};
LatencyStats AnalyzeLatency(const LatencyMonitor::Series& series, int64_t now_s);

}  // namespace vireo
