#include "store/memory.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "common/vm_flags.h"
#include "store/huge_page_advice.h"
#include "store/malloc_count.h"

namespace vireo {
namespace {

// A block parsed on an I/O thread and freed by the execution thread must not show as a drop
// in usage: only the sum over both threads balances.
TEST(TrackedAllocations, FollowValuesThatMoveBetweenThreads) {
  if (!TrackThreadAllocations()) GTEST_SKIP() << "no per-thread counters (a sanitizer build)";
  EXPECT_TRUE(TrackThreadAllocations());  // again: a no-op
  // The tracked thread must outlive every reading of its counters.
  std::promise<void*> parsed;
  std::promise<void> finished;
  std::thread io([&] {
    TrackThreadAllocations();
    parsed.set_value(ZMalloc(1 << 20));
    finished.get_future().wait();
  });
  void* block = parsed.get_future().get();
  int64_t before = 0;
  ASSERT_TRUE(TrackedAllocationBalance(&before));
  void* mine = ZMalloc(1 << 20);
  int64_t grown = 0;
  ASSERT_TRUE(TrackedAllocationBalance(&grown));
  EXPECT_GE(grown - before, 1 << 20);
  ZFree(mine);
  ZFree(block);
  int64_t after = 0;
  ASSERT_TRUE(TrackedAllocationBalance(&after));
  // Both megabytes left, one of them allocated by the other thread.
  EXPECT_LE(after - before, -(1 << 20) + 4096);
  EXPECT_GE(after - before, -(2 << 20) - 4096);
  finished.set_value();
  io.join();
}

// used_memory must follow the data with libc (our count) as with jemalloc (stats.allocated).
TEST(UsedMemory, FollowsALargeAllocation) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers' allocator keeps no libc statistics";
#endif
  constexpr size_t kSize = 4 << 20;
  const size_t before = UsedMemory();
  void* block = ZMalloc(kSize);
  EXPECT_GE(ZMallocSize(block), kSize);
  const size_t grown = UsedMemory();
  // Slack: the allocation may flush this thread's cache of freed small blocks (jemalloc's
  // tcache counts them allocated until then), which earlier tests filled.
  constexpr size_t kSlack = 256 << 10;
  EXPECT_GE(grown + kSlack, before + kSize) << before << " " << grown;
  ZFree(block);
  EXPECT_LE(UsedMemory(), grown - kSize);
}

// With libc, used_memory is our count of glibc's blocks (mallinfo2 was too slow to read per
// command): it must see every caller, not only ZMalloc, and what a finished thread left.
TEST(UsedMemory, LibcCountSeesEveryCallerAndFinishedThreads) {
#ifndef VIREO_COUNT_MALLOC
  GTEST_SKIP() << "jemalloc or a sanitizer keeps this figure";
#else
  constexpr size_t kSize = 3 << 20;
  constexpr size_t kSlack = 64 << 10;  // what starting a thread allocates, and such
  const size_t before = UsedMemory();
  char* bytes = new char[kSize];
  asm volatile("" : : "r"(bytes) : "memory");  // the pair must not be optimized away
  EXPECT_GE(UsedMemory(), before + kSize);
  void* block = nullptr;
  std::thread([&] { block = std::malloc(kSize); }).join();
  EXPECT_GE(UsedMemory(), before + 2 * kSize);
  block = std::realloc(block, 2 * kSize);
  EXPECT_GE(UsedMemory(), before + 3 * kSize);
  EXPECT_LE(UsedMemory(), before + 3 * kSize + kSlack);
  delete[] bytes;
  std::free(block);
  EXPECT_LE(UsedMemory(), before + kSlack);
  EXPECT_GE(UsedMemory() + kSlack, before);
#endif
}

TEST(AllocatorName, IsValkeysSpelling) {
  const std::string name = AllocatorName();
#ifdef VIREO_USE_JEMALLOC
  EXPECT_EQ(name.rfind("jemalloc-", 0), 0u) << name;
  EXPECT_EQ(name.find('-', 9), std::string::npos) << "no git suffix: " << name;
#else
  EXPECT_EQ(name, "libc");
#endif
}

// On a thread bound to the huge-page arena (as the execution thread), `count` blocks of `size`
// bytes from `alloc`, each filled with its index; *flags: the VmFlags of the last one's
// mapping. False without the arena (no jemalloc). The blocks are checked and freed here, on
// another thread than the one that allocated them.
bool ArenaBlocks(void* (*alloc)(size_t), size_t size, size_t count, std::string* flags) {
  bool bound = false;
  std::vector<char*> blocks;
  std::thread execution([&] {
    bound = UseHugePageArena();
    if (!bound) return;
    EXPECT_TRUE(UseHugePageArena());  // again: the same arena
    for (size_t i = 0; i < count; ++i) {
      auto* b = static_cast<char*>(alloc(size));
      std::memset(b, static_cast<int>(i & 0xff), size);
      blocks.push_back(b);
    }
    *flags = VmFlagsOf(reinterpret_cast<uintptr_t>(blocks.back()));
  });
  execution.join();
  for (size_t i = 0; i < blocks.size(); i += 97) {
    EXPECT_EQ(blocks[i][size - 1], static_cast<char>(i & 0xff)) << i;
  }
  for (char* b : blocks) ZFree(b);
  return bound;
}

// The execution thread's blocks come from an arena whose extents past its first two get huge
// pages: advised at once while the arena grows slowly, collapsed once it stops growing fast
// (store/huge_page_advice.h). They are ordinary blocks otherwise, freed from any thread.
TEST(HugePageArena, AGrowingArenaGetsHugePagesOnceQuiet) {
  std::string flags;
  // 16 MiB of small blocks at once, as a keyspace's entries: past the two unadvised extents,
  // and fast enough that the later extents are left for the collapse.
  if (!ArenaBlocks(&ZMalloc, 48, (size_t{16} << 20) / 48, &flags)) {
    GTEST_SKIP() << "no huge-page arena (no jemalloc, or huge pages off): " << AllocatorName();
  }
  EXPECT_EQ(flags.find(" hg"), std::string::npos) << flags;
  EXPECT_GT(ReadHugePageArenaFigures().remembered, size_t{4} << 20);
  // Quiet from now on: the next cron after kGrowthQuietMs hands them to the collapse thread,
  // which takes what is still resident and keeps the rest (the blocks are freed by now).
  std::this_thread::sleep_for(std::chrono::milliseconds(kGrowthQuietMs + 100));
  HugePageArenaCron();
  for (int i = 0; i < 500 && ReadHugePageArenaFigures().collapsing; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(ReadHugePageArenaFigures().collapsing);
  RecordProperty("collapsed", static_cast<int>(ReadHugePageArenaFigures().collapsed));
  RecordProperty("vmflags", flags);
}

// Large values have an arena of their own, advised as it grows: 16 MiB of 16 KB blocks from
// ZMallocValue on the execution thread end in memory marked "hg", outside the entries' arena
// (whose extents mapped this fast are left for the collapse, as the test above shows).
TEST(HugePageArena, LargeValuesGetHugePagesAsTheyGrow) {
  std::string flags;
  if (!ArenaBlocks(&ZMallocValue, 16384, 1024, &flags)) {
    GTEST_SKIP() << "no huge-page arena (no jemalloc, or huge pages off): " << AllocatorName();
  }
  // Only checked natively on x86-64: the ARM builds run their tests under qemu-user, which
  // answers madvise's advice without passing it to the kernel.
#if defined(__x86_64__)
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
#endif
  RecordProperty("vmflags", flags);
}

TEST(AllocatorBackgroundThreads, FollowTheSetting) {
#ifdef VIREO_USE_JEMALLOC
  EXPECT_TRUE(SetAllocatorBackgroundThreads(true));
  EXPECT_TRUE(SetAllocatorBackgroundThreads(false));
#else
  EXPECT_FALSE(SetAllocatorBackgroundThreads(true));
#endif
}

}  // namespace
}  // namespace vireo
