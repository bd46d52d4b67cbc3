// Replies that point at a large string value instead of copying it (GET of a 16 KB+ value):
// while a reply still holds the value's blob, the blob is "pinned". A pinned blob is never
// changed in place or freed: a write to the key copies it first, freeing the key hands it to
// the pins, and the last reply to be sent frees it.
//
// Pins are taken on the execution thread and released wherever the reply is finally sent (an
// I/O thread); a value freed by the lazy-free thread may be pinned too, so the table has a
// lock. While nothing is pinned (the usual state), the checks cost one relaxed load.
#pragma once

#include <cstddef>

#include "store/entry.h"

namespace vireo {

// Values at least this long are replied by reference where values live on huge pages
// (store/memory.h UseValueArena)...
constexpr size_t kReplyByReferenceMin = 16 * 1024;
// ...and this long where they do not: in this project's VMs the kernel's copy straight from a
// value's 4 KB pages costs more than a copy through the output buffer first (THP off, GET
// -P 16 req/s by reference / copied: 16 KB 115k / 195-208k, 24 KB 55-76k / 107-130k; 32 KB
// 84-109k / 31-32k). docs/PERFORMANCE.md "Large values, eighth step".
constexpr size_t kReplyByReferenceMinSmallPages = 32 * 1024;
inline size_t ReplyByReferenceMin(bool values_on_huge_pages) {
  return values_on_huge_pages ? kReplyByReferenceMin : kReplyByReferenceMinSmallPages;
}
// A snapshot leaves values at least this long to its writer thread, pinned until written
// (persistence/cow_snapshot.h).
constexpr size_t kSnapshotByReferenceMin = 4 * 1024;
// No shorter blob is ever pinned: writes to shorter values skip the pin check.
constexpr size_t kPinnedMin = kSnapshotByReferenceMin;
static_assert(kPinnedMin <= kReplyByReferenceMin);

// Takes a pin on b (execution thread). Pair with UnpinBlob.
void PinBlob(StrBlob* b);
// Releases a pin (any thread; the signature suits Connection's OutputRef). Frees the blob when
// this was its last pin and its key has let go of it.
void UnpinBlob(void* blob);
// Whether replies still hold b.
bool BlobPinned(const StrBlob* b);
// The key lets go of b (FreeValue): freed now unless pinned, then by its last UnpinBlob.
void ReleaseBlob(StrBlob* b);
// Blobs pinned by replies not yet sent (tests, MEMORY STATS).
size_t PinnedBlobs();

}  // namespace vireo
