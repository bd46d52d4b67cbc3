// FormatDouble and its siblings against valkey-server 8.0.1. Unless a test says otherwise, the
// expected texts were observed as the reply to ZINCRBY z <in> m on a new member (RESP2), which
// is the increment formatted by Valkey's d2string.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <system_error>

#include "common/numbers.h"

namespace vireo {
namespace {

struct DoubleCase {
  const char* in;
  const char* out;
};

double FromText(const char* s) { return std::strtod(s, nullptr); }

double FromBits(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof(v));
  return v;
}

uint64_t BitsOf(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

std::string Dtoa(double v) {
  char buf[kDoubleTextSize];
  return std::string(buf, FormatDoubleDtoaTo(buf, v));
}

std::string LuaNumber(double v) {
  char buf[kDoubleTextSize];
  return std::string(buf, FormatLuaNumberTo(buf, v));
}

std::string G17(double v) {
  char buf[kDoubleTextSize];
  return std::string(buf, FormatDoubleG17To(buf, v));
}

TEST(FormatDouble, MatchesValkey8) {
  const DoubleCase cases[] = {
      {"0.1", "0.1"},
      {"0.2", "0.2"},
      {"0.30000000000000004", "0.30000000000000004"},
      {"0.3333333333333333", "0.3333333333333333"},
      {"0.6666666666666666", "0.6666666666666666"},
      {"123456789.12345679", "1.2345678912345679e+8"},
      {"123456789012345678", "123456789012345680"},
      {"9007199254740992", "9007199254740992"},
      {"9007199254740993", "9007199254740992"},
      {"4611686018427387904", "4611686018427387904"},
      {"-4611686018427387904", "-4611686018427387904"},
      {"4611686018427388928", "4611686018427389000"},
      {"-4611686018427388928", "-4611686018427389000"},
      {"9223372036854775808", "9223372036854776000"},
      {"18446744073709551616", "18446744073709552000"},
      {"5e-324", "5e-324"},
      {"1e-323", "1e-323"},
      {"2.2250738585072014e-308", "2.2250738585072014e-308"},
      {"2.225073858507201e-308", "2.225073858507201e-308"},
      {"1.7976931348623157e308", "1.7976931348623157e+308"},
      {"-1.7976931348623157e308", "-1.7976931348623157e+308"},
      {"-0.0", "-0"},
      {"0", "0"},
      {"inf", "inf"},
      {"-inf", "-inf"},
      {"1", "1"},
      {"-1", "-1"},
      {"2", "2"},
      {"-2.5", "-2.5"},
      {"100", "100"},
      {"1234567", "1234567"},
      {"12345678", "12345678"},
      {"123456789", "123456789"},
      {"1234567890123", "1234567890123"},
      {"1e100", "1e+100"},
      {"1e-100", "1e-100"},
      {"1e300", "1e+300"},
      {"1.5e300", "1.5e+300"},
      {"1e-300", "1e-300"},
      {"3.14159", "3.14159"},
      {"-3.14159", "-3.14159"},
      {"2.718281828459045", "2.718281828459045"},
      {"0.5", "0.5"},
      {"0.25", "0.25"},
      {"0.125", "0.125"},
      {"0.001", "0.001"},
      {"0.0001", "0.0001"},
      {"0.00001234", "1.234e-5"},
      {"0.000001234", "1.234e-6"},
      {"1.234e-7", "1.234e-7"},
      {"0.000123456789", "1.23456789e-4"},
      {"0.0000123456789", "1.23456789e-5"},
      {"1.0000001e-6", "1.0000001000000001e-6"},
      {"9.999e-7", "9.999e-7"},
      {"1.25e-7", "1.25e-7"},
      {"123.456", "123.456"},
      {"1234.5678", "1234.5678"},
      {"12345.678", "12345.678"},
      {"-12345.678", "-12345.678"},
      {"123e20", "12300000000000001000000"},
      {"7e22", "70000000000000004000000"},
      {"4.35e15", "4350000000000000"},
      {"1.8e19", "1.8e+19"},
      {"12345678912345678e3", "12345678912345678000"},
      {"1234567891234567e5", "123456789123456700000"},
      {"0.1e-6", "1e-7"},
      {"9.5367431640625e-07", "9.5367431640625e-7"},
      {"1.1", "1.1"},
      {"2.675", "2.675"},
      {"100.5", "100.5"},
      {"-100.5", "-100.5"},
      {"0.7", "0.7"},
      {"1e-10", "1e-10"},
      {"1e-15", "1e-15"},
      {"1e-20", "1e-20"},
      {"6.02214076e23", "6.02214076e+23"},
      {"1.602176634e-19", "1.602176634e-19"},
      {"299792458.5", "299792458.5"},
      {"4503599627370496.5", "4503599627370496"},
      {"4503599627370497", "4503599627370497"},
      {"1e8", "100000000"},
      {"1.5e8", "150000000"},
      {"99999999.99999999", "9.999999999999999e+7"},
      {"0.9999999999999999", "0.9999999999999999"},
      {"1.0000000000000002", "1.0000000000000002"},
      {"3e-5", "0.00003"},
      {"3e-4", "0.0003"},
      {"123456.7e-9", "1.234567e-4"},
      {"1.7976931348623157e300", "1.7976931348623156e+300"},
      {"2e-310", "2e-310"},
      {"4.9406564584124654e-324", "5e-324"},
  };
  for (const DoubleCase& c : cases) EXPECT_EQ(FormatDouble(FromText(c.in)), c.out) << c.in;
}

// Around the layout thresholds: at most 6 digits after the point or an exponent within +-3 for
// plain decimals, at most 7 zeros appended for plain integers past 2^62.
TEST(FormatDouble, MatchesValkey8AtLayoutThresholds) {
  const DoubleCase cases[] = {
      {"1e-9", "1e-9"},
      {"1e-8", "1e-8"},
      {"1e-7", "1e-7"},
      {"1e-6", "0.000001"},
      {"1e-5", "0.00001"},
      {"1e-4", "0.0001"},
      {"1e-3", "0.001"},
      {"1e14", "100000000000000"},
      {"1e15", "1000000000000000"},
      {"1e16", "10000000000000000"},
      {"1e17", "100000000000000000"},
      {"1e18", "1000000000000000000"},
      {"1e19", "1e+19"},
      {"1e20", "1e+20"},
      {"1e21", "1e+21"},
      {"1e22", "1e+22"},
      {"1e23", "99999999999999990000000"},
      {"1e24", "1e+24"},
      {"1.5e-9", "1.5e-9"},
      {"1.5e-8", "1.5e-8"},
      {"1.5e-7", "1.5e-7"},
      {"1.5e-6", "1.5e-6"},
      {"1.5e-5", "0.000015"},
      {"1.5e-4", "0.00015"},
      {"1.5e-3", "0.0015"},
      {"1.5e14", "150000000000000"},
      {"1.5e15", "1500000000000000"},
      {"1.5e16", "15000000000000000"},
      {"1.5e17", "150000000000000000"},
      {"1.5e18", "1500000000000000000"},
      {"1.5e19", "1.5e+19"},
      {"1.5e20", "1.5e+20"},
      {"1.5e21", "1.5e+21"},
      {"1.5e22", "1.5e+22"},
      {"1.5e23", "1.5e+23"},
      {"1.5e24", "1.5e+24"},
      {"1.2345e-9", "1.2345e-9"},
      {"1.2345e-8", "1.2345e-8"},
      {"1.2345e-7", "1.2345e-7"},
      {"1.2345e-6", "1.2345e-6"},
      {"1.2345e-5", "1.2345e-5"},
      {"1.2345e-4", "1.2345e-4"},
      {"1.2345e-3", "0.0012345"},
      {"1.2345e14", "123450000000000"},
      {"1.2345e15", "1234500000000000"},
      {"1.2345e16", "12345000000000000"},
      {"1.2345e17", "123450000000000000"},
      {"1.2345e18", "1234500000000000000"},
      {"1.2345e19", "1.2345e+19"},
      {"1.2345e20", "1.2345e+20"},
      {"1.2345e21", "1234499999999999900000"},
      {"1.2345e22", "1.2345e+22"},
      {"1.2345e23", "1.2345e+23"},
      {"1.2345e24", "1.2345e+24"},
      {"-9.87654321e-9", "-9.87654321e-9"},
      {"-9.87654321e-8", "-9.87654321e-8"},
      {"-9.87654321e-7", "-9.87654321e-7"},
      {"-9.87654321e-6", "-9.87654321e-6"},
      {"-9.87654321e-5", "-9.87654321e-5"},
      {"-9.87654321e-4", "-9.87654321e-4"},
      {"-9.87654321e-3", "-0.00987654321"},
      {"-9.87654321e14", "-987654321000000"},
      {"-9.87654321e15", "-9876543210000000"},
      {"-9.87654321e16", "-98765432100000000"},
      {"-9.87654321e17", "-987654321000000000"},
      {"-9.87654321e18", "-9876543209999999000"},
      {"-9.87654321e19", "-9.87654321e+19"},
      {"-9.87654321e20", "-9.87654321e+20"},
      {"-9.87654321e21", "-9.87654321e+21"},
      {"-9.87654321e22", "-9.87654321e+22"},
      {"-9.87654321e23", "-9.87654321e+23"},
      {"-9.87654321e24", "-9.87654321e+24"},
      {"1.2345678901234567e-6", "1.2345678901234567e-6"},
      {"1.2345678901234567e-5", "1.2345678901234568e-5"},
      {"1.2345678901234567e-4", "1.2345678901234567e-4"},
      {"1.2345678901234567e-3", "0.0012345678901234567"},
      {"1.2345678901234567e-2", "0.012345678901234567"},
      {"1.2345678901234567e1", "12.345678901234567"},
      {"1.2345678901234567e2", "123.45678901234567"},
      {"1.2345678901234567e3", "1234.5678901234567"},
      {"1.2345678901234567e4", "1.2345678901234567e+4"},
  };
  for (const DoubleCase& c : cases) EXPECT_EQ(FormatDouble(FromText(c.in)), c.out) << c.in;
}

// Random doubles whose Valkey 8 text is not the shortest or not the closest round-trip text
// (Grisu2 without Grisu3's fallback); found among 100000 random bit patterns, about 0.1% of them.
TEST(FormatDouble, MatchesValkey8WhereGrisu2IsNotShortest) {
  const struct {
    uint64_t bits;
    const char* out;
    const char* shortest;
  } cases[] = {
      {0x4e29d3fc1a287297, "3.4816163452111288e+68", "3.481616345211129e+68"},
      {0x307a41e5e51c573c, "3.6282152733170464e-75", "3.6282152733170465e-75"},
      {0x11c0345c7738ab28, "3.5022715750574766e-223", "3.502271575057477e-223"},
      {0x66e13f1ec87e8e3f, "3.7520609694889834e+187", "3.7520609694889835e+187"},
      {0x0a635fbe664fb7a6, "1.2600651685239421e-258", "1.260065168523942e-258"},
  };
  for (const auto& c : cases) {
    const double v = FromBits(c.bits);
    EXPECT_EQ(FromText(c.shortest), v) << c.shortest;
    EXPECT_EQ(FormatDouble(v), c.out) << c.shortest;
  }
}

TEST(FormatDouble, IntegersWithinTwoToThe62PrintAllDigits) {
  EXPECT_EQ(FormatDouble(4611686018427387904.0), "4611686018427387904");    // 2^62
  EXPECT_EQ(FormatDouble(-4611686018427387904.0), "-4611686018427387904");  // -2^62
  EXPECT_EQ(FormatDouble(4611686018427387904.0 + 1024), "4611686018427389000");
  EXPECT_EQ(FormatDouble(171840230165698368.0), "171840230165698368");  // 1.7184023016569837e17
  EXPECT_EQ(FormatDouble(9007199254740993.0), "9007199254740992");
  EXPECT_EQ(FormatDouble(-1.0), "-1");
}

// fpconv_dtoa alone (Valkey's Lua arguments past the integer test, its stored listpack scores):
// no integer path, so integral values take the same layout as the rest.
TEST(FormatDouble, DtoaHasNoIntegerPath) {
  EXPECT_EQ(Dtoa(1e15), "1e+15");
  EXPECT_EQ(Dtoa(1e8), "1e+8");
  EXPECT_EQ(Dtoa(1e7), "10000000");
  EXPECT_EQ(Dtoa(12345678.0), "12345678");
  EXPECT_EQ(Dtoa(123456789.0), "123456789");
  EXPECT_EQ(Dtoa(1234567891234567e5), "123456789123456700000");
  EXPECT_EQ(Dtoa(2.0), "2");
  EXPECT_EQ(Dtoa(-0.0), "-0");
  EXPECT_EQ(Dtoa(0.0), "0");
  EXPECT_EQ(Dtoa(0.1), "0.1");
  EXPECT_EQ(Dtoa(-1e-7), "-1e-7");
  EXPECT_EQ(Dtoa(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(Dtoa(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(Dtoa(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(Dtoa(-std::numeric_limits<double>::quiet_NaN()), "-nan");
}

// EVAL "redis.call('set','x',<expr>) return redis.call('get','x')" 0 on Valkey 8.0.1.
TEST(FormatDouble, LuaNumberMatchesValkey8) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(LuaNumber(0.1), "0.1");
  EXPECT_EQ(LuaNumber(1e17), "100000000000000000");
  EXPECT_EQ(LuaNumber(1e23), "99999999999999990000000");
  EXPECT_EQ(LuaNumber(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(LuaNumber(1e-7), "1e-7");
  EXPECT_EQ(LuaNumber(-0.0), "0");
  EXPECT_EQ(LuaNumber(-nan), "-nan");  // 0/0 on x86
  EXPECT_EQ(LuaNumber(nan), "nan");    // -(0/0)
  EXPECT_EQ(LuaNumber(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(LuaNumber(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(LuaNumber(std::ldexp(1.0, 62)), "4611686018427387904");
  EXPECT_EQ(LuaNumber(std::ldexp(1.0, 62) + 2048), "4611686018427390000");
  EXPECT_EQ(LuaNumber(-std::ldexp(1.0, 62) - 2048), "-4611686018427390000");
  EXPECT_EQ(LuaNumber(std::ldexp(1.0, 63)), "9223372036854776000");
  EXPECT_EQ(LuaNumber(1.0000001e-6), "1.0000001000000001e-6");
  EXPECT_EQ(LuaNumber(5e-324), "5e-324");
}

// ZSCAN of a skiplist-encoded set on Valkey 8.0.1.
TEST(FormatDouble, G17MatchesValkey8Zscan) {
  EXPECT_EQ(G17(0.1), "0.10000000000000001");
  EXPECT_EQ(G17(1e-7), "9.9999999999999995e-08");
  EXPECT_EQ(G17(1e17), "1e+17");
  EXPECT_EQ(G17(123456789.12345679), "123456789.12345679");
  EXPECT_EQ(G17(5e-324), "4.9406564584124654e-324");
  EXPECT_EQ(G17(-0.0), "-0");
  EXPECT_EQ(G17(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(G17(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(G17(-std::numeric_limits<double>::max()), "-1.7976931348623157e+308");
}

// The text's significant digits (leading and trailing zeros dropped) and the decimal exponent
// of the first of them.
void SplitDigits(const std::string& text, std::string* digits, int* exponent) {
  std::string mantissa = text, all;
  int e = 0;
  size_t epos = text.find('e');
  if (epos != std::string::npos) {
    mantissa = text.substr(0, epos);
    e = std::atoi(text.c_str() + epos + 1);
  }
  if (!mantissa.empty() && mantissa[0] == '-') mantissa.erase(0, 1);
  size_t point = mantissa.find('.');
  int integral = static_cast<int>(point == std::string::npos ? mantissa.size() : point);
  for (char c : mantissa) {
    if (c != '.') all.push_back(c);
  }
  size_t first = all.find_first_not_of('0');
  size_t last = all.find_last_not_of('0');
  *digits = all.substr(first, last - first + 1);
  *exponent = e + integral - 1 - static_cast<int>(first);
}

// The layout rules written out once more, from the digits and their exponent.
std::string LayOut(bool negative, const std::string& digits, int exponent) {
  const int n = static_cast<int>(digits.size());
  const int k = exponent - n + 1;  // value = digits * 10^k
  std::string out = negative ? "-" : "";
  if (k >= 0 && k <= 7) return out + digits + std::string(static_cast<size_t>(k), '0');
  if (k < 0 && (k >= -6 || std::abs(exponent) <= 3)) {
    if (exponent < 0)
      return out + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    return out + digits.substr(0, static_cast<size_t>(exponent + 1)) + "." +
           digits.substr(static_cast<size_t>(exponent + 1));
  }
  out += digits.substr(0, 1);
  if (n > 1) out += "." + digits.substr(1);
  return out + (exponent < 0 ? "e-" : "e+") + std::to_string(std::abs(exponent));
}

// Random finite doubles: the text reads back to the same double, has at most 17 significant
// digits, follows the layout rules, and nearly always has the shortest round-trip digits.
TEST(FormatDouble, RandomDoublesRoundTripInValkeyLayout) {
  std::mt19937_64 rng(27);
  int checked = 0, shortest = 0;
  for (int i = 0; i < 300000; ++i) {
    uint64_t bits = rng();
    if (i % 3 == 1)
      bits = (bits & 0x800FFFFFFFFFFFFFull) | (static_cast<uint64_t>(970 + i % 120) << 52);
    if (i % 3 == 2) bits = BitsOf(static_cast<double>(rng() >> (rng() % 64)) * 0.001);
    const double v = FromBits(bits);
    if (std::isnan(v) || std::isinf(v)) continue;
    const std::string text = FormatDouble(v);
    ASSERT_LE(text.size(), kDoubleTextSize - 7) << text;
    char* end = nullptr;
    const double back = std::strtod(text.c_str(), &end);
    ASSERT_EQ(BitsOf(back), bits) << text;
    ASSERT_EQ(*end, '\0') << text;
    int64_t integer;
    if (DoubleToInt64Exact(v, &integer)) {
      if (v != 0) {
        ASSERT_EQ(text, std::to_string(integer));
      }
      continue;
    }
    std::string digits;
    int exponent;
    SplitDigits(text, &digits, &exponent);
    ASSERT_LE(digits.size(), 17u) << text;
    ASSERT_EQ(text, LayOut(v < 0, digits, exponent));
    char sci[64];
    auto [sci_end, ec] = std::to_chars(sci, sci + sizeof(sci), v, std::chars_format::scientific);
    ASSERT_EQ(ec, std::errc());
    std::string shortest_digits;
    int shortest_exponent;
    SplitDigits(std::string(sci, sci_end), &shortest_digits, &shortest_exponent);
    ++checked;
    shortest += digits == shortest_digits && exponent == shortest_exponent;
  }
  EXPECT_GT(checked, 150000);
  EXPECT_GE(shortest, checked - checked / 100) << "of " << checked;
}

}  // namespace
}  // namespace vireo
