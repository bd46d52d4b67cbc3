// Loading the AOF at start-up (and DEBUG LOADAOF): the manifest, then the base (an RDB
// preamble through the RDB reader, or commands), then each incremental file, every command
// run through its handler by a fake client, as Valkey does. Nothing expires while a log
// replays (the command clock is frozen), so later commands find the keys they found when
// they first ran.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

class Server;

// Reads commands out of AOF bytes: `*N` multibulk commands and `#...` annotation lines
// (aof-timestamp-enabled's `#TS:`), which are skipped.
class AofCommandReader {
 public:
  enum class Result { kCommand, kEnd, kTruncated, kBadFormat };

  // Reads from offset start of data (offsets stay relative to data).
  explicit AofCommandReader(std::string_view data, size_t start = 0)
      : data_(data), valid_(start) {}
  // kCommand: *args views into the data. kTruncated: the data ends inside a command or
  // annotation. kBadFormat: what is at error_offset() is not AOF.
  Result Next(std::vector<std::string_view>* args);
  // Offset of the first byte after the last complete command or annotation.
  size_t valid_up_to() const { return valid_; }
  size_t error_offset() const { return error_offset_; }
  // Start of the last command returned.
  size_t command_start() const { return command_start_; }

 private:
  bool ReadLine(size_t* pos, std::string_view* line) const;

  std::string_view data_;
  size_t valid_ = 0;
  size_t error_offset_ = 0;
  size_t command_start_ = 0;
};

enum class AofLoadStatus { kNotExist, kOk, kFailed };

// Loads the AOF of server's config (manifest in dir/appenddirname). kNotExist when there is
// no manifest. A pre-7 single-file AOF (`appendfilename` in dir, no manifest) is first
// upgraded as Valkey 7 does: moved into appenddirname as the base, a manifest written. kFailed with *error naming the file and offset: the server must not start.
// A torn last command of the last file is cut off (the file truncated there) when
// aof-load-truncated is yes. *total_size: bytes of all its files. serve_clients: clients get
// LOADING replies while it loads (start-up), instead of waiting (DEBUG LOADAOF).
AofLoadStatus LoadAofFiles(Server& server, std::string* error, int64_t* total_size,
                           bool serve_clients);

// Start-up with appendonly yes: loads the AOF (not the RDB: Valkey ignores it then), then
// opens it for appending (Aof::Start). False with *error: the server must not start.
bool StartAofAtStartup(Server& server, std::string* error);

// DEBUG LOADAOF: writes out the AOF buffer, empties the databases and loads the AOF back.
bool ReloadAof(Server& server, std::string* error);

}  // namespace vireo
