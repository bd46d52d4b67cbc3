// MODULE: Vireo has no module API, so no Valkey module can load. The command is still here, so
// clients and tools that ask for the loaded modules (MODULE LIST) get the empty list, and a
// LOAD gets Valkey's error with the reason in the log (once enable-module-command allows it).
#include <string>

#include "commands/context.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/log.h"
#include "common/numbers.h"

namespace vireo {
namespace {

constexpr const char* kLoadFailed =
    "ERR Error loading the extension. Please check the server logs.";

// MODULE LIST
void CmdModuleList(CommandContext& ctx) { ctx.reply.Array(0); }

// Logs why `path` did not load and answers Valkey's error.
void RefuseLoad(CommandContext& ctx, std::string_view path) {
  LogWarning("Module %.*s failed to load: this server has no module API", int(path.size()),
             path.data());
  ctx.reply.Error(kLoadFailed);
}

// MODULE LOAD path [arg ...]
void CmdModuleLoad(CommandContext& ctx) { RefuseLoad(ctx, ctx.arg(2)); }

// MODULE LOADEX path [CONFIG name value ...] [ARGS arg ...]: the arguments are checked as
// Valkey checks them, with its log lines, before the load itself fails.
void CmdModuleLoadEx(CommandContext& ctx) {
  for (size_t i = 3; i < ctx.argc(); ++i) {
    if (EqualsIgnoreCase(ctx.arg(i), "CONFIG")) {
      if (i + 2 >= ctx.argc()) {
        LogNotice("CONFIG specified without name value pair");
        ctx.reply.Error(kLoadFailed);
        return;
      }
      i += 2;
    } else if (EqualsIgnoreCase(ctx.arg(i), "ARGS")) {
      break;  // everything after it goes to the module
    } else {
      std::string_view arg = ctx.arg(i);
      LogNotice("Syntax Error from arguments to loadex around %.*s.", int(arg.size()),
                arg.data());
      ctx.reply.Error(kLoadFailed);
      return;
    }
  }
  RefuseLoad(ctx, ctx.arg(2));
}

// MODULE UNLOAD name: nothing is ever loaded.
void CmdModuleUnload(CommandContext& ctx) {
  ctx.reply.Error("ERR Error unloading module: no such module with that name");
}

void CmdModuleHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"LIST", "    Return a list of loaded modules.", "LOAD <path> [<arg> ...]",
             "    Load a module library from <path>, passing to it any optional arguments.",
             "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
             "    Load a module library from <path>, while passing it module configurations "
             "and optional arguments.",
             "UNLOAD <name>", "    Unload a module."});
}

}  // namespace

void RegisterModuleCommand(CommandTable& t) {
  // LOAD, LOADEX and UNLOAD are refused unless enable-module-command allows them.
  const uint32_t flags = kCmdAdmin | kCmdNoScript | kCmdProtected | kCmdNoAsyncLoading;
  const uint64_t acl = kAclAdmin | kAclSlow | kAclDangerous;
  CommandSpec module{.name = "module",
                     .arity = -2,
                     .acl = kAclSlow,
                     .group = "server",
                     .summary = "A container for module commands.",
                     .since = "4.0.0",
                     .complexity = "Depends on subcommand."};
  module.subcommands = {
      {.name = "module|help",
       .arity = 2,
       .flags = kCmdLoading | kCmdStale,
       .acl = kAclSlow,
       .handler = CmdModuleHelp,
       .group = "server",
       .summary = "Returns helpful text about the different subcommands.",
       .since = "5.0.0",
       .complexity = "O(1)"},
      {.name = "module|list",
       .arity = 2,
       .flags = kCmdAdmin | kCmdNoScript,  // allowed whatever enable-module-command says
       .acl = acl,
       .handler = CmdModuleList,
       .group = "server",
       .summary = "Returns all loaded modules.",
       .since = "4.0.0",
       .complexity = "O(N) where N is the number of loaded modules."},
      {.name = "module|load",
       .arity = -3,
       .flags = flags,
       .acl = acl,
       .handler = CmdModuleLoad,
       .group = "server",
       .summary = "Loads a module.",
       .since = "4.0.0",
       .complexity = "O(1)"},
      {.name = "module|loadex",
       .arity = -3,
       .flags = flags,
       .acl = acl,
       .handler = CmdModuleLoadEx,
       .group = "server",
       .summary = "Loads a module using extended parameters.",
       .since = "7.0.0",
       .complexity = "O(1)"},
      {.name = "module|unload",
       .arity = 3,
       .flags = flags,
       .acl = acl,
       .handler = CmdModuleUnload,
       .group = "server",
       .summary = "Unloads a module.",
       .since = "4.0.0",
       .complexity = "O(1)"},
  };
  t.Add(std::move(module));
}

}  // namespace vireo
