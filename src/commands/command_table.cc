#include "commands/command_table.h"

#include "common/numbers.h"

namespace vireo {

const CommandSpec* CommandSpec::FindSubcommand(std::string_view sub) const {
  std::string full = name + "|" + ToLower(sub);
  for (const CommandSpec& s : subcommands) {
    if (s.name == full) return &s;
  }
  return nullptr;
}

void CommandTable::Add(CommandSpec spec) {
  auto owned = std::make_unique<CommandSpec>(std::move(spec));
  CommandSpec* p = owned.get();
  by_name_[p->name] = p;
  ordered_.push_back(p);
  storage_.push_back(std::move(owned));
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  // Commands are short; a stack buffer avoids allocating for the common case.
  char buf[64];
  if (name.size() < sizeof(buf)) {
    for (size_t i = 0; i < name.size(); ++i) {
      char c = name[i];
      buf[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
    }
    auto it = by_name_.find(std::string(buf, name.size()));
    return it == by_name_.end() ? nullptr : it->second;
  }
  auto it = by_name_.find(ToLower(name));
  return it == by_name_.end() ? nullptr : it->second;
}

const CommandSpec* CommandTable::Resolve(const std::vector<std::string_view>& args) const {
  if (args.empty()) return nullptr;
  const CommandSpec* spec = Find(args[0]);
  if (spec == nullptr || !spec->IsContainer() || args.size() < 2) return spec;
  return spec->FindSubcommand(args[1]);
}

std::vector<int> CommandTable::KeyPositions(const CommandSpec& spec,
                                            const std::vector<std::string_view>& args) {
  std::vector<int> keys;
  if (spec.first_key <= 0) return keys;
  int argc = static_cast<int>(args.size());
  int last = spec.last_key >= 0 ? spec.last_key : argc + spec.last_key;
  int step = spec.key_step > 0 ? spec.key_step : 1;
  for (int i = spec.first_key; i <= last && i < argc; i += step) keys.push_back(i);
  return keys;
}

void CommandTable::ResetStats() const {
  for (const CommandSpec* c : ordered_) {
    c->stats = CommandStats{};
    for (const CommandSpec& s : c->subcommands) s.stats = CommandStats{};
  }
}

std::vector<std::string> CommandFlagNames(uint32_t flags) {
  static const std::pair<uint32_t, const char*> kNames[] = {
      {kCmdWrite, "write"},         {kCmdReadonly, "readonly"},
      {kCmdDenyOom, "denyoom"},     {kCmdAdmin, "admin"},
      {kCmdPubSub, "pubsub"},       {kCmdNoScript, "noscript"},
      {kCmdBlocking, "blocking"},   {kCmdLoading, "loading"},
      {kCmdStale, "stale"},         {kCmdSkipMonitor, "skip_monitor"},
      {kCmdSkipSlowlog, "skip_slowlog"}, {kCmdFast, "fast"},
      {kCmdNoAuth, "no_auth"},      {kCmdMayReplicate, "may_replicate"},
      {kCmdNoMulti, "no_multi"},    {kCmdMovableKeys, "movablekeys"},
      {kCmdAllowBusy, "allow_busy"}, {kCmdNoMandatoryKeys, "no_mandatory_keys"},
  };
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNames) {
    if (flags & bit) out.emplace_back(name);
  }
  return out;
}

std::vector<std::string> AclCategoryNames(uint64_t acl) {
  static const char* kNames[] = {"keyspace", "read",       "write",     "set",       "sortedset",
                                 "list",     "hash",       "string",    "bitmap",    "hyperloglog",
                                 "geo",      "stream",     "pubsub",    "admin",     "fast",
                                 "slow",     "blocking",   "dangerous", "connection",
                                 "transaction", "scripting"};
  std::vector<std::string> out;
  for (size_t i = 0; i < sizeof(kNames) / sizeof(kNames[0]); ++i) {
    if (acl & (1ull << i)) out.push_back(std::string("@") + kNames[i]);
  }
  return out;
}

CommandTable& Commands() {
  static CommandTable table;
  return table;
}

}  // namespace vireo
