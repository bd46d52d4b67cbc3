// MULTI/EXEC/DISCARD/WATCH/UNWATCH, in process: queuing, aborts, WATCH invalidation by other
// clients' writes, expiry, flushes and SWAPDB, and the stats and CLIENT LIST fields.
#include "server/transaction.h"

#include <memory>
#include <string>
#include <vector>

#include "command_fixture.h"

namespace vireo {
namespace {

class TransactionTest : public CommandTest {
 protected:
  void SetUp() override {
    CommandTest::SetUp();
    other_ = std::make_unique<Client>(2, -1);
    other_->authenticated = true;
  }

  // Runs one command as the second client.
  std::string Other(const std::vector<std::string>& argv) {
    std::string* out = other_->conn.Output();
    out->clear();
    other_->args.assign(argv.begin(), argv.end());
    server_->Execute(other_.get());
    other_->args.clear();
    return *out;
  }

  // Makes key's expiry pass without deleting it, as if time went by.
  void ExpireNow(const std::string& key, int db = 0) {
    Entry* e = server_->db(db)->FindRaw(key);
    ASSERT_NE(e, nullptr);
    (void)server_->db(db)->SetExpire(e, 1);
  }

  static constexpr const char* kQueued = "+QUEUED\r\n";
  static constexpr const char* kNullArray = "*-1\r\n";
  static constexpr const char* kExecAbort =
      "-EXECABORT Transaction discarded because of previous errors.\r\n";

  std::unique_ptr<Client> other_;
};

TEST_F(TransactionTest, QueuesThenRunsInOrder) {
  EXPECT_EQ(Run({"multi"}), kOk);
  EXPECT_EQ(Run({"set", "k", "v"}), kQueued);
  EXPECT_EQ(Run({"append", "k", "w"}), kQueued);
  EXPECT_EQ(Run({"get", "k"}), kQueued);
  EXPECT_EQ(Other({"exists", "k"}), Int(0));  // nothing ran yet
  EXPECT_EQ(Run({"exec"}), "*3\r\n+OK\r\n:2\r\n$2\r\nvw\r\n");
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
}

TEST_F(TransactionTest, EmptyTransaction) {
  EXPECT_EQ(Run({"multi"}), kOk);
  EXPECT_EQ(Run({"exec"}), "*0\r\n");
}

TEST_F(TransactionTest, WithoutMultiErrors) {
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(Run({"discard"}), Err("ERR DISCARD without MULTI"));
}

TEST_F(TransactionTest, DiscardDropsTheQueue) {
  Run({"multi"});
  EXPECT_EQ(Run({"set", "k", "v"}), kQueued);
  EXPECT_EQ(Run({"discard"}), kOk);
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"discard"}), Err("ERR DISCARD without MULTI"));
}

// MULTI and WATCH are no-multi commands in Valkey 8: refused, and the transaction fails.
TEST_F(TransactionTest, NestedMultiIsRefusedAndAbortsExec) {
  Run({"multi"});
  EXPECT_EQ(Run({"multi"}), Err("ERR Command not allowed inside a transaction"));
  EXPECT_EQ(Run({"set", "k", "v"}), kQueued);
  EXPECT_EQ(Run({"exec"}), kExecAbort);
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(TransactionTest, WatchInsideMultiIsRefusedAndAbortsExec) {
  Run({"multi"});
  EXPECT_EQ(Run({"watch", "k"}), Err("ERR Command not allowed inside a transaction"));
  EXPECT_EQ(Run({"set", "k", "v"}), kQueued);
  EXPECT_EQ(Run({"exec"}), kExecAbort);
}

TEST_F(TransactionTest, QueuingErrorsAbortExec) {
  Run({"multi"});
  EXPECT_EQ(Run({"set", "k", "v"}), kQueued);
  EXPECT_EQ(Run({"nosuchcmd", "a"}),
            Err("ERR unknown command 'nosuchcmd', with args beginning with: 'a' "));
  EXPECT_EQ(Run({"get", "k"}), kQueued);  // still queued after the error, as in Valkey
  EXPECT_EQ(Run({"exec"}), kExecAbort);
  EXPECT_EQ(Run({"exists", "k"}), Int(0));

  Run({"multi"});
  EXPECT_EQ(Run({"set", "k"}), Err("ERR wrong number of arguments for 'set' command"));
  EXPECT_EQ(Run({"exec"}), kExecAbort);

  Run({"multi"});
  EXPECT_EQ(Run({"config", "nosuch"}), Err("ERR unknown subcommand 'nosuch'. Try CONFIG HELP."));
  EXPECT_EQ(Run({"exec"}), kExecAbort);
}

TEST_F(TransactionTest, NoMultiCommandsAreRefused) {
  Run({"multi"});
  EXPECT_EQ(Run({"shutdown"}), Err("ERR Command not allowed inside a transaction"));
  EXPECT_EQ(Run({"exec"}), kExecAbort);
}

TEST_F(TransactionTest, RuntimeErrorsDoNotAbort) {
  Run({"set", "s", "x"});
  Run({"multi"});
  EXPECT_EQ(Run({"lpush", "s", "a"}), kQueued);
  EXPECT_EQ(Run({"incr", "s"}), kQueued);
  EXPECT_EQ(Run({"set", "t", "1"}), kQueued);
  EXPECT_EQ(Run({"exec"}),
            "*3\r\n-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
            "-ERR value is not an integer or out of range\r\n+OK\r\n");
  EXPECT_EQ(Run({"get", "t"}), Bulk("1"));
}

TEST_F(TransactionTest, ExecWithArgumentsEndsTheTransaction) {
  Run({"multi"});
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"exec", "x"}),
            Err("EXECABORT Transaction discarded because of: wrong number of arguments for "
                "'exec' command"));
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  // Outside MULTI too, as in Valkey; only the EXECABORT is counted.
  EXPECT_EQ(Run({"exec", "x"}),
            Err("EXECABORT Transaction discarded because of: wrong number of arguments for "
                "'exec' command"));
  EXPECT_EQ(server_->stats().error_codes.count("ERR"), 1u);  // the second EXEC without MULTI
  EXPECT_EQ(server_->stats().error_codes["EXECABORT"], 2u);
}

