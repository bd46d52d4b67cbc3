#include "server/config.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <variant>

#include "commands/command_table.h"
#include "common/glob.h"
#include "common/log.h"
#include "common/numbers.h"
#include "common/split_args.h"
#include "server/config_directives.h"
#include "server/fd_limit.h"
#include "server/latency_tracking.h"
#include "server/notify_flags.h"

namespace vireo {
namespace {

enum class Kind {
  kBool, kInt, kMemory, kString, kEnum, kSave, kBind, kGeneric,
  kOutputLimits,  // client-output-buffer-limit
  kNotifyEvents,  // notify-keyspace-events
  kPercentiles,   // latency-tracking-info-percentiles
};

using Field = std::variant<std::monostate, bool Config::*, int64_t Config::*,
                           std::string Config::*>;

struct Directive {
  const char* name;
  Kind kind;
  Field field;
  int64_t min = 0;
  int64_t max = INT_MAX;
  const char* enum_values = nullptr;  // "debug,verbose,notice,warning"
  bool immutable = false;
  GenericKind generic_kind = GenericKind::kString;
  GenericCheck generic_check = GenericCheck::kNone;
  // Settable at run time only when enable-protected-configs allows it (dir, dbfilename).
  bool protected_config = false;
};

std::vector<Directive> BuildDirectives() {
  std::vector<Directive> d = {
      {"port", Kind::kInt, &Config::port, 0, 65535},
      {"bind", Kind::kBind, {}},
      {"tcp-backlog", Kind::kInt, &Config::tcp_backlog, 0, INT_MAX, nullptr, true},
      {"unixsocket", Kind::kString, &Config::unixsocket, 0, 0, nullptr, true},
      {"unixsocketgroup", Kind::kString, &Config::unixsocketgroup, 0, 0, nullptr, true},
      {"unixsocketperm", Kind::kInt, &Config::unixsocketperm, 0, 0777, nullptr, true},
      {"timeout", Kind::kInt, &Config::timeout, 0, INT_MAX},
      {"tcp-keepalive", Kind::kInt, &Config::tcp_keepalive, 0, INT_MAX},
      {"maxclients", Kind::kInt, &Config::maxclients, 1, UINT32_MAX},
      {"protected-mode", Kind::kBool, &Config::protected_mode},
      {"enable-scripting", Kind::kBool, &Config::enable_scripting, 0, 0, nullptr, true},
      // Settable at run time since Valkey 9.0 (Server::ApplyIoThreads).
      {"io-threads", Kind::kInt, &Config::io_threads, 1, 128},
      {"events-per-io-thread", Kind::kInt, &Config::events_per_io_thread, 0, INT_MAX},
      {"prefetch-batch-max-size", Kind::kInt, &Config::prefetch_batch_max_size, 0, 128},
      {"metrics-port", Kind::kInt, &Config::metrics_port, 0, 65535, nullptr, true},
      {"metrics-bind", Kind::kBind, {}, 0, 0, nullptr, true},
      {"databases", Kind::kInt, &Config::databases, 1, INT_MAX, nullptr, true},
      {"hz", Kind::kInt, &Config::hz, 0, INT_MAX},
      {"daemonize", Kind::kBool, &Config::daemonize, 0, 0, nullptr, true},
      {"pidfile", Kind::kString, &Config::pidfile, 0, 0, nullptr, true},
      {"logfile", Kind::kString, &Config::logfile, 0, 0, nullptr, true},
      {"loglevel", Kind::kEnum, &Config::loglevel, 0, 0, "debug,verbose,notice,warning,nothing"},
      {"log-format", Kind::kEnum, &Config::log_format, 0, 0, "legacy,logfmt"},
      {"log-timestamp-format", Kind::kEnum, &Config::log_timestamp_format, 0, 0,
       "legacy,iso8601,milliseconds"},
      {"dir", Kind::kString, &Config::dir},
      {"requirepass", Kind::kString, &Config::requirepass},
      {"enable-debug-command", Kind::kEnum, &Config::enable_debug_command, 0, 0, "no,yes,local",
       true},
      {"enable-protected-configs", Kind::kEnum, &Config::enable_protected_configs, 0, 0,
       "no,yes,local", true},
      {"enable-module-command", Kind::kEnum, &Config::enable_module_command, 0, 0,
       "no,yes,local", true},
      {"proto-max-bulk-len", Kind::kMemory, &Config::proto_max_bulk_len, 1024 * 1024,
       LLONG_MAX},
      {"client-query-buffer-limit", Kind::kMemory, &Config::client_query_buffer_limit,
       1024 * 1024, LLONG_MAX},
      {"maxmemory", Kind::kMemory, &Config::maxmemory, 0, LLONG_MAX},
      {"maxmemory-clients", Kind::kMemory, &Config::maxmemory_clients, 0, LLONG_MAX},
      {"maxmemory-policy", Kind::kEnum, &Config::maxmemory_policy, 0, 0,
       "volatile-lru,volatile-lfu,volatile-random,volatile-ttl,allkeys-lru,allkeys-lfu,"
       "allkeys-random,noeviction"},
      {"maxmemory-samples", Kind::kInt, &Config::maxmemory_samples, 1, 64},
      {"maxmemory-eviction-tenacity", Kind::kInt, &Config::maxmemory_eviction_tenacity, 0, 100},
      {"lfu-log-factor", Kind::kInt, &Config::lfu_log_factor, 0, INT_MAX},
      {"lfu-decay-time", Kind::kInt, &Config::lfu_decay_time, 0, INT_MAX},
      {"save", Kind::kSave, {}},
      {"dbfilename", Kind::kString, &Config::dbfilename},
      {"rdbcompression", Kind::kBool, &Config::rdbcompression},
      {"rdbchecksum", Kind::kBool, &Config::rdbchecksum, 0, 0, nullptr, true},
      {"rdb-key-save-delay", Kind::kInt, &Config::rdb_key_save_delay, INT_MIN, INT_MAX},
      {"appendonly", Kind::kBool, &Config::appendonly},
      {"appendfilename", Kind::kString, &Config::appendfilename, 0, 0, nullptr, true},
      {"appendfsync", Kind::kEnum, &Config::appendfsync, 0, 0, "everysec,always,no"},
      {"slowlog-log-slower-than", Kind::kInt, &Config::slowlog_log_slower_than, -1, LLONG_MAX},
      {"slowlog-max-len", Kind::kInt, &Config::slowlog_max_len, 0, LONG_MAX},
      {"commandlog-request-larger-than", Kind::kInt, &Config::commandlog_request_larger_than,
       -1, LLONG_MAX},
      {"commandlog-large-request-max-len", Kind::kInt, &Config::commandlog_large_request_max_len,
       0, LONG_MAX},
      {"commandlog-reply-larger-than", Kind::kInt, &Config::commandlog_reply_larger_than, -1,
       LLONG_MAX},
      {"commandlog-large-reply-max-len", Kind::kInt, &Config::commandlog_large_reply_max_len, 0,
       LONG_MAX},
      {"latency-monitor-threshold", Kind::kInt, &Config::latency_monitor_threshold, 0,
       LLONG_MAX},
      {"latency-tracking", Kind::kBool, &Config::latency_tracking},
      {"latency-tracking-info-percentiles", Kind::kPercentiles, {}},
      {"lazyfree-lazy-user-del", Kind::kBool, &Config::lazyfree_lazy_user_del},
      {"lazyfree-lazy-user-flush", Kind::kBool, &Config::lazyfree_lazy_user_flush},
      {"lazyfree-lazy-expire", Kind::kBool, &Config::lazyfree_lazy_expire},
      {"lazyfree-lazy-server-del", Kind::kBool, &Config::lazyfree_lazy_server_del},
      {"lazyfree-lazy-eviction", Kind::kBool, &Config::lazyfree_lazy_eviction},
      {"active-expire-effort", Kind::kInt, &Config::active_expire_effort, 1, 10},
      {"activerehashing", Kind::kBool, &Config::activerehashing},
      {"cluster-slot-stats-enabled", Kind::kBool, &Config::cluster_slot_stats_enabled},
      {"hash-max-listpack-entries", Kind::kInt, &Config::hash_max_listpack_entries, 0, LONG_MAX},
      {"hash-max-listpack-value", Kind::kMemory, &Config::hash_max_listpack_value, 0, LONG_MAX},
      {"list-max-listpack-size", Kind::kInt, &Config::list_max_listpack_size, INT_MIN, INT_MAX},
      {"list-compress-depth", Kind::kInt, &Config::list_compress_depth, 0, INT_MAX},
      {"set-max-intset-entries", Kind::kInt, &Config::set_max_intset_entries, 0, LONG_MAX},
      {"set-max-listpack-entries", Kind::kInt, &Config::set_max_listpack_entries, 0, LONG_MAX},
      {"set-max-listpack-value", Kind::kInt, &Config::set_max_listpack_value, 0, LONG_MAX},
      {"zset-max-listpack-entries", Kind::kInt, &Config::zset_max_listpack_entries, 0, LONG_MAX},
      {"zset-max-listpack-value", Kind::kMemory, &Config::zset_max_listpack_value, 0, LONG_MAX},
      {"stream-node-max-bytes", Kind::kMemory, &Config::stream_node_max_bytes, 0, LLONG_MAX},
      {"stream-node-max-entries", Kind::kInt, &Config::stream_node_max_entries, 0, LLONG_MAX},
      {"client-output-buffer-limit", Kind::kOutputLimits, {}},
      {"notify-keyspace-events", Kind::kNotifyEvents, {}},
      {"tracking-table-max-keys", Kind::kInt, &Config::tracking_table_max_keys, 0, LONG_MAX},
  };
  for (const GenericDirective& g : kGenericDirectives) {
    Directive dir{g.name, Kind::kGeneric, {}};
    dir.immutable = g.immutable;
    dir.generic_kind = g.kind;
    dir.min = g.min;
    dir.max = g.max;
    dir.enum_values = g.enum_values;
    dir.generic_check = g.check;
    d.push_back(dir);
  }
  for (Directive& dir : d) {
    std::string_view name = dir.name;
    dir.protected_config = name == "dir" || name == "dbfilename";
  }
  return d;
}

const std::vector<Directive>& Directives() {
  static const std::vector<Directive> d = BuildDirectives();
  return d;
}

std::string_view CanonicalName(std::string_view name) {
  for (const auto& alias : kConfigAliases) {
    if (EqualsIgnoreCase(name, alias[0])) return alias[1];
  }
  return name;
}

const Directive* FindDirective(std::string_view name) {
  name = CanonicalName(name);
  for (const Directive& d : Directives()) {
    if (EqualsIgnoreCase(name, d.name)) return &d;
  }
  return nullptr;
}

std::string RangeError(const Directive& d) {
  return "argument must be between " + std::to_string(d.min) + " and " + std::to_string(d.max) +
         " inclusive";
}

std::string ParseBool(std::string_view v, bool* out) {
  if (EqualsIgnoreCase(v, "yes")) {
    *out = true;
  } else if (EqualsIgnoreCase(v, "no")) {
    *out = false;
  } else {
    return "argument must be 'yes' or 'no'";
  }
  return "";
}

std::string ParseSave(const std::vector<std::string>& args, ConfigSource source,
                      std::vector<SavePoint>* out) {
  // In a file each "save" line adds a point; from CONFIG SET the value is the whole list.
  std::vector<std::string> words;
  for (const std::string& a : args) {
    std::istringstream in(a);
    std::string w;
    while (in >> w) words.push_back(w);
  }
  if (words.empty() || (words.size() == 1 && words[0].empty())) {
    out->clear();
    return "";
  }
  if (words.size() % 2 != 0) return "Invalid save parameters";
  std::vector<SavePoint> points;
  for (size_t i = 0; i < words.size(); i += 2) {
    int64_t secs, changes;
    if (!ParseInt64(words[i], &secs) || !ParseInt64(words[i + 1], &changes) || secs < 1 ||
        changes < 0) {
      return "Invalid save parameters";
    }
    points.push_back({secs, changes});
  }
  if (source == ConfigSource::kRuntime) {
    *out = points;
  } else {
    out->insert(out->end(), points.begin(), points.end());
  }
  return "";
}

std::string FormatSave(const std::vector<SavePoint>& points) {
  std::string s;
  for (const SavePoint& p : points) {
    if (!s.empty()) s += ' ';
    s += std::to_string(p.seconds) + " " + std::to_string(p.changes);
  }
  return s;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) {
    if (!s.empty()) s += ' ';
    s += x;
  }
  return s;
}

// The enum option v names (case-insensitive), in its canonical spelling.
std::string ParseEnum(const Directive& d, std::string_view v, std::string* out) {
  std::string values = d.enum_values;
  std::istringstream in(values);
  std::string option, list;
  while (std::getline(in, option, ',')) {
    if (EqualsIgnoreCase(option, v)) {
      *out = option;
      return "";
    }
    list += (list.empty() ? "" : ", ") + option;
  }
  return "argument(s) must be one of the following: " + list;
}

// Space-separated options of the list (a flags directive: shutdown-on-sigterm "nosave now"),
// written back in the list's order; the first option ("default") stands for none of them.
std::string ParseFlags(const Directive& d, std::string_view v, std::string* out) {
  std::vector<std::string> options;
  std::istringstream list(d.enum_values);
  for (std::string option; std::getline(list, option, ',');) options.push_back(option);
  std::vector<bool> chosen(options.size(), false);
  std::istringstream words{std::string(v)};
  size_t count = 0;
  for (std::string word; words >> word; ++count) {
    std::string option;
    std::string err = ParseEnum(d, word, &option);
    if (!err.empty()) return err;
    chosen[std::find(options.begin(), options.end(), option) - options.begin()] = true;
  }
  if (count == 0) return ParseEnum(d, v, out);  // nothing given: the enum's own error
  if (std::string_view(d.name).rfind("shutdown-on-", 0) == 0 && chosen[1] && chosen[2]) {
    return "shutdown options SAVE and NOSAVE can't be used simultaneously";
  }
  out->clear();
  for (size_t i = 1; i < options.size(); ++i) {
    if (chosen[i]) *out += (out->empty() ? "" : " ") + options[i];
  }
  if (out->empty()) *out = options.front();
  return "";
}

// True for "<digits>[unit]": a well-formed memory value too large for int64.
bool IsOverflowingMemoryValue(std::string_view v) {
  size_t digits = 0;
  while (digits < v.size() && v[digits] >= '0' && v[digits] <= '9') ++digits;
  if (digits == 0) return false;
  std::string unit = ToLower(v.substr(digits));
  return unit.empty() || unit == "k" || unit == "kb" || unit == "m" || unit == "mb" ||
         unit == "g" || unit == "gb";
}

std::string ParseInteger(const Directive& d, std::string_view v, bool memory, int64_t* out) {
  int64_t n;
  if (memory) {
    if (!ParseMemorySize(v, &n)) {
      return IsOverflowingMemoryValue(v) ? RangeError(d) : "argument must be a memory value";
    }
  } else if (!ParseInt64(v, &n)) {
    return "argument couldn't be parsed into an integer";
  }
  if (n < d.min || n > d.max) {
    return memory && n < 0 ? "argument must be a memory value" : RangeError(d);
  }
  *out = n;
  return "";
}

// maxmemory-clients: "64mb" or "10%" (of maxmemory, kept as -10).
std::string ParseMemoryOrPercent(const std::string& v, int64_t* out) {
  int64_t n;
  if (!v.empty() && v.back() == '%') {
    if (!ParseInt64(std::string_view(v).substr(0, v.size() - 1), &n) || n < 0) {
      return "argument must be a memory or percent value";
    }
    if (n > 100) return "percentage argument must be less or equal to 100";
    *out = -n;
    return "";
  }
  if (!ParseMemorySize(v, &n) || n < 0) return "argument must be a memory or percent value";
  *out = n;
  return "";
}

std::string ApplyDirective(Config* config, const Directive& d,
                           const std::vector<std::string>& args, ConfigSource source) {
  if (d.kind == Kind::kSave) {
    // A bare "save" line sets nothing, as in Valkey: being the first save line, it only drops
    // the default points (LoadConfigText).
    if (args.empty()) return "";
    return ParseSave(args, source, &config->save);
  }
  if (d.kind == Kind::kBind) {
    if (args.empty()) return "wrong number of arguments";
    std::vector<std::string> addrs;
    for (const std::string& a : args) {
      std::istringstream in(a);
      std::string w;
      while (in >> w) addrs.push_back(w);
    }
    if (addrs.size() > 16) return "Too many bind addresses specified.";
    if (std::strcmp(d.name, "metrics-bind") == 0) {
      config->metrics_bind = addrs;
      return "";
    }
    config->bind = addrs;
    config->bind_explicit = true;
    return "";
  }
  if (d.kind == Kind::kOutputLimits) {
    if (args.empty()) return "wrong number of arguments";
    return ParseOutputBufferLimits(args, &config->client_obuf_limits);
  }
  if (d.kind == Kind::kPercentiles) {
    // A file line has the numbers as arguments; CONFIG SET has them in one string.
    return ParsePercentiles(Join(args), &config->latency_tracking_info_percentiles);
  }
  if (d.kind == Kind::kNotifyEvents) {
    if (args.size() != 1) return "wrong number of arguments";
    if (!ParseNotifyFlags(args[0], &config->notify_keyspace_events)) {
      return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
    }
    return "";
  }
  if (d.name == std::string_view("oom-score-adj-values")) {
    // Three scores (primary, replica, background child): a file line has them as arguments,
    // CONFIG SET in one string. Stored for CONFIG GET; Vireo does not write oom_score_adj.
    std::vector<std::string> scores;
    std::istringstream words(Join(args));
    for (std::string w; words >> w;) scores.push_back(w);
    if (scores.size() != 3) return "wrong number of arguments";
    for (const std::string& s : scores) {
      int64_t v;
      if (!ParseInt64(s, &v) || v < -2000 || v > 2000) {
        return "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
      }
    }
    config->generic[d.name] = Join(scores);
    return "";
  }
  if (d.kind == Kind::kGeneric && d.generic_kind == GenericKind::kString && args.size() > 1) {
    // List-valued directives not modeled yet ("oom-score-adj-values 0 200 800") keep their
    // words as one value, as CONFIG GET shows them.
    std::string err = CheckGenericValue(d.generic_check, Join(args));
    if (err.empty()) config->generic[d.name] = Join(args);
    return err;
  }
  if (args.size() != 1) return "wrong number of arguments";
  const std::string& v = args[0];
  switch (d.kind) {
    case Kind::kBool: {
      bool b;
      std::string err = ParseBool(v, &b);
      if (err.empty()) config->*std::get<bool Config::*>(d.field) = b;
      return err;
    }
    case Kind::kInt:
    case Kind::kMemory: {
      int64_t n;
      if (std::get<int64_t Config::*>(d.field) == &Config::unixsocketperm) {
        // Permission bits are octal, as chmod takes them ("700").
        char* end = nullptr;
        errno = 0;
        n = strtoll(v.c_str(), &end, 8);
        if (v.empty() || *end != '\0' || errno != 0) {
          return "argument couldn't be parsed as an octal number";
        }
        if (n < 0 || n > 0777) return "argument must be between 0 and 777 inclusive";
        config->unixsocketperm = n;
        return "";
      }
      if (std::get<int64_t Config::*>(d.field) == &Config::maxmemory_clients) {
        return ParseMemoryOrPercent(v, &config->maxmemory_clients);
      }
      std::string err = ParseInteger(d, v, d.kind == Kind::kMemory, &n);
      if (!err.empty()) return err;
      // Valkey accepts any hz but runs, and reports, it within 1..500.
      if (std::get<int64_t Config::*>(d.field) == &Config::hz) n = std::clamp<int64_t>(n, 1, 500);
      config->*std::get<int64_t Config::*>(d.field) = n;
      return "";
    }
    case Kind::kString:
      config->*std::get<std::string Config::*>(d.field) = v;
      return "";
    case Kind::kEnum: {
      std::string option;
      std::string err = ParseEnum(d, v, &option);
      if (err.empty()) config->*std::get<std::string Config::*>(d.field) = option;
      return err;
    }
    case Kind::kGeneric: {
      std::string value = v;
      if (d.generic_kind == GenericKind::kString) {
        std::string err = CheckGenericValue(d.generic_check, v);
        if (!err.empty()) return err;
      } else if (d.generic_kind == GenericKind::kBool) {
        bool b;
        std::string err = ParseBool(v, &b);
        if (!err.empty()) return err;
        value = b ? "yes" : "no";
      } else if (d.generic_kind == GenericKind::kEnum) {
        std::string err = ParseEnum(d, v, &value);
        if (!err.empty()) return err;
      } else if (d.generic_kind == GenericKind::kFlags) {
        std::string err = ParseFlags(d, v, &value);
        if (!err.empty()) return err;
      } else if (d.generic_kind == GenericKind::kInt || d.generic_kind == GenericKind::kMemory) {
        int64_t n;
        std::string err = ParseInteger(d, v, d.generic_kind == GenericKind::kMemory, &n);
        if (!err.empty()) return err;
        value = std::to_string(n);
      }
      config->generic[d.name] = value;
      return "";
    }
    default:
      return "Bad directive or wrong number of arguments";
  }
}

std::string FormatValue(const Config& config, const Directive& d) {
  switch (d.kind) {
    case Kind::kBool:
      return config.*std::get<bool Config::*>(d.field) ? "yes" : "no";
    case Kind::kInt:
    case Kind::kMemory:
      if (std::get<int64_t Config::*>(d.field) == &Config::unixsocketperm) {
        char octal[16];
        snprintf(octal, sizeof(octal), "%llo",
                 static_cast<unsigned long long>(config.unixsocketperm));
        return octal;
      }
      if (std::get<int64_t Config::*>(d.field) == &Config::maxmemory_clients &&
          config.maxmemory_clients < 0) {
        return std::to_string(-config.maxmemory_clients) + "%";
      }
      return std::to_string(config.*std::get<int64_t Config::*>(d.field));
    case Kind::kString:
    case Kind::kEnum:
      return config.*std::get<std::string Config::*>(d.field);
    case Kind::kSave:
      return FormatSave(config.save);
    case Kind::kBind:
      return Join(std::strcmp(d.name, "metrics-bind") == 0 ? config.metrics_bind : config.bind);
    case Kind::kOutputLimits:
      return FormatOutputBufferLimits(config.client_obuf_limits);
    case Kind::kPercentiles:
      return FormatPercentiles(config.latency_tracking_info_percentiles);
    case Kind::kNotifyEvents:
      return FormatNotifyFlags(config.notify_keyspace_events);
    case Kind::kGeneric: {
      auto it = config.generic.find(d.name);
      if (it != config.generic.end()) return it->second;
      for (const GenericDirective& g : kGenericDirectives) {
        if (std::string_view(g.name) == d.name) return g.default_value;
      }
      return "";
    }
  }
  return "";
}

}  // namespace

