#include "benchmark/options.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "common/numbers.h"

namespace vireo::benchmark {
namespace {

constexpr int kMaxThreads = 500;
constexpr int kMaxPrecision = 4;
constexpr int kDefaultPrecision = 3;
constexpr int kMaxDataSize = 1024 * 1024 * 1024;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// -u redis://[[user][:password]@]host[:port][/db] (valkey:// too). TLS schemes are refused:
// the tool speaks plain TCP only.
bool ParseUri(std::string_view uri, Options* o) {
  std::string_view rest;
  for (std::string_view scheme : {"redis://", "valkey://"}) {
    if (uri.substr(0, scheme.size()) == scheme) rest = uri.substr(scheme.size());
  }
  if (rest.empty()) {
    fprintf(stderr, "Invalid URI scheme\n");
    return false;
  }
  size_t at = rest.rfind('@');
  if (at != std::string_view::npos) {
    std::string_view userinfo = rest.substr(0, at);
    size_t colon = userinfo.find(':');
    if (colon != std::string_view::npos) {
      if (colon > 0) o->user = PercentDecode(userinfo.substr(0, colon));
      o->password = PercentDecode(userinfo.substr(colon + 1));
    } else {
      o->password = PercentDecode(userinfo);
    }
    o->has_password = true;
    rest = rest.substr(at + 1);
  }
  size_t slash = rest.find('/');
  std::string_view hostport = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string db(rest.substr(slash + 1));
    if (!db.empty()) o->dbnum = atoi(db.c_str());
  }
  size_t colon = hostport.rfind(':');
  size_t bracket = hostport.rfind(']');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    o->port = atoi(std::string(hostport.substr(colon + 1)).c_str());
    hostport = hostport.substr(0, colon);
  }
  if (hostport.size() >= 2 && hostport.front() == '[' && hostport.back() == ']') {
    hostport = hostport.substr(1, hostport.size() - 2);
  }
  if (!hostport.empty()) o->host = std::string(hostport);
  return true;
}

}  // namespace

void PrintUsage() {
  printf(
      "Usage: vireo-benchmark [OPTIONS] [COMMAND ARGS...]\n"
      "\n"
      "Options:\n"
      " -h <hostname>      Server hostname (default 127.0.0.1)\n"
      " -p <port>          Server port (default 6379)\n"
      " -s <socket>        Server socket (overrides host and port)\n"
      " -a <password>      Password for Valkey Auth\n"
      " --user <username>  Used to send ACL style 'AUTH username pass'. Needs -a.\n"
      " -u <uri>           Server URI on format valkey://user:password@host:port/dbnum\n"
      "                    User, password and dbnum are optional. For authentication\n"
      "                    without a username, use username 'default'. For TLS, use\n"
      "                    the scheme 'valkeys'.\n"
      " -c <clients>       Number of parallel connections (default 50).\n"
      "                    Note: If --cluster is used then number of clients has to be\n"
      "                    the same or higher than the number of nodes.\n"
      " -n <requests>      Total number of requests (default 100000)\n"
      " -d <size>          Data size of SET/GET value in bytes (default 3)\n"
      " --dbnum <db>       SELECT the specified db number (default 0)\n"
      " -3                 Start session in RESP3 protocol mode.\n"
      " --threads <num>    Enable multi-thread mode.\n"
      " --cluster          Enable cluster mode.\n"
      "                    If the command is supplied on the command line in cluster\n"
      "                    mode, the key must contain \"{tag}\". Otherwise, the\n"
      "                    command will not be sent to the right cluster node.\n"
      " --enable-tracking  Send CLIENT TRACKING on before starting benchmark.\n"
      " -k <boolean>       1=keep alive 0=reconnect (default 1)\n"
      " -r <keyspacelen>   Use random keys for SET/GET/INCR, random values for SADD,\n"
      "                    random members and scores for ZADD.\n"
      "                    Using this option the benchmark will expand the string\n"
      "                    __rand_int__ inside an argument with a 12 digits number in\n"
      "                    the specified range from 0 to keyspacelen-1. The\n"
      "                    substitution changes every time a command is executed.\n"
      "                    Default tests use this to hit random keys in the specified\n"
      "                    range.\n"
      "                    Note: If -r is omitted, all commands in a benchmark will\n"
      "                    use the same key.\n"
      " -P <numreq>        Pipeline <numreq> requests. Default 1 (no pipeline).\n"
      " -q                 Quiet. Just show query/sec values\n"
      " --precision        Number of significant digits of the latency histogram (default 3)\n"
      " --csv              Output in CSV format\n"
      " -l                 Loop. Run the tests forever\n"
      " -t <tests>         Only run the comma separated list of tests. The test\n"
      "                    names are the same as the ones produced as output.\n"
      "                    The -t option is ignored if a specific command is supplied\n"
      "                    on the command line.\n"
      " -I                 Idle mode. Just open N idle connections and wait.\n"
      " -x                 Read last argument from STDIN.\n"
      " --seed <num>       Set the seed for random number generator. Default seed is based on "
      "time.\n"
      " --help             Output this help and exit.\n"
      " --version          Output version and exit.\n"
      "\n"
      "Examples:\n"
      "\n"
      " Run the benchmark with the default configuration against 127.0.0.1:6379:\n"
      "   $ vireo-benchmark\n"
      "\n"
      " Use 20 parallel clients, for a total of 100k requests, against 192.168.1.1:\n"
      "   $ vireo-benchmark -h 192.168.1.1 -p 6379 -n 100000 -c 20\n"
      "\n"
      " Fill 127.0.0.1:6379 with about 1 million keys only using the SET test:\n"
      "   $ vireo-benchmark -t set -n 1000000 -r 100000000\n"
      "\n"
      " Benchmark 127.0.0.1:6379 for a few commands producing CSV output:\n"
      "   $ vireo-benchmark -t ping,set,get -n 100000 --csv\n"
      "\n"
      " Benchmark a specific command line:\n"
      "   $ vireo-benchmark -r 10000 -n 10000 eval 'return redis.call(\"ping\")' 0\n"
      "\n"
      " Fill a list with 10000 random elements:\n"
      "   $ vireo-benchmark -r 10000 -n 10000 lpush mylist __rand_int__\n"
      "\n"
      " On user specified command lines __rand_int__ is replaced with a random integer\n"
      " with a range of values selected by the -r option.\n");
}

