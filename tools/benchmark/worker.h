// The benchmark engine: worker threads, each an epoll loop over its share of non-blocking
// connections. A client sends its prebuilt pipeline with one write, counts the replies with
// the delimiting fast path of the RESP reader, and records one latency per request into the
// thread's own histogram.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "benchmark/cluster.h"
#include "benchmark/endpoint.h"
#include "benchmark/histogram.h"
#include "benchmark/options.h"
#include "benchmark/request.h"
#include "common/resp_reader.h"

namespace vireo::benchmark {

class Worker;

// What the workers of one test share. Requests are claimed before they are sent and counted
// when their replies arrive, so exactly `requests` complete whatever -c, -P and --threads are.
class RunState {
 public:
  RunState(const Options& options, const RequestTemplate& one_request, Handshake handshake,
           ClusterMap* cluster);

  const Options& options() const { return options_; }
  const RequestTemplate& pipeline() const { return pipeline_; }
  size_t request_size() const { return request_size_; }
  const Handshake& handshake() const { return handshake_; }
  ClusterMap* cluster() const { return cluster_; }

  // Claims up to `want` requests to send; 0 once all are claimed.
  int Claim(int want);
  // Gives back claimed requests that were not served (redirected), to be sent again.
  void Unclaim(int n);
  // Counts completed requests; the one that completes the run marks it done.
  void Finish(int64_t n);
  int64_t finished() const { return finished_.load(std::memory_order_relaxed); }

  bool done() const { return done_.load(std::memory_order_acquire); }
  // Waits until done or until timeout_ms passed; returns done().
  bool WaitDone(int timeout_ms);
  // Monotonic microseconds at which the last request completed.
  int64_t end_us() const { return end_us_; }

  void AddWorker(Worker* worker) { workers_.push_back(worker); }

 private:
  void MarkDone();

  const Options& options_;
  RequestTemplate pipeline_;
  size_t request_size_;
  Handshake handshake_;
  ClusterMap* cluster_;
  std::vector<Worker*> workers_;
  alignas(64) std::atomic<int64_t> issued_{0};
  alignas(64) std::atomic<int64_t> finished_{0};
  alignas(64) std::atomic<bool> done_{false};
  int64_t end_us_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
};

class Worker {
 public:
  Worker(RunState* run, uint64_t seed);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Takes a socket from OpenBenchmarkConnection to `endpoint`; `id` numbers the client
  // across all workers (it picks the client's node if its own loses its slots).
  void AddClient(int fd, const Endpoint& endpoint, int id);
  // Drives the clients until the run is done.
  void Run();
  // Makes Run notice that the run is done (any thread).
  void Wake();

  const LatencyHistogram& histogram() const { return histogram_; }
  // Progress counters for the live line, read from the main thread while Run goes on.
  int64_t latency_sum_us() const { return latency_sum_us_.load(std::memory_order_relaxed); }
  int64_t latency_count() const { return latency_count_.load(std::memory_order_relaxed); }

 private:
  struct Client;

  void StartBatch(Client& c);
  void Flush(Client& c);
  void WatchWritable(Client& c, bool on);
  void OnReadable(Client& c);
  void OnErrorReply(Client& c, const std::string& text);
  void FinishBatch(Client& c);
  void Reconnect(Client& c);
  void ApplySlotTag(Client& c);
  void Retarget(Client& c);
  uint64_t NextRandom();

  RunState* run_;
  const Options& options_;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::vector<std::unique_ptr<Client>> clients_;
  tools::RespReader reader_;
  std::string error_text_;
  LatencyHistogram histogram_;
  uint64_t random_state_;
  std::atomic<int64_t> latency_sum_us_{0};
  std::atomic<int64_t> latency_count_{0};
};

// Monotonic clock in microseconds.
int64_t MonotonicMicros();

}  // namespace vireo::benchmark