TEST_F(TransactionTest, DiscardWithArgumentsKeepsTheTransaction) {
  Run({"multi"});
  EXPECT_EQ(Run({"discard", "x"}), Err("ERR wrong number of arguments for 'discard' command"));
  EXPECT_EQ(Run({"exec"}), kExecAbort);
}

TEST_F(TransactionTest, SelectInsideTransaction) {
  Run({"multi"});
  Run({"select", "1"});
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"exec"}), "*2\r\n+OK\r\n+OK\r\n");
  EXPECT_EQ(client_->db_index, 1);
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
}

TEST_F(TransactionTest, BlockingCommandsDoNotBlock) {
  Run({"multi"});
  EXPECT_EQ(Run({"blpop", "nolist", "0"}), kQueued);
  EXPECT_EQ(Run({"brpoplpush", "nolist", "dst", "0"}), kQueued);
  EXPECT_EQ(Run({"bzpopmin", "nozset", "0"}), kQueued);
  EXPECT_EQ(Run({"xread", "block", "0", "streams", "nostream", "$"}), kQueued);
  EXPECT_EQ(Run({"rpush", "l", "a"}), kQueued);
  EXPECT_EQ(Run({"blpop", "l", "0"}), kQueued);
  EXPECT_EQ(Run({"exec"}), "*6\r\n*-1\r\n$-1\r\n*-1\r\n*-1\r\n:1\r\n*2\r\n$1\r\nl\r\n$1\r\na\r\n");
  EXPECT_FALSE(client_->flags & kClientBlocked);
  EXPECT_FALSE(client_->flags & kClientDenyBlocking);
}

TEST_F(TransactionTest, MonitorInsideExecIsRefused) {
  Run({"multi"});
  EXPECT_EQ(Run({"monitor"}), kQueued);
  EXPECT_EQ(Run({"exec"}), "*1\r\n-ERR MONITOR isn't allowed for DENY BLOCKING client\r\n");
  EXPECT_FALSE(client_->flags & kClientMonitor);
}

TEST_F(TransactionTest, WatchUntouchedKeyLetsExecRun) {
  Run({"set", "k", "1"});
  EXPECT_EQ(Run({"watch", "k", "absent"}), kOk);
  Other({"set", "unrelated", "x"});
  Other({"get", "k"});  // reads do not count
  Run({"multi"});
  Run({"incr", "k"});
  EXPECT_EQ(Run({"exec"}), "*1\r\n:2\r\n");
}

TEST_F(TransactionTest, WatchedKeyWrittenByAnotherClientFailsExec) {
  Run({"set", "k", "1"});
  Run({"watch", "k"});
  EXPECT_EQ(Other({"set", "k", "2"}), kOk);
  Run({"multi"});
  Run({"incr", "k"});
  EXPECT_EQ(Run({"exec"}), kNullArray);
  EXPECT_EQ(Run({"get", "k"}), Bulk("2"));
  // The watch is gone after the failed EXEC.
  Other({"set", "k", "3"});
  Run({"multi"});
  Run({"incr", "k"});
  EXPECT_EQ(Run({"exec"}), "*1\r\n:4\r\n");
}

