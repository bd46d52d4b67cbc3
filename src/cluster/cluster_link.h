// One cluster bus connection: outbound to a known node's bus port (it carries our PINGs and
// their PONGs), or inbound from any node (their PINGs, our PONGs). Messages are RESP arrays;
// the link buffers both directions and hands each complete message to the cluster.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/crc16.h"
#include "net/event_loop.h"
#include "protocol/request_parser.h"

namespace vireo {

class Cluster;
class TlsSession;
struct ClusterNode;

class ClusterLink {
 public:
  // Takes fd (non-blocking). node: the peer of an outbound link, nullptr for inbound ones.
  // tls (tls-cluster; owned): the socket's session, whose handshake runs before any message.
  ClusterLink(Cluster* cluster, EventLoop* loop, int fd, ClusterNode* node, bool connecting,
              TlsSession* tls = nullptr);
  ~ClusterLink();
  ClusterLink(const ClusterLink&) = delete;
  ClusterLink& operator=(const ClusterLink&) = delete;

  ClusterNode* node() const { return node_; }
  void DetachNode() { node_ = nullptr; }
  void AttachNode(ClusterNode* node) { node_ = node; }
  bool connected() const { return fd_ >= 0 && !connecting_ && !tls_handshaking_; }
  bool inbound() const { return inbound_; }
  int fd() const { return fd_; }
  // For CLUSTER LINKS: when the link was made, what it waits for, and its queued output.
  int64_t created_ms() const { return created_ms_; }
  const char* events() const;
  size_t send_buffer_allocated() const { return out_.empty() ? 0 : out_.capacity(); }
  size_t send_buffer_used() const { return out_.size(); }
  // Queues one message (an array of bulk strings); sent as the socket allows.
  void Send(const std::vector<std::string_view>& fields);
  // Closes the socket and tells the cluster (the link object is freed by the cluster later).
  void Close();

 private:
  static void OnEvent(void* obj, uint32_t events);
  void HandleEvent(uint32_t events);
  void Flush();
  // The connection is up (TCP, then TLS): an outbound link says hello.
  void Established();
  // tls-cluster: one handshake step; true once it is done (false: waiting, or closed).
  bool TlsHandshakeStep();
  ssize_t Recv(char* buf, size_t n);

  Cluster* cluster_;
  EventLoop* loop_;
  int fd_;
  ClusterNode* node_;
  bool inbound_;
  bool connecting_;
  bool watching_write_ = false;
  TlsSession* tls_;
  bool tls_handshaking_;
  int64_t created_ms_;
  IoWatcher watcher_;
  std::string in_;
  std::string out_;
  RequestParser parser_;
};

// The slot set as a bus message carries it: 2 KB, bit s%8 of byte s/8 set when slot s is.
inline constexpr size_t kBitmapBytes = kClusterSlots / 8;
std::string SlotBitmap(const std::bitset<kClusterSlots>& slots);
bool BitmapHas(std::string_view bitmap, size_t slot);

}  // namespace vireo
