#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

TEST_F(CommandTest, PingEcho) {
  EXPECT_EQ(Run({"PING"}), "+PONG\r\n");
  EXPECT_EQ(Run({"ping", "hi"}), Bulk("hi"));
  EXPECT_EQ(Run({"ping", "a", "b"}), Err("ERR wrong number of arguments for 'ping' command"));
  EXPECT_EQ(Run({"echo", "x"}), Bulk("x"));
  EXPECT_EQ(Run({"echo"}), Err("ERR wrong number of arguments for 'echo' command"));
}

TEST_F(CommandTest, UnknownCommand) {
  EXPECT_EQ(Run({"nosuch", "a", "b"}),
            Err("ERR unknown command 'nosuch', with args beginning with: 'a' 'b' "));
}

TEST_F(CommandTest, Select) {
  EXPECT_EQ(Run({"select", "1"}), kOk);
  EXPECT_EQ(client_->db_index, 1);
  EXPECT_EQ(Run({"select", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"select", "x"}), Err("ERR value is not an integer or out of range"));
}

TEST_F(CommandTest, AuthWithoutPassword) {
  EXPECT_EQ(Run({"auth", "x"}),
            Err("ERR AUTH <password> called without any password configured for the default "
                "user. Are you sure your configuration is correct?"));
  EXPECT_EQ(Run({"auth", "default", "x"}), kOk);
  EXPECT_EQ(Run({"auth", "other", "x"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
}

TEST_F(CommandTest, RequirePass) {
  server_->config().requirepass = "secret";
  server_->acl().SetRequirePass("secret");  // what CONFIG SET and start-up do
  client_->authenticated = false;
  EXPECT_EQ(Run({"ping"}), Err("NOAUTH Authentication required."));
  EXPECT_EQ(Run({"auth", "wrong"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"auth", "secret"}), kOk);
  EXPECT_EQ(Run({"ping"}), "+PONG\r\n");
}

TEST_F(CommandTest, HelloSwitchesProtocol) {
  std::string r = Run({"hello", "3"});
  EXPECT_EQ(r.substr(0, 4), "%7\r\n");
  EXPECT_EQ(client_->resp, 3);
  EXPECT_EQ(Run({"hello", "4"}), Err("NOPROTO unsupported protocol version"));
  EXPECT_EQ(Run({"hello", "x"}), Err("ERR Protocol version is not an integer or out of range"));
  EXPECT_EQ(Run({"hello", "3", "foo"}), Err("ERR Syntax error in HELLO option 'foo'"));
}

}  // namespace
}  // namespace vireo
