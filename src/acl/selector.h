// One ACL selector: the commands, key patterns and channel patterns a user (its root selector)
// or one of its `(...)` selectors allows. Rules and their errors follow Valkey / Redis 7.0.
// Execution thread only; commands are identified by CommandSpec::id.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vireo {

struct CommandSpec;

// Key permissions of a pattern, and what an access needs.
enum AclKeyPerm : uint8_t { kAclPermRead = 1, kAclPermWrite = 2, kAclPermAll = 3 };

struct KeyPattern {
  std::string pattern;
  uint8_t perms = kAclPermAll;
};

// Why a rule was refused; AclRuleErrorText gives Valkey's message.
enum class AclRuleError {
  kNone,
  kSyntax,              // EINVAL
  kUnknownCommand,      // ENOENT
  kKeysAfterAll,        // EEXIST
  kChannelsAfterAll,    // EISDIR
  kNoSuchPassword,      // ENODEV
  kBadHash,             // EBADMSG
  kSubcommandFirstArg,  // ECHILD
  kDbOutOfRange         // ERANGE (Valkey 9.1's db=)
};
const char* AclRuleErrorText(AclRuleError e);

class Selector {
 public:
  // all_channels: acl-pubsub-default is allchannels (the state a new selector starts in).
  explicit Selector(bool all_channels = false);

  // Applies one rule (~pat, %R~pat, allkeys, resetkeys, &pat, allchannels, resetchannels,
  // +cmd, -cmd, +@cat, -@cat, +cmd|sub, allcommands, nocommands, and Valkey 9.1's alldbs,
  // resetdbs, db=<id>[,<id>...]).
  AclRuleError Apply(std::string_view rule);

  // Whether the command may run at all (its bit, or +cmd|firstarg for args[1]).
  bool AllowsCommand(const CommandSpec& spec, const std::vector<std::string_view>& args) const;
  // Whether key matches a pattern granting every permission in perms.
  bool AllowsKey(std::string_view key, uint8_t perms) const;
  // A channel is glob-matched against the patterns; a PSUBSCRIBE pattern must equal one.
  bool AllowsChannel(std::string_view channel, bool is_pattern) const;

  bool all_keys() const { return all_keys_; }
  // allkeys, or a "*" pattern granting perms (SORT BY/GET need it for reading).
  bool AllowsEveryKey(uint8_t perms) const;
  bool all_channels() const { return all_channels_; }
  // alldbs (a new selector's state), or db lists the database.
  bool all_dbs() const { return all_dbs_; }
  bool AllowsDb(int db) const {
    return all_dbs_ || std::binary_search(dbs_.begin(), dbs_.end(), db);
  }
  // Every command, key, channel and database: a user whose root selector is this needs no checks.
  bool Unrestricted() const;

  // ACL LIST / GETUSER text: key patterns, channels, then the command rules as Valkey 8 keeps
  // them ("+@all" or "-@all", then each rule given since, a later one about the same command
  // or category replacing the earlier: "-@all +@set +@hash -@geo").
  std::string Describe() const;
  std::string DescribeKeys() const;      // "~a %R~b" or "~*" ("" when none)
  std::string DescribeChannels() const;  // "&a &b" or "&*" ("" when none)
  std::string DescribeDbs() const;       // "alldbs", "resetdbs" or "db=0,2" (GETUSER)
  std::string DescribeCommands() const;

 private:
  bool Bit(uint32_t id) const {
    return id < bits_.size() * 64 && (bits_[id / 64] >> (id % 64)) & 1;
  }
  void SetBit(uint32_t id, bool on);
  // The command and its subcommands; forgets first-args allowed for it.
  void ChangeCommand(const CommandSpec& spec, bool allow);
  void ChangeCategory(uint64_t category, bool allow);
  void SetAllCommands(bool allow);
  AclRuleError ApplyKeyPattern(std::string_view rule);
  AclRuleError ApplyCommandRule(std::string_view rule);
  AclRuleError ApplyDbList(std::string_view ids);
  // Appends "+name" / "-name" (lowercased) to the rules kept for DescribeCommands.
  void RecordCommandRule(std::string_view name, bool allow);

  std::vector<uint64_t> bits_;    // by CommandSpec::id
  bool future_commands_ = false;  // +@all: commands added later are allowed too
  std::unordered_map<uint32_t, std::vector<std::string>> first_args_;  // +select|0
  std::vector<std::string> command_rules_;  // "+@set", "-get", "+config|get", ...
  std::vector<KeyPattern> keys_;
  bool all_keys_ = false;
  std::vector<std::string> channels_;
  bool all_channels_ = false;
  std::vector<int> dbs_;  // sorted, no duplicates; used when !all_dbs_
  bool all_dbs_ = true;
};

// Category flag (commands/command_table.h AclCategory) by name without '@', or 0.
uint64_t AclCategoryByName(std::string_view name);
// Category names in ACL CAT's order, and their flags.
const std::vector<std::pair<std::string, uint64_t>>& AclCategories();

}  // namespace vireo
