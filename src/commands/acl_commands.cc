// ACL family: ACL SETUSER GETUSER DELUSER LIST USERS WHOAMI CAT GENPASS LOG SAVE LOAD DRYRUN
// HELP. Users, rules and checks live in acl/; these handlers parse and reply.
#include <fstream>
#include <sstream>

#include "acl/permission.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "common/random_hex.h"
#include "persistence/file_io.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {
namespace {

constexpr const char* kNoAclFile =
    "ERR This instance is not configured to use an ACL file. You may want to specify users via "
    "the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
    "configuration file set) in order to store users in the configuration.";

std::vector<std::string_view> ArgsFrom(const CommandContext& ctx, size_t first) {
  return std::vector<std::string_view>(ctx.args.begin() + static_cast<std::ptrdiff_t>(first),
                                       ctx.args.end());
}

// ACL SETUSER username [rule [rule ...]]
void CmdAclSetUser(CommandContext& ctx) {
  Server& server = ctx.server;
  bool created = false;
  std::string error = server.acl().SetUser(ctx.arg(2), ArgsFrom(ctx, 3), &created);
  if (!error.empty()) {
    ctx.reply.Error("ERR " + error);
    return;
  }
  if (!created) {
    server.KillPubSubClientsOfUser(server.acl().Find(ctx.arg(2)).get(), &ctx.client);
  }
  server.RefreshAclClients();
  ctx.reply.Ok();
}

void ReplySelector(ReplyBuilder& reply, const Selector& s) {
  reply.Bulk("commands");
  reply.Bulk(s.DescribeCommands());
  reply.Bulk("keys");
  reply.Bulk(s.DescribeKeys());
  reply.Bulk("channels");
  reply.Bulk(s.DescribeChannels());
  // Valkey 9.1's field, on every user ("alldbs" when it has no database rule).
  reply.Bulk("databases");
  reply.Bulk(s.DescribeDbs());
}

// ACL GETUSER username
void CmdAclGetUser(CommandContext& ctx) {
  std::shared_ptr<User> u = ctx.server.acl().Find(ctx.arg(2));
  if (u == nullptr) {
    ctx.reply.Null();
    return;
  }
  ReplyBuilder& r = ctx.reply;
  r.Map(7);
  r.Bulk("flags");
  std::vector<std::string> flags = u->FlagNames();
  r.Set(flags.size());
  for (const std::string& f : flags) r.Bulk(f);
  r.Bulk("passwords");
  r.Array(u->password_hashes().size());
  for (const std::string& p : u->password_hashes()) r.Bulk(p);
  ReplySelector(r, u->root());
  r.Bulk("selectors");
  r.Array(u->selectors().size() - 1);
  for (size_t i = 1; i < u->selectors().size(); ++i) {
    r.Map(4);
    ReplySelector(r, u->selectors()[i]);
  }
}

// ACL DELUSER username [username ...]
void CmdAclDelUser(CommandContext& ctx) {
  for (size_t i = 2; i < ctx.argc(); ++i) {
    if (ctx.arg(i) == "default") {
      ctx.reply.Error("ERR The 'default' user cannot be removed");
      return;
    }
  }
  int64_t deleted = 0;
  for (size_t i = 2; i < ctx.argc(); ++i) {
    std::shared_ptr<User> u = ctx.server.acl().Find(ctx.arg(i));
    if (u == nullptr || !ctx.server.acl().DeleteUser(ctx.arg(i))) continue;
    ctx.server.KillClientsOfUser(u.get(), &ctx.client);
    ++deleted;
  }
  ctx.reply.Integer(deleted);
}

// ACL LIST
void CmdAclList(CommandContext& ctx) {
  const auto& users = ctx.server.acl().users();
  ctx.reply.Array(users.size());
  for (const auto& [name, u] : users) ctx.reply.Bulk("user " + name + " " + u->Describe());
}

// ACL USERS
void CmdAclUsers(CommandContext& ctx) {
  const auto& users = ctx.server.acl().users();
  ctx.reply.Array(users.size());
  for (const auto& [name, u] : users) ctx.reply.Bulk(name);
}

// ACL WHOAMI
void CmdAclWhoAmI(CommandContext& ctx) { ctx.reply.Bulk(ctx.client.UserName()); }

// ACL CAT [category]
void CmdAclCat(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ReplySubcommandSyntaxError(ctx);
    return;
  }
  if (ctx.argc() == 2) {
    ctx.reply.Array(AclCategories().size());
    for (const auto& [name, flag] : AclCategories()) ctx.reply.Bulk(name);
    return;
  }
  uint64_t category = AclCategoryByName(ctx.arg(2));
  if (category == 0) {
    ctx.reply.Error("ERR Unknown category '" + std::string(ctx.arg(2)) + "'");
    return;
  }
  std::vector<const std::string*> names;
  for (const CommandSpec* c : Commands().All()) {
    if (c->acl & category) names.push_back(&c->name);
    for (const CommandSpec& s : c->subcommands) {
      if (s.acl & category) names.push_back(&s.name);
    }
  }
  ctx.reply.Array(names.size());
  for (const std::string* n : names) ctx.reply.Bulk(*n);
}

