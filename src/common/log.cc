#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace vireo {
namespace {

LogLevel g_level = LogLevel::kNotice;
std::string g_file;
char g_role = 'M';
// Atomic: CONFIG SET changes them on the main thread while helper threads may be logging.
std::atomic<LogFormat> g_format{LogFormat::kLegacy};
std::atomic<LogTimestampFormat> g_timestamp_format{LogTimestampFormat::kLegacy};

std::string FormatTimestamp(LogTimestampFormat f, const struct timeval& tv, const struct tm& tm) {
  char buf[64];
  const int ms = static_cast<int>(tv.tv_usec / 1000);
  switch (f) {
    case LogTimestampFormat::kMilliseconds:
      snprintf(buf, sizeof(buf), "%lld",
               static_cast<long long>(tv.tv_sec) * 1000 + static_cast<long long>(ms));
      return buf;
    case LogTimestampFormat::kIso8601: {
      size_t off = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S.", &tm);
      const long offset = tm.tm_gmtoff;  // seconds east of UTC, daylight saving included
      const long minutes = labs(offset) / 60;
      snprintf(buf + off, sizeof(buf) - off, "%03d%c%02ld:%02ld", ms, offset < 0 ? '-' : '+',
               minutes / 60, minutes % 60);
      return buf;
    }
    case LogTimestampFormat::kLegacy:
      break;
  }
  size_t off = strftime(buf, sizeof(buf), "%d %b %Y %H:%M:%S.", &tm);
  snprintf(buf + off, sizeof(buf) - off, "%03d", ms);
  return buf;
}

const char* RoleName(char role) {
  switch (role) {
    case 'X':
      return "sentinel";
    case 'C':
      return "RDB/AOF";
    case 'S':
      return "replica";
    default:
      return "primary";
  }
}

}  // namespace

std::string FormatLogLine(LogFormat format, LogTimestampFormat timestamp_format, int pid, char role,
                          LogLevel level, const struct timeval& tv, const struct tm& local,
                          std::string_view message) {
  const std::string when = FormatTimestamp(timestamp_format, tv, local);
  const int lv = static_cast<int>(level) & 3;
  std::string line = std::to_string(pid);
  if (format == LogFormat::kLegacy) {
    static const char kMarks[] = ".-*#";
    line += ':';
    line += role;
    line += ' ';
    line += when;
    line += ' ';
    line += kMarks[lv];
    line += ' ';
    line += message;
    return line;
  }
  static const char* const kLevels[] = {"debug", "info", "notice", "warning"};
  line = "pid=" + line + " role=" + RoleName(role) + " timestamp=\"" + when +
         "\" level=" + kLevels[lv] + " message=\"";
  // The message is quoted: a double quote in it becomes a single one and a line break a
  // space, so one line stays one logfmt record.
  for (char ch : message) {
    if (ch == '"') ch = '\'';
    if (ch == '\n' || ch == '\r') ch = ' ';
    line += ch;
  }
  line += '"';
  return line;
}

void SetLogRole(char role) { g_role = role; }

void ConfigureLog(const std::string& level, const std::string& file) {
  if (level == "debug")
    g_level = LogLevel::kDebug;
  else if (level == "verbose")
    g_level = LogLevel::kVerbose;
  else if (level == "warning")
    g_level = LogLevel::kWarning;
  else if (level == "nothing")
    g_level = LogLevel::kNothing;
  else
    g_level = LogLevel::kNotice;
  g_file = file;
}

void SetLogFormats(std::string_view format, std::string_view timestamp_format) {
  g_format = format == "logfmt" ? LogFormat::kLogfmt : LogFormat::kLegacy;
  LogTimestampFormat t = LogTimestampFormat::kLegacy;
  if (timestamp_format == "iso8601") t = LogTimestampFormat::kIso8601;
  if (timestamp_format == "milliseconds") t = LogTimestampFormat::kMilliseconds;
  g_timestamp_format = t;
}

void LogRaw(const char* text) {
  if (LogLevel::kNotice < g_level) return;
  FILE* out = g_file.empty() ? stdout : fopen(g_file.c_str(), "a");
  if (out == nullptr) return;
  fputs(text, out);
  fflush(out);
  if (out != stdout) fclose(out);
}

void LogAt(LogLevel level, const char* fmt, ...) {
  if (level < g_level) return;
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  struct tm tm;
  localtime_r(&tv.tv_sec, &tm);
  const std::string line = FormatLogLine(g_format.load(std::memory_order_relaxed),
                                         g_timestamp_format.load(std::memory_order_relaxed),
                                         static_cast<int>(getpid()), g_role, level, tv, tm, msg);
  FILE* out = g_file.empty() ? stdout : fopen(g_file.c_str(), "a");
  if (out == nullptr) return;
  fprintf(out, "%s\n", line.c_str());
  fflush(out);
  if (out != stdout) fclose(out);
}

}  // namespace vireo
