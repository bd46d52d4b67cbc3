#include "store/stream_id.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/numbers.h"

namespace vireo {

bool IncrStreamId(StreamID* id) {
  if (id->seq != UINT64_MAX) {
    ++id->seq;
    return true;
  }
  if (id->ms == UINT64_MAX) {
    *id = kMinStreamId;
    return false;
  }
  ++id->ms;
  id->seq = 0;
  return true;
}

bool DecrStreamId(StreamID* id) {
  if (id->seq != 0) {
    --id->seq;
    return true;
  }
  if (id->ms == 0) {
    *id = kMaxStreamId;
    return false;
  }
  --id->ms;
  id->seq = UINT64_MAX;
  return true;
}

namespace {

size_t FormatU64(char* buf, uint64_t v) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (size_t i = 0; i < n; ++i) buf[i] = tmp[n - 1 - i];
  return n;
}

// Valkey's string2ull: a strict int64 first, then strtoull on the C string (which accepts
// leading spaces, a sign and leading zeros).
bool ParseU64Loose(const char* s, uint64_t* out) {
  int64_t v;
  if (ParseInt64(s, &v)) {
    if (v < 0) return false;
    *out = static_cast<uint64_t>(v);
    return true;
  }
  if (*s == '\0') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long u = strtoull(s, &end, 10);
  if (errno == EINVAL || errno == ERANGE || *end != '\0') return false;
  *out = u;
  return true;
}

}  // namespace

size_t FormatStreamIdTo(char* buf, StreamID id) {
  size_t n = FormatU64(buf, id.ms);
  buf[n++] = '-';
  return n + FormatU64(buf + n, id.seq);
}

std::string FormatStreamId(StreamID id) {
  char buf[kStreamIdMaxLen];
  return std::string(buf, FormatStreamIdTo(buf, id));
}

bool ParseStreamId(std::string_view s, StreamID* id, uint64_t missing_seq, bool strict,
                   bool* seq_given) {
  // Valkey copies the argument into a 128-byte C buffer: longer is invalid, and an embedded
  // NUL ends the text.
  char buf[128];
  if (s.size() > sizeof(buf) - 1) return false;
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  if (strict && (buf[0] == '-' || buf[0] == '+') && buf[1] == '\0') return false;
  if (seq_given != nullptr) *seq_given = true;
  if (buf[0] == '-' && buf[1] == '\0') {
    *id = kMinStreamId;
    return true;
  }
  if (buf[0] == '+' && buf[1] == '\0') {
    *id = kMaxStreamId;
    return true;
  }
  char* dash = std::strchr(buf, '-');
  if (dash != nullptr) *dash = '\0';
  uint64_t ms, seq;
  if (!ParseU64Loose(buf, &ms)) return false;
  if (dash != nullptr) {
    const char* tail = dash + 1;
    if (seq_given != nullptr && tail[0] == '*' && tail[1] == '\0') {
      seq = 0;
      *seq_given = false;
    } else if (!ParseU64Loose(tail, &seq)) {
      return false;
    }
  } else {
    seq = missing_seq;
  }
  id->ms = ms;
  id->seq = seq;
  return true;
}

bool ParseStreamIntervalId(std::string_view s, StreamID* id, bool* exclusive,
                           uint64_t missing_seq) {
  *exclusive = s.size() > 1 && s[0] == '(';
  if (*exclusive) return ParseStreamId(s.substr(1), id, missing_seq, true);
  return ParseStreamId(s, id, missing_seq, false);
}

}  // namespace vireo
