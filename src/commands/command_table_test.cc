#include "commands/command_table.h"

#include <gtest/gtest.h>

namespace vireo {
namespace {

CommandTable Table() {
  CommandTable t;
  for (const char* name : {"get", "set", "config", "flushall"}) {
    CommandSpec s;
    s.name = name;
    t.Add(std::move(s));
  }
  return t;
}

TEST(CommandTableRename, NewNameFindsTheCommandOldNameIsGone) {
  CommandTable t = Table();
  const CommandSpec* get = t.Find("get");
  ASSERT_NE(get, nullptr);
  EXPECT_EQ(t.Rename("GET", "g2"), "");
  EXPECT_EQ(t.Find("G2"), get);
  EXPECT_EQ(t.Find("get"), nullptr);
  EXPECT_EQ(t.FindOriginal("get"), get);  // ACL rules still name it "get"
  EXPECT_EQ(get->name, "get");            // and COMMAND shows its own name
  EXPECT_EQ(t.Size(), 4u);
  EXPECT_NE(t.Find("set"), nullptr);
}

TEST(CommandTableRename, EmptyNameDisablesAndUncounts) {
  CommandTable t = Table();
  EXPECT_EQ(t.Rename("flushall", ""), "");
  EXPECT_EQ(t.Find("flushall"), nullptr);
  EXPECT_EQ(t.Size(), 3u);
  // Once gone, it cannot be renamed again.
  EXPECT_EQ(t.Rename("flushall", "x"), "No such command in rename-command");
}

TEST(CommandTableRename, ErrorsAndChains) {
  CommandTable t = Table();
  EXPECT_EQ(t.Rename("nosuch", "x"), "No such command in rename-command");
  EXPECT_EQ(t.Rename("get", "set"), "Target command name already exists");
  EXPECT_EQ(t.Rename("get", "get"), "");  // to itself: still there
  const CommandSpec* get = t.FindOriginal("get");
  EXPECT_EQ(t.Find("get"), get);
  // A renamed command renamed again answers only to its latest name; a name given up can
  // be taken by another command.
  EXPECT_EQ(t.Rename("get", "g2"), "");
  EXPECT_EQ(t.Rename("g2", "g3"), "");
  EXPECT_EQ(t.Find("g2"), nullptr);
  EXPECT_EQ(t.Find("g3"), get);
  EXPECT_EQ(t.Rename("set", "get"), "");
  EXPECT_EQ(t.Find("get"), t.FindOriginal("set"));
}

}  // namespace
}  // namespace vireo
