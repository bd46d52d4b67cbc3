#include "common/numbers.h"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace vireo {
namespace {

// Valkey copies string2ld input into a buffer of this size and refuses anything that does not
// fit with its terminator, so 5119 bytes is the longest INCRBYFLOAT operand.
constexpr size_t kMaxLongDoubleChars = 5 * 1024;

// memtoull copies the digits into a 128-byte buffer and fails when they do not fit, even when
// they are all leading zeros.
constexpr size_t kMaxMemoryDigits = 127;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// isspace() in the C locale, which is what Valkey runs its ctype calls under.
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// The magnitude of a strict decimal: a nonzero leading digit, digits only, at most `limit`.
// A lone "0" never reaches here; callers accept it before, which is how "00" and "-0" fail.
bool ParseMagnitude(std::string_view digits, uint64_t limit, uint64_t* out) {
  if (digits.empty() || digits[0] == '0') return false;
  uint64_t v = 0;
  for (char c : digits) {
    if (!IsDigit(c)) return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (limit - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

// strtod and strtold need a terminator that a string_view does not promise. Short inputs (all
// real-world numbers) stay on the stack.
class TerminatedCopy {
 public:
  explicit TerminatedCopy(std::string_view s) {
    if (s.size() < sizeof(small_)) {
      std::memcpy(small_, s.data(), s.size());
      small_[s.size()] = '\0';
      ptr_ = small_;
    } else {
      large_.assign(s);
      ptr_ = large_.c_str();
    }
  }
  TerminatedCopy(const TerminatedCopy&) = delete;
  TerminatedCopy& operator=(const TerminatedCopy&) = delete;

  const char* get() const { return ptr_; }

 private:
  char small_[128];
  std::string large_;
  const char* ptr_;
};

// Valkey's acceptance rule shared by string2d and string2ld, given the converted value:
// the whole input consumed (which also refuses embedded NULs), no overflow to infinity, no
// underflow all the way to zero (a denormal result is kept), and no NaN.
template <typename T>
bool AcceptConversion(std::string_view s, const char* begin, const char* end, int err, T v) {
  if (static_cast<size_t>(end - begin) != s.size()) return false;
  if (err == ERANGE && (std::isinf(v) || v == 0)) return false;
  if (err == EINVAL) return false;
  return !std::isnan(v);
}

// Two ASCII digits for every value 0..99, so formatting emits two digits per division.
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> table{};
  for (int i = 0; i < 100; ++i) {
    table[2 * i] = static_cast<char>('0' + i / 10);
    table[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return table;
}();

}  // namespace

bool ParseInt64Strict(std::string_view s, int64_t* out) {
  if (s == "0") {
    *out = 0;
    return true;
  }
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  const uint64_t limit = negative ? uint64_t{1} << 63 : std::numeric_limits<int64_t>::max();
  uint64_t magnitude;
  if (!ParseMagnitude(s, limit, &magnitude)) return false;
  // Negating in unsigned arithmetic keeps INT64_MIN well defined.
  *out = static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
  return true;
}

bool ParseUint64(std::string_view s, uint64_t* out) {
  if (s == "0") {
    *out = 0;
    return true;
  }
  return ParseMagnitude(s, std::numeric_limits<uint64_t>::max(), out);
}

bool ParseDouble(std::string_view s, double* out) {
  // strtod would skip leading whitespace silently; Valkey refuses it.
  if (s.empty() || IsSpace(s[0])) return false;
  TerminatedCopy copy(s);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(copy.get(), &end);
  if (!AcceptConversion(s, copy.get(), end, errno, v)) return false;
  *out = v;
  return true;
}

bool ParseLongDouble(std::string_view s, long double* out) {
  if (s.empty() || s.size() >= kMaxLongDoubleChars || IsSpace(s[0])) return false;
  TerminatedCopy copy(s);
  char* end = nullptr;
  errno = 0;
  const long double v = std::strtold(copy.get(), &end);
  if (!AcceptConversion(s, copy.get(), end, errno, v)) return false;
  *out = v;
  return true;
}

size_t FormatInt64To(char* buf, int64_t v) {
  // Unsigned negation so INT64_MIN has a representable magnitude.
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  // One digit (lengths in reply headers, most counts): no buffer, no memcpy call.
  if (v >= 0 && u < 10) {
    buf[0] = static_cast<char>('0' + u);
    return 1;
  }
  char tmp[20];
  char* p = tmp + sizeof(tmp);
  while (u >= 100) {
    const size_t i = static_cast<size_t>(u % 100) * 2;
    u /= 100;
    *--p = kDigitPairs[i + 1];
    *--p = kDigitPairs[i];
  }
  if (u >= 10) {
    const size_t i = static_cast<size_t>(u) * 2;
    *--p = kDigitPairs[i + 1];
    *--p = kDigitPairs[i];
  } else {
    *--p = static_cast<char>('0' + u);
  }
  size_t len = static_cast<size_t>(tmp + sizeof(tmp) - p);
  if (v < 0) {
    buf[0] = '-';
    std::memcpy(buf + 1, p, len);
    return len + 1;
  }
  std::memcpy(buf, p, len);
  return len;
}

bool ParseScanCursor(std::string_view s, uint64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    i = 1;
    if (s.size() == 1) return false;
  }
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *out = negative ? 0 - v : v;
  return true;
}

void AppendInt64(std::string* out, int64_t v) {
  char buf[21];
  out->append(buf, FormatInt64To(buf, v));
}

std::string FormatInt64(int64_t v) {
  char buf[21];
  return std::string(buf, FormatInt64To(buf, v));
}

std::string FormatDouble(double v) {
  // Spelled out rather than left to printf, as Valkey does, so every libc agrees.
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The longest %.17g output is 24 bytes ("-2.2250738585072014e-308").
  char buf[32];
  const int len = std::snprintf(buf, sizeof(buf), "%.17g", v);
  return std::string(buf, static_cast<size_t>(len));
}

std::string FormatLongDoubleHuman(long double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // %Lf never uses an exponent, so large values print every integer digit (up to ~4950 for
  // the largest long double); only those need the heap.
  char small[128];
  std::string out;
  int len = std::snprintf(small, sizeof(small), "%.17Lf", v);
  if (static_cast<size_t>(len) < sizeof(small)) {
    out.assign(small, static_cast<size_t>(len));
  } else {
    out.resize(static_cast<size_t>(len) + 1);
    std::snprintf(out.data(), out.size(), "%.17Lf", v);
    out.resize(static_cast<size_t>(len));
  }
  // %Lf prints NaN without a '.', and Valkey only trims when there is one.
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  // Tiny negatives round to "-0.000..." and trim to "-0"; Valkey shows them as "0".
  if (out == "-0") out = "0";
  return out;
}

bool ParseMemorySize(std::string_view s, int64_t* out) {
  // memtoull works on a C string, so whatever follows an embedded NUL is invisible to it.
  s = s.substr(0, s.find('\0'));
  size_t n = 0;
  while (n < s.size() && IsDigit(s[n])) ++n;
  const std::string_view digits = s.substr(0, n);
  const std::string_view unit = s.substr(n);
  int64_t multiplier;
  if (unit.empty() || EqualsIgnoreCase(unit, "b")) {
    multiplier = 1;
  } else if (EqualsIgnoreCase(unit, "k")) {
    multiplier = 1000;
  } else if (EqualsIgnoreCase(unit, "kb")) {
    multiplier = 1024;
  } else if (EqualsIgnoreCase(unit, "m")) {
    multiplier = 1000 * 1000;
  } else if (EqualsIgnoreCase(unit, "mb")) {
    multiplier = 1024 * 1024;
  } else if (EqualsIgnoreCase(unit, "g")) {
    multiplier = 1000 * 1000 * 1000;
  } else if (EqualsIgnoreCase(unit, "gb")) {
    multiplier = int64_t{1024} * 1024 * 1024;
  } else {
    // Also refuses a sign: Valkey 7 rejects "-1" for memory values.
    return false;
  }
  if (digits.size() > kMaxMemoryDigits) return false;
  // No digits at all ("", "kb") is zero in Valkey: strtoull converts nothing without an error.
  int64_t v = 0;
  for (char c : digits) {
    const int d = c - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  // Valkey wraps silently past 2^64; refusing is the only sane reading for an int64 result.
  if (v > std::numeric_limits<int64_t>::max() / multiplier) return false;
  *out = v * multiplier;
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

}  // namespace vireo
