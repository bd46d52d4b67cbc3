#include "net/tls_context.h"

#include <dirent.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <strings.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace vireo {
namespace {

// The oldest OpenSSL error as text, clearing the queue (this thread's).
std::string SslErrorText() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof(buf));
  return buf;
}

int PassphraseCallback(char* buf, int size, int /*rwflag*/, void* userdata) {
  const auto* pass = static_cast<const std::string*>(userdata);
  if (pass == nullptr || size <= 0) return 0;
  const size_t n = std::min(pass->size(), static_cast<size_t>(size));
  memcpy(buf, pass->data(), n);
  return static_cast<int>(n);
}

// Within its validity period now (Valkey 9.0 refuses expired and not-yet-valid ones at load).
bool CertInValidPeriod(const X509* cert) {
  if (cert == nullptr) return false;
  const ASN1_TIME* not_before = X509_get0_notBefore(cert);
  const ASN1_TIME* not_after = X509_get0_notAfter(cert);
  return not_before != nullptr && not_after != nullptr && X509_cmp_current_time(not_before) <= 0 &&
         X509_cmp_current_time(not_after) >= 0;
}

// Loads a certificate chain and its key into ctx; false with *error worded as Valkey logs it.
// role: "Server" or "Client", for the message about a certificate out of its validity period.
bool LoadKeyPair(SSL_CTX* ctx, const std::string& cert, const std::string& key,
                 const std::string& pass, const char* role, std::string* error) {
  // The pass is only needed while the key is read: the callback's pointer is cleared after.
  SSL_CTX_set_default_passwd_cb(ctx, PassphraseCallback);
  SSL_CTX_set_default_passwd_cb_userdata(ctx, const_cast<std::string*>(&pass));
  bool ok = true;
  if (SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) <= 0) {
    *error = "Failed to load certificate: " + cert + ": " + SslErrorText();
    ok = false;
  } else if (!CertInValidPeriod(SSL_CTX_get0_certificate(ctx))) {
    *error = std::string(role) + " TLS certificate is invalid. Aborting TLS configuration.";
    ok = false;
  } else if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) <= 0) {
    *error = "Failed to load private key: " + key + ": " + SslErrorText();
    ok = false;
  } else if (SSL_CTX_check_private_key(ctx) <= 0) {
    *error = "Private key does not match the certificate: " + key + ": " + SslErrorText();
    ok = false;
  }
  SSL_CTX_set_default_passwd_cb_userdata(ctx, nullptr);
  return ok;
}

// A CA directory is otherwise looked up lazily, by hashed names, during handshakes: its
// certificates are read now so each can be checked at load (and files need no c_rehash).
bool LoadCaDir(SSL_CTX* ctx, const std::string& dir_path, std::string* error) {
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  DIR* dir = opendir(dir_path.c_str());
  if (store == nullptr || dir == nullptr) {
    if (dir != nullptr) closedir(dir);
    *error = "Failed to open CA certificate directory: " + dir_path;
    return false;
  }
  bool ok = true;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const std::string path = dir_path + "/" + entry->d_name;
    FILE* f = fopen(path.c_str(), "r");
    if (f == nullptr) continue;
    X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
    fclose(f);
    if (cert == nullptr) {
      ERR_clear_error();  // not a certificate (an index, a CRL): skipped
      continue;
    }
    if (X509_STORE_add_cert(store, cert) != 1 &&
        ERR_GET_REASON(ERR_peek_last_error()) != X509_R_CERT_ALREADY_IN_HASH_TABLE) {
      *error = "Failed to load CA certificates from directory: " + dir_path;
      ok = false;
    }
    ERR_clear_error();
    X509_free(cert);
    if (!ok) break;
  }
  closedir(dir);
  return ok;
}

