// The server command family is split by command (INFO, CONFIG, COMMAND, DEBUG each have their
// own file); RegisterServerCommands in server_commands.cc registers them all.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include "commands/command_table.h"
#include "protocol/reply_builder.h"

namespace vireo {

struct Client;

void RegisterInfoCommand(CommandTable& t);
void RegisterConfigCommand(CommandTable& t);
void RegisterCommandCommand(CommandTable& t);
void RegisterDebugCommand(CommandTable& t);
void RegisterMemoryCommand(CommandTable& t);

// CLIENT LIST's line for c (ACL LOG's client-info), showing `current` as its command.
std::string ClientInfoForLog(const Client& c, const std::string& current);

// used_memory right after start-up, and the peak (raised to `used` first), as INFO shows them.
size_t StartupMemory();
size_t PeakMemory(size_t used);

// The reply of `<COMMAND> HELP`: a usage line, `lines`, then HELP's own entry, each a status
// string, as Valkey prints them.
void ReplyHelp(ReplyBuilder& reply, std::string_view command,
               std::initializer_list<std::string_view> lines);

}  // namespace vireo
