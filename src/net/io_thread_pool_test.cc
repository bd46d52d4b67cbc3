#include "net/io_thread_pool.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace vireo {
namespace {

struct Batch {
  std::vector<int> runs;                // times each job ran
  std::vector<std::thread::id> runner;  // which thread ran it
};

void Job(void* ctx, size_t i) {
  auto* b = static_cast<Batch*>(ctx);
  ++b->runs[i];
  b->runner[i] = std::this_thread::get_id();
}

Batch RunBatch(IoThreadPool& pool, size_t n, int threads, size_t* by_workers) {
  Batch b;
  b.runs.assign(n, 0);
  b.runner.assign(n, std::thread::id());
  *by_workers = pool.Run(n, threads, &Job, &b);
  return b;
}

TEST(IoThreadPoolTest, EveryJobRunsOnceForAnyBatchSize) {
  IoThreadPool pool(3);
  for (size_t n = 0; n < 40; ++n) {
    for (int threads = 1; threads <= 5; ++threads) {
      size_t by_workers = 0;
      Batch b = RunBatch(pool, n, threads, &by_workers);
      size_t off_caller = 0;
      for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(b.runs[i], 1) << "n=" << n << " threads=" << threads << " i=" << i;
        if (b.runner[i] != std::this_thread::get_id()) ++off_caller;
      }
      EXPECT_EQ(by_workers, off_caller);
      if (threads == 1) {
        EXPECT_EQ(by_workers, 0u);
      }
    }
  }
}

TEST(IoThreadPoolTest, SpreadsOverWorkersAndRotatesSingleJobs) {
  IoThreadPool pool(3);
  size_t by_workers = 0;
  Batch b = RunBatch(pool, 400, 4, &by_workers);
  EXPECT_EQ(by_workers, 300u);  // round-robin over the caller and 3 workers
  // A batch of one job lands on a worker three times out of four.
  size_t single_by_workers = 0;
  for (int i = 0; i < 8; ++i) {
    size_t w = 0;
    RunBatch(pool, 1, 4, &w);
    single_by_workers += w;
  }
  EXPECT_EQ(single_by_workers, 6u);
}

TEST(IoThreadPoolTest, StopsIdleWorkers) {
  for (int i = 0; i < 20; ++i) {
    IoThreadPool pool(4);  // destroyed while idle, with or without a batch run
    if (i % 2 == 0) {
      size_t w = 0;
      RunBatch(pool, 10, 5, &w);
    }
  }
}

}  // namespace
}  // namespace vireo
