#include "common/numbers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

// Expected values in tests that name a command were observed from redis-server 7.0.15:
// integers through SET + INCR / DECRBY 0, long doubles through SET + INCRBYFLOAT, memory sizes
// through CONFIG SET maxmemory + CONFIG GET. ParseUint64 has no command of its own and follows the
// same strict rules as ParseInt64.

namespace vireo {
namespace {

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

TEST(Numbers, ParseInt64Accepts) {
  struct Case {
    const char* in;
    int64_t want;
  };
  const Case cases[] = {
      {"0", 0},
      {"1", 1},
      {"-1", -1},
      {"42", 42},
      {"1000000", 1000000},
      {"9223372036854775807", kInt64Max},
      {"-9223372036854775808", kInt64Min},
  };
  for (const Case& c : cases) {
    int64_t v = 12345;
    EXPECT_TRUE(ParseInt64(c.in, &v)) << c.in;
    EXPECT_EQ(v, c.want) << c.in;
  }
}

TEST(Numbers, ParseInt64Rejects) {
  // Each of these makes INCR reply "ERR value is not an integer or out of range".
  const char* cases[] = {
      "",
      "-0",
      "00",
      "01",
      "-01",
      "+",
      "-",
      "+1",
      " 1",
      "1 ",
      "1a",
      "a1",
      "0x10",
      "1.",
      "1e3",
      "--1",
      "9223372036854775808",    // INT64_MAX + 1
      "-9223372036854775809",   // INT64_MIN - 1
      "18446744073709551615",   // UINT64_MAX
      "99999999999999999999",   // 20 digits
      "100000000000000000000",  // 21 characters
      "-00000000000000000001",  // 21 characters, leading zeros
      "a",
      ":1",  // the byte above '9'
      "/1",  // the byte below '0'
  };
  for (const char* c : cases) {
    int64_t v = 12345;
    EXPECT_FALSE(ParseInt64(c, &v)) << '"' << c << '"';
    // The strict parser alone, without the inline pre-test, refuses the same.
    EXPECT_FALSE(ParseInt64Strict(c, &v)) << '"' << c << '"';
    EXPECT_EQ(v, 12345) << "output touched on failure for " << c;
  }
  int64_t v;
  EXPECT_FALSE(ParseInt64(std::string_view("1\0", 2), &v));
}

TEST(Numbers, ParseInt64HonorsViewBounds) {
  // The digits after the view's end must not be read.
  const std::string backing = "12345";
  int64_t v = 0;
  ASSERT_TRUE(ParseInt64(std::string_view(backing).substr(0, 3), &v));
  EXPECT_EQ(v, 123);
}

TEST(Numbers, ParseUint64) {
  uint64_t v = 0;
  ASSERT_TRUE(ParseUint64("0", &v));
  EXPECT_EQ(v, 0u);
  ASSERT_TRUE(ParseUint64("9223372036854775808", &v));
  EXPECT_EQ(v, uint64_t{1} << 63);
  ASSERT_TRUE(ParseUint64("18446744073709551615", &v));
  EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
  // Strict like string2ll; Valkey's own string2ull (stream IDs) falls back to strtoull and is
  // looser ("007", "+8", " 9" pass there), which this function deliberately is not.
  for (const char* bad : {"", "-0", "-1", "+1", "01", "00", " 1", "1 ", "18446744073709551616",
                          "99999999999999999999", "1x"}) {
    EXPECT_FALSE(ParseUint64(bad, &v)) << '"' << bad << '"';
  }
}

// ZADD z <in> m, then ZSCORE z m on Valkey 8.0.1: parsing and RESP2 formatting together.
// valkey-server 8.0.1's answers to SCAN <cursor> (accepted: the cursor; refused: nullopt).
TEST(Numbers, ParseScanCursorAsValkey8) {
  const std::pair<const char*, std::optional<uint64_t>> cases[] = {
      {"0", 0}, {" 1", 1}, {"+1", 1}, {"01", 1}, {"\t1", 1}, {"\n1", 1}, {"\v1", 1},
      {"  +2", 2}, {"-0", 0}, {"18446744073709551615", UINT64_MAX},
      {"-18446744073709551615", 1}, {"-1", std::nullopt}, {"1 ", std::nullopt},
      {"0x1", std::nullopt}, {"", std::nullopt}, {" ", std::nullopt}, {"1a", std::nullopt},
      {"18446744073709551616", std::nullopt}, {"-18446744073709551616", std::nullopt},
      {"1.5", std::nullopt}, {"-9223372036854775808", std::nullopt}, {"+", std::nullopt}};
  for (const auto& [text, want] : cases) {
    uint64_t got = 12345;
    const bool ok = ParseScanCursor(text, &got);
    EXPECT_EQ(ok, want.has_value()) << '"' << text << '"';
    if (ok && want) {
      EXPECT_EQ(got, *want) << '"' << text << '"';
    }
  }
}

TEST(Numbers, ParseDoubleThenFormatMatchesZscore) {
  struct Case {
    const char* in;
    const char* zscore;
  };
  const Case cases[] = {
      {"1.1", "1.1"},
      {"3", "3"},
      {"1e20", "1e+20"},
      {"1e21", "1e+21"},
      {"1e15", "1000000000000000"},
      {"1e16", "10000000000000000"},
      {"1e17", "100000000000000000"},
      {"123456789012345678", "123456789012345680"},
      {"0.1", "0.1"},
      {"0", "0"},
      {".5", "0.5"},
      {"5.", "5"},
      {"+1.5", "1.5"},
      {"-1.5", "-1.5"},
      {"100", "100"},
      {"12345.678", "12345.678"},
      {"0.30000000000000004", "0.30000000000000004"},
      {"0.0001", "0.0001"},
      {"1e-5", "0.00001"},
      {"1.5e-7", "1.5e-7"},
      {"1e-17", "1e-17"},
      {"inf", "inf"},
      {"+inf", "inf"},
      {"-inf", "-inf"},
      {"INF", "inf"},
      {"Infinity", "inf"},
      {"-infinity", "-inf"},
      {"0x10", "16"},  // strtod's hex forms pass through Valkey too.
      {"0x1p3", "8"},
      {"1e-310", "1e-310"},  // Denormal: ERANGE, but not zero, so kept.
      {"4.9e-324", "5e-324"},
      {"1.7976931348623157e308", "1.7976931348623157e+308"},
      {"2.2250738585072014e-308", "2.2250738585072014e-308"},
  };
  for (const Case& c : cases) {
    double v = 0;
    ASSERT_TRUE(ParseDouble(c.in, &v)) << c.in;
    EXPECT_EQ(FormatDouble(v), c.zscore) << c.in;
  }
}

TEST(Numbers, ParseDoubleRejects) {
  // ZADD replies "ERR value is not a valid float" to each.
  const char* cases[] = {"",       "nan", "NaN", "-nan", " 1",  "1 ",  "1e400", "-1e400",
                         "1e-400", ".",   "e5",  "1e",   "1e+", "1_0", "abc"};
  for (const char* c : cases) {
    double v = 7;
    EXPECT_FALSE(ParseDouble(c, &v)) << '"' << c << '"';
    EXPECT_EQ(v, 7) << "output touched on failure for " << c;
  }
  double v;
  EXPECT_FALSE(ParseDouble(std::string_view("1\0002", 3), &v));  // ZADD with "1\x002" fails.
  EXPECT_FALSE(ParseDouble("\t1", &v));
  EXPECT_FALSE(ParseDouble("1\n", &v));
}

TEST(Numbers, ParseDoubleHasNoLengthLimit) {
  // ZADD accepts a 10000-byte "1.000...0", unlike INCRBYFLOAT.
  std::string s = "1." + std::string(9998, '0');
  double v = 0;
  ASSERT_TRUE(ParseDouble(s, &v));
  EXPECT_EQ(v, 1.0);
}

TEST(Numbers, ParseDoubleHonorsViewBounds) {
  const std::string backing = "1.25e3";
  double v = 0;
  ASSERT_TRUE(ParseDouble(std::string_view(backing).substr(0, 4), &v));
  EXPECT_EQ(v, 1.25);
}

TEST(Numbers, FormatDoubleSpecials) {
  EXPECT_EQ(FormatDouble(-0.0), "-0");  // ZSCORE of a skiplist-encoded member added as -0.
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::max()), "-1.7976931348623157e+308");
  EXPECT_EQ(FormatDouble(2.0), "2");
  EXPECT_EQ(FormatDouble(-2.5), "-2.5");
}

