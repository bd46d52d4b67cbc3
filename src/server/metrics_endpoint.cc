#include "server/metrics_endpoint.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

#include "commands/server_family.h"
#include "common/clock.h"
#include "common/log.h"
#include "net/socket.h"
#include "server/metrics_exposition.h"
#include "server/server.h"

namespace vireo {
namespace {

// Scrapers open one connection per scrape; more than this at once, or one idle this long,
// is a client holding descriptors: the oldest is shut down when the next one arrives.
constexpr size_t kMaxConnections = 16;
constexpr int64_t kIdleLimitUs = 10 * 1000 * 1000;

// The end of the request's headers (a blank line; bare LF tolerated), npos if not there yet.
size_t HeadersEnd(std::string_view s) {
  size_t crlf = s.find("\r\n\r\n");
  size_t lf = s.find("\n\n");
  if (crlf == std::string_view::npos) return lf;
  return lf == std::string_view::npos || crlf < lf ? crlf : lf;
}

std::string StatusResponse(const char* status, const char* extra_headers, std::string_view body,
                           const char* content_type) {
  std::string r = "HTTP/1.1 ";
  r += status;
  r += "\r\nContent-Type: ";
  r += content_type;
  r += "\r\nContent-Length: " + std::to_string(body.size());
  r += "\r\nConnection: close\r\n";
  r += extra_headers;
  r += "\r\n";
  r += body;
  return r;
}

}  // namespace

MetricsRequest ClassifyMetricsRequest(std::string_view received) {
  size_t end = HeadersEnd(received);
  if (end == std::string_view::npos) {
    return received.size() >= kMetricsMaxRequestBytes ? MetricsRequest::kTooLarge
                                                      : MetricsRequest::kIncomplete;
  }
  if (end > kMetricsMaxRequestBytes) return MetricsRequest::kTooLarge;
  std::string_view line = received.substr(0, received.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // METHOD SP request-target SP HTTP/1.x
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == 0 || sp2 == std::string_view::npos || sp2 == sp1 + 1) {
    return MetricsRequest::kBadRequest;
  }
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (version.size() != 8 || version.substr(0, 7) != "HTTP/1." || version[7] < '0' ||
      version[7] > '9') {
    return MetricsRequest::kBadRequest;
  }
  if (target.substr(0, target.find('?')) != "/metrics") return MetricsRequest::kNotFound;
  return method == "GET" ? MetricsRequest::kMetrics : MetricsRequest::kMethodNotAllowed;
}

std::string MetricsResponse(MetricsRequest verdict, std::string_view body) {
  constexpr const char* kText = "text/plain; charset=utf-8";
  switch (verdict) {
    case MetricsRequest::kMetrics:
      return StatusResponse("200 OK", "", body, kMetricsContentType);
    case MetricsRequest::kNotFound:
      return StatusResponse("404 Not Found", "", "Not Found: try /metrics\n", kText);
    case MetricsRequest::kMethodNotAllowed:
      return StatusResponse("405 Method Not Allowed", "Allow: GET\r\n", "Method Not Allowed\n",
                            kText);
    case MetricsRequest::kTooLarge:
      return StatusResponse("431 Request Header Fields Too Large", "", "Request too large\n",
                            kText);
    case MetricsRequest::kBadRequest:
    case MetricsRequest::kIncomplete:
      break;
  }
  return StatusResponse("400 Bad Request", "", "Bad Request\n", kText);
}

struct MetricsEndpoint::Listener {
  int fd;
  IoWatcher watcher;
  MetricsEndpoint* owner;
};

struct MetricsEndpoint::Conn {
  int fd;
  IoWatcher watcher;
  MetricsEndpoint* owner;
  int64_t accepted_us;
  std::string in;
  std::string out;  // the response once decided; the connection closes after it
  size_t sent = 0;
  size_t drained = 0;     // bytes read and dropped after the response
  bool draining = false;  // response sent: waiting for the client's close
  bool shut = false;      // shut down to make room; its own event closes it
};

MetricsEndpoint::MetricsEndpoint(EventLoop& loop, RenderFn render, void* obj)
    : loop_(loop), render_(render), render_obj_(obj) {}

MetricsEndpoint::~MetricsEndpoint() {
  for (auto& c : conns_) close(c->fd);
  for (auto& l : listeners_) close(l->fd);
}

bool MetricsEndpoint::Listen(const std::vector<std::string>& addrs, int port, std::string* error) {
  for (const std::string& addr : addrs) {
    std::string err;
    int fd = ListenTcp(addr, port, 128, &err);
    if (fd < 0) {
      if (!addr.empty() && addr[0] == '-') {
        LogWarning("metrics endpoint: %s", err.c_str());
        continue;
      }
      *error = "metrics endpoint: " + err;
      return false;
    }
    auto l = std::make_unique<Listener>(Listener{fd, {}, this});
    l->watcher = {&MetricsEndpoint::OnListenerEvent, l.get()};
    loop_.Watch(fd, EventLoop::kReadable, &l->watcher);
    listeners_.push_back(std::move(l));
  }
  if (listeners_.empty()) {
    *error = "Failed listening on metrics port " + std::to_string(port) + ", aborting.";
    return false;
  }
  LogNotice("Metrics endpoint listening on port %d (GET /metrics)", port);
  return true;
}

void MetricsEndpoint::OnListenerEvent(void* obj, uint32_t) {
  auto* l = static_cast<Listener*>(obj);
  l->owner->Accept(l->fd);
}

void MetricsEndpoint::Accept(int listen_fd) {
  for (int i = 0; i < 64; ++i) {
    int fd = AcceptConnection(listen_fd);
    if (fd < 0) return;
    // Connections are never freed here: another's event may be pending in this very poll
    // batch. A shut-down socket reports itself readable, and its own event closes it.
    const int64_t now = MonotonicUs();
    size_t live = 0;
    for (auto& c : conns_) {
      if (!c->shut && now - c->accepted_us > kIdleLimitUs) {
        shutdown(c->fd, SHUT_RDWR);
        c->shut = true;
      }
      if (!c->shut) ++live;
    }
    for (auto& c : conns_) {
      if (live < kMaxConnections) break;
      if (c->shut) continue;
      shutdown(c->fd, SHUT_RDWR);
      c->shut = true;
      --live;
    }
    auto c = std::make_unique<Conn>(Conn{fd, {}, this, now});
    c->watcher = {&MetricsEndpoint::OnConnEvent, c.get()};
    loop_.Watch(fd, EventLoop::kReadable, &c->watcher);
    conns_.push_back(std::move(c));
  }
}

void MetricsEndpoint::OnConnEvent(void* obj, uint32_t) {
  auto* c = static_cast<Conn*>(obj);
  if (c->draining) {
    c->owner->Drain(c);
  } else if (c->out.empty()) {
    c->owner->Read(c);
  } else {
    c->owner->Write(c);
  }
}

void MetricsEndpoint::Read(Conn* c) {
  char buf[4096];
  bool eof = false;  // a client may shut its side down right after the request
  for (;;) {
    ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
    if (n > 0) {
      c->in.append(buf, static_cast<size_t>(n));
      if (c->in.size() >= kMetricsMaxRequestBytes) break;
      continue;
    }
    if (n == 0) {
      eof = true;
      break;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    Close(c);
    return;
  }
  MetricsRequest verdict = ClassifyMetricsRequest(c->in);
  if (verdict == MetricsRequest::kIncomplete) {
    if (eof) Close(c);
    return;
  }
  c->out = MetricsResponse(
      verdict, verdict == MetricsRequest::kMetrics ? render_(render_obj_) : std::string());
  c->in.clear();
  loop_.Watch(c->fd, EventLoop::kWritable, &c->watcher);
  Write(c);
}

void MetricsEndpoint::Write(Conn* c) {
  while (c->sent < c->out.size()) {
    ssize_t n = send(c->fd, c->out.data() + c->sent, c->out.size() - c->sent, MSG_NOSIGNAL);
    if (n > 0) {
      c->sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;  // wait for writable
    Close(c);
    return;
  }
  // Closing with unread input (the rest of a refused request) would reset the connection and
  // could lose the response: end our side, then read until the client closes.
  shutdown(c->fd, SHUT_WR);
  c->draining = true;
  loop_.Watch(c->fd, EventLoop::kReadable, &c->watcher);
  Drain(c);
}

void MetricsEndpoint::Drain(Conn* c) {
  constexpr size_t kMaxDrained = 64 * 1024;
  char buf[4096];
  for (;;) {
    ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
    if (n > 0) {
      c->drained += static_cast<size_t>(n);
      if (c->drained <= kMaxDrained) continue;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    }
    Close(c);
    return;
  }
}

void MetricsEndpoint::Close(Conn* c) {
  loop_.Unwatch(c->fd);
  close(c->fd);
  for (size_t i = 0; i < conns_.size(); ++i) {
    if (conns_[i].get() == c) {
      conns_.erase(conns_.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  }
}

bool StartMetricsEndpoint(Server& server, std::unique_ptr<MetricsEndpoint>* out,
                          std::string* error) {
  const Config& config = server.config();
  if (config.metrics_port == 0) return true;
  auto render = [](void* obj) {
    return InfoToExposition(InfoText(*static_cast<Server*>(obj), {"default", "commandstats"}));
  };
  auto endpoint = std::make_unique<MetricsEndpoint>(server.loop(), render, &server);
  const auto& addrs = config.metrics_bind.empty() ? config.bind : config.metrics_bind;
  if (!endpoint->Listen(addrs, static_cast<int>(config.metrics_port), error)) return false;
  *out = std::move(endpoint);
  return true;
}

}  // namespace vireo
