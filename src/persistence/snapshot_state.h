// What the server remembers about RDB snapshots: the running BGSAVE, the last save's
// outcome and the last load's counts (INFO persistence, LASTSAVE, save points).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace vireo {

class CowSnapshot;

struct SnapshotState {
  std::shared_ptr<CowSnapshot> bgsave;  // the running BGSAVE (persistence/cow_snapshot), or null
  bool bgsave_to_sockets = false;       // it is a diskless full sync, not a save
  int64_t bgsave_start_ms = 0;
  uint64_t dirty_at_start = 0;    // changes it captures (subtracted once it succeeds)
  bool bgsave_scheduled = false;  // BGSAVE SCHEDULE waiting for the running snapshot
  bool last_bgsave_ok = true;     // rdb_last_bgsave_status
  int64_t last_bgsave_time_sec = -1;
  int64_t last_bgsave_try_ms = 0;  // failed saves are retried by save points after 5 s
  uint64_t saves = 0;              // rdb_saves: successful SAVE/BGSAVE
  size_t last_cow_size = 0;        // rdb_last_cow_size: the last BGSAVE's peak extra memory
  uint64_t last_load_keys_loaded = 0;
  // The file loading now (INFO's loading_* fields); loading_total_bytes 0 when none.
  int64_t loading_start_ms = 0;
  size_t loading_total_bytes = 0;
  size_t loading_loaded_bytes = 0;
  uint64_t last_load_keys_expired = 0;
  // The replication history the last loaded file recorded (empty id: none).
  std::string loaded_repl_id;
  int64_t loaded_repl_offset = -1;
};

}  // namespace vireo