// SET k <base>; INCRBYFLOAT k <incr>.
TEST(Numbers, IncrByFloatMatchesRedis) {
  struct Case {
    const char* base;
    const char* incr;
    const char* reply;
  };
  const Case cases[] = {
      {"10.5", "0.1", "10.6"},
      {"5.0e3", "2.0e2", "5200"},
      {"0", "3e-20", "0"},
      {"0", "1e-17", "0.00000000000000001"},
      {"0", "2.5e-17", "0.00000000000000002"},
      {"0", "1e-18", "0"},
      {"0", "-1e-18", "0"},  // "-0.00000000000000000" trims to "-0", shown as "0".
      {"0", "5e-18", "0"},
      {"0", "-5e-18", "0"},
      {"0", "-0", "0"},
      {"-0", "0", "0"},
      {"0", "0.1", "0.1"},
      {"0.1", "0.2", "0.3"},
      {"1.1", "0", "1.1"},
      {"3.0", "0", "3"},
      {"1", "-1", "0"},
      {"0", "-1.5", "-1.5"},
      {"0", ".5", "0.5"},
      {"0", "5.", "5"},
      {"0", "+1", "1"},
      {"0", "0x10", "16"},
      {"0x1p-2", "0", "0.25"},
      {"00012", "1", "13"},
      {"0", "1e20", "100000000000000000000"},
      {"0", "1e30", "1000000000000000000024696061952"},
      {"0", "99999999999999999999", "100000000000000000000"},
      {"0", "123456789.123456789", "123456789.12345678899873747"},
      {"0", "0.30000000000000004", "0.30000000000000004"},
      {"0", "1.0000000000000001", "1.0000000000000001"},
      {"1", "1e-4950", "1"},  // A denormal long double parses (ERANGE, but not zero).
  };
  for (const Case& c : cases) {
    long double base = 0;
    long double incr = 0;
    ASSERT_TRUE(ParseLongDouble(c.base, &base)) << c.base;
    ASSERT_TRUE(ParseLongDouble(c.incr, &incr)) << c.incr;
    EXPECT_EQ(FormatLongDoubleHuman(base + incr), c.reply) << c.base << " + " << c.incr;
  }
}

