#include "persistence/aof_settings.h"

#include "common/numbers.h"

namespace vireo {
namespace {

// A generic directive's value (config_directives.h), or def while it has its default.
std::string Generic(const Config& c, const char* name, const char* def) {
  auto it = c.generic.find(name);
  return it == c.generic.end() ? def : it->second;
}

int64_t GenericInt(const Config& c, const char* name, int64_t def) {
  int64_t v;
  return ParseInt64(Generic(c, name, ""), &v) ? v : def;
}

}  // namespace

AofSettings AofSettingsFrom(const Config& c) {
  AofSettings s;
  s.filename = c.appendfilename;
  s.dirname = Generic(c, "appenddirname", "appendonlydir");
  s.fsync = c.appendfsync == "always" ? AofFsync::kAlways
            : c.appendfsync == "no"   ? AofFsync::kNo
                                      : AofFsync::kEverysec;
  s.load_truncated = Generic(c, "aof-load-truncated", "yes") == "yes";
  s.use_rdb_preamble = Generic(c, "aof-use-rdb-preamble", "yes") == "yes";
  s.timestamps = Generic(c, "aof-timestamp-enabled", "no") == "yes";
  s.rewrite_percentage = GenericInt(c, "auto-aof-rewrite-percentage", 100);
  s.rewrite_min_size = GenericInt(c, "auto-aof-rewrite-min-size", 64LL * 1024 * 1024);
  s.no_fsync_on_rewrite = Generic(c, "no-appendfsync-on-rewrite", "no") == "yes";
  return s;
}

bool IsAofSetting(std::string_view name) {
  return name == "appendfsync" || name == "aof-load-truncated" || name == "aof-use-rdb-preamble" ||
         name == "aof-timestamp-enabled" || name == "auto-aof-rewrite-percentage" ||
         name == "auto-aof-rewrite-min-size" || name == "no-appendfsync-on-rewrite";
}

}  // namespace vireo
