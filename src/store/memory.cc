#include "store/memory.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "common/huge_pages.h"
#include "common/prefault.h"
#include "store/held_pages.h"
#include "store/malloc_count.h"

#ifdef VIREO_USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

// Under AddressSanitizer or ThreadSanitizer malloc is the sanitizer's, which glibc's mallinfo2
// does not see: its own statistics give used_memory instead (sanitizer builds, where maxmemory
// is tested too).
#ifdef VIREO_SANITIZER_MALLOC
// Declared here: g++ 12 ships no sanitizer/allocator_interface.h, but both runtimes export it.
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace vireo {
namespace {

CollectionOps g_ops[8] = {};

[[noreturn]] void OutOfMemory(size_t n) {
  fprintf(stderr, "Out Of Memory allocating %zu bytes!\n", n);
  abort();
}

}  // namespace

void* ZMalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  if (p == nullptr) OutOfMemory(n);
  return p;
}

void* ZRealloc(void* p, size_t n) {
  void* q = realloc(p, n ? n : 1);
  if (q == nullptr) OutOfMemory(n);
  return q;
}

void ZFree(void* p) { free(p); }

#ifdef VIREO_USE_JEMALLOC
namespace {
// mallocx flags for ZMallocValue once the values' arena is made: that arena (and no thread
// cache, which would hand the block back to this thread's next allocation of its size,
// whatever the arena). 0: plain malloc.
int g_value_flags = 0;
}  // namespace
#else
namespace {
constexpr int g_value_flags = 0;  // no values' arena: values on 4 KB pages
}  // namespace
#endif

void* ZMallocValue(size_t n) {
  void* p = nullptr;
#ifdef VIREO_USE_JEMALLOC
  if (g_value_flags != 0) {
    p = mallocx(n ? n : 1, g_value_flags);
    if (p == nullptr) OutOfMemory(n);
  }
#endif
  if (p == nullptr) p = ZMalloc(n);
  // The value is written whole right after: on a growing dataset its pages are all fresh.
  // Values below kPrefaultMin on 4 KB pages (no values' arena) are packed several to a run of
  // pages, so the kPrefaultAhead bytes from a fresh one are prefaulted with it, where the next
  // ones will go (a fault costs this VM about twice a page prefaulted in a batch; 1 KB SET on
  // a growing key space 1.3x -> 1.75x Valkey). Larger values each have pages of their own, and
  // prefaulting ahead of them made pages no value used (+16% RSS at 16 KB). On huge pages a
  // fault maps 2 MiB at once.
  if (n >= kPrefaultMin) {
    PrefaultIfFresh(p, n);
  } else if (g_value_flags == 0 && n >= kValueArenaMin) {
    PrefaultIfFresh(p, n, kPrefaultAhead);
  }
  return p;
}

size_t ZMallocSize(void* p) { return p ? malloc_usable_size(p) : 0; }

size_t UsedMemory() {
#ifdef VIREO_USE_JEMALLOC
  // The epoch must be bumped for jemalloc to refresh its cached statistics.
  uint64_t epoch = 1;
  size_t sz = sizeof(epoch);
  mallctl("epoch", &epoch, &sz, &epoch, sz);
  size_t allocated = 0;
  sz = sizeof(allocated);
  if (mallctl("stats.allocated", &allocated, &sz, nullptr, 0) == 0) return allocated;
  return 0;
#elif defined(VIREO_SANITIZER_MALLOC)
  return __sanitizer_get_current_allocated_bytes();
#elif defined(VIREO_COUNT_MALLOC)
  return CountedMallocBytes();
#else
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
#endif
}

#ifndef VIREO_COUNT_MALLOC
namespace {

struct ThreadCounters {
  const uint64_t* allocated;
  const uint64_t* deallocated;
};
constexpr int kMaxTrackedThreads = 256;
ThreadCounters g_tracked[kMaxTrackedThreads];
std::atomic<int> g_tracked_count{0};

}  // namespace
#endif

bool TrackThreadAllocations() {
#ifdef VIREO_USE_JEMALLOC
  thread_local bool tracked = false;
  if (tracked) return true;
  uint64_t* a = nullptr;
  uint64_t* d = nullptr;
  size_t sz = sizeof(a);
  if (mallctl("thread.allocatedp", &a, &sz, nullptr, 0) != 0) return false;
  sz = sizeof(d);
  if (mallctl("thread.deallocatedp", &d, &sz, nullptr, 0) != 0) return false;
  // Readers see a slot only once the count that covers it is published.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  const int i = g_tracked_count.load(std::memory_order_relaxed);
  if (i >= kMaxTrackedThreads) return false;
  g_tracked[i] = {a, d};
  g_tracked_count.store(i + 1, std::memory_order_release);
  tracked = true;
  return true;
#elif defined(VIREO_COUNT_MALLOC)
  return CountTrackThread();
#else
  return false;
#endif
}

