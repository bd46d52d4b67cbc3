// In-process tests of the set family; replies and errors were checked against redis-server
// 7.0, encodings against Valkey 8's rules (7.0 has no listpack sets).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "store/value.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

constexpr const char* kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
constexpr const char* kSyntax = "-ERR syntax error\r\n";
constexpr const char* kEmptyArray = "*0\r\n";

class SetsTest : public CommandTest {
 protected:
  std::string Enc(const std::string& key) { return Bulk(EncodingName(Entry(key)->encoding())); }
  vireo::Entry* Entry(const std::string& key) { return server_->db(0)->Find(key); }

  // The bulk strings and integers of a flat array reply ("*" or "~"), in reply order.
  static std::vector<std::string> Elements(const std::string& reply) {
    std::vector<std::string> out;
    size_t pos = reply.find("\r\n") + 2;
    while (pos < reply.size()) {
      char type = reply[pos];
      size_t eol = reply.find("\r\n", pos);
      std::string head = reply.substr(pos + 1, eol - pos - 1);
      pos = eol + 2;
      if (type == '$') {
        size_t n = std::stoul(head);
        out.push_back(reply.substr(pos, n));
        pos += n + 2;
      } else {
        out.push_back(head);
      }
    }
    return out;
  }
  static std::vector<std::string> Sorted(const std::string& reply) {
    std::vector<std::string> v = Elements(reply);
    std::sort(v.begin(), v.end());
    return v;
  }
  // SADD key with members from..to-1.
  void AddRange(const std::string& key, int from, int to, const std::string& prefix = "") {
    std::vector<std::string> args = {"sadd", key};
    for (int i = from; i < to; ++i) args.push_back(prefix + std::to_string(i));
    Run(args);
  }
  std::string Members(const std::string& key) {
    std::vector<std::string> v = Sorted(Run({"smembers", key}));
    std::string s;
    for (const std::string& m : v) s += m + ",";
    return s;
  }
};

TEST_F(SetsTest, AddRemoveCardIsMember) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b", "a"}), Int(2));
  EXPECT_EQ(Run({"sadd", "s", "b", "c"}), Int(1));
  EXPECT_EQ(Run({"scard", "s"}), Int(3));
  EXPECT_EQ(Run({"scard", "nokey"}), Int(0));
  EXPECT_EQ(Run({"sismember", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"sismember", "s", "z"}), Int(0));
  EXPECT_EQ(Run({"sismember", "nokey", "a"}), Int(0));
  EXPECT_EQ(Run({"smismember", "s", "a", "z", "c"}), "*3\r\n:1\r\n:0\r\n:1\r\n");
  EXPECT_EQ(Run({"smismember", "nokey", "a"}), "*1\r\n:0\r\n");
  EXPECT_EQ(Run({"srem", "s", "a", "z"}), Int(1));
  EXPECT_EQ(Run({"srem", "nokey", "a"}), Int(0));
  EXPECT_EQ(Members("s"), "b,c,");
  EXPECT_EQ(Run({"srem", "s", "b", "c", "d"}), Int(2));
  EXPECT_EQ(Run({"exists", "s"}), Int(0));  // an emptied set deletes its key
}

TEST_F(SetsTest, WritesCountChanges) {
  uint64_t before = server_->dirty();
  Run({"sadd", "s", "a", "b", "a"});
  EXPECT_EQ(server_->dirty() - before, 2u);
  before = server_->dirty();
  Run({"sadd", "s", "a"});
  Run({"srem", "s", "zz"});
  EXPECT_EQ(server_->dirty(), before);
  Run({"srem", "s", "a", "b"});
  EXPECT_EQ(server_->dirty() - before, 2u);
}

