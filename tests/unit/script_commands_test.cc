// EVAL/EVALSHA/SCRIPT in process: commands run through normal dispatch (WATCH, db selection,
// blocking commands answering at once), the cache, and the error texts.
#include <memory>
#include <string>
#include <vector>

#include "command_fixture.h"

namespace vireo {
namespace {

class ScriptCommandsTest : public CommandTest {
 protected:
  std::string Other(const std::vector<std::string>& argv) {
    if (other_ == nullptr) {
      other_ = std::make_unique<Client>(2, -1);
      other_->authenticated = true;
    }
    std::string* out = other_->conn.Output();
    out->clear();
    other_->args.assign(argv.begin(), argv.end());
    server_->Execute(other_.get());
    other_->args.clear();
    return *out;
  }
  std::unique_ptr<Client> other_;
};

constexpr const char* kSetSha = "55b22c0d0cedf3866879ce7c854970626dcef0c3";  // SHA1 of kSet
constexpr const char* kSet = "return redis.call('set', KEYS[1], ARGV[1])";

TEST_F(ScriptCommandsTest, EvalRunsCommandsAndConvertsReplies) {
  EXPECT_EQ(Run({"eval", kSet, "1", "k", "v"}), kOk);
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"eval", "return {1, 'a', 2.9, nil, 5}", "0"}), "*3\r\n:1\r\n$1\r\na\r\n:2\r\n");
  EXPECT_EQ(Run({"eval", "return redis.call('get', 'missing')", "0"}), kNil);
}

TEST_F(ScriptCommandsTest, EvalShaUsesTheCache) {
  EXPECT_EQ(Run({"evalsha", kSetSha, "1", "k", "v"}),
            Err("NOSCRIPT No matching script."));
  EXPECT_EQ(Run({"script", "load", kSet}), Bulk(kSetSha));
  EXPECT_EQ(Run({"script", "exists", kSetSha, "nope"}), "*2\r\n:1\r\n:0\r\n");
  // SHA1 digests are matched case-insensitively.
  std::string upper = kSetSha;
  for (char& ch : upper) ch = static_cast<char>(toupper(ch));
  EXPECT_EQ(Run({"evalsha", upper, "1", "k", "w"}), kOk);
  EXPECT_EQ(Run({"get", "k"}), Bulk("w"));
  EXPECT_EQ(Run({"script", "flush"}), kOk);
  EXPECT_EQ(Run({"script", "exists", kSetSha}), "*1\r\n:0\r\n");
}

