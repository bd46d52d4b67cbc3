#include "persistence/aof_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "commands/command_table.h"
#include "commands/context.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "persistence/aof_manifest.h"
#include "persistence/aof_settings.h"
#include "persistence/aof_writer.h"
#include "persistence/rdb_reader.h"
#include "persistence/snapshot.h"
#include "scripting/functions.h"
#include "scripting/script_engine.h"
#include "server/server.h"
#include "server/transaction.h"
#include "store/access_clock.h"

namespace vireo {

bool AofCommandReader::ReadLine(size_t* pos, std::string_view* line) const {
  size_t nl = data_.find('\n', *pos);
  if (nl == std::string_view::npos) return false;
  *line = data_.substr(*pos, nl - *pos);
  if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
  *pos = nl + 1;
  return true;
}

AofCommandReader::Result AofCommandReader::Next(std::vector<std::string_view>* args) {
  args->clear();
  size_t pos = valid_;
  while (true) {
    if (pos >= data_.size()) return Result::kEnd;
    if (data_[pos] != '#') break;
    std::string_view line;
    if (!ReadLine(&pos, &line)) return Result::kTruncated;
    valid_ = pos;
  }
  command_start_ = pos;
  auto bad = [&](size_t at) {
    error_offset_ = at;
    return Result::kBadFormat;
  };
  if (data_[pos] != '*') return bad(pos);
  std::string_view line;
  size_t line_start = pos;
  if (!ReadLine(&pos, &line)) return Result::kTruncated;
  int64_t argc;
  if (!ParseInt64(line.substr(1), &argc) || argc < 1 || argc > INT32_MAX) return bad(line_start);
  // The count is only a claim until the arguments are there: a damaged "*2000000000" must
  // not reserve gigabytes (the bytes left bound what can be read).
  args->reserve(static_cast<size_t>(std::min<int64_t>(argc, 1024)));
  for (int64_t i = 0; i < argc; ++i) {
    if (pos >= data_.size()) return Result::kTruncated;
    line_start = pos;
    if (data_[pos] != '$') return bad(pos);
    if (!ReadLine(&pos, &line)) return Result::kTruncated;
    int64_t len;
    if (!ParseInt64(line.substr(1), &len) || len < 0) return bad(line_start);
    if (data_.size() - pos < static_cast<size_t>(len) + 2) {
      // Either the file ends here (torn write) or the length is nonsense; only the end of
      // the data tells them apart, as Valkey's reader does.
      return Result::kTruncated;
    }
    args->push_back(data_.substr(pos, static_cast<size_t>(len)));
    pos += static_cast<size_t>(len);
    if (data_[pos] != '\r' || data_[pos + 1] != '\n') return bad(pos);
    pos += 2;
  }
  valid_ = pos;
  return Result::kCommand;
}

namespace {

// A file mapped read-only (empty files map nothing).
struct MappedFile {
  ~MappedFile() {
    if (map != MAP_FAILED) munmap(map, size);
  }
  void* map = MAP_FAILED;
  size_t size = 0;
  std::string_view data() const {
    return map == MAP_FAILED ? std::string_view()
                             : std::string_view(static_cast<const char*>(map), size);
  }
};

bool MapFile(const std::string& path, MappedFile* f, std::string* error) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      *error = "The AOF file " + path + " doesn't exist";
    } else {
      *error = "Fatal error: can't open the append log file " + path +
               " for reading: " + strerror(errno);
    }
    return false;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    *error = "Can't stat the AOF file " + path + ": " + strerror(errno);
    close(fd);
    return false;
  }
  f->size = static_cast<size_t>(sb.st_size);
  if (f->size > 0) {
    f->map = mmap(nullptr, f->size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (f->map == MAP_FAILED) {
      *error = "Can't map the AOF file " + path + ": " + strerror(errno);
      close(fd);
      return false;
    }
    madvise(f->map, f->size, MADV_SEQUENTIAL);
  }
  close(fd);
  return true;
}

