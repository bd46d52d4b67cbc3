// In-process tests of SORT and SORT_RO; expected replies were checked against redis-server 7.0.
#include <string>
#include <vector>

#include "store/value.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

constexpr const char* kSyntax = "-ERR syntax error\r\n";
constexpr const char* kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
constexpr const char* kBadScore = "-ERR One or more scores can't be converted into double\r\n";

class SortTest : public CommandTest {
 protected:
  // An array reply of bulk strings (nil shown as "(nil)").
  static std::string Arr(const std::vector<std::string>& items) {
    std::string s = "*" + std::to_string(items.size()) + "\r\n";
    for (const std::string& i : items) s += i == "(nil)" ? "$-1\r\n" : Bulk(i);
    return s;
  }
  std::string Enc(const std::string& key) {
    return EncodingName(server_->db(0)->Find(key)->encoding());
  }
  bool HaveZSets() { return Run({"zadd", "probe", "1", "a"}) == Int(1); }
};

TEST_F(SortTest, NumericAndAlpha) {
  Run({"rpush", "l", "3", "1", "2", "10", "-1.5"});
  EXPECT_EQ(Run({"sort", "l"}), Arr({"-1.5", "1", "2", "3", "10"}));
  EXPECT_EQ(Run({"sort", "l", "desc"}), Arr({"10", "3", "2", "1", "-1.5"}));
  EXPECT_EQ(Run({"sort", "l", "alpha"}), Arr({"-1.5", "1", "10", "2", "3"}));
  EXPECT_EQ(Run({"sort_ro", "l", "ALPHA", "DESC"}), Arr({"3", "2", "10", "1", "-1.5"}));
  EXPECT_EQ(Run({"sort", "nokey"}), "*0\r\n");
  Run({"rpush", "w", "", "1", "-1", " 2"});  // strtod: "" is 0, leading space is fine
  EXPECT_EQ(Run({"sort", "w"}), Arr({"-1", "", "1", " 2"}));
  Run({"rpush", "bad", "1", "x"});
  EXPECT_EQ(Run({"sort", "bad"}), kBadScore);
  EXPECT_EQ(Run({"sort", "bad", "limit", "0", "1"}), kBadScore);
  EXPECT_EQ(Run({"sort", "bad", "alpha"}), Arr({"1", "x"}));
  Run({"rpush", "nan", "1", "nan"});
  EXPECT_EQ(Run({"sort", "nan"}), kBadScore);
  Run({"rpush", "big", "1e400"});
  EXPECT_EQ(Run({"sort", "big"}), kBadScore);
  // After an overflow, numeric sorts work again (Redis keeps a stale errno here).
  EXPECT_EQ(Run({"sort", "l", "limit", "0", "1"}), Arr({"-1.5"}));
}

TEST_F(SortTest, NumericTiesOrderByElement) {
  Run({"rpush", "l", "b", "a", "c"});
  Run({"mset", "w_a", "1", "w_b", "1", "w_c", "0"});
  EXPECT_EQ(Run({"sort", "l", "by", "w_*"}), Arr({"c", "a", "b"}));
  EXPECT_EQ(Run({"sort", "l", "by", "w_*", "desc"}), Arr({"b", "a", "c"}));
}

TEST_F(SortTest, Limit) {
  Run({"rpush", "l", "5", "4", "3", "2", "1"});
  EXPECT_EQ(Run({"sort", "l", "limit", "1", "2"}), Arr({"2", "3"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "-5", "2"}), Arr({"1", "2"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "3", "-1"}), Arr({"4", "5"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "3", "100"}), Arr({"4", "5"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "5", "1"}), "*0\r\n");
  EXPECT_EQ(Run({"sort", "l", "limit", "0", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"sort", "l", "limit", "9223372036854775807", "9223372036854775807"}), "*0\r\n");
  EXPECT_EQ(Run({"sort", "l", "limit", "1"}), kSyntax);
  EXPECT_EQ(Run({"sort", "l", "limit", "a", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"sort", "l", "limit", "1", "1.5"}),
            Err("ERR value is not an integer or out of range"));
}

