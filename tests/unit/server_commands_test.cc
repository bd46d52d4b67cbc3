// In-process tests of the server family: INFO, CONFIG, COMMAND, SLOWLOG, DEBUG, TIME,
// LASTSAVE, SHUTDOWN. Reply texts were checked against redis-server 7.0.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "commands/registry.h"
#include "common/clock.h"
#include "store/value.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string Status(const std::string& s) { return "+" + s + "\r\n"; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

// ---- TIME / LASTSAVE / SHUTDOWN

TEST_F(CommandTest, ServerTimeIsTwoBulkNumbers) {
  std::string r = Run({"time"});
  ASSERT_EQ(r.substr(0, 8), "*2\r\n$10\r");
  EXPECT_EQ(Run({"time", "x"}), Err("ERR wrong number of arguments for 'time' command"));
}

TEST_F(CommandTest, ServerLastSave) {
  EXPECT_EQ(Run({"lastsave"}), Int(server_->last_save_time()));
}

TEST_F(CommandTest, ServerShutdownArgumentErrors) {
  EXPECT_EQ(Run({"shutdown", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"shutdown", "nosave", "save"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"shutdown", "abort", "now"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"shutdown", "abort"}), Err("ERR No shutdown in progress."));
}

// ---- INFO

TEST_F(CommandTest, ServerInfoDefaultSections) {
  std::string r = Run({"info"});
  EXPECT_TRUE(Contains(r, "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\n"
                          "valkey_version:8.0.1\r\nvireo_version:"));
  for (const char* s : {"# Clients", "# Memory", "# Persistence", "# Stats", "# Replication",
                        "# CPU", "# Modules", "# Errorstats", "# Cluster", "# Keyspace"}) {
    EXPECT_TRUE(Contains(r, s)) << s;
  }
  EXPECT_FALSE(Contains(r, "# Commandstats"));
  EXPECT_TRUE(Contains(r, "\r\nmultiplexing_api:epoll\r\n"));
  EXPECT_TRUE(Contains(r, "\r\nused_memory:"));
  EXPECT_TRUE(Contains(r, "\r\nmem_allocator:"));
  EXPECT_TRUE(Contains(r, "\r\nrole:master\r\n"));
  EXPECT_TRUE(Contains(r, "\r\nloading:0\r\n"));
  EXPECT_TRUE(Contains(r, "\r\ncluster_enabled:0\r\n"));
}

TEST_F(CommandTest, ServerInfoSectionsAreSelectedCaseInsensitively) {
  std::string r = Run({"info", "CPU", "keyspace", "bogus"});
  // Sections come in Valkey's order whatever the order asked, separated by a blank line.
  EXPECT_EQ(r.find("# CPU\r\nused_cpu_sys:"), r.find("\r\n") + 2);
  EXPECT_TRUE(Contains(r, "\r\n\r\n# Keyspace\r\n"));
  EXPECT_FALSE(Contains(r, "# Server"));
  EXPECT_EQ(Run({"info", "bogus"}), "$0\r\n\r\n");
  EXPECT_TRUE(Contains(Run({"info", "all"}), "# Commandstats"));
  EXPECT_TRUE(Contains(Run({"info", "everything"}), "# Commandstats"));
  EXPECT_FALSE(Contains(Run({"info", "default"}), "# Commandstats"));
}

TEST_F(CommandTest, ServerInfoIsVerbatimInResp3) {
  client_->resp = 3;
  std::string r = Run({"info", "cluster"});
  EXPECT_EQ(r, "=34\r\ntxt:# Cluster\r\ncluster_enabled:0\r\n\r\n");
}

TEST_F(CommandTest, ServerInfoKeyspaceCountsKeysAndExpires) {
  EXPECT_EQ(Run({"info", "keyspace"}), Bulk("# Keyspace\r\n"));
  Run({"debug", "populate", "3"});
  Entry* e = server_->db(0)->Find("key:1");
  ASSERT_NE(e, nullptr);
  (void)server_->db(0)->SetExpire(e, NowMs() + 100000);
  EXPECT_EQ(Run({"info", "keyspace"}),
            Bulk("# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=0\r\n"));
}

