#include "net/tls_connection.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "net/tls_context.h"

namespace vireo {
namespace {

int ClampLength(size_t n) { return n > INT_MAX ? INT_MAX : static_cast<int>(n); }

}  // namespace

TlsSession* TlsSession::Accept(SSL_CTX* ctx, int fd, TlsClientAuth auth) {
  SSL* ssl = SSL_new(ctx);
  if (ssl == nullptr) return nullptr;
  // Set per connection, as CONFIG SET tls-auth-clients applies to the next clients only.
  int mode = SSL_VERIFY_NONE;
  if (auth == TlsClientAuth::kYes) mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  if (auth == TlsClientAuth::kOptional) mode = SSL_VERIFY_PEER;
  SSL_set_verify(ssl, mode, nullptr);
  SSL_set_fd(ssl, fd);
  SSL_set_accept_state(ssl);
  return new TlsSession(ssl);
}

TlsSession* TlsSession::Connect(SSL_CTX* ctx, int fd) {
  SSL* ssl = SSL_new(ctx);
  if (ssl == nullptr) return nullptr;
  SSL_set_fd(ssl, fd);
  SSL_set_connect_state(ssl);
  return new TlsSession(ssl);
}

TlsSession::~TlsSession() {
  // A close_notify is polite but not waited for: the socket is closed right after.
  if (SSL_is_init_finished(ssl_) && !failed_) {
    ERR_clear_error();
    SSL_shutdown(ssl_);
  }
  SSL_free(ssl_);
  ERR_clear_error();
}

std::vector<std::string> TlsSession::PeerNames(std::string_view field) const {
  std::vector<std::string> names;
  if (!SSL_is_init_finished(ssl_) || SSL_get_verify_result(ssl_) != X509_V_OK) return names;
  const X509* cert = SSL_get0_peer_certificate(ssl_);
  if (cert == nullptr) return names;
  auto add = [&names](const ASN1_STRING* s) {
    const unsigned char* data = ASN1_STRING_get0_data(s);
    const int len = ASN1_STRING_length(s);
    if (data == nullptr || len <= 0 || memchr(data, '\0', static_cast<size_t>(len)) != nullptr) {
      return;
    }
    names.emplace_back(reinterpret_cast<const char*>(data), static_cast<size_t>(len));
  };
  if (field == "CN") {
    const X509_NAME* subject = X509_get_subject_name(cert);
    const int i = subject != nullptr ? X509_NAME_get_index_by_NID(subject, NID_commonName, -1) : -1;
    if (i >= 0) add(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i)));
  } else if (field == "URI") {
    auto* sans =
        static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
    for (int i = 0; sans != nullptr && i < sk_GENERAL_NAME_num(sans); ++i) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(sans, i);
      if (name->type == GEN_URI) add(name->d.uniformResourceIdentifier);
    }
    GENERAL_NAMES_free(sans);
  }
  return names;
}

TlsSession::Status TlsSession::Classify(int ret) {
  const int err = SSL_get_error(ssl_, ret);
  switch (err) {
    case SSL_ERROR_WANT_READ:
      return Status::kWantRead;
    case SSL_ERROR_WANT_WRITE:
      return Status::kWantWrite;
    case SSL_ERROR_ZERO_RETURN:
      return Status::kClosed;
    case SSL_ERROR_SYSCALL:
      if (ERR_peek_error() == 0) {
        if (errno == 0 || ret == 0) return Status::kClosed;  // EOF
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return Status::kWantRead;
        error_ = strerror(errno);
        failed_ = true;
        return Status::kError;
      }
      [[fallthrough]];
    default: {
      char buf[256];
      ERR_error_string_n(ERR_get_error(), buf, sizeof(buf));
      ERR_clear_error();
      error_ = buf;
      failed_ = true;
      return Status::kError;
    }
  }
}

TlsSession::Status TlsSession::Read(char* buf, size_t n, size_t* got) {
  *got = 0;
  ERR_clear_error();
  errno = 0;
  const int ret = SSL_read(ssl_, buf, ClampLength(n));
  read_wants_write_ = false;
  if (ret > 0) {
    *got = static_cast<size_t>(ret);
    return Status::kOk;
  }
  const Status s = Classify(ret);
  read_wants_write_ = s == Status::kWantWrite;
  return s;
}

TlsSession::Status TlsSession::Write(const char* buf, size_t n, size_t* put) {
  *put = 0;
  ERR_clear_error();
  errno = 0;
  const int ret = SSL_write(ssl_, buf, ClampLength(n));
  if (ret > 0) {
    *put = static_cast<size_t>(ret);
    return Status::kOk;
  }
  return Classify(ret);
}

TlsSession::Status TlsSession::Handshake() {
  ERR_clear_error();
  errno = 0;
  const int ret = SSL_do_handshake(ssl_);
  return ret == 1 ? Status::kOk : Classify(ret);
}

namespace {

ssize_t AsSocketCall(TlsSession::Status s, size_t n) {
  switch (s) {
    case TlsSession::Status::kOk:
      return static_cast<ssize_t>(n);
    case TlsSession::Status::kWantRead:
    case TlsSession::Status::kWantWrite:
      errno = EAGAIN;
      return -1;
    case TlsSession::Status::kClosed:
      return 0;
    case TlsSession::Status::kError:
      break;
  }
  errno = EIO;
  return -1;
}

}  // namespace

ssize_t TlsSession::Recv(char* buf, size_t n) {
  size_t got = 0;
  const Status s = Read(buf, n, &got);
  return AsSocketCall(s, got);
}

ssize_t TlsSession::Send(const char* buf, size_t n) {
  size_t put = 0;
  const Status s = Write(buf, n, &put);
  // A peer that closed makes a write fail: an error for the writer.
  return AsSocketCall(s == Status::kClosed ? Status::kError : s, put);
}

size_t TlsSession::Pending() const { return static_cast<size_t>(SSL_pending(ssl_)); }

}  // namespace vireo
