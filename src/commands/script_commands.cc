// Scripting: EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT (LOAD EXISTS FLUSH KILL DEBUG HELP). The
// Lua side lives in scripting/.
#include <cctype>
#include <string>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/numbers.h"
#include "scripting/script_engine.h"
#include "server/server.h"

namespace vireo {
namespace {

// EVAL script numkeys [key ...] [arg ...]
void CmdEval(CommandContext& ctx) { ctx.server.scripts().Eval(ctx, false, false); }
// EVALSHA sha1 numkeys [key ...] [arg ...]
void CmdEvalSha(CommandContext& ctx) { ctx.server.scripts().Eval(ctx, true, false); }
// EVAL_RO script numkeys [key ...] [arg ...]
void CmdEvalRo(CommandContext& ctx) { ctx.server.scripts().Eval(ctx, false, true); }
// EVALSHA_RO sha1 numkeys [key ...] [arg ...]
void CmdEvalShaRo(CommandContext& ctx) { ctx.server.scripts().Eval(ctx, true, true); }

// SCRIPT LOAD script
void CmdScriptLoad(CommandContext& ctx) {
  char sha[41];
  std::string error;
  if (!ctx.server.scripts().Load(ctx.arg(2), sha, &error)) {
    ctx.reply.Error(error);
    return;
  }
  ctx.reply.Bulk(std::string_view(sha, 40));
}

// SCRIPT EXISTS sha1 [sha1 ...]
void CmdScriptExists(CommandContext& ctx) {
  ctx.reply.Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); ++i) {
    bool found = ctx.server.has_scripts() && ctx.server.scripts().Exists(ctx.arg(i));
    ctx.reply.Integer(found ? 1 : 0);
  }
}

// SCRIPT SHOW sha1
void CmdScriptShow(CommandContext& ctx) {
  const std::string* body =
      ctx.server.has_scripts() ? ctx.server.scripts().Body(ctx.arg(2)) : nullptr;
  if (body == nullptr) {
    ctx.reply.Error("NOSCRIPT No matching script.");
    return;
  }
  ctx.reply.Bulk(*body);
}

// SCRIPT FLUSH [ASYNC|SYNC]
void CmdScriptFlush(CommandContext& ctx) {
  if (ctx.argc() > 3 || (ctx.argc() == 3 && !EqualsIgnoreCase(ctx.arg(2), "sync") &&
                         !EqualsIgnoreCase(ctx.arg(2), "async"))) {
    ctx.reply.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    return;
  }
  // Compiled scripts live in the Lua heap: freeing them is one GC either way.
  if (ctx.server.has_scripts()) ctx.server.scripts().FlushScripts();
  ctx.reply.Ok();
}

// SCRIPT KILL
void CmdScriptKill(CommandContext& ctx) {
  if (!ctx.server.has_scripts()) {
    ctx.reply.Error("NOTBUSY No scripts in execution right now.");
    return;
  }
  ctx.server.scripts().Kill(ctx, true);
}

// SCRIPT DEBUG YES|SYNC|NO
void CmdScriptDebug(CommandContext& ctx) {
  std::string_view mode = ctx.arg(2);
  if (EqualsIgnoreCase(mode, "no")) {
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(mode, "yes") || EqualsIgnoreCase(mode, "sync")) {
    // The Lua debugger (LDB) is not implemented.
    ctx.reply.Error("ERR SCRIPT DEBUG is not supported by this server");
  } else {
    ctx.reply.Error("ERR Use SCRIPT DEBUG YES/SYNC/NO");
  }
}

// SCRIPT HELP
void CmdScriptHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"DEBUG (YES|SYNC|NO)", "    Set the debug mode for subsequent scripts executed.",
             "EXISTS <sha1> [<sha1> ...]",
             "    Return information about the existence of the scripts in the script cache.",
             "FLUSH [ASYNC|SYNC]", "    Flush the Lua scripts cache. Very dangerous on replicas.",
             // Valkey 8.0.1's line break, its odd leading space included.
             "    When called without the optional mode argument, the behavior is determined",
             "     by the lazyfree-lazy-user-flush configuration directive. Valid modes are:",
             "    * ASYNC: Asynchronously flush the scripts cache.",
             "    * SYNC: Synchronously flush the scripts cache.", "KILL",
             "    Kill the currently executing Lua script.", "LOAD <script>",
             "    Load a script into the scripts cache without executing it.", "SHOW <sha1>",
             "    Show a script from the scripts cache."});
}

}  // namespace

