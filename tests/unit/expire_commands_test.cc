// Expiry commands and lazy / active expiry, checked against redis-server 7.0's replies.
#include <string>
#include <vector>

#include "common/clock.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

// Makes key logically expired without deleting it (as if its time had just passed).
void ExpireNow(Server* server, const std::string& key, int db = 0) {
  Entry* e = server->db(db)->FindRaw(key);
  ASSERT_NE(e, nullptr);
  (void)server->db(db)->SetExpire(e, 1);
}

int64_t ReplyInt(const std::string& r) {
  EXPECT_EQ(r[0], ':') << r;
  return std::stoll(r.substr(1));
}

TEST_F(CommandTest, ExpireSetsTtl) {
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"pttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(-1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(-1));
  EXPECT_EQ(Run({"expire", "k", "100"}), Int(1));
  int64_t ttl = ReplyInt(Run({"ttl", "k"}));
  EXPECT_TRUE(ttl == 100 || ttl == 99) << ttl;
  int64_t pttl = ReplyInt(Run({"pttl", "k"}));
  EXPECT_GT(pttl, 90000);
  EXPECT_LE(pttl, 100000);
  int64_t at = ReplyInt(Run({"pexpiretime", "k"}));
  EXPECT_GE(at, CommandTimeMs() + 90000);
  EXPECT_EQ(server_->db(0)->VolatileCount(), 1u);
}

TEST_F(CommandTest, ExpireEachCommandSetsAbsoluteTime) {
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"expireat", "k", "99999999999"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(99999999999000));
  EXPECT_EQ(Run({"expiretime", "k"}), Int(99999999999));
  EXPECT_EQ(Run({"pexpireat", "k", "99999999999999"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(99999999999999));
  EXPECT_EQ(Run({"pexpire", "k", "50000"}), Int(1));
  int64_t at = ReplyInt(Run({"pexpiretime", "k"}));
  EXPECT_GE(at, CommandTimeMs() + 40000);
  EXPECT_LE(at, CommandTimeMs() + 50000);
}

TEST_F(CommandTest, ExpireTimeRoundsSeconds) {
  // EXPIRETIME (like TTL) rounds to the nearest second, as Valkey does.
  Run({"set", "k", "v"});
  Run({"pexpireat", "k", "99999999999499"});
  EXPECT_EQ(Run({"expiretime", "k"}), Int(99999999999));
  Run({"pexpireat", "k", "99999999999500"});
  EXPECT_EQ(Run({"expiretime", "k"}), Int(100000000000));
}

TEST_F(CommandTest, ExpireMissingKey) {
  EXPECT_EQ(Run({"expire", "nope", "100"}), Int(0));
  EXPECT_EQ(Run({"pexpire", "nope", "100"}), Int(0));
  EXPECT_EQ(Run({"expireat", "nope", "100"}), Int(0));
  EXPECT_EQ(Run({"pexpireat", "nope", "100"}), Int(0));
  EXPECT_EQ(Run({"ttl", "nope"}), Int(-2));
  EXPECT_EQ(Run({"pttl", "nope"}), Int(-2));
  EXPECT_EQ(Run({"expiretime", "nope"}), Int(-2));
  EXPECT_EQ(Run({"pexpiretime", "nope"}), Int(-2));
  EXPECT_EQ(Run({"persist", "nope"}), Int(0));
  EXPECT_EQ(Run({"exists", "nope"}), Int(0));
}

TEST_F(CommandTest, ExpireInThePastDeletes) {
  uint64_t expired_before = server_->keyspace_stats().expired_keys;
  for (const std::vector<std::string>& cmd :
       std::vector<std::vector<std::string>>{{"expire", "k", "-1"},
                                             {"expire", "k", "0"},
                                             {"pexpire", "k", "-100"},
                                             {"expireat", "k", "100"},
                                             {"pexpireat", "k", "1"},
                                             {"expire", "k", "-9223372036854775"}}) {
    Run({"set", "k", "v"});
    uint64_t dirty = server_->dirty();
    EXPECT_EQ(Run(cmd), Int(1)) << cmd[0] << " " << cmd[2];
    EXPECT_EQ(Run({"exists", "k"}), Int(0));
    EXPECT_EQ(server_->dirty(), dirty + 1);
  }
  // A deletion by command, not an expiry.
  EXPECT_EQ(server_->keyspace_stats().expired_keys, expired_before);
  EXPECT_EQ(server_->db(0)->VolatileCount(), 0u);
}

TEST_F(CommandTest, ExpireInThePastLazyExpireConfig) {
  server_->config().lazyfree_lazy_expire = true;
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"expire", "k", "-1"}), Int(1));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(CommandTest, ExpireOptionErrors) {
  Run({"set", "k", "v"});
  const std::string nx = "ERR NX and XX, GT or LT options at the same time are not compatible";
  const std::string gtlt = "ERR GT and LT options at the same time are not compatible";
  EXPECT_EQ(Run({"expire", "k", "100", "nx", "xx"}), Err(nx));
  EXPECT_EQ(Run({"expire", "k", "100", "nx", "gt"}), Err(nx));
  EXPECT_EQ(Run({"expire", "k", "100", "lt", "nx"}), Err(nx));
  EXPECT_EQ(Run({"expire", "k", "100", "nx", "gt", "lt"}), Err(nx));
  EXPECT_EQ(Run({"expire", "k", "100", "gt", "lt"}), Err(gtlt));
  EXPECT_EQ(Run({"pexpire", "k", "100", "xx", "gt", "lt"}), Err(gtlt));
  EXPECT_EQ(Run({"expire", "k", "100", "foo"}), Err("ERR Unsupported option foo"));
  // Options are checked before the time.
  EXPECT_EQ(Run({"expire", "k", "abc", "foo"}), Err("ERR Unsupported option foo"));
  EXPECT_EQ(Run({"expire", "k", "abc"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"expire", "k", "1.5"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"expire", "k"}), Err("ERR wrong number of arguments for 'expire' command"));
  EXPECT_EQ(Run({"ttl"}), Err("ERR wrong number of arguments for 'ttl' command"));
  EXPECT_EQ(Run({"ttl", "a", "b"}), Err("ERR wrong number of arguments for 'ttl' command"));
  EXPECT_EQ(Run({"persist"}), Err("ERR wrong number of arguments for 'persist' command"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));  // nothing changed
}

