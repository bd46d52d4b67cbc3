#include "acl/user.h"

#include <gtest/gtest.h>

#include "acl/acl_log.h"
#include "acl/acl_store.h"
#include "acl/password.h"
#include "acl/permission.h"
#include "commands/command_table.h"

namespace vireo {
namespace {

class AclUserTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterAllCommands(); }
  // db: the database the command runs in (16 databases).
  AclVerdict Check(const User& u, std::vector<std::string_view> args, int db = 0) {
    const CommandSpec* spec = Commands().Resolve(args);
    EXPECT_NE(spec, nullptr);
    return CheckCommandPermission(u, *spec, args, AclDbs{db, 16});
  }
};

TEST_F(AclUserTest, DefaultUser) {
  User d = MakeDefaultUser();
  EXPECT_EQ(d.Describe(), "on nopass sanitize-payload ~* &* +@all");
  EXPECT_TRUE(d.unrestricted());
  EXPECT_TRUE(d.CheckPassword("anything"));
}

TEST_F(AclUserTest, PasswordsAreHashed) {
  User u("bob", false);
  EXPECT_EQ(u.Apply(">pw", false), AclRuleError::kNone);
  EXPECT_EQ(u.password_hashes(), std::vector<std::string>{HashPassword("pw")});
  EXPECT_TRUE(u.CheckPassword("pw"));
  EXPECT_FALSE(u.CheckPassword("px"));
  EXPECT_EQ(u.Apply(">pw", false), AclRuleError::kNone);  // no duplicate
  EXPECT_EQ(u.password_hashes().size(), 1u);
  EXPECT_EQ(u.Apply("<nope", false), AclRuleError::kNoSuchPassword);
  EXPECT_EQ(u.Apply("#abc", false), AclRuleError::kBadHash);
  EXPECT_EQ(u.Apply("#" + HashPassword("two"), false), AclRuleError::kNone);
  EXPECT_TRUE(u.CheckPassword("two"));
  EXPECT_EQ(u.Apply("!" + HashPassword("two"), false), AclRuleError::kNone);
  EXPECT_FALSE(u.CheckPassword("two"));
  EXPECT_EQ(u.Apply("nopass", false), AclRuleError::kNone);
  EXPECT_TRUE(u.CheckPassword("x"));
  EXPECT_TRUE(u.password_hashes().empty());
  EXPECT_EQ(u.Apply("resetpass", false), AclRuleError::kNone);
  EXPECT_FALSE(u.CheckPassword("x"));
}

TEST_F(AclUserTest, DescribeAsValkey8) {
  User u("bob", false);
  for (auto r : {"on", ">pw", "~k*", "&ch*", "+@string", "-set"}) {
    EXPECT_EQ(u.Apply(r, false), AclRuleError::kNone);
  }
  EXPECT_EQ(u.Describe(), "on sanitize-payload #" + HashPassword("pw") +
                              " ~k* resetchannels &ch* -@all +@string -set");
  EXPECT_EQ(u.Apply("(~x* +set)", false), AclRuleError::kNone);
  EXPECT_EQ(u.Describe(),
            "on sanitize-payload #" + HashPassword("pw") +
                " ~k* resetchannels &ch* -@all +@string -set (~x* resetchannels -@all +set)");
  EXPECT_EQ(u.Apply("(+nosuch)", false), AclRuleError::kUnknownCommand);
  EXPECT_EQ(u.Apply("clearselectors", false), AclRuleError::kNone);
  EXPECT_EQ(u.selectors().size(), 1u);
  EXPECT_EQ(u.Apply("reset", false), AclRuleError::kNone);
  EXPECT_EQ(u.Describe(), "off sanitize-payload resetchannels -@all");
}

TEST_F(AclUserTest, MergeSelectorArgs) {
  std::vector<std::string> out;
  std::string err;
  ASSERT_TRUE(MergeSelectorArgs({"on", "(~a", "+get)", "(&x)"}, &out, &err));
  EXPECT_EQ(out, (std::vector<std::string>{"on", "(~a +get)", "(&x)"}));
  ASSERT_TRUE(MergeSelectorArgs({"(~a", "-set", "(~b", "&x", ")"}, &out, &err));
  EXPECT_EQ(out, (std::vector<std::string>{"(~b &x )"}));
  EXPECT_FALSE(MergeSelectorArgs({"(foo", "bar"}, &out, &err));
  EXPECT_EQ(err, "Unmatched parenthesis in acl selector starting at '(foo'.");
}

