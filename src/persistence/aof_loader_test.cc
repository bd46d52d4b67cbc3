// Reading commands out of AOF bytes: annotations, a torn tail at every cut point, garbage
// reported at its offset, and commands after an RDB preamble (a pre-7 AOF).
#include "persistence/aof_loader.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "persistence/aof_writer.h"
#include "persistence/rdb_reader.h"
#include "persistence/rdb_writer.h"
#include "server/config.h"
#include "store/db.h"
#include "store/value.h"

namespace vireo {
namespace {

std::string Cmd(std::vector<std::string_view> args) {
  std::string out;
  AppendRespCommand(&out, args.data(), args.size());
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

// An RDB image of one key (through a memfd: WriteRdb writes to a file descriptor).
std::string RdbOfOneKey() {
  KeyspaceStats stats;
  Db db(0, &stats);
  SetStringValue(db.Add("k"), "v");
  int fd = memfd_create("rdb", 0);
  std::string err;
  EXPECT_TRUE(WriteRdb(fd, {&db}, RdbWriteOptions{}, RdbAuxInfo{}, &err)) << err;
  std::string out(static_cast<size_t>(lseek(fd, 0, SEEK_CUR)), '\0');
  EXPECT_EQ(pread(fd, out.data(), out.size(), 0), static_cast<ssize_t>(out.size()));
  close(fd);
  return out;
}

TEST(AofLoaderTest, CommandsAfterAnRdbPreamble) {
  const std::string rdb = RdbOfOneKey();
  std::string data = rdb + Cmd({"SET", "a", "1"});
  KeyspaceStats stats;
  auto load = [&](const std::string& bytes, size_t* rdb_size, std::string* err) {
    Db db(0, &stats);
    RdbLoadStats ls;
    return LoadRdb(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), {&db},
                   RdbLoadLimitsFrom(Config{}), 0, &ls, err, rdb_size) &&
           db.Size() == 1;
  };
  size_t rdb_size = 0;
  std::string err;
  ASSERT_TRUE(load(data, &rdb_size, &err)) << err;
  EXPECT_EQ(rdb_size, rdb.size());
  AofCommandReader r(data, rdb_size);
  std::vector<std::string_view> args;
  ASSERT_EQ(r.Next(&args), AofCommandReader::Result::kCommand);
  EXPECT_EQ(args, (std::vector<std::string_view>{"SET", "a", "1"}));
  EXPECT_EQ(r.command_start(), rdb.size());
  EXPECT_EQ(r.Next(&args), AofCommandReader::Result::kEnd);
  // The preamble's checksum is still verified, at its own end.
  std::string damaged = data;
  damaged[rdb.size() - 10] ^= 1;  // the value's last byte, before EOF and the CRC64
  EXPECT_FALSE(load(damaged, &rdb_size, &err));
  EXPECT_NE(err.find("checksum"), std::string::npos) << err;
  // Without rdb_size the trailing commands are where the checksum is expected.
  EXPECT_FALSE(load(data, nullptr, &err));
}

}  // namespace
}  // namespace vireo
