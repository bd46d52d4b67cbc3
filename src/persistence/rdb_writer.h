// Writing the RDB format: primitives (lengths, strings with integer and LZF encodings,
// binary doubles), one value of any type (files and DUMP payloads), and whole files.
// Vireo writes RDB version 10, so Redis 7.0 loads its files: lists as quicklist 2 nodes,
// small hashes and sorted sets as listpacks, intsets as intsets, other sets, large hashes and
// large sorted sets generically, streams as listpack nodes (type "stream listpacks 2").
// Hash field TTLs have no representation in version 10: the fields are written without them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/config.h"
#include "store/db.h"
#include "store/entry.h"

namespace vireo {

struct RdbWriteOptions {
  bool compress = true;  // rdbcompression: LZF for strings over 20 bytes
  bool checksum = true;  // rdbchecksum: CRC64 at the end (0 when off)
  // Stream node size for the listpacks written (stream-node-max-entries / -bytes).
  uint64_t stream_node_max_entries = 100;
  uint64_t stream_node_max_bytes = 4096;
};

// Where an RdbWriter's bytes go instead of a file descriptor (a snapshot's writer thread). The
// sink takes the bytes (it may swap the string out) and keeps the CRC64 itself.
class RdbSink {
 public:
  virtual ~RdbSink() = default;
  // False on a failure already known (the writer then stops producing).
  virtual bool Consume(std::string* bytes) = 0;
};

// The options as the config sets them (rdbcompression, rdbchecksum, stream node sizes).
RdbWriteOptions RdbWriteOptionsFrom(const Config& c);

// Builds RDB bytes in a buffer; with a file descriptor the buffer is written out whenever it
// grows past 1 MB (and by Flush), the CRC64 following the bytes written. Write errors are
// sticky: check failed() / Flush()'s result at the end.
class RdbWriter {
 public:
  // fd < 0: everything stays in buffer() (DUMP).
  RdbWriter(int fd, const RdbWriteOptions& options);
  // Bytes go to sink, whenever the buffer grows past 1 MB and on Flush. Crc() is not
  // available: the sink computes it.
  RdbWriter(RdbSink* sink, const RdbWriteOptions& options);

  void Raw(const void* data, size_t n);
  void Byte(uint8_t b) { buf_.push_back(static_cast<char>(b)); }
  void Length(uint64_t len);
  // A string, as an integer encoding when it is short canonical int32 text, LZF-compressed
  // when that is on and saves space.
  void String(std::string_view s);
  void Int(int64_t v);                       // as a string (integer encoding when it fits)
  void MillisecondTime(int64_t ms);          // 8 bytes little-endian
  void BinaryDouble(double d);               // 8 bytes little-endian IEEE 754
  void StreamId(uint64_t ms, uint64_t seq);  // 16 bytes big-endian (PEL entries)

  // The value's type byte, and the value itself (as in a file and a DUMP payload).
  static uint8_t TypeOf(const Entry* e);
  void Value(const Entry* e);

  // Writes out the buffer (fd mode); false on a write error (errno kept in error()).
  bool Flush();
  bool failed() const { return failed_; }
  const std::string& error() const { return error_; }
  // CRC64 of every byte so far (flushed or not).
  uint64_t Crc();
  std::string& buffer() { return buf_; }

 private:
  void MaybeFlush() {
    if ((fd_ >= 0 || sink_ != nullptr) && buf_.size() >= (1u << 20)) Flush();
  }
  void ListValue(const Entry* e);
  void SetValue(const Entry* e);
  void ZSetValue(const Entry* e);
  void HashValue(const Entry* e);
  void StreamValue(const Entry* e);

  int fd_;
  RdbSink* sink_ = nullptr;
  RdbWriteOptions opt_;
  std::string buf_;
  std::string scratch_;  // LZF output
  uint64_t crc_ = 0;     // of the bytes already written out
  bool failed_ = false;
  std::string error_;
};

// Auxiliary fields written after the header.
struct RdbAuxInfo {
  std::string version;  // redis-ver
  int64_t used_mem = 0;
  bool aof_base = false;
  std::vector<std::string> functions;  // every function library's code
  // Replication history at the snapshot's point (repl-id, repl-offset), so a replica restarted
  // from this file can continue with PSYNC; written when repl_id is set.
  std::string repl_id;
  int64_t repl_offset = 0;
};

// The parts of a file, for writers that produce it piecewise (persistence/cow_snapshot):
// magic and aux fields; SELECTDB (and RESIZEDB when sizes are given); one key with its expiry.
void WriteRdbHeader(RdbWriter& w, const RdbAuxInfo& aux);
void WriteRdbSelectDb(RdbWriter& w, int index, uint64_t size, uint64_t volatile_count,
                      bool resize);
void WriteRdbKey(RdbWriter& w, const Entry* e);
// What WriteRdbKey writes before the value: the expiry, the type byte and the key.
void WriteRdbKeyHeader(RdbWriter& w, const Entry* e);

// Writes a complete RDB file (header, aux fields, every database, EOF, checksum) to fd.
// Returns false with *error on a write error. Runs in the BGSAVE child too: it reads the
// keyspace only.
bool WriteRdb(int fd, const std::vector<Db*>& dbs, const RdbWriteOptions& options,
              const RdbAuxInfo& aux, std::string* error);

// A DUMP payload: type byte, value, RDB version (2 bytes LE), CRC64 (8 bytes LE).
std::string DumpPayload(const Entry* e, const RdbWriteOptions& options);

// A FUNCTION DUMP payload: each library's code after the FUNCTION2 opcode, as in a file,
// then the RDB version and CRC64 as in a DUMP payload.
std::string FunctionsPayload(const std::vector<std::string>& codes);

}  // namespace vireo
