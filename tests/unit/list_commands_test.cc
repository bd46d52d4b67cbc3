// List commands in process: replies, errors, encodings and their conversions.
#include <string>
#include <vector>

#include "server/client.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

class ListCommandsTest : public CommandTest {
 protected:
  // "*n\r\n$..." for an array of bulk strings.
  static std::string Arr(const std::vector<std::string>& items) {
    std::string s = "*" + std::to_string(items.size()) + "\r\n";
    for (const std::string& i : items) s += Bulk(i);
    return s;
  }
  std::string Encoding(const std::string& key) { return Run({"object", "encoding", key}); }
  std::string Range(const std::string& key) { return Run({"lrange", key, "0", "-1"}); }
  static constexpr const char* kWrongType =
      "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
};

TEST_F(ListCommandsTest, PushOrderAndLength) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"lpush", "l", "x", "y"}), Int(4));
  EXPECT_EQ(Range("l"), Arr({"y", "x", "a", "b"}));
  EXPECT_EQ(Run({"llen", "l"}), Int(4));
  EXPECT_EQ(Run({"llen", "nosuch"}), Int(0));
  EXPECT_EQ(Run({"type", "l"}), "+list\r\n");
  EXPECT_EQ(Encoding("l"), Bulk("listpack"));
}

TEST_F(ListCommandsTest, PushXOnlyOnExistingLists) {
  EXPECT_EQ(Run({"lpushx", "l", "a"}), Int(0));
  EXPECT_EQ(Run({"rpushx", "l", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
  Run({"rpush", "l", "m"});
  EXPECT_EQ(Run({"lpushx", "l", "a", "b"}), Int(3));
  EXPECT_EQ(Run({"rpushx", "l", "z"}), Int(4));
  EXPECT_EQ(Range("l"), Arr({"b", "a", "m", "z"}));
}

TEST_F(ListCommandsTest, IntegersComeBackAsText) {
  Run({"rpush", "l", "12", "-7", "9223372036854775807", "007", "1.5"});
  EXPECT_EQ(Range("l"), Arr({"12", "-7", "9223372036854775807", "007", "1.5"}));
  EXPECT_EQ(Run({"lindex", "l", "2"}), Bulk("9223372036854775807"));
  EXPECT_EQ(Run({"lpos", "l", "007"}), Int(3));
  EXPECT_EQ(Run({"lpos", "l", "7"}), kNil);
}

TEST_F(ListCommandsTest, WrongTypeEverywhere) {
  Run({"set", "s", "v"});
  const std::vector<std::vector<std::string>> cmds = {
      {"lpush", "s", "a"},
      {"rpush", "s", "a"},
      {"lpushx", "s", "a"},
      {"rpushx", "s", "a"},
      {"lpop", "s"},
      {"rpop", "s", "2"},
      {"llen", "s"},
      {"lrange", "s", "0", "-1"},
      {"lindex", "s", "0"},
      {"lset", "s", "0", "a"},
      {"linsert", "s", "before", "a", "b"},
      {"lrem", "s", "0", "a"},
      {"ltrim", "s", "0", "1"},
      {"lpos", "s", "a"},
      {"lmove", "s", "d", "left", "right"},
      {"rpoplpush", "s", "d"},
      {"lmpop", "1", "s", "left"},
      {"blpop", "s", "0"},
      {"brpop", "s", "0"},
      {"blmove", "s", "d", "left", "left", "0"},
      {"brpoplpush", "s", "d", "0"},
      {"blmpop", "0", "1", "s", "right"},
  };
  for (const auto& c : cmds) EXPECT_EQ(Run(c), kWrongType) << c[0];
  // A destination of the wrong type, with a list source.
  Run({"rpush", "l", "a"});
  EXPECT_EQ(Run({"lmove", "l", "s", "left", "right"}), kWrongType);
  EXPECT_EQ(Run({"rpoplpush", "l", "s"}), kWrongType);
  EXPECT_EQ(Run({"blmove", "l", "s", "left", "right", "0"}), kWrongType);
  EXPECT_EQ(Range("l"), Arr({"a"}));  // nothing moved
}

TEST_F(ListCommandsTest, PopSingleAndCount) {
  EXPECT_EQ(Run({"lpop", "l"}), kNil);
  EXPECT_EQ(Run({"lpop", "l", "2"}), "*-1\r\n");
  EXPECT_EQ(Run({"lpop", "l", "0"}), "*-1\r\n");
  Run({"rpush", "l", "a", "b", "c", "d", "e"});
  EXPECT_EQ(Run({"lpop", "l"}), Bulk("a"));
  EXPECT_EQ(Run({"rpop", "l"}), Bulk("e"));
  EXPECT_EQ(Run({"lpop", "l", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"rpop", "l", "2"}), Arr({"d", "c"}));
  EXPECT_EQ(Run({"lpop", "l", "10"}), Arr({"b"}));
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
}

TEST_F(ListCommandsTest, PopErrors) {
  Run({"rpush", "l", "a"});
  const std::string positive = Err("ERR value is out of range, must be positive");
  EXPECT_EQ(Run({"lpop", "l", "-1"}), positive);
  EXPECT_EQ(Run({"rpop", "l", "abc"}), positive);
  EXPECT_EQ(Run({"lpop", "nosuch", "-1"}), positive);  // the count is checked first
  EXPECT_EQ(Run({"lpop", "l", "1", "2"}), Err("ERR wrong number of arguments for 'lpop' command"));
  EXPECT_EQ(Run({"rpop"}), Err("ERR wrong number of arguments for 'rpop' command"));
}

TEST_F(ListCommandsTest, Resp3Nulls) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"lpop", "l"}), "_\r\n");
  EXPECT_EQ(Run({"lpop", "l", "3"}), "_\r\n");
  EXPECT_EQ(Run({"lindex", "l", "0"}), "_\r\n");
  EXPECT_EQ(Run({"lmpop", "1", "l", "left"}), "_\r\n");
  EXPECT_EQ(Run({"lpos", "l", "x"}), "_\r\n");
  EXPECT_EQ(Run({"lpos", "l", "x", "count", "0"}), "*0\r\n");
}

