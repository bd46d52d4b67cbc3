#include "server/latency_tracking.h"

#include <cstdio>
#include <utility>

#include "common/numbers.h"

namespace vireo {
namespace {

// "%f" without trailing zeros: 99.9 -> "99.9", 50 -> "50" (Valkey's labels and CONFIG GET).
std::string FormatPercentile(double p) {
  char buf[64];
  int n = snprintf(buf, sizeof(buf), "%f", p);
  std::string s(buf, static_cast<size_t>(n));
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

}  // namespace

std::string ParsePercentiles(std::string_view text, std::vector<double>* out) {
  std::vector<double> values;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    size_t end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    double v;
    if (!ParseDouble(text.substr(i, end - i), &v)) {
      return "Invalid latency-tracking-info-percentiles parameters";
    }
    if (v < 0.0 || v > 100.0) {
      return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
    }
    values.push_back(v);
    i = end;
  }
  *out = std::move(values);
  return "";
}

std::string FormatPercentiles(const std::vector<double>& percentiles) {
  std::string s;
  for (double p : percentiles) {
    if (!s.empty()) s += ' ';
    s += FormatPercentile(p);
  }
  return s;
}

std::string LatencyStatsLine(const CommandSpec& spec, const std::vector<double>& percentiles) {
  const LatencyHistogram& h = spec.stats.latency;
  if (h.total() == 0) return "";
  std::string line = "latency_percentiles_usec_" + spec.name + ":";
  for (size_t i = 0; i < percentiles.size(); ++i) {
    char value[64];
    snprintf(value, sizeof(value), "%.3f",
             static_cast<double>(h.ValueAtPercentile(percentiles[i])) / 1000.0);
    if (i != 0) line += ',';
    line += "p" + FormatPercentile(percentiles[i]) + "=" + value;
  }
  return line;
}

}  // namespace vireo
