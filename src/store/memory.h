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
// Allocations of at least this size are read and written whole (large string values): they
// get an arena of their own instead of the execution thread's (UseHugePageArena), advised
// huge pages as it maps memory, whether the dataset grows or not (store/memory.cc).
constexpr size_t kValueArenaMin = 4096;
// ZMalloc from the values' arena once UseHugePageArena has run (before: plain malloc), for
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
// Binds the calling thread's later allocations to a jemalloc arena of its own whose fresh
// memory is advised MADV_HUGEPAGE: the execution thread's, which hold the keyspace's entries.
// A lookup's entry load is a random read, and with 4 KB pages it nearly always misses the TLB
// too. Only this arena and the values' (ZMallocValue) are advised (jemalloc's thp:always would
// advise every arena and its metadata, which costs an idle server megabytes). False without
// jemalloc, or where the process can have no huge page (HugePagesOff): one arena then. Its extents mapped while the dataset grows are not advised but collapsed into huge
// pages once it stops (store/huge_page_advice.h); the values' arena advises as it grows.
bool UseHugePageArena();
// From the server's cron: starts collapsing what the arena mapped while it grew, once it has
// not grown for a while (a helper thread does it). No-op without jemalloc.
void HugePageArenaCron();
// What the arena left unadvised while it grew: bytes still to look at, huge pages collapsed so
// far, and whether a collapse pass is running (tests, MEMORY STATS).
struct HugePageArenaFigures {
  size_t remembered = 0, collapsed = 0;
  bool collapsing = false;
};
HugePageArenaFigures ReadHugePageArenaFigures();
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
