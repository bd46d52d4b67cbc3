#include "protocol/reply_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace vireo {
namespace {

// The bytes one reply produces in RESP2 and in RESP3.
struct Encodings {
  std::string resp2;
  std::string resp3;
};

Encodings Build(const std::function<void(ReplyBuilder&)>& fn) {
  Encodings e;
  ReplyBuilder b2(&e.resp2);
  fn(b2);
  ReplyBuilder b3(&e.resp3);
  b3.SetResp3(true);
  fn(b3);
  return e;
}

void ExpectEncodings(const std::function<void(ReplyBuilder&)>& fn, const std::string& resp2,
                     const std::string& resp3) {
  Encodings e = Build(fn);
  EXPECT_EQ(e.resp2, resp2);
  EXPECT_EQ(e.resp3, resp3);
}

TEST(ReplyBuilderTest, SameInBothProtocols) {
  ExpectEncodings([](ReplyBuilder& b) { b.Ok(); }, "+OK\r\n", "+OK\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Simple("PONG"); }, "+PONG\r\n", "+PONG\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Integer(0); }, ":0\r\n", ":0\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Integer(-42); }, ":-42\r\n", ":-42\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Integer(std::numeric_limits<int64_t>::min()); },
                  ":-9223372036854775808\r\n", ":-9223372036854775808\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Bulk("hello"); }, "$5\r\nhello\r\n", "$5\r\nhello\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Bulk(""); }, "$0\r\n\r\n", "$0\r\n\r\n");
  // A default view has a null pointer (PING's empty reply in subscribed mode).
  ExpectEncodings([](ReplyBuilder& b) { b.Bulk(std::string_view()); }, "$0\r\n\r\n", "$0\r\n\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Bulk(std::string_view("a\r\n\0b", 5)); },
                  std::string("$5\r\na\r\n\0b\r\n", 11), std::string("$5\r\na\r\n\0b\r\n", 11));
  ExpectEncodings([](ReplyBuilder& b) { b.BulkInt(-17); }, "$3\r\n-17\r\n", "$3\r\n-17\r\n");
  // Small values are built in one piece on the stack, larger ones appended: both sides of the
  // boundary, and lengths of one and two digits.
  for (size_t n : {1u, 9u, 10u, 63u, 64u, 65u, 1000u}) {
    const std::string value(n, 'v');
    const std::string want = "$" + std::to_string(n) + "\r\n" + value + "\r\n";
    ExpectEncodings([&value](ReplyBuilder& b) { b.Bulk(value); }, want, want);
  }
  ExpectEncodings([](ReplyBuilder& b) { b.Array(2); }, "*2\r\n", "*2\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.EmptyArray(); }, "*0\r\n", "*0\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Raw("+X\r\n"); }, "+X\r\n", "+X\r\n");
}

TEST(ReplyBuilderTest, Errors) {
  ExpectEncodings([](ReplyBuilder& b) { b.Error("ERR syntax error"); }, "-ERR syntax error\r\n",
                  "-ERR syntax error\r\n");
  // A newline inside an error would end the reply early: it becomes a space.
  ExpectEncodings([](ReplyBuilder& b) { b.Error("ERR a\r\nb\nc"); }, "-ERR a  b c\r\n",
                  "-ERR a  b c\r\n");
}

std::string g_hooked;
void RecordHook(std::string_view msg) { g_hooked += std::string(msg) + ";"; }

TEST(ReplyBuilderTest, ErrorHookSeesEveryError) {
  g_hooked.clear();
  SetErrorReplyHook(&RecordHook);
  std::string out;
  ReplyBuilder b(&out);
  b.Error("ERR one");
  b.Ok();
  b.Error("WRONGTYPE two");
  SetErrorReplyHook(nullptr);
  b.Error("ERR three");
  EXPECT_EQ(g_hooked, "ERR one;WRONGTYPE two;");
}

TEST(ReplyBuilderTest, Nulls) {
  ExpectEncodings([](ReplyBuilder& b) { b.Null(); }, "$-1\r\n", "_\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.NullArray(); }, "*-1\r\n", "_\r\n");
}

TEST(ReplyBuilderTest, Aggregates) {
  ExpectEncodings(
      [](ReplyBuilder& b) {
        b.Map(2);
        b.Bulk("a");
        b.Integer(1);
        b.Bulk("b");
        b.Integer(2);
      },
      "*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:2\r\n", "%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n:2\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Map(0); }, "*0\r\n", "%0\r\n");
  ExpectEncodings(
      [](ReplyBuilder& b) {
        b.Set(2);
        b.Bulk("x");
        b.Bulk("y");
      },
      "*2\r\n$1\r\nx\r\n$1\r\ny\r\n", "~2\r\n$1\r\nx\r\n$1\r\ny\r\n");
  ExpectEncodings(
      [](ReplyBuilder& b) {
        b.Push(3);
        b.Bulk("message");
        b.Bulk("ch");
        b.Bulk("hi");
      },
      "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n",
      ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n");
}

TEST(ReplyBuilderTest, Doubles) {
  ExpectEncodings([](ReplyBuilder& b) { b.Double(1.5); }, "$3\r\n1.5\r\n", ",1.5\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Double(3); }, "$1\r\n3\r\n", ",3\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Double(-0.25); }, "$5\r\n-0.25\r\n", ",-0.25\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Double(INFINITY); }, "$3\r\ninf\r\n", ",inf\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Double(-INFINITY); }, "$4\r\n-inf\r\n", ",-inf\r\n");
}

TEST(ReplyBuilderTest, BooleansBigNumbersVerbatim) {
  ExpectEncodings([](ReplyBuilder& b) { b.Bool(true); }, ":1\r\n", "#t\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Bool(false); }, ":0\r\n", "#f\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.BigNumber("12345678901234567890"); },
                  "$20\r\n12345678901234567890\r\n", "(12345678901234567890\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Verbatim("txt", "a b\n"); }, "$4\r\na b\n\r\n",
                  "=8\r\ntxt:a b\n\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Verbatim("txt", ""); }, "$0\r\n\r\n", "=4\r\ntxt:\r\n");
  // The format is always three bytes (script_fuzzer found "=5\r\nn:x": two bytes short).
  ExpectEncodings([](ReplyBuilder& b) { b.Verbatim("n", "x"); }, "$1\r\nx\r\n", "=5\r\nn  :x\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Verbatim("", "x"); }, "$1\r\nx\r\n", "=5\r\n   :x\r\n");
  ExpectEncodings([](ReplyBuilder& b) { b.Verbatim("long", "x"); }, "$1\r\nx\r\n",
                  "=5\r\nlon:x\r\n");
}

TEST(ReplyBuilderTest, SwitchingOutputAndProtocol) {
  std::string a, b;
  ReplyBuilder builder(&a);
  EXPECT_FALSE(builder.Resp3());
  builder.Null();
  builder.SetOutput(&b);
  EXPECT_EQ(builder.Output(), &b);
  builder.SetResp3(true);
  EXPECT_TRUE(builder.Resp3());
  builder.Null();
  EXPECT_EQ(a, "$-1\r\n");
  EXPECT_EQ(b, "_\r\n");
}

}  // namespace
}  // namespace vireo
