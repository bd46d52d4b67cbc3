#include <regex>

#include "common/clock.h"
#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

// The fields of one CLIENT LIST line, in Valkey 8.0's order.
const std::regex kClientLine(
    "id=\\d+ addr=\\S* laddr=\\S* fd=-?\\d+ name=\\S* age=\\d+ idle=\\d+ flags=[A-Za-z]+ "
    "db=\\d+ sub=0 psub=0 ssub=0 multi=-1 watch=0 qbuf=\\d+ qbuf-free=\\d+ argv-mem=\\d+ "
    "multi-mem=0 rbs=\\d+ rbp=\\d+ obl=\\d+ oll=\\d+ omem=\\d+ tot-mem=\\d+ events=rw? "
    "cmd=\\S+ user=\\S+ redir=-1 resp=[23] lib-name=\\S* lib-ver=\\S* tot-net-in=\\d+ "
    "tot-net-out=\\d+ tot-cmds=\\d+\n");

// The text of a verbatim (RESP3) or bulk (RESP2) reply.
std::string ReplyText(const std::string& reply) {
  size_t start = reply.find("\r\n") + 2;
  std::string text = reply.substr(start, reply.size() - start - 2);
  if (reply[0] == '=') text = text.substr(4);
  return text;
}

TEST_F(CommandTest, ClientId) {
  EXPECT_EQ(Run({"client", "id"}), Int(1));
  EXPECT_EQ(Run({"CLIENT", "ID"}), Int(1));
  EXPECT_EQ(Run({"client", "id", "x"}),
            Err("ERR wrong number of arguments for 'client|id' command"));
  EXPECT_EQ(Run({"client"}), Err("ERR wrong number of arguments for 'client' command"));
  EXPECT_EQ(Run({"client", "foo"}), Err("ERR unknown subcommand 'foo'. Try CLIENT HELP."));
}

TEST_F(CommandTest, ClientSetNameGetName) {
  EXPECT_EQ(Run({"client", "getname"}), kNil);
  EXPECT_EQ(Run({"client", "setname", "worker-1"}), kOk);
  EXPECT_EQ(Run({"client", "getname"}), Bulk("worker-1"));
  const std::string kBadName =
      "ERR Client names cannot contain spaces, newlines or special characters.";
  EXPECT_EQ(Run({"client", "setname", "a b"}), Err(kBadName));
  EXPECT_EQ(Run({"client", "setname", "a\nb"}), Err(kBadName));
  EXPECT_EQ(Run({"client", "setname", "caf\xc3\xa9"}), Err(kBadName));
  EXPECT_EQ(Run({"client", "setname", "a\x7f"}), Err(kBadName));
  EXPECT_EQ(Run({"client", "getname"}), Bulk("worker-1"));
  EXPECT_EQ(Run({"client", "setname", ""}), kOk);  // clears the name
  EXPECT_EQ(Run({"client", "getname"}), kNil);
  EXPECT_EQ(Run({"client", "setname"}),
            Err("ERR wrong number of arguments for 'client|setname' command"));
}

TEST_F(CommandTest, ClientInfoLine) {
  Run({"client", "setname", "me"});
  std::string reply = Run({"client", "info"});
  std::string text = ReplyText(reply);
  EXPECT_TRUE(std::regex_match(text, kClientLine)) << text;
  EXPECT_NE(text.find("id=1 "), std::string::npos);
  EXPECT_NE(text.find(" name=me "), std::string::npos);
  EXPECT_NE(text.find(" flags=N "), std::string::npos);
  EXPECT_NE(text.find(" cmd=client|info "), std::string::npos);
  EXPECT_NE(text.find(" argv-mem=10 "), std::string::npos);  // "client" + "info"
  EXPECT_NE(text.find(" resp=2 "), std::string::npos);

  client_->resp = 3;
  reply = Run({"client", "info"});
  EXPECT_EQ(reply.substr(0, 1), "=");
  EXPECT_NE(reply.find("\r\ntxt:id=1 "), std::string::npos);
  EXPECT_NE(reply.find(" resp=3 "), std::string::npos);
}

