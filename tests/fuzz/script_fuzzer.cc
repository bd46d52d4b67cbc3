// Fuzzes the Lua scripting engine with hostile scripts: each input is one script body, run by
// EVAL (for half the inputs once more, from the cache, by EVALSHA with the other KEYS/ARGV)
// and, when it is a function library ("#!lua name=..."), loaded by FUNCTION LOAD, its
// functions called by FCALL and FCALL_RO, dumped, flushed and restored. SCRIPT FLUSH runs
// every kScriptFlushEvery inputs and FUNCTION FLUSH after each library (the cache resets of
// CVE-2024-46981). Every reply must be one well-formed RESP value. The Lua state is the
// server's one, kept across inputs as in a real server.
//
// Bounds, so every input ends quickly and small: maxmemory 64mb (a script's Lua heap may
// pass it by a margin, then the script fails with OOM); busy-reply-threshold 10 ms, past which
// the engine's count hook lets other clients in (Server::ServeWhileBusy polls the event loop).
// One of them is this target's watchdog, a watcher on an always-readable eventfd: once a script
// has run kKillAfterMs it stops it as an operator would, by SCRIPT KILL or FUNCTION KILL, and
// by SHUTDOWN NOSAVE NOW when the script wrote (UNKILLABLE); the server, shutting down from
// then on, is replaced after that input. It does so at once when the process passed
// kMemoryBudget (OnMalloc). Library code at FUNCTION LOAD has its own 500 ms limit. What could
// wait on the network without limit is skipped: see Skipped.
//
// Input: the script body, as is (readable seeds in tests/fuzz/corpus/script_fuzzer/). Its size
// picks the variants: bit 0 the KEYS/ARGV of EVAL (none, or k1 k2 / a1), bit 1 RESP3, bit 2
// the EVALSHA rerun.
#include <sanitizer/allocator_interface.h>
#include <sys/eventfd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <lua.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "net/event_loop.h"
#include "scripting/script_engine.h"
#include "tests/fuzz/fuzz_server.h"
#include "tests/fuzz/resp_check.h"

