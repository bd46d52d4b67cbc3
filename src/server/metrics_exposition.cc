#include "server/metrics_exposition.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <vector>

namespace vireo {
namespace {

constexpr std::string_view kPrefix = "vireo_";

// Word lists, each word between spaces (see Listed).
// INFO fields that only grow while the server runs: counters, for Prometheus's rate().
constexpr std::string_view kCounterFields =
    " rejected_connections sync_full sync_partial_ok sync_partial_err expired_keys"
    " expired_time_cap_reached_count expire_cycle_cpu_milliseconds evicted_keys evicted_clients"
    " keyspace_hits keyspace_misses unexpected_error_replies dump_payload_sanitizations"
    " io_threaded_reads_processed io_threaded_writes_processed reply_buffer_shrinks"
    " reply_buffer_expands rdb_saves aof_rewrites lazyfreed_objects active_defrag_hits"
    " active_defrag_misses active_defrag_key_hits active_defrag_key_misses"
    " client_query_buffer_limit_disconnections client_output_buffer_limit_disconnections ";
// Numeric-looking fields that are identifiers, not measurements.
constexpr std::string_view kSkippedFields =
    " redis_git_sha1 redis_git_dirty redis_build_id run_id master_replid master_replid2 ";
// Descriptive fields shown as labels of vireo_info.
constexpr std::string_view kInfoLabels =
    " redis_version server_name valkey_version vireo_version server_mode redis_mode os role"
    " mem_allocator maxmemory_policy ";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool Listed(std::string_view list, std::string_view field) {
  for (size_t pos = list.find(field); pos != std::string_view::npos;
       pos = list.find(field, pos + 1)) {
    size_t end = pos + field.size();
    if (pos > 0 && list[pos - 1] == ' ' && end < list.size() && list[end] == ' ') return true;
  }
  return false;
}

bool IsCounter(std::string_view field) {
  return StartsWith(field, "total_") || StartsWith(field, "used_cpu_") ||
         StartsWith(field, "acl_access_denied_") || Listed(kCounterFields, field);
}

// INFO's numbers: integers and fixed-point decimals ("-1", "0.25"). Nothing else, so hex
// IDs or "1.2M" never pass as samples.
bool IsNumber(std::string_view v) {
  size_t i = (!v.empty() && v[0] == '-') ? 1 : 0;
  size_t digits = 0, dots = 0;
  for (; i < v.size(); ++i) {
    if (v[i] >= '0' && v[i] <= '9') {
      ++digits;
    } else if (v[i] == '.' && dots == 0 && digits > 0) {
      ++dots;
    } else {
      return false;
    }
  }
  return digits > 0 && v.back() != '.';
}

// Metric names allow [a-zA-Z0-9_:]; anything else (a '-' in a field) becomes '_'.
std::string MetricName(std::string_view field) {
  std::string name(kPrefix);
  for (char ch : field) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_' || ch == ':';
    name += ok ? ch : '_';
  }
  return name;
}

// A label value with \, " and newline escaped as the format requires.
std::string LabelValue(std::string_view v) {
  std::string out;
  for (char ch : v) {
    if (ch == '\\') {
      out += "\\\\";
    } else if (ch == '"') {
      out += "\\\"";
    } else if (ch == '\n') {
      out += "\\n";
    } else {
      out += ch;
    }
  }
  return out;
}

// Families in order of first appearance; a name met again adds samples to its group. A series
// (name and labels) met again is dropped: Prometheus refuses a scrape with a repeated series.
class Families {
 public:
  void Add(const std::string& name, bool counter, std::string labels, std::string value) {
    if (!series_.insert(name + "{" + labels + "}").second) return;
    auto [it, inserted] = index_.emplace(name, families_.size());
    if (inserted) families_.push_back({name, counter, {}});
    families_[it->second].samples.push_back({std::move(labels), std::move(value)});
  }

  std::string Render() const {
    std::string out;
    for (const Family& f : families_) {
      out += "# TYPE " + f.name + (f.counter ? " counter\n" : " gauge\n");
      for (const Sample& s : f.samples) {
        out += f.name;
        if (!s.labels.empty()) out += "{" + s.labels + "}";
        out += " " + s.value + "\n";
      }
    }
    return out;
  }