bool IsConfigName(std::string_view name) { return FindDirective(name) != nullptr; }

std::string ApplyConfigDirective(Config* config, std::string_view name,
                                 const std::vector<std::string>& args, ConfigSource source) {
  const Directive* d = FindDirective(name);
  if (d == nullptr) return "Bad directive or wrong number of arguments";
  return ApplyDirective(config, *d, args, source);
}

bool LoadConfigText(Config* config, std::string_view text, std::string* error) {
  size_t line_no = 0;
  size_t pos = 0;
  bool save_seen = false;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> words;
    std::string reason;
    if (!SplitQuotedArgs(line, &words)) {
      reason = "Unbalanced quotes in configuration line";
    } else if (!words.empty()) {
      std::string name = ToLower(words[0]);
      std::vector<std::string> args(words.begin() + 1, words.end());
      // The first "save" line replaces the defaults; later ones add points.
      if (name == "save" && !save_seen) {
        save_seen = true;
        config->save.clear();
      }
      if (name == "include") {
        reason = "include is not supported yet";
      } else if (name == "loadmodule") {
        // Valkey aborts when a module fails to load; here none can (see MODULE).
        reason = "Vireo has no module API, so it cannot load modules";
      } else if (name == "rename-command" && args.size() == 2) {
        // Applied to the process-wide table at once, so a later line may name the new name.
        RegisterAllCommands();
        reason = Commands().Rename(args[0], args[1]);
      } else if (name == "user") {
        if (args.empty()) reason = "Bad directive or wrong number of arguments";
        else config->acl_users.push_back(args);
      } else {
        reason = ApplyConfigDirective(config, name, args, ConfigSource::kFile);
      }
    }
    if (!reason.empty()) {
      *error = "\n*** FATAL CONFIG FILE ERROR (Vireo " VIREO_VERSION ") ***\n";
      *error += "Reading the configuration file, at line " + std::to_string(line_no) + "\n";
      *error += ">>> '" + std::string(line) + "'\n" + reason + "\n";
      return false;
    }
    if (nl == text.size()) break;
  }
  return true;
}

