#include "commands/command_table.h"

#include <algorithm>

#include "commands/command_docs.h"
#include "commands/key_finders.h"
#include "common/numbers.h"

namespace vireo {

const CommandSpec* CommandSpec::FindSubcommand(std::string_view sub) const {
  std::string full = name + "|" + ToLower(sub);
  for (const CommandSpec& s : subcommands) {
    if (s.name == full) return &s;
  }
  return nullptr;
}

namespace {

inline unsigned char FoldCase(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return static_cast<unsigned char>(u + (static_cast<unsigned char>(u - 'A') < 26u ? 32 : 0));
}

// FNV-1a over the case-folded bytes.
uint64_t FoldedHash(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) h = (h ^ FoldCase(c)) * 1099511628211ull;
  return h ^ (h >> 29);  // FNV's low bits mix poorly; the table indexes with them
}

bool FoldedEquals(std::string_view lower, std::string_view s) {
  if (lower.size() != s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (static_cast<unsigned char>(lower[i]) != FoldCase(s[i])) return false;
  }
  return true;
}

}  // namespace

void CommandTable::Add(CommandSpec spec) {
  auto owned = std::make_unique<CommandSpec>(std::move(spec));
  CommandSpec* p = owned.get();
  p->id = next_id_++;
  for (CommandSpec& sub : p->subcommands) sub.id = next_id_++;
  auto attach = [](CommandSpec& s) {
    s.docs = FindCommandDocs(s.name);
    s.key_finder = FindKeyFinder(s.name);
  };
  attach(*p);
  for (CommandSpec& sub : p->subcommands) attach(sub);
  ordered_.push_back(p);
  storage_.push_back(std::move(owned));
  if (slots_.size() < ordered_.size() * 4) {
    // Grow to keep the load at most 1/4, then re-index everything.
    std::vector<CommandSpec*> old;
    old.swap(slots_);
    slots_.assign(std::max<size_t>(64, old.size() * 2), nullptr);
    for (const auto& q : storage_) Index(q.get());
    return;
  }
  Index(p);
}

void CommandTable::Index(CommandSpec* p) {
  size_t mask = slots_.size() - 1;
  for (size_t i = FoldedHash(p->name) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == nullptr || slots_[i]->name == p->name) {
      slots_[i] = p;
      return;
    }
  }
}

const CommandSpec* CommandTable::FindOriginal(std::string_view name) const {
  if (slots_.empty()) return nullptr;
  size_t mask = slots_.size() - 1;
  for (size_t i = FoldedHash(name) & mask;; i = (i + 1) & mask) {
    const CommandSpec* p = slots_[i];
    if (p == nullptr) return nullptr;
    if (FoldedEquals(p->name, name)) return p;
  }
}

const CommandSpec* CommandTable::FindRenamed(std::string_view name) const {
  for (const auto& [alias, spec] : aliases_) {
    if (FoldedEquals(alias, name)) return spec;
  }
  const CommandSpec* spec = FindOriginal(name);
  if (std::find(hidden_.begin(), hidden_.end(), spec) != hidden_.end()) return nullptr;
  return spec;
}

std::string CommandTable::Rename(std::string_view name, std::string_view new_name) {
  const CommandSpec* spec = Find(name);
  if (spec == nullptr) return "No such command in rename-command";
  const CommandSpec* target = new_name.empty() ? nullptr : Find(new_name);
  if (target != nullptr && target != spec) {
    return "Target command name already exists";
  }
  renamed_ = true;
  hidden_.push_back(spec);
  // A command renamed twice keeps only its latest name.
  aliases_.erase(std::remove_if(aliases_.begin(), aliases_.end(),
                                [spec](const auto& a) { return a.second == spec; }),
                 aliases_.end());
  if (new_name.empty()) {
    ordered_.erase(std::remove(ordered_.begin(), ordered_.end(), spec), ordered_.end());
  } else {
    aliases_.emplace_back(ToLower(new_name), spec);
  }
  return "";
}

const CommandSpec* CommandTable::Resolve(const std::vector<std::string_view>& args) const {
  if (args.empty()) return nullptr;
  const CommandSpec* spec = Find(args[0]);
  if (spec == nullptr || !spec->IsContainer() || args.size() < 2) return spec;
  return spec->FindSubcommand(args[1]);
}

void CommandTable::ResetStats() const {
  for (const CommandSpec* c : ordered_) {
    c->stats = CommandStats{};
    for (const CommandSpec& s : c->subcommands) s.stats = CommandStats{};
  }
}

std::vector<std::string> CommandFlagNames(uint32_t flags) {
  // Valkey's order; it does not show may_replicate.
  static const std::pair<uint32_t, const char*> kNames[] = {
      {kCmdWrite, "write"},
      {kCmdReadonly, "readonly"},
      {kCmdDenyOom, "denyoom"},
      {kCmdAdmin, "admin"},
      {kCmdPubSub, "pubsub"},
      {kCmdNoScript, "noscript"},
      {kCmdBlocking, "blocking"},
      {kCmdLoading, "loading"},
      {kCmdStale, "stale"},
      {kCmdSkipMonitor, "skip_monitor"},
      {kCmdSkipSlowlog, "skip_slowlog"},
      {kCmdAsking, "asking"},
      {kCmdFast, "fast"},
      {kCmdNoAuth, "no_auth"},
      {kCmdNoMandatoryKeys, "no_mandatory_keys"},
      {kCmdNoAsyncLoading, "no_async_loading"},
      {kCmdNoMulti, "no_multi"},
      {kCmdMovableKeys, "movablekeys"},
      {kCmdAllowBusy, "allow_busy"},
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