TEST_F(SortTest, ByStringAndHashFields) {
  Run({"rpush", "l", "1", "2", "3"});
  Run({"mset", "w_1", "30", "w_2", "10", "w_3", "20"});
  EXPECT_EQ(Run({"sort", "l", "by", "w_*"}), Arr({"2", "3", "1"}));
  Run({"hset", "h_1", "f", "b"});
  Run({"hset", "h_2", "f", "c"});
  Run({"hset", "h_3", "f", "a"});
  EXPECT_EQ(Run({"sort", "l", "by", "h_*->f", "alpha"}), Arr({"3", "1", "2"}));
  EXPECT_EQ(Run({"sort", "l", "by", "h_*->f", "alpha", "get", "h_*->f", "get", "#"}),
            Arr({"a", "3", "b", "1", "c", "2"}));
  // A missing weight sorts as 0 (numeric) or first (ALPHA).
  Run({"del", "w_3"});
  EXPECT_EQ(Run({"sort", "l", "by", "w_*"}), Arr({"3", "2", "1"}));
  Run({"del", "h_1"});
  EXPECT_EQ(Run({"sort", "l", "by", "h_*->f", "alpha"}), Arr({"1", "3", "2"}));
  // A weight key of the wrong type counts as missing.
  Run({"del", "w_1", "w_2"});
  Run({"rpush", "w_2", "x"});
  EXPECT_EQ(Run({"sort", "l", "by", "w_*", "desc"}), Arr({"3", "2", "1"}));
  Run({"hset", "h_3", "f", "notanumber"});
  EXPECT_EQ(Run({"sort", "l", "by", "h_*->f"}), kBadScore);
}

TEST_F(SortTest, ByConstantKeepsNativeOrder) {
  Run({"rpush", "l", "c", "a", "b"});
  EXPECT_EQ(Run({"sort", "l", "by", "nosort"}), Arr({"c", "a", "b"}));
  EXPECT_EQ(Run({"sort", "l", "by", "nosort", "desc"}), Arr({"b", "a", "c"}));
  EXPECT_EQ(Run({"sort", "l", "by", "nosort", "limit", "1", "5"}), Arr({"a", "b"}));
  EXPECT_EQ(Run({"sort", "l", "by", "nosort", "desc", "limit", "1", "1"}), Arr({"a"}));
  EXPECT_EQ(Run({"sort", "l", "by", "nosort", "limit", "3", "1"}), "*0\r\n");
  // A constant BY skips sorting, so non-numbers are no error.
  EXPECT_EQ(Run({"sort", "l", "by", "k"}), Arr({"c", "a", "b"}));
}

TEST_F(SortTest, GetPatterns) {
  Run({"rpush", "l", "1", "2"});
  Run({"set", "v_1", "one"});
  Run({"hset", "h_2", "f", "two"});
  EXPECT_EQ(Run({"sort", "l", "get", "v_*", "get", "h_*->f", "get", "#", "get", "nostar"}),
            Arr({"one", "(nil)", "1", "(nil)", "(nil)", "two", "2", "(nil)"}));
  // "h_*->" has no field: the key is "h_2->".
  Run({"set", "h_2->", "plain"});
  EXPECT_EQ(Run({"sort", "l", "get", "h_*->"}), Arr({"(nil)", "plain"}));
  // The element is substituted for the first '*' only.
  Run({"set", "x_2_*", "star"});
  EXPECT_EQ(Run({"sort", "l", "get", "x_*_*", "limit", "1", "1"}), Arr({"star"}));
}