TEST_F(CommandTest, ServerInfoCommandAndErrorStats) {
  // Command statistics are process-wide: start from zero whatever ran before.
  Run({"config", "resetstat"});
  Run({"config", "get", "hz"});
  Run({"config", "get", "hz"});
  Run({"config", "set", "hz", "abc"});
  std::string r = Run({"info", "commandstats", "errorstats"});
  EXPECT_TRUE(Contains(r, "\r\ncmdstat_config|get:calls=2,usec="));
  EXPECT_TRUE(Contains(r, ",rejected_calls=0,failed_calls=0\r\n"));
  EXPECT_TRUE(Contains(r, "\r\ncmdstat_config|set:calls=1,"));
  EXPECT_TRUE(Contains(r, "failed_calls=1\r\n"));
  EXPECT_TRUE(Contains(r, "# Errorstats\r\nerrorstat_ERR:count=1\r\n"));
}

TEST_F(CommandTest, ServerInfoPersistenceShowsDirtyCounter) {
  Run({"debug", "populate", "2"});
  server_->AddDirty(5);
  EXPECT_TRUE(Contains(Run({"info", "persistence"}), "\r\nrdb_changes_since_last_save:5\r\n"));
}

// ---- CONFIG

TEST_F(CommandTest, ServerConfigGetSetMemoryUnits) {
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1gb"}), kOk);
  EXPECT_EQ(Run({"config", "get", "maxmemory"}),
            "*2\r\n" + Bulk("maxmemory") + Bulk("1073741824"));
  EXPECT_EQ(server_->config().maxmemory, 1073741824);
  EXPECT_EQ(Run({"config", "set", "maxmemory", "100k"}), kOk);
  EXPECT_EQ(server_->config().maxmemory, 100000);
}

TEST_F(CommandTest, ServerConfigGetIsAMapInResp3AndDeduplicates) {
  client_->resp = 3;
  EXPECT_EQ(Run({"config", "get", "hz", "HZ", "h?"}), "%1\r\n" + Bulk("hz") + Bulk("10"));
  // An exact name is echoed as spelled; aliases answer too.
  EXPECT_EQ(Run({"config", "get", "SLAVE-read-only"}),
            "%1\r\n" + Bulk("SLAVE-read-only") + Bulk("yes"));
  EXPECT_EQ(Run({"config", "get", "nosuch"}), "%0\r\n");
}

