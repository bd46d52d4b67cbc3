// The AOF's configuration, read once from Config (several directives are still kept as
// generic strings) and again after CONFIG SET of any of them.
#pragma once

#include <cstdint>
#include <string>

#include "server/config.h"

namespace vireo {

enum class AofFsync { kAlways, kEverysec, kNo };

struct AofSettings {
  std::string filename = "appendonly.aof";  // appendfilename
  std::string dirname = "appendonlydir";    // appenddirname, relative to dir
  AofFsync fsync = AofFsync::kEverysec;
  bool load_truncated = true;
  bool use_rdb_preamble = true;
  bool timestamps = false;  // aof-timestamp-enabled
  int64_t rewrite_percentage = 100;
  int64_t rewrite_min_size = 64LL * 1024 * 1024;
  bool no_fsync_on_rewrite = false;
};

AofSettings AofSettingsFrom(const Config& c);

// True for the directive names whose change AofSettingsFrom must see.
bool IsAofSetting(std::string_view name);

}  // namespace vireo
