// --scan, --bigkeys, --memkeys and --hotkeys: walks over the keyspace with SCAN.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/modes.h"

namespace vireo::cli {
namespace {

using tools::AppendRepr;
using tools::Reply;
using tools::Repr;

// Hot keys kept, as redis-cli's eviction-pool-like table.
constexpr size_t kHotKeysSample = 16;

[[noreturn]] void IoError() {
  fprintf(stderr, "\nI/O error\n");
  exit(1);
}

// One SCAN step; exits with redis-cli's messages on anything but a [cursor, keys] reply.
Reply SendScan(Session* session, unsigned long long* cursor) {
  const Options& o = session->options();
  std::vector<std::string> args = {"SCAN", std::to_string(*cursor)};
  if (o.pattern.has_value()) {
    args.push_back("MATCH");
    args.push_back(*o.pattern);
  }
  // redis-cli 7.0 sends no COUNT; --count (valkey-cli's flag) adds one.
  if (o.scan_count != 10) {
    args.push_back("COUNT");
    args.push_back(std::to_string(o.scan_count));
  }
  Reply reply;
  if (!session->Call(args, &reply)) IoError();
  if (reply.type == Reply::Type::kError) {
    fprintf(stderr, "SCAN error: %s\n", reply.str.c_str());
    exit(1);
  }
  if (reply.type != Reply::Type::kArray) {
    fprintf(stderr, "Non ARRAY response from SCAN!\n");
    exit(1);
  }
  if (reply.elements.size() != 2 || reply.elements[1].type != Reply::Type::kArray) {
    fprintf(stderr, "Invalid element count from SCAN!\n");
    exit(1);
  }
  *cursor = strtoull(reply.elements[0].str.c_str(), nullptr, 10);
  return reply;
}

long long DbSize(Session* session) {
  Reply reply;
  if (!session->Call({"DBSIZE"}, &reply)) IoError();
  if (reply.type == Reply::Type::kError) {
    fprintf(stderr, "Couldn't determine DBSIZE: %s\n", reply.str.c_str());
    exit(1);
  }
  if (reply.type != Reply::Type::kInteger) {
    fprintf(stderr, "Non INTEGER response from DBSIZE!\n");
    exit(1);
  }
  return reply.integer;
}

void SleepEvery100Loops(const Options& o, unsigned long long loops) {
  if (o.interval_us > 0 && loops % 100 == 0) usleep(static_cast<useconds_t>(o.interval_us));
}

struct TypeInfo {
  std::string name;
  const char* size_command;  // null for types we cannot size (module types)
  const char* size_unit;
  unsigned long long biggest = 0, count = 0, total = 0;
  std::string biggest_key;  // quoted; empty when none seen
};

// The summary lists types in the order valkey-cli 8.0's dict happens to iterate them: that
// depends on how far its table had rehashed, i.e. on how many TYPE replies it looked up (0, 1,
// 2+) and, for one, on which type (a lookup rehashes its own bucket first).
std::vector<size_t> SummaryOrder(const std::vector<TypeInfo>& types, unsigned long long lookups,
                                 int first_type) {
  // Indexes into the built-in list: string, list, set, hash, zset, stream.
  static const size_t kNone[] = {2, 3, 1, 5, 0, 4};
  static const size_t kOneListOrHash[] = {2, 1, 3, 5, 0, 4};
  static const size_t kOneOther[] = {3, 1, 5, 0, 2, 4};
  static const size_t kMany[] = {1, 3, 5, 0, 2, 4};
  const size_t* order = kMany;
  if (lookups == 0) {
    order = kNone;
  } else if (lookups == 1) {
    order = first_type == 1 || first_type == 3 ? kOneListOrHash : kOneOther;
  }
  std::vector<size_t> out(order, order + 6);
  for (size_t i = 6; i < types.size(); ++i) out.push_back(i);
  return out;
}

const char* Unit(const TypeInfo& t, bool memkeys) {
  if (memkeys) return "bytes";
  return t.size_unit != nullptr ? t.size_unit : "(null)";
}

}  // namespace

volatile sig_atomic_t g_stop_requested = 0;

static void RequestStop(int) { g_stop_requested = 1; }

int RunScanMode(Session* session) {
  signal(SIGINT, RequestStop);
  const Options& o = session->options();
  unsigned long long cursor = 0;
  do {
    Reply reply = SendScan(session, &cursor);
    std::string out;
    for (const Reply& key : reply.elements[1].elements) {
      if (o.output == OutputMode::kStandard) {
        AppendRepr(&out, key.str);
      } else {
        out.append(key.str.c_str());  // printf("%s") stops at a NUL byte
      }
      out.push_back('\n');
    }
    fwrite(out.data(), 1, out.size(), stdout);
    if (o.interval_us > 0) usleep(static_cast<useconds_t>(o.interval_us));
  } while (!g_stop_requested && cursor != 0);
  fflush(stdout);
  return 0;
}

int RunBigKeysMode(Session* session, bool memkeys) {
  signal(SIGINT, RequestStop);
  const Options& o = session->options();
  tools::Connection& conn = session->connection();
  std::vector<TypeInfo> types = {
      {"string", "STRLEN", "bytes"}, {"list", "LLEN", "items"},    {"set", "SCARD", "members"},
      {"hash", "HLEN", "fields"},    {"zset", "ZCARD", "members"}, {"stream", "XLEN", "entries"},
  };
  unsigned long long sampled = 0, total_length = 0, loops = 0, lookups = 0, cursor = 0;
  int first_type = -1;  // the type of the first TYPE reply (see SummaryOrder)
  const long long total_keys = DbSize(session);
  double pct = 0;

  printf("\n# Scanning the entire keyspace to find biggest keys as well as\n");
  printf("# average sizes per key type.  You can use -i 0.1 to sleep 0.1 sec\n");
  printf("# per 100 SCAN commands (not usually needed).\n\n");

  do {
    pct = 100 * static_cast<double>(sampled) / static_cast<double>(total_keys);
    Reply reply = SendScan(session, &cursor);
    ++loops;
    const std::vector<Reply>& keys = reply.elements[1].elements;

    // Pipeline TYPE for the batch, then the size commands.
    for (const Reply& key : keys) conn.AppendViews(std::vector<std::string_view>{"TYPE", key.str});
    std::vector<int> type_of(keys.size(), -1);
    for (size_t i = 0; i < keys.size(); ++i) {
      Reply type;
      if (!conn.ReadReply(&type)) {
        fprintf(stderr, "Error getting type for key '%s' (%d: %s)\n", keys[i].str.c_str(), 1,
                conn.error().c_str());
        exit(1);
      }
      if (type.type != Reply::Type::kStatus) {
        if (type.type == Reply::Type::kError) {
          fprintf(stderr, "TYPE returned an error: %s\n", type.str.c_str());
        } else {
          fprintf(stderr, "Invalid reply type (%d) for TYPE on key '%s'!\n",
                  static_cast<int>(type.type), keys[i].str.c_str());
        }
        exit(1);
      }
      ++lookups;
      for (size_t t = 0; t < types.size(); ++t) {
        if (types[t].name == type.str) type_of[i] = static_cast<int>(t);
      }
      if (lookups == 1) first_type = type_of[i];
      // A type we do not know (a module's) gets its own line; "none" means the key is gone.
      if (type_of[i] < 0 && type.str != "none") {
        types.push_back({type.str, nullptr, nullptr});
        type_of[i] = static_cast<int>(types.size() - 1);
      }
    }
    auto sized = [&](size_t i) {
      return type_of[i] >= 0 && (memkeys || types[type_of[i]].size_command != nullptr);
    };
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!sized(i)) continue;
      if (!memkeys) {
        conn.AppendViews(
            std::vector<std::string_view>{types[type_of[i]].size_command, keys[i].str});
      } else if (o.memkeys_samples == 0) {
        conn.AppendViews(std::vector<std::string_view>{"MEMORY", "USAGE", keys[i].str});
      } else {
        const std::string samples = std::to_string(o.memkeys_samples);
        conn.AppendViews(
            std::vector<std::string_view>{"MEMORY", "USAGE", keys[i].str, "SAMPLES", samples});
      }
    }
    std::vector<unsigned long long> sizes(keys.size(), 0);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!sized(i)) continue;
      Reply size;
      if (!conn.ReadReply(&size)) {
        fprintf(stderr, "Error getting size for key '%s' (%d: %s)\n", keys[i].str.c_str(), 1,
                conn.error().c_str());
        exit(1);
      }
      if (size.type != Reply::Type::kInteger) {
        // The key may have changed type between TYPE and the size command (or the server
        // lacks MEMORY USAGE): counted with size 0, as redis-cli does.
        fprintf(stderr, "Warning:  %s on '%s' failed (may have changed type)\n",
                memkeys ? "MEMORY USAGE" : types[type_of[i]].size_command, keys[i].str.c_str());
      } else {
        sizes[i] = static_cast<unsigned long long>(size.integer);
      }
    }

    for (size_t i = 0; i < keys.size(); ++i) {
      if (type_of[i] < 0) continue;
      TypeInfo& t = types[type_of[i]];
      t.total += sizes[i];
      t.count++;
      total_length += keys[i].str.size();
      sampled++;
      if (t.biggest < sizes[i]) {
        t.biggest_key = Repr(keys[i].str);
        printf("[%05.2f%%] Biggest %-6s found so far '%s' with %llu %s\n", pct, t.name.c_str(),
               t.biggest_key.c_str(), sizes[i], Unit(t, memkeys));
        t.biggest = sizes[i];
      }
      if (sampled % 1000000 == 0) printf("[%05.2f%%] Sampled %llu keys so far\n", pct, sampled);
    }
    SleepEvery100Loops(o, loops);
  } while (!g_stop_requested && cursor != 0);

  printf("\n-------- summary -------\n\n");
  if (g_stop_requested) printf("[%05.2f%%] ", pct);
  printf("Sampled %llu keys in the keyspace!\n", sampled);
  printf("Total key length in bytes is %llu (avg len %.2f)\n\n", total_length,
         total_length ? static_cast<double>(total_length) / sampled : 0);
  const std::vector<size_t> order = SummaryOrder(types, lookups, first_type);
  for (size_t i : order) {
    const TypeInfo& t = types[i];
    if (t.biggest_key.empty()) continue;
    printf("Biggest %6s found '%s' has %llu %s\n", t.name.c_str(), t.biggest_key.c_str(), t.biggest,
           Unit(t, memkeys));
  }
  printf("\n");
  for (size_t i : order) {
    const TypeInfo& t = types[i];
    printf("%llu %ss with %llu %s (%05.2f%% of keys, avg size %.2f)\n", t.count, t.name.c_str(),
           t.total, Unit(t, memkeys), sampled ? 100 * static_cast<double>(t.count) / sampled : 0,
           t.count ? static_cast<double>(t.total) / t.count : 0);
  }
  fflush(stdout);
  return 0;
}

