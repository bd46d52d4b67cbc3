// An in-process server for the fuzz targets, as the unit tests' CommandTest fixture makes one:
// real command table and keyspace, no sockets. Also the list of commands a fuzzer must not
// run (they stop, sleep, fork, block or reach outside the process).
#pragma once

#include <stdlib.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "commands/command_table.h"
#include "common/log.h"
#include "server/client.h"
#include "server/server.h"

namespace vireo::fuzz {

// A temp dir per fuzzer process, for the AOF files (the process keeps its working directory,
// so corpus paths given relative to it still work).
inline const std::string& FuzzDir() {
  // Never destroyed: the exit handler that removes the dir runs after static destructors.
  static const std::string* dir = [] {
    char tmpl[] = "/tmp/vireo-fuzz-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) abort();
    auto* d = new std::string(tmpl);
    atexit([] { (void)!system(("rm -rf " + FuzzDir()).c_str()); });
    return d;
  }();
  return *dir;
}

// Set by a target that needs other settings, before its first FuzzServer() call: edits the
// config every fuzz server of the process is made from.
inline void (*g_fuzz_config_hook)(Config* config) = nullptr;

// A fresh server on the fuzz config (and the target's hook), with no clients or listeners.
inline Server* NewFuzzServer() {
  Config config;
  config.dir = FuzzDir();
  config.generic["appenddirname"] = FuzzDir() + "/appendonlydir";
  config.save.clear();  // FLUSHALL must not write dump.rdb
  config.enable_debug_command = "yes";  // DEBUG DIGEST-VALUE reads loaded values back
  // Keeps SETRANGE / SETBIT / APPEND from making the 512 MB strings Valkey allows, which
  // would only trip the fuzzer's memory limit.
  config.proto_max_bulk_len = 1 << 20;
  if (g_fuzz_config_hook != nullptr) g_fuzz_config_hook(&config);
  auto* s = new Server(config);
  s->InitForTests();
  return s;
}

inline Server* g_fuzz_server = nullptr;

// One server per fuzzer process (until RestartFuzzServer); its AOF directory is
// FuzzDir()/appendonlydir.
inline Server& FuzzServer() {
  if (g_fuzz_server == nullptr) {
    RegisterAllCommands();
    ConfigureLog("warning", "/dev/null");  // loaders log every torn file; keep stderr readable
    g_fuzz_server = NewFuzzServer();
  }
  return *g_fuzz_server;
}

inline std::string_view Lower(std::string_view s, std::string* buf) {
  buf->assign(s);
  for (char& ch : *buf) ch = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch + 32) : ch;
  return *buf;
}

// Counts and offsets that allocate or loop in proportion (SRANDMEMBER k -1e9 answers a
// billion elements, in Valkey too; a long string makes LCS quadratic): refused above 999,
// to keep every run short and small.
inline bool HugeNumber(std::string_view a) {
  size_t digits = 0;
  for (char ch : a) digits += (ch >= '0' && ch <= '9');
  return digits > 3;
}

// False for commands a fuzzer must not run: they shut down, sleep, fork, save files, block,
// touch the network or the config, or run scripts (which may loop forever).
inline bool SafeToRun(const std::vector<std::string_view>& args) {
  if (args.empty()) return false;
  std::string buf;
  std::string_view name = Lower(args[0], &buf);
  static const char* const kDenied[] = {
      "shutdown", "debug", "save", "bgsave", "bgrewriteaof", "replicaof", "slaveof",
      "cluster", "migrate", "monitor", "subscribe", "psubscribe", "ssubscribe", "sync",
      "psync", "replconf", "failover", "wait", "waitaof", "config", "acl", "client",
      "module", "eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro", "function",
      "script", "quit", "reset", "pfselftest"};
  for (const char* d : kDenied) {
    if (name == d) return false;
  }
  static const char* const kCounted[] = {"srandmember", "hrandfield", "zrandmember", "setrange",
                                         "setbit",      "bitfield",   "bitfield_ro"};
  for (const char* d : kCounted) {
    if (name != d) continue;
    for (size_t i = 1; i < args.size(); ++i) {
      if (HugeNumber(args[i])) return false;
    }
  }
  return true;
}

// The one client fuzz inputs run as (a client leaving with keys watched is the server's
// disconnect path, not what a target means to test), blocking commands answering at once
// (as inside MULTI).
inline Client* FuzzClient() {
  static Client* client = [] {
    auto* c = new Client(1, -1);
    c->authenticated = true;
    c->flags |= kClientDenyBlocking;
    return c;
  }();
  return client;
}

// Runs one command as c; returns its reply bytes.
inline const std::string& Execute(Client* c, const std::vector<std::string_view>& args) {
  std::string* out = c->conn.Output();
  out->clear();
  c->args.assign(args.begin(), args.end());
  FuzzServer().Execute(c);
  c->args.clear();
  return *out;
}

// Empties every database and returns the client to its first state, so each input starts
// from the same place.
inline void Reset() {
  Client* c = FuzzClient();
  for (std::vector<std::string_view> args :
       {std::vector<std::string_view>{"discard"}, {"unwatch"}, {"select", "0"}, {"hello", "2"},
        {"flushall", "sync"}}) {
    Execute(c, args);
  }
}

// Replaces the fuzz server by a fresh one, for a target whose input left it unusable (a script
// stopped by SHUTDOWN: the server stays shutting down). Keyspace, scripts and functions go.
inline void RestartFuzzServer() {
  Reset();
  Server* old = g_fuzz_server;
  g_fuzz_server = nullptr;  // not the half-destroyed server, for hooks that look at it
  delete old;
  g_fuzz_server = NewFuzzServer();
}

}  // namespace vireo::fuzz