bool BuildConfigText(int argc, char** argv, std::string* text, std::string* config_file,
                     std::string* error) {
  int i = 1;
  if (i < argc && (argv[i][0] != '-' || argv[i][1] != '-')) {
    *config_file = argv[i];
    std::string contents;
    if (*config_file == "-") {
      std::stringstream ss;
      ss << std::cin.rdbuf();
      contents = ss.str();
    } else {
      std::ifstream in(*config_file);
      if (!in) {
        *error = "Fatal error, can't open config file '" + *config_file + "': No such file or "
                 "directory";
        return false;
      }
      std::stringstream ss;
      ss << in.rdbuf();
      contents = ss.str();
    }
    *text += contents;
    *text += "\n";
    ++i;
  }
  // Each "--name" starts a new config line; the words after it are its quoted arguments.
  bool open_line = false;
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.size() > 2 && arg.substr(0, 2) == "--") {
      if (open_line) *text += "\n";
      *text += std::string(arg.substr(2));
      open_line = true;
    } else {
      *text += " ";
      *text += QuoteArg(arg);
    }
  }
  if (open_line) *text += "\n";
  return true;
}

std::vector<std::pair<std::string, std::string>> ConfigGet(const Config& config,
                                                           std::string_view pattern) {
  std::vector<std::pair<std::string, std::string>> out;
  const bool exact = pattern.find_first_of("*?[") == std::string_view::npos;
  for (const Directive& d : Directives()) {
    if (!GlobMatch(pattern, d.name, true)) continue;
    if (!exact && std::any_of(std::begin(kHiddenConfigs), std::end(kHiddenConfigs),
                              [&](const char* h) { return d.name == std::string_view(h); })) {
      continue;
    }
    out.emplace_back(d.name, FormatValue(config, d));
  }
  for (const auto& alias : kConfigAliases) {
    if (GlobMatch(pattern, alias[0], true)) {
      const Directive* d = FindDirective(alias[1]);
      if (d != nullptr) out.emplace_back(alias[0], FormatValue(config, *d));
    }
  }
  return out;
}

