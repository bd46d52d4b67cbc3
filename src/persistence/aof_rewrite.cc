#include "persistence/aof_rewrite.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "commands/registry.h"
#include "common/log.h"
#include "persistence/aof_writer.h"
#include "persistence/cow_snapshot.h"
#include "persistence/file_io.h"
#include "persistence/rdb_writer.h"
#include "scripting/functions.h"
#include "scripting/script_engine.h"
#include "server/server.h"
#include "store/memory.h"
#include "store/value.h"

namespace vireo {
namespace {

bool WriteAll(int fd, const std::string& data, std::string* error) {
  if (vireo::WriteAll(fd, data.data(), data.size())) return true;
  *error = strerror(errno);
  return false;
}

// The dataset as commands: SET for strings, RESTORE of a DUMP payload for the other types
// (one command whatever the size, loadable by any Valkey), PEXPIREAT for TTLs.
bool WriteCommandBase(Server& server, int fd, std::string* error) {
  const RdbWriteOptions opt = RdbWriteOptionsFrom(server.config());
  std::string buf;
  bool ok = true;
  if (server.has_scripts()) {
    for (const std::string& code : server.scripts().functions().Codes()) {
      std::string_view load[] = {"FUNCTION", "LOAD", code};
      AppendRespCommand(&buf, load, 3);
    }
  }
  for (int i = 0; i < server.db_count() && ok; ++i) {
    Db* db = server.db(i);
    if (db->Size() == 0) continue;
    std::string index = std::to_string(i);
    std::string_view select[] = {"SELECT", index};
    AppendRespCommand(&buf, select, 2);
    db->ForEach([&](Entry* e) {
      if (!ok) return;
      std::string_view key = e->Key();
      if (e->type() == ObjType::kString) {
        char tmp[24];
        std::string_view set[] = {"SET", key, StringValue(e, tmp)};
        AppendRespCommand(&buf, set, 3);
      } else {
        std::string payload = DumpPayload(e, opt);
        std::string_view restore[] = {"RESTORE", key, "0", payload};
        AppendRespCommand(&buf, restore, 4);
      }
      if (e->expire_ms != 0) {
        std::string when = std::to_string(e->expire_ms);
        std::string_view expire[] = {"PEXPIREAT", key, when};
        AppendRespCommand(&buf, expire, 3);
      }
      if (buf.size() >= (1u << 20)) {
        ok = WriteAll(fd, buf, error);
        buf.clear();
      }
    });
  }
  return ok && WriteAll(fd, buf, error);
}

RdbAuxInfo AofBaseAux(Server& server) {
  RdbAuxInfo aux;
  aux.version = kCompatVersion;
  aux.used_mem = static_cast<int64_t>(UsedMemory());
  aux.aof_base = true;
  if (server.has_scripts()) aux.functions = server.scripts().functions().Codes();
  return aux;
}

std::vector<Db*> AllDbs(Server& server) {
  std::vector<Db*> dbs;
  for (int i = 0; i < server.db_count(); ++i) dbs.push_back(server.db(i));
  return dbs;
}

// The command-format base in a forked child: a copy-on-write view of the keyspace, read
// only, then exit. 0 with *error when fork fails.
pid_t ForkCommandBase(Server& server, const std::string& path, std::string* error) {
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("Can't rewrite append only file in background: fork: ") + strerror(errno);
    return 0;
  }
  if (pid > 0) return pid;
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    LogWarning("Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s",
               strerror(errno));
    _exit(1);
  }
  std::string err;
  bool ok = WriteCommandBase(server, fd, &err) && fsync(fd) == 0;
  if (!ok) LogWarning("Write error writing append only file on disk: %s", err.c_str());
  if (close(fd) != 0) ok = false;
  _exit(ok ? 0 : 1);
}

}  // namespace

bool WriteAofBase(Server& server, int fd, bool rdb_preamble, std::string* error) {
  if (!rdb_preamble) return WriteCommandBase(server, fd, error);
  return WriteRdb(fd, AllDbs(server), RdbWriteOptionsFrom(server.config()), AofBaseAux(server),
                  error);
}

std::unique_ptr<AofRewriteJob> AofRewriteJob::Start(Server& server, const std::string& path,
                                                    bool rdb_preamble, std::string* error) {
  std::unique_ptr<AofRewriteJob> job(new AofRewriteJob());
  job->path_ = path;
  if (!rdb_preamble) {
    job->child_ = ForkCommandBase(server, path, error);
    if (job->child_ == 0) return nullptr;
    LogNotice("Background append only file rewriting started by pid %d",
              static_cast<int>(job->child_));
    return job;
  }
  CowSnapshotOptions opt;
  // The caller renames the finished file into the AOF directory: the snapshot's own rename
  // is onto the same name, which POSIX makes a no-op.
  opt.temp_path = path;
  opt.path = path;
  opt.write = RdbWriteOptionsFrom(server.config());
  opt.aux = AofBaseAux(server);
  opt.key_save_delay_us = server.config().rdb_key_save_delay;
  std::string err;
  job->snapshot_ = CowSnapshot::Start(AllDbs(server), std::move(opt), &err);
  if (job->snapshot_ == nullptr) {
    *error = "Can't rewrite append only file in background: " + err;
    return nullptr;
  }
  LogNotice("Background append only file rewriting started (fork-less snapshot)");
  return job;
}

AofRewriteJob::~AofRewriteJob() {
  if (status_ != Status::kRunning) return;
  if (snapshot_ != nullptr) {
    snapshot_->Abort();  // removes the file
    return;
  }
  kill(child_, SIGUSR1);
  int st;
  waitpid(child_, &st, 0);
  unlink(path_.c_str());
}

AofRewriteJob::Status AofRewriteJob::Poll() {
  if (status_ != Status::kRunning) return status_;
  if (snapshot_ != nullptr) {
    CowSnapshot::Status st = snapshot_->Poll();
    if (st == CowSnapshot::Status::kRunning) return status_;
    status_ = st == CowSnapshot::Status::kSucceeded ? Status::kDone : Status::kFailed;
    error_ = snapshot_->error();
    snapshot_.reset();
    return status_;
  }
  int st;
  pid_t r = waitpid(child_, &st, WNOHANG);
  if (r == 0) return status_;
  bool ok = r == child_ && WIFEXITED(st) && WEXITSTATUS(st) == 0;
  status_ = ok ? Status::kDone : Status::kFailed;
  return status_;
}

}  // namespace vireo
