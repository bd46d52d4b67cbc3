#include "server/client_memory.h"

#include <gtest/gtest.h>

#include <limits>

namespace vireo {
namespace {

constexpr int64_t kMb = 1024 * 1024;

TEST(ClientEvictionLimit, BytesPercentagesAndTheFloor) {
  EXPECT_EQ(ClientEvictionLimit(0, 100 * kMb), 0);  // off
  EXPECT_EQ(ClientEvictionLimit(5 * kMb, 0), 5 * kMb);
  EXPECT_EQ(ClientEvictionLimit(-10, 100 * kMb), 10 * kMb);  // "10%" of maxmemory
  // A share of no maxmemory never evicts.
  EXPECT_EQ(ClientEvictionLimit(-10, 0), std::numeric_limits<int64_t>::max());
  // Under 128 KB is raised to 128 KB, so a tiny setting cannot shut every client out.
  EXPECT_EQ(ClientEvictionLimit(1024, 0), 128 * 1024);
  EXPECT_EQ(ClientEvictionLimit(-1, kMb), 128 * 1024);
}

}  // namespace
}  // namespace vireo
