// RDB snapshots of the server: SAVE (in the foreground), BGSAVE (a fork-less point-in-time
// snapshot, persistence/cow_snapshot, written in slices between event-loop turns; the cron
// collects its outcome), save points, the save at shutdown, and loading at start-up /
// DEBUG RELOAD. Files are written to temp-<pid>.rdb in
// the working directory (`dir`), fsynced, renamed over `dbfilename`, and the directory is
// fsynced. Execution thread only.
#pragma once

#include <string>
#include <vector>

namespace vireo {

class Server;

// Writes the dataset to dbfilename now. On success the dirty counter restarts from 0 and
// LASTSAVE moves; false with *error otherwise (rdb_last_bgsave_status becomes err).
bool SaveSnapshot(Server& server, std::string* error);
// Starts the BGSAVE snapshot; false with *error when the temp file cannot be created or
// another snapshot walks the keyspace.
bool StartBackgroundSave(Server& server, std::string* error);
// A diskless full sync: a snapshot streamed to the replicas' sockets (dups, owned from here
// on) after the preamble, ended by eof_mark. Replication::SocketTransferDone hears the end.
bool StartSocketTransfer(Server& server, std::vector<int> sockets, std::string preamble,
                         std::string eof_mark, std::string* error);
bool BackgroundSaveRunning(const Server& server);
// From the periodic task: collects a finished BGSAVE, then starts a scheduled BGSAVE or one
// a save point asks for.
void SnapshotCron(Server& server);
// Abandons a running BGSAVE and removes its temp file (SHUTDOWN, FLUSHALL, DEBUG RELOAD),
// leaving rdb_last_bgsave_status alone as Valkey's kill of its child does.
void KillBackgroundSave(Server& server);

// What SHUTDOWN does before exiting: kDefault saves when save points are configured.
enum class ShutdownSave { kDefault, kSave, kNoSave };
bool SaveBeforeShutdown(Server& server, ShutdownSave mode, std::string* error);

// Loading state around a long load (start-up, full sync, the AOF): LOADING replies and
// INFO's loading_* fields. LoadingProgress serves clients once and returns false when a
// shutdown was asked for.
void BeginLoading(Server& server, size_t total_bytes);
bool LoadingProgress(Server& server, size_t loaded_bytes);
void EndLoading(Server& server);

// Start-up: loads dbfilename from dir when it exists. False with *error (naming the file and
// the byte offset) when the file is unreadable or corrupt: the server must not start.
bool LoadSnapshotAtStartup(Server& server, std::string* error);
// A replica's full sync: empties the databases and loads path. On failure the databases are
// left empty, or with keep_old_on_failure (repl-diskless-load swapdb) as they were.
bool ReplaceDatasetFromFile(Server& server, const std::string& path, std::string* error,
                            bool keep_old_on_failure = false);
// DEBUG RELOAD: save, empty the databases, load the file back.
bool ReloadSnapshot(Server& server, std::string* error);

}  // namespace vireo
