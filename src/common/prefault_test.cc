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
    // (qemu-user answers madvise without passing it to the kernel.)
    munmap(p, size);
    GTEST_SKIP() << "madvise(MADV_POPULATE_WRITE) is not supported here (Linux < 5.14 or qemu)";
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
  const size_t n = 2 * kPrefaultProbeEvery + 2;
  auto* p = static_cast<unsigned char*>(mmap(nullptr, n * size, PROT_READ | PROT_WRITE,
                                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(p, MAP_FAILED);
  if (!PrefaultPages(p, page) || !PageResident(p)) {
    // (qemu-user answers madvise without passing it to the kernel.)
    munmap(p, n * size);
    GTEST_SKIP() << "madvise(MADV_POPULATE_WRITE) is not supported here (Linux < 5.14 or qemu)";
  }
  EXPECT_TRUE(PageResident(p));
  EXPECT_FALSE(PageResident(p + size));
  // Fresh blocks: each one is made resident whole.
  PrefaultIfFresh(p + size, size);
  EXPECT_EQ(ResidentPages(p + size, size), 8u);
  PrefaultIfFresh(p + 2 * size, size);
  EXPECT_EQ(ResidentPages(p + 2 * size, size), 8u);
  // A block found resident: the next kPrefaultProbeEvery - 1 calls look at nothing, even at
  // fresh blocks, and the one after probes again.
  PrefaultIfFresh(p, size);
  for (size_t i = 3; i < 3 + kPrefaultProbeEvery - 1; ++i) {
    PrefaultIfFresh(p + i * size, size);
    EXPECT_EQ(ResidentPages(p + i * size, size), 0u) << i;
  }
  PrefaultIfFresh(p + (n - 1) * size, size);
  EXPECT_EQ(ResidentPages(p + (n - 1) * size, size), 8u);
  munmap(p, n * size);
}

}  // namespace
}  // namespace vireo
