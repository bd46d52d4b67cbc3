#include "common/huge_pages.h"

#include <sys/mman.h>
#include <sys/prctl.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

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

bool HugePagesOff() {
  static const bool off = [] {
    if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1) return true;
    FILE* f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == nullptr) return true;
    char mode[128] = {};
    const size_t n = fread(mode, 1, sizeof(mode) - 1, f);
    fclose(f);
    return n == 0 || strstr(mode, "[never]") != nullptr;
  }();
  return off;
}

}  // namespace vireo
