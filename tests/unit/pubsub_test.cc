// Pub/Sub and keyspace notifications in process: replies, message frames, subscribed mode,
// config parsing, output buffer limits.
#include <memory>
#include <string>
#include <vector>

#include "server/notify.h"
#include "server/output_limits.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

class PubSubTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    other_ = std::make_unique<Client>(2, -1);
    other_->authenticated = true;
  }
  void TearDown() override {
    server_->pubsub().RemoveClient(client_.get());
    server_->pubsub().RemoveClient(other_.get());
    CommandTest::TearDown();
  }

  // Runs a command as the second client; returns its reply (and clears its output).
  std::string RunOther(const std::vector<std::string>& argv) {
    std::string* out = other_->conn.Output();
    out->clear();
    other_->args.assign(argv.begin(), argv.end());
    server_->Execute(other_.get());
    other_->args.clear();
    return TakeOther();
  }
  // What the second client received since the last call.
  std::string TakeOther() {
    std::string s = *other_->conn.Output();
    other_->conn.Output()->clear();
    return s;
  }
  static std::string Push3(const std::string& kind, const std::string& name, long long n,
                           char head = '*') {
    return std::string(1, head) + "3\r\n" + Bulk(kind) + Bulk(name) + Int(n);
  }
  static std::string Message(const std::string& ch, const std::string& msg, char head = '*') {
    return std::string(1, head) + "3\r\n" + Bulk("message") + Bulk(ch) + Bulk(msg);
  }

  std::unique_ptr<Client> other_;
};

TEST_F(PubSubTest, SubscribeRepliesCountChannelsAndPatterns) {
  EXPECT_EQ(Run({"subscribe", "a", "b", "a"}),
            Push3("subscribe", "a", 1) + Push3("subscribe", "b", 2) + Push3("subscribe", "a", 2));
  EXPECT_EQ(Run({"psubscribe", "p*"}), Push3("psubscribe", "p*", 3));
  // Shard subscriptions count on their own.
  EXPECT_EQ(Run({"ssubscribe", "s"}), Push3("ssubscribe", "s", 1));
  EXPECT_EQ(Run({"unsubscribe", "b", "zz"}),
            Push3("unsubscribe", "b", 2) + Push3("unsubscribe", "zz", 2));
  EXPECT_EQ(Run({"punsubscribe"}), Push3("punsubscribe", "p*", 1));
  EXPECT_EQ(Run({"sunsubscribe"}), Push3("sunsubscribe", "s", 0));
  EXPECT_EQ(Run({"unsubscribe"}), Push3("unsubscribe", "a", 0));
  // Nothing left: one reply with a null name.
  EXPECT_EQ(Run({"unsubscribe"}), "*3\r\n" + Bulk("unsubscribe") + "$-1\r\n" + Int(0));
  EXPECT_EQ(client_->flags & kClientPubSub, 0u);
}

TEST_F(PubSubTest, PublishDeliversToChannelAndPatternSubscribers) {
  RunOther({"subscribe", "news"});
  RunOther({"psubscribe", "n*"});
  EXPECT_EQ(Run({"publish", "news", "hi"}), Int(2));
  EXPECT_EQ(TakeOther(), Message("news", "hi") + "*4\r\n" + Bulk("pmessage") + Bulk("n*") +
                             Bulk("news") + Bulk("hi"));
  EXPECT_EQ(Run({"publish", "other", "x"}), Int(0));
  EXPECT_EQ(TakeOther(), "");
}

