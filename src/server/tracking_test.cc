#include "server/tracking.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands/command_table.h"
#include "server/client.h"

namespace vireo {
namespace {

// The table with its hooks pointing at in-memory clients; delivered frames are recorded.
class TrackingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tracking_.SetHooks({this,
                        [](void* self, uint64_t id) -> Client* {
                          auto& all = static_cast<TrackingTest*>(self)->clients_;
                          auto it = all.find(id);
                          return it == all.end() ? nullptr : it->second.get();
                        },
                        [](void* self, Client* c, std::string_view frame) {
                          static_cast<TrackingTest*>(self)->sent_.emplace_back(c->id, frame);
                        }});
    get_.name = "get";
    get_.flags = kCmdReadonly;
    get_.first_key = 1;
    get_.last_key = 1;
    get_.key_step = 1;
    mget_ = get_;
    mget_.name = "mget";
    mget_.last_key = -1;
  }

  Client* Connect(uint64_t id, int resp = 3) {
    auto c = std::make_unique<Client>(id, -1);
    c->resp = resp;
    Client* p = c.get();
    clients_[id] = std::move(c);
    return p;
  }
  void Read(Client* c, const CommandSpec& spec, std::vector<std::string_view> args) {
    tracking_.RememberKeys(c, spec, args);
  }
  // Frames delivered since the last call, as (client id, frame).
  std::vector<std::pair<uint64_t, std::string>> Sent() { return std::exchange(sent_, {}); }

  static std::string Inv(const std::string& keys) { return "*2\r\n$10\r\ninvalidate\r\n" + keys; }

  Tracking tracking_;
  std::map<uint64_t, std::unique_ptr<Client>> clients_;
  std::vector<std::pair<uint64_t, std::string>> sent_;
  CommandSpec get_, mget_;
};

TEST_F(TrackingTest, IdleUntilSomethingIsTracked) {
  EXPECT_FALSE(tracking_.Armed());
  Client* a = Connect(1);
  tracking_.Enable(a, 0, 0, {});
  EXPECT_FALSE(tracking_.Armed());  // a client alone costs writes nothing
  EXPECT_EQ(tracking_.ClientCount(), 1u);
  Read(a, get_, {"get", "k"});
  EXPECT_TRUE(tracking_.Armed());
}

TEST_F(TrackingTest, InvalidatesReadersOnceAndForgetsTheKey) {
  Client* a = Connect(1);
  Client* b = Connect(2);
  tracking_.Enable(a, 0, 0, {});
  tracking_.Enable(b, 0, 0, {});
  Read(a, mget_, {"mget", "k1", "k2", "k1"});
  Read(b, get_, {"get", "k1"});
  EXPECT_EQ(tracking_.KeyCount(), 2u);
  EXPECT_EQ(tracking_.ItemCount(), 3u);
  tracking_.Invalidate("k1", nullptr);
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0], std::make_pair(uint64_t{1}, Inv("*1\r\n$2\r\nk1\r\n")));
  EXPECT_EQ(sent[1].first, 2u);
  EXPECT_EQ(tracking_.KeyCount(), 1u);
  EXPECT_EQ(tracking_.ItemCount(), 1u);
  tracking_.Invalidate("k1", nullptr);
  EXPECT_TRUE(Sent().empty());
}

TEST_F(TrackingTest, NoloopSkipsTheWriterAndDisabledClientsHearNothing) {
  Client* a = Connect(1);
  Client* b = Connect(2);
  tracking_.Enable(a, 0, kClientTrackingNoloop, {});
  tracking_.Enable(b, 0, 0, {});
  Read(a, get_, {"get", "k"});
  Read(b, get_, {"get", "k"});
  tracking_.Disable(b);
  EXPECT_EQ(b->flags & kClientTracking, 0u);
  tracking_.Invalidate("k", a);
  EXPECT_TRUE(Sent().empty());
  EXPECT_EQ(tracking_.KeyCount(), 0u);
}

TEST_F(TrackingTest, OptinAndOptoutFollowCaching) {
  Client* in = Connect(1);
  Client* out = Connect(2);
  tracking_.Enable(in, 0, kClientTrackingOptin, {});
  tracking_.Enable(out, 0, kClientTrackingOptout, {});
  Read(in, get_, {"get", "a"});
  Read(out, get_, {"get", "a"});
  EXPECT_EQ(tracking_.ItemCount(), 1u);  // only the OPTOUT client
  in->flags |= kClientTrackingCaching;
  out->flags |= kClientTrackingCaching;
  Read(in, get_, {"get", "b"});
  Read(out, get_, {"get", "b"});
  tracking_.Invalidate("b", nullptr);
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].first, 1u);
}

