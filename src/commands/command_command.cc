// COMMAND and its subcommands: the command table as clients see it (redis-cli and redis-py ask
// for it at connect time).
#include <string>
#include <vector>

#include "commands/command_docs.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/key_finders.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/glob.h"
#include "common/numbers.h"

namespace vireo {
namespace {

// A command or subcommand by its full name ("get", "config|get"), case-insensitive.
const CommandSpec* FindByFullName(std::string_view name) {
  size_t bar = name.find('|');
  const CommandSpec* spec = Commands().Find(name.substr(0, bar));
  if (spec == nullptr || bar == std::string_view::npos) return spec;
  return spec->FindSubcommand(name.substr(bar + 1));
}

void ReplyNames(ReplyBuilder& reply, const std::vector<std::string>& names) {
  reply.Set(names.size());
  for (const std::string& n : names) reply.Simple(n);
}

// Valkey's 10-element command description.
void ReplyCommandInfo(ReplyBuilder& reply, const CommandSpec& spec) {
  reply.Array(10);
  reply.Bulk(spec.name);
  reply.Integer(spec.arity);
  ReplyNames(reply, CommandFlagNames(spec.flags));
  reply.Integer(spec.first_key);
  reply.Integer(spec.last_key);
  reply.Integer(spec.key_step);
  ReplyNames(reply, AclCategoryNames(spec.acl));
  if (spec.docs != nullptr) {
    ReplyTips(reply, *spec.docs);
    ReplyKeySpecs(reply, *spec.docs);
  } else {
    reply.Set(0);
    reply.Set(0);
  }
  if (!spec.IsContainer()) {
    reply.Set(0);
    return;
  }
  reply.Array(spec.subcommands.size());
  for (const CommandSpec& sub : spec.subcommands) ReplyCommandInfo(reply, sub);
}

// The docs of a command Valkey's command reference lacks: what its CommandSpec says.
void ReplyOwnDocs(ReplyBuilder& reply, const CommandSpec& spec, size_t extra_pairs) {
  std::vector<std::pair<const char*, const std::string*>> fields;
  if (!spec.summary.empty()) fields.emplace_back("summary", &spec.summary);
  if (!spec.since.empty()) fields.emplace_back("since", &spec.since);
  if (!spec.group.empty()) fields.emplace_back("group", &spec.group);
  if (!spec.complexity.empty()) fields.emplace_back("complexity", &spec.complexity);
  reply.Map(fields.size() + extra_pairs);
  for (const auto& [key, value] : fields) {
    reply.Bulk(key);
    reply.Bulk(*value);
  }
}

void ReplyCommandDocs(ReplyBuilder& reply, const CommandSpec& spec) {
  const size_t subcommands = spec.IsContainer() ? 1 : 0;
  if (spec.docs != nullptr) {
    ReplyDocs(reply, *spec.docs, subcommands);
  } else {
    ReplyOwnDocs(reply, spec, subcommands);
  }
  if (!spec.IsContainer()) return;
  reply.Bulk("subcommands");
  reply.Map(spec.subcommands.size());
  for (const CommandSpec& sub : spec.subcommands) {
    reply.Bulk(sub.name);
    ReplyCommandDocs(reply, sub);
  }
}

// COMMAND
void CmdCommand(CommandContext& ctx) {
  const auto& all = Commands().All();
  ctx.reply.Array(all.size());
  for (const CommandSpec* spec : all) ReplyCommandInfo(ctx.reply, *spec);
}

// COMMAND COUNT
void CmdCommandCount(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<int64_t>(Commands().Size()));
}

// COMMAND INFO [command-name ...]
void CmdCommandInfo(CommandContext& ctx) {
  if (ctx.argc() == 2) {
    CmdCommand(ctx);
    return;
  }
  ctx.reply.Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); ++i) {
    const CommandSpec* spec = FindByFullName(ctx.arg(i));
    if (spec == nullptr) {
      ctx.reply.Null();
    } else {
      ReplyCommandInfo(ctx.reply, *spec);
    }
  }
}

// COMMAND DOCS [command-name ...]
void CmdCommandDocs(CommandContext& ctx) {
  std::vector<const CommandSpec*> found;
  if (ctx.argc() == 2) {
    found = Commands().All();
  } else {
    for (size_t i = 2; i < ctx.argc(); ++i) {
      const CommandSpec* spec = FindByFullName(ctx.arg(i));
      if (spec != nullptr) found.push_back(spec);  // unknown names are left out
    }
  }
  ctx.reply.Map(found.size());
  for (const CommandSpec* spec : found) {
    ctx.reply.Bulk(spec->name);
    ReplyCommandDocs(ctx.reply, *spec);
  }
}

// COMMAND LIST [FILTERBY <MODULE module-name | ACLCAT category | PATTERN pattern>]
void CmdCommandList(CommandContext& ctx) {
  enum class Filter { kNone, kModule, kAclCat, kPattern } filter = Filter::kNone;
  std::string_view value;
  if (ctx.argc() == 5 && EqualsIgnoreCase(ctx.arg(2), "filterby")) {
    value = ctx.arg(4);
    if (EqualsIgnoreCase(ctx.arg(3), "module")) {
      filter = Filter::kModule;
    } else if (EqualsIgnoreCase(ctx.arg(3), "aclcat")) {
      filter = Filter::kAclCat;
    } else if (EqualsIgnoreCase(ctx.arg(3), "pattern")) {
      filter = Filter::kPattern;
    }
  }
  if (ctx.argc() != 2 && filter == Filter::kNone) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  std::string category = "@" + ToLower(value);
  auto keep = [&](const CommandSpec& spec) {
    switch (filter) {
      case Filter::kNone:
        return true;
      case Filter::kModule:
        return false;  // no modules
      case Filter::kAclCat:
        for (const std::string& c : AclCategoryNames(spec.acl)) {
          if (c == category) return true;
        }
        return false;
      case Filter::kPattern:
        return GlobMatch(value, spec.name, true);
    }
    return false;
  };
  std::vector<const std::string*> names;
  for (const CommandSpec* spec : Commands().All()) {
    if (keep(*spec)) names.push_back(&spec->name);
    for (const CommandSpec& sub : spec->subcommands) {
      if (keep(sub)) names.push_back(&sub.name);
    }
  }
  ctx.reply.Array(names.size());
  for (const std::string* n : names) ctx.reply.Bulk(*n);
}

