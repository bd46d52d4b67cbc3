// The lines a starting server writes that tools and test harnesses wait for, in Valkey's
// words and order: "... is starting", the version line, "Configuration loaded", the banner
// (with "Port: N" and "PID: N") or "Running mode=..., port=N.", "Server initialized", and one
// "Ready to accept connections <tcp|unix|tls>" per kind of listener.
#pragma once

#include "server/config.h"

namespace vireo {

// Right after the configuration is read and the log opened; started_bare: no config file and
// no option on the command line (then Valkey warns that the defaults apply).
void LogStarting(bool started_bare);
// Before the dataset loads.
void LogInitialized(const Config& config);
// Once every listener is open and the dataset loaded.
void LogReady(const Config& config);

}  // namespace vireo