std::string ConfigSet(Config* config, std::string_view name, std::string_view value) {
  const Directive* d = FindDirective(name);
  if (d == nullptr) return "unknown";
  if (d->immutable) return "can't set immutable config";
  Config candidate_check = *config;
  std::string err =
      ApplyDirective(&candidate_check, *d, {std::string(value)}, ConfigSource::kRuntime);
  if (!err.empty()) return err;
  if (candidate_check.maxclients > config->maxclients) {
    // More clients need more descriptors: refused when the open files limit cannot grow.
    const int64_t allowed = AdjustOpenFilesLimit(candidate_check.maxclients);
    if (allowed < candidate_check.maxclients) {
      LogWarning("Failed applying new configuration. Possibly related to new maxclients "
                 "setting. Restoring previous settings.");
      return "The operating system is not able to handle the specified number of clients, "
             "try with " + std::to_string(allowed);
    }
  }
  *config = std::move(candidate_check);
  return "";
}

std::string ConfigCanonicalName(std::string_view name) {
  const Directive* d = FindDirective(name);
  return d == nullptr ? std::string() : std::string(d->name);
}

bool IsProtectedConfig(std::string_view name) {
  const Directive* d = FindDirective(name);
  return d != nullptr && d->protected_config;
}

bool IsImmutableConfig(std::string_view name) {
  const Directive* d = FindDirective(name);
  return d != nullptr && d->immutable;
}

