// Client-side RESP2/RESP3 reply parsing for vireo-cli and vireo-benchmark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vireo::tools {

// A parsed reply. Aggregates keep their children in `elements` (a map's as k1, v1, k2, v2...;
// attributes are parsed and dropped, as valkey-cli shows them).
struct Reply {
  enum class Type {
    kStatus,     // +OK
    kError,      // -ERR ... / !<len> bulk error
    kInteger,    // :1
    kString,     // $3 foo (bulk)
    kNil,        // $-1, *-1, _
    kArray,      // *N
    kMap,        // %N
    kSet,        // ~N
    kPush,       // >N
    kDouble,     // ,1.5  (str holds the text as sent)
    kBool,       // #t / #f (integer holds 1/0)
    kBigNumber,  // (123... (str holds the digits)
    kVerbatim,   // =N txt:... (str holds the text without "txt:", format holds "txt")
  };
  Type type = Type::kNil;
  int64_t integer = 0;
  std::string str;     // status/error/string/double/bignum/verbatim text
  std::string format;  // verbatim format
  std::vector<Reply> elements;

  bool IsAggregate() const {
    return type == Type::kArray || type == Type::kMap || type == Type::kSet || type == Type::kPush;
  }
};

// Incremental parser: feed it the unconsumed front of a receive buffer.
class RespReader {
 public:
  enum class Result { kReply, kIncomplete, kError };

  // Aggregates nested deeper than this are refused as malformed (the reply tree is freed
  // recursively, so depth must stay bounded).
  static constexpr size_t kMaxDepth = 128;

  // Parses one complete reply from data[0..len). On kReply sets *consumed and, if out is not
  // null, fills *out (with out == nullptr the reply is only delimited: the fast path for the
  // benchmark, which also reports whether the top-level reply was an error via *is_error when
  // given, and its text via *error_text for MOVED/ASK). kIncomplete: call again with more bytes
  // (same prefix). kError: malformed stream, Error() says why.
  //
  // The reader remembers how far it got between kIncomplete calls, so a large reply arriving
  // in many pieces is scanned once; the buffer may move between calls, but its first bytes
  // must stay the same. Call Reset() before parsing an unrelated buffer (e.g. after a
  // reconnect) while a reply was incomplete.
  Result Parse(const char* data, size_t len, size_t* consumed, Reply* out, bool* is_error = nullptr,
               std::string* error_text = nullptr);
  std::string_view Error() const { return error_; }

  // Drops any partially parsed reply.
  void Reset();

 private:
  // One open aggregate on the path from the root to the element being parsed.
  struct Frame {
    Reply* node;        // null on the fast path
    int64_t remaining;  // children still to come
    bool attribute;     // an attribute: dropped, and does not count as its parent's child
  };
  enum class Step { kProgress, kDone, kIncomplete, kError };

  Step ParseOne(const char* data, size_t len);
  Reply* NewSlot();
  // Called after a value at the current depth is complete; returns true when the whole reply
  // is.
  bool CompleteValue();
  Result Fail(std::string why);

  std::string error_;
  // Progress of the reply in flight.
  size_t pos_ = 0;
  bool in_flight_ = false;
  bool building_ = false;
  bool top_is_error_ = false;
  std::string top_error_;
  Reply root_;
  std::vector<Frame> stack_;
  std::deque<Reply> attributes_;  // scratch nodes for attributes (stable addresses)
};

}  // namespace vireo::tools
