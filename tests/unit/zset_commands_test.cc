// Sorted set commands in-process: replies and errors as Valkey gives them, both encodings.
#include <string>
#include <vector>

#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

class ZSetCommandsTest : public CommandTest {
 protected:
  // "*N\r\n" then each item as a bulk string.
  static std::string Bulks(const std::vector<std::string>& items) {
    std::string out = "*" + std::to_string(items.size()) + "\r\n";
    for (const auto& s : items) out += Bulk(s);
    return out;
  }
  std::string Encoding(const std::string& key) { return Run({"object", "encoding", key}); }
  void UseSkipList() { Run({"config", "set", "zset-max-listpack-entries", "0"}); }
};

constexpr const char* kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";

TEST_F(ZSetCommandsTest, ZAddOptionsAndErrors) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b"}), Int(2));
  EXPECT_EQ(Run({"zadd", "z", "ch", "1", "a", "3", "b", "4", "c"}), Int(2));
  EXPECT_EQ(Run({"zadd", "z", "nx", "9", "a"}), Int(0));
  EXPECT_EQ(Run({"zadd", "z", "xx", "9", "zz"}), Int(0));
  EXPECT_EQ(Run({"zadd", "z", "gt", "ch", "0", "a", "10", "b"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "lt", "ch", "0", "a", "20", "b"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "incr", "2.5", "a"}), Bulk("2.5"));
  EXPECT_EQ(Run({"zadd", "z", "nx", "incr", "1", "a"}), kNil);
  EXPECT_EQ(Run({"zadd", "z", "xx", "incr", "1", "nosuch"}), kNil);
  EXPECT_EQ(Run({"zadd", "z", "nx", "xx", "1", "a"}),
            Err("ERR XX and NX options at the same time are not compatible"));
  EXPECT_EQ(Run({"zadd", "z", "gt", "lt", "1", "a"}),
            Err("ERR GT, LT, and/or NX options at the same time are not compatible"));
  EXPECT_EQ(Run({"zadd", "z", "nx", "gt", "1", "a"}),
            Err("ERR GT, LT, and/or NX options at the same time are not compatible"));
  EXPECT_EQ(Run({"zadd", "z", "incr", "1", "a", "2", "b"}),
            Err("ERR INCR option supports a single increment-element pair"));
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zadd", "z", "nan", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "x", "b"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zadd", "z", "1"}), Err("ERR wrong number of arguments for 'zadd' command"));
  EXPECT_EQ(Run({"zadd", "z", "inf", "i"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "incr", "-inf", "i"}),
            Err("ERR resulting score is not a number (NaN)"));
  EXPECT_EQ(Run({"zincrby", "z", "-inf", "i"}), Err("ERR resulting score is not a number (NaN)"));
  EXPECT_EQ(Run({"zincrby", "z", "abc", "i"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zincrby", "new", "1.5", "m"}), Bulk("1.5"));
  EXPECT_EQ(Run({"zadd", "nokey", "xx", "1", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "nokey"}), Int(0));
}

TEST_F(ZSetCommandsTest, ScoresPrintLikeValkey) {
  Run({"zadd", "z", "0.1", "a", "-0", "b", "1e17", "c", "inf", "d", "-inf", "e", "3", "f"});
  EXPECT_EQ(Run({"zscore", "z", "a"}), Bulk("0.1"));  // Valkey 8, not "%.17g"
  EXPECT_EQ(Run({"zscore", "z", "b"}), Bulk("0"));    // a listpack stores -0 as the integer 0
  EXPECT_EQ(Run({"zscore", "z", "c"}), Bulk("100000000000000000"));
  EXPECT_EQ(Run({"zscore", "z", "d"}), Bulk("inf"));
  EXPECT_EQ(Run({"zscore", "z", "e"}), Bulk("-inf"));
  EXPECT_EQ(Run({"zscore", "z", "f"}), Bulk("3"));
  EXPECT_EQ(Run({"zscore", "z", "nosuch"}), kNil);
  EXPECT_EQ(Run({"zmscore", "z", "f", "nosuch"}), "*2\r\n" + Bulk("3") + kNil);
  EXPECT_EQ(Run({"zmscore", "nokey", "a"}), std::string("*1\r\n") + kNil);
  UseSkipList();
  Run({"zadd", "s", "-0", "b"});
  EXPECT_EQ(Run({"zscore", "s", "b"}), Bulk("-0"));
  Run({"hello", "3"});
  EXPECT_EQ(Run({"zscore", "z", "a"}), ",0.1\r\n");
  EXPECT_EQ(Run({"zscore", "z", "d"}), ",inf\r\n");
}

TEST_F(ZSetCommandsTest, ListPackConvertsAtTheExactBoundaries) {
  Run({"config", "set", "zset-max-listpack-entries", "3"});
  Run({"config", "set", "zset-max-listpack-value", "5"});
  Run({"zadd", "z", "1", "a", "2", "b", "3", "c"});
  EXPECT_EQ(Encoding("z"), Bulk("listpack"));
  Run({"zadd", "z", "4", "d"});
  EXPECT_EQ(Encoding("z"), Bulk("skiplist"));
  Run({"zadd", "v", "1", "12345"});
  EXPECT_EQ(Encoding("v"), Bulk("listpack"));
  Run({"zadd", "v", "1", "123456"});
  EXPECT_EQ(Encoding("v"), Bulk("skiplist"));
  Run({"zadd", "w", "1", "123456"});
  EXPECT_EQ(Encoding("w"), Bulk("skiplist"));
  // Store results pick the encoding that fits.
  EXPECT_EQ(Run({"zrangestore", "d", "z", "0", "2"}), Int(3));
  EXPECT_EQ(Encoding("d"), Bulk("listpack"));
  EXPECT_EQ(Run({"zunionstore", "d", "1", "z"}), Int(4));
  EXPECT_EQ(Encoding("d"), Bulk("skiplist"));
  EXPECT_EQ(Run({"zinterstore", "d", "2", "z", "z"}), Int(4));
  EXPECT_EQ(Encoding("d"), Bulk("skiplist"));
  EXPECT_EQ(Run({"zdiffstore", "d", "2", "z", "v"}), Int(4));
  Run({"zrem", "d", "a"});
  EXPECT_EQ(Encoding("d"), Bulk("skiplist"));  // never converts back on removal
}

TEST_F(ZSetCommandsTest, WrongTypeEverywhere) {
  Run({"set", "s", "x"});
  const std::vector<std::vector<std::string>> cmds = {
      {"zadd", "s", "1", "a"},
      {"zincrby", "s", "1", "a"},
      {"zrem", "s", "a"},
      {"zcard", "s"},
      {"zscore", "s", "a"},
      {"zmscore", "s", "a"},
      {"zrank", "s", "a"},
      {"zrevrank", "s", "a"},
      {"zcount", "s", "0", "1"},
      {"zlexcount", "s", "-", "+"},
      {"zrange", "s", "0", "1"},
      {"zrangestore", "d", "s", "0", "1"},
      {"zrangebyscore", "s", "0", "1"},
      {"zrevrangebyscore", "s", "1", "0"},
      {"zrangebylex", "s", "-", "+"},
      {"zrevrangebylex", "s", "+", "-"},
      {"zrevrange", "s", "0", "1"},
      {"zremrangebyrank", "s", "0", "1"},
      {"zremrangebyscore", "s", "0", "1"},
      {"zremrangebylex", "s", "-", "+"},
      {"zpopmin", "s"},
      {"zpopmax", "s", "0"},
      {"bzpopmin", "s", "0"},
      {"bzpopmax", "nokey", "s", "0"},
      {"zmpop", "1", "s", "min"},
      {"bzmpop", "0", "2", "nokey", "s", "max"},
      {"zrandmember", "s"},
      {"zrandmember", "s", "2"},
      {"zunion", "1", "s"},
      {"zinter", "2", "nokey", "s"},
      {"zdiff", "2", "nokey", "s"},
      {"zunionstore", "d", "1", "s"},
      {"zinterstore", "d", "1", "s"},
      {"zdiffstore", "d", "1", "s"},
      {"zintercard", "1", "s"},
      {"zscan", "s", "0"},
  };
  for (const auto& c : cmds) EXPECT_EQ(Run(c), kWrongType) << c[0];
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
}

TEST_F(ZSetCommandsTest, RangesByRankScoreAndLex) {
  Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d"});
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Bulks({"a", "b", "c", "d"}));
  EXPECT_EQ(Run({"zrange", "z", "-2", "100", "withscores"}), Bulks({"c", "3", "d", "4"}));
  EXPECT_EQ(Run({"zrange", "z", "2", "1"}), "*0\r\n");
  EXPECT_EQ(Run({"zrevrange", "z", "0", "1"}), Bulks({"d", "c"}));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "rev"}), Bulks({"d", "c"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "(1", "3"}), Bulks({"b", "c"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "-inf", "+inf", "limit", "1", "2"}), Bulks({"b", "c"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "-inf", "+inf", "limit", "-1", "2"}), "*0\r\n");
  EXPECT_EQ(Run({"zrangebyscore", "z", "-inf", "+inf", "limit", "3", "-1"}), Bulks({"d"}));
  EXPECT_EQ(Run({"zrevrangebyscore", "z", "3", "(1", "withscores"}), Bulks({"c", "3", "b", "2"}));
  EXPECT_EQ(Run({"zrange", "z", "(4", "2", "byscore", "rev", "limit", "1", "1"}), Bulks({"b"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "( 2", "0x3"}), Bulks({"c"}));  // strtod syntax
  EXPECT_EQ(Run({"zrangebyscore", "z", "3", "1"}), "*0\r\n");
  EXPECT_EQ(Run({"zcount", "z", "(1", "(4"}), Int(2));
  EXPECT_EQ(Run({"zcount", "z", "2", "2"}), Int(1));
  EXPECT_EQ(Run({"zcount", "z", "(2", "2"}), Int(0));
  EXPECT_EQ(Run({"zcount", "z", "a", "2"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(Run({"zrangebyscore", "z", "nan", "2"}), Err("ERR min or max is not a float"));
  Run({"zadd", "l", "0", "a", "0", "b", "0", "c", "0", "d"});
  EXPECT_EQ(Run({"zrangebylex", "l", "[b", "(d"}), Bulks({"b", "c"}));
  EXPECT_EQ(Run({"zrangebylex", "l", "-", "+", "limit", "1", "2"}), Bulks({"b", "c"}));
  EXPECT_EQ(Run({"zrevrangebylex", "l", "+", "(b"}), Bulks({"d", "c"}));
  EXPECT_EQ(Run({"zrange", "l", "[c", "-", "bylex", "rev"}), Bulks({"c", "b", "a"}));
  EXPECT_EQ(Run({"zrangebylex", "l", "+", "-"}), "*0\r\n");
  EXPECT_EQ(Run({"zlexcount", "l", "(a", "[c"}), Int(2));
  EXPECT_EQ(Run({"zlexcount", "l", "a", "[c"}), Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"zrangebylex", "l", "-x", "+"}),
            Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"zrange", "l", "-", "+", "bylex", "withscores"}),
            Err("ERR syntax error, WITHSCORES not supported in combination with BYLEX"));
  EXPECT_EQ(Run({"zrange", "l", "0", "1", "limit", "0", "1"}),
            Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE "
                "or BYLEX"));
  EXPECT_EQ(Run({"zrange", "l", "0", "1", "limit", "0", "-1"}), Bulks({"a", "b"}));
  EXPECT_EQ(Run({"zrange", "l", "0", "1", "bylex", "byscore"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrangebyscore", "l", "0", "1", "rev"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrange", "l", "0", "1.5"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zrange", "nokey", "0", "1"}), "*0\r\n");
}

TEST_F(ZSetCommandsTest, RangesAgreeInBothEncodings) {
  std::vector<std::string> replies[2];
  for (int enc = 0; enc < 2; ++enc) {
    Run({"flushall"});
    if (enc == 1) UseSkipList();
    std::vector<std::string> add = {"zadd", "z"};
    for (int i = 0; i < 300; ++i) {
      add.push_back(std::to_string(i % 7));
      add.push_back("m" + std::to_string(i));
    }
    Run(add);
    EXPECT_EQ(Encoding("z"), Bulk("skiplist"));  // converted on the way, or created so
    for (const auto& c : std::vector<std::vector<std::string>>{
             {"zrange", "z", "10", "20", "withscores"},
             {"zrange", "z", "-30", "-20", "rev"},
             {"zrangebyscore", "z", "(2", "4", "limit", "5", "7"},
             {"zrevrangebyscore", "z", "4", "(2", "limit", "5", "7", "withscores"},
             {"zcount", "z", "1", "(3"},
             {"zrank", "z", "m100"},
             {"zrevrank", "z", "m100", "withscore"},
             {"zremrangebyscore", "z", "6", "6"},
             {"zremrangebyrank", "z", "0", "9"},
             {"zcard", "z"},
             {"zpopmin", "z", "3"},
             {"zpopmax", "z"},
             {"zrange", "z", "0", "-1", "withscores"}}) {
      replies[enc].push_back(Run(c));
    }
  }
  EXPECT_EQ(replies[0], replies[1]);
  // Small listpack versus skiplist too.
  for (int enc = 0; enc < 2; ++enc) {
    Run({"flushall"});
    Run({"config", "set", "zset-max-listpack-entries", enc == 0 ? "128" : "0"});
    Run({"zadd", "z", "3", "c", "1", "a", "2", "b", "2", "bb", "5", "e"});
    EXPECT_EQ(Encoding("z"), Bulk(enc == 0 ? "listpack" : "skiplist"));
    replies[enc].clear();
    for (const auto& c : std::vector<std::vector<std::string>>{
             {"zrange", "z", "0", "-1", "withscores"},
             {"zrangebyscore", "z", "2", "+inf", "limit", "1", "2"},
             {"zrank", "z", "bb"},
             {"zrevrank", "z", "bb"},
             {"zremrangebyrank", "z", "-1", "-1"},
             {"zrange", "z", "0", "-1"}}) {
      replies[enc].push_back(Run(c));
    }
  }
  EXPECT_EQ(replies[0], replies[1]);
}

TEST_F(ZSetCommandsTest, RankWithScore) {
  Run({"zadd", "z", "1", "a", "2.5", "b"});
  EXPECT_EQ(Run({"zrank", "z", "b"}), Int(1));
  EXPECT_EQ(Run({"zrevrank", "z", "b"}), Int(0));
  EXPECT_EQ(Run({"zrank", "z", "b", "withscore"}), "*2\r\n:1\r\n" + Bulk("2.5"));
  EXPECT_EQ(Run({"zrank", "z", "x", "withscore"}), "*-1\r\n");
  EXPECT_EQ(Run({"zrank", "z", "x"}), kNil);
  EXPECT_EQ(Run({"zrank", "z", "b", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrank", "z", "b", "withscore", "x"}),
            Err("ERR wrong number of arguments for 'zrank' command"));
}

TEST_F(ZSetCommandsTest, RemoveDeletesEmptyKeys) {
  Run({"zadd", "z", "1", "a", "2", "b"});
  EXPECT_EQ(Run({"zrem", "z", "a", "x"}), Int(1));
  EXPECT_EQ(Run({"zrem", "z", "b"}), Int(1));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  Run({"zadd", "z", "1", "a", "2", "b", "3", "c"});
  EXPECT_EQ(Run({"zremrangebyrank", "z", "5", "10"}), Int(0));
  EXPECT_EQ(Run({"zremrangebyscore", "z", "(1", "2"}), Int(1));
  EXPECT_EQ(Run({"zremrangebylex", "z", "-", "+"}), Int(2));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  EXPECT_EQ(Run({"zremrangebyrank", "z", "a", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zremrangebyscore", "z", "a", "1"}), Err("ERR min or max is not a float"));
}

TEST_F(ZSetCommandsTest, PopsAndTheirReplyShapes) {
  Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d"});
  EXPECT_EQ(Run({"zpopmin", "z"}), Bulks({"a", "1"}));
  EXPECT_EQ(Run({"zpopmax", "z", "2"}), Bulks({"d", "4", "c", "3"}));
  EXPECT_EQ(Run({"zpopmin", "z", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"zpopmin", "z", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"zpopmin", "z", "1", "2"}), Err("ERR syntax error"));
  Run({"hello", "3"});
  Run({"zadd", "z", "5", "e"});
  EXPECT_EQ(Run({"zpopmin", "z"}), "*2\r\n" + Bulk("b") + ",2\r\n");
  EXPECT_EQ(Run({"zpopmin", "z", "1"}), "*1\r\n*2\r\n" + Bulk("e") + ",5\r\n");
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  EXPECT_EQ(Run({"zpopmin", "z"}), "*0\r\n");
  Run({"zadd", "m", "1", "a", "2", "b"});
  EXPECT_EQ(
      Run({"zmpop", "2", "nokey", "m", "max", "count", "5"}),
      "*2\r\n" + Bulk("m") + "*2\r\n*2\r\n" + Bulk("b") + ",2\r\n*2\r\n" + Bulk("a") + ",1\r\n");
  EXPECT_EQ(Run({"zmpop", "1", "m", "min"}), "_\r\n");
  Run({"hello", "2"});
  EXPECT_EQ(Run({"zmpop", "1", "m", "min"}), "*-1\r\n");
  EXPECT_EQ(Run({"zmpop", "0", "m", "min"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"zmpop", "2", "m", "min"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zmpop", "1", "m", "min", "count", "0"}),
            Err("ERR count should be greater than 0"));
  EXPECT_EQ(Run({"zmpop", "1", "m", "min", "count", "1", "count", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zmpop", "1", "m", "middle"}), Err("ERR syntax error"));
}

TEST_F(ZSetCommandsTest, BlockingPopsServeAtOnceWhenAKeyHasMembers) {
  Run({"zadd", "z", "1", "a", "2", "b"});
  EXPECT_EQ(Run({"bzpopmin", "nokey", "z", "0"}), Bulks({"z", "a", "1"}));
  EXPECT_EQ(Run({"bzpopmax", "z", "0"}), Bulks({"z", "b", "2"}));
  EXPECT_EQ(Run({"bzpopmin", "z", "abc"}), Err("ERR timeout is not a float or out of range"));
  EXPECT_EQ(Run({"bzpopmin", "z", "-1"}), Err("ERR timeout is negative"));
  EXPECT_EQ(Run({"bzmpop", "0", "0", "z", "min"}), Err("ERR numkeys should be greater than 0"));
  Run({"zadd", "z", "1", "a"});
  EXPECT_EQ(Run({"bzmpop", "0", "1", "z", "min"}),
            "*2\r\n" + Bulk("z") + "*1\r\n" + Bulks({"a", "1"}));
}

TEST_F(ZSetCommandsTest, RandMember) {
  Run({"zadd", "z", "1", "a", "2", "b", "3", "c"});
  EXPECT_EQ(Run({"zrandmember", "z", "10", "withscores"}), Bulks({"c", "3", "b", "2", "a", "1"}));
  EXPECT_EQ(Run({"zrandmember", "z", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"zrandmember", "nokey"}), kNil);
  EXPECT_EQ(Run({"zrandmember", "nokey", "3"}), "*0\r\n");
  EXPECT_EQ(Run({"zrandmember", "z", "-5"}).substr(0, 4), "*5\r\n");
  EXPECT_EQ(Run({"zrandmember", "z", "2"}).substr(0, 4), "*2\r\n");
  EXPECT_EQ(Run({"zrandmember", "z", "-9223372036854775808"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  EXPECT_EQ(Run({"zrandmember", "z", "4611686018427387904", "withscores"}),
            Err("ERR value is out of range"));
  EXPECT_EQ(Run({"zrandmember", "z", "1", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrandmember", "z", "x"}), Err("ERR value is not an integer or out of range"));
  UseSkipList();
  std::vector<std::string> add = {"zadd", "big"};
  for (int i = 0; i < 100; ++i) {
    add.push_back(std::to_string(i));
    add.push_back("m" + std::to_string(i));
  }
  Run(add);
  // Distinct picks: every one of 50 or 90 different (small and large sample paths).
  for (const char* n : {"50", "90"}) {
    std::string r = Run({"zrandmember", "big", n});
    EXPECT_EQ(r.substr(0, r.find("\r\n") + 2), std::string("*") + n + "\r\n");
    std::vector<std::string> seen;
    for (size_t p = r.find("$"); p != std::string::npos; p = r.find("$", p + 1)) {
      size_t a = r.find("\r\n", p) + 2;
      seen.push_back(r.substr(a, r.find("\r\n", a) - a));
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());
    EXPECT_EQ(seen.size(), std::stoul(n));
  }
}

TEST_F(ZSetCommandsTest, SetOperations) {
  Run({"zadd", "a", "1", "x", "2", "y", "3", "z"});
  Run({"zadd", "b", "10", "y", "20", "z", "30", "w"});
  Run({"sadd", "s", "x", "w"});
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "withscores"}),
            Bulks({"x", "1", "y", "12", "z", "23", "w", "30"}));
  EXPECT_EQ(Run({"zinter", "2", "a", "b", "weights", "2", "0.5", "withscores"}),
            Bulks({"y", "9", "z", "16"}));
  EXPECT_EQ(Run({"zinter", "2", "a", "b", "aggregate", "max", "withscores"}),
            Bulks({"y", "10", "z", "20"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "s", "aggregate", "min", "withscores"}),
            Bulks({"w", "1", "x", "1", "y", "2", "z", "3"}));
  EXPECT_EQ(Run({"zdiff", "2", "a", "b", "withscores"}), Bulks({"x", "1"}));
  EXPECT_EQ(Run({"zdiff", "3", "a", "nokey", "s"}), Bulks({"y", "z"}));
  EXPECT_EQ(Run({"zintercard", "2", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"zintercard", "2", "a", "b", "limit", "1"}), Int(1));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "weights", "inf", "-inf", "withscores"}),
            Bulks({"w", "-inf", "y", "0", "z", "0", "x", "inf"}));
  EXPECT_EQ(Run({"zunionstore", "d", "2", "a", "b"}), Int(4));
  EXPECT_EQ(Run({"zrange", "d", "0", "-1", "withscores"}),
            Bulks({"x", "1", "y", "12", "z", "23", "w", "30"}));
  EXPECT_EQ(Run({"zinterstore", "d", "2", "a", "nokey"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  Run({"set", "str", "v"});
  EXPECT_EQ(Run({"zunionstore", "str", "1", "a"}), Int(3));  // overwrites any type
  EXPECT_EQ(Run({"type", "str"}), "+zset\r\n");
  EXPECT_EQ(Run({"zunion", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zunion' command"));
  EXPECT_EQ(Run({"zinterstore", "d", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zinterstore' command"));
  EXPECT_EQ(Run({"zunion", "3", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "x", "a"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "weights", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "weights", "1", "x"}),
            Err("ERR weight value is not a float"));
  EXPECT_EQ(Run({"zunion", "1", "a", "aggregate", "avg"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zdiff", "1", "a", "weights", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunionstore", "d", "1", "a", "withscores"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zintercard", "1", "a", "limit", "-1"}), Err("ERR LIMIT can't be negative"));
}

TEST_F(ZSetCommandsTest, RangeStore) {
  Run({"zadd", "z", "1", "a", "2", "b", "3", "c"});
  EXPECT_EQ(Run({"zrangestore", "d", "z", "(1", "+inf", "byscore"}), Int(2));
  EXPECT_EQ(Run({"zrange", "d", "0", "-1", "withscores"}), Bulks({"b", "2", "c", "3"}));
  EXPECT_EQ(Run({"zrangestore", "d", "z", "0", "0", "rev"}), Int(1));
  EXPECT_EQ(Run({"zrange", "d", "0", "-1"}), Bulks({"c"}));
  EXPECT_EQ(Run({"zrangestore", "z", "z", "1", "1"}), Int(1));  // source and destination alike
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Bulks({"b"}));
  EXPECT_EQ(Run({"zrangestore", "d", "z", "5", "6"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  EXPECT_EQ(Run({"zrangestore", "d", "z", "0", "1", "withscores"}), Err("ERR syntax error"));
}

TEST_F(ZSetCommandsTest, ScanListPackAndSkipList) {
  Run({"zadd", "z", "1", "a", "2", "b", "1e17", "c"});
  EXPECT_EQ(Run({"zscan", "z", "0"}),
            "*2\r\n" + Bulk("0") + Bulks({"a", "1", "b", "2", "c", "100000000000000000"}));
  EXPECT_EQ(Run({"zscan", "z", "0", "match", "b*", "noscores"}),
            "*2\r\n" + Bulk("0") + Bulks({"b"}));
  EXPECT_EQ(Run({"zscan", "z", "0", "count", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zscan", "z", "x"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"zscan", "nokey", "0", "count", "0"}), "*2\r\n" + Bulk("0") + "*0\r\n");
  UseSkipList();
  std::vector<std::string> add = {"zadd", "big"};
  for (int i = 0; i < 500; ++i) {
    add.push_back(std::to_string(i));
    add.push_back("m" + std::to_string(i));
  }
  Run(add);
  size_t members = 0;
  std::string cursor = "0";
  do {
    std::string r = Run({"zscan", "big", cursor, "count", "20"});
    size_t a = r.find("\r\n", 4) + 2;  // cursor bulk: "*2\r\n$N\r\n<cursor>\r\n"
    cursor = r.substr(a, r.find("\r\n", a) - a);
    size_t items = std::stoul(r.substr(r.find('*', a) + 1));
    members += items / 2;
  } while (cursor != "0");
  EXPECT_GE(members, 500u);
}

TEST_F(ZSetCommandsTest, CopyRenameAndDigest) {
  for (const char* entries : {"128", "0"}) {
    Run({"flushall"});
    Run({"config", "set", "zset-max-listpack-entries", entries});
    Run({"zadd", "z", "1", "a", "2", "b"});
    EXPECT_EQ(Run({"copy", "z", "c"}), Int(1));
    Run({"zadd", "z", "3", "c"});
    EXPECT_EQ(Run({"zcard", "c"}), Int(2));
    EXPECT_EQ(Run({"rename", "c", "r"}), kOk);
    EXPECT_EQ(Run({"zrange", "r", "0", "-1"}), Bulks({"a", "b"}));
    Run({"zrem", "z", "c"});
    EXPECT_EQ(Run({"debug", "digest-value", "z"}), Run({"debug", "digest-value", "r"}));
  }
  // The digest sees content, not encoding.
  Run({"flushall"});
  Run({"config", "set", "zset-max-listpack-entries", "128"});
  Run({"zadd", "z", "1", "a", "2", "b"});
  std::string listpack = Run({"debug", "digest"});
  Run({"flushall"});
  UseSkipList();
  Run({"zadd", "z", "2", "b", "1", "a"});
  EXPECT_EQ(Run({"debug", "digest"}), listpack);
}

}  // namespace
}  // namespace vireo
