// When the execution thread's huge-page arena (store/memory.h, UseHugePageArena) gets huge
// pages. They speed up a stable keyspace's lookups (each reads an entry at random: one TLB
// miss fewer), but a dataset growing on advised memory takes a whole 2 MiB page per fault,
// zeroed inside the command that touched it: in a VM whose host backs guest memory as it is
// first touched that is 1-3 ms, and with THP defrag "madvise" (Debian's default) compaction
// may come first. Growing datasets of 1 KB values had single SETs of ~100 ms that way
// (Valkey, on 4 KB pages: 56). So the advice follows the arena's growth:
// - an extent mapped while the arena is quiet (no extent for kGrowthQuietMs) is advised
//   MADV_HUGEPAGE at once, as before: a dataset growing slowly gets huge pages as it goes;
// - one mapped while it grows (within kGrowthQuietMs of the previous) is not advised: its
//   pages fault in 4 KB at a time. It is remembered;
// - once the arena has been quiet for kGrowthQuietMs, a helper thread collapses the
//   remembered memory into huge pages (MADV_COLLAPSE, Linux 6.1+), 2 MiB at a time where at
//   least 7/8 of the pages are resident (so the collapse adds little RSS), off the execution
//   thread. Sparse parts stay remembered for the next quiet spell. Remembered memory is never
//   advised, so a dataset growing again into it still faults 4 KB pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace vireo {

inline constexpr int64_t kGrowthQuietMs = 2000;

struct PageRange {
  uintptr_t begin;
  uintptr_t end;
};

class HugePageAdvice {
 public:
  explicit HugePageAdvice(int64_t quiet_ms = kGrowthQuietMs) : quiet_ms_(quiet_ms) {}

  // The arena mapped [p, p + size) at now_ms: true when it is to be advised now; otherwise it
  // is remembered.
  bool OnExtentMapped(void* p, size_t size, int64_t now_ms);
  // The remembered ranges, handed over, once no extent has been mapped for the quiet time;
  // empty before that, when nothing is remembered, or when nothing was mapped since the last
  // hand-over (what came back then waits for the next growth: looking again every periodic
  // tick cost a thread and a scan of the sparse memory ten times a second, for ever).
  std::vector<PageRange> TakeIfQuiet(int64_t now_ms);
  // Ranges handed back to be looked at again after the next growth.
  void Remember(const std::vector<PageRange>& ranges);
  size_t RememberedBytes() const;

 private:
  mutable std::mutex mu_;  // the extent hook runs on any thread that allocates in the arena
  const int64_t quiet_ms_;
  bool mapped_any_ = false;
  int64_t last_extent_ms_ = 0;
  int64_t taken_through_ms_ = -1;  // last_extent_ms_ at the last hand-over
  std::vector<PageRange> pending_;
};

// Collapses into huge pages (MADV_COLLAPSE) each 2 MiB-aligned part of the ranges whose pages
// are at least 7/8 resident (mincore). Returns what is left to look at later: the sparse
// parts, or every range when the kernel cannot collapse (then *unsupported is set).
// *collapsed: huge pages made.
std::vector<PageRange> CollapseResident(const std::vector<PageRange>& ranges, size_t* collapsed,
                                        bool* unsupported);

}  // namespace vireo