TEST_F(PubSubTest, Resp3SubscriberGetsPushFramesAndMayRunCommands) {
  other_->resp = 3;
  EXPECT_EQ(RunOther({"subscribe", "c"}), Push3("subscribe", "c", 1, '>'));
  EXPECT_EQ(Run({"publish", "c", "m"}), Int(1));
  EXPECT_EQ(TakeOther(), Message("c", "m", '>'));
  EXPECT_EQ(RunOther({"set", "k", "v"}), kOk);
  EXPECT_EQ(RunOther({"ping"}), "+PONG\r\n");
  // Its own events wait until its reply is complete: never inside an array being built.
  Run({"config", "set", "notify-keyspace-events", "KEA"});
  RunOther({"psubscribe", "__keyevent@0__:*"});
  auto pm = [](const std::string& ch, const std::string& key) {
    return ">4\r\n" + Bulk("pmessage") + Bulk("__keyevent@0__:*") + Bulk(ch) + Bulk(key);
  };
  EXPECT_EQ(RunOther({"rpush", "l", "a"}), Int(1) + pm("__keyevent@0__:rpush", "l"));
  EXPECT_EQ(RunOther({"publish", "c", "self"}), Int(1) + Message("c", "self", '>'));
}

TEST_F(PubSubTest, Resp2SubscribedModeAllowsOnlyTheSubscribeFamily) {
  Run({"subscribe", "c"});
  EXPECT_EQ(Run({"get", "k"}),
            Err("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT "
                "/ RESET are allowed in this context"));
  EXPECT_EQ(Run({"config", "get", "x"}),
            Err("ERR Can't execute 'config|get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING "
                "/ QUIT / RESET are allowed in this context"));
  EXPECT_EQ(Run({"ping"}), "*2\r\n" + Bulk("pong") + Bulk(""));
  EXPECT_EQ(Run({"ping", "hi"}), "*2\r\n" + Bulk("pong") + Bulk("hi"));
  EXPECT_EQ(Run({"reset"}), "+RESET\r\n");
  EXPECT_EQ(Run({"ping"}), "+PONG\r\n");
  EXPECT_EQ(Run({"publish", "c", "x"}), Int(0));  // RESET dropped the subscription
}

TEST_F(PubSubTest, ShardChannelsAreTheirOwnNamespace) {
  RunOther({"ssubscribe", "s"});
  EXPECT_EQ(Run({"publish", "s", "x"}), Int(0));
  EXPECT_EQ(Run({"spublish", "s", "y"}), Int(1));
  EXPECT_EQ(TakeOther(), "*3\r\n" + Bulk("smessage") + Bulk("s") + Bulk("y"));
  EXPECT_EQ(Run({"pubsub", "shardchannels"}), "*1\r\n" + Bulk("s"));
  EXPECT_EQ(Run({"pubsub", "shardnumsub", "s", "t"}),
            "*4\r\n" + Bulk("s") + Int(1) + Bulk("t") + Int(0));
  EXPECT_EQ(Run({"pubsub", "channels"}), "*0\r\n");
}

