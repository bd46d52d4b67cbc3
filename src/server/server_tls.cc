// TLS wiring (net/tls_context.h, net/tls_connection.h): the contexts built from the tls-*
// directives, tls-port's listeners, CONFIG SET's rebuild. The connections' own TLS I/O is in
// net/connection.cc; commands never see it.
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "common/log.h"
#include "net/tls_connection.h"
#include "net/tls_context.h"
#include "server/server.h"

namespace vireo {
namespace {

constexpr const char* kTlsFailed = "Failed to configure TLS. Check logs for more info.";

TlsClientAuth AuthClients(const Config& config) {
  const std::string v = ConfigValue(config, "tls-auth-clients");
  if (v == "no") return TlsClientAuth::kNo;
  return v == "optional" ? TlsClientAuth::kOptional : TlsClientAuth::kYes;
}

bool TlsWanted(const Config& config) {
  return ConfigValueInt(config, "tls-port", 0) != 0 ||
         ConfigValue(config, "tls-replication") == "yes" ||
         ConfigValue(config, "tls-cluster") == "yes";
}

TlsOptions OptionsFrom(const Config& config) {
  static constexpr struct {
    const char* name;
    std::string TlsOptions::*field;
  } kPaths[] = {
      {"tls-cert-file", &TlsOptions::cert_file},
      {"tls-key-file", &TlsOptions::key_file},
      {"tls-key-file-pass", &TlsOptions::key_file_pass},
      {"tls-client-cert-file", &TlsOptions::client_cert_file},
      {"tls-client-key-file", &TlsOptions::client_key_file},
      {"tls-client-key-file-pass", &TlsOptions::client_key_file_pass},
      {"tls-ca-cert-file", &TlsOptions::ca_cert_file},
      {"tls-ca-cert-dir", &TlsOptions::ca_cert_dir},
      {"tls-dh-params-file", &TlsOptions::dh_params_file},
      {"tls-protocols", &TlsOptions::protocols},
      {"tls-ciphers", &TlsOptions::ciphers},
      {"tls-ciphersuites", &TlsOptions::ciphersuites},
  };
  TlsOptions o;
  for (const auto& p : kPaths) o.*(p.field) = ConfigValue(config, p.name);
  o.prefer_server_ciphers = ConfigValue(config, "tls-prefer-server-ciphers") == "yes";
  o.session_caching = ConfigValue(config, "tls-session-caching") == "yes";
  o.session_cache_size = ConfigValueInt(config, "tls-session-cache-size", 20480);
  o.session_cache_timeout = ConfigValueInt(config, "tls-session-cache-timeout", 300);
  o.auth_clients = AuthClients(config);
  o.verify_peers_needed = ConfigValue(config, "tls-replication") == "yes" ||
                          ConfigValue(config, "tls-cluster") == "yes";
  return o;
}

}  // namespace

bool Server::InitTls(std::string* error) {
  if (!TlsWanted(config_)) return true;
  std::string why;
  tls_ = TlsContext::Create(OptionsFrom(config_), &why);
  if (tls_ == nullptr) {
    LogWarning("%s", why.c_str());
    *error = kTlsFailed;
    return false;
  }
  const int port = static_cast<int>(ConfigValueInt(config_, "tls-port", 0));
  return port == 0 || OpenTcpListeners(port, true, error);
}

std::string Server::ReconfigureTls(const Config& candidate, std::string_view name) {
  std::shared_ptr<TlsContext> fresh;
  if (TlsWanted(candidate)) {
    std::string why;
    fresh = TlsContext::Create(OptionsFrom(candidate), &why);
    if (fresh == nullptr) {
      LogWarning("%s", why.c_str());
      LogWarning(
          "Failed applying new configuration. Possibly related to new %s setting. "
          "Restoring previous settings.",
          std::string(name).c_str());
      return "Unable to update TLS configuration. Check server logs.";
    }
  }
  const int64_t old_port = ConfigValueInt(config_, "tls-port", 0);
  const int64_t new_port = ConfigValueInt(candidate, "tls-port", 0);
  if (old_port != new_port) {
    // The new port first: if it cannot be opened, the old one stays.
    std::vector<int> old_fds;
    for (const auto& l : listeners_) {
      if (l->tls) old_fds.push_back(l->fd);
    }
    std::string err;
    if (new_port != 0 && !OpenTcpListeners(static_cast<int>(new_port), true, &err)) {
      LogWarning("%s", err.c_str());
      return "Unable to listen on this port. Check server logs.";
    }
    auto is_old = [&old_fds](const std::unique_ptr<Listener>& l) {
      return std::find(old_fds.begin(), old_fds.end(), l->fd) != old_fds.end();
    };
    for (int fd : old_fds) {
      loop_.Unwatch(fd);
      close(fd);
    }
    listeners_.erase(std::remove_if(listeners_.begin(), listeners_.end(), is_old),
                     listeners_.end());
  }
  // Connections made with the old context keep it (OpenSSL counts its users).
  tls_ = std::move(fresh);
  return "";
}

TlsSession* Server::AcceptTls(int fd) {
  if (tls_ == nullptr) return nullptr;
  return TlsSession::Accept(tls_->server_ctx(), fd, AuthClients(config_));
}

void Server::LogTlsFailure(Client* c) {
  LogVerbose("Error accepting a client connection: %s (addr=%s laddr=%s)",
             c->conn.tls()->error().c_str(), c->addr.c_str(), c->laddr.c_str());
}

}  // namespace vireo
