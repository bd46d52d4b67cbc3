// The AOF base file in command format (aof-use-rdb-preamble no): each key as the commands
// that rebuild it. Shared by the synchronous base writer and the fork-less rewrite snapshot.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "persistence/rdb_writer.h"
#include "store/value.h"

namespace vireo {

// FUNCTION LOAD for each library, so scripts called by later commands exist at load.
void AppendFunctionLoads(std::string* out, const std::vector<std::string>& codes);
void AppendSelect(std::string* out, int db);
// aof-timestamp-enabled's annotation: `#TS:<unix seconds>`.
void AppendTimestamp(std::string* out, int64_t unix_s);
// SET for strings, RESTORE of a DUMP payload for the other types (one command whatever the
// size, loadable by any Valkey), PEXPIREAT for a TTL.
void AppendKeyCommands(std::string* out, const Entry* e, const RdbWriteOptions& options);

}  // namespace vireo
