#include "common/connection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace vireo::tools {
namespace {

// TCP keepalive as redis-cli sets it, so a long command does not look like a dead peer.
constexpr int kKeepAliveIntervalS = 15;

void SetKeepAlive(int fd) {
  int yes = 1;
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &yes, sizeof(yes));
#ifdef TCP_KEEPIDLE
  int idle = kKeepAliveIntervalS;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  int interval = kKeepAliveIntervalS / 3;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  int count = 3;
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
#endif
}

template <typename Args>
void AppendArgs(std::string* out, const Args& args) {
  char header[32];
  int n = snprintf(header, sizeof(header), "*%zu\r\n", args.size());
  out->append(header, n);
  for (const auto& arg : args) {
    n = snprintf(header, sizeof(header), "$%zu\r\n", arg.size());
    out->append(header, n);
    out->append(arg.data(), arg.size());
    out->append("\r\n", 2);
  }
}

}  // namespace

void AppendCommand(std::string* out, const std::vector<std::string>& args) {
  AppendArgs(out, args);
}

void AppendCommand(std::string* out, const std::vector<std::string_view>& args) {
  AppendArgs(out, args);
}

Connection::~Connection() { Close(); }

void Connection::Close() {
  if (ssl_ != nullptr) {
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  out_.clear();
  in_.clear();
  in_pos_ = 0;
  reader_.Reset();
}

bool Connection::SetError(ErrorKind kind, std::string text) {
  error_kind_ = kind;
  error_ = std::move(text);
  return false;
}

std::string Connection::FormatAddress(const std::string& host, int port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

bool Connection::FinishConnect(int fd, int timeout_ms) {
  if (timeout_ms <= 0) return true;
  pollfd pfd{fd, POLLOUT, 0};
  int rc;
  do {
    rc = poll(&pfd, 1, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  if (rc == 0) {
    errno = ETIMEDOUT;
    return false;
  }
  if (rc < 0) return false;
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) return false;
  if (err != 0) {
    errno = err;
    return false;
  }
  return true;
}

bool Connection::ConnectTcp(const std::string& host, int port, int timeout_ms) {
  Close();
  error_kind_ = ErrorKind::kNone;
  error_.clear();
  // hiredis prints the port into a 6-byte buffer; doing the same keeps odd ports (70000, -1)
  // failing or wrapping exactly as redis-cli's do.
  char service[6];
  snprintf(service, sizeof(service), "%d", port);
  addrinfo hints{};
  hints.ai_family = prefer_ipv6_ ? AF_INET6 : AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  int rc = getaddrinfo(host.c_str(), service, &hints, &list);
  if (rc != 0) {
    hints.ai_family = prefer_ipv6_ ? AF_INET : AF_INET6;
    rc = getaddrinfo(host.c_str(), service, &hints, &list);
    if (rc != 0) return SetError(ErrorKind::kOther, gai_strerror(rc));
  }
  int saved_errno = 0;
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      saved_errno = errno;
      continue;
    }
    if (timeout_ms > 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    bool ok = rc == 0 || (errno == EINPROGRESS && FinishConnect(fd, timeout_ms));
    if (!ok) {
      saved_errno = errno;
      close(fd);
      if (saved_errno == EHOSTUNREACH) continue;
      break;
    }
    if (timeout_ms > 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    int yes = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    SetKeepAlive(fd);
    fd_ = fd;
    freeaddrinfo(list);
    return true;
  }
  freeaddrinfo(list);
  if (saved_errno == 0) return SetError(ErrorKind::kOther, "Can't create socket");
  return SetError(ErrorKind::kIo, strerror(saved_errno));
}

bool Connection::ConnectUnix(const std::string& path, int timeout_ms) {
  Close();
  error_kind_ = ErrorKind::kNone;
  error_.clear();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return SetError(ErrorKind::kIo, strerror(ENAMETOOLONG));
  memcpy(addr.sun_path, path.data(), path.size());
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return SetError(ErrorKind::kIo, strerror(errno));
  if (timeout_ms > 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  int rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  if (rc != 0 && !(errno == EINPROGRESS && FinishConnect(fd, timeout_ms))) {
    int err = errno;
    close(fd);
    return SetError(ErrorKind::kIo, strerror(err));
  }
  if (timeout_ms > 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  fd_ = fd;
  return true;
}

bool Connection::StartTls(const TlsClientOptions& o) {
  if (fd_ < 0) return SetError(ErrorKind::kIo, "Not connected");
  // hiredis's wording: a set-up problem names the file kind; a failed handshake the reason.
  auto ssl_error = [this](const char* what) {
    unsigned long code = ERR_get_error();
    const char* reason = code != 0 ? ERR_reason_error_string(code) : nullptr;
    ERR_clear_error();
    return SetError(ErrorKind::kOther,
                    *what != 0 ? std::string(what) : "SSL_connect failed: " +
                                                         std::string(reason ? reason : "unknown"));
  };
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return ssl_error("");
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                           SSL_MODE_AUTO_RETRY);
  SSL_CTX_set_verify(ctx, o.insecure ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, nullptr);
  bool ok = true;
  // Without a CA named, the system's trusted roots apply, as with redis-cli.
  if (o.cacert.empty() && o.cacertdir.empty()) {
    ok = SSL_CTX_set_default_verify_paths(ctx) > 0;
  } else {
    ok = SSL_CTX_load_verify_locations(ctx, o.cacert.empty() ? nullptr : o.cacert.c_str(),
                                       o.cacertdir.empty() ? nullptr : o.cacertdir.c_str()) > 0;
  }
  if (!ok) {
    SSL_CTX_free(ctx);
    return ssl_error("Invalid CA Certificate File/Directory");
  }
  if (!o.cert.empty() && SSL_CTX_use_certificate_chain_file(ctx, o.cert.c_str()) <= 0) {
    SSL_CTX_free(ctx);
    return ssl_error("Invalid client certificate");
  }
  if (!o.key.empty() && SSL_CTX_use_PrivateKey_file(ctx, o.key.c_str(), SSL_FILETYPE_PEM) <= 0) {
    SSL_CTX_free(ctx);
    return ssl_error("Invalid private key");
  }
  ssl_ = SSL_new(ctx);
  SSL_CTX_free(ctx);  // the session holds its own reference
  if (ssl_ == nullptr) return ssl_error("");
  if (!o.sni.empty()) SSL_set_tlsext_host_name(ssl_, o.sni.c_str());
  SSL_set_fd(ssl_, fd_);
  if (SSL_connect(ssl_) != 1) {
    if (ERR_peek_error() == 0) return SetError(ErrorKind::kIo, strerror(errno ? errno : EPIPE));
    return ssl_error("");
  }
  return true;
}

ssize_t Connection::RawSend(const char* p, size_t n) {
  if (ssl_ == nullptr) return send(fd_, p, n, MSG_NOSIGNAL);
  ERR_clear_error();
  const int ret = SSL_write(ssl_, p, static_cast<int>(std::min<size_t>(n, 1 << 30)));
  if (ret > 0) return ret;
  const int err = SSL_get_error(ssl_, ret);
  errno = err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE ? EAGAIN
          : err == SSL_ERROR_SYSCALL && errno != 0                  ? errno
                                                                    : EIO;
  return -1;
}

ssize_t Connection::RawRecv(char* p, size_t n) {
  if (ssl_ == nullptr) return recv(fd_, p, n, 0);
  ERR_clear_error();
  errno = 0;
  const int ret = SSL_read(ssl_, p, static_cast<int>(std::min<size_t>(n, 1 << 30)));
  if (ret > 0) return ret;
  const int err = SSL_get_error(ssl_, ret);
  if (err == SSL_ERROR_ZERO_RETURN || (err == SSL_ERROR_SYSCALL && errno == 0)) return 0;
  if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
    errno = EAGAIN;
  } else if (err != SSL_ERROR_SYSCALL) {
    // The server refused this client (its certificate) or broke the protocol: closed.
    if (ERR_peek_error() != 0) {
      ERR_clear_error();
      return 0;
    }
    errno = EIO;
  }
  return -1;
}

bool Connection::Flush() {
  if (fd_ < 0) return SetError(ErrorKind::kIo, "Not connected");
  size_t done = 0;
  while (done < out_.size()) {
    ssize_t n = RawSend(out_.data() + done, out_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd pfd{fd_, POLLOUT, 0};
        poll(&pfd, 1, -1);
        continue;
      }
      out_.erase(0, done);
      return SetError(ErrorKind::kIo, strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  out_.clear();
  return true;
}

bool Connection::ReadAvailable() {
  if (fd_ < 0) return SetError(ErrorKind::kIo, "Not connected");
  // Drop consumed bytes before growing, so the buffer stays the size of what is unparsed.
  if (in_pos_ > 0 && (in_pos_ == in_.size() || in_pos_ > (1 << 20))) {
    in_.erase(0, in_pos_);
    in_pos_ = 0;
  }
  const size_t old = in_.size();
  constexpr size_t kChunk = 64 * 1024;
  in_.resize(old + kChunk);
  ssize_t n;
  do {
    n = RawRecv(in_.data() + old, kChunk);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    in_.resize(old);
    last_read_ = 0;
    if (errno == EAGAIN) return true;
    return SetError(ErrorKind::kIo, strerror(errno));
  }
  last_read_ = static_cast<size_t>(n);
  in_.resize(old + static_cast<size_t>(n));
  if (n == 0) return SetError(ErrorKind::kEof, "Server closed the connection");
  return true;
}

bool Connection::TakeBufferedReply(Reply* out, bool* failed) {
  *failed = false;
  if (in_pos_ >= in_.size()) return false;
  size_t consumed = 0;
  RespReader::Result r = reader_.Parse(in_.data() + in_pos_, in_.size() - in_pos_, &consumed, out);
  if (r == RespReader::Result::kIncomplete) return false;
  if (r == RespReader::Result::kError) {
    *failed = true;
    SetError(ErrorKind::kProtocol, std::string(reader_.Error()));
    return false;
  }
  in_pos_ += consumed;
  return true;
}

bool Connection::ReadReply(Reply* out) {
  if (!out_.empty() && !Flush()) return false;
  for (;;) {
    bool failed = false;
    if (TakeBufferedReply(out, &failed)) return true;
    if (failed) return false;
    if (!ReadAvailable()) return false;
    // A blocking socket only returns nothing when its receive timeout expired.
    if (last_read_ == 0) return SetError(ErrorKind::kIo, strerror(EAGAIN));
  }
}

bool Connection::Command(const std::vector<std::string>& args, Reply* out) {
  Append(args);
  return ReadReply(out);
}

bool Connection::SetNonBlocking() {
  if (fd_ < 0) return false;
  return fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK) == 0;
}

void Connection::SetReadTimeout(int timeout_ms) {
  if (fd_ < 0) return;
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

}  // namespace vireo::tools
