#include "store/held_pages.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace vireo {
namespace {

constexpr uintptr_t kHuge = kHugePageSize;
constexpr uintptr_t kPage = HeldPages::kPage;
constexpr uintptr_t kBase = uintptr_t{0x40000000};  // 2 MiB aligned, on 32-bit builds too

std::vector<std::pair<uintptr_t, size_t>> g_calls;
void Record(uintptr_t begin, size_t len) { g_calls.emplace_back(begin, len); }

class HeldPagesTest : public ::testing::Test {
 protected:
  void SetUp() override { g_calls.clear(); }
  HeldPages held;
};

TEST_F(HeldPagesTest, PartOfAHugePageIsKeptNotGivenBack) {
  ASSERT_TRUE(held.Hold(kBase + 4 * kPage, kBase + 8 * kPage, Record));
  EXPECT_TRUE(g_calls.empty());
  EXPECT_EQ(held.held_bytes(), 4 * kPage);
}

TEST_F(HeldPagesTest, WholeHugePagesAreGivenBackInOneCallAndTheEdgesKept) {
  ASSERT_TRUE(held.Hold(kBase + kHuge - kPage, kBase + 3 * kHuge + kPage, Record));
  ASSERT_EQ(g_calls.size(), 1u);
  EXPECT_EQ(g_calls[0], std::make_pair(kBase + kHuge, size_t{2 * kHuge}));
  EXPECT_EQ(held.held_bytes(), 2 * kPage);
}

TEST_F(HeldPagesTest, AHugePageCompletedByPiecesIsGivenBackWhole) {
  ASSERT_TRUE(held.Hold(kBase, kBase + kHuge / 2, Record));
  ASSERT_TRUE(held.Hold(kBase + kHuge / 2 + kPage, kBase + kHuge, Record));
  EXPECT_TRUE(g_calls.empty());
  EXPECT_EQ(held.held_bytes(), kHuge - kPage);
  // The last page completes it (and the next huge page's first page stays held).
  ASSERT_TRUE(held.Hold(kBase + kHuge / 2, kBase + kHuge / 2 + kPage, Record));
  ASSERT_EQ(g_calls.size(), 1u);
  EXPECT_EQ(g_calls[0], std::make_pair(kBase, size_t{kHuge}));
  EXPECT_EQ(held.held_bytes(), 0u);
}

TEST_F(HeldPagesTest, TakingBackZeroesOnlyTheHeldRunsAndForgetsThem) {
  ASSERT_TRUE(held.Hold(kBase + 2 * kPage, kBase + 4 * kPage, Record));
  ASSERT_TRUE(held.Hold(kBase + 6 * kPage, kBase + 7 * kPage, Record));
  held.Take(kBase, kBase + 16 * kPage, Record);
  ASSERT_EQ(g_calls.size(), 2u);
  EXPECT_EQ(g_calls[0], std::make_pair(kBase + 2 * kPage, size_t{2 * kPage}));
  EXPECT_EQ(g_calls[1], std::make_pair(kBase + 6 * kPage, size_t{kPage}));
  EXPECT_EQ(held.held_bytes(), 0u);
  g_calls.clear();
  held.Take(kBase, kBase + 16 * kPage, Record);  // nothing held any more
  EXPECT_TRUE(g_calls.empty());
}

TEST_F(HeldPagesTest, TakingPartOfAHeldRangeKeepsTheRest) {
  ASSERT_TRUE(held.Hold(kBase + kHuge - 4 * kPage, kBase + kHuge + 4 * kPage, Record));
  EXPECT_EQ(held.held_bytes(), 8 * kPage);
  held.Take(kBase + kHuge - 2 * kPage, kBase + kHuge + 2 * kPage, Record);
  ASSERT_EQ(g_calls.size(), 2u);  // one run per huge page
  EXPECT_EQ(g_calls[0], std::make_pair(kBase + kHuge - 2 * kPage, size_t{2 * kPage}));
  EXPECT_EQ(g_calls[1], std::make_pair(kBase + kHuge, size_t{2 * kPage}));
  EXPECT_EQ(held.held_bytes(), 4 * kPage);
}

TEST_F(HeldPagesTest, AddressesPastTheTableAreRefusedWithNothingRecorded) {
  if (sizeof(uintptr_t) < 8) GTEST_SKIP() << "every 32-bit address is in the table";
  const auto far = static_cast<uintptr_t>(uint64_t{1} << 49);
  EXPECT_FALSE(held.Hold(far + kPage, far + 2 * kPage, Record));
  EXPECT_EQ(held.held_bytes(), 0u);
  EXPECT_TRUE(g_calls.empty());
}

}  // namespace
}  // namespace vireo
