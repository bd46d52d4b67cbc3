// Whether a user may run a command with given arguments: the command itself, its keys (by
// the read/write access each needs) and its Pub/Sub channels, over all of the user's
// selectors, choosing the reported refusal as Valkey does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "acl/user.h"

namespace vireo {

struct CommandSpec;

// Values as Valkey orders them: a later selector's refusal replaces an earlier one's when it
// is greater (a key or channel is more telling than the command).
enum class AclDenial { kNone = 0, kCommand = 1, kKey = 2, kAuth = 3, kChannel = 4 };

struct AclVerdict {
  AclDenial denial = AclDenial::kNone;
  int arg = 0;  // the refused key's or channel's argument index
};

AclVerdict CheckCommandPermission(const User& user, const CommandSpec& spec,
                                  const std::vector<std::string_view>& args);

// Whether a selector that allows this command may also read every key (SORT BY/GET read
// keys the arguments do not name).
bool CanReadEveryKey(const User& user, const CommandSpec& spec,
                     const std::vector<std::string_view>& args);

// Valkey 8's text for a refusal (after "NOPERM " in a reply): "User u has no permissions to
// run the 'get' command"; a key or channel is "No permissions to access a key" unless verbose
// (ACL DRYRUN), which names it: "User u has no permissions to access the 'k' key".
std::string AclDenialText(const AclVerdict& v, const User& user, const CommandSpec& spec,
                          const std::vector<std::string_view>& args, bool verbose);
// ACL LOG's reason ("command", "key", "channel", "auth") and object for a refusal.
const char* AclDenialReason(AclDenial denial);
std::string AclDenialObject(const AclVerdict& v, const CommandSpec& spec,
                            const std::vector<std::string_view>& args);

}  // namespace vireo
