// The connection as vireo-cli's commands see it: connect (with AUTH, SELECT and HELLO 3),
// send a command, print its reply as redis-cli does, follow cluster redirections, and keep the
// state the prompt shows (db number, MULTI).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/options.h"
#include "common/command_help.h"
#include "common/connection.h"

namespace vireo::cli {

using tools::HelpTable;

class Session {
 public:
  explicit Session(Options* options);

  // Connects if there is no connection yet (or always with force), then AUTH, SELECT and
  // HELLO 3 as configured. Returns false when any step failed (reported on stderr); after an
  // AUTH/SELECT/HELLO failure the connection stays open, as in redis-cli 7.0. quiet: no
  // "Could not connect" message.
  bool Connect(bool force, bool quiet = false);
  // Runs one command `repeat` times (negative: forever), printing the replies; reconnects
  // first when the connection was lost. Returns false on failure (the caller's exit code 1).
  bool Issue(const std::vector<std::string>& args, int64_t repeat);

  // Sends a command and waits for its reply without printing; false on I/O error (see
  // connection().error()).
  bool Call(const std::vector<std::string>& args, tools::Reply* reply);

  // Prints "Error: <reason>" for a broken connection (nothing when there is none).
  void PrintConnectionError() const;
  bool has_connection() const { return has_connection_; }
  tools::Connection& connection() { return conn_; }
  Options& options() { return *options_; }

  // The REPL prompt ("127.0.0.1:6379[2](TX)> ").
  std::string Prompt() const;
  void set_interactive(bool on) { interactive_ = on; }
  bool interactive() const { return interactive_; }
  // Points the session at another server (REPL `connect host port`).
  void SetAddress(const std::string& host, int port);

  // Loads the help table from COMMAND DOCS (connecting quietly) unless already loaded.
  void InitHelp();
  const HelpTable& help() const { return help_; }

 private:
  bool SendCommand(const std::vector<std::string>& args, int64_t repeat);
  // Reads one reply and prints it; returns false when the connection broke (interactive mode)
  // or, with -e, on an error reply. In one-shot mode a broken connection exits the process.
  bool ReadAndPrint(bool raw_strings);
  bool ReadSkippingPushes(tools::Reply* reply);
  void HandleRedirect(const std::string& error);
  bool Authenticate();
  bool SelectDb();
  bool SwitchProtocol();
  void Write(const std::string& text) const;

  Options* options_;
  tools::Connection conn_;
  bool has_connection_ = false;
  bool interactive_ = false;
  int dbnum_ = 0;  // the database the connection is in
  int pre_multi_dbnum_ = 0;
  bool in_multi_ = false;
  bool shutdown_ = false;
  bool monitor_ = false;
  bool pubsub_ = false;
  bool error_exit_ = false;  // the last failure was an error reply under -e
  tools::Reply::Type last_type_ = tools::Reply::Type::kNil;
  bool reissue_ = false;  // a MOVED/ASK asked to send the command again elsewhere
  bool send_asking_ = false;
  HelpTable help_;
};

// Commands whose replies redis-cli prints raw even on a terminal (INFO, CLIENT LIST, ...).
bool PrintsRawStrings(const std::vector<std::string>& args);

}  // namespace vireo::cli
