#include "common/resp_reader.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "common/numbers.h"

namespace vireo::tools {
namespace {

// Finds the CRLF ending the line that starts at p; null if the line is not complete yet. A lone
// '\r' inside the line is part of it, as in hiredis.
const char* FindCrlf(const char* p, const char* end) {
  while (p < end) {
    const char* cr = static_cast<const char*>(memchr(p, '\r', end - p));
    if (cr == nullptr || cr + 1 >= end) return nullptr;
    if (cr[1] == '\n') return cr;
    p = cr + 1;
  }
  return nullptr;
}

// Counts and lengths: a strict decimal integer, -1 allowed (null), nothing below.
bool ParseLength(std::string_view s, int64_t* out) { return ParseInt64(s, out) && *out >= -1; }

bool ValidDouble(std::string_view s) {
  if (s.empty() || s.size() > 512) return false;
  std::string lower = ToLower(s);
  if (lower == "inf" || lower == "-inf" || lower == "+inf" || lower == "nan" || lower == "-nan") {
    return true;
  }
  std::string text(s);
  char* end = nullptr;
  strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && !isspace(static_cast<unsigned char>(text[0]));
}

bool ValidBigNumber(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A type byte as hiredis prints it in "Protocol error, got ... as reply type byte".
std::string DescribeByte(char c) {
  std::string out = "\"";
  switch (c) {
    case '\\':
    case '"':
      out += '\\';
      out += c;
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\a':
      out += "\\a";
      break;
    case '\b':
      out += "\\b";
      break;
    default:
      if (isprint(static_cast<unsigned char>(c))) {
        out += c;
      } else {
        char buf[8];
        snprintf(buf, sizeof(buf), "\\x%02x", static_cast<unsigned char>(c));
        out += buf;
      }
  }
  return out + "\"";
}

}  // namespace

void RespReader::Reset() {
  in_flight_ = false;
  pos_ = 0;
  stack_.clear();
  root_ = Reply();
  attributes_.clear();
  top_is_error_ = false;
  top_error_.clear();
}

RespReader::Result RespReader::Fail(std::string why) {
  error_ = std::move(why);
  Reset();
  return Result::kError;
}

RespReader::Result RespReader::Parse(const char* data, size_t len, size_t* consumed, Reply* out,
                                     bool* is_error, std::string* error_text) {
  const bool build = out != nullptr;
  if (in_flight_ && (build != building_ || len < pos_)) Reset();
  if (!in_flight_) {
    in_flight_ = true;
    building_ = build;
  }
  for (;;) {
    Step step = ParseOne(data, len);
    if (step == Step::kIncomplete) return Result::kIncomplete;
    if (step == Step::kError) return Fail(error_);
    if (step == Step::kDone) break;
  }
  *consumed = pos_;
  if (out != nullptr) *out = std::move(root_);
  if (is_error != nullptr) *is_error = top_is_error_;
  if (error_text != nullptr && top_is_error_) *error_text = std::move(top_error_);
  Reset();
  return Result::kReply;
}

Reply* RespReader::NewSlot() {
  if (!building_) return nullptr;
  if (stack_.empty()) return &root_;
  return &stack_.back().node->elements.emplace_back();
}

bool RespReader::CompleteValue() {
  while (!stack_.empty()) {
    Frame& frame = stack_.back();
    if (--frame.remaining > 0) return false;
    const bool attribute = frame.attribute;
    stack_.pop_back();
    // An attribute annotates the value after it, which is still to come.
    if (attribute) return false;
  }
  return true;
}

// Parses the next header or scalar at pos_: kProgress (pos_ moved on), kDone when that finished
// the whole reply, kError with error_ set, kIncomplete with pos_ unchanged.
RespReader::Step RespReader::ParseOne(const char* data, size_t len) {
  if (pos_ >= len) return Step::kIncomplete;
  const char* p = data + pos_;
  const char* end = data + len;
  const char* cr = FindCrlf(p + 1, end);
  if (cr == nullptr) return Step::kIncomplete;
  const char type = *p;
  const std::string_view line(p + 1, cr - p - 1);
  size_t used = cr + 2 - p;
  const bool top_level = stack_.empty();

  Reply scalar;
  switch (type) {
    case '+':
    case '-':
      scalar.type = type == '+' ? Reply::Type::kStatus : Reply::Type::kError;
      if (building_ || top_level) scalar.str.assign(line);
      break;
    case ':':
      if (!ParseInt64(line, &scalar.integer)) {
        error_ = "Bad integer value";
        return Step::kError;
      }
      scalar.type = Reply::Type::kInteger;
      break;
    case ',':
      if (!ValidDouble(line)) {
        error_ = "Bad double value";
        return Step::kError;
      }
      scalar.type = Reply::Type::kDouble;
      scalar.str.assign(line);
      break;
    case '#':
      if (line != "t" && line != "f") {
        error_ = "Bad bool value";
        return Step::kError;
      }
      scalar.type = Reply::Type::kBool;
      scalar.integer = line == "t" ? 1 : 0;
      break;
    case '_':
      if (!line.empty()) {
        error_ = "Bad nil value";
        return Step::kError;
      }
      scalar.type = Reply::Type::kNil;
      break;
    case '(':
      if (!ValidBigNumber(line)) {
        error_ = "Bad big number value";
        return Step::kError;
      }
      scalar.type = Reply::Type::kBigNumber;
      scalar.str.assign(line);
      break;
    case '$':
    case '!':
    case '=': {
      int64_t n;
      if (!ParseLength(line, &n) || (n < 0 && type != '$')) {
        error_ = "Bad bulk string length";
        return Step::kError;
      }
      if (n < 0) {
        scalar.type = Reply::Type::kNil;
        break;
      }
      const size_t body = static_cast<size_t>(n);
      const size_t avail = static_cast<size_t>(end - (cr + 2));
      if (body > avail || avail - body < 2) return Step::kIncomplete;
      const char* s = cr + 2;
      if (s[body] != '\r' || s[body + 1] != '\n') {
        error_ = "Bad bulk string terminator";
        return Step::kError;
      }
      used += body + 2;
      if (type == '=') {
        if (body < 4 || s[3] != ':') {
          error_ = "Bad verbatim string format";
          return Step::kError;
        }
        scalar.type = Reply::Type::kVerbatim;
        scalar.format.assign(s, 3);
        if (building_) scalar.str.assign(s + 4, body - 4);
      } else {
        scalar.type = type == '$' ? Reply::Type::kString : Reply::Type::kError;
        // The fast path still keeps top-level error texts (MOVED/ASK) for the benchmark.
        if (building_ || (type == '!' && top_level)) scalar.str.assign(s, body);
      }
      break;
    }
    case '*':
    case '%':
    case '~':
    case '>':
    case '|': {
      int64_t n;
      if (!ParseLength(line, &n)) {
        error_ = "Bad multi-bulk length";
        return Step::kError;
      }
      if (n < 0) {
        scalar.type = Reply::Type::kNil;
        break;
      }
      const bool pairs = type == '%' || type == '|';
      if (pairs && n > std::numeric_limits<int64_t>::max() / 2) {
        error_ = "Bad multi-bulk length";
        return Step::kError;
      }
      const int64_t children = pairs ? n * 2 : n;
      if (type == '|') {
        pos_ += used;
        if (children == 0) return Step::kProgress;
        if (stack_.size() >= kMaxDepth) {
          error_ = "Nesting too deep";
          return Step::kError;
        }
        Reply* scratch = building_ ? &attributes_.emplace_back() : nullptr;
        stack_.push_back(Frame{scratch, children, true});
        return Step::kProgress;
      }
      Reply::Type agg = type == '*'   ? Reply::Type::kArray
                        : type == '%' ? Reply::Type::kMap
                        : type == '~' ? Reply::Type::kSet
                                      : Reply::Type::kPush;
      if (children == 0) {
        scalar.type = agg;
        break;
      }
      if (stack_.size() >= kMaxDepth) {
        error_ = "Nesting too deep";
        return Step::kError;
      }
      Reply* node = NewSlot();
      if (node != nullptr) {
        node->type = agg;
        node->elements.reserve(static_cast<size_t>(std::min<int64_t>(children, 1024)));
      }
      stack_.push_back(Frame{node, children, false});
      pos_ += used;
      return Step::kProgress;
    }
    default:
      error_ = "Protocol error, got " + DescribeByte(type) + " as reply type byte";
      return Step::kError;
  }

  if (top_level && scalar.type == Reply::Type::kError) {
    top_is_error_ = true;
    top_error_ = scalar.str;
  }
  Reply* slot = NewSlot();
  if (slot != nullptr) *slot = std::move(scalar);
  pos_ += used;
  return CompleteValue() ? Step::kDone : Step::kProgress;
}

}  // namespace vireo::tools
