#include "net/connection.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "net/socket.h"
#include "store/memory.h"

namespace vireo {
namespace {

// A connected pair: the Connection owns one end, the test writes and reads the other.
class ConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    SetNonBlocking(fds[0]);
    conn_ = std::make_unique<Connection>(fds[0]);
    peer_ = fds[1];
  }
  void TearDown() override {
    if (peer_ >= 0) close(peer_);
  }

  void PeerSend(const std::string& s) {
    ASSERT_EQ(send(peer_, s.data(), s.size(), 0), static_cast<ssize_t>(s.size()));
  }
  std::string Input() const { return std::string(conn_->InputData(), conn_->InputSize()); }
  // Reads until `n` bytes are buffered (the peer has already sent them).
  void ReadAtLeast(size_t n, size_t room = 0) {
    while (conn_->InputSize() < n) {
      ASSERT_EQ(conn_->Read(room), Connection::ReadResult::kData);
    }
  }

  std::unique_ptr<Connection> conn_;
  int peer_ = -1;
};

TEST_F(ConnectionTest, ReadConsumeKeepsUnconsumedBytesAtTheFront) {
  EXPECT_EQ(conn_->InputSize(), 0u);
  EXPECT_EQ(conn_->Read(0), Connection::ReadResult::kWouldBlock);
  PeerSend("hello world");
  ReadAtLeast(11);
  EXPECT_EQ(Input(), "hello world");
  EXPECT_GE(conn_->InputCapacity(), 11u);
  conn_->ConsumeInput(6);
  EXPECT_EQ(Input(), "world");
  PeerSend("!!");
  ReadAtLeast(7);
  EXPECT_EQ(Input(), "world!!");
  conn_->ConsumeInput(7);
  EXPECT_EQ(conn_->InputSize(), 0u);
  EXPECT_EQ(conn_->BytesRead(), 13u);
}

TEST_F(ConnectionTest, PartialDataSurvivesGrowthAndCompaction) {
  // Fill past one read chunk with a recognisable pattern, consuming in odd steps, so the
  // buffer both slides and grows while a tail is still unconsumed.
  std::string sent, expected;
  for (int i = 0; i < 200; ++i) {
    std::string piece(997, static_cast<char>('a' + i % 26));
    PeerSend(piece);
    sent += piece;
    ReadAtLeast(sent.size() - expected.size());
    size_t take = conn_->InputSize() / 3;
    expected.append(conn_->InputData(), take);
    conn_->ConsumeInput(take);
  }
  ReadAtLeast(sent.size() - expected.size());
  expected += Input();
  EXPECT_EQ(expected, sent);
}

TEST_F(ConnectionTest, RoomForBigArguments) {
  std::string big(150000, 'x');
  size_t sent = 0;
  // The socket buffer may not take it all at once: send and read in turns.
  while (sent < big.size()) {
    ssize_t n = send(peer_, big.data() + sent, big.size() - sent, MSG_DONTWAIT);
    if (n > 0) sent += static_cast<size_t>(n);
    Connection::ReadResult r = conn_->Read(big.size());
    ASSERT_NE(r, Connection::ReadResult::kError);
  }
  ReadAtLeast(big.size(), big.size());
  EXPECT_GE(conn_->InputCapacity(), big.size());
  EXPECT_EQ(Input(), big);
  // A drained big buffer is released.
  conn_->ConsumeInput(conn_->InputSize());
  EXPECT_EQ(conn_->InputCapacity(), 0u);
  PeerSend("PING\r\n");
  ReadAtLeast(6);
  EXPECT_EQ(Input(), "PING\r\n");
}