TEST_F(ListCommandsTest, RangeAndIndex) {
  Run({"rpush", "l", "a", "b", "c", "d"});
  EXPECT_EQ(Run({"lrange", "l", "1", "2"}), Arr({"b", "c"}));
  EXPECT_EQ(Run({"lrange", "l", "-2", "100"}), Arr({"c", "d"}));
  EXPECT_EQ(Run({"lrange", "l", "-100", "0"}), Arr({"a"}));
  EXPECT_EQ(Run({"lrange", "l", "3", "1"}), "*0\r\n");
  EXPECT_EQ(Run({"lrange", "l", "4", "10"}), "*0\r\n");
  EXPECT_EQ(Run({"lrange", "nosuch", "0", "-1"}), "*0\r\n");
  EXPECT_EQ(Run({"lrange", "nosuch", "x", "-1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"lindex", "l", "-1"}), Bulk("d"));
  EXPECT_EQ(Run({"lindex", "l", "4"}), kNil);
  EXPECT_EQ(Run({"lindex", "l", "-5"}), kNil);
  EXPECT_EQ(Run({"lindex", "l", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"lindex", "nosuch", "x"}), kNil);  // the key is looked up first
}

TEST_F(ListCommandsTest, Set) {
  EXPECT_EQ(Run({"lset", "l", "0", "x"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"lset", "l", "abc", "x"}), Err("ERR no such key"));
  Run({"rpush", "l", "a", "b", "c"});
  EXPECT_EQ(Run({"lset", "l", "1", "B"}), kOk);
  EXPECT_EQ(Run({"lset", "l", "-1", "C"}), kOk);
  EXPECT_EQ(Run({"lset", "l", "3", "x"}), Err("ERR index out of range"));
  EXPECT_EQ(Run({"lset", "l", "-4", "x"}), Err("ERR index out of range"));
  EXPECT_EQ(Run({"lset", "l", "x", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Range("l"), Arr({"a", "B", "C"}));
}

TEST_F(ListCommandsTest, Insert) {
  EXPECT_EQ(Run({"linsert", "l", "before", "a", "x"}), Int(0));
  EXPECT_EQ(Run({"linsert", "l", "middle", "a", "x"}), Err("ERR syntax error"));
  Run({"rpush", "l", "a", "b", "a"});
  EXPECT_EQ(Run({"linsert", "l", "BEFORE", "a", "x"}), Int(4));
  EXPECT_EQ(Run({"linsert", "l", "After", "b", "y"}), Int(5));
  EXPECT_EQ(Run({"linsert", "l", "after", "zz", "y"}), Int(-1));
  EXPECT_EQ(Range("l"), Arr({"x", "a", "b", "y", "a"}));
}

TEST_F(ListCommandsTest, Rem) {
  Run({"rpush", "l", "a", "b", "a", "c", "a", "b"});
  EXPECT_EQ(Run({"lrem", "l", "-1", "a"}), Int(1));
  EXPECT_EQ(Range("l"), Arr({"a", "b", "a", "c", "b"}));
  EXPECT_EQ(Run({"lrem", "l", "1", "b"}), Int(1));
  EXPECT_EQ(Run({"lrem", "l", "0", "a"}), Int(2));
  EXPECT_EQ(Range("l"), Arr({"c", "b"}));
  EXPECT_EQ(Run({"lrem", "l", "0", "zz"}), Int(0));
  EXPECT_EQ(Run({"lrem", "l", "x", "a"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"lrem", "l", "-9223372036854775808", "a"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  EXPECT_EQ(Run({"lrem", "l", "0", "c"}), Int(1));
  EXPECT_EQ(Run({"lrem", "l", "0", "b"}), Int(1));
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
}

TEST_F(ListCommandsTest, Trim) {
  EXPECT_EQ(Run({"ltrim", "l", "0", "1"}), kOk);
  Run({"rpush", "l", "a", "b", "c", "d", "e"});
  EXPECT_EQ(Run({"ltrim", "l", "1", "-2"}), kOk);
  EXPECT_EQ(Range("l"), Arr({"b", "c", "d"}));
  EXPECT_EQ(Run({"ltrim", "l", "-100", "100"}), kOk);
  EXPECT_EQ(Range("l"), Arr({"b", "c", "d"}));
  EXPECT_EQ(Run({"ltrim", "l", "x", "1"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"ltrim", "l", "2", "1"}), kOk);
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
}

TEST_F(ListCommandsTest, Pos) {
  Run({"rpush", "l", "a", "b", "c", "1", "2", "3", "c", "c"});
  EXPECT_EQ(Run({"lpos", "l", "c"}), Int(2));
  EXPECT_EQ(Run({"lpos", "l", "c", "rank", "2"}), Int(6));
  EXPECT_EQ(Run({"lpos", "l", "c", "rank", "-1"}), Int(7));
  EXPECT_EQ(Run({"lpos", "l", "c", "rank", "-3"}), Int(2));
  EXPECT_EQ(Run({"lpos", "l", "c", "rank", "4"}), kNil);
  EXPECT_EQ(Run({"lpos", "l", "c", "count", "0"}), "*3\r\n:2\r\n:6\r\n:7\r\n");
  EXPECT_EQ(Run({"lpos", "l", "c", "count", "2", "rank", "-1"}), "*2\r\n:7\r\n:6\r\n");
  EXPECT_EQ(Run({"lpos", "l", "c", "count", "0", "maxlen", "7"}), "*2\r\n:2\r\n:6\r\n");
  EXPECT_EQ(Run({"lpos", "l", "c", "maxlen", "2"}), kNil);
  EXPECT_EQ(Run({"lpos", "l", "2"}), Int(4));
  EXPECT_EQ(Run({"lpos", "l", "z", "count", "1"}), "*0\r\n");
  EXPECT_EQ(Run({"lpos", "l", "c", "rank", "0"}),
            Err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                "second ... or use negative to start from the end of the list"));
  EXPECT_EQ(Run({"lpos", "l", "c", "count", "-1"}), Err("ERR COUNT can't be negative"));
  EXPECT_EQ(Run({"lpos", "l", "c", "count", "x"}), Err("ERR COUNT can't be negative"));
  EXPECT_EQ(Run({"lpos", "l", "c", "maxlen", "-1"}), Err("ERR MAXLEN can't be negative"));
  EXPECT_EQ(Run({"lpos", "l", "c", "rank", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"lpos", "l", "c", "rank"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lpos", "l", "c", "foo", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lpos", "nosuch", "c", "rank", "0"}),
            Err("ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                "second ... or use negative to start from the end of the list"));
}

TEST_F(ListCommandsTest, MoveBetweenAndWithinLists) {
  EXPECT_EQ(Run({"lmove", "src", "dst", "left", "right"}), kNil);
  EXPECT_EQ(Run({"lmove", "src", "dst", "up", "right"}), Err("ERR syntax error"));
  Run({"rpush", "src", "a", "b", "c"});
  EXPECT_EQ(Run({"lmove", "src", "dst", "left", "right"}), Bulk("a"));
  EXPECT_EQ(Run({"lmove", "src", "dst", "RIGHT", "LEFT"}), Bulk("c"));
  EXPECT_EQ(Range("dst"), Arr({"c", "a"}));
  EXPECT_EQ(Run({"rpoplpush", "src", "dst"}), Bulk("b"));
  EXPECT_EQ(Run({"exists", "src"}), Int(0));
  // Rotation of one list, down to a single element (the key must survive).
  EXPECT_EQ(Run({"rpoplpush", "dst", "dst"}), Bulk("a"));
  EXPECT_EQ(Range("dst"), Arr({"a", "b", "c"}));
  Run({"rpush", "one", "x"});
  EXPECT_EQ(Run({"lmove", "one", "one", "left", "right"}), Bulk("x"));
  EXPECT_EQ(Range("one"), Arr({"x"}));
  Run({"rpush", "n", "12345"});
  EXPECT_EQ(Run({"lmove", "n", "dst", "left", "left"}), Bulk("12345"));
  EXPECT_EQ(Run({"lindex", "dst", "0"}), Bulk("12345"));
}

TEST_F(ListCommandsTest, MPop) {
  EXPECT_EQ(Run({"lmpop", "2", "a", "b", "left"}), "*-1\r\n");
  Run({"rpush", "b", "1", "2", "3"});
  EXPECT_EQ(Run({"lmpop", "2", "a", "b", "left"}), "*2\r\n" + Bulk("b") + Arr({"1"}));
  EXPECT_EQ(Run({"lmpop", "2", "a", "b", "right", "count", "5"}),
            "*2\r\n" + Bulk("b") + Arr({"3", "2"}));
  EXPECT_EQ(Run({"exists", "b"}), Int(0));
  const std::string numkeys = Err("ERR numkeys should be greater than 0");
  EXPECT_EQ(Run({"lmpop", "0", "a", "left"}), numkeys);
  EXPECT_EQ(Run({"lmpop", "-1", "a", "left"}), numkeys);
  EXPECT_EQ(Run({"lmpop", "x", "a", "left"}), numkeys);
  EXPECT_EQ(Run({"lmpop", "2", "a", "left"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmpop", "9223372036854775807", "a", "left"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmpop", "1", "a", "up"}), Err("ERR syntax error"));
  const std::string count = Err("ERR count should be greater than 0");
  EXPECT_EQ(Run({"lmpop", "1", "a", "left", "count", "0"}), count);
  EXPECT_EQ(Run({"lmpop", "1", "a", "left", "count", "x"}), count);
  EXPECT_EQ(Run({"lmpop", "1", "a", "left", "count", "1", "count", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmpop", "1", "a", "left", "count"}), Err("ERR syntax error"));
}

TEST_F(ListCommandsTest, BlockingCommandsServeAtOnceWhenTheyCan) {
  Run({"rpush", "b", "1", "2", "3"});
  EXPECT_EQ(Run({"blpop", "a", "b", "0"}), Arr({"b", "1"}));
  EXPECT_EQ(Run({"brpop", "a", "b", "0.5"}), Arr({"b", "3"}));
  EXPECT_EQ(Run({"blmove", "b", "c", "left", "left", "0"}), Bulk("2"));
  EXPECT_EQ(Run({"brpoplpush", "c", "d", "0"}), Bulk("2"));
  Run({"rpush", "e", "x", "y"});
  EXPECT_EQ(Run({"blmpop", "0", "2", "a", "e", "left", "count", "2"}),
            "*2\r\n" + Bulk("e") + Arr({"x", "y"}));
}

TEST_F(ListCommandsTest, BlockingCommandsAnswerNullWhenTheyMayNotBlock) {
  client_->flags |= kClientDenyBlocking;  // as inside MULTI or a script
  EXPECT_EQ(Run({"blpop", "a", "0"}), "*-1\r\n");
  EXPECT_EQ(Run({"brpop", "a", "b", "1"}), "*-1\r\n");
  EXPECT_EQ(Run({"blmpop", "0", "1", "a", "left"}), "*-1\r\n");
  EXPECT_EQ(Run({"blmove", "a", "b", "left", "left", "0"}), kNil);
  EXPECT_EQ(Run({"brpoplpush", "a", "b", "0"}), kNil);
}

TEST_F(ListCommandsTest, BlockingArgumentErrors) {
  EXPECT_EQ(Run({"blpop", "a", "-1"}), Err("ERR timeout is negative"));
  EXPECT_EQ(Run({"blpop", "a", "abc"}), Err("ERR timeout is not a float or out of range"));
  EXPECT_EQ(Run({"brpoplpush", "a", "b", "nan"}),
            Err("ERR timeout is not a float or out of range"));
  EXPECT_EQ(Run({"blmove", "a", "b", "up", "left", "x"}), Err("ERR syntax error"));
  // BLMPOP checks numkeys, the direction and COUNT before the timeout.
  EXPECT_EQ(Run({"blmpop", "x", "0", "a", "left"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"blmpop", "x", "1", "a", "left"}),
            Err("ERR timeout is not a float or out of range"));
  EXPECT_EQ(Run({"blmpop", "-1", "1", "a", "left", "count", "0"}),
            Err("ERR count should be greater than 0"));
}

// ---------------------------------------------------------------------------------------------
// Encodings

TEST_F(ListCommandsTest, CountLimitConvertsAtTheBoundaryAndBackAtHalf) {
  Run({"config", "set", "list-max-listpack-size", "4"});
  Run({"rpush", "l", "1", "2", "3", "4"});
  EXPECT_EQ(Encoding("l"), Bulk("listpack"));
  Run({"rpush", "l", "5"});
  EXPECT_EQ(Encoding("l"), Bulk("quicklist"));
  Run({"rpop", "l"});  // 4 left, one node, but above half the limit
  EXPECT_EQ(Encoding("l"), Bulk("quicklist"));
  Run({"rpop", "l"});
  EXPECT_EQ(Encoding("l"), Bulk("quicklist"));
  Run({"rpop", "l"});  // 2 = half of 4
  EXPECT_EQ(Encoding("l"), Bulk("listpack"));
  EXPECT_EQ(Range("l"), Arr({"1", "2"}));
  // A batch that would cross the limit converts before it is pushed.
  Run({"rpush", "m", "1", "2", "3", "4", "5"});
  EXPECT_EQ(Encoding("m"), Bulk("quicklist"));
}

TEST_F(ListCommandsTest, SizeLimitCountsElementBytes) {
  // -2: 8 KB. The check adds the new strings' lengths to the listpack's current size (7 bytes
  // when empty), as Valkey does.
  EXPECT_EQ(Run({"rpush", "a", std::string(8185, 'x')}), Int(1));
  EXPECT_EQ(Encoding("a"), Bulk("listpack"));
  EXPECT_EQ(Run({"rpush", "b", std::string(8186, 'x')}), Int(1));
  EXPECT_EQ(Encoding("b"), Bulk("quicklist"));
  // Shrinking back needs one node of at most 4 KB.
  Run({"rpush", "b", "small"});
  Run({"lpop", "b"});
  EXPECT_EQ(Encoding("b"), Bulk("listpack"));
  Run({"config", "set", "list-max-listpack-size", "-1"});
  Run({"rpush", "c", std::string(4000, 'x')});
  Run({"rpush", "c", std::string(100, 'y')});
  EXPECT_EQ(Encoding("c"), Bulk("quicklist"));
  Run({"lset", "c", "0", "z"});  // still two nodes
  EXPECT_EQ(Encoding("c"), Bulk("quicklist"));
  Run({"rpop", "c"});  // one node of a few bytes: under half of 4 KB
  EXPECT_EQ(Encoding("c"), Bulk("listpack"));
  EXPECT_EQ(Range("c"), Arr({"z"}));
}

TEST_F(ListCommandsTest, ConfigChangesApplyToNewWrites) {
  Run({"rpush", "l", "1", "2", "3"});
  Run({"config", "set", "list-max-listpack-size", "2"});
  EXPECT_EQ(Encoding("l"), Bulk("listpack"));
  Run({"lpush", "l", "0"});
  EXPECT_EQ(Encoding("l"), Bulk("quicklist"));
  // LINSERT converts as if it will insert, even when the pivot is missing (as Valkey).
  Run({"config", "set", "list-max-listpack-size", "3"});
  Run({"rpush", "m", "1", "2", "3"});
  EXPECT_EQ(Run({"linsert", "m", "before", "nosuch", "x"}), Int(-1));
  EXPECT_EQ(Encoding("m"), Bulk("quicklist"));
}

TEST_F(ListCommandsTest, LargeListsWorkAcrossNodes) {
  Run({"config", "set", "list-max-listpack-size", "5"});
  std::vector<std::string> cmd = {"rpush", "l"};
  for (int i = 0; i < 100; ++i) cmd.push_back("element:" + std::to_string(i));
  EXPECT_EQ(Run(cmd), Int(100));
  EXPECT_EQ(Encoding("l"), Bulk("quicklist"));
  EXPECT_EQ(Run({"lindex", "l", "57"}), Bulk("element:57"));
  EXPECT_EQ(Run({"lrange", "l", "48", "51"}),
            Arr({"element:48", "element:49", "element:50", "element:51"}));
  EXPECT_EQ(Run({"lpos", "l", "element:77"}), Int(77));
  EXPECT_EQ(Run({"lpos", "l", "element:77", "rank", "-1"}), Int(77));
  EXPECT_EQ(Run({"lset", "l", "50", "fifty"}), kOk);
  EXPECT_EQ(Run({"linsert", "l", "after", "fifty", "fifty-one"}), Int(101));
  EXPECT_EQ(Run({"lrem", "l", "0", "element:10"}), Int(1));
  EXPECT_EQ(Run({"ltrim", "l", "40", "59"}), kOk);
  EXPECT_EQ(Run({"llen", "l"}), Int(20));
  EXPECT_EQ(Run({"lindex", "l", "9"}), Bulk("fifty"));
  EXPECT_EQ(Run({"lindex", "l", "10"}), Bulk("fifty-one"));
  EXPECT_EQ(Run({"lpop", "l", "3"}), Arr({"element:41", "element:42", "element:43"}));
  EXPECT_EQ(Run({"rpop", "l", "2"}), Arr({"element:59", "element:58"}));
}

TEST_F(ListCommandsTest, CopyRenameAndDigestAcrossEncodings) {
  Run({"config", "set", "list-max-listpack-size", "3"});
  Run({"rpush", "q", "a", "b", "c", "d", "e", "f", "g"});
  Run({"config", "set", "list-max-listpack-size", "128"});
  Run({"rpush", "p", "a", "b", "c", "d", "e", "f", "g"});
  EXPECT_EQ(Encoding("q"), Bulk("quicklist"));
  EXPECT_EQ(Encoding("p"), Bulk("listpack"));
  EXPECT_EQ(Run({"debug", "digest-value", "q"}), Run({"debug", "digest-value", "p"}));
  EXPECT_EQ(Run({"copy", "q", "q2"}), Int(1));
  EXPECT_EQ(Encoding("q2"), Bulk("quicklist"));
  Run({"rpop", "q"});
  EXPECT_EQ(Run({"llen", "q2"}), Int(7));
  EXPECT_EQ(Run({"rename", "q2", "q3"}), kOk);
  EXPECT_EQ(Range("q3"), Range("p"));
  EXPECT_EQ(Run({"del", "q3", "p"}), Int(2));
}

}  // namespace
}  // namespace vireo
