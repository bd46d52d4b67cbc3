#include "acl/selector.h"

#include <algorithm>

#include "commands/command_table.h"
#include "common/glob.h"
#include "common/numbers.h"

namespace vireo {
namespace {

// Looks up "name" or "name|sub" (case-insensitive), as ACL rules name commands: by their own
// names, whatever rename-command did (as Valkey does).
const CommandSpec* LookupCommand(std::string_view name) {
  size_t bar = name.find('|');
  if (bar == std::string_view::npos) return Commands().FindOriginal(name);
  const CommandSpec* parent = Commands().FindOriginal(name.substr(0, bar));
  if (parent == nullptr || !parent->IsContainer()) return nullptr;
  return parent->FindSubcommand(name.substr(bar + 1));
}

template <typename F>
void ForEachSpec(F&& f) {
  for (const CommandSpec* c : Commands().All()) {
    f(*c);
    for (const CommandSpec& s : c->subcommands) f(s);
  }
}

}  // namespace

const char* AclRuleErrorText(AclRuleError e) {
  switch (e) {
    case AclRuleError::kNone:
      return "";
    case AclRuleError::kSyntax:
      return "Syntax error";
    case AclRuleError::kUnknownCommand:
      return "Unknown command or category name in ACL";
    case AclRuleError::kKeysAfterAll:
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and "
             "does not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case AclRuleError::kChannelsAfterAll:
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and "
             "does not have any effect. Try 'resetchannels' to start with an empty list of "
             "channels";
    case AclRuleError::kNoSuchPassword:
      return "The password you are trying to remove from the user does not exist";
    case AclRuleError::kBadHash:
      return "The password hash must be exactly 64 characters and contain only lowercase "
             "hexadecimal characters";
    case AclRuleError::kSubcommandFirstArg:
      return "Allowing first-arg of a subcommand is not supported";
    case AclRuleError::kDbOutOfRange:
      return "The provided database ID is out of range";
  }
  return "Wrong format";
}

const std::vector<std::pair<std::string, uint64_t>>& AclCategories() {
  static const std::vector<std::pair<std::string, uint64_t>> kCategories = [] {
    std::vector<std::pair<std::string, uint64_t>> out;
    for (int bit = 0; bit < 64; ++bit) {
      std::vector<std::string> names = AclCategoryNames(1ull << bit);
      if (names.empty()) break;
      out.emplace_back(names[0].substr(1), 1ull << bit);
    }
    return out;
  }();
  return kCategories;
}

uint64_t AclCategoryByName(std::string_view name) {
  for (const auto& [n, flag] : AclCategories()) {
    if (EqualsIgnoreCase(n, name)) return flag;
  }
  return 0;
}

Selector::Selector(bool all_channels)
    : bits_((Commands().IdLimit() + 63) / 64, 0), all_channels_(all_channels) {}

void Selector::SetBit(uint32_t id, bool on) {
  if (id / 64 >= bits_.size()) bits_.resize(id / 64 + 1, 0);
  if (on) {
    bits_[id / 64] |= 1ull << (id % 64);
  } else {
    bits_[id / 64] &= ~(1ull << (id % 64));
  }
}

void Selector::ChangeCommand(const CommandSpec& spec, bool allow) {
  SetBit(spec.id, allow);
  first_args_.erase(spec.id);
  for (const CommandSpec& sub : spec.subcommands) SetBit(sub.id, allow);
}

void Selector::ChangeCategory(uint64_t category, bool allow) {
  for (const CommandSpec* c : Commands().All()) {
    if (c->acl & category) ChangeCommand(*c, allow);
    for (const CommandSpec& s : c->subcommands) {
      if (s.acl & category) ChangeCommand(s, allow);
    }
  }
}

void Selector::SetAllCommands(bool allow) {
  std::fill(bits_.begin(), bits_.end(), allow ? ~0ull : 0ull);
  future_commands_ = allow;
  first_args_.clear();
  command_rules_.clear();
}

bool Selector::Unrestricted() const {
  if (!all_keys_ || !all_channels_ || !all_dbs_) return false;
  bool all = true;
  ForEachSpec([&](const CommandSpec& s) { all = all && Bit(s.id); });
  return all;
}

AclRuleError Selector::Apply(std::string_view rule) {
  // "~*" and "&*" are the same as allkeys / allchannels, even when already set.
  if (EqualsIgnoreCase(rule, "allkeys") || rule == "~*") {
    all_keys_ = true;
    keys_.clear();
    return AclRuleError::kNone;
  }
  if (EqualsIgnoreCase(rule, "resetkeys")) {
    keys_.clear();
    all_keys_ = false;
    return AclRuleError::kNone;
  }
  if (EqualsIgnoreCase(rule, "allchannels") || rule == "&*") {
    all_channels_ = true;
    channels_.clear();
    return AclRuleError::kNone;
  }
  if (EqualsIgnoreCase(rule, "resetchannels")) {
    channels_.clear();
    all_channels_ = false;
    return AclRuleError::kNone;
  }
  if (EqualsIgnoreCase(rule, "allcommands") || EqualsIgnoreCase(rule, "+@all")) {
    SetAllCommands(true);
    return AclRuleError::kNone;
  }
  if (EqualsIgnoreCase(rule, "nocommands") || EqualsIgnoreCase(rule, "-@all")) {
    SetAllCommands(false);
    return AclRuleError::kNone;
  }
  if (EqualsIgnoreCase(rule, "alldbs")) {
    all_dbs_ = true;
    dbs_.clear();
    return AclRuleError::kNone;
  }
  if (EqualsIgnoreCase(rule, "resetdbs")) {
    all_dbs_ = false;
    dbs_.clear();
    return AclRuleError::kNone;
  }
  if (rule.size() >= 3 && EqualsIgnoreCase(rule.substr(0, 3), "db=")) {
    return ApplyDbList(rule.substr(3));
  }
  if (rule.empty()) return AclRuleError::kSyntax;
  if (rule[0] == '~' || rule[0] == '%') return ApplyKeyPattern(rule);
  if (rule[0] == '&') {
    if (all_channels_) return AclRuleError::kChannelsAfterAll;
    std::string_view pattern = rule.substr(1);
    if (pattern == "*") {
      all_channels_ = true;
      channels_.clear();
    } else if (std::find(channels_.begin(), channels_.end(), pattern) == channels_.end()) {
      channels_.emplace_back(pattern);
    }
    return AclRuleError::kNone;
  }
  if (rule[0] == '+' || rule[0] == '-') return ApplyCommandRule(rule);
  return AclRuleError::kSyntax;
}

AclRuleError Selector::ApplyKeyPattern(std::string_view rule) {
  if (all_keys_) return AclRuleError::kKeysAfterAll;
  uint8_t perms = 0;
  size_t offset = 1;
  if (rule[0] == '%') {
    bool tilde = false;
    for (; offset < rule.size(); ++offset) {
      char ch = static_cast<char>(toupper(static_cast<unsigned char>(rule[offset])));
      if (ch == 'R' && !(perms & kAclPermRead)) {
        perms |= kAclPermRead;
      } else if (ch == 'W' && !(perms & kAclPermWrite)) {
        perms |= kAclPermWrite;
      } else if (rule[offset] == '~') {
        tilde = true;
        ++offset;
        break;
      } else {
        return AclRuleError::kSyntax;
      }
    }
    if (perms == 0 || !tilde) return AclRuleError::kSyntax;
  } else {
    perms = kAclPermAll;
  }
  std::string_view pattern = rule.substr(offset);
  if (pattern == "*" && perms == kAclPermAll) {
    all_keys_ = true;
    keys_.clear();
    return AclRuleError::kNone;
  }
  for (KeyPattern& k : keys_) {
    if (k.pattern == pattern) {
      k.perms |= perms;
      return AclRuleError::kNone;
    }
  }
  keys_.push_back({std::string(pattern), perms});
  return AclRuleError::kNone;
}

// db=0,2: replaces the list (and alldbs). Ids are 0..INT_MAX, as Valkey takes them whatever
// `databases` is; a non-number (or an empty item) is a syntax error, checked before any change.
AclRuleError Selector::ApplyDbList(std::string_view ids) {
  std::vector<int> parsed;
  size_t pos = 0;
  while (true) {
    size_t comma = ids.find(',', pos);
    std::string_view item =
        ids.substr(pos, comma == std::string_view::npos ? ids.npos : comma - pos);
    int64_t id;
    if (!ParseInt64(item, &id)) return AclRuleError::kSyntax;
    if (id < 0 || id > INT32_MAX) return AclRuleError::kDbOutOfRange;
    parsed.push_back(static_cast<int>(id));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  std::sort(parsed.begin(), parsed.end());
  parsed.erase(std::unique(parsed.begin(), parsed.end()), parsed.end());
  dbs_ = std::move(parsed);
  all_dbs_ = false;
  return AclRuleError::kNone;
}

AclRuleError Selector::ApplyCommandRule(std::string_view rule) {
  const bool allow = rule[0] == '+';
  std::string_view name = rule.substr(1);
  if (!name.empty() && name[0] == '@') {
    uint64_t category = AclCategoryByName(name.substr(1));
    if (category == 0) return AclRuleError::kUnknownCommand;
    ChangeCategory(category, allow);
    RecordCommandRule(name, allow);
    return AclRuleError::kNone;
  }
  size_t bar = name.rfind('|');
  if (!allow || bar == std::string_view::npos) {
    const CommandSpec* spec = LookupCommand(name);
    if (spec == nullptr) return AclRuleError::kUnknownCommand;
    ChangeCommand(*spec, allow);
    RecordCommandRule(spec->name, allow);  // the command's own name, as Valkey records it
    return AclRuleError::kNone;
  }
  // +cmd|sub: a subcommand, or (for a plain command) an allowed first argument.
  const CommandSpec* parent = LookupCommand(name.substr(0, bar));
  if (parent == nullptr) return AclRuleError::kUnknownCommand;
  if (parent->name.find('|') != std::string::npos) return AclRuleError::kSubcommandFirstArg;
  std::string_view sub = name.substr(bar + 1);
  if (sub.empty()) return AclRuleError::kSyntax;
  if (parent->IsContainer()) {
    const CommandSpec* spec = parent->FindSubcommand(sub);
    if (spec == nullptr) return AclRuleError::kUnknownCommand;
    ChangeCommand(*spec, true);
    RecordCommandRule(name, true);
    return AclRuleError::kNone;
  }
  std::vector<std::string>& list = first_args_[parent->id];
  std::string lowered = ToLower(sub);
  if (std::find(list.begin(), list.end(), lowered) == list.end()) list.push_back(lowered);
  RecordCommandRule(name, true);
  return AclRuleError::kNone;
}

bool Selector::AllowsCommand(const CommandSpec& spec,
                             const std::vector<std::string_view>& args) const {
  if (Bit(spec.id)) return true;
  auto it = first_args_.find(spec.id);
  if (it == first_args_.end()) return false;
  size_t idx = spec.name.find('|') == std::string::npos ? 1 : 2;
  if (args.size() <= idx) return false;
  for (const std::string& a : it->second) {
    if (EqualsIgnoreCase(a, args[idx])) return true;
  }
  return false;
}

bool Selector::AllowsKey(std::string_view key, uint8_t perms) const {
  if (all_keys_) return true;
  for (const KeyPattern& k : keys_) {
    if ((k.perms & perms) != perms) continue;
    if (GlobMatch(k.pattern, key)) return true;
  }
  return false;
}

bool Selector::AllowsEveryKey(uint8_t perms) const {
  if (all_keys_) return true;
  for (const KeyPattern& k : keys_) {
    if ((k.perms & perms) == perms && k.pattern == "*") return true;
  }
  return false;
}

bool Selector::AllowsChannel(std::string_view channel, bool is_pattern) const {
  if (all_channels_) return true;
  for (const std::string& p : channels_) {
    if (is_pattern ? p == channel : GlobMatch(p, channel)) return true;
  }
  return false;
}

std::string Selector::DescribeKeys() const {
  if (all_keys_) return "~*";
  std::string out;
  for (const KeyPattern& k : keys_) {
    if (!out.empty()) out += ' ';
    out += k.perms == kAclPermAll ? "~" : k.perms == kAclPermRead ? "%R~" : "%W~";
    out += k.pattern;
  }
  return out;
}

std::string Selector::DescribeChannels() const {
  if (all_channels_) return "&*";
  std::string out;
  for (const std::string& c : channels_) {
    if (!out.empty()) out += ' ';
    out += '&';
    out += c;
  }
  return out;
}

std::string Selector::DescribeDbs() const {
  if (all_dbs_) return "alldbs";
  if (dbs_.empty()) return "resetdbs";
  std::string out = "db=";
  for (size_t i = 0; i < dbs_.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(dbs_[i]);
  }
  return out;
}

std::string Selector::Describe() const {
  std::string out = DescribeKeys();
  if (!out.empty()) out += ' ';
  if (all_channels_) {
    out += "&* ";
  } else {
    out += "resetchannels ";
    for (const std::string& c : channels_) out += "&" + c + " ";
  }
  // alldbs, the default, is left out (Valkey 9.1), so users without db rules read as before.
  if (!all_dbs_) out += DescribeDbs() + " ";
  out += DescribeCommands();
  return out;
}

// Valkey 8 keeps the command rules as written ("+@all" or "-@all", then the rules since).
std::string Selector::DescribeCommands() const {
  std::string rules = future_commands_ ? "+@all" : "-@all";
  for (const std::string& r : command_rules_) {
    rules += ' ';
    rules += r;
  }
  return rules;
}

void Selector::RecordCommandRule(std::string_view name, bool allow) {
  // A rule replaces the earlier ones about the same command or category, and those about the
  // command's subcommands or first arguments ("-config" drops "+config|get"), as in Valkey.
  const std::string body = ToLower(name);
  std::erase_if(command_rules_, [&](const std::string& r) {
    std::string_view old = std::string_view(r).substr(1);
    return old == body || (old.size() > body.size() && old.substr(0, body.size()) == body &&
                           old[body.size()] == '|');
  });
  command_rules_.push_back((allow ? "+" : "-") + body);
}

}  // namespace vireo
