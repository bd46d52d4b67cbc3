// Keys family and whole-database commands, checked against redis-server 7.0's replies.
#include <set>
#include <string>
#include <vector>

#include "common/clock.h"
#include "store/value.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

// Reads one bulk string at *pos of a RESP2 reply.
std::string ReadBulk(const std::string& r, size_t* pos) {
  EXPECT_EQ(r[*pos], '$');
  size_t eol = r.find("\r\n", *pos);
  size_t len = std::stoul(r.substr(*pos + 1, eol - *pos - 1));
  std::string s = r.substr(eol + 2, len);
  *pos = eol + 2 + len + 2;
  return s;
}

// Reads an array header at *pos and returns its length.
size_t ReadArrayLen(const std::string& r, size_t* pos) {
  EXPECT_EQ(r[*pos], '*');
  size_t eol = r.find("\r\n", *pos);
  size_t n = std::stoul(r.substr(*pos + 1, eol - *pos - 1));
  *pos = eol + 2;
  return n;
}

// The elements of a flat array of bulk strings (KEYS).
std::vector<std::string> BulkArray(const std::string& r) {
  size_t pos = 0;
  size_t n = ReadArrayLen(r, &pos);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(ReadBulk(r, &pos));
  return out;
}

// A SCAN reply: the next cursor and the keys.
struct ScanReply {
  std::string cursor;
  std::vector<std::string> keys;
};
ScanReply ParseScan(const std::string& r) {
  size_t pos = 0;
  EXPECT_EQ(ReadArrayLen(r, &pos), 2u);
  ScanReply out;
  out.cursor = ReadBulk(r, &pos);
  size_t n = ReadArrayLen(r, &pos);
  for (size_t i = 0; i < n; ++i) out.keys.push_back(ReadBulk(r, &pos));
  return out;
}

