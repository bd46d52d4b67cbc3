#include "store/held_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>

namespace vireo {
namespace {

// The bookkeeping runs inside the allocator's hooks, so it maps its own memory instead of
// calling malloc (which could come back into the allocator holding its locks).
void* MapZeroed(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

constexpr size_t kPagesPerHuge = kHugePageSize / HeldPages::kPage;

}  // namespace

HeldPages::~HeldPages() {
  if (top_ == nullptr) return;
  for (size_t i = 0; i < kTopEntries; ++i) {
    if (top_[i] != nullptr) munmap(top_[i], sizeof(Bits) << kChunkShift);
  }
  munmap(top_, kTopEntries * sizeof(Bits*));
}

HeldPages::Bits* HeldPages::Find(uintptr_t huge, bool create) {
  const size_t ti = huge >> kChunkShift;
  if (ti >= kTopEntries) return nullptr;
  if (top_ == nullptr) {
    if (!create) return nullptr;
    top_ = static_cast<Bits**>(MapZeroed(kTopEntries * sizeof(Bits*)));
    if (top_ == nullptr) return nullptr;
  }
  if (top_[ti] == nullptr) {
    if (!create) return nullptr;
    top_[ti] = static_cast<Bits*>(MapZeroed(sizeof(Bits) << kChunkShift));
    if (top_[ti] == nullptr) return nullptr;
  }
  return &top_[ti][huge & ((size_t{1} << kChunkShift) - 1)];
}

void HeldPages::SetRange(Bits* b, size_t first, size_t last, bool on, size_t* changed) {
  for (size_t i = first; i < last;) {
    const size_t word = i / 64, bit = i % 64;
    const size_t n = std::min<size_t>(64 - bit, last - i);
    const uint64_t mask = (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << bit;
    const uint64_t before = b->w[word];
    b->w[word] = on ? (before | mask) : (before & ~mask);
    *changed += static_cast<size_t>(std::popcount((before ^ b->w[word]) & mask));
    i += n;
  }
}

bool HeldPages::Hold(uintptr_t begin, uintptr_t end, RangeFn release) {
  if (end <= begin) return true;
  std::lock_guard<std::mutex> lock(mu_);
  const uintptr_t first = begin / kHugePageSize, last = (end - 1) / kHugePageSize;
  // Only the range's first and last huge pages can be partly covered: their bits are made
  // before anything changes, so a failure leaves nothing half recorded.
  if (begin % kHugePageSize != 0 && Find(first, true) == nullptr) return false;
  if (end % kHugePageSize != 0 && Find(last, true) == nullptr) return false;
  uintptr_t run_begin = 0, run_end = 0;
  auto release_huge = [&](uintptr_t h) {
    const uintptr_t at = h * kHugePageSize;
    if (run_end != at) {
      if (run_end != run_begin) release(run_begin, run_end - run_begin);
      run_begin = at;
    }
    run_end = at + kHugePageSize;
  };
  for (uintptr_t h = first; h <= last; ++h) {
    const uintptr_t hb = h * kHugePageSize;
    const uintptr_t s = std::max(begin, hb), e = std::min(end, hb + kHugePageSize);
    Bits* b = Find(h, s != hb || e != hb + kHugePageSize);
    if (b != nullptr) {
      size_t added = 0;
      SetRange(b, (s - hb) / kPage, (e - hb) / kPage, true, &added);
      held_pages_ += added;
      bool full = true;
      for (uint64_t w : b->w) full = full && w == ~uint64_t{0};
      if (!full) continue;
      *b = Bits{};
      held_pages_ -= kPagesPerHuge;
    }
    release_huge(h);  // wholly free: given back whole, so it is never split
  }
  if (run_end != run_begin) release(run_begin, run_end - run_begin);
  return true;
}

void HeldPages::Take(uintptr_t begin, uintptr_t end, RangeFn zero) {
  if (end <= begin) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (top_ == nullptr || held_pages_ == 0) return;
  for (uintptr_t h = begin / kHugePageSize; h <= (end - 1) / kHugePageSize; ++h) {
    Bits* b = Find(h, false);
    if (b == nullptr) continue;
    const uintptr_t hb = h * kHugePageSize;
    const size_t lo = (std::max(begin, hb) - hb) / kPage;
    const size_t hi = (std::min(end, hb + kHugePageSize) - hb + kPage - 1) / kPage;
    size_t i = lo;
    while (i < hi) {
      if (!(b->w[i / 64] >> (i % 64) & 1)) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < hi && (b->w[j / 64] >> (j % 64) & 1)) ++j;
      zero(hb + i * kPage, (j - i) * kPage);
      size_t cleared = 0;
      SetRange(b, i, j, false, &cleared);
      held_pages_ -= cleared;
      i = j;
    }
  }
}

}  // namespace vireo
