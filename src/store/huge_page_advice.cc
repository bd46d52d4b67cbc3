#include "store/huge_page_advice.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "common/huge_pages.h"

// Older C libraries (and the ARM cross builds' headers) may not name it yet.
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

namespace vireo {

bool HugePageAdvice::OnExtentMapped(void* p, size_t size, int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool growing = mapped_any_ && now_ms - last_extent_ms_ < quiet_ms_;
  mapped_any_ = true;
  last_extent_ms_ = now_ms;
  if (!growing) return true;
  const auto begin = reinterpret_cast<uintptr_t>(p);
  pending_.push_back({begin, begin + size});
  return false;
}

std::vector<PageRange> HugePageAdvice::TakeIfQuiet(int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_.empty() || now_ms - last_extent_ms_ < quiet_ms_ ||
      last_extent_ms_ == taken_through_ms_) {
    return {};
  }
  taken_through_ms_ = last_extent_ms_;
  std::vector<PageRange> out;
  out.swap(pending_);
  return out;
}

void HugePageAdvice::Remember(const std::vector<PageRange>& ranges) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_.insert(pending_.end(), ranges.begin(), ranges.end());
}

size_t HugePageAdvice::RememberedBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const PageRange& r : pending_) n += r.end - r.begin;
  return n;
}

std::vector<PageRange> CollapseResident(const std::vector<PageRange>& ranges, size_t* collapsed,
                                        bool* unsupported) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t per_huge = kHugePageSize / page;
  std::vector<unsigned char> present(per_huge);
  std::vector<PageRange> left;
  *collapsed = 0;
  *unsupported = false;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const PageRange& r = ranges[i];
    // Only whole huge pages inside the range: the edges may belong to other mappings.
    uintptr_t at = (r.begin + kHugePageSize - 1) & ~(uintptr_t{kHugePageSize} - 1);
    for (; at + kHugePageSize <= r.end; at += kHugePageSize) {
      void* chunk = reinterpret_cast<void*>(at);
      if (mincore(chunk, kHugePageSize, present.data()) != 0) continue;  // unmapped since
      size_t resident = 0;
      for (unsigned char v : present) resident += v & 1;
      if (resident * 8 < per_huge * 7) {
        left.push_back({at, at + kHugePageSize});
        continue;
      }
      if (madvise(chunk, kHugePageSize, MADV_COLLAPSE) == 0) {
        ++*collapsed;
      } else if (errno == EINVAL) {
        // No collapse here (before Linux 6.1, THP disabled for the process): keep everything.
        *unsupported = true;
        left.push_back({at, r.end});
        left.insert(left.end(), ranges.begin() + static_cast<ptrdiff_t>(i) + 1, ranges.end());
        return left;
      }
      // Other failures (no huge page free now, pages busy) are left to khugepaged's rules.
    }
  }
  // Adjacent sparse parts are merged, so the list stays as short as the extents.
  std::vector<PageRange> merged;
  for (const PageRange& r : left) {
    if (!merged.empty() && merged.back().end == r.begin) {
      merged.back().end = r.end;
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

}  // namespace vireo
