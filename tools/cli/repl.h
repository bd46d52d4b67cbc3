// The interactive loop: prompt, line editing and history (libedit) on a terminal, plain lines
// from a pipe, and the REPL-only commands (quit, connect, clear, "N command" repeats).
#pragma once

#include <string>
#include <vector>

#include "cli/session.h"

namespace vireo::cli {

// Runs until end of input or `quit`; returns the process exit code (always 0, as redis-cli).
int RunRepl(Session* session);

// True for commands whose line must stay out of the history file (they carry passwords).
bool IsSensitiveCommand(const std::vector<std::string>& args);

// The history file: $VIREOCLI_HISTFILE, else ~/.vireocli_history; empty when there is none
// (the variable set to /dev/null, or no $HOME).
std::string HistoryPath();

}  // namespace vireo::cli