TEST_F(TrackingTest, Resp2RedirectBecomesAPubSubMessage) {
  Client* sub = Connect(5, 2);
  sub->flags |= kClientPubSub;
  Client* a = Connect(1, 2);
  tracking_.Enable(a, 5, 0, {});
  Read(a, get_, {"get", "k"});
  tracking_.Invalidate("k", nullptr);
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0], std::make_pair(uint64_t{5}, std::string("*3\r\n$7\r\nmessage\r\n$20\r\n"
                                                             "__redis__:invalidate\r\n*1\r\n"
                                                             "$1\r\nk\r\n")));
  // A RESP2 client without a redirect has no way to be told.
  Client* plain = Connect(2, 2);
  tracking_.Enable(plain, 0, 0, {});
  Read(plain, get_, {"get", "k"});
  tracking_.Invalidate("k", nullptr);
  EXPECT_TRUE(Sent().empty());
}

TEST_F(TrackingTest, BrokenRedirectIsReportedToResp3Clients) {
  Connect(7);
  Client* a = Connect(1);
  tracking_.Enable(a, 7, 0, {});
  clients_.erase(7);
  Read(a, get_, {"get", "k"});
  tracking_.Invalidate("k", nullptr);
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0], std::make_pair(uint64_t{1},
                                    std::string("*2\r\n$21\r\ntracking-redir-broken\r\n:7\r\n")));
  EXPECT_TRUE(a->flags & kClientTrackingBrokenRedir);
}

TEST_F(TrackingTest, FlushSendsOneNullPerCommand) {
  Client* a = Connect(1);
  Client* b = Connect(2, 2);
  Connect(9, 2)->flags |= kClientPubSub;
  tracking_.Enable(a, 0, 0, {});
  tracking_.Enable(b, 9, 0, {});
  Read(a, get_, {"get", "k"});
  tracking_.InvalidateAll(42);
  tracking_.InvalidateAll(42);  // FLUSHALL: the same command empties the next database
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0], std::make_pair(uint64_t{1}, Inv("_\r\n")));
  EXPECT_EQ(sent[1].first, 9u);
  EXPECT_EQ(sent[1].second.substr(sent[1].second.size() - 5), "$-1\r\n");
  EXPECT_EQ(tracking_.KeyCount(), 0u);
  tracking_.InvalidateAll(43);
  EXPECT_EQ(Sent().size(), 2u);
}

TEST_F(TrackingTest, BroadcastGroupsKeysPerPrefixInKeyOrder) {
  Client* a = Connect(1);
  Client* n = Connect(2);
  tracking_.Enable(a, 0, kClientTrackingBcast, {"x", "y"});
  tracking_.Enable(n, 0, kClientTrackingBcast | kClientTrackingNoloop, {"x"});
  EXPECT_EQ(tracking_.PrefixCount(), 2u);
  EXPECT_EQ(tracking_.PrefixesOf(*a), (std::vector<std::string>{"x", "y"}));
  tracking_.Invalidate("x2", nullptr);
  tracking_.Invalidate("x1", n);
  tracking_.Invalidate("y", nullptr);
  tracking_.Invalidate("z", nullptr);
  EXPECT_TRUE(Sent().empty());  // sent at the end of the loop turn
  tracking_.BroadcastPending();
  auto sent = Sent();
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0], std::make_pair(uint64_t{1}, Inv("*2\r\n$2\r\nx1\r\n$2\r\nx2\r\n")));
  EXPECT_EQ(sent[1], std::make_pair(uint64_t{2}, Inv("*1\r\n$2\r\nx2\r\n")));  // NOLOOP
  EXPECT_EQ(sent[2], std::make_pair(uint64_t{1}, Inv("*1\r\n$1\r\ny\r\n")));
  tracking_.BroadcastPending();
  EXPECT_TRUE(Sent().empty());
  tracking_.Disable(a);
  EXPECT_EQ(tracking_.PrefixCount(), 1u);
  tracking_.Disable(n);
  EXPECT_FALSE(tracking_.Armed());
}

TEST_F(TrackingTest, PrefixOverlapErrors) {
  Client* a = Connect(1);
  EXPECT_EQ(tracking_.CheckPrefixes(*a, {"fo", "bar", "foo"}),
            "Prefix 'fo' overlaps with another provided prefix 'foo'. Prefixes for a single "
            "client must not overlap.");
  tracking_.Enable(a, 0, kClientTrackingBcast, {"ab"});
  EXPECT_EQ(tracking_.CheckPrefixes(*a, {"c", "a"}),
            "Prefix 'a' overlaps with an existing prefix 'ab'. Prefixes for a single client "
            "must not overlap.");
  EXPECT_EQ(tracking_.CheckPrefixes(*a, {"b", "c"}), "");
}

TEST_F(TrackingTest, LimitEvictsKeysWithInvalidations) {
  Client* a = Connect(1);
  tracking_.Enable(a, 0, 0, {});
  for (int i = 0; i < 10; ++i) {
    std::string key = "k" + std::to_string(i);
    Read(a, get_, {"get", key});
  }
  tracking_.EnforceLimit(0);  // no limit
  EXPECT_EQ(tracking_.KeyCount(), 10u);
  tracking_.EnforceLimit(4);
  EXPECT_EQ(tracking_.KeyCount(), 4u);
  EXPECT_EQ(Sent().size(), 6u);
}

}  // namespace
}  // namespace vireo
