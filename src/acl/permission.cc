#include "acl/permission.h"

#include "acl/selector.h"
#include "commands/command_docs.h"
#include "commands/command_table.h"
#include "commands/key_finders.h"

namespace vireo {
namespace {

// Channel arguments: first index, whether all later arguments are channels too, patterns.
struct ChannelArgs {
  int first = 0;
  bool rest = false;
  bool patterns = false;
};

ChannelArgs ChannelsOf(const CommandSpec& spec) {
  const std::string& n = spec.name;
  if (n == "publish" || n == "spublish") return {1, false, false};
  if (n == "subscribe" || n == "ssubscribe") return {1, true, false};
  if (n == "psubscribe") return {1, true, true};
  return {};
}

// The keys and their key-spec flags, found once per check and only when a selector restricts
// keys.
struct LazyKeys {
  const CommandSpec& spec;
  const std::vector<std::string_view>& args;
  bool found = false;
  std::vector<KeyRef> keys;
  const std::vector<KeyRef>& Get() {
    if (!found) {
      if (CommandHasKeys(spec)) CommandKeys(spec, args, &keys);
      found = true;
    }
    return keys;
  }
};

// The permission a key needs, from its key-spec flags as Valkey reads them: reading for
// access, writing for insert, delete or update; none (any pattern will do) otherwise.
uint8_t PermsNeeded(uint32_t key_flags) {
  uint8_t perms = 0;
  if (key_flags & kKeyAccess) perms |= kAclPermRead;
  if (key_flags & (kKeyInsert | kKeyDelete | kKeyUpdate)) perms |= kAclPermWrite;
  return perms;
}

AclVerdict CheckSelector(const Selector& s, const CommandSpec& spec,
                         const std::vector<std::string_view>& args, LazyKeys& keys) {
  if (!(spec.flags & kCmdNoAuth) && !s.AllowsCommand(spec, args)) return {AclDenial::kCommand, 0};
  if (!s.all_keys()) {
    for (const KeyRef& k : keys.Get()) {
      if (!s.AllowsKey(args[static_cast<size_t>(k.pos)], PermsNeeded(k.flags))) {
        return {AclDenial::kKey, k.pos};
      }
    }
  }
  if (!s.all_channels()) {
    ChannelArgs ch = ChannelsOf(spec);
    if (ch.first != 0) {
      int last = ch.rest ? static_cast<int>(args.size()) - 1 : ch.first;
      for (int i = ch.first; i <= last && i < static_cast<int>(args.size()); ++i) {
        if (!s.AllowsChannel(args[static_cast<size_t>(i)], ch.patterns)) {
          return {AclDenial::kChannel, i};
        }
      }
    }
  }
  return {};
}

}  // namespace

AclVerdict CheckCommandPermission(const User& user, const CommandSpec& spec,
                                  const std::vector<std::string_view>& args) {
  LazyKeys keys{spec, args};
  AclVerdict relevant{AclDenial::kCommand, 0};
  for (const Selector& s : user.selectors()) {
    AclVerdict v = CheckSelector(s, spec, args, keys);
    if (v.denial == AclDenial::kNone) return v;
    if (v.denial > relevant.denial ||
        (v.denial == relevant.denial && v.denial != AclDenial::kCommand)) {
      relevant = v;
    }
  }
  return relevant;
}

bool CanReadEveryKey(const User& user, const CommandSpec& spec,
                     const std::vector<std::string_view>& args) {
  LazyKeys keys{spec, args};
  for (const Selector& s : user.selectors()) {
    if (s.AllowsEveryKey(kAclPermRead) &&
        CheckSelector(s, spec, args, keys).denial == AclDenial::kNone) {
      return true;
    }
  }
  return false;
}

std::string AclDenialText(const AclVerdict& v, const User& user, const CommandSpec& spec,
                          const std::vector<std::string_view>& args, bool verbose) {
  switch (v.denial) {
    case AclDenial::kKey:
      if (!verbose) return "No permissions to access a key";
      return "User " + user.name() + " has no permissions to access the '" +
             std::string(args[static_cast<size_t>(v.arg)]) + "' key";
    case AclDenial::kChannel:
      if (!verbose) return "No permissions to access a channel";
      return "User " + user.name() + " has no permissions to access the '" +
             std::string(args[static_cast<size_t>(v.arg)]) + "' channel";
    default:
      return "User " + user.name() + " has no permissions to run the '" + spec.name + "' command";
  }
}

const char* AclDenialReason(AclDenial denial) {
  switch (denial) {
    case AclDenial::kKey:
      return "key";
    case AclDenial::kChannel:
      return "channel";
    case AclDenial::kAuth:
      return "auth";
    default:
      return "command";
  }
}

std::string AclDenialObject(const AclVerdict& v, const CommandSpec& spec,
                            const std::vector<std::string_view>& args) {
  if (v.denial == AclDenial::kKey || v.denial == AclDenial::kChannel) {
    return std::string(args[static_cast<size_t>(v.arg)]);
  }
  return spec.name;
}

}  // namespace vireo
