// Per-slot usage counters (see slot_stats.h).
#include "cluster/slot_stats.h"

#include <algorithm>

#include "common/numbers.h"

namespace vireo {

bool ParseSlotMetric(std::string_view name, SlotMetric* metric) {
  static constexpr std::pair<std::string_view, SlotMetric> kNames[] = {
      {"key-count", SlotMetric::kKeyCount},
      {"cpu-usec", SlotMetric::kCpuUsec},
      {"network-bytes-in", SlotMetric::kNetworkBytesIn},
      {"network-bytes-out", SlotMetric::kNetworkBytesOut},
  };
  for (const auto& [n, m] : kNames) {
    if (EqualsIgnoreCase(name, n)) {
      *metric = m;
      return true;
    }
  }
  return false;
}

uint64_t SlotStats::Value(int slot, SlotMetric metric, uint64_t key_count) const {
  const Counters& c = Get(slot);
  switch (metric) {
    case SlotMetric::kKeyCount:
      return key_count;
    case SlotMetric::kCpuUsec:
      return c.cpu_usec;
    case SlotMetric::kNetworkBytesIn:
      return c.network_bytes_in;
    case SlotMetric::kNetworkBytesOut:
      return c.network_bytes_out;
  }
  return 0;
}

std::vector<int> SlotStats::Order(const std::vector<int>& slots, SlotMetric metric,
                                  const std::vector<uint64_t>& key_counts, bool descending,
                                  size_t limit) const {
  auto value = [&](int s) {
    const uint64_t keys =
        static_cast<size_t>(s) < key_counts.size() ? key_counts[static_cast<size_t>(s)] : 0;
    return Value(s, metric, keys);
  };
  std::vector<std::pair<uint64_t, int>> keyed;
  keyed.reserve(slots.size());
  for (int s : slots) keyed.emplace_back(value(s), s);
  // Ties go to the lower slot in both directions, as Valkey's documentation says.
  auto before = [descending](const std::pair<uint64_t, int>& a, const std::pair<uint64_t, int>& b) {
    if (a.first != b.first) return descending ? a.first > b.first : a.first < b.first;
    return a.second < b.second;
  };
  const size_t n = std::min(limit, keyed.size());
  std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(n), keyed.end(),
                    before);
  std::vector<int> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(keyed[i].second);
  return out;
}

}  // namespace vireo