TEST_F(AclUserTest, PermissionChecks) {
  User u("u", false);
  for (auto r : {"on", "~k*", "%R~r*", "%W~w*", "&ch", "+get", "+set", "+lmove", "+publish",
                 "+psubscribe", "+exists", "+del"}) {
    ASSERT_EQ(u.Apply(r, false), AclRuleError::kNone) << r;
  }
  EXPECT_EQ(Check(u, {"get", "k1"}).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"get", "r1"}).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"get", "w1"}).denial, AclDenial::kKey);
  EXPECT_EQ(Check(u, {"set", "w1", "v"}).denial, AclDenial::kNone);  // no GET: write only
  EXPECT_EQ(Check(u, {"set", "w1", "v", "get"}).denial, AclDenial::kKey);
  EXPECT_EQ(Check(u, {"set", "r1", "v"}).denial, AclDenial::kKey);
  EXPECT_EQ(Check(u, {"exists", "w1"}).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"del", "w1"}).denial, AclDenial::kNone);
  // LMOVE reads and writes its source, only writes its destination.
  EXPECT_EQ(Check(u, {"lmove", "k1", "w1", "left", "right"}).denial, AclDenial::kNone);
  AclVerdict v = Check(u, {"lmove", "w1", "k1", "left", "right"});
  EXPECT_EQ(v.denial, AclDenial::kKey);
  EXPECT_EQ(v.arg, 1);
  EXPECT_EQ(Check(u, {"incr", "k1"}).denial, AclDenial::kCommand);
  EXPECT_EQ(Check(u, {"auth", "x"}).denial, AclDenial::kNone);  // no-auth commands pass
  EXPECT_EQ(Check(u, {"publish", "ch", "m"}).denial, AclDenial::kNone);
  v = Check(u, {"publish", "other", "m"});
  EXPECT_EQ(v.denial, AclDenial::kChannel);
  EXPECT_EQ(v.arg, 1);
  EXPECT_EQ(Check(u, {"psubscribe", "c*"}).denial, AclDenial::kChannel);
  const CommandSpec& get = *Commands().Find("get");
  EXPECT_EQ(AclDenialText({AclDenial::kCommand, 0}, u, get, {"get", "x"}, false),
            "User u has no permissions to run the 'get' command");
  EXPECT_EQ(AclDenialText({AclDenial::kKey, 1}, u, get, {"get", "x"}, false),
            "No permissions to access a key");
  EXPECT_EQ(AclDenialText({AclDenial::kKey, 1}, u, get, {"get", "x"}, true),
            "User u has no permissions to access the 'x' key");
  EXPECT_EQ(AclDenialText({AclDenial::kChannel, 1}, u, get, {"get", "x"}, false),
            "No permissions to access a channel");
  EXPECT_EQ(AclDenialText({AclDenial::kChannel, 1}, u, get, {"get", "x"}, true),
            "User u has no permissions to access the 'x' channel");
}

TEST_F(AclUserTest, SelectorsChooseTheMostTellingRefusal) {
  User u("u", false);
  for (auto r : {"on", "~a*", "+get", "(~b* +set)"})
    ASSERT_EQ(u.Apply(r, false), AclRuleError::kNone);
  EXPECT_EQ(Check(u, {"get", "a1"}).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"set", "b1", "v"}).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"set", "a1", "v"}).denial, AclDenial::kKey);  // key beats command
  EXPECT_EQ(Check(u, {"incr", "a1"}).denial, AclDenial::kCommand);
}

