// Writing an AOF base: the dataset as an RDB (aof-use-rdb-preamble, with the aof-base aux
// field) or as commands (after a #TS: annotation with aof-timestamp-enabled, as Valkey). A rewrite's base is written in the background by an AofRewriteJob,
// a fork-less point-in-time snapshot (persistence/cow_snapshot, as BGSAVE) in either format.
// The AOF code only asks the job whether it still runs.
#pragma once

#include <memory>
#include <string>

namespace vireo {

struct AofSettings;
class CowSnapshot;
class Server;

// Writes the dataset to fd as a base file; false with *error on a write error.
bool WriteAofBase(Server& server, int fd, const AofSettings& settings, std::string* error);

// A base file being written: the dataset as it was at Start, to path (fsynced; the caller
// renames it). Destroying a running job abandons it and removes the file.
class AofRewriteJob {
 public:
  enum class Status { kRunning, kDone, kFailed };

  // nullptr with *error when it cannot start (another snapshot walks, open failed).
  static std::unique_ptr<AofRewriteJob> Start(Server& server, const std::string& path,
                                              const AofSettings& settings, std::string* error);
  ~AofRewriteJob();
  AofRewriteJob(const AofRewriteJob&) = delete;
  AofRewriteJob& operator=(const AofRewriteJob&) = delete;

  // From the periodic task; kDone once the file is complete and fsynced.
  Status Poll();
  // Why it failed, when known.
  const std::string& error() const { return error_; }

 private:
  AofRewriteJob() = default;

  std::unique_ptr<CowSnapshot> snapshot_;
  Status status_ = Status::kRunning;
  std::string error_;
};

}  // namespace vireo
