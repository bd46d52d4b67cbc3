#include "server/blocking.h"

#include <gtest/gtest.h>

#include "server/client.h"

namespace vireo {
namespace {

TEST(BlockTimeout, ParsesSecondsAsValkey) {
  int64_t d;
  std::string err;
  ASSERT_TRUE(ParseBlockTimeout("0", 1000, &d, &err));
  EXPECT_EQ(d, 0);
  ASSERT_TRUE(ParseBlockTimeout("1.5", 1000, &d, &err));
  EXPECT_EQ(d, 2500);
  ASSERT_TRUE(ParseBlockTimeout("0.0001", 1000, &d, &err));  // rounds up to 1 ms
  EXPECT_EQ(d, 1001);
  EXPECT_FALSE(ParseBlockTimeout("abc", 1000, &d, &err));
  EXPECT_EQ(err, "timeout is not a float or out of range");
  EXPECT_FALSE(ParseBlockTimeout("-1", 1000, &d, &err));
  EXPECT_EQ(err, "timeout is negative");
  EXPECT_FALSE(ParseBlockTimeout("inf", 1000, &d, &err));
  EXPECT_EQ(err, "timeout is out of range");
  EXPECT_FALSE(ParseBlockTimeout("9223372036854775", 1000, &d, &err));
  EXPECT_EQ(err, "timeout is out of range");
  // 2^63 ms, even with no clock to add: must not reach the int64_t conversion (armhf, where
  // long double is a double, once let it through).
  err.clear();
  EXPECT_FALSE(ParseBlockTimeout("9223372036854775.808", 0, &d, &err));
  EXPECT_EQ(err, "timeout is out of range");
  ASSERT_TRUE(ParseBlockTimeoutMs("250", 1000, &d, &err));
  EXPECT_EQ(d, 1250);
  EXPECT_FALSE(ParseBlockTimeoutMs("1.5", 1000, &d, &err));
  EXPECT_EQ(err, "timeout is not an integer or out of range");
}

Client* Blocked(uint64_t id, std::vector<std::string> keys, int64_t deadline, bool nokey = false) {
  auto* c = new Client(id, -1);
  c->block = std::make_unique<BlockState>();
  c->block->keys = std::move(keys);
  c->block->deadline_ms = deadline;
  c->block->unblock_on_nokey = nokey;
  return c;
}

TEST(BlockingRegistry, ArrivalOrderReadinessAndDeadlines) {
  BlockingRegistry r;
  r.MarkReady(0, "a");  // nobody waits: ignored
  EXPECT_FALSE(r.HasReady());
  std::unique_ptr<Client> c1(Blocked(1, {"a", "b", "a"}, 500));
  std::unique_ptr<Client> c2(Blocked(2, {"a"}, 0, true));
  r.Add(c1.get());
  r.Add(c2.get());
  EXPECT_EQ(r.BlockedClients(), 2u);
  EXPECT_EQ(r.KeyCount(), 2u);
  EXPECT_EQ(r.NoKeyCount(), 1u);
  EXPECT_EQ(r.Waiters(0, "a"), (std::vector<Client*>{c1.get(), c2.get()}));
  EXPECT_TRUE(r.Waiters(1, "a").empty());  // other database
  r.MarkReady(0, "b");
  r.MarkReady(0, "a");
  r.MarkReady(0, "b");  // once per batch
  auto ready = r.TakeReady();
  ASSERT_EQ(ready.size(), 2u);
  EXPECT_EQ(ready[0].second, "b");
  EXPECT_EQ(ready[1].second, "a");
  EXPECT_EQ(r.NextDeadline(), 500);
  EXPECT_TRUE(r.Expired(499).empty());
  EXPECT_EQ(r.Expired(500), std::vector<Client*>{c1.get()});
  r.Remove(c1.get());
  EXPECT_EQ(r.NextDeadline(), 0);
  EXPECT_EQ(r.KeyCount(), 1u);
  r.Remove(c2.get());
  EXPECT_TRUE(r.Empty());
  EXPECT_EQ(r.NoKeyCount(), 0u);
}

}  // namespace
}  // namespace vireo
