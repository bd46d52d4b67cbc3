// Fuzzes command execution: random argument lists through the real command table against an
// in-process keyspace (as the unit tests run commands), minus the commands fuzz_server.h
// keeps out. Every reply must be exactly one well-formed RESP2/RESP3 value, so a handler
// that announces three elements and writes two is caught too.
//
// Input: one command per line, arguments separated by single spaces (readable seeds in
// tests/fuzz/corpus/command_fuzzer/, and the fuzzer's own splicing keeps commands whole).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fuzz/fuzz_server.h"
#include "tests/fuzz/resp_check.h"

namespace {

bool OneReplyPerChannel(std::string_view name) {
  std::string buf;
  name = vireo::fuzz::Lower(name, &buf);
  return name == "unsubscribe" || name == "punsubscribe" || name == "sunsubscribe";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vireo::fuzz;
  FuzzServer();
  Reset();
  auto* client = FuzzClient();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> args;
  bool unsubscribe_queued = false;
  size_t line_start = 0;
  while (line_start < input.size()) {
    size_t eol = input.find('\n', line_start);
    if (eol == std::string_view::npos) eol = input.size();
    std::string_view line = input.substr(line_start, eol - line_start);
    line_start = eol + 1;
    args.clear();
    size_t a = 0;
    while (a <= line.size()) {
      size_t sp = line.find(' ', a);
      if (sp == std::string_view::npos) sp = line.size();
      args.push_back(line.substr(a, sp - a));
      a = sp + 1;
    }
    if (!SafeToRun(args)) continue;
    const std::string& reply = Execute(client, args);
    int replies = CountReplies(reply);
    // An unsubscribe queued in MULTI answers per channel inside EXEC's array, so the array
    // holds more replies than it announces: what Valkey sends too.
    std::string lower;
    const std::string_view name = Lower(args[0], &lower);
    bool many_ok = OneReplyPerChannel(name) || (name == "exec" && unsubscribe_queued);
    if (OneReplyPerChannel(name)) unsubscribe_queued = true;
    if (name == "exec" || name == "discard") unsubscribe_queued = false;
    if (replies < 0 || (replies != 1 && !many_ok)) {
      fprintf(stderr, "bad reply to %.*s: %s\n", static_cast<int>(args[0].size()),
              args[0].data(), reply.c_str());
      abort();
    }
  }
  return 0;
}
