#include "net/io_thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <string>

namespace vireo {

IoThreadPool::IoThreadPool(int workers) {
  workers = std::max(workers, 1);
  for (int i = 0; i < workers; ++i) {
    auto w = std::make_unique<Worker>();
    Worker* raw = w.get();
    w->thread = std::thread([this, raw] { WorkerLoop(raw); });
    std::string name = "io_thd_" + std::to_string(i + 1);  // as Valkey names them
    pthread_setname_np(w->thread.native_handle(), name.c_str());
    workers_.push_back(std::move(w));
  }
}

IoThreadPool::~IoThreadPool() {
  stop_.store(true, std::memory_order_release);
  for (auto& w : workers_) {
    w->generation.fetch_add(1, std::memory_order_release);
    w->generation.notify_one();
  }
  for (auto& w : workers_) w->thread.join();
}

size_t IoThreadPool::Run(size_t n, int threads, JobFn fn, void* ctx) {
  if (n == 0) return 0;
  const size_t t = static_cast<size_t>(std::clamp(threads, 1, workers() + 1));
  if (t == 1) {
    for (size_t i = 0; i < n; ++i) fn(ctx, i);
    return 0;
  }
  // Job i goes to participant (i + rot) % t; participant 0 is the caller.
  const size_t rot = rotation_++ % t;
  auto first_of = [&](size_t p) { return (p + t - rot) % t; };
  uint32_t handed = 0;
  for (size_t p = 1; p < t; ++p) {
    if (first_of(p) < n) ++handed;
  }
  pending_.store(handed, std::memory_order_relaxed);
  size_t by_workers = 0;
  for (size_t p = 1; p < t; ++p) {
    size_t first = first_of(p);
    if (first >= n) continue;
    Worker* w = workers_[p - 1].get();
    w->fn = fn;
    w->ctx = ctx;
    w->first = first;
    w->stride = t;
    w->n = n;
    by_workers += (n - first + t - 1) / t;
    // The release publishes the share (and everything the caller wrote before Run).
    w->generation.fetch_add(1, std::memory_order_release);
    w->generation.notify_one();
  }
  for (size_t i = first_of(0); i < n; i += t) fn(ctx, i);
  // The acquire makes the workers' writes visible before the caller reads them.
  for (uint32_t left; (left = pending_.load(std::memory_order_acquire)) != 0;) {
    pending_.wait(left, std::memory_order_acquire);
  }
  return by_workers;
}

void IoThreadPool::WorkerLoop(Worker* w) {
  uint32_t seen = 0;
  for (;;) {
    // std::atomic::wait spins briefly, then sleeps in the kernel: an idle worker costs
    // nothing, so more threads than cores cannot starve the execution thread.
    w->generation.wait(seen, std::memory_order_acquire);
    seen = w->generation.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_acquire)) return;
    for (size_t i = w->first; i < w->n; i += w->stride) w->fn(w->ctx, i);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

}  // namespace vireo