TEST_F(CommandTest, ExpireOverflow) {
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"expire", "k", "9223372036854775807"}),
            Err("ERR invalid expire time in 'expire' command"));
  EXPECT_EQ(Run({"expire", "k", "-9223372036854775808"}),
            Err("ERR invalid expire time in 'expire' command"));
  EXPECT_EQ(Run({"expire", "k", "9223372036854775"}),  // fits after *1000, not after +now
            Err("ERR invalid expire time in 'expire' command"));
  EXPECT_EQ(Run({"pexpire", "k", "9223372036854775807"}),
            Err("ERR invalid expire time in 'pexpire' command"));
  EXPECT_EQ(Run({"expireat", "k", "9223372036854775807"}),
            Err("ERR invalid expire time in 'expireat' command"));
  // Overflow is reported even for a missing key: the time is checked first.
  EXPECT_EQ(Run({"expire", "nope", "9223372036854775807"}),
            Err("ERR invalid expire time in 'expire' command"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  // PEXPIREAT takes any positive int64.
  EXPECT_EQ(Run({"pexpireat", "k", "9223372036854775807"}), Int(1));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(9223372036854775807LL));
}

TEST_F(CommandTest, ExpireConditions) {
  Run({"set", "k", "v"});
  // Without a TTL: NX sets, XX and GT refuse, LT sets (no TTL counts as infinite).
  EXPECT_EQ(Run({"expire", "k", "100", "xx"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "100", "gt"}), Int(0));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"expire", "k", "100", "lt"}), Int(1));
  Run({"persist", "k"});
  EXPECT_EQ(Run({"expire", "k", "100", "nx"}), Int(1));
  // With a TTL of 100s.
  EXPECT_EQ(Run({"expire", "k", "50", "nx"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "50", "gt"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "200", "GT"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "300", "lt"}), Int(0));
  EXPECT_EQ(Run({"expire", "k", "50", "LT"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "60", "xx"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "70", "xx", "gt"}), Int(1));
  EXPECT_EQ(Run({"expire", "k", "10", "xx", "gt"}), Int(0));
  int64_t ttl = ReplyInt(Run({"ttl", "k"}));
  EXPECT_TRUE(ttl == 70 || ttl == 69) << ttl;
  // Equal times are neither greater nor less.
  Run({"pexpireat", "k", "99999999999999"});
  EXPECT_EQ(Run({"pexpireat", "k", "99999999999999", "gt"}), Int(0));
  EXPECT_EQ(Run({"pexpireat", "k", "99999999999999", "lt"}), Int(0));
  // A past time passing LT deletes the key.
  EXPECT_EQ(Run({"expire", "k", "-5", "lt"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(CommandTest, ExpirePersist) {
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"persist", "k"}), Int(0));
  Run({"expire", "k", "100"});
  uint64_t dirty = server_->dirty();
  EXPECT_EQ(Run({"persist", "k"}), Int(1));
  EXPECT_EQ(server_->dirty(), dirty + 1);
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"persist", "k"}), Int(0));
  EXPECT_EQ(server_->db(0)->VolatileCount(), 0u);
}

