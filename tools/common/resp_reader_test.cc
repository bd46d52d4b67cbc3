#include "common/resp_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vireo::tools {
namespace {

using Type = Reply::Type;

// Parses one complete reply from text; fails the test if it is not exactly one reply.
Reply ParseAll(const std::string& text) {
  RespReader reader;
  Reply reply;
  size_t consumed = 0;
  EXPECT_EQ(reader.Parse(text.data(), text.size(), &consumed, &reply), RespReader::Result::kReply)
      << text << " " << reader.Error();
  EXPECT_EQ(consumed, text.size()) << text;
  return reply;
}

RespReader::Result ParseStatus(const std::string& text, std::string* error = nullptr) {
  RespReader reader;
  Reply reply;
  size_t consumed = 0;
  RespReader::Result r = reader.Parse(text.data(), text.size(), &consumed, &reply);
  if (error != nullptr) *error = std::string(reader.Error());
  return r;
}

TEST(RespReader, Scalars) {
  Reply r = ParseAll("+OK\r\n");
  EXPECT_EQ(r.type, Type::kStatus);
  EXPECT_EQ(r.str, "OK");

  r = ParseAll("-ERR bad thing\r\n");
  EXPECT_EQ(r.type, Type::kError);
  EXPECT_EQ(r.str, "ERR bad thing");

  r = ParseAll(":-42\r\n");
  EXPECT_EQ(r.type, Type::kInteger);
  EXPECT_EQ(r.integer, -42);

  r = ParseAll("$5\r\nhe\r\no\r\n");  // binary-safe: CRLF inside the bulk
  EXPECT_EQ(r.type, Type::kString);
  EXPECT_EQ(r.str, "he\r\no");

  r = ParseAll("$0\r\n\r\n");
  EXPECT_EQ(r.type, Type::kString);
  EXPECT_EQ(r.str, "");

  EXPECT_EQ(ParseAll("$-1\r\n").type, Type::kNil);
  EXPECT_EQ(ParseAll("*-1\r\n").type, Type::kNil);
  EXPECT_EQ(ParseAll("_\r\n").type, Type::kNil);
}

TEST(RespReader, Resp3Scalars) {
  Reply r = ParseAll(",1.5\r\n");
  EXPECT_EQ(r.type, Type::kDouble);
  EXPECT_EQ(r.str, "1.5");
  EXPECT_EQ(ParseAll(",inf\r\n").str, "inf");
  EXPECT_EQ(ParseAll(",-inf\r\n").str, "-inf");
  EXPECT_EQ(ParseAll(",nan\r\n").str, "nan");
  EXPECT_EQ(ParseAll(",1e10\r\n").str, "1e10");

  r = ParseAll("#t\r\n");
  EXPECT_EQ(r.type, Type::kBool);
  EXPECT_EQ(r.integer, 1);
  EXPECT_EQ(ParseAll("#f\r\n").integer, 0);

  r = ParseAll("(3492890328409238509324850943850943825024385\r\n");
  EXPECT_EQ(r.type, Type::kBigNumber);
  EXPECT_EQ(r.str, "3492890328409238509324850943850943825024385");
  EXPECT_EQ(ParseAll("(-12\r\n").str, "-12");

  r = ParseAll("=15\r\ntxt:Some string\r\n");
  EXPECT_EQ(r.type, Type::kVerbatim);
  EXPECT_EQ(r.format, "txt");
  EXPECT_EQ(r.str, "Some string");

  r = ParseAll("!21\r\nSYNTAX invalid syntax\r\n");
  EXPECT_EQ(r.type, Type::kError);
  EXPECT_EQ(r.str, "SYNTAX invalid syntax");
}

TEST(RespReader, Aggregates) {
  Reply r = ParseAll("*3\r\n:1\r\n*2\r\n+a\r\n$1\r\nb\r\n*0\r\n");
  ASSERT_EQ(r.type, Type::kArray);
  ASSERT_EQ(r.elements.size(), 3u);
  EXPECT_EQ(r.elements[0].integer, 1);
  ASSERT_EQ(r.elements[1].elements.size(), 2u);
  EXPECT_EQ(r.elements[1].elements[1].str, "b");
  EXPECT_EQ(r.elements[2].type, Type::kArray);
  EXPECT_TRUE(r.elements[2].elements.empty());

  r = ParseAll("%2\r\n+k1\r\n:1\r\n+k2\r\n*1\r\n#t\r\n");
  ASSERT_EQ(r.type, Type::kMap);
  ASSERT_EQ(r.elements.size(), 4u);  // keys and values alternate
  EXPECT_EQ(r.elements[2].str, "k2");
  EXPECT_EQ(r.elements[3].elements[0].type, Type::kBool);

  r = ParseAll("~2\r\n+a\r\n+b\r\n");
  EXPECT_EQ(r.type, Type::kSet);
  EXPECT_EQ(r.elements.size(), 2u);

  r = ParseAll(">3\r\n+message\r\n+ch\r\n$2\r\nhi\r\n");
  EXPECT_EQ(r.type, Type::kPush);
  EXPECT_EQ(r.elements[2].str, "hi");

  EXPECT_EQ(ParseAll("%0\r\n").type, Type::kMap);
  EXPECT_EQ(ParseAll("~0\r\n").type, Type::kSet);
  EXPECT_EQ(ParseAll("*1\r\n*-1\r\n").elements[0].type, Type::kNil);
}

TEST(RespReader, AttributesAreDropped) {
  Reply r = ParseAll("|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*2\r\n:2\r\n:3\r\n");
  ASSERT_EQ(r.type, Type::kArray);
  ASSERT_EQ(r.elements.size(), 2u);
  EXPECT_EQ(r.elements[1].integer, 3);

  // Inside an aggregate the attribute does not count as an element.
  r = ParseAll("*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n");
  ASSERT_EQ(r.elements.size(), 2u);
  EXPECT_EQ(r.elements[0].integer, 1);
  EXPECT_EQ(r.elements[1].integer, 2);
}

TEST(RespReader, PipelinedRepliesAreConsumedOneAtATime) {
  const std::string text = "+OK\r\n:7\r\n$3\r\nabc\r\n";
  RespReader reader;
  size_t pos = 0;
  std::vector<Reply> replies;
  while (pos < text.size()) {
    Reply reply;
    size_t consumed = 0;
    ASSERT_EQ(reader.Parse(text.data() + pos, text.size() - pos, &consumed, &reply),
              RespReader::Result::kReply);
    pos += consumed;
    replies.push_back(reply);
  }
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_EQ(replies[1].integer, 7);
  EXPECT_EQ(replies[2].str, "abc");
}

// Every reply type, arriving split at every possible byte, parses to the same result.
TEST(RespReader, AnySplit) {
  const std::string text =
      "*9\r\n+OK\r\n-ERR x\r\n:12\r\n$4\r\nab\r\n\r\n$-1\r\n%1\r\n+k\r\n~2\r\n,2.5\r\n#f\r\n"
      "(123\r\n=7\r\ntxt:abc\r\n|1\r\n+a\r\n+b\r\n>1\r\n_\r\n";
  const Reply whole = ParseAll(text);
  ASSERT_EQ(whole.elements.size(), 9u);
  for (size_t split = 0; split <= text.size(); ++split) {
    for (bool fast : {false, true}) {
      RespReader reader;
      Reply reply;
      size_t consumed = 0;
      // The first part, then the whole buffer (the same prefix, more bytes).
      RespReader::Result r = reader.Parse(text.data(), split, &consumed, fast ? nullptr : &reply);
      if (split < text.size()) {
        ASSERT_EQ(r, RespReader::Result::kIncomplete) << split;
        r = reader.Parse(text.data(), text.size(), &consumed, fast ? nullptr : &reply);
      }
      ASSERT_EQ(r, RespReader::Result::kReply) << split;
      EXPECT_EQ(consumed, text.size());
      if (!fast) {
        ASSERT_EQ(reply.elements.size(), 9u) << split;
        EXPECT_EQ(reply.elements[3].str, "ab\r\n");
        EXPECT_EQ(reply.elements[5].elements[1].elements[0].str, "2.5");
        EXPECT_EQ(reply.elements[7].str, "abc");
        EXPECT_EQ(reply.elements[8].type, Type::kPush);
      }
    }
  }
}

// Byte-by-byte delivery of a large array: the reader resumes instead of starting over.
TEST(RespReader, LargeArrayInSmallPieces) {
  std::string text = "*20000\r\n";
  for (int i = 0; i < 20000; ++i)
    text += "$" + std::to_string(std::to_string(i).size()) + "\r\n" + std::to_string(i) + "\r\n";
  RespReader reader;
  Reply reply;
  size_t consumed = 0;
  RespReader::Result r = RespReader::Result::kIncomplete;
  for (size_t len = 1; len <= text.size() && r == RespReader::Result::kIncomplete; len += 7) {
    r = reader.Parse(text.data(), len, &consumed, &reply);
  }
  if (r == RespReader::Result::kIncomplete) {
    r = reader.Parse(text.data(), text.size(), &consumed, &reply);
  }
  ASSERT_EQ(r, RespReader::Result::kReply);
  ASSERT_EQ(reply.elements.size(), 20000u);
  EXPECT_EQ(reply.elements[19999].str, "19999");
}

TEST(RespReader, FastPathReportsTopLevelErrors) {
  RespReader reader;
  size_t consumed = 0;
  bool is_error = true;
  std::string text;
  const std::string ok = "$3\r\nabc\r\n";
  ASSERT_EQ(reader.Parse(ok.data(), ok.size(), &consumed, nullptr, &is_error, &text),
            RespReader::Result::kReply);
  EXPECT_FALSE(is_error);
  EXPECT_EQ(consumed, ok.size());

  const std::string moved = "-MOVED 3999 127.0.0.1:6381\r\n";
  ASSERT_EQ(reader.Parse(moved.data(), moved.size(), &consumed, nullptr, &is_error, &text),
            RespReader::Result::kReply);
  EXPECT_TRUE(is_error);
  EXPECT_EQ(text, "MOVED 3999 127.0.0.1:6381");

  const std::string bulk_error = "!7\r\nASK 1 x\r\n";
  ASSERT_EQ(
      reader.Parse(bulk_error.data(), bulk_error.size(), &consumed, nullptr, &is_error, &text),
      RespReader::Result::kReply);
  EXPECT_TRUE(is_error);
  EXPECT_EQ(text, "ASK 1 x");

  // An error nested in an array is not a top-level error.
  const std::string nested = "*1\r\n-ERR inner\r\n";
  ASSERT_EQ(reader.Parse(nested.data(), nested.size(), &consumed, nullptr, &is_error, &text),
            RespReader::Result::kReply);
  EXPECT_FALSE(is_error);
}

TEST(RespReader, Malformed) {
  std::string why;
  EXPECT_EQ(ParseStatus("?what\r\n", &why), RespReader::Result::kError);
  EXPECT_EQ(why, "Protocol error, got \"?\" as reply type byte");
  EXPECT_EQ(ParseStatus("\x01\r\n", &why), RespReader::Result::kError);
  EXPECT_EQ(why, "Protocol error, got \"\\x01\" as reply type byte");
  EXPECT_EQ(ParseStatus(":12a\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus(":\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus("$abc\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus("$-2\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus("$3\r\nabcd\r\n"), RespReader::Result::kError);  // no CRLF after body
  EXPECT_EQ(ParseStatus("*-5\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus("*x\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus("#x\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus("_x\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus(",abc\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus("(12x\r\n"), RespReader::Result::kError);
  EXPECT_EQ(ParseStatus("=2\r\nab\r\n"), RespReader::Result::kError);  // no "fmt:"
  EXPECT_EQ(ParseStatus("!-1\r\n"), RespReader::Result::kError);
  // Far too deep nesting is refused rather than risking the stack.
  std::string deep;
  for (int i = 0; i < 1000; ++i) deep += "*1\r\n";
  EXPECT_EQ(ParseStatus(deep + ":1\r\n"), RespReader::Result::kError);
  // A huge announced length just waits for more data.
  EXPECT_EQ(ParseStatus("$9223372036854775807\r\nabc"), RespReader::Result::kIncomplete);
  EXPECT_EQ(ParseStatus("*9223372036854775807\r\n:1\r\n"), RespReader::Result::kIncomplete);
  EXPECT_EQ(ParseStatus("%9223372036854775807\r\n"), RespReader::Result::kError);
}

TEST(RespReader, IncompleteNeedsTheLineEnd) {
  EXPECT_EQ(ParseStatus(""), RespReader::Result::kIncomplete);
  EXPECT_EQ(ParseStatus("+OK"), RespReader::Result::kIncomplete);
  EXPECT_EQ(ParseStatus("+OK\r"), RespReader::Result::kIncomplete);
  EXPECT_EQ(ParseStatus("$3\r\nab"), RespReader::Result::kIncomplete);
  EXPECT_EQ(ParseStatus("$3\r\nabc\r"), RespReader::Result::kIncomplete);
  EXPECT_EQ(ParseStatus("*2\r\n:1\r\n"), RespReader::Result::kIncomplete);
  // A lone CR inside a status line is part of the text.
  EXPECT_EQ(ParseAll("+a\rb\r\n").str, "a\rb");
}

TEST(RespReader, ResetDropsPartialState) {
  RespReader reader;
  Reply reply;
  size_t consumed = 0;
  const std::string partial = "*2\r\n:1\r\n";
  ASSERT_EQ(reader.Parse(partial.data(), partial.size(), &consumed, &reply),
            RespReader::Result::kIncomplete);
  reader.Reset();
  const std::string other = ":5\r\n";
  ASSERT_EQ(reader.Parse(other.data(), other.size(), &consumed, &reply),
            RespReader::Result::kReply);
  EXPECT_EQ(reply.integer, 5);
}

}  // namespace
}  // namespace vireo::tools
