// Builds RESP2/RESP3 replies by appending to a connection's output buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/connection.h"

namespace vireo {

// Appends replies to *out in the protocol version chosen by the client (HELLO). Aggregate
// types that RESP2 lacks degrade the way Valkey degrades them: maps become flat arrays, sets
// arrays, doubles bulk strings, booleans integers, nulls "$-1"/"*-1".
// Called with the text of every error reply (INFO errorstats); set once by the server.
using ErrorReplyHook = void (*)(std::string_view msg);
void SetErrorReplyHook(ErrorReplyHook hook);

class ReplyBuilder {
 public:
  explicit ReplyBuilder(std::string* out) : out_(out) {}

  void SetOutput(std::string* out) { out_ = out; }
  std::string* Output() const { return out_; }
  // The connection whose Output() this builder normally fills: replies built there may point
  // at large values instead of copying them (BulkRef).
  void SetConnection(Connection* conn) { conn_ = conn; }
  // Whether a reply built now goes straight to the connection's output, uncapped.
  bool CanReference() const {
    return conn_ != nullptr && out_ == conn_->Output() && limit_ == static_cast<size_t>(-1);
  }
  // A bulk string of ref's bytes, sent from where they are (requires CanReference()).
  void BulkRef(const OutputRef& ref);

  void SetResp3(bool resp3) { resp3_ = resp3; }
  bool Resp3() const { return resp3_; }

  void Ok() { out_->append("+OK\r\n", 5); }
  void Simple(std::string_view s);
  // msg is the full error text, e.g. "ERR syntax error" or "WRONGTYPE ..."; no '-' or CRLF.
  void Error(std::string_view msg);
  void Integer(int64_t v);
  void Bulk(std::string_view s);
  void BulkInt(int64_t v);  // an integer sent as a bulk string
  void Null();              // nil bulk: "$-1" / "_"
  void NullArray();         // nil array: "*-1" / "_"
  void Array(size_t n);
  void Map(size_t pairs);   // RESP2: array of 2*pairs
  void Set(size_t n);       // RESP2: array
  void Push(size_t n);      // RESP2: array
  void Double(double v);    // RESP2: bulk with Valkey's formatting
  void Bool(bool v);        // RESP2: integer 1/0
  void BigNumber(std::string_view digits);  // RESP2: bulk
  void Verbatim(std::string_view format, std::string_view text);  // RESP2: bulk
  void EmptyArray() { out_->append("*0\r\n", 4); }
  void Raw(std::string_view bytes) { out_->append(bytes); }

  // A cap on the output's size, for replies whose size a script decides (a script's reply,
  // the commands it calls): text that would take the output past `limit` is not appended and
  // Overflowed() turns true; the caller then discards the output. Bulks, statuses, errors,
  // big numbers and verbatims are checked, the only replies that can repeat one large value.
  void SetSizeLimit(size_t limit) {
    limit_ = limit;
    overflowed_ = false;
  }
  bool Overflowed() const { return overflowed_; }

 private:
  void Header(char type, int64_t n);
  bool Fits(size_t n) {
    if (out_->size() + n <= limit_) [[likely]] return true;
    overflowed_ = true;
    return false;
  }

  std::string* out_;
  Connection* conn_ = nullptr;
  size_t limit_ = static_cast<size_t>(-1);
  bool resp3_ = false;
  bool overflowed_ = false;
};

}  // namespace vireo