bool TrackedAllocationBalance(int64_t* balance) {
#ifdef VIREO_COUNT_MALLOC
  return CountedTrackedBalance(balance);
#else
  const int n = g_tracked_count.load(std::memory_order_acquire);
  if (n == 0) return false;
  uint64_t sum = 0;
  for (int i = 0; i < n; ++i) {
    // Another thread's counter: a relaxed load of an aligned word, as jemalloc's own readers.
    sum += __atomic_load_n(g_tracked[i].allocated, __ATOMIC_RELAXED) -
           __atomic_load_n(g_tracked[i].deallocated, __ATOMIC_RELAXED);
  }
  *balance = static_cast<int64_t>(sum);
  return true;
#endif
}

#ifdef VIREO_USE_JEMALLOC
namespace {

extent_hooks_t* g_base_hooks = nullptr;  // jemalloc's default hooks, which ours wrap

// An idle server fits in the arena's first two extents (its metadata's and its first data
// extent, 2 MiB each): advising them would add huge pages to a server that holds nothing.
constexpr size_t kValueArenaAdviseAfter = size_t{4} << 20;

// Values of kValueArenaMin bytes and more (ZMallocValue) have an arena of their own, whose
// extents past its first kValueArenaAdviseAfter bytes are advised as they are mapped, growing
// or not. A value is read and written whole, and in a VM every 4 KB page of it misses the TLB
// through two sets of page tables: a GET of a 16 KB value on ordinary pages cost 2.5x the CPU
// of one on huge pages, and growth faults 2 MiB at once instead of 4 KB. The price: the page
// of padding jemalloc adds to each allocation of 16 KB and more becomes resident (+17% RSS at
// 16 KB values, +5% at 64 KB). docs/PERFORMANCE.md "Large values on huge pages".
extent_hooks_t g_value_hooks;
std::atomic<size_t> g_value_arena_mapped{0};

// Maps an extent for the values' arena with jemalloc's own hook. jemalloc maps memory for an
// arena in growing extents (2 MiB, 2.5 MiB, 3 MiB, ...). Those past the first two are placed
// on a 2 MiB boundary, so that all but their tail can be huge pages, and advised whole: no
// other arena's objects share them.
void* ValueExtentAlloc(extent_hooks_t* /*hooks*/, void* new_addr, size_t size, size_t alignment,
                       bool* zero, bool* commit, unsigned arena_ind) {
  const bool advise =
      g_value_arena_mapped.load(std::memory_order_relaxed) >= kValueArenaAdviseAfter;
  if (advise && new_addr == nullptr && size >= kHugePageSize && alignment < kHugePageSize) {
    alignment = kHugePageSize;
  }
  // Always mapped readable and writable, even where the system does not overcommit (where
  // jemalloc would map it inaccessible until it commits): ValueCommit never maps anything.
  *commit = true;
  void* p = g_base_hooks->alloc(g_base_hooks, new_addr, size, alignment, zero, commit, arena_ind);
  if (p == nullptr) return nullptr;
  g_value_arena_mapped.fetch_add(size, std::memory_order_relaxed);
  if (advise) AdviseHugePages(p, size, 0);
  return p;
}

// Freed pages of the values' arena that were not given back, so that no huge page is split.
// jemalloc gives back what decays through the arena's decommit hook (purging only when that
// fails): ValueDecommit gives back only huge pages that are wholly free, and holds the rest
// resident until their huge page is free as a whole, or until jemalloc reuses them
// (ValueCommit, which zeroes them, as jemalloc expects of memory it was told is decommitted).
// Made with the arena and never destroyed: jemalloc's background thread may still decay the
// arena while the process exits.
HeldPages* g_value_held = nullptr;

void GiveBack(uintptr_t begin, size_t len) {
  madvise(reinterpret_cast<void*>(begin), len, MADV_DONTNEED);
}

void ZeroHeld(uintptr_t begin, size_t len) { memset(reinterpret_cast<void*>(begin), 0, len); }

bool ValueDecommit(extent_hooks_t* /*hooks*/, void* addr, size_t /*size*/, size_t offset,
                   size_t length, unsigned /*arena_ind*/) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(addr) + offset;
  // False is success; on failure jemalloc purges the range itself.
  return !g_value_held->Hold(begin, begin + length, GiveBack);
}

bool ValueCommit(extent_hooks_t* /*hooks*/, void* addr, size_t /*size*/, size_t offset,
                 size_t length, unsigned /*arena_ind*/) {
  const uintptr_t begin = reinterpret_cast<uintptr_t>(addr) + offset;
  g_value_held->Take(begin, begin + length, ZeroHeld);
  return false;  // never made inaccessible: committed again by forgetting it was held
}

// The values' arena, its extents from ValueExtentAlloc. 0 when it cannot be made.
unsigned CreateValueArena() {
  size_t sz = sizeof(g_base_hooks);
  if (mallctl("arena.0.extent_hooks", &g_base_hooks, &sz, nullptr, 0) != 0 ||
      g_base_hooks == nullptr) {
    return 0;
  }
  g_value_hooks = *g_base_hooks;
  g_value_held = new HeldPages;
  g_value_hooks.alloc = ValueExtentAlloc;
  g_value_hooks.commit = ValueCommit;
  g_value_hooks.decommit = ValueDecommit;
  g_value_hooks.purge_lazy = nullptr;  // freed pages decay straight to ValueDecommit
  extent_hooks_t* hooks = &g_value_hooks;
  unsigned made = 0;
  sz = sizeof(made);
  if (mallctl("arenas.create", &made, &sz, &hooks, sizeof(hooks)) != 0) return 0;
  return made;
}

}  // namespace
#endif