TEST_F(PubSubTest, PubSubIntrospection) {
  RunOther({"subscribe", "abc", "abd", "x"});
  RunOther({"psubscribe", "a*", "b*"});
  client_->resp = 3;  // a RESP3 subscriber may run any command
  Run({"psubscribe", "a*"});
  EXPECT_EQ(Run({"pubsub", "numpat"}), Int(2));
  EXPECT_EQ(Run({"pubsub", "numsub", "abc", "nope"}),
            "*4\r\n" + Bulk("abc") + Int(1) + Bulk("nope") + Int(0));
  EXPECT_EQ(Run({"pubsub", "channels", "x"}), "*1\r\n" + Bulk("x"));
  std::string all = Run({"pubsub", "channels"});
  EXPECT_EQ(all.substr(0, 4), "*3\r\n");
  EXPECT_EQ(Run({"pubsub", "channels", "a", "b"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB "
                "HELP."));
  EXPECT_EQ(Run({"pubsub", "numpat", "x"}),
            Err("ERR wrong number of arguments for 'pubsub|numpat' command"));
  EXPECT_EQ(Run({"publish", "a"}), Err("ERR wrong number of arguments for 'publish' command"));
  // A client that goes away leaves no subscription behind.
  server_->pubsub().RemoveClient(other_.get());
  EXPECT_EQ(Run({"pubsub", "numpat"}), Int(1));
  EXPECT_EQ(Run({"pubsub", "channels"}), "*0\r\n");
}

TEST_F(PubSubTest, EmptyPatternMatchesOnlyTheEmptyChannel) {
  RunOther({"psubscribe", ""});
  EXPECT_EQ(Run({"publish", "a", "x"}), Int(0));
  EXPECT_EQ(Run({"publish", "", "x"}), Int(1));
  EXPECT_EQ(TakeOther(), "*4\r\n" + Bulk("pmessage") + Bulk("") + Bulk("") + Bulk("x"));
}

TEST_F(PubSubTest, KeyspaceNotifications) {
  RunOther({"psubscribe", "__key*__:*"});
  Run({"set", "k", "v"});
  EXPECT_EQ(TakeOther(), "");  // off by default
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KEA"}), kOk);
  EXPECT_EQ(Run({"config", "get", "notify-keyspace-events"}),
            "*2\r\n" + Bulk("notify-keyspace-events") + Bulk("AKE"));
  Run({"set", "k", "v"});
  auto pm = [](const std::string& ch, const std::string& msg) {
    return "*4\r\n" + Bulk("pmessage") + Bulk("__key*__:*") + Bulk(ch) + Bulk(msg);
  };
  EXPECT_EQ(TakeOther(), pm("__keyspace@0__:k", "set") + pm("__keyevent@0__:set", "k"));
  Run({"config", "set", "notify-keyspace-events", "El"});
  Run({"rpush", "l", "a"});
  Run({"set", "s", "x"});  // strings are off now
  Run({"lpop", "l"});
  EXPECT_EQ(TakeOther(), pm("__keyevent@0__:rpush", "l") + pm("__keyevent@0__:lpop", "l"));
  Run({"config", "set", "notify-keyspace-events", "Kg"});
  Run({"select", "3"});
  Run({"set", "a", "1"});
  Run({"del", "a", "missing"});
  EXPECT_EQ(TakeOther(), pm("__keyspace@3__:a", "del"));
}

TEST_F(PubSubTest, KeyMissEventsOfAnArrayReplyFollowIt) {
  client_->resp = 3;
  Run({"config", "set", "notify-keyspace-events", "Em"});
  Run({"subscribe", "__keyevent@0__:keymiss"});
  Run({"set", "a", "1"});
  EXPECT_EQ(Run({"mget", "x", "a", "y"}),
            "*3\r\n_\r\n" + Bulk("1") + "_\r\n" + Message("__keyevent@0__:keymiss", "x", '>') +
                Message("__keyevent@0__:keymiss", "y", '>'));
}

TEST_F(PubSubTest, ExpiredAndNewEvents) {
  RunOther({"subscribe", "__keyevent@0__:expired", "__keyevent@0__:new"});
  Run({"config", "set", "notify-keyspace-events", "Exn"});
  Run({"set", "k", "v", "px", "1"});
  EXPECT_EQ(TakeOther(), Message("__keyevent@0__:new", "k"));
  Run({"debug", "sleep", "0.01"});
  EXPECT_EQ(Run({"get", "k"}), kNil);  // lazy expiry fires the event
  EXPECT_EQ(TakeOther(), Message("__keyevent@0__:expired", "k"));
}

TEST_F(PubSubTest, ClientListShowsSubscriptions) {
  Run({"subscribe", "a", "b"});
  Run({"psubscribe", "p"});
  Run({"ssubscribe", "s"});
  Run({"reset"});
  other_->resp = 3;  // CLIENT INFO is refused to a RESP2 subscriber
  RunOther({"subscribe", "a", "b"});
  RunOther({"psubscribe", "p"});
  RunOther({"ssubscribe", "s"});
  std::string info = RunOther({"client", "info"});
  EXPECT_NE(info.find(" flags=P "), std::string::npos) << info;
  EXPECT_NE(info.find(" sub=2 psub=1 ssub=1 "), std::string::npos) << info;
}

TEST(NotifyFlagsTest, ParseAndCanonicalForm) {
  uint32_t f = 0;
  ASSERT_TRUE(ParseNotifyFlags("KEA", &f));
  EXPECT_EQ(FormatNotifyFlags(f), "AKE");
  ASSERT_TRUE(ParseNotifyFlags("E$", &f));
  EXPECT_EQ(FormatNotifyFlags(f), "$E");
  ASSERT_TRUE(ParseNotifyFlags("Kg$lshzxetdnm", &f));
  EXPECT_EQ(FormatNotifyFlags(f), "AKm");  // as Valkey: 'n' is hidden behind A
  ASSERT_TRUE(ParseNotifyFlags("glK", &f));
  EXPECT_EQ(FormatNotifyFlags(f), "glK");
  ASSERT_TRUE(ParseNotifyFlags("", &f));
  EXPECT_EQ(f, 0u);
  EXPECT_FALSE(ParseNotifyFlags("KQ", &f));
}

TEST_F(PubSubTest, ConfigErrors) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "Q"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
                "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."));
  EXPECT_EQ(Run({"config", "get", "client-output-buffer-limit"}),
            "*2\r\n" + Bulk("client-output-buffer-limit") +
                Bulk("normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"));
  EXPECT_EQ(Run({"config", "set", "client-output-buffer-limit", "pubsub 1mb 0 0 replica 1 2 3"}),
            kOk);
  EXPECT_EQ(Run({"config", "get", "client-output-buffer-limit"}),
            "*2\r\n" + Bulk("client-output-buffer-limit") +
                Bulk("normal 0 0 0 slave 1 2 3 pubsub 1048576 0 0"));
  const std::string prefix =
      "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - ";
  EXPECT_EQ(Run({"config", "set", "client-output-buffer-limit", "foo 1 2 3"}),
            Err(prefix + "Invalid client class specified in buffer limit configuration."));
  EXPECT_EQ(Run({"config", "set", "client-output-buffer-limit", "normal 1 2"}),
            Err(prefix + "Wrong number of arguments in buffer limit configuration."));
  EXPECT_EQ(Run({"config", "set", "client-output-buffer-limit", "normal x 2 3"}),
            Err(prefix + "Error in hard, soft or soft_seconds setting in buffer limit "
                         "configuration."));
}

