#include "acl/selector.h"

#include <gtest/gtest.h>

#include "acl/permission.h"
#include "acl/user.h"
#include "commands/command_table.h"

namespace vireo {
namespace {

class AclSelectorTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterAllCommands(); }
  const CommandSpec& Spec(std::string_view name) {
    const CommandSpec* s = Commands().Find(name);
    EXPECT_NE(s, nullptr) << name;
    return *s;
  }
  const CommandSpec& Sub(std::string_view name, std::string_view sub) {
    return *Spec(name).FindSubcommand(sub);
  }
};

TEST_F(AclSelectorTest, NewSelectorAllowsNothing) {
  Selector s;
  EXPECT_FALSE(s.AllowsCommand(Spec("get"), {"get", "k"}));
  EXPECT_FALSE(s.AllowsKey("k", kAclPermRead));
  EXPECT_FALSE(s.AllowsChannel("c", false));
  EXPECT_EQ(s.Describe(), "resetchannels -@all");
  EXPECT_FALSE(s.Unrestricted());
}

TEST_F(AclSelectorTest, AllCommandsKeysChannelsIsUnrestricted) {
  Selector s;
  for (auto r : {"+@all", "~*", "&*"}) EXPECT_EQ(s.Apply(r), AclRuleError::kNone);
  EXPECT_TRUE(s.Unrestricted());
  EXPECT_EQ(s.Describe(), "~* &* +@all");
  EXPECT_EQ(s.Apply("-get"), AclRuleError::kNone);
  EXPECT_FALSE(s.Unrestricted());
  EXPECT_EQ(s.Apply("+get"), AclRuleError::kNone);
  EXPECT_TRUE(s.Unrestricted());
  EXPECT_EQ(s.DescribeCommands(), "+@all +get");  // "+get" replaced "-get", as in Valkey 8
}

TEST_F(AclSelectorTest, CategoriesAndSingleCommands) {
  Selector s;
  for (auto r : {"+get", "+@string", "-set", "+config|get", "+client|id", "+select|0"}) {
    EXPECT_EQ(s.Apply(r), AclRuleError::kNone) << r;
  }
  EXPECT_TRUE(s.AllowsCommand(Spec("get"), {"get", "k"}));
  EXPECT_TRUE(s.AllowsCommand(Spec("append"), {"append", "k", "v"}));
  EXPECT_FALSE(s.AllowsCommand(Spec("set"), {"set", "k", "v"}));
  EXPECT_TRUE(s.AllowsCommand(Sub("config", "get"), {"config", "get", "x"}));
  EXPECT_FALSE(s.AllowsCommand(Sub("config", "set"), {"config", "set", "x", "y"}));
  EXPECT_TRUE(s.AllowsCommand(Spec("select"), {"select", "0"}));
  EXPECT_FALSE(s.AllowsCommand(Spec("select"), {"select", "1"}));
  // The rules as written (Valkey 8), not rebuilt from the bitmap as Redis 7.0 does.
  EXPECT_EQ(s.DescribeCommands(), "-@all +get +@string -set +config|get +client|id +select|0");
}

TEST_F(AclSelectorTest, DescriptionKeepsRulesAsWritten) {
  Selector s;
  for (auto r : {"+@all", "-@dangerous", "+flushdb"}) EXPECT_EQ(s.Apply(r), AclRuleError::kNone);
  EXPECT_EQ(s.DescribeCommands(), "+@all -@dangerous +flushdb");
  Selector t;
  // A rule replaces an earlier one about the same command or category, or about the
  // command's subcommands and first arguments; lowercased; "+@all"/"-@all" start afresh.
  for (auto r : {"+@set", "+@hash", "-@geo", "+SET", "+Get", "-@hash", "+@HASH", "+config|get",
                 "+config|set", "-config|GET", "+select|0", "+debug|object", "-debug"}) {
    EXPECT_EQ(t.Apply(r), AclRuleError::kNone) << r;
  }
  EXPECT_EQ(t.DescribeCommands(),
            "-@all +@set -@geo +set +get +@hash +config|set -config|get +select|0 -debug");
  EXPECT_EQ(t.Apply("-config"), AclRuleError::kNone);
  EXPECT_EQ(t.Apply("+@read"), AclRuleError::kNone);
  EXPECT_EQ(t.Apply("-@read"), AclRuleError::kNone);
  EXPECT_EQ(t.DescribeCommands(),
            "-@all +@set -@geo +set +get +@hash +select|0 -debug -config "
            "-@read");
  EXPECT_EQ(t.Apply("nocommands"), AclRuleError::kNone);
  EXPECT_EQ(t.DescribeCommands(), "-@all");
  EXPECT_EQ(t.Apply("+@all"), AclRuleError::kNone);
  EXPECT_EQ(t.Apply("-@set"), AclRuleError::kNone);
  EXPECT_EQ(t.Apply("+@set"), AclRuleError::kNone);
  EXPECT_EQ(t.DescribeCommands(), "+@all +@set");
}

