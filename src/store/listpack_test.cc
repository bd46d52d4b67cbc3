#include "store/listpack.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace vireo::lp {
namespace {

std::vector<unsigned char> Blob(const unsigned char* lp) { return {lp, lp + Bytes(lp)}; }

std::vector<unsigned char> FromHex(const std::string& hex) {
  std::vector<unsigned char> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<unsigned char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string Text(const unsigned char* p) {
  char buf[24];
  return std::string(Get(p).View(buf));
}

// All elements front to back, checking the walk back to front agrees.
std::vector<std::string> Elements(unsigned char* lp) {
  std::vector<std::string> out;
  for (Ptr p = First(lp); p != nullptr; p = Next(lp, p)) out.push_back(Text(p));
  std::vector<std::string> back;
  for (Ptr p = Last(lp); p != nullptr; p = Prev(lp, p)) back.push_back(Text(p));
  EXPECT_EQ(std::vector<std::string>(back.rbegin(), back.rend()), out);
  return out;
}

unsigned char* Build(const std::vector<std::string>& items) {
  unsigned char* lp = New();
  for (const auto& s : items) lp = Append(lp, s);
  return lp;
}

TEST(ListPack, EmptyListPack) {
  unsigned char* lp = New();
  EXPECT_EQ(Blob(lp), (std::vector<unsigned char>{7, 0, 0, 0, 0, 0, 0xFF}));
  EXPECT_EQ(Length(lp), 0u);
  EXPECT_EQ(First(lp), nullptr);
  EXPECT_EQ(Last(lp), nullptr);
  EXPECT_EQ(Seek(lp, 0), nullptr);
  EXPECT_EQ(Seek(lp, -1), nullptr);
  EXPECT_TRUE(Validate(lp, Bytes(lp), true));
  Free(lp);
}

// Worked out by hand from the specification.
TEST(ListPack, GoldenBytes) {
  unsigned char* lp = Build({"a", "1", "-1", "300"});
  const std::vector<unsigned char> expected = {0x12, 0x00, 0x00,
                                               0x00, 0x04, 0x00,  // 18 bytes, 4 elements
                                               0x81, 0x61, 0x02,  // 6-bit string "a", back length 2
                                               0x01, 0x01,        // 7-bit uint 1
                                               0xDF, 0xFF, 0x02,  // 13-bit int -1 (0x1FFF)
                                               0xC1, 0x2C, 0x02,  // 13-bit int 300 (0x012C)
                                               0xFF};
  EXPECT_EQ(Blob(lp), expected);
  Free(lp);

  // A 200-byte string: 12-bit string header, then a two-byte back length for 202
  // (1 * 128 + 74): most significant group first without the continuation bit.
  lp = Append(New(), std::string(200, 'z'));
  const std::vector<unsigned char> blob = Blob(lp);
  ASSERT_EQ(blob.size(), 6u + 2 + 200 + 2 + 1);
  EXPECT_EQ(blob[6], 0xE0);
  EXPECT_EQ(blob[7], 200);
  EXPECT_EQ(blob[208], 0x01);
  EXPECT_EQ(blob[209], 0x80 | 74);
  Free(lp);
}

struct Case {
  std::string text;
  unsigned char first_byte;  // the encoding byte, or its type bits for packed encodings
  unsigned char mask;
  size_t entry_size;
  bool is_int;
};

TEST(ListPack, EncodingBoundaries) {
  const std::vector<Case> cases = {
      {"0", 0x00, 0x80, 2, true},
      {"127", 0x7F, 0xFF, 2, true},
      {"128", 0xC0, 0xE0, 3, true},
      {"-1", 0xC0, 0xE0, 3, true},
      {"4095", 0xC0, 0xE0, 3, true},
      {"-4096", 0xC0, 0xE0, 3, true},
      {"4096", 0xF1, 0xFF, 4, true},
      {"-4097", 0xF1, 0xFF, 4, true},
      {"32767", 0xF1, 0xFF, 4, true},
      {"-32768", 0xF1, 0xFF, 4, true},
      {"32768", 0xF2, 0xFF, 5, true},
      {"-32769", 0xF2, 0xFF, 5, true},
      {"8388607", 0xF2, 0xFF, 5, true},
      {"-8388608", 0xF2, 0xFF, 5, true},
      {"8388608", 0xF3, 0xFF, 6, true},
      {"-8388609", 0xF3, 0xFF, 6, true},
      {"2147483647", 0xF3, 0xFF, 6, true},
      {"-2147483648", 0xF3, 0xFF, 6, true},
      {"2147483648", 0xF4, 0xFF, 10, true},
      {"-2147483649", 0xF4, 0xFF, 10, true},
      {"9223372036854775807", 0xF4, 0xFF, 10, true},
      {"-9223372036854775808", 0xF4, 0xFF, 10, true},
      // Not canonical integers: stored as strings.
      {"9223372036854775808", 0x80, 0xC0, 21, false},
      {"007", 0x80, 0xC0, 5, false},
      {"-0", 0x80, 0xC0, 4, false},
      {"+1", 0x80, 0xC0, 4, false},
      {" 1", 0x80, 0xC0, 4, false},
      {"1.0", 0x80, 0xC0, 5, false},
      {"", 0x80, 0xFF, 2, false},
      {std::string(63, 's'), 0x80 | 63, 0xFF, 65, false},
      {std::string(64, 's'), 0xE0, 0xF0, 67, false},    // 2 + 64 + 1-byte back length
      {std::string(125, 's'), 0xE0, 0xF0, 128, false},  // encoded 127: 1-byte back length
      {std::string(126, 's'), 0xE0, 0xF0, 130, false},  // encoded 128: 2-byte back length
      {std::string(4095, 's'), 0xEF, 0xFF, 4099, false},
      {std::string(4096, 's'), 0xF0, 0xFF, 4103, false},
      {std::string(16377, 's'), 0xF0, 0xFF, 16384, false},  // encoded 16382: 2 bytes
      {std::string(16378, 's'), 0xF0, 0xFF, 16386, false},  // encoded 16383: 3 bytes
      {std::string(70000, 's'), 0xF0, 0xFF, 70008, false},
  };
  // All in one listpack, so walking backwards crosses every back-length width too.
  unsigned char* lp = New();
  std::vector<std::string> texts;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 24) + " len " + std::to_string(c.text.size()));
    EXPECT_EQ(EntrySize(c.text), c.entry_size);
    const size_t before = Bytes(lp);
    lp = Append(lp, c.text);
    EXPECT_EQ(Bytes(lp) - before, c.entry_size);
    Ptr p = Last(lp);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p[0] & c.mask, c.first_byte);
    EXPECT_EQ(Get(p).IsInt(), c.is_int);
    EXPECT_EQ(Text(p), c.text);
    EXPECT_TRUE(Equals(p, c.text));
    texts.push_back(c.text);
  }
  EXPECT_TRUE(Validate(lp, Bytes(lp), true));
  EXPECT_EQ(Elements(lp), texts);
  Free(lp);
}

