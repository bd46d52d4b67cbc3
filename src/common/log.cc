#include "common/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace vireo {
namespace {

LogLevel g_level = LogLevel::kNotice;
std::string g_file;
char g_role = 'M';

}  // namespace

void SetLogRole(char role) { g_role = role; }

void ConfigureLog(const std::string& level, const std::string& file) {
  if (level == "debug") g_level = LogLevel::kDebug;
  else if (level == "verbose") g_level = LogLevel::kVerbose;
  else if (level == "warning") g_level = LogLevel::kWarning;
  else if (level == "nothing") g_level = LogLevel::kNothing;
  else g_level = LogLevel::kNotice;
  g_file = file;
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
  char when[64];
  size_t off = strftime(when, sizeof(when), "%d %b %Y %H:%M:%S.", &tm);
  snprintf(when + off, sizeof(when) - off, "%03d", static_cast<int>(tv.tv_usec / 1000));
  static const char kMarks[] = ".-*#";
  FILE* out = g_file.empty() ? stdout : fopen(g_file.c_str(), "a");
  if (out == nullptr) return;
  fprintf(out, "%d:%c %s %c %s\n", static_cast<int>(getpid()), g_role, when,
          kMarks[static_cast<int>(level)], msg);
  fflush(out);
  if (out != stdout) fclose(out);
}

}  // namespace vireo
