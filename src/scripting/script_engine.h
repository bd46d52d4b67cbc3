// Runs Lua scripts for EVAL/EVALSHA(_RO) and FCALL(_RO): the script cache by SHA1, the
// redis.call bridge into normal command dispatch (a fake client, so WATCH, keyspace
// notifications and stats apply as for any command), and busy-script handling (past
// busy-reply-threshold the server keeps serving other clients, who get BUSY, and SCRIPT KILL /
// FUNCTION KILL can stop the script). One per server, on the execution thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scripting/lua_hardening.h"

struct lua_State;
struct lua_Debug;

namespace vireo {

class FunctionLibraries;
class Server;
struct Client;
struct CommandContext;
struct CommandSpec;

// Script flags (shebang `flags=` / register_function flags), as Redis 7.0 names them.
enum ScriptFlag : uint32_t {
  kScriptNoWrites = 1u << 0,
  kScriptAllowOom = 1u << 1,
  kScriptAllowStale = 1u << 2,
  kScriptNoCluster = 1u << 3,
  kScriptAllowCrossSlot = 1u << 4,
  kScriptEvalCompat = 1u << 5,  // an EVAL script without shebang
};

// Parses one flag name; false when unknown.
bool ParseScriptFlag(std::string_view name, uint32_t* flag);

// Checks a `#!lua ...` first line (Redis 7.0 rules); "" on success or the error text.
// *flags gets its flags. Scripts compile with the shebang line turned into a comment, so
// line numbers stay.
std::string ParseEvalShebang(std::string_view body, uint32_t* flags);
// The whitespace-separated words of a shebang line ("#!lua name=lib flags=...").
std::vector<std::string_view> ShebangWords(std::string_view line);

class ScriptEngine {
 public:
  explicit ScriptEngine(Server& server);
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // EVAL script numkeys ... / EVALSHA sha1 numkeys ... (read_only: the _RO variants).
  void Eval(CommandContext& ctx, bool by_sha, bool read_only);
  // SCRIPT LOAD: caches body; its SHA1 in sha[41], or false with the error reply text.
  bool Load(std::string_view body, char* sha, std::string* error);
  bool Exists(std::string_view sha) const;
  // SCRIPT SHOW: the cached body of sha (any case), or nullptr.
  const std::string* Body(std::string_view sha) const;
  void FlushScripts();
  size_t CachedScripts() const { return scripts_.size(); }
  size_t ScriptsBodyBytes() const { return scripts_bytes_; }
  // Bytes the Lua heap holds.
  size_t LuaMemory() const;

  // FCALL / FCALL_RO function numkeys [key ...] [arg ...]: calls the function with (KEYS,
  // ARGV) as its two arguments.
  void Fcall(CommandContext& ctx, bool read_only);
  // The flags the script an EVAL*/FCALL* command line names declares (shebang flags, a
  // function's flags); false for a script without a shebang or one not known yet by SHA.
  bool DeclaredFlags(const std::vector<std::string_view>& args, std::string_view command,
                     uint32_t* flags) const;
  FunctionLibraries& functions() { return *functions_; }

  // True while a script runs; Busy once it passed busy-reply-threshold.
  bool Running() const { return run_.caller != nullptr; }
  bool RunningEval() const { return run_.is_eval; }
  // The running script's SHA1 or function name, its command and how long it has run.
  std::string_view RunningName() const { return run_.id; }
  const Client* RunningCaller() const { return run_.caller; }
  int64_t RunningMs() const;
  // SCRIPT KILL (eval) / FUNCTION KILL (!eval): the reply.
  void Kill(CommandContext& ctx, bool eval);

  lua_State* lua() { return L_; }
  // Around a script's run (and a library's loading): its heap may grow only so far past
  // maxmemory (lua_hardening.h); after a run stopped for memory, its garbage is collected.
  void LimitHeap();
  void UnlimitHeap(bool out_of_memory);
  // The bytes a script's reply, or the arguments or reply of one command it calls, may take:
  // unlimited without maxmemory, else what is left below maxmemory plus kScriptHeapMargin.
  // The heap limit cannot see these: one large string the script references many times.
  size_t OutputBudget() const;
  Server& server() { return server_; }

 private:
  struct Script {
    int ref;
    uint32_t flags;
    std::string body;  // for SCRIPT SHOW
  };
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const;
  };
  struct Run {
    Client* caller = nullptr;
    std::string_view id;  // SHA1 or function name (for the slow-script log line)
    int64_t start_us = 0;
    bool is_eval = true;
    bool read_only = false;
    bool allow_oom = false;  // flags=allow-oom: denyoom calls run even out of memory
    bool resp3 = false;
    bool wrote = false;
    bool killed = false;
    bool timed_out = false;
    // OutputBudget() at the start: read once per run, not per redis.call (with jemalloc,
    // UsedMemory refreshes the allocator's statistics).
    size_t output_budget = static_cast<size_t>(-1);
  };

  // Compiles body into a cached script; false with the error reply text.
  bool Compile(std::string_view body, const char* sha, std::string* error);
  // Runs the function on top of the stack (with nargs arguments above it) and replies.
  // Why a write the script calls may not run: "-READONLY ...", "-MISCONF ..." (kept in
  // *misconf) or "-NOREPLICAS ..."; nullptr when it may.
  const char* WriteRefusal(std::string* misconf) const;
  void RunAndReply(CommandContext& ctx, int nargs, std::string_view id, bool is_eval,
                   bool read_only, bool allow_oom = false);
  // Pushes KEYS and ARGV (as globals for EVAL, as arguments for FCALL).
  void PushKeysAndArgs(CommandContext& ctx, size_t numkeys);
  // redis.call / redis.pcall: runs a command; pushes its reply (1) or an error table (-1).
  int CallCommand(lua_State* L);
  int SetResp(lua_State* L);
  int SetRepl(lua_State* L);
  int AclCheckCmd(lua_State* L);
  void OnHook(lua_State* L);

  static int LuaCall(lua_State* L);
  static int LuaPcall(lua_State* L);
  static int LuaSetResp(lua_State* L);
  static int LuaSetRepl(lua_State* L);
  static int LuaAclCheckCmd(lua_State* L);
  static void LuaHook(lua_State* L, lua_Debug* ar);

  Server& server_;
  LuaHeap heap_;  // before L_: the state's allocator counts into it
  lua_State* L_;
  std::unordered_map<std::string, Script, StringHash, std::equal_to<>> scripts_;
  size_t scripts_bytes_ = 0;
  Run run_;
  std::unique_ptr<Client> fake_;       // runs the commands scripts call
  std::string reply_buf_;              // their replies, before conversion to Lua
  std::vector<std::string> num_args_;  // numbers given as command arguments, formatted
  uint64_t runs_since_gc_ = 0;
  std::unique_ptr<FunctionLibraries> functions_;
};

}  // namespace vireo
