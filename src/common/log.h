// The server log, in Valkey's line format ("pid:M 29 Nov 2026 22:18:59.123 * message").
#pragma once

#include <string>

namespace vireo {

enum class LogLevel { kDebug = 0, kVerbose, kNotice, kWarning, kNothing };

// Sets level ("debug", "verbose", "notice", "warning", or "nothing" to log nothing) and file
// ("" = stdout).
void ConfigureLog(const std::string& level, const std::string& file);

// The role letter of each line, as Valkey's: 'M' primary, 'S' replica.
void SetLogRole(char role);
void LogAt(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Writes text as it is, without the pid/role/time prefix (the start-up banner), at notice
// level.
void LogRaw(const char* text);
#define LogDebug(...) ::vireo::LogAt(::vireo::LogLevel::kDebug, __VA_ARGS__)
#define LogVerbose(...) ::vireo::LogAt(::vireo::LogLevel::kVerbose, __VA_ARGS__)
#define LogNotice(...) ::vireo::LogAt(::vireo::LogLevel::kNotice, __VA_ARGS__)
#define LogWarning(...) ::vireo::LogAt(::vireo::LogLevel::kWarning, __VA_ARGS__)

}  // namespace vireo
