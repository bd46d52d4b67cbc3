// CONFIG GET / SET / RESETSTAT / REWRITE / HELP over the directive table in server/config.
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/numbers.h"
#include "net/socket.h"
#include "server/eviction.h"
#include "server/server.h"

namespace vireo {
namespace {

bool HasGlobChars(std::string_view s) {
  return s.find_first_of("*?[\\") != std::string_view::npos;
}

// Whether a client may change protected directives (dir, dbfilename) at run time.
bool MayChangeProtectedConfig(CommandContext& ctx) {
  const std::string& mode = ctx.server.config().enable_protected_configs;
  if (mode == "yes") return true;
  if (mode != "local") return false;
  return (ctx.client.flags & kClientUnixSocket) || IsLoopbackPeer(ctx.client.conn.fd());
}

std::string SetFailed(std::string_view name, std::string_view reason) {
  return "ERR CONFIG SET failed (possibly related to argument '" + std::string(name) + "') - " +
         std::string(reason);
}

// CONFIG GET parameter [parameter ...]
void CmdConfigGet(CommandContext& ctx) {
  std::vector<std::pair<std::string, std::string>> found;
  std::set<std::string> seen;
  for (size_t i = 2; i < ctx.argc(); ++i) {
    std::string_view pattern = ctx.arg(i);
    bool exact = !HasGlobChars(pattern);
    for (auto& [name, value] : ConfigGet(ctx.server.config(), pattern)) {
      // An exact name is echoed as the client spelled it ("HZ"), as Valkey does.
      if (!seen.insert(name).second) continue;
      found.emplace_back(exact ? std::string(pattern) : std::move(name), std::move(value));
    }
  }
  ctx.reply.Map(found.size());
  for (const auto& [name, value] : found) {
    ctx.reply.Bulk(name);
    ctx.reply.Bulk(value);
  }
}

// Applies a new working directory (CONFIG SET dir); "" on success or the reason it failed.
std::string ChangeDirectory(Config* config) {
  if (chdir(config->dir.c_str()) != 0) return strerror(errno);
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) != nullptr) config->dir = cwd;
  return "";
}

// CONFIG SET parameter value [parameter value ...]
// All or nothing: every pair is checked and applied to a copy, which replaces the live
// configuration only when all succeeded.
void CmdConfigSet(CommandContext& ctx) {
  if (ctx.argc() % 2 != 0) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  // Errors about a name quote it as typed; errors about a value use the directive's name (or
  // the alias used), in lower case, as Valkey does.
  std::vector<std::string> names;
  for (size_t i = 2; i < ctx.argc(); i += 2) {
    std::string_view typed = ctx.arg(i);
    std::string name = ToLower(typed);
    std::string canonical = ConfigCanonicalName(name);
    if (canonical.empty()) {
      ctx.reply.Error("ERR Unknown option or number of arguments for CONFIG SET - '" +
                      std::string(typed) + "'");
      return;
    }
    if (IsImmutableConfig(canonical)) {
      ctx.reply.Error(SetFailed(typed, "can't set immutable config"));
      return;
    }
    if (IsProtectedConfig(canonical) && !MayChangeProtectedConfig(ctx)) {
      ctx.reply.Error(SetFailed(typed, "can't set protected config"));
      return;
    }
    for (const std::string& earlier : names) {
      if (earlier == name) {
        ctx.reply.Error(SetFailed(typed, "duplicate parameter"));
        return;
      }
    }
    names.push_back(std::move(name));
  }
  Config candidate = ctx.server.config();
  const std::string* dir_name = nullptr;
  for (size_t i = 0; i < names.size(); ++i) {
    std::string err = ConfigSet(&candidate, names[i], ctx.arg(3 + 2 * i));
    if (!err.empty()) {
      ctx.reply.Error(SetFailed(names[i], err));
      return;
    }
    if (ConfigCanonicalName(names[i]) == "dir") dir_name = &names[i];
  }
  // TLS certificates and keys are loaded (and tls-port opened) before anything is applied:
  // a bad file leaves everything as it was.
  for (const std::string& name : names) {
    const std::string canonical = ConfigCanonicalName(name);
    if (canonical.rfind("tls-", 0) != 0) continue;
    // Read when used, not loaded into the contexts.
    if (canonical == "tls-auth-clients-user" || canonical == "tls-auto-reload-interval") continue;
    std::string err = ctx.server.ReconfigureTls(candidate, canonical);
    if (!err.empty()) {
      ctx.reply.Error(SetFailed(name, err));
      return;
    }
    break;
  }
  // The only change that can fail once validated, so it goes last.
  if (dir_name != nullptr) {
    std::string err = ChangeDirectory(&candidate);
    if (!err.empty()) {
      ctx.reply.Error(SetFailed(*dir_name, err));
      return;
    }
  }
  ctx.server.config() = std::move(candidate);
  for (const std::string& name : names) ctx.server.OnConfigChanged(ConfigCanonicalName(name));
  ctx.reply.Ok();
}