std::set<std::string> Sorted(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

// Makes key logically expired without deleting it (lazy / active expiry must find it).
void ExpireNow(Server* server, const std::string& key, int db = 0) {
  Entry* e = server->db(db)->FindRaw(key);
  ASSERT_NE(e, nullptr);
  (void)server->db(db)->SetExpire(e, 1);
}

TEST_F(CommandTest, KeysDelAndUnlink) {
  EXPECT_EQ(Run({"set", "a", "1"}), kOk);
  EXPECT_EQ(Run({"set", "b", "2"}), kOk);
  EXPECT_EQ(Run({"del", "a", "a", "nope"}), Int(1));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
  EXPECT_EQ(Run({"unlink", "b", "nope"}), Int(1));
  EXPECT_EQ(Run({"unlink", "b"}), Int(0));
  EXPECT_EQ(Run({"del"}), Err("ERR wrong number of arguments for 'del' command"));
  EXPECT_EQ(Run({"unlink"}), Err("ERR wrong number of arguments for 'unlink' command"));
  uint64_t dirty = server_->dirty();
  Run({"set", "x", "1"});
  Run({"set", "y", "1"});
  EXPECT_EQ(Run({"del", "x", "y", "z"}), Int(2));
  EXPECT_EQ(server_->dirty(), dirty + 4);
}

TEST_F(CommandTest, KeysDelLazyUserDel) {
  server_->config().lazyfree_lazy_user_del = true;
  Run({"set", "a", "1"});
  EXPECT_EQ(Run({"del", "a"}), Int(1));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(CommandTest, KeysExistsCountsDuplicates) {
  Run({"set", "a", "1"});
  Run({"set", "b", "2"});
  EXPECT_EQ(Run({"exists", "a", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"exists", "c"}), Int(0));
  EXPECT_EQ(Run({"exists"}), Err("ERR wrong number of arguments for 'exists' command"));
}

TEST_F(CommandTest, KeysExistsCountsHitsAndMisses) {
  Run({"set", "a", "1"});
  KeyspaceStats before = server_->keyspace_stats();
  Run({"exists", "a", "b"});
  EXPECT_EQ(server_->keyspace_stats().keyspace_hits, before.keyspace_hits + 1);
  EXPECT_EQ(server_->keyspace_stats().keyspace_misses, before.keyspace_misses + 1);
}

TEST_F(CommandTest, KeysType) {
  Run({"set", "s", "v"});
  EXPECT_EQ(Run({"type", "s"}), "+string\r\n");
  EXPECT_EQ(Run({"type", "nope"}), "+none\r\n");
  EXPECT_EQ(Run({"type"}), Err("ERR wrong number of arguments for 'type' command"));
}

TEST_F(CommandTest, KeysRename) {
  EXPECT_EQ(Run({"rename", "nope", "x"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"rename", "nope", "nope"}), Err("ERR no such key"));
  Run({"set", "a", "hello"});
  EXPECT_EQ(Run({"rename", "a", "a"}), kOk);
  EXPECT_EQ(Run({"get", "a"}), Bulk("hello"));
  EXPECT_EQ(Run({"rename", "a", "b"}), kOk);
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
  EXPECT_EQ(Run({"get", "b"}), Bulk("hello"));
  // Overwrites an existing destination.
  Run({"set", "c", "12345"});
  EXPECT_EQ(Run({"rename", "c", "b"}), kOk);
  EXPECT_EQ(Run({"get", "b"}), Bulk("12345"));
  EXPECT_EQ(Run({"object", "encoding", "b"}), Bulk("int"));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
}

TEST_F(CommandTest, KeysRenameKeepsTtl) {
  Run({"set", "a", "v"});
  Run({"pexpireat", "a", "99999999999999"});
  EXPECT_EQ(Run({"rename", "a", "b"}), kOk);
  EXPECT_EQ(Run({"pexpiretime", "b"}), Int(99999999999999));
  // The destination's own TTL is replaced by the source's (none).
  Run({"set", "c", "v"});
  EXPECT_EQ(Run({"rename", "c", "b"}), kOk);
  EXPECT_EQ(Run({"ttl", "b"}), Int(-1));
  EXPECT_EQ(server_->db(0)->VolatileCount(), 0u);
}

TEST_F(CommandTest, KeysRenameLongValue) {
  std::string big(1000, 'x');
  Run({"set", "a", big});
  Run({"append", "a", "y"});
  EXPECT_EQ(Run({"rename", "a", "a-much-longer-key-name-than-before"}), kOk);
  EXPECT_EQ(Run({"get", "a-much-longer-key-name-than-before"}), Bulk(big + "y"));
  EXPECT_EQ(Run({"object", "encoding", "a-much-longer-key-name-than-before"}), Bulk("raw"));
}

TEST_F(CommandTest, KeysRenameNx) {
  EXPECT_EQ(Run({"renamenx", "nope", "nope"}), Err("ERR no such key"));
  Run({"set", "a", "1"});
  Run({"set", "b", "2"});
  EXPECT_EQ(Run({"renamenx", "a", "b"}), Int(0));
  EXPECT_EQ(Run({"renamenx", "a", "a"}), Int(0));
  EXPECT_EQ(Run({"renamenx", "a", "c"}), Int(1));
  EXPECT_EQ(Run({"get", "c"}), Bulk("1"));
  EXPECT_EQ(Run({"get", "b"}), Bulk("2"));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
}

TEST_F(CommandTest, KeysCopy) {
  EXPECT_EQ(Run({"copy", "nope", "x"}), Int(0));
  Run({"set", "a", "hello"});
  EXPECT_EQ(Run({"copy", "a", "a"}), Err("ERR source and destination objects are the same"));
  EXPECT_EQ(Run({"copy", "a", "a", "db", "0"}),
            Err("ERR source and destination objects are the same"));
  EXPECT_EQ(Run({"copy", "a", "b"}), Int(1));
  EXPECT_EQ(Run({"copy", "a", "b"}), Int(0));
  Run({"set", "a", "world"});
  EXPECT_EQ(Run({"get", "b"}), Bulk("hello"));  // a deep copy
  EXPECT_EQ(Run({"copy", "a", "b", "replace"}), Int(1));
  EXPECT_EQ(Run({"get", "b"}), Bulk("world"));
  EXPECT_EQ(Run({"copy", "a", "a", "db", "1"}), Int(1));
  EXPECT_EQ(Run({"select", "1"}), kOk);
  EXPECT_EQ(Run({"get", "a"}), Bulk("world"));
}

TEST_F(CommandTest, KeysCopyErrors) {
  Run({"set", "a", "1"});
  EXPECT_EQ(Run({"copy", "a", "b", "db", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"copy", "a", "b", "db", "-1"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"copy", "a", "b", "db", "abc"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"copy", "a", "b", "db", "99999999999"}),
            Err("ERR value is out of range, value must between -2147483648 and 2147483647"));
  EXPECT_EQ(Run({"copy", "a", "b", "db"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"copy", "a", "b", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"copy", "a", "b", "replace", "db"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"copy", "a"}), Err("ERR wrong number of arguments for 'copy' command"));
  EXPECT_EQ(Run({"exists", "b"}), Int(0));
}

TEST_F(CommandTest, KeysCopyKeepsEncodingAndTtl) {
  Run({"set", "i", "42"});
  Run({"set", "e", "short"});
  Run({"set", "r", std::string(100, 'r')});
  Run({"pexpireat", "r", "99999999999999"});
  for (const char* k : {"i", "e", "r"}) {
    EXPECT_EQ(Run({"copy", k, std::string(k) + "2"}), Int(1));
    EXPECT_EQ(Run({"object", "encoding", std::string(k) + "2"}), Run({"object", "encoding", k}));
    EXPECT_EQ(Run({"get", std::string(k) + "2"}), Run({"get", k}));
  }
  EXPECT_EQ(Run({"pexpiretime", "r2"}), Int(99999999999999));
  EXPECT_EQ(Run({"ttl", "e2"}), Int(-1));
  EXPECT_EQ(server_->db(0)->VolatileCount(), 2u);
  // Replacing a volatile key with a persistent one keeps the volatile count right.
  EXPECT_EQ(Run({"copy", "e", "r2", "replace"}), Int(1));
  EXPECT_EQ(server_->db(0)->VolatileCount(), 1u);
}

TEST_F(CommandTest, KeysMove) {
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"move", "k", "0"}), Err("ERR source and destination objects are the same"));
  EXPECT_EQ(Run({"move", "k", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"move", "k", "-1"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"move", "k", "abc"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"move", "k", "99999999999"}),
            Err("ERR value is out of range, value must between -2147483648 and 2147483647"));
  EXPECT_EQ(Run({"move", "nope", "1"}), Int(0));
  Run({"pexpireat", "k", "99999999999999"});
  EXPECT_EQ(Run({"move", "k", "1"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  Run({"set", "k", "other"});
  EXPECT_EQ(Run({"move", "k", "1"}), Int(0));  // the target already has it
  EXPECT_EQ(Run({"get", "k"}), Bulk("other"));
  Run({"select", "1"});
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(99999999999999));
  EXPECT_EQ(server_->db(0)->VolatileCount(), 0u);
  EXPECT_EQ(server_->db(1)->VolatileCount(), 1u);
}

TEST_F(CommandTest, KeysTouch) {
  Run({"set", "a", "1"});
  Run({"set", "b", "1"});
  EXPECT_EQ(Run({"touch", "a", "b", "c", "a"}), Int(3));
  EXPECT_EQ(Run({"touch"}), Err("ERR wrong number of arguments for 'touch' command"));
}

TEST_F(CommandTest, KeysObjectEncoding) {
  Run({"set", "i", "12345"});
  Run({"set", "e", "hello"});
  Run({"set", "r", std::string(45, 'x')});
  EXPECT_EQ(Run({"object", "encoding", "i"}), Bulk("int"));
  EXPECT_EQ(Run({"object", "encoding", "e"}), Bulk("embstr"));
  EXPECT_EQ(Run({"object", "encoding", "r"}), Bulk("raw"));
  EXPECT_EQ(Run({"object", "encoding", "nope"}), kNil);
  EXPECT_EQ(Run({"OBJECT", "ENCODING", "i"}), Bulk("int"));
  EXPECT_EQ(Run({"object", "encoding"}),
            Err("ERR wrong number of arguments for 'object|encoding' command"));
  EXPECT_EQ(Run({"object", "encoding", "a", "b"}),
            Err("ERR wrong number of arguments for 'object|encoding' command"));
  EXPECT_EQ(Run({"object"}), Err("ERR wrong number of arguments for 'object' command"));
  EXPECT_EQ(Run({"object", "foo", "i"}), Err("ERR unknown subcommand 'foo'. Try OBJECT HELP."));
}

TEST_F(CommandTest, KeysObjectRefcount) {
  Run({"set", "small", "2"});
  Run({"set", "big", "123456"});
  Run({"set", "neg", "-1"});
  Run({"set", "s", "hello"});
  EXPECT_EQ(Run({"object", "refcount", "small"}), Int(2147483647));
  EXPECT_EQ(Run({"object", "refcount", "big"}), Int(1));
  EXPECT_EQ(Run({"object", "refcount", "neg"}), Int(1));
  EXPECT_EQ(Run({"object", "refcount", "s"}), Int(1));
  EXPECT_EQ(Run({"object", "refcount", "nope"}), kNil);
  // With an LRU policy and a memory limit each key needs its own clock: nothing is shared.
  server_->config().maxmemory = 1 << 30;
  server_->config().maxmemory_policy = "allkeys-lru";
  EXPECT_EQ(Run({"object", "refcount", "small"}), Int(1));
}

TEST_F(CommandTest, KeysObjectIdletimeAndFreq) {
  Run({"set", "k", "v"});
  EXPECT_TRUE(IdleTimeIs("k", 0));
  EXPECT_EQ(Run({"object", "idletime", "nope"}), kNil);
  EXPECT_EQ(Run({"object", "freq", "nope"}), kNil);
  EXPECT_EQ(Run({"object", "freq", "k"}),
            Err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                "Please note that when switching between policies at runtime LRU and LFU data "
                "will take some time to adjust."));
  server_->config().maxmemory_policy = "allkeys-lfu";
  EXPECT_EQ(Run({"object", "freq", "k"}), Int(0));
  EXPECT_EQ(Run({"object", "idletime", "k"}),
            Err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note "
                "that when switching between policies at runtime LRU and LFU data will take "
                "some time to adjust."));
}

