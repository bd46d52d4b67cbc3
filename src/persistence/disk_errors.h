// Valkey's MISCONF rule: while persistence cannot write (disk full, read-only file system,
// ...) commands that would change the dataset are refused, and so is PING (its health
// check), while reads go on. Two causes, in this order: the last BGSAVE failed with
// stop-writes-on-bgsave-error yes and save points configured (until a save succeeds), or
// the AOF is on and its last write or fsync failed (until a write goes through).
#pragma once

#include <string>

namespace vireo {

class Server;

// The error reply for a refused command ("MISCONF ..."), or "" when nothing is refused.
std::string DiskErrorRefusal(Server& server);

}  // namespace vireo