TEST_F(CommandTest, ServerConfigSetMultipleIsAllOrNothing) {
  EXPECT_EQ(Run({"config", "set", "hz", "20", "maxmemory", "abc"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument "
                "must be a memory value"));
  EXPECT_EQ(server_->config().hz, 10);
  EXPECT_EQ(Run({"config", "set", "hz", "20", "maxmemory", "2mb"}), kOk);
  EXPECT_EQ(server_->config().hz, 20);
  EXPECT_EQ(server_->config().maxmemory, 2 * 1024 * 1024);
}

TEST_F(CommandTest, ServerConfigSetErrorTexts) {
  EXPECT_EQ(Run({"config", "set", "hz", "abc"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't "
                "be parsed into an integer"));
  EXPECT_EQ(Run({"config", "set", "HZ", "abc"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't "
                "be parsed into an integer"));
  EXPECT_EQ(Run({"config", "set", "foo", "bar"}),
            Err("ERR Unknown option or number of arguments for CONFIG SET - 'foo'"));
  EXPECT_EQ(Run({"config", "set", "hz", "10", "foo", "1"}),
            Err("ERR Unknown option or number of arguments for CONFIG SET - 'foo'"));
  EXPECT_EQ(Run({"config", "set", "hz", "10", "maxmemory"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"config", "set", "hz", "20", "HZ", "30"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'HZ') - duplicate "
                "parameter"));
  EXPECT_EQ(Run({"config", "set", "hz", "abc", "daemonize", "yes"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'daemonize') - can't set "
                "immutable config"));
  EXPECT_EQ(Run({"config", "set", "dir", "/tmp"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'dir') - can't set "
                "protected config"));
  EXPECT_EQ(Run({"config", "set", "maxmemory-policy", "bad"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - "
                "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                "noeviction"));
  EXPECT_EQ(Run({"config", "set", "appendfsync", "bad"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'appendfsync') - "
                "argument(s) must be one of the following: everysec, always, no"));
  EXPECT_EQ(Run({"config", "set", "hz", "-1"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'hz') - argument must be "
                "between 0 and 2147483647 inclusive"));
  EXPECT_EQ(Run({"config", "set"}), Err("ERR wrong number of arguments for 'config|set' command"));
  EXPECT_EQ(Run({"config"}), Err("ERR wrong number of arguments for 'config' command"));
}

TEST_F(CommandTest, ServerConfigHzIsClampedLikeValkey) {
  EXPECT_EQ(Run({"config", "set", "hz", "10000"}), kOk);
  EXPECT_EQ(server_->config().hz, 500);
  EXPECT_EQ(Run({"config", "set", "hz", "0"}), kOk);
  EXPECT_EQ(server_->config().hz, 1);
}

TEST_F(CommandTest, ServerConfigSetGenericDirectivesAreValidated) {
  EXPECT_EQ(Run({"config", "set", "repl-diskless-load", "SWAPDB"}), kOk);
  EXPECT_EQ(Run({"config", "get", "repl-diskless-load"}),
            "*2\r\n" + Bulk("repl-diskless-load") + Bulk("swapdb"));
  EXPECT_EQ(Run({"config", "set", "repl-timeout", "0"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'repl-timeout') - argument "
                "must be between 1 and 2147483647 inclusive"));
  EXPECT_EQ(Run({"config", "set", "hash-max-listpack-value", "1kb"}), kOk);
  EXPECT_EQ(Run({"config", "get", "hash-max-ziplist-value"}),
            "*2\r\n" + Bulk("hash-max-ziplist-value") + Bulk("1024"));
}

TEST_F(CommandTest, ServerConfigSetRequirepassTakesEffect) {
  EXPECT_EQ(Run({"config", "set", "requirepass", "secret"}), kOk);
  EXPECT_EQ(Run({"auth", "wrong"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"auth", "secret"}), kOk);
}

TEST_F(CommandTest, ServerConfigResetStat) {
  Run({"config", "get", "hz"});
  Run({"config", "set", "hz", "x"});
  server_->keyspace_stats().keyspace_hits = 7;
  server_->stats().total_commands_processed = 99;
  Run({"config", "set", "slowlog-log-slower-than", "0"});
  Run({"ping"});
  ASSERT_GT(server_->command_log(CommandLogType::kSlow).entries().size(), 0u);
  EXPECT_EQ(Run({"config", "resetstat"}), kOk);
  std::string r = Run({"info", "stats", "commandstats", "errorstats"});
  EXPECT_TRUE(Contains(r, "\r\nkeyspace_hits:0\r\n"));
  EXPECT_TRUE(Contains(r, "\r\ntotal_error_replies:0\r\n"));
  EXPECT_TRUE(Contains(r, "# Commandstats\r\ncmdstat_config|resetstat:calls=1,"));
  EXPECT_FALSE(Contains(r, "cmdstat_config|get"));
  EXPECT_TRUE(Contains(r, "# Errorstats\r\n"));
  EXPECT_FALSE(Contains(r, "errorstat_ERR"));
  EXPECT_GT(server_->command_log(CommandLogType::kSlow).entries().size(), 0u);  // not a statistic
}

TEST_F(CommandTest, ServerConfigRewriteNeedsAConfigFile) {
  EXPECT_EQ(Run({"config", "rewrite"}), Err("ERR The server is running without a config file"));
}

TEST_F(CommandTest, ServerConfigRewriteKeepsCommentsAndUpdatesValues) {
  char path[] = "/tmp/vireo-config-rewrite-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream out(path);
    out << "# my settings\nhz 20\nmaxmemory 100mb\nslave-read-only yes\nhz 25\n";
  }
  server_->config().config_file = path;
  ASSERT_EQ(Run({"config", "set", "hz", "30", "maxmemory", "0", "slowlog-max-len", "200"}), kOk);
  ASSERT_EQ(Run({"config", "set", "maxmemory-policy", "allkeys-lru"}), kOk);
  EXPECT_EQ(Run({"config", "rewrite"}), kOk);
  std::string text = ReadFile(path);
  unlink(path);
  EXPECT_EQ(text.find("# my settings\nhz 30\nmaxmemory 0\nreplica-read-only yes\n\n"
                      "# Generated by CONFIG REWRITE\n"),
            0u)
      << text;
  EXPECT_TRUE(Contains(text, "\nslowlog-max-len 200\n"));
  EXPECT_TRUE(Contains(text, "\nmaxmemory-policy allkeys-lru\n"));
  EXPECT_FALSE(Contains(text, "hz 25"));
  // The rewritten file loads back to the same values.
  Config loaded;
  std::string error;
  ASSERT_TRUE(LoadConfigText(&loaded, text, &error)) << error;
  EXPECT_EQ(loaded.hz, 30);
  EXPECT_EQ(loaded.slowlog_max_len, 200);
  EXPECT_EQ(loaded.maxmemory_policy, "allkeys-lru");
}

TEST_F(CommandTest, ServerConfigHelp) {
  std::string r = Run({"config", "help"});
  EXPECT_EQ(r.find("*11\r\n+CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"),
            0u);
  EXPECT_TRUE(Contains(r, "+HELP\r\n+    Print this help.\r\n"));
}

// ---- COMMAND

TEST_F(CommandTest, ServerCommandCountAndList) {
  EXPECT_EQ(Run({"command", "count"}), Int(static_cast<long long>(Commands().Size())));
  EXPECT_EQ(Run({"command", "list", "filterby", "pattern", "config*"}),
            "*6\r\n" + Bulk("config") + Bulk("config|get") + Bulk("config|set") +
                Bulk("config|resetstat") + Bulk("config|rewrite") + Bulk("config|help"));
  EXPECT_EQ(Run({"command", "list", "filterby", "module", "x"}), "*0\r\n");
  EXPECT_EQ(Run({"command", "list", "filterby", "bogus", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"command", "list", "foo"}), Err("ERR syntax error"));
  std::string admin = Run({"command", "list", "filterby", "aclcat", "ADMIN"});
  EXPECT_TRUE(Contains(admin, Bulk("config|set")));
  EXPECT_FALSE(Contains(admin, Bulk("config|help")));
}

TEST_F(CommandTest, ServerCommandInfoMatchesValkey) {
  EXPECT_EQ(Run({"command", "info", "time"}),
            "*1\r\n*10\r\n" + Bulk("time") + Int(1) +
                "*3\r\n+loading\r\n+stale\r\n+fast\r\n" + Int(0) + Int(0) + Int(0) +
                "*1\r\n+@fast\r\n*1\r\n" + Bulk("nondeterministic_output") + "*0\r\n*0\r\n");
  EXPECT_EQ(Run({"command", "info", "CONFIG|GET", "nosuch", "config|nosuch"}),
            "*3\r\n*10\r\n" + Bulk("config|get") + Int(-3) +
                "*4\r\n+admin\r\n+noscript\r\n+loading\r\n+stale\r\n" + Int(0) + Int(0) +
                Int(0) + "*3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n*0\r\n*0\r\n" + kNil +
                kNil);
  client_->resp = 3;
  std::string r = Run({"command", "info", "config"});
  EXPECT_EQ(r.find("*1\r\n*10\r\n" + Bulk("config") + Int(-2) + "~0\r\n:0\r\n:0\r\n:0\r\n" +
                   "~1\r\n+@slow\r\n~0\r\n~0\r\n*5\r\n"),
            0u)
      << r;
}

TEST_F(CommandTest, ServerCommandInfoKeySpecs) {
  if (Commands().Find("get") == nullptr) GTEST_SKIP() << "string family not registered";
  std::string r = Run({"command", "info", "get"});
  EXPECT_TRUE(Contains(r, "*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n")) << r;
  EXPECT_TRUE(Contains(r, Bulk("begin_search") + "*4\r\n" + Bulk("type") + Bulk("index") +
                              Bulk("spec") + "*2\r\n" + Bulk("index") + Int(1)));
  EXPECT_TRUE(Contains(r, Bulk("lastkey") + Int(0) + Bulk("keystep") + Int(1) + Bulk("limit") +
                              Int(0)));
}

TEST_F(CommandTest, ServerCommandDocs) {
  EXPECT_EQ(Run({"command", "docs", "time", "nosuch"}),
            "*2\r\n" + Bulk("time") + "*8\r\n" + Bulk("summary") +
                Bulk("Returns the server time.") + Bulk("since") + Bulk("2.6.0") +
                Bulk("group") + Bulk("server") + Bulk("complexity") + Bulk("O(1)"));
  client_->resp = 3;
  std::string r = Run({"command", "docs", "slowlog"});
  // The docs of Valkey's command reference: slowlog|get has a history and arguments too.
  EXPECT_TRUE(Contains(r, Bulk("subcommands") + "%4\r\n" + Bulk("slowlog|get") + "%6\r\n")) << r;
  EXPECT_EQ(Run({"command", "docs", "nosuch"}), "%0\r\n");
}

TEST_F(CommandTest, ServerCommandGetKeys) {
  EXPECT_EQ(Run({"command", "getkeys"}),
            Err("ERR wrong number of arguments for 'command|getkeys' command"));
  EXPECT_EQ(Run({"command", "getkeys", "foo", "a"}), Err("ERR Invalid command specified"));
  EXPECT_EQ(Run({"command", "getkeys", "config", "bogus", "x"}),
            Err("ERR Invalid command specified"));
  EXPECT_EQ(Run({"command", "getkeys", "config", "get", "x"}),
            Err("ERR The command has no key arguments"));
  EXPECT_EQ(Run({"command", "getkeys", "time", "a", "b"}),
            Err("ERR The command has no key arguments"));
  if (Commands().Find("mset") == nullptr) GTEST_SKIP() << "string family not registered";
  EXPECT_EQ(Run({"command", "getkeys", "mset", "a", "1", "b", "2"}),
            "*2\r\n" + Bulk("a") + Bulk("b"));
  EXPECT_EQ(Run({"command", "getkeys", "get", "a", "b"}),
            Err("ERR Invalid number of arguments specified for command"));
  EXPECT_EQ(Run({"command", "getkeysandflags", "get", "k"}),
            "*1\r\n*2\r\n" + Bulk("k") + "*2\r\n+RO\r\n+access\r\n");
}

TEST_F(CommandTest, ServerCommandHelpAndUnknownSubcommand) {
  EXPECT_EQ(Run({"command", "help"}).substr(0, 5), "*21\r\n");
  EXPECT_EQ(Run({"command", "foo"}), Err("ERR unknown subcommand 'foo'. Try COMMAND HELP."));
}

// ---- SLOWLOG

TEST_F(CommandTest, ServerSlowlog) {
  EXPECT_EQ(Run({"slowlog", "len"}), Int(0));
  EXPECT_EQ(Run({"config", "set", "slowlog-log-slower-than", "0"}), kOk);
  client_->name = "me";
  Run({"echo", "hello"});
  EXPECT_EQ(Run({"slowlog", "len"}), Int(2));  // CONFIG SET itself, then ECHO
  // Newest first: SLOWLOG LEN (id 2), ECHO (id 1), CONFIG SET (id 0).
  std::string r = Run({"slowlog", "get", "2"});
  EXPECT_EQ(r.find("*2\r\n*6\r\n:2\r\n:"), 0u) << r;
  EXPECT_TRUE(Contains(r, "*6\r\n:1\r\n:")) << r;
  // A client without a socket (as a script's) shows Valkey's "?:0" as its address.
  EXPECT_TRUE(Contains(r, "*2\r\n" + Bulk("echo") + Bulk("hello") + Bulk("?:0") + Bulk("me")));
  EXPECT_EQ(Run({"slowlog", "get", "-1"}).substr(0, 4), "*4\r\n");
  EXPECT_EQ(Run({"slowlog", "get", "abc"}),
            Err("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(Run({"slowlog", "get", "-2"}),
            Err("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(Run({"slowlog", "get", "1", "2"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG "
                "HELP."));
  EXPECT_EQ(Run({"slowlog", "reset"}), kOk);
  EXPECT_EQ(Run({"config", "set", "slowlog-log-slower-than", "-1"}), kOk);
  EXPECT_EQ(Run({"slowlog", "len"}), Int(1));  // the RESET above was logged
  EXPECT_EQ(Run({"slowlog", "help"}).substr(0, 5), "*12\r\n");
}

// ---- DEBUG

TEST_F(CommandTest, ServerDebugIsGatedByEnableDebugCommand) {
  server_->config().enable_debug_command = "no";
  EXPECT_EQ(Run({"debug", "digest"}),
            Err("ERR DEBUG command not allowed. If the enable-debug-command option is set to "
                "\"local\", you can run it from a local connection, otherwise you need to set "
                "this option in the configuration file, and then restart the server."));
}

TEST_F(CommandTest, ServerDebugPopulate) {
  EXPECT_EQ(Run({"debug", "populate", "3"}), kOk);
  EXPECT_EQ(server_->db(0)->Size(), 3u);
  char buf[32];
  Entry* e = server_->db(0)->Find("key:2");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(StringValue(e, buf), "value:2");
  EXPECT_EQ(Run({"debug", "populate", "2", "pfx", "10"}), kOk);
  e = server_->db(0)->Find("pfx:1");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(StringValue(e, buf), std::string("value:1\0\0\0", 10));
  EXPECT_EQ(Run({"debug", "populate", "2", "q", "3"}), kOk);
  EXPECT_EQ(StringValue(server_->db(0)->Find("q:1"), buf), "val");
  // Existing keys are kept.
  EXPECT_EQ(Run({"debug", "populate", "5", "q", "1"}), kOk);
  EXPECT_EQ(StringValue(server_->db(0)->Find("q:1"), buf), "val");
  EXPECT_EQ(StringValue(server_->db(0)->Find("q:4"), buf), "v");
  EXPECT_EQ(Run({"debug", "populate", "-1"}),
            Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"debug", "populate", "1", "a", "b"}),
            Err("ERR value is out of range, must be positive"));
}

TEST_F(CommandTest, ServerDebugDigestIsOrderIndependent) {
  EXPECT_EQ(Run({"debug", "digest"}), Status(std::string(40, '0')));
  Run({"debug", "populate", "100"});
  std::string a = Run({"debug", "digest"});
  EXPECT_NE(a, Status(std::string(40, '0')));
  EXPECT_EQ(a.size(), 43u);

  // The same data inserted in another order, with another encoding, digests the same.
  server_->db(0)->Clear(false);
  for (int i = 99; i >= 0; --i) {
    Entry* e = server_->db(0)->Add("key:" + std::to_string(i));
    SetRawStringValue(e, "value:" + std::to_string(i));
  }
  EXPECT_EQ(Run({"debug", "digest"}), a);

  // Values, expiry times and the database all count.
  SetStringValue(server_->db(0)->Find("key:5"), "changed");
  std::string b = Run({"debug", "digest"});
  EXPECT_NE(b, a);
  (void)server_->db(0)->SetExpire(server_->db(0)->Find("key:6"), NowMs() + 100000);
  EXPECT_NE(Run({"debug", "digest"}), b);
}

TEST_F(CommandTest, ServerDebugDigestValue) {
  Entry* e1 = server_->db(0)->Add("a");
  SetStringValue(e1, "123");
  Entry* e2 = server_->db(0)->Add("b");
  SetRawStringValue(e2, "123");
  std::string r = Run({"debug", "digest-value", "a", "b", "nosuch"});
  ASSERT_EQ(r.substr(0, 4), "*3\r\n");
  std::string da = r.substr(4, 43), db = r.substr(47, 43);
  EXPECT_EQ(da, db);  // int and raw encodings of "123"
  EXPECT_EQ(r.substr(90), Status(std::string(40, '0')));
  EXPECT_EQ(Run({"debug", "digest-value"}), "*0\r\n");
}

TEST_F(CommandTest, ServerDebugObject) {
  Entry* e = server_->db(0)->Add("s");
  SetStringValue(e, "hello");
  std::string r = Run({"debug", "object", "s"});
  EXPECT_EQ(r.find("+Value at:0x"), 0u) << r;
  EXPECT_TRUE(Contains(r, " refcount:1 encoding:embstr serializedlength:6 lru:")) << r;
  EXPECT_TRUE(Contains(r, " lru_seconds_idle:")) << r;
  SetStringValue(e, "12345");
  EXPECT_TRUE(Contains(Run({"debug", "object", "s"}), "encoding:int serializedlength:3 "));
  EXPECT_EQ(Run({"debug", "object", "nosuch"}), Err("ERR no such key"));
}

TEST_F(CommandTest, ServerDebugMiscAndErrors) {
  EXPECT_EQ(Run({"debug", "sleep", "0"}), kOk);
  EXPECT_EQ(Run({"debug", "set-active-expire", "0"}), kOk);
  EXPECT_FALSE(server_->config().active_expire_enabled);
  EXPECT_EQ(Run({"debug", "set-active-expire", "1"}), kOk);
  EXPECT_TRUE(server_->config().active_expire_enabled);
  EXPECT_EQ(Run({"debug", "error", "FOO bar"}), Err("FOO bar"));
  EXPECT_EQ(Run({"debug", "jmap"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'jmap'. Try DEBUG "
                "HELP."));
  EXPECT_EQ(Run({"debug", "OBJECT"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'OBJECT'. Try DEBUG "
                "HELP."));
  EXPECT_EQ(Run({"debug"}), Err("ERR wrong number of arguments for 'debug' command"));
  EXPECT_EQ(Run({"debug", "help"}).find("*"), 0u);
}

}  // namespace vireo
