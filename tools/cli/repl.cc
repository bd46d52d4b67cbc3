#include "cli/repl.h"

#include <editline/readline.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

#include "common/split_args.h"

namespace vireo::cli {
namespace {

// As linenoise's default: the file keeps the last 100 lines.
constexpr size_t kHistoryMax = 100;

bool Is(const std::string& a, const char* b) { return strcasecmp(a.c_str(), b) == 0; }

// Line history kept in plain text (one line per entry), so the file stays readable and
// portable, unlike libedit's own encoded format.
class History {
 public:
  explicit History(std::string path) : path_(std::move(path)) {
    if (path_.empty()) return;
    std::ifstream in(path_);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      Add(line, /*save=*/false);
    }
  }

  void Add(const std::string& line, bool save) {
    if (!lines_.empty() && lines_.back() == line) return;
    lines_.push_back(line);
    if (lines_.size() > kHistoryMax) lines_.erase(lines_.begin());
    add_history(line.c_str());
    if (save) Save();
  }

 private:
  void Save() const {
    if (path_.empty()) return;
    mode_t old = umask(S_IXUSR | S_IRWXG | S_IRWXO);
    FILE* f = fopen(path_.c_str(), "w");
    umask(old);
    if (f == nullptr) return;
    chmod(path_.c_str(), S_IRUSR | S_IWUSR);
    for (const std::string& line : lines_) fprintf(f, "%s\n", line.c_str());
    fclose(f);
  }

  std::string path_;
  std::vector<std::string> lines_;
};

// Tab completion of command names (and help topics after "help ").
const HelpTable* g_help = nullptr;
std::vector<std::string> g_matches;

char* NextMatch(const char*, int state) {
  static size_t next = 0;
  if (state == 0) next = 0;
  if (next >= g_matches.size()) return nullptr;
  return strdup(g_matches[next++].c_str());
}

char** CompleteLine(const char* text, int start, int end) {
  rl_attempted_completion_over = 1;  // no file name completion
  g_matches.clear();
  if (g_help == nullptr) return nullptr;
  const std::string line(rl_line_buffer, static_cast<size_t>(end));
  const std::string typed(text);
  // libedit keeps what was typed and appends the rest of the match, so the match must start
  // with the typed text exactly; the rest follows the typed case ("hget" -> "hgetall").
  const bool lower = std::any_of(typed.begin(), typed.end(),
                                 [](char c) { return islower(static_cast<unsigned char>(c)); });
  for (const std::string& candidate : g_help->Complete(line)) {
    // Candidates are whole lines; the word being completed starts at `start`.
    if (candidate.size() < static_cast<size_t>(start) + typed.size()) continue;
    std::string rest = candidate.substr(start + typed.size());
    if (lower) {
      for (char& c : rest) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    }
    g_matches.push_back(typed + rest);
  }
  if (g_matches.empty()) return nullptr;
  return rl_completion_matches(text, NextMatch);
}

bool ReadPlainLine(std::string* line) {
  line->clear();
  int c;
  bool any = false;
  while ((c = getchar()) != EOF) {
    any = true;
    if (c == '\n') return true;
    line->push_back(static_cast<char>(c));
  }
  return any;
}

}  // namespace

std::string HistoryPath() {
  for (const char* name : {"VIREOCLI_HISTFILE", "REDISCLI_HISTFILE"}) {
    const char* path = getenv(name);
    if (path != nullptr && *path != '\0') {
      if (strcmp(path, "/dev/null") == 0) return "";
      return path;
    }
  }
  const char* home = getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return std::string(home) + "/.vireocli_history";
}

