// Where the benchmark connects, and the blocking set-up talk with a server: opening a
// benchmark connection (AUTH, SELECT, HELLO 3, CLIENT TRACKING before the first request) and
// reading the server's "save"/"appendonly" configuration for the report.
#pragma once

#include <string>

#include "benchmark/options.h"

namespace vireo::benchmark {

struct Endpoint {
  std::string host;
  int port = 0;
  std::string socket_path;  // a unix socket when set

  // "127.0.0.1:6379", "[::1]:6379" or the socket path, as error messages print it.
  std::string Describe() const;
};

// The endpoint the options name (-s wins over -h/-p).
Endpoint MainEndpoint(const Options& o);

// The commands a connection sends before benchmarking, and how many replies they produce.
struct Handshake {
  std::string bytes;
  int replies = 0;
};
Handshake MakeHandshake(const Options& o);

// Connects (blocking), runs the handshake, then makes the socket non-blocking with
// TCP_NODELAY. Returns the fd, or -1 with *error holding the line to print
// ("Could not connect to server at 127.0.0.1:1: Connection refused",
// "Error from server: WRONGPASS ...").
int OpenBenchmarkConnection(const Endpoint& endpoint, const Handshake& handshake,
                            std::string* error);

struct ServerConfig {
  std::string save;
  std::string appendonly;
};

// Reads CONFIG GET save / appendonly as valkey-benchmark does before the tests. A server that
// cannot be reached ("Could not connect to server at ...") or an error reply (a wrong password,
// NOAUTH: "Node host:port replied with error:") ends the process with status 1; false when a
// reply is lost.
bool FetchServerConfig(const Endpoint& endpoint, const Options& o, ServerConfig* out);

}  // namespace vireo::benchmark
