// The users: the `default` user (always present), those created by ACL SETUSER, `user`
// config lines or the ACL file, and the ACL file's format (ACL LOAD / SAVE).
// Clients hold users by shared_ptr: a deleted user stays valid until its clients are gone.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "acl/user.h"

namespace vireo {

class AclStore {
 public:
  AclStore();

  // nullptr when there is no such user.
  std::shared_ptr<User> Find(std::string_view name) const;
  const std::shared_ptr<User>& default_user() const { return default_; }
  const std::map<std::string, std::shared_ptr<User>, std::less<>>& users() const { return users_; }

  // acl-pubsub-default: whether new users and selectors start with allchannels.
  void set_all_channels_default(bool all) { all_channels_default_ = all; }
  bool all_channels_default() const { return all_channels_default_; }

  // ACL SETUSER: creates the user if needed and applies the rules, all or none. Returns ""
  // or Valkey's error text (without "ERR "). *created tells whether the user is new.
  std::string SetUser(std::string_view name, const std::vector<std::string_view>& rules,
                      bool* created = nullptr);
  // Removes the user (not `default`); false when it did not exist.
  bool DeleteUser(std::string_view name);

  // requirepass: the default user gets this password only ("" = nopass), as in Valkey.
  void SetRequirePass(std::string_view password);

  // Parses ACL file text; on success replaces every user but keeps the `default` object
  // (its clients stay), copying the file's definition into it (or a fresh default). On
  // failure nothing changes and *error is Valkey's text.
  bool Load(std::string_view text, const std::string& path, std::string* error);
  // ACL SAVE's text: one "user <name> <rules>" line per user, by name.
  std::string Serialize() const;

 private:
  std::map<std::string, std::shared_ptr<User>, std::less<>> users_;
  std::shared_ptr<User> default_;
  bool all_channels_default_ = false;
};

// A `default` user as a server starts with it: on, nopass, ~* &* +@all.
User MakeDefaultUser();
// Usernames may not hold spaces or NUL bytes.
bool ValidUsername(std::string_view name);

}  // namespace vireo
