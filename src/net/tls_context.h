// The OpenSSL contexts TLS connections are made from: one for connections this server accepts
// (tls-port), one for those it opens (replication, cluster bus). Built from plain options so
// the network layer knows nothing of the server's configuration; rebuilt, never changed in
// place, when the configuration changes (connections keep a reference to the context they
// were made with, so a CONFIG SET does not disturb them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

typedef struct ssl_ctx_st SSL_CTX;

namespace vireo {

// tls-auth-clients: whether an accepted client must present a certificate.
enum class TlsClientAuth { kNo, kYes, kOptional };

struct TlsOptions {
  std::string cert_file;
  std::string key_file;
  std::string key_file_pass;
  std::string client_cert_file;  // outgoing connections; the server's pair when empty
  std::string client_key_file;
  std::string client_key_file_pass;
  std::string ca_cert_file;
  std::string ca_cert_dir;
  std::string dh_params_file;
  std::string protocols;  // tls-protocols: "" = TLSv1.2 and TLSv1.3
  std::string ciphers;
  std::string ciphersuites;
  bool prefer_server_ciphers = false;
  bool session_caching = true;
  int64_t session_cache_size = 20480;
  int64_t session_cache_timeout = 300;
  TlsClientAuth auth_clients = TlsClientAuth::kYes;
  // tls-replication / tls-cluster: a CA is then needed to check the peers.
  bool verify_peers_needed = false;
};

// Bits of ParseTlsProtocols' mask.
enum TlsProtocol : unsigned {
  kTlsV1 = 1u << 0,
  kTlsV1_1 = 1u << 1,
  kTlsV1_2 = 1u << 2,
  kTlsV1_3 = 1u << 3,
};

// tls-protocols: space-separated names, case-insensitive ("TLSv1.2 TLSv1.3"); "" means
// TLSv1.2 and TLSv1.3, as Valkey. False on an unknown name or an empty list of names.
bool ParseTlsProtocols(std::string_view text, unsigned* mask);

class TlsContext {
 public:
  // Loads certificates, keys and CAs and applies the options. nullptr with *error (Valkey's
  // log line: "Failed to load certificate: <path>: <reason>", ...) when anything fails.
  static std::shared_ptr<TlsContext> Create(const TlsOptions& options, std::string* error);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* server_ctx() const { return server_; }
  SSL_CTX* client_ctx() const { return client_; }
  TlsClientAuth auth_clients() const { return auth_clients_; }

 private:
  TlsContext() = default;

  SSL_CTX* server_ = nullptr;
  SSL_CTX* client_ = nullptr;
  TlsClientAuth auth_clients_ = TlsClientAuth::kYes;
};

}  // namespace vireo