// ACL GENPASS [bits]
void CmdAclGenPass(CommandContext& ctx) {
  int64_t bits = 256;
  if (ctx.argc() > 3) {
    ReplySubcommandSyntaxError(ctx);
    return;
  }
  if (ctx.argc() == 3) {
    if (!ParseInt64(ctx.arg(2), &bits)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
    if (bits <= 0 || bits > 4096) {
      ctx.reply.Error(
          "ERR ACL GENPASS argument must be the number of bits for the output password, a "
          "positive number up to 4096");
      return;
    }
  }
  ctx.reply.Bulk(RandomHex(static_cast<size_t>((bits + 3) / 4)));
}

// ACL LOG [count | RESET]
void CmdAclLog(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ReplySubcommandSyntaxError(ctx);
    return;
  }
  int64_t count = 10;
  if (ctx.argc() == 3) {
    if (EqualsIgnoreCase(ctx.arg(2), "reset")) {
      ctx.server.acl_log().Reset();
      ctx.reply.Ok();
      return;
    }
    if (!ParseInt64(ctx.arg(2), &count)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
  }
  const auto& entries = ctx.server.acl_log().entries();
  size_t n = count <= 0 ? 0 : std::min<size_t>(entries.size(), static_cast<size_t>(count));
  const int64_t now = NowMs();
  ReplyBuilder& r = ctx.reply;
  r.Array(n);
  for (size_t i = 0; i < n; ++i) {
    const AclLogEntry& e = entries[i];
    r.Map(10);
    r.Bulk("count");
    r.Integer(static_cast<int64_t>(e.count));
    r.Bulk("reason");
    r.Bulk(e.reason);
    r.Bulk("context");
    r.Bulk(e.context);
    r.Bulk("object");
    r.Bulk(e.object);
    r.Bulk("username");
    r.Bulk(e.username);
    r.Bulk("age-seconds");
    r.Double(static_cast<double>(now - e.updated_ms) / 1000.0);
    r.Bulk("client-info");
    r.Bulk(e.client_info);
    // Valkey 8's additions after Redis 7.0's fields.
    r.Bulk("entry-id");
    r.Integer(static_cast<int64_t>(e.entry_id));
    r.Bulk("timestamp-created");
    r.Integer(e.created_ms);
    r.Bulk("timestamp-last-updated");
    r.Integer(e.updated_ms);
  }
}

// ACL SAVE
void CmdAclSave(CommandContext& ctx) {
  const std::string path = ConfigValue(ctx.server.config(), "aclfile");
  if (path.empty()) {
    ctx.reply.Error(kNoAclFile);
    return;
  }
  std::string error;
  if (!WriteFileAtomically(path, ctx.server.acl().Serialize(), &error)) {
    LogWarning("Saving ACL file: %s", error.c_str());
    ctx.reply.Error(
        "ERR There was an error trying to save the ACLs. Please check the server logs for more "
        "information");
    return;
  }
  ctx.reply.Ok();
}

// ACL LOAD
void CmdAclLoad(CommandContext& ctx) {
  Server& server = ctx.server;
  const std::string path = ConfigValue(server.config(), "aclfile");
  if (path.empty()) {
    ctx.reply.Error(kNoAclFile);
    return;
  }
  std::ifstream in(path);
  if (!in) {
    ctx.reply.Error("ERR Error loading ACLs, opening file '" + path +
                    "': No such file or directory");
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  // Every user but `default` is replaced: their clients go, as in Valkey.
  std::vector<std::shared_ptr<User>> old;
  for (const auto& [name, u] : server.acl().users()) {
    if (u != server.acl().default_user()) old.push_back(u);
  }
  std::string error;
  if (!server.acl().Load(text.str(), path, &error)) {
    ctx.reply.Error("ERR " + error);
    return;
  }
  for (const auto& u : old) server.KillClientsOfUser(u.get(), &ctx.client);
  server.RefreshAclClients();
  ctx.reply.Ok();
}

// ACL DRYRUN username command [arg ...]
void CmdAclDryRun(CommandContext& ctx) {
  std::shared_ptr<User> u = ctx.server.acl().Find(ctx.arg(2));
  if (u == nullptr) {
    ctx.reply.Error("ERR User '" + std::string(ctx.arg(2)) + "' not found");
    return;
  }
  std::vector<std::string_view> args = ArgsFrom(ctx, 3);
  const CommandSpec* spec = Commands().Resolve(args);
  if (spec == nullptr) {
    ctx.reply.Error("ERR Command '" + std::string(ctx.arg(3)) + "' not found");
    return;
  }
  int argc = static_cast<int>(args.size());
  if ((spec->arity > 0 && argc != spec->arity) || (spec->arity < 0 && argc < -spec->arity)) {
    ctx.reply.Error("ERR wrong number of arguments for '" + spec->name + "' command");
    return;
  }
  // Database rules are checked against the caller's database.
  AclVerdict v =
      CheckCommandPermission(*u, *spec, args, AclDbs{ctx.client.db_index, ctx.server.db_count()});
  if (v.denial == AclDenial::kNone) {
    ctx.reply.Ok();
  } else {
    ctx.reply.Bulk(AclDenialText(v, *u, *spec, args, true));
  }
}

// ACL HELP
void CmdAclHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"CAT [<category>]",
             "    List all commands that belong to <category>, or all command categories",
             "    when no category is specified.",
             "DELUSER <username> [<username> ...]",
             "    Delete a list of users.",
             "DRYRUN <username> <command> [<arg> ...]",
             "    Returns whether the user can execute the given command without executing the "
             "command.",
             "GETUSER <username>",
             "    Get the user's details.",
             "GENPASS [<bits>]",
             "    Generate a secure 256-bit user password. The optional `bits` argument can",
             "    be used to specify a different size.",
             "LIST",
             "    Show users details in config file format.",
             "LOAD",
             "    Reload users from the ACL file.",
             "LOG [<count> | RESET]",
             "    Show the ACL log entries.",
             "SAVE",
             "    Save the current config to the ACL file.",
             "SETUSER <username> <attribute> [<attribute> ...]",
             "    Create or modify a user with the specified attributes.",
             "USERS",
             "    List all the registered usernames.",
             "WHOAMI",
             "    Return the current connection username."});
}

}  // namespace