TEST(ListPack, AppendIntMatchesTextEncoding) {
  const int64_t values[] = {0,     127,   128,     -1,       4095,      4096,
                            -4097, 32768, 8388608, -8388609, INT64_MAX, INT64_MIN};
  for (int64_t v : values) {
    unsigned char* a = AppendInt(New(), v);
    unsigned char* b = Append(New(), std::to_string(v));
    EXPECT_EQ(Blob(a), Blob(b)) << v;
    EXPECT_EQ(Get(First(a)).ival, v);
    Free(a);
    Free(b);
  }
}

TEST(ListPack, EqualsComparesText) {
  unsigned char* lp = Build({"12", "abc"});
  EXPECT_TRUE(Equals(First(lp), "12"));
  EXPECT_FALSE(Equals(First(lp), "012"));
  EXPECT_FALSE(Equals(First(lp), "1"));
  EXPECT_TRUE(Equals(Last(lp), "abc"));
  EXPECT_FALSE(Equals(Last(lp), "abd"));
  Free(lp);
}

TEST(ListPack, PrependInsertReplaceDeleteInTheMiddle) {
  unsigned char* lp = Build({"b", "d"});
  lp = Prepend(lp, "a");
  Ptr out = nullptr;
  lp = Insert(lp, Seek(lp, 1), "c", /*after=*/true, &out);
  EXPECT_EQ(Text(out), "c");
  lp = Insert(lp, Seek(lp, -1), "c2", /*after=*/false, &out);
  EXPECT_EQ(Text(out), "c2");
  lp = Insert(lp, Last(lp), "e", /*after=*/true);
  EXPECT_EQ(Elements(lp), (std::vector<std::string>{"a", "b", "c", "c2", "d", "e"}));
  EXPECT_EQ(Length(lp), 6u);

  // Grow, shrink and change type in place.
  Ptr p = Seek(lp, 2);
  lp = Replace(lp, &p, std::string(300, 'x'));
  EXPECT_EQ(Text(p), std::string(300, 'x'));
  p = Seek(lp, 2);
  lp = Replace(lp, &p, "42");
  EXPECT_TRUE(Get(p).IsInt());
  EXPECT_EQ(Get(p).ival, 42);
  EXPECT_EQ(Length(lp), 6u);
  EXPECT_EQ(Elements(lp), (std::vector<std::string>{"a", "b", "42", "c2", "d", "e"}));

  p = Seek(lp, 3);
  lp = Delete(lp, &p);
  EXPECT_EQ(Text(p), "d");
  p = Seek(lp, 1);
  lp = DeleteRange(lp, &p, 2);
  EXPECT_EQ(Text(p), "d");
  EXPECT_EQ(Elements(lp), (std::vector<std::string>{"a", "d", "e"}));
  p = Last(lp);
  lp = Delete(lp, &p);
  EXPECT_EQ(p, nullptr);
  p = Seek(lp, 0);
  lp = DeleteRange(lp, &p, 100);  // past the end: deletes what is there
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(Length(lp), 0u);
  EXPECT_EQ(Bytes(lp), 7u);
  EXPECT_TRUE(Validate(lp, Bytes(lp), true));
  Free(lp);
}

