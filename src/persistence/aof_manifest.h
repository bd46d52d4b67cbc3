// The multi-part AOF manifest of Valkey 7+: which files, in `appenddirname`, make up the AOF.
// One line per file, `file <name> seq <n> type <b|i|h>`: at most one base (an RDB or an AOF),
// incremental files in increasing sequence, and history files waiting for deletion. File
// names follow `<appendfilename>.<seq>.base.rdb|aof` and `<appendfilename>.<seq>.incr.aof`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

struct AofFileInfo {
  std::string name;
  int64_t seq = 0;
  char type = 'i';  // 'b' base, 'i' incremental, 'h' history
};

struct AofManifest {
  std::optional<AofFileInfo> base;
  std::vector<AofFileInfo> incrs;    // in sequence order
  std::vector<AofFileInfo> history;  // superseded files, deleted once the manifest is durable
  int64_t base_seq = 0;  // highest sequence used for a base, and for an incremental file
  int64_t incr_seq = 0;
};

// Parses manifest text. False with *error (Valkey's wording) on a malformed line, a second
// base, a non-increasing incremental sequence, an unknown type or an empty manifest.
bool ParseAofManifest(std::string_view text, AofManifest* out, std::string* error);
// The manifest as text: base first, then history, then incremental files.
std::string FormatAofManifest(const AofManifest& m);

// File names.
std::string AofManifestName(std::string_view appendfilename);
std::string AofBaseName(std::string_view appendfilename, int64_t seq, bool rdb);
std::string AofIncrName(std::string_view appendfilename, int64_t seq);
// The incremental file written while `CONFIG SET appendonly yes` waits for its first rewrite.
std::string AofTempIncrName(std::string_view appendfilename);

// A new base (sequence base_seq + 1); the old one becomes history.
std::string AofNewBase(AofManifest* m, std::string_view appendfilename, bool rdb);
// A new incremental file (sequence incr_seq + 1) appended to the list.
std::string AofNewIncr(AofManifest* m, std::string_view appendfilename);
// After a rewrite: every incremental file but the last becomes history.
void AofIncrsToHistory(AofManifest* m, bool keep_last);

// Writes the manifest durably: a temp file in dir, fsync, rename, fsync of dir.
bool PersistAofManifest(const std::string& dir, std::string_view appendfilename,
                        const AofManifest& m, std::string* error);

}  // namespace vireo
