// vireo-cli's command line: the flags of valkey-cli 8.0 (and redis-cli 7.0) with the same
// meaning, messages and exit codes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/connection.h"
#include "common/reply_format.h"

namespace vireo::cli {

using tools::OutputMode;

// --cluster <command> [args...] and its --cluster-* options.
struct ClusterOptions {
  std::string command;            // empty: not in cluster manager mode
  std::vector<std::string> args;  // the command's positional arguments
  int replicas = 0;
  std::string master_id, from, to, from_user, from_pass;
  std::vector<std::string> weights;  // "node=weight"
  int slots = 0;
  int timeout_ms = 60000;  // MIGRATE timeout
  int pipeline = 10;       // keys per MIGRATE
  double threshold = 2.0;  // rebalance threshold, percent
  bool yes = false, simulate = false, replace = false, copy = false, replica = false,
       empty_masters = false, search_multiple_owners = false, fix_with_unreachable = false,
       only_masters = false, only_replicas = false, from_askpass = false;
  // --cluster-use-atomic-slot-migration (valkey-cli 9.0): reshard and rebalance send CLUSTER
  // MIGRATESLOTS without asking COMMAND INFO first (falling back when the source refuses it).
  bool atomic_migration = false;
};

struct Options {
  // Where and who.
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string socket_path;  // -s; overrides host and port
  int connect_timeout_ms = 0;  // -t; 0 = the OS's
  bool prefer_ipv6 = false;    // -6 (-4, the default, sets it back)
  std::optional<std::string> password;
  std::optional<std::string> user;
  bool askpass = false;
  int dbnum = 0;
  int resp = 2;  // 3 with -3
  bool resp2_flag = false, resp3_flag = false;
  bool json_flag = false;  // --json / --quoted-json seen (they ask for RESP3 even if overridden)
  tools::TlsClientOptions tls;  // --tls, --cacert, --cert, --key, --sni, --insecure

  // How commands run and print.
  int64_t repeat = 1;
  int64_t interval_us = 0;               // -i
  bool stdin_last_arg = false;           // -x
  std::optional<std::string> stdin_tag;  // -X <tag>
  std::string element_delim = "\n";      // -d
  std::string reply_delim = "\n";        // -D
  bool cluster_mode = false;             // -c
  bool exit_on_error = false;            // -e
  OutputMode output = OutputMode::kStandard;
  bool quoted_input = false;
  bool show_pushes = true;
  bool no_auth_warning = false;
  bool verbose = false;

  // Modes.
  bool stat = false, latency = false, latency_history = false;
  bool pipe = false;
  int pipe_timeout_s = 30;
  bool bigkeys = false, memkeys = false, hotkeys = false, scan = false;
  int memkeys_samples = 0;
  std::optional<std::string> pattern;
  int scan_count = 10;          // --count (a valkey-cli flag; redis-cli 7.0 always asks for 10)
  // --intrinsic-latency; any number runs the test (0 or less: one round, as valkey-cli).
  std::optional<int> intrinsic_latency_s;
  std::optional<std::string> eval_file;
  ClusterOptions cluster;

  std::vector<std::string> command;  // what is left after the options
};

// Parses argv (stdout_is_tty picks the default output form). Returns -1 to go on, or the exit
// code when the options ask to stop (--help, --version, a bad flag: the message is printed).
int ParseOptions(int argc, char** argv, bool stdout_is_tty, Options* options);

// Applies the environment (VIREOCLI_AUTH / REDISCLI_AUTH, ..._CLUSTER_YES) without overriding
// the command line.
void ApplyEnvironment(Options* options);

// Prints the usage text (to stderr with exit code 1 on misuse, else stdout) and returns the code.
int PrintUsage(int code);

// The version line's number ("0.1.0").
const char* Version();

}  // namespace vireo::cli
