// Functions: FCALL FCALL_RO FUNCTION (LOAD LIST DELETE FLUSH DUMP RESTORE STATS KILL HELP). The
// libraries live in scripting/functions.
#include <string>
#include <vector>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/numbers.h"
#include "persistence/rdb_reader.h"
#include "persistence/rdb_writer.h"
#include "scripting/functions.h"
#include "scripting/script_engine.h"
#include "server/server.h"

namespace vireo {
namespace {

FunctionLibraries& Libraries(CommandContext& ctx) { return ctx.server.scripts().functions(); }

// FCALL function numkeys [key ...] [arg ...]
void CmdFcall(CommandContext& ctx) { ctx.server.scripts().Fcall(ctx, false); }
// FCALL_RO function numkeys [key ...] [arg ...]
void CmdFcallRo(CommandContext& ctx) { ctx.server.scripts().Fcall(ctx, true); }

// FUNCTION LOAD [REPLACE] function-code
void CmdFunctionLoad(CommandContext& ctx) {
  bool replace = false;
  size_t i = 2;
  for (; i + 1 < ctx.argc(); ++i) {
    if (!EqualsIgnoreCase(ctx.arg(i), "replace")) {
      ctx.reply.Error("ERR Unknown option given: " + std::string(ctx.arg(i)));
      return;
    }
    replace = true;
  }
  if (i >= ctx.argc()) {
    ctx.reply.Error("ERR Function code is missing");
    return;
  }
  std::string out;
  if (!Libraries(ctx).Load(ctx.arg(i), replace, &out)) {
    ctx.reply.Error(out);
    return;
  }
  ctx.Dirty();
  ctx.reply.Bulk(out);
}

// FUNCTION LIST [LIBRARYNAME library-name-pattern] [WITHCODE]
void CmdFunctionList(CommandContext& ctx) {
  bool with_code = false;
  bool have_pattern = false;
  std::string_view pattern;
  for (size_t i = 2; i < ctx.argc(); ++i) {
    std::string_view a = ctx.arg(i);
    if (!with_code && EqualsIgnoreCase(a, "withcode")) {
      with_code = true;
    } else if (!have_pattern && EqualsIgnoreCase(a, "libraryname")) {
      if (i + 1 >= ctx.argc()) {
        ctx.reply.Error("ERR library name argument was not given");
        return;
      }
      have_pattern = true;
      pattern = ctx.arg(++i);
    } else {
      ctx.reply.Error("ERR Unknown argument " + std::string(a));
      return;
    }
  }
  // An empty pattern given explicitly matches only the empty name.
  if (have_pattern && pattern.empty()) {
    ctx.reply.EmptyArray();
    return;
  }
  Libraries(ctx).List(ctx.reply, pattern, with_code);
}

// FUNCTION DELETE library-name
void CmdFunctionDelete(CommandContext& ctx) {
  if (!Libraries(ctx).Delete(ctx.arg(2))) {
    ctx.reply.Error("ERR Library not found");
    return;
  }
  ctx.Dirty();
  ctx.reply.Ok();
}

// FUNCTION FLUSH [ASYNC|SYNC]
void CmdFunctionFlush(CommandContext& ctx) {
  if (ctx.argc() > 3 || (ctx.argc() == 3 && !EqualsIgnoreCase(ctx.arg(2), "sync") &&
                         !EqualsIgnoreCase(ctx.arg(2), "async"))) {
    ctx.reply.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    return;
  }
  Libraries(ctx).Flush();
  ctx.Dirty();
  ctx.reply.Ok();
}

// FUNCTION DUMP
// The payload is Valkey's (persistence/rdb_writer.h), so dumps move between the servers.
void CmdFunctionDump(CommandContext& ctx) {
  ctx.reply.Bulk(FunctionsPayload(Libraries(ctx).Codes()));
}

// FUNCTION RESTORE serialized-value [FLUSH|APPEND|REPLACE]
void CmdFunctionRestore(CommandContext& ctx) {
  std::string policy = "append";
  if (ctx.argc() > 4) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (ctx.argc() == 4) {
    std::string_view p = ctx.arg(3);
    if (EqualsIgnoreCase(p, "flush")) {
      policy = "flush";
    } else if (EqualsIgnoreCase(p, "replace")) {
      policy = "replace";
    } else if (!EqualsIgnoreCase(p, "append")) {
      ctx.reply.Error(
          "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
      return;
    }
  }
  std::string error;
  std::vector<std::string> codes;
  if (!ReadFunctionsPayload(ctx.arg(2), &codes, &error) ||
      !Libraries(ctx).Restore(codes, policy, &error)) {
    ctx.reply.Error(error);
    return;
  }
  ctx.Dirty();
  ctx.reply.Ok();
}

// FUNCTION STATS
void CmdFunctionStats(CommandContext& ctx) {
  ScriptEngine& engine = ctx.server.scripts();
  ctx.reply.Map(2);
  ctx.reply.Bulk("running_script");
  const Client* caller = engine.RunningCaller();
  if (caller == nullptr || engine.RunningEval()) {
    ctx.reply.Null();
  } else {
    ctx.reply.Map(3);
    ctx.reply.Bulk("name");
    ctx.reply.Bulk(engine.RunningName());
    ctx.reply.Bulk("command");
    ctx.reply.Array(caller->args.size());
    for (std::string_view a : caller->args) ctx.reply.Bulk(a);
    ctx.reply.Bulk("duration_ms");
    ctx.reply.Integer(engine.RunningMs());
  }
  ctx.reply.Bulk("engines");
  ctx.reply.Map(1);
  ctx.reply.Bulk("LUA");
  ctx.reply.Map(2);
  ctx.reply.Bulk("libraries_count");
  ctx.reply.Integer(static_cast<int64_t>(engine.functions().LibraryCount()));
  ctx.reply.Bulk("functions_count");
  ctx.reply.Integer(static_cast<int64_t>(engine.functions().FunctionCount()));
}

// FUNCTION KILL
void CmdFunctionKill(CommandContext& ctx) { ctx.server.scripts().Kill(ctx, false); }

// FUNCTION HELP
void CmdFunctionHelp(CommandContext& ctx) {
  ReplyHelp(
      ctx.reply, ctx.arg(0),
      {"LOAD [REPLACE] <FUNCTION CODE>",
       "    Create a new library with the given library name and code.",
       "DELETE <LIBRARY NAME>",
       "    Delete the given library.",
       "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
       "    Return general information on all the libraries:",
       "    * Library name",
       "    * The engine used to run the Library",
       "    * Functions list",
       "    * Library code (if WITHCODE is given)",
       "    It also possible to get only function that matches a pattern using LIBRARYNAME "
       "argument.",
       "STATS",
       "    Return information about the current function running:",
       "    * Function name",
       "    * Command used to run the function",
       "    * Duration in MS that the function is running",
       "    If no function is running, return nil",
       "    In addition, returns a list of available engines.",
       "KILL",
       "    Kill the current running function.",
       "FLUSH [ASYNC|SYNC]",
       "    Delete all the libraries.",
       "    When called without the optional mode argument, the behavior is determined by the",
       "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
       "    * ASYNC: Asynchronously flush the libraries.",
       "    * SYNC: Synchronously flush the libraries.",
       "DUMP",
       "    Return a serialized payload representing the current libraries, can be restored "
       "using FUNCTION RESTORE command",
       "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
       "    Restore the libraries represented by the given payload, it is possible to give a "
       "restore policy to",
       "    control how to handle existing libraries (default APPEND):",
       "    * FLUSH: delete all existing libraries.",
       "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
       "abort.",
       "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
       "replace the old",
       "      libraries with the new libraries (notice that even on this option there is a "
       "chance of failure",
       "      in case of functions name collision with another library)."});
}

}  // namespace

// clang-format off
void RegisterFunctionCommands(CommandTable& t) {
  const uint32_t call_flags = kCmdNoScript | kCmdStale | kCmdSkipMonitor | kCmdNoMandatoryKeys |
                              kCmdMovableKeys;
  const uint64_t acl = kAclSlow | kAclScripting;
  t.Add({.name = "fcall", .arity = -3, .flags = call_flags, .acl = acl, .handler = CmdFcall,
         .group = "scripting", .summary = "Invokes a function.", .since = "7.0.0",
         .complexity = "Depends on the function that is executed."});
  t.Add({.name = "fcall_ro", .arity = -3, .flags = call_flags | kCmdReadonly, .acl = acl,
         .handler = CmdFcallRo, .group = "scripting",
         .summary = "Invokes a read-only function.", .since = "7.0.0",
         .complexity = "Depends on the function that is executed."});
  const uint64_t wacl = acl | kAclWrite;
  CommandSpec fn{.name = "function", .arity = -2, .acl = kAclSlow, .group = "scripting",
                 .summary = "A container for function commands", .since = "7.0.0",
                 .complexity = "Depends on subcommand."};
  fn.subcommands = {
      {.name = "function|restore", .arity = -3, .flags = kCmdWrite | kCmdDenyOom | kCmdNoScript,
       .acl = wacl, .handler = CmdFunctionRestore, .group = "scripting",
       .summary = "Restores all libraries from a payload.", .since = "7.0.0",
       .complexity = "O(N) where N is the number of functions on the payload"},
      {.name = "function|dump", .arity = 2, .flags = kCmdNoScript, .acl = acl,
       .handler = CmdFunctionDump, .group = "scripting",
       .summary = "Dumps all libraries into a serialized binary payload.", .since = "7.0.0",
       .complexity = "O(N) where N is the number of functions"},
      {.name = "function|list", .arity = -2, .flags = kCmdNoScript, .acl = acl,
       .handler = CmdFunctionList, .group = "scripting",
       .summary = "Returns information about all libraries.", .since = "7.0.0",
       .complexity = "O(N) where N is the number of functions"},
      {.name = "function|help", .arity = 2, .flags = kCmdLoading | kCmdStale, .acl = acl,
       .handler = CmdFunctionHelp, .group = "scripting",
       .summary = "Returns helpful text about the different subcommands.", .since = "7.0.0",
       .complexity = "O(1)"},
      {.name = "function|delete", .arity = 3, .flags = kCmdWrite | kCmdNoScript, .acl = wacl,
       .handler = CmdFunctionDelete, .group = "scripting",
       .summary = "Deletes a library and its functions.", .since = "7.0.0",
       .complexity = "O(1)"},
      {.name = "function|load", .arity = -3, .flags = kCmdWrite | kCmdDenyOom | kCmdNoScript,
       .acl = wacl, .handler = CmdFunctionLoad, .group = "scripting",
       .summary = "Creates a library.", .since = "7.0.0",
       .complexity = "O(1) (considering compilation time is redundant)"},
      {.name = "function|flush", .arity = -2, .flags = kCmdWrite | kCmdNoScript, .acl = wacl,
       .handler = CmdFunctionFlush, .group = "scripting",
       .summary = "Deletes all libraries and functions.", .since = "7.0.0",
       .complexity = "O(N) where N is the number of functions deleted"},
      {.name = "function|kill", .arity = 2, .flags = kCmdNoScript | kCmdAllowBusy, .acl = acl,
       .handler = CmdFunctionKill, .group = "scripting",
       .summary = "Terminates a function during execution.", .since = "7.0.0",
       .complexity = "O(1)"},
      {.name = "function|stats", .arity = 2, .flags = kCmdNoScript | kCmdAllowBusy, .acl = acl,
       .handler = CmdFunctionStats, .group = "scripting",
       .summary = "Returns information about a function during execution.", .since = "7.0.0",
       .complexity = "O(1)"},
  };
  t.Add(std::move(fn));
}
// clang-format on

}  // namespace vireo
