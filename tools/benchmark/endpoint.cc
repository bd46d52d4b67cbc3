#include "benchmark/endpoint.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/connection.h"
#include "common/resp_reader.h"

namespace vireo::benchmark {
namespace {

int ConnectUnix(const std::string& path, std::string* error) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = strerror(errno);
    return -1;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    *error = strerror(errno);
    close(fd);
    return -1;
  }
  return fd;
}

// IPv4 addresses first, then IPv6, as hiredis tries them.
int ConnectTcp(const std::string& host, int port, std::string* error) {
  std::string service = std::to_string(port);
  int last_errno = 0;
  int resolve_error = 0;
  for (int family : {AF_INET, AF_INET6}) {
    addrinfo hints{};
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &list);
    if (rc != 0) {
      if (resolve_error == 0) resolve_error = rc;
      continue;
    }
    for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
      int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
      if (fd < 0) continue;
      if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
        freeaddrinfo(list);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return fd;
      }
      last_errno = errno;
      close(fd);
    }
    freeaddrinfo(list);
  }
  // A connect failure says more than the other family's failure to resolve.
  *error = last_errno != 0 ? strerror(last_errno) : gai_strerror(resolve_error);
  return -1;
}

bool WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += n;
  }
  return true;
}

// Reads `count` replies; the first error reply's text goes to *server_error.
bool ReadReplies(int fd, int count, std::string* server_error, std::string* io_error) {
  tools::RespReader reader;
  std::string buf;
  size_t pos = 0;
  char chunk[4096];
  while (count > 0) {
    size_t consumed = 0;
    bool is_error = false;
    std::string text;
    auto result =
        reader.Parse(buf.data() + pos, buf.size() - pos, &consumed, nullptr, &is_error, &text);
    if (result == tools::RespReader::Result::kReply) {
      pos += consumed;
      if (is_error && server_error->empty()) *server_error = text;
      --count;
      continue;
    }
    if (result == tools::RespReader::Result::kError) {
      *io_error = "Protocol error";
      return false;
    }
    ssize_t n = read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *io_error = n == 0 ? "Server closed the connection" : strerror(errno);
      return false;
    }
    buf.append(chunk, n);
  }
  return true;
}

}  // namespace

std::string Endpoint::Describe() const {
  if (!socket_path.empty()) return socket_path;
  return tools::Connection::FormatAddress(host, port);
}

Endpoint MainEndpoint(const Options& o) { return Endpoint{o.host, o.port, o.socket_path}; }

Handshake MakeHandshake(const Options& o) {
  Handshake h;
  auto add = [&](const std::vector<std::string>& args) {
    tools::AppendCommand(&h.bytes, args);
    ++h.replies;
  };
  if (o.has_password) {
    if (o.user.empty()) {
      add({"AUTH", o.password});
    } else {
      add({"AUTH", o.user, o.password});
    }
  }
  if (o.dbnum != 0 && !o.cluster) add({"SELECT", std::to_string(o.dbnum)});
  if (o.resp3) add({"HELLO", "3"});
  if (o.enable_tracking) add({"CLIENT", "TRACKING", "on"});
  return h;
}

int OpenBenchmarkConnection(const Endpoint& endpoint, const Handshake& handshake,
                            std::string* error) {
  std::string why;
  int fd = endpoint.socket_path.empty() ? ConnectTcp(endpoint.host, endpoint.port, &why)
                                        : ConnectUnix(endpoint.socket_path, &why);
  if (fd < 0) {
    *error = "Could not connect to server at " + endpoint.Describe() + ": " + why;
    return -1;
  }
  if (handshake.replies > 0) {
    std::string server_error;
    if (!WriteAll(fd, handshake.bytes) ||
        !ReadReplies(fd, handshake.replies, &server_error, &why)) {
      *error = "Error: " + (why.empty() ? std::string(strerror(errno)) : why);
      close(fd);
      return -1;
    }
    if (!server_error.empty()) {
      *error = "Error from server: " + server_error;
      close(fd);
      return -1;
    }
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

bool FetchServerConfig(const Endpoint& endpoint, const Options& o, ServerConfig* out) {
  tools::Connection conn;
  bool connected = endpoint.socket_path.empty() ? conn.ConnectTcp(endpoint.host, endpoint.port)
                                                : conn.ConnectUnix(endpoint.socket_path);
  if (!connected) {
    // As valkey-benchmark: a server that cannot be reached ends the run here.
    fprintf(stderr, "Could not connect to server at %s: %s\n", endpoint.Describe().c_str(),
            conn.error().c_str());
    exit(1);
  }
  auto call = [&](const std::vector<std::string>& args, tools::Reply* reply) {
    if (!conn.Command(args, reply)) return false;
    if (reply->type == tools::Reply::Type::kError) {
      fprintf(stderr, "Node %s replied with error:\n%s\n", endpoint.Describe().c_str(),
              reply->str.c_str());
      exit(1);
    }
    return true;
  };
  tools::Reply reply;
  if (o.has_password) {
    std::vector<std::string> auth = {"AUTH"};
    if (!o.user.empty()) auth.push_back(o.user);
    auth.push_back(o.password);
    if (!call(auth, &reply)) return false;
  }
  // Both RESP2 arrays and RESP3 maps list name, value.
  auto value_of = [](const tools::Reply& r) {
    return r.elements.size() >= 2 ? r.elements[1].str : std::string();
  };
  if (!call({"CONFIG", "GET", "save"}, &reply)) return false;
  out->save = value_of(reply);
  if (!call({"CONFIG", "GET", "appendonly"}, &reply)) return false;
  out->appendonly = value_of(reply);
  return true;
}

}  // namespace vireo::benchmark