namespace {

constexpr const char* kRewriteSignature = "# Generated by CONFIG REWRITE";

// The config-file lines that set d to its current value (several for "save").
std::vector<std::string> RenderDirective(const Config& config, const Directive& d) {
  std::string name = d.name;
  std::string value = FormatValue(config, d);
  if (d.kind == Kind::kSave) {
    if (config.save.empty()) return {name + " \"\""};
    std::vector<std::string> lines;
    for (const SavePoint& p : config.save) {
      lines.push_back(name + " " + std::to_string(p.seconds) + " " + std::to_string(p.changes));
    }
    return lines;
  }
  bool memory = d.kind == Kind::kMemory ||
                (d.kind == Kind::kGeneric && d.generic_kind == GenericKind::kMemory);
  int64_t bytes;
  if (memory && ParseInt64(value, &bytes) && bytes > 0) {
    // Round sizes are written with a unit, as Valkey writes them ("maxmemory 100mb").
    static const std::pair<int64_t, const char*> kUnits[] = {
        {1024LL * 1024 * 1024, "gb"}, {1024 * 1024, "mb"}, {1024, "kb"}};
    for (const auto& [unit, suffix] : kUnits) {
      if (bytes % unit == 0) return {name + " " + std::to_string(bytes / unit) + suffix};
    }
  }
  bool list_valued = d.kind == Kind::kBind || d.kind == Kind::kOutputLimits ||
                     (d.kind == Kind::kGeneric && d.generic_kind == GenericKind::kString &&
                      value.find(' ') != std::string::npos);
  bool quoted = d.kind == Kind::kString ||
                (d.kind == Kind::kGeneric && d.generic_kind == GenericKind::kString);
  if (list_valued && !value.empty()) return {name + " " + value};  // metrics-bind "": unset
  return {name + " " + (quoted || value.empty() ? QuoteArg(value) : value)};
}

}  // namespace

