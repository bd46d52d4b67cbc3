// The I/O threads of `io-threads N`: N-1 workers that, together with the calling (execution)
// thread, run one batch of independent jobs at a time and return when all are done. A batch
// is fork-join: while Run is inside a batch the jobs' objects belong to the threads running
// them; before Run returns every worker has finished, so the caller owns everything again.
// Knows nothing of clients: a job is an index handed to a plain function.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace vireo {

class IoThreadPool {
 public:
  using JobFn = void (*)(void* ctx, size_t index);

  // Starts workers threads (at least 1). Idle workers sleep on a futex (std::atomic::wait,
  // after its short bounded spin), so threads beyond the cores cost no CPU.
  explicit IoThreadPool(int workers);
  ~IoThreadPool();
  IoThreadPool(const IoThreadPool&) = delete;
  IoThreadPool& operator=(const IoThreadPool&) = delete;

  int workers() const { return static_cast<int>(workers_.size()); }

  // Runs fn(ctx, i) for every i in [0, n), spread round-robin over `threads` participants
  // (the caller and threads-1 workers; clamped to 1..workers()+1); returns once all are done.
  // The first participant rotates from batch to batch, so single jobs reach the workers too.
  // Returns how many jobs the workers ran (the caller ran the rest).
  size_t Run(size_t n, int threads, JobFn fn, void* ctx);

 private:
  struct alignas(64) Worker {
    std::atomic<uint32_t> generation{0};  // bumped by Run to hand over a share
    JobFn fn = nullptr;
    void* ctx = nullptr;
    size_t first = 0;   // first job index of this worker's share
    size_t stride = 1;  // participants in the batch
    size_t n = 0;
    std::thread thread;
  };
  void WorkerLoop(Worker* w);

  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<uint32_t> pending_{0};  // workers still running their share
  std::atomic<bool> stop_{false};
  size_t rotation_ = 0;
};

}  // namespace vireo