 private:
  struct Sample {
    std::string labels;  // `a="x",b="y"`, or empty
    std::string value;
  };
  struct Family {
    std::string name;
    bool counter;
    std::vector<Sample> samples;
  };
  std::vector<Family> families_;
  std::map<std::string, size_t> index_;
  std::set<std::string> series_;
};

// "k1=v1,k2=v2" of keyspace, commandstats and errorstats lines.
std::map<std::string, std::string, std::less<>> SubFields(std::string_view v) {
  std::map<std::string, std::string, std::less<>> out;
  while (!v.empty()) {
    size_t comma = v.find(',');
    std::string_view pair = v.substr(0, comma);
    size_t eq = pair.find('=');
    if (eq != std::string_view::npos) {
      out.emplace(std::string(pair.substr(0, eq)), std::string(pair.substr(eq + 1)));
    }
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return out;
}

std::string Label(std::string_view name, std::string_view value) {
  return std::string(name) + "=\"" + LabelValue(value) + "\"";
}

// db0:keys=1,expires=0,avg_ttl=0
void AddKeyspace(Families* out, std::string_view db, std::string_view value) {
  for (const auto& [key, v] : SubFields(value)) {
    if (IsNumber(v)) out->Add(MetricName("db_" + key), false, Label("db", db), v);
  }
}

// cmdstat_get:calls=2,usec=15,usec_per_call=7.50,rejected_calls=0,failed_calls=0
void AddCommandStats(Families* out, std::string_view cmd, std::string_view value) {
  auto fields = SubFields(value);
  const std::string label = Label("cmd", cmd);
  auto add = [&](std::string_view key, const char* family) {
    auto it = fields.find(key);
    if (it != fields.end() && IsNumber(it->second)) out->Add(family, true, label, it->second);
  };
  add("calls", "vireo_commands_total");
  auto usec = fields.find("usec");
  if (usec != fields.end() && IsNumber(usec->second)) {
    char seconds[64];
    snprintf(seconds, sizeof(seconds), "%.6f", strtod(usec->second.c_str(), nullptr) / 1e6);
    out->Add("vireo_commands_duration_seconds_total", true, label, seconds);
  }
  add("rejected_calls", "vireo_commands_rejected_calls_total");
  add("failed_calls", "vireo_commands_failed_calls_total");
}

}  // namespace

std::string InfoToExposition(std::string_view info) {
  Families families;
  std::string info_labels;
  while (!info.empty()) {
    size_t nl = info.find('\n');
    std::string_view line = info.substr(0, nl);
    info.remove_prefix(nl == std::string_view::npos ? info.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string_view::npos || colon == 0) {
      continue;
    }
    std::string_view field = line.substr(0, colon);
    std::string_view value = line.substr(colon + 1);
    if (StartsWith(field, "cmdstat_")) {
      AddCommandStats(&families, field.substr(8), value);
    } else if (StartsWith(field, "errorstat_")) {
      auto count = SubFields(value);
      auto it = count.find("count");
      if (it != count.end() && IsNumber(it->second)) {
        families.Add("vireo_errors_total", true, Label("err", field.substr(10)), it->second);
      }
    } else if (StartsWith(field, "db") && field.size() > 2 &&
               field.find_first_not_of("0123456789", 2) == std::string_view::npos) {
      AddKeyspace(&families, field, value);
    } else if (field == "master_link_status") {
      families.Add("vireo_master_link_up", false, "", value == "up" ? "1" : "0");
    } else if (Listed(kInfoLabels, field)) {
      if (!info_labels.empty()) info_labels += ",";
      info_labels += Label(field, value);
    } else if (IsNumber(value) && !Listed(kSkippedFields, field)) {
      families.Add(MetricName(field), IsCounter(field), "", std::string(value));
    }
  }
  if (!info_labels.empty()) families.Add("vireo_info", false, info_labels, "1");
  return families.Render();
}

}  // namespace vireo