// COMMAND GETKEYS command [arg ...] / COMMAND GETKEYSANDFLAGS command [arg ...]
void ReplyCommandKeys(CommandContext& ctx, bool with_flags) {
  std::vector<std::string_view> args(ctx.args.begin() + 2, ctx.args.end());
  const CommandSpec* spec = Commands().Resolve(args);
  if (spec == nullptr) {
    ctx.reply.Error("ERR Invalid command specified");
    return;
  }
  if (!CommandHasKeys(*spec)) {
    ctx.reply.Error("ERR The command has no key arguments");
    return;
  }
  int argc = static_cast<int>(args.size());
  if ((spec->arity > 0 && argc != spec->arity) || argc < -spec->arity) {
    ctx.reply.Error("ERR Invalid number of arguments specified for command");
    return;
  }
  std::vector<KeyRef> keys;
  if (CommandKeys(*spec, args, &keys) == 0 && !(spec->flags & kCmdNoMandatoryKeys)) {
    ctx.reply.Error("ERR Invalid arguments specified for command");
    return;
  }
  ctx.reply.Array(keys.size());
  for (const KeyRef& k : keys) {
    if (with_flags) ctx.reply.Array(2);
    ctx.reply.Bulk(args[static_cast<size_t>(k.pos)]);
    if (with_flags) ReplyKeySpecFlags(ctx.reply, k.flags);
  }
}

void CmdCommandGetKeys(CommandContext& ctx) { ReplyCommandKeys(ctx, false); }
void CmdCommandGetKeysAndFlags(CommandContext& ctx) { ReplyCommandKeys(ctx, true); }

// COMMAND HELP
void CmdCommandHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"(no subcommand)", "    Return details about all commands.", "COUNT",
             "    Return the total number of commands in this server.", "LIST",
             "    Return a list of all commands in this server.",
             "INFO [<command-name> ...]", "    Return details about multiple commands.",
             "    If no command names are given, documentation details for all",
             "    commands are returned.", "DOCS [<command-name> ...]",
             "    Return documentation details about multiple commands.",
             "    If no command names are given, documentation details for all",
             "    commands are returned.", "GETKEYS <full-command>",
             "    Return the keys from a full command.",
             "GETKEYSANDFLAGS <full-command>",
             "    Return the keys and the access flags from a full command."});
}

}  // namespace

void RegisterCommandCommand(CommandTable& t) {
  const uint32_t flags = kCmdLoading | kCmdStale;
  const uint64_t acl = kAclSlow | kAclConnection;
  CommandSpec command{.name = "command", .arity = -1, .flags = flags, .acl = acl,
                      .handler = CmdCommand, .group = "server",
                      .summary = "Returns detailed information about all commands.",
                      .since = "2.8.13",
                      .complexity = "O(N) where N is the total number of commands"};
  command.subcommands = {
      {.name = "command|count", .arity = 2, .flags = flags, .acl = acl,
       .handler = CmdCommandCount, .group = "server",
       .summary = "Returns a count of commands.", .since = "2.8.13", .complexity = "O(1)"},
      {.name = "command|docs", .arity = -2, .flags = flags, .acl = acl,
       .handler = CmdCommandDocs, .group = "server",
       .summary = "Returns documentary information about one, multiple or all commands.",
       .since = "7.0.0",
       .complexity = "O(N) where N is the number of commands to look up"},
      {.name = "command|getkeys", .arity = -3, .flags = flags, .acl = acl,
       .handler = CmdCommandGetKeys, .group = "server",
       .summary = "Extracts the key names from an arbitrary command.", .since = "2.8.13",
       .complexity = "O(N) where N is the number of arguments to the command"},
      {.name = "command|getkeysandflags", .arity = -3, .flags = flags, .acl = acl,
       .handler = CmdCommandGetKeysAndFlags, .group = "server",
       .summary = "Extracts the key names and access flags for an arbitrary command.",
       .since = "7.0.0",
       .complexity = "O(N) where N is the number of arguments to the command"},
      {.name = "command|info", .arity = -2, .flags = flags, .acl = acl,
       .handler = CmdCommandInfo, .group = "server",
       .summary = "Returns information about one, multiple or all commands.",
       .since = "2.8.13",
       .complexity = "O(N) where N is the number of commands to look up"},
      {.name = "command|list", .arity = -2, .flags = flags, .acl = acl,
       .handler = CmdCommandList, .group = "server",
       .summary = "Returns a list of command names.", .since = "7.0.0",
       .complexity = "O(N) where N is the total number of commands"},
      {.name = "command|help", .arity = 2, .flags = flags, .acl = acl,
       .handler = CmdCommandHelp, .group = "server",
       .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0",
       .complexity = "O(1)"},
  };
  t.Add(std::move(command));
}

}  // namespace vireo