TEST(OutputLimitsTest, HardAndSoftLimits) {
  OutputBufferLimit l{1000, 100, 2};
  int64_t since = 0;
  EXPECT_FALSE(OutputLimitExceeded(l, 50, 10000, &since));
  EXPECT_TRUE(OutputLimitExceeded(l, 1000, 10000, &since));
  // Over the soft limit: only a stay longer than soft_seconds counts.
  EXPECT_FALSE(OutputLimitExceeded(l, 200, 10000, &since));
  EXPECT_EQ(since, 10000);
  EXPECT_FALSE(OutputLimitExceeded(l, 200, 11500, &since));
  EXPECT_TRUE(OutputLimitExceeded(l, 200, 12500, &since));
  // Dropping below resets the clock.
  EXPECT_FALSE(OutputLimitExceeded(l, 10, 13000, &since));
  EXPECT_EQ(since, 0);
  OutputBufferLimit none;
  EXPECT_FALSE(OutputLimitExceeded(none, 1ull << 40, 0, &since));
}

TEST_F(PubSubTest, SubscriberOverItsLimitIsClosed) {
  Run({"config", "set", "client-output-buffer-limit", "pubsub 1000 0 0"});
  RunOther({"subscribe", "c"});
  Run({"publish", "c", std::string(600, 'x')});
  EXPECT_EQ(other_->flags & kClientCloseAsap, 0u);
  Run({"publish", "c", std::string(600, 'x')});
  EXPECT_NE(other_->flags & kClientCloseAsap, 0u);
  EXPECT_EQ(server_->stats().client_output_buffer_limit_disconnections, 1u);
  // Nothing more is queued for a client on its way out.
  size_t before = other_->conn.PendingOutput();
  Run({"publish", "c", "y"});
  EXPECT_EQ(other_->conn.PendingOutput(), before);
}

}  // namespace
}  // namespace vireo
