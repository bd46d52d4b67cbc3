// Frees large values on a helper thread so UNLINK and FLUSHALL ASYNC never stall the
// execution thread. The helper only frees memory it was handed; it never touches the keyspace.
#pragma once

#include <cstddef>
#include <functional>

#include "store/entry.h"

namespace vireo {

// Values whose FreeEffort exceeds this are freed in the background by UNLINK / lazy modes.
constexpr size_t kLazyFreeThreshold = 64;

// Hands e (already unlinked from every table) to the helper thread, which frees it.
void LazyFreeEntry(Entry* e);
// Runs job on the helper thread (used to free whole tables on FLUSHALL ASYNC).
void LazyFreeJob(std::function<void()> job);
// Jobs queued or running, for INFO's lazyfree_pending_objects.
size_t LazyFreePending();
// Objects freed in the background so far (INFO lazyfreed_objects).
size_t LazyFreedObjects();
// Blocks until the queue is empty (tests, shutdown).
void LazyFreeDrain();

}  // namespace vireo