// CONFIG RESETSTAT
void CmdConfigResetStat(CommandContext& ctx) {
  Server& server = ctx.server;
  Commands().ResetStats();
  if (server.cluster() != nullptr) server.cluster()->slot_stats().ResetAll();
  ResetEvictionStats();
  server.keyspace_stats() = KeyspaceStats{};
  ServerStats& st = server.stats();
  st = ServerStats{};
  // Live clients' byte counters are added to these when INFO is built; start the totals at
  // minus those (unsigned wrap-around) so INFO shows only bytes moved after the reset.
  for (const auto& [id, c] : server.clients()) {
    st.net_input_bytes -= c->conn.BytesRead();
    st.net_output_bytes -= c->conn.BytesWritten();
  }
  ctx.reply.Ok();
}

// CONFIG REWRITE
void CmdConfigRewrite(CommandContext& ctx) {
  std::string error;
  if (!ConfigRewrite(ctx.server.config(), ctx.server.config().config_file, &error)) {
    ctx.reply.Error("ERR " + error);
    return;
  }
  ctx.reply.Ok();
}

// CONFIG HELP
void CmdConfigHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"GET <pattern>",
             "    Return parameters matching the glob-like <pattern> and their values.",
             "SET <directive> <value>", "    Set the configuration <directive> to <value>.",
             "RESETSTAT", "    Reset statistics reported by the INFO command.", "REWRITE",
             "    Rewrite the configuration file."});
}

}  // namespace

void RegisterConfigCommand(CommandTable& t) {
  const uint32_t flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  const uint64_t acl = kAclAdmin | kAclSlow | kAclDangerous;
  CommandSpec config{.name = "config", .arity = -2, .acl = kAclSlow, .group = "server",
                     .summary = "A container for server configuration commands.",
                     .since = "2.0.0", .complexity = "Depends on subcommand."};
  config.subcommands = {
      {.name = "config|get", .arity = -3, .flags = flags, .acl = acl, .handler = CmdConfigGet,
       .group = "server", .summary = "Returns the effective values of configuration parameters.",
       .since = "2.0.0",
       .complexity = "O(N) when N is the number of configuration parameters provided"},
      {.name = "config|set", .arity = -4, .flags = flags, .acl = acl, .handler = CmdConfigSet,
       .group = "server", .summary = "Sets configuration parameters in-flight.",
       .since = "2.0.0",
       .complexity = "O(N) when N is the number of configuration parameters provided"},
      {.name = "config|resetstat", .arity = 2, .flags = flags, .acl = acl,
       .handler = CmdConfigResetStat, .group = "server",
       .summary = "Resets the server's statistics.", .since = "2.0.0", .complexity = "O(1)"},
      {.name = "config|rewrite", .arity = 2, .flags = flags, .acl = acl,
       .handler = CmdConfigRewrite, .group = "server",
       .summary = "Persists the effective configuration to file.", .since = "2.8.0",
       .complexity = "O(1)"},
      {.name = "config|help", .arity = 2, .flags = kCmdLoading | kCmdStale, .acl = kAclSlow,
       .handler = CmdConfigHelp, .group = "server",
       .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0",
       .complexity = "O(1)"},
  };
  t.Add(std::move(config));
}

}  // namespace vireo
