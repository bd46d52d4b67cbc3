// Allocation for stored data, so the allocator (jemalloc or libc) and memory accounting live
// in one place, and hooks for collection types that later families plug in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "store/entry.h"

namespace vireo {

void* ZMalloc(size_t n);          // aborts with a log line when out of memory
void* ZRealloc(void* p, size_t n);
void ZFree(void* p);
size_t ZMallocSize(void* p);      // usable size of an allocation
// Allocations of at least this size are read and written whole (string values): they get an
// arena of their own (UseValueArena), advised huge pages as it maps memory, whether the
// dataset grows or not (store/memory.cc). From 1 KB rather than only large values, so values
// written over freed large ones reuse their memory instead of faulting in fresh pages.
constexpr size_t kValueArenaMin = 1024;
// ZMalloc from the values' arena once UseValueArena has run (before: plain malloc), for
// allocations of at least kValueArenaMin bytes; ZFree / ZRealloc as any other. From
// kPrefaultMin bytes its fresh pages are faulted in with one system call (PrefaultIfFresh).
void* ZMallocValue(size_t n);
// Bytes currently allocated by the process (jemalloc's stats.allocated, or our count of
// glibc's blocks, see store/malloc_count.h).
size_t UsedMemory();
// Adds the calling thread, which must live as long as the process (the execution thread, the
// I/O threads), to those whose allocations TrackedAllocationBalance sums. False without
// per-thread counters (jemalloc's, or ours with libc). Tracking a thread again is a no-op.
bool TrackThreadAllocations();
// Bytes allocated minus bytes freed by the tracked threads since they started (jemalloc keeps
// the totals per thread; reading them is a load each). Values move between threads (an I/O
// thread parses an argument, the execution thread stores or frees it), so only the sum over
// all of them follows the process's usage. False when no thread is tracked.
bool TrackedAllocationBalance(int64_t* balance);
// Returns the calling thread's cached free blocks to the allocator, so UsedMemory sees what
// was just freed (after evictions; no-op without jemalloc).
void FlushThreadCache();
// Makes the jemalloc arena ZMallocValue allocates from, whose memory past its first 4 MiB is
// advised MADV_HUGEPAGE as it is mapped, and whose freed pages go back to the system only as
// whole huge pages (store/held_pages.h): a value is read and written whole, and in a VM each
// of its 4 KB pages would miss the TLB through two sets of page tables. Everything else (the
// keyspace's entries, values under 1 KB, buffers) stays on jemalloc's ordinary arenas and 4 KB
// pages: a huge-page arena for the entries sped up lookups on a stable keyspace but lost more
// on a growing one (docs/ARCHITECTURE.md). False without jemalloc, or where the process can
// have no huge page (HugePagesOff): values stay with everything else then. Once per process;
// later calls return the first one's answer.
bool UseValueArena();
// Resident set size of the process, from /proc.
size_t ResidentMemory();
const char* AllocatorName();      // "jemalloc-5.3.0" / "libc"
// MEMORY PURGE: returns dirty pages of every arena to the system (no-op without jemalloc).
void PurgeAllocator();
// jemalloc-bg-thread: jemalloc's own threads return freed pages to the system, instead of the
// thread that happens to allocate or free when a decay deadline passes (a stall of
// milliseconds inside a command while a dataset grows or shrinks). False without jemalloc or
// where its threads cannot start.
bool SetAllocatorBackgroundThreads(bool on);
// MEMORY MALLOC-STATS: the allocator's statistics report, or Valkey's "not supported" text.
std::string AllocatorStats();
// jemalloc's byte counts behind INFO's allocator_* fields: allocated (used by the process),
// active (in pages holding allocations), resident (in pages mapped in RAM). All 0 without
// jemalloc.
struct AllocatorFigures {
  size_t allocated = 0, active = 0, resident = 0;
};
AllocatorFigures ReadAllocatorFigures();

// Collection families register how their values are freed and measured.
struct CollectionOps {
  void (*free)(Encoding enc, void* obj);
  size_t (*free_effort)(Encoding enc, const void* obj);
  size_t (*memory)(Encoding enc, const void* obj);
  // A deep copy of obj in the same encoding (COPY). Required for every collection type.
  void* (*copy)(Encoding enc, const void* obj);
};
void RegisterCollectionOps(ObjType type, const CollectionOps& ops);
void FreeCollection(ObjType type, Encoding enc, void* obj);
size_t CollectionFreeEffort(ObjType type, Encoding enc, const void* obj);
size_t CollectionMemory(ObjType type, Encoding enc, const void* obj);
void* CopyCollection(ObjType type, Encoding enc, const void* obj);

}  // namespace vireo
