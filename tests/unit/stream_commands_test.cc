// In-process tests of the stream commands: replies byte for byte, Valkey's error texts.
#include <string>
#include <vector>

#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

class StreamCommandsTest : public CommandTest {
 protected:
  static std::string Arr(size_t n) { return "*" + std::to_string(n) + "\r\n"; }
  // [id, [f, v, ...]]
  static std::string Ent(const std::string& id, const std::vector<std::string>& fv) {
    std::string s = Arr(2) + Bulk(id) + Arr(fv.size());
    for (const auto& x : fv) s += Bulk(x);
    return s;
  }
  static constexpr const char* kNullArr = "*-1\r\n";
  static constexpr const char* kInvalidId =
      "-ERR Invalid stream ID specified as stream command argument\r\n";

  void Fill(const std::string& key, int n) {
    for (int i = 1; i <= n; ++i) {
      ASSERT_EQ(Run({"xadd", key, std::to_string(i) + "-0", "f", std::to_string(i)}),
                Bulk(std::to_string(i) + "-0"));
    }
  }
  bool Has(const std::string& reply, const std::string& part) {
    return reply.find(part) != std::string::npos;
  }
};

TEST_F(StreamCommandsTest, XAddAndXRangeRoundTrip) {
  EXPECT_EQ(Run({"xadd", "s", "1-1", "temp", "21.5", "hum", "40"}), Bulk("1-1"));
  EXPECT_EQ(Run({"xadd", "s", "1-*", "temp", "-0.0", "x", "007"}), Bulk("1-2"));
  EXPECT_EQ(Run({"xadd", "s", "5", "a", ""}), Bulk("5-0"));
  EXPECT_EQ(Run({"xlen", "s"}), Int(3));
  EXPECT_EQ(Run({"xrange", "s", "-", "+"}), Arr(3) + Ent("1-1", {"temp", "21.5", "hum", "40"}) +
                                                Ent("1-2", {"temp", "-0.0", "x", "007"}) +
                                                Ent("5-0", {"a", ""}));
  EXPECT_EQ(Run({"xrevrange", "s", "+", "-", "COUNT", "1"}), Arr(1) + Ent("5-0", {"a", ""}));
  EXPECT_EQ(Run({"xrange", "s", "(1-1", "(5-0"}),
            Arr(1) + Ent("1-2", {"temp", "-0.0", "x", "007"}));
  // "(5" is "(5-18446744073709551615": 5-0 is inside.
  EXPECT_EQ(Run({"xrange", "s", "(1-2", "(5"}), Arr(1) + Ent("5-0", {"a", ""}));
  EXPECT_EQ(Run({"xrange", "s", "1", "1"}), Arr(2) + Ent("1-1", {"temp", "21.5", "hum", "40"}) +
                                                Ent("1-2", {"temp", "-0.0", "x", "007"}));
  EXPECT_EQ(Run({"xrange", "s", "-", "+", "count", "0"}), kNullArr);
  EXPECT_EQ(Run({"xrange", "s", "-", "+", "count", "-5"}), kNullArr);
  EXPECT_EQ(Run({"xrange", "nosuch", "-", "+"}), Arr(0));
  EXPECT_EQ(Run({"xlen", "nosuch"}), Int(0));
  EXPECT_EQ(Run({"type", "s"}), "+stream\r\n");
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("stream"));
}

