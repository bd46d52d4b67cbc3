#include "benchmark/worker.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace vireo::benchmark {
namespace {

constexpr uint32_t kWakeId = UINT32_MAX;
constexpr size_t kInitialInputSize = 16 * 1024;

// Ends the process from any thread after a fatal error, keeping what stdout already holds.
[[noreturn]] void Die(const std::string& line) {
  fflush(stdout);
  fprintf(stderr, "%s\n", line.c_str());
  _exit(1);
}

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

int64_t MonotonicMicros() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000 + ts.tv_nsec / 1000;
}

// ---------------------------------------------------------------------------------------------
// RunState

RunState::RunState(const Options& options, const RequestTemplate& one_request, Handshake handshake,
                   ClusterMap* cluster)
    : options_(options),
      pipeline_(RepeatRequest(one_request, options.pipeline)),
      request_size_(one_request.bytes.size()),
      handshake_(std::move(handshake)),
      cluster_(cluster) {}

int RunState::Claim(int want) {
  int64_t issued = issued_.load(std::memory_order_relaxed);
  while (true) {
    int64_t left = options_.requests - issued;
    if (left <= 0) return 0;
    int take = static_cast<int>(std::min<int64_t>(want, left));
    if (issued_.compare_exchange_weak(issued, issued + take, std::memory_order_relaxed)) {
      return take;
    }
  }
}

void RunState::Unclaim(int n) { issued_.fetch_sub(n, std::memory_order_relaxed); }

void RunState::Finish(int64_t n) {
  int64_t total = finished_.fetch_add(n, std::memory_order_acq_rel) + n;
  if (total >= options_.requests) MarkDone();
}

void RunState::MarkDone() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (done_.load(std::memory_order_relaxed)) return;
    end_us_ = MonotonicMicros();
    done_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
  for (Worker* w : workers_) w->Wake();
}

bool RunState::WaitDone(int timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return done(); });
  return done();
}

// ---------------------------------------------------------------------------------------------
// Worker

struct Worker::Client {
  uint32_t index = 0;  // in clients_, and the epoll event id
  int id = 0;
  int fd = -1;
  Endpoint endpoint;
  // The pipeline as this client sends it: its own copy when placeholders are rewritten per
  // client or per request, else the shared bytes (a large -d times many clients adds up).
  std::string own_out;
  char* out = nullptr;
  size_t out_len = 0;  // bytes of the batch in flight
  size_t written = 0;
  bool watching_writable = false;
  std::unique_ptr<char[]> in;
  size_t in_cap = 0;
  size_t in_len = 0;
  int batch = 0;    // requests in the batch in flight
  int pending = 0;  // replies still expected
  int redirects = 0;
  bool asked = false;         // an ASK among the redirects
  bool cluster_down = false;  // a CLUSTERDOWN among them
  int64_t start_us = 0;
  int64_t latency_us = -1;  // set at the batch's first reply
  size_t slot_cursor = 0;   // which of the node's slots the tag names
  uint64_t cluster_version = 0;
};

Worker::Worker(RunState* run, uint64_t seed)
    : run_(run),
      options_(run->options()),
      histogram_(MakeLatencyHistogram(run->options().precision)),
      random_state_(seed) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u32 = kWakeId;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  run_->AddWorker(this);
}

Worker::~Worker() {
  for (auto& c : clients_) {
    if (c->fd >= 0) close(c->fd);
  }
  close(wake_fd_);
  close(epoll_fd_);
}

void Worker::AddClient(int fd, const Endpoint& endpoint, int id) {
  auto c = std::make_unique<Client>();
  c->index = static_cast<uint32_t>(clients_.size());
  c->id = id;
  c->fd = fd;
  c->endpoint = endpoint;
  const RequestTemplate& pipeline = run_->pipeline();
  if (pipeline.rand_offsets.empty() && pipeline.tag_offsets.empty()) {
    c->out = const_cast<char*>(pipeline.bytes.data());  // never written to
  } else {
    c->own_out = pipeline.bytes;
    c->out = c->own_out.data();
  }
  c->in_cap = kInitialInputSize;
  c->in.reset(new char[c->in_cap]);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u32 = c->index;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  clients_.push_back(std::move(c));
  if (run_->cluster() != nullptr) ApplySlotTag(*clients_.back());
}

