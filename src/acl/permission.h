// Whether a user may run a command with given arguments: the databases it touches (Valkey
// 9.1), the command itself, its keys (by the read/write access each needs) and its Pub/Sub
// channels, over all of the user's selectors, choosing the reported refusal as Valkey does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "acl/user.h"

namespace vireo {

struct CommandSpec;

// Values as Valkey orders them: a later selector's refusal replaces an earlier one's when it
// is greater (a key or channel is more telling than the command, the command than a database).
enum class AclDenial { kNone = 0, kDatabase = 1, kCommand = 2, kKey = 3, kAuth = 4, kChannel = 5 };

struct AclVerdict {
  AclDenial denial = AclDenial::kNone;
  // The refused key's, channel's or database id's argument index; 0 (the command's name)
  // when the database refused is the one the command runs in.
  int arg = 0;
};

// The databases a command runs against: `current` (the client's, or the one a MULTI queue
// will have selected by then) and `count` (config databases; an id argument past it is left
// to the command's own "out of range" error).
struct AclDbs {
  int current = 0;
  int count = 16;
};

AclVerdict CheckCommandPermission(const User& user, const CommandSpec& spec,
                                  const std::vector<std::string_view>& args, AclDbs dbs);

// For SELECT, the id it names when valid (0..count-1); else -1. A MULTI queue's later
// commands are checked against the database its queued SELECTs lead to.
int SelectTarget(const CommandSpec& spec, const std::vector<std::string_view>& args, int count);

// Whether a selector that allows this command may also read every key (SORT BY/GET read
// keys the arguments do not name).
bool CanReadEveryKey(const User& user, const CommandSpec& spec,
                     const std::vector<std::string_view>& args, AclDbs dbs);

// Valkey's text for a refusal (after "NOPERM " in a reply): "User u has no permissions to
// run the 'get' command"; a key or channel is "No permissions to access a key" unless verbose
// (ACL DRYRUN), which names it: "User u has no permissions to access the 'k' key"; a
// database "No permissions to access database", verbose "... access database 3" (9.1).
std::string AclDenialText(const AclVerdict& v, const User& user, const CommandSpec& spec,
                          const std::vector<std::string_view>& args, bool verbose);
// ACL LOG's reason ("command", "key", "channel", "auth", "database") and object for a refusal.
const char* AclDenialReason(AclDenial denial);
std::string AclDenialObject(const AclVerdict& v, const CommandSpec& spec,
                            const std::vector<std::string_view>& args);

}  // namespace vireo
