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

// A SCAN-family cursor as Valkey parses it (strtoul): an optional sign ('-' wraps modulo
// 2^64), decimal digits and nothing else; "" is cursor 0; overflow is refused.
bool ParseScanCursor(std::string_view s, uint64_t* out);

// Appends the decimal form of v.
void AppendInt64(std::string* out, int64_t v);
std::string FormatInt64(int64_t v);
// Writes v into buf (at least 21 bytes) and returns the length.
size_t FormatInt64To(char* buf, int64_t v);

// A double as Valkey replies it in RESP (%.17g, "inf"/"-inf"; integers in range print
// without exponent exactly as "%.17g" does).
std::string FormatDouble(double v);

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