TEST_F(SortTest, Store) {
  Run({"rpush", "l", "3", "1", "2"});
  Run({"set", "dst", "x"});
  Run({"expire", "dst", "100"});
  uint64_t before = server_->dirty();
  EXPECT_EQ(Run({"sort", "l", "store", "dst"}), Int(3));
  EXPECT_EQ(server_->dirty() - before, 3u);
  EXPECT_EQ(Run({"lrange", "dst", "0", "-1"}), Arr({"1", "2", "3"}));
  EXPECT_EQ(Run({"ttl", "dst"}), Int(-1));
  EXPECT_EQ(Enc("dst"), "listpack");
  EXPECT_EQ(Run({"sort", "l", "get", "missing_*", "get", "#", "store", "dst"}), Int(6));
  EXPECT_EQ(Run({"lrange", "dst", "0", "-1"}), Arr({"", "1", "", "2", "", "3"}));
  EXPECT_EQ(Run({"sort", "l", "store", "l"}), Int(3));  // the source may be the destination
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Arr({"1", "2", "3"}));
  before = server_->dirty();
  EXPECT_EQ(Run({"sort", "nokey", "store", "dst"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(server_->dirty() - before, 1u);
  EXPECT_EQ(Run({"sort", "l", "limit", "0", "0", "store", "dst"}), Int(0));
  EXPECT_EQ(server_->dirty() - before, 1u);
  EXPECT_EQ(Run({"sort_ro", "l", "store", "dst"}), kSyntax);
  // Past list-max-listpack-size the stored list is a quicklist.
  std::vector<std::string> args = {"rpush", "long"};
  for (int i = 0; i < 200; ++i) args.push_back(std::string(100, 'a' + i % 26));
  Run(args);
  EXPECT_EQ(Run({"sort", "long", "alpha", "store", "dst"}), Int(200));
  EXPECT_EQ(Enc("dst"), "quicklist");
}

TEST_F(SortTest, Sets) {
  Run({"sadd", "s", "3", "1", "2"});
  EXPECT_EQ(Run({"sort", "s"}), Arr({"1", "2", "3"}));
  EXPECT_EQ(Run({"sort", "s", "desc", "limit", "0", "2"}), Arr({"3", "2"}));
  Run({"sadd", "t", "b", "c", "a"});
  // A set stored without sorting is sorted alphabetically, so the result is reproducible.
  EXPECT_EQ(Run({"sort", "t", "by", "nosort", "store", "dst"}), Int(3));
  EXPECT_EQ(Run({"lrange", "dst", "0", "-1"}), Arr({"a", "b", "c"}));
  EXPECT_EQ(Run({"sort", "t", "by", "nosort", "desc", "store", "dst"}), Int(3));
  EXPECT_EQ(Run({"lrange", "dst", "0", "-1"}), Arr({"c", "b", "a"}));
}

TEST_F(SortTest, SortedSets) {
  if (!HaveZSets()) GTEST_SKIP() << "ZADD not available yet";
  Run({"zadd", "z", "3", "a", "1", "b", "2", "c"});
  EXPECT_EQ(Run({"object", "encoding", "z"}), Bulk("listpack"));
  EXPECT_EQ(Run({"sort", "z", "by", "nosort"}), Arr({"b", "c", "a"}));
  // As Valkey, SORT converts a small sorted set to its large encoding.
  EXPECT_EQ(Run({"object", "encoding", "z"}), Bulk("skiplist"));
  EXPECT_EQ(Run({"sort", "z", "by", "nosort", "desc"}), Arr({"a", "c", "b"}));
  EXPECT_EQ(Run({"sort", "z", "by", "nosort", "limit", "1", "1"}), Arr({"c"}));
  EXPECT_EQ(Run({"sort", "z", "by", "nosort", "desc", "limit", "1", "5"}), Arr({"c", "b"}));
  EXPECT_EQ(Run({"sort", "z", "alpha"}), Arr({"a", "b", "c"}));
}

TEST_F(SortTest, Errors) {
  Run({"set", "str", "x"});
  Run({"hset", "h", "f", "v"});
  EXPECT_EQ(Run({"sort", "str"}), kWrongType);
  EXPECT_EQ(Run({"sort", "h"}), kWrongType);
  EXPECT_EQ(Run({"sort", "str", "foo"}), kSyntax);  // options are checked first
  EXPECT_EQ(Run({"sort", "l", "by"}), kSyntax);
  EXPECT_EQ(Run({"sort", "l", "get"}), kSyntax);
  EXPECT_EQ(Run({"sort", "l", "store"}), kSyntax);
  EXPECT_EQ(Run({"sort"}), Err("ERR wrong number of arguments for 'sort' command"));
}

}  // namespace
}  // namespace vireo