TEST_F(CommandTest, ExpireSetClearsTtl) {
  Run({"set", "k", "v"});
  Run({"expire", "k", "100"});
  Run({"set", "k", "w"});
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(server_->db(0)->VolatileCount(), 0u);
}

TEST_F(CommandTest, ExpireLazyOnAccess) {
  Run({"set", "k", "v"});
  Run({"set", "other", "v"});
  ExpireNow(server_.get(), "k");
  uint64_t expired = server_->keyspace_stats().expired_keys;
  EXPECT_EQ(Run({"dbsize"}), Int(2));  // not yet removed: nobody looked
  EXPECT_EQ(Run({"get", "k"}), kNil);
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(server_->keyspace_stats().expired_keys, expired + 1);
  EXPECT_EQ(server_->db(0)->VolatileCount(), 0u);
}

TEST_F(CommandTest, ExpireLazyForEveryCommand) {
  // clang-format off
  const std::vector<std::vector<std::string>> probes = {
      {"ttl", "k"},         {"pttl", "k"},          {"expiretime", "k"},
      {"pexpiretime", "k"}, {"exists", "k"},        {"type", "k"},
      {"persist", "k"},     {"expire", "k", "100"}, {"object", "encoding", "k"},
      {"touch", "k"},       {"rename", "k", "x"},   {"move", "k", "1"},
      {"copy", "k", "x"},   {"del", "k"}};
  const std::vector<std::string> replies = {
      Int(-2), Int(-2), Int(-2), Int(-2), Int(0), "+none\r\n", Int(0), Int(0), kNil, Int(0),
      Err("ERR no such key"), Int(0), Int(0), Int(0)};
  // clang-format on
  for (size_t i = 0; i < probes.size(); ++i) {
    Run({"set", "k", "v"});
    ExpireNow(server_.get(), "k");
    EXPECT_EQ(Run(probes[i]), replies[i]) << probes[i][0];
    EXPECT_EQ(server_->db(0)->FindRaw("k"), nullptr) << probes[i][0];
  }
  EXPECT_EQ(server_->db(0)->VolatileCount(), 0u);
}

TEST_F(CommandTest, ExpireExpiredDestinationIsFree) {
  Run({"set", "src", "1"});
  Run({"set", "dst", "2"});
  ExpireNow(server_.get(), "dst");
  EXPECT_EQ(Run({"renamenx", "src", "dst"}), Int(1));
  EXPECT_EQ(Run({"get", "dst"}), Bulk("1"));
  EXPECT_EQ(Run({"ttl", "dst"}), Int(-1));
}

TEST_F(CommandTest, ExpireActiveCycle) {
  Db* db = server_->db(0);
  for (int i = 0; i < 1000; ++i) {
    std::string k = "vol:" + std::to_string(i);
    Run({"set", k, "v"});
    ExpireNow(server_.get(), k);
  }
  for (int i = 0; i < 100; ++i) Run({"set", "keep:" + std::to_string(i), "v"});
  Run({"set", "later", "v"});
  Run({"expire", "later", "1000"});
  uint64_t expired = server_->keyspace_stats().expired_keys;
  size_t removed = 0;
  for (int round = 0; round < 1000 && db->Size() > 101; ++round) {
    removed += db->ActiveExpire(16);
  }
  EXPECT_EQ(removed, 1000u);
  EXPECT_EQ(db->Size(), 101u);
  EXPECT_EQ(db->VolatileCount(), 1u);
  EXPECT_EQ(server_->keyspace_stats().expired_keys, expired + 1000);
  EXPECT_EQ(Run({"ttl", "later"}), Int(1000));
  // Nothing left to do: a cycle over a table without expired keys removes nothing.
  EXPECT_EQ(db->ActiveExpire(10000), 0u);
}

// The expiry hook sees each expired key's name (keyspace notifications attach there).
std::vector<std::string>* g_hook_keys = nullptr;
void RecordExpired(int db_index, std::string_view key) {
  g_hook_keys->push_back(std::to_string(db_index) + ":" + std::string(key));
}

TEST_F(CommandTest, ExpireHookSeesKey) {
  std::vector<std::string> keys;
  g_hook_keys = &keys;
  Db::SetExpiredHook(RecordExpired);
  Run({"select", "2"});
  Run({"set", "gone", "v"});
  ExpireNow(server_.get(), "gone", 2);
  EXPECT_EQ(Run({"get", "gone"}), kNil);
  Db::SetExpiredHook(nullptr);
  g_hook_keys = nullptr;
  EXPECT_EQ(keys, std::vector<std::string>{"2:gone"});
}

}  // namespace
}  // namespace vireo