TEST_F(SetsTest, WrongTypeEverywhere) {
  Run({"set", "str", "x"});
  Run({"sadd", "s", "a"});
  const std::vector<std::vector<std::string>> cmds = {{"sadd", "str", "a"},
                                                      {"srem", "str", "a"},
                                                      {"smembers", "str"},
                                                      {"sismember", "str", "a"},
                                                      {"smismember", "str", "a"},
                                                      {"scard", "str"},
                                                      {"spop", "str"},
                                                      {"spop", "str", "2"},
                                                      {"srandmember", "str"},
                                                      {"srandmember", "str", "2"},
                                                      {"smove", "str", "s", "a"},
                                                      {"smove", "s", "str", "a"},
                                                      {"sinter", "s", "str"},
                                                      {"sinter", "nokey", "str"},
                                                      {"sintercard", "2", "s", "str"},
                                                      {"sinterstore", "d", "s", "str"},
                                                      {"sunion", "s", "str"},
                                                      {"sunionstore", "d", "str"},
                                                      {"sdiff", "s", "str"},
                                                      {"sdiff", "nokey", "str"},
                                                      {"sdiffstore", "d", "s", "str"},
                                                      {"sscan", "str", "0"}};
  for (const auto& cmd : cmds) EXPECT_EQ(Run(cmd), kWrongType) << cmd[0];
  EXPECT_EQ(Run({"get", "str"}), Bulk("x"));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  // SMOVE from a missing source answers 0 before looking at the destination's type.
  EXPECT_EQ(Run({"smove", "nokey", "str", "a"}), Int(0));
}

TEST_F(SetsTest, IntsetToHashtableAtMaxIntsetEntries) {
  AddRange("s", 0, 512);
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("intset"));
  Run({"sadd", "s", "511"});  // present: no change
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("intset"));
  Run({"sadd", "s", "512"});
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("hashtable"));
  EXPECT_EQ(Run({"scard", "s"}), Int(513));
}

TEST_F(SetsTest, IntsetToListpackOnFirstString) {
  AddRange("s", 0, 127);
  EXPECT_EQ(Enc("s"), Bulk("intset"));
  Run({"sadd", "s", "abc"});
  EXPECT_EQ(Enc("s"), Bulk("listpack"));
  EXPECT_EQ(Run({"scard", "s"}), Int(128));
  EXPECT_EQ(Run({"sismember", "s", "126"}), Int(1));
  Run({"sadd", "s", "another"});  // the 129th member
  EXPECT_EQ(Enc("s"), Bulk("hashtable"));
  // An intset already at set-max-listpack-entries goes straight to a table.
  AddRange("t", 0, 128);
  Run({"sadd", "t", "abc"});
  EXPECT_EQ(Enc("t"), Bulk("hashtable"));
}

TEST_F(SetsTest, ListpackToHashtableAtEntriesAndValueLimits) {
  AddRange("s", 0, 128, "m");
  EXPECT_EQ(Enc("s"), Bulk("listpack"));
  Run({"sadd", "s", "m1"});
  EXPECT_EQ(Enc("s"), Bulk("listpack"));
  Run({"sadd", "s", "m128"});
  EXPECT_EQ(Enc("s"), Bulk("hashtable"));

  Run({"sadd", "v", std::string(64, 'x')});
  EXPECT_EQ(Enc("v"), Bulk("listpack"));
  Run({"sadd", "v", std::string(65, 'x')});
  EXPECT_EQ(Enc("v"), Bulk("hashtable"));
  Run({"sadd", "w", std::string(65, 'x')});  // a new key with a long first member
  EXPECT_EQ(Enc("w"), Bulk("hashtable"));
}

TEST_F(SetsTest, SizeHintPicksEncodingUpFront) {
  // As Valkey 8: the number of arguments, not the members added, decides.
  AddRange("big", 0, 513);
  EXPECT_EQ(Enc("big"), Bulk("hashtable"));
  std::vector<std::string> args = {"sadd", "dups"};
  for (int i = 0; i < 129; ++i) args.push_back("same");
  Run(args);
  EXPECT_EQ(Enc("dups"), Bulk("hashtable"));
  EXPECT_EQ(Run({"scard", "dups"}), Int(1));
  Run({"sadd", "l", "a"});
  args[1] = "l";
  Run(args);
  EXPECT_EQ(Enc("l"), Bulk("hashtable"));
}

// (The thresholds are set on the config directly: CONFIG SET would count in the process-wide
// command statistics that other tests check; test_sets.py covers CONFIG SET itself.)
TEST_F(SetsTest, NewThresholdsApplyToNewWrites) {
  Run({"sadd", "s", "1", "2", "3"});
  server_->config().set_max_intset_entries = 3;
  EXPECT_EQ(Enc("s"), Bulk("intset"));
  Run({"sadd", "s", "4"});
  EXPECT_EQ(Enc("s"), Bulk("hashtable"));
  server_->config().set_max_listpack_entries = 2;
  server_->config().set_max_listpack_value = 3;
  Run({"sadd", "l", "a", "b"});
  EXPECT_EQ(Enc("l"), Bulk("listpack"));
  Run({"sadd", "l", "c"});
  EXPECT_EQ(Enc("l"), Bulk("hashtable"));
  Run({"sadd", "m", "abcd"});
  EXPECT_EQ(Enc("m"), Bulk("hashtable"));
}

