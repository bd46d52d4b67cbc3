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
      AppendAofCommand(&buf, load, 3);
    }
  }
  for (int i = 0; i < server.db_count() && ok; ++i) {
    Db* db = server.db(i);
    if (db->Size() == 0) continue;
    std::string index = std::to_string(i);
    std::string_view select[] = {"SELECT", index};
    AppendAofCommand(&buf, select, 2);
    db->ForEach([&](Entry* e) {
      if (!ok) return;
      std::string_view key = e->Key();
      if (e->type() == ObjType::kString) {
        char tmp[24];
        std::string_view set[] = {"SET", key, StringValue(e, tmp)};
        AppendAofCommand(&buf, set, 3);
      } else {
        std::string payload = DumpPayload(e, opt);
        std::string_view restore[] = {"RESTORE", key, "0", payload};
        AppendAofCommand(&buf, restore, 4);
      }
      if (e->expire_ms != 0) {
        std::string when = std::to_string(e->expire_ms);
        std::string_view expire[] = {"PEXPIREAT", key, when};
        AppendAofCommand(&buf, expire, 3);
      }
      if (buf.size() >= (1u << 20)) {
        ok = WriteAll(fd, buf, error);
        buf.clear();
      }
    });
  }
  return ok && WriteAll(fd, buf, error);
}

}  // namespace

bool WriteAofBase(Server& server, int fd, bool rdb_preamble, std::string* error) {
  if (!rdb_preamble) return WriteCommandBase(server, fd, error);
  std::vector<Db*> dbs;
  for (int i = 0; i < server.db_count(); ++i) dbs.push_back(server.db(i));
  RdbAuxInfo aux;
  aux.version = kCompatVersion;
  aux.used_mem = static_cast<int64_t>(UsedMemory());
  aux.aof_base = true;
  if (server.has_scripts()) aux.functions = server.scripts().functions().Codes();
  return WriteRdb(fd, dbs, RdbWriteOptionsFrom(server.config()), aux, error);
}

bool StartBaseWrite(Server& server, const std::string& path, bool rdb_preamble, pid_t* job,
                    std::string* error) {
  pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("Can't rewrite append only file in background: fork: ") + strerror(errno);
    return false;
  }
  if (pid == 0) {
    // The child: a copy-on-write view of the keyspace, read only, then exit.
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      LogWarning("Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s",
                 strerror(errno));
      _exit(1);
    }
    std::string err;
    bool ok = WriteAofBase(server, fd, rdb_preamble, &err) && fsync(fd) == 0;
    if (!ok) LogWarning("Write error writing append only file on disk: %s", err.c_str());
    if (close(fd) != 0) ok = false;
    _exit(ok ? 0 : 1);
  }
  *job = pid;
  return true;
}

BaseWriteStatus PollBaseWrite(pid_t job) {
  int status;
  pid_t r = waitpid(job, &status, WNOHANG);
  if (r == 0) return BaseWriteStatus::kRunning;
  bool ok = r == job && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return ok ? BaseWriteStatus::kDone : BaseWriteStatus::kFailed;
}

void CancelBaseWrite(pid_t job) {
  if (job <= 0) return;
  kill(job, SIGUSR1);
  int status;
  waitpid(job, &status, 0);
}

}  // namespace vireo
