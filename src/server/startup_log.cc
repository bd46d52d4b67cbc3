#include "server/startup_log.h"

#include <unistd.h>

#include <cstdio>

#include "common/log.h"

namespace vireo {
namespace {

bool ClusterMode(const Config& config) { return ConfigValue(config, "cluster-enabled") == "yes"; }

// Vireo's own banner: a vireo on a branch beside the facts Valkey's shows.
void LogBanner(const Config& config) {
  char text[1024];
  snprintf(text, sizeof(text),
           "\n"
           "        __              Vireo %s (00000000/0) %d bit\n"
           "     __( o)>            \n"
           "     \\ <_ )             Running in %s mode\n"
           "      `---'             Port: %lld\n"
           "   ====\"\"=====          PID: %d\n"
           "\n",
           VIREO_VERSION, static_cast<int>(sizeof(void*) * 8),
           ClusterMode(config) ? "cluster" : "standalone", static_cast<long long>(config.port),
           static_cast<int>(getpid()));
  LogRaw(text);
}

}  // namespace

void LogStarting(bool started_bare) {
  LogNotice("oO0OoO0OoO0Oo Vireo is starting oO0OoO0OoO0Oo");
  LogNotice("Vireo version=%s, bits=%d, commit=00000000, modified=0, pid=%d, just started",
            VIREO_VERSION, static_cast<int>(sizeof(void*) * 8), static_cast<int>(getpid()));
  if (started_bare) {
    LogWarning("Warning: no config file specified, using the default config. In order to "
               "specify a config file use vireo-server /path/to/vireo.conf");
  } else {
    LogNotice("Configuration loaded");
  }
}

void LogInitialized(const Config& config) {
  // As Valkey: the banner when asked for, or on a terminal; one line otherwise.
  if (ConfigValue(config, "always-show-logo") == "yes" ||
      (config.logfile.empty() && isatty(STDOUT_FILENO))) {
    LogBanner(config);
  } else {
    LogNotice("Running mode=%s, port=%lld.", ClusterMode(config) ? "cluster" : "standalone",
              static_cast<long long>(config.port));
  }
  LogNotice("Server initialized");
}

void LogReady(const Config& config) {
  if (config.port != 0) LogNotice("Ready to accept connections tcp");
  if (!config.unixsocket.empty()) LogNotice("Ready to accept connections unix");
  const std::string tls_port = ConfigValue(config, "tls-port");
  if (!tls_port.empty() && tls_port != "0") LogNotice("Ready to accept connections tls");
}

}  // namespace vireo