TEST_F(SetsTest, SmembersResp3IsASet) {
  Run({"sadd", "s", "a"});
  Run({"hello", "3"});
  EXPECT_EQ(Run({"smembers", "s"}), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(Run({"smembers", "nokey"}), "~0\r\n");
  EXPECT_EQ(Run({"spop", "nokey", "1"}), "~0\r\n");
  EXPECT_EQ(Run({"srandmember", "nokey", "1"}), kEmptyArray);
  EXPECT_EQ(Run({"spop", "nokey"}), "_\r\n");
  EXPECT_EQ(Run({"sinter", "s", "nokey"}), "~0\r\n");
  EXPECT_EQ(Run({"sunion", "s"}), "~1\r\n$1\r\na\r\n");
}

TEST_F(SetsTest, SpopSingle) {
  EXPECT_EQ(Run({"spop", "nokey"}), kNil);
  Run({"sadd", "s", "a", "b"});
  std::string first = Run({"spop", "s"});
  std::string second = Run({"spop", "s"});
  std::set<std::string> got = {first, second};
  EXPECT_EQ(got, (std::set<std::string>{Bulk("a"), Bulk("b")}));
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
  Run({"sadd", "i", "7"});
  EXPECT_EQ(Run({"spop", "i"}), Bulk("7"));
}

TEST_F(SetsTest, SpopCountArguments) {
  Run({"sadd", "s", "a"});
  EXPECT_EQ(Run({"spop", "s", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"spop", "s", "abc"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"spop", "nokey", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"spop", "s", "1", "2"}), kSyntax);
  EXPECT_EQ(Run({"spop", "s", "0"}), kEmptyArray);
  EXPECT_EQ(Run({"spop", "nokey", "3"}), kEmptyArray);
  EXPECT_EQ(Run({"scard", "s"}), Int(1));
}

TEST_F(SetsTest, SpopCountEveryStrategyAndEncoding) {
  struct Case {
    int size;
    std::string prefix;
    int count;
  };
  // Few popped, most popped (new set of the rest), all popped, more than all.
  for (const Case& c : std::vector<Case>{{20, "", 3},
                                         {20, "", 18},
                                         {20, "m", 3},
                                         {20, "m", 18},
                                         {1000, "", 10},
                                         {1000, "", 990},
                                         {1000, "m", 10},
                                         {1000, "m", 990},
                                         {5, "m", 5},
                                         {5, "", 9}}) {
    Run({"del", "s"});
    AddRange("s", 0, c.size, c.prefix);
    uint64_t before = server_->dirty();
    std::vector<std::string> popped = Sorted(Run({"spop", "s", std::to_string(c.count)}));
    int expect = std::min(c.count, c.size);
    ASSERT_EQ(popped.size(), static_cast<size_t>(expect));
    EXPECT_EQ(server_->dirty() - before, static_cast<uint64_t>(expect));
    std::vector<std::string> rest = Sorted(Run({"smembers", "s"}));
    EXPECT_EQ(rest.size(), static_cast<size_t>(c.size - expect));
    std::set<std::string> all(popped.begin(), popped.end());
    all.insert(rest.begin(), rest.end());
    EXPECT_EQ(all.size(), static_cast<size_t>(c.size)) << "lost or duplicated members";
    EXPECT_EQ(Run({"exists", "s"}), Int(c.size > expect ? 1 : 0));
  }
}

TEST_F(SetsTest, SpopRebuildPicksSmallEncoding) {
  // Valkey rebuilds the remaining members into a fresh listpack/intset.
  AddRange("s", 0, 1000, "m");
  Run({"spop", "s", "995"});
  EXPECT_EQ(Enc("s"), Bulk("listpack"));
  AddRange("i", 0, 600);
  EXPECT_EQ(Enc("i"), Bulk("hashtable"));
  Run({"spop", "i", "590"});
  EXPECT_EQ(Enc("i"), Bulk("listpack"));  // members of a table come out as strings
  AddRange("j", 0, 100);
  Run({"spop", "j", "95"});
  EXPECT_EQ(Enc("j"), Bulk("intset"));
}

TEST_F(SetsTest, SrandmemberArguments) {
  Run({"sadd", "s", "a", "b", "c"});
  EXPECT_EQ(Run({"srandmember", "s", "abc"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"srandmember", "s", "-9223372036854775808"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  EXPECT_EQ(Run({"srandmember", "s", "1", "2"}), kSyntax);
  EXPECT_EQ(Run({"srandmember", "s", "0"}), kEmptyArray);
  EXPECT_EQ(Run({"srandmember", "nokey", "5"}), kEmptyArray);
  EXPECT_EQ(Run({"srandmember", "nokey"}), kNil);
  EXPECT_EQ(Sorted(Run({"srandmember", "s", "3"})), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Sorted(Run({"srandmember", "s", "100"})), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Run({"scard", "s"}), Int(3));
}

TEST_F(SetsTest, SrandmemberCountsInEveryEncoding) {
  AddRange("i", 0, 50);
  AddRange("l", 0, 50, "m");
  AddRange("h", 0, 2000, "m");
  for (const char* key : {"i", "l", "h"}) {
    for (int count : {1, 5, 20, 49, 700}) {
      std::vector<std::string> got = Sorted(Run({"srandmember", key, std::to_string(count)}));
      size_t size = std::string(key) == "h" ? 2000 : 50;
      EXPECT_EQ(got.size(), std::min<size_t>(count, size));
      EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), got.size()) << key;
      std::vector<std::string> rep = Elements(Run({"srandmember", key, std::to_string(-count)}));
      EXPECT_EQ(rep.size(), static_cast<size_t>(count));
      for (const std::string& m : rep) EXPECT_EQ(Run({"sismember", key, m}), Int(1));
    }
  }
  // Negative counts repeat members: 200 draws from a 3-member set.
  Run({"sadd", "small", "x", "y", "z"});
  std::vector<std::string> rep = Elements(Run({"srandmember", "small", "-200"}));
  EXPECT_EQ(rep.size(), 200u);
  EXPECT_EQ(std::set<std::string>(rep.begin(), rep.end()).size(), 3u);
}

TEST_F(SetsTest, Smove) {
  Run({"sadd", "src", "a", "b"});
  Run({"sadd", "dst", "1"});
  EXPECT_EQ(Run({"smove", "src", "dst", "zz"}), Int(0));
  EXPECT_EQ(Run({"smove", "src", "dst", "a"}), Int(1));
  EXPECT_EQ(Members("dst"), "1,a,");
  EXPECT_EQ(Enc("dst"), Bulk("listpack"));
  EXPECT_EQ(Run({"smove", "src", "src", "b"}), Int(1));  // same key: membership
  EXPECT_EQ(Run({"smove", "src", "src", "a"}), Int(0));
  EXPECT_EQ(Run({"smove", "src", "new", "b"}), Int(1));
  EXPECT_EQ(Run({"exists", "src"}), Int(0));
  EXPECT_EQ(Members("new"), "b,");
  Run({"sadd", "x", "5"});
  EXPECT_EQ(Run({"smove", "x", "ints", "5"}), Int(1));
  EXPECT_EQ(Enc("ints"), Bulk("intset"));
  Run({"sadd", "y", "a"});
  uint64_t before = server_->dirty();
  EXPECT_EQ(Run({"smove", "new", "y", "b"}), Int(1));
  EXPECT_EQ(server_->dirty() - before, 2u);
  Run({"sadd", "z", "b"});
  before = server_->dirty();
  EXPECT_EQ(Run({"smove", "y", "z", "b"}), Int(1));  // already in z: only the source changed
  EXPECT_EQ(server_->dirty() - before, 1u);
}

TEST_F(SetsTest, InterUnionDiff) {
  Run({"sadd", "a", "1", "2", "3", "x"});
  Run({"sadd", "b", "2", "3", "4", "x"});
  Run({"sadd", "c", "3", "x", "9"});
  EXPECT_EQ(Sorted(Run({"sinter", "a", "b", "c"})), (std::vector<std::string>{"3", "x"}));
  EXPECT_EQ(Run({"sinter", "a", "nokey"}), kEmptyArray);
  EXPECT_EQ(Sorted(Run({"sinter", "a", "a"})), (std::vector<std::string>{"1", "2", "3", "x"}));
  EXPECT_EQ(Sorted(Run({"sunion", "a", "nokey", "c"})),
            (std::vector<std::string>{"1", "2", "3", "9", "x"}));
  EXPECT_EQ(Run({"sunion", "nokey"}), kEmptyArray);
  EXPECT_EQ(Sorted(Run({"sdiff", "a", "b"})), (std::vector<std::string>{"1"}));
  EXPECT_EQ(Sorted(Run({"sdiff", "a", "nokey"})), (std::vector<std::string>{"1", "2", "3", "x"}));
  EXPECT_EQ(Run({"sdiff", "nokey", "a"}), kEmptyArray);
  EXPECT_EQ(Run({"sdiff", "a", "b", "a"}), kEmptyArray);
  EXPECT_EQ(Run({"sintercard", "3", "a", "b", "c"}), Int(2));
  EXPECT_EQ(Run({"sintercard", "2", "a", "b", "limit", "2"}), Int(2));
  EXPECT_EQ(Run({"sintercard", "2", "a", "b", "LIMIT", "1"}), Int(1));
  EXPECT_EQ(Run({"sintercard", "2", "a", "b", "limit", "0"}), Int(3));
  EXPECT_EQ(Run({"sintercard", "2", "a", "nokey"}), Int(0));
}

TEST_F(SetsTest, IntercardArguments) {
  Run({"sadd", "s", "a"});
  EXPECT_EQ(Run({"sintercard", "0", "s"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"sintercard", "abc", "s"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"sintercard", "2", "s"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(Run({"sintercard", "1", "s", "limit", "-1"}), Err("ERR LIMIT can't be negative"));
  EXPECT_EQ(Run({"sintercard", "1", "s", "limit", "x"}), Err("ERR LIMIT can't be negative"));
  EXPECT_EQ(Run({"sintercard", "1", "s", "limit"}), kSyntax);
  EXPECT_EQ(Run({"sintercard", "1", "s", "foo", "1"}), kSyntax);
}

TEST_F(SetsTest, StoreCommandsReplaceDestination) {
  Run({"sadd", "a", "1", "2", "3"});
  Run({"sadd", "b", "2", "3", "4"});
  Run({"set", "d", "string"});
  Run({"expire", "d", "1000"});
  EXPECT_EQ(Run({"sinterstore", "d", "a", "b"}), Int(2));
  EXPECT_EQ(Members("d"), "2,3,");
  EXPECT_EQ(Run({"ttl", "d"}), Int(-1));
  EXPECT_EQ(Enc("d"), Bulk("intset"));
  EXPECT_EQ(Run({"sunionstore", "d", "a", "b"}), Int(4));
  EXPECT_EQ(Members("d"), "1,2,3,4,");
  EXPECT_EQ(Run({"sdiffstore", "d", "a", "b"}), Int(1));
  EXPECT_EQ(Members("d"), "1,");
  // A destination among the sources is read before it is replaced.
  EXPECT_EQ(Run({"sunionstore", "a", "a", "b"}), Int(4));
  EXPECT_EQ(Members("a"), "1,2,3,4,");
  // Empty results delete the destination.
  uint64_t before = server_->dirty();
  EXPECT_EQ(Run({"sinterstore", "d", "a", "nokey"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  EXPECT_EQ(server_->dirty() - before, 1u);
  EXPECT_EQ(Run({"sdiffstore", "d", "a", "a"}), Int(0));
  EXPECT_EQ(Run({"sunionstore", "d", "nokey"}), Int(0));
  EXPECT_EQ(Run({"sinterstore", "d", "a", "b", "nokey2"}), Int(0));
  EXPECT_EQ(server_->dirty() - before, 1u);  // nothing left to delete
}

TEST_F(SetsTest, StoreResultsGetTheRightEncoding) {
  AddRange("ints", 0, 300);
  AddRange("more", 200, 800);  // a table
  AddRange("strs", 0, 10, "m");
  Run({"sunionstore", "u", "ints", "strs"});  // 310 members with strings
  EXPECT_EQ(Enc("u"), Bulk("hashtable"));
  Run({"sunionstore", "u", "strs"});
  EXPECT_EQ(Enc("u"), Bulk("listpack"));
  Run({"sunionstore", "u", "ints"});
  EXPECT_EQ(Enc("u"), Bulk("intset"));
  Run({"sinterstore", "i", "ints", "more"});  // 100 integers out of a table
  EXPECT_EQ(Enc("i"), Bulk("intset"));
  EXPECT_EQ(Run({"scard", "i"}), Int(100));
  Run({"sdiffstore", "d", "more", "ints"});  // 500 integers
  EXPECT_EQ(Enc("d"), Bulk("intset"));
  AddRange("h1", 0, 200, "m");
  AddRange("h2", 100, 300, "m");
  Run({"sinterstore", "i2", "h1", "h2"});  // 100 strings
  EXPECT_EQ(Enc("i2"), Bulk("listpack"));
  AddRange("h3", 0, 1000, "m");
  Run({"sinterstore", "i3", "h3", "h3"});
  EXPECT_EQ(Enc("i3"), Bulk("hashtable"));
  EXPECT_EQ(Run({"scard", "i3"}), Int(1000));
}

TEST_F(SetsTest, SscanArgumentsAndPackedSets) {
  Run({"sadd", "s", "a", "b", "7"});
  EXPECT_EQ(Run({"sscan", "s", "abc"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"sscan", "s", "0", "count", "0"}), kSyntax);
  EXPECT_EQ(Run({"sscan", "s", "0", "count", "abc"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"sscan", "s", "0", "type", "set"}), kSyntax);
  EXPECT_EQ(Run({"sscan", "s", "0", "foo"}), kSyntax);
  EXPECT_EQ(Run({"sscan", "nokey", "0", "foo"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  std::string r = Run({"sscan", "s", "0", "match", "[a7]"});
  EXPECT_EQ(r.substr(0, 11), "*2\r\n$1\r\n0\r\n");
  std::vector<std::string> got = Sorted(r.substr(11));
  EXPECT_EQ(got, (std::vector<std::string>{"7", "a"}));
}

TEST_F(SetsTest, SscanFullIterationOfATable) {
  AddRange("s", 0, 1000, "m");
  std::set<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    std::string r = Run({"sscan", "s", cursor, "count", "20"});
    // *2, then the cursor as a bulk string, then the members' array.
    size_t p = r.find("\r\n") + 2;
    size_t eol = r.find("\r\n", p);
    size_t n = std::stoul(r.substr(p + 1, eol - p - 1));
    cursor = r.substr(eol + 2, n);
    std::vector<std::string> members = Elements(r.substr(eol + 2 + n + 2));
    seen.insert(members.begin(), members.end());
    ++calls;
  } while (cursor != "0");
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_GT(calls, 10);
}

TEST_F(SetsTest, GenericKeyCommandsWork) {
  AddRange("i", 0, 10);
  AddRange("l", 0, 10, "m");
  AddRange("h", 0, 1000, "m");
  for (const char* key : {"i", "l", "h"}) {
    std::string copy = std::string(key) + "_copy";
    EXPECT_EQ(Run({"copy", key, copy}), Int(1));
    EXPECT_EQ(Enc(copy), Enc(key));
    EXPECT_EQ(Members(copy), Members(key));
    Run({"sadd", copy, "extra"});
    EXPECT_EQ(Run({"sismember", key, "extra"}), Int(0));
    EXPECT_EQ(Run({"type", key}), "+set\r\n");
    // More than the entry with its 1-byte key: the value is counted too (exact sizes under
    // ASan, size classes otherwise).
    EXPECT_GT(EntryMemory(Entry(key)), Entry::AllocSize(1, false) + 8);
    EXPECT_EQ(Run({"rename", copy, "moved"}), kOk);
    EXPECT_EQ(Run({"del", "moved"}), Int(1));
  }
}

TEST_F(SetsTest, DigestIgnoresEncodingAndOrder) {
  AddRange("a", 0, 5);
  Run({"sadd", "b", "4", "3", "2", "1", "0", "x"});
  Run({"srem", "b", "x"});  // now a listpack of the same integers
  EXPECT_EQ(Enc("a"), Bulk("intset"));
  EXPECT_EQ(Enc("b"), Bulk("listpack"));
  EXPECT_EQ(Run({"debug", "digest-value", "a"}), Run({"debug", "digest-value", "b"}));
  Run({"sadd", "b", "5"});
  EXPECT_NE(Run({"debug", "digest-value", "a"}), Run({"debug", "digest-value", "b"}));
}

}  // namespace
}  // namespace vireo
