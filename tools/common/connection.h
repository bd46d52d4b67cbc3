// A blocking client connection (TCP or unix socket) for vireo-cli and the other client tools:
// connect, send commands in RESP, read parsed replies. Error texts are worded as hiredis words
// them, because the tools print them the way redis-cli does.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/resp_reader.h"

typedef struct ssl_st SSL;

namespace vireo::tools {

// --tls and its companions (redis-cli's names).
struct TlsClientOptions {
  bool enabled = false;
  std::string cacert, cacertdir, cert, key, sni;
  bool insecure = false;  // no check of the server's certificate
};

// Appends args as a RESP array of bulk strings.
void AppendCommand(std::string* out, const std::vector<std::string>& args);
void AppendCommand(std::string* out, const std::vector<std::string_view>& args);

class Connection {
 public:
  enum class ErrorKind {
    kNone,
    kIo,        // a socket error (error() holds strerror)
    kEof,       // the server closed the connection
    kProtocol,  // the reply stream was malformed
    kOther,     // name resolution and the like
  };

  Connection() = default;
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects to host:port, IPv4 first and then IPv6 as hiredis does; timeout_ms 0 blocks
  // until the kernel gives up. Closes any previous connection. On failure returns false and
  // error() says why ("Connection refused", "Name or service not known", ...).
  bool ConnectTcp(const std::string& host, int port, int timeout_ms = 0);
  // -6: look the host up as IPv6 first (then IPv4).
  void set_prefer_ipv6(bool on) { prefer_ipv6_ = on; }
  bool ConnectUnix(const std::string& path, int timeout_ms = 0);
  // After a connect: the TLS handshake (blocking). False with error() set ("Could not
  // negotiate a TLS connection: ..." is the caller's prefix).
  bool StartTls(const TlsClientOptions& options);
  void Close();
  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  // Queues a command; nothing is sent until Flush or ReadReply.
  void Append(const std::vector<std::string>& args) { AppendCommand(&out_, args); }
  void AppendViews(const std::vector<std::string_view>& args) { AppendCommand(&out_, args); }
  void AppendRaw(std::string_view bytes) { out_.append(bytes); }
  // Writes everything queued. False on a write error.
  bool Flush();
  // Flushes, then blocks until one reply is complete. False on I/O error, EOF or a protocol
  // error (the connection is then unusable: error_kind()/error() say why).
  bool ReadReply(Reply* out);
  // Append + ReadReply.
  bool Command(const std::vector<std::string>& args, Reply* out);

  // A reply already received, without blocking: true and *out filled when one was buffered.
  // Sets *failed on a protocol error.
  bool TakeBufferedReply(Reply* out, bool* failed);
  // One read() from the socket into the receive buffer (for callers polling the fd).
  // Returns false on EOF or error (EAGAIN counts as success with nothing read).
  bool ReadAvailable();
  // One send() of up to n bytes, through TLS after StartTls (errno EAGAIN when the socket is
  // full), for callers driving their own poll loop.
  ssize_t RawSend(const char* p, size_t n);
  // Switches the socket to non-blocking mode (pipe mode drives its own poll loop).
  bool SetNonBlocking();
  // Receive timeout for blocking reads; 0 = none.
  void SetReadTimeout(int timeout_ms);

  ErrorKind error_kind() const { return error_kind_; }
  const std::string& error() const { return error_; }
  // The text of an address as the tools print it ("127.0.0.1:6379", "[::1]:6379").
  static std::string FormatAddress(const std::string& host, int port);

 private:
  bool SetError(ErrorKind kind, std::string text);
  bool FinishConnect(int fd, int timeout_ms);

  // Through TLS when ssl_ is set; plain recv otherwise.
  ssize_t RawRecv(char* p, size_t n);

  bool prefer_ipv6_ = false;
  int fd_ = -1;
  SSL* ssl_ = nullptr;
  std::string out_;
  std::string in_;
  size_t in_pos_ = 0;
  size_t last_read_ = 0;
  RespReader reader_;
  ErrorKind error_kind_ = ErrorKind::kNone;
  std::string error_;
};

}  // namespace vireo::tools