TEST_F(CommandTest, ClientInfoFlags) {
  Run({"client", "no-evict", "on"});
  Run({"client", "no-touch", "on"});
  std::string text = ReplyText(Run({"client", "info"}));
  EXPECT_NE(text.find(" flags=eT "), std::string::npos) << text;
  Run({"select", "3"});
  text = ReplyText(Run({"client", "info"}));
  EXPECT_NE(text.find(" db=3 "), std::string::npos) << text;
}

TEST_F(CommandTest, ClientListArguments) {
  // The test client is not connected, so the server lists nobody.
  EXPECT_EQ(Run({"client", "list"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"client", "list", "type", "normal"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"client", "list", "TYPE", "Replica"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"client", "list", "type", "slave"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"client", "list", "type", "foo"}), Err("ERR Unknown client type 'foo'"));
  EXPECT_EQ(Run({"client", "list", "id", "1", "2"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"client", "list", "id", "-5"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"client", "list", "id", "1", "abc"}), Err("ERR Invalid client ID"));
  EXPECT_EQ(Run({"client", "list", "id"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "list", "type"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "list", "foo"}), Err("ERR syntax error"));
  // Valkey 9.0: filters combine and may repeat (8.0.1 refused a second TYPE).
  EXPECT_EQ(Run({"client", "list", "type", "normal", "type", "normal"}), "$0\r\n\r\n");
  EXPECT_EQ(Run({"client", "list", "name", "x", "idle", "0"}),
            Err("ERR idle should be greater than 0"));
}

TEST_F(CommandTest, ClientKillArguments) {
  EXPECT_EQ(Run({"client", "kill", "1.2.3.4:5"}), Err("ERR No such client"));
  EXPECT_EQ(Run({"client", "kill", "id"}), Err("ERR No such client"));  // the old form
  EXPECT_EQ(Run({"client", "kill", "id", "abc"}), Err("ERR client-id should be greater than 0"));
  EXPECT_EQ(Run({"client", "kill", "id", "0"}), Err("ERR client-id should be greater than 0"));
  EXPECT_EQ(Run({"client", "kill", "id", "-1"}), Err("ERR client-id should be greater than 0"));
  EXPECT_EQ(Run({"client", "kill", "id", "999"}), Int(0));
  EXPECT_EQ(Run({"client", "kill", "foo", "bar"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "kill", "type", "foo"}), Err("ERR Unknown client type 'foo'"));
  EXPECT_EQ(Run({"client", "kill", "type", "pubsub"}), Int(0));
  EXPECT_EQ(Run({"client", "kill", "skipme", "maybe"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "kill", "id", "1", "skipme"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "kill", "user", "nobody"}), Err("ERR No such user 'nobody'"));
  EXPECT_EQ(Run({"client", "kill", "addr", "1.2.3.4:5", "skipme", "no"}), Int(0));
  EXPECT_EQ(Run({"client", "kill", "laddr", "127.0.0.1:1"}), Int(0));
  EXPECT_EQ(Run({"client", "kill", "maxage", "x"}),
            Err("ERR maxage is not an integer or out of range"));
  EXPECT_EQ(Run({"client", "kill", "maxage", "100"}), Int(0));
  EXPECT_EQ(Run({"client", "kill", "maxage", "0"}), Err("ERR maxage should be greater than 0"));
  EXPECT_EQ(Run({"client", "kill", "maxage", "-1"}), Err("ERR maxage should be greater than 0"));
  EXPECT_EQ(Run({"client", "kill"}),
            Err("ERR wrong number of arguments for 'client|kill' command"));
}

