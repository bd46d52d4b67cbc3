// The server command family is split by command (INFO, CONFIG, COMMAND, DEBUG each have their
// own file); RegisterServerCommands in server_commands.cc registers them all.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "commands/command_table.h"
#include "protocol/reply_builder.h"

namespace vireo {

struct Client;
struct CommandContext;
struct Config;
class Server;

void RegisterInfoCommand(CommandTable& t);
void RegisterConfigCommand(CommandTable& t);
void RegisterCommandCommand(CommandTable& t);
void RegisterDebugCommand(CommandTable& t);
void RegisterMemoryCommand(CommandTable& t);

// CLIENT LIST's line for c (ACL LOG's client-info), showing `current` as its command.
std::string ClientInfoForLog(const Client& c, const std::string& current);

// INFO's text for the named sections ("default", "all", "commandstats", ...; none: default),
// as the INFO command replies it (the metrics endpoint reads it too).
std::string InfoText(Server& server, const std::vector<std::string_view>& sections);

// extended-redis-compatibility yes: HELLO says "redis" 7.2.4 and INFO has redis_mode, as
// Valkey 8 then does; otherwise "valkey" 8.0.1 and server_mode.
bool ExtendedRedisCompat(const Config& config);

// used_memory right after start-up, and the peak (raised to `used` first), as INFO shows them.
size_t StartupMemory();
size_t PeakMemory(size_t used);

// The reply of `<COMMAND> HELP`: a usage line, `lines`, then HELP's own entry, each a status
// string, as Valkey prints them. `command` is the name as called (ctx.arg(0)), so a command
// renamed by rename-command names itself by its new name, as in Valkey.
void ReplyHelp(ReplyBuilder& reply, std::string_view command,
               std::initializer_list<std::string_view> lines);
// Valkey's answer to a subcommand given more arguments than it takes (its table arity being
// open-ended): "ERR unknown subcommand or wrong number of arguments for 'sub'. Try COMMAND
// HELP.", the subcommand as the client spelled it, the command uppercased.
void ReplySubcommandSyntaxError(CommandContext& ctx);

}  // namespace vireo