TEST_F(StreamCommandsTest, XAddErrors) {
  EXPECT_EQ(Run({"xadd", "s", "0-0", "f", "v"}),
            Err("ERR The ID specified in XADD must be greater than 0-0"));
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
  EXPECT_EQ(Run({"xadd", "s", "0-*", "f", "v"}), Bulk("0-1"));
  EXPECT_EQ(Run({"xadd", "s", "0-1", "f", "v"}),
            Err("ERR The ID specified in XADD is equal or smaller than the target stream top "
                "item"));
  EXPECT_EQ(Run({"xadd", "s", "abc", "f", "v"}), kInvalidId);
  EXPECT_EQ(Run({"xadd", "s", "-", "f", "v"}), kInvalidId);
  EXPECT_EQ(Run({"xadd", "s", "*", "f", "v", "g"}),
            Err("ERR wrong number of arguments for 'xadd' command"));
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "5", "f", "v"}), kInvalidId);
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "1", "minid", "1", "*", "f", "v"}),
            Err("ERR syntax error, MAXLEN and MINID options at the same time are not "
                "compatible"));
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "-1", "*", "f", "v"}),
            Err("ERR The MAXLEN argument must be >= 0."));
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "x", "*", "f", "v"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"xadd", "s", "limit", "1", "*", "f", "v"}),
            Err("ERR syntax error, LIMIT cannot be used without specifying a trimming "
                "strategy"));
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "1", "limit", "1", "*", "f", "v"}),
            Err("ERR syntax error, LIMIT cannot be used without the special ~ option"));
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "~", "1", "limit", "-1", "*", "f", "v"}),
            Err("ERR The LIMIT argument must be >= 0."));
  EXPECT_EQ(Run({"xadd", "nope", "nomkstream", "*", "f", "v"}), kNil);
  EXPECT_EQ(Run({"exists", "nope"}), Int(0));
  EXPECT_EQ(Run({"xadd", "s", "18446744073709551615-18446744073709551615", "f", "v"}),
            Bulk("18446744073709551615-18446744073709551615"));
  EXPECT_EQ(Run({"xadd", "s", "*", "f", "v"}),
            Err("ERR The stream has exhausted the last possible ID, unable to add more items"));
  Run({"set", "str", "x"});
  EXPECT_EQ(Run({"xadd", "str", "*", "f", "v"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"xrange", "s", "(18446744073709551615-18446744073709551615", "+"}),
            Err("ERR invalid start ID for the interval"));
  EXPECT_EQ(Run({"xrange", "s", "-", "(0-0"}), Err("ERR invalid end ID for the interval"));
  EXPECT_EQ(Run({"xrange", "s", "(-", "+"}), kInvalidId);
  EXPECT_EQ(Run({"xrange", "s", "-", "+", "count"}), Err("ERR syntax error"));
}

TEST_F(StreamCommandsTest, XAddTrimsWithMaxLenAndMinId) {
  Fill("s", 10);
  EXPECT_EQ(Run({"xadd", "s", "maxlen", "=", "3", "11", "f", "11"}), Bulk("11-0"));
  EXPECT_EQ(Run({"xlen", "s"}), Int(3));
  EXPECT_EQ(Run({"xadd", "s", "minid", "10", "12", "f", "12"}), Bulk("12-0"));
  EXPECT_EQ(
      Run({"xrange", "s", "-", "+"}),
      Arr(3) + Ent("10-0", {"f", "10"}) + Ent("11-0", {"f", "11"}) + Ent("12-0", {"f", "12"}));
  EXPECT_EQ(Run({"xtrim", "s", "maxlen", "1"}), Int(2));
  EXPECT_EQ(Run({"xtrim", "s", "minid", "~", "20"}), Int(1));  // the whole (only) node
  EXPECT_EQ(Run({"xtrim", "nosuch", "maxlen", "1"}), Int(0));
  EXPECT_EQ(Run({"xtrim", "s", "foo", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"xtrim", "s", "limit", "1"}),
            Err("ERR syntax error, LIMIT cannot be used without specifying a trimming "
                "strategy"));
  EXPECT_EQ(Run({"xtrim", "s", "limit", "0"}),
            Err("ERR syntax error, XTRIM must be called with a trimming strategy"));
  // Approximate trimming removes whole nodes only.
  server_->config().stream_node_max_entries = 2;  // (CONFIG SET would count in cmdstats)
  Run({"del", "t"});
  Fill("t", 7);
  EXPECT_EQ(Run({"xtrim", "t", "maxlen", "~", "2"}), Int(4));
  EXPECT_EQ(Run({"xlen", "t"}), Int(3));
  EXPECT_EQ(Run({"xtrim", "t", "maxlen", "~", "0", "limit", "1"}), Int(0));
  EXPECT_EQ(Run({"xtrim", "t", "maxlen", "~", "0", "limit", "2"}), Int(2));
}

