// vireo-server entry point: parse the command line and config, start serving.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "commands/command_table.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "server/config.h"
#include "server/fd_limit.h"
#include "server/server.h"
#include "server/startup_log.h"
#include "server/supervise.h"
#include "store/memory.h"

namespace {

void PrintVersion() {
  printf("Vireo server v=%s sha=00000000:0 malloc=%s bits=%d build=0\n", VIREO_VERSION,
         vireo::AllocatorName(), static_cast<int>(sizeof(long) * 8));
}

void PrintUsage() {
  fprintf(stderr,
          "Usage: ./vireo-server [/path/to/vireo.conf] [options] [-]\n"
          "       ./vireo-server - (read config from stdin)\n"
          "       ./vireo-server -v or --version\n"
          "       ./vireo-server -h or --help\n\n"
          "Examples:\n"
          "       ./vireo-server (run the server with default conf)\n"
          "       ./vireo-server /etc/valkey/6379.conf\n"
          "       ./vireo-server --port 7777\n"
          "       ./vireo-server --port 7777 --replicaof 127.0.0.1 8888\n"
          "       ./vireo-server /etc/myvireo.conf --loglevel verbose -\n"
          "       ./vireo-server /etc/myvireo.conf --loglevel verbose\n");
}

void Daemonize() {
  if (fork() != 0) exit(0);
  setsid();
  int fd = open("/dev/null", O_RDWR, 0);
  if (fd != -1) {
    dup2(fd, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) close(fd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--version") == 0)) {
    PrintVersion();
    return 0;
  }
  if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
    PrintUsage();
    return 0;
  }
  vireo::Config config;
  std::string text, error;
  if (!vireo::BuildConfigText(argc, argv, &text, &config.config_file, &error)) {
    fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  if (!vireo::LoadConfigText(&config, text, &error)) {
    fprintf(stderr, "%s", error.c_str());
    return 1;
  }
  // Before anything is hashed: every table hashes with the one process-wide seed.
  const std::string hash_seed = vireo::ConfigValue(config, "hash-seed");
  if (!hash_seed.empty()) vireo::SetHashSeed(vireo::HashSeedFromText(hash_seed));
  if (!config.config_file.empty() && config.config_file != "-") {
    char resolved[PATH_MAX];
    if (realpath(config.config_file.c_str(), resolved) != nullptr) config.config_file = resolved;
  }
  if (!config.dir.empty() && chdir(config.dir.c_str()) != 0) {
    fprintf(stderr, "Can't chdir to '%s': %s\n", config.dir.c_str(), strerror(errno));
    return 1;
  }
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) != nullptr) config.dir = cwd;
  vireo::ConfigureLog(config.loglevel, config.logfile);
  vireo::SetLogFormats(config.log_format, config.log_timestamp_format);
  const int64_t maxclients = vireo::AdjustOpenFilesLimit(config.maxclients);
  if (maxclients < 0) return 1;
  config.maxclients = maxclients;
  const char* clock_name = vireo::InitMonotonicClock();
  if (config.daemonize) Daemonize();
  vireo::LogStarting(argc == 1);
  if (!config.pidfile.empty()) {
    std::ofstream pid(config.pidfile);
    pid << getpid() << "\n";
  }
  const auto supervised = config.generic.find("supervised");
  vireo::StartSupervision(supervised != config.generic.end() ? supervised->second : "no");
  vireo::SupervisorStatus("Vireo is loading...");

  vireo::RegisterAllCommands();
  const bool scripting = config.enable_scripting;
  if (!scripting) vireo::RemoveScriptingCommands();
  LogNotice("monotonic clock: %s", clock_name);
  vireo::Server server(std::move(config));
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) server.set_executable(std::string(exe, static_cast<size_t>(n)));
  if (!server.Init(&error)) {
    if (server.shutdown_requested()) return 0;  // SHUTDOWN or SIGTERM while loading
    LogWarning("%s", error.c_str());
    return 1;
  }
  if (!scripting) {
    LogNotice("Scripting is disabled (enable-scripting no): EVAL, EVALSHA, SCRIPT, FCALL and "
              "FUNCTION are not available");
  }
  vireo::LogReady(server.config());
  vireo::SupervisorReady();
  server.Run();
  LogWarning("Vireo is now ready to exit, bye bye...");
  return server.exit_code();
}
