// --latency, --latency-history, --stat and --intrinsic-latency.
#include <sys/time.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/modes.h"

namespace vireo::cli {
namespace {

using tools::Reply;

constexpr long long kLatencySampleRateMs = 10;
constexpr long long kLatencyHistoryDefaultMs = 15000;

long long NowUs() {
  timeval tv;
  gettimeofday(&tv, nullptr);
  return static_cast<long long>(tv.tv_sec) * 1000000 + tv.tv_usec;
}

long long NowMs() { return NowUs() / 1000; }

// Sends a command, reconnecting (without AUTH or SELECT, as redis-cli) for as long as the
// server is unreachable; exits on protocol errors.
Reply ReconnectingCommand(Session* session, const std::vector<std::string>& args) {
  tools::Connection& conn = session->connection();
  const Options& o = session->options();
  int tries = 0;
  for (;;) {
    while (!conn.connected()) {
      printf("\r\x1b[0K");
      printf("Reconnecting... %d\r", ++tries);
      fflush(stdout);
      if (o.socket_path.empty()) {
        conn.ConnectTcp(o.host, o.port);
      } else {
        conn.ConnectUnix(o.socket_path);
      }
      usleep(1000000);
    }
    Reply reply;
    if (conn.Command(args, &reply)) {
      if (tries > 0) printf("\r\x1b[0K");
      return reply;
    }
    if (conn.error_kind() == tools::Connection::ErrorKind::kProtocol) {
      fprintf(stderr, "Error: %s\n", conn.error().c_str());
      exit(1);
    }
    conn.Close();
  }
}

void PrintLatency(OutputMode mode, long long min, long long max, double avg, long long count) {
  switch (mode) {
    case OutputMode::kStandard:
      printf("min: %lld, max: %lld, avg: %.2f (%lld samples)", min, max, avg, count);
      fflush(stdout);
      break;
    case OutputMode::kCsv:
      printf("%lld,%lld,%.2f,%lld\n", min, max, avg, count);
      break;
    case OutputMode::kRaw:
      printf("%lld %lld %.2f %lld\n", min, max, avg, count);
      break;
    case OutputMode::kJson:
    case OutputMode::kQuotedJson:
      printf("{\"min\": %lld, \"max\": %lld, \"avg\": %.2f, \"count\": %lld}\n", min, max, avg,
             count);
      break;
  }
}

long InfoLong(const std::string& info, const char* field) {
  std::string value;
  if (!InfoField(info, field, &value)) return LONG_MIN;
  return strtol(value.c_str(), nullptr, 10);
}

// One round of compute-bound work whose duration should not vary on an idle machine.
void ComputeSomethingFast() {
  unsigned char s[256], i = 0, j = 0, t;
  for (int k = 0; k < 256; ++k) s[k] = static_cast<unsigned char>(k);
  for (int count = 0; count < 1000; ++count) {
    ++i;
    j = static_cast<unsigned char>(j + s[i]);
    t = s[i];
    s[i] = s[j];
    s[j] = t;
  }
  // Keep the work from being optimized away.
  asm volatile("" : : "r"(s) : "memory");
}

}  // namespace

std::string BytesToHuman(long long n) {
  std::string out;
  if (n < 0) {
    out = "-";
    n = -n;
  }
  static const char* const kUnits[] = {"K", "M", "G", "T", "P"};
  char buf[64];
  long double unit = 1024;
  for (const char* name : kUnits) {
    if (static_cast<long double>(n) < unit * 1024) {
      if (static_cast<long double>(n) < unit) break;
      snprintf(buf, sizeof(buf), "%.2f%s", static_cast<double>(n / unit), name);
      return out + buf;
    }
    unit *= 1024;
  }
  snprintf(buf, sizeof(buf), "%lldB", n);
  return out + buf;
}

bool InfoField(const std::string& info, const std::string& field, std::string* value) {
  size_t p = info.find(field);
  if (p == std::string::npos) return false;
  p += field.size() + 1;
  if (p > info.size()) p = info.size();
  size_t end = info.find('\r', p);
  size_t comma = info.find(',', p);
  if (comma != std::string::npos && comma < end) end = comma;
  if (end == std::string::npos) end = info.size();
  value->assign(info, p, end - p);
  return true;
}

int RunLatencyMode(Session* session) {
  Options& o = session->options();
  long long min = 0, max = 0, total = 0, count = 0;
  double avg = 0;
  const long long history_interval_ms =
      o.interval_us ? o.interval_us / 1000 : kLatencyHistoryDefaultMs;
  // Without a terminal the mode samples for one interval (default 1 s) and prints once.
  const long long interval_ms = o.interval_us ? o.interval_us / 1000 : 1000;
  long long history_start = NowMs();
  for (;;) {
    const long long start = NowMs();
    ReconnectingCommand(session, {"PING"});
    const long long latency = NowMs() - start;
    ++count;
    if (count == 1) {
      min = max = total = latency;
      avg = static_cast<double>(latency);
    } else {
      if (latency < min) min = latency;
      if (latency > max) max = latency;
      total += latency;
      avg = static_cast<double>(total) / count;
    }
    if (o.output == OutputMode::kStandard) {
      printf("\x1b[0G\x1b[2K");  // clear the line
      PrintLatency(o.output, min, max, avg, count);
    } else if (o.latency_history) {
      PrintLatency(o.output, min, max, avg, count);
    } else if (NowMs() - history_start > interval_ms) {
      PrintLatency(o.output, min, max, avg, count);
      fflush(stdout);
      return 0;
    }
    if (o.latency_history && NowMs() - history_start > history_interval_ms) {
      printf(" -- %.2f seconds range\n", static_cast<float>(NowMs() - history_start) / 1000);
      history_start = NowMs();
      min = max = total = count = 0;
    }
    fflush(stdout);
    usleep(kLatencySampleRateMs * 1000);
  }
}

int RunStatMode(Session* session) {
  const Options& o = session->options();
  const useconds_t interval = static_cast<useconds_t>(o.interval_us ? o.interval_us : 1000000);
  long requests = 0;
  for (int line = 0;; ++line) {
    Reply reply = ReconnectingCommand(session, {"INFO"});
    if (reply.type == Reply::Type::kError) {
      fprintf(stderr, "ERROR: %s\n", reply.str.c_str());
      exit(1);
    }
    const std::string& info = reply.str;
    if (line % 20 == 0) {
      printf(
          "------- data ------ --------------------- load -------------------- - child -\n"
          "keys       mem      clients blocked requests            connections          \n");
    }
    char buf[64];
    long keys = 0;
    for (int db = 0; db < 20; ++db) {
      long k = InfoLong(info, ("db" + std::to_string(db) + ":keys").c_str());
      if (k != LONG_MIN) keys += k;
    }
    snprintf(buf, sizeof(buf), "%ld", keys);
    printf("%-11s", buf);
    printf("%-8s", BytesToHuman(InfoLong(info, "used_memory")).c_str());
    snprintf(buf, sizeof(buf), "%ld", InfoLong(info, "connected_clients"));
    printf(" %-8s", buf);
    snprintf(buf, sizeof(buf), "%ld", InfoLong(info, "blocked_clients"));
    printf("%-8s", buf);
    const long processed = InfoLong(info, "total_commands_processed");
    snprintf(buf, sizeof(buf), "%ld (+%ld)", processed, requests == 0 ? 0 : processed - requests);
    printf("%-19s", buf);
    requests = processed;
    snprintf(buf, sizeof(buf), "%ld", InfoLong(info, "total_connections_received"));
    printf(" %-12s", buf);
    long children = InfoLong(info, "bgsave_in_progress");
    children |= InfoLong(info, "aof_rewrite_in_progress") << 1;
    children |= InfoLong(info, "loading") << 2;
    switch (children) {
      case 1:
        printf("SAVE");
        break;
      case 2:
        printf("AOF");
        break;
      case 3:
        printf("SAVE+AOF");
        break;
      case 4:
        printf("LOAD");
        break;
      default:
        break;
    }
    printf("\n");
    fflush(stdout);
    usleep(interval);
  }
}

static void StopIntrinsic(int) { g_stop_requested = 1; }

int RunIntrinsicLatencyMode(int seconds) {
  const long long run_time = static_cast<long long>(seconds) * 1000000;
  const long long test_end = NowUs() + run_time;
  long long max_latency = 0, runs = 0;
  signal(SIGINT, StopIntrinsic);
  for (;;) {
    const long long start = NowUs();
    ComputeSomethingFast();
    const long long end = NowUs();
    const long long latency = end - start;
    ++runs;
    if (latency <= 0) continue;
    if (latency > max_latency) {
      max_latency = latency;
      printf("Max latency so far: %lld microseconds.\n", max_latency);
      fflush(stdout);
    }
    const double avg_us = static_cast<double>(run_time) / runs;
    if (g_stop_requested || end > test_end) {
      printf("\n%lld total runs (avg latency: %.4f microseconds / %.2f nanoseconds per run).\n",
             runs, avg_us, avg_us * 1e3);
      printf("Worst run took %.0fx longer than the average latency.\n", max_latency / avg_us);
      return 0;
    }
  }
}

}  // namespace vireo::cli
