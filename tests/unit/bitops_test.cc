// Bit algorithms (commands/bitops) against naive references, and the bitmap commands. Command
// replies were checked against redis-server 7.0 (Valkey 8 where they differ: BITCOUNT's
// optional end).
#include "commands/bitops.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "store/value.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

int NaiveBit(std::string_view s, uint64_t pos) {
  return (static_cast<uint8_t>(s[pos >> 3]) >> (7 - (pos & 7))) & 1;
}

std::string RandomBytes(std::mt19937& rng, size_t n, int density) {
  std::string s(n, '\0');
  for (char& c : s) {
    uint8_t b = 0;
    for (int i = 0; i < 8; ++i)
      b = static_cast<uint8_t>((b << 1) | (static_cast<int>(rng() % 100) < density));
    c = static_cast<char>(b);
  }
  return s;
}

TEST(BitOpsTest, PopCountMatchesNaive) {
  std::mt19937 rng(1);
  for (size_t n : {0, 1, 7, 8, 9, 31, 64, 100, 1000}) {
    std::string s = RandomBytes(rng, n, 50);
    uint64_t expect = 0;
    for (uint64_t i = 0; i < n * 8; ++i) expect += NaiveBit(s, i);
    EXPECT_EQ(PopCount(reinterpret_cast<const uint8_t*>(s.data()), n), expect) << n;
  }
}

TEST(BitOpsTest, ResolveRanges) {
  BitRange r = ResolveBitRange(6, 0, -1, false, true);
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.last, 47u);
  r = ResolveBitRange(6, 1, 1, false, true);
  EXPECT_EQ(r.first, 8u);
  EXPECT_EQ(r.last, 15u);
  r = ResolveBitRange(6, 5, 30, true, true);
  EXPECT_EQ(r.first, 5u);
  EXPECT_EQ(r.last, 30u);
  r = ResolveBitRange(6, -100, 100, true, true);  // clamped into the string
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.last, 47u);
  EXPECT_TRUE(ResolveBitRange(6, 4, 2, false, true).Empty());
  EXPECT_TRUE(ResolveBitRange(0, 0, -1, false, true).Empty());
  // Both negative and reversed: BITCOUNT gives nothing, BITPOS clamps both to byte 0.
  EXPECT_TRUE(ResolveBitRange(3, -5, -10, false, true).Empty());
  r = ResolveBitRange(3, -5, -10, false, false);
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.last, 7u);
  r = ResolveBitRange(3, INT64_MIN, INT64_MAX, false, false);
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.last, 23u);
}

TEST(BitOpsTest, CountAndFindMatchNaive) {
  std::mt19937 rng(2);
  for (int density : {0, 3, 50, 97, 100}) {
    std::string s = RandomBytes(rng, 21, density);
    const uint64_t nbits = s.size() * 8;
    for (uint64_t first = 0; first < nbits; first += 3) {
      for (uint64_t last = first; last < nbits; last += 5) {
        BitRange range{first, last};
        uint64_t count = 0;
        int64_t first_one = -1, first_zero = -1;
        for (uint64_t i = first; i <= last; ++i) {
          int b = NaiveBit(s, i);
          count += b;
          if (b && first_one < 0) first_one = static_cast<int64_t>(i);
          if (!b && first_zero < 0) first_zero = static_cast<int64_t>(i);
        }
        ASSERT_EQ(CountBitsInRange(s, range), count) << first << ".." << last;
        ASSERT_EQ(FindFirstBit(s, true, range), first_one) << first << ".." << last;
        ASSERT_EQ(FindFirstBit(s, false, range), first_zero) << first << ".." << last;
      }
    }
  }
}

TEST(BitOpsTest, FindSkipsLongRuns) {
  std::string zeros(100000, '\0');
  zeros[77777] = 0x01;
  EXPECT_EQ(FindFirstBit(zeros, true, {0, zeros.size() * 8 - 1}), 77777 * 8 + 7);
  EXPECT_EQ(FindFirstBit(zeros, true, {3, 77777 * 8 + 6}), -1);
  std::string ones(100000, '\xff');
  EXPECT_EQ(FindFirstBit(ones, false, {0, ones.size() * 8 - 1}), -1);
  ones[99999] = '\xfe';
  EXPECT_EQ(FindFirstBit(ones, false, {5, ones.size() * 8 - 1}), 99999 * 8 + 7);
}