TEST_F(CommandTest, KeysObjectIdletimeFromClock) {
  Run({"set", "k", "v"});
  Entry* e = server_->db(0)->FindRaw("k");
  ASSERT_NE(e, nullptr);
  e->SetLru((LruClock() - 100) & ((1u << 24) - 1));
  EXPECT_TRUE(IdleTimeIs("k", 100));
  // Reading the idle time, the type or the TTL is not an access; GET is.
  Run({"type", "k"});
  Run({"ttl", "k"});
  Run({"exists", "k"});
  EXPECT_TRUE(IdleTimeIs("k", 100));
  Run({"get", "k"});
  EXPECT_TRUE(IdleTimeIs("k", 0));
  e->SetLru((LruClock() - 50) & ((1u << 24) - 1));
  Run({"touch", "k"});
  EXPECT_TRUE(IdleTimeIs("k", 0));
}

TEST_F(CommandTest, KeysObjectHelp) {
  std::string help = Run({"object", "help"});
  EXPECT_EQ(help.rfind("*15\r\n+OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"
                       "+ENCODING <key>\r\n",
                       0),
            0u);
  EXPECT_NE(help.find("+    Print this help.\r\n"), std::string::npos);
  EXPECT_EQ(Run({"object", "help", "x"}),
            Err("ERR wrong number of arguments for 'object|help' command"));
}

