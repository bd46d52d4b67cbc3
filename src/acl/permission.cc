#include "acl/permission.h"

#include "acl/selector.h"
#include "commands/command_docs.h"
#include "commands/command_table.h"
#include "commands/key_finders.h"
#include "common/numbers.h"

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

// A database id argument: valid ids only, a bad one is the command's own error to give.
int DbArg(std::string_view arg, int count) {
  int64_t id;
  if (!ParseInt64(arg, &id) || id < 0 || id >= count) return -1;
  return static_cast<int>(id);
}

// Valkey 9.1's database rule for one selector that lacks alldbs: a command reading or writing
// keys or the keyspace needs the current database, one naming databases (SELECT, SWAPDB,
// MOVE, COPY ... DB) needs those too, and one acting on every database needs alldbs.
AclVerdict CheckDatabases(const Selector& s, const CommandSpec& spec,
                          const std::vector<std::string_view>& args, AclDbs dbs) {
  const std::string& n = spec.name;
  if (n == "flushall" || n == "cluster|migrateslots" || n == "cluster|cancelslotmigrations") {
    return {AclDenial::kDatabase, 0};
  }
  if ((spec.acl & (kAclKeyspace | kAclRead | kAclWrite)) || CommandHasKeys(spec)) {
    if (!s.AllowsDb(dbs.current)) return {AclDenial::kDatabase, 0};
  }
  auto named = [&](size_t i) {
    if (i >= args.size()) return true;
    int id = DbArg(args[i], dbs.count);
    return id < 0 || s.AllowsDb(id);
  };
  if (n == "select") {
    if (!named(1)) return {AclDenial::kDatabase, 1};
  } else if (n == "swapdb") {
    if (!named(1)) return {AclDenial::kDatabase, 1};
    if (!named(2)) return {AclDenial::kDatabase, 2};
  } else if (n == "move") {
    if (!named(2)) return {AclDenial::kDatabase, 2};
  } else if (n == "copy") {
    for (size_t i = 3; i + 1 < args.size(); ++i) {
      if (EqualsIgnoreCase(args[i], "db")) {
        if (!named(i + 1)) return {AclDenial::kDatabase, static_cast<int>(i + 1)};
        ++i;
      }
    }
  }
  return {};
}

AclVerdict CheckSelector(const Selector& s, const CommandSpec& spec,
                         const std::vector<std::string_view>& args, LazyKeys& keys, AclDbs dbs) {
  // Databases first, as Valkey checks them (the least telling refusal, though).
  if (!s.all_dbs()) {
    AclVerdict v = CheckDatabases(s, spec, args, dbs);
    if (v.denial != AclDenial::kNone) return v;
  }
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
                                  const std::vector<std::string_view>& args, AclDbs dbs) {
  LazyKeys keys{spec, args};
  AclVerdict relevant{AclDenial::kDatabase, 0};
  for (const Selector& s : user.selectors()) {
    AclVerdict v = CheckSelector(s, spec, args, keys, dbs);
    if (v.denial == AclDenial::kNone) return v;
    if (v.denial > relevant.denial ||
        (v.denial == relevant.denial && v.denial != AclDenial::kCommand)) {
      relevant = v;
    }
  }
  return relevant;
}

int SelectTarget(const CommandSpec& spec, const std::vector<std::string_view>& args, int count) {
  if (spec.name != "select" || args.size() < 2) return -1;
  return DbArg(args[1], count);
}

bool CanReadEveryKey(const User& user, const CommandSpec& spec,
                     const std::vector<std::string_view>& args, AclDbs dbs) {
  LazyKeys keys{spec, args};
  for (const Selector& s : user.selectors()) {
    if (s.AllowsEveryKey(kAclPermRead) &&
        CheckSelector(s, spec, args, keys, dbs).denial == AclDenial::kNone) {
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
    case AclDenial::kDatabase:
      if (!verbose) return "No permissions to access database";
      return "User " + user.name() + " has no permissions to access database " +
             std::string(args[static_cast<size_t>(v.arg)]);
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
    case AclDenial::kDatabase:
      return "database";
    default:
      return "command";
  }
}

std::string AclDenialObject(const AclVerdict& v, const CommandSpec& spec,
                            const std::vector<std::string_view>& args) {
  if (v.denial == AclDenial::kKey || v.denial == AclDenial::kChannel ||
      v.denial == AclDenial::kDatabase) {
    return std::string(args[static_cast<size_t>(v.arg)]);
  }
  return spec.name;
}

}  // namespace vireo
