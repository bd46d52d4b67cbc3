#include "persistence/snapshot.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "commands/registry.h"
#include "common/clock.h"
#include "common/log.h"
#include "persistence/aof_writer.h"
#include "persistence/cow_snapshot.h"
#include "persistence/rdb_reader.h"
#include "persistence/rdb_writer.h"
#include "replication/replication.h"
#include "scripting/functions.h"
#include "scripting/script_engine.h"
#include "server/server.h"
#include "store/memory.h"

namespace vireo {
namespace {

// Failed background saves are retried by save points only after this delay (Valkey's).
constexpr int64_t kBgsaveRetryDelayMs = 5000;

std::vector<Db*> AllDbs(Server& server) {
  std::vector<Db*> dbs;
  for (int i = 0; i < server.db_count(); ++i) dbs.push_back(server.db(i));
  return dbs;
}

std::string TempName(pid_t pid) { return "temp-" + std::to_string(pid) + ".rdb"; }

// The file as the server opens it (relative to the working directory, which main set to
// `dir`), made absolute for messages.
std::string FilePath(Server& server) {
  const Config& c = server.config();
  if (!c.dbfilename.empty() && c.dbfilename[0] == '/') return c.dbfilename;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return c.dbfilename;
  return std::string(cwd) + "/" + c.dbfilename;
}

RdbAuxInfo AuxInfo(Server& server) {
  RdbAuxInfo aux;
  aux.version = kCompatVersion;
  aux.used_mem = static_cast<int64_t>(UsedMemory());
  if (server.has_scripts()) aux.functions = server.scripts().functions().Codes();
  if (server.replication().has_history()) {
    aux.repl_id = server.replication().replid();
    aux.repl_offset = server.replication().offset();
  }
  return aux;
}

// The whole write: temp file, fsync, rename over dbfilename, fsync of the directory.
bool WriteFile(Server& server, std::string* error) {
  const Config& c = server.config();
  std::string tmp = TempName(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "Failed opening the temp RDB file " + tmp + " (in server root dir " + c.dir +
             ") for saving: " + strerror(errno);
    return false;
  }
  std::string err;
  bool ok = WriteRdb(fd, AllDbs(server), RdbWriteOptionsFrom(c), AuxInfo(server), &err);
  if (ok && fsync(fd) != 0) {
    ok = false;
    err = strerror(errno);
  }
  if (close(fd) != 0 && ok) {
    ok = false;
    err = strerror(errno);
  }
  if (ok && rename(tmp.c_str(), c.dbfilename.c_str()) != 0) {
    ok = false;
    err = std::string("rename: ") + strerror(errno);
  }
  if (!ok) {
    unlink(tmp.c_str());
    *error = "Write error saving DB on disk: " + err;
    return false;
  }
  // The rename is durable only once the directory entry is.
  int dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return true;
}

void SaveSucceeded(Server& server, uint64_t dirty_saved) {
  SnapshotState& st = server.snapshot();
  server.SetDirty(server.dirty() > dirty_saved ? server.dirty() - dirty_saved : 0);
  server.set_last_save_time(NowMs() / 1000);
  st.last_bgsave_ok = true;
  ++st.saves;
}

}  // namespace

bool SaveSnapshot(Server& server, std::string* error) {
  int64_t start = NowMs();
  uint64_t dirty = server.dirty();
  if (!WriteFile(server, error)) {
    server.snapshot().last_bgsave_ok = false;
    LogWarning("%s", error->c_str());
    return false;
  }
  SaveSucceeded(server, dirty);
  LogNotice("DB saved on disk (%.3f seconds)", static_cast<double>(NowMs() - start) / 1000.0);
  return true;
}

bool StartBackgroundSave(Server& server, std::string* error) {
  SnapshotState& st = server.snapshot();
  const Config& c = server.config();
  if (CowSnapshot::Busy()) {
    // An AOF rewrite's snapshot walks: not a failed save (callers retry), as Valkey's
    // refusal while another child runs.
    *error = "Another child process is active (AOF?)";
    return false;
  }
  st.last_bgsave_try_ms = NowMs();
  CowSnapshotOptions opt;
  // Absolute paths: the writer thread renames after a CONFIG SET dir may have moved the cwd.
  opt.path = FilePath(server);
  opt.temp_path = opt.path.substr(0, opt.path.rfind('/') + 1) + TempName(getpid());
  opt.write = RdbWriteOptionsFrom(c);
  opt.aux = AuxInfo(server);
  opt.key_save_delay_us = c.rdb_key_save_delay;
  std::string err;
  std::unique_ptr<CowSnapshot> s = CowSnapshot::Start(AllDbs(server), std::move(opt), &err);
  if (s == nullptr) {
    st.last_bgsave_ok = false;
    *error = "Failed opening the temp RDB file " + TempName(getpid()) + " (in server root dir " +
             c.dir + ") for saving: " + err;
    LogWarning("%s", error->c_str());
    return false;
  }
  st.bgsave = std::move(s);
  st.bgsave_start_ms = NowMs();
  st.dirty_at_start = server.dirty();
  st.bgsave_scheduled = false;
  LogNotice("Background saving started");
  return true;
}

bool StartSocketTransfer(Server& server, std::vector<int> sockets, std::string preamble,
                         std::string eof_mark, std::string* error) {
  SnapshotState& st = server.snapshot();
  if (CowSnapshot::Busy()) {
    for (int s : sockets) close(s);
    *error = "Another child process is active (AOF?)";
    return false;
  }
  CowSnapshotOptions opt;
  opt.sockets = std::move(sockets);
  opt.preamble = std::move(preamble);
  opt.eof_mark = std::move(eof_mark);
  opt.socket_timeout_ms = ConfigValueInt(server.config(), "repl-timeout", 60) * 1000;
  opt.write = RdbWriteOptionsFrom(server.config());
  opt.aux = AuxInfo(server);
  opt.key_save_delay_us = server.config().rdb_key_save_delay;
  std::vector<int> owned = opt.sockets;
  std::string err;
  std::unique_ptr<CowSnapshot> s = CowSnapshot::Start(AllDbs(server), std::move(opt), &err);
  if (s == nullptr) {
    for (int fd : owned) close(fd);
    *error = err;
    return false;
  }
  st.bgsave = std::move(s);
  st.bgsave_to_sockets = true;
  st.bgsave_start_ms = NowMs();
  return true;
}

bool BackgroundSaveRunning(const Server& server) { return server.snapshot().bgsave != nullptr; }

void KillBackgroundSave(Server& server) {
  SnapshotState& st = server.snapshot();
  if (st.bgsave == nullptr) return;
  // As Valkey's kill of its child with SIGUSR1: no error status, the temp file goes.
  st.bgsave->Abort();
  st.bgsave.reset();
  if (st.bgsave_to_sockets) {
    st.bgsave_to_sockets = false;
    LogNotice("Background transfer to replicas aborted");
    server.replication().SocketTransferDone(false, {});
    return;
  }
  LogNotice("Background saving aborted");
  server.replication().BackgroundSaveDone(false, "");
}

void SnapshotCron(Server& server) {
  SnapshotState& st = server.snapshot();
  int64_t now = NowMs();
  if (st.bgsave != nullptr) {
    CowSnapshot::Status status = st.bgsave->Poll();
    if (status == CowSnapshot::Status::kRunning) return;  // still writing
    if (st.bgsave_to_sockets) {
      // A diskless full sync: nothing was saved; the replicas that got it all go online.
      const bool ok = status == CowSnapshot::Status::kSucceeded;
      if (ok) {
        LogNotice("Background RDB transfer terminated with success");
      } else {
        LogWarning("Background transfer error: %s", st.bgsave->error().c_str());
      }
      std::vector<bool> delivered;
      for (size_t i = 0; i < st.bgsave->socket_count(); ++i) {
        delivered.push_back(ok && st.bgsave->delivered(i));
      }
      st.bgsave.reset();
      st.bgsave_to_sockets = false;
      server.replication().SocketTransferDone(ok, delivered);
      return;
    }
    st.last_cow_size = st.bgsave->peak_queued_bytes();
    if (status == CowSnapshot::Status::kSucceeded) {
      SaveSucceeded(server, st.dirty_at_start);
      LogNotice("Background saving terminated with success");
    } else {
      st.last_bgsave_ok = false;
      LogWarning("Background saving error: %s", st.bgsave->error().c_str());
    }
    st.last_bgsave_time_sec = (now - st.bgsave_start_ms) / 1000;
    st.bgsave.reset();
    // Replicas waiting for a full sync get the file (or the failure).
    server.replication().BackgroundSaveDone(status == CowSnapshot::Status::kSucceeded,
                                            FilePath(server));
  }
  // Another snapshot walks the keyspace, or an AOF rewrite's child runs: wait for it, as
  // Valkey runs one child at a time.
  if (CowSnapshot::Busy() || (server.aof() != nullptr && server.aof()->rewrite_running())) return;
  std::string err;
  if (st.bgsave_scheduled) {
    StartBackgroundSave(server, &err);
    return;
  }
  const Config& c = server.config();
  int64_t since_save = now / 1000 - server.last_save_time();
  for (const SavePoint& sp : c.save) {
    if (server.dirty() >= static_cast<uint64_t>(sp.changes) && since_save > sp.seconds &&
        (st.last_bgsave_ok || now - st.last_bgsave_try_ms > kBgsaveRetryDelayMs)) {
      LogNotice("%lld changes in %lld seconds. Saving...", static_cast<long long>(sp.changes),
                static_cast<long long>(sp.seconds));
      StartBackgroundSave(server, &err);
      return;
    }
  }
}

bool SaveBeforeShutdown(Server& server, ShutdownSave mode, std::string* error) {
  KillBackgroundSave(server);
  if (server.loading()) return true;  // a half-loaded dataset is never saved (as Valkey)
  bool save = mode == ShutdownSave::kSave ||
              (mode == ShutdownSave::kDefault && !server.config().save.empty());
  if (!save) return true;
  LogNotice("Saving the final RDB snapshot before exiting.");
  return SaveSnapshot(server, error);
}

void BeginLoading(Server& server, size_t total_bytes) {
  SnapshotState& st = server.snapshot();
  st.loading_start_ms = NowMs();
  st.loading_total_bytes = total_bytes;
  st.loading_loaded_bytes = 0;
  server.SetLoading(true);
}

bool LoadingProgress(Server& server, size_t loaded_bytes) {
  server.snapshot().loading_loaded_bytes = loaded_bytes;
  return server.ServeWhileLoading();
}

void EndLoading(Server& server) {
  server.SetLoading(false);
  server.snapshot().loading_total_bytes = 0;
}

namespace {

bool LoadFile(Server& server, const std::string& path, std::string* error, bool missing_ok,
              bool serve_clients) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT && missing_ok) return true;
    *error = "Can't open the RDB file '" + path + "': " + strerror(errno);
    return false;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    *error = "Can't stat the RDB file '" + path + "': " + strerror(errno);
    close(fd);
    return false;
  }
  size_t size = static_cast<size_t>(sb.st_size);
  const unsigned char* data = nullptr;
  void* map = MAP_FAILED;
  if (size > 0) {
    // Populated at once: one fault per 4 KB page while loading cost about a tenth of the load.
    map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
      *error = "Can't map the RDB file '" + path + "': " + strerror(errno);
      close(fd);
      return false;
    }
    madvise(map, size, MADV_SEQUENTIAL);
    data = static_cast<const unsigned char*>(map);
  }
  close(fd);
  int64_t start = MonotonicUs();
  RdbLoadStats stats;
  std::string err;
  LoadProgress progress;
  if (serve_clients) {
    progress.every = static_cast<size_t>(
        ConfigValueInt(server.config(), "loading-process-events-interval-bytes", 2 << 20));
    progress.fn = [&server](size_t done) { return LoadingProgress(server, done); };
    progress.key_delay_us = ConfigValueInt(server.config(), "key-load-delay", 0);
    BeginLoading(server, size);
  }
  bool ok = LoadRdb(data, size, AllDbs(server), RdbLoadLimitsFrom(server.config()), NowMs(), &stats,
                    &err, nullptr, serve_clients ? &progress : nullptr);
  if (serve_clients) EndLoading(server);
  if (map != MAP_FAILED) munmap(map, size);
  if (!ok) {
    *error = "Bad RDB file '" + path + "' " + err;
    return false;
  }
  // The file's function libraries replace the loaded ones, as in Valkey.
  if (!stats.functions.empty() ||
      (server.has_scripts() && server.scripts().functions().LibraryCount() != 0)) {
    std::string fn_error;
    if (!server.scripts().functions().Restore(stats.functions, "flush", &fn_error)) {
      *error = "Bad RDB file '" + path + "': function library: " + fn_error;
      return false;
    }
  }
  server.snapshot().last_load_keys_loaded = stats.keys_loaded;
  server.snapshot().last_load_keys_expired = stats.keys_expired;
  server.snapshot().loaded_repl_id = stats.repl_id;
  server.snapshot().loaded_repl_offset = stats.repl_offset;
  LogNotice("Done loading RDB, keys loaded: %llu, keys expired: %llu.",
            static_cast<unsigned long long>(stats.keys_loaded),
            static_cast<unsigned long long>(stats.keys_expired));
  LogNotice("DB loaded from disk: %.3f seconds", static_cast<double>(MonotonicUs() - start) / 1e6);
  return true;
}

}  // namespace

