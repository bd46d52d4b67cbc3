// CLIENT TRACKING / CACHING / GETREDIR / TRACKINGINFO in-process: replies, errors and the
// table filling from read-only commands (delivery is covered by src/server/tracking_test.cc
// and tests/integration/test_tracking.py).
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

constexpr const char* kOffInfo =
    "*6\r\n$5\r\nflags\r\n*1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n$8\r\nprefixes\r\n*0\r\n";

TEST_F(CommandTest, TrackingOnOffAndInfo) {
  EXPECT_EQ(Run({"client", "trackinginfo"}), kOffInfo);
  EXPECT_EQ(Run({"client", "getredir"}), Int(-1));
  EXPECT_EQ(Run({"client", "tracking", "on", "optin", "noloop"}), kOk);
  EXPECT_EQ(Run({"client", "getredir"}), Int(0));
  EXPECT_EQ(Run({"client", "caching", "yes"}), kOk);
  EXPECT_EQ(Run({"client", "trackinginfo"}),
            "*6\r\n$5\r\nflags\r\n*4\r\n$2\r\non\r\n$5\r\noptin\r\n$11\r\ncaching-yes\r\n"
            "$6\r\nnoloop\r\n$8\r\nredirect\r\n:0\r\n$8\r\nprefixes\r\n*0\r\n");
  EXPECT_NE(Run({"info", "clients"}).find("tracking_clients:1\r\n"), std::string::npos);
  EXPECT_EQ(Run({"client", "tracking", "off"}), kOk);
  EXPECT_EQ(Run({"client", "trackinginfo"}), kOffInfo);
  EXPECT_NE(Run({"info", "clients"}).find("tracking_clients:0\r\n"), std::string::npos);
}

TEST_F(CommandTest, TrackingRecordsReadOnlyCommandsKeys) {
  Run({"client", "tracking", "on"});
  Run({"set", "a", "1"});  // a write: not cached
  Run({"mget", "a", "b", "c"});
  Run({"get", "a"});
  std::string stats = Run({"info", "stats"});
  EXPECT_NE(stats.find("tracking_total_keys:3\r\n"), std::string::npos) << stats;
  EXPECT_NE(stats.find("tracking_total_items:3\r\n"), std::string::npos);
  Run({"set", "a", "2"});  // forgets a
  EXPECT_NE(Run({"info", "stats"}).find("tracking_total_keys:2\r\n"), std::string::npos);
  Run({"flushall"});
  EXPECT_NE(Run({"info", "stats"}).find("tracking_total_keys:0\r\n"), std::string::npos);
}

TEST_F(CommandTest, TrackingBcastPrefixes) {
  EXPECT_EQ(Run({"client", "tracking", "on", "bcast", "prefix", "b", "prefix", "a"}), kOk);
  EXPECT_EQ(Run({"client", "trackinginfo"}),
            "*6\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$5\r\nbcast\r\n$8\r\nredirect\r\n:0\r\n"
            "$8\r\nprefixes\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_NE(Run({"info", "stats"}).find("tracking_total_prefixes:2\r\n"), std::string::npos);
  EXPECT_EQ(Run({"client", "tracking", "on", "bcast", "prefix", "bb"}),
            Err("ERR Prefix 'bb' overlaps with an existing prefix 'b'. Prefixes for a single "
                "client must not overlap."));
  EXPECT_EQ(Run({"reset"}), "+RESET\r\n");
  EXPECT_EQ(Run({"client", "trackinginfo"}), kOffInfo);
  EXPECT_NE(Run({"info", "stats"}).find("tracking_total_prefixes:0\r\n"), std::string::npos);
}

TEST_F(CommandTest, TrackingErrors) {
  EXPECT_EQ(Run({"client", "tracking", "on", "redirect", "12345"}),
            Err("ERR The client ID you want redirect to does not exist"));
  EXPECT_EQ(Run({"client", "tracking", "on", "redirect", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"client", "tracking", "on", "prefix", "a"}),
            Err("ERR PREFIX option requires BCAST mode to be enabled"));
  EXPECT_EQ(Run({"client", "tracking", "on", "optin", "optout"}),
            Err("ERR You can't specify both OPTIN mode and OPTOUT mode"));
  EXPECT_EQ(Run({"client", "tracking", "on", "bcast", "optout"}),
            Err("ERR OPTIN and OPTOUT are not compatible with BCAST"));
  EXPECT_EQ(Run({"client", "tracking", "yes"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "tracking", "on", "nope"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "caching", "yes"}),
            Err("ERR CLIENT CACHING can be called only when the client is in tracking mode "
                "with OPTIN or OPTOUT mode enabled"));
  EXPECT_EQ(Run({"client", "tracking", "on"}), kOk);
  EXPECT_EQ(Run({"client", "caching", "yes"}),
            Err("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode."));
  EXPECT_EQ(Run({"client", "caching", "no"}),
            Err("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."));
  EXPECT_EQ(Run({"client", "tracking", "on", "bcast"}),
            Err("ERR You can't switch BCAST mode on/off before disabling tracking for this "
                "client, and then re-enabling it with a different mode."));
}

}  // namespace
}  // namespace vireo
