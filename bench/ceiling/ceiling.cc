// The ceiling (issue 8): the least a RESP server can do per request. One thread, epoll, no
// keyspace: it counts complete commands and answers each with a fixed reply, so a benchmark
// run against it measures what the load generator and the kernel allow on these cores.
// Vireo's throughput is reported as a fraction of this one's.
//
//   vireo-ceiling --port N [--bulk-size B] [other redis-style options, ignored]
//
// Replies: PING -> +PONG, GET/LPOP/RPOP/SPOP/LRANGE... -> one bulk of B bytes (default 3),
// CONFIG GET p -> p with an empty value (redis-benchmark asks at start), anything else -> +OK.
// SHUTDOWN exits.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace {

struct Conn {
  int fd;
  std::string in;
  std::string out;
  bool want_write = false;
};

uint64_t g_commands = 0;
std::string g_bulk_reply;
bool g_shutdown = false;

enum class Parse { kDone, kIncomplete, kError };

// Reads "<prefix><digits>\r\n" at *pos; false when incomplete or malformed (*bad set).
bool ReadNumberLine(std::string_view in, size_t* pos, char prefix, long* value, bool* bad) {
  size_t eol = in.find("\r\n", *pos);
  if (eol == std::string_view::npos) return false;
  if (in[*pos] != prefix) {
    *bad = true;
    return false;
  }
  char* end = nullptr;
  std::string digits(in.substr(*pos + 1, eol - *pos - 1));
  *value = std::strtol(digits.c_str(), &end, 10);
  if (end == digits.c_str() || *end != '\0' || *value < -1) {
    *bad = true;
    return false;
  }
  *pos = eol + 2;
  return true;
}

// One command at *pos: its reply appended to out.
Parse OneCommand(std::string_view in, size_t* pos, std::string* out) {
  size_t p = *pos;
  std::string_view name;
  std::string_view third;  // CONFIG GET's parameter
  if (in[p] != '*') {  // inline: one line is one command
    size_t eol = in.find('\n', p);
    if (eol == std::string_view::npos) return Parse::kIncomplete;
    name = in.substr(p, std::min(in.find(' ', p), eol) - p);
    if (!name.empty() && name.back() == '\r') name.remove_suffix(1);
    p = eol + 1;
  } else {
    bool bad = false;
    long argc;
    if (!ReadNumberLine(in, &p, '*', &argc, &bad)) return bad ? Parse::kError : Parse::kIncomplete;
    for (long i = 0; i < argc; ++i) {
      if (p >= in.size()) return Parse::kIncomplete;
      long len;
      if (!ReadNumberLine(in, &p, '$', &len, &bad)) return bad ? Parse::kError : Parse::kIncomplete;
      if (len < 0) return Parse::kError;
      if (in.size() - p < static_cast<size_t>(len) + 2) return Parse::kIncomplete;
      if (i == 0) name = in.substr(p, static_cast<size_t>(len));
      if (i == 2) third = in.substr(p, static_cast<size_t>(len));
      p += static_cast<size_t>(len) + 2;
    }
  }
  *pos = p;
  ++g_commands;
  auto is = [&](const char* word) {
    size_t n = strlen(word);
    if (name.size() != n) return false;
    for (size_t i = 0; i < n; ++i) {
      if ((name[i] & ~0x20) != word[i]) return false;
    }
    return true;
  };
  if (is("PING")) {
    out->append("+PONG\r\n");
  } else if (is("GET") || is("LPOP") || is("RPOP") || is("SPOP")) {
    out->append(g_bulk_reply);
  } else if (is("CONFIG")) {
    // The parameter with an empty value: redis-benchmark reads `save` and `appendonly`.
    out->append("*2\r\n$" + std::to_string(third.size()) + "\r\n");
    out->append(third);
    out->append("\r\n$0\r\n\r\n");
  } else if (is("SHUTDOWN")) {
    g_shutdown = true;
  } else {
    out->append("+OK\r\n");
  }
  return Parse::kDone;
}

// False when the connection must close.
bool Serve(Conn* c) {
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = read(c->fd, buf, sizeof buf);
    if (n > 0) {
      c->in.append(buf, static_cast<size_t>(n));
      if (static_cast<size_t>(n) < sizeof buf) break;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    if (errno == EAGAIN) break;
    return false;
  }
  size_t pos = 0;
  while (pos < c->in.size()) {
    Parse r = OneCommand(c->in, &pos, &c->out);
    if (r == Parse::kError) return false;
    if (r == Parse::kIncomplete) break;
  }
  c->in.erase(0, pos);
  return true;
}

bool Flush(Conn* c) {
  size_t sent = 0;
  while (sent < c->out.size()) {
    ssize_t n = write(c->fd, c->out.data() + sent, c->out.size() - sent);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    return false;
  }
  c->out.erase(0, sent);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int port = 6379;
  long bulk = 3;
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], "--port") == 0) port = atoi(argv[++i]);
    else if (strcmp(argv[i], "--bulk-size") == 0) bulk = atol(argv[++i]);
  }
  g_bulk_reply = "$" + std::to_string(bulk) + "\r\n" + std::string(static_cast<size_t>(bulk), 'x') + "\r\n";
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(lfd, 1024) != 0) {
    fprintf(stderr, "Could not listen on port %d: %s (already in use?)\n", port, strerror(errno));
    return 1;
  }
  int ep = epoll_create1(0);
  epoll_event ev{EPOLLIN, {.fd = lfd}};
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  std::unordered_map<int, std::unique_ptr<Conn>> conns;
  fprintf(stderr, "vireo-ceiling ready on port %d\n", port);
  epoll_event events[256];
  while (!g_shutdown) {
    int n = epoll_wait(ep, events, 256, -1);
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == lfd) {
        for (int cfd; (cfd = accept4(lfd, nullptr, nullptr, SOCK_NONBLOCK)) >= 0;) {
          setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          epoll_event cev{EPOLLIN, {.fd = cfd}};
          epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &cev);
          conns[cfd] = std::make_unique<Conn>(Conn{cfd, {}, {}, false});
        }
        continue;
      }
      Conn* c = conns[fd].get();
      bool ok = true;
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) ok = Serve(c);
      ok = ok && Flush(c);
      if (!ok) {
        close(fd);
        conns.erase(fd);
        continue;
      }
      bool want = !c->out.empty();
      if (want != c->want_write) {
        c->want_write = want;
        epoll_event mev{static_cast<uint32_t>(EPOLLIN | (want ? EPOLLOUT : 0u)), {.fd = fd}};
        epoll_ctl(ep, EPOLL_CTL_MOD, fd, &mev);
      }
    }
  }
  fprintf(stderr, "vireo-ceiling: %llu commands\n", static_cast<unsigned long long>(g_commands));
  return 0;
}
