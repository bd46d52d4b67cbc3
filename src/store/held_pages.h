// Freed memory of the values' arena kept resident instead of purged, page by page, until the
// whole huge page around it is free: giving back part of a huge page splits it into 4 KB
// pages for good, and on this project's machines a process whose huge pages were split runs
// its reads at a third of the speed (docs/PERFORMANCE.md "Large values, seventh step").
// Data structure only: the caller does the system calls for the ranges it is handed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "common/huge_pages.h"

namespace vireo {

class HeldPages {
 public:
  static constexpr size_t kPage = 4096;
  using RangeFn = void (*)(uintptr_t begin, size_t len);

  HeldPages() = default;
  ~HeldPages();
  HeldPages(const HeldPages&) = delete;
  HeldPages& operator=(const HeldPages&) = delete;

  // Records the page-aligned [begin, end) as free. Every huge page that is now free as a
  // whole (covered by the range, or completed by it) is handed to release, adjacent ones in
  // one call, and is no longer held. False, with nothing recorded, when the bookkeeping
  // cannot get memory: the caller then gives the range back its own way.
  bool Hold(uintptr_t begin, uintptr_t end, RangeFn release);
  // Marks [begin, end) in use again: each run of held pages inside it is handed to zero (the
  // allocator was told they were given back, so it expects zeros) and forgotten.
  void Take(uintptr_t begin, uintptr_t end, RangeFn zero);

  // Held and so resident, though the allocator counts it as given back. Any thread.
  size_t held_bytes() const { return held_pages_.load(std::memory_order_relaxed) * kPage; }

 private:
  static constexpr int kWords = static_cast<int>(kHugePageSize / kPage / 64);  // 8
  struct Bits {
    uint64_t w[kWords];
  };
  // Huge pages by number: a lazily mapped top level of chunks, each covering 1 GiB.
  static constexpr int kChunkShift = 9;  // 512 huge pages per chunk
  static constexpr size_t kTopEntries = size_t{1} << (48 - 21 - kChunkShift);

  Bits* Find(uintptr_t huge, bool create);
  static void SetRange(Bits* b, size_t first, size_t last, bool on, size_t* changed);

  std::mutex mu_;
  Bits** top_ = nullptr;
  std::atomic<size_t> held_pages_{0};  // written under mu_
};

}  // namespace vireo
