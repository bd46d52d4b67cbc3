#include "common/huge_pages.h"

#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/vm_flags.h"

namespace vireo {
namespace {

TEST(HugePages, SmallOrNullArraysAreLeftAlone) {
  EXPECT_FALSE(AdviseHugePages(nullptr, size_t{64} << 20));
  char small[4096];
  EXPECT_FALSE(AdviseHugePages(small, sizeof(small)));
  void* p = std::malloc(kHugePageAdviseMin - 1);
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(AdviseHugePages(p, kHugePageAdviseMin - 1));
  std::free(p);
}

TEST(HugePages, LargeArrayIsAdvisedAndKeepsItsContents) {
  const size_t size = size_t{9} << 20;  // not a multiple of 2 MiB, nor (usually) aligned
  auto* p = static_cast<unsigned char*>(std::calloc(size, 1));
  ASSERT_NE(p, nullptr);
  p[0] = 1;
  p[size - 1] = 2;
  if (!AdviseHugePages(p, size)) {
    std::free(p);
    GTEST_SKIP() << "madvise(MADV_HUGEPAGE) is not supported here";
  }
  for (size_t i = 0; i < size; i += 4096) p[i] = static_cast<unsigned char>(i >> 12);
  p[size - 1] = 2;
  for (size_t i = 0; i < size; i += 4096) ASSERT_EQ(p[i], static_cast<unsigned char>(i >> 12));
  EXPECT_EQ(p[size - 1], 2);
  // The kernel marks the advised range "hg" (VM_HUGEPAGE). Only checked natively on x86-64:
  // the ARM builds run their tests under qemu-user, which answers madvise's advice without
  // passing it to the kernel.
  const uintptr_t inside =
      (reinterpret_cast<uintptr_t>(p) + (uintptr_t{4} << 20)) & ~(uintptr_t{kHugePageSize} - 1);
  const std::string flags = VmFlagsOf(inside);
#if defined(__x86_64__)
  ASSERT_FALSE(flags.empty()) << "no mapping holds the array in /proc/self/smaps";
  EXPECT_NE(flags.find(" hg"), std::string::npos) << flags;
#endif
  RecordProperty("vmflags", flags);
  std::free(p);
}

// A process started with huge pages turned off (prctl PR_SET_THP_DISABLE, as bench/growth's
// "never" runs) has none, whatever the machine's mode. Checked in a child, which reads the
// answer first (it is kept for the process).
TEST(HugePages, OffForAProcessThatTurnedThemOff) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) _exit(2);
    _exit(HugePagesOff() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << "no PR_SET_THP_DISABLE here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace vireo
