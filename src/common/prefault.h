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

// Makes every page of [p, p + size) present and writable (madvise MADV_POPULATE_WRITE, Linux
// 5.14+) without changing its contents; pages already present are left as they are. True
// when done; false for a null or empty range or where the kernel lacks it (then it is not
// tried again, and the pages fault in as they are written, as before).
bool PrefaultPages(void* p, size_t size);

// Whether the page holding p is resident (mincore); true where that cannot be told.
bool PageResident(const void* p);

// PrefaultPages for an allocation about to be written whole, when its memory is fresh (its
// first page is not resident). Reused memory is already present, and walking it again costs
// about what the faults would: after a probe finds it so, the calling thread's next
// kPrefaultProbeEvery - 1 calls do nothing, so a dataset that overwrites itself pays one
// mincore per kPrefaultProbeEvery allocations, and one that grows prefaults every one.
inline constexpr unsigned kPrefaultProbeEvery = 16;
void PrefaultIfFresh(void* p, size_t size);

}  // namespace vireo