TEST(Numbers, IncrByFloatHugeResultPrintsAllDigits) {
  // Observed length, head and tail of INCRBYFLOAT k <in> on 0 (%Lf never uses an exponent).
  struct Case {
    const char* in;
    size_t size;
    const char* head;
    const char* tail;
  };
  const Case cases[] = {
      {"1.5e300", 301, "1500000000000000000049800109861472166362", "11694509046614720512"},
      {"1e4000", 4000, "9999999999999999999965463873099623784932", "06648276349901340672"},
  };
  for (const Case& c : cases) {
    long double v = 0;
    ASSERT_TRUE(ParseLongDouble(c.in, &v)) << c.in;
    const std::string s = FormatLongDoubleHuman(v);
    ASSERT_EQ(s.size(), c.size) << c.in;
    EXPECT_EQ(s.substr(0, 40), c.head) << c.in;
    EXPECT_EQ(s.substr(s.size() - 20), c.tail) << c.in;
  }
}

TEST(Numbers, ParseLongDoubleRejects) {
  // INCRBYFLOAT replies "ERR value is not a valid float" to each.
  const char* cases[] = {"", "nan", " 1", "1 ", "1e5000", "1e-5000", "1e", "-", ".", "abc"};
  for (const char* c : cases) {
    long double v = 7;
    EXPECT_FALSE(ParseLongDouble(c, &v)) << '"' << c << '"';
    EXPECT_EQ(v, 7) << "output touched on failure for " << c;
  }
  long double v;
  EXPECT_FALSE(ParseLongDouble(std::string_view("1\0", 2), &v));
}