TEST_F(CommandTest, KeysRandomKey) {
  EXPECT_EQ(Run({"randomkey"}), kNil);
  Run({"set", "only", "1"});
  EXPECT_EQ(Run({"randomkey"}), Bulk("only"));
  EXPECT_EQ(Run({"randomkey", "x"}), Err("ERR wrong number of arguments for 'randomkey' command"));
}

TEST_F(CommandTest, KeysRandomKeySkipsExpired) {
  Run({"set", "live", "1"});
  Run({"set", "dead", "1"});
  ExpireNow(server_.get(), "dead");
  for (int i = 0; i < 20; ++i) EXPECT_EQ(Run({"randomkey"}), Bulk("live"));
}

TEST_F(CommandTest, KeysKeysPattern) {
  for (const char* k : {"a", "b", "ab", "hello", "hallo", "h*llo", ""}) Run({"set", k, "1"});
  EXPECT_EQ(Sorted(BulkArray(Run({"keys", "*"}))),
            (std::set<std::string>{"", "a", "b", "ab", "hello", "hallo", "h*llo"}));
  EXPECT_EQ(Sorted(BulkArray(Run({"keys", "?"}))), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(Sorted(BulkArray(Run({"keys", "h[ae]llo"}))),
            (std::set<std::string>{"hello", "hallo"}));
  EXPECT_EQ(Sorted(BulkArray(Run({"keys", "h\\*llo"}))), (std::set<std::string>{"h*llo"}));
  EXPECT_EQ(Sorted(BulkArray(Run({"keys", "a*"}))), (std::set<std::string>{"a", "ab"}));
  EXPECT_EQ(Run({"keys", "zz*"}), "*0\r\n");
  EXPECT_EQ(Run({"keys"}), Err("ERR wrong number of arguments for 'keys' command"));
}

TEST_F(CommandTest, KeysKeysSkipsExpired) {
  Run({"set", "a", "1"});
  Run({"set", "b", "1"});
  ExpireNow(server_.get(), "b");
  EXPECT_EQ(BulkArray(Run({"keys", "*"})), std::vector<std::string>{"a"});
}

TEST_F(CommandTest, KeysScanErrors) {
  EXPECT_EQ(Run({"scan", "abc"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "1 "}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "1.5"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "-"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "18446744073709551616"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "-18446744073709551616"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "0", "count", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan", "0", "count", "-1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan", "0", "count", "abc"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"scan", "0", "match"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan", "0", "type"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan", "0", "foo", "bar"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan"}), Err("ERR wrong number of arguments for 'scan' command"));
  // The cursor is checked before the options.
  EXPECT_EQ(Run({"scan", "x", "count", "0"}), Err("ERR invalid cursor"));
}