bool UseValueArena() {
#ifdef VIREO_USE_JEMALLOC
  // Without huge pages an arena apart would only cost locality: a value allocated right after
  // its entry shares page tables with it, and in a VM the walk for the value then often finds
  // them cached (GET of 16 KB values with THP never: 0.43x Valkey's throughput, arenas apart).
  static const bool made = [] {
    if (HugePagesOff()) return false;
    const unsigned arena = CreateValueArena();
    if (arena == 0) return false;
    g_value_flags = MALLOCX_ARENA(arena) | MALLOCX_TCACHE_NONE;
    return true;
  }();
  return made;
#else
  return false;
#endif
}

void FlushThreadCache() {
#ifdef VIREO_USE_JEMALLOC
  mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
#endif
}

size_t ResidentMemory() {
  FILE* f = fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long size = 0, resident = 0;
  int n = fscanf(f, "%lu %lu", &size, &resident);
  fclose(f);
  if (n != 2) return 0;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

void PurgeAllocator() {
#ifdef VIREO_USE_JEMALLOC
  char name[64];
  snprintf(name, sizeof(name), "arena.%u.purge", static_cast<unsigned>(MALLCTL_ARENAS_ALL));
  mallctl(name, nullptr, nullptr, nullptr, 0);
#endif
}

bool SetAllocatorBackgroundThreads(bool on) {
#ifdef VIREO_USE_JEMALLOC
  return mallctl("background_thread", nullptr, nullptr, &on, sizeof(on)) == 0;
#else
  (void)on;
  return false;
#endif
}

AllocatorFigures ReadAllocatorFigures() {
  AllocatorFigures f;
#ifdef VIREO_USE_JEMALLOC
  uint64_t epoch = 1;
  size_t sz = sizeof(epoch);
  mallctl("epoch", &epoch, &sz, &epoch, sz);  // refreshes the cached statistics
  sz = sizeof(size_t);
  mallctl("stats.allocated", &f.allocated, &sz, nullptr, 0);
  mallctl("stats.active", &f.active, &sz, nullptr, 0);
  mallctl("stats.resident", &f.resident, &sz, nullptr, 0);
  // jemalloc takes the values' held pages as decommitted; they are resident all the same.
  if (g_value_held != nullptr) f.resident += g_value_held->held_bytes();
#endif
  return f;
}

std::string AllocatorStats() {
#ifdef VIREO_USE_JEMALLOC
  std::string out;
  malloc_stats_print(
      [](void* arg, const char* text) { static_cast<std::string*>(arg)->append(text); }, &out,
      nullptr);
  return out;
#else
  return "Stats not supported for the current allocator";
#endif
}

const char* AllocatorName() {
#ifdef VIREO_USE_JEMALLOC
  static char name[64];
  if (name[0] == 0) {
    const char* v = nullptr;
    size_t sz = sizeof(v);
    if (mallctl("version", &v, &sz, nullptr, 0) == 0 && v != nullptr) {
      // jemalloc reports "5.3.0-0-g54eaed1d..."; Valkey shows "jemalloc-5.3.0".
      int len = 0;
      while (v[len] && v[len] != '-' && len < 40) ++len;
      snprintf(name, sizeof(name), "jemalloc-%.*s", len, v);
    } else {
      snprintf(name, sizeof(name), "jemalloc");
    }
  }
  return name;
#else
  return "libc";
#endif
}

void RegisterCollectionOps(ObjType type, const CollectionOps& ops) {
  g_ops[static_cast<int>(type)] = ops;
}

void FreeCollection(ObjType type, Encoding enc, void* obj) {
  const CollectionOps& ops = g_ops[static_cast<int>(type)];
  if (ops.free != nullptr) ops.free(enc, obj);
}

size_t CollectionFreeEffort(ObjType type, Encoding enc, const void* obj) {
  const CollectionOps& ops = g_ops[static_cast<int>(type)];
  return ops.free_effort != nullptr ? ops.free_effort(enc, obj) : 1;
}

size_t CollectionMemory(ObjType type, Encoding enc, const void* obj) {
  const CollectionOps& ops = g_ops[static_cast<int>(type)];
  return ops.memory != nullptr ? ops.memory(enc, obj) : 0;
}

void* CopyCollection(ObjType type, Encoding enc, const void* obj) {
  const CollectionOps& ops = g_ops[static_cast<int>(type)];
  if (ops.copy == nullptr) {
    // A family that stores values must say how to copy them; sharing would double-free.
    fprintf(stderr, "CopyCollection: no copy registered for type %d\n", static_cast<int>(type));
    abort();
  }
  return ops.copy(enc, obj);
}

}  // namespace vireo
