// In-process tests of the string family; every expected reply was checked against
// redis-server 7.0.
#include <string>

#include "commands/string_ops.h"
#include "common/clock.h"
#include "store/value.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

constexpr const char* kSyntax = "-ERR syntax error\r\n";
constexpr const char* kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
constexpr const char* kNotInt = "-ERR value is not an integer or out of range\r\n";
constexpr const char* kNotFloat = "-ERR value is not a valid float\r\n";
constexpr const char* kEmpty = "$0\r\n\r\n";

class StringsTest : public CommandTest {
 protected:
  Entry* Key(const std::string& key) { return server_->db(0)->Find(key); }
  std::string EncodingOf(const std::string& key) {
    Entry* e = Key(key);
    return e == nullptr ? "none" : EncodingName(e->encoding());
  }
  int64_t ExpireOf(const std::string& key) { return Key(key)->expire_ms(); }
  // A key of a type other than string: a real list when the list family is there, else an
  // entry merely tagged as a list (with no collection behind it, which is only safe while no
  // list destructor is registered, i.e. while RPUSH is unknown).
  void MakeNonString(const std::string& key) {
    if (Run({"rpush", key, "a"}) == Int(1)) return;
    Entry* e = server_->db(0)->Add(key);
    e->SetType(ObjType::kList, Encoding::kQuickList);
    e->obj = nullptr;
  }
  void TearDown() override {
    // Tagged-only entries go back to plain strings before the keyspace is freed.
    server_->db(0)->ForEach([](Entry* e) {
      if (e->type() != ObjType::kString && e->obj == nullptr) {
        e->SetType(ObjType::kString, Encoding::kInt);
      }
    });
    CommandTest::TearDown();
  }
  static std::string InvalidExpire(const std::string& cmd) {
    return Err("ERR invalid expire time in '" + cmd + "' command");
  }
};

TEST_F(StringsTest, StringsGetSet) {
  EXPECT_EQ(Run({"get", "k"}), kNil);
  EXPECT_EQ(Run({"set", "k", "v"}), kOk);
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"set", "k", std::string("a\0b\r\n", 5)}), kOk);
  EXPECT_EQ(Run({"get", "k"}), Bulk(std::string("a\0b\r\n", 5)));
  EXPECT_EQ(Run({"set", "k", ""}), kOk);
  EXPECT_EQ(Run({"get", "k"}), kEmpty);
  EXPECT_EQ(Run({"set", "n", "-12345"}), kOk);
  EXPECT_EQ(Run({"get", "n"}), Bulk("-12345"));
  EXPECT_EQ(Run({"get"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(Run({"set", "k"}), Err("ERR wrong number of arguments for 'set' command"));
  MakeNonString("l");
  EXPECT_EQ(Run({"get", "l"}), kWrongType);
  EXPECT_EQ(Run({"set", "l", "v"}), kOk);  // SET replaces any type
  EXPECT_EQ(Run({"get", "l"}), Bulk("v"));
}

TEST_F(StringsTest, StringsSetEncodings) {
  Run({"set", "k", "12345"});
  EXPECT_EQ(EncodingOf("k"), "int");
  Run({"set", "k", "9223372036854775807"});
  EXPECT_EQ(EncodingOf("k"), "int");
  Run({"set", "k", "-0"});
  EXPECT_EQ(EncodingOf("k"), "embstr");
  Run({"set", "k", "123456789012345678901"});
  EXPECT_EQ(EncodingOf("k"), "embstr");
  Run({"set", "k", std::string(44, 'x')});
  EXPECT_EQ(EncodingOf("k"), "embstr");
  Run({"set", "k", std::string(45, 'x')});
  EXPECT_EQ(EncodingOf("k"), "raw");
  // Reusing a blob in place still reports the encoding by length.
  Run({"set", "k", std::string(40, 'y')});
  EXPECT_EQ(EncodingOf("k"), "embstr");
  EXPECT_EQ(Run({"get", "k"}), Bulk(std::string(40, 'y')));
  Run({"set", "k", "short"});
  EXPECT_EQ(Run({"get", "k"}), Bulk("short"));
  Run({"setex", "e", "10", "12"});
  EXPECT_EQ(EncodingOf("e"), "int");
  Run({"mset", "a", "1", "b", "x"});
  EXPECT_EQ(EncodingOf("a"), "int");
  EXPECT_EQ(EncodingOf("b"), "embstr");
  Run({"getset", "b", "77"});
  EXPECT_EQ(EncodingOf("b"), "int");
}

TEST_F(StringsTest, StringsSetOptions) {
  EXPECT_EQ(Run({"set", "k", "v", "nx"}), kOk);
  EXPECT_EQ(Run({"set", "k", "w", "NX"}), kNil);
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"set", "k", "w", "xx"}), kOk);
  EXPECT_EQ(Run({"get", "k"}), Bulk("w"));
  EXPECT_EQ(Run({"set", "missing", "w", "xx"}), kNil);
  EXPECT_EQ(Run({"get", "missing"}), kNil);
  // Invalid combinations.
  EXPECT_EQ(Run({"set", "k", "v", "nx", "xx"}), kSyntax);
  EXPECT_EQ(Run({"set", "k", "v", "ex", "10", "px", "10"}), kSyntax);
  EXPECT_EQ(Run({"set", "k", "v", "ex", "10", "keepttl"}), kSyntax);
  EXPECT_EQ(Run({"set", "k", "v", "keepttl", "pxat", "10"}), kSyntax);
  EXPECT_EQ(Run({"set", "k", "v", "exat", "10", "pxat", "10"}), kSyntax);
  EXPECT_EQ(Run({"set", "k", "v", "ex"}), kSyntax);
  EXPECT_EQ(Run({"set", "k", "v", "foo"}), kSyntax);
  EXPECT_EQ(Run({"set", "k", "v", "persist"}), kSyntax);
  EXPECT_EQ(Run({"set", "k", "v", "nxx"}), kSyntax);
  // The option loop runs before the expire value is read.
  EXPECT_EQ(Run({"set", "k", "v", "ex", "abc", "foo"}), kSyntax);
  // Repeats are fine; the last expire wins.
  EXPECT_EQ(Run({"set", "k", "v", "nx", "nx"}), kNil);
  EXPECT_EQ(Run({"set", "k", "v", "keepttl", "keepttl"}), kOk);
  EXPECT_EQ(Run({"set", "k", "v", "get", "get"}), Bulk("v"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "abc", "ex", "10"}), kOk);
  EXPECT_NEAR(static_cast<double>(ExpireOf("k") - NowMs()), 10000.0, 2000.0);
}

