#include "common/numbers.h"

#include <algorithm>
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
  // Valkey 8 (string2ull): a strict int64 must not be negative ...
  int64_t strict;
  if (ParseInt64(s, &strict)) {
    if (strict < 0) return false;
    *out = static_cast<uint64_t>(strict);
    return true;
  }
  // ... anything else goes to strtoull: leading white space, a sign ('-' wraps modulo 2^64),
  // at least one digit, nothing after them, no overflow.
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) return false;
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

namespace {

// Grisu2 (Loitsch, "Printing Floating-Point Numbers Quickly and Accurately with Integers",
// PLDI 2010) with the choices of the fpconv library Valkey 8 formats doubles with: the same
// cached powers, the same pick among them, boundaries narrowed by one unit each and the same
// final-digit rounding. Each choice changes some outputs, and the outputs are what Valkey
// replies and writes into RDB files, so none may be "improved".

// A number f * 2^e.
struct DiyFp {
  uint64_t f;
  int e;
};

constexpr uint64_t kDoubleFractionMask = 0x000FFFFFFFFFFFFFull;
constexpr uint64_t kDoubleExponentMask = 0x7FF0000000000000ull;
constexpr uint64_t kDoubleHiddenBit = 0x0010000000000000ull;
constexpr uint64_t kDoubleSignBit = 0x8000000000000000ull;
constexpr int kDoubleExponentBias = 1023 + 52;

// 10^k for k = -348, -340, ..., 340: the 64-bit significand (top bit set) rounded to nearest,
// and the binary exponent.
constexpr int kFirstCachedPower = -348;
constexpr int kCachedPowerStep = 8;
constexpr DiyFp kCachedPowersOfTen[] = {
    {0xfa8fd5a0081c0288ull, -1220}, {0xbaaee17fa23ebf76ull, -1193}, {0x8b16fb203055ac76ull, -1166},
    {0xcf42894a5dce35eaull, -1140}, {0x9a6bb0aa55653b2dull, -1113}, {0xe61acf033d1a45dfull, -1087},
    {0xab70fe17c79ac6caull, -1060}, {0xff77b1fcbebcdc4full, -1034}, {0xbe5691ef416bd60cull, -1007},
    {0x8dd01fad907ffc3cull, -980},  {0xd3515c2831559a83ull, -954},  {0x9d71ac8fada6c9b5ull, -927},
    {0xea9c227723ee8bcbull, -901},  {0xaecc49914078536dull, -874},  {0x823c12795db6ce57ull, -847},
    {0xc21094364dfb5637ull, -821},  {0x9096ea6f3848984full, -794},  {0xd77485cb25823ac7ull, -768},
    {0xa086cfcd97bf97f4ull, -741},  {0xef340a98172aace5ull, -715},  {0xb23867fb2a35b28eull, -688},
    {0x84c8d4dfd2c63f3bull, -661},  {0xc5dd44271ad3cdbaull, -635},  {0x936b9fcebb25c996ull, -608},
    {0xdbac6c247d62a584ull, -582},  {0xa3ab66580d5fdaf6ull, -555},  {0xf3e2f893dec3f126ull, -529},
    {0xb5b5ada8aaff80b8ull, -502},  {0x87625f056c7c4a8bull, -475},  {0xc9bcff6034c13053ull, -449},
    {0x964e858c91ba2655ull, -422},  {0xdff9772470297ebdull, -396},  {0xa6dfbd9fb8e5b88full, -369},
    {0xf8a95fcf88747d94ull, -343},  {0xb94470938fa89bcfull, -316},  {0x8a08f0f8bf0f156bull, -289},
    {0xcdb02555653131b6ull, -263},  {0x993fe2c6d07b7facull, -236},  {0xe45c10c42a2b3b06ull, -210},
    {0xaa242499697392d3ull, -183},  {0xfd87b5f28300ca0eull, -157},  {0xbce5086492111aebull, -130},
    {0x8cbccc096f5088ccull, -103},  {0xd1b71758e219652cull, -77},   {0x9c40000000000000ull, -50},
    {0xe8d4a51000000000ull, -24},   {0xad78ebc5ac620000ull, 3},     {0x813f3978f8940984ull, 30},
    {0xc097ce7bc90715b3ull, 56},    {0x8f7e32ce7bea5c70ull, 83},    {0xd5d238a4abe98068ull, 109},
    {0x9f4f2726179a2245ull, 136},   {0xed63a231d4c4fb27ull, 162},   {0xb0de65388cc8ada8ull, 189},
    {0x83c7088e1aab65dbull, 216},   {0xc45d1df942711d9aull, 242},   {0x924d692ca61be758ull, 269},
    {0xda01ee641a708deaull, 295},   {0xa26da3999aef774aull, 322},   {0xf209787bb47d6b85ull, 348},
    {0xb454e4a179dd1877ull, 375},   {0x865b86925b9bc5c2ull, 402},   {0xc83553c5c8965d3dull, 428},
    {0x952ab45cfa97a0b3ull, 455},   {0xde469fbd99a05fe3ull, 481},   {0xa59bc234db398c25ull, 508},
    {0xf6c69a72a3989f5cull, 534},   {0xb7dcbf5354e9beceull, 561},   {0x88fcf317f22241e2ull, 588},
    {0xcc20ce9bd35c78a5ull, 614},   {0x98165af37b2153dfull, 641},   {0xe2a0b5dc971f303aull, 667},
    {0xa8d9d1535ce3b396ull, 694},   {0xfb9b7cd9a4a7443cull, 720},   {0xbb764c4ca7a44410ull, 747},
    {0x8bab8eefb6409c1aull, 774},   {0xd01fef10a657842cull, 800},   {0x9b10a4e5e9913129ull, 827},
    {0xe7109bfba19c0c9dull, 853},   {0xac2820d9623bf429ull, 880},   {0x80444b5e7aa7cf85ull, 907},
    {0xbf21e44003acdd2dull, 933},   {0x8e679c2f5e44ff8full, 960},   {0xd433179d9c8cb841ull, 986},
    {0x9e19db92b4e31ba9ull, 1013},  {0xeb96bf6ebadf77d9ull, 1039},  {0xaf87023b9bf0ee6bull, 1066},
};

// The cached power whose product with a 64-bit significand of binary exponent e has a binary
// exponent within [-60, -32]; *k gets its decimal exponent. Two powers may fit: the first guess
// (with fpconv's constant 87) and the walk from it decide which, so both follow fpconv.
DiyFp CachedPowerFor(int e, int* k) {
  constexpr double kLog10Of2 = 0.30102999566398114;
  const int approx = static_cast<int>(-(e + 87) * kLog10Of2);
  int index = (approx - kFirstCachedPower) / kCachedPowerStep;
  for (;;) {
    const int scaled = e + kCachedPowersOfTen[index].e + 64;
    if (scaled < -60) {
      ++index;
    } else if (scaled > -32) {
      --index;
    } else {
      *k = kFirstCachedPower + index * kCachedPowerStep;
      return kCachedPowersOfTen[index];
    }
  }
}

// The upper 64 bits of the 128-bit product, rounded half up; in 32-bit halves so that 32-bit
// targets need no __int128.
DiyFp Multiply(DiyFp a, DiyFp b) {
  constexpr uint64_t kLow = 0xFFFFFFFFull;
  const uint64_t a_hi = a.f >> 32, a_lo = a.f & kLow;
  const uint64_t b_hi = b.f >> 32, b_lo = b.f & kLow;
  const uint64_t hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, lo_lo = a_lo * b_lo;
  const uint64_t middle = (hi_lo & kLow) + (lo_hi & kLow) + (lo_lo >> 32) + (1ull << 31);
  return {a_hi * b_hi + (hi_lo >> 32) + (lo_hi >> 32) + (middle >> 32), a.e + b.e + 64};
}

// Moves the last digit down while that brings the digits closer to the value and keeps them
// inside the boundaries: rest is the distance from the digits to the upper boundary, unit the
// weight of the last digit, distance the one from the value to the upper boundary.
void RoundLastDigit(char* digits, int n, uint64_t delta, uint64_t rest, uint64_t unit,
                    uint64_t distance) {
  while (rest < distance && delta - rest >= unit &&
         (rest + unit < distance || distance - rest > rest + unit - distance)) {
    --digits[n - 1];
    rest += unit;
  }
}

// 10^0 .. 10^19.
constexpr std::array<uint64_t, 20> kPowersOf10 = [] {
  std::array<uint64_t, 20> powers{};
  uint64_t p = 1;
  for (uint64_t& power : powers) {
    power = p;
    p *= 10;  // wraps after 10^19, unused
  }
  return powers;
}();

// The digits of a finite, nonzero, positive v into digits (at least 18 bytes); returns their
// count, *exponent10 gets K with v ~= digits * 10^K.
int GrisuDigits(double v, char* digits, int* exponent10) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  DiyFp w{bits & kDoubleFractionMask, static_cast<int>((bits & kDoubleExponentMask) >> 52)};
  if (w.e != 0) {
    w.f += kDoubleHiddenBit;
    w.e -= kDoubleExponentBias;
  } else {
    w.e = 1 - kDoubleExponentBias;  // subnormal
  }

