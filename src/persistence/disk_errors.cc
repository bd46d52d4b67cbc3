#include "persistence/disk_errors.h"

#include "persistence/aof_writer.h"
#include "server/server.h"

namespace vireo {

std::string DiskErrorRefusal(Server& server) {
  const Config& c = server.config();
  if (!server.snapshot().last_bgsave_ok && !c.save.empty()) {
    auto it = c.generic.find("stop-writes-on-bgsave-error");
    if (it == c.generic.end() || it->second == "yes") {
      // valkey-server 8.0.1's text, word for word (redis-server 7.0 says "Redis" twice).
      return "MISCONF Valkey is configured to save RDB snapshots, but it's currently unable to "
             "persist to disk. Commands that may modify the data set are disabled, because "
             "this instance is configured to report errors during writes if RDB snapshotting "
             "fails (stop-writes-on-bgsave-error option). Please check the Valkey logs for "
             "details about the RDB error.";
    }
  }
  const Aof* aof = server.aof();
  if (aof != nullptr && aof->enabled() && aof->write_failing()) {
    return "MISCONF Errors writing to the AOF file: " + aof->last_write_error();
  }
  return "";
}

}  // namespace vireo
