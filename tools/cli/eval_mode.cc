// --eval <file> key1 key2 , arg1 arg2: EVAL with the script read from a file.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli/modes.h"

namespace vireo::cli {

int RunEvalMode(Session* session, const std::string& file, const std::vector<std::string>& args) {
  FILE* f = fopen(file.c_str(), "r");
  if (f == nullptr) {
    fprintf(stderr, "Can't open file '%s': %s\n", file.c_str(), strerror(errno));
    exit(1);
  }
  std::string script;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) script.append(buf, n);
  fclose(f);

  // Words before the first lone "," are keys, the rest are arguments.
  std::vector<std::string> command = {"EVAL", script, ""};
  bool got_comma = false;
  int keys = 0;
  for (const std::string& arg : args) {
    if (!got_comma && arg == ",") {
      got_comma = true;
      continue;
    }
    command.push_back(arg);
    if (!got_comma) ++keys;
  }
  command[2] = std::to_string(keys);
  return session->Issue(command, session->options().repeat) ? 0 : 1;
}

}  // namespace vireo::cli
