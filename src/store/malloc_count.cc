// glibc supports replacing malloc: defining malloc, free, calloc, realloc and the aligned
// variants here makes every caller (ours, libstdc++'s operator new, Lua, OpenSSL, glibc itself)
// come through, and the __libc_* entry points glibc exports do the work. Each thread adds
// usable sizes to its own slot (a plain load and store, no locked instruction); readers sum
// the slots in use, as jemalloc's stats do over its per-thread counters.
#include "store/malloc_count.h"

#ifdef VIREO_COUNT_MALLOC

#include <errno.h>
#include <malloc.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

extern "C" {
void* __libc_malloc(size_t n);
void* __libc_calloc(size_t count, size_t n);
void* __libc_realloc(void* p, size_t n);
void __libc_free(void* p);
void* __libc_memalign(size_t alignment, size_t n);
void* __libc_valloc(size_t n);
void* __libc_pvalloc(size_t n);
}

namespace vireo {
namespace {

// Word-sized counters: an aligned word is read and written whole on every target (a 64-bit
// counter would not be on armhf), and a 32-bit process cannot hold 4 GiB anyway. Only the
// owning thread writes a slot's counters; they wrap, and only differences of sums are used.
struct alignas(64) Slot {
  std::atomic<size_t> allocated{0};
  std::atomic<size_t> freed{0};
  std::atomic<bool> taken{false};
  std::atomic<bool> tracked{false};
};
constexpr int kCounterSlots = 128;
Slot g_slots[kCounterSlots];
std::atomic<int> g_slots_seen{0};  // slots [0, seen) may hold counts
// Threads without a slot (past kCounterSlots, or exiting) and those that exited count here.
std::atomic<size_t> g_shared_allocated{0};
std::atomic<size_t> g_shared_freed{0};
pthread_key_t g_exit_key;
pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;

// Constant-initialized and trivially destructible: no TLS initializer runs inside malloc.
thread_local Slot* t_slot = nullptr;
thread_local bool t_claimed = false;  // a slot was looked for (found or not)

void Bump(std::atomic<size_t>* counter, size_t n) {
  counter->store(counter->load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

// pthread key destructor: the exiting thread's figures move to the shared pair, its slot frees.
void RetireSlot(void* arg) {
  auto* s = static_cast<Slot*>(arg);
  t_slot = nullptr;  // frees from here on (later destructors) count in the shared pair
  g_shared_allocated.fetch_add(s->allocated.load(std::memory_order_relaxed),
                               std::memory_order_relaxed);
  g_shared_freed.fetch_add(s->freed.load(std::memory_order_relaxed), std::memory_order_relaxed);
  s->allocated.store(0, std::memory_order_relaxed);
  s->freed.store(0, std::memory_order_relaxed);
  s->tracked.store(false, std::memory_order_relaxed);
  s->taken.store(false, std::memory_order_release);
}

void MakeExitKey() { pthread_key_create(&g_exit_key, RetireSlot); }

// First allocation of a thread. t_claimed is set before anything that may allocate
// (pthread_setspecific can), so those nested calls count in the shared pair.
Slot* Claim() {
  if (t_claimed) return nullptr;
  t_claimed = true;
  pthread_once(&g_exit_key_once, MakeExitKey);
  for (int i = 0; i < kCounterSlots; ++i) {
    bool expected = false;
    if (g_slots[i].taken.load(std::memory_order_relaxed) ||
        !g_slots[i].taken.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
      continue;
    }
    int seen = g_slots_seen.load(std::memory_order_relaxed);
    while (seen < i + 1 &&
           !g_slots_seen.compare_exchange_weak(seen, i + 1, std::memory_order_release)) {
    }
    if (pthread_setspecific(g_exit_key, &g_slots[i]) != 0) {
      g_slots[i].taken.store(false, std::memory_order_release);
      return nullptr;
    }
    t_slot = &g_slots[i];
    return t_slot;
  }
  return nullptr;
}

// Adds n bytes to the calling thread's allocated (or freed) figure.
void CountBytes(size_t n, bool freed) {
  Slot* s = t_slot != nullptr ? t_slot : Claim();
  if (s != nullptr) {
    Bump(freed ? &s->freed : &s->allocated, n);
  } else {
    (freed ? g_shared_freed : g_shared_allocated).fetch_add(n, std::memory_order_relaxed);
  }
}

void* Allocated(void* p) {
  if (p != nullptr) CountBytes(malloc_usable_size(p), false);
  return p;
}

}  // namespace

size_t CountedMallocBytes() {
  size_t allocated = g_shared_allocated.load(std::memory_order_relaxed);
  size_t freed = g_shared_freed.load(std::memory_order_relaxed);
  const int seen = g_slots_seen.load(std::memory_order_acquire);
  for (int i = 0; i < seen; ++i) {
    allocated += g_slots[i].allocated.load(std::memory_order_relaxed);
    freed += g_slots[i].freed.load(std::memory_order_relaxed);
  }
  const size_t used = allocated - freed;
  // A reading racing frees on other threads can see a free before its allocation.
  return used > SIZE_MAX / 2 ? 0 : used;
}

bool CountTrackThread() {
  Slot* s = t_slot != nullptr ? t_slot : Claim();
  if (s == nullptr) return false;
  s->tracked.store(true, std::memory_order_release);
  return true;
}

bool CountedTrackedBalance(int64_t* balance) {
  const int seen = g_slots_seen.load(std::memory_order_acquire);
  bool any = false;
  size_t sum = 0;
  for (int i = 0; i < seen; ++i) {
    if (!g_slots[i].tracked.load(std::memory_order_acquire)) continue;
    any = true;
    sum += g_slots[i].allocated.load(std::memory_order_relaxed) -
           g_slots[i].freed.load(std::memory_order_relaxed);
  }
  // The sum wraps at the word size, and on 32-bit targets it can pass 2^31 (what tracked threads
  // allocate and the lazy-free thread frees only ever adds). Callers compare readings, so each
  // thread's series is unwrapped: a 64-bit total moved by the signed change since its last one.
  thread_local size_t last = 0;
  thread_local int64_t total = 0;
  total += static_cast<std::make_signed_t<size_t>>(sum - last);
  last = sum;
  *balance = total;
  return any;
}

}  // namespace vireo

extern "C" {

void* malloc(size_t n) noexcept { return vireo::Allocated(__libc_malloc(n)); }

void free(void* p) noexcept {
  if (p == nullptr) return;
  vireo::CountBytes(malloc_usable_size(p), true);
  __libc_free(p);
}

void* calloc(size_t count, size_t n) noexcept { return vireo::Allocated(__libc_calloc(count, n)); }

void* realloc(void* p, size_t n) noexcept {
  if (p == nullptr) return malloc(n);
  if (n == 0) {  // glibc frees and returns null
    free(p);
    return nullptr;
  }
  const size_t old = malloc_usable_size(p);
  void* q = __libc_realloc(p, n);
  if (q == nullptr) return nullptr;  // p is untouched
  vireo::CountBytes(old, true);      // a free of the old block and an allocation of the new one
  return vireo::Allocated(q);
}

void* memalign(size_t alignment, size_t n) noexcept {
  return vireo::Allocated(__libc_memalign(alignment, n));
}

void* aligned_alloc(size_t alignment, size_t n) noexcept { return memalign(alignment, n); }

int posix_memalign(void** out, size_t alignment, size_t n) noexcept {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
    return EINVAL;
  }
  void* p = memalign(alignment, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

void* valloc(size_t n) noexcept { return vireo::Allocated(__libc_valloc(n)); }

void* pvalloc(size_t n) noexcept { return vireo::Allocated(__libc_pvalloc(n)); }

}  // extern "C"

#endif  // VIREO_COUNT_MALLOC