int RunHotKeysMode(Session* session) {
  signal(SIGINT, RequestStop);
  const Options& o = session->options();
  tools::Connection& conn = session->connection();
  unsigned long long counters[kHotKeysSample] = {};
  std::string hotkeys[kHotKeysSample];
  unsigned long long sampled = 0, loops = 0, cursor = 0;
  const long long total_keys = DbSize(session);
  double pct = 0;

  printf("\n# Scanning the entire keyspace to find hot keys as well as\n");
  printf("# average sizes per key type.  You can use -i 0.1 to sleep 0.1 sec\n");
  printf("# per 100 SCAN commands (not usually needed).\n\n");
  fflush(stdout);

  do {
    pct = 100 * static_cast<double>(sampled) / static_cast<double>(total_keys);
    Reply reply = SendScan(session, &cursor);
    ++loops;
    const std::vector<Reply>& keys = reply.elements[1].elements;
    for (const Reply& key : keys) {
      conn.AppendViews(std::vector<std::string_view>{"OBJECT", "FREQ", key.str});
    }
    std::vector<unsigned long long> freqs(keys.size(), 0);
    for (size_t i = 0; i < keys.size(); ++i) {
      Reply freq;
      if (!conn.ReadReply(&freq)) {
        fprintf(stderr, "Error getting freq for key '%s' (%d: %s)\n", Repr(keys[i].str).c_str(), 1,
                conn.error().c_str());
        exit(1);
      }
      if (freq.type == Reply::Type::kError) {
        fprintf(stderr, "Error: %s\n", freq.str.c_str());
        exit(1);
      }
      if (freq.type != Reply::Type::kInteger) {
        fprintf(stderr, "Warning: %s on '%s' failed (may have changed type)\n", "OBJECT FREQ",
                Repr(keys[i].str).c_str());
      } else {
        freqs[i] = static_cast<unsigned long long>(freq.integer);
      }
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      sampled++;
      if (sampled % 1000000 == 0) printf("[%05.2f%%] Sampled %llu keys so far\n", pct, sampled);
      // counters[] is sorted ascending; find where this key belongs, evicting the coldest.
      size_t k = 0;
      while (k < kHotKeysSample && freqs[i] > counters[k]) ++k;
      if (k == 0) continue;
      --k;
      if (k != 0 && counters[k] != 0) {
        for (size_t j = 0; j < k; ++j) {
          counters[j] = counters[j + 1];
          hotkeys[j] = hotkeys[j + 1];
        }
      }
      counters[k] = freqs[i];
      hotkeys[k] = Repr(keys[i].str);
      printf("[%05.2f%%] Hot key '%s' found so far with counter %llu\n", pct, hotkeys[k].c_str(),
             freqs[i]);
    }
    SleepEvery100Loops(o, loops);
  } while (!g_stop_requested && cursor != 0);

  printf("\n-------- summary -------\n\n");
  if (g_stop_requested) printf("[%05.2f%%] ", pct);
  printf("Sampled %llu keys in the keyspace!\n", sampled);
  for (size_t i = 1; i <= kHotKeysSample; ++i) {
    const size_t k = kHotKeysSample - i;
    if (counters[k] > 0) {
      printf("hot key found with counter: %llu\tkeyname: %s\n", counters[k], hotkeys[k].c_str());
    }
  }
  fflush(stdout);
  return 0;
}

}  // namespace vireo::cli