TEST_F(StreamCommandsTest, XDelKeepsTheEmptyStreamAndTracksIds) {
  Fill("s", 3);
  EXPECT_EQ(Run({"xdel", "s", "1-0", "1-0", "9-0"}), Int(1));
  EXPECT_EQ(Run({"xdel", "s", "2-0", "bad"}), kInvalidId);
  EXPECT_EQ(Run({"xlen", "s"}), Int(2));
  EXPECT_EQ(Run({"xdel", "s", "2-0", "3-0"}), Int(2));
  EXPECT_EQ(Run({"exists", "s"}), Int(1));
  EXPECT_EQ(Run({"xdel", "nosuch", "bad"}), Int(0));
  std::string info = Run({"xinfo", "stream", "s"});
  EXPECT_TRUE(Has(info, Bulk("max-deleted-entry-id") + Bulk("3-0")));
  EXPECT_TRUE(Has(info, Bulk("recorded-first-entry-id") + Bulk("0-0")));
  EXPECT_TRUE(Has(info, Bulk("entries-added") + Int(3)));
  EXPECT_TRUE(Has(info, Bulk("first-entry") + kNil + Bulk("last-entry") + kNil));
}

TEST_F(StreamCommandsTest, XSetIdChecks) {
  EXPECT_EQ(Run({"xsetid", "s", "5-0"}), Err("ERR no such key"));
  Fill("s", 3);
  EXPECT_EQ(Run({"xsetid", "s", "2-0"}),
            Err("ERR The ID specified in XSETID is smaller than the target stream top item"));
  EXPECT_EQ(Run({"xsetid", "s", "9-0", "entriesadded", "-1"}),
            Err("ERR entries_added must be positive"));
  EXPECT_EQ(Run({"xsetid", "s", "9-0", "entriesadded", "2"}),
            Err("ERR The entries_added specified in XSETID is smaller than the target stream "
                "length"));
  EXPECT_EQ(Run({"xsetid", "s", "9-0", "maxdeletedid", "10-0"}),
            Err("ERR The ID specified in XSETID is smaller than the provided "
                "max_deleted_entry_id"));
  EXPECT_EQ(Run({"xsetid", "s", "9-0", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"xsetid", "s", "+"}), kInvalidId);
  EXPECT_EQ(Run({"xsetid", "s", "9-0", "entriesadded", "10", "maxdeletedid", "4-0"}), kOk);
  EXPECT_EQ(Run({"xadd", "s", "9-0", "f", "v"}),
            Err("ERR The ID specified in XADD is equal or smaller than the target stream top "
                "item"));
  EXPECT_EQ(Run({"xsetid", "s", "3-5"}),
            Err("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id"));
  std::string info = Run({"xinfo", "stream", "s"});
  EXPECT_TRUE(Has(info, Bulk("last-generated-id") + Bulk("9-0")));
  EXPECT_TRUE(Has(info, Bulk("entries-added") + Int(10)));
}