  // The boundaries halfway to the neighbours, on one exponent with the top bit of upper set.
  // The lower neighbour is closer when the significand is a power of two (fpconv treats the
  // smallest normal so too).
  DiyFp upper{(w.f << 1) + 1, w.e - 1};
  while ((upper.f & (kDoubleHiddenBit << 1)) == 0) {
    upper.f <<= 1;
    --upper.e;
  }
  upper.f <<= 10;
  upper.e -= 10;
  const int lower_shift = w.f == kDoubleHiddenBit ? 2 : 1;
  DiyFp lower{(w.f << lower_shift) - 1, w.e - lower_shift};
  lower.f <<= lower.e - upper.e;
  lower.e = upper.e;

  while ((w.f & kDoubleHiddenBit) == 0) {
    w.f <<= 1;
    --w.e;
  }
  w.f <<= 11;
  w.e -= 11;

  int k;
  const DiyFp power = CachedPowerFor(upper.e, &k);
  w = Multiply(w, power);
  upper = Multiply(upper, power);
  lower = Multiply(lower, power);
  ++lower.f;  // one unit in from each side for the multiplications' error
  --upper.f;
  *exponent10 = -k;

  // Digits of upper, integral part first, until what is left is within delta of it.
  const uint64_t distance = upper.f - w.f;
  uint64_t delta = upper.f - lower.f;
  const int shift = -upper.e;  // 32..60
  const uint64_t one = 1ull << shift;
  uint64_t integral = upper.f >> shift;  // < 2^32, at most 10 digits
  uint64_t fraction = upper.f & (one - 1);
  int n = 0;
  for (int kappa = 9; kappa >= 0; --kappa) {
    const uint64_t divisor = kPowersOf10[kappa];
    const uint64_t digit = integral / divisor;
    if (digit != 0 || n != 0) digits[n++] = static_cast<char>('0' + digit);
    integral -= digit * divisor;
    const uint64_t rest = (integral << shift) + fraction;
    if (rest <= delta) {
      *exponent10 += kappa;
      RoundLastDigit(digits, n, delta, rest, divisor << shift, distance);
      return n;
    }
  }
  for (int kappa = -1;; --kappa) {
    fraction *= 10;
    delta *= 10;
    const uint64_t digit = fraction >> shift;
    if (digit != 0 || n != 0) digits[n++] = static_cast<char>('0' + digit);
    fraction &= one - 1;
    if (fraction < delta) {
      *exponent10 += kappa;
      // The multiplication may wrap, as it does in fpconv.
      RoundLastDigit(digits, n, delta, fraction, one, distance * kPowersOf10[-kappa]);
      return n;
    }
  }
}

