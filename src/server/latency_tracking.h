// latency-tracking (per-command latency histograms, INFO latencystats) and the command hook
// that also feeds the latency monitor.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "commands/command_table.h"
#include "server/config.h"
#include "server/latency_monitor.h"

namespace vireo {

// After each command (Server::Call): its histogram, and a "command" / "fast-command" spike.
inline void TrackCommandLatency(const Config& config, LatencyMonitor& monitor,
                                const CommandSpec& spec, int64_t duration_us) {
  if (config.latency_tracking) spec.stats.latency.RecordUs(duration_us);
  if (config.latency_monitor_threshold != 0) [[unlikely]] {
    monitor.Note(config.latency_monitor_threshold,
                 (spec.flags & kCmdFast) ? "fast-command" : "command", duration_us);
  }
}

// latency-tracking-info-percentiles: space-separated numbers in 0..100 ("" = none). Returns
// "" or the CONFIG SET error reason.
std::string ParsePercentiles(std::string_view text, std::vector<double>* out);
// As CONFIG GET shows them: "50 99 99.9".
std::string FormatPercentiles(const std::vector<double>& percentiles);

// INFO latencystats' line for spec ("" when it has no samples):
// latency_percentiles_usec_<name>:p50=1.003,p99=...
std::string LatencyStatsLine(const CommandSpec& spec, const std::vector<double>& percentiles);

}  // namespace vireo
