#include "store/lazy_free.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "store/memory.h"
#include "store/value.h"

namespace vireo {
namespace {

// The queue is the only state shared with the helper; the lock is taken once per job, off the
// command path of small values.
class LazyFreer {
 public:
  LazyFreer() : thread_([this] { Run(); }) { thread_.detach(); }

  void Push(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back(std::move(job));
      ++pending_;
    }
    cv_.notify_one();
  }

  size_t Pending() const { return pending_.load(std::memory_order_relaxed); }
  size_t Freed() const { return freed_.load(std::memory_order_relaxed); }

  void Drain() {
    std::unique_lock<std::mutex> lock(mu_);
    idle_cv_.wait(lock, [this] { return pending_.load() == 0; });
  }

  void CountFreed() { freed_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void Run() {
    while (true) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !jobs_.empty(); });
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();
      bool idle;
      {
        std::lock_guard<std::mutex> lock(mu_);
        idle = jobs_.empty();
      }
      // Blocks freed here sit in this thread's cache and still count as used until flushed.
      if (idle) FlushThreadCache();
      {
        std::lock_guard<std::mutex> lock(mu_);
        --pending_;
      }
      idle_cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable idle_cv_;
  std::deque<std::function<void()>> jobs_;
  std::atomic<size_t> pending_{0};
  std::atomic<size_t> freed_{0};
  std::thread thread_;
};

LazyFreer& Freer() {
  static LazyFreer* freer = new LazyFreer();  // never destroyed: the thread outlives main
  return *freer;
}

}  // namespace

void LazyFreeEntry(Entry* e) {
  Freer().Push([e] {
    FreeEntry(e);
    Freer().CountFreed();
  });
}

void LazyFreeJob(std::function<void()> job) {
  Freer().Push([job = std::move(job)] {
    job();
    Freer().CountFreed();
  });
}

size_t LazyFreePending() { return Freer().Pending(); }
size_t LazyFreedObjects() { return Freer().Freed(); }
void LazyFreeDrain() { Freer().Drain(); }

}  // namespace vireo