namespace {

using vireo::fuzz::Execute;
using vireo::fuzz::FuzzServer;

constexpr int64_t kKillAfterMs = 50;
// A script that starts below maxmemory may write without limit (Valkey's rule: it is never
// stopped half done), and between two count hooks it can store a 30 MB string in thousands of
// keys: past this many bytes allocated in the process the watchdog stops it too.
constexpr size_t kMemoryBudget = size_t{512} << 20;
constexpr size_t kLargeAllocation = size_t{1} << 20;
constexpr uint64_t kScriptFlushEvery = 64;
constexpr size_t kMaxFunctionsCalled = 4;

using Args = std::vector<std::string_view>;

void Configure(vireo::Config* config) {
  config->maxmemory = 64 << 20;
  config->generic["busy-reply-threshold"] = "10";
  config->enable_debug_command = "no";  // DEBUG is no-script anyway; nothing else needs it
}

bool input_command = false;  // the input's own command runs (not the watchdog's)
bool over_budget = false;

// Runs args as c; aborts (the fuzzer's crash) unless the reply is one well-formed RESP value.
// An empty reply is allowed only where expected (SHUTDOWN answers nothing).
const std::string& Checked(vireo::Client* c, const Args& args, bool may_be_empty = false) {
  const bool outer = input_command;  // the watchdog's commands run inside the input's
  input_command = c == vireo::fuzz::FuzzClient();
  const std::string& reply = Execute(c, args);
  input_command = outer;
  int n = vireo::fuzz::CountReplies(reply);
  if (n != 1 && !(may_be_empty && reply.empty())) {
    fprintf(stderr, "bad reply (%d values) to %.*s %.*s: %.200s\n", n,
            static_cast<int>(args[0].size()), args[0].data(),
            static_cast<int>(args.size() > 1 ? args[1].size() : 0),
            args.size() > 1 ? args[1].data() : "", reply.c_str());
    abort();
  }
  return reply;
}

// The client the watchdog's commands run as; not the inputs' (whose command is the script).
vireo::Client* WatchdogClient() {
  static vireo::Client* client = [] {
    auto* c = new vireo::Client(1u << 30, -1);
    c->authenticated = true;
    c->flags |= vireo::kClientDenyBlocking;
    return c;
  }();
  return client;
}

void OnBusy(void*, uint32_t) {
  vireo::Server& server = FuzzServer();
  if (!server.has_scripts() || server.shutdown_requested()) return;
  vireo::ScriptEngine& scripts = server.scripts();
  if (!scripts.Running() || (scripts.RunningMs() < kKillAfterMs && !over_budget)) return;
  vireo::Client* c = WatchdogClient();
  const std::string& reply = Checked(c, {scripts.RunningEval() ? "script" : "function", "kill"});
  if (reply.compare(0, 12, "-UNKILLABLE ") == 0) Checked(c, {"shutdown", "nosave", "now"}, true);
}

vireo::IoWatcher watchdog{&OnBusy, nullptr};

// A malloc hook (ASan calls it after every allocation; checked on large ones only): once the
// process passes kMemoryBudget during an input's command, the engine's count hook is brought
// forward to the script's next instruction (lua_sethook may be called at any time, as from a
// signal handler), so its busy check and then OnBusy run at once.
void OnMalloc(const volatile void*, size_t size) {
  if (size < kLargeAllocation || !input_command || over_budget) return;
  if (__sanitizer_get_current_allocated_bytes() < kMemoryBudget) return;
  over_budget = true;
  vireo::Server& server = FuzzServer();
  if (!server.has_scripts()) return;
  lua_State* L = server.scripts().lua();
  if (lua_gethook(L) != nullptr) lua_sethook(L, lua_gethook(L), lua_gethookmask(L), 1);
}

// Registers the watchdog with the fuzz server's event loop (again after each restart).
void WatchBusyScripts() {
  static int fd = [] {
    int e = eventfd(1, EFD_NONBLOCK);  // never read: readable at every poll
    if (e < 0) abort();
    return e;
  }();
  if (!FuzzServer().loop().Watch(fd, vireo::EventLoop::kReadable, &watchdog)) abort();
}

// Inputs skipped (and not kept in the corpus): those no watchdog can bound, as a script may
// make MIGRATE connect out with any timeout. Pattern matches are not skipped: Vireo's matcher
// (lua_pattern.h) meets the watchdog's SCRIPT KILL like other script code; the corpus's
// crash-pattern-* inputs once ran for hours inside stock Lua's.
bool Skipped(std::string_view body) {
  std::string buf;
  return vireo::fuzz::Lower(body, &buf).find("migrate") != std::string_view::npos;
}

// The bulk string a reply holds ("$3\r\nabc\r\n" -> "abc"); empty for any other reply.
std::string_view BulkText(std::string_view reply) {
  if (reply.empty() || reply[0] != '$') return {};
  size_t eol = reply.find("\r\n");
  if (eol == std::string_view::npos || reply.size() < eol + 4) return {};
  return reply.substr(eol + 2, reply.size() - eol - 4);
}

// The names a library most likely registers: the first string after each
// `register_function(` or `function_name =`; "f" when none is found.
std::vector<std::string> FunctionNames(std::string_view body) {
  std::vector<std::string> names;
  for (std::string_view marker : {"register_function", "function_name"}) {
    size_t at = 0;
    while (names.size() < kMaxFunctionsCalled &&
           (at = body.find(marker, at)) != std::string_view::npos) {
      at += marker.size();
      size_t q = body.find_first_of("'\"", at);
      if (q == std::string_view::npos || q - at > 8) continue;
      size_t end = body.find(body[q], q + 1);
      if (end == std::string_view::npos) break;
      names.emplace_back(body.substr(q + 1, end - q - 1));
    }
  }
  if (names.empty()) names.emplace_back("f");
  return names;
}

void RunLibrary(vireo::Client* c, std::string_view body, uint64_t input_no) {
  const std::string& loaded = Checked(c, {"function", "load", "replace", body});
  if (loaded.empty() || loaded[0] != '$') return;
  std::vector<std::string> names = FunctionNames(body);
  for (const std::string& name : names) Checked(c, {"fcall", name, "2", "k1", "k2", "a1"});
  Checked(c, {"fcall_ro", names[0], "0"});
  Checked(c, {"function", "list", "withcode"});
  std::string payload(BulkText(Checked(c, {"function", "dump"})));
  Checked(c, {"function", "flush"});
  if (!payload.empty()) {
    Checked(c, {"function", "restore", payload});
    Checked(c, {"fcall", names[0], "0"});
  }
  Checked(c, {"function", "flush", input_no % 2 ? "async" : "sync"});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vireo::fuzz;
  static uint64_t inputs = 0;
  if (inputs++ == 0) {
    g_fuzz_config_hook = &Configure;
    WatchBusyScripts();
    if (!__sanitizer_install_malloc_and_free_hooks(&OnMalloc, [](const volatile void*) {})) abort();
  }
  over_budget = false;
  std::string_view body(reinterpret_cast<const char*>(data), size);
  if (Skipped(body)) return -1;

  Reset();
  vireo::Client* c = FuzzClient();
  if (size & 2) Checked(c, {"hello", "3"});
  const Args no_keys = {"0"};
  const Args keys = {"2", "k1", "k2", "a1"};
  const Args& eval_keys = (size & 1) ? keys : no_keys;
  const Args& evalsha_keys = (size & 1) ? no_keys : keys;

  Args args = {"eval", body};
  args.insert(args.end(), eval_keys.begin(), eval_keys.end());
  const std::string& evaluated = Checked(c, args);
  if ((size & 4) && !evaluated.empty() && evaluated[0] != '-') {
    std::string sha(BulkText(Checked(c, {"script", "load", body})));
    if (!sha.empty()) {
      args = {"evalsha", sha};
      args.insert(args.end(), evalsha_keys.begin(), evalsha_keys.end());
      Checked(c, args);
    }
  }
  if (body.starts_with("#!lua name=")) RunLibrary(c, body, inputs);
  if (inputs % kScriptFlushEvery == 0) {
    Checked(c, {"script", "flush", inputs / kScriptFlushEvery % 2 ? "async" : "sync"});
  }
  if (FuzzServer().shutdown_requested()) {
    RestartFuzzServer();
    WatchBusyScripts();
  }
  return 0;
}
