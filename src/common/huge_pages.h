// Transparent huge pages for large arrays that are read at random (hash table buckets).
#pragma once

#include <cstddef>

namespace vireo {

// The x86-64 and ARM64 (4 KB granule) transparent huge page.
inline constexpr size_t kHugePageSize = size_t{2} << 20;

// Arrays of at least this many bytes are worth advising: below it, a huge page could cost
// more resident memory than the array itself.
inline constexpr size_t kHugePageAdviseMin = size_t{4} << 20;

// Asks the kernel (madvise MADV_HUGEPAGE) to back the 2 MiB-aligned part of [p, p + size)
// with huge pages from its next fault on, so random reads over a large table miss the TLB
// far less often. True when advised; arrays under min_size are left alone. Where THP is off
// the advice has no effect, and failure only leaves normal pages.
bool AdviseHugePages(void* p, size_t size, size_t min_size = kHugePageAdviseMin);

// True when this process can have no transparent huge page: the machine's mode is "never"
// (or the kernel has none), or the process was started with them turned off (prctl
// PR_SET_THP_DISABLE, which exec keeps). Read once, at the first call.
bool HugePagesOff();

}  // namespace vireo