TEST_F(CommandTest, KeysScanCursorForms) {
  // Valkey 8's string2ull: a plain negative number and "" are refused; strtoull's other
  // forms (sign, leading zeros or spaces, a '-' that wraps) pass.
  EXPECT_EQ(Run({"scan", ""}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "-1"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "1 "}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "+0"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"scan", "-0"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"scan", " 0"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"scan", "007"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"scan", "18446744073709551615"}), "*2\r\n$1\r\n0\r\n*0\r\n");
  EXPECT_EQ(Run({"scan", "-18446744073709551615"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_F(CommandTest, KeysScanFullIteration) {
  std::set<std::string> expected;
  for (int i = 0; i < 500; ++i) {
    std::string k = "key:" + std::to_string(i);
    Run({"set", k, "v"});
    expected.insert(k);
  }
  Run({"set", "", "empty-key"});
  expected.insert("");
  std::set<std::string> seen;
  std::string cursor = "0";
  int calls = 0;
  do {
    ScanReply r = ParseScan(Run({"scan", cursor}));
    seen.insert(r.keys.begin(), r.keys.end());
    cursor = r.cursor;
    ASSERT_LT(++calls, 10000);
  } while (cursor != "0");
  EXPECT_EQ(seen, expected);
  EXPECT_GT(calls, 10);  // COUNT 10 by default: many steps
}

TEST_F(CommandTest, KeysScanMatchCountType) {
  for (int i = 0; i < 100; ++i) Run({"set", "user:" + std::to_string(i), "v"});
  for (int i = 0; i < 100; ++i) Run({"set", "item:" + std::to_string(i), "v"});
  std::set<std::string> seen;
  std::string cursor = "0";
  do {
    ScanReply r = ParseScan(Run({"scan", cursor, "MATCH", "user:1*", "COUNT", "7"}));
    for (const std::string& k : r.keys) {
      EXPECT_EQ(k.rfind("user:1", 0), 0u) << k;
      seen.insert(k);
    }
    cursor = r.cursor;
  } while (cursor != "0");
  EXPECT_EQ(seen.size(), 11u);  // user:1, user:10..user:19
  // One big COUNT covers the small table in one call.
  ScanReply all = ParseScan(Run({"scan", "0", "count", "100000", "type", "STRING"}));
  EXPECT_EQ(all.cursor, "0");
  EXPECT_EQ(all.keys.size(), 200u);
  ScanReply none = ParseScan(Run({"scan", "0", "count", "100000", "type", "list"}));
  EXPECT_TRUE(none.keys.empty());
  // Valkey 8 refuses a name that is no type (Redis 7.0 matched nothing).
  EXPECT_EQ(Run({"scan", "0", "count", "100000", "type", "nosuch"}),
            Err("ERR unknown type name 'nosuch'"));
  // Repeated options: the last one wins.
  ScanReply last =
      ParseScan(Run({"scan", "0", "count", "100000", "match", "x*", "match", "item:5*"}));
  EXPECT_EQ(last.keys.size(), 11u);
}

// Keys present for the whole scan are returned even when inserts grow the table mid-scan.
TEST_F(CommandTest, KeysScanAcrossGrowth) {
  std::set<std::string> original;
  for (int i = 0; i < 200; ++i) {
    std::string k = "orig:" + std::to_string(i);
    Run({"set", k, "v"});
    original.insert(k);
  }
  std::set<std::string> seen;
  std::string cursor = "0";
  int added = 0;
  int steps = 0;
  do {
    ScanReply r = ParseScan(Run({"scan", cursor, "count", "5"}));
    seen.insert(r.keys.begin(), r.keys.end());
    cursor = r.cursor;
    // Growth early in the scan, while most original keys are still ahead of the cursor.
    if (++steps <= 100) {
      for (int j = 0; j < 20; ++j) Run({"set", "new:" + std::to_string(added++), "v"});
    }
  } while (cursor != "0");
  for (const std::string& k : original) EXPECT_TRUE(seen.count(k)) << k;
  EXPECT_EQ(Run({"dbsize"}), Int(2200));  // the table grew several times during the scan
}

TEST_F(CommandTest, KeysScanSkipsExpired) {
  Run({"set", "a", "1"});
  Run({"set", "b", "1"});
  ExpireNow(server_.get(), "b");
  ScanReply r = ParseScan(Run({"scan", "0", "count", "1000"}));
  EXPECT_EQ(r.keys, std::vector<std::string>{"a"});
}

TEST_F(CommandTest, KeysDbSize) {
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  Run({"set", "a", "1"});
  Run({"set", "b", "1"});
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  Run({"select", "3"});
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"dbsize", "x"}), Err("ERR wrong number of arguments for 'dbsize' command"));
}

