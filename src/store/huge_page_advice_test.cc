#include "store/huge_page_advice.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "common/huge_pages.h"

namespace vireo {
namespace {

void* At(uintptr_t a) { return reinterpret_cast<void*>(a); }

TEST(HugePageAdvice, ExtentsOfAGrowingArenaWaitForItToBeQuiet) {
  HugePageAdvice advice(1000);
  EXPECT_TRUE(advice.OnExtentMapped(At(0x200000), 0x200000, 5000));  // the first: quiet
  EXPECT_TRUE(advice.OnExtentMapped(At(0x400000), 0x200000, 6000));  // 1 s later: quiet
  EXPECT_FALSE(advice.OnExtentMapped(At(0x600000), 0x400000, 6500));  // growing
  EXPECT_FALSE(advice.OnExtentMapped(At(0xa00000), 0x600000, 6900));
  EXPECT_EQ(advice.RememberedBytes(), 0xa00000u);
  // Quiet is counted from the last extent.
  EXPECT_TRUE(advice.TakeIfQuiet(7899).empty());
  std::vector<PageRange> taken = advice.TakeIfQuiet(7900);
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0].begin, 0x600000u);
  EXPECT_EQ(taken[0].end, 0xa00000u);
  EXPECT_EQ(taken[1].begin, 0xa00000u);
  EXPECT_EQ(taken[1].end, 0x1000000u);
  EXPECT_EQ(advice.RememberedBytes(), 0u);
  EXPECT_TRUE(advice.TakeIfQuiet(9000).empty());
  // Handed back: taken again after the next quiet spell.
  advice.Remember({taken[1]});
  EXPECT_EQ(advice.RememberedBytes(), 0x600000u);
  // Not taken again while the arena does not grow: the sparse parts stay sparse.
  EXPECT_TRUE(advice.TakeIfQuiet(9100).empty());
  EXPECT_TRUE(advice.TakeIfQuiet(9400).empty());
  EXPECT_TRUE(advice.OnExtentMapped(At(0x2000000), 0x200000, 9500));   // quiet since 6900
  EXPECT_FALSE(advice.OnExtentMapped(At(0x2200000), 0x200000, 9600));  // growing again
  EXPECT_TRUE(advice.TakeIfQuiet(10000).empty());
  EXPECT_EQ(advice.TakeIfQuiet(10600).size(), 2u);
}

// Four huge pages of memory: two written whole, one an eighth short of it, one untouched.
// The dense ones are collapsed; the others come back, merged into one range.
TEST(HugePageAdvice, CollapsesTheResidentPartsAndKeepsTheSparseOnes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t map = 6 * kHugePageSize;
  auto* raw = static_cast<char*>(
      mmap(nullptr, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(raw, MAP_FAILED);
  const uintptr_t base = (reinterpret_cast<uintptr_t>(raw) + kHugePageSize - 1) &
                         ~(uintptr_t{kHugePageSize} - 1);
  char* p = reinterpret_cast<char*>(base);
  for (size_t i = 0; i < 2 * kHugePageSize; i += page) p[i] = static_cast<char>(i / page);
  const size_t sparse = kHugePageSize - kHugePageSize / 8 - page;  // just under 7/8
  for (size_t i = 0; i < sparse; i += page) p[2 * kHugePageSize + i] = 1;
  // The range starts inside a huge page: that head is left alone.
  const std::vector<PageRange> ranges = {{base - page, base + 4 * kHugePageSize}};
  size_t collapsed = 0;
  bool unsupported = false;
  const std::vector<PageRange> left = CollapseResident(ranges, &collapsed, &unsupported);
  if (unsupported) {
    munmap(raw, map);
    GTEST_SKIP() << "MADV_COLLAPSE is not supported here (Linux < 6.1, THP off, or qemu)";
  }
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].begin, base + 2 * kHugePageSize);
  EXPECT_EQ(left[0].end, base + 4 * kHugePageSize);
  EXPECT_LE(collapsed, 2u);  // 2 unless the kernel had no free huge page just now
  RecordProperty("collapsed", static_cast<int>(collapsed));
  for (size_t i = 0; i < 2 * kHugePageSize; i += page) {
    ASSERT_EQ(p[i], static_cast<char>(i / page)) << i;  // contents kept
  }
  munmap(raw, map);
}

}  // namespace
}  // namespace vireo
