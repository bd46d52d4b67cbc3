#include "store/stream_node.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/stream_id.h"

namespace vireo {
namespace {

std::string RoundTrip(const std::string& s, size_t* encoded_size) {
  std::vector<unsigned char> buf(StreamValueSize(s) + 8, 0xAA);
  unsigned char* end = StreamEncodeValue(s, buf.data());
  *encoded_size = static_cast<size_t>(end - buf.data());
  EXPECT_EQ(*encoded_size, StreamValueSize(s)) << s;
  EXPECT_EQ(StreamSkipValue(buf.data()), end) << s;
  char scratch[kStreamValueBuf];
  std::string_view out;
  EXPECT_EQ(StreamDecodeValue(buf.data(), scratch, &out), end) << s;
  return std::string(out);
}

TEST(StreamValueCodec, EveryValueComesBackByteIdentical) {
  std::vector<std::string> values = {"",
                                     "0",
                                     "1",
                                     "127",
                                     "128",
                                     "-1",
                                     "-128",
                                     "9223372036854775807",
                                     "-9223372036854775808",
                                     "9223372036854775808",
                                     "007",
                                     "-0",
                                     "+1",
                                     " 1",
                                     "1 ",
                                     "0x10",
                                     "21.5",
                                     "0.05",
                                     "-0.0",
                                     "0.0",
                                     "10.50",
                                     "-273.15",
                                     "1.234567890123456",
                                     "1.23456789012345",
                                     "1234567890123456789.0",
                                     "12345678901234567.89",
                                     "123456789012345678.99",
                                     "01.5",
                                     ".5",
                                     "5.",
                                     "1e3",
                                     "1.5.2",
                                     "-.5",
                                     "--1.0",
                                     "abc",
                                     std::string(63, 'x'),
                                     std::string(64, 'y'),
                                     std::string(300, 'z'),
                                     std::string("\0\x01\xff", 3),
                                     "\xc3\xa9t\xc3\xa9"};
  for (const std::string& v : values) {
    size_t size;
    EXPECT_EQ(RoundTrip(v, &size), v);
  }
}

TEST(StreamValueCodec, NumbersAndShortDecimalsAreSmall) {
  EXPECT_EQ(StreamValueSize("40"), 1u);
  EXPECT_EQ(StreamValueSize("127"), 1u);
  EXPECT_EQ(StreamValueSize("128"), 3u);
  EXPECT_EQ(StreamValueSize("21.5"), 3u);  // tag + 2-byte mantissa 215
  EXPECT_EQ(StreamValueSize("1.5"), 2u);
  EXPECT_EQ(StreamValueSize("-1"), 2u);
  EXPECT_EQ(StreamValueSize("abc"), 4u);
  EXPECT_EQ(StreamValueSize("007"), 4u);  // not canonical: kept as bytes
  EXPECT_EQ(StreamValueSize(std::string(64, 'a')), 66u);
}

struct Entry {
  StreamID id;
  std::vector<std::string> fv;
};

std::vector<Entry> Decode(StreamNode* n, StreamID base) {
  std::vector<Entry> out;
  StreamNodeCursor c(n, base);
  StreamEntryRef e;
  while (c.Next(&e)) {
    Entry x{e.id, {}};
    StreamFieldReader r(c, e);
    std::string_view f, v;
    while (r.Next(&f, &v)) {
      x.fv.emplace_back(f);
      x.fv.emplace_back(v);
    }
    EXPECT_EQ(x.fv.size(), 2u * e.num_fields);
    out.push_back(std::move(x));
  }
  return out;
}

StreamNode* Add(StreamNode* n, StreamID base, const Entry& e) {
  std::vector<std::string_view> views(e.fv.begin(), e.fv.end());
  if (n == nullptr) return StreamNodeCreate(base, e.id, views.data(), views.size() / 2);
  return StreamNodeAppend(n, base, e.id, views.data(), views.size() / 2);
}

TEST(StreamNode, EntriesDecodeWithTheirIdsAndFields) {
  std::vector<Entry> entries = {
      {{5, 0}, {"temp", "21.5", "hum", "40"}},
      {{5, 1}, {"temp", "21.6", "hum", "41"}},
      {{5, UINT64_MAX}, {"hum", "40", "temp", "1"}},       // master fields, other order
      {{6, 0}, {"temp", "x"}},                             // a subset
      {{70, 3}, {"other", "v", "temp", "", "new", "-5"}},  // ms jump past the 6-bit delta
      {{1ull << 40, 0}, {}},                               // no fields at all
      {{UINT64_MAX, 7}, {"temp", "21.5", "hum", "40"}},
  };
  StreamID base = entries[0].id;
  StreamNode* n = nullptr;
  for (const Entry& e : entries) n = Add(n, base, e);
  EXPECT_EQ(n->live, entries.size());
  EXPECT_EQ(n->last, entries.back().id);
  std::vector<Entry> got = Decode(n, base);
  ASSERT_EQ(got.size(), entries.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, entries[i].id) << i;
    EXPECT_EQ(got[i].fv, entries[i].fv) << i;
  }
  StreamNode* copy = StreamNodeCopy(n);
  n = StreamNodeShrink(n);
  EXPECT_EQ(n->cap >= n->used, true);
  EXPECT_EQ(Decode(copy, base).size(), entries.size());
  StreamNodeFree(copy);
  StreamNodeFree(n);
}

TEST(StreamNode, SequencesStartingAtZeroAndTheSmallestBase) {
  StreamNode* n = nullptr;
  StreamID base{0, 0};
  for (uint64_t s = 0; s < 5; ++s) n = Add(n, base, {{0, s * 3}, {"f", std::to_string(s)}});
  std::vector<Entry> got = Decode(n, base);
  ASSERT_EQ(got.size(), 5u);
  for (uint64_t s = 0; s < 5; ++s) EXPECT_EQ(got[s].id, (StreamID{0, s * 3}));
  StreamNodeFree(n);
}

TEST(StreamNode, TimeSeriesEntriesTakeAboutSixBytes) {
  // Bursts of "*" IDs (three per millisecond) and a sensor sampling every second (with a
  // little jitter): 5 bytes per entry plus the master fields either way.
  for (uint64_t step : {0, 1000}) {
    StreamNode* n = nullptr;
    StreamID base{1700000000000, 0};
    for (uint64_t i = 0; i < 100; ++i) {
      StreamID id =
          step == 0 ? StreamID{base.ms + i / 3, i % 3} : StreamID{base.ms + i * step + (i % 4), 0};
      n = Add(n, base, {id, {"temp", "21.5", "hum", "40"}});
    }
    EXPECT_LE(n->used, 100u * 5 + 16) << step;
    std::vector<Entry> got = Decode(n, base);
    ASSERT_EQ(got.size(), 100u);
    EXPECT_EQ(got[99].id, n->last);
    StreamNodeFree(n);
  }
}

TEST(StreamNode, CursorCanReplayFromARememberedPosition) {
  StreamNode* n = nullptr;
  StreamID base{10, 0};
  for (uint64_t i = 0; i < 10; ++i) n = Add(n, base, {{10 + i * 100, i}, {"a", "b"}});
  StreamNodeCursor c(n, base);
  StreamEntryRef e;
  std::vector<StreamNodeCursor::Mark> marks;
  for (;;) {
    StreamNodeCursor::Mark m = c.mark();
    if (!c.Next(&e)) break;
    marks.push_back(m);
  }
  ASSERT_EQ(marks.size(), 10u);
  for (size_t i = marks.size(); i-- > 0;) {
    c.SeekTo(marks[i]);
    ASSERT_TRUE(c.Next(&e));
    EXPECT_EQ(e.id, (StreamID{10 + i * 100, i}));
  }
  StreamNodeFree(n);
}

TEST(StreamId, ParsesAsValkey) {
  StreamID id;
  bool seq_given;
  EXPECT_TRUE(ParseStreamId("5", &id, 7, false));
  EXPECT_EQ(id, (StreamID{5, 7}));
  EXPECT_TRUE(ParseStreamId("5-3", &id, 0, false));
  EXPECT_EQ(id, (StreamID{5, 3}));
  EXPECT_TRUE(ParseStreamId("-", &id, 0, false));
  EXPECT_EQ(id, kMinStreamId);
  EXPECT_TRUE(ParseStreamId("+", &id, 0, false));
  EXPECT_EQ(id, kMaxStreamId);
  EXPECT_FALSE(ParseStreamId("+", &id, 0, true));
  EXPECT_TRUE(ParseStreamId("18446744073709551615-18446744073709551615", &id, 0, true));
  EXPECT_EQ(id, kMaxStreamId);
  EXPECT_FALSE(ParseStreamId("18446744073709551616", &id, 0, true));
  EXPECT_TRUE(ParseStreamId("007-01", &id, 0, true));  // strtoull fallback
  EXPECT_EQ(id, (StreamID{7, 1}));
  EXPECT_FALSE(ParseStreamId("-1", &id, 0, true));
  EXPECT_FALSE(ParseStreamId("1-", &id, 0, true));
  EXPECT_FALSE(ParseStreamId("1-2-3", &id, 0, true));
  EXPECT_FALSE(ParseStreamId("", &id, 0, true));
  EXPECT_FALSE(ParseStreamId("abc", &id, 0, true));
  EXPECT_FALSE(ParseStreamId("1-*", &id, 0, true));
  EXPECT_TRUE(ParseStreamId("1-*", &id, 0, true, &seq_given));
  EXPECT_FALSE(seq_given);
  EXPECT_TRUE(ParseStreamId("1-2", &id, 0, true, &seq_given));
  EXPECT_TRUE(seq_given);
  EXPECT_FALSE(ParseStreamId(std::string(128, '1'), &id, 0, true));
  bool ex;
  EXPECT_TRUE(ParseStreamIntervalId("(5", &id, &ex, 0));
  EXPECT_TRUE(ex);
  EXPECT_FALSE(ParseStreamIntervalId("(-", &id, &ex, 0));
  EXPECT_TRUE(ParseStreamIntervalId("(", &id, &ex, 0) == false);
  EXPECT_EQ(FormatStreamId({12, 34}), "12-34");
  StreamID top = kMaxStreamId;
  EXPECT_FALSE(IncrStreamId(&top));
  EXPECT_EQ(top, kMinStreamId);
  StreamID low = kMinStreamId;
  EXPECT_FALSE(DecrStreamId(&low));
  StreamID mid{3, 0};
  EXPECT_TRUE(DecrStreamId(&mid));
  EXPECT_EQ(mid, (StreamID{2, UINT64_MAX}));
}

}  // namespace
}  // namespace vireo
