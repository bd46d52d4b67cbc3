// The AOF manifest: Valkey's line format both ways, its refusals, and the sequence rules of
// new base / incremental files.
#include "persistence/aof_manifest.h"

#include <gtest/gtest.h>

#include <string>

namespace vireo {
namespace {

TEST(AofManifestTest, ParsesValkeyManifest) {
  AofManifest m;
  std::string err;
  ASSERT_TRUE(
      ParseAofManifest("file appendonly.aof.1.base.rdb seq 1 type b\n"
                       "file appendonly.aof.1.incr.aof seq 1 type i\n"
                       "file appendonly.aof.2.incr.aof seq 2 type i\n",
                       &m, &err))
      << err;
  ASSERT_TRUE(m.base.has_value());
  EXPECT_EQ(m.base->name, "appendonly.aof.1.base.rdb");
  EXPECT_EQ(m.base_seq, 1);
  ASSERT_EQ(m.incrs.size(), 2u);
  EXPECT_EQ(m.incrs[1].name, "appendonly.aof.2.incr.aof");
  EXPECT_EQ(m.incr_seq, 2);
}

TEST(AofManifestTest, RoundTripsWithHistoryAndQuotedNames) {
  AofManifest m;
  AofNewBase(&m, "my file.aof", true);
  AofNewIncr(&m, "my file.aof");
  AofNewBase(&m, "my file.aof", false);  // the first base becomes history
  std::string text = FormatAofManifest(m);
  EXPECT_EQ(text,
            "file \"my file.aof.2.base.aof\" seq 2 type b\n"
            "file \"my file.aof.1.base.rdb\" seq 1 type h\n"
            "file \"my file.aof.1.incr.aof\" seq 1 type i\n");
  AofManifest back;
  std::string err;
  ASSERT_TRUE(ParseAofManifest(text, &back, &err)) << err;
  EXPECT_EQ(FormatAofManifest(back), text);
  EXPECT_EQ(back.history.size(), 1u);
}

TEST(AofManifestTest, SkipsCommentsBlankLinesAndUnknownKeys) {
  AofManifest m;
  std::string err;
  ASSERT_TRUE(ParseAofManifest("# comment\n\nfile a.1.incr.aof seq 1 type i extra x\r\n", &m, &err))
      << err;
  EXPECT_EQ(m.incrs.size(), 1u);
}

TEST(AofManifestTest, RefusesBadManifests) {
  AofManifest m;
  std::string err;
  EXPECT_FALSE(ParseAofManifest("", &m, &err));
  EXPECT_EQ(err, "Found an empty AOF manifest");
  EXPECT_FALSE(ParseAofManifest("file a seq 1\n", &m, &err));
  EXPECT_EQ(err, "Invalid AOF manifest file format");
  EXPECT_FALSE(ParseAofManifest("file a seq x type b\n", &m, &err));
  EXPECT_FALSE(ParseAofManifest("file a seq 1 type z\n", &m, &err));
  EXPECT_EQ(err, "Unknown AOF file type");
  EXPECT_FALSE(ParseAofManifest("file a seq 1 type b\nfile b seq 2 type b\n", &m, &err));
  EXPECT_EQ(err, "Found duplicate base file information");
  EXPECT_FALSE(ParseAofManifest("file a seq 2 type i\nfile b seq 2 type i\n", &m, &err));
  EXPECT_EQ(err, "Found a non-monotonic sequence number");
  EXPECT_FALSE(ParseAofManifest("file ../x seq 1 type i\n", &m, &err));
  EXPECT_FALSE(ParseAofManifest("file \"a seq 1 type i\n", &m, &err));
  EXPECT_FALSE(ParseAofManifest(std::string(2000, 'x') + "\n", &m, &err));
}

TEST(AofManifestTest, RewriteMovesOldIncrementalsToHistory) {
  AofManifest m;
  AofNewBase(&m, "appendonly.aof", true);
  AofNewIncr(&m, "appendonly.aof");
  AofNewIncr(&m, "appendonly.aof");  // opened when the rewrite started
  AofNewBase(&m, "appendonly.aof", true);
  AofIncrsToHistory(&m, /*keep_last=*/true);
  ASSERT_EQ(m.incrs.size(), 1u);
  EXPECT_EQ(m.incrs[0].name, "appendonly.aof.2.incr.aof");
  EXPECT_EQ(m.base->name, "appendonly.aof.2.base.rdb");
  EXPECT_EQ(m.history.size(), 2u);
  EXPECT_EQ(AofManifestName("appendonly.aof"), "appendonly.aof.manifest");
  EXPECT_EQ(AofTempIncrName("appendonly.aof"), "temp-appendonly.aof.incr");
}

}  // namespace
}  // namespace vireo