bool ParseOptions(int argc, char** argv, Options* o, int* exit_code) {
  int i = 1;
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    bool last = i == argc - 1;
    // Options taking a value: a missing value is reported like an unknown option.
    auto value = [&]() -> const char* { return argv[++i]; };
    if (arg == "-c" && !last) {
      o->clients = atoi(value());
    } else if (arg == "-v" || arg == "--version") {
      printf("vireo-benchmark %s\n", VIREO_VERSION);
      *exit_code = 0;
      return false;
    } else if (arg == "-n" && !last) {
      o->requests = atoll(value());
    } else if (arg == "-k" && !last) {
      o->keepalive = atoi(value());
    } else if (arg == "-h" && !last) {
      o->host = value();
    } else if (arg == "-p" && !last) {
      o->port = atoi(value());
      if (o->port < 0 || o->port > 65535) {
        fprintf(stderr, "Invalid server port.\n");
        *exit_code = 1;
        return false;
      }
    } else if (arg == "-s" && !last) {
      o->socket_path = value();
    } else if (arg == "-x") {
      o->stdin_arg = true;
    } else if (arg == "-a" && !last) {
      o->password = value();
      o->has_password = true;
    } else if (arg == "--user" && !last) {
      o->user = value();
    } else if (arg == "-u" && !last) {
      if (!ParseUri(value(), o)) {
        *exit_code = 1;
        return false;
      }
    } else if (arg == "-3") {
      o->resp3 = true;
    } else if (arg == "-d" && !last) {
      o->data_size = atoi(value());
      if (o->data_size < 1) o->data_size = 1;
      if (o->data_size > kMaxDataSize) o->data_size = kMaxDataSize;
    } else if (arg == "-P" && !last) {
      o->pipeline = atoi(value());
      if (o->pipeline <= 0) o->pipeline = 1;
    } else if (arg == "-r" && !last) {
      const char* next = argv[++i];
      // A negative number is taken (and treated as 0); another option is not a value.
      if (next[0] == '-' && (next[1] < '0' || next[1] > '9')) break;
      o->random_keys = true;
      o->keyspace = atoll(next);
      if (o->keyspace < 0) o->keyspace = 0;
    } else if (arg == "-q") {
      o->quiet = true;
    } else if (arg == "--csv") {
      o->csv = true;
    } else if (arg == "-l") {
      o->loop = true;
    } else if (arg == "-I") {
      o->idle = true;
    } else if (arg == "-e") {
      // valkey-benchmark (and redis-benchmark 7.0) only warn: an error always ends the run.
      fprintf(stderr,
              "WARNING: -e option has no effect. We now immediately exit on error to avoid false "
              "results.\n");
    } else if (arg == "-t" && !last) {
      o->tests = "," + ToLower(value()) + ",";
    } else if (arg == "--dbnum" && !last) {
      o->dbnum = atoi(value());
    } else if (arg == "--precision" && !last) {
      o->precision = atoi(value());
      if (o->precision < 0) o->precision = kDefaultPrecision;
      if (o->precision < 1) o->precision = 1;
      if (o->precision > kMaxPrecision) o->precision = kMaxPrecision;
    } else if (arg == "--threads" && !last) {
      o->threads = atoi(value());
      if (o->threads > kMaxThreads) {
        fprintf(stderr, "WARNING: Too many threads, limiting threads to %d.\n", kMaxThreads);
        o->threads = kMaxThreads;
      }
      if (o->threads < 0) o->threads = 0;
    } else if (arg == "--cluster") {
      o->cluster = true;
    } else if (arg == "--enable-tracking") {
      o->enable_tracking = true;
    } else if (arg == "--seed" && !last) {
      o->seed = strtoull(value(), nullptr, 10);
      o->has_seed = true;
    } else if (arg == "--help") {
      PrintUsage();
      *exit_code = 0;
      return false;
    } else if (!arg.empty() && arg[0] == '-') {
      break;  // unknown option, or an option whose value is missing
    } else {
      // The first word that is not an option starts the custom command.
      o->command.assign(argv + i, argv + argc);
      return true;
    }
  }
  if (i < argc) {
    printf("Invalid option \"%s\" or option argument missing\n\n", argv[i]);
    PrintUsage();
    *exit_code = 1;
    return false;
  }
  return true;
}

}  // namespace vireo::benchmark