// Random edits against a vector model; the blob stays valid throughout.
TEST(ListPack, RandomEditsMatchModel) {
  std::mt19937 rng(7);
  const std::vector<std::string> pool = {"",
                                         "x",
                                         "12",
                                         "-5",
                                         "300",
                                         "70000",
                                         "-70000",
                                         "1.5",
                                         std::string(100, 'q'),
                                         std::string(5000, 'w'),
                                         "9999999999",
                                         "007"};
  std::vector<std::string> model;
  unsigned char* lp = New();
  for (int step = 0; step < 2000; step++) {
    const std::string& s = pool[rng() % pool.size()];
    const int op = static_cast<int>(rng() % 5);
    const int64_t n = static_cast<int64_t>(model.size());
    if (op == 0 || n == 0) {
      lp = Append(lp, s);
      model.push_back(s);
    } else if (op == 1) {
      const int64_t i = static_cast<int64_t>(rng() % n);
      const bool after = rng() % 2;
      lp = Insert(lp, Seek(lp, i), s, after);
      model.insert(model.begin() + i + (after ? 1 : 0), s);
    } else if (op == 2) {
      const int64_t i = static_cast<int64_t>(rng() % n);
      Ptr p = Seek(lp, i - n);  // negative index form
      lp = Replace(lp, &p, s);
      model[i] = s;
    } else if (op == 3) {
      const int64_t i = static_cast<int64_t>(rng() % n);
      Ptr p = Seek(lp, i);
      lp = Delete(lp, &p);
      model.erase(model.begin() + i);
    } else {
      const int64_t i = static_cast<int64_t>(rng() % n);
      const size_t count = rng() % 4;
      Ptr p = Seek(lp, i);
      lp = DeleteRange(lp, &p, count);
      model.erase(model.begin() + i, model.begin() + std::min<int64_t>(n, i + count));
    }
    ASSERT_EQ(Length(lp), model.size());
    ASSERT_TRUE(Validate(lp, Bytes(lp), true)) << step;
  }
  EXPECT_EQ(Elements(lp), model);
  Free(lp);
}

TEST(ListPack, SeekPositiveAndNegative) {
  std::vector<std::string> items;
  for (int i = 0; i < 50; i++) items.push_back("e" + std::to_string(i));
  unsigned char* lp = Build(items);
  for (int i = 0; i < 50; i++) {
    EXPECT_EQ(Text(Seek(lp, i)), items[i]);
    EXPECT_EQ(Text(Seek(lp, i - 50)), items[i]);
  }
  EXPECT_EQ(Seek(lp, 50), nullptr);
  EXPECT_EQ(Seek(lp, -51), nullptr);
  EXPECT_EQ(Seek(lp, INT64_MIN), nullptr);
  EXPECT_EQ(Seek(lp, INT64_MAX), nullptr);
  Free(lp);
}

