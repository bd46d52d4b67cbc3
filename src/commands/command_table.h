// The declarative command table: name, arity, flags, key positions, ACL categories, docs.
// Dispatch, COMMAND, ACL and cluster key checks all read it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/latency_histogram.h"

namespace vireo {

struct CommandContext;
struct CommandDocs;
using CommandHandler = void (*)(CommandContext& ctx);

// A key argument of a command: its index in the arguments and its key-spec flags (KeySpecFlag
// in commands/command_docs.h; 0 where Valkey's key finder for the command gives none).
struct KeyRef {
  int pos;
  uint32_t flags;
};
// A command's own way to find its keys (Valkey's getkeys_proc); see commands/key_finders.h.
using KeyFinder = int (*)(const std::vector<std::string_view>& args, std::vector<KeyRef>* keys);

// Command flags, named as COMMAND INFO reports them.
enum CommandFlag : uint32_t {
  kCmdWrite = 1u << 0,
  kCmdReadonly = 1u << 1,
  kCmdDenyOom = 1u << 2,
  kCmdAdmin = 1u << 3,
  kCmdPubSub = 1u << 4,
  kCmdNoScript = 1u << 5,
  kCmdBlocking = 1u << 6,
  kCmdLoading = 1u << 7,
  kCmdStale = 1u << 8,
  kCmdSkipMonitor = 1u << 9,
  kCmdSkipSlowlog = 1u << 10,
  kCmdFast = 1u << 11,
  kCmdNoAuth = 1u << 12,
  kCmdMayReplicate = 1u << 13,
  kCmdNoMulti = 1u << 14,
  kCmdMovableKeys = 1u << 15,
  kCmdAllowBusy = 1u << 16,
  kCmdSentinel = 1u << 17,
  kCmdNoMandatoryKeys = 1u << 18,
  kCmdProtected = 1u << 19,  // DEBUG/MODULE: gated by enable-*-command
  kCmdAsking = 1u << 20,     // RESTORE-ASKING: runs as if ASKING came first (cluster)
  kCmdNoAsyncLoading = 1u << 21,  // shown as Redis 7.0 shows it; Vireo never loads async
};

// ACL categories, as in ACL CAT.
enum AclCategory : uint64_t {
  kAclKeyspace = 1ull << 0,
  kAclRead = 1ull << 1,
  kAclWrite = 1ull << 2,
  kAclSet = 1ull << 3,
  kAclSortedSet = 1ull << 4,
  kAclList = 1ull << 5,
  kAclHash = 1ull << 6,
  kAclString = 1ull << 7,
  kAclBitmap = 1ull << 8,
  kAclHyperLogLog = 1ull << 9,
  kAclGeo = 1ull << 10,
  kAclStream = 1ull << 11,
  kAclPubSub = 1ull << 12,
  kAclAdmin = 1ull << 13,
  kAclFast = 1ull << 14,
  kAclSlow = 1ull << 15,
  kAclBlocking = 1ull << 16,
  kAclDangerous = 1ull << 17,
  kAclConnection = 1ull << 18,
  kAclTransaction = 1ull << 19,
  kAclScripting = 1ull << 20,
};

// Calls and time per command, for INFO commandstats.
struct CommandStats {
  uint64_t calls = 0;
  uint64_t usec = 0;
  uint64_t rejected_calls = 0;
  uint64_t failed_calls = 0;
  LatencyHistogram latency;  // latency-tracking (INFO latencystats, LATENCY HISTOGRAM)
};

struct CommandSpec {
  std::string name;  // lower case; subcommands are "parent|sub"
  int arity = 0;     // positive: exact argc; negative: at least -arity
  uint32_t flags = 0;
  uint64_t acl = 0;
  // Legacy key positions, as COMMAND INFO shows them (last -1 = to the end). The keys are
  // found by the key specs of `docs` (commands/key_finders.h).
  int first_key = 0, last_key = 0, key_step = 0;
  CommandHandler handler = nullptr;
  // Docs for a command the generated table lacks; COMMAND DOCS prefers `docs`.
  std::string group;  // "string", "generic", "server", "connection", ...
  std::string summary;
  std::string since;
  std::string complexity;
  std::vector<CommandSpec> subcommands;  // for container commands (CONFIG, CLIENT, ...)
  mutable CommandStats stats;
  uint32_t id = 0;  // dense index over commands and subcommands (ACL bitmaps), set by Add
  // Set by Add from the name: key specs, tips and docs from Valkey's command reference
  // (nullptr for a command it lacks), and the command's own key finder (or nullptr).
  const CommandDocs* docs = nullptr;
  KeyFinder key_finder = nullptr;

  bool IsContainer() const { return !subcommands.empty(); }
  // Subcommand by (case-insensitive) name, or nullptr.
  const CommandSpec* FindSubcommand(std::string_view sub) const;
  // The name users see in errors: "get" or "config|get".
  const std::string& FullName() const { return name; }
};

class CommandTable {
 public:
  void Add(CommandSpec spec);
  // Case-insensitive lookup of a top-level command by the name clients call it with (after
  // rename-command).
  const CommandSpec* Find(std::string_view name) const {
    return renamed_ ? FindRenamed(name) : FindOriginal(name);
  }
  // Lookup by the command's own name, ignoring rename-command (ACL rules use these names).
  const CommandSpec* FindOriginal(std::string_view name) const;
  // rename-command: the command `name` answers to new_name from now on, and an empty
  // new_name disables it (gone from COMMAND COUNT and LIST too). "" on success, else the
  // error text for the config file.
  std::string Rename(std::string_view name, std::string_view new_name);
  // The spec that runs args (resolving a container's subcommand), or nullptr when unknown.
  const CommandSpec* Resolve(const std::vector<std::string_view>& args) const;
  const std::vector<const CommandSpec*>& All() const { return ordered_; }
  size_t Size() const { return ordered_.size(); }
  // One more than the largest CommandSpec::id (commands and subcommands).
  uint32_t IdLimit() const { return next_id_; }
  void ResetStats() const;

 private:
  // Open addressing over case-folded names: a lookup hashes and compares the argument in
  // place, with no lower-cased copy (this runs for every command).
  void Index(CommandSpec* p);
  const CommandSpec* FindRenamed(std::string_view name) const;
  bool renamed_ = false;  // any rename-command applied: Find takes the slower FindRenamed
  std::vector<std::pair<std::string, const CommandSpec*>> aliases_;  // new name -> command
  std::vector<const CommandSpec*> hidden_;  // renamed or disabled: their own names are gone
  std::vector<CommandSpec*> slots_;
  std::vector<const CommandSpec*> ordered_;
  std::vector<std::unique_ptr<CommandSpec>> storage_;
  uint32_t next_id_ = 0;
};

// Names of the set flag bits / ACL categories, as COMMAND INFO prints them.
std::vector<std::string> CommandFlagNames(uint32_t flags);
std::vector<std::string> AclCategoryNames(uint64_t acl);

// The process-wide table, filled once at start-up by RegisterAllCommands.
CommandTable& Commands();
void RegisterAllCommands();

}  // namespace vireo
