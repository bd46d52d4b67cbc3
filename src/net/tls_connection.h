// One TLS session over a non-blocking socket: the transport Connection switches to for a
// client of tls-port, and the replica's link to a TLS primary. Bytes in, bytes out; the
// handshake runs inside the first reads and writes. One thread at a time (an I/O thread may
// hold it during a batch); the OpenSSL error queue is per thread, so each call clears it.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

namespace vireo {

enum class TlsClientAuth;

class TlsSession {
 public:
  // For an accepted socket: the server's side, with tls-auth-clients' verification.
  static TlsSession* Accept(SSL_CTX* ctx, int fd, TlsClientAuth auth);
  // For a connected socket: the client's side (replication), whose handshake
  // Handshake() drives.
  static TlsSession* Connect(SSL_CTX* ctx, int fd);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  enum class Status { kOk, kWantRead, kWantWrite, kClosed, kError };
  // Reads up to n plaintext bytes into buf; *got says how many (> 0 only with kOk).
  Status Read(char* buf, size_t n, size_t* got);
  // Writes up to n bytes (partial writes allowed); *put says how many were taken.
  Status Write(const char* buf, size_t n, size_t* put);
  // recv()/send()-shaped Read and Write for code written around those: > 0 bytes, 0 at the
  // end (Recv), -1 with errno EAGAIN (wait for the socket) or EIO (error()).
  ssize_t Recv(char* buf, size_t n);
  ssize_t Send(const char* buf, size_t n);
  // Continues the handshake: kOk once done.
  Status Handshake();
  // Decrypted bytes the library holds that the socket's readiness will not announce.
  size_t Pending() const;
  // The last read could not go on until the socket takes bytes (handshake or key update
  // messages): the caller must wait for writability, then read again.
  bool read_wants_write() const { return read_wants_write_; }
  // The names a verified peer certificate carries in field: "CN" (its subject's common name)
  // or "URI" (its subjectAltName URIs, in order). Empty without a certificate, when it did not
  // verify, or before the handshake ends. Names holding a NUL byte are left out.
  std::vector<std::string> PeerNames(std::string_view field) const;
  // Why the last kError happened, for the log.
  const std::string& error() const { return error_; }

 private:
  explicit TlsSession(SSL* ssl) : ssl_(ssl) {}
  Status Classify(int ret);

  SSL* ssl_;
  bool read_wants_write_ = false;
  bool failed_ = false;  // a fatal error: no close_notify may be sent
  std::string error_;
};

}  // namespace vireo
