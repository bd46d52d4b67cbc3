// Our own count of the bytes the process holds from glibc's malloc, for builds without
// jemalloc (ALLOCATOR=libc, the ARM default). mallinfo2() walks the free lists (milliseconds
// on a large heap), too slow for the per-command maxmemory check; instead malloc, free and
// the rest are wrapped here and add each block's usable size to per-thread counters, which a
// reading sums. Sanitizer builds keep their own malloc and are not counted.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/sanitizers.h"

#ifdef VIREO_SANITIZED
#define VIREO_SANITIZER_MALLOC 1
#endif

#if !defined(VIREO_USE_JEMALLOC) && !defined(VIREO_SANITIZER_MALLOC) && defined(__GLIBC__)
#define VIREO_COUNT_MALLOC 1
#endif

namespace vireo {

#ifdef VIREO_COUNT_MALLOC
// Bytes allocated and not yet freed by every thread of the process (usable sizes). A thread
// that exits hands its figures to a shared pair first, so a reading racing that moment may
// count them twice for an instant.
size_t CountedMallocBytes();
// Marks the calling thread (which must live as long as the process) as one whose balance
// CountedTrackedBalance sums. False when no counter slot is free.
bool CountTrackThread();
// Allocated minus freed by the tracked threads (modulo 2^64: values move between threads).
bool CountedTrackedBalance(int64_t* balance);
#endif

}  // namespace vireo