TEST_F(AclUserTest, DatabaseRulesCheckTheCurrentAndNamedDatabases) {
  User u("u", false);
  for (auto r : {"on", "~*", "&*", "+@all", "db=0,1"}) {
    ASSERT_EQ(u.Apply(r, false), AclRuleError::kNone) << r;
  }
  EXPECT_FALSE(u.unrestricted());  // the command path must check this user
  EXPECT_EQ(Check(u, {"get", "k"}, 1).denial, AclDenial::kNone);
  AclVerdict v = Check(u, {"GET", "k"}, 2);
  EXPECT_EQ(v.denial, AclDenial::kDatabase);
  EXPECT_EQ(v.arg, 0);
  // Commands without keys and outside @keyspace/@read/@write run anywhere.
  EXPECT_EQ(Check(u, {"ping"}, 5).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"watch", "k"}, 5).denial, AclDenial::kDatabase);  // keys, @transaction
  EXPECT_EQ(Check(u, {"flushdb"}, 5).denial, AclDenial::kDatabase);
  EXPECT_EQ(Check(u, {"flushdb"}, 0).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"dbsize"}, 5).denial, AclDenial::kDatabase);
  // SELECT from a database the user may not use, to one it may.
  EXPECT_EQ(Check(u, {"select", "1"}, 5).denial, AclDenial::kNone);
  v = Check(u, {"select", "2"}, 0);
  EXPECT_EQ(v.denial, AclDenial::kDatabase);
  EXPECT_EQ(v.arg, 1);
  // An id that is not a database is the command's own error, not a refusal.
  EXPECT_EQ(Check(u, {"select", "16"}, 0).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"select", "x"}, 0).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"swapdb", "0", "1"}).denial, AclDenial::kNone);
  v = Check(u, {"swapdb", "0", "2"});
  EXPECT_EQ(v.denial, AclDenial::kDatabase);
  EXPECT_EQ(v.arg, 2);
  EXPECT_EQ(Check(u, {"swapdb", "3", "0"}).arg, 1);
  EXPECT_EQ(Check(u, {"move", "k", "1"}).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"move", "k", "2"}).arg, 2);
  EXPECT_EQ(Check(u, {"move", "k", "0"}, 3).denial, AclDenial::kDatabase);  // the source
  EXPECT_EQ(Check(u, {"copy", "a", "b", "db", "1", "replace"}).denial, AclDenial::kNone);
  v = Check(u, {"copy", "a", "b", "REPLACE", "DB", "2"});
  EXPECT_EQ(v.denial, AclDenial::kDatabase);
  EXPECT_EQ(v.arg, 5);
  EXPECT_EQ(Check(u, {"copy", "a", "b"}, 2).denial, AclDenial::kDatabase);
  // Every database at once needs alldbs.
  EXPECT_EQ(Check(u, {"flushall"}).denial, AclDenial::kDatabase);
  EXPECT_EQ(Check(u, {"cluster", "migrateslots", "slotsrange", "0", "1", "node", "x"}).denial,
            AclDenial::kDatabase);
  EXPECT_EQ(u.Apply("alldbs", false), AclRuleError::kNone);
  EXPECT_EQ(Check(u, {"flushall"}).denial, AclDenial::kNone);
  EXPECT_TRUE(u.unrestricted());

  const CommandSpec& select = *Commands().Find("select");
  EXPECT_EQ(AclDenialText({AclDenial::kDatabase, 1}, u, select, {"select", "3"}, false),
            "No permissions to access database");
  EXPECT_EQ(AclDenialText({AclDenial::kDatabase, 1}, u, select, {"select", "3"}, true),
            "User u has no permissions to access database 3");
  EXPECT_STREQ(AclDenialReason(AclDenial::kDatabase), "database");
  EXPECT_EQ(AclDenialObject({AclDenial::kDatabase, 0}, select, {"SELECT", "3"}), "SELECT");
}

TEST_F(AclUserTest, DatabaseRefusalIsTheLeastTelling) {
  // Root: every database but no command; the selector: the command but not database 5.
  User u("u", false);
  for (auto r : {"on", "(~* +@all db=0)"}) ASSERT_EQ(u.Apply(r, false), AclRuleError::kNone);
  EXPECT_EQ(Check(u, {"get", "k"}, 0).denial, AclDenial::kNone);
  EXPECT_EQ(Check(u, {"get", "k"}, 5).denial, AclDenial::kCommand);
  EXPECT_EQ(Check(u, {"select", "5"}, 0).denial, AclDenial::kCommand);
  // Alone, a selector's database refusal comes before its command and key checks.
  User w("w", false);
  for (auto r : {"on", "~a*", "+get", "resetdbs"})
    ASSERT_EQ(w.Apply(r, false), AclRuleError::kNone);
  EXPECT_EQ(Check(w, {"set", "b", "v"}, 0).denial, AclDenial::kDatabase);
  EXPECT_EQ(Check(w, {"ping"}, 0).denial, AclDenial::kCommand);
  EXPECT_EQ(SelectTarget(*Commands().Find("select"), {"select", "3"}, 16), 3);
  EXPECT_EQ(SelectTarget(*Commands().Find("select"), {"select", "16"}, 16), -1);
  EXPECT_EQ(SelectTarget(*Commands().Find("get"), {"get", "3"}, 16), -1);
}