TEST_F(StreamCommandsTest, XReadServesStreamsWithNewerEntries) {
  Fill("a", 3);
  Fill("b", 1);
  EXPECT_EQ(Run({"xread", "count", "2", "streams", "a", "b", "nosuch", "1", "0", "0"}),
            Arr(2) + Arr(2) + Bulk("a") + Arr(2) + Ent("2-0", {"f", "2"}) + Ent("3-0", {"f", "3"}) +
                Arr(2) + Bulk("b") + Arr(1) + Ent("1-0", {"f", "1"}));
  EXPECT_EQ(Run({"xread", "streams", "a", "$"}), kNullArr);
  EXPECT_EQ(Run({"xread", "streams", "a", "+"}),
            Arr(1) + Arr(2) + Bulk("a") + Arr(1) + Ent("3-0", {"f", "3"}));
  EXPECT_EQ(Run({"xread", "streams", "a", "3"}), kNullArr);
  EXPECT_EQ(Run({"xread", "count", "1", "streams", "a"}),
            Err("ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must "
                "be specified."));
  EXPECT_EQ(Run({"xread", "group", "g", "c", "streams", "a", "0"}),
            Err("ERR The GROUP option is only supported by XREADGROUP. You called XREAD "
                "instead."));
  EXPECT_EQ(Run({"xread", "streams", "a", ">"}),
            Err("ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
                "<group> <consumer> option."));
  EXPECT_EQ(Run({"xread", "block", "-1", "streams", "a", "0"}), Err("ERR timeout is negative"));
  EXPECT_EQ(Run({"xread", "count", "1", "streams"}), Err("ERR syntax error"));
  Run({"set", "str", "x"});
  EXPECT_EQ(Run({"xread", "streams", "a", "str", "0", "0"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST_F(StreamCommandsTest, XReadGroupDeliversAndTracksPending) {
  EXPECT_EQ(Run({"xgroup", "create", "s", "g", "$"}),
            Err("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you "
                "may want to use the MKSTREAM option to create an empty stream "
                "automatically."));
  EXPECT_EQ(Run({"xgroup", "create", "s", "g", "$", "mkstream"}), kOk);
  EXPECT_EQ(Run({"xgroup", "create", "s", "g", "$"}),
            Err("BUSYGROUP Consumer Group name already exists"));
  Fill("s", 4);
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "alice", "count", "2", "streams", "s", ">"}),
            Arr(1) + Arr(2) + Bulk("s") + Arr(2) + Ent("1-0", {"f", "1"}) + Ent("2-0", {"f", "2"}));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "bob", "noack", "count", "1", "streams", "s", ">"}),
            Arr(1) + Arr(2) + Bulk("s") + Arr(1) + Ent("3-0", {"f", "3"}));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "bob", "streams", "s", "0"}),
            Arr(1) + Arr(2) + Bulk("s") + Arr(0));
  EXPECT_EQ(Run({"xdel", "s", "1-0"}), Int(1));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "alice", "streams", "s", "0"}),
            Arr(1) + Arr(2) + Bulk("s") + Arr(2) + Arr(2) + Bulk("1-0") + kNullArr +
                Ent("2-0", {"f", "2"}));
  EXPECT_EQ(Run({"xpending", "s", "g"}), Arr(4) + Int(2) + Bulk("1-0") + Bulk("2-0") + Arr(1) +
                                             Arr(2) + Bulk("alice") + Bulk("2"));
  EXPECT_EQ(Run({"xack", "s", "g", "1-0", "7-0"}), Int(1));
  EXPECT_EQ(Run({"xack", "s", "g", "2-0", "bad"}), kInvalidId);
  EXPECT_EQ(Run({"xack", "s", "nogroup", "bad"}), Int(0));
  std::string pending = Run({"xpending", "s", "g", "-", "+", "10"});
  EXPECT_TRUE(pending.rfind(Arr(1) + Arr(4) + Bulk("2-0") + Bulk("alice") + ":", 0) == 0)
      << pending;
  EXPECT_EQ(Run({"xpending", "s", "g", "-", "+", "10", "bob"}), Arr(0));
  EXPECT_EQ(Run({"xpending", "s", "g", "-", "+", "10", "nobody"}), Arr(0));
  EXPECT_EQ(Run({"xpending", "s", "g", "idle", "99999999", "-", "+", "10"}), Arr(0));
  EXPECT_EQ(Run({"xpending", "s", "g", "idle", "5", "-", "+"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"xpending", "s", "nope"}),
            Err("NOGROUP No such key 's' or consumer group 'nope'"));
  EXPECT_EQ(Run({"xreadgroup", "group", "nope", "c", "streams", "s", ">"}),
            Err("NOGROUP No such key 's' or consumer group 'nope' in XREADGROUP with GROUP "
                "option"));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "c", "streams", "s", "$"}),
            Err("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read "
                "the history of this consumer by specifying a proper ID, or use the > ID to "
                "get new messages. The $ ID would just return an empty result set."));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "c", "streams", "s"}),
            Err("ERR wrong number of arguments for 'xreadgroup' command"));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "c", "count", "1", "streams", "s", "t", ">"}),
            Err("ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' "
                "must be specified."));
  EXPECT_EQ(Run({"xreadgroup", "count", "1", "streams", "s", "t", ">", ">"}),
            Err("ERR Missing GROUP option for XREADGROUP"));
  // Nothing new: a null reply (and no blocking without BLOCK).
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "alice", "streams", "s", ">"}),
            Arr(1) + Arr(2) + Bulk("s") + Arr(1) + Ent("4-0", {"f", "4"}));
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "alice", "streams", "s", ">"}), kNullArr);
}

