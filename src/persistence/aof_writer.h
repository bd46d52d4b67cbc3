// The append-only file, multi-part as in Valkey 7+: a manifest, a base and incremental files
// in `appenddirname`. The propagated stream (server/propagate.h) is appended to a buffer; the
// buffer is written before replies go out each event-loop turn, and fsynced per
// `appendfsync`: always (on the execution thread, before the replies), everysec (on a
// background thread, at most once a second; while an fsync is still running a write of less
// than kWriteAheadBytes waits up to 2 s, then goes ahead and counts aof_delayed_fsync), or
// no. A rewrite opens a new incremental file, writes a new base of the dataset in the
// background (an AofRewriteJob, aof_rewrite.h: fork-less with the RDB preamble), then swaps
// the manifest and deletes the superseded files. Execution thread only, except the
// background fsync worker, which sees file descriptors only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "persistence/aof_manifest.h"
#include "persistence/aof_settings.h"
#include "protocol/command_encoder.h"
#include "server/propagate.h"

namespace vireo {

class Server;
class AofRewriteJob;
class AofWorker;


class Aof : public PropagationSink {
 public:
  explicit Aof(Server& server);
  ~Aof() override;

  void Feed(int db, const std::string_view* args, size_t argc) override;

  // Start-up with appendonly yes, after loading (loaded_size: bytes of the files loaded):
  // a new base when there is none, the last incremental file opened for appending, the
  // manifest written. False with *error: the server must not start.
  bool Start(int64_t loaded_size, std::string* error);
  // Every event-loop turn, before replies are written: writes the buffer, fsyncs per policy.
  void BeforeReplies() { Flush(false); }
  // After each propagated unit: a buffer past kWriteAheadBytes is written now rather than
  // at the turn's end, so it stays small and in cache. A turn of 16 KB SETs from 50 clients
  // at -P 16 is 13 MB, which was regrown, faulted in and copied out cold every turn. Not
  // under appendfsync always, whose fsync belongs to the turn's end.
  void UnitDone() override {
    if (buf_.size() >= kWriteAheadBytes && settings_.fsync != AofFsync::kAlways) Flush(false);
  }
  static constexpr size_t kWriteAheadBytes = 1u << 20;
  // Writes the buffer now (force: even while a background fsync runs).
  void Flush(bool force);
  // Periodic task: finished rewrites, scheduled and automatic rewrites, postponed writes.
  void Cron();
  // SHUTDOWN: everything written and fsynced, a running rewrite abandoned.
  void Shutdown();

  // CONFIG SET appendonly yes: starts a rewrite, the AOF is on once it finishes.
  bool Enable(std::string* error);
  // CONFIG SET appendonly no.
  void Disable();
  void SettingsChanged();

  // BGREWRITEAOF. The reply text Valkey gives, or an error ("ERR ..."). defer: inside
  // EXEC, where the rewrite is only scheduled.
  std::string RequestRewrite(bool defer = false);
  bool rewrite_running() const { return rewrite_ != nullptr; }
  bool rewrite_scheduled() const { return rewrite_scheduled_; }
  bool enabled() const { return state_ != State::kOff; }
  // A write error: writes are refused with MISCONF until writing works again.
  bool write_failing() const { return !last_write_ok_; }
  const std::string& last_write_error() const { return last_write_error_; }

  // The replication offset that the fsynced file reaches (WAITAOF's local count, a replica's
  // REPLCONF ACK ... FACK); -1 while the AOF is off or nothing has been fsynced.
  int64_t fsynced_reploff() const { return state_ == State::kOn ? fsynced_reploff_ : -1; }

  // DEBUG AOF-FSYNC-DELAY <ms>: background fsyncs start this much later (tests of a disk
  // that is behind). 0: none.
  void SetDebugFsyncDelay(int ms);

  // INFO persistence's aof_* fields.
  void RenderInfo(std::string* out) const;

 private:
  enum class State { kOff, kOn, kWaitRewrite };
  bool StartRewrite(std::string* error);
  void RewriteDone(bool ok, std::string why);  // why: a copy, the job goes first
  bool OpenIncr(const std::string& name, std::string* error);
  void CloseFd();
  void DeleteHistory();
  std::string Path(const std::string& name) const { return settings_.dirname + "/" + name; }
  bool EnsureDir(std::string* error);
  // WAITAOF: picks up the background fsyncs that finished; records a new fsynced offset.
  void NoteFsynced();
  // Valkey's latency event `event` for what ran since start_us (errno kept for the caller).
  void NoteLatency(const char* event, int64_t start_us);
  void SetFsyncedReploff(int64_t reploff);

  Server& server_;
  AofSettings settings_;
  State state_ = State::kOff;
  AofManifest manifest_;
  bool manifest_loaded_ = false;
  int fd_ = -1;
  std::string buf_;
  int selected_db_ = -1;
  int64_t last_ts_ = 0;  // of the last #TS: annotation
  // Sizes: everything since the last rewrite (base included), and the base at that point.
  int64_t current_size_ = 0;
  int64_t rewrite_base_size_ = 0;
  int64_t fsync_offset_ = 0;  // current_size_ at the last fsync
  // Replication offsets (WAITAOF): of the data written to the file, and of the data fsynced.
  int64_t written_reploff_ = 0;
  int64_t fsynced_reploff_ = -1;
  int64_t last_fsync_s_ = 0;
  int64_t postponed_since_s_ = 0;
  uint64_t delayed_fsync_ = 0;
  bool last_write_ok_ = true;
  std::string last_write_error_;
  std::unique_ptr<AofWorker> worker_;
  int debug_fsync_delay_ms_ = 0;
  // Rewrite.
  std::unique_ptr<AofRewriteJob> rewrite_;
  int64_t rewrite_start_ms_ = 0;
  bool rewrite_scheduled_ = false;
  int64_t last_rewrite_time_sec_ = -1;
  bool last_rewrite_ok_ = true;
  uint64_t rewrites_ = 0;
  uint64_t rewrite_failures_ = 0;  // consecutive
  int64_t last_rewrite_try_ms_ = 0;
  std::string temp_base_;
};

// CONFIG SET side effects: appendonly turns the AOF on (through a rewrite) or off; the
// other AOF directives are re-read.
void AofConfigChanged(Server& server, std::string_view name);

}  // namespace vireo