TEST_F(CommandTest, ClientReplyModes) {
  EXPECT_EQ(Run({"client", "reply", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "reply", "on"}), kOk);
  // OFF: nothing at all comes back, errors included, until ON.
  EXPECT_EQ(Run({"client", "reply", "off"}), "");
  EXPECT_EQ(Run({"set", "k", "v"}), "");
  EXPECT_EQ(Run({"nosuchcommand"}), "");
  EXPECT_EQ(Run({"client", "reply", "skip"}), "");
  EXPECT_EQ(Run({"get", "k"}), "");
  EXPECT_EQ(Run({"client", "reply", "on"}), kOk);
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  // SKIP: only the next command's reply is dropped.
  EXPECT_EQ(Run({"client", "reply", "skip"}), "");
  EXPECT_EQ(Run({"get", "k"}), "");
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  // SKIP then ON: ON clears the skip and its own OK is sent, as in Valkey.
  EXPECT_EQ(Run({"client", "reply", "skip"}), "");
  EXPECT_EQ(Run({"client", "reply", "on"}), kOk);
  EXPECT_EQ(Run({"ping"}), "+PONG\r\n");
}

TEST_F(CommandTest, ClientNoEvictNoTouch) {
  EXPECT_EQ(Run({"client", "no-evict", "on"}), kOk);
  EXPECT_TRUE(client_->flags & kClientNoEvict);
  EXPECT_EQ(Run({"client", "no-evict", "OFF"}), kOk);
  EXPECT_FALSE(client_->flags & kClientNoEvict);
  EXPECT_EQ(Run({"client", "no-evict", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "no-touch", "ON"}), kOk);
  EXPECT_TRUE(client_->flags & kClientNoTouch);
  EXPECT_EQ(Run({"client", "no-touch", "off"}), kOk);
  EXPECT_FALSE(client_->flags & kClientNoTouch);
  EXPECT_EQ(Run({"client", "no-touch", "maybe"}), Err("ERR syntax error"));
}

