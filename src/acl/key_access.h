// The key permissions a command needs for the key at one argument position.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "commands/command_table.h"

namespace vireo {

// kAclPermRead / kAclPermWrite bits (acl/selector.h) the key at args[pos] needs; 0 when the
// command neither reads nor writes its value (EXISTS, TYPE, ...): any matching pattern does.
uint8_t KeyAccessNeeded(const CommandSpec& spec, const std::vector<std::string_view>& args,
                        int pos);

}  // namespace vireo
