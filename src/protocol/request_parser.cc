#include "protocol/request_parser.h"

#include <cstdio>
#include <cstring>

#include "common/numbers.h"
#include "common/split_args.h"

namespace vireo {
namespace {

// Unauthenticated clients may not make the server buffer much (as Valkey).
constexpr int64_t kUnauthMaxMultibulk = 10;
constexpr int64_t kUnauthMaxBulk = 16384;

}  // namespace

void RequestParser::Reset() {
  pos_ = 0;
  expected_args_ = -1;
  bulk_len_ = -1;
  spans_.clear();
  detached_ = nullptr;
}

void RequestParser::TakeBulkFrom(const char* data) {
  spans_.emplace_back(kDetached, static_cast<size_t>(bulk_len_));
  detached_ = data;
  bulk_len_ = -1;
}

size_t RequestParser::BytesWanted() const {
  return bulk_len_ >= 0 ? pos_ + static_cast<size_t>(bulk_len_) + 2 : 0;
}

RequestParser::Result RequestParser::Parse(const char* data, size_t len, const ParserLimits& limits,
                                           size_t* consumed, std::vector<std::string_view>* args) {
  args->clear();
  *consumed = 0;
  if (len == 0) return Result::kIncomplete;
  if (pos_ == 0 && data[0] == '*' && ParseWhole(data, len, limits, consumed, args)) {
    return Result::kCommand;
  }
  if (pos_ != 0 || data[0] == '*') return ParseMultibulk(data, len, limits, consumed, args);
  return ParseInline(data, len, limits, consumed, args);
}

namespace {

// Reads a canonical decimal of at most 18 digits at *p that "\r" and one more byte follow;
// moves *p past the line. Anything else is left to the general parser.
inline bool ReadShortCount(const char** p, const char* end, int64_t* out) {
  // Counts of one or two digits are nearly all of them (argument counts, command names, keys).
  const char* s = *p;
  if (end - s >= 4) {
    unsigned d0 = static_cast<unsigned char>(s[0]) - '0';
    unsigned d1 = static_cast<unsigned char>(s[1]) - '0';
    if (d0 < 10 && s[1] == '\r') {
      *out = d0;
      *p = s + 3;
      return true;
    }
    if (d0 - 1 < 9 && d1 < 10 && s[2] == '\r') {
      *out = d0 * 10 + d1;
      *p = s + 4;
      return true;
    }
  }
  const char* digits = *p;
  const char* q = digits;
  int64_t v = 0;
  while (q < end && q - digits < 18 && static_cast<unsigned char>(*q - '0') < 10) {
    v = v * 10 + (*q - '0');
    ++q;
  }
  if (q == digits || q + 1 >= end || *q != '\r' || (*digits == '0' && q != digits + 1)) {
    return false;
  }
  *out = v;
  *p = q + 2;
  return true;
}

}  // namespace

bool RequestParser::ParseWhole(const char* data, size_t len, const ParserLimits& limits,
                               size_t* consumed, std::vector<std::string_view>* args) {
  const char* p = data + 1;
  const char* end = data + len;
  int64_t n;
  if (!ReadShortCount(&p, end, &n) || n <= 0 || n > limits.max_multibulk ||
      (!limits.authenticated && n > kUnauthMaxMultibulk)) {
    return false;
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t blen;
    if (p >= end || *p != '$') break;
    ++p;
    if (!ReadShortCount(&p, end, &blen) || blen > limits.max_bulk_len ||
        (!limits.authenticated && blen > kUnauthMaxBulk) ||
        end - p < blen + 2) {
      break;
    }
    args->emplace_back(p, static_cast<size_t>(blen));
    p += blen + 2;
  }
  if (static_cast<int64_t>(args->size()) != n) {
    args->clear();
    return false;
  }
  *consumed = static_cast<size_t>(p - data);
  return true;
}

RequestParser::Result RequestParser::ParseInline(const char* data, size_t len,
                                                 const ParserLimits& limits, size_t* consumed,
                                                 std::vector<std::string_view>* args) {
  const char* nl = static_cast<const char*>(memchr(data, '\n', len));
  if (nl == nullptr) {
    if (len > limits.max_inline) {
      error_ = "Protocol error: too big inline request";
      return Result::kError;
    }
    return Result::kIncomplete;
  }
  size_t line_len = static_cast<size_t>(nl - data);
  *consumed = line_len + 1;
  if (line_len > 0 && data[line_len - 1] == '\r') --line_len;
  if (!SplitQuotedArgs(std::string_view(data, line_len), &inline_storage_, args)) {
    args->clear();
    error_ = "Protocol error: unbalanced quotes in request";
    return Result::kError;
  }
  return args->empty() ? Result::kEmpty : Result::kCommand;
}

RequestParser::Result RequestParser::ParseMultibulk(const char* data, size_t len,
                                                    const ParserLimits& limits, size_t* consumed,
                                                    std::vector<std::string_view>* args) {
  // Finds the "\r\n"-terminated line starting at pos_ (type byte included). Returns 1 with
  // the number after the type byte in *value (*ok false when it is not a valid integer) and
  // pos_ moved past the line, 0 when the line has not fully arrived, -1 when it is too long.
  auto read_number_line = [&](int64_t* value, bool* ok, const char* too_big) -> int {
    const char* start = data + pos_;
    // Fast path for the usual line: a short canonical count right before "\r\n", parsed in
    // the same pass that finds the end of line.
    {
      const char* end = data + len;
      const char* digits = start + 1;
      const char* q = digits;
      int64_t v = 0;
      while (q < end && q - digits < 18 && static_cast<unsigned char>(*q - '0') < 10) {
        v = v * 10 + (*q - '0');
        ++q;
      }
      if (q > digits && q + 1 < end && *q == '\r' && (*digits != '0' || q == digits + 1)) {
        *value = v;
        *ok = true;
        pos_ = static_cast<size_t>(q - data) + 2;
        return 1;
      }
    }
    const char* cr = static_cast<const char*>(memchr(start, '\r', len - pos_));
    if (cr == nullptr) {
      if (len - pos_ > limits.max_inline) {
        error_ = too_big;
        return -1;
      }
      return 0;
    }
    // The '\n' after '\r' must have arrived too (Valkey does not check that it is one).
    if (static_cast<size_t>(cr - data) + 1 >= len) return 0;
    // A bare "\r\n" (no type byte) has no number; its type byte is refused by the caller.
    *ok = cr > start &&
          ParseInt64(std::string_view(start + 1, static_cast<size_t>(cr - start - 1)), value);
    pos_ = static_cast<size_t>(cr - data) + 2;
    return 1;
  };

  if (expected_args_ < 0) {
    int64_t n = 0;
    bool ok = false;
    int r = read_number_line(&n, &ok, "Protocol error: too big mbulk count string");
    if (r < 0) return Result::kError;
    if (r == 0) return Result::kIncomplete;
    if (!ok || n > limits.max_multibulk) {
      error_ = "Protocol error: invalid multibulk length";
      Reset();
      return Result::kError;
    }
    if (!limits.authenticated && n > kUnauthMaxMultibulk) {
      error_ = "Protocol error: unauthenticated multibulk length";
      Reset();
      return Result::kError;
    }
    if (n <= 0) {
      *consumed = pos_;
      Reset();
      return Result::kEmpty;
    }
    expected_args_ = n;
    spans_.clear();
    spans_.reserve(static_cast<size_t>(n < 1024 ? n : 1024));
  }

  while (static_cast<int64_t>(spans_.size()) < expected_args_) {
    if (bulk_len_ < 0) {
      if (pos_ >= len) return Result::kIncomplete;
      // Like Valkey, the type byte is judged only once its whole line is there.
      const size_t line_start = pos_;
      int64_t blen = 0;
      bool ok = false;
      int r = read_number_line(&blen, &ok, "Protocol error: too big bulk count string");
      if (r < 0) {
        Reset();
        return Result::kError;
      }
      if (r == 0) return Result::kIncomplete;
      if (data[line_start] != '$') {
        snprintf(error_buf_, sizeof(error_buf_), "Protocol error: expected '$', got '%c'",
                 data[line_start]);
        error_ = error_buf_;
        Reset();
        return Result::kError;
      }
      if (!ok || blen < 0 || blen > limits.max_bulk_len) {
        error_ = "Protocol error: invalid bulk length";
        Reset();
        return Result::kError;
      }
      if (!limits.authenticated && blen > kUnauthMaxBulk) {
        error_ = "Protocol error: unauthenticated bulk length";
        Reset();
        return Result::kError;
      }
      bulk_len_ = blen;
    }
    // Valkey skips the two bytes after a bulk without checking them; so do we.
    const size_t need = static_cast<size_t>(bulk_len_) + 2;
    if (len - pos_ < need) return Result::kIncomplete;
    spans_.emplace_back(pos_, static_cast<size_t>(bulk_len_));
    pos_ += need;
    bulk_len_ = -1;
  }

  args->reserve(spans_.size());
  for (const auto& [off, n] : spans_) {
    args->emplace_back(off == kDetached ? detached_ : data + off, n);
  }
  *consumed = pos_;
  Reset();
  return Result::kCommand;
}

}  // namespace vireo
