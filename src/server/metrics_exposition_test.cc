#include "server/metrics_exposition.h"

#include <gtest/gtest.h>

#include <string>

namespace vireo {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(MetricsExpositionTest, NumericFieldsBecomeGaugesAndCounters) {
  std::string out = InfoToExposition(
      "# Clients\r\nconnected_clients:3\r\n\r\n# Stats\r\ntotal_commands_processed:42\r\n"
      "keyspace_hits:7\r\nused_cpu_sys:0.123456\r\nmem_fragmentation_ratio:1.25\r\n"
      "rdb_last_bgsave_time_sec:-1\r\n");
  EXPECT_TRUE(Has(out, "# TYPE vireo_connected_clients gauge")) << out;
  EXPECT_TRUE(Has(out, "vireo_connected_clients 3")) << out;
  EXPECT_TRUE(Has(out, "# TYPE vireo_total_commands_processed counter")) << out;
  EXPECT_TRUE(Has(out, "vireo_total_commands_processed 42")) << out;
  EXPECT_TRUE(Has(out, "# TYPE vireo_keyspace_hits counter")) << out;
  EXPECT_TRUE(Has(out, "# TYPE vireo_used_cpu_sys counter")) << out;
  EXPECT_TRUE(Has(out, "vireo_used_cpu_sys 0.123456")) << out;
  EXPECT_TRUE(Has(out, "# TYPE vireo_mem_fragmentation_ratio gauge")) << out;
  EXPECT_TRUE(Has(out, "vireo_rdb_last_bgsave_time_sec -1")) << out;
}

TEST(MetricsExpositionTest, TextFieldsAreLeftOutOrBecomeInfoLabels) {
  std::string out = InfoToExposition(
      "redis_version:7.2.4\nredis_git_sha1:00000000\nused_memory_human:1.20M\nrole:master\n"
      "run_id:0123456789\nos:Linux \"x\"\\y\nrdb_last_bgsave_status:ok\n");
  EXPECT_EQ(out.find("vireo_redis_git_sha1"), std::string::npos) << out;
  EXPECT_EQ(out.find("used_memory_human"), std::string::npos) << out;
  EXPECT_EQ(out.find("bgsave_status"), std::string::npos) << out;
  EXPECT_EQ(out.find("run_id"), std::string::npos) << out;  // an ID, even when all digits
  EXPECT_TRUE(Has(out,
                  "vireo_info{redis_version=\"7.2.4\",role=\"master\","
                  "os=\"Linux \\\"x\\\"\\\\y\"} 1"))
      << out;
}

TEST(MetricsExpositionTest, ListsMatchWholeNames) {
  std::string out = InfoToExposition("xos:abc\nsync_full_x:4\nsync_full:5\n");
  EXPECT_EQ(out.find("vireo_info"), std::string::npos) << out;
  EXPECT_TRUE(Has(out, "# TYPE vireo_sync_full_x gauge")) << out;
  EXPECT_TRUE(Has(out, "# TYPE vireo_sync_full counter")) << out;
}

TEST(MetricsExpositionTest, KeyspaceLinesGetADbLabel) {
  std::string out = InfoToExposition(
      "# Keyspace\r\ndb0:keys=10,expires=2,avg_ttl=0\r\ndb3:keys=1,expires=0,avg_ttl=0\r\n");
  EXPECT_TRUE(Has(out, "# TYPE vireo_db_keys gauge")) << out;
  EXPECT_TRUE(Has(out, "vireo_db_keys{db=\"db0\"} 10")) << out;
  EXPECT_TRUE(Has(out, "vireo_db_keys{db=\"db3\"} 1")) << out;
  EXPECT_TRUE(Has(out, "vireo_db_expires{db=\"db0\"} 2")) << out;
  // One group per family: db3's keys sample follows db0's, not db0's expires.
  EXPECT_NE(out.find("vireo_db_keys{db=\"db0\"} 10\nvireo_db_keys{db=\"db3\"} 1\n"),
            std::string::npos)
      << out;
}

TEST(MetricsExpositionTest, CommandAndErrorStatsGetLabels) {
  std::string out = InfoToExposition(
      "# Commandstats\r\n"
      "cmdstat_get:calls=5,usec=2500000,usec_per_call=500000.00,rejected_calls=1,"
      "failed_calls=2\r\n"
      "cmdstat_config|get:calls=1,usec=3,usec_per_call=3.00,rejected_calls=0,failed_calls=0\r\n"
      "# Errorstats\r\nerrorstat_WRONGTYPE:count=4\r\n");
  EXPECT_TRUE(Has(out, "# TYPE vireo_commands_total counter")) << out;
  EXPECT_TRUE(Has(out, "vireo_commands_total{cmd=\"get\"} 5")) << out;
  EXPECT_TRUE(Has(out, "vireo_commands_total{cmd=\"config|get\"} 1")) << out;
  EXPECT_TRUE(Has(out, "vireo_commands_duration_seconds_total{cmd=\"get\"} 2.500000")) << out;
  EXPECT_TRUE(Has(out, "vireo_commands_rejected_calls_total{cmd=\"get\"} 1")) << out;
  EXPECT_TRUE(Has(out, "vireo_commands_failed_calls_total{cmd=\"get\"} 2")) << out;
  EXPECT_TRUE(Has(out, "vireo_errors_total{err=\"WRONGTYPE\"} 4")) << out;
  EXPECT_EQ(out.find("usec_per_call"), std::string::npos) << out;
}

TEST(MetricsExpositionTest, ReplicaLinkStatusIsAGauge) {
  EXPECT_TRUE(Has(InfoToExposition("master_link_status:up\n"), "vireo_master_link_up 1"));
  EXPECT_TRUE(Has(InfoToExposition("master_link_status:down\n"), "vireo_master_link_up 0"));
}

TEST(MetricsExpositionTest, EachFamilyHasOneTypeLineAndEachSeriesOneSample) {
  std::string out = InfoToExposition("a:1\r\nb:2\r\na:3\r\ndb0:keys=1\r\ndb0:keys=2\r\n");
  EXPECT_EQ(out,
            "# TYPE vireo_a gauge\nvireo_a 1\n# TYPE vireo_b gauge\nvireo_b 2\n"
            "# TYPE vireo_db_keys gauge\nvireo_db_keys{db=\"db0\"} 1\n");
}

TEST(MetricsExpositionTest, OddNamesAndValuesAreSafe) {
  std::string out = InfoToExposition(
      "weird-name:5\r\nno_colon_line\r\nbad:1.2.3\r\nhex:0x10\r\n"
      "dot:5.\r\n:7\r\n");
  EXPECT_TRUE(Has(out, "vireo_weird_name 5")) << out;
  EXPECT_EQ(out.find("bad"), std::string::npos) << out;
  EXPECT_EQ(out.find("hex"), std::string::npos) << out;
  EXPECT_EQ(out.find("dot"), std::string::npos) << out;
  EXPECT_EQ(out.find("vireo_ "), std::string::npos) << out;
  EXPECT_EQ(InfoToExposition(""), "");
}

}  // namespace
}  // namespace vireo
