#include "net/socket.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>

namespace vireo {
namespace {

int BoundPort(int fd) {
  struct sockaddr_storage ss = {};
  socklen_t len = sizeof(ss);
  getsockname(fd, reinterpret_cast<struct sockaddr*>(&ss), &len);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
}

// Connects to the listener and returns {client fd, accepted fd}.
std::pair<int, int> ConnectPair(int listen_fd, const struct sockaddr* sa, socklen_t len) {
  int client = socket(sa->sa_family, SOCK_STREAM, 0);
  EXPECT_EQ(connect(client, sa, len), 0);
  int accepted = -1;
  for (int i = 0; i < 1000 && accepted < 0; ++i) {
    accepted = AcceptConnection(listen_fd);
    if (accepted < 0) usleep(1000);
  }
  EXPECT_GE(accepted, 0);
  return {client, accepted};
}

TEST(ProtectedModeTest, Decision) {
  // Only a non-loopback TCP peer, with protected mode on and no password, is refused.
  EXPECT_TRUE(ProtectedModeDenies(true, false, false, false));
  EXPECT_FALSE(ProtectedModeDenies(true, false, false, true));    // loopback
  EXPECT_FALSE(ProtectedModeDenies(true, false, true, false));    // unix socket
  EXPECT_FALSE(ProtectedModeDenies(true, true, false, false));    // password set
  EXPECT_FALSE(ProtectedModeDenies(false, false, false, false));  // protected mode off
}

TEST(SocketTest, TcpLoopbackAddresses) {
  std::string error;
  int lfd = ListenTcp("127.0.0.1", 0, 16, &error);
  ASSERT_GE(lfd, 0) << error;
  int port = BoundPort(lfd);
  struct sockaddr_in sa = {};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  auto [client, accepted] = ConnectPair(lfd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  EXPECT_TRUE(std::regex_match(PeerAddress(accepted), std::regex("127\\.0\\.0\\.1:\\d+")));
  EXPECT_EQ(LocalAddress(accepted), "127.0.0.1:" + std::to_string(port));
  EXPECT_TRUE(IsLoopbackPeer(accepted));
  close(client);
  close(accepted);
  close(lfd);
}

TEST(SocketTest, Ipv6AddressesAreBracketed) {
  std::string error;
  int lfd = ListenTcp("::1", 0, 16, &error);
  if (lfd < 0) GTEST_SKIP() << "no IPv6 loopback: " << error;
  int port = BoundPort(lfd);
  struct sockaddr_in6 sa = {};
  sa.sin6_family = AF_INET6;
  sa.sin6_port = htons(static_cast<uint16_t>(port));
  sa.sin6_addr = in6addr_loopback;
  auto [client, accepted] = ConnectPair(lfd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  EXPECT_TRUE(std::regex_match(PeerAddress(accepted), std::regex("\\[::1\\]:\\d+")))
      << PeerAddress(accepted);
  EXPECT_EQ(LocalAddress(accepted), "[::1]:" + std::to_string(port));
  EXPECT_TRUE(IsLoopbackPeer(accepted));
  close(client);
  close(accepted);
  close(lfd);
}

TEST(SocketTest, UnixSocketPermissionsAndLocality) {
  char dir[] = "/tmp/vireo-sock-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/s.sock";
  std::string error;
  int lfd = ListenUnix(path, 0700, 16, &error);
  ASSERT_GE(lfd, 0) << error;
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  struct sockaddr_un sa = {};
  sa.sun_family = AF_UNIX;
  memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  auto [client, accepted] = ConnectPair(lfd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
  EXPECT_TRUE(IsLoopbackPeer(accepted));
  EXPECT_EQ(LocalAddress(accepted), path + ":0");
  close(client);
  close(accepted);
  close(lfd);
  unlink(path.c_str());
  rmdir(dir);
}

TEST(SocketTest, BadBindAddress) {
  std::string error;
  EXPECT_EQ(ListenTcp("300.1.2.3", 0, 16, &error), -1);
  EXPECT_EQ(error, "Invalid bind address '300.1.2.3'");
  EXPECT_EQ(ListenUnix(std::string(200, 'p'), 0, 16, &error), -1);
  EXPECT_EQ(error, "unix socket path too long");
}

}  // namespace
}  // namespace vireo