TEST_F(AclSelectorTest, ContainerCategoryCoversSubcommands) {
  Selector s;
  EXPECT_EQ(s.Apply("+@slow"), AclRuleError::kNone);
  EXPECT_TRUE(s.AllowsCommand(Sub("client", "kill"), {"client", "kill", "x"}));
  Selector t;
  EXPECT_EQ(t.Apply("+client"), AclRuleError::kNone);
  EXPECT_EQ(t.DescribeCommands(), "-@all +client");
}

TEST_F(AclSelectorTest, RuleErrors) {
  Selector s;
  EXPECT_EQ(s.Apply("bogus"), AclRuleError::kSyntax);
  EXPECT_EQ(s.Apply("+nosuch"), AclRuleError::kUnknownCommand);
  EXPECT_EQ(s.Apply("+@nosuch"), AclRuleError::kUnknownCommand);
  EXPECT_EQ(s.Apply("%X~a"), AclRuleError::kSyntax);
  EXPECT_EQ(s.Apply("%~a"), AclRuleError::kSyntax);
  EXPECT_EQ(s.Apply("%R"), AclRuleError::kSyntax);
  EXPECT_EQ(s.Apply("-get|x"), AclRuleError::kUnknownCommand);
  EXPECT_EQ(s.Apply("+select|0|1"), AclRuleError::kUnknownCommand);
  EXPECT_EQ(s.Apply("+client|id|x"), AclRuleError::kSubcommandFirstArg);
  EXPECT_EQ(s.Apply("+debug|"), AclRuleError::kSyntax);
  EXPECT_EQ(s.Apply("allkeys"), AclRuleError::kNone);
  EXPECT_EQ(s.Apply("~b"), AclRuleError::kKeysAfterAll);
  EXPECT_EQ(s.Apply("allkeys"), AclRuleError::kNone);
  EXPECT_EQ(s.Apply("allchannels"), AclRuleError::kNone);
  EXPECT_EQ(s.Apply("&b"), AclRuleError::kChannelsAfterAll);
  EXPECT_STREQ(AclRuleErrorText(AclRuleError::kUnknownCommand),
               "Unknown command or category name in ACL");
}

TEST_F(AclSelectorTest, KeyPatternsWithPermissions) {
  Selector s;
  for (auto r : {"~k*", "%R~r*", "%W~w*", "%RW~b", "%R~k*"}) {
    EXPECT_EQ(s.Apply(r), AclRuleError::kNone) << r;
  }
  EXPECT_EQ(s.DescribeKeys(), "~k* %R~r* %W~w* ~b");
  EXPECT_TRUE(s.AllowsKey("k1", kAclPermRead | kAclPermWrite));
  EXPECT_TRUE(s.AllowsKey("r1", kAclPermRead));
  EXPECT_FALSE(s.AllowsKey("r1", kAclPermWrite));
  EXPECT_TRUE(s.AllowsKey("w1", kAclPermWrite));
  EXPECT_FALSE(s.AllowsKey("w1", kAclPermRead | kAclPermWrite));
  EXPECT_TRUE(s.AllowsKey("w1", 0));  // EXISTS needs no permission, only a pattern
  EXPECT_FALSE(s.AllowsKey("x", 0));
  EXPECT_EQ(s.Apply("resetkeys"), AclRuleError::kNone);
  EXPECT_EQ(s.Apply("%RW~*"), AclRuleError::kNone);
  EXPECT_TRUE(s.all_keys());
  EXPECT_EQ(s.DescribeKeys(), "~*");
}