TEST_F(TransactionTest, WatchedKeyCreatedOrDeletedFailsExec) {
  Run({"watch", "absent"});
  Other({"rpush", "absent", "x"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), kNullArray);

  Run({"set", "k", "v"});
  Run({"watch", "k"});
  Other({"del", "k"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), kNullArray);
}

TEST_F(TransactionTest, OwnWriteBeforeMultiFailsExec) {
  Run({"watch", "k"});
  Run({"set", "k", "v"});
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), kNullArray);
}

TEST_F(TransactionTest, TransactionsOwnWritesDoNotFailIt) {
  Run({"watch", "k"});
  Run({"multi"});
  Run({"set", "k", "v"});
  Run({"set", "k", "w"});
  EXPECT_EQ(Run({"exec"}), "*2\r\n+OK\r\n+OK\r\n");
}

TEST_F(TransactionTest, WatchInOtherDbIsSeparate) {
  Run({"watch", "k"});  // db 0
  Other({"select", "1"});
  Other({"set", "k", "v"});
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), "*1\r\n+PONG\r\n");
}

TEST_F(TransactionTest, UnwatchAndDiscardForgetWatches) {
  Run({"watch", "k"});
  Other({"set", "k", "1"});
  EXPECT_EQ(Run({"unwatch"}), kOk);  // also clears the mark
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), "*1\r\n+PONG\r\n");

  Run({"watch", "k"});
  Run({"multi"});
  Run({"discard"});
  Other({"set", "k", "2"});
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), "*1\r\n+PONG\r\n");
}

TEST_F(TransactionTest, QueuingErrorWinsOverTouchedKey) {
  Run({"watch", "k"});
  Other({"set", "k", "1"});
  Run({"multi"});
  Run({"nosuch"});
  EXPECT_EQ(Run({"exec"}), kExecAbort);
}

TEST_F(TransactionTest, RenameMoveCopyTargetsTouchWatchers) {
  Run({"set", "src", "v"});
  Run({"watch", "dst"});
  Other({"rename", "src", "dst"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), kNullArray);

  Run({"watch", "dst2"});
  Other({"copy", "dst", "dst2"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), kNullArray);

  // MOVE into db 1, where the watcher watches.
  Run({"select", "1"});
  Run({"watch", "dst"});
  EXPECT_EQ(Other({"move", "dst", "1"}), Int(1));
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), kNullArray);
}

TEST_F(TransactionTest, FlushTouchesOnlyExistingWatchedKeys) {
  Run({"watch", "absent"});
  Other({"set", "other", "v"});
  Other({"flushall"});
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), "*1\r\n+PONG\r\n");

  Run({"set", "k", "v"});
  Run({"watch", "k"});
  Other({"flushdb"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), kNullArray);

  Run({"set", "k", "v"});
  Run({"watch", "k"});
  Other({"flushall"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), kNullArray);
}

TEST_F(TransactionTest, SwapDbTouchesKeysPresentOnEitherSide) {
  Other({"select", "1"});
  Other({"set", "k", "v"});
  Run({"watch", "k"});  // absent in db 0, present in db 1
  Other({"swapdb", "0", "1"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), kNullArray);

  Run({"flushall"});
  Run({"watch", "absent"});
  Other({"swapdb", "0", "1"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), "*0\r\n");
}

TEST_F(TransactionTest, WatchedKeyExpiringBeforeExecFailsIt) {
  Run({"set", "k", "v"});
  Run({"watch", "k"});
  ExpireNow("k");
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), kNullArray);
}

TEST_F(TransactionTest, WatchedKeyExpiredAndDeletedFailsIt) {
  Run({"set", "k", "v"});
  Run({"watch", "k"});
  ExpireNow("k");
  EXPECT_EQ(Other({"exists", "k"}), Int(0));  // lazy expiry deletes it
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), kNullArray);
}

TEST_F(TransactionTest, KeyExpiredAtWatchTimeDoesNotFailExec) {
  Run({"set", "k", "v"});
  ExpireNow("k");
  Run({"watch", "k"});
  EXPECT_EQ(Other({"exists", "k"}), Int(0));  // deleting an expired key is no change
  Run({"multi"});
  Run({"ping"});
  EXPECT_EQ(Run({"exec"}), "*1\r\n+PONG\r\n");

  // But creating it again is.
  Run({"set", "k", "v"});
  ExpireNow("k");
  Run({"watch", "k"});
  Other({"set", "k", "new"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), kNullArray);
}

TEST_F(TransactionTest, Resp3NullForTouchedWatch) {
  Run({"hello", "3"});
  Run({"watch", "k"});
  Other({"set", "k", "v"});
  Run({"multi"});
  EXPECT_EQ(Run({"exec"}), "_\r\n");
}

TEST_F(TransactionTest, ResetEndsTransactionAndWatches) {
  Run({"watch", "k"});
  Run({"multi"});
  Run({"set", "k", "v"});
  EXPECT_EQ(Run({"reset"}), "+RESET\r\n");
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(server_->watches().KeyCount(), 0u);
}

