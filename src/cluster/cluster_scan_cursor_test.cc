#include "cluster/cluster_scan_cursor.h"

#include <gtest/gtest.h>

#include <string>

#include "common/crc16.h"

namespace vireo {
namespace {

TEST(ClusterScanCursor, SlotTagsHashToTheirSlotAndMatchValkeysExamples) {
  for (int s = 0; s < kClusterSlots; ++s) {
    const std::string& tag = SlotHashTag(s);
    ASSERT_FALSE(tag.empty()) << s;
    ASSERT_LE(tag.size(), 3u) << s;
    ASSERT_EQ(KeyHashSlot("{" + tag + "}"), s) << tag;
  }
  // The tags Valkey 9.1's documentation and cursors show.
  EXPECT_EQ(SlotHashTag(0), "06S");
  EXPECT_EQ(SlotHashTag(1), "Qi");
  EXPECT_EQ(SlotHashTag(51), "6od");
  EXPECT_EQ(SlotHashTag(100), "0or");
  EXPECT_EQ(SlotHashTag(16383), "6ZJ");
}

TEST(ClusterScanCursor, ParsesStartAndFullCursors) {
  ClusterScanCursor c;
  ASSERT_TRUE(ParseClusterScanCursor("0", &c));
  EXPECT_TRUE(c.start);
  ASSERT_TRUE(ParseClusterScanCursor("0-{06S}-0", &c));
  EXPECT_FALSE(c.start);
  EXPECT_EQ(c.fingerprint, "0");
  EXPECT_EQ(c.slot, 0);
  EXPECT_EQ(c.local, 0u);
  ASSERT_TRUE(ParseClusterScanCursor("0B3a21-{Qi}-96", &c));
  EXPECT_EQ(c.fingerprint, "0B3a21");
  EXPECT_EQ(c.slot, 1);
  EXPECT_EQ(c.local, 96u);
  // Leading zeros in the local part are a number all the same.
  ASSERT_TRUE(ParseClusterScanCursor("0-{he}-09393399393", &c));
  EXPECT_EQ(c.slot, 16000);
  EXPECT_EQ(c.local, 9393399393u);
  // Any tag routes: the slot is what it hashes to.
  ASSERT_TRUE(ParseClusterScanCursor("x-{user1}-5", &c));
  EXPECT_EQ(c.slot, KeyHashSlot("{user1}"));
}

TEST(ClusterScanCursor, RejectsMalformedCursors) {
  ClusterScanCursor c;
  for (const char* bad : {"", "invalid", "abc-def-ghi", "0-", "0-{0}", "0-{0}-", "-{06S}-0",
                          "0-{}-0", "0-{06S}0", "0-{06S}-x", "0-{06S}--1", "0-06S-0", "1",
                          "0-{06S}-18446744073709551616", "0-{06S"}) {
    EXPECT_FALSE(ParseClusterScanCursor(bad, &c)) << bad;
  }
}

TEST(ClusterScanCursor, FormatsWhatItParses) {
  const std::string text = FormatClusterScanCursor("abc", 1234, 567);
  EXPECT_EQ(text, "abc-{" + SlotHashTag(1234) + "}-567");
  ClusterScanCursor c;
  ASSERT_TRUE(ParseClusterScanCursor(text, &c));
  EXPECT_EQ(c.fingerprint, "abc");
  EXPECT_EQ(c.slot, 1234);
  EXPECT_EQ(c.local, 567u);
}

TEST(ClusterScanCursor, LocalPacksTableCursorAndEndSlot) {
  for (uint64_t table : {uint64_t{0}, uint64_t{1}, uint64_t{123456789}, uint64_t{1} << 49}) {
    for (int end : {0, 1, 8191, 16383}) {
      uint64_t local = 0, t = 0;
      int e = -1;
      ASSERT_TRUE(PackScanLocal(table, end, &local));
      UnpackScanLocal(local, &t, &e);
      EXPECT_EQ(t, table);
      EXPECT_EQ(e, end);
    }
  }
  uint64_t local = 7;
  EXPECT_FALSE(PackScanLocal(uint64_t{1} << 51, 0, &local));
  EXPECT_EQ(local, 7u);
}

TEST(ClusterScanCursor, FingerprintIsStableAndNeverZero) {
  const std::string& fp = LocalScanFingerprint();
  EXPECT_NE(fp, "0");
  EXPECT_FALSE(fp.empty());
  EXPECT_EQ(fp.find_first_not_of("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
            std::string::npos);
  EXPECT_EQ(&fp, &LocalScanFingerprint());
}

}  // namespace
}  // namespace vireo
