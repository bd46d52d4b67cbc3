// The cluster bus: links, message encoding, PING/PONG/MEET with gossip, FAIL, UPDATE and
// PUBLISH (see cluster.h).
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cluster/cluster.h"
#include "cluster/cluster_link.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "net/socket.h"
#include "net/tls_connection.h"
#include "net/tls_context.h"
#include "protocol/command_encoder.h"
#include "replication/replication.h"
#include "server/server.h"

namespace vireo {
namespace {

constexpr size_t kHeaderFields = 13;
constexpr size_t kGossipFields = 7;
// An extension record (SendPing): this ID, then "", "0", "0", kNodeNoAddr, the value, "0".
constexpr std::string_view kExtAvailabilityZone = "ext:availability-zone";
constexpr size_t kExtValueField = 5;

int64_t Num(std::string_view s) {
  int64_t v = 0;
  return ParseInt64(s, &v) ? v : 0;
}

std::string HostOf(const std::string& addr) {
  size_t colon = addr.rfind(':');
  return colon == std::string::npos ? addr : addr.substr(0, colon);
}

// Flags a node announces about itself or others (never "myself").
uint32_t WireFlags(uint32_t flags) {
  return flags & ~(kNodeMyself | kNodeMeet | kNodeMigrateTo);
}

}  // namespace

std::string SlotBitmap(const std::bitset<kClusterSlots>& slots) {
  std::string out(kBitmapBytes, '\0');
  for (size_t i = 0; i < static_cast<size_t>(kClusterSlots); ++i) {
    if (slots[i]) out[i / 8] = static_cast<char>(out[i / 8] | (1 << (i % 8)));
  }
  return out;
}

bool BitmapHas(std::string_view bitmap, size_t slot) {
  return (static_cast<unsigned char>(bitmap[slot / 8]) >> (slot % 8)) & 1;
}

// --- ClusterLink ---------------------------------------------------------------------------

ClusterLink::ClusterLink(Cluster* cluster, EventLoop* loop, int fd, ClusterNode* node,
                         bool connecting, TlsSession* tls)
    : cluster_(cluster),
      loop_(loop),
      fd_(fd),
      node_(node),
      inbound_(node == nullptr),
      connecting_(connecting),
      tls_(tls),
      tls_handshaking_(tls != nullptr),
      created_ms_(NowMs()) {
  watcher_ = {&ClusterLink::OnEvent, this};
  watching_write_ = connecting;
  loop_->Watch(fd_, connecting ? EventLoop::kWritable : EventLoop::kReadable, &watcher_);
}

ClusterLink::~ClusterLink() {
  delete tls_;
  if (fd_ >= 0) {
    loop_->Unwatch(fd_);
    close(fd_);
  }
}

const char* ClusterLink::events() const {
  if (connecting_) return "w";
  return watching_write_ ? "rw" : "r";
}

void ClusterLink::OnEvent(void* obj, uint32_t events) {
  static_cast<ClusterLink*>(obj)->HandleEvent(events);
}

void ClusterLink::Send(const std::vector<std::string_view>& fields) {
  if (fd_ < 0) return;
  AppendRespCommand(&out_, fields);
  if (connected()) Flush();
}

ssize_t ClusterLink::Recv(char* buf, size_t n) {
  return tls_ == nullptr ? read(fd_, buf, n) : tls_->Recv(buf, n);
}

void ClusterLink::Flush() {
  while (!out_.empty()) {
    ssize_t n = tls_ == nullptr ? send(fd_, out_.data(), out_.size(), MSG_NOSIGNAL)
                                : tls_->Send(out_.data(), out_.size());
    if (n > 0) {
      out_.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    Close();
    return;
  }
  const bool want_write = !out_.empty();
  // A link that fell behind once (a stalled peer) does not keep its peak buffer.
  if (!want_write && out_.capacity() > 64 * 1024) std::string().swap(out_);
  if (want_write != watching_write_) {
    watching_write_ = want_write;
    loop_->Watch(fd_, EventLoop::kReadable | (want_write ? EventLoop::kWritable : 0), &watcher_);
  }
}

void ClusterLink::Close() {
  if (fd_ < 0) return;
  loop_->Unwatch(fd_);
  delete tls_;  // no close_notify either: see below
  tls_ = nullptr;
  // What is still queued is stale once a link is given up: a reset drops it. A plain close
  // would let the kernel deliver it after a partition heals, where an old role claim (a
  // replica's, sent before its promotion) could arrive after newer messages on a fresh link.
  const linger reset{1, 0};
  setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
  close(fd_);
  fd_ = -1;
  cluster_->LinkClosed(this);
}

void ClusterLink::Established() {
  watching_write_ = !out_.empty();
  loop_->Watch(fd_, EventLoop::kReadable | (watching_write_ ? EventLoop::kWritable : 0),
               &watcher_);
  if (node_ != nullptr) {
    cluster_->SendPing(this, (node_->flags & kNodeMeet) ? "MEET" : "PING");
  }
  Flush();
}

bool ClusterLink::TlsHandshakeStep() {
  const TlsSession::Status s = tls_->Handshake();
  if (s == TlsSession::Status::kOk) {
    tls_handshaking_ = false;
    return true;
  }
  if (s == TlsSession::Status::kWantRead || s == TlsSession::Status::kWantWrite) {
    watching_write_ = s == TlsSession::Status::kWantWrite;
    loop_->Watch(fd_, watching_write_ ? EventLoop::kWritable : EventLoop::kReadable, &watcher_);
    return false;
  }
  LogVerbose("Cluster bus TLS handshake failed: %s",
             s == TlsSession::Status::kClosed ? "connection closed" : tls_->error().c_str());
  Close();
  return false;
}

void ClusterLink::HandleEvent(uint32_t events) {
  if (connecting_) {
    int err = 0;
    socklen_t len = sizeof(err);
    getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      Close();
      return;
    }
    connecting_ = false;
    if (tls_ == nullptr) {
      Established();
      return;
    }
  }
  if (tls_handshaking_) {
    if (!TlsHandshakeStep()) return;
    Established();
    if (fd_ < 0) return;
  }
  if (events & EventLoop::kWritable) {
    Flush();
    if (fd_ < 0) return;
  }
  if (!(events & EventLoop::kReadable)) return;
  char buf[16384];
  for (;;) {
    ssize_t n = Recv(buf, sizeof(buf));
    if (n > 0) {
      in_.append(buf, static_cast<size_t>(n));
      // TLS reads end at a record: only EAGAIN says the socket is drained.
      if (n < static_cast<ssize_t>(sizeof(buf)) && tls_ == nullptr) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    Close();
    return;
  }
  ParserLimits limits;
  limits.max_bulk_len = 1 << 20;
  size_t off = 0;
  std::vector<std::string_view> msg;
  while (off < in_.size() && fd_ >= 0) {
    size_t consumed = 0;
    auto r = parser_.Parse(in_.data() + off, in_.size() - off, limits, &consumed, &msg);
    if (r == RequestParser::Result::kIncomplete) break;
    if (r == RequestParser::Result::kError) {
      Close();
      return;
    }
    off += consumed;
    if (r == RequestParser::Result::kCommand && !msg.empty()) {
      cluster_->HandleMessage(this, msg);
    }
    msg.clear();
  }
  if (fd_ >= 0) in_.erase(0, off);
}

// --- Cluster: links ------------------------------------------------------------------------

TlsContext* Cluster::BusTls() const {
  if (ConfigValue(server_.config(), "tls-cluster") != "yes") return nullptr;
  return server_.tls();
}

bool Cluster::ListenBus(std::string* error) {
  const Config& c = server_.config();
  std::string addr = c.bind.empty() ? "*" : c.bind[0];
  bus_fd_ = ListenTcp(addr, bus_listen_port_, 511, error);
  if (bus_fd_ < 0) {
    *error = "Could not listen on the cluster bus port " + std::to_string(bus_listen_port_) +
             ": " + *error;
    return false;
  }
  SetNonBlocking(bus_fd_);
  server_.loop().Watch(bus_fd_, EventLoop::kReadable, &bus_watcher_);
  return true;
}

void Cluster::OnBusAccept(void* obj, uint32_t) {
  auto* self = static_cast<Cluster*>(obj);
  for (int i = 0; i < 100; ++i) {
    int fd = AcceptConnection(self->bus_fd_);
    if (fd < 0) return;
    SetNoDelay(fd);
    // tls-cluster: every peer must show a certificate the CAs vouch for.
    TlsSession* tls = nullptr;
    if (self->BusTls() != nullptr) {
      tls = TlsSession::Accept(self->BusTls()->server_ctx(), fd, TlsClientAuth::kYes);
      if (tls == nullptr) {
        close(fd);
        continue;
      }
    }
    self->links_.push_back(
        std::make_unique<ClusterLink>(self, &self->server_.loop(), fd, nullptr, false, tls));
  }
}

void Cluster::Connect(ClusterNode* node) {
  if (node->ip.empty()) return;
  // The PING goes out once connected; counting from now lets a node that refuses or never
  // answers connections reach PFAIL too.
  if (node->ping_sent_ms == 0 && !node->in_handshake()) node->ping_sent_ms = NowMs();
  std::string err;
  int fd = ConnectTcp(node->ip, node->cport, &err);
  if (fd < 0) return;  // the next cron tries again
  TlsSession* tls = nullptr;
  if (BusTls() != nullptr) {
    tls = TlsSession::Connect(BusTls()->client_ctx(), fd);
    if (tls == nullptr) {
      close(fd);
      return;
    }
  }
  links_.push_back(std::make_unique<ClusterLink>(this, &server_.loop(), fd, node, true, tls));
  node->link = links_.back().get();
}

void Cluster::LinkClosed(ClusterLink* link) {
  if (link->node() != nullptr && link->node()->link == link) link->node()->link = nullptr;
  link->DetachNode();
  dead_links_.push_back(link);
}

// --- Messages ------------------------------------------------------------------------------

void Cluster::SendPing(ClusterLink* link, const char* type) {
  const std::string id = myself_->id;
  const std::string port = std::to_string(myself_->port);
  const std::string cport = std::to_string(myself_->cport);
  const std::string flags = std::to_string(WireFlags(myself_->flags));
  const std::string config_epoch = std::to_string(myself_->config_epoch);
  const std::string current_epoch = std::to_string(current_epoch_);
  const std::string offset = std::to_string(server_.replication().offset());
  // A replica announces its primary's slots as the spec does; the bitmap says what it
  // serves as a primary only.
  const std::string bitmap = SlotBitmap(myself_->slots);
  const std::string mflags = manual_failover_ ? "1" : "0";
  const std::string pport = std::to_string(myself_->pport);
  std::vector<std::string_view> f = {type, id, myself_->ip, port, cport, flags,
                                     myself_->master_id, config_epoch, current_epoch, offset,
                                     bitmap, mflags, pport};
  // Gossip about other nodes: all of them in small clusters, failing ones always.
  std::vector<std::string> gossip;
  ClusterNode* peer = link->node();
  for (const auto& [nid, node] : nodes_) {
    if (node.get() == myself_ || node.get() == peer || node->in_handshake()) continue;
    if (gossip.size() / kGossipFields >= 30 && !(node->flags & (kNodePfail | kNodeFail))) continue;
    gossip.push_back(node->id);
    gossip.push_back(node->ip);
    gossip.push_back(std::to_string(node->port));
    gossip.push_back(std::to_string(node->cport));
    gossip.push_back(std::to_string(WireFlags(node->flags)));
    gossip.push_back(std::to_string(node->ping_sent_ms));
    gossip.push_back(std::to_string(node->pong_received_ms));
  }
  // Facts about the sender beyond the header travel as records shaped like gossip entries
  // with no address and a flag saying so: a Vireo node without them skips such an entry as
  // gossip about an unreachable node, so the header stays as older nodes parse it.
  const std::string az = ConfigValue(server_.config(), "availability-zone");
  if (!az.empty()) {
    gossip.push_back(std::string(kExtAvailabilityZone));
    gossip.push_back("");
    gossip.push_back("0");
    gossip.push_back("0");
    gossip.push_back(std::to_string(kNodeNoAddr));
    gossip.push_back(az);
    gossip.push_back("0");
  }
  for (const std::string& g : gossip) f.push_back(g);
  link->Send(f);
  ++messages_sent_;
  if (peer != nullptr && strcmp(type, "PONG") != 0 && peer->ping_sent_ms == 0) {
    peer->ping_sent_ms = NowMs();
  }
}

void Cluster::SendToMasters(const std::vector<std::string_view>& fields) {
  for (auto& l : links_) {
    if (l->inbound() || !l->connected() || l->node() == nullptr || !l->node()->is_master()) {
      continue;
    }
    l->Send(fields);
    ++messages_sent_;
  }
}

void Cluster::BroadcastFail(ClusterNode* node) {
  const std::string epoch = std::to_string(current_epoch_);
  for (auto& l : links_) {
    if (l->inbound() || !l->connected()) continue;
    l->Send({"FAIL", myself_->id, epoch, node->id});
    ++messages_sent_;
  }
}

void Cluster::BroadcastPublish(std::string_view channel, std::string_view message) {
  for (auto& l : links_) {
    if (l->inbound() || !l->connected() || l->node() == nullptr || l->node()->in_handshake()) {
      continue;
    }
    l->Send({"PUBLISH", myself_->id, channel, message});
    ++messages_sent_;
  }
}

void Cluster::ShardPublish(std::string_view channel, std::string_view message) {
  const std::string& shard = myself_->is_replica() ? myself_->master_id : myself_->id;
  for (auto& l : links_) {
    ClusterNode* n = l->node();
    if (l->inbound() || !l->connected() || n == nullptr || n->in_handshake()) continue;
    if (n->id != shard && n->master_id != shard) continue;
    l->Send({"SPUBLISH", myself_->id, channel, message});
    ++messages_sent_;
  }
}

void Cluster::HandleMessage(ClusterLink* link, const std::vector<std::string_view>& msg) {
  ++messages_received_;
  const std::string_view type = msg[0];
  if (type == "PING" || type == "PONG" || type == "MEET") {
    if (msg.size() < kHeaderFields || (msg.size() - kHeaderFields) % kGossipFields != 0 ||
        msg[10].size() != kBitmapBytes) {
      link->Close();
      return;
    }
    HandlePing(link, msg);
    return;
  }
  if (msg.size() < 3) return;
  ClusterNode* sender = Lookup(msg[1]);
  if (sender == nullptr) return;
  sender->data_received_ms = NowMs();
  if (type == "FAIL" && msg.size() == 4) {
    ClusterNode* failed = Lookup(msg[3]);
    if (failed != nullptr && failed != myself_ && !failed->failed()) {
      LogNotice("FAIL message received from %.40s about %.40s", sender->id.c_str(),
                failed->id.c_str());
      failed->flags = (failed->flags | kNodeFail) & ~kNodePfail;
      failed->fail_time_ms = NowMs();
      MarkConfigChanged();
    }
  } else if (type == "PUBLISH" && msg.size() == 4) {
    server_.pubsub().Publish(server_, PubSubSpace::kGlobal, msg[2], msg[3]);
  } else if (type == "SPUBLISH" && msg.size() == 4) {
    server_.pubsub().Publish(server_, PubSubSpace::kShard, msg[2], msg[3]);
  } else if (type == "UPDATE" && msg.size() == 6 && msg[5].size() == kBitmapBytes) {
    ClusterNode* node = Lookup(msg[3]);
    uint64_t epoch = static_cast<uint64_t>(Num(msg[4]));
    if (node != nullptr && node->config_epoch < epoch) {
      node->config_epoch = epoch;
      UpdateSlotsFrom(node, msg[5], epoch);
    }
  } else if (type == "AUTH_REQUEST" && msg.size() == 6 && msg[4].size() == kBitmapBytes) {
    HandleAuthRequest(link, sender, msg);
  } else if (type == "MFSTART" && myself_->is_master() && sender->master_id == myself_->id) {
    // A replica of ours takes over by hand: writes pause until it has everything.
    LogNotice("Manual failover requested by replica %.40s.", sender->id.c_str());
    manual_failover_ = true;
    manual_failover_end_ = NowMs() + 5000;
    server_.Pause(Server::PausePurpose::kFailover, manual_failover_end_, true);
    if (sender->link != nullptr && sender->link->connected()) SendPing(sender->link, "PING");
  } else if (type == "AUTH_ACK" && msg.size() == 3) {
    HandleAuthAck(sender, static_cast<uint64_t>(Num(msg[2])));
  }
}

void Cluster::HandlePing(ClusterLink* link, const std::vector<std::string_view>& msg) {
  const int64_t now = NowMs();
  const std::string_view type = msg[0];
  const std::string sender_id(msg[1]);
  const std::string hdr_ip(msg[2]);
  const int hdr_port = static_cast<int>(Num(msg[3]));
  const int hdr_cport = static_cast<int>(Num(msg[4]));
  const uint32_t hdr_flags = static_cast<uint32_t>(Num(msg[5]));
  const std::string hdr_master(msg[6]);
  const uint64_t hdr_config_epoch = static_cast<uint64_t>(Num(msg[7]));
  const uint64_t hdr_current_epoch = static_cast<uint64_t>(Num(msg[8]));
  if (sender_id == myself_->id) return;
  // This node learns its own address from the first node that reaches it.
  if (type != "PONG" && myself_->ip.empty()) {
    myself_->ip = HostOf(LocalAddress(link->fd()));
    MarkConfigChanged();
  }
  ClusterNode* sender = Lookup(sender_id);
  if (type == "MEET" && sender == nullptr) {
    auto node = std::make_unique<ClusterNode>();
    node->id = sender_id;
    node->ip = hdr_ip.empty() ? HostOf(PeerAddress(link->fd())) : hdr_ip;
    node->port = hdr_port;
    node->cport = hdr_cport;
    node->flags = hdr_flags & (kNodeMaster | kNodeReplica);
    sender = AddNode(std::move(node));
  }
  if (type == "PONG" && link->node() != nullptr && link->node()->in_handshake()) {
    // The node met by address answered: it gets its real ID.
    ClusterNode* hs = link->node();
    if (sender != nullptr) {
      DeleteNode(hs);  // known already under that ID
      return;
    }
    RenameNode(hs, sender_id);
    hs->flags &= ~(kNodeHandshake | kNodeMeet);
    hs->flags |= hdr_flags & (kNodeMaster | kNodeReplica);
    sender = hs;
    LogNotice("Handshake with node %.40s completed.", sender_id.c_str());
  }
  if (type != "PONG") {
    SendPing(link, "PONG");
  }
  if (sender == nullptr || sender->in_handshake()) return;
  // An inbound link is known by its sender from now on (CLUSTER LINKS shows it "from" it).
  if (link->inbound() && link->node() == nullptr) link->AttachNode(sender);
  sender->data_received_ms = now;
  if (hdr_current_epoch > current_epoch_) {
    current_epoch_ = hdr_current_epoch;
    MarkConfigChanged();
  }
  if (hdr_config_epoch > sender->config_epoch) {
    sender->config_epoch = hdr_config_epoch;
    MarkConfigChanged();
  }
  if (!hdr_ip.empty() && hdr_ip != sender->ip) {
    sender->ip = hdr_ip;
    MarkConfigChanged();
  }
  sender->pport = static_cast<int>(Num(msg[12]));
  if (hdr_port != sender->port || hdr_cport != sender->cport) {
    sender->port = hdr_port;
    sender->cport = hdr_cport;
    if (sender->link != nullptr) sender->link->Close();  // reconnect to the new address
    MarkConfigChanged();
  }
  sender->repl_offset = Num(msg[9]);
  if (msg[11] == "1" && myself_->is_replica() && sender->id == myself_->master_id &&
      manual_failover_end_ != 0) {
    if (mf_master_offset_ < 0) {
      LogNotice("Received replication offset for paused master manual failover: %lld",
                static_cast<long long>(sender->repl_offset));
    }
    mf_master_offset_ = sender->repl_offset;
  }
  if (type == "PONG" && link->node() == sender) {
    sender->pong_received_ms = now;
    sender->ping_sent_ms = 0;
    if (sender->flags & kNodePfail) {
      sender->flags &= ~kNodePfail;
      MarkConfigChanged();
    } else if (sender->failed() &&
               (sender->is_replica() || sender->slot_count == 0 ||
                now - sender->fail_time_ms > 2 * node_timeout_ms_)) {
      LogNotice("Clear FAIL state for node %.40s: is reachable again.", sender->id.c_str());
      sender->flags &= ~kNodeFail;
      MarkConfigChanged();
    }
  }
  // Role.
  if (hdr_flags & kNodeMaster) {
    if (!sender->is_master()) {
      // A promoted replica: its replicas-to-be make it a replica migration target.
      if (sender->is_replica()) sender->flags |= kNodeMigrateTo;
      sender->flags = (sender->flags & ~kNodeReplica) | kNodeMaster;
      sender->master_id.clear();
      MarkConfigChanged();
    }
  } else if (hdr_flags & kNodeReplica) {
    if (!sender->is_replica() || sender->master_id != hdr_master) {
      for (int s = 0; s < kClusterSlots; ++s) {
        if (slots_[static_cast<size_t>(s)] == sender) ClearSlot(s);
      }
      sender->flags = (sender->flags & ~kNodeMaster) | kNodeReplica;
      sender->master_id = hdr_master;
      MarkConfigChanged();
    }
    ClusterNode* master = Lookup(hdr_master);
    if (master != nullptr) master->flags |= kNodeMigrateTo;
  }
  if (sender->is_master()) UpdateSlotsFrom(sender, msg[10], sender->config_epoch);
  // Two primaries with one config epoch: the one with the smaller ID takes a new epoch, so
  // slot claims stay ordered.
  if (sender->is_master() && myself_->is_master() &&
      sender->config_epoch == myself_->config_epoch && sender->id > myself_->id &&
      myself_->config_epoch != 0) {
    myself_->config_epoch = ++current_epoch_;
    MarkConfigChanged();
    LogVerbose("WARNING: configEpoch collision with node %.40s. configEpoch set to %llu",
               sender->id.c_str(), static_cast<unsigned long long>(myself_->config_epoch));
  }
  // Extension records: a PING states all of them each time, so one left out is unset.
  std::string az;
  for (size_t i = kHeaderFields; i + kGossipFields <= msg.size(); i += kGossipFields) {
    if (msg[i] == kExtAvailabilityZone) az = std::string(msg[i + kExtValueField]);
  }
  sender->availability_zone = std::move(az);
  // Gossip.
  for (size_t i = kHeaderFields; i + kGossipFields <= msg.size(); i += kGossipFields) {
    const std::string id(msg[i]);
    if (id == myself_->id || id.starts_with("ext:")) continue;
    const uint32_t gflags = static_cast<uint32_t>(Num(msg[i + 4]));
    ClusterNode* node = Lookup(id);
    if (node != nullptr) {
      if (sender->is_master() && node != sender) {
        if (gflags & (kNodePfail | kNodeFail)) {
          node->fail_reports[sender->id] = now;
        } else {
          node->fail_reports.erase(sender->id);
        }
      }
      continue;
    }
    if ((gflags & (kNodeNoAddr | kNodeHandshake)) || msg[i + 1].empty() || Forgotten(id)) {
      continue;
    }
    auto fresh = std::make_unique<ClusterNode>();
    fresh->id = id;
    fresh->ip = std::string(msg[i + 1]);
    fresh->port = static_cast<int>(Num(msg[i + 2]));
    fresh->cport = static_cast<int>(Num(msg[i + 3]));
    fresh->flags = gflags & (kNodeMaster | kNodeReplica);
    AddNode(std::move(fresh));
  }
}

void Cluster::UpdateSlotsFrom(ClusterNode* sender, std::string_view bitmap, uint64_t epoch) {
  const int mine_before = myself_->slot_count;
  ClusterNode* my_master = myself_->is_replica() ? Lookup(myself_->master_id) : nullptr;
  const int master_before = my_master != nullptr ? my_master->slot_count : 0;
  int sender_slots = 0;
  for (size_t s = 0; s < static_cast<size_t>(kClusterSlots); ++s) {
    if (!BitmapHas(bitmap, s)) continue;
    ++sender_slots;
    ClusterNode* cur = slots_[s];
    if (cur == sender || !importing_[s].empty()) continue;
    if (cur == nullptr || cur->config_epoch < epoch) {
      if (cur == myself_) migrating_[s].clear();  // the move finished elsewhere
      SetSlot(static_cast<int>(s), sender);
    }
  }
  // A primary whose every slot went to a newer claim follows that node as its replica (the
  // old primary after a failover); so does a replica whose primary lost them all. Without
  // cluster-allow-replica-migration only a failover (the claimant took exactly our slots)
  // does that.
  const bool allow = AllowReplicaMigration();
  if (myself_->is_master() && mine_before > 0 && myself_->slot_count == 0 &&
      (allow || sender_slots == mine_before)) {
    LogNotice("Configuration change detected. Reconfiguring myself as a replica of %.40s",
              sender->id.c_str());
    SetMyMaster(sender);
  } else if (my_master != nullptr && master_before > 0 && my_master->slot_count == 0 &&
             my_master != sender && (allow || sender_slots == master_before)) {
    SetMyMaster(sender);
  }
  AfterSlotChanges();
}

}  // namespace vireo
