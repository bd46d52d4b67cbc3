// The open files limit for maxclients, as Valkey sets it at start: each client needs a
// descriptor, plus a reserve for listeners, files and links.
#pragma once

#include <cstdint>

namespace vireo {

inline constexpr int64_t kReservedFds = 32;

// Raises RLIMIT_NOFILE to maxclients + kReservedFds when it is lower. Returns the maxclients
// the limit allows (maxclients, or less with a logged warning); -1 when even the reserve does
// not fit (the server must not start; the reason is logged).
int64_t AdjustOpenFilesLimit(int64_t maxclients);

}  // namespace vireo
