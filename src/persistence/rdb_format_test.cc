// The RDB primitives and the encodings only older or newer servers write (ziplist, zipmap,
// quicklist 1, listpack sets and stream listpacks 3 of version 11), built by hand.
#include "persistence/rdb_format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/crc64.h"
#include "persistence/rdb_packed.h"
#include "persistence/rdb_reader.h"
#include "persistence/rdb_writer.h"
#include "store/listpack.h"
#include "store/stream.h"
#include "store/value.h"

namespace vireo {
namespace {

std::vector<std::string> Items(bool (*walk)(std::string_view, const rdb::ItemFn&, std::string*),
                               const std::string& blob, bool* ok) {
  std::vector<std::string> out;
  std::string why;
  *ok = walk(
      blob,
      [&](std::string_view s) {
        out.emplace_back(s);
        return true;
      },
      &why);
  return out;
}

// "a", 5 (immediate), 300 (int16), "hello".
std::string SampleZiplist() {
  std::string z = {27, 0, 0, 0, 19, 0, 0, 0, 4, 0};
  z += std::string(
      "\x00\x01"
      "a",
      3);
  z += std::string("\x03\xF6", 2);
  z += std::string("\x02\xC0\x2C\x01", 4);
  z += std::string("\x04\x05hello", 7);
  z += '\xFF';
  return z;
}

TEST(RdbPacked, Ziplist) {
  bool ok;
  std::string z = SampleZiplist();
  EXPECT_EQ(Items(rdb::ForEachZiplistItem, z, &ok),
            (std::vector<std::string>{"a", "5", "300", "hello"}));
  EXPECT_TRUE(ok);
  for (size_t cut = 0; cut < z.size(); ++cut) {
    Items(rdb::ForEachZiplistItem, z.substr(0, cut), &ok);
    EXPECT_FALSE(ok) << cut;
  }
  std::string bad = z;
  bad[20] = 0x3F;  // "hello" claims 63 bytes
  Items(rdb::ForEachZiplistItem, bad, &ok);
  EXPECT_FALSE(ok);
}

TEST(RdbPacked, Zipmap) {
  bool ok;
  std::string zm = std::string(
      "\x01\x01"
      "f"
      "\x02\x00"
      "vv"
      "\xFF",
      8);
  EXPECT_EQ(Items(rdb::ForEachZipmapItem, zm, &ok), (std::vector<std::string>{"f", "vv"}));
  EXPECT_TRUE(ok);
  Items(rdb::ForEachZipmapItem, zm.substr(0, 6), &ok);
  EXPECT_FALSE(ok);
}

TEST(RdbPrimitives, StringsLengthsAndLzfRoundTrip) {
  RdbWriteOptions opt;
  RdbWriter w(-1, opt);
  std::vector<std::string> strings = {"",
                                      "x",
                                      "12",
                                      "-128",
                                      "40000",
                                      "2147483647",
                                      "2147483648",
                                      "007",
                                      std::string(1000, 'z'),
                                      std::string(70000, 'q') + "end"};
  for (const std::string& s : strings) w.String(s);
  for (uint64_t len : {0ull, 63ull, 64ull, 16383ull, 16384ull, 4294967295ull, 4294967296ull}) {
    w.Length(len);
  }
  std::string bytes = w.buffer();
  // The 1000 'z' string is compressed (LZF): far fewer bytes than it holds.
  EXPECT_LT(bytes.size(), 2000u);
  RdbReader r(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  for (const std::string& s : strings) {
    std::string got;
    ASSERT_TRUE(r.String(&got)) << r.error();
    EXPECT_EQ(got, s);
  }
  for (uint64_t len : {0ull, 63ull, 64ull, 16383ull, 16384ull, 4294967295ull, 4294967296ull}) {
    uint64_t got;
    ASSERT_TRUE(r.Length(&got));
    EXPECT_EQ(got, len);
  }
  EXPECT_EQ(r.left(), 0u);
  std::string s;
  EXPECT_FALSE(r.String(&s));
  EXPECT_NE(r.error().find("end of data"), std::string::npos);
}

std::string Payload(uint8_t type, const std::string& body, int version) {
  std::string p;
  p += static_cast<char>(type);
  p += body;
  p += static_cast<char>(version);
  p += '\0';
  uint64_t crc = Crc64(0, p.data(), p.size());
  for (int i = 0; i < 8; ++i) p += static_cast<char>(crc >> (8 * i));
  return p;
}

std::string Encode(void (*fn)(RdbWriter&)) {
  RdbWriter w(-1, RdbWriteOptions{});
  fn(w);
  return w.buffer();
}

TEST(RdbFunctions, PayloadRoundTripAndDamage) {
  std::vector<std::string> codes = {"#!lua name=a\nreturn 1", std::string(300, 'x')};
  std::string payload = FunctionsPayload(codes);
  EXPECT_EQ(static_cast<uint8_t>(payload[0]), rdb::kOpFunction2);
  std::vector<std::string> back;
  std::string error;
  ASSERT_TRUE(ReadFunctionsPayload(payload, &back, &error)) << error;
  EXPECT_EQ(back, codes);
  back.clear();
  EXPECT_TRUE(ReadFunctionsPayload(FunctionsPayload({}), &back, &error));
  EXPECT_TRUE(back.empty());
  std::string bad = payload;
  bad[3] ^= 1;
  EXPECT_FALSE(ReadFunctionsPayload(bad, &back, &error));
  EXPECT_EQ(error, "ERR DUMP payload version or checksum are wrong");
  // A value type where a library belongs, then a torn library, each with a valid footer.
  auto framed = [](std::string body) {
    body.push_back(static_cast<char>(rdb::kWriteVersion));
    body.push_back('\0');
    uint64_t crc = Crc64(0, body.data(), body.size());
    for (int i = 0; i < 8; ++i) body.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
    return body;
  };
  EXPECT_FALSE(ReadFunctionsPayload(framed(std::string("\0\x03" "abc", 5)), &back, &error));
  EXPECT_EQ(error, "ERR given type is not a function");
  EXPECT_FALSE(ReadFunctionsPayload(framed("\xf5\x05" "ab"), &back, &error));
  EXPECT_EQ(error, "ERR Failed loading library payload");
}

TEST(RdbReader, OlderEncodings) {
  RdbLoadLimits lim = RdbLoadLimitsFrom(Config{});
  static std::string z = SampleZiplist();
  // List as a ziplist, and as quicklist 1 (nodes of ziplists).
  for (uint8_t type : {rdb::kTypeListZiplist, rdb::kTypeListQuicklist}) {
    std::string body = type == rdb::kTypeListZiplist ? Encode([](RdbWriter& w) { w.String(z); })
                                                     : Encode([](RdbWriter& w) {
                                                         w.Length(2);
                                                         w.String(z);
                                                         w.String(z);
                                                       });
    std::string p = Payload(type, body, 9);
    ASSERT_TRUE(VerifyDumpPayload(p));
    Entry* e = LoadDumpPayload(p, "k", lim);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(ListLength(e), type == rdb::kTypeListZiplist ? 4u : 8u);
    FreeEntry(e);
  }
  // Hash as a zipmap.
  std::string zm = std::string(
      "\x01\x01"
      "f"
      "\x02\x00"
      "vv"
      "\xFF",
      8);
  RdbWriter w(-1, RdbWriteOptions{});
  w.String(zm);
  Entry* h = LoadDumpPayload(Payload(rdb::kTypeHashZipmap, w.buffer(), 3), "h", lim);
  ASSERT_NE(h, nullptr);
  hash::Item v;
  ASSERT_TRUE(hash::Get(h, "f", &v));
  char buf[32];
  EXPECT_EQ(v.View(buf), "vv");
  FreeEntry(h);
  // Sorted set with text scores (type 3).
  std::string zs = Encode([](RdbWriter& w) {
    w.Length(2);
    w.String("a");
    w.Byte(3);
    w.Raw("1.5", 3);
    w.String("b");
    w.Byte(254);  // +inf
  });
  Entry* zset = LoadDumpPayload(Payload(rdb::kTypeZSet, zs, 6), "z", lim);
  ASSERT_NE(zset, nullptr);
  double score;
  EXPECT_TRUE(ZSet::Of(zset).Score("a", &score));
  EXPECT_EQ(score, 1.5);
  FreeEntry(zset);
}

TEST(RdbReader, Version11SetListpackAndStream3) {
  RdbLoadLimits lim = RdbLoadLimitsFrom(Config{});
  unsigned char* lp = lp::New();
  for (const char* m : {"a", "b", "7"}) lp = lp::Append(lp, m);
  std::string blob(reinterpret_cast<char*>(lp), lp::Bytes(lp));
  lp::Free(lp);
  RdbWriter w(-1, RdbWriteOptions{});
  w.String(blob);
  Entry* s = LoadDumpPayload(Payload(rdb::kTypeSetListpack, w.buffer(), 11), "s", lim);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(SetSize(SetOf(s)), 3u);
  FreeEntry(s);
  // Duplicate members are corruption.
  lp = lp::New();
  for (const char* m : {"a", "a"}) lp = lp::Append(lp, m);
  RdbWriter w2(-1, RdbWriteOptions{});
  w2.String(std::string(reinterpret_cast<char*>(lp), lp::Bytes(lp)));
  lp::Free(lp);
  EXPECT_EQ(LoadDumpPayload(Payload(rdb::kTypeSetListpack, w2.buffer(), 11), "s", lim), nullptr);

  // A stream (listpacks 3: consumers carry an active time): one entry 5-0 {f: v}, a group
  // with one pending entry owned by consumer c.
  lp = lp::New();
  for (int64_t v : {1, 0, 1}) lp = lp::AppendInt(lp, v);
  lp = lp::Append(lp, "f");
  lp = lp::AppendInt(lp, 0);
  for (int64_t v : {2, 0, 0}) lp = lp::AppendInt(lp, v);
  lp = lp::Append(lp, "v");
  lp = lp::AppendInt(lp, 4);
  std::string node(reinterpret_cast<char*>(lp), lp::Bytes(lp));
  lp::Free(lp);
  RdbWriter x(-1, RdbWriteOptions{});
  x.Length(1);
  std::string key(16, '\0');
  key[7] = 5;
  x.String(key);
  x.String(node);
  for (uint64_t v : {1, 5, 0, 5, 0, 0, 0, 1}) x.Length(v);  // length, last, first, max-del, added
  x.Length(1);
  x.String("g");
  x.Length(5);
  x.Length(0);
  x.Length(1);  // entries read
  x.Length(1);
  x.StreamId(5, 0);
  x.MillisecondTime(1000);
  x.Length(2);
  x.Length(1);
  x.String("c");
  x.MillisecondTime(2000);
  x.MillisecondTime(1500);
  x.Length(1);
  x.StreamId(5, 0);
  Entry* st = LoadDumpPayload(Payload(rdb::kTypeStreamListpacks3, x.buffer(), 11), "x", lim);
  ASSERT_NE(st, nullptr);
  auto* stream = static_cast<Stream*>(st->obj);
  EXPECT_EQ(stream->length, 1u);
  StreamGroup* g = stream->FindGroup("g");
  ASSERT_NE(g, nullptr);
  StreamConsumer* c = g->FindConsumer("c");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->active_time, 1500);
  EXPECT_EQ(g->pel.begin()->second.delivery_count, 2u);
  EXPECT_EQ(g->pel.begin()->second.consumer, c);
  FreeEntry(st);
  // Version 12 payloads are refused.
  EXPECT_FALSE(VerifyDumpPayload(Payload(rdb::kTypeString, std::string("\x01x", 2), 12)));
}

}  // namespace
}  // namespace vireo
