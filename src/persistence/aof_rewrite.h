// Writing an AOF base: the dataset as an RDB (aof-use-rdb-preamble, with the aof-base aux
// field) or as commands. A rewrite's base is written in the background by an AofRewriteJob:
// with the RDB preamble (the default) a fork-less point-in-time snapshot
// (persistence/cow_snapshot, as BGSAVE), as commands a forked child. The AOF code only asks
// the job whether it still runs.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

namespace vireo {

class CowSnapshot;
class Server;

// Writes the dataset to fd as a base file; false with *error on a write error.
bool WriteAofBase(Server& server, int fd, bool rdb_preamble, std::string* error);

// A base file being written: the dataset as it was at Start, to path (fsynced; the caller
// renames it). Destroying a running job abandons it and removes the file.
class AofRewriteJob {
 public:
  enum class Status { kRunning, kDone, kFailed };

  // nullptr with *error when it cannot start (another snapshot walks, fork or open failed).
  static std::unique_ptr<AofRewriteJob> Start(Server& server, const std::string& path,
                                              bool rdb_preamble, std::string* error);
  ~AofRewriteJob();
  AofRewriteJob(const AofRewriteJob&) = delete;
  AofRewriteJob& operator=(const AofRewriteJob&) = delete;

  // From the periodic task; kDone once the file is complete and fsynced.
  Status Poll();
  // Why it failed, when known.
  const std::string& error() const { return error_; }

 private:
  AofRewriteJob() = default;

  std::string path_;
  pid_t child_ = -1;                      // command-format base: the forked writer
  std::unique_ptr<CowSnapshot> snapshot_;  // RDB-preamble base: the fork-less snapshot
  Status status_ = Status::kRunning;
  std::string error_;
};

}  // namespace vireo
