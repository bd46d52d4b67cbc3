// Parsing and formatting of numbers exactly as Valkey does it, so replies and errors match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vireo {

// Strict decimal int64: optional '-', no '+', no leading zeros (except "0"), no spaces,
// no overflow. Same acceptance as Valkey's string2ll.
bool ParseInt64Strict(std::string_view s, int64_t* out);
// ParseInt64Strict behind an inline test: a string too long for an int64 or not starting
// with a digit or '-' (most SET values) is refused without a call.
inline bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;  // 20: "-9223372036854775808"
  if (static_cast<unsigned char>(s[0] - '0') >= 10 && s[0] != '-') return false;
  return ParseInt64Strict(s, out);
}
bool ParseUint64(std::string_view s, uint64_t* out);

// A double as Valkey's string2d/getDoubleFromObject accepts it: strtod syntax (also "inf",
// "-inf", "+inf"), no leading space, whole string consumed, NaN refused.
bool ParseDouble(std::string_view s, double* out);

// A long double as Valkey's string2ld (used by INCRBYFLOAT): strtold syntax, no spaces,
// no NaN, and the length limit of 5*1024 bytes.
bool ParseLongDouble(std::string_view s, long double* out);

// A SCAN-family cursor as Valkey 8 parses it (string2ull): a strict int64 must be >= 0;
// other forms as strtoull (leading spaces, a sign, '-' wrapping modulo 2^64), but at least
// one digit and nothing after the digits; "" and overflow are refused.
bool ParseScanCursor(std::string_view s, uint64_t* out);

// Appends the decimal form of v.
void AppendInt64(std::string* out, int64_t v);
std::string FormatInt64(int64_t v);
// Writes v into buf (at least 21 bytes) and returns the length.
size_t FormatInt64To(char* buf, int64_t v);

// Valkey's double2ll: true, with *out set, when v is integral and within +-2^62 ((double)
// (LLONG_MAX / 2) rounds up to 2^62); -0 gives 0, NaN false.
inline bool DoubleToInt64Exact(double v, int64_t* out) {
  constexpr double kLimit = 4611686018427387904.0;
  if (!(v >= -kLimit && v <= kLimit)) return false;
  const int64_t i = static_cast<int64_t>(v);
  if (static_cast<double>(i) != v) return false;
  *out = i;
  return true;
}

// Room for any text the FormatDouble* functions below write (the longest is 25 bytes,
// "-99999999999999990000000").
inline constexpr size_t kDoubleTextSize = 32;

// A double as Valkey 8 replies it and stores it in a listpack (its d2string): integral values
// within +-2^62 as integers, "0" and "-0", "inf", "-inf", "nan", and everything else as
// FormatDoubleDtoaTo writes it. Writes into buf (kDoubleTextSize bytes), returns the length.
size_t FormatDoubleTo(char* buf, double v);
std::string FormatDouble(double v);

// Valkey 8's fpconv_dtoa alone: Grisu2 digits (round-trip, shortest for nearly every value but
// not all: 1e23 gives "99999999999999990000000") laid out as a plain integer when at most 7
// zeros follow the digits, as a plain decimal when at most 6 digits follow the point or the
// decimal exponent is within +-3, else as "d.ddde+X" / "d.ddde-X" (no exponent padding);
// "0", "-0", "inf", "-inf", "nan", "-nan". Writes into buf (kDoubleTextSize bytes).
size_t FormatDoubleDtoaTo(char* buf, double v);

// A Lua number as Valkey 8 passes it to redis.call / server.call: DoubleToInt64Exact's integer
// when there is one (-0 gives "0"), else FormatDoubleDtoaTo's text (0/0 gives "-nan" on x86).
// Writes into buf (kDoubleTextSize bytes).
size_t FormatLuaNumberTo(char* buf, double v);

// "%.17g" with "inf" and "-inf" spelled out: Redis 7's form, which Valkey 8 still uses for
// ZSCAN of a skiplist-encoded sorted set (and Vireo's DEBUG DIGEST for every sorted set).
// Writes into buf (kDoubleTextSize bytes).
size_t FormatDoubleG17To(char* buf, double v);

// A long double in Valkey's "human" mode (ld2string LD_STR_HUMAN, used by INCRBYFLOAT):
// "%.17Lf" with trailing zeros and a trailing '.' removed; "-0" becomes "0".
std::string FormatLongDoubleHuman(long double v);

// A memory size as in config files: "100", "1k" (1000), "1kb" (1024), "1m", "1mb", "1g",
// "1gb", case-insensitive. Returns false on garbage or overflow.
bool ParseMemorySize(std::string_view s, int64_t* out);

// Case-insensitive ASCII equality.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
// ASCII lower-case / upper-case copies.
std::string ToLower(std::string_view s);
std::string ToUpper(std::string_view s);

}  // namespace vireo
