#include "persistence/aof_writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "persistence/aof_commands.h"
#include "persistence/aof_rewrite.h"
#include "persistence/snapshot.h"
#include "replication/replication.h"
#include "server/server.h"

namespace vireo {

// The background fsync thread: fsyncs, closes and unlinks in order, so the execution
// thread never waits on the disk under everysec. It sees file descriptors and paths only.
class AofWorker {
 public:
  AofWorker() : thread_([this] { Loop(); }) {}
  ~AofWorker() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  // reploff: the replication offset the fd's written data reaches (WAITAOF).
  void Fsync(int fd, int64_t reploff) { Push({Job::kFsync, fd, reploff, {}}); }
  void FsyncAndClose(int fd, int64_t reploff) { Push({Job::kClose, fd, reploff, {}}); }
  void Unlink(std::string path) { Push({Job::kUnlink, -1, 0, std::move(path)}); }
  // The replication offset of the last finished fsync, -1 before any.
  int64_t FsyncedReploff() const { return fsynced_reploff_.load(std::memory_order_acquire); }
  // An fsync queued or running (aof_pending_bio_fsync; the delayed-write rule).
  bool FsyncPending() const { return fsyncs_.load(std::memory_order_acquire) > 0; }
  // The errno of a failed fsync since the last call, 0 if none.
  int TakeError() { return error_.exchange(0); }
  // DEBUG AOF-FSYNC-DELAY: each fsync starts this much later (tests of a slow disk).
  void set_fsync_delay_ms(int ms) { fsync_delay_ms_.store(ms, std::memory_order_relaxed); }

 private:
  struct Job {
    enum Kind { kFsync, kClose, kUnlink } kind;
    int fd;
    int64_t reploff;
    std::string path;
  };
  void Push(Job job) {
    if (job.kind != Job::kUnlink) fsyncs_.fetch_add(1, std::memory_order_acq_rel);
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
  }
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stop_ and drained
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      if (job.kind == Job::kUnlink) {
        unlink(job.path.c_str());
      } else {
        if (int delay = fsync_delay_ms_.load(std::memory_order_relaxed); delay > 0) {
          std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        }
        if (fdatasync(job.fd) != 0 && errno != EINVAL) {
          error_.store(errno);
        } else if (job.reploff > fsynced_reploff_.load(std::memory_order_relaxed)) {
          fsynced_reploff_.store(job.reploff, std::memory_order_release);
        }
        if (job.kind == Job::kClose) close(job.fd);
        fsyncs_.fetch_sub(1, std::memory_order_acq_rel);
      }
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stop_ = false;
  std::atomic<int> fsyncs_{0};
  std::atomic<int> error_{0};
  std::atomic<int> fsync_delay_ms_{0};
  std::atomic<int64_t> fsynced_reploff_{-1};
  std::thread thread_;
};


namespace {

int64_t FileSize(const std::string& path) {
  struct stat sb;
  return stat(path.c_str(), &sb) == 0 ? static_cast<int64_t>(sb.st_size) : 0;
}

bool ReadWholeFile(const std::string& path, std::string* out) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out->append(buf, n);
  fclose(f);
  return true;
}

constexpr char kTempBasePrefix[] = "temp-rewriteaof-bg-";

// Bases of rewrites a crash interrupted: nothing will ever rename them.
void RemoveStaleTempBases(const std::string& dirname) {
  DIR* d = opendir(dirname.c_str());
  if (d == nullptr) return;
  while (const dirent* e = readdir(d)) {
    if (strncmp(e->d_name, kTempBasePrefix, sizeof(kTempBasePrefix) - 1) != 0) continue;
    LogNotice("Removing the temp file %s of an interrupted AOF rewrite", e->d_name);
    unlink((dirname + "/" + e->d_name).c_str());
  }
  closedir(d);
}

}  // namespace

Aof::Aof(Server& server) : server_(server), settings_(AofSettingsFrom(server.config())) {}

Aof::~Aof() {
  server_.propagator().RemoveSink(this);
  rewrite_.reset();  // abandons a running rewrite
  worker_.reset();  // drains queued fsyncs and closes
  if (fd_ >= 0) close(fd_);
}

