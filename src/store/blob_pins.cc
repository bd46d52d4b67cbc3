#include "store/blob_pins.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "store/memory.h"

namespace vireo {
namespace {

struct Pin {
  size_t count = 0;
  bool orphaned = false;  // the key let go: the last unpin frees the blob
};

std::mutex g_mu;
std::unordered_map<const StrBlob*, Pin> g_pins;
// Entries in g_pins, readable without the lock: 0 means no blob is pinned. A blob is pinned
// only by the execution thread while its key holds it, so a thread freeing a blob it was
// handed (lazy free) after the pin was taken sees a count above 0.
std::atomic<size_t> g_pinned{0};

}  // namespace

void PinBlob(StrBlob* b) {
  std::lock_guard lock(g_mu);
  Pin& p = g_pins[b];
  if (p.count++ == 0) g_pinned.fetch_add(1, std::memory_order_relaxed);
}

void UnpinBlob(void* blob) {
  const auto* b = static_cast<const StrBlob*>(blob);
  bool free_it = false;
  {
    std::lock_guard lock(g_mu);
    auto it = g_pins.find(b);
    if (it == g_pins.end()) return;  // not reachable: every ref took a pin
    if (--it->second.count > 0) return;
    free_it = it->second.orphaned;
    g_pins.erase(it);
    g_pinned.fetch_sub(1, std::memory_order_relaxed);
  }
  if (free_it) ZFree(const_cast<StrBlob*>(b));
}

bool BlobPinned(const StrBlob* b) {
  if (g_pinned.load(std::memory_order_relaxed) == 0) [[likely]] return false;
  std::lock_guard lock(g_mu);
  return g_pins.count(b) != 0;
}

void ReleaseBlob(StrBlob* b) {
  if (g_pinned.load(std::memory_order_acquire) != 0) [[unlikely]] {
    std::lock_guard lock(g_mu);
    auto it = g_pins.find(b);
    if (it != g_pins.end()) {
      it->second.orphaned = true;
      return;
    }
  }
  ZFree(b);
}

size_t PinnedBlobs() { return g_pinned.load(std::memory_order_relaxed); }

}  // namespace vireo
