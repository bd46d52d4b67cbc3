#include "net/socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

namespace vireo {
namespace {

std::string ErrnoText(const std::string& what) { return what + ": " + strerror(errno); }

std::string FormatAddress(const struct sockaddr_storage& ss, socklen_t len) {
  char host[INET6_ADDRSTRLEN] = {0};
  if (ss.ss_family == AF_INET) {
    auto* s = reinterpret_cast<const struct sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
    return std::string(host) + ":" + std::to_string(ntohs(s->sin_port));
  }
  if (ss.ss_family == AF_INET6) {
    auto* s = reinterpret_cast<const struct sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
    // Bracketed so the port stays separable, as Valkey prints it ("[::1]:6379").
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(s->sin6_port));
  }
  if (ss.ss_family == AF_UNIX) {
    auto* s = reinterpret_cast<const struct sockaddr_un*>(&ss);
    size_t n = len > offsetof(struct sockaddr_un, sun_path)
                   ? strnlen(s->sun_path, len - offsetof(struct sockaddr_un, sun_path))
                   : 0;
    return std::string(s->sun_path, n) + ":0";
  }
  return "?:0";
}

}  // namespace

void SetNonBlocking(int fd) {
  int flags = fcntl(fd, F_GETFL, 0);
  if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

bool SendAllWaiting(int fd, const char* p, size_t n, int64_t timeout_ms,
                    const std::atomic<bool>* stop) {
  int64_t waited_ms = 0;
  while (n > 0) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w > 0) {
      p += w;
      n -= static_cast<size_t>(w);
      waited_ms = 0;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (stop != nullptr && stop->load(std::memory_order_relaxed)) return false;
      if (waited_ms >= timeout_ms) return false;
      struct pollfd pfd = {fd, POLLOUT, 0};
      if (poll(&pfd, 1, 100) < 0 && errno != EINTR) return false;
      waited_ms += 100;
      continue;
    }
    return false;
  }
  return true;
}

void SetNoDelay(int fd) {
  int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
}

void SetKeepAlive(int fd, int interval_s) {
  int yes = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &yes, sizeof(yes)) != 0) return;
  if (interval_s <= 0) return;
  int idle = interval_s, intvl = interval_s / 3 > 0 ? interval_s / 3 : 1, cnt = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

int ListenTcp(const std::string& addr_in, int port, int backlog, std::string* error) {
  std::string addr = addr_in;
  if (!addr.empty() && addr[0] == '-') addr = addr.substr(1);
  bool v6 = addr.find(':') != std::string::npos;
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = ErrnoText("socket");
    return -1;
  }
  int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  int rc;
  if (v6) {
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &yes, sizeof(yes));
    struct sockaddr_in6 sa = {};
    sa.sin6_family = AF_INET6;
    sa.sin6_port = htons(static_cast<uint16_t>(port));
    if (addr == "::*" || addr == "*") {
      sa.sin6_addr = in6addr_any;
    } else if (inet_pton(AF_INET6, addr.c_str(), &sa.sin6_addr) != 1) {
      *error = "Invalid bind address '" + addr + "'";
      close(fd);
      return -1;
    }
    rc = bind(fd, reinterpret_cast<struct sockaddr*>(&sa), sizeof(sa));
  } else {
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    if (addr == "*" || addr == "0.0.0.0") {
      sa.sin_addr.s_addr = htonl(INADDR_ANY);
    } else if (addr == "localhost") {
      sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    } else if (inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1) {
      *error = "Invalid bind address '" + addr + "'";
      close(fd);
      return -1;
    }
    rc = bind(fd, reinterpret_cast<struct sockaddr*>(&sa), sizeof(sa));
  }
  if (rc != 0 || listen(fd, backlog) != 0) {
    *error = ErrnoText("Could not create server TCP listening socket " + addr + ":" +
                       std::to_string(port));
    close(fd);
    return -1;
  }
  SetNonBlocking(fd);
  return fd;
}

int ListenUnix(const std::string& path, int perm, int backlog, std::string* error,
               const std::string& group) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = ErrnoText("socket");
    return -1;
  }
  struct sockaddr_un sa = {};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof(sa.sun_path)) {
    *error = "unix socket path too long";
    close(fd);
    return -1;
  }
  memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  unlink(path.c_str());
  if (bind(fd, reinterpret_cast<struct sockaddr*>(&sa), sizeof(sa)) != 0 ||
      listen(fd, backlog) != 0) {
    *error = ErrnoText("Failed opening Unix socket");
    close(fd);
    return -1;
  }
  if (perm != 0) chmod(path.c_str(), static_cast<mode_t>(perm));
  if (!group.empty()) {
    // Valkey's words, including its errno text when the group does not exist ("Success").
    errno = 0;
    struct group* gr = getgrnam(group.c_str());
    if (gr == nullptr || chown(path.c_str(), static_cast<uid_t>(-1), gr->gr_gid) != 0) {
      *error = ErrnoText(std::string("Failed opening Unix socket: ") +
                         (gr == nullptr ? "getgrnam" : "chown") + " error for group '" + group +
                         "'");
      close(fd);
      return -1;
    }
  }
  SetNonBlocking(fd);
  return fd;
}

int AcceptConnection(int listen_fd) {
  int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  return fd;
}

std::string PeerAddress(int fd) {
  struct sockaddr_storage ss = {};
  socklen_t len = sizeof(ss);
  if (getpeername(fd, reinterpret_cast<struct sockaddr*>(&ss), &len) != 0) return "?:0";
  return FormatAddress(ss, len);
}

std::string LocalAddress(int fd) {
  struct sockaddr_storage ss = {};
  socklen_t len = sizeof(ss);
  if (getsockname(fd, reinterpret_cast<struct sockaddr*>(&ss), &len) != 0) return "?:0";
  return FormatAddress(ss, len);
}

bool IsLoopbackPeer(int fd) {
  struct sockaddr_storage ss = {};
  socklen_t len = sizeof(ss);
  if (getpeername(fd, reinterpret_cast<struct sockaddr*>(&ss), &len) != 0) return false;
  if (ss.ss_family == AF_UNIX) return true;
  if (ss.ss_family == AF_INET) {
    auto* s = reinterpret_cast<const struct sockaddr_in*>(&ss);
    return (ntohl(s->sin_addr.s_addr) >> 24) == 127;
  }
  if (ss.ss_family == AF_INET6) {
    auto* s = reinterpret_cast<const struct sockaddr_in6*>(&ss);
    if (IN6_IS_ADDR_LOOPBACK(&s->sin6_addr)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&s->sin6_addr)) return s->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

bool ProtectedModeDenies(bool protected_mode, bool has_password, bool unix_socket,
                         bool loopback_peer) {
  return protected_mode && !has_password && !unix_socket && !loopback_peer;
}

}  // namespace vireo

namespace vireo {

int ConnectTcp(const std::string& host, int port, std::string* error) {
  addrinfo hints = {};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0) {
    *error = gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS) break;
    *error = strerror(errno);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  if (fd >= 0) SetNoDelay(fd);
  return fd;
}

}  // namespace vireo