TEST_F(StreamCommandsTest, GroupLagAndEntriesReadFollowValkey) {
  for (int i = 1; i <= 5; ++i) {
    Run({"xadd", "x", std::to_string(i) + "-0", "data", "a"});
  }
  EXPECT_EQ(Run({"xgroup", "create", "x", "g1", "0"}), kOk);
  auto groups = [&] { return Run({"xinfo", "groups", "x"}); };
  EXPECT_TRUE(Has(groups(), Bulk("entries-read") + kNil + Bulk("lag") + Int(5)));
  Run({"xreadgroup", "group", "g1", "c11", "count", "1", "streams", "x", ">"});
  EXPECT_TRUE(Has(groups(), Bulk("entries-read") + Int(1) + Bulk("lag") + Int(4)));
  Run({"xreadgroup", "group", "g1", "c12", "count", "10", "streams", "x", ">"});
  EXPECT_TRUE(Has(groups(), Bulk("entries-read") + Int(5) + Bulk("lag") + Int(0)));
  Run({"xadd", "x", "6-0", "data", "f"});
  EXPECT_TRUE(Has(groups(), Bulk("entries-read") + Int(5) + Bulk("lag") + Int(1)));
  for (int i = 7; i <= 10; ++i) Run({"xadd", "x", std::to_string(i) + "-0", "data", "a"});
  Run({"xreadgroup", "group", "g1", "c11", "count", "3", "streams", "x", ">"});
  Run({"xdel", "x", "9-0"});
  EXPECT_TRUE(Has(groups(), Bulk("entries-read") + Int(8) + Bulk("lag") + kNil));
  Run({"xreadgroup", "group", "g1", "c12", "count", "1", "streams", "x", ">"});
  EXPECT_TRUE(Has(groups(), Bulk("entries-read") + Int(10) + Bulk("lag") + Int(0)));
  EXPECT_EQ(Run({"xgroup", "create", "x", "g2", "$", "entriesread", "-3"}),
            Err("ERR value for ENTRIESREAD must be positive or -1"));
  EXPECT_EQ(Run({"xgroup", "create", "x", "g2", "$", "entriesread", "3"}), kOk);
  EXPECT_EQ(Run({"xgroup", "setid", "x", "g2", "-"}), kOk);
  EXPECT_TRUE(Has(groups(), Bulk("name") + Bulk("g2") + Bulk("consumers") + Int(0) +
                                Bulk("pending") + Int(0) + Bulk("last-delivered-id") + Bulk("0-0") +
                                Bulk("entries-read") + kNil));
}

// Valkey's "Consumer group lag with XDELs / XTRIM / XADD trimming" cases.
TEST_F(StreamCommandsTest, GroupLagFollowsTrimmingAndTombstones) {
  auto group = [&](int i) {
    std::string g = Run({"xinfo", "groups", "x"});
    // The i-th group map: skip the ones before it.
    size_t pos = 0;
    for (int k = 0; k <= i; ++k) pos = g.find(Bulk("entries-read"), pos + 1);
    return g.substr(pos);
  };
  auto lag = [&](int i, const std::string& read, const std::string& lag) {
    return group(i).rfind(Bulk("entries-read") + read + Bulk("lag") + lag, 0) == 0;
  };
  for (const char* trim : {"xtrim", "xadd"}) {
    Run({"del", "x"});
    for (int i = 1; i <= 5; ++i) Run({"xadd", "x", std::to_string(i) + "-0", "data", "a"});
    Run({"xdel", "x", "3-0"});
    Run({"xgroup", "create", "x", "g1", "0"});
    Run({"xgroup", "create", "x", "g2", "0"});
    EXPECT_TRUE(lag(0, kNil, kNil));
    for (int i = 0; i < 3; ++i) {
      Run({"xreadgroup", "group", "g1", "c11", "count", "1", "streams", "x", ">"});
      EXPECT_TRUE(lag(0, kNil, kNil)) << i;
    }
    Run({"xreadgroup", "group", "g1", "c11", "count", "1", "streams", "x", ">"});
    EXPECT_TRUE(lag(0, Int(5), Int(0)));
    Run({"xadd", "x", "6-0", "data", "f"});
    Run({"xadd", "x", "7-0", "data", "g"});
    EXPECT_TRUE(lag(0, Int(5), Int(2)));
    if (std::string(trim) == "xtrim") {
      Run({"xtrim", "x", "minid", "=", "7-0"});
      EXPECT_TRUE(lag(0, Int(5), Int(2)));
      EXPECT_TRUE(lag(1, kNil, Int(1)));
      Run({"xreadgroup", "group", "g1", "c11", "streams", "x", ">"});
      EXPECT_TRUE(lag(0, Int(7), Int(0)));
    } else {
      Run({"xadd", "x", "minid", "=", "7-0", "8-0", "data", "h"});
      EXPECT_TRUE(lag(0, Int(5), Int(3)));
      EXPECT_TRUE(lag(1, kNil, Int(2)));
      Run({"xreadgroup", "group", "g1", "c11", "streams", "x", ">"});
      EXPECT_TRUE(lag(0, Int(8), Int(0)));
    }
  }
  // An empty stream: nothing to read, whatever was deleted.
  Run({"del", "x"});
  Run({"xgroup", "create", "x", "g1", "0", "mkstream"});
  EXPECT_TRUE(lag(0, kNil, Int(0)));
  Run({"xadd", "x", "1-0", "data", "a"});
  Run({"xdel", "x", "1-0"});
  EXPECT_TRUE(lag(0, kNil, Int(0)));
}