TEST(ListPack, FindWithSkip) {
  // field/value pairs where values collide with field names.
  unsigned char* lp = Build({"f1", "f2", "f2", "10", "10", "v", "007", "7", "", "empty"});
  Ptr first = First(lp);
  EXPECT_EQ(Find(lp, first, "f2", 1), Seek(lp, 2));
  EXPECT_EQ(Find(lp, first, "f2", 0), Seek(lp, 1));
  EXPECT_EQ(Find(lp, first, "10", 1), Seek(lp, 4));
  EXPECT_EQ(Find(lp, first, "v", 1), nullptr);  // only as a value
  EXPECT_EQ(Find(lp, first, "v", 0), Seek(lp, 5));
  EXPECT_EQ(Find(lp, first, "007", 1), Seek(lp, 6));
  EXPECT_EQ(Find(lp, first, "7", 1), nullptr);
  EXPECT_EQ(Find(lp, Seek(lp, 1), "7", 1), Seek(lp, 7));
  EXPECT_EQ(Find(lp, first, "", 1), Seek(lp, 8));
  EXPECT_EQ(Find(lp, first, "missing", 0), nullptr);
  EXPECT_EQ(Find(lp, Seek(lp, 3), "f1", 0), nullptr);  // starts at p
  Free(lp);

  // Skip 2 (member, score, extra) over mixed widths.
  lp = Build({"a", "1", std::string(5000, 'x'), "b", "2", "y", "c", "3", "z"});
  EXPECT_EQ(Find(lp, First(lp), "c", 2), Seek(lp, 6));
  EXPECT_EQ(Find(lp, First(lp), "y", 2), nullptr);
  EXPECT_EQ(Find(lp, First(lp), "2", 2), nullptr);
  Free(lp);
}

TEST(ListPack, AppendBatchEqualsAppends) {
  const std::vector<std::string> items = {"a", "1", std::string(70, 'b'), "-99999", ""};
  std::vector<std::string_view> views(items.begin(), items.end());
  unsigned char* a = Build({"start"});
  a = AppendBatch(a, views.data(), views.size());
  std::vector<std::string> all = {"start"};
  all.insert(all.end(), items.begin(), items.end());
  unsigned char* b = Build(all);
  EXPECT_EQ(Blob(a), Blob(b));
  Free(a);
  Free(b);
}

TEST(ListPack, DupIsIndependent) {
  unsigned char* a = Build({"x", "1"});
  unsigned char* b = Dup(a);
  EXPECT_EQ(Blob(a), Blob(b));
  b = Append(b, "more");
  EXPECT_EQ(Length(a), 2u);
  EXPECT_EQ(Length(b), 3u);
  Free(a);
  Free(b);
}

TEST(ListPack, MoreThan65535Elements) {
  std::vector<std::string> storage;
  for (int i = 0; i < 70000; i++) storage.push_back(std::to_string(i));
  std::vector<std::string_view> views(storage.begin(), storage.end());
  // Batches keep this quick under sanitizers (one reallocation each).
  unsigned char* lp = AppendBatch(New(), views.data(), 65530);
  for (int i = 65530; i < 65534; i++) lp = AppendInt(lp, i);
  EXPECT_EQ(lp[4] | lp[5] << 8, 65534);
  lp = AppendInt(lp, 65534);
  EXPECT_EQ(lp[4] | lp[5] << 8, 65535);  // saturated: unknown from now on
  lp = AppendBatch(lp, views.data() + 65535, 70000 - 65535);
  EXPECT_EQ(lp[4] | lp[5] << 8, 65535);
  EXPECT_EQ(Length(lp), 70000u);
  EXPECT_EQ(Get(Seek(lp, -1)).ival, 69999);
  EXPECT_EQ(Get(Seek(lp, 66000)).ival, 66000);
  EXPECT_EQ(Get(Seek(lp, -70000)).ival, 0);
  EXPECT_EQ(Seek(lp, 70000), nullptr);
  EXPECT_TRUE(Validate(lp, Bytes(lp), true));
  Ptr p = First(lp);
  lp = DeleteRange(lp, &p, 10000);
  EXPECT_EQ(Length(lp), 60000u);
  EXPECT_EQ(Get(First(lp)).ival, 10000);
  EXPECT_TRUE(Validate(lp, Bytes(lp), true));
  Free(lp);
}

