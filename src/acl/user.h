// An ACL user: enabled or not, passwords (SHA-256), its root selector and extra selectors.
// Rules are applied one by one as ACL SETUSER, `user` config lines and ACL files give them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "acl/selector.h"

namespace vireo {

class User {
 public:
  // A new user is off (and sanitize-payload), without passwords, commands or keys; channels
  // per acl-pubsub-default.
  User(std::string name, bool all_channels_default);

  // Applies one rule (user flags, passwords, reset, clearselectors, "(...)" selectors, or a
  // rule of the root selector). all_channels_default: acl-pubsub-default is allchannels.
  AclRuleError Apply(std::string_view rule, bool all_channels_default);

  const std::string& name() const { return name_; }
  bool enabled() const { return enabled_; }
  bool nopass() const { return nopass_; }
  // True when password is accepted (nopass, or its hash is one of the user's).
  bool CheckPassword(std::string_view password) const;
  const std::vector<std::string>& password_hashes() const { return passwords_; }
  // GETUSER's flags: on/off, nopass, sanitize-payload / skip-sanitize-payload.
  std::vector<std::string> FlagNames() const;
  // The root selector first, then the `(...)` ones.
  const std::vector<Selector>& selectors() const { return selectors_; }
  const Selector& root() const { return selectors_[0]; }
  // Allowed everything (root selector): the command path skips its checks.
  bool unrestricted() const { return unrestricted_; }

  // ACL LIST's text after "user <name> ".
  std::string Describe() const;

 private:
  std::string name_;
  bool enabled_ = false;
  bool nopass_ = false;
  // 1 sanitize-payload (a new user's flag in Valkey 8), 2 skip-sanitize-payload.
  int sanitize_ = 1;
  std::vector<std::string> passwords_;
  std::vector<Selector> selectors_;
  bool unrestricted_ = false;
};

// Joins ACL SETUSER arguments so a selector split over several ("(~a" "+get)") becomes one
// "(~a +get)". False with *error (Valkey's text) on an unclosed parenthesis.
bool MergeSelectorArgs(const std::vector<std::string_view>& args, std::vector<std::string>* out,
                       std::string* error);

}  // namespace vireo