TEST_F(ConnectionTest, PipelinedBigCommandsAreNotSlidOnEveryRead) {
  // 16 KB commands arriving 16 KB at a time leave a partial command after nearly every read.
  // Sliding it to the front each time copied about one command per command; the buffer grows
  // instead, so what is still copied stays a small part of what was read.
  constexpr size_t kCommand = 16425;
  constexpr size_t kCommands = 200;
  const std::string command(kCommand, 'v');
  std::string stream;
  for (size_t i = 0; i < kCommands; ++i) stream += command;
  size_t sent = 0, consumed = 0;
  while (consumed < stream.size()) {
    if (sent < stream.size()) {
      const size_t n = std::min<size_t>(16384, stream.size() - sent);
      ssize_t w = send(peer_, stream.data() + sent, n, MSG_DONTWAIT);
      if (w > 0) sent += static_cast<size_t>(w);
    }
    // As the server asks: room for the rest of the command in progress.
    const size_t have = conn_->InputSize();
    const size_t room = kCommand - have % kCommand;
    ASSERT_NE(conn_->Read(room), Connection::ReadResult::kError);
    const size_t whole = conn_->InputSize() / kCommand * kCommand;
    conn_->ConsumeInput(whole);
    consumed += whole;
  }
  EXPECT_EQ(conn_->BytesRead(), stream.size());
  // Sliding on every read moved about 75% of the stream here; growing, about 12%.
  EXPECT_LT(conn_->InputBytesMoved(), stream.size() / 4) << conn_->InputBytesMoved();
}

TEST_F(ConnectionTest, ReleaseInputIfEmpty) {
  PeerSend("abc");
  ReadAtLeast(3);
  conn_->ReleaseInputIfEmpty();  // holds bytes: kept
  EXPECT_EQ(Input(), "abc");
  conn_->ConsumeInput(3);
  EXPECT_GT(conn_->InputCapacity(), 0u);
  conn_->ReleaseInputIfEmpty();
  EXPECT_EQ(conn_->InputCapacity(), 0u);
  PeerSend("d");
  ReadAtLeast(1);
  EXPECT_EQ(Input(), "d");
}

TEST_F(ConnectionTest, AppendInput) {
  conn_->AppendInput("ab", 2);
  conn_->AppendInput("cd", 2);
  EXPECT_EQ(Input(), "abcd");
  conn_->ConsumeInput(1);
  PeerSend("e");
  ReadAtLeast(4);
  EXPECT_EQ(Input(), "bcde");
}

TEST_F(ConnectionTest, PeerCloseIsReported) {
  PeerSend("x");
  close(peer_);
  peer_ = -1;
  EXPECT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  EXPECT_EQ(conn_->Read(0), Connection::ReadResult::kClosed);
  EXPECT_EQ(Input(), "x");
}

TEST_F(ConnectionTest, FlushWritesOutput) {
  conn_->Output()->append("+OK\r\n");
  EXPECT_EQ(conn_->PendingOutput(), 5u);
  EXPECT_EQ(conn_->Flush(), Connection::WriteResult::kDone);
  EXPECT_EQ(conn_->PendingOutput(), 0u);
  EXPECT_EQ(conn_->BytesWritten(), 5u);
  char buf[16];
  EXPECT_EQ(recv(peer_, buf, sizeof(buf), 0), 5);
  EXPECT_EQ(std::string(buf, 5), "+OK\r\n");
}

TEST_F(ConnectionTest, FlushLeavesWhatTheSocketCannotTake) {
  conn_->Output()->assign(8 << 20, 'z');  // more than a socket buffer holds
  EXPECT_EQ(conn_->Flush(), Connection::WriteResult::kPending);
  size_t pending = conn_->PendingOutput();
  EXPECT_GT(pending, 0u);
  EXPECT_LT(pending, 8u << 20);
  std::string got;
  char buf[65536];
  while (got.size() < (8u << 20)) {
    ssize_t n = recv(peer_, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) got.append(buf, static_cast<size_t>(n));
    if (conn_->PendingOutput() > 0) conn_->Flush();
  }
  EXPECT_EQ(conn_->PendingOutput(), 0u);
  EXPECT_EQ(got, std::string(8 << 20, 'z'));
}


// References (OutputRef) are sent in their place between the buffer's bytes, and released
// once sent, whether the socket took everything at once or in many pieces.
struct RefLog {
  static void Release(void* owner) { ++static_cast<RefLog*>(owner)->released; }
  int released = 0;
};

