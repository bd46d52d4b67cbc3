// In-process command tests: run commands against a real Server and keyspace without sockets
// and compare the raw RESP reply, e.g. EXPECT_EQ(Run({"set", "k", "v"}), "+OK\r\n").
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "commands/command_table.h"
#include "server/server.h"
#include "store/lazy_free.h"

namespace vireo {

class CommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterAllCommands();
    Config config;
    config.enable_debug_command = "yes";
    config.save.clear();  // FLUSHALL with save points writes dump.rdb, as in Valkey
    server_ = std::make_unique<Server>(config);
    server_->InitForTests();
    client_ = std::make_unique<Client>(1, -1);
    client_->authenticated = true;
  }

  // A value handed to the lazy-free helper by the test's last command may still be half freed
  // when the process exits, which LeakSanitizer reports as a leak.
  void TearDown() override { LazyFreeDrain(); }

  // Runs one command as the test client and returns its raw reply bytes.
  std::string Run(const std::vector<std::string>& argv) {
    std::string* out = client_->conn.Output();
    out->clear();
    client_->args.assign(argv.begin(), argv.end());
    server_->Execute(client_.get());
    client_->args.clear();
    return *out;
  }

  // Shorthands for common reply shapes.
  static std::string Bulk(const std::string& s) {
    return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
  }
  static std::string Int(long long v) { return ":" + std::to_string(v) + "\r\n"; }
  static std::string Err(const std::string& s) { return "-" + s + "\r\n"; }
  // OBJECT IDLETIME of `key` is `seconds`, or one more: the seconds clock may tick between
  // the command that set the clock and this one.
  ::testing::AssertionResult IdleTimeIs(const std::string& key, long long seconds) {
    std::string idle = Run({"object", "idletime", key});
    if (idle == Int(seconds) || idle == Int(seconds + 1)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "object idletime " << key << " = " << idle;
  }
  static constexpr const char* kOk = "+OK\r\n";
  static constexpr const char* kNil = "$-1\r\n";

  std::unique_ptr<Server> server_;
  std::unique_ptr<Client> client_;
};

}  // namespace vireo
