// The Prometheus metrics endpoint (config metrics-port, 0 = off): a tiny HTTP/1.x responder
// on the execution thread's event loop that answers `GET /metrics` with the exposition text
// (server/metrics_exposition.h), one request per connection, then closes it once the client has
// read the reply. Listens on the `bind` addresses; no authentication.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/event_loop.h"

namespace vireo {

class Server;

// A request is refused past this many bytes without the blank line ending its headers.
inline constexpr size_t kMetricsMaxRequestBytes = 8192;

enum class MetricsRequest {
  kIncomplete,        // the headers have not ended yet: read more
  kMetrics,           // GET /metrics (a query string is ignored)
  kNotFound,          // any other path
  kMethodNotAllowed,  // /metrics with another method than GET
  kBadRequest,        // not an HTTP/1.x request line
  kTooLarge,          // kMetricsMaxRequestBytes without the end of the headers
};

// Classifies the bytes received so far on a connection.
MetricsRequest ClassifyMetricsRequest(std::string_view received);

// The whole HTTP response for a verdict other than kIncomplete; body is the exposition text
// for kMetrics (ignored otherwise).
std::string MetricsResponse(MetricsRequest verdict, std::string_view body);

class MetricsEndpoint {
 public:
  // render(obj) produces the exposition text for each GET /metrics.
  using RenderFn = std::string (*)(void* obj);
  MetricsEndpoint(EventLoop& loop, RenderFn render, void* obj);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // Listens on addrs (as `bind`: "-addr" is optional) at port. False with *error when no
  // address could be bound or a required one failed.
  bool Listen(const std::vector<std::string>& addrs, int port, std::string* error);

 private:
  struct Listener;
  struct Conn;
  static void OnListenerEvent(void* obj, uint32_t events);
  static void OnConnEvent(void* obj, uint32_t events);
  void Accept(int listen_fd);
  void Read(Conn* c);
  void Write(Conn* c);
  void Drain(Conn* c);
  void Close(Conn* c);

  EventLoop& loop_;
  RenderFn render_;
  void* render_obj_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::vector<std::unique_ptr<Conn>> conns_;  // oldest first
};

// Starts server's endpoint when metrics-port is set (*out stays null when it is 0). False
// with *error when it cannot listen.
bool StartMetricsEndpoint(Server& server, std::unique_ptr<MetricsEndpoint>* out,
                          std::string* error);

}  // namespace vireo