bool Aof::EnsureDir(std::string* error) {
  if (mkdir(settings_.dirname.c_str(), 0755) != 0 && errno != EEXIST) {
    *error = "Can't open or create append-only dir " + settings_.dirname + ": " + strerror(errno);
    return false;
  }
  if (!manifest_loaded_) {
    // The manifest on disk, if any, so sequences continue where they left off.
    std::string text;
    if (ReadWholeFile(Path(AofManifestName(settings_.filename)), &text)) {
      std::string err;
      if (!ParseAofManifest(text, &manifest_, &err)) {
        *error = err;
        return false;
      }
    }
    manifest_loaded_ = true;
  }
  if (worker_ == nullptr) {
    worker_ = std::make_unique<AofWorker>();
    worker_->set_fsync_delay_ms(debug_fsync_delay_ms_);
  }
  return true;
}

bool Aof::OpenIncr(const std::string& name, std::string* error) {
  int fd = open(Path(name).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "Can't open the append-only file " + name + ": " + strerror(errno);
    return false;
  }
  CloseFd();
  fd_ = fd;
  selected_db_ = -1;  // a new file starts with a SELECT
  return true;
}

void Aof::CloseFd() {
  if (fd_ < 0) return;
  worker_->FsyncAndClose(fd_, written_reploff_);
  fd_ = -1;
}

bool Aof::Start(int64_t loaded_size, std::string* error) {
  settings_ = AofSettingsFrom(server_.config());
  if (!EnsureDir(error)) return false;
  RemoveStaleTempBases(settings_.dirname);
  current_size_ = loaded_size;
  if (!manifest_.base && manifest_.incrs.empty()) {
    // A fresh AOF starts from a base of whatever the server holds.
    std::string name = AofNewBase(&manifest_, settings_.filename, settings_.use_rdb_preamble);
    std::string tmp = Path("temp-" + name);
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    std::string err;
    bool ok =
        fd >= 0 && WriteAofBase(server_, fd, settings_, &err) && fsync(fd) == 0;
    if (fd >= 0) close(fd);
    if (!ok || rename(tmp.c_str(), Path(name).c_str()) != 0) {
      *error =
          "Can't create the AOF base file " + name + ": " + (err.empty() ? strerror(errno) : err);
      return false;
    }
    LogNotice("Creating AOF base file %s on server start", name.c_str());
    current_size_ += FileSize(Path(name));
  }
  std::string incr = manifest_.incrs.empty() ? AofNewIncr(&manifest_, settings_.filename)
                                             : manifest_.incrs.back().name;
  if (!OpenIncr(incr, error)) return false;
  if (manifest_.incrs.size() == 1 && FileSize(Path(incr)) == 0) {
    LogNotice("Creating AOF incr file %s on server start", incr.c_str());
  }
  if (!PersistAofManifest(settings_.dirname, settings_.filename, manifest_, error)) return false;
  rewrite_base_size_ = current_size_;
  fsync_offset_ = current_size_;
  // What was loaded is on disk already.
  written_reploff_ = server_.replication().offset();
  fsynced_reploff_ = written_reploff_;
  state_ = State::kOn;
  server_.propagator().AddSink(this);
  DeleteHistory();
  return true;
}

void Aof::Feed(int db, const std::string_view* args, size_t argc) {
  // Each propagated command (MULTI and EXEC included) moves the offset by one while no
  // backlog counts bytes, as Valkey.
  server_.replication().AdvanceOffsetForAof();
  if (settings_.timestamps) {
    int64_t now = CommandTimeMs() / 1000;
    if (now > last_ts_ || selected_db_ == -1) {  // each new file starts with one
      AppendTimestamp(&buf_, now);
      last_ts_ = now;
    }
  }
  if (db != selected_db_) {
    std::string index = std::to_string(db);
    std::string_view select[] = {"SELECT", index};
    AppendRespCommand(&buf_, select, 2);
    selected_db_ = db;
  }
  AppendRespCommand(&buf_, args, argc);
}

