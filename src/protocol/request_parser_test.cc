#include "protocol/request_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vireo {
namespace {

using Command = std::vector<std::string>;

// What a connection makes of a byte stream: its commands in order, and the protocol error
// that ended it (empty when none).
struct Outcome {
  std::vector<Command> commands;
  int empties = 0;  // blank inline lines and "*0" / "*-1" skipped
  std::string error;
  size_t left = 0;  // unconsumed bytes at the end (an incomplete command)

  bool operator==(const Outcome& o) const {
    return commands == o.commands && empties == o.empties && error == o.error && left == o.left;
  }
};

void PrintTo(const Outcome& o, std::ostream* os) {
  *os << "{" << o.commands.size() << " commands, " << o.empties << " empty, error='" << o.error
      << "', left=" << o.left << "}";
}

// Feeds `chunks` one after another the way the server does: unconsumed bytes stay at the
// front, and after kIncomplete the parser is called again with the same prefix plus more.
// The buffer is copied to a fresh allocation before every call, so the parser cannot rely
// on pointers from an earlier call.
Outcome Feed(const std::vector<std::string>& chunks, const ParserLimits& limits = {}) {
  Outcome out;
  RequestParser parser;
  std::string buffer;
  std::vector<std::string_view> args;
  for (const std::string& chunk : chunks) {
    buffer += chunk;
    while (!buffer.empty()) {
      std::string moved = buffer;  // a different address each call
      size_t consumed = 0;
      RequestParser::Result r = parser.Parse(moved.data(), moved.size(), limits, &consumed, &args);
      if (r == RequestParser::Result::kIncomplete) {
        EXPECT_EQ(consumed, 0u);
        break;
      }
      if (r == RequestParser::Result::kError) {
        out.error = std::string(parser.Error());
        out.left = 0;
        return out;
      }
      if (r == RequestParser::Result::kCommand) {
        out.commands.emplace_back(args.begin(), args.end());
      } else {
        ++out.empties;
      }
      EXPECT_GT(consumed, 0u);
      EXPECT_LE(consumed, moved.size());
      buffer.erase(0, consumed);
    }
  }
  out.left = buffer.size();
  return out;
}

Outcome FeedWhole(const std::string& s, const ParserLimits& limits = {}) {
  return Feed({s}, limits);
}

// Every two-way split and the byte-at-a-time split must give what the whole stream gives.
void ExpectSplitInvariant(const std::string& s, const ParserLimits& limits = {}) {
  const Outcome whole = FeedWhole(s, limits);
  for (size_t cut = 1; cut < s.size(); ++cut) {
    Outcome split = Feed({s.substr(0, cut), s.substr(cut)}, limits);
    ASSERT_EQ(split, whole) << "split at byte " << cut << " of " << testing::PrintToString(s);
  }
  std::vector<std::string> bytes;
  for (char c : s) bytes.emplace_back(1, c);
  ASSERT_EQ(Feed(bytes, limits), whole) << "byte by byte: " << testing::PrintToString(s);
}

std::string Multibulk(const Command& args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

TEST(RequestParserTest, SingleMultibulk) {
  Outcome o = FeedWhole("*3\r\n$3\r\nset\r\n$1\r\nk\r\n$5\r\nhello\r\n");
  ASSERT_EQ(o.commands.size(), 1u);
  EXPECT_EQ(o.commands[0], (Command{"set", "k", "hello"}));
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.left, 0u);
}

TEST(RequestParserTest, InlineCommands) {
  Outcome o = FeedWhole("PING\r\nset a \"b c\"\nget 'x y'\r\n");
  ASSERT_EQ(o.commands.size(), 3u);
  EXPECT_EQ(o.commands[0], (Command{"PING"}));
  EXPECT_EQ(o.commands[1], (Command{"set", "a", "b c"}));
  EXPECT_EQ(o.commands[2], (Command{"get", "x y"}));
}

TEST(RequestParserTest, InlineEscapesAndSeparators) {
  Outcome o = FeedWhole("echo \"\\x41\\n\\t\\\"\" ''\r\nping\rping\r\n  a\t b  \r\n");
  ASSERT_EQ(o.commands.size(), 3u);
  EXPECT_EQ(o.commands[0], (Command{"echo", "A\n\t\"", ""}));
  // A lone '\r' inside the line separates arguments, as in Valkey.
  EXPECT_EQ(o.commands[1], (Command{"ping", "ping"}));
  EXPECT_EQ(o.commands[2], (Command{"a", "b"}));
}

TEST(RequestParserTest, EmptyCommandsAreSkipped) {
  Outcome o = FeedWhole("\r\n\n   \r\n*0\r\n*-1\r\nPING\r\n");
  EXPECT_EQ(o.empties, 5);
  ASSERT_EQ(o.commands.size(), 1u);
  EXPECT_EQ(o.commands[0], (Command{"PING"}));
}

TEST(RequestParserTest, BinarySafeBulks) {
  std::string bin("a\r\nb\0c\r\n*1\r\n$", 13);
  Outcome o = FeedWhole(Multibulk({"set", bin, ""}) + Multibulk({"echo", "\r\n"}));
  ASSERT_EQ(o.commands.size(), 2u);
  EXPECT_EQ(o.commands[0], (Command{"set", bin, ""}));
  EXPECT_EQ(o.commands[1], (Command{"echo", "\r\n"}));
}

TEST(RequestParserTest, BulkTerminatorIsNotChecked) {
  // Valkey skips the two bytes after a bulk without looking at them.
  Outcome o = FeedWhole("*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n");
  EXPECT_EQ(o.commands, (std::vector<Command>{{"PING"}, {"PING"}}));
}

TEST(RequestParserTest, IncompleteCommandStaysUnconsumed) {
  Outcome o = FeedWhole("*2\r\n$4\r\necho\r\n$5\r\nhel");
  EXPECT_TRUE(o.commands.empty());
  EXPECT_EQ(o.left, 21u);
  o = FeedWhole("PING");
  EXPECT_TRUE(o.commands.empty());
  EXPECT_EQ(o.left, 4u);
  // The type byte of a bulk line is judged only once the line is complete (as Valkey).
  o = FeedWhole("*1\r\nx");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.left, 5u);
}

