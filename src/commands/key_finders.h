// The key arguments of a command, as Valkey finds them: by the command's key specs
// (commands/command_docs.h) where they apply, else by the command's own finder (Valkey's
// getkeys_proc: numkeys counts, SORT's STORE, MIGRATE's KEYS, XREAD's STREAMS, SET's GET ...).
// COMMAND GETKEYS, cluster routing, ACL key checks and client tracking all use them.
#pragma once

#include <string_view>
#include <vector>

#include "commands/command_table.h"

namespace vireo {

// Fills *keys with the key arguments of args (args[0] is the command name) and returns how
// many; 0 also when the arguments fail the arity or are malformed (no keys can be found).
// Flags are the key specs' (kKeyRO, ...), or 0 where Valkey's finder gives none.
int CommandKeys(const CommandSpec& spec, const std::vector<std::string_view>& args,
                std::vector<KeyRef>* keys);

// Whether the command can have keys at all (COMMAND GETKEYS: "The command has no key
// arguments" otherwise).
bool CommandHasKeys(const CommandSpec& spec);

// The command's own key finder by its full name, or nullptr (CommandTable::Add sets it).
KeyFinder FindKeyFinder(std::string_view name);

}  // namespace vireo