TEST_F(StreamCommandsTest, ConsumersAreCreatedEvenWhenNothingIsDelivered) {
  Run({"xgroup", "create", "s", "g", "$", "mkstream"});
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "alice", "streams", "s", ">"}), kNullArr);
  EXPECT_EQ(Run({"xclaim", "s", "g", "bob", "0", "1-0"}), Arr(0));
  EXPECT_EQ(Run({"xautoclaim", "s", "g", "carol", "0", "0"}),
            Arr(3) + Bulk("0-0") + Arr(0) + Arr(0));
  std::string c = Run({"xinfo", "consumers", "s", "g"});
  EXPECT_TRUE(Has(c, Bulk("alice")) && Has(c, Bulk("bob")) && Has(c, Bulk("carol"))) << c;
  // A key named twice: the second read sees what the first delivered.
  Run({"xadd", "s", "1-0", "f", "v"});
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "alice", "streams", "s", "s", ">", ">"}),
            Arr(1) + Arr(2) + Bulk("s") + Arr(1) + Ent("1-0", {"f", "v"}));
  // The largest ID is ">" in disguise, as in Valkey.
  Run({"xadd", "s", "2-0", "f", "w"});
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "alice", "streams", "s",
                 "18446744073709551615-18446744073709551615"}),
            Arr(1) + Arr(2) + Bulk("s") + Arr(1) + Ent("2-0", {"f", "w"}));
}

TEST_F(StreamCommandsTest, ErrorTextsStopAtNulAsValkeysFormatting) {
  EXPECT_EQ(Run({"xpending", std::string("k\0z", 3), "g"}),
            Err("NOGROUP No such key 'k' or consumer group 'g'"));
}