TEST(RequestParserTest, EverySplitGivesTheSameCommands) {
  const std::string big(300, 'z');
  const std::vector<std::string> streams = {
      Multibulk({"set", "key", "value"}),
      Multibulk({"set", std::string("a\r\nb\0c", 6), ""}) + Multibulk({"get", "a\r\nb"}),
      "PING\r\nPING\nset a \"b c\"\r\n",
      "*1\r\n$4\r\nPING\r\nPING\r\n" + Multibulk({"echo", big}) + "echo 'x y'\n",
      "\r\n*0\r\n*-1\r\n\n" + Multibulk({"incr", "n"}),
      Multibulk({"mset", "a", "1", "b", "2", "c", "3"}) + "*2\r\n$3\r\nget\r\n$1\r\na\r\n",
      "*1\r\n$4\r\nPINGxx" + Multibulk({"a"}),
  };
  for (const std::string& s : streams) {
    SCOPED_TRACE(testing::PrintToString(s));
    ExpectSplitInvariant(s);
    EXPECT_EQ(FeedWhole(s).error, "");
  }
}

TEST(RequestParserTest, PipelineOfManyCommands) {
  std::string s;
  for (int i = 0; i < 1000; ++i) {
    s += (i % 2 == 0) ? Multibulk({"set", "k" + std::to_string(i), "v"})
                      : "get k" + std::to_string(i) + "\r\n";
  }
  Outcome o = FeedWhole(s);
  ASSERT_EQ(o.commands.size(), 1000u);
  EXPECT_EQ(o.commands[998], (Command{"set", "k998", "v"}));
  EXPECT_EQ(o.commands[999], (Command{"get", "k999"}));
  std::vector<std::string> bytes;
  for (char c : s) bytes.emplace_back(1, c);
  EXPECT_EQ(Feed(bytes), o);
}

struct BadInput {
  std::string bytes;
  std::string error;
};

