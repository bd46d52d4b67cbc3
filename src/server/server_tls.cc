// TLS wiring (net/tls_context.h, net/tls_connection.h): the contexts built from the tls-*
// directives, tls-port's listeners, CONFIG SET's rebuild. The connections' own TLS I/O is in
// net/connection.cc; commands never see it.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "acl/user.h"
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

// One file's identity and version: a replaced or rewritten file changes it.
void AppendFileStamp(const std::string& path, std::string* out) {
  struct stat st;
  if (path.empty() || stat(path.c_str(), &st) != 0) {
    *out += path + " -;";
    return;
  }
  *out += path + " " + std::to_string(st.st_ino) + " " + std::to_string(st.st_size) + " " +
          std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ";";
}

// What tls-auto-reload-interval compares: every file the contexts are built from, and each
// file of the CA directory (a certificate added there, or one changed in place).
std::string TlsMaterials(const TlsOptions& o) {
  std::string stamp;
  for (const std::string* path : {&o.cert_file, &o.key_file, &o.client_cert_file,
                                  &o.client_key_file, &o.ca_cert_file, &o.dh_params_file}) {
    AppendFileStamp(*path, &stamp);
  }
  if (o.ca_cert_dir.empty()) return stamp;
  AppendFileStamp(o.ca_cert_dir, &stamp);
  std::vector<std::string> names;
  if (DIR* dir = opendir(o.ca_cert_dir.c_str())) {
    while (const dirent* e = readdir(dir)) {
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) AppendFileStamp(o.ca_cert_dir + "/" + name, &stamp);
  return stamp;
}

}  // namespace

bool Server::InitTls(std::string* error) {
  if (!TlsWanted(config_)) return true;
  std::string why;
  const TlsOptions options = OptionsFrom(config_);
  tls_materials_ = TlsMaterials(options);
  tls_ = TlsContext::Create(options, &why);
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
  std::string materials;
  if (TlsWanted(candidate)) {
    std::string why;
    const TlsOptions options = OptionsFrom(candidate);
    materials = TlsMaterials(options);
    fresh = TlsContext::Create(options, &why);
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
  tls_materials_ = std::move(materials);
  return "";
}

void Server::TlsAutoReloadCron(int64_t now_ms) {
  if (tls_ == nullptr) return;  // no TLS: not even the config lookup, every tick
  const int64_t interval = ConfigValueInt(config_, "tls-auto-reload-interval", 0);
  if (interval <= 0 || now_ms - tls_reload_checked_ms_ < interval * 1000) return;
  tls_reload_checked_ms_ = now_ms;
  // Built on this thread, unlike Valkey's background job (whose log lines these are): the
  // contexts are made from files on disk (no key generation), only when a file changed.
  const TlsOptions options = OptionsFrom(config_);
  std::string materials = TlsMaterials(options);
  if (materials == tls_materials_) {
    LogDebug("TLS reload skipped: materials unchanged");
    return;
  }
  LogNotice("TLS materials changed, reloading in background");
  std::string why;
  std::shared_ptr<TlsContext> fresh = TlsContext::Create(options, &why);
  if (fresh == nullptr) {
    // The old contexts stay; the files are looked at again next interval only if they change
    // once more (the stamp is kept, so a bad file is not retried every interval).
    LogWarning("%s", why.c_str());
    LogWarning("Background TLS reload failed");
    tls_materials_ = std::move(materials);
    return;
  }
  tls_ = std::move(fresh);  // open connections keep the context they were made with
  tls_materials_ = std::move(materials);
  LogNotice("TLS materials reloaded successfully");
}

void Server::LoginFromCertificate(Client* c) {
  c->tls_peer_checked = true;
  const std::string field = ConfigValue(config_, "tls-auth-clients-user");
  if (field != "CN" && field != "URI") return;
  const std::vector<std::string> names = c->conn.tls()->PeerNames(field);
  for (const std::string& name : names) {
    std::shared_ptr<User> user = acl_.Find(name);
    if (user == nullptr || !user->enabled()) continue;
    SetClientUser(c, std::move(user));
    c->authenticated = true;
    return;
  }
  if (field == "URI") {
    LogVerbose("TLS: No matching user found in certificate SAN URI fields");
  } else if (!names.empty()) {
    LogVerbose("TLS: No matching user found for certificate CN '%s'", names[0].c_str());
  }
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
