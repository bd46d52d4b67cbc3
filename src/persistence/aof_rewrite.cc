#include "persistence/aof_rewrite.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "commands/registry.h"
#include "common/log.h"
#include "common/clock.h"
#include "persistence/aof_commands.h"
#include "persistence/aof_settings.h"
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

// The dataset as commands, written now (a base for an AOF turned on at startup).
bool WriteCommandBase(Server& server, int fd, bool timestamp, std::string* error) {
  const RdbWriteOptions opt = RdbWriteOptionsFrom(server.config());
  std::string buf;
  bool ok = true;
  if (timestamp) AppendTimestamp(&buf, NowMs() / 1000);
  if (server.has_scripts()) AppendFunctionLoads(&buf, server.scripts().functions().Codes());
  for (int i = 0; i < server.db_count() && ok; ++i) {
    Db* db = server.db(i);
    if (db->Size() == 0) continue;
    AppendSelect(&buf, i);
    db->ForEach([&](Entry* e) {
      if (!ok) return;
      AppendKeyCommands(&buf, e, opt);
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

}  // namespace

bool WriteAofBase(Server& server, int fd, const AofSettings& settings, std::string* error) {
  if (!settings.use_rdb_preamble) return WriteCommandBase(server, fd, settings.timestamps, error);
  return WriteRdb(fd, AllDbs(server), RdbWriteOptionsFrom(server.config()), AofBaseAux(server),
                  error);
}

std::unique_ptr<AofRewriteJob> AofRewriteJob::Start(Server& server, const std::string& path,
                                                    const AofSettings& settings,
                                                    std::string* error) {
  const bool rdb_preamble = settings.use_rdb_preamble;
  std::unique_ptr<AofRewriteJob> job(new AofRewriteJob());
  CowSnapshotOptions opt;
  // The caller renames the finished file into the AOF directory: the snapshot's own rename
  // is onto the same name, which POSIX makes a no-op.
  opt.temp_path = path;
  opt.path = path;
  opt.write = RdbWriteOptionsFrom(server.config());
  opt.aux = AofBaseAux(server);
  opt.key_save_delay_us = server.config().rdb_key_save_delay;
  opt.commands = !rdb_preamble;
  opt.timestamp = settings.timestamps;
  std::string err;
  job->snapshot_ = CowSnapshot::Start(AllDbs(server), std::move(opt), &err);
  if (job->snapshot_ == nullptr) {
    *error = "Can't rewrite append only file in background: " + err;
    return nullptr;
  }
  LogNotice("Background append only file rewriting started (fork-less snapshot, %s)",
            rdb_preamble ? "RDB preamble" : "commands");
  return job;
}

AofRewriteJob::~AofRewriteJob() {
  if (status_ == Status::kRunning) snapshot_->Abort();  // removes the file
}

AofRewriteJob::Status AofRewriteJob::Poll() {
  if (status_ != Status::kRunning) return status_;
  CowSnapshot::Status st = snapshot_->Poll();
  if (st == CowSnapshot::Status::kRunning) return status_;
  status_ = st == CowSnapshot::Status::kSucceeded ? Status::kDone : Status::kFailed;
  error_ = snapshot_->error();
  snapshot_.reset();
  return status_;
}

}  // namespace vireo
