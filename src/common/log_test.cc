#include "common/log.h"

#include <gtest/gtest.h>

#include <cstring>

namespace vireo {
namespace {

// The line for 2026-11-29 22:18:59.123 local time, gmtoff seconds east of UTC, pid 42.
std::string Line(LogFormat format, LogTimestampFormat timestamp_format, char role, LogLevel level,
                 std::string_view message, long gmtoff = 0) {
  struct tm tm;
  memset(&tm, 0, sizeof(tm));
  tm.tm_year = 2026 - 1900;
  tm.tm_mon = 10;
  tm.tm_mday = 29;
  tm.tm_hour = 22;
  tm.tm_min = 18;
  tm.tm_sec = 59;
  tm.tm_gmtoff = gmtoff;
  const struct timeval tv = {1795990739, 123456};
  return FormatLogLine(format, timestamp_format, 42, role, level, tv, tm, message);
}

constexpr LogFormat kLegacy = LogFormat::kLegacy;
constexpr LogFormat kLogfmt = LogFormat::kLogfmt;
constexpr LogTimestampFormat kLegacyTime = LogTimestampFormat::kLegacy;
constexpr LogTimestampFormat kIso = LogTimestampFormat::kIso8601;
constexpr LogTimestampFormat kMs = LogTimestampFormat::kMilliseconds;

TEST(LogLineTest, LegacyShape) {
  EXPECT_EQ(Line(kLegacy, kLegacyTime, 'M', LogLevel::kNotice, "Ready to accept connections"),
            "42:M 29 Nov 2026 22:18:59.123 * Ready to accept connections");
  EXPECT_EQ(Line(kLegacy, kLegacyTime, 'S', LogLevel::kWarning, "x"),
            "42:S 29 Nov 2026 22:18:59.123 # x");
  EXPECT_EQ(Line(kLegacy, kLegacyTime, 'M', LogLevel::kVerbose, "v"),
            "42:M 29 Nov 2026 22:18:59.123 - v");
  EXPECT_EQ(Line(kLegacy, kLegacyTime, 'M', LogLevel::kDebug, "d"),
            "42:M 29 Nov 2026 22:18:59.123 . d");
}

TEST(LogLineTest, TimestampFormats) {
  EXPECT_EQ(Line(kLegacy, kIso, 'M', LogLevel::kNotice, "m", 3600),
            "42:M 2026-11-29T22:18:59.123+01:00 * m");
  // West of UTC, and offsets that are not whole hours.
  EXPECT_EQ(Line(kLegacy, kIso, 'M', LogLevel::kNotice, "m", -(9 * 3600 + 30 * 60)),
            "42:M 2026-11-29T22:18:59.123-09:30 * m");
  EXPECT_EQ(Line(kLegacy, kIso, 'M', LogLevel::kNotice, "m"),
            "42:M 2026-11-29T22:18:59.123+00:00 * m");
  EXPECT_EQ(Line(kLegacy, kMs, 'M', LogLevel::kNotice, "m"), "42:M 1795990739123 * m");
}

TEST(LogLineTest, LogfmtShape) {
  EXPECT_EQ(Line(kLogfmt, kLegacyTime, 'M', LogLevel::kNotice, "Ready"),
            "pid=42 role=primary timestamp=\"29 Nov 2026 22:18:59.123\" level=notice "
            "message=\"Ready\"");
  EXPECT_EQ(Line(kLogfmt, kMs, 'S', LogLevel::kVerbose, "v"),
            "pid=42 role=replica timestamp=\"1795990739123\" level=info message=\"v\"");
  EXPECT_EQ(Line(kLogfmt, kIso, 'C', LogLevel::kWarning, "w", 7200),
            "pid=42 role=RDB/AOF timestamp=\"2026-11-29T22:18:59.123+02:00\" level=warning "
            "message=\"w\"");
  EXPECT_EQ(Line(kLogfmt, kMs, 'X', LogLevel::kDebug, "d"),
            "pid=42 role=sentinel timestamp=\"1795990739123\" level=debug message=\"d\"");
}

TEST(LogLineTest, LogfmtKeepsOneRecordPerLine) {
  // A quote would end the value early and a line break split the record: Valkey writes a
  // single quote and a space instead.
  EXPECT_EQ(Line(kLogfmt, kMs, 'M', LogLevel::kNotice, "say \"hi\"\r\nnext"),
            "pid=42 role=primary timestamp=\"1795990739123\" level=notice "
            "message=\"say 'hi'  next\"");
}

}  // namespace
}  // namespace vireo
