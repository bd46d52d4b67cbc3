#include "common/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace vireo {

bool AdviseHugePages(void* p, size_t size, size_t min_size) {
  if (p == nullptr || size < min_size) return false;
  const uintptr_t begin =
      (reinterpret_cast<uintptr_t>(p) + kHugePageSize - 1) & ~(kHugePageSize - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + size) & ~(kHugePageSize - 1);
  if (end <= begin) return false;
  // Only the interior: the allocator may hand the edges' neighbours to other objects.
  return madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
}

}  // namespace vireo