void Aof::Flush(bool force) {
  if (fd_ < 0) return;
  const int64_t now_s = CommandTimeMs() / 1000;  // cached: this runs every loop turn
  const bool everysec = settings_.fsync == AofFsync::kEverysec;
  if (buf_.empty()) {
    // Nothing new, but what was written may still need its once-a-second fsync.
    if (everysec && fsync_offset_ != current_size_ && now_s > last_fsync_s_ &&
        !worker_->FsyncPending()) {
      worker_->Fsync(fd_, written_reploff_);
      fsync_offset_ = current_size_;
      last_fsync_s_ = now_s;
    }
    NoteFsynced();
    return;
  }
  if (everysec && !force && worker_->FsyncPending() && buf_.size() < kWriteAheadBytes) {
    // The disk is behind: hold the write (a write may wait for the fsync in the kernel)
    // for up to 2 seconds, then write anyway. Not past kWriteAheadBytes: a buffer held
    // through a long fsync grew to hundreds of MB, and its one write then held the
    // execution thread for up to 300 ms (an append does not wait for a running fdatasync
    // on Linux; writing it in 1 MB steps costs the same and stalls no one).
    if (postponed_since_s_ == 0) {
      postponed_since_s_ = now_s;
      return;
    }
    if (now_s - postponed_since_s_ < 2) return;
    ++delayed_fsync_;
    LogNotice(
        "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF "
        "buffer without waiting for fsync to complete, this may slow down Valkey.");
  }
  postponed_since_s_ = 0;
  // Valkey's latency events for the write: "aof-write", and what it ran beside.
  const bool fsync_pending = everysec && worker_->FsyncPending();
  const int64_t write_start_us = MonotonicUs();
  size_t written = 0;
  while (written < buf_.size()) {
    ssize_t n = write(fd_, buf_.data() + written, buf_.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    written += static_cast<size_t>(n);
  }
  const char* beside = "aof-write-alone";
  if (fsync_pending) {
    beside = "aof-write-pending-fsync";
  } else if (rewrite_running() || BackgroundSaveRunning(server_)) {
    beside = "aof-write-active-child";  // Valkey's child: here a background job's thread
  }
  NoteLatency(beside, write_start_us);
  NoteLatency("aof-write", write_start_us);
  if (written < buf_.size()) {
    int err = errno == 0 ? ENOSPC : errno;
    // A partial command would corrupt the file: cut it back to the last whole write.
    if (written > 0) {
      off_t keep = lseek(fd_, 0, SEEK_END) - static_cast<off_t>(written);
      if (keep >= 0 && ftruncate(fd_, keep) == 0) {
        written = 0;
      } else {
        buf_.erase(0, written);
        current_size_ += static_cast<int64_t>(written);
      }
    }
    if (last_write_ok_) {
      LogWarning("Error writing to the AOF file: %s", strerror(err));
    }
    last_write_ok_ = false;
    last_write_error_ = strerror(err);
    if (settings_.fsync == AofFsync::kAlways) {
      LogWarning(
          "Can't recover from AOF write error when the AOF fsync policy is 'always'. "
          "Exiting...");
      _exit(1);
    }
    return;
  }
  current_size_ += static_cast<int64_t>(buf_.size());
  // Everything propagated so far is in buf_ (the replication stream is fed in the same step).
  written_reploff_ = server_.replication().offset();
  if (buf_.capacity() > (4u << 20)) {
    std::string().swap(buf_);  // a burst's buffer is not kept
  } else {
    buf_.clear();
  }
  if (!last_write_ok_) {
    LogWarning("AOF write error looks solved, Valkey can write again.");
    last_write_ok_ = true;
  }
  if (settings_.no_fsync_on_rewrite && rewrite_running()) return;
  if (settings_.fsync == AofFsync::kAlways) {
    // Before the replies of these commands go out.
    const int64_t sync_start_us = MonotonicUs();
    const int synced = fdatasync(fd_);
    NoteLatency("aof-fsync-always", sync_start_us);
    if (synced != 0) {
      LogWarning(
          "Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. "
          "Exiting...",
          strerror(errno));
      _exit(1);
    }
    fsync_offset_ = current_size_;
    last_fsync_s_ = now_s;
    SetFsyncedReploff(written_reploff_);
  } else if (everysec) {
    if (now_s > last_fsync_s_ && !worker_->FsyncPending()) {
      worker_->Fsync(fd_, written_reploff_);
      fsync_offset_ = current_size_;
      last_fsync_s_ = now_s;
    }
    NoteFsynced();
  } else {
    // appendfsync no: the kernel flushes when it likes; written is as far as this server
    // can vouch for (WAITAOF answers as Valkey does).
    SetFsyncedReploff(written_reploff_);
  }
}

void Aof::NoteFsynced() {
  if (worker_ != nullptr) SetFsyncedReploff(worker_->FsyncedReploff());
}

void Aof::SetFsyncedReploff(int64_t reploff) {
  // Only an AOF that is on holds everything written: during the first rewrite it does not.
  if (state_ != State::kOn || reploff <= fsynced_reploff_) return;
  fsynced_reploff_ = reploff;
  server_.replication().LocalAofFsynced();
}

void Aof::DeleteHistory() {
  if (manifest_.history.empty()) return;
  for (const AofFileInfo& f : manifest_.history) {
    LogNotice("Removing the history file %s in the background", f.name.c_str());
    worker_->Unlink(Path(f.name));
  }
  manifest_.history.clear();
  std::string err;
  if (!PersistAofManifest(settings_.dirname, settings_.filename, manifest_, &err)) {
    LogWarning("%s", err.c_str());
  }
}

bool Aof::StartRewrite(std::string* error) {
  if (!EnsureDir(error)) return false;
  last_rewrite_try_ms_ = NowMs();
  Flush(true);
  if (!buf_.empty()) {
    // Unwritten commands would land in the new incremental file and, being in the new base
    // too, run twice on load.
    *error = "Can't rewrite the AOF while writing it fails: " + last_write_error_;
    return false;
  }
  if (state_ == State::kOn) {
    // Commands from now on go to a new incremental file; the base covers everything before.
    AofManifest next = manifest_;
    std::string name = AofNewIncr(&next, settings_.filename);
    int old = fd_;
    fd_ = -1;
    std::string err;
    int fd = open(Path(name).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 || !PersistAofManifest(settings_.dirname, settings_.filename, next, &err)) {
      if (fd >= 0) close(fd);
      fd_ = old;
      *error = err.empty() ? std::string(strerror(errno)) : err;
      return false;
    }
    manifest_ = std::move(next);
    fd_ = old;
    CloseFd();
    fd_ = fd;
    selected_db_ = -1;
  } else if (state_ == State::kWaitRewrite) {
    // The temp incremental file restarts with this attempt: the new base covers the rest.
    CloseFd();
    int fd = open(Path(AofTempIncrName(settings_.filename)).c_str(),
                  O_WRONLY | O_TRUNC | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
      *error = std::string("Can't open the temp incr AOF file: ") + strerror(errno);
      return false;
    }
    fd_ = fd;
    selected_db_ = -1;
    buf_.clear();
  }
  temp_base_ = Path(kTempBasePrefix + std::to_string(getpid()) + ".aof");
  rewrite_ = AofRewriteJob::Start(server_, temp_base_, settings_, error);
  if (rewrite_ == nullptr) {
    last_rewrite_ok_ = false;
    ++rewrite_failures_;
    LogWarning("%s", error->c_str());
    return false;
  }
  rewrite_start_ms_ = NowMs();
  rewrite_scheduled_ = false;
  return true;
}

void Aof::SetDebugFsyncDelay(int ms) {
  debug_fsync_delay_ms_ = ms;
  if (worker_ != nullptr) worker_->set_fsync_delay_ms(ms);
}

void Aof::NoteLatency(const char* event, int64_t start_us) {
  const int saved = errno;  // the callers report the system call's error after this
  server_.latency_monitor().Note(server_.config().latency_monitor_threshold, event,
                                 MonotonicUs() - start_us);
  errno = saved;
}

void Aof::RewriteDone(bool ok, std::string why) {
  rewrite_.reset();
  last_rewrite_time_sec_ = (NowMs() - rewrite_start_ms_) / 1000;
  auto fail = [&](const std::string& what) {
    unlink(temp_base_.c_str());
    last_rewrite_ok_ = false;
    ++rewrite_failures_;
    LogWarning("Background AOF rewrite terminated with error%s%s", what.empty() ? "" : ": ",
               what.c_str());
    // CONFIG SET appendonly yes keeps trying until the AOF is on.
    if (state_ == State::kWaitRewrite) rewrite_scheduled_ = true;
  };
  if (!ok) {
    fail(why);
    return;
  }
  Flush(true);
  AofManifest next = manifest_;
  std::string base = AofNewBase(&next, settings_.filename, settings_.use_rdb_preamble);
  // Each rename is Valkey's latency event "aof-rename".
  auto timed_rename = [this](const std::string& from, const std::string& to) {
    const int64_t start_us = MonotonicUs();
    const int r = rename(from.c_str(), to.c_str());
    NoteLatency("aof-rename", start_us);
    return r;
  };
  if (timed_rename(temp_base_, Path(base)) != 0) {
    fail(std::string("rename: ") + strerror(errno));
    return;
  }
  std::string incr;
  if (state_ == State::kWaitRewrite) {
    incr = AofNewIncr(&next, settings_.filename);
    if (timed_rename(Path(AofTempIncrName(settings_.filename)), Path(incr)) != 0) {
      unlink(Path(base).c_str());
      fail(std::string("rename: ") + strerror(errno));
      return;
    }
  }
  AofIncrsToHistory(&next, state_ != State::kOff);
  std::string err;
  if (!PersistAofManifest(settings_.dirname, settings_.filename, next, &err)) {
    if (!incr.empty())
      rename(Path(incr).c_str(), Path(AofTempIncrName(settings_.filename)).c_str());
    unlink(Path(base).c_str());
    fail(err);
    return;
  }
  manifest_ = std::move(next);
  if (state_ == State::kWaitRewrite) {
    state_ = State::kOn;
    LogNotice("Background AOF rewrite finished successfully");
    // The new base is fsynced; what the incremental file got meanwhile is covered by this
    // fsync (WAITAOF's local count starts here).
    Flush(true);
    if (fd_ >= 0) worker_->Fsync(fd_, written_reploff_);
  }
  int64_t incr_size = manifest_.incrs.empty() ? 0 : FileSize(Path(manifest_.incrs.back().name));
  current_size_ = FileSize(Path(base)) + incr_size;
  rewrite_base_size_ = current_size_;
  fsync_offset_ = current_size_;
  last_rewrite_ok_ = true;
  rewrite_failures_ = 0;
  ++rewrites_;
  DeleteHistory();
  LogNotice("Background AOF rewrite successful");
}

std::string Aof::RequestRewrite(bool defer) {
  if (rewrite_running()) return "ERR Background append only file rewriting already in progress";
  if (defer || BackgroundSaveRunning(server_)) {
    rewrite_failures_ = 0;
    rewrite_scheduled_ = true;
    return "Background append only file rewriting scheduled";
  }
  std::string error;
  if (!StartRewrite(&error)) {
    return "ERR Can't execute an AOF background rewriting. Please check the server logs for "
           "more information.";
  }
  return "Background append only file rewriting started";
}

bool Aof::Enable(std::string* error) {
  if (state_ != State::kOff) return true;
  settings_ = AofSettingsFrom(server_.config());
  if (!EnsureDir(error)) return false;
  int fd = open(Path(AofTempIncrName(settings_.filename)).c_str(),
                O_WRONLY | O_TRUNC | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = std::string("Can't open the temp incr AOF file: ") + strerror(errno);
    return false;
  }
  CloseFd();
  fd_ = fd;
  selected_db_ = -1;
  last_fsync_s_ = NowMs() / 1000;
  state_ = State::kWaitRewrite;
  server_.propagator().AddSink(this);
  if (rewrite_running() || BackgroundSaveRunning(server_)) {
    LogNotice(
        "AOF was enabled but there is already another background operation. An AOF "
        "background was scheduled to start when possible.");
    rewrite_scheduled_ = true;
    return true;
  }
  if (!StartRewrite(error)) {
    Disable();
    return false;
  }
  LogNotice("AOF enabled");
  return true;
}

void Aof::Disable() {
  if (state_ == State::kOff) return;
  Flush(true);
  if (fd_ >= 0) {
    fdatasync(fd_);
    close(fd_);
    fd_ = -1;
  }
  if (rewrite_running()) {
    rewrite_.reset();  // stops it and removes its file
    LogNotice("Stopping the running AOF rewrite");
  }
  if (state_ == State::kWaitRewrite) unlink(Path(AofTempIncrName(settings_.filename)).c_str());
  buf_.clear();
  state_ = State::kOff;
  rewrite_scheduled_ = false;
  server_.propagator().RemoveSink(this);
}

void Aof::SettingsChanged() {
  // The directory and file names are fixed at start-up.
  AofSettings next = AofSettingsFrom(server_.config());
  next.dirname = settings_.dirname;
  next.filename = settings_.filename;
  settings_ = next;
}

void Aof::Cron() {
  if (rewrite_running()) {
    AofRewriteJob::Status st = rewrite_->Poll();
    if (st != AofRewriteJob::Status::kRunning) {
      RewriteDone(st == AofRewriteJob::Status::kDone, rewrite_->error());
    }
  }
  if (worker_ != nullptr) {
    if (int err = worker_->TakeError(); err != 0) {
      LogWarning("Error fsyncing the AOF file: %s", strerror(err));
      last_write_ok_ = false;
      last_write_error_ = strerror(err);
    }
  }
  const int64_t now = NowMs();
  if (!rewrite_running() && rewrite_scheduled_ && !BackgroundSaveRunning(server_)) {
    // After repeated failures, retries wait a minute, as Valkey's limit does.
    if (rewrite_failures_ < 3 || now - last_rewrite_try_ms_ > 60000) {
      std::string err;
      StartRewrite(&err);
    }
  }
  if (state_ == State::kOn && !rewrite_running() && !rewrite_scheduled_ &&
      settings_.rewrite_percentage > 0 && current_size_ > settings_.rewrite_min_size &&
      !BackgroundSaveRunning(server_) &&
      (rewrite_failures_ < 3 || now - last_rewrite_try_ms_ > 60000)) {
    int64_t base = rewrite_base_size_ > 0 ? rewrite_base_size_ : 1;
    int64_t growth = current_size_ * 100 / base - 100;
    if (growth >= settings_.rewrite_percentage) {
      LogNotice("Starting automatic rewriting of AOF on %lld%% growth",
                static_cast<long long>(growth));
      std::string err;
      StartRewrite(&err);
    }
  }
  if (postponed_since_s_ != 0 || !last_write_ok_) Flush(false);
  NoteFsynced();
  // A write error can clear without new writes (disk space returned).
  if (!last_write_ok_ && buf_.empty() && worker_ != nullptr && !worker_->FsyncPending()) {
    last_write_ok_ = true;
  }
}

void Aof::Shutdown() {
  rewrite_.reset();
  if (fd_ < 0) return;
  Flush(true);
  fdatasync(fd_);
}

void Aof::RenderInfo(std::string* out) const {
  char line[160];
  auto add = [&](const char* fmt, long long v) {
    snprintf(line, sizeof(line), fmt, v);
    *out += line;
    *out += "\r\n";
  };
  const int64_t now = NowMs();
  add("aof_enabled:%lld", state_ != State::kOff);
  add("aof_rewrite_in_progress:%lld", rewrite_running());
  add("aof_rewrite_scheduled:%lld", rewrite_scheduled_);
  add("aof_last_rewrite_time_sec:%lld", last_rewrite_time_sec_);
  add("aof_current_rewrite_time_sec:%lld",
      rewrite_running() ? (now - rewrite_start_ms_) / 1000 : -1);
  *out +=
      last_rewrite_ok_ ? "aof_last_bgrewrite_status:ok\r\n" : "aof_last_bgrewrite_status:err\r\n";
  add("aof_rewrites:%lld", static_cast<long long>(rewrites_));
  add("aof_rewrites_consecutive_failures:%lld", static_cast<long long>(rewrite_failures_));
  *out += last_write_ok_ ? "aof_last_write_status:ok\r\n" : "aof_last_write_status:err\r\n";
  *out += "aof_last_cow_size:0\r\n";
  *out += "module_fork_in_progress:0\r\n";
  *out += "module_fork_last_cow_size:0\r\n";
  if (state_ == State::kOff) return;
  add("aof_current_size:%lld", current_size_);
  add("aof_base_size:%lld", rewrite_base_size_);
  add("aof_pending_rewrite:%lld", rewrite_scheduled_);
  add("aof_buffer_length:%lld", static_cast<long long>(buf_.size()));
  add("aof_pending_bio_fsync:%lld", worker_ != nullptr && worker_->FsyncPending());
  add("aof_delayed_fsync:%lld", static_cast<long long>(delayed_fsync_));
}

void AofConfigChanged(Server& server, std::string_view name) {
  Aof* aof = server.aof();
  if (name == "appendonly") {
    if (!server.config().appendonly) {
      aof->Disable();
      return;
    }
    std::string err;
    if (!aof->Enable(&err)) {
      LogWarning("Unable to turn on AOF: %s", err.c_str());
      server.config().appendonly = false;
    }
  } else if (IsAofSetting(name)) {
    aof->SettingsChanged();
  }
}

}  // namespace vireo