class Replayer {
 public:
  explicit Replayer(Server& server) : server_(server), client_(0, -1) {
    client_.authenticated = true;
    client_.flags |= kClientDenyBlocking;
    client_.addr = "aof";
    client_.reply.SetOutput(&scratch_);
  }

  // Runs the commands of one file from offset start. last: the last file, whose torn tail
  // may be cut.
  bool File(const std::string& path, std::string_view data, size_t start, bool last,
            bool truncate_ok, std::string* error) {
    AofCommandReader reader(data, start);
    size_t valid_before_multi = 0;
    size_t next_report = progress_ != nullptr ? start + progress_->every : SIZE_MAX;
    std::vector<std::string_view>& args = client_.args;
    AofCommandReader::Result r;
    while ((r = reader.Next(&args)) == AofCommandReader::Result::kCommand) {
      const CommandSpec* spec = Commands().Resolve(args);
      if (spec == nullptr) {
        *error = "Unknown command '" + std::string(args[0].substr(0, 128)) +
                 "' reading the append only file " + path + " at offset " +
                 std::to_string(reader.command_start());
        return false;
      }
      const int argc = static_cast<int>(args.size());
      if ((spec->arity > 0 && argc != spec->arity) || (spec->arity < 0 && argc < -spec->arity)) {
        *error = "Wrong number of arguments for '" + spec->name +
                 "' reading the append only file " + path + " at offset " +
                 std::to_string(reader.command_start());
        return false;
      }
      if (spec->name == "multi") valid_before_multi = reader.command_start();
      Run(spec);
      ++commands_;
      if (reader.command_start() >= next_report) [[unlikely]] {
        if (!progress_->fn(reader.command_start())) {
          *error = "Loading of the append only file " + path + " interrupted";
          return false;
        }
        next_report = reader.command_start() + progress_->every;
      }
    }
    bool torn = r == AofCommandReader::Result::kTruncated;
    size_t cut = reader.valid_up_to();
    if (r == AofCommandReader::Result::kEnd && (client_.flags & kClientMulti)) {
      // The file ends inside a transaction: it never ran, and it is dropped like a torn tail.
      LogWarning("Revert incomplete MULTI/EXEC transaction in AOF file %s", path.c_str());
      torn = true;
      cut = valid_before_multi;
    } else if (torn && (client_.flags & kClientMulti)) {
      cut = valid_before_multi;
    }
    DiscardTransaction(server_, &client_);
    if (r == AofCommandReader::Result::kBadFormat) {
      *error = "Bad file format reading the append only file " + path + " at offset " +
               std::to_string(reader.error_offset()) +
               ": make a backup of your AOF file, then use ./redis-check-aof --fix "
               "<filename.manifest>";
      return false;
    }
    if (!torn) return true;
    if (!last || !truncate_ok) {
      *error = "Unexpected end of file reading the append only file " + path + " at offset " +
               std::to_string(cut) +
               (last ? ". You can: 1) Make a backup of your AOF file, then use "
                       "./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can "
                       "set the 'aof-load-truncated' configuration option to yes and restart "
                       "the server."
                     : " (not the last file of the AOF)");
      return false;
    }
    LogWarning("!!! Warning: short read while loading the AOF file %s!!!", path.c_str());
    LogWarning("!!! Truncating the AOF %s at offset %zu !!!", path.c_str(), cut);
    if (truncate(path.c_str(), static_cast<off_t>(cut)) != 0) {
      *error = "Error truncating the AOF file " + path + ": " + strerror(errno);
      return false;
    }
    LogWarning("AOF %s loaded anyway because aof-load-truncated is enabled", path.c_str());
    return true;
  }

  uint64_t commands() const { return commands_; }
  // Clients are served between parts of the file (null: not).
  void ServeClients(const LoadProgress* progress) { progress_ = progress; }

 private:
  void Run(const CommandSpec* spec) {
    scratch_.clear();
    Client* c = &client_;
    if ((c->flags & kClientMulti) && QueueInMulti(server_, c, spec)) return;
    // The handler itself, as Valkey's loader does: no stats, slow log or monitors.
    CommandContext ctx{server_, *c, c->args, c->reply, server_.db(c->db_index)};
    spec->handler(ctx);
  }