TEST(BitOpsTest, BitOpPadsShorterSources) {
  std::string out;
  ApplyBitOp(BitOpKind::kAnd, {"foobar", "abcdef"}, &out);
  EXPECT_EQ(out, "`bc`ab");
  ApplyBitOp(BitOpKind::kOr, {"\x01", "\x02\x10", ""}, &out);
  EXPECT_EQ(out, "\x03\x10");
  ApplyBitOp(BitOpKind::kXor, {"\xff\xff", "\x0f"}, &out);
  EXPECT_EQ(out, "\xf0\xff");
  ApplyBitOp(BitOpKind::kAnd, {"\xff\xff", "\xff"}, &out);
  EXPECT_EQ(out, std::string("\xff\x00", 2));
  ApplyBitOp(BitOpKind::kNot, {std::string("\x00\xf0", 2)}, &out);
  EXPECT_EQ(out, "\xff\x0f");
  ApplyBitOp(BitOpKind::kOr, {"", ""}, &out);
  EXPECT_EQ(out, "");
}

TEST(BitOpsTest, FieldsRoundTrip) {
  std::mt19937_64 rng(3);
  std::vector<uint8_t> buf(32);
  for (int bits = 1; bits <= 64; ++bits) {
    for (uint64_t offset = 0; offset < 80; offset += 7) {
      std::fill(buf.begin(), buf.end(), 0xA5);
      const std::vector<uint8_t> before = buf;
      const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      const uint64_t v = rng() & mask;
      SetField(buf.data(), offset, bits, v);
      ASSERT_EQ(GetUnsignedField(buf.data(), offset, bits), v);
      for (uint64_t i = 0; i < buf.size() * 8; ++i) {  // neighbours untouched
        if (i >= offset && i < offset + bits) continue;
        std::string_view a(reinterpret_cast<const char*>(buf.data()), buf.size());
        std::string_view b(reinterpret_cast<const char*>(before.data()), before.size());
        ASSERT_EQ(NaiveBit(a, i), NaiveBit(b, i));
      }
      const int64_t sv = GetSignedField(buf.data(), offset, bits);
      const bool negative = (v >> (bits - 1)) & 1;
      EXPECT_EQ(sv < 0, negative);
      EXPECT_EQ(static_cast<uint64_t>(sv) & mask, v);
    }
  }
  EXPECT_EQ(ReadUnsignedField("\xff", 4, 8), 0xF0u);  // zeros past the end
  EXPECT_EQ(ReadSignedField("\x80", 0, 8), -128);
  EXPECT_EQ(ReadUnsignedField("", 1000, 63), 0u);
}

TEST(BitOpsTest, SignedOverflow) {
  int64_t out;
  EXPECT_TRUE(AddSignedField(100, 27, 8, BitOverflow::kWrap, &out));
  EXPECT_EQ(out, 127);
  EXPECT_FALSE(AddSignedField(100, 28, 8, BitOverflow::kWrap, &out));
  EXPECT_EQ(out, -128);
  EXPECT_FALSE(AddSignedField(100, 28, 8, BitOverflow::kSat, &out));
  EXPECT_EQ(out, 127);
  EXPECT_FALSE(AddSignedField(-100, -29, 8, BitOverflow::kSat, &out));
  EXPECT_EQ(out, -128);
  EXPECT_FALSE(AddSignedField(-100, -29, 8, BitOverflow::kWrap, &out));
  EXPECT_EQ(out, 127);
  EXPECT_FALSE(AddSignedField(INT64_MAX, 1, 64, BitOverflow::kWrap, &out));
  EXPECT_EQ(out, INT64_MIN);
  EXPECT_FALSE(AddSignedField(INT64_MIN, -1, 64, BitOverflow::kSat, &out));
  EXPECT_EQ(out, INT64_MIN);
  EXPECT_TRUE(AddSignedField(-1, INT64_MAX, 64, BitOverflow::kFail, &out));
  EXPECT_EQ(out, INT64_MAX - 1);
  EXPECT_TRUE(AddSignedField(1, INT64_MIN, 64, BitOverflow::kFail, &out));
  EXPECT_EQ(out, INT64_MIN + 1);
  // SET values (incr 0) out of range: -9 saturates to the minimum, but, as in Valkey, a value
  // within 2^(bits-1) of INT64_MIN wraps the headroom computation and saturates to the max.
  EXPECT_FALSE(AddSignedField(-9, 0, 4, BitOverflow::kSat, &out));
  EXPECT_EQ(out, -8);
  EXPECT_FALSE(AddSignedField(INT64_MIN + 1, 0, 4, BitOverflow::kSat, &out));
  EXPECT_EQ(out, 7);
  EXPECT_FALSE(AddSignedField(INT64_MIN, 0, 8, BitOverflow::kSat, &out));
  EXPECT_EQ(out, 127);
  EXPECT_FALSE(AddSignedField(INT64_MIN + 128, 0, 8, BitOverflow::kSat, &out));
  EXPECT_EQ(out, -128);
  EXPECT_FALSE(AddSignedField(300, 0, 8, BitOverflow::kWrap, &out));
  EXPECT_EQ(out, 44);
}

