// RDB round trips of every type and encoding: DUMP/RESTORE payloads and whole files written
// by WriteRdb and read back by LoadRdb, compared with DEBUG DIGEST-VALUE / DIGEST.
#include <cstdio>
#include <string>
#include <vector>

#include "persistence/rdb_reader.h"
#include "persistence/rdb_writer.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

class PersistenceTest : public CommandTest {
 protected:
  // One key of every type and encoding (small and big), a TTL, a second database.
  void Populate() {
    Run({"set", "s:int", "12345"});
    Run({"set", "s:big", "9223372036854775807"});
    Run({"set", "s:str", std::string(300, 'a') + "tail"});
    Run({"set", "s:ttl", "v", "px", "100000000"});
    Run({"rpush", "l:small", "a", "1", "-70000", "b"});
    for (int i = 0; i < 3000; ++i) Run({"rpush", "l:big", "element-" + std::to_string(i)});
    Run({"hset", "h:small", "f", "v", "n", "17"});
    for (int i = 0; i < 600; ++i) Run({"hset", "h:big", "f" + std::to_string(i), "v"});
    Run({"sadd", "set:int", "1", "2", "-3", "5000000000"});
    Run({"sadd", "set:lp", "a", "b", "1"});
    for (int i = 0; i < 300; ++i) Run({"sadd", "set:big", "m" + std::to_string(i)});
    Run({"zadd", "z:small", "1", "a", "2.5", "b", "-inf", "c"});
    for (int i = 0; i < 200; ++i)
      Run({"zadd", "z:big", std::to_string(i * 0.25), "m" + std::to_string(i)});
    for (int i = 1; i <= 150; ++i) {
      Run({"xadd", "x", std::to_string(i) + "-1", "temp", std::to_string(i % 7), "hum", "40.5"});
    }
    Run({"xadd", "x", "200-0", "other", "field"});
    Run({"xdel", "x", "5-1"});
    Run({"xgroup", "create", "x", "g", "0"});
    Run({"xreadgroup", "group", "g", "alice", "count", "3", "streams", "x", ">"});
    Run({"xreadgroup", "group", "g", "bob", "count", "2", "streams", "x", ">"});
    Run({"xack", "x", "g", "1-1"});
    Run({"xgroup", "create", "x", "g2", "$"});
    Run({"select", "2"});
    Run({"set", "db2", "x"});
    Run({"select", "0"});
  }
  std::vector<std::string> Keys() {
    return {"s:int", "s:big",   "s:str",  "s:ttl",   "l:small", "l:big", "h:small",
            "h:big", "set:int", "set:lp", "set:big", "z:small", "z:big", "x"};
  }
};

TEST_F(PersistenceTest, DumpRestoreRoundTripsEveryType) {
  Populate();
  for (const std::string& k : Keys()) {
    std::string enc = Run({"object", "encoding", k});
    std::string payload = Run({"dump", k});
    ASSERT_EQ(payload[0], '$') << k;
    size_t crlf = payload.find("\r\n");
    std::string body = payload.substr(crlf + 2, payload.size() - crlf - 4);
    // The digest covers the expiry: restore with the same absolute one.
    std::string at = Run({"pexpiretime", k});
    std::string ttl = at == Int(-1) ? "0" : at.substr(1, at.size() - 3);
    EXPECT_EQ(Run({"restore", k + ":copy", ttl, body, "absttl"}), kOk) << k;
    EXPECT_EQ(Run({"debug", "digest-value", k + ":copy"}), Run({"debug", "digest-value", k})) << k;
    EXPECT_EQ(Run({"object", "encoding", k + ":copy"}), enc) << k;
    EXPECT_EQ(Run({"restore", k, "0", body}), Err("BUSYKEY Target key name already exists."));
    // Any flipped byte is caught by the checksum.
    body[body.size() / 2] ^= 0x20;
    EXPECT_EQ(Run({"restore", k + ":bad", "0", body}),
              Err("ERR DUMP payload version or checksum are wrong"));
  }
  EXPECT_EQ(Run({"dump", "nosuch"}), kNil);
}

TEST_F(PersistenceTest, RestoreOptions) {
  Run({"set", "k", "v"});
  std::string p = Run({"dump", "k"});
  std::string body = p.substr(p.find("\r\n") + 2, p.size() - p.find("\r\n") - 4);
  EXPECT_EQ(Run({"restore", "k", "0", body, "replace", "idletime", "500"}), kOk);
  EXPECT_TRUE(IdleTimeIs("k", 500));
  EXPECT_EQ(Run({"restore", "t", "5000", body}), kOk);
  std::string pttl = Run({"pttl", "t"});
  long long ms = std::stoll(pttl.substr(1));
  EXPECT_TRUE(ms > 4000 && ms <= 5000) << pttl;
  // An absolute TTL in the past: nothing is created, a replaced key is deleted.
  EXPECT_EQ(Run({"restore", "k", "1", body, "absttl", "replace"}), kOk);
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"restore", "n", "-1", body}), Err("ERR Invalid TTL value, must be >= 0"));
  EXPECT_EQ(Run({"restore", "n", "0", body, "freq", "300"}),
            Err("ERR Invalid FREQ value, must be >= 0 and <= 255"));
  EXPECT_EQ(Run({"restore", "n", "0", body, "idletime", "1", "freq", "1"}),
            Err("ERR syntax error"));
  EXPECT_EQ(Run({"restore", "n", "0", "garbage"}),
            Err("ERR DUMP payload version or checksum are wrong"));
}

