#include "common/sparkline.h"

#include <algorithm>

namespace vireo {
namespace {

constexpr char kLevels[] = "_o#";
constexpr int kLevelCount = 3;
constexpr int kLabelGap = 1;  // blank rows between the graph and the labels

void RenderBlock(const std::vector<SparkSample>& samples, double min, double max, size_t from,
                 size_t len, int rows, std::string* out) {
  double range = max - min;
  if (range == 0) range = 1;
  const int steps = kLevelCount * rows;
  std::vector<int> step(len);
  size_t label_rows = 0;
  for (size_t j = 0; j < len; ++j) {
    const SparkSample& s = samples[from + j];
    step[j] = std::clamp(static_cast<int>((s.value - min) * steps / range), 0, steps - 1);
    label_rows = std::max(label_rows, s.label.size());
  }
  std::string line(len, ' ');
  for (int row = 0; row < rows; ++row) {
    std::fill(line.begin(), line.end(), ' ');
    for (size_t j = 0; j < len; ++j) {
      int level = step[j] - (rows - row - 1) * kLevelCount;
      if (level >= kLevelCount) {
        line[j] = '|';
      } else if (level >= 0) {
        line[j] = kLevels[level];
      }
    }
    *out += line;
    *out += '\n';
  }
  if (label_rows == 0) return;
  for (int gap = 0; gap < kLabelGap; ++gap) *out += std::string(len, ' ') + '\n';
  for (size_t r = 0; r < label_rows; ++r) {
    std::fill(line.begin(), line.end(), ' ');
    for (size_t j = 0; j < len; ++j) {
      const std::string& label = samples[from + j].label;
      if (r < label.size()) line[j] = label[r];
    }
    *out += line;
    *out += '\n';
  }
}

}  // namespace

std::string RenderSparkline(const std::vector<SparkSample>& samples, int columns, int rows) {
  std::string out;
  if (samples.empty()) return out;
  double min = samples[0].value, max = samples[0].value;
  for (const SparkSample& s : samples) {
    min = std::min(min, s.value);
    max = std::max(max, s.value);
  }
  for (size_t from = 0; from < samples.size(); from += static_cast<size_t>(columns)) {
    if (from != 0) out += '\n';
    size_t len = std::min(samples.size() - from, static_cast<size_t>(columns));
    RenderBlock(samples, min, max, from, len, rows, &out);
  }
  return out;
}

}  // namespace vireo
