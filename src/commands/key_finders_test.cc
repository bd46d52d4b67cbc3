#include "commands/key_finders.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "commands/command_docs.h"

namespace vireo {
namespace {

// The keys of a space-separated command ('' is an empty argument) with their key-spec flags,
// as COMMAND GETKEYSANDFLAGS would list them: "k:RW,access,delete d:RW,insert"; "" when none.
std::string Keys(const std::string& line) {
  RegisterAllCommands();
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w == "''" ? "" : w);
  std::vector<std::string_view> args(words.begin(), words.end());
  const CommandSpec* spec = Commands().Resolve(args);
  EXPECT_NE(spec, nullptr) << line;
  if (spec == nullptr) return "?";
  std::vector<KeyRef> keys;
  int n = CommandKeys(*spec, args, &keys);
  EXPECT_EQ(n, static_cast<int>(keys.size())) << line;
  std::string out;
  for (const KeyRef& k : keys) {
    if (!out.empty()) out += " ";
    out += words[static_cast<size_t>(k.pos)] + ":";
    std::string flags;
    for (int i = 0; KeySpecFlagName(i) != nullptr; ++i) {
      if (!(k.flags & (1u << i))) continue;
      flags += (flags.empty() ? "" : ",") + std::string(KeySpecFlagName(i));
    }
    out += flags;
  }
  return out;
}

// Expected values are valkey-server 8.0.1's COMMAND GETKEYSANDFLAGS answers.
TEST(KeyFindersTest, KeySpecsGiveFlagsPerKey) {
  EXPECT_EQ(Keys("get k"), "k:RO,access");
  EXPECT_EQ(Keys("blmove a b left right 0"), "a:RW,access,delete b:RW,insert");
  EXPECT_EQ(Keys("copy a b"), "a:RO,access b:OW,update");
  EXPECT_EQ(Keys("del a b"), "a:RM,delete b:RM,delete");
  EXPECT_EQ(Keys("mset a 1 b 2"), "a:OW,update b:OW,update");
  EXPECT_EQ(Keys("exists a"), "a:RO");
  EXPECT_EQ(Keys("object encoding k"), "k:RO");
  EXPECT_EQ(Keys("zunionstore d 2 a b"), "d:OW,update a:RO,access b:RO,access");
  EXPECT_EQ(Keys("eval s 2 a b c"), "a:RW,access,update b:RW,access,update");
  EXPECT_EQ(Keys("blmpop 0 2 a b left"), "a:RW,access,delete b:RW,access,delete");
  EXPECT_EQ(Keys("xread count 2 streams a b 0 0"), "a:RO,access b:RO,access");
  EXPECT_EQ(Keys("georadius g 0 0 1 km store d"), "g:RO,access d:OW,update");
  EXPECT_EQ(Keys("migrate h 1 '' 0 10 keys a b"), "a:RW,access,delete b:RW,access,delete");
}

TEST(KeyFindersTest, OwnFindersWhereSpecsCannotTell) {
  // Variable flags: the arguments decide.
  EXPECT_EQ(Keys("set k v"), "k:OW,update");
  EXPECT_EQ(Keys("set k v get"), "k:RW,access,update");
  EXPECT_EQ(Keys("bitfield k get u8 0"), "k:RO,access");
  EXPECT_EQ(Keys("bitfield k incrby u8 0 1"), "k:RW,access,update");
  // Unknown (SORT's STORE) or incomplete (MIGRATE's KEYS) specs.
  EXPECT_EQ(Keys("sort k by x store d"), "k:RO,access d:OW,update");
  EXPECT_EQ(Keys("sort k store d get # store e"), "k:RO,access e:OW,update");
  EXPECT_EQ(Keys("sort k get store"), "k:RO,access");  // a GET pattern named "store"
  EXPECT_EQ(Keys("migrate h 1 k 0 10"), "k:RW,access,delete");
  // A count the spec cannot read: the finder reads it as atoi does, without flags, with the
  // destination last.
  EXPECT_EQ(Keys("zunionstore d 1abc a"), "a: d:");
  EXPECT_EQ(Keys("eval s 0"), "");
  EXPECT_EQ(Keys("lmpop 0 a left"), "");
  EXPECT_EQ(Keys("lmpop 5 a b left"), "");
  EXPECT_EQ(Keys("xread streams a b 0"), "a:RO,access");  // the spec: half, rounded down
  EXPECT_EQ(Keys("xread count 2"), "");
}

TEST(KeyFindersTest, ShardChannelsAreNotKeys) {
  EXPECT_EQ(Keys("spublish ch m"), "");
  EXPECT_FALSE(CommandHasKeys(*Commands().Find("spublish")));
  EXPECT_FALSE(CommandHasKeys(*Commands().Find("ping")));
  EXPECT_TRUE(CommandHasKeys(*Commands().Find("get")));
}

// Every registered command has its metadata, and the data is well formed.
TEST(CommandDocsTest, EveryCommandHasDocs) {
  RegisterAllCommands();
  for (const CommandSpec* c : Commands().All()) {
    EXPECT_NE(c->docs, nullptr) << c->name << ": add it to tools/command_docs_extra.json";
    for (const CommandSpec& s : c->subcommands) EXPECT_NE(s.docs, nullptr) << s.name;
  }
  for (size_t i = 0; i < kCommandDocsCount; ++i) {
    const CommandDocs& d = kCommandDocs[i];
    if (i > 0) {
      EXPECT_LT(std::string_view(kCommandDocs[i - 1].name), d.name);
    }
    EXPECT_EQ(FindCommandDocs(d.name), &d);
    EXPECT_EQ(d.docs[0], '%') << d.name;
  }
  EXPECT_EQ(FindCommandDocs("nosuch"), nullptr);
}

// The key specs match the legacy key positions COMMAND INFO shows where those exist.
TEST(CommandDocsTest, KeySpecsAgreeWithLegacyPositions) {
  RegisterAllCommands();
  auto check = [](const CommandSpec& c) {
    if (c.docs == nullptr || c.first_key <= 0 || (c.flags & kCmdPubSub)) return;
    ASSERT_GT(c.docs->key_specs_count, 0) << c.name;
    const KeySpec& first = c.docs->key_specs()[0];
    EXPECT_EQ(first.begin, KeySpec::kIndex) << c.name;
    EXPECT_EQ(first.pos, c.first_key) << c.name;
  };
  for (const CommandSpec* c : Commands().All()) {
    check(*c);
    for (const CommandSpec& s : c->subcommands) check(s);
  }
}

}  // namespace
}  // namespace vireo