// Lays out n digits times 10^k as fpconv does; returns the length written.
size_t LayOutDigits(const char* digits, int n, int k, bool negative, char* out) {
  const int exponent = std::abs(k + n - 1);
  if (k >= 0 && exponent < n + 7) {  // integer: at most 7 zeros appended
    std::memcpy(out, digits, static_cast<size_t>(n));
    std::memset(out + n, '0', static_cast<size_t>(k));
    return static_cast<size_t>(n + k);
  }
  if (k < 0 && (k > -7 || exponent < 4)) {  // decimal: the point within the digits or before
    const int integral = n + k;
    if (integral <= 0) {
      out[0] = '0';
      out[1] = '.';
      std::memset(out + 2, '0', static_cast<size_t>(-integral));
      std::memcpy(out + 2 - integral, digits, static_cast<size_t>(n));
      return static_cast<size_t>(n + 2 - integral);
    }
    std::memcpy(out, digits, static_cast<size_t>(integral));
    out[integral] = '.';
    std::memcpy(out + integral + 1, digits + integral, static_cast<size_t>(n - integral));
    return static_cast<size_t>(n + 1);
  }
  // Scientific; fpconv keeps at most 17 digits of a negative value, 18 of a positive one.
  n = std::min(n, negative ? 17 : 18);
  size_t len = 0;
  out[len++] = digits[0];
  if (n > 1) {
    out[len++] = '.';
    std::memcpy(out + len, digits + 1, static_cast<size_t>(n - 1));
    len += static_cast<size_t>(n - 1);
  }
  out[len++] = 'e';
  out[len++] = k + n - 1 < 0 ? '-' : '+';
  if (exponent >= 100) out[len++] = static_cast<char>('0' + exponent / 100);
  if (exponent >= 10) out[len++] = static_cast<char>('0' + exponent / 10 % 10);
  out[len++] = static_cast<char>('0' + exponent % 10);
  return len;
}

