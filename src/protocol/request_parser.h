// Incremental RESP request parser (multibulk and inline), zero-copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

struct ParserLimits {
  int64_t max_bulk_len = 512LL * 1024 * 1024;  // proto-max-bulk-len
  int64_t max_multibulk = INT32_MAX;           // arguments per command, as Valkey
  size_t max_inline = 64 * 1024;               // inline command / length-line size
  bool authenticated = true;  // unauthenticated clients get tighter limits, as in Valkey
};

// Parses one command at a time from the unconsumed front of a connection's read buffer.
// The parser remembers how far it got inside an incomplete command (as offsets relative to
// the command's first byte), so the caller may move or grow the buffer between calls as long
// as the unconsumed bytes stay at the front. Any split of the byte stream gives the same
// commands.
class RequestParser {
 public:
  enum class Result { kCommand, kIncomplete, kEmpty, kError };

  // On kCommand: *args holds views into data valid until the buffer changes, *consumed the
  // command's byte length. On kEmpty: an empty command (blank inline line, "*0") of *consumed
  // bytes was skipped. On kError: Error() gives Valkey's text without the "ERR " prefix.
  Result Parse(const char* data, size_t len, const ParserLimits& limits, size_t* consumed,
               std::vector<std::string_view>* args);

  std::string_view Error() const { return error_; }
  // True while inside a multibulk command whose bytes have not all arrived.
  bool InProgress() const { return pos_ != 0; }
  // While a bulk argument is being read: the length, from the command's first byte, that the
  // unconsumed input must reach to complete it (to size the read buffer); otherwise 0.
  size_t BytesWanted() const;
  // While a bulk argument's bytes are awaited: its offset from the command's first byte and
  // its length (without the CRLF); false otherwise.
  bool PendingBulk(size_t* offset, size_t* len) const {
    if (bulk_len_ < 0) return false;
    *offset = pos_;
    *len = static_cast<size_t>(bulk_len_);
    return true;
  }
  // The pending bulk (PendingBulk) and its CRLF are at `data`, outside the input: the
  // argument is a view there and parsing goes on with the input after the bulk's header
  // (a big argument read into its own buffer, net/connection.h). One per command.
  void TakeBulkFrom(const char* data);
  // Whether the command being parsed already has such an argument.
  bool HasDetachedBulk() const { return detached_ != nullptr; }

 private:
  // One-pass parse of a complete, ordinary multibulk command (the common case in pipelines);
  // false, with nothing changed, for anything incomplete or unusual.
  bool ParseWhole(const char* data, size_t len, const ParserLimits& limits, size_t* consumed,
                  std::vector<std::string_view>* args);
  Result ParseMultibulk(const char* data, size_t len, const ParserLimits& limits, size_t* consumed,
                        std::vector<std::string_view>* args);
  Result ParseInline(const char* data, size_t len, const ParserLimits& limits, size_t* consumed,
                     std::vector<std::string_view>* args);
  void Reset();

  // State of a partially parsed multibulk command, relative to its first byte.
  size_t pos_ = 0;                                // where parsing resumes
  int64_t expected_args_ = -1;                    // from the "*N" line
  int64_t bulk_len_ = -1;                         // from the current "$N" line, -1 when before it
  std::vector<std::pair<size_t, size_t>> spans_;  // (offset, length) of parsed args
  static constexpr size_t kDetached = static_cast<size_t>(-1);  // span offset: at detached_
  const char* detached_ = nullptr;
  std::string inline_storage_;                    // unescaped inline args (views point into it)
  const char* error_ = "";
  char error_buf_[64];  // for errors that quote the input
};

}  // namespace vireo