TEST(RequestParserTest, MalformedInputErrors) {
  const std::vector<BadInput> cases = {
      {"*abc\r\n", "Protocol error: invalid multibulk length"},
      {"*1 \r\n", "Protocol error: invalid multibulk length"},
      {"*+1\r\n", "Protocol error: invalid multibulk length"},
      {"*01\r\n", "Protocol error: invalid multibulk length"},
      {"*\r\n", "Protocol error: invalid multibulk length"},
      {"*1\n$4\r\nPING\r\n", "Protocol error: invalid multibulk length"},
      {"*2147483648\r\n", "Protocol error: invalid multibulk length"},
      {"*1\r\nx\r\n", "Protocol error: expected '$', got 'x'"},
      {"*1\r\n*1\r\n", "Protocol error: expected '$', got '*'"},
      {"*2\r\n$4\r\necho\r\n:1\r\n", "Protocol error: expected '$', got ':'"},
      {"*1\r\n$-5\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$abc\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$+4\r\nPING\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$04\r\nPING\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$4\nPING\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$536870913\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$99999999999999999999\r\n", "Protocol error: invalid bulk length"},
      {"set a \"b c\r\n", "Protocol error: unbalanced quotes in request"},
      {"set a \"b c\"d\r\n", "Protocol error: unbalanced quotes in request"},
      {"set a 'b\r\n", "Protocol error: unbalanced quotes in request"},
  };
  for (const BadInput& c : cases) {
    SCOPED_TRACE(testing::PrintToString(c.bytes));
    EXPECT_EQ(FeedWhole(c.bytes).error, c.error);
    ExpectSplitInvariant(c.bytes);
    // Commands before the bad one are still delivered.
    Outcome o = FeedWhole("PING\r\n" + Multibulk({"get", "k"}) + c.bytes);
    EXPECT_EQ(o.commands, (std::vector<Command>{{"PING"}, {"get", "k"}}));
    EXPECT_EQ(o.error, c.error);
  }
}

TEST(RequestParserTest, ExtremeMultibulkCountsAreEmptyOrAccepted) {
  // Valkey treats any count <= 0 (even the most negative) as an empty command.
  Outcome o = FeedWhole("*-9223372036854775808\r\nPING\r\n");
  EXPECT_EQ(o.error, "");
  EXPECT_EQ(o.empties, 1);
  EXPECT_EQ(o.commands, (std::vector<Command>{{"PING"}}));
  // Up to INT_MAX arguments may be announced; the parser waits for them.
  o = FeedWhole("*2147483647\r\n$1\r\na\r\n");
  EXPECT_EQ(o.error, "");
  EXPECT_TRUE(o.commands.empty());
}

TEST(RequestParserTest, MaxBulkLength) {
  ParserLimits limits;
  limits.max_bulk_len = 10;
  EXPECT_EQ(FeedWhole(Multibulk({"echo", "0123456789"}), limits).commands.size(), 1u);
  EXPECT_EQ(FeedWhole(Multibulk({"echo", "0123456789a"}), limits).error,
            "Protocol error: invalid bulk length");
  ExpectSplitInvariant(Multibulk({"echo", "0123456789a"}), limits);
}

TEST(RequestParserTest, UnauthenticatedLimits) {
  ParserLimits limits;
  limits.authenticated = false;
  EXPECT_EQ(FeedWhole("*11\r\n", limits).error, "Protocol error: unauthenticated multibulk length");
  EXPECT_EQ(FeedWhole("*10\r\n", limits).error, "");
  EXPECT_EQ(FeedWhole("*2\r\n$16385\r\n", limits).error,
            "Protocol error: unauthenticated bulk length");
  EXPECT_EQ(FeedWhole("*2\r\n$16384\r\n", limits).error, "");
  EXPECT_EQ(FeedWhole(Multibulk({"auth", std::string(16384, 'p')}), limits).commands.size(), 1u);
  ExpectSplitInvariant("*2\r\n$4\r\nauth\r\n$16385\r\n", limits);
  // Authenticated clients have the normal limits.
  EXPECT_EQ(FeedWhole("*11\r\n").error, "");
  EXPECT_EQ(FeedWhole("*2\r\n$16385\r\n").error, "");
}