TEST_F(ScriptCommandsTest, ArgumentErrors) {
  EXPECT_EQ(Run({"eval", "return 1", "2", "a"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(Run({"eval", "return 1", "-1"}), Err("ERR Number of keys can't be negative"));
  EXPECT_EQ(Run({"eval", "return 1", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"function", "load",
                 "#!lua name=l1\nredis.register_function('f1', function() return 1 end)"}),
            Bulk("l1"));
  EXPECT_EQ(Run({"fcall", "f1", "x"}), Err("ERR Bad number of keys provided"));
  EXPECT_EQ(Run({"fcall", "f1", "-1"}), Err("ERR Number of keys can't be negative"));
  EXPECT_EQ(Run({"fcall", "f1", "2", "a"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(Run({"fcall", "nosuch", "x"}), Err("ERR Function not found"));
  EXPECT_EQ(Run({"fcall", "f1", "0"}), ":1\r\n");
  EXPECT_EQ(Run({"script", "flush", "now"}),
            Err("ERR SCRIPT FLUSH only support SYNC|ASYNC option"));
  EXPECT_EQ(Run({"script", "kill"}), Err("NOTBUSY No scripts in execution right now."));
}

TEST_F(ScriptCommandsTest, ErrorsCarryTheScriptAndLine) {
  std::string r = Run({"eval", "\nreturn redis.call('nosuch')", "0"});
  EXPECT_EQ(r.substr(0, 40), "-ERR Unknown command called from script ");
  EXPECT_NE(r.find("on @user_script:2.\r\n"), std::string::npos) << r;
  EXPECT_EQ(Run({"eval", "return redis.pcall('get')", "0"}),
            Err("ERR Wrong number of args calling command from script"));
  r = Run({"eval", "x = 5", "0"});
  EXPECT_EQ(r.substr(0, 55), "-ERR user_script:1: Attempt to modify a readonly table ");
  r = Run({"eval", "return io", "0"});
  EXPECT_NE(r.find("Script attempted to access nonexistent global variable 'io'"),
            std::string::npos);
}

TEST_F(ScriptCommandsTest, ReadOnlyScriptsRefuseWrites) {
  std::string r = Run({"eval_ro", kSet, "1", "k", "v"});
  EXPECT_EQ(r.substr(0, 60), "-ERR Write commands are not allowed from read-only scripts. ");
  r = Run({"eval", "#!lua flags=no-writes\nreturn redis.pcall('set', 'k', 'v')", "0"});
  EXPECT_EQ(r, Err("ERR Write commands are not allowed from read-only scripts."));
  EXPECT_EQ(Run({"get", "k"}), kNil);
  EXPECT_EQ(Run({"eval_ro", "return redis.call('get', 'k')", "1", "k"}), kNil);
}

TEST_F(ScriptCommandsTest, ScriptWritesInvalidateWatch) {
  Run({"set", "k", "1"});
  EXPECT_EQ(Other({"watch", "k"}), kOk);
  EXPECT_EQ(Run({"eval", "return redis.call('incr', KEYS[1])", "1", "k"}), Int(2));
  EXPECT_EQ(Other({"multi"}), kOk);
  EXPECT_EQ(Other({"get", "k"}), "+QUEUED\r\n");
  EXPECT_EQ(Other({"exec"}), "*-1\r\n");
}

TEST_F(ScriptCommandsTest, SelectInsideAScriptLeavesTheCallersDb) {
  EXPECT_EQ(Run({"eval", "redis.call('select', 3) return redis.call('set', 'k', 'db3')", "0"}),
            kOk);
  EXPECT_EQ(Run({"get", "k"}), kNil);
  EXPECT_EQ(Run({"select", "3"}), kOk);
  EXPECT_EQ(Run({"get", "k"}), Bulk("db3"));
}

TEST_F(ScriptCommandsTest, NoscriptCommandsAreRefused) {
  for (const char* body : {"return redis.call('subscribe', 'x')", "return redis.call('multi')"}) {
    EXPECT_EQ(Run({"eval", body, "0"}).substr(0, 50),
              "-ERR This Redis command is not allowed from script")
        << body;
  }
}

TEST_F(ScriptCommandsTest, BlockingCommandsRunAsIfTheirTimeoutPassed) {
  // As in Valkey 7+: a script never blocks, so they answer what a timeout answers.
  EXPECT_EQ(Run({"eval", "return redis.call('blpop', 'x', 0)", "0"}), kNil);
  EXPECT_EQ(Run({"eval", "return redis.call('bzpopmin', 'z', 0)", "0"}), kNil);
  EXPECT_EQ(Run({"eval", "return redis.call('wait', 0, 0)", "0"}), ":0\r\n");
  EXPECT_EQ(Run({"eval", "redis.call('rpush', 'x', 'v') return redis.call('blpop', 'x', 0)", "0"}),
            "*2\r\n$1\r\nx\r\n$1\r\nv\r\n");
}

TEST_F(ScriptCommandsTest, Resp3Conversions) {
  Run({"hset", "h", "f", "v"});
  EXPECT_EQ(Run({"eval", "redis.setresp(3) return redis.call('hgetall', 'h')", "0"}),
            "*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
  client_->resp = 3;
  EXPECT_EQ(Run({"eval", "redis.setresp(3) return redis.call('hgetall', 'h')", "0"}),
            "%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
  EXPECT_EQ(Run({"eval", "redis.setresp(3) return {true, false, nil}", "0"}), "*2\r\n#t\r\n#f\r\n");
}

TEST_F(ScriptCommandsTest, EvalInsideMulti) {
  EXPECT_EQ(Run({"multi"}), kOk);
  EXPECT_EQ(Run({"eval", "return redis.call('incr', 'n')", "0"}), "+QUEUED\r\n");
  EXPECT_EQ(Run({"exec"}), "*1\r\n:1\r\n");
}

}  // namespace
}  // namespace vireo
