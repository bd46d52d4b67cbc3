#include "common/command_help.h"

#include <gtest/gtest.h>

#include <string>

#include "common/resp_reader.h"

namespace vireo::tools {
namespace {

Reply FromResp(const std::string& text) {
  RespReader reader;
  Reply reply;
  size_t consumed = 0;
  EXPECT_EQ(reader.Parse(text.data(), text.size(), &consumed, &reply), RespReader::Result::kReply)
      << text;
  return reply;
}

std::string Bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}

// An argument map: name, type, optional token and flags, nested arguments.
std::string Arg(const std::string& name, const std::string& type, const std::string& token = "",
                const std::string& flags = "", const std::string& nested = "",
                int nested_count = 0) {
  int fields = 2 + !token.empty() + !flags.empty() + (nested_count > 0);
  std::string out = "%" + std::to_string(fields) + "\r\n";
  out += Bulk("name") + Bulk(name) + Bulk("type") + Bulk(type);
  if (!token.empty()) out += Bulk("token") + Bulk(token);
  if (!flags.empty()) out += Bulk("flags") + "~1\r\n+" + flags + "\r\n";
  if (nested_count > 0)
    out += Bulk("arguments") + "*" + std::to_string(nested_count) + "\r\n" + nested;
  return out;
}

// SET's arguments as redis 7.0 documents them; redis-cli prints
// "key value [NX|XX] [GET] [EX seconds|PX milliseconds|...|KEEPTTL]".
TEST(CommandHelp, FormatsArgumentsLikeRedisCli) {
  const std::string condition =
      Arg("condition", "oneof", "", "optional",
          Arg("nx", "pure-token", "NX") + Arg("xx", "pure-token", "XX"), 2);
  const std::string expiration =
      Arg("expiration", "oneof", "", "optional",
          Arg("seconds", "integer", "EX") + Arg("milliseconds", "integer", "PX") +
              Arg("keepttl", "pure-token", "KEEPTTL"),
          3);
  const std::string args = "*5\r\n" + Arg("key", "key") + Arg("value", "string") + condition +
                           Arg("get", "pure-token", "GET", "optional") + expiration;
  EXPECT_EQ(FormatArguments(FromResp(args)),
            "key value [NX|XX] [GET] [EX seconds|PX milliseconds|KEEPTTL]");
}

TEST(CommandHelp, MultipleArguments) {
  // CONFIG GET parameter [parameter ...]
  const std::string block =
      "*1\r\n" + Arg("parameter", "block", "", "multiple", Arg("parameter", "string"), 1);
  EXPECT_EQ(FormatArguments(FromResp(block)), "parameter [parameter ...]");
  // A repeated token: [BY pattern [BY pattern ...]] shape.
  const std::string tokens = "*1\r\n" + Arg("pattern", "pattern", "BY", "multiple_token");
  EXPECT_EQ(FormatArguments(FromResp(tokens)), "BY pattern");
}

TEST(CommandHelp, TableFromDocs) {
  // COMMAND DOCS in RESP3: {get: {...}, config: {..., subcommands: {config|get: {...}}}}
  const std::string docs =
      "%2\r\n" + Bulk("get") + "%4\r\n" + Bulk("summary") + Bulk("Get the value of a key") +
      Bulk("since") + Bulk("1.0.0") + Bulk("group") + Bulk("string") + Bulk("arguments") +
      "*1\r\n" + Arg("key", "key") + Bulk("config") + "%4\r\n" + Bulk("summary") +
      Bulk("A container") + Bulk("since") + Bulk("2.0.0") + Bulk("group") + Bulk("server") +
      Bulk("subcommands") + "%1\r\n" + Bulk("config|get") + "%3\r\n" + Bulk("summary") +
      Bulk("Get params") + Bulk("since") + Bulk("2.0.0") + Bulk("group") + Bulk("server");
  HelpTable table;
  ASSERT_TRUE(table.Load(FromResp(docs)));
  EXPECT_EQ(table.Format({"get"}),
            "\r\n  \x1b[1mGET\x1b[0m \x1b[90mkey\x1b[0m\r\n"
            "  \x1b[33msummary:\x1b[0m Get the value of a key\r\n"
            "  \x1b[33msince:\x1b[0m 1.0.0\r\n"
            "  \x1b[33mgroup:\x1b[0m string\r\n\r\n");
  // "help config" shows the container and its sub-commands.
  const std::string config = table.Format({"CONFIG"});
  EXPECT_NE(config.find("\x1b[1mCONFIG\x1b[0m"), std::string::npos);
  EXPECT_NE(config.find("\x1b[1mCONFIG GET\x1b[0m"), std::string::npos);
  // Groups list their commands without the group line.
  EXPECT_EQ(table.Format({"@string"}),
            "\r\n  \x1b[1mGET\x1b[0m \x1b[90mkey\x1b[0m\r\n"
            "  \x1b[33msummary:\x1b[0m Get the value of a key\r\n"
            "  \x1b[33msince:\x1b[0m 1.0.0\r\n\r\n");
  EXPECT_EQ(table.Format({"nosuch"}), "\r\n");

  EXPECT_EQ(table.Complete("g"), std::vector<std::string>{"GET"});
  EXPECT_EQ(table.Complete("config g"), std::vector<std::string>{"CONFIG GET"});
  EXPECT_EQ(table.Complete("help @s"), (std::vector<std::string>{"help @server", "help @string"}));
}

TEST(CommandHelp, GenericHelpNamesTheTool) {
  EXPECT_EQ(GenericHelp("vireo-cli", "1.2.3").substr(0, 16), "vireo-cli 1.2.3\n");
}

}  // namespace
}  // namespace vireo::tools