TEST(BitOpsTest, UnsignedOverflow) {
  uint64_t out;
  EXPECT_TRUE(AddUnsignedField(250, 5, 8, BitOverflow::kWrap, &out));
  EXPECT_EQ(out, 255u);
  EXPECT_FALSE(AddUnsignedField(250, 6, 8, BitOverflow::kWrap, &out));
  EXPECT_EQ(out, 0u);
  EXPECT_FALSE(AddUnsignedField(250, 6, 8, BitOverflow::kSat, &out));
  EXPECT_EQ(out, 255u);
  EXPECT_FALSE(AddUnsignedField(5, -6, 8, BitOverflow::kSat, &out));
  EXPECT_EQ(out, 0u);
  EXPECT_FALSE(AddUnsignedField(5, -6, 8, BitOverflow::kWrap, &out));
  EXPECT_EQ(out, 255u);
  EXPECT_FALSE(AddUnsignedField(5, INT64_MIN, 63, BitOverflow::kWrap, &out));
  EXPECT_EQ(out, (uint64_t{5} + (uint64_t{1} << 63)) & ((uint64_t{1} << 63) - 1));
  // SET u8 -1: the value is a huge unsigned number, so it saturates to the max.
  EXPECT_FALSE(AddUnsignedField(static_cast<uint64_t>(-1), 0, 8, BitOverflow::kSat, &out));
  EXPECT_EQ(out, 255u);
}

// ---------------------------------------------------------------------------------------------
// Commands

constexpr const char* kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
constexpr const char* kBadOffset = "-ERR bit offset is not an integer or out of range\r\n";
constexpr const char* kSyntax = "-ERR syntax error\r\n";
constexpr const char* kNotInt = "-ERR value is not an integer or out of range\r\n";

class BitmapCommandsTest : public CommandTest {
 protected:
  std::string Value(const std::string& key) {
    Entry* e = server_->db(0)->Find(key);
    char buf[24];
    return e == nullptr ? "<none>" : std::string(StringValue(e, buf));
  }
  std::string EncodingOf(const std::string& key) {
    Entry* e = server_->db(0)->Find(key);
    return e == nullptr ? "none" : EncodingName(e->encoding());
  }
  // A key of another type: a real list when the list family is there, else a tagged entry.
  void MakeNonString(const std::string& key) {
    if (Run({"rpush", key, "a"}) == Int(1)) return;
    Entry* e = server_->db(0)->Add(key);
    e->SetType(ObjType::kList, Encoding::kQuickList);
    e->obj = nullptr;
  }
  void TearDown() override {
    server_->db(0)->ForEach([](Entry* e) {
      if (e->type() != ObjType::kString && e->obj == nullptr) {
        e->SetType(ObjType::kString, Encoding::kInt);
      }
    });
    CommandTest::TearDown();
  }
  static std::string Array(std::initializer_list<std::string> items) {
    std::string s = "*" + std::to_string(items.size()) + "\r\n";
    for (const std::string& i : items) s += i;
    return s;
  }
};