void Worker::Wake() {
  uint64_t one = 1;
  ssize_t n = write(wake_fd_, &one, sizeof(one));
  (void)n;
}

uint64_t Worker::NextRandom() {
  // splitmix64: fast, and good enough to spread keys evenly over the keyspace.
  uint64_t z = (random_state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void Worker::Run() {
  for (auto& c : clients_) StartBatch(*c);
  epoll_event events[256];
  while (!run_->done()) {
    int n = epoll_wait(epoll_fd_, events, 256, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      Die(std::string("epoll_wait: ") + strerror(errno));
    }
    for (int i = 0; i < n; ++i) {
      uint32_t id = events[i].data.u32;
      if (id == kWakeId) {
        uint64_t value;
        ssize_t r = read(wake_fd_, &value, sizeof(value));
        (void)r;
        continue;
      }
      Client& c = *clients_[id];
      if (events[i].events & EPOLLOUT) Flush(c);
      if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) OnReadable(c);
    }
  }
}

void Worker::StartBatch(Client& c) {
  int take = run_->Claim(options_.pipeline);
  c.batch = take;
  c.pending = take;
  if (take == 0) return;
  c.out_len = take * run_->request_size();
  if (options_.random_keys) {
    uint64_t keyspace = std::max<int64_t>(options_.keyspace, 1);
    for (uint32_t off : run_->pipeline().rand_offsets) {
      if (off >= c.out_len) break;
      WriteRandInt(&c.out[off], NextRandom() % keyspace);
    }
  }
  c.written = 0;
  c.redirects = 0;
  c.asked = false;
  c.cluster_down = false;
  c.latency_us = -1;
  c.start_us = MonotonicMicros();
  Flush(c);
}

void Worker::Flush(Client& c) {
  while (c.written < c.out_len) {
    ssize_t n = send(c.fd, c.out + c.written, c.out_len - c.written, MSG_NOSIGNAL);
    if (n > 0) {
      c.written += n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      WatchWritable(c, true);
      return;
    }
    Die(std::string("Writing to socket: ") + strerror(errno));
  }
  if (c.watching_writable) WatchWritable(c, false);
}

void Worker::WatchWritable(Client& c, bool on) {
  epoll_event ev{};
  ev.events = on ? (EPOLLIN | EPOLLOUT) : EPOLLIN;
  ev.data.u32 = c.index;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c.fd, &ev);
  c.watching_writable = on;
}

void Worker::OnReadable(Client& c) {
  if (c.in_len == c.in_cap) {
    std::unique_ptr<char[]> bigger(new char[c.in_cap * 2]);
    memcpy(bigger.get(), c.in.get(), c.in_len);
    c.in = std::move(bigger);
    c.in_cap *= 2;
  }
  ssize_t n = read(c.fd, c.in.get() + c.in_len, c.in_cap - c.in_len);
  if (n == 0) Die("Error: Server closed the connection");
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
    Die(std::string("Error: ") + strerror(errno));
  }
  c.in_len += n;
  size_t pos = 0;
  bool batch_done = false;
  while (pos < c.in_len) {
    size_t used = 0;
    bool is_error = false;
    bool is_push = c.in[pos] == '>';  // RESP3 push (tracking invalidation): not a reply
    auto result =
        reader_.Parse(c.in.get() + pos, c.in_len - pos, &used, nullptr, &is_error, &error_text_);
    if (result == tools::RespReader::Result::kIncomplete) break;
    if (result == tools::RespReader::Result::kError) Die("Error: Protocol error");
    pos += used;
    if (is_push || c.pending == 0) continue;
    if (c.latency_us < 0) c.latency_us = MonotonicMicros() - c.start_us;
    if (is_error) OnErrorReply(c, error_text_);
    if (--c.pending == 0) {
      batch_done = true;
      break;
    }
  }
  if (pos == c.in_len) {
    c.in_len = 0;
  } else if (pos > 0) {
    memmove(c.in.get(), c.in.get() + pos, c.in_len - pos);
    c.in_len -= pos;
  }
  if (batch_done) FinishBatch(c);
}