TEST_F(StringsTest, StringsSetExpireErrors) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "0"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "-1"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "px", "0"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "exat", "-1"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "pxat", "0"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "9223372036854775807"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "9223372036854775"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "9223372036854776"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "px", "9223372036854775807"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "exat", "9223372036854775807"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "abc"}), kNotInt);
  EXPECT_EQ(Run({"set", "k", "v", "ex", "1.5"}), kNotInt);
  EXPECT_EQ(Run({"get", "k"}), kNil);
  // The expire value is checked before the type of the old value.
  MakeNonString("l");
  EXPECT_EQ(Run({"set", "l", "v", "ex", "0", "get"}), InvalidExpire("set"));
  EXPECT_EQ(Run({"set", "l", "v", "ex", "abc", "get"}), kNotInt);
}

TEST_F(StringsTest, StringsSetExpiry) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), kOk);
  EXPECT_NEAR(static_cast<double>(ExpireOf("k") - NowMs()), 100000.0, 2000.0);
  EXPECT_EQ(Run({"set", "k", "v", "px", "5000"}), kOk);
  EXPECT_NEAR(static_cast<double>(ExpireOf("k") - NowMs()), 5000.0, 2000.0);
  EXPECT_EQ(Run({"set", "k", "v", "pxat", "99999999999999"}), kOk);
  EXPECT_EQ(ExpireOf("k"), 99999999999999);
  EXPECT_EQ(Run({"set", "k", "v", "exat", "99999999999"}), kOk);
  EXPECT_EQ(ExpireOf("k"), 99999999999000);
  EXPECT_EQ(server_->db(0)->VolatileCount(), 1u);
  // KEEPTTL keeps it; a plain SET (also XX) clears it.
  EXPECT_EQ(Run({"set", "k", "w", "keepttl"}), kOk);
  EXPECT_EQ(ExpireOf("k"), 99999999999000);
  EXPECT_EQ(Run({"set", "k", "w", "xx"}), kOk);
  EXPECT_EQ(ExpireOf("k"), 0);
  EXPECT_EQ(server_->db(0)->VolatileCount(), 0u);
  // A time already past deletes the key at once.
  EXPECT_EQ(Run({"set", "k", "v", "exat", "1"}), kOk);
  EXPECT_EQ(server_->db(0)->Size(), 0u);
  EXPECT_EQ(Run({"get", "k"}), kNil);
  EXPECT_EQ(Run({"set", "k", "v"}), kOk);
  EXPECT_EQ(Run({"set", "k", "w", "pxat", "1", "get"}), Bulk("v"));
  EXPECT_EQ(server_->db(0)->Size(), 0u);
  // An expired key counts as missing for NX/XX.
  EXPECT_EQ(Run({"set", "k", "v", "px", "1"}), kOk);
  Key("k")->StoreExpire(CommandTimeMs() - 1);  // as if the time had passed
  EXPECT_EQ(Run({"set", "k", "w", "xx"}), kNil);
  EXPECT_EQ(Run({"set", "k", "w", "nx"}), kOk);
  EXPECT_EQ(Run({"get", "k"}), Bulk("w"));
}

