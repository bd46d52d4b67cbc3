// Key positions of commands whose keys move with their arguments (the movablekeys flag):
// numkeys-counted lists, XREAD's STREAMS, SORT's STORE, GEORADIUS's STORE. COMMAND GETKEYS uses
// them now; cluster slot checks and ACL key patterns will.
#pragma once

#include <string_view>
#include <vector>

namespace vireo {

// Appends the key positions of args (args[0] is the command name) to *out. Returns false when
// the arguments are malformed (Valkey: "Invalid arguments specified for command"), and true
// with nothing appended for a command without a finder.
bool FindMovableKeys(std::string_view name, const std::vector<std::string_view>& args,
                     std::vector<int>* out);

}  // namespace vireo