TEST(Numbers, ParseLongDoubleInfinityParses) {
  // "inf" parses; INCRBYFLOAT refuses it later ("increment would produce NaN or Infinity").
  long double v = 0;
  ASSERT_TRUE(ParseLongDouble("inf", &v));
  EXPECT_TRUE(std::isinf(v) && v > 0);
  ASSERT_TRUE(ParseLongDouble("-inf", &v));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  ASSERT_TRUE(ParseLongDouble("+inf", &v));
  EXPECT_EQ(FormatLongDoubleHuman(v), "inf");
  EXPECT_EQ(FormatLongDoubleHuman(-v), "-inf");
}

TEST(Numbers, ParseLongDoubleLengthLimit) {
  // INCRBYFLOAT takes a 5119-byte "1.000...0" and refuses 5120 bytes.
  long double v = 0;
  ASSERT_TRUE(ParseLongDouble("1." + std::string(5117, '0'), &v));
  EXPECT_EQ(v, 1.0L);
  EXPECT_FALSE(ParseLongDouble("1." + std::string(5118, '0'), &v));
}

TEST(Numbers, FormatInt64) {
  const int64_t cases[] = {0,       1,          -1,        9,         10,
                           -10,     99,         100,       -100,      12345,
                           -987654, 1000000007, kInt64Max, kInt64Min, kInt64Min + 1};
  for (int64_t v : cases) {
    EXPECT_EQ(FormatInt64(v), std::to_string(v));
  }
  // One digit has a path of its own; its negative neighbours do not take it.
  for (int64_t v = -12; v <= 12; ++v) EXPECT_EQ(FormatInt64(v), std::to_string(v));
  // Every power of ten and its neighbours exercises the two-digit table boundaries.
  for (int64_t p = 1; p <= kInt64Max / 10; p *= 10) {
    for (int64_t v : {p - 1, p, p + 1, -p, -(p - 1)}) EXPECT_EQ(FormatInt64(v), std::to_string(v));
  }
}

TEST(Numbers, FormatInt64ToAndAppend) {
  char buf[21];
  const size_t len = FormatInt64To(buf, kInt64Min);
  EXPECT_EQ(std::string(buf, len), "-9223372036854775808");
  EXPECT_EQ(len, 20u);
  std::string out = "x=";
  AppendInt64(&out, -42);
  AppendInt64(&out, 7);
  EXPECT_EQ(out, "x=-427");
}

TEST(Numbers, FormatInt64RoundTrips) {
  uint64_t x = 0x9E3779B97F4A7C15u;
  for (int i = 0; i < 10000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int64_t v = static_cast<int64_t>(x) >> (i % 64);
    int64_t back = 0;
    ASSERT_TRUE(ParseInt64(FormatInt64(v), &back)) << v;
    ASSERT_EQ(back, v);
  }
}

// CONFIG SET maxmemory <in>; CONFIG GET maxmemory.
TEST(Numbers, ParseMemorySizeMatchesConfigSet) {
  struct Case {
    const char* in;
    int64_t want;
  };
  const Case cases[] = {
      {"100", 100},
      {"1k", 1000},
      {"1K", 1000},
      {"1kb", 1024},
      {"1KB", 1024},
      {"1kB", 1024},
      {"1m", 1000000},
      {"1mb", 1048576},
      {"1g", 1000000000},
      {"1gb", 1073741824},
      {"1G", 1000000000},
      {"1Gb", 1073741824},
      {"1b", 1},
      {"1B", 1},
      {"0", 0},
      {"007", 7},
      // No digits is zero: memtoull's strtoull converts nothing and reports no error.
      {"", 0},
      {"k", 0},
      {"kb", 0},
      {"b", 0},
      {"9223372036854775807", kInt64Max},
      {"8589934591gb", int64_t{8589934591} * 1024 * 1024 * 1024},
  };
  for (const Case& c : cases) {
    int64_t v = -7;
    EXPECT_TRUE(ParseMemorySize(c.in, &v)) << '"' << c.in << '"';
    EXPECT_EQ(v, c.want) << '"' << c.in << '"';
  }
}