bool IsSensitiveCommand(const std::vector<std::string>& args) {
  const size_t argc = args.size();
  if (argc == 0) return false;
  if (Is(args[0], "auth")) return true;
  if (argc > 1 && Is(args[0], "acl") && Is(args[1], "setuser")) return true;
  if (argc > 2 && Is(args[0], "config") && Is(args[1], "set")) {
    for (size_t j = 2; j < argc; j += 2) {
      if (Is(args[j], "masterauth") || Is(args[j], "masteruser") || Is(args[j], "requirepass")) {
        return true;
      }
    }
    return false;
  }
  // HELLO [protover [AUTH username password] [SETNAME clientname]]
  if (argc > 4 && Is(args[0], "hello")) {
    for (size_t j = 2; j < argc; ++j) {
      const size_t more = argc - 1 - j;
      if (Is(args[j], "auth") && more >= 2) return true;
      if (Is(args[j], "setname") && more > 0) {
        ++j;
      } else {
        return false;
      }
    }
    return false;
  }
  // MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
  // [AUTH2 username password] [KEYS key [key ...]]
  if (argc > 7 && Is(args[0], "migrate")) {
    for (size_t j = 6; j < argc; ++j) {
      const size_t more = argc - 1 - j;
      if (Is(args[j], "auth") && more > 0) return true;
      if (Is(args[j], "auth2") && more >= 2) return true;
      if (Is(args[j], "keys") && more > 0) return false;
    }
  }
  return false;
}

int RunRepl(Session* session) {
  const bool tty = isatty(STDIN_FILENO) != 0;
  if (tty) session->InitHelp();
  session->set_interactive(true);
  // History and line editing only on a terminal; piped lines are read as they are.
  std::unique_ptr<History> history;
  if (tty) {
    rl_readline_name = "vireo-cli";
    rl_attempted_completion_function = CompleteLine;
    g_help = &session->help();
    history = std::make_unique<History>(HistoryPath());
  }
  const bool standard_output = session->options().output == OutputMode::kStandard;
  std::string line;
  for (;;) {
    if (tty) {
      const std::string prompt = session->has_connection() ? session->Prompt() : "not connected> ";
      char* raw = readline(prompt.c_str());
      if (raw == nullptr) break;  // ^D
      line = raw;
      free(raw);
    } else if (!ReadPlainLine(&line)) {
      break;
    }
    if (line.empty()) continue;

    std::vector<std::string> args;
    if (!SplitQuotedArgs(line, &args)) {
      printf("Invalid argument(s)\n");
      fflush(stdout);
      if (history) history->Add(line, true);
      continue;
    }
    if (args.empty()) continue;

    // "N command" repeats the command N times.
    int64_t repeat = 1;
    size_t skip = 0;
    char* end = nullptr;
    errno = 0;
    long n = strtol(args[0].c_str(), &end, 10);
    if (args.size() > 1 && *end == '\0') {
      if (errno == ERANGE || errno == EINVAL || n <= 0) {
        fputs("Invalid vireo-cli repeat command option value.\n", stdout);
        fflush(stdout);
        continue;
      }
      repeat = n;
      skip = 1;
    }
    std::vector<std::string> command(args.begin() + skip, args.end());
    if (history && !IsSensitiveCommand(command)) history->Add(line, true);

    if (Is(args[0], "quit") || Is(args[0], "exit")) return 0;
    if (args[0][0] == ':') continue;  // redis-cli preferences (hints): nothing to set here
    if (Is(args[0], "restart")) {
      printf("Use 'restart' only in Lua debugging mode.\n");
      fflush(stdout);
    } else if (args.size() == 3 && Is(args[0], "connect")) {
      session->SetAddress(args[1], atoi(args[2].c_str()));
      session->Connect(/*force=*/true);
    } else if (args.size() == 1 && Is(args[0], "clear")) {
      printf("\x1b[H\x1b[2J");
      fflush(stdout);
    } else {
      const auto start = std::chrono::steady_clock::now();
      session->Issue(command, repeat);
      const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - start)
                               .count();
      if (elapsed >= 500 && standard_output) {
        printf("(%.2fs)\n", static_cast<double>(elapsed) / 1000);
        fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace vireo::cli
