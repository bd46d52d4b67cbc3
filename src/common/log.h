// The server log, in Valkey's line formats: legacy ("pid:M 29 Nov 2026 22:18:59.123 * message")
// or logfmt (Valkey 8.1's log-format), with the timestamp as log-timestamp-format says.
#pragma once

#include <sys/time.h>

#include <ctime>
#include <string>
#include <string_view>

namespace vireo {

enum class LogLevel { kDebug = 0, kVerbose, kNotice, kWarning, kNothing };

// log-format: "legacy" or "logfmt" (key=value pairs, https://www.brandur.org/logfmt).
enum class LogFormat { kLegacy, kLogfmt };
// log-timestamp-format: "legacy" (29 Nov 2026 22:18:59.123), "iso8601"
// (2026-11-29T22:18:59.123+01:00) or "milliseconds" (since the epoch).
enum class LogTimestampFormat { kLegacy, kIso8601, kMilliseconds };

// Sets level ("debug", "verbose", "notice", "warning", or "nothing" to log nothing) and file
// ("" = stdout).
void ConfigureLog(const std::string& level, const std::string& file);
// Sets the line and timestamp formats by their config names; unknown names leave "legacy".
// May be called while other threads log (the next lines take the new formats).
void SetLogFormats(std::string_view format, std::string_view timestamp_format);

// The role letter of each line, as Valkey's: 'M' primary, 'S' replica.
void SetLogRole(char role);
void LogAt(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Writes text as it is, without the pid/role/time prefix (the start-up banner), at notice
// level.
void LogRaw(const char* text);

// One log line without its newline, as LogAt writes it: the time as tv, broken down into the
// local time `local` (whose tm_gmtoff gives iso8601's offset). Pure, for tests.
std::string FormatLogLine(LogFormat format, LogTimestampFormat timestamp_format, int pid, char role,
                          LogLevel level, const struct timeval& tv, const struct tm& local,
                          std::string_view message);

#define LogDebug(...) ::vireo::LogAt(::vireo::LogLevel::kDebug, __VA_ARGS__)
#define LogVerbose(...) ::vireo::LogAt(::vireo::LogLevel::kVerbose, __VA_ARGS__)
#define LogNotice(...) ::vireo::LogAt(::vireo::LogLevel::kNotice, __VA_ARGS__)
#define LogWarning(...) ::vireo::LogAt(::vireo::LogLevel::kWarning, __VA_ARGS__)

}  // namespace vireo
