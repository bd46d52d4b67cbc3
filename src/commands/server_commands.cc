// Server family: TIME LASTSAVE SHUTDOWN SLOWLOG COMMANDLOG, and the registration of the
// family's other files (INFO, CONFIG, COMMAND, DEBUG).
#include <algorithm>
#include <string>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "persistence/snapshot.h"
#include "server/server.h"

namespace vireo {

void ReplyHelp(ReplyBuilder& reply, std::string_view command,
               std::initializer_list<std::string_view> lines) {
  reply.Array(lines.size() + 3);
  reply.Simple(ToUpper(command) + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
  for (std::string_view line : lines) reply.Simple(line);
  reply.Simple("HELP");
  reply.Simple("    Print this help.");
}

void ReplySubcommandSyntaxError(CommandContext& ctx) {
  ctx.reply.Error("ERR unknown subcommand or wrong number of arguments for '" +
                  std::string(ctx.arg(1).substr(0, 128)) + "'. Try " + ToUpper(ctx.arg(0)) +
                  " HELP.");
}

namespace {

// TIME
void CmdTime(CommandContext& ctx) {
  int64_t us = NowUs();
  ctx.reply.Array(2);
  ctx.reply.BulkInt(us / 1000000);
  ctx.reply.BulkInt(us % 1000000);
}

// LASTSAVE
void CmdLastSave(CommandContext& ctx) { ctx.reply.Integer(ctx.server.last_save_time()); }

// SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [SAFE] | ABORT
// Saves first with SAVE, or by default when save points exist (persistence/snapshot.h); a
// failed save keeps the server running unless FORCE. A primary with lagging replicas waits
// for them first (shutdown-timeout) unless NOW, with this client blocked; ABORT ends that wait.
void CmdShutdown(CommandContext& ctx) {
  bool save = false, nosave = false, abort = false, now = false, force = false, safe = false;
  for (size_t i = 1; i < ctx.argc(); ++i) {
    std::string_view a = ctx.arg(i);
    if (EqualsIgnoreCase(a, "nosave")) {
      nosave = true;
    } else if (EqualsIgnoreCase(a, "save")) {
      save = true;
    } else if (EqualsIgnoreCase(a, "now")) {
      now = true;
    } else if (EqualsIgnoreCase(a, "force")) {
      force = true;
    } else if (EqualsIgnoreCase(a, "safe")) {
      safe = true;  // Valkey 9.0
    } else if (EqualsIgnoreCase(a, "abort")) {
      abort = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  if ((save && nosave) || (abort && (save || nosave || now || force || safe))) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (abort) {
    if (!ctx.server.AbortShutdown()) {
      ctx.reply.Error("ERR No shutdown in progress.");
      return;
    }
    ctx.reply.Ok();
    return;
  }
  auto block = [&ctx]() {
    ctx.Block({}, 0, ObjType::kString, BlockTimeoutReply::kShutdown);
  };
  // A shutdown already waiting for replicas: this one waits with it (NOW too, as Valkey).
  if (ctx.server.shutdown_waiting()) {
    block();
    return;
  }
  ShutdownSave mode = save ? ShutdownSave::kSave : nosave ? ShutdownSave::kNoSave
                                                          : ShutdownSave::kDefault;
  switch (ctx.server.BeginShutdown(mode, now || !ctx.CanBlock(), force, safe)) {
    case Server::ShutdownStep::kExiting:
      // No reply: the connection simply closes as the server exits, as in Valkey.
      return;
    case Server::ShutdownStep::kWaiting:
      block();
      return;
    case Server::ShutdownStep::kFailed:
      ctx.reply.Error("ERR Errors trying to SHUTDOWN. Check logs.");
      return;
  }
}

// The newest `count` entries of a command log (-1: all of them).
void ReplyCommandLog(CommandContext& ctx, CommandLogType type, int64_t count) {
  const std::deque<CommandLogEntry>& log = ctx.server.command_log(type).entries();
  size_t n = count == -1 ? log.size() : std::min(log.size(), static_cast<size_t>(count));
  ctx.reply.Array(n);
  for (size_t i = 0; i < n; ++i) {
    const CommandLogEntry& e = log[i];
    ctx.reply.Array(6);
    ctx.reply.Integer(static_cast<int64_t>(e.id));
    ctx.reply.Integer(e.time_s);
    ctx.reply.Integer(e.value);
    ctx.reply.Array(e.args.size());
    for (const std::string& a : e.args) ctx.reply.Bulk(a);
    ctx.reply.Bulk(e.peer);
    ctx.reply.Bulk(e.client_name);
  }
}

// SLOWLOG GET [count]
void CmdSlowlogGet(CommandContext& ctx) {
  int64_t count = 10;
  if (ctx.argc() > 3) {
    ReplySubcommandSyntaxError(ctx);
    return;
  }
  if (ctx.argc() == 3 && (!ParseInt64(ctx.arg(2), &count) || count < -1)) {
    ctx.reply.Error("ERR count should be greater than or equal to -1");
    return;
  }
  ReplyCommandLog(ctx, CommandLogType::kSlow, count);
}

// SLOWLOG LEN
void CmdSlowlogLen(CommandContext& ctx) {
  ctx.reply.Integer(
      static_cast<int64_t>(ctx.server.command_log(CommandLogType::kSlow).entries().size()));
}

// SLOWLOG RESET
void CmdSlowlogReset(CommandContext& ctx) {
  ctx.server.command_log(CommandLogType::kSlow).Reset();
  ctx.reply.Ok();
}

// COMMANDLOG's type argument, or false after replying Valkey's error.
bool CommandLogTypeArg(CommandContext& ctx, std::string_view arg, CommandLogType* type) {
  if (ParseCommandLogType(arg, type)) return true;
  ctx.reply.Error("ERR type should be one of the following: slow, large-request, large-reply");
  return false;
}

// COMMANDLOG GET count type (Valkey 8.1): the count is checked before the type.
void CmdCommandLogGet(CommandContext& ctx) {
  int64_t count;
  if (!ParseInt64(ctx.arg(2), &count) || count < -1) {
    ctx.reply.Error("ERR count should be greater than or equal to -1");
    return;
  }
  CommandLogType type;
  if (!CommandLogTypeArg(ctx, ctx.arg(3), &type)) return;
  ReplyCommandLog(ctx, type, count);
}

// COMMANDLOG LEN type
void CmdCommandLogLen(CommandContext& ctx) {
  CommandLogType type;
  if (!CommandLogTypeArg(ctx, ctx.arg(2), &type)) return;
  ctx.reply.Integer(static_cast<int64_t>(ctx.server.command_log(type).entries().size()));
}

// COMMANDLOG RESET type
void CmdCommandLogReset(CommandContext& ctx) {
  CommandLogType type;
  if (!CommandLogTypeArg(ctx, ctx.arg(2), &type)) return;
  ctx.server.command_log(type).Reset();
  ctx.reply.Ok();
}

void CmdCommandLogHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"GET <count> <type>",
             "    Return top <count> entries of the specified <type> from the commandlog (-1 "
             "mean all).",
             "    Entries are made of:", "    id, timestamp,",
             "        time in microseconds for type of slow,",
             "        or size in bytes for type of large-request,",
             "        or size in bytes for type of large-reply",
             "    arguments array, client IP and port,", "    client name", "LEN <type>",
             "    Return the length of the specified type of commandlog.", "RESET <type>",
             "    Reset the specified type of commandlog."});
}

// SLOWLOG HELP
void CmdSlowlogHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"GET [<count>]",
             "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
             "    Entries are made of:",
             "    id, timestamp, time in microseconds, arguments array, client IP and port,",
             "    client name", "LEN", "    Return the length of the slowlog.", "RESET",
             "    Reset the slowlog."});
}

}  // namespace

