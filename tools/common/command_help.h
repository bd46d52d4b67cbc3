// The REPL's `help` command and tab completion, built from the server's COMMAND DOCS the way
// redis-cli 7.0 builds them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/resp_reader.h"

namespace vireo::tools {

class HelpTable {
 public:
  // Fills the table from a COMMAND DOCS reply (RESP2 flat array or RESP3 map). Returns false
  // when the reply is not usable (the table then stays empty).
  bool Load(const Reply& docs);
  bool loaded() const { return loaded_; }

  // What `help <args>` prints: every command whose words start with args (so "help config"
  // shows CONFIG and its sub-commands), or with "@group" every command of the group.
  std::string Format(const std::vector<std::string>& args) const;

  // Completion candidates for a line prefix: command names ("GET", "CONFIG GET"), and after
  // "help " also "@group" names. Returns whole lines (prefix text kept as typed).
  std::vector<std::string> Complete(const std::string& line) const;

 private:
  struct Entry {
    std::vector<std::string> words;  // {"CONFIG", "GET"}
    std::string full;                // "CONFIG GET", or "@string" for a group
    bool is_group = false;
    std::string params, summary, since, group;
  };
  void AddCommand(const std::string& name, const Reply& doc);

  std::vector<Entry> entries_;
  bool loaded_ = false;
};

// The parameter string of a command from its COMMAND DOCS "arguments" list, e.g.
// "key value [NX|XX] [GET] [EX seconds|PX milliseconds|...]".
std::string FormatArguments(const Reply& arguments);

// The text of a bare `help` for a tool ("vireo-cli") of a version.
std::string GenericHelp(std::string_view tool, std::string_view version);

}  // namespace vireo::tools