TEST(ListPack, ValidateRejectsBadBlobs) {
  unsigned char* lp = Build({"a", "1", std::string(200, 'x'), "-70000"});
  const std::vector<unsigned char> good = Blob(lp);
  Free(lp);
  ASSERT_TRUE(Validate(good.data(), good.size(), true));
  ASSERT_TRUE(Validate(good.data(), good.size(), false));

  EXPECT_FALSE(Validate(nullptr, 0, true));
  EXPECT_FALSE(Validate(good.data(), 6, false));                // shorter than a header + end
  EXPECT_FALSE(Validate(good.data(), good.size() - 1, false));  // truncated: total mismatch

  auto corrupt = [&](size_t at, unsigned char v) {
    std::vector<unsigned char> b = good;
    b[at] = v;
    return b;
  };
  auto valid = [](const std::vector<unsigned char>& b, bool deep) {
    return Validate(b.data(), b.size(), deep);
  };
  EXPECT_FALSE(valid(corrupt(good.size() - 1, 0x00), false));  // no end byte
  EXPECT_FALSE(valid(corrupt(0, good[0] + 1), false));         // total bytes wrong
  EXPECT_FALSE(valid(corrupt(4, 5), true));                    // element count wrong
  EXPECT_TRUE(valid(corrupt(4, 5), false));                    // (shallow does not walk)
  std::vector<unsigned char> saturated = corrupt(4, 0xFF);
  saturated[5] = 0xFF;
  EXPECT_TRUE(valid(saturated, true));               // a saturated count is not checked
  EXPECT_FALSE(valid(corrupt(6, 0xF5), true));       // unknown encoding
  EXPECT_FALSE(valid(corrupt(6, 0xFF), true));       // end byte inside
  EXPECT_FALSE(valid(corrupt(8, 0x03), true));       // back length of "a" wrong
  EXPECT_FALSE(valid(corrupt(6, 0x80 | 60), true));  // string runs past the end
  EXPECT_FALSE(valid(corrupt(12, 0xE1), true));      // 12-bit length too long
  EXPECT_FALSE(valid(corrupt(214, 0x02), true));     // 2-byte back length wrong

  // A truncated blob with its header patched to the shorter size.
  std::vector<unsigned char> cut(good.begin(), good.begin() + 20);
  cut.push_back(0xFF);
  cut[0] = static_cast<unsigned char>(cut.size());
  EXPECT_FALSE(valid(cut, true));
  // A 32-bit string whose length field itself is cut off.
  std::vector<unsigned char> s32 = {10, 0, 0, 0, 1, 0, 0xF0, 0x01, 0x00, 0xFF};
  EXPECT_FALSE(valid(s32, true));
}

// Listpacks taken from redis-server 7.0.15 DUMP payloads (rdbcompression no).
TEST(ListPack, ReadsRedisServerBlobs) {
  // RPUSH l a 1 -1 128 4095 -4096 4096 32767 -32768 32768 8388607 8388608 2147483647
  //         2147483648 -9223372036854775808 <64 x> 007 ""
  std::string list_hex =
      "9800000012008161020101dfff02c08002cfff02d00002f1001003f1ff7f03f1008003f200800004"
      "f2ffff7f04f30000800005f3ffffff7f05f4000000800000000009f4000000000000008009e040";
  for (int i = 0; i < 64; i++) list_hex += "78";  // 64 x
  list_hex += "4283303037048001ff";
  const std::vector<unsigned char> list = FromHex(list_hex);
  ASSERT_TRUE(Validate(list.data(), list.size(), true));
  std::vector<unsigned char> copy = list;
  const std::vector<std::string> expected = {"a",
                                             "1",
                                             "-1",
                                             "128",
                                             "4095",
                                             "-4096",
                                             "4096",
                                             "32767",
                                             "-32768",
                                             "32768",
                                             "8388607",
                                             "8388608",
                                             "2147483647",
                                             "2147483648",
                                             "-9223372036854775808",
                                             std::string(64, 'x'),
                                             "007",
                                             ""};
  EXPECT_EQ(Elements(copy.data()), expected);
  // And we write the very same bytes.
  unsigned char* ours = Build(expected);
  EXPECT_EQ(Blob(ours), list);
  Free(ours);

  // HSET h f1 v1 n 100 neg -5000
  const std::vector<unsigned char> hash =
      FromHex("1d00000006008266310382763103816e026401836e656704f178ec03ff");
  ASSERT_TRUE(Validate(hash.data(), hash.size(), true));
  copy = hash;
  EXPECT_EQ(Elements(copy.data()),
            (std::vector<std::string>{"f1", "v1", "n", "100", "neg", "-5000"}));
  EXPECT_EQ(Find(copy.data(), First(copy.data()), "neg", 1), Seek(copy.data(), 4));

  // ZADD z 1.5 m1 2 m2
  const std::vector<unsigned char> zset = FromHex("160000000400826d310383312e3504826d32030201ff");
  ASSERT_TRUE(Validate(zset.data(), zset.size(), true));
  copy = zset;
  EXPECT_EQ(Elements(copy.data()), (std::vector<std::string>{"m1", "1.5", "m2", "2"}));
  ours = Build({"m1", "1.5", "m2", "2"});
  EXPECT_EQ(Blob(ours), zset);
  Free(ours);
}

}  // namespace
}  // namespace vireo::lp