std::string DrainPeer(int peer, Connection* conn, size_t total) {
  std::string got;
  char buf[65536];
  while (got.size() < total) {
    ssize_t n = recv(peer, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) got.append(buf, static_cast<size_t>(n));
    if (conn->PendingOutput() > 0) conn->Flush();
  }
  return got;
}

TEST_F(ConnectionTest, ReferencedBytesAreSentInPlace) {
  RefLog log;
  const std::string a(20000, 'a'), b(30000, 'b');
  conn_->Output()->append("head");
  conn_->AppendRef({a.data(), a.size(), &RefLog::Release, &log});
  conn_->AppendRef({b.data(), b.size(), &RefLog::Release, &log});  // two in a row
  conn_->Output()->append("mid");
  conn_->AppendRef({a.data(), a.size(), &RefLog::Release, &log});
  EXPECT_EQ(conn_->RefBytes(), 70000u);
  EXPECT_EQ(conn_->PendingOutput(), 70007u);
  conn_->Flush();
  EXPECT_EQ(DrainPeer(peer_, conn_.get(), 70007), "head" + a + b + "mid" + a);
  EXPECT_EQ(conn_->PendingOutput(), 0u);
  EXPECT_EQ(conn_->RefBytes(), 0u);
  EXPECT_EQ(conn_->BytesWritten(), 70007u);
  EXPECT_EQ(log.released, 3);
}

TEST_F(ConnectionTest, ReferencesSurviveManyPartialWrites) {
  RefLog log;
  const std::string big(3 << 20, 'r');  // more than a socket buffer holds
  std::string want;
  for (int i = 0; i < 4; ++i) {
    conn_->Output()->append("$" + std::to_string(i) + "\r\n");
    conn_->AppendRef({big.data(), big.size(), &RefLog::Release, &log});
    want += "$" + std::to_string(i) + "\r\n" + big;
  }
  conn_->Output()->append("tail");
  want += "tail";
  EXPECT_EQ(conn_->Flush(), Connection::WriteResult::kPending);
  EXPECT_LT(log.released, 4);
  EXPECT_EQ(DrainPeer(peer_, conn_.get(), want.size()), want);
  EXPECT_EQ(log.released, 4);
}

TEST_F(ConnectionTest, UnsentReferencesAreReleasedWithTheConnection) {
  RefLog log;
  const std::string big(8 << 20, 'u');
  conn_->AppendRef({big.data(), big.size(), &RefLog::Release, &log});
  conn_->AppendRef({big.data(), big.size(), &RefLog::Release, &log});
  EXPECT_EQ(conn_->Flush(), Connection::WriteResult::kPending);
  conn_.reset();
  EXPECT_EQ(log.released, 2);
}

// A big argument goes to a buffer of its own: what was read of it moves there, the socket's
// next bytes up to its end go there too, and what follows lands in the input again.
TEST_F(ConnectionTest, BigArgumentIsReadIntoItsOwnBuffer) {
  const std::string head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$40000\r\n";
  const std::string value(40000, 'v');
  PeerSend(head + value.substr(0, 1000));
  ReadAtLeast(head.size() + 1000);
  conn_->BeginBigArg(head.size(), value.size() + 2);
  EXPECT_EQ(Input(), head);
  EXPECT_FALSE(conn_->BigArgComplete());
  EXPECT_EQ(conn_->QueryBytes(), head.size() + 1000);
  PeerSend(value.substr(1000) + "\r\n*1\r\n$4\r\nPING\r\n");
  while (!conn_->BigArgComplete()) ASSERT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  // What follows the argument may come with its last bytes, into the input.
  EXPECT_TRUE(Input() == head || Input() == head + "*1\r\n$4\r\nPING\r\n") << Input();
  EXPECT_EQ(std::string_view(conn_->BigArgData(), value.size()), value);
  ReadAtLeast(head.size() + 14);
  EXPECT_EQ(Input(), head + "*1\r\n$4\r\nPING\r\n");
  size_t size = 0;
  EXPECT_EQ(conn_->TakeBigArg(std::string_view(conn_->BigArgData(), 5), &size), nullptr);
  void* p = conn_->TakeBigArg(std::string_view(conn_->BigArgData(), value.size()), &size);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(size, Connection::kBigArgHeadroom + value.size() + 2);
  EXPECT_FALSE(conn_->HasBigArg());
  ZFree(p);
}