// clang-format off
void RegisterScriptCommands(CommandTable& t) {
  const uint32_t eval_flags = kCmdNoScript | kCmdStale | kCmdSkipMonitor | kCmdNoMandatoryKeys |
                              kCmdMovableKeys;
  const uint64_t acl = kAclSlow | kAclScripting;
  t.Add({.name = "eval", .arity = -3, .flags = eval_flags, .acl = acl, .handler = CmdEval,
         .group = "scripting", .summary = "Executes a server-side Lua script.", .since = "2.6.0",
         .complexity = "Depends on the script that is executed."});
  t.Add({.name = "evalsha", .arity = -3, .flags = eval_flags, .acl = acl, .handler = CmdEvalSha,
         .group = "scripting", .summary = "Executes a server-side Lua script by SHA1 digest.",
         .since = "2.6.0", .complexity = "Depends on the script that is executed."});
  t.Add({.name = "eval_ro", .arity = -3, .flags = eval_flags | kCmdReadonly, .acl = acl,
         .handler = CmdEvalRo, .group = "scripting",
         .summary = "Executes a read-only server-side Lua script.", .since = "7.0.0",
         .complexity = "Depends on the script that is executed."});
  t.Add({.name = "evalsha_ro", .arity = -3, .flags = eval_flags | kCmdReadonly, .acl = acl,
         .handler = CmdEvalShaRo, .group = "scripting",
         .summary = "Executes a read-only server-side Lua script by SHA1 digest.",
         .since = "7.0.0", .complexity = "Depends on the script that is executed."});
  CommandSpec script{.name = "script", .arity = -2, .acl = kAclSlow, .group = "scripting",
                     .summary = "A container for Lua scripts management commands",
                     .since = "2.6.0", .complexity = "Depends on subcommand."};
  script.subcommands = {
      {.name = "script|exists", .arity = -3, .flags = kCmdNoScript, .acl = acl,
       .handler = CmdScriptExists, .group = "scripting",
       .summary = "Check existence of scripts in the script cache.", .since = "2.6.0",
       .complexity = "O(N) with N being the number of scripts to check (so checking a single "
                     "script is an O(1) operation)."},
      {.name = "script|help", .arity = 2, .flags = kCmdLoading | kCmdStale, .acl = acl,
       .handler = CmdScriptHelp, .group = "scripting",
       .summary = "Show helpful text about the different subcommands", .since = "5.0.0",
       .complexity = "O(1)"},
      {.name = "script|debug", .arity = 3, .flags = kCmdNoScript, .acl = acl,
       .handler = CmdScriptDebug, .group = "scripting",
       .summary = "Set the debug mode for executed scripts.", .since = "3.2.0",
       .complexity = "O(1)"},
      {.name = "script|flush", .arity = -2, .flags = kCmdNoScript, .acl = acl,
       .handler = CmdScriptFlush, .group = "scripting",
       .summary = "Remove all the scripts from the script cache.", .since = "2.6.0",
       .complexity = "O(N) with N being the number of scripts in cache"},
      {.name = "script|load", .arity = 3, .flags = kCmdNoScript | kCmdStale, .acl = acl,
       .handler = CmdScriptLoad, .group = "scripting",
       .summary = "Load the specified Lua script into the script cache.", .since = "2.6.0",
       .complexity = "O(N) with N being the length in bytes of the script body."},
      {.name = "script|show", .arity = 3, .flags = kCmdNoScript, .acl = acl,
       .handler = CmdScriptShow, .group = "scripting",
       .summary = "Show server-side Lua script in the script cache.", .since = "8.0.0",
       .complexity = "O(1)."},
      {.name = "script|kill", .arity = 2, .flags = kCmdNoScript | kCmdAllowBusy, .acl = acl,
       .handler = CmdScriptKill, .group = "scripting",
       .summary = "Kill the script currently in execution.", .since = "2.6.0",
       .complexity = "O(1)"},
  };
  t.Add(std::move(script));
}
// clang-format on

void RemoveScriptingCommands() {
  for (const char* name : {"eval", "eval_ro", "evalsha", "evalsha_ro", "script", "fcall",
                           "fcall_ro", "function"}) {
    Commands().Rename(name, "");
  }
}

}  // namespace vireo