size_t CopyText(char* buf, std::string_view text) {
  std::memcpy(buf, text.data(), text.size());
  return text.size();
}

}  // namespace

size_t FormatDoubleDtoaTo(char* buf, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  const bool negative = (bits & kDoubleSignBit) != 0;
  size_t len = 0;
  if (negative) buf[len++] = '-';
  if (v == 0) return len + CopyText(buf + len, "0");
  if ((bits & kDoubleExponentMask) == kDoubleExponentMask) {
    return len + CopyText(buf + len, (bits & kDoubleFractionMask) != 0 ? "nan" : "inf");
  }
  char digits[18];
  int k;
  const int n = GrisuDigits(v, digits, &k);
  return len + LayOutDigits(digits, n, k, negative, buf + len);
}

size_t FormatDoubleTo(char* buf, double v) {
  // Scores are mostly integral: those skip the digit generation.
  int64_t i;
  if (DoubleToInt64Exact(v, &i)) {
    if (i == 0 && std::signbit(v)) return CopyText(buf, "-0");
    return FormatInt64To(buf, i);
  }
  if (std::isnan(v)) return CopyText(buf, "nan");  // d2string drops NaN's sign
  return FormatDoubleDtoaTo(buf, v);
}

size_t FormatLuaNumberTo(char* buf, double v) {
  int64_t i;
  if (DoubleToInt64Exact(v, &i)) return FormatInt64To(buf, i);
  return FormatDoubleDtoaTo(buf, v);
}

std::string FormatDouble(double v) {
  char buf[kDoubleTextSize];
  return std::string(buf, FormatDoubleTo(buf, v));
}

size_t FormatDoubleG17To(char* buf, double v) {
  // Spelled out rather than left to printf, as Valkey does, so every libc agrees.
  if (std::isinf(v)) return CopyText(buf, v > 0 ? "inf" : "-inf");
  // The longest %.17g output is 24 bytes ("-2.2250738585072014e-308").
  return static_cast<size_t>(std::snprintf(buf, kDoubleTextSize, "%.17g", v));
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
