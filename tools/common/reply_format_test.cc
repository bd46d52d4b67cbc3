#include "common/reply_format.h"

#include <gtest/gtest.h>

#include <string>

#include "common/resp_reader.h"

namespace vireo::tools {
namespace {

Reply FromResp(const std::string& text) {
  RespReader reader;
  Reply reply;
  size_t consumed = 0;
  EXPECT_EQ(reader.Parse(text.data(), text.size(), &consumed, &reply), RespReader::Result::kReply)
      << text;
  return reply;
}

std::string Tty(const std::string& resp) { return FormatTty(FromResp(resp)); }
std::string Raw(const std::string& resp) { return FormatRaw(FromResp(resp)); }

// Expected texts are redis-cli 7.0.15's output for the same replies.
TEST(ReplyFormat, TtyScalars) {
  EXPECT_EQ(Tty("+OK\r\n"), "OK\n");
  EXPECT_EQ(Tty(":1\r\n"), "(integer) 1\n");
  EXPECT_EQ(Tty("$-1\r\n"), "(nil)\n");
  EXPECT_EQ(Tty("_\r\n"), "(nil)\n");
  EXPECT_EQ(Tty("$3\r\nabc\r\n"), "\"abc\"\n");
  EXPECT_EQ(Tty("$0\r\n\r\n"), "\"\"\n");
  EXPECT_EQ(Tty("-ERR unknown command 'foo'\r\n"), "(error) ERR unknown command 'foo'\n");
  EXPECT_EQ(Tty(",3.141\r\n"), "(double) 3.141\n");
  EXPECT_EQ(Tty("#t\r\n"), "(true)\n");
  EXPECT_EQ(Tty("#f\r\n"), "(false)\n");
  EXPECT_EQ(Tty("=22\r\ntxt:This is a verbatim\r\n"), "This is a verbatim\n");
  EXPECT_EQ(Tty("(12345678901234567890\r\n"), "(big number) 12345678901234567890\n");
}

TEST(ReplyFormat, TtyQuotesLikeSdscatrepr) {
  EXPECT_EQ(Tty("$6\r\na\"b\\c\n\r\n"), "\"a\\\"b\\\\c\\n\"\n");
  EXPECT_EQ(Tty(std::string("$4\r\n\x00\x07\xff\t\r\n", 10)), "\"\\x00\\a\\xff\\t\"\n");
  EXPECT_EQ(Repr("\r\b"), "\"\\r\\b\"");
  EXPECT_EQ(Repr("caf\xc3\xa9"), "\"caf\\xc3\\xa9\"");
}

TEST(ReplyFormat, TtyAggregates) {
  EXPECT_EQ(Tty("*0\r\n"), "(empty array)\n");
  EXPECT_EQ(Tty("%0\r\n"), "(empty hash)\n");
  EXPECT_EQ(Tty("~0\r\n"), "(empty set)\n");
  EXPECT_EQ(Tty(">0\r\n"), "(empty push)\n");
  EXPECT_EQ(Tty("*3\r\n$1\r\na\r\n:2\r\n$-1\r\n"), "1) \"a\"\n2) (integer) 2\n3) (nil)\n");
  // Nested arrays indent past the parent's index; statuses are not quoted.
  EXPECT_EQ(Tty("*2\r\n*2\r\n+a\r\n+b\r\n*1\r\n*1\r\n:1\r\n"),
            "1) 1) a\n   2) b\n2) 1) 1) (integer) 1\n");
  EXPECT_EQ(Tty("*1\r\n*0\r\n"), "1) (empty array)\n");
}

TEST(ReplyFormat, TtyIndexWidthGrowsWithCount) {
  std::string resp = "*10\r\n";
  for (int i = 0; i < 9; ++i) resp += ":" + std::to_string(i) + "\r\n";
  resp += "*2\r\n+x\r\n+y\r\n";
  const std::string out = Tty(resp);
  EXPECT_EQ(out.substr(0, 14), " 1) (integer) ");
  EXPECT_NE(out.find("\n 9) (integer) 8\n10) 1) x\n    2) y\n"), std::string::npos) << out;
}

TEST(ReplyFormat, TtyResp3MapsAndSets) {
  EXPECT_EQ(Tty("%2\r\n$6\r\nserver\r\n$5\r\nredis\r\n$5\r\nproto\r\n:3\r\n"),
            "1# \"server\" => \"redis\"\n2# \"proto\" => (integer) 3\n");
  EXPECT_EQ(Tty("%1\r\n:0\r\n#f\r\n"), "1# (integer) 0 => (false)\n");
  EXPECT_EQ(Tty("~2\r\n:0\r\n:1\r\n"), "1~ (integer) 0\n2~ (integer) 1\n");
  // A non-empty aggregate value goes on the next line (XINFO STREAM's "first-entry").
  EXPECT_EQ(Tty("%1\r\n+k\r\n*2\r\n:1\r\n:2\r\n"),
            "1# k => \n   1) (integer) 1\n   2) (integer) 2\n");
  EXPECT_EQ(Tty("%1\r\n+modules\r\n*0\r\n"), "1# modules => (empty array)\n");
  // ... but a one-line value stays on the key's line (COMMAND DOCS "flags" => 1~ optional).
  EXPECT_EQ(Tty("%1\r\n+flags\r\n~1\r\n+optional\r\n"), "1# flags => 1~ optional\n");
  EXPECT_EQ(Tty("%1\r\n+spec\r\n%1\r\n+index\r\n:1\r\n"), "1# spec => 1# index => (integer) 1\n");
  // One entry that itself spans lines moves down too (XINFO STREAM FULL "entries").
  EXPECT_EQ(Tty("%1\r\n+entries\r\n*1\r\n*2\r\n+a\r\n+b\r\n"),
            "1# entries => \n   1) 1) a\n      2) b\n");
}

TEST(ReplyFormat, Raw) {
  EXPECT_EQ(Raw("+OK\r\n"), "OK");
  EXPECT_EQ(Raw(":-3\r\n"), "-3");
  EXPECT_EQ(Raw("$-1\r\n"), "");
  EXPECT_EQ(Raw("-ERR x\r\n"), "ERR x\n");
  EXPECT_EQ(Raw("#t\r\n"), "(true)");
  EXPECT_EQ(Raw(",1.5\r\n"), "1.5");
  EXPECT_EQ(Raw("*3\r\n$1\r\na\r\n*2\r\n:1\r\n:2\r\n$1\r\nb\r\n"), "a\n1\n2\nb");
  EXPECT_EQ(FormatRaw(FromResp("*2\r\n$1\r\na\r\n$1\r\nb\r\n"), ","), "a,b");
  EXPECT_EQ(Raw("%2\r\n+k\r\n+v\r\n+k2\r\n:1\r\n"), "k v\nk2 1");
  EXPECT_EQ(Raw("=8\r\ntxt:a\r\nb\r\n"), "a\r\nb");
}

TEST(ReplyFormat, Csv) {
  EXPECT_EQ(FormatCsv(FromResp("*3\r\n$1\r\na\r\n:1\r\n$-1\r\n")), "\"a\",1,NULL");
  EXPECT_EQ(FormatCsv(FromResp("-ERR x\r\n")), "ERROR,\"ERR x\"");
  EXPECT_EQ(FormatCsv(FromResp("%1\r\n+k\r\n#t\r\n")), "\"k\",true");
}

TEST(ReplyFormat, FormatReplyModes) {
  const Reply error = FromResp("-ERR x\r\n");
  EXPECT_EQ(FormatReply(error, OutputMode::kStandard, false), "(error) ERR x\n");
  // In raw mode an error keeps its own newline and gets the reply delimiter too.
  EXPECT_EQ(FormatReply(error, OutputMode::kRaw, false), "ERR x\n\n");
  const Reply nil = FromResp("$-1\r\n");
  EXPECT_EQ(FormatReply(nil, OutputMode::kRaw, false), "\n");
  EXPECT_EQ(FormatReply(nil, OutputMode::kCsv, false), "NULL\n");
  const Reply list = FromResp("*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(FormatReply(list, OutputMode::kRaw, false, "|", ";"), "a|b;");
  // INFO-like replies print raw, with no delimiter, even on a terminal.
  const Reply info = FromResp("$10\r\n# Server\r\n\r\n");
  EXPECT_EQ(FormatReply(info, OutputMode::kStandard, true), "# Server\r\n");
}

// Expected texts are valkey-cli 8.0.1's --json / --quoted-json output for the same replies.
TEST(ReplyFormat, Json) {
  auto json = [](const std::string& resp) { return FormatJson(FromResp(resp), false); };
  auto quoted = [](const std::string& resp) { return FormatJson(FromResp(resp), true); };
  EXPECT_EQ(json("$11\r\nhello\nworld\r\n"), "\"hello\\nworld\"");
  EXPECT_EQ(quoted("$11\r\nhello\nworld\r\n"), "\"hello\\\\nworld\"");
  // UTF-8 passes through --json; control bytes become \u00XX; --quoted-json keeps ASCII.
  EXPECT_EQ(json("$7\r\n\xe2\x82\xac\x01\"\\/\r\n"), "\"\xe2\x82\xac\\u0001\\\"\\\\/\"");
  EXPECT_EQ(quoted("$4\r\n\xe2\"\\\x0c\r\n"), R"("\\xe2\\"\\\\\\x0c")");
  EXPECT_EQ(json("-ERR x\r\n"), "error:\"ERR x\"");
  EXPECT_EQ(json("_\r\n"), "null");
  EXPECT_EQ(json("#t\r\n"), "true");
  EXPECT_EQ(json(",inf\r\n"), "inf");
  EXPECT_EQ(json("*3\r\n:1\r\n*0\r\n*1\r\n+OK\r\n"), "[1,[],[\"OK\"]]");
  EXPECT_EQ(json("%2\r\n:0\r\n#f\r\n$1\r\nk\r\n~1\r\n:2\r\n"), "{\"0\":false,\"k\":[2]}");
  EXPECT_EQ(json("%0\r\n"), "{}");
  EXPECT_EQ(FormatReply(FromResp(":5\r\n"), OutputMode::kQuotedJson, false), "5\n");
}

}  // namespace
}  // namespace vireo::tools