TEST_F(TransactionTest, UnwatchIsQueuedInsideMulti) {
  Run({"multi"});
  EXPECT_EQ(Run({"unwatch"}), kQueued);
  EXPECT_EQ(Run({"exec"}), "*1\r\n+OK\r\n");
}

TEST_F(TransactionTest, WatchCountsForInfo) {
  Run({"watch", "a", "b", "a"});
  Other({"watch", "b", "c"});
  EXPECT_EQ(server_->watches().ClientCount(), 2u);
  EXPECT_EQ(server_->watches().KeyCount(), 3u);
  std::string info = Run({"info", "clients"});
  EXPECT_NE(info.find("watching_clients:2\r\n"), std::string::npos);
  EXPECT_NE(info.find("total_watched_keys:3\r\n"), std::string::npos);
  // A touched watcher stops watching.
  Other({"del", "b"});  // no change: b does not exist, nothing touched
  Run({"set", "a", "1"});
  EXPECT_EQ(server_->watches().ClientCount(), 1u);
  EXPECT_EQ(server_->watches().KeyCount(), 2u);
  Other({"unwatch"});
  EXPECT_EQ(server_->watches().ClientCount(), 0u);
  EXPECT_EQ(server_->watches().KeyCount(), 0u);
}

TEST_F(TransactionTest, ClientListShowsMultiState) {
  EXPECT_EQ(MultiQueueLength(*client_), -1);
  Run({"watch", "k"});
  Other({"set", "k", "1"});
  EXPECT_TRUE(client_->flags & kClientDirtyCas);
  Run({"multi"});
  Run({"set", "a", "1"});
  Run({"get", "a"});
  EXPECT_EQ(MultiQueueLength(*client_), 2);
  EXPECT_GT(MultiMemory(*client_), 0u);
  Run({"discard"});
  EXPECT_EQ(MultiQueueLength(*client_), -1);
  EXPECT_FALSE(client_->flags & kClientDirtyCas);
  EXPECT_EQ(client_->multi, nullptr);
  // CLIENT INFO run by the transaction itself sees it, as in Valkey (flags x, the queue).
  Run({"multi"});
  Run({"set", "a", "1"});
  Run({"client", "info"});
  std::string r = Run({"exec"});
  EXPECT_NE(r.find(" flags=x "), std::string::npos) << r;
  EXPECT_NE(r.find(" multi=2 "), std::string::npos) << r;
  EXPECT_NE(Other({"client", "info"}).find(" multi=-1 "), std::string::npos);
}

TEST_F(TransactionTest, StatsCountQueuedCommandsWhenTheyRun) {
  Run({"config", "resetstat"});
  Run({"set", "s", "x"});
  Run({"multi"});
  Run({"lpush", "s", "a"});
  Run({"incr", "nonnum"});
  Run({"exec"});
  std::string stats = Run({"info", "commandstats"});
  EXPECT_NE(stats.find("cmdstat_exec:calls=1,"), std::string::npos) << stats;
  auto line = [&](const std::string& name) {
    size_t at = stats.find("cmdstat_" + name + ":");
    return at == std::string::npos ? std::string() : stats.substr(at, stats.find("\r\n", at) - at);
  };
  EXPECT_NE(line("exec").find("failed_calls=0"), std::string::npos) << line("exec");
  EXPECT_NE(line("lpush").find("calls=1,"), std::string::npos) << line("lpush");
  EXPECT_NE(line("lpush").find("failed_calls=1"), std::string::npos) << line("lpush");
  EXPECT_NE(line("incr").find("calls=1,"), std::string::npos) << line("incr");
  EXPECT_NE(line("multi").find("calls=1,"), std::string::npos) << line("multi");

  Run({"multi"});
  Run({"nosuch"});
  Run({"exec"});
  stats = Run({"info", "commandstats"});
  EXPECT_NE(line("exec").find("calls=2,"), std::string::npos) << line("exec");
  EXPECT_NE(line("exec").find("failed_calls=1"), std::string::npos) << line("exec");
}

// CLIENT PAUSE WRITE holds an EXEC whose queue writes (test_transactions.py runs it); the
// queue keeps the union of its commands' flags for that.
TEST_F(TransactionTest, QueueRecordsWhetherItWrites) {
  Run({"multi"});
  Run({"get", "k"});
  EXPECT_FALSE(client_->multi->queued_flags & kCmdWrite);
  Run({"set", "k", "v"});
  ASSERT_NE(client_->multi, nullptr);
  EXPECT_TRUE(client_->multi->queued_flags & kCmdWrite);
  Run({"discard"});
}

}  // namespace
}  // namespace vireo