TEST_F(AclUserTest, StoreSetUserIsAllOrNothing) {
  AclStore store;
  EXPECT_EQ(store.SetUser("bob", {"on", ">pw"}), "");
  EXPECT_EQ(store.SetUser("bob", {"off", "+nosuch"}),
            "Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL");
  EXPECT_TRUE(store.Find("bob")->enabled());
  EXPECT_EQ(store.SetUser("a b", {"on"}), "Usernames can't contain spaces or null characters");
  EXPECT_EQ(store.SetUser("x", {"(~a"}),
            "Unmatched parenthesis in acl selector starting at '(~a'.");
  EXPECT_EQ(store.Find("x"), nullptr);
  EXPECT_FALSE(store.DeleteUser("default"));
  EXPECT_TRUE(store.DeleteUser("bob"));
  EXPECT_FALSE(store.DeleteUser("bob"));
}

TEST_F(AclUserTest, StoreRequirePassAndFile) {
  AclStore store;
  store.SetRequirePass("secret");
  EXPECT_FALSE(store.default_user()->nopass());
  EXPECT_TRUE(store.default_user()->CheckPassword("secret"));
  store.SetRequirePass("");
  EXPECT_TRUE(store.default_user()->nopass());
  ASSERT_EQ(store.SetUser("zed", {"on", ">x", "(~a +get)"}), "");
  std::string text = store.Serialize();
  EXPECT_EQ(text,
            "user default on nopass sanitize-payload ~* &* +@all\nuser zed on "
            "sanitize-payload #" +
                HashPassword("x") + " resetchannels -@all (~a resetchannels -@all +get)\n");
  const User* def = store.default_user().get();
  AclStore other;
  std::string err;
  ASSERT_TRUE(other.Load(text, "f.acl", &err)) << err;
  EXPECT_EQ(other.Serialize(), text);
  ASSERT_TRUE(store.Load("user alice on nopass\n", "f.acl", &err)) << err;
  EXPECT_EQ(store.default_user().get(), def);  // the default user object stays
  EXPECT_EQ(store.Find("zed"), nullptr);
  EXPECT_NE(store.Find("alice"), nullptr);
  EXPECT_FALSE(store.Load("user bob on +nosuch\nfoo bar\n", "f.acl", &err));
  EXPECT_EQ(err,
            "f.acl:1: Error in applying operation '+nosuch': Unknown command or category name "
            "in ACL. f.acl:2 should start with user keyword followed by the username. WARNING: "
            "ACL errors detected, no change to the previously active ACL rules was performed");
  EXPECT_FALSE(store.Load("user bob on\nuser bob off\n", "f.acl", &err));
  EXPECT_EQ(err.rfind("WARNING: Duplicate user 'bob' found on line 2. ", 0), 0u) << err;
  EXPECT_NE(store.Find("alice"), nullptr);
}

TEST(AclLogTest, GroupsSimilarEntries) {
  AclLog log;
  AclLogEntry e{.reason = "key", .context = "toplevel", .object = "x", .username = "u"};
  log.Add(e, 1000, 128);
  AclLogEntry other = e;
  other.object = "y";
  log.Add(other, 2000, 128);
  log.Add(e, 3000, 128);
  ASSERT_EQ(log.entries().size(), 2u);
  EXPECT_EQ(log.entries()[0].object, "x");
  EXPECT_EQ(log.entries()[0].count, 2u);
  EXPECT_EQ(log.entries()[0].created_ms, 1000);
  EXPECT_EQ(log.entries()[0].updated_ms, 3000);
  log.Add(e, 3000 + 61000, 128);  // more than 60 s later: a new entry
  EXPECT_EQ(log.entries().size(), 3u);
  log.Trim(1);
  EXPECT_EQ(log.entries().size(), 1u);
  log.Reset();
  EXPECT_TRUE(log.entries().empty());
}

}  // namespace
}  // namespace vireo
