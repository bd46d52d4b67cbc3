#include "cli/options.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/split_args.h"

namespace vireo::cli {
namespace {

constexpr const char* kUsage =
    "vireo-cli %s\n"
    "\n"
    "Usage: vireo-cli [OPTIONS] [cmd [arg [arg ...]]]\n"
    "  -h <hostname>      Server hostname (default: 127.0.0.1).\n"
    "  -p <port>          Server port (default: 6379).\n"
    "  -t <timeout>       Server connection timeout in seconds (decimals allowed).\n"
    "                     Default timeout is 0, meaning no limit, depending on the OS.\n"
    "  -s <socket>        Server socket (overrides hostname and port).\n"
    "  -a <password>      Password to use when connecting to the server.\n"
    "                     You can also use the VIREOCLI_AUTH (or REDISCLI_AUTH) environment\n"
    "                     variable to pass this password more safely\n"
    "                     (if both are used, this argument takes precedence).\n"
    "  --user <username>  Used to send ACL style 'AUTH username pass'. Needs -a.\n"
    "  --pass <password>  Alias of -a for consistency with the new --user option.\n"
    "  --askpass          Force user to input password with mask from STDIN.\n"
    "                     If this argument is used, '-a' and VIREOCLI_AUTH\n"
    "                     environment variable will be ignored.\n"
    "  -u <uri>           Server URI on format valkey://user:password@host:port/dbnum\n"
    "                     User, password and dbnum are optional. For authentication\n"
    "                     without a username, use username 'default'. For TLS, use\n"
    "                     the scheme 'valkeys'.\n"
    "  -r <repeat>        Execute specified command N times.\n"
    "  -i <interval>      When -r is used, waits <interval> seconds per command.\n"
    "                     It is possible to specify sub-second times like -i 0.1.\n"
    "                     This interval is also used in --scan and --stat per cycle.\n"
    "                     and in --bigkeys, --memkeys, and --hotkeys per 100 cycles.\n"
    "  -n <db>            Database number.\n"
    "  --tls              Establish a secure TLS connection.\n"
    "  --sni <host>       Server name indication for TLS.\n"
    "  --cacert <file>    CA Certificate file to verify with.\n"
    "  --cacertdir <dir>  Directory where trusted CA certificates are stored.\n"
    "                     If neither cacert nor cacertdir are specified, the default\n"
    "                     system-wide trusted root certs configuration will apply.\n"
    "  --insecure         Allow insecure TLS connection by skipping cert validation.\n"
    "  --cert <file>      Client certificate to authenticate with.\n"
    "  --key <file>       Private key file to authenticate with.\n"
    "  -2                 Start session in RESP2 protocol mode.\n"
    "  -3                 Start session in RESP3 protocol mode.\n"
    "  -x                 Read last argument from STDIN (see example below).\n"
    "  -X                 Read <tag> argument from STDIN (see example below).\n"
    "  -d <delimiter>     Delimiter between response bulks for raw formatting (default: \\n).\n"
    "  -D <delimiter>     Delimiter between responses for raw formatting (default: \\n).\n"
    "  -c                 Enable cluster mode (follow -ASK and -MOVED redirections).\n"
    "  -e                 Return exit error code when command execution fails.\n"
    "  -4                 Prefer IPv4 over IPv6 on DNS lookup.\n"
    "  -6                 Prefer IPv6 over IPv4 on DNS lookup.\n"
    "  --raw              Use raw formatting for replies (default when STDOUT is\n"
    "                     not a tty).\n"
    "  --no-raw           Force formatted output even when STDOUT is not a tty.\n"
    "  --quoted-input     Force input to be handled as quoted strings.\n"
    "  --csv              Output in CSV format.\n"
    "  --json             Output in JSON format (default RESP3, use -2 if you want to use with "
    "RESP2).\n"
    "  --quoted-json      Same as --json, but produce ASCII-safe quoted strings, not Unicode.\n"
    "  --show-pushes <yn> Whether to print RESP3 PUSH messages.  Enabled by default when\n"
    "                     STDOUT is a tty but can be overridden with --show-pushes no.\n"
    "  --stat             Print rolling stats about server: mem, clients, ...\n"
    "  --latency          Enter a special mode continuously sampling latency.\n"
    "                     If you use this mode in an interactive session it runs\n"
    "                     forever displaying real-time stats. Otherwise if --raw or\n"
    "                     --csv is specified, or if you redirect the output to a non\n"
    "                     TTY, it samples the latency for 1 second (you can use\n"
    "                     -i to change the interval), then produces a single output\n"
    "                     and exits.\n"
    "  --latency-history  Like --latency but tracking latency changes over time.\n"
    "                     Default time interval is 15 sec. Change it using -i.\n"
    "  --pipe             Transfer raw RESP protocol from stdin to server.\n"
    "  --pipe-timeout <n> In --pipe mode, abort with error if after sending all data.\n"
    "                     no reply is received within <n> seconds.\n"
    "                     Default timeout: 30. Use 0 to wait forever.\n"
    "  --bigkeys          Sample keys looking for keys with many elements (complexity).\n"
    "  --memkeys          Sample keys looking for keys consuming a lot of memory.\n"
    "  --memkeys-samples <n> Sample keys looking for keys consuming a lot of memory.\n"
    "                     And define number of key elements to sample\n"
    "  --hotkeys          Sample keys looking for hot keys.\n"
    "                     only works when maxmemory-policy is *lfu.\n"
    "  --scan             List all keys using the SCAN command.\n"
    "  --pattern <pat>    Keys pattern when using the --scan, --bigkeys or --hotkeys\n"
    "                     options (default: *).\n"
    "  --count <count>    Count option when using the --scan, --bigkeys or --hotkeys (default: "
    "10).\n"
    "  --quoted-pattern <pat> Same as --pattern, but the specified string can be\n"
    "                         quoted, in order to pass an otherwise non binary-safe string.\n"
    "  --intrinsic-latency <sec> Run a test to measure intrinsic system latency.\n"
    "                     The test will run for the specified amount of seconds.\n"
    "  --eval <file>      Send an EVAL command using the Lua script at <file>.\n"
    "  --cluster <command> [args...] [opts...]\n"
    "                     Cluster Manager command and arguments (see below).\n"
    "  --verbose          Verbose mode.\n"
    "  --no-auth-warning  Don't show warning message when using password on command\n"
    "                     line interface.\n"
    "  --help             Output this help and exit.\n"
    "  --version          Output version and exit.\n"
    "\n"
    "Cluster Manager Commands:\n"
    "  Use --cluster help to list all available cluster manager commands.\n"
    "\n"
    "Examples:\n"
    "  vireo-cli -u valkey://default:PASSWORD@localhost:6379/0\n"
    "  cat /etc/passwd | vireo-cli -x set mypasswd\n"
    "  vireo-cli -D \"\" --raw dump key > key.dump && vireo-cli -X dump_tag restore key2 0 "
    "dump_tag replace < key.dump\n"
    "  vireo-cli -r 100 lpush mylist x\n"
    "  vireo-cli -r 100 -i 1 info | grep used_memory_human:\n"
    "  vireo-cli --quoted-input set '\"null-\\x00-separated\"' value\n"
    "  vireo-cli --eval myscript.lua key1 key2 , arg1 arg2 arg3\n"
    "  vireo-cli --scan --pattern '*:12345*'\n"
    "  vireo-cli --scan --pattern '*:12345*' --count 100\n"
    "\n"
    "  (Note: when using --eval the comma separates KEYS[] from ARGV[] items)\n"
    "\n"
    "When no command is given, vireo-cli starts in interactive mode.\n"
    "Type \"help\" in interactive mode for information on available commands\n"
    "and settings.\n"
    "\n";

bool IsHexDigit(char c) { return isxdigit(static_cast<unsigned char>(c)) != 0; }

int HexValue(char c) {
  c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
  return c >= 'a' ? c - 'a' + 10 : c - '0';
}

// %XX decoding of URI user info; exits as redis-cli does on bad escapes.
bool PercentDecode(const char* p, size_t len, std::string* out) {
  const char* end = p + len;
  while (p < end) {
    if (*p != '%') {
      out->push_back(*p++);
      continue;
    }
    if (end - p < 3) {
      fprintf(stderr, "Incomplete URI encoding\n");
      return false;
    }
    if (!IsHexDigit(p[1]) || !IsHexDigit(p[2])) {
      fprintf(stderr, "Illegal character in URI encoding\n");
      return false;
    }
    out->push_back(static_cast<char>(HexValue(p[1]) * 16 + HexValue(p[2])));
    p += 3;
  }
  return true;
}

// redis://[[user:]password@]host[:port][/db]; returns false (message printed) to exit 1.
bool ParseUri(const char* uri, Options* o) {
  static const char* const kSchemes[] = {"redis://", "valkey://"};
  static const char* const kTlsSchemes[] = {"rediss://", "valkeys://"};
  const char* curr = uri;
  const char* end = uri + strlen(uri);
  bool matched = false;
  for (const char* scheme : kTlsSchemes) {
    if (strncasecmp(scheme, curr, strlen(scheme)) == 0) {
      curr += strlen(scheme);
      o->tls.enabled = true;
      matched = true;
      break;
    }
  }
  for (const char* scheme : kSchemes) {
    if (!matched && strncasecmp(scheme, curr, strlen(scheme)) == 0) {
      curr += strlen(scheme);
      matched = true;
      break;
    }
  }
  if (!matched) {
    fprintf(stderr, "Invalid URI scheme\n");
    return false;
  }
  if (curr == end) return true;

  if (const char* at = strchr(curr, '@')) {
    const char* colon = strchr(curr, ':');
    if (colon != nullptr && colon < at) {
      std::string user;
      if (!PercentDecode(curr, colon - curr, &user)) return false;
      o->user = user;
      curr = colon + 1;
    }
    std::string password;
    if (!PercentDecode(curr, at - curr, &password)) return false;
    o->password = password;
    curr = at + 1;
  }
  if (curr == end) return true;

  const char* path = strchr(curr, '/');
  if (*curr != '/') {
    const char* host_end = path != nullptr ? path : end;
    if (const char* colon = strchr(curr, ':')) {
      o->port = atoi(colon + 1);
      host_end = colon;
    }
    o->host.assign(curr, host_end - curr);
  }
  curr = path != nullptr ? path + 1 : end;
  if (curr == end) return true;
  o->dbnum = atoi(curr);
  return true;
}

void PrintUnrecognized(const char* arg) {
  fprintf(stderr, "Unrecognized option or bad number of args for: '%s'\n", arg);
}

// The --cluster-* flags; returns false when arg is not one of them.
bool ParseClusterFlag(int argc, char** argv, int* i, ClusterOptions* c) {
  const char* arg = argv[*i];
  const bool has_value = *i + 1 < argc;
  auto value = [&]() { return argv[++*i]; };
  struct Flag {
    const char* name;
    bool ClusterOptions::*field;
  };
  static const Flag kFlags[] = {
      // valkey-cli's "primaries" names and redis-cli's "masters" ones.
      {"--cluster-only-masters", &ClusterOptions::only_masters},
      {"--cluster-only-primaries", &ClusterOptions::only_masters},
      {"--cluster-only-replicas", &ClusterOptions::only_replicas},
      {"--cluster-from-askpass", &ClusterOptions::from_askpass},
      {"--cluster-yes", &ClusterOptions::yes},
      {"--cluster-simulate", &ClusterOptions::simulate},
      {"--cluster-replace", &ClusterOptions::replace},
      {"--cluster-copy", &ClusterOptions::copy},
      {"--cluster-slave", &ClusterOptions::replica},
      {"--cluster-replica", &ClusterOptions::replica},
      {"--cluster-use-empty-masters", &ClusterOptions::empty_masters},
      {"--cluster-use-empty-primaries", &ClusterOptions::empty_masters},
      {"--cluster-search-multiple-owners", &ClusterOptions::search_multiple_owners},
      {"--cluster-fix-with-unreachable-masters", &ClusterOptions::fix_with_unreachable},
      {"--cluster-fix-with-unreachable-primaries", &ClusterOptions::fix_with_unreachable},
      {"--cluster-use-atomic-slot-migration", &ClusterOptions::atomic_migration},
  };
  for (const Flag& flag : kFlags) {
    if (strcmp(arg, flag.name) == 0) {
      c->*flag.field = true;
      return true;
    }
  }
  if (!has_value) return false;
  if (strcmp(arg, "--cluster-replicas") == 0) {
    c->replicas = atoi(value());
  } else if (strcmp(arg, "--cluster-master-id") == 0 || strcmp(arg, "--cluster-primary-id") == 0 ||
             strcmp(arg, "--cluster-primaries-id") == 0) {
    c->master_id = value();
  } else if (strcmp(arg, "--cluster-from") == 0) {
    c->from = value();
  } else if (strcmp(arg, "--cluster-to") == 0) {
    c->to = value();
  } else if (strcmp(arg, "--cluster-from-user") == 0) {
    c->from_user = value();
  } else if (strcmp(arg, "--cluster-from-pass") == 0) {
    c->from_pass = value();
  } else if (strcmp(arg, "--cluster-slots") == 0) {
    c->slots = atoi(value());
  } else if (strcmp(arg, "--cluster-timeout") == 0) {
    c->timeout_ms = atoi(value());
  } else if (strcmp(arg, "--cluster-pipeline") == 0) {
    c->pipeline = atoi(value());
  } else if (strcmp(arg, "--cluster-threshold") == 0) {
    c->threshold = atof(value());
  } else if (strcmp(arg, "--cluster-weight") == 0) {
    if (!c->weights.empty()) {
      fprintf(stderr,
              "WARNING: you cannot use --cluster-weight more than once.\n"
              "You can set more weights by adding them as a space-separated list, ie:\n"
              "--cluster-weight n1=w n2=w\n");
      exit(1);
    }
    // The weights are the following "name=w" words, up to the next option.
    while (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0 &&
           strchr(argv[*i + 1], '=') != nullptr) {
      c->weights.push_back(value());
    }
  } else {
    return false;
  }
  return true;
}

}  // namespace

const char* Version() { return VIREO_VERSION; }

int PrintUsage(int code) {
  fprintf(code != 0 ? stderr : stdout, kUsage, Version());
  return code;
}

int ParseOptions(int argc, char** argv, bool stdout_is_tty, Options* o) {
  o->output = stdout_is_tty ? OutputMode::kStandard : OutputMode::kRaw;
  o->show_pushes = stdout_is_tty;
  int i;
  for (i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    const bool last = i == argc - 1;
    auto is = [&](const char* name) { return strcmp(arg, name) == 0; };
    auto value = [&]() { return argv[++i]; };
    if (is("-h") && !last) {
      o->host = value();
    } else if (is("-h") || is("--help")) {
      return PrintUsage(0);
    } else if (is("-x")) {
      o->stdin_last_arg = true;
    } else if (is("-X") && !last) {
      o->stdin_tag = value();
    } else if (is("-t") && !last) {
      o->connect_timeout_ms = static_cast<int>(atof(value()) * 1000);
    } else if (is("-4")) {
      o->prefer_ipv6 = false;
    } else if (is("-6")) {
      o->prefer_ipv6 = true;
    } else if (is("-p") && !last) {
      o->port = atoi(value());
    } else if (is("-s") && !last) {
      o->socket_path = value();
    } else if (is("-r") && !last) {
      o->repeat = strtoll(value(), nullptr, 10);
    } else if (is("-i") && !last) {
      o->interval_us = static_cast<int64_t>(atof(value()) * 1000000);
    } else if (is("-n") && !last) {
      o->dbnum = atoi(value());
    } else if (is("--tls")) {
      o->tls.enabled = true;
    } else if (is("--insecure")) {
      o->tls.insecure = true;
    } else if (is("--sni") && !last) {
      o->tls.sni = value();
    } else if (is("--cacert") && !last) {
      o->tls.cacert = value();
    } else if (is("--cacertdir") && !last) {
      o->tls.cacertdir = value();
    } else if (is("--cert") && !last) {
      o->tls.cert = value();
    } else if (is("--key") && !last) {
      o->tls.key = value();
    } else if ((is("--tls-ciphers") || is("--tls-ciphersuites")) && !last) {
      value();  // accepted; OpenSSL's defaults are used
    } else if (is("--no-auth-warning")) {
      o->no_auth_warning = true;
    } else if (is("--askpass")) {
      o->askpass = true;
    } else if ((is("-a") || is("--pass")) && !last) {
      o->password = value();
    } else if (is("--user") && !last) {
      o->user = value();
    } else if (is("-u") && !last) {
      if (!ParseUri(value(), o)) return 1;
    } else if (is("--raw")) {
      o->output = OutputMode::kRaw;
    } else if (is("--no-raw")) {
      o->output = OutputMode::kStandard;
    } else if (is("--quoted-input")) {
      o->quoted_input = true;
    } else if (is("--csv")) {
      o->output = OutputMode::kCsv;
    } else if (is("--json")) {
      o->output = OutputMode::kJson;
      o->json_flag = true;
    } else if (is("--quoted-json")) {
      o->output = OutputMode::kQuotedJson;
      o->json_flag = true;
    } else if (is("--latency")) {
      o->latency = true;
    } else if (is("--latency-history")) {
      o->latency = true;
      o->latency_history = true;
    } else if (is("--stat")) {
      o->stat = true;
    } else if (is("--scan")) {
      o->scan = true;
    } else if (is("--pattern") && !last) {
      o->pattern = value();
    } else if (is("--quoted-pattern") && !last) {
      std::vector<std::string> parts;
      if (!SplitQuotedArgs(value(), &parts) || parts.size() != 1) {
        fprintf(stderr, "Invalid quoted string specified for --quoted-pattern.\n");
        return 1;
      }
      o->pattern = parts[0];
    } else if (is("--count") && !last) {
      o->scan_count = atoi(value());
    } else if (is("--intrinsic-latency") && !last) {
      o->intrinsic_latency_s = atoi(value());
    } else if (is("--pipe")) {
      o->pipe = true;
    } else if (is("--pipe-timeout") && !last) {
      o->pipe_timeout_s = atoi(value());
    } else if (is("--bigkeys")) {
      o->bigkeys = true;
    } else if (is("--memkeys")) {
      o->memkeys = true;
      o->memkeys_samples = 0;
    } else if (is("--memkeys-samples") && !last) {
      o->memkeys = true;
      o->memkeys_samples = atoi(value());
    } else if (is("--hotkeys")) {
      o->hotkeys = true;
    } else if (is("--eval") && !last) {
      o->eval_file = value();
    } else if (is("-c")) {
      o->cluster_mode = true;
    } else if (is("-d") && !last) {
      o->element_delim = value();
    } else if (is("-D") && !last) {
      o->reply_delim = value();
    } else if (is("-e")) {
      o->exit_on_error = true;
    } else if (is("--verbose")) {
      o->verbose = true;
    } else if (is("--cluster") && !last) {
      if (!o->cluster.command.empty()) return PrintUsage(1);
      o->cluster.command = value();
      // The sub-command's arguments run up to the next option.
      while (i + 1 < argc && argv[i + 1][0] != '-') o->cluster.args.push_back(argv[++i]);
    } else if (is("--cluster")) {
      return PrintUsage(1);
    } else if (strncmp(arg, "--cluster-", 10) == 0 &&
               ParseClusterFlag(argc, argv, &i, &o->cluster)) {
      // handled
    } else if (is("-v") || is("--version")) {
      printf("vireo-cli %s\n", Version());
      return 0;
    } else if (is("-2")) {
      o->resp2_flag = true;
    } else if (is("-3")) {
      o->resp3_flag = true;
    } else if (is("--show-pushes") && !last) {
      const char* yn = value();
      if (strncasecmp(yn, "n", 1) == 0) {
        o->show_pushes = false;
      } else if (strncasecmp(yn, "y", 1) == 0) {
        o->show_pushes = true;
      } else {
        fprintf(stderr, "Unknown --show-pushes value '%s' (valid: '[y]es', '[n]o')\n", yn);
      }
    } else if (!o->cluster.command.empty() && arg[0] != '-') {
      if (o->cluster.args.empty()) {
        while (i < argc && argv[i][0] != '-') o->cluster.args.push_back(argv[i++]);
        --i;
      }
    } else if (arg[0] == '-') {
      PrintUnrecognized(arg);
      return 1;
    } else {
      break;  // the command name
    }
  }
  for (; i < argc; ++i) o->command.emplace_back(argv[i]);

  if (!o->socket_path.empty() && o->cluster_mode) {
    fprintf(stderr, "Options -c and -s are mutually exclusive.\n");
    return 1;
  }
  if (o->resp2_flag && o->resp3_flag) {
    fprintf(stderr, "Options -2 and -3 are mutually exclusive.\n");
    return 1;
  }
  // JSON shows maps as objects, so --json asks for RESP3 unless -2 says otherwise, even when a
  // later --raw or --no-raw picks another output form (as in valkey-cli).
  o->resp = o->resp3_flag || (o->json_flag && !o->resp2_flag) ? 3 : 2;
  if (!o->no_auth_warning && o->password.has_value()) {
    fputs(
        "Warning: Using a password with '-a' or '-u' option on the command line interface may "
        "not be safe.\n",
        stderr);
  }
  if (o->stdin_last_arg && o->stdin_tag.has_value()) {
    fprintf(stderr, "Options -x and -X are mutually exclusive.\n");
    return 1;
  }
  return -1;
}

void ApplyEnvironment(Options* o) {
  if (!o->password.has_value()) {
    for (const char* name : {"VIREOCLI_AUTH", "REDISCLI_AUTH"}) {
      if (const char* auth = getenv(name)) {
        o->password = auth;
        break;
      }
    }
  }
  for (const char* name : {"VIREOCLI_CLUSTER_YES", "REDISCLI_CLUSTER_YES"}) {
    const char* yes = getenv(name);
    if (yes != nullptr && strcmp(yes, "1") == 0) o->cluster.yes = true;
  }
}

}  // namespace vireo::cli
