#include "acl/acl_store.h"

namespace vireo {

User MakeDefaultUser() {
  User u("default", true);
  for (std::string_view r : {"+@all", "~*", "&*", "on", "nopass"}) u.Apply(r, true);
  return u;
}

bool ValidUsername(std::string_view name) {
  return name.find(' ') == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

AclStore::AclStore() : default_(std::make_shared<User>(MakeDefaultUser())) {
  users_.emplace("default", default_);
}

std::shared_ptr<User> AclStore::Find(std::string_view name) const {
  auto it = users_.find(name);
  return it == users_.end() ? nullptr : it->second;
}

std::string AclStore::SetUser(std::string_view name, const std::vector<std::string_view>& rules,
                              bool* created) {
  std::vector<std::string> merged;
  std::string error;
  if (!MergeSelectorArgs(rules, &merged, &error)) return error;
  if (!ValidUsername(name)) return "Usernames can't contain spaces or null characters";
  std::shared_ptr<User> existing = Find(name);
  User updated = existing ? *existing : User(std::string(name), all_channels_default_);
  for (const std::string& r : merged) {
    AclRuleError e = updated.Apply(r, all_channels_default_);
    if (e != AclRuleError::kNone) {
      return "Error in ACL SETUSER modifier '" + r + "': " + AclRuleErrorText(e);
    }
  }
  if (created != nullptr) *created = existing == nullptr;
  if (existing) {
    *existing = std::move(updated);  // clients of the user see the new rules
  } else {
    users_.emplace(std::string(name), std::make_shared<User>(std::move(updated)));
  }
  return "";
}

bool AclStore::DeleteUser(std::string_view name) {
  auto it = users_.find(name);
  if (it == users_.end() || it->second == default_) return false;
  users_.erase(it);
  return true;
}

void AclStore::SetRequirePass(std::string_view password) {
  default_->Apply("resetpass", all_channels_default_);
  if (password.empty()) {
    default_->Apply("nopass", all_channels_default_);
  } else {
    default_->Apply(">" + std::string(password), all_channels_default_);
  }
}

bool AclStore::Load(std::string_view text, const std::string& path, std::string* error) {
  std::map<std::string, std::shared_ptr<User>, std::less<>> loaded;
  std::string errors;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    // Words are split on single spaces, as Valkey's loader does (no quoting).
    std::vector<std::string_view> words;
    size_t w = 0;
    while (w <= line.size()) {
      size_t sp = line.find(' ', w);
      if (sp == std::string_view::npos) sp = line.size();
      if (sp > w) words.push_back(line.substr(w, sp - w));
      w = sp + 1;
    }
    const std::string where = path + ":" + std::to_string(line_no);
    if (words.size() < 2 || words[0] != "user") {
      errors += where + " should start with user keyword followed by the username. ";
      continue;
    }
    if (loaded.count(words[1]) != 0) {
      errors += "WARNING: Duplicate user '" + std::string(words[1]) + "' found on line " +
                std::to_string(line_no) + ". ";
      continue;
    }
    std::vector<std::string_view> rules(words.begin() + 2, words.end());
    std::vector<std::string> merged;
    std::string merge_error;
    if (!MergeSelectorArgs(rules, &merged, &merge_error)) {
      errors += where + ": Unmatched parenthesis in selector definition.";
      continue;
    }
    auto user = std::make_shared<User>(std::string(words[1]), all_channels_default_);
    bool ok = true;
    for (const std::string& r : merged) {
      AclRuleError e = user->Apply(r, all_channels_default_);
      if (e == AclRuleError::kUnknownCommand) {
        errors +=
            where + ": Error in applying operation '" + r + "': " + AclRuleErrorText(e) + ". ";
        ok = false;
      } else if (e != AclRuleError::kNone) {
        errors += where + ": " + AclRuleErrorText(e) + ". ";  // Valkey goes on with the line
        ok = false;
      }
    }
    if (ok) loaded.emplace(std::string(words[1]), std::move(user));
  }
  if (!errors.empty()) {
    *error = errors +
             "WARNING: ACL errors detected, no change to the previously active ACL rules was "
             "performed";
    return false;
  }
  auto def = loaded.find("default");
  *default_ = def != loaded.end() ? *def->second : MakeDefaultUser();
  loaded["default"] = default_;
  users_ = std::move(loaded);
  return true;
}

std::string AclStore::Serialize() const {
  std::string out;
  for (const auto& [name, user] : users_) out += "user " + name + " " + user->Describe() + "\n";
  return out;
}

}  // namespace vireo