TEST_F(BitmapCommandsTest, SetBitAndGetBit) {
  EXPECT_EQ(Run({"setbit", "b", "7", "1"}), Int(0));
  EXPECT_EQ(Value("b"), "\x01");
  EXPECT_EQ(EncodingOf("b"), "raw");
  EXPECT_EQ(Run({"setbit", "b", "7", "1"}), Int(1));
  EXPECT_EQ(Run({"setbit", "b", "100", "1"}), Int(0));
  EXPECT_EQ(Value("b").size(), 13u);
  EXPECT_EQ(Run({"getbit", "b", "100"}), Int(1));
  EXPECT_EQ(Run({"getbit", "b", "99"}), Int(0));
  EXPECT_EQ(Run({"getbit", "b", "100000"}), Int(0));
  EXPECT_EQ(Run({"getbit", "missing", "3"}), Int(0));
  Run({"set", "n", "12"});  // "12" = 0x31 0x32
  EXPECT_EQ(Run({"getbit", "n", "2"}), Int(1));
  EXPECT_EQ(Run({"setbit", "n", "0", "0"}), Int(0));  // unchanged, but now raw
  EXPECT_EQ(EncodingOf("n"), "raw");
  EXPECT_EQ(Run({"setbit", "b", "-1", "1"}), kBadOffset);
  EXPECT_EQ(Run({"setbit", "b", "abc", "1"}), kBadOffset);
  EXPECT_EQ(Run({"setbit", "b", "4294967296", "1"}), kBadOffset);  // byte 512 MB
  EXPECT_EQ(Run({"getbit", "b", "4294967296"}), kBadOffset);
  EXPECT_EQ(Run({"setbit", "b", "1", "2"}), Err("ERR bit is not an integer or out of range"));
  EXPECT_EQ(Run({"setbit", "b", "1", "x"}), Err("ERR bit is not an integer or out of range"));
  server_->config().proto_max_bulk_len = 1024 * 1024;  // (no CONFIG SET: stats are global)
  EXPECT_EQ(Run({"setbit", "b", "8388608", "1"}), kBadOffset);
  EXPECT_EQ(Run({"setbit", "b", "8388607", "0"}), Int(0));
  EXPECT_EQ(Value("b").size(), 1048576u);
  MakeNonString("l");
  EXPECT_EQ(Run({"setbit", "l", "1", "1"}), kWrongType);
  EXPECT_EQ(Run({"getbit", "l", "1"}), kWrongType);
}

TEST_F(BitmapCommandsTest, BitCount) {
  Run({"set", "k", "foobar"});
  EXPECT_EQ(Run({"bitcount", "k"}), Int(26));
  EXPECT_EQ(Run({"bitcount", "k", "0", "0"}), Int(4));
  EXPECT_EQ(Run({"bitcount", "k", "1", "1"}), Int(6));
  EXPECT_EQ(Run({"bitcount", "k", "1", "1", "BYTE"}), Int(6));
  EXPECT_EQ(Run({"bitcount", "k", "5", "30", "bit"}), Int(17));
  EXPECT_EQ(Run({"bitcount", "k", "1"}), Int(22));  // Valkey 8: end defaults to the last byte
  EXPECT_EQ(Run({"bitcount", "k", "-1", "-3"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "missing", "0", "-1"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "k", "0", "1", "bits"}), kSyntax);
  EXPECT_EQ(Run({"bitcount", "k", "0", "1", "bit", "x"}), kSyntax);
  EXPECT_EQ(Run({"bitcount", "k", "a", "1"}), kNotInt);
  EXPECT_EQ(Run({"bitcount", "missing", "a", "1"}), kNotInt);  // arguments before the key
  MakeNonString("l");
  EXPECT_EQ(Run({"bitcount", "l"}), kWrongType);
}

TEST_F(BitmapCommandsTest, BitPos) {
  Run({"set", "k", std::string("\xff\xf0\x00", 3)});
  EXPECT_EQ(Run({"bitpos", "k", "0"}), Int(12));
  EXPECT_EQ(Run({"bitpos", "k", "1", "2"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "1", "7", "15", "bit"}), Int(7));
  EXPECT_EQ(Run({"bitpos", "k", "0", "0", "11", "bit"}), Int(-1));
  Run({"set", "ones", "\xff\xff"});
  EXPECT_EQ(Run({"bitpos", "ones", "0"}), Int(16));  // past the end: zero padding
  EXPECT_EQ(Run({"bitpos", "ones", "0", "1"}), Int(16));
  EXPECT_EQ(Run({"bitpos", "ones", "0", "0", "-1"}), Int(-1));  // explicit end: no padding
  EXPECT_EQ(Run({"bitpos", "missing", "0"}), Int(0));
  EXPECT_EQ(Run({"bitpos", "missing", "1"}), Int(-1));
  Run({"set", "empty", ""});
  EXPECT_EQ(Run({"bitpos", "empty", "0"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "2"}), Err("ERR The bit argument must be 1 or 0."));
  EXPECT_EQ(Run({"bitpos", "k", "1", "0", "1", "x"}), kSyntax);
  EXPECT_EQ(Run({"bitpos", "k", "1", "0", "1", "bit", "x"}), kSyntax);
}