  Server& server_;
  Client client_;
  std::string scratch_;
  uint64_t commands_ = 0;
  const LoadProgress* progress_ = nullptr;
};

bool Exists(const std::string& path) {
  struct stat sb;
  return stat(path.c_str(), &sb) == 0;
}

void FsyncDir(const std::string& dir) {
  int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

// A pre-7 AOF, `appendfilename` alone in dir (the working directory), becomes the base of a
// multi-part AOF as Valkey 7 makes it: the manifest names it (under its own name) first, then
// it moves into appenddirname, so a crash in between is finished at the next start.
bool UpgradeSingleFileAof(const AofSettings& s, const std::string& manifest_path,
                          std::string* error) {
  if (!Exists(s.filename)) return true;
  if (Exists(s.dirname) && Exists(manifest_path)) {
    // Only a manifest the upgrade itself wrote, whose rename did not happen.
    MappedFile mf;
    AofManifest m;
    std::string err;
    if (!MapFile(manifest_path, &mf, &err) || !ParseAofManifest(mf.data(), &m, &err) ||
        !m.base || m.base->name != s.filename || !m.incrs.empty() ||
        Exists(s.dirname + "/" + s.filename)) {
      return true;
    }
  }
  if (mkdir(s.dirname.c_str(), 0755) != 0 && errno != EEXIST) {
    *error = "Can't open or create append-only dir " + s.dirname + ": " + strerror(errno);
    return false;
  }
  AofManifest m;
  m.base = AofFileInfo{s.filename, 1, 'b'};
  m.base_seq = 1;
  if (!PersistAofManifest(s.dirname, s.filename, m, error)) return false;
  const std::string to = s.dirname + "/" + s.filename;
  if (rename(s.filename.c_str(), to.c_str()) != 0) {
    *error = "Error trying to rename the old AOF file " + s.filename + " into dir " + s.dirname +
             ": " + strerror(errno);
    return false;
  }
  FsyncDir(s.dirname);
  FsyncDir(".");
  LogNotice("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).",
            s.filename.c_str(), s.dirname.c_str());
  return true;
}

}  // namespace