void RegisterServerCommands(CommandTable& t) {
  const uint64_t admin = kAclAdmin | kAclSlow | kAclDangerous;
  t.Add({.name = "time", .arity = 1, .flags = kCmdLoading | kCmdStale | kCmdFast,
         .acl = kAclFast, .handler = CmdTime, .group = "server",
         .summary = "Returns the server time.", .since = "2.6.0", .complexity = "O(1)"});
  t.Add({.name = "lastsave", .arity = 1, .flags = kCmdLoading | kCmdStale | kCmdFast,
         .acl = kAclAdmin | kAclFast | kAclDangerous, .handler = CmdLastSave, .group = "server",
         .summary = "Returns the Unix timestamp of the last successful save to disk.",
         .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "shutdown", .arity = -1,
         .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdNoMulti |
                  kCmdAllowBusy,
         .acl = admin, .handler = CmdShutdown, .group = "server",
         .summary = "Synchronously saves the database(s) to disk and shuts down the server.",
         .since = "1.0.0",
         .complexity = "O(N) when saving, where N is the total number of keys in all databases "
                       "when saving data, otherwise O(1)"});

  const uint32_t slowlog_flags = kCmdAdmin | kCmdLoading | kCmdStale;
  CommandSpec slowlog{.name = "slowlog", .arity = -2, .acl = kAclSlow, .group = "server",
                      .summary = "A container for slow log commands.", .since = "2.2.12",
                      .complexity = "Depends on subcommand."};
  slowlog.subcommands = {
      {.name = "slowlog|get", .arity = -2, .flags = slowlog_flags, .acl = admin,
       .handler = CmdSlowlogGet, .group = "server",
       .summary = "Returns the slow log's entries.", .since = "2.2.12",
       .complexity = "O(N) where N is the number of entries returned"},
      {.name = "slowlog|len", .arity = 2, .flags = slowlog_flags, .acl = admin,
       .handler = CmdSlowlogLen, .group = "server",
       .summary = "Returns the number of entries in the slow log.", .since = "2.2.12",
       .complexity = "O(1)"},
      {.name = "slowlog|reset", .arity = 2, .flags = slowlog_flags, .acl = admin,
       .handler = CmdSlowlogReset, .group = "server",
       .summary = "Clears all entries from the slow log.", .since = "2.2.12",
       .complexity = "O(N) where N is the number of entries in the slowlog"},
      {.name = "slowlog|help", .arity = 2, .flags = kCmdLoading | kCmdStale, .acl = kAclSlow,
       .handler = CmdSlowlogHelp, .group = "server",
       .summary = "Show helpful text about the different subcommands", .since = "6.2.0",
       .complexity = "O(1)"},
  };
  t.Add(std::move(slowlog));

  CommandSpec commandlog{.name = "commandlog", .arity = -2, .acl = kAclSlow, .group = "server",
                         .summary = "A container for command log commands.", .since = "8.1.0",
                         .complexity = "Depends on subcommand."};
  commandlog.subcommands = {
      {.name = "commandlog|get", .arity = 4, .flags = slowlog_flags, .acl = admin,
       .handler = CmdCommandLogGet, .group = "server",
       .summary = "Returns the specified command log's entries.", .since = "8.1.0",
       .complexity = "O(N) where N is the number of entries returned"},
      {.name = "commandlog|len", .arity = 3, .flags = slowlog_flags, .acl = admin,
       .handler = CmdCommandLogLen, .group = "server",
       .summary = "Returns the number of entries in the specified type of command log.",
       .since = "8.1.0", .complexity = "O(1)"},
      {.name = "commandlog|reset", .arity = 3, .flags = slowlog_flags, .acl = admin,
       .handler = CmdCommandLogReset, .group = "server",
       .summary = "Clears all entries from the specified type of command log.",
       .since = "8.1.0",
       .complexity = "O(N) where N is the number of entries in the commandlog"},
      {.name = "commandlog|help", .arity = 2, .flags = kCmdLoading | kCmdStale, .acl = kAclSlow,
       .handler = CmdCommandLogHelp, .group = "server",
       .summary = "Show helpful text about the different subcommands", .since = "8.1.0",
       .complexity = "O(1)"},
  };
  t.Add(std::move(commandlog));

  RegisterInfoCommand(t);
  RegisterConfigCommand(t);
  RegisterCommandCommand(t);
  RegisterDebugCommand(t);
  RegisterMemoryCommand(t);
}

}  // namespace vireo