TEST_F(StreamCommandsTest, XClaimAndXAutoClaim) {
  Fill("x", 3);
  Run({"xgroup", "create", "x", "grp", "0"});
  Run({"xreadgroup", "group", "grp", "alice", "streams", "x", ">"});
  Run({"xdel", "x", "2-0"});
  EXPECT_EQ(Run({"xclaim", "x", "grp", "bob", "0", "1-0", "2-0", "3-0"}),
            Arr(2) + Ent("1-0", {"f", "1"}) + Ent("3-0", {"f", "3"}));
  EXPECT_EQ(Run({"xpending", "x", "grp", "-", "+", "10", "alice"}), Arr(0));
  EXPECT_EQ(Run({"xclaim", "x", "grp", "carol", "0", "1-0", "justid"}), Arr(1) + Bulk("1-0"));
  EXPECT_TRUE(Has(Run({"xpending", "x", "grp", "-", "+", "1"}), Bulk("carol")));
  EXPECT_EQ(Run({"xclaim", "x", "grp", "carol", "0", "1-0", "retrycount", "7", "justid"}),
            Arr(1) + Bulk("1-0"));
  std::string p = Run({"xpending", "x", "grp", "-", "+", "1"});
  EXPECT_EQ(p.substr(p.size() - 4), Int(7));
  EXPECT_EQ(Run({"xclaim", "x", "grp", "bob", "x", "1-0"}),
            Err("ERR Invalid min-idle-time argument for XCLAIM"));
  EXPECT_EQ(Run({"xclaim", "x", "grp", "bob", "0", "1-0", "foo"}),
            Err("ERR Unrecognized XCLAIM option 'foo'"));
  EXPECT_EQ(Run({"xclaim", "x", "grp", "bob", "0", "1-0", "idle", "x"}),
            Err("ERR Invalid IDLE option argument for XCLAIM"));
  EXPECT_EQ(Run({"xclaim", "x", "nope", "bob", "0", "1-0"}),
            Err("NOGROUP No such key 'x' or consumer group 'nope'"));
  // FORCE creates a pending entry for an existing entry nobody was given.
  Run({"xadd", "x", "4-0", "f", "4"});
  EXPECT_EQ(Run({"xclaim", "x", "grp", "dave", "0", "4-0", "5-0", "force", "justid"}),
            Arr(1) + Bulk("4-0"));
  EXPECT_EQ(Run({"xclaim", "x", "grp", "dave", "0", "4-0", "lastid", "9-0", "justid"}),
            Arr(1) + Bulk("4-0"));
  EXPECT_TRUE(Has(Run({"xinfo", "groups", "x"}), Bulk("last-delivered-id") + Bulk("9-0")));

  Run({"del", "y"});
  Fill("y", 3);
  Run({"xgroup", "create", "y", "grp", "0"});
  Run({"xreadgroup", "group", "grp", "alice", "streams", "y", ">"});
  Run({"xdel", "y", "1-0", "2-0"});
  EXPECT_EQ(Run({"xautoclaim", "y", "grp", "bob", "0", "0-0", "count", "1"}),
            Arr(3) + Bulk("2-0") + Arr(0) + Arr(1) + Bulk("1-0"));
  EXPECT_EQ(Run({"xautoclaim", "y", "grp", "bob", "0", "2-0", "count", "1"}),
            Arr(3) + Bulk("3-0") + Arr(0) + Arr(1) + Bulk("2-0"));
  EXPECT_EQ(Run({"xautoclaim", "y", "grp", "bob", "0", "3-0", "count", "1"}),
            Arr(3) + Bulk("0-0") + Arr(1) + Ent("3-0", {"f", "3"}) + Arr(0));
  EXPECT_EQ(Run({"xautoclaim", "y", "grp", "bob", "0", "-", "justid"}),
            Arr(3) + Bulk("0-0") + Arr(1) + Bulk("3-0") + Arr(0));
  EXPECT_EQ(Run({"xautoclaim", "y", "grp", "bob", "0", "0", "count", "0"}),
            Err("ERR COUNT must be > 0"));
  EXPECT_EQ(Run({"xautoclaim", "y", "grp", "bob", "0", "0", "count", "8070450532247928833"}),
            Err("ERR COUNT must be > 0"));
  EXPECT_EQ(Run({"xautoclaim", "y", "grp", "bob", "x", "0"}),
            Err("ERR Invalid min-idle-time argument for XAUTOCLAIM"));
  EXPECT_EQ(Run({"xautoclaim", "y", "grp", "bob", "0", "0", "foo"}), Err("ERR syntax error"));
}