TEST(Numbers, ParseMemorySizeRejects) {
  // CONFIG SET replies "argument must be a memory value" to each (note: negatives included).
  const char* cases[] = {"5t",   "5tb", "-1",   "-1k",  "+1",   " 1", "1 ",
                         "1.5k", "1e3", "1 kb", "1kbb", "0x10", "k1"};
  for (const char* c : cases) {
    int64_t v = -7;
    EXPECT_FALSE(ParseMemorySize(c, &v)) << '"' << c << '"';
    EXPECT_EQ(v, -7) << "output touched on failure for " << c;
  }
}

TEST(Numbers, ParseMemorySizeOverflow) {
  // Valkey wraps or saturates here (CONFIG GET shows 18446744073709551615 or 0); an int64
  // result cannot, so these are errors.
  int64_t v;
  EXPECT_FALSE(ParseMemorySize("9223372036854775808", &v));
  EXPECT_FALSE(ParseMemorySize("18446744073709551616", &v));
  EXPECT_FALSE(ParseMemorySize("8589934592gb", &v));
  EXPECT_FALSE(ParseMemorySize("9223372036854776k", &v));
}

TEST(Numbers, ParseMemorySizeDigitBufferLimit) {
  // memtoull's 128-byte digit buffer: 127 digits fit, 128 do not, even as leading zeros.
  int64_t v = 0;
  ASSERT_TRUE(ParseMemorySize(std::string(126, '0') + "5", &v));
  EXPECT_EQ(v, 5);
  EXPECT_FALSE(ParseMemorySize(std::string(127, '0') + "5", &v));
}

TEST(Numbers, ParseMemorySizeStopsAtNul) {
  // memtoull reads a C string, so an embedded NUL ends the value.
  int64_t v = 0;
  ASSERT_TRUE(ParseMemorySize(std::string_view("2kb\0zz", 6), &v));
  EXPECT_EQ(v, 2048);
  ASSERT_TRUE(ParseMemorySize(std::string_view("3\0x", 3), &v));
  EXPECT_EQ(v, 3);
}

TEST(Numbers, EqualsIgnoreCase) {
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_TRUE(EqualsIgnoreCase("GET", "get"));
  EXPECT_TRUE(EqualsIgnoreCase("MaxMemory-Policy", "maxmemory-policy"));
  EXPECT_FALSE(EqualsIgnoreCase("get", "gets"));
  EXPECT_FALSE(EqualsIgnoreCase("get", "set"));
  // Only ASCII letters fold: '[' and '{' differ by 0x20 as 'A' and 'a' do, but are not letters.
  EXPECT_FALSE(EqualsIgnoreCase("[", "{"));
  EXPECT_FALSE(EqualsIgnoreCase("\xc9", "\xe9"));
  EXPECT_TRUE(EqualsIgnoreCase(std::string_view("a\0B", 3), std::string_view("A\0b", 3)));
}

TEST(Numbers, ToLower) {
  EXPECT_EQ(ToLower("HeLLo-World_42"), "hello-world_42");
  EXPECT_EQ(ToLower(""), "");
  EXPECT_EQ(ToLower("@[`{\xc9"), "@[`{\xc9");
  EXPECT_EQ(ToLower(std::string_view("A\0B", 3)), std::string("a\0b", 3));
}

}  // namespace
}  // namespace vireo
