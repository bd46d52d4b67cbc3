// Reading the RDB format (versions 1 to 11, every encoding Redis 7.2 / Valkey 8 write, no
// modules): primitives over an in-memory image, one value of any type, whole files and DUMP
// payloads. Every length is checked against the bytes left; the first problem is recorded
// with its byte offset and everything after it fails, so a corrupt image is refused, never
// half loaded and never overrun.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "server/config.h"
#include "store/db.h"
#include "store/entry.h"
#include "store/hash_value.h"
#include "store/list_value.h"
#include "store/set_value.h"
#include "store/stream.h"
#include "store/zset_value.h"

namespace vireo {

// Encoding thresholds for the values built while loading (from the config).
struct RdbLoadLimits {
  ListLimits list;
  hash::Limits hash;
  SetLimits set;
  ZSetLimits zset;
  StreamNodeLimits stream;
};
RdbLoadLimits RdbLoadLimitsFrom(const Config& c);

class RdbReader {
 public:
  RdbReader(const unsigned char* data, size_t size) : p_(data), begin_(data), end_(data + size) {}

  bool Byte(uint8_t* b);
  bool Raw(void* out, size_t n);
  // A length; *encoded (optional) is set for the 11xxxxxx special string encodings, whose
  // kind is then returned in *len.
  bool Length(uint64_t* len, bool* encoded = nullptr);
  bool String(std::string* out);
  // The same string without a copy when it is stored plainly: *view points into the data
  // (valid as long as it is); an encoded one is decoded into *scratch, which *view shows.
  bool StringRef(std::string_view* view, std::string* scratch);
  bool MillisecondTime(int64_t* ms);  // 8 bytes LE
  bool Seconds(int32_t* s);           // 4 bytes LE
  bool BinaryDouble(double* d);
  bool TextDouble(double* d);   // old ZSET scores: length byte, text; 253-255 NaN/+inf/-inf
  bool StreamId(StreamID* id);  // 16 bytes BE

  // Records the first failure (at the current offset) and returns false.
  bool Fail(const std::string& what);
  bool failed() const { return failed_; }
  const std::string& error() const { return error_; }
  size_t error_offset() const { return error_offset_; }
  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

 private:
  // The 11xxxxxx encodings (integers, LZF) of a string, decoded into *out.
  bool StringDecoded(uint64_t encoding, std::string* out);

  const unsigned char* p_;
  const unsigned char* begin_;
  const unsigned char* end_;
  bool failed_ = false;
  std::string error_;
  size_t error_offset_ = 0;
};

enum class RdbValueStatus { kOk, kEmpty, kError };

// Reads one value of RDB type `type` into a new, unlinked entry named key (no expiry yet;
// with_expire reserves room for the one the caller is about to set).
// kEmpty: a well-formed empty collection (skipped as Valkey does); kError: see r.error().
RdbValueStatus ReadRdbValue(RdbReader& r, uint8_t type, std::string_view key,
                            const RdbLoadLimits& limits, Entry** out,
                            bool with_expire = false);

struct RdbLoadStats {
  uint64_t keys_loaded = 0;
  uint64_t keys_expired = 0;  // already expired at load time, left out
  int version = 0;
  std::vector<std::string> functions;  // function libraries' code, for the caller to load
  std::string repl_id;  // the repl-id / repl-offset aux fields, when present
  int64_t repl_offset = -1;
};

// Called about every `every` bytes while a file loads, with the offset reached: the server
// answers its clients between the parts of a long load. Returning false stops the load
// (a shutdown), which then fails.
struct LoadProgress {
  size_t every = 0;
  std::function<bool(size_t done)> fn;
  int64_t key_delay_us = 0;  // key-load-delay: tests slow a load down to watch it
};

// Loads a whole RDB image into dbs (keys already present make the load fail). Keys whose
// expiry is before now_ms are skipped. The checksum, when the file has one, is verified
// before anything is loaded. On failure *error says what and at which byte offset; the
// databases may then hold part of the file (the caller refuses to go on).
// With rdb_size, data may go on after the RDB (an AOF's RDB preamble followed by commands):
// *rdb_size is set to the RDB's length, and the checksum is verified once its end is found.
bool LoadRdb(const unsigned char* data, size_t size, const std::vector<Db*>& dbs,
             const RdbLoadLimits& limits, int64_t now_ms, RdbLoadStats* stats, std::string* error,
             size_t* rdb_size = nullptr, const LoadProgress* progress = nullptr);

// RESTORE: whether the footer's version is one we read and its CRC64 matches.
bool VerifyDumpPayload(std::string_view payload);
// The payload's value as a new unlinked entry named key; nullptr on bad data (empty too).
Entry* LoadDumpPayload(std::string_view payload, std::string_view key, const RdbLoadLimits& limits);
// FUNCTION RESTORE: the libraries' code held in a payload; false with *error (Valkey's reply
// text) when it is damaged or holds anything else.
bool ReadFunctionsPayload(std::string_view payload, std::vector<std::string>* codes,
                          std::string* error);

}  // namespace vireo
