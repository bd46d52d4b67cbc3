// ACL commands in process: SETUSER / GETUSER / LIST, AUTH as a user, NOPERM and the log.
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

TEST_F(CommandTest, AclSetUserAndList) {
  EXPECT_EQ(Run({"acl", "list"}),
            "*1\r\n" + Bulk("user default on nopass sanitize-payload ~* &* +@all"));
  EXPECT_EQ(Run({"acl", "setuser", "bob", "on", "nopass", "~k*", "+get"}), kOk);
  EXPECT_EQ(Run({"acl", "users"}), "*2\r\n" + Bulk("bob") + Bulk("default"));
  EXPECT_EQ(Run({"acl", "list"}),
            "*2\r\n" + Bulk("user bob on nopass sanitize-payload ~k* resetchannels -@all +get") +
                Bulk("user default on nopass sanitize-payload ~* &* +@all"));
  EXPECT_EQ(Run({"acl", "setuser", "bob", "+nosuch"}),
            Err("ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name "
                "in ACL"));
  EXPECT_EQ(Run({"acl", "getuser", "nobody"}), kNil);
  EXPECT_EQ(Run({"acl", "deluser", "bob", "nobody"}), Int(1));
  EXPECT_EQ(Run({"acl", "whoami"}), Bulk("default"));
}

TEST_F(CommandTest, AclUserIsChecked) {
  EXPECT_EQ(Run({"acl", "setuser", "bob", "on", ">pw", "~k*", "+get", "+set", "+auth"}), kOk);
  EXPECT_EQ(Run({"auth", "bob", "bad"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"auth", "bob", "pw"}), kOk);
  EXPECT_TRUE(client_->flags & kClientAclRestricted);
  EXPECT_EQ(Run({"set", "k1", "v"}), kOk);
  EXPECT_EQ(Run({"get", "x"}), Err("NOPERM No permissions to access a key"));
  EXPECT_EQ(Run({"del", "k1"}), Err("NOPERM User bob has no permissions to run the 'del' command"));
  EXPECT_EQ(server_->acl_log().entries().size(), 3u);  // the failed AUTH too
  EXPECT_EQ(server_->acl_log().entries()[0].object, "del");
  EXPECT_EQ(server_->stats().acl_denied_key, 1u);
  EXPECT_EQ(server_->stats().acl_denied_auth, 1u);
  // Back to an unrestricted user: the check is a flag test again.
  EXPECT_EQ(Run({"auth", "default", "x"}), kOk);
  EXPECT_FALSE(client_->flags & kClientAclRestricted);
}

}  // namespace
}  // namespace vireo