TEST_F(BitmapCommandsTest, BitOp) {
  Run({"set", "a", "foobar"});
  Run({"set", "b", "abcdef"});
  EXPECT_EQ(Run({"bitop", "and", "d", "a", "b"}), Int(6));
  EXPECT_EQ(Value("d"), "`bc`ab");
  EXPECT_EQ(EncodingOf("d"), "raw");
  Run({"expire", "d", "100"});
  EXPECT_EQ(Run({"bitop", "NOT", "d", "d"}), Int(6));  // destination as its own source
  EXPECT_EQ(Value("d"), "\x9f\x9d\x9c\x9f\x9e\x9d");
  EXPECT_EQ(Run({"ttl", "d"}), Int(-1));  // the TTL goes with the old value
  EXPECT_EQ(Run({"bitop", "or", "d", "missing", "nothing"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));  // an empty result deletes
  EXPECT_EQ(Run({"bitop", "not", "d", "a", "b"}),
            Err("ERR BITOP NOT must be called with a single source key."));
  EXPECT_EQ(Run({"bitop", "nand", "d", "a"}), kSyntax);
  MakeNonString("l");
  EXPECT_EQ(Run({"bitop", "xor", "d", "a", "l"}), kWrongType);
  EXPECT_EQ(Run({"bitop", "xor", "l", "a"}), Int(6));  // any destination type is replaced
  EXPECT_EQ(Value("l"), "foobar");
}

TEST_F(BitmapCommandsTest, Bitfield) {
  EXPECT_EQ(Run({"bitfield", "k", "set", "i8", "0", "100", "get", "i8", "0"}),
            Array({Int(0), Int(100)}));
  EXPECT_EQ(Run({"bitfield", "k", "incrby", "i8", "0", "100"}), Array({Int(-56)}));
  EXPECT_EQ(Run({"bitfield", "k", "overflow", "sat", "incrby", "i8", "0", "-100", "overflow",
                 "fail", "incrby", "i8", "0", "-1", "get", "u4", "#1"}),
            Array({Int(-128), kNil, Int(0)}));
  EXPECT_EQ(Run({"bitfield", "k", "set", "u8", "#2", "-1", "get", "u8", "16"}),
            Array({Int(0), Int(255)}));
  EXPECT_EQ(Run({"bitfield", "k", "get", "i64", "1000"}), Array({Int(0)}));
  EXPECT_EQ(Run({"bitfield", "k"}), "*0\r\n");
  EXPECT_EQ(Run({"bitfield", "missing", "get", "u8", "0"}), Array({Int(0)}));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
  const std::string type_error =
      Err("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported "
          "but i64 is.");
  EXPECT_EQ(Run({"bitfield", "k", "get", "u64", "0"}), type_error);
  EXPECT_EQ(Run({"bitfield", "k", "get", "I8", "0"}), type_error);
  EXPECT_EQ(Run({"bitfield", "k", "get", "i0", "0"}), type_error);
  EXPECT_EQ(Run({"bitfield", "k", "get", "i8", "#-1"}), kBadOffset);
  EXPECT_EQ(Run({"bitfield", "k", "overflow", "x"}), Err("ERR Invalid OVERFLOW type specified"));
  EXPECT_EQ(Run({"bitfield", "k", "get", "i8"}), kSyntax);
  EXPECT_EQ(Run({"bitfield", "k", "set", "i8", "0", "x"}), kNotInt);
  EXPECT_EQ(Run({"bitfield_ro", "k", "get", "u8", "16"}), Array({Int(255)}));
  EXPECT_EQ(Run({"bitfield_ro", "k", "set", "u8", "0", "1"}),
            Err("ERR BITFIELD_RO only supports the GET subcommand"));
  MakeNonString("l");
  EXPECT_EQ(Run({"bitfield", "l", "get", "u8", "0"}), kWrongType);
  EXPECT_EQ(Run({"bitfield", "l", "set", "u8", "0", "1"}), kWrongType);
}

}  // namespace
}  // namespace vireo