TEST_F(CommandTest, KeysFlushDb) {
  Run({"set", "a", "1"});
  Run({"select", "1"});
  Run({"set", "b", "1"});
  EXPECT_EQ(Run({"flushdb", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"flushdb", "async", "sync"}), Err("ERR syntax error"));
  uint64_t dirty = server_->dirty();
  EXPECT_EQ(Run({"flushdb"}), kOk);
  EXPECT_EQ(server_->dirty(), dirty + 1);
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(server_->db(0)->Size(), 1u);  // other databases are untouched
  Run({"set", "b", "1"});
  EXPECT_EQ(Run({"flushdb", "ASYNC"}), kOk);
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  Run({"set", "b", "1"});
  EXPECT_EQ(Run({"flushdb", "sync"}), kOk);
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  server_->config().lazyfree_lazy_user_flush = true;
  Run({"set", "b", "1"});
  EXPECT_EQ(Run({"flushdb"}), kOk);
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(CommandTest, KeysFlushAll) {
  for (int db = 0; db < 4; ++db) {
    Run({"select", std::to_string(db)});
    Run({"set", "k", "v"});
    Run({"pexpireat", "k", "99999999999999"});
  }
  EXPECT_EQ(Run({"flushall", "async", "foo"}), Err("ERR syntax error"));
  uint64_t dirty = server_->dirty();
  EXPECT_EQ(Run({"flushall"}), kOk);
  EXPECT_EQ(server_->dirty(), dirty + 5);
  for (int db = 0; db < 4; ++db) {
    EXPECT_EQ(server_->db(db)->Size(), 0u);
    EXPECT_EQ(server_->db(db)->VolatileCount(), 0u);
  }
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"flushall", "async"}), kOk);
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"FLUSHALL", "SYNC"}), kOk);
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(CommandTest, KeysSwapDb) {
  Run({"set", "in0", "a"});
  Run({"select", "1"});
  Run({"set", "in1", "b"});
  Run({"pexpireat", "in1", "99999999999999"});
  Run({"select", "0"});
  EXPECT_EQ(Run({"swapdb", "0", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"swapdb", "-1", "0"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"swapdb", "abc", "1"}), Err("ERR invalid first DB index"));
  EXPECT_EQ(Run({"swapdb", "1", "abc"}), Err("ERR invalid second DB index"));
  EXPECT_EQ(Run({"swapdb", "99999999999", "1"}), Err("ERR invalid first DB index"));
  EXPECT_EQ(Run({"swapdb", "0", "0"}), kOk);
  EXPECT_EQ(Run({"swapdb", "0", "1"}), kOk);
  EXPECT_EQ(Run({"get", "in1"}), Bulk("b"));
  EXPECT_EQ(Run({"exists", "in0"}), Int(0));
  EXPECT_EQ(Run({"pexpiretime", "in1"}), Int(99999999999999));
  EXPECT_EQ(server_->db(0)->VolatileCount(), 1u);
  EXPECT_EQ(server_->db(1)->VolatileCount(), 0u);
  EXPECT_EQ(server_->db(0)->index(), 0);
  Run({"select", "1"});
  EXPECT_EQ(Run({"get", "in0"}), Bulk("a"));
}

}  // namespace
}  // namespace vireo