// In a stream of big values, the read after a big argument takes only the next command's
// start, so that command's value goes to a big argument too instead of arriving whole in the
// input (and being copied out of it). One read only: the next is as large as ever.
TEST_F(ConnectionTest, ReadAfterABigArgumentIsShort) {
  const std::string head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$40000\r\n";
  const std::string value(40000, 'v');
  PeerSend(head);
  ReadAtLeast(head.size());
  conn_->BeginBigArg(head.size(), value.size() + 2);
  PeerSend(value + "\r\n" + head + value + "\r\n" + head);
  while (!conn_->BigArgComplete()) ASSERT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  // The read that completes the argument takes the next command's start with it (one call),
  // or, when it took nothing more, the next read takes it.
  if (conn_->InputSize() == head.size()) {
    ASSERT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  }
  EXPECT_EQ(conn_->InputSize(), head.size() + Connection::kAfterBigArgRead);
  ASSERT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  EXPECT_GT(conn_->InputSize(), head.size() + 2 * Connection::kAfterBigArgRead);
  conn_->ReleaseBigArg();
}

// Below kDirectArgMin the read that completes a big argument takes a pipeline's worth of
// what follows, and so does the read after it: mid-size values cost a read per few values.
TEST_F(ConnectionTest, ReadAfterAMidSizeArgumentIsNotShort) {
  const std::string head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$16384\r\n";
  const std::string value(16384, 'v');
  static_assert(16384 >= Connection::kBigArgMin && 16384 < Connection::kDirectArgMin);
  std::string rest;
  for (int i = 0; i < 6; ++i) rest += head + value + "\r\n";
  PeerSend(head);
  ReadAtLeast(head.size());
  conn_->BeginBigArg(head.size(), value.size() + 2);
  PeerSend(value + "\r\n" + rest);
  while (!conn_->BigArgComplete()) ASSERT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  if (conn_->InputSize() == head.size()) {
    ASSERT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  }
  // Several commands at once, not kAfterBigArgRead bytes.
  EXPECT_GT(conn_->InputSize(), head.size() + 2 * (head.size() + value.size() + 2));
  conn_->ReleaseBigArg();
}

// The parser's wish (room) still counts in that short read.
TEST_F(ConnectionTest, ReadAfterABigArgumentTakesWhatTheParserWants) {
  const std::string head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$40000\r\n";
  const std::string value(40000, 'v');
  PeerSend(head);
  ReadAtLeast(head.size());
  conn_->BeginBigArg(head.size(), value.size() + 2);
  // The argument's last byte comes alone: the one after it is read apart.
  PeerSend(value.substr(0, value.size() - 1));
  while (conn_->QueryBytes() - head.size() < value.size() - 1) {
    ASSERT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  }
  PeerSend(value.substr(value.size() - 1) + "\r\n");
  ASSERT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  ASSERT_TRUE(conn_->BigArgComplete());
  EXPECT_EQ(conn_->InputSize(), head.size());
  PeerSend(std::string(20000, 'x'));
  ASSERT_EQ(conn_->Read(10000), Connection::ReadResult::kData);
  EXPECT_EQ(conn_->InputSize(), head.size() + 10000);
  conn_->ReleaseBigArg();
}

TEST_F(ConnectionTest, BigArgumentCanGoBackIntoTheInput) {
  const std::string head = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$40000\r\n";
  const std::string value(40000, 'w');
  PeerSend(head + value.substr(0, 300));
  ReadAtLeast(head.size() + 300);
  conn_->BeginBigArg(head.size(), value.size() + 2);
  PeerSend(value.substr(300) + "\r\n+tail");
  while (!conn_->BigArgComplete()) ASSERT_EQ(conn_->Read(0), Connection::ReadResult::kData);
  ReadAtLeast(head.size() + 5);
  conn_->ReturnBigArgToInput();
  EXPECT_FALSE(conn_->HasBigArg());
  EXPECT_EQ(Input(), head + value + "\r\n+tail");
}

}  // namespace
}  // namespace vireo
