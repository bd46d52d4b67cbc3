// Reading commands out of AOF bytes: annotations, a torn tail at every cut point, and
// garbage reported at its offset.
#include "persistence/aof_loader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "persistence/aof_writer.h"

namespace vireo {
namespace {

std::string Cmd(std::vector<std::string_view> args) {
  std::string out;
  AppendAofCommand(&out, args.data(), args.size());
  return out;
}

TEST(AofLoaderTest, ReadsCommandsAndSkipsAnnotations) {
  std::string data = "#TS:1700000000\r\n" + Cmd({"SELECT", "0"}) + Cmd({"SET", "k", "a\r\nb"});
  AofCommandReader r(data);
  std::vector<std::string_view> args;
  ASSERT_EQ(r.Next(&args), AofCommandReader::Result::kCommand);
  EXPECT_EQ(args, (std::vector<std::string_view>{"SELECT", "0"}));
  ASSERT_EQ(r.Next(&args), AofCommandReader::Result::kCommand);
  EXPECT_EQ(args, (std::vector<std::string_view>{"SET", "k", "a\r\nb"}));
  EXPECT_EQ(r.Next(&args), AofCommandReader::Result::kEnd);
  EXPECT_EQ(r.valid_up_to(), data.size());
}

TEST(AofLoaderTest, EveryCutOfTheLastCommandIsATornTail) {
  std::string first = Cmd({"SET", "a", "1"});
  std::string last = Cmd({"RPUSH", "list", "x", "yy"});
  for (size_t cut = 1; cut < last.size(); ++cut) {
    std::string data = first + last.substr(0, cut);
    AofCommandReader r(data);
    std::vector<std::string_view> args;
    ASSERT_EQ(r.Next(&args), AofCommandReader::Result::kCommand);
    EXPECT_EQ(r.Next(&args), AofCommandReader::Result::kTruncated) << "cut " << cut;
    EXPECT_EQ(r.valid_up_to(), first.size());
  }
}

TEST(AofLoaderTest, GarbageIsABadFormatAtItsOffset) {
  std::string first = Cmd({"SET", "a", "1"});
  std::string data = first + "hello world\r\n" + Cmd({"SET", "b", "2"});
  AofCommandReader r(data);
  std::vector<std::string_view> args;
  ASSERT_EQ(r.Next(&args), AofCommandReader::Result::kCommand);
  EXPECT_EQ(r.Next(&args), AofCommandReader::Result::kBadFormat);
  EXPECT_EQ(r.error_offset(), first.size());

  // A bad argument header and a missing CRLF after a bulk are format errors too.
  AofCommandReader bad_header("*2\r\n$3\r\nSET\r\nx3\r\nabc\r\n");
  EXPECT_EQ(bad_header.Next(&args), AofCommandReader::Result::kBadFormat);
  EXPECT_EQ(bad_header.error_offset(), 13u);
  AofCommandReader bad_crlf("*1\r\n$3\r\nSETxx*1\r\n$3\r\nSET\r\n");
  EXPECT_EQ(bad_crlf.Next(&args), AofCommandReader::Result::kBadFormat);
  AofCommandReader zero("*0\r\n");
  EXPECT_EQ(zero.Next(&args), AofCommandReader::Result::kBadFormat);
}

TEST(AofLoaderTest, TornAnnotationIsATornTail) {
  std::string data = Cmd({"PING"}) + "#TS:17";
  AofCommandReader r(data);
  std::vector<std::string_view> args;
  ASSERT_EQ(r.Next(&args), AofCommandReader::Result::kCommand);
  EXPECT_EQ(r.Next(&args), AofCommandReader::Result::kTruncated);
  EXPECT_EQ(r.valid_up_to(), Cmd({"PING"}).size());
}

}  // namespace
}  // namespace vireo
