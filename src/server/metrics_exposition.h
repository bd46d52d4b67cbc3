// INFO text to Prometheus text exposition (format version 0.0.4), for the metrics endpoint
// (server/metrics_endpoint.h). Pure: knows nothing of the server, so it is tested on text.
#pragma once

#include <string>
#include <string_view>

namespace vireo {

// The Content-Type of the exposition text.
inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// Turns INFO output ("# Section" headers, "field:value" lines, CRLF or LF) into exposition
// text. Every numeric field becomes `vireo_<field>`, a counter when it only grows
// (total_commands_processed, keyspace_hits, used_cpu_sys, ...) and a gauge otherwise;
// non-numeric fields are left out, except master_link_status (vireo_master_link_up 1/0) and
// a few descriptive ones gathered as labels of `vireo_info ... 1`. Keyspace lines give
// vireo_db_keys{db="db0"} (and expires, avg_ttl); commandstats give vireo_commands_total,
// vireo_commands_duration_seconds_total, vireo_commands_rejected_calls_total and
// vireo_commands_failed_calls_total with a cmd label; errorstats give vireo_errors_total{err}.
// Each family is one group with one `# TYPE` line, in order of first appearance.
std::string InfoToExposition(std::string_view info);

}  // namespace vireo