TEST_F(StringsTest, StringsSetGet) {
  EXPECT_EQ(Run({"set", "k", "v", "get"}), kNil);
  EXPECT_EQ(Run({"set", "k", "w", "get"}), Bulk("v"));
  EXPECT_EQ(Run({"set", "k", "x", "nx", "get"}), Bulk("w"));
  EXPECT_EQ(Run({"get", "k"}), Bulk("w"));
  EXPECT_EQ(Run({"set", "k2", "v", "nx", "get"}), kNil);
  EXPECT_EQ(Run({"get", "k2"}), Bulk("v"));
  EXPECT_EQ(Run({"set", "k3", "v", "xx", "get"}), kNil);
  EXPECT_EQ(Run({"get", "k3"}), kNil);
  Run({"set", "n", "42"});
  EXPECT_EQ(Run({"set", "n", "43", "get"}), Bulk("42"));
  MakeNonString("l");
  EXPECT_EQ(Run({"set", "l", "v", "get"}), kWrongType);
  EXPECT_EQ(Run({"set", "l", "v", "nx", "get"}), kWrongType);
  EXPECT_EQ(Run({"set", "l", "v", "xx", "get"}), kWrongType);
  EXPECT_EQ(Key("l")->type(), ObjType::kList);
  EXPECT_EQ(Run({"set", "l", "v", "nx"}), kNil);
}

// Valkey 8.1's IFEQ: set only over a string equal to the comparison value.
TEST_F(StringsTest, StringsSetIfEq) {
  EXPECT_EQ(Run({"set", "k", "v", "ifeq", "v"}), kNil);  // no key: nothing is created
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"set", "k", "w", "ifeq", "x"}), kNil);
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"set", "k", "w", "IFEQ", "v", "px", "100000"}), kOk);
  EXPECT_EQ(Run({"get", "k"}), Bulk("w"));
  EXPECT_GT(std::stoll(Run({"pttl", "k"}).substr(1)), 0);
  // With GET the reply is the old value, whether the condition held or not.
  EXPECT_EQ(Run({"set", "k", "z", "get", "ifeq", "nope"}), Bulk("w"));
  EXPECT_EQ(Run({"set", "k", "z", "ifeq", "w", "get"}), Bulk("w"));
  EXPECT_EQ(Run({"get", "k"}), Bulk("z"));
  EXPECT_EQ(Run({"set", "none", "z", "ifeq", "w", "get"}), kNil);
  // An integer-encoded value compares as its digits.
  Run({"set", "n", "42"});
  EXPECT_EQ(Run({"set", "n", "43", "ifeq", "42"}), kOk);
  EXPECT_EQ(Run({"get", "n"}), Bulk("43"));
  MakeNonString("l");
  EXPECT_EQ(Run({"set", "l", "v", "ifeq", "v"}), kWrongType);
  EXPECT_EQ(Run({"set", "l", "v", "ifeq", "v", "get"}), kWrongType);
  EXPECT_EQ(Key("l")->type(), ObjType::kList);
  const std::vector<std::vector<std::string>> refused = {
      {"set", "k", "v", "ifeq"},
      {"set", "k", "v", "nx", "ifeq", "v"},
      {"set", "k", "v", "ifeq", "v", "xx"},
      {"set", "k", "v", "ifeq", "a", "ifeq", "b"}};
  for (const auto& args : refused) EXPECT_EQ(Run(args), Err("ERR syntax error")) << args.size();
  EXPECT_EQ(Run({"getex", "k", "ifeq", "z"}), Err("ERR syntax error"));
}

// Valkey 9.0's DELIFEQ: delete only a string equal to the value.
TEST_F(StringsTest, StringsDelIfEq) {
  EXPECT_EQ(Run({"delifeq", "k", "v"}), Int(0));
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"delifeq", "k", "w"}), Int(0));
  EXPECT_EQ(Run({"delifeq", "k", "v"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"delifeq", "k", "v"}), Int(0));
  Run({"set", "n", "7"});
  EXPECT_EQ(Run({"delifeq", "n", "7"}), Int(1));
  MakeNonString("l");
  EXPECT_EQ(Run({"delifeq", "l", "v"}), kWrongType);
  EXPECT_EQ(Run({"delifeq", "k"}), Err("ERR wrong number of arguments for 'delifeq' command"));
}

