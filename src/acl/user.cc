#include "acl/user.h"

#include <algorithm>

#include "acl/password.h"
#include "common/numbers.h"

namespace vireo {

User::User(std::string name, bool all_channels_default) : name_(std::move(name)) {
  selectors_.emplace_back(all_channels_default);
}

bool User::CheckPassword(std::string_view password) const {
  if (nopass_) return true;
  std::string hash = HashPassword(password);
  bool found = false;
  for (const std::string& p : passwords_) found |= HashesEqual(p, hash);
  return found;
}

std::vector<std::string> User::FlagNames() const {
  std::vector<std::string> out;
  out.emplace_back(enabled_ ? "on" : "off");
  if (nopass_) out.emplace_back("nopass");
  if (sanitize_ == 2) out.emplace_back("skip-sanitize-payload");
  if (sanitize_ == 1) out.emplace_back("sanitize-payload");
  return out;
}

AclRuleError User::Apply(std::string_view rule, bool all_channels_default) {
  AclRuleError result = AclRuleError::kNone;
  auto add_hash = [this](std::string hash) {
    if (std::find(passwords_.begin(), passwords_.end(), hash) == passwords_.end()) {
      passwords_.push_back(std::move(hash));
    }
    nopass_ = false;
  };
  auto remove_hash = [this](const std::string& hash) {
    auto it = std::find(passwords_.begin(), passwords_.end(), hash);
    if (it == passwords_.end()) return AclRuleError::kNoSuchPassword;
    passwords_.erase(it);
    nopass_ = false;
    return AclRuleError::kNone;
  };
  if (EqualsIgnoreCase(rule, "on")) {
    enabled_ = true;
  } else if (EqualsIgnoreCase(rule, "off")) {
    enabled_ = false;
  } else if (EqualsIgnoreCase(rule, "skip-sanitize-payload")) {
    sanitize_ = 2;
  } else if (EqualsIgnoreCase(rule, "sanitize-payload")) {
    sanitize_ = 1;
  } else if (EqualsIgnoreCase(rule, "nopass")) {
    nopass_ = true;
    passwords_.clear();
  } else if (EqualsIgnoreCase(rule, "resetpass")) {
    nopass_ = false;
    passwords_.clear();
  } else if (!rule.empty() && rule[0] == '>') {
    add_hash(HashPassword(rule.substr(1)));
  } else if (!rule.empty() && rule[0] == '#') {
    if (!IsPasswordHash(rule.substr(1))) return AclRuleError::kBadHash;
    add_hash(std::string(rule.substr(1)));
  } else if (!rule.empty() && rule[0] == '<') {
    result = remove_hash(HashPassword(rule.substr(1)));
  } else if (!rule.empty() && rule[0] == '!') {
    if (!IsPasswordHash(rule.substr(1))) return AclRuleError::kBadHash;
    result = remove_hash(std::string(rule.substr(1)));
  } else if (EqualsIgnoreCase(rule, "clearselectors")) {
    selectors_.resize(1, Selector(all_channels_default));
  } else if (EqualsIgnoreCase(rule, "reset")) {
    passwords_.clear();
    nopass_ = false;
    enabled_ = false;
    sanitize_ = 1;
    selectors_.clear();
    selectors_.emplace_back(all_channels_default);
  } else if (rule.size() >= 2 && rule.front() == '(' && rule.back() == ')') {
    Selector s(all_channels_default);
    std::vector<std::string> parts;
    std::string_view inner = rule.substr(1, rule.size() - 2);
    size_t pos = 0;
    while (pos < inner.size()) {
      size_t sp = inner.find(' ', pos);
      if (sp == std::string_view::npos) sp = inner.size();
      if (sp > pos) parts.emplace_back(inner.substr(pos, sp - pos));
      pos = sp + 1;
    }
    for (const std::string& p : parts) {
      AclRuleError e = s.Apply(p);
      if (e != AclRuleError::kNone) return e;
    }
    selectors_.push_back(std::move(s));
  } else {
    result = selectors_[0].Apply(rule);
  }
  unrestricted_ = selectors_[0].Unrestricted();
  return result;
}

std::string User::Describe() const {
  std::string out;
  for (const std::string& f : FlagNames()) out += f + " ";
  for (const std::string& p : passwords_) out += "#" + p + " ";
  out += selectors_[0].Describe();
  for (size_t i = 1; i < selectors_.size(); ++i) out += " (" + selectors_[i].Describe() + ")";
  return out;
}

bool MergeSelectorArgs(const std::vector<std::string_view>& args, std::vector<std::string>* out,
                       std::string* error) {
  out->clear();
  std::string open;
  bool in_selector = false;
  std::string_view start;
  for (std::string_view a : args) {
    // An opening argument starts a selector afresh, dropping an unclosed one (as Valkey).
    if (!a.empty() && a[0] == '(' && a.back() != ')') {
      in_selector = true;
      start = a;
      open = std::string(a);
      continue;
    }
    if (in_selector) {
      open += ' ';
      open += a;
      if (!a.empty() && a.back() == ')') {
        in_selector = false;
        out->push_back(std::move(open));
        open.clear();
      }
      continue;
    }
    out->emplace_back(a);
  }
  if (in_selector) {
    *error = "Unmatched parenthesis in acl selector starting at '" + std::string(start) + "'.";
    return false;
  }
  return true;
}

}  // namespace vireo
