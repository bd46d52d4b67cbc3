// Fuzzes the AOF loader end to end: the real LoadAofFiles over a manifest and the fuzz input
// as a base or incremental file in the fuzz server's temp dir, each command replayed through
// its handler. Also the manifest parser alone. An AOF may hold any command, so inputs naming
// one fuzz_server.h keeps out (SHUTDOWN, DEBUG, CONFIG SET dir ...) are skipped unread.
//
// Input: byte 0 picks the mode, the rest is the file.
//   0: the base file (commands, or an RDB preamble followed by commands).
//   1: an incremental file, after an empty base.
//   2: manifest text, parsed only (its names could point outside the temp dir).
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "tests/fuzz/fuzz_server.h"
#include "persistence/aof_loader.h"
#include "persistence/aof_manifest.h"
#include "persistence/rdb_reader.h"

namespace {

void WriteFile(const std::string& path, std::string_view data) {
  FILE* f = fopen(path.c_str(), "wb");
  if (f == nullptr) abort();
  if (!data.empty() && fwrite(data.data(), 1, data.size(), f) != data.size()) abort();
  fclose(f);
}

// Where the commands of a base file start: after its RDB preamble, if it has one (loaded
// into the databases to find its end; they are emptied again before the real load).
// SIZE_MAX for a preamble holding function libraries: loading runs their Lua, which may
// loop forever.
size_t CommandsStart(std::string_view file) {
  using namespace vireo;
  if (file.substr(0, 5) != "REDIS") return 0;
  Server& server = fuzz::FuzzServer();
  std::vector<Db*> dbs;
  for (int i = 0; i < server.db_count(); ++i) dbs.push_back(server.db(i));
  RdbLoadStats stats;
  std::string error;
  size_t rdb_size = 0;
  bool ok = LoadRdb(reinterpret_cast<const unsigned char*>(file.data()), file.size(), dbs,
                    RdbLoadLimitsFrom(server.config()), NowMs(), &stats, &error, &rdb_size);
  fuzz::Reset();
  if (!stats.functions.empty()) return SIZE_MAX;
  return ok ? rdb_size : file.size();
}

// True when every command the loader will replay is one a fuzzer may run.
bool AllSafe(std::string_view file, size_t start) {
  vireo::AofCommandReader reader(file, start);
  std::vector<std::string_view> args;
  while (reader.Next(&args) == vireo::AofCommandReader::Result::kCommand) {
    if (!vireo::fuzz::SafeToRun(args)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vireo;
  if (size < 1) return 0;
  const uint8_t mode = data[0] % 3;
  std::string_view file(reinterpret_cast<const char*>(data + 1), size - 1);
  if (mode == 2) {
    AofManifest m;
    std::string error;
    if (ParseAofManifest(file, &m, &error)) {
      // What parses must format and parse back the same.
      AofManifest again;
      if (!ParseAofManifest(FormatAofManifest(m), &again, &error)) abort();
      if (FormatAofManifest(again) != FormatAofManifest(m)) abort();
    }
    return 0;
  }
  Server& server = fuzz::FuzzServer();
  fuzz::Reset();
  const size_t start = mode == 0 ? CommandsStart(file) : 0;
  if (start == SIZE_MAX || !AllSafe(file, start)) return 0;
  const std::string dir = fuzz::FuzzDir() + "/appendonlydir";
  static const bool made = mkdir(dir.c_str(), 0755) == 0;
  (void)made;
  const std::string base = "appendonly.aof.1.base.aof";
  const std::string incr = "appendonly.aof.1.incr.aof";
  WriteFile(dir + "/" + base, mode == 0 ? file : std::string_view());
  WriteFile(dir + "/" + incr, mode == 1 ? file : std::string_view());
  WriteFile(dir + "/appendonly.aof.manifest",
            "file " + base + " seq 1 type b\nfile " + incr + " seq 1 type i\n");
  std::string error;
  int64_t total = 0;
  LoadAofFiles(server, &error, &total, /*serve_clients=*/false);
  // Whatever loaded must read back.
  Client* client = fuzz::FuzzClient();
  fuzz::Execute(client, {"debug", "digest"});
  return 0;
}