bool AllCasInValidPeriod(SSL_CTX* ctx) {
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  if (store == nullptr) return false;
  STACK_OF(X509_OBJECT)* objects = X509_STORE_get0_objects(store);
  for (int i = 0; objects != nullptr && i < sk_X509_OBJECT_num(objects); ++i) {
    X509_OBJECT* obj = sk_X509_OBJECT_value(objects, i);
    if (X509_OBJECT_get_type(obj) != X509_LU_X509) continue;
    if (!CertInValidPeriod(X509_OBJECT_get0_X509(obj))) return false;
  }
  return true;
}

bool ConfigureCommon(SSL_CTX* ctx, const TlsOptions& o, unsigned protocols, std::string* error) {
  // No renegotiation (the I/O path need not handle a write that waits for a read), no
  // compression (CRIME).
  uint64_t options = SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION;
  if (!(protocols & kTlsV1)) options |= SSL_OP_NO_TLSv1;
  if (!(protocols & kTlsV1_1)) options |= SSL_OP_NO_TLSv1_1;
  if (!(protocols & kTlsV1_2)) options |= SSL_OP_NO_TLSv1_2;
  if (!(protocols & kTlsV1_3)) options |= SSL_OP_NO_TLSv1_3;
  if (o.prefer_server_ciphers) options |= SSL_OP_CIPHER_SERVER_PREFERENCE;
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
  // A peer that closes without close_notify has closed, not failed (as with OpenSSL 1.1).
  options |= SSL_OP_IGNORE_UNEXPECTED_EOF;
#endif
  SSL_CTX_set_options(ctx, options);
  // Partial writes over an output buffer that may move between tries; idle connections
  // give their 34 KB of record buffers back.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                            SSL_MODE_RELEASE_BUFFERS);
  if (!o.ca_cert_file.empty() || !o.ca_cert_dir.empty()) {
    if (SSL_CTX_load_verify_locations(
            ctx, o.ca_cert_file.empty() ? nullptr : o.ca_cert_file.c_str(),
            o.ca_cert_dir.empty() ? nullptr : o.ca_cert_dir.c_str()) <= 0) {
      *error = "Failed to configure CA certificate(s) file/directory: " + SslErrorText();
      return false;
    }
    if (!o.ca_cert_dir.empty() && !LoadCaDir(ctx, o.ca_cert_dir, error)) return false;
    if (!AllCasInValidPeriod(ctx)) {
      *error = "One or more loaded CA certificates are invalid. Aborting TLS configuration.";
      return false;
    }
  }
  if (!o.ciphers.empty() && SSL_CTX_set_cipher_list(ctx, o.ciphers.c_str()) <= 0) {
    *error = "Failed to configure ciphers: " + o.ciphers;
    ERR_clear_error();
    return false;
  }
  if (!o.ciphersuites.empty() && SSL_CTX_set_ciphersuites(ctx, o.ciphersuites.c_str()) <= 0) {
    *error = "Failed to configure ciphersuites: " + o.ciphersuites;
    ERR_clear_error();
    return false;
  }
  return true;
}

bool LoadDhParams(SSL_CTX* ctx, const std::string& path, std::string* error) {
  if (path.empty()) {
    SSL_CTX_set_dh_auto(ctx, 1);
    return true;
  }
  BIO* bio = BIO_new_file(path.c_str(), "r");
  EVP_PKEY* dh = bio != nullptr ? PEM_read_bio_Parameters(bio, nullptr) : nullptr;
  if (bio != nullptr) BIO_free(bio);
  if (dh == nullptr) {
    *error = "Failed to load " + path + ": " + SslErrorText();
    return false;
  }
  if (SSL_CTX_set0_tmp_dh_pkey(ctx, dh) <= 0) {  // takes dh on success
    EVP_PKEY_free(dh);
    *error = "Failed to load DH params file: " + path + ": " + SslErrorText();
    return false;
  }
  return true;
}

}  // namespace