TEST_F(StreamCommandsTest, XGroupConsumersAndDestroy) {
  Fill("s", 2);
  Run({"xgroup", "create", "s", "g", "0"});
  EXPECT_EQ(Run({"xgroup", "createconsumer", "s", "g", "alice"}), Int(1));
  EXPECT_EQ(Run({"xgroup", "createconsumer", "s", "g", "alice"}), Int(0));
  EXPECT_EQ(Run({"xgroup", "createconsumer", "s", "nope", "alice"}),
            Err("NOGROUP No such consumer group 'nope' for key name 's'"));
  Run({"xreadgroup", "group", "g", "bob", "streams", "s", ">"});
  std::string consumers = Run({"xinfo", "consumers", "s", "g"});
  EXPECT_TRUE(consumers.rfind(Arr(2) + Arr(8) + Bulk("name") + Bulk("alice") + Bulk("pending") +
                                  Int(0) + Bulk("idle"),
                              0) == 0)
      << consumers;
  EXPECT_TRUE(Has(consumers, Bulk("inactive") + Int(-1)));
  EXPECT_TRUE(Has(consumers, Bulk("bob") + Bulk("pending") + Int(2)));
  EXPECT_EQ(Run({"xgroup", "delconsumer", "s", "g", "bob"}), Int(2));
  EXPECT_EQ(Run({"xgroup", "delconsumer", "s", "g", "bob"}), Int(0));
  EXPECT_EQ(Run({"xpending", "s", "g"}), Arr(4) + Int(0) + kNil + kNil + kNullArr);
  EXPECT_EQ(Run({"xgroup", "destroy", "s", "g"}), Int(1));
  EXPECT_EQ(Run({"xgroup", "destroy", "s", "g"}), Int(0));
  EXPECT_EQ(Run({"xinfo", "groups", "s"}), Arr(0));
  EXPECT_EQ(
      Run({"xgroup", "create", "s", "g", "$", "mkstream", "mkstream", "mkstream", "mkstream"}),
      Err("ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP "
          "HELP."));
  EXPECT_EQ(Run({"xgroup", "create", "s", "g", "$", "foo"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP "
                "HELP."));
  EXPECT_EQ(Run({"xgroup", "create", "s"}),
            Err("ERR wrong number of arguments for 'xgroup|create' command"));
  EXPECT_EQ(Run({"xgroup", "foo"}), Err("ERR unknown subcommand 'foo'. Try XGROUP HELP."));
  EXPECT_TRUE(Run({"xgroup", "help"}).rfind("*17\r\n+XGROUP <subcommand>", 0) == 0);
  EXPECT_TRUE(Run({"xinfo", "help"}).rfind("*9\r\n+XINFO <subcommand>", 0) == 0);
}

TEST_F(StreamCommandsTest, XInfoStreamFull) {
  Run({"xadd", "x", "100", "a", "1"});
  Run({"xadd", "x", "101", "b", "1"});
  Run({"xadd", "x", "102", "c", "1"});
  Run({"xgroup", "create", "x", "g1", "0"});
  Run({"xreadgroup", "group", "g1", "alice", "count", "1", "streams", "x", ">"});
  std::string full = Run({"xinfo", "stream", "x", "full", "count", "2"});
  EXPECT_TRUE(full.rfind("*18\r\n" + Bulk("length") + Int(3), 0) == 0) << full;
  EXPECT_TRUE(Has(full, Bulk("entries") + Arr(2) + Ent("100-0", {"a", "1"}) +
                            Ent("101-0", {"b", "1"}) + Bulk("groups") + Arr(1) + Arr(14) +
                            Bulk("name") + Bulk("g1") + Bulk("last-delivered-id") + Bulk("100-0") +
                            Bulk("entries-read") + Int(1) + Bulk("lag") + Int(2) +
                            Bulk("pel-count") + Int(1) + Bulk("pending") + Arr(1) + Arr(4) +
                            Bulk("100-0") + Bulk("alice")))
      << full;
  EXPECT_TRUE(Has(full, Bulk("consumers") + Arr(1) + Arr(10) + Bulk("name") + Bulk("alice") +
                            Bulk("seen-time")));
  std::string brief = Run({"xinfo", "stream", "x"});
  EXPECT_TRUE(Has(brief, Bulk("groups") + Int(1) + Bulk("first-entry") + Ent("100-0", {"a", "1"}) +
                             Bulk("last-entry") + Ent("102-0", {"c", "1"})));
  EXPECT_EQ(Run({"xinfo", "stream", "x", "foo"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO "
                "HELP."));
  EXPECT_EQ(Run({"xinfo", "stream", "nosuch"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"xinfo", "consumers", "x", "nope"}),
            Err("NOGROUP No such consumer group 'nope' for key name 'x'"));
}

TEST_F(StreamCommandsTest, CopyDigestAndDelete) {
  Fill("s", 150);
  Run({"xgroup", "create", "s", "g", "0"});
  Run({"xreadgroup", "group", "g", "c", "count", "5", "streams", "s", ">"});
  EXPECT_EQ(Run({"copy", "s", "t"}), Int(1));
  EXPECT_EQ(Run({"debug", "digest-value", "s"}), Run({"debug", "digest-value", "t"}));
  EXPECT_EQ(Run({"xrange", "s", "-", "+"}), Run({"xrange", "t", "-", "+"}));
  EXPECT_EQ(Run({"xpending", "t", "g"}), Run({"xpending", "s", "g"}));
  Run({"xadd", "t", "*", "f", "v"});
  EXPECT_NE(Run({"debug", "digest-value", "s"}), Run({"debug", "digest-value", "t"}));
  EXPECT_EQ(Run({"del", "s", "t"}), Int(2));
}

TEST_F(StreamCommandsTest, BlockingFormsAnswerAtOnceWhenTheyCannotBlock) {
  Fill("s", 1);
  client_->flags |= kClientDenyBlocking;  // as inside MULTI
  EXPECT_EQ(Run({"xread", "block", "0", "streams", "s", "$"}), kNullArr);
  Run({"xgroup", "create", "s", "g", "$"});
  EXPECT_EQ(Run({"xreadgroup", "group", "g", "c", "block", "0", "streams", "s", ">"}), kNullArr);
}

}  // namespace
}  // namespace vireo
