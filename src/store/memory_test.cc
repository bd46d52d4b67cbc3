#include "store/memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "common/vm_flags.h"
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

// `count` blocks of `size` bytes from `alloc`, each filled with its index, once the values'
// arena is made; *flags: the VmFlags of the last one's mapping. False without the arena (no
// jemalloc, or huge pages off). The blocks are checked and freed on another thread than the
// one that allocated them, as a value parsed on an I/O thread and dropped by the execution
// thread.
bool ArenaBlocks(void* (*alloc)(size_t), size_t size, size_t count, std::string* flags) {
  if (!UseValueArena()) return false;
  EXPECT_TRUE(UseValueArena());  // again: the same arena
  std::vector<char*> blocks;
  std::thread execution([&] {
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
  return true;
}

// Large values have an arena of their own, advised as it grows: 16 MiB of 16 KB blocks from
// ZMallocValue end in memory marked "hg".
TEST(ValueArena, LargeValuesGetHugePagesAsTheyGrow) {
  std::string flags;
  if (!ArenaBlocks(&ZMallocValue, 16384, 1024, &flags)) {
    GTEST_SKIP() << "no values' arena (no jemalloc, or huge pages off): " << AllocatorName();
  }
  // Only checked natively on x86-64: the ARM builds run their tests under qemu-user, which
  // answers madvise's advice without passing it to the kernel.
#if defined(__x86_64__)
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
#endif
  RecordProperty("vmflags", flags);
}

// Everything else stays on jemalloc's ordinary arenas: 16 MiB of small blocks, as a keyspace's
// entries, are on memory nobody advised, however many of them there are.
TEST(ValueArena, SmallBlocksStayOnOrdinaryPages) {
  std::string flags;
  if (!ArenaBlocks(&ZMalloc, 48, (size_t{16} << 20) / 48, &flags)) {
    GTEST_SKIP() << "no values' arena (no jemalloc, or huge pages off): " << AllocatorName();
  }
  EXPECT_EQ(flags.find(" hg"), std::string::npos) << flags;
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
