// Faulting in the pages of a fresh allocation with one system call instead of one page fault
// per page: a dataset of large values that grows takes every one of its pages fresh from the
// kernel, and a fault per 4 KB page (an exception, then the kernel's work) is the larger part
// of storing such a value.
#pragma once

#include <cstddef>

namespace vireo {

// Allocations of at least this many bytes are worth prefaulting: four pages or more, so the
// system calls cost less than the faults they save.
inline constexpr size_t kPrefaultMin = 16384;
// How far ahead of a fresh allocation to prefault where allocations follow it in fresh memory
// (string values on 4 KB pages, store/memory.cc).
inline constexpr size_t kPrefaultAhead = 64 * 1024;

// Makes every page of [p, p + size) present and writable (madvise MADV_POPULATE_WRITE, Linux
// 5.14+) without changing its contents; pages already present are left as they are. True
// when done; false for a null or empty range or where the kernel lacks it (then it is not
// tried again, and the pages fault in as they are written, as before).
bool PrefaultPages(void* p, size_t size);

// Whether the page holding p is resident (mincore); true where that cannot be told.
bool PageResident(const void* p);

// PrefaultPages for an allocation about to be written whole, when its memory is fresh (its
// last page is not resident). Reused memory is already present, and walking it again costs
// about what the faults would: while probes keep finding it so, the calling thread skips
// 1, 3, 7, then kPrefaultProbeEvery - 1 calls after each, so a dataset that overwrites itself
// pays about one mincore per kPrefaultProbeEvery allocations, and one that grows prefaults
// every fresh one. `ahead`: prefault that many bytes from p when more than size, for the
// allocations that follow p in fresh memory (small blocks packed in a fresh run of pages);
// a later call for a block inside that range makes no system call.
inline constexpr unsigned kPrefaultProbeEvery = 16;
void PrefaultIfFresh(void* p, size_t size, size_t ahead = 0);

}  // namespace vireo