bool ParseTlsProtocols(std::string_view text, unsigned* mask) {
  if (text.find_first_not_of(' ') == std::string_view::npos) {
    *mask = kTlsV1_2 | kTlsV1_3;
    return true;
  }
  static constexpr struct {
    const char* name;
    unsigned bit;
  } kNames[] = {
      {"tlsv1", kTlsV1}, {"tlsv1.1", kTlsV1_1}, {"tlsv1.2", kTlsV1_2}, {"tlsv1.3", kTlsV1_3}};
  unsigned result = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find(' ', pos), text.size());
    const std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    unsigned bit = 0;
    for (const auto& n : kNames) {
      if (word.size() == strlen(n.name) && strncasecmp(word.data(), n.name, word.size()) == 0) {
        bit = n.bit;
      }
    }
    if (bit == 0) return false;
    result |= bit;
  }
  *mask = result;
  return result != 0;
}

std::shared_ptr<TlsContext> TlsContext::Create(const TlsOptions& o, std::string* error) {
  if (o.cert_file.empty()) {
    *error = "No tls-cert-file configured!";
    return nullptr;
  }
  if (o.key_file.empty()) {
    *error = "No tls-key-file configured!";
    return nullptr;
  }
  if ((o.auth_clients != TlsClientAuth::kNo || o.verify_peers_needed) && o.ca_cert_file.empty() &&
      o.ca_cert_dir.empty()) {
    *error =
        "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
        "tls-replication or tls-auth-clients are enabled!";
    return nullptr;
  }
  unsigned protocols = 0;
  if (!ParseTlsProtocols(o.protocols, &protocols)) {
    *error =
        "Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' "
        "and 'TLSv1.3'.";
    return nullptr;
  }
  ERR_clear_error();
  std::shared_ptr<TlsContext> t(new TlsContext());
  t->auth_clients_ = o.auth_clients;
  t->server_ = SSL_CTX_new(TLS_server_method());
  t->client_ = SSL_CTX_new(TLS_client_method());
  if (t->server_ == nullptr || t->client_ == nullptr) {
    *error = "Failed to create TLS context: " + SslErrorText();
    return nullptr;
  }
  SSL_CTX* s = t->server_;
  if (!ConfigureCommon(s, o, protocols, error) ||
      !LoadKeyPair(s, o.cert_file, o.key_file, o.key_file_pass, "Server", error) ||
      !LoadDhParams(s, o.dh_params_file, error)) {
    return nullptr;
  }
  if (o.session_caching) {
    static const unsigned char kSessionContext[] = "vireo";
    SSL_CTX_set_session_cache_mode(s, SSL_SESS_CACHE_SERVER);
    SSL_CTX_sess_set_cache_size(s, o.session_cache_size);
    SSL_CTX_set_timeout(s, o.session_cache_timeout);
    SSL_CTX_set_session_id_context(s, kSessionContext, sizeof(kSessionContext) - 1);
  } else {
    SSL_CTX_set_session_cache_mode(s, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(s, SSL_OP_NO_TICKET);
  }
  // Outgoing connections verify the server against the CAs (no host name check, as Valkey)
  // and present tls-client-cert-file, or the server's own certificate.
  SSL_CTX* c = t->client_;
  const bool own_pair = !o.client_cert_file.empty() && !o.client_key_file.empty();
  if (!ConfigureCommon(c, o, protocols, error) ||
      !LoadKeyPair(c, own_pair ? o.client_cert_file : o.cert_file,
                   own_pair ? o.client_key_file : o.key_file,
                   own_pair ? o.client_key_file_pass : o.key_file_pass,
                   own_pair ? "Client" : "Server", error)) {
    return nullptr;
  }
  SSL_CTX_set_verify(c, SSL_VERIFY_PEER, nullptr);
  return t;
}

TlsContext::~TlsContext() {
  if (server_ != nullptr) SSL_CTX_free(server_);
  if (client_ != nullptr) SSL_CTX_free(client_);
}

}  // namespace vireo