void RegisterAclCommands(CommandTable& t) {
  const uint32_t admin = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  const uint32_t plain = kCmdNoScript | kCmdLoading | kCmdStale;
  const uint64_t dangerous = kAclAdmin | kAclSlow | kAclDangerous;
  CommandSpec acl{.name = "acl",
                  .arity = -2,
                  .acl = kAclSlow,
                  .group = "server",
                  .summary = "A container for Access List Control commands.",
                  .since = "6.0.0",
                  .complexity = "Depends on subcommand."};
  auto sub = [](const char* name, int arity, uint32_t flags, uint64_t cats, CommandHandler h,
                const char* summary, const char* since, const char* complexity) {
    return CommandSpec{.name = name,
                       .arity = arity,
                       .flags = flags,
                       .acl = cats,
                       .handler = h,
                       .group = "server",
                       .summary = summary,
                       .since = since,
                       .complexity = complexity};
  };
  acl.subcommands = {
      sub("acl|cat", -2, plain, kAclSlow, CmdAclCat,
          "Lists the ACL categories, or the commands inside a category.", "6.0.0",
          "O(1) since the categories and commands are a fixed set."),
      sub("acl|deluser", -3, admin, dangerous, CmdAclDelUser,
          "Deletes ACL users, and terminates their connections.", "6.0.0",
          "O(1) amortized time considering the typical user."),
      sub("acl|dryrun", -4, admin, dangerous, CmdAclDryRun,
          "Simulates the execution of a command by a user, without executing the command.", "7.0.0",
          "O(1)."),
      sub("acl|genpass", -2, plain, kAclSlow, CmdAclGenPass,
          "Generates a pseudorandom, secure password that can be used to identify ACL users.",
          "6.0.0", "O(1)"),
      sub("acl|getuser", 3, admin, dangerous, CmdAclGetUser, "Lists the ACL rules of a user.",
          "6.0.0",
          "O(N). Where N is the number of password, command and pattern rules that the user "
          "has."),
      sub("acl|help", 2, kCmdLoading | kCmdStale, kAclSlow, CmdAclHelp,
          "Returns helpful text about the different subcommands.", "6.0.0", "O(1)"),
      sub("acl|list", 2, admin, dangerous, CmdAclList,
          "Dumps the effective rules in ACL file format.", "6.0.0",
          "O(N). Where N is the number of configured users."),
      sub("acl|load", 2, admin, dangerous, CmdAclLoad,
          "Reloads the rules from the configured ACL file.", "6.0.0",
          "O(N). Where N is the number of configured users."),
      sub("acl|log", -2, admin, dangerous, CmdAclLog,
          "Lists recent security events generated due to ACL rules.", "6.0.0",
          "O(N) with N being the number of entries shown."),
      sub("acl|save", 2, admin, dangerous, CmdAclSave,
          "Saves the effective ACL rules in the configured ACL file.", "6.0.0",
          "O(N). Where N is the number of configured users."),
      sub("acl|setuser", -3, admin, dangerous, CmdAclSetUser,
          "Creates and modifies an ACL user and its rules.", "6.0.0",
          "O(N). Where N is the number of rules provided."),
      sub("acl|users", 2, admin, dangerous, CmdAclUsers, "Lists all ACL users.", "6.0.0",
          "O(N). Where N is the number of configured users."),
      sub("acl|whoami", 2, plain, kAclSlow, CmdAclWhoAmI,
          "Returns the authenticated username of the current connection.", "6.0.0", "O(1)"),
  };
  t.Add(std::move(acl));
}

}  // namespace vireo