AofLoadStatus LoadAofFiles(Server& server, std::string* error, int64_t* total_size,
                           bool serve_clients) {
  const AofSettings s = AofSettingsFrom(server.config());
  const std::string manifest_path = s.dirname + "/" + AofManifestName(s.filename);
  *total_size = 0;
  if (!UpgradeSingleFileAof(s, manifest_path, error)) return AofLoadStatus::kFailed;
  MappedFile mf;
  if (!Exists(manifest_path) && errno == ENOENT) return AofLoadStatus::kNotExist;
  if (!MapFile(manifest_path, &mf, error)) return AofLoadStatus::kFailed;
  AofManifest m;
  std::string err;
  if (!ParseAofManifest(mf.data(), &m, &err)) {
    *error = err + " (manifest " + manifest_path + ")";
    return AofLoadStatus::kFailed;
  }
  int64_t start = MonotonicUs();
  // Nothing is propagated while loading, and nothing expires (see aof_loader.h).
  server.propagator().Suspend(true);
  SetCommandTimeMs(1);
  bool ok = true;
  Replayer replay(server);
  size_t files = (m.base ? 1 : 0) + m.incrs.size();
  size_t index = 0;
  LoadProgress progress;
  size_t done_before = 0;  // bytes of the files already loaded
  if (serve_clients) {
    size_t all = 0;
    struct stat sb;
    if (m.base && stat((s.dirname + "/" + m.base->name).c_str(), &sb) == 0) all += sb.st_size;
    for (const auto& incr : m.incrs) {
      if (stat((s.dirname + "/" + incr.name).c_str(), &sb) == 0) all += sb.st_size;
    }
    progress.every = static_cast<size_t>(
        ConfigValueInt(server.config(), "loading-process-events-interval-bytes", 2 << 20));
    progress.fn = [&server, &done_before](size_t done) {
      return LoadingProgress(server, done_before + done);
    };
    progress.key_delay_us = ConfigValueInt(server.config(), "key-load-delay", 0);
    BeginLoading(server, all);
  }
  const LoadProgress* serve = serve_clients ? &progress : nullptr;
  if (m.base) {
    ++index;
    std::string path = s.dirname + "/" + m.base->name;
    MappedFile f;
    ok = MapFile(path, &f, error);
    if (ok) {
      *total_size += static_cast<int64_t>(f.size);
      std::string_view data = f.data();
      size_t rdb_size = 0;
      if (data.substr(0, 5) == "REDIS") {
        RdbLoadStats stats;
        std::vector<Db*> dbs;
        for (int i = 0; i < server.db_count(); ++i) dbs.push_back(server.db(i));
        ok = LoadRdb(reinterpret_cast<const unsigned char*>(data.data()), data.size(), dbs,
                     RdbLoadLimitsFrom(server.config()), 0, &stats, &err, &rdb_size, serve);
        if (!ok) *error = "Bad RDB preamble in the AOF base file '" + path + "' " + err;
        std::string fn_error;
        if (ok && !stats.functions.empty() &&
            !server.scripts().functions().Restore(stats.functions, "flush", &fn_error)) {
          ok = false;
          *error = "Bad AOF base file '" + path + "': function library: " + fn_error;
        }
      }
      // Commands, or those after an RDB preamble (a pre-7 AOF). As in Valkey, a torn tail
      // may be cut only when the base is the only file (an upgraded pre-7 AOF).
      if (ok && rdb_size < data.size()) {
        if (rdb_size > 0) LogNotice("Reading the remaining AOF tail...");
        replay.ServeClients(serve);
        ok = replay.File(path, data, rdb_size, files == 1, s.load_truncated, error);
      }
      if (ok) LogNotice("DB loaded from base file %s", m.base->name.c_str());
      done_before += f.size;
    }
  }
  for (size_t i = 0; ok && i < m.incrs.size(); ++i) {
    ++index;
    std::string path = s.dirname + "/" + m.incrs[i].name;
    MappedFile f;
    ok = MapFile(path, &f, error);
    if (!ok) break;
    replay.ServeClients(serve);
    ok = replay.File(path, f.data(), 0, index == files, s.load_truncated, error);
    done_before += f.size;
    if (ok) {
      struct stat sb;
      *total_size += stat(path.c_str(), &sb) == 0 ? static_cast<int64_t>(sb.st_size) : 0;
      LogNotice("DB loaded from incr file %s", m.incrs[i].name.c_str());
    }
  }
  // Keys replayed under the frozen clock get a fresh access clock now.
  RefreshCommandTime();
  if (replay.commands() > 0) {
    for (int i = 0; i < server.db_count(); ++i) {
      server.db(i)->ForEach([](Entry* e) { e->SetLru(NewAccessClock()); });
    }
  }
  server.propagator().Suspend(false);
  if (serve_clients) EndLoading(server);
  if (!ok) return AofLoadStatus::kFailed;
  LogNotice("DB loaded from append only file: %.3f seconds",
            static_cast<double>(MonotonicUs() - start) / 1e6);
  return AofLoadStatus::kOk;
}

bool StartAofAtStartup(Server& server, std::string* error) {
  int64_t size = 0;
  AofLoadStatus st = LoadAofFiles(server, error, &size, true);
  if (st == AofLoadStatus::kFailed) return false;
  return server.aof()->Start(size, error);
}

bool ReloadAof(Server& server, std::string* error) {
  if (server.aof()->enabled()) server.aof()->Flush(true);
  for (int i = 0; i < server.db_count(); ++i) server.db(i)->Clear(false);
  int64_t size = 0;
  if (LoadAofFiles(server, error, &size, false) == AofLoadStatus::kFailed) {
    LogWarning("%s", error->c_str());
    for (int i = 0; i < server.db_count(); ++i) server.db(i)->Clear(false);
    return false;
  }
  server.SetDirty(0);
  return true;
}

}  // namespace vireo
