// Per-slot usage counters for CLUSTER SLOT-STATS (Valkey 8.0): CPU time, request bytes and
// reply bytes of the commands each hash slot served, kept while cluster-slot-stats-enabled is
// yes, and the ordering the command's ORDERBY form reports them in. Key counts are not kept
// here: the caller counts them from the keyspace when asked.
//
// Execution thread only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/crc16.h"

namespace vireo {

enum class SlotMetric { kKeyCount, kCpuUsec, kNetworkBytesIn, kNetworkBytesOut };

// The metric named (case-insensitive: "key-count", "cpu-usec", "network-bytes-in",
// "network-bytes-out"); false when none is.
bool ParseSlotMetric(std::string_view name, SlotMetric* metric);

class SlotStats {
 public:
  struct Counters {
    uint64_t cpu_usec = 0;
    uint64_t network_bytes_in = 0;
    uint64_t network_bytes_out = 0;
  };

  // slot: 0..kClusterSlots-1 (callers pass only slots a command was routed to).
  void AddCpu(int slot, uint64_t usec) { at(slot).cpu_usec += usec; }
  void AddBytesIn(int slot, uint64_t bytes) { at(slot).network_bytes_in += bytes; }
  void AddBytesOut(int slot, uint64_t bytes) { at(slot).network_bytes_out += bytes; }

  const Counters& Get(int slot) const { return counters_[static_cast<size_t>(slot)]; }
  // The node lost the slot: its history goes with it.
  void Reset(int slot) { at(slot) = Counters{}; }
  // CONFIG RESETSTAT.
  void ResetAll() { counters_.fill(Counters{}); }

  // The value of metric for slot; key_count is the slot's key count (the caller's).
  uint64_t Value(int slot, SlotMetric metric, uint64_t key_count) const;

  // ORDERBY: slots (ascending) sorted by metric, descending or ascending, ties in ascending
  // slot order, cut to the first limit. key_counts is indexed by slot.
  std::vector<int> Order(const std::vector<int>& slots, SlotMetric metric,
                         const std::vector<uint64_t>& key_counts, bool descending,
                         size_t limit) const;

 private:
  Counters& at(int slot) { return counters_[static_cast<size_t>(slot)]; }

  std::array<Counters, kClusterSlots> counters_{};
};

}  // namespace vireo