bool ConfigRewrite(const Config& config, const std::string& path, std::string* error) {
  if (path.empty()) {
    *error = "The server is running without a config file";
    return false;
  }
  std::vector<std::string> lines;
  {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
  }
  // As Valkey does: every directive already in the file is rewritten in place with its current
  // value (its repeats dropped); others are appended only when they differ from the default.
  std::vector<std::string> out;
  std::map<std::string, bool> done;
  for (const std::string& l : lines) {
    if (l == kRewriteSignature) continue;
    std::vector<std::string> words;
    size_t first = l.find_first_not_of(" \t");
    if (first == std::string::npos || l[first] == '#' || !SplitQuotedArgs(l, &words) ||
        words.empty()) {
      out.push_back(l);
      continue;
    }
    const Directive* d = FindDirective(words[0]);
    if (d == nullptr) {
      out.push_back(l);  // include and other lines we do not model stay as they were
      continue;
    }
    if (done[d->name]) continue;
    done[d->name] = true;
    for (std::string& r : RenderDirective(config, *d)) out.push_back(std::move(r));
  }
  Config defaults;
  std::vector<std::string> appended;
  for (const Directive& d : Directives()) {
    if (done[d.name]) continue;
    // dir is always written: the default is wherever the server happens to be started.
    bool is_dir = std::string_view(d.name) == "dir";
    if (!is_dir && FormatValue(defaults, d) == FormatValue(config, d)) continue;
    for (std::string& r : RenderDirective(config, d)) appended.push_back(std::move(r));
  }
  if (!appended.empty()) {
    while (!out.empty() && out.back().find_first_not_of(" \t\r") == std::string::npos) {
      out.pop_back();
    }
    if (!out.empty()) out.push_back("");
    out.push_back(kRewriteSignature);
    out.insert(out.end(), appended.begin(), appended.end());
  }
  std::string tmp = path + ".tmp";
  {
    std::ofstream o(tmp, std::ios::trunc);
    for (const std::string& l : out) o << l << "\n";
    o.flush();
    if (!o) {
      *error = "Rewriting config file: " + std::string(strerror(errno));
      return false;
    }
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    *error = "Rewriting config file: " + std::string(strerror(errno));
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::string ConfigValue(const Config& config, std::string_view name) {
  auto values = ConfigGet(config, name);
  return values.empty() ? std::string() : values[0].second;
}

int64_t ConfigValueInt(const Config& config, std::string_view name, int64_t fallback) {
  int64_t v;
  return ParseInt64(ConfigValue(config, name), &v) ? v : fallback;
}

}  // namespace vireo
