// The server's side of ACL (acl/ holds users, rules and checks): which user a client runs
// as, authentication, the per-command check with its log entries, and closing clients whose
// user went away.
#include <fstream>
#include <sstream>

#include "acl/permission.h"
#include "commands/server_family.h"
#include "common/clock.h"
#include "common/log.h"
#include "server/config.h"
#include "server/server.h"
#include "server/transaction.h"

namespace vireo {
namespace {

void LogRefusal(Server& server, Client* c, const char* reason, const char* context,
                std::string object, std::string username, const std::string& current) {
  AclLogEntry e;
  e.reason = reason;
  e.context = context;
  e.object = std::move(object);
  e.username = std::move(username);
  e.client_info = ClientInfoForLog(*c, current);
  server.acl_log().Add(std::move(e), NowMs(),
                       ConfigValueInt(server.config(), "acllog-max-len", 128));
}

}  // namespace

void Server::SetClientUser(Client* c, std::shared_ptr<User> user) {
  c->acl_user = std::move(user);
  if (c->acl_user != nullptr && !c->acl_user->unrestricted()) {
    c->flags |= kClientAclRestricted;
  } else {
    c->flags &= ~kClientAclRestricted;
  }
}

void Server::RefreshAclClients() {
  for (auto& [id, c] : clients_) SetClientUser(c, c->acl_user);
}

void Server::KillClientsOfUser(const User* user, Client* caller) {
  for (auto& [id, c] : clients_) {
    if (c->acl_user.get() != user) continue;
    // Nothing more runs as the user, even before the close.
    SetClientUser(c, acl_.default_user());
    c->authenticated = false;
    if (c == caller) {
      c->flags |= kClientCloseAfterReply;
    } else {
      CloseClientAsync(c);
    }
  }
}

void Server::KillPubSubClientsOfUser(const User* user, Client* caller) {
  auto allowed = [user](std::string_view channel, bool pattern) {
    for (const Selector& s : user->selectors()) {
      if (s.AllowsChannel(channel, pattern)) return true;
    }
    return false;
  };
  for (auto& [id, c] : clients_) {
    if (c->acl_user.get() != user || c->subs == nullptr) continue;
    bool kill = false;
    for (const auto& ch : c->subs->channels) kill = kill || !allowed(ch, false);
    for (const auto& ch : c->subs->shard_channels) kill = kill || !allowed(ch, false);
    for (const auto& p : c->subs->patterns) kill = kill || !allowed(p, true);
    if (!kill) continue;
    if (c == caller) {
      c->flags |= kClientCloseAfterReply;
    } else {
      CloseClientAsync(c);
    }
  }
}

bool Server::AuthRequired() const {
  const User& d = *acl_.default_user();
  return !(d.nopass() && d.enabled());
}

bool Server::Authenticate(Client* c, std::string_view name, std::string_view password,
                          std::string_view command) {
  std::shared_ptr<User> user = acl_.Find(name);
  if (user != nullptr && user->enabled() && user->CheckPassword(password)) {
    SetClientUser(c, std::move(user));
    c->authenticated = true;
    return true;
  }
  ++stats_.acl_denied_auth;
  LogRefusal(*this, c, "auth", "toplevel", std::string(command), std::string(name),
             std::string(command));
  return false;
}

int Server::AclDb(const Client* c) {
  if ((c->flags & kClientMulti) && c->multi != nullptr) return c->multi->db;
  return c->db_index;
}

AclVerdict Server::AclCheck(Client* c, const CommandSpec* spec,
                            const std::vector<std::string_view>& args, int db,
                            const char* context) {
  AclVerdict v = CheckCommandPermission(*c->acl_user, *spec, args, AclDbs{db, db_count()});
  if (v.denial == AclDenial::kNone) return v;
  switch (v.denial) {
    case AclDenial::kDatabase:
      ++stats_.acl_denied_db;
      break;
    case AclDenial::kKey:
      ++stats_.acl_denied_key;
      break;
    case AclDenial::kChannel:
      ++stats_.acl_denied_channel;
      break;
    default:
      ++stats_.acl_denied_cmd;
      break;
  }
  // The log's client line names the refused command, as Valkey's does.
  LogRefusal(*this, c, AclDenialReason(v.denial), context, AclDenialObject(v, *spec, args),
             c->UserName(), spec->name);
  return v;
}

bool Server::AclPermits(Client* c, const CommandSpec* spec,
                        const std::vector<std::string_view>& args, int db, const char* context,
                        std::string* error) {
  AclVerdict v = AclCheck(c, spec, args, db, context);
  if (v.denial == AclDenial::kNone) return true;
  *error = "NOPERM " + AclDenialText(v, *c->acl_user, *spec, args, false);
  return false;
}

bool Server::LoadAclAtStartup(std::string* error) {
  acl_.set_all_channels_default(ConfigValue(config_, "acl-pubsub-default") == "allchannels");
  if (!config_.requirepass.empty()) acl_.SetRequirePass(config_.requirepass);
  const std::string aclfile = ConfigValue(config_, "aclfile");
  if (!aclfile.empty() && !config_.acl_users.empty()) {
    *error =
        "Configuring Valkey with users defined in valkey.conf and at the same setting an ACL "
        "file path is invalid. This setup is very likely to lead to configuration errors and "
        "security holes, please define either an ACL file or declare users directly in your "
        "valkey.conf, but not both.";
    return false;
  }
  for (const std::vector<std::string>& line : config_.acl_users) {
    std::vector<std::string_view> rules(line.begin() + 1, line.end());
    std::string err = acl_.SetUser(line[0], rules);
    if (!err.empty()) {
      *error = "Error in user declaration '" + line[0] + "': " + err;
      return false;
    }
  }
  if (!aclfile.empty()) {
    std::ifstream in(aclfile);
    if (!in) {
      *error = "Error loading ACLs, opening file '" + aclfile + "': No such file or directory";
      return false;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    if (!acl_.Load(ss.str(), aclfile, error)) return false;
  }
  return true;
}

}  // namespace vireo