TEST_F(StringsTest, StringsSetNxSetExPSetEx) {
  EXPECT_EQ(Run({"setnx", "k", "1"}), Int(1));
  EXPECT_EQ(Run({"setnx", "k", "2"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk("1"));
  MakeNonString("l");
  EXPECT_EQ(Run({"setnx", "l", "1"}), Int(0));

  EXPECT_EQ(Run({"setex", "k", "100", "v"}), kOk);
  EXPECT_NEAR(static_cast<double>(ExpireOf("k") - NowMs()), 100000.0, 2000.0);
  EXPECT_EQ(Run({"psetex", "k", "5000", "v"}), kOk);
  EXPECT_NEAR(static_cast<double>(ExpireOf("k") - NowMs()), 5000.0, 2000.0);
  EXPECT_EQ(Run({"setex", "k", "0", "v"}), InvalidExpire("setex"));
  EXPECT_EQ(Run({"setex", "k", "-5", "v"}), InvalidExpire("setex"));
  EXPECT_EQ(Run({"setex", "k", "9223372036854775807", "v"}), InvalidExpire("setex"));
  EXPECT_EQ(Run({"psetex", "k", "-1", "v"}), InvalidExpire("psetex"));
  EXPECT_EQ(Run({"psetex", "k", "9223372036854775807", "v"}), InvalidExpire("psetex"));
  EXPECT_EQ(Run({"setex", "k", "abc", "v"}), kNotInt);
  EXPECT_EQ(Run({"setex", "k", "10", "x", "y"}),
            Err("ERR wrong number of arguments for 'setex' command"));
  EXPECT_EQ(Run({"setex", "l", "10", "v"}), kOk);  // replaces any type
  EXPECT_EQ(Run({"get", "l"}), Bulk("v"));
}

TEST_F(StringsTest, StringsGetSetGetDel) {
  EXPECT_EQ(Run({"getset", "k", "a"}), kNil);
  EXPECT_EQ(Run({"getset", "k", "b"}), Bulk("a"));
  EXPECT_EQ(Run({"get", "k"}), Bulk("b"));
  Run({"set", "t", "v", "ex", "100"});
  EXPECT_EQ(Run({"getset", "t", "w"}), Bulk("v"));
  EXPECT_EQ(ExpireOf("t"), 0);
  MakeNonString("l");
  EXPECT_EQ(Run({"getset", "l", "x"}), kWrongType);
  EXPECT_EQ(Run({"getdel", "l"}), kWrongType);
  EXPECT_EQ(Run({"getdel", "k"}), Bulk("b"));
  EXPECT_EQ(Key("k"), nullptr);
  EXPECT_EQ(Run({"getdel", "k"}), kNil);
  Run({"set", "n", "17"});
  EXPECT_EQ(Run({"getdel", "n"}), Bulk("17"));
}

TEST_F(StringsTest, StringsGetEx) {
  EXPECT_EQ(Run({"getex", "missing"}), kNil);
  EXPECT_EQ(Run({"getex", "missing", "ex", "0"}), kNil);  // no key: expire never read
  EXPECT_EQ(Run({"getex", "missing", "persist", "persist"}), kNil);
  EXPECT_EQ(Run({"getex", "missing", "ex", "10", "persist"}), kSyntax);
  EXPECT_EQ(Run({"getex", "missing", "persist", "ex", "10"}), kSyntax);
  EXPECT_EQ(Run({"getex", "missing", "foo"}), kSyntax);
  EXPECT_EQ(Run({"getex", "missing", "ex"}), kSyntax);
  EXPECT_EQ(Run({"getex", "missing", "keepttl"}), kSyntax);
  EXPECT_EQ(Run({"getex", "missing", "nx"}), kSyntax);
  EXPECT_EQ(Run({"getex", "missing", "get"}), kSyntax);
  MakeNonString("l");
  EXPECT_EQ(Run({"getex", "l"}), kWrongType);
  EXPECT_EQ(Run({"getex", "l", "ex", "0"}), kWrongType);

  Run({"set", "g", "v"});
  EXPECT_EQ(Run({"getex", "g", "ex", "0"}), InvalidExpire("getex"));
  EXPECT_EQ(Run({"getex", "g", "exat", "0"}), InvalidExpire("getex"));
  EXPECT_EQ(Run({"getex", "g", "pxat", "-5"}), InvalidExpire("getex"));
  EXPECT_EQ(Run({"getex", "g", "ex", "9223372036854775"}), InvalidExpire("getex"));
  EXPECT_EQ(Run({"getex", "g", "ex", "abc"}), kNotInt);
  EXPECT_EQ(ExpireOf("g"), 0);
  EXPECT_EQ(Run({"getex", "g", "ex", "100"}), Bulk("v"));
  EXPECT_NEAR(static_cast<double>(ExpireOf("g") - NowMs()), 100000.0, 2000.0);
  EXPECT_EQ(Run({"getex", "g", "px", "5000"}), Bulk("v"));
  EXPECT_NEAR(static_cast<double>(ExpireOf("g") - NowMs()), 5000.0, 2000.0);
  EXPECT_EQ(Run({"getex", "g", "pxat", "99999999999999"}), Bulk("v"));
  EXPECT_EQ(ExpireOf("g"), 99999999999999);
  EXPECT_EQ(Run({"getex", "g", "ex", "10", "ex", "20"}), Bulk("v"));
  EXPECT_NEAR(static_cast<double>(ExpireOf("g") - NowMs()), 20000.0, 2000.0);
  EXPECT_EQ(Run({"getex", "g"}), Bulk("v"));
  EXPECT_NE(ExpireOf("g"), 0);
  EXPECT_EQ(Run({"getex", "g", "persist"}), Bulk("v"));
  EXPECT_EQ(ExpireOf("g"), 0);
  EXPECT_EQ(server_->db(0)->VolatileCount(), 0u);
  // A past absolute time deletes the key after replying its value.
  EXPECT_EQ(Run({"getex", "g", "exat", "1"}), Bulk("v"));
  EXPECT_EQ(Key("g"), nullptr);
  Run({"set", "n", "5"});
  EXPECT_EQ(Run({"getex", "n", "pxat", "1"}), Bulk("5"));
  EXPECT_EQ(Key("n"), nullptr);
}

TEST_F(StringsTest, StringsMGetMSet) {
  EXPECT_EQ(Run({"mset", "a", "1", "b", "2"}), kOk);
  MakeNonString("l");
  EXPECT_EQ(Run({"mget", "a", "l", "missing", "b"}),
            "*4\r\n" + Bulk("1") + kNil + kNil + Bulk("2"));
  EXPECT_EQ(Run({"mset", "a", "1", "b"}), Err("ERR wrong number of arguments for 'mset' command"));
  EXPECT_EQ(Run({"msetnx", "a", "1", "b"}),
            Err("ERR wrong number of arguments for 'msetnx' command"));
  EXPECT_EQ(Run({"mset", "a", "1", "a", "2"}), kOk);
  EXPECT_EQ(Run({"get", "a"}), Bulk("2"));
  Run({"set", "t", "v", "ex", "100"});
  EXPECT_EQ(Run({"mset", "t", "v2", "l", "x"}), kOk);
  EXPECT_EQ(ExpireOf("t"), 0);
  EXPECT_EQ(Run({"get", "l"}), Bulk("x"));

  EXPECT_EQ(Run({"msetnx", "a", "1", "c", "3"}), Int(0));
  EXPECT_EQ(Key("c"), nullptr);
  EXPECT_EQ(Run({"msetnx", "c", "3", "d", "4", "c", "5"}), Int(1));
  EXPECT_EQ(Run({"get", "c"}), Bulk("5"));
  EXPECT_EQ(Run({"get", "d"}), Bulk("4"));
  MakeNonString("l2");
  EXPECT_EQ(Run({"msetnx", "l2", "1", "n", "2"}), Int(0));
  EXPECT_EQ(Key("n"), nullptr);
}

TEST_F(StringsTest, StringsAppendStrLen) {
  EXPECT_EQ(Run({"append", "ap", "123"}), Int(3));
  EXPECT_EQ(EncodingOf("ap"), "int");
  EXPECT_EQ(Run({"append", "ap", "4"}), Int(4));
  EXPECT_EQ(EncodingOf("ap"), "raw");
  EXPECT_EQ(Run({"get", "ap"}), Bulk("1234"));
  EXPECT_EQ(Run({"append", "ap2", "abc"}), Int(3));
  EXPECT_EQ(EncodingOf("ap2"), "embstr");
  EXPECT_EQ(Run({"append", "ap3", ""}), Int(0));
  EXPECT_NE(Key("ap3"), nullptr);
  Run({"set", "ee", "x"});
  EXPECT_EQ(Run({"append", "ee", ""}), Int(1));
  EXPECT_EQ(EncodingOf("ee"), "raw");
  Run({"set", "t", "v", "ex", "100"});
  EXPECT_EQ(Run({"append", "t", "w"}), Int(2));
  EXPECT_NE(ExpireOf("t"), 0);
  std::string big;
  for (int i = 0; i < 100; ++i) {
    big += "chunk" + std::to_string(i);
    Run({"append", "big", "chunk" + std::to_string(i)});
  }
  EXPECT_EQ(Run({"get", "big"}), Bulk(big));
  EXPECT_EQ(Run({"strlen", "big"}), Int(static_cast<long long>(big.size())));
  MakeNonString("l");
  EXPECT_EQ(Run({"append", "l", "x"}), kWrongType);
  EXPECT_EQ(Run({"strlen", "l"}), kWrongType);
  EXPECT_EQ(Run({"strlen", "missing"}), Int(0));
  Run({"set", "i", "-12345"});
  EXPECT_EQ(Run({"strlen", "i"}), Int(6));
}

TEST_F(StringsTest, StringsSizeLimit) {
  server_->config().proto_max_bulk_len = 1024 * 1024;
  EXPECT_EQ(Run({"setrange", "x", "1048575", "a"}), Int(1048576));
  EXPECT_EQ(Run({"setrange", "x", "1048576", "a"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"append", "x", "b"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"strlen", "x"}), Int(1048576));
  EXPECT_EQ(Run({"setrange", "y", "1048576", "a"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Key("y"), nullptr);
  // The default limit, 512 MB, with an offset that would overflow a naive sum.
  server_->config().proto_max_bulk_len = 512LL * 1024 * 1024;
  EXPECT_EQ(Run({"setrange", "y", "536870912", "a"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"setrange", "y", "9223372036854775807", "a"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
}

TEST_F(StringsTest, StringsGetRange) {
  Run({"set", "h", "hello"});
  EXPECT_EQ(Run({"getrange", "h", "0", "-1"}), Bulk("hello"));
  EXPECT_EQ(Run({"getrange", "h", "0", "-100"}), Bulk("h"));
  EXPECT_EQ(Run({"getrange", "h", "-100", "-1"}), Bulk("hello"));
  EXPECT_EQ(Run({"getrange", "h", "-1", "-5"}), kEmpty);
  EXPECT_EQ(Run({"getrange", "h", "5", "10"}), kEmpty);
  EXPECT_EQ(Run({"getrange", "h", "4", "10"}), Bulk("o"));
  EXPECT_EQ(Run({"getrange", "h", "0", "0"}), Bulk("h"));
  EXPECT_EQ(Run({"getrange", "h", "3", "2"}), kEmpty);
  EXPECT_EQ(Run({"getrange", "h", "-3", "-4"}), kEmpty);
  EXPECT_EQ(Run({"getrange", "h", "10", "2"}), kEmpty);
  EXPECT_EQ(Run({"getrange", "h", "-2", "1"}), kEmpty);
  EXPECT_EQ(Run({"getrange", "h", "-2", "-1"}), Bulk("lo"));
  EXPECT_EQ(Run({"getrange", "h", "-9223372036854775808", "9223372036854775807"}),
            Bulk("hello"));
  EXPECT_EQ(Run({"getrange", "h", "0", "9223372036854775808"}), kNotInt);
  EXPECT_EQ(Run({"getrange", "missing", "0", "1"}), kEmpty);
  EXPECT_EQ(Run({"getrange", "missing", "a", "1"}), kNotInt);
  MakeNonString("l");
  EXPECT_EQ(Run({"getrange", "l", "0", "1"}), kWrongType);
  EXPECT_EQ(Run({"substr", "h", "1", "2"}), Bulk("el"));
  Run({"set", "i", "12345"});
  EXPECT_EQ(Run({"getrange", "i", "1", "2"}), Bulk("23"));
  Run({"set", "e", ""});
  EXPECT_EQ(Run({"getrange", "e", "0", "-1"}), kEmpty);
  EXPECT_EQ(Run({"getrange", "e", "-1", "0"}), kEmpty);
}

TEST_F(StringsTest, StringsSetRange) {
  EXPECT_EQ(Run({"setrange", "sr", "-1", "x"}), Err("ERR offset is out of range"));
  EXPECT_EQ(Run({"setrange", "sr", "abc", "x"}), kNotInt);
  EXPECT_EQ(Run({"setrange", "sr", "0", ""}), Int(0));
  EXPECT_EQ(Key("sr"), nullptr);
  EXPECT_EQ(Run({"setrange", "n0", "0", "123"}), Int(3));
  EXPECT_EQ(Run({"get", "n0"}), Bulk("123"));
  EXPECT_EQ(EncodingOf("n0"), "raw");
  EXPECT_EQ(Run({"setrange", "sr", "3", "ab"}), Int(5));
  EXPECT_EQ(Run({"get", "sr"}), Bulk(std::string("\0\0\0ab", 5)));
  EXPECT_EQ(EncodingOf("sr"), "raw");
  MakeNonString("l");
  EXPECT_EQ(Run({"setrange", "l", "0", "x"}), kWrongType);
  EXPECT_EQ(Run({"setrange", "l", "-1", "x"}), Err("ERR offset is out of range"));
  EXPECT_EQ(Run({"setrange", "l", "0", ""}), kWrongType);
  Run({"set", "h", "hello"});
  EXPECT_EQ(Run({"setrange", "h", "0", ""}), Int(5));
  EXPECT_EQ(Run({"setrange", "h", "536870912", ""}), Int(5));
  EXPECT_EQ(EncodingOf("h"), "embstr");  // an empty write leaves the value alone
  EXPECT_EQ(Run({"setrange", "h", "7", "X"}), Int(8));
  EXPECT_EQ(Run({"get", "h"}), Bulk(std::string("hello\0\0X", 8)));
  EXPECT_EQ(Run({"setrange", "h", "1", "EL"}), Int(8));
  EXPECT_EQ(Run({"get", "h"}), Bulk(std::string("hELlo\0\0X", 8)));
  EXPECT_EQ(EncodingOf("h"), "raw");
  Run({"set", "sm", "12"});
  EXPECT_EQ(Run({"setrange", "sm", "0", "3"}), Int(2));
  EXPECT_EQ(EncodingOf("sm"), "raw");
  EXPECT_EQ(Run({"get", "sm"}), Bulk("32"));
  Run({"set", "t", "v", "ex", "100"});
  EXPECT_EQ(Run({"setrange", "t", "0", "w"}), Int(1));
  EXPECT_NE(ExpireOf("t"), 0);
}

TEST_F(StringsTest, StringsIncrDecr) {
  EXPECT_EQ(Run({"incr", "n"}), Int(1));
  EXPECT_EQ(EncodingOf("n"), "int");
  EXPECT_EQ(Run({"incrby", "n", "10"}), Int(11));
  EXPECT_EQ(Run({"decr", "n"}), Int(10));
  EXPECT_EQ(Run({"decrby", "n", "20"}), Int(-10));
  EXPECT_EQ(Run({"decrby", "n", "-9223372036854775808"}), Err("ERR decrement would overflow"));
  EXPECT_EQ(Run({"incrby", "n", "abc"}), kNotInt);
  EXPECT_EQ(Run({"incrby", "n", "1.5"}), kNotInt);
  EXPECT_EQ(Run({"get", "n"}), Bulk("-10"));
  // A value stored as text counts when it is a canonical integer.
  Run({"set", "s", std::string(30, 'x')});
  Run({"setrange", "s", "0", "7"});  // not an integer
  EXPECT_EQ(Run({"incr", "s"}), kNotInt);
  Run({"set", "s", "41"});
  Run({"append", "s", "0"});  // "410", raw
  EXPECT_EQ(Run({"incr", "s"}), Int(411));
  EXPECT_EQ(EncodingOf("s"), "int");
  for (const char* bad : {" 1", "01", "1 ", "+1", "abc", "", "1.0"}) {
    Run({"set", "b", bad});
    EXPECT_EQ(Run({"incr", "b"}), kNotInt) << bad;
  }
  Run({"set", "m", "9223372036854775807"});
  EXPECT_EQ(Run({"incr", "m"}), Err("ERR increment or decrement would overflow"));
  Run({"set", "m", "-9223372036854775808"});
  EXPECT_EQ(Run({"decr", "m"}), Err("ERR increment or decrement would overflow"));
  EXPECT_EQ(Run({"decrby", "m", "1"}), Err("ERR increment or decrement would overflow"));
  EXPECT_EQ(Run({"incrby", "m", "9223372036854775807"}), Int(-1));
  EXPECT_EQ(Run({"incrby", "z", "9223372036854775807"}), Int(9223372036854775807LL));
  EXPECT_EQ(Run({"incrby", "z", "1"}), Err("ERR increment or decrement would overflow"));
  EXPECT_EQ(Run({"decrby", "z", "9223372036854775807"}), Int(0));
  MakeNonString("l");
  EXPECT_EQ(Run({"incr", "l"}), kWrongType);
  EXPECT_EQ(Run({"incrby", "l", "abc"}), kNotInt);  // the argument is read first
  EXPECT_EQ(Run({"decrby", "l", "-9223372036854775808"}), Err("ERR decrement would overflow"));
  Run({"set", "t", "5", "ex", "100"});
  EXPECT_EQ(Run({"incr", "t"}), Int(6));
  EXPECT_NE(ExpireOf("t"), 0);
}

TEST_F(StringsTest, StringsIncrByFloat) {
  EXPECT_EQ(Run({"incrbyfloat", "f", "1.5"}), Bulk("1.5"));
  EXPECT_EQ(EncodingOf("f"), "embstr");
  EXPECT_EQ(Run({"incrbyfloat", "f", "1"}), Bulk("2.5"));
  Run({"set", "k", "1"});
  EXPECT_EQ(Run({"incrbyfloat", "k", "1"}), Bulk("2"));
  EXPECT_EQ(EncodingOf("k"), "embstr");  // never int-encoded
  EXPECT_EQ(Run({"incrbyfloat", "k", "1.0e3"}), Bulk("1002"));
  EXPECT_EQ(Run({"incrbyfloat", "k", "-1002"}), Bulk("0"));
  EXPECT_EQ(Run({"incrbyfloat", "k", "abc"}), kNotFloat);
  EXPECT_EQ(Run({"incrbyfloat", "k", "inf"}), Err("ERR increment would produce NaN or Infinity"));
  EXPECT_EQ(Run({"incrbyfloat", "k", "nan"}), kNotFloat);
  EXPECT_EQ(Run({"incrbyfloat", "k", " 1"}), kNotFloat);
  Run({"set", "s", "abc"});
  EXPECT_EQ(Run({"incrbyfloat", "s", "1"}), kNotFloat);
  MakeNonString("l");
  EXPECT_EQ(Run({"incrbyfloat", "l", "abc"}), kWrongType);  // type before argument
  Run({"set", "x", "10.50"});
  EXPECT_EQ(Run({"incrbyfloat", "x", "0.1"}), Bulk("10.6"));
  Run({"set", "x", "5.0e3"});
  EXPECT_EQ(Run({"incrbyfloat", "x", "2.0e2"}), Bulk("5200"));
  // Every integer digit of the long double is printed, as redis-server 7.0 does.
  EXPECT_EQ(Run({"incrbyfloat", "e", "1e30"}), Bulk("1000000000000000000024696061952"));
  EXPECT_EQ(Run({"incrbyfloat", "e", "1e30"}), Bulk("2000000000000000000049392123904"));
  EXPECT_EQ(Run({"incrbyfloat", "r", "1e50"}),
            Bulk("100000000000000000003583830118858923890798487404544"));
  EXPECT_EQ(EncodingOf("r"), "raw");
  Run({"set", "t", "1", "ex", "100"});
  EXPECT_EQ(Run({"incrbyfloat", "t", "0.5"}), Bulk("1.5"));
  EXPECT_NE(ExpireOf("t"), 0);
}

TEST_F(StringsTest, StringsLcs) {
  Run({"mset", "k1", "ohmytext", "k2", "mynewtext"});
  EXPECT_EQ(Run({"lcs", "k1", "k2"}), Bulk("mytext"));
  EXPECT_EQ(Run({"lcs", "k1", "k2", "LEN"}), Int(6));
  const std::string idx = "*4\r\n" + Bulk("matches") +
                          "*2\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n"
                          "*2\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n" +
                          Bulk("len") + Int(6);
  EXPECT_EQ(Run({"lcs", "k1", "k2", "idx"}), idx);
  EXPECT_EQ(Run({"lcs", "k1", "k2", "idx", "minmatchlen", "-5"}), idx);
  EXPECT_EQ(Run({"lcs", "k1", "k2", "idx", "minmatchlen", "4", "withmatchlen"}),
            "*4\r\n" + Bulk("matches") + "*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n" +
                Bulk("len") + Int(6));
  EXPECT_EQ(Run({"lcs", "k1", "k2", "idx", "len"}),
            Err("ERR If you want both the length and indexes, please just use IDX."));
  EXPECT_EQ(Run({"lcs", "k1", "k2", "idx", "minmatchlen"}), kSyntax);
  EXPECT_EQ(Run({"lcs", "k1", "k2", "idx", "minmatchlen", "abc"}), kNotInt);
  EXPECT_EQ(Run({"lcs", "k1", "k2", "foo"}), kSyntax);
  EXPECT_EQ(Run({"lcs", "k1", "k2", "len", "withmatchlen"}), Int(6));
  EXPECT_EQ(Run({"lcs", "k1", "k2", "withmatchlen"}), Bulk("mytext"));
  EXPECT_EQ(Run({"lcs", "k1", "missing"}), kEmpty);
  EXPECT_EQ(Run({"lcs", "k1", "missing", "idx"}),
            "*4\r\n" + Bulk("matches") + "*0\r\n" + Bulk("len") + Int(0));
  MakeNonString("l");
  const std::string not_strings = Err("ERR The specified keys must contain string values");
  EXPECT_EQ(Run({"lcs", "k1", "l", "idx"}), not_strings);
  EXPECT_EQ(Run({"lcs", "l", "k1", "foo"}), not_strings);  // before the options
  Run({"mset", "i1", "12345", "i2", "2x4"});
  EXPECT_EQ(Run({"lcs", "i1", "i2"}), Bulk("24"));
  // The transient table is bounded by proto-max-bulk-len.
  server_->config().proto_max_bulk_len = 1024 * 1024;
  Run({"mset", "la", std::string(600, 'a'), "lb", std::string(600, 'a')});
  EXPECT_EQ(Run({"lcs", "la", "lb", "len"}),
            Err("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"));
  Run({"mset", "la", std::string(400, 'a'), "lb", std::string(400, 'a')});
  EXPECT_EQ(Run({"lcs", "la", "lb", "len"}), Int(400));
  // RESP3: IDX is a map.
  Run({"hello", "3"});
  EXPECT_EQ(Run({"lcs", "k1", "k2", "idx", "withmatchlen"}),
            "%2\r\n" + Bulk("matches") +
                "*2\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n"
                "*3\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n:2\r\n" +
                Bulk("len") + Int(6));
}

TEST(StringsLcsOps, StringsMatchesLengthOnly) {
  // The two-row length computation agrees with the full table on assorted inputs.
  const char* samples[] = {"", "a", "abc", "abcbdab", "bdcaba", "aaaa", "xyzxyz", "GXTXAYB"};
  for (const char* x : samples) {
    for (const char* y : samples) {
      LcsResult full, len;
      ASSERT_EQ(ComputeLcs(x, y, true, true, 0, 1 << 20, &full), LcsStatus::kOk);
      ASSERT_EQ(ComputeLcs(x, y, false, false, 0, 1 << 20, &len), LcsStatus::kOk);
      EXPECT_EQ(full.length, len.length) << x << " / " << y;
      EXPECT_EQ(full.text.size(), full.length);
      uint32_t in_runs = 0;
      for (const LcsRange& r : full.matches) in_runs += r.Length();
      EXPECT_EQ(in_runs, full.length);
    }
  }
  LcsResult r;
  EXPECT_EQ(ComputeLcs("abc", "abc", false, false, 0, 15, &r), LcsStatus::kTooLarge);
  EXPECT_EQ(ComputeLcs("abc", "abc", false, false, 0, 64, &r), LcsStatus::kOk);
  EXPECT_EQ(r.length, 3u);
}

TEST_F(StringsTest, StringsDirtyCounter) {
  uint64_t before = server_->dirty();
  Run({"set", "k", "v"});
  Run({"mset", "a", "1", "b", "2"});
  Run({"get", "k"});
  Run({"set", "k", "v", "nx"});  // not written
  Run({"getex", "k"});            // nothing changed
  EXPECT_EQ(server_->dirty() - before, 3u);
}

}  // namespace
}  // namespace vireo
