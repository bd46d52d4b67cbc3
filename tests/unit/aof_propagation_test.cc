// Propagation in-process: a recording sink on the server's Propagator sees what the AOF and
// replicas would get for each command (rewrites, MULTI/EXEC wrapping, nothing for reads).
#include <string>
#include <vector>

#include "command_fixture.h"
#include "server/propagate.h"

namespace vireo {
namespace {

class RecordingSink : public PropagationSink {
 public:
  void Feed(int db, const std::string_view* args, size_t argc) override {
    std::string line = std::to_string(db) + ":";
    for (size_t i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(args[i]);
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

class PropagationTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    server_->propagator().AddSink(&sink_);
  }
  void TearDown() override {
    server_->propagator().RemoveSink(&sink_);
    CommandTest::TearDown();
  }
  std::vector<std::string> Take() {
    std::vector<std::string> out;
    out.swap(sink_.lines);
    return out;
  }
  RecordingSink sink_;
};

TEST_F(PropagationTest, WritesPropagateReadsDoNot) {
  Run({"set", "k", "v"});
  Run({"get", "k"});
  Run({"del", "missing"});
  EXPECT_EQ(Take(), (std::vector<std::string>{"0:set k v"}));
}

TEST_F(PropagationTest, RelativeCommandsPropagateTheirEffect) {
  Run({"set", "k", "v"});
  Run({"expire", "k", "100"});
  Run({"incrbyfloat", "f", "1.5"});
  Run({"sadd", "s", "only"});
  Run({"spop", "s"});
  Run({"expire", "k", "-1"});
  std::vector<std::string> got = Take();
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[1].rfind("0:PEXPIREAT k 1", 0), 0u) << got[1];
  EXPECT_EQ(got[2], "0:SET f 1.5 KEEPTTL");
  EXPECT_EQ(got[4], "0:SREM s only");
  EXPECT_EQ(got[5], "0:UNLINK k");  // lazyfree-lazy-expire yes, Valkey 8's default
}

// IFEQ is decided on the primary (and a Redis 7.0 replica would refuse it); DELIFEQ becomes a
// DEL; neither propagates when nothing changed.
TEST_F(PropagationTest, ConditionalStringWritesPropagateTheirEffect) {
  Run({"set", "k", "v"});
  Run({"set", "k", "w", "ifeq", "nope"});
  Run({"set", "k", "w", "ifeq", "v", "keepttl"});
  Run({"set", "k", "ifeq", "IFEQ", "w", "get"});
  Run({"delifeq", "k", "nope"});
  Run({"delifeq", "k", "ifeq"});
  EXPECT_EQ(Take(), (std::vector<std::string>{"0:set k v", "0:set k w keepttl", "0:set k ifeq",
                                              "0:DEL k"}));
}

TEST_F(PropagationTest, TransactionsWrapOnlyWhenMoreThanOne) {
  Run({"multi"});
  Run({"set", "a", "1"});
  Run({"get", "a"});
  Run({"exec"});
  Run({"multi"});
  Run({"set", "a", "1"});
  Run({"select", "2"});
  Run({"set", "b", "2"});
  Run({"exec"});
  EXPECT_EQ(Take(),
            (std::vector<std::string>{"0:set a 1", "0:MULTI", "0:set a 1", "2:set b 2", "2:EXEC"}));
}

TEST_F(PropagationTest, ScriptsPropagateTheirWrites) {
  Run({"eval", "redis.call('set','a','1'); redis.call('incr','a'); return 1", "0"});
  Run({"eval", "return redis.call('get','a')", "0"});
  EXPECT_EQ(Take(), (std::vector<std::string>{"0:MULTI", "0:set a 1", "0:incr a", "0:EXEC"}));
}

TEST_F(PropagationTest, NothingWithoutSinksOrWhileSuspended) {
  server_->propagator().Suspend(true);
  Run({"set", "k", "v"});
  server_->propagator().Suspend(false);
  server_->propagator().RemoveSink(&sink_);
  EXPECT_FALSE(server_->propagator().active());
  Run({"set", "k", "v"});
  EXPECT_TRUE(Take().empty());
}

}  // namespace
}  // namespace vireo