void Worker::OnErrorReply(Client& c, const std::string& text) {
  bool cluster = run_->cluster() != nullptr;
  // Redirects are followed only when the keys carry a slot tag this tool can change.
  if (cluster && !run_->pipeline().tag_offsets.empty()) {
    if (StartsWith(text, "MOVED") || StartsWith(text, "ASK")) {
      ++c.redirects;
      c.asked = c.asked || StartsWith(text, "ASK");
      return;
    }
    if (StartsWith(text, "CLUSTERDOWN")) {
      printf("Error from server %s: %s.\n", c.endpoint.Describe().c_str(), text.c_str());
      ++c.redirects;
      c.cluster_down = true;
      return;
    }
  }
  std::string where = cluster ? " " + c.endpoint.Describe() : "";
  Die("Error from server" + where + ": " + text);
}

void Worker::FinishBatch(Client& c) {
  int served = c.batch - c.redirects;
  if (served > 0) {
    histogram_.Record(c.latency_us, served);
    latency_sum_us_.store(latency_sum_us_.load(std::memory_order_relaxed) + c.latency_us * served,
                          std::memory_order_relaxed);
    latency_count_.store(latency_count_.load(std::memory_order_relaxed) + served,
                         std::memory_order_relaxed);
  }
  if (c.redirects > 0) {
    run_->Unclaim(c.redirects);
    Retarget(c);
  }
  if (served > 0) {
    run_->Finish(served);
    if (run_->done()) return;
  }
  if (options_.keepalive == 0) Reconnect(c);
  StartBatch(c);
}

void Worker::Reconnect(Client& c) {
  close(c.fd);  // also drops it from the epoll set
  std::string error;
  c.fd = OpenBenchmarkConnection(c.endpoint, run_->handshake(), &error);
  if (c.fd < 0) Die(error);
  c.in_len = 0;
  c.watching_writable = false;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u32 = c.index;
  epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, c.fd, &ev);
}

void Worker::ApplySlotTag(Client& c) {
  ClusterMap* cluster = run_->cluster();
  c.cluster_version = cluster->version();
  std::vector<int> slots = cluster->SlotsOf(c.endpoint.host, c.endpoint.port);
  if (slots.empty()) {
    // The node lost all its slots (or left): move to a primary that has some.
    std::vector<ClusterNode> primaries = cluster->Primaries();
    std::erase_if(primaries, [](const ClusterNode& n) { return n.slots.empty(); });
    if (primaries.empty()) Die("Error: the cluster has no node serving slots");
    const ClusterNode& node = primaries[c.id % primaries.size()];
    c.endpoint = Endpoint{node.ip, node.port, ""};
    Reconnect(c);
    slots = node.slots;
  }
  std::string_view tag = SlotTag(slots[c.slot_cursor % slots.size()]);
  for (uint32_t off : run_->pipeline().tag_offsets) WriteSlotTag(&c.out[off], tag);
}

void Worker::Retarget(Client& c) {
  if (c.cluster_down) sleep(1);  // a cluster usually recovers by itself: give it a moment
  run_->cluster()->Refresh(c.endpoint, options_, c.cluster_version);
  // ASK: the slot is moving away; use the node's next slot rather than chase the move.
  if (c.asked) ++c.slot_cursor;
  ApplySlotTag(c);
}

}  // namespace vireo::benchmark
