// Which arguments of a command are secrets that MONITOR and the slow log show as
// "(redacted)", as Valkey does: AUTH's arguments, HELLO's and MIGRATE's AUTH / AUTH2 values,
// CONFIG SET values of Valkey's sensitive configs (requirepass, primaryauth, ...), and all of
// ACL SETUSER's rules.
#pragma once

#include <string_view>
#include <vector>

namespace vireo {

// One flag per argument (args[0] is the command name and never secret).
std::vector<bool> SecretArguments(const std::vector<std::string_view>& args);

}  // namespace vireo
