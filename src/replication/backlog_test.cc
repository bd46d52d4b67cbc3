#include "replication/backlog.h"

#include <gtest/gtest.h>

#include <string>

namespace vireo {
namespace {

std::string From(const ReplBacklog& b, int64_t from) {
  std::string out;
  b.CopyFrom(from, &out);
  return out;
}

TEST(ReplBacklog, OffsetsCountFromReset) {
  ReplBacklog b;
  b.Reset(16, 100);
  EXPECT_EQ(b.first_offset(), 101);
  EXPECT_TRUE(b.Covers(101));   // nothing yet to send: still a match
  EXPECT_FALSE(b.Covers(100));
  EXPECT_FALSE(b.Covers(102));
  b.Append("hello");
  EXPECT_EQ(b.end_offset(), 105);
  EXPECT_EQ(From(b, 101), "hello");
  EXPECT_EQ(From(b, 104), "lo");
  EXPECT_EQ(From(b, 106), "");
}

TEST(ReplBacklog, WrapsAndKeepsTheNewestBytes) {
  ReplBacklog b;
  b.Reset(8, 0);
  std::string all;
  for (int i = 0; i < 50; ++i) {
    std::string piece(static_cast<size_t>(i % 5 + 1), static_cast<char>('a' + i % 26));
    b.Append(piece);
    all += piece;
    ASSERT_EQ(b.end_offset(), static_cast<int64_t>(all.size()));
    const size_t held = std::min<size_t>(all.size(), 8);
    ASSERT_EQ(b.size(), held);
    ASSERT_EQ(From(b, b.first_offset()), all.substr(all.size() - held));
    ASSERT_FALSE(b.Covers(b.first_offset() - 1));
  }
}

TEST(ReplBacklog, AppendLargerThanCapacity) {
  ReplBacklog b;
  b.Reset(4, 0);
  b.Append("ab");
  b.Append("0123456789");
  EXPECT_EQ(b.end_offset(), 12);
  EXPECT_EQ(From(b, 9), "6789");
}

TEST(ReplBacklog, ResizeKeepsTheNewestBytes) {
  ReplBacklog b;
  b.Reset(10, 0);
  b.Append("0123456789abc");
  b.Resize(4);
  EXPECT_EQ(b.end_offset(), 13);
  EXPECT_EQ(From(b, b.first_offset()), "9abc");
  b.Resize(20);
  b.Append("XY");
  EXPECT_EQ(From(b, 10), "9abcXY");
}

}  // namespace
}  // namespace vireo
