// ASCII sparklines as LATENCY GRAPH draws them: one column per sample, `rows` rows high with
// three levels per row ('_', 'o', '#', and '|' below a filled top), then a blank line and
// each sample's label written downwards. Sequences wider than `columns` continue in further
// blocks separated by a blank line.
#pragma once

#include <string>
#include <vector>

namespace vireo {

struct SparkSample {
  double value;
  std::string label;
};

std::string RenderSparkline(const std::vector<SparkSample>& samples, int columns, int rows);

}  // namespace vireo