TEST_F(AclSelectorTest, ChannelPatterns) {
  Selector s;
  EXPECT_EQ(s.Apply("&ch*"), AclRuleError::kNone);
  EXPECT_TRUE(s.AllowsChannel("chat", false));
  EXPECT_FALSE(s.AllowsChannel("other", false));
  // A PSUBSCRIBE pattern must be one of the user's patterns, literally.
  EXPECT_TRUE(s.AllowsChannel("ch*", true));
  EXPECT_FALSE(s.AllowsChannel("c*", true));
  EXPECT_EQ(s.Describe(), "resetchannels &ch* -@all");
}

TEST_F(AclSelectorTest, DatabaseRules) {
  Selector s;
  EXPECT_TRUE(s.all_dbs());  // a new selector may use every database
  EXPECT_EQ(s.DescribeDbs(), "alldbs");
  EXPECT_EQ(s.Apply("db=3,0,0,1,3"), AclRuleError::kNone);
  EXPECT_FALSE(s.all_dbs());
  EXPECT_TRUE(s.AllowsDb(0));
  EXPECT_TRUE(s.AllowsDb(3));
  EXPECT_FALSE(s.AllowsDb(2));
  EXPECT_EQ(s.DescribeDbs(), "db=0,1,3");  // sorted, once each
  EXPECT_EQ(s.Describe(), "resetchannels db=0,1,3 -@all");
  EXPECT_EQ(s.Apply("DB=7"), AclRuleError::kNone);  // replaces the list
  EXPECT_EQ(s.DescribeDbs(), "db=7");
  EXPECT_FALSE(s.AllowsDb(0));
  EXPECT_EQ(s.Apply("resetdbs"), AclRuleError::kNone);
  EXPECT_FALSE(s.AllowsDb(7));
  EXPECT_EQ(s.Describe(), "resetchannels resetdbs -@all");
  EXPECT_EQ(s.Apply("alldbs"), AclRuleError::kNone);
  EXPECT_TRUE(s.AllowsDb(12345));
  EXPECT_EQ(s.Describe(), "resetchannels -@all");  // alldbs is left out
  EXPECT_EQ(s.Apply("db=2147483647"), AclRuleError::kNone);
}

TEST_F(AclSelectorTest, BadDatabaseRulesChangeNothing) {
  Selector s;
  ASSERT_EQ(s.Apply("db=1"), AclRuleError::kNone);
  for (auto r : {"db=", "db=abc", "db=,0,1", "db=0,1,", "db=0,,1", "db=1 ", "db=0x1",
                 "db=99999999999999999999"}) {
    EXPECT_EQ(s.Apply(r), AclRuleError::kSyntax) << r;
  }
  for (auto r : {"db=-1", "db=2147483648", "db=12345678987654321", "db=0,-1"}) {
    EXPECT_EQ(s.Apply(r), AclRuleError::kDbOutOfRange) << r;
  }
  EXPECT_EQ(s.DescribeDbs(), "db=1");
  EXPECT_STREQ(AclRuleErrorText(AclRuleError::kDbOutOfRange),
               "The provided database ID is out of range");
}

TEST_F(AclSelectorTest, UnrestrictedNeedsEveryDatabase) {
  Selector s;
  for (auto r : {"+@all", "~*", "&*", "db=0"}) EXPECT_EQ(s.Apply(r), AclRuleError::kNone);
  EXPECT_FALSE(s.Unrestricted());
  EXPECT_EQ(s.Apply("alldbs"), AclRuleError::kNone);
  EXPECT_TRUE(s.Unrestricted());
}

}  // namespace
}  // namespace vireo