bool LoadSnapshotAtStartup(Server& server, std::string* error) {
  return LoadFile(server, FilePath(server), error, true, true);
}

bool ReplaceDatasetFromFile(Server& server, const std::string& path, std::string* error,
                            bool keep_old_on_failure) {
  KillBackgroundSave(server);
  // The old dataset waits aside in databases nothing else can reach.
  KeyspaceStats unused;
  std::vector<std::unique_ptr<Db>> old;
  for (int i = 0; i < server.db_count(); ++i) {
    if (keep_old_on_failure) {
      old.push_back(std::make_unique<Db>(i, &unused));
      old.back()->Swap(*server.db(i));
    } else {
      server.db(i)->Clear(false);
    }
  }
  const bool ok = LoadFile(server, path, error, false, true);
  for (int i = 0; i < server.db_count(); ++i) {
    if (!ok) server.db(i)->Clear(false);
    if (keep_old_on_failure) {
      if (!ok) server.db(i)->Swap(*old[static_cast<size_t>(i)]);
      old[static_cast<size_t>(i)]->Clear(true);  // the lazy-free thread frees what is left
    }
  }
  return ok;
}

bool ReloadSnapshot(Server& server, std::string* error) {
  // The reload replaces every key: a running BGSAVE's snapshot has no use any more.
  KillBackgroundSave(server);
  if (!SaveSnapshot(server, error)) return false;
  for (int i = 0; i < server.db_count(); ++i) server.db(i)->Clear(false);
  // DEBUG RELOAD runs as a command: other clients wait instead of being served meanwhile.
  if (!LoadFile(server, FilePath(server), error, false, false)) {
    LogWarning("%s", error->c_str());
    for (int i = 0; i < server.db_count(); ++i) server.db(i)->Clear(false);
    return false;
  }
  return true;
}

}  // namespace vireo
