#include "commands/key_finders.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace vireo {
namespace {

// The keys FindMovableKeys picks out of a space-separated command, or "error".
std::string Keys(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  std::vector<std::string_view> args(words.begin(), words.end());
  std::vector<int> pos;
  if (!FindMovableKeys(words[0], args, &pos)) return "error";
  std::string out;
  for (int p : pos) out += (out.empty() ? "" : " ") + words[static_cast<size_t>(p)];
  return out;
}

// Expected values are redis-server 7.0's COMMAND GETKEYS answers.
TEST(KeyFindersTest, NumKeysCommands) {
  EXPECT_EQ(Keys("lmpop 2 a b left"), "a b");
  EXPECT_EQ(Keys("blmpop 0 2 a b left"), "a b");
  EXPECT_EQ(Keys("zdiff 1 a"), "a");
  EXPECT_EQ(Keys("sintercard 2 a b limit 1"), "a b");
  EXPECT_EQ(Keys("zunionstore d 2 a b weights 1 2"), "d a b");
  EXPECT_EQ(Keys("lmpop 5 a b left"), "error");
  EXPECT_EQ(Keys("lmpop 0 a left"), "error");
  EXPECT_EQ(Keys("lmpop x a left"), "error");
  EXPECT_EQ(Keys("eval s 0"), "");
  EXPECT_EQ(Keys("eval s 2 k1 k2 arg"), "k1 k2");
}

TEST(KeyFindersTest, StreamsSortAndGeo) {
  EXPECT_EQ(Keys("xread count 2 streams a b 0 0"), "a b");
  EXPECT_EQ(Keys("xread streams a b 0"), "a");
  EXPECT_EQ(Keys("xreadgroup group g c streams a 0"), "a");
  EXPECT_EQ(Keys("xread count 2"), "error");
  EXPECT_EQ(Keys("sort k by x store d"), "k d");
  EXPECT_EQ(Keys("sort k store d get # store e"), "k e");
  EXPECT_EQ(Keys("sort k get store"), "k");  // a GET pattern named "store"
  EXPECT_EQ(Keys("sort_ro k by x"), "k");
  EXPECT_EQ(Keys("georadius k 0 0 1 km store d"), "k d");
  EXPECT_EQ(Keys("get k"), "");  // no finder: nothing added
}

}  // namespace
}  // namespace vireo
