#include "common/prefault.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace vireo {
namespace {

// Pages of [p, p + size) that are resident, as mincore sees them.
size_t ResidentPages(void* p, size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> present((size + page - 1) / page);
  if (mincore(p, size, present.data()) != 0) return 0;
  size_t n = 0;
  for (unsigned char v : present) n += v & 1;
  return n;
}

// Fresh anonymous memory of `size` bytes whose first page a PrefaultPages call made resident;
// nullptr (unmapped again) where the system cannot prefault: the caller skips.
unsigned char* MapWithPrefaultedFirstPage(size_t size) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto* p = static_cast<unsigned char*>(
      mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (p == MAP_FAILED) return nullptr;
  if (!PrefaultPages(p, page) || !PageResident(p)) {
    // (qemu-user answers madvise without passing it to the kernel.)
    munmap(p, size);
    return nullptr;
  }
  return p;
}

constexpr const char* kNoPrefault =
    "madvise(MADV_POPULATE_WRITE) is not supported here (Linux < 5.14 or qemu)";

TEST(Prefault, NullOrEmptyRangesAreLeftAlone) {
  EXPECT_FALSE(PrefaultPages(nullptr, kPrefaultMin));
  char c = 0;
  EXPECT_FALSE(PrefaultPages(&c, 0));
}

TEST(Prefault, FreshPagesBecomeResidentAndKeepTheirContents) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t size = 16 * page;
  auto* p = static_cast<unsigned char*>(
      mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(p, MAP_FAILED);
  p[3 * page] = 7;  // one page already present
  ASSERT_EQ(ResidentPages(p, size), 1u);
  // An unaligned range inside: the pages it touches, edges included, become present.
  if (!PrefaultPages(p + page + 100, 10 * page) || ResidentPages(p, size) == 1) {
    munmap(p, size);  // (qemu-user answers madvise without passing it to the kernel)
    GTEST_SKIP() << kNoPrefault;
  }
  EXPECT_EQ(ResidentPages(p, size), 11u);
  EXPECT_EQ(p[3 * page], 7);
  for (size_t i = page; i < 12 * page; i++) {
    if (i != 3 * page) {
      ASSERT_EQ(p[i], 0) << i;
    }
  }
  munmap(p, size);
}

TEST(Prefault, FreshMemoryIsPrefaultedAndReusedMemoryOnlyProbedNowAndThen) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t size = 8 * page;
  const size_t n = 80;
  unsigned char* p = MapWithPrefaultedFirstPage(n * size);
  if (p == nullptr) GTEST_SKIP() << kNoPrefault;
  EXPECT_TRUE(PageResident(p));
  EXPECT_FALSE(PageResident(p + size));
  ASSERT_TRUE(PrefaultPages(p, size));  // block 0: the reused one
  size_t next = 1;  // the next fresh block
  // The thread's backoff may be anything after other tests' allocations: calls on fresh
  // blocks end it within kPrefaultProbeEvery calls.
  for (unsigned i = 0; i < kPrefaultProbeEvery; ++i) {
    PrefaultIfFresh(p + next * size, size);
    if (ResidentPages(p + next++ * size, size) != 0) break;
  }
  ASSERT_EQ(ResidentPages(p + (next - 1) * size, size), 8u);
  auto fresh_call = [&](size_t expect_pages) {
    PrefaultIfFresh(p + next * size, size);
    EXPECT_EQ(ResidentPages(p + next * size, size), expect_pages) << next;
    ++next;
  };
  // Fresh blocks: each one is made resident whole.
  fresh_call(8);
  fresh_call(8);
  // Reused memory found again and again: the calls skipped after each probe double (0, 1,
  // 3, 7, ... up to kPrefaultProbeEvery - 1), skipping fresh blocks too.
  for (unsigned backoff = 1; backoff <= kPrefaultProbeEvery; backoff *= 2) {
    PrefaultIfFresh(p, size);  // probed: resident
    for (unsigned i = 1; i < backoff; ++i) fresh_call(0);
  }
  PrefaultIfFresh(p, size);  // the backoff stays at its cap
  for (unsigned i = 1; i < kPrefaultProbeEvery; ++i) fresh_call(0);
  // A probe that finds fresh memory prefaults it and ends the backoff: every call probes.
  fresh_call(8);
  fresh_call(8);
  PrefaultIfFresh(p, size);  // one reuse in a growing dataset skips nothing after it
  fresh_call(8);
  ASSERT_LE(next, n);
  munmap(p, n * size);
}

// Small blocks packed in fresh pages: the one found fresh gets the pages after it prefaulted
// too, and the blocks that follow inside them cost no probe.
TEST(Prefault, AheadCoversTheBlocksThatFollow) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t block = page + page / 4;  // blocks that straddle pages
  const size_t ahead = 16 * page;
  const size_t size = 64 * page;
  unsigned char* p = MapWithPrefaultedFirstPage(size);
  if (p == nullptr) GTEST_SKIP() << kNoPrefault;
  // The thread's backoff may be anything after other tests: fresh blocks end it.
  unsigned char* at = p + page;
  for (unsigned i = 0; i <= kPrefaultProbeEvery && !PageResident(at + block - 1); ++i) {
    PrefaultIfFresh(at, block, ahead);
    if (!PageResident(at + block - 1)) at += 2 * block;
  }
  ASSERT_TRUE(PageResident(at + block - 1));
  ASSERT_LT(at + ahead, p + size);
  EXPECT_EQ(ResidentPages(at, ahead), 16u);  // the block and what follows it
  EXPECT_FALSE(PageResident(at + ahead + page));
  munmap(p, size);
}

// A range ahead that runs into a mapping that cannot be populated (an inaccessible guard,
// as past the end of an allocator's mapping) still prefaults the block, and prefaulting goes
// on working afterwards.
TEST(Prefault, AheadIntoAGuardStillPrefaultsTheBlock) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t size = 64 * page;
  unsigned char* p = MapWithPrefaultedFirstPage(size);
  if (p == nullptr) GTEST_SKIP() << kNoPrefault;
  ASSERT_EQ(mprotect(p + 32 * page, 8 * page, PROT_NONE), 0);
  // Fresh blocks until the thread's backoff (from other tests) is over and one is prefaulted;
  // each one's range ahead reaches the guard.
  unsigned char* at = p + 16 * page;
  for (unsigned i = 0; i <= kPrefaultProbeEvery && !PageResident(at); ++i) {
    PrefaultIfFresh(at, page, 24 * page);
    if (!PageResident(at)) at += page;
  }
  ASSERT_LT(at, p + 32 * page);
  EXPECT_TRUE(PageResident(at));
  EXPECT_TRUE(PrefaultPages(p + 48 * page, page));
  EXPECT_TRUE(PageResident(p + 48 * page));
  munmap(p, size);
}

}  // namespace
}  // namespace vireo
