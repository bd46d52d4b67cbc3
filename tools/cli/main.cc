// vireo-cli: a command-line client that behaves like redis-cli / valkey-cli.
#include <termios.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/cluster_manager.h"
#include "cli/modes.h"
#include "cli/options.h"
#include "cli/repl.h"
#include "cli/session.h"
#include "common/split_args.h"

namespace vireo::cli {
namespace {

std::string ReadAllStdin() {
  std::string data;
  char buf[65536];
  ssize_t n;
  while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0) data.append(buf, static_cast<size_t>(n));
  return data;
}

// --askpass: reads a line from stdin; on a terminal with a prompt and without echo.
std::string AskPassword(const char* prompt) {
  termios saved{};
  const bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0;
  if (tty) {
    fputs(prompt, stdout);
    fflush(stdout);
    termios quiet = saved;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  std::string line;
  std::getline(std::cin, line);
  if (tty) {
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    fputs("\n", stdout);
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

// One command from the command line (with -x / -X / --quoted-input applied).
int RunOneShot(Session* session) {
  Options& o = session->options();
  std::vector<std::string> args = o.command;
  if (o.quoted_input) {
    for (std::string& arg : args) {
      std::vector<std::string> parts;
      if (!SplitQuotedArgs(arg, &parts) || parts.size() != 1) {
        printf("Invalid quoted string\n");
        return 1;
      }
      arg = parts[0];
    }
  }
  if (o.stdin_last_arg) {
    args.push_back(ReadAllStdin());
  } else if (o.stdin_tag.has_value()) {
    bool matched = false;
    for (std::string& arg : args) {
      if (arg == *o.stdin_tag) {
        arg = ReadAllStdin();
        matched = true;
        break;
      }
    }
    if (!matched) {
      fprintf(stderr, "Using -X option but stdin tag not match.\n");
      return 1;
    }
  }
  return session->Issue(args, o.repeat) ? 0 : 1;
}

void ExitOnInterrupt(int) { _exit(0); }

int Main(int argc, char** argv) {
  Options options;
  const bool tty = isatty(STDOUT_FILENO) || getenv("FAKETTY") != nullptr;
  int code = ParseOptions(argc, argv, tty, &options);
  if (code >= 0) return code;
  ApplyEnvironment(&options);
  if (options.askpass) options.password = AskPassword("Please input password: ");

  if (!options.cluster.command.empty()) return RunClusterManager(options);

  Session session(&options);
  auto connected = [&]() { return session.Connect(/*force=*/false); };
  if (options.latency) return connected() ? RunLatencyMode(&session) : 1;
  if (options.pipe) return connected() ? RunPipeMode(&session) : 1;
  if (options.bigkeys) return connected() ? RunBigKeysMode(&session, false) : 1;
  if (options.memkeys) return connected() ? RunBigKeysMode(&session, true) : 1;
  if (options.hotkeys) return connected() ? RunHotKeysMode(&session) : 1;
  if (options.stat) return connected() ? RunStatMode(&session) : 1;
  if (options.scan) return connected() ? RunScanMode(&session) : 1;
  if (options.intrinsic_latency_s.has_value()) {
    return RunIntrinsicLatencyMode(*options.intrinsic_latency_s);
  }

  if (options.command.empty() && !options.eval_file.has_value()) {
    // A lost connection shows up as a write error and a reconnect, not as SIGPIPE.
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, ExitOnInterrupt);
    // The REPL starts even when the server is down; every command tries again.
    session.Connect(/*force=*/false);
    return RunRepl(&session);
  }
  if (options.eval_file.has_value()) {
    if (!connected()) return 1;
    return RunEvalMode(&session, *options.eval_file, options.command);
  }
  // A failed connection is reported once, when the command tries again.
  session.Connect(/*force=*/false, /*quiet=*/true);
  return RunOneShot(&session);
}

}  // namespace
}  // namespace vireo::cli

int main(int argc, char** argv) {
  int code = vireo::cli::Main(argc, argv);
  fflush(stdout);
  return code;
}