// Version 10 cannot hold hash field TTLs: the fields travel without them, expired ones not at
// all.
TEST_F(PersistenceTest, HashFieldTtlsAreDropped) {
  Run({"hset", "h", "keep", "1", "ttl", "2"});
  Run({"hpexpire", "h", "100000", "fields", "1", "ttl"});
  std::string p = Run({"dump", "h"});
  std::string body = p.substr(p.find("\r\n") + 2, p.size() - p.find("\r\n") - 4);
  EXPECT_EQ(Run({"restore", "h2", "0", body}), kOk);
  EXPECT_EQ(Run({"hlen", "h2"}), Int(2));
  EXPECT_EQ(Run({"httl", "h2", "fields", "1", "ttl"}), "*1\r\n:-1\r\n");
}

// Whole files: write every database, load into a second server, same digest.
TEST_F(PersistenceTest, FileRoundTripKeepsDigest) {
  Populate();
  std::string digest = Run({"debug", "digest"});
  FILE* f = tmpfile();
  ASSERT_NE(f, nullptr);
  std::vector<Db*> dbs;
  for (int i = 0; i < server_->db_count(); ++i) dbs.push_back(server_->db(i));
  std::string error;
  RdbAuxInfo aux{"7.2.4", 0, false};
  ASSERT_TRUE(WriteRdb(fileno(f), dbs, RdbWriteOptions{}, aux, &error)) << error;
  std::string data;
  rewind(f);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) data.append(buf, n);
  fclose(f);
  ASSERT_EQ(data.substr(0, 9), "REDIS0010");

  // Load into the emptied server: the same content, the same digest.
  Run({"flushall"});
  const Config& config = server_->config();
  RdbLoadStats stats;
  ASSERT_TRUE(LoadRdb(reinterpret_cast<const unsigned char*>(data.data()), data.size(), dbs,
                      RdbLoadLimitsFrom(config), 0, &stats, &error))
      << error;
  EXPECT_EQ(stats.keys_loaded, Keys().size() + 1);
  EXPECT_EQ(Run({"debug", "digest"}), digest);
  EXPECT_EQ(Run({"object", "encoding", "l:big"}), Bulk("quicklist"));
  EXPECT_EQ(Run({"object", "encoding", "set:int"}), Bulk("intset"));

  // Truncated or damaged anywhere: refused with an offset, never a crash.
  std::vector<std::string> bad;
  for (size_t cut : {size_t{5}, size_t{9}, size_t{40}, data.size() / 3, data.size() - 9}) {
    bad.push_back(data.substr(0, cut));
  }
  for (size_t at = 9; at < data.size() - 8; at += data.size() / 97) {
    std::string d = data;
    d[at] ^= 0x41;
    bad.push_back(d);
  }
  // Without a checksum the parser meets the damage itself: it may load a file whose change
  // it cannot see (a byte inside a string), but never crashes and names the offset.
  FILE* g = tmpfile();
  RdbWriteOptions nocrc;
  nocrc.checksum = false;
  Run({"flushall"});
  Populate();
  ASSERT_TRUE(WriteRdb(fileno(g), dbs, nocrc, aux, &error));
  std::string plain;
  rewind(g);
  while ((n = fread(buf, 1, sizeof(buf), g)) > 0) plain.append(buf, n);
  fclose(g);
  for (size_t at = 9; at < plain.size(); at += 1 + plain.size() / 400) {
    for (unsigned char x : {0x01, 0x80, 0xFF}) {
      std::string d = plain;
      d[at] = static_cast<char>(d[at] ^ x);
      Run({"flushall"});
      RdbLoadStats s3;
      std::string err;
      if (!LoadRdb(reinterpret_cast<const unsigned char*>(d.data()), d.size(), dbs,
                   RdbLoadLimitsFrom(config), 0, &s3, &err)) {
        EXPECT_NE(err.find("offset"), std::string::npos) << err;
      }
    }
  }
  for (const std::string& d : bad) {
    Run({"flushall"});
    RdbLoadStats s2;
    std::string err;
    EXPECT_FALSE(LoadRdb(reinterpret_cast<const unsigned char*>(d.data()), d.size(), dbs,
                         RdbLoadLimitsFrom(config), 0, &s2, &err))
        << d.size();
    EXPECT_NE(err.find("offset"), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace vireo
