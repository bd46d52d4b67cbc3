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

// madvise(MADV_POPULATE_WRITE) over the whole pages of [p, p + size): 0 or the errno.
int Populate(void* p, size_t size) {
  const uintptr_t page = PageSize();
  // Whole pages: writing nothing, the call is safe on the edges' neighbours too.
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + size + page - 1) & ~(page - 1);
  return madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE) == 0 ? 0
                                                                                         : errno;
}

}  // namespace

bool PrefaultPages(void* p, size_t size) {
  if (p == nullptr || size == 0 || g_unsupported.load(std::memory_order_relaxed)) return false;
  const int err = Populate(p, size);
  if (err == EINVAL) g_unsupported.store(true, std::memory_order_relaxed);
  return err == 0;
}

bool PageResident(const void* p) {
  const uintptr_t page = PageSize();
  unsigned char present = 1;
  void* begin = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~(page - 1));
  if (mincore(begin, page, &present) != 0) return true;
  return (present & 1) != 0;
}

void PrefaultIfFresh(void* p, size_t size, size_t ahead) {
  // Backs off while probes keep finding reused memory (1, 2, 4, ... calls skipped, up to
  // kPrefaultProbeEvery - 1), and probes every call again once one finds fresh memory: a
  // growing dataset that also overwrites some keys reuses their freed memory now and then, and
  // a fixed skip after each reuse left most of its fresh allocations to fault page by page.
  // Allocations inside the range ahead the last prefault covered cost nothing and change
  // nothing.
  thread_local unsigned skip = 0;
  thread_local unsigned backoff = 0;
  thread_local uintptr_t done_begin = 0, done_end = 0;
  if (p == nullptr || size == 0 || g_unsupported.load(std::memory_order_relaxed)) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
  if (begin >= done_begin && begin + size <= done_end) return;
  if (skip > 0) {
    --skip;
    return;
  }
  // The last page: a block shorter than a page or two may share its first with the block
  // before it, already written, while the rest of it is fresh. With a range ahead, the page
  // after it: blocks packed in fresh pages (several to a page) mostly start and end in a page
  // an earlier block already touched, while the page after the newest one is fresh.
  const char* probe = static_cast<char*>(p) + size - 1;
  if (ahead > size) probe += PageSize();
  if (PageResident(probe)) {
    backoff = backoff == 0 ? 1 : std::min(2 * backoff, kPrefaultProbeEvery);
    skip = backoff - 1;
    return;
  }
  backoff = 0;
  // The range ahead may run past the end of its mapping, into a hole (ENOMEM) or a guard
  // mapping (EINVAL), after populating what comes before: then the block on its own, which
  // alone tells whether the system can do this at all.
  if (ahead > size && Populate(p, ahead) == 0) {
    done_begin = begin;
    done_end = begin + ahead;
    return;
  }
  PrefaultPages(p, size);
}

}  // namespace vireo