TEST(RequestParserTest, TooBigLines) {
  const size_t max = ParserLimits{}.max_inline;
  EXPECT_EQ(FeedWhole(std::string(max, 'A')).error, "");
  EXPECT_EQ(FeedWhole(std::string(max + 1, 'A')).error, "Protocol error: too big inline request");
  EXPECT_EQ(FeedWhole("*" + std::string(max, '1')).error,
            "Protocol error: too big mbulk count string");
  EXPECT_EQ(FeedWhole("*1\r\n$" + std::string(max, '1')).error,
            "Protocol error: too big bulk count string");
  // A long inline line that does end is accepted, like Valkey.
  Outcome o = FeedWhole("echo " + std::string(max + 10, 'b') + "\r\n");
  ASSERT_EQ(o.commands.size(), 1u);
  EXPECT_EQ(o.commands[0][1].size(), max + 10);
  // Arriving in pieces does not matter.
  ParserLimits small;
  small.max_inline = 16;
  ExpectSplitInvariant(std::string(20, 'A'), small);
  ExpectSplitInvariant("*1\r\n$" + std::string(20, '1'), small);
}

TEST(RequestParserTest, BytesWantedSizesBigBulks) {
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t consumed = 0;
  std::string head = "*2\r\n$4\r\necho\r\n$100000\r\n";
  EXPECT_EQ(parser.Parse(head.data(), head.size(), {}, &consumed, &args),
            RequestParser::Result::kIncomplete);
  EXPECT_TRUE(parser.InProgress());
  EXPECT_EQ(parser.BytesWanted(), head.size() + 100000 + 2);
  std::string whole = head + std::string(100000, 'x') + "\r\n";
  EXPECT_EQ(parser.Parse(whole.data(), whole.size(), {}, &consumed, &args),
            RequestParser::Result::kCommand);
  EXPECT_EQ(consumed, whole.size());
  EXPECT_EQ(args[1].size(), 100000u);
  EXPECT_FALSE(parser.InProgress());
  EXPECT_EQ(parser.BytesWanted(), 0u);
}

TEST(RequestParserTest, ParserIsReusableAfterError) {
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t consumed = 0;
  std::string bad = "*2\r\n$3\r\nget\r\n$-3\r\n";
  EXPECT_EQ(parser.Parse(bad.data(), bad.size(), {}, &consumed, &args),
            RequestParser::Result::kError);
  EXPECT_FALSE(parser.InProgress());
  std::string good = "*1\r\n$4\r\nPING\r\n";
  EXPECT_EQ(parser.Parse(good.data(), good.size(), {}, &consumed, &args),
            RequestParser::Result::kCommand);
  EXPECT_EQ(args.size(), 1u);
}

// A big bulk read into a buffer of its own (TakeBulkFrom): the input holds the command without
// it, and parsing goes on after it.
TEST(RequestParserTest, DetachedBulkIsTakenFromItsOwnBuffer) {
  RequestParser parser;
  std::vector<std::string_view> args;
  size_t consumed = 0;
  std::string input = "*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n0123";
  ASSERT_EQ(parser.Parse(input.data(), input.size(), {}, &consumed, &args),
            RequestParser::Result::kIncomplete);
  size_t at = 0, len = 0;
  ASSERT_TRUE(parser.PendingBulk(&at, &len));
  EXPECT_EQ(at, input.size() - 4);
  EXPECT_EQ(len, 10u);
  const std::string own = "0123456789\r\n";
  input.resize(at);  // the bulk's bytes moved out
  parser.TakeBulkFrom(own.data());
  EXPECT_TRUE(parser.HasDetachedBulk());
  EXPECT_FALSE(parser.PendingBulk(&at, &len));
  ASSERT_EQ(parser.Parse(input.data(), input.size(), {}, &consumed, &args),
            RequestParser::Result::kIncomplete);
  input += "$2\r\nEX\r\n$2\r\n10\r\n*1\r\n$4\r\nPING\r\n";
  ASSERT_EQ(parser.Parse(input.data(), input.size(), {}, &consumed, &args),
            RequestParser::Result::kCommand);
  ASSERT_EQ(args.size(), 5u);
  EXPECT_EQ(args[2], "0123456789");
  EXPECT_EQ(args[2].data(), own.data());
  EXPECT_EQ(args[4], "10");
  EXPECT_EQ(input.substr(consumed), "*1\r\n$4\r\nPING\r\n");
  EXPECT_FALSE(parser.HasDetachedBulk());
}

}  // namespace
}  // namespace vireo
