#include "common/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>

// Older C libraries (and their headers for the ARM cross builds) may not name it yet.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace vireo {
namespace {

std::atomic<bool> g_unsupported{false};

uintptr_t PageSize() {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  return page;
}

}  // namespace

bool PrefaultPages(void* p, size_t size) {
  if (p == nullptr || size == 0 || g_unsupported.load(std::memory_order_relaxed)) return false;
  const uintptr_t page = PageSize();
  // Whole pages: writing nothing, the call is safe on the edges' neighbours too.
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + size + page - 1) & ~(page - 1);
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0) return true;
  if (errno == EINVAL) g_unsupported.store(true, std::memory_order_relaxed);
  return false;
}

bool PageResident(const void* p) {
  const uintptr_t page = PageSize();
  unsigned char present = 1;
  void* begin = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~(page - 1));
  if (mincore(begin, page, &present) != 0) return true;
  return (present & 1) != 0;
}

void PrefaultIfFresh(void* p, size_t size) {
  // Backs off while probes keep finding reused memory (1, 2, 4, ... calls skipped, up to
  // kPrefaultProbeEvery - 1), and probes every call again once one finds fresh memory: a
  // growing dataset that also overwrites some keys reuses their freed memory now and then, and
  // a fixed skip after each reuse left most of its fresh allocations to fault page by page.
  thread_local unsigned skip = 0;
  thread_local unsigned backoff = 0;
  if (p == nullptr || g_unsupported.load(std::memory_order_relaxed)) return;
  if (skip > 0) {
    --skip;
    return;
  }
  if (PageResident(p)) {
    backoff = backoff == 0 ? 1 : std::min(2 * backoff, kPrefaultProbeEvery);
    skip = backoff - 1;
    return;
  }
  backoff = 0;
  PrefaultPages(p, size);
}

}  // namespace vireo