TEST_F(CommandTest, ClientPauseArguments) {
  EXPECT_EQ(Run({"client", "pause"}),
            Err("ERR wrong number of arguments for 'client|pause' command"));
  EXPECT_EQ(Run({"client", "pause", "abc"}), Err("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(Run({"client", "pause", "99999999999999999999"}),
            Err("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(Run({"client", "pause", "-1"}), Err("ERR timeout is negative"));
  EXPECT_EQ(Run({"client", "pause", "10", "foo"}),
            Err("ERR CLIENT PAUSE mode must be WRITE or ALL"));
  EXPECT_EQ(Run({"client", "pause", "10", "write", "x"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT "
                "HELP."));
  EXPECT_FALSE(server_->paused());
  EXPECT_EQ(Run({"client", "pause", "100000", "WRITE"}), kOk);
  EXPECT_TRUE(server_->paused());
  EXPECT_EQ(Run({"client", "unpause"}), kOk);
  EXPECT_FALSE(server_->paused());
  EXPECT_EQ(Run({"client", "pause", "9223372036854775807"}), kOk);  // no overflow
  EXPECT_TRUE(server_->paused());
  EXPECT_EQ(Run({"client", "unpause"}), kOk);
  EXPECT_EQ(Run({"client", "pause", "0"}), kOk);
  EXPECT_EQ(Run({"client", "unpause"}), kOk);
}

TEST_F(CommandTest, ClientSetInfo) {
  EXPECT_EQ(Run({"client", "setinfo", "lib-name", "redis-py"}), kOk);
  EXPECT_EQ(Run({"client", "setinfo", "LIB-VER", "5.0.1"}), kOk);
  EXPECT_EQ(client_->lib_name, "redis-py");
  EXPECT_EQ(client_->lib_ver, "5.0.1");
  std::string text = ReplyText(Run({"client", "info"}));
  EXPECT_NE(text.find(" lib-name=redis-py lib-ver=5.0.1 tot-net-in="), std::string::npos) << text;
  EXPECT_EQ(Run({"client", "setinfo", "foo", "x"}), Err("ERR Unrecognized option 'foo'"));
  EXPECT_EQ(Run({"client", "setinfo", "lib-name", "a b"}),
            Err("ERR lib-name cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(Run({"client", "setinfo", "lib-name"}),
            Err("ERR wrong number of arguments for 'client|setinfo' command"));
}

TEST_F(CommandTest, ClientGetRedirUnblockHelp) {
  EXPECT_EQ(Run({"client", "getredir"}), Int(-1));
  EXPECT_EQ(Run({"client", "unblock", "1"}), Int(0));
  EXPECT_EQ(Run({"client", "unblock", "-1"}), Int(0));
  EXPECT_EQ(Run({"client", "unblock", "1", "error"}), Int(0));
  EXPECT_EQ(Run({"client", "unblock", "abc"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"client", "unblock", "1", "foo"}),
            Err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"));
  EXPECT_EQ(Run({"client", "UnBlock", "1", "timeout", "x"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'UnBlock'. Try CLIENT "
                "HELP."));
  std::string help = Run({"client", "help"});
  EXPECT_EQ(help.substr(0, 1), "*");
  EXPECT_NE(help.find("+CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n"),
            std::string::npos);
  EXPECT_NE(help.find("+HELP\r\n"), std::string::npos);
}

TEST_F(CommandTest, MonitorSetsFlagOnce) {
  EXPECT_EQ(Run({"monitor"}), kOk);
  EXPECT_TRUE(client_->flags & kClientMonitor);
  // A second MONITOR is ignored without a reply.
  EXPECT_EQ(Run({"monitor"}), "");
  // A monitor is a replica of sorts: the keyspace is off limits, other commands work.
  EXPECT_EQ(Run({"get", "k"}), Err("ERR Replica can't interact with the keyspace"));
  EXPECT_EQ(Run({"set", "k", "v"}), Err("ERR Replica can't interact with the keyspace"));
  std::string out = Run({"ping"});
  EXPECT_EQ(out.substr(0, 7), "+PONG\r\n");
  // It sees its own commands after their replies.
  EXPECT_NE(out.find(" \"ping\"\r\n"), std::string::npos) << out;
  EXPECT_EQ(Run({"reset"}).substr(0, 8), "+RESET\r\n");
  EXPECT_FALSE(client_->flags & kClientMonitor);
  EXPECT_EQ(Run({"get", "k"}), kNil);
}

TEST_F(CommandTest, MonitorFeedFormat) {
  Run({"monitor"});
  auto feed = [this](const std::vector<std::string>& argv) {
    std::string out = Run(argv);
    size_t at = out.find("\r\n+");  // the reply comes first, then the monitor line
    return at == std::string::npos ? std::string() : out.substr(at + 2);
  };
  std::string line = feed({"echo", std::string("a\"b\\c\x00\x01\r\n\t\a\b\xff \x7f", 15)});
  std::regex head("\\+\\d+\\.\\d{6} \\[0 [^\\]]*\\] .*\r\n");
  EXPECT_TRUE(std::regex_match(line, head)) << line;
  EXPECT_NE(line.find("] \"echo\" \"a\\\"b\\\\c\\x00\\x01\\r\\n\\t\\a\\b\\xff \\x7f\"\r\n"),
            std::string::npos)
      << line;
  // Secrets are redacted, whatever their position.
  line = feed({"auth", "default", "secret"});
  EXPECT_NE(line.find("\"auth\" \"(redacted)\" \"(redacted)\"\r\n"), std::string::npos) << line;
  line = feed({"hello", "2", "setname", "auth", "auth", "default", "secret"});
  EXPECT_NE(line.find("\"hello\" \"2\" \"setname\" \"auth\" \"auth\" \"(redacted)\" "
                      "\"(redacted)\"\r\n"),
            std::string::npos)
      << line;
  // Admin commands and rejected commands are not shown.
  EXPECT_EQ(feed({"client", "list"}), "");
  EXPECT_EQ(feed({"nosuchcommand"}), "");
  EXPECT_EQ(feed({"echo"}), "");
  // SELECT shows the database it switched to.
  line = feed({"select", "2"});
  EXPECT_NE(line.find(" [2 "), std::string::npos) << line;
}

}  // namespace
}  // namespace vireo
