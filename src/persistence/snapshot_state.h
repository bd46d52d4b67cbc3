// What the server remembers about RDB snapshots: the running BGSAVE child, the last save's
// outcome and the last load's counts (INFO persistence, LASTSAVE, save points).
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace vireo {

struct SnapshotState {
  pid_t child_pid = -1;           // the BGSAVE child, -1 when none runs
  int64_t child_start_ms = 0;     // when it was forked
  uint64_t dirty_at_fork = 0;     // changes it captures (subtracted once it succeeds)
  bool bgsave_scheduled = false;  // BGSAVE SCHEDULE waiting for the running child
  bool last_bgsave_ok = true;     // rdb_last_bgsave_status
  int64_t last_bgsave_time_sec = -1;
  int64_t last_bgsave_try_ms = 0;  // failed saves are retried by save points after 5 s
  uint64_t saves = 0;              // rdb_saves: successful SAVE/BGSAVE
  uint64_t last_load_keys_loaded = 0;
  uint64_t last_load_keys_expired = 0;
};

}  // namespace vireo
