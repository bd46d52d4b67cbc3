#include "scripting/script_engine.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <lua.hpp>
#include <vector>

#include "acl/permission.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/hash.h"
#include "common/log.h"
#include "common/numbers.h"
#include "persistence/disk_errors.h"
#include "replication/replication.h"
#include "scripting/functions.h"
#include "scripting/lua_env.h"
#include "scripting/lua_reply.h"
#include "server/eviction.h"
#include "server/server.h"
#include "store/memory.h"

namespace vireo {
namespace {

constexpr const char* kNoScript = "NOSCRIPT No matching script.";
// Valkey's error for a command refused for memory (errors::kOom), as a script's error.
constexpr const char* kScriptOom = "-OOM command not allowed when used memory > 'maxmemory'.";
constexpr int kHookInstructions = 100000;  // as Redis: the busy check runs this often
constexpr uint64_t kGcEvery = 50;          // scripts between full GC steps

// The script running now, for the count hook (hooks get no upvalues).
ScriptEngine* g_running = nullptr;

int64_t BusyThresholdMs(Server& server) {
  const auto& g = server.config().generic;
  auto it = g.find("busy-reply-threshold");
  int64_t v = 5000;
  if (it != g.end()) ParseInt64(it->second, &v);
  return v;
}

}  // namespace

bool ParseScriptFlag(std::string_view name, uint32_t* flag) {
  static const struct {
    const char* name;
    uint32_t flag;
  } kFlags[] = {{"no-writes", kScriptNoWrites},
                {"allow-oom", kScriptAllowOom},
                {"allow-stale", kScriptAllowStale},
                {"no-cluster", kScriptNoCluster},
                {"allow-cross-slot-keys", kScriptAllowCrossSlot}};
  for (const auto& f : kFlags) {
    if (name == f.name) {
      *flag = f.flag;
      return true;
    }
  }
  return false;
}

std::vector<std::string_view> ShebangWords(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t start = i;
    while (i < line.size() && !isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::string ParseEvalShebang(std::string_view body, uint32_t* flags) {
  *flags = 0;
  size_t eol = body.find('\n');
  if (eol == std::string_view::npos) return "Invalid script shebang";
  std::string_view line = body.substr(0, eol);
  std::vector<std::string_view> parts = ShebangWords(line);
  if (parts.empty() || parts[0] != "#!lua") {
    return "Unexpected engine in script shebang: " + std::string(parts.empty() ? line : parts[0]);
  }
  for (size_t p = 1; p < parts.size(); ++p) {
    if (parts[p].substr(0, 6) != "flags=") {
      return "Unknown lua shebang option: " + std::string(parts[p]);
    }
    std::string_view list = parts[p].substr(6);
    while (!list.empty()) {
      size_t comma = list.find(',');
      std::string_view name = list.substr(0, comma);
      uint32_t f;
      if (!ParseScriptFlag(name, &f))
        return "Unexpected flag in script shebang: " + std::string(name);
      *flags |= f;
      if (comma == std::string_view::npos) break;
      list = list.substr(comma + 1);
    }
  }
  return "";
}

size_t ScriptEngine::StringHash::operator()(std::string_view s) const { return HashBytes(s); }

ScriptEngine::ScriptEngine(Server& server) : server_(server) {
  static const LuaEngineFunction kFns[] = {{"call", &ScriptEngine::LuaCall},
                                           {"pcall", &ScriptEngine::LuaPcall},
                                           {"setresp", &ScriptEngine::LuaSetResp},
                                           {"set_repl", &ScriptEngine::LuaSetRepl},
                                           {"acl_check_cmd", &ScriptEngine::LuaAclCheckCmd},
                                           {nullptr, nullptr}};
  L_ = NewScriptState(kFns, this, kCompatVersion, &heap_);
  fake_ = std::make_unique<Client>(0, -1);
  fake_->authenticated = true;
  fake_->flags |= kClientDenyBlocking | kClientScript;
  fake_->addr = "lua";
  functions_ = std::make_unique<FunctionLibraries>(*this, L_);
}

int64_t ScriptEngine::RunningMs() const { return (MonotonicUs() - run_.start_us) / 1000; }

ScriptEngine::~ScriptEngine() {
  if (g_running == this) g_running = nullptr;
  functions_.reset();
  // Everything collected while the state is whole, before lua_close tears it down (the
  // order CVE-2024-46981's fix established).
  heap_.limit = static_cast<size_t>(-1);
  lua_gc(L_, LUA_GCCOLLECT, 0);
  lua_close(L_);
}

size_t ScriptEngine::LuaMemory() const { return heap_.used; }

void ScriptEngine::LimitHeap() {
  const uint64_t maxmemory = static_cast<uint64_t>(server_.config().maxmemory);
  if (maxmemory == 0) return;
  heap_.limit = ScriptHeapLimit(heap_, maxmemory, UsedMemory());
  // Garbage of earlier runs counts against the room; when it could be most of it, collect.
  if (heap_.used > heap_.limit - heap_.used) {
    lua_gc(L_, LUA_GCCOLLECT, 0);
    heap_.limit = ScriptHeapLimit(heap_, maxmemory, UsedMemory());
  }
}

void ScriptEngine::UnlimitHeap(bool out_of_memory) {
  heap_.limit = static_cast<size_t>(-1);
  // What the refused script left is garbage: give it back now, not a GC step at a time.
  if (out_of_memory) lua_gc(L_, LUA_GCCOLLECT, 0);
}

size_t ScriptEngine::OutputBudget() const {
  const uint64_t maxmemory = static_cast<uint64_t>(server_.config().maxmemory);
  if (maxmemory == 0) return SIZE_MAX;
  const uint64_t used = UsedMemory();
  const uint64_t budget = (maxmemory > used ? maxmemory - used : 0) + kScriptHeapMargin;
  return budget > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(budget);
}

bool ScriptEngine::Compile(std::string_view body, const char* sha, std::string* error) {
  uint32_t flags = kScriptEvalCompat;
  std::string with_comment;
  std::string_view code = body;
  if (body.substr(0, 2) == "#!") {
    std::string err = ParseEvalShebang(body, &flags);
    if (!err.empty()) {
      *error = "ERR " + err;
      return false;
    }
    // The shebang line becomes a comment, so line numbers stay.
    with_comment.assign(body);
    with_comment[0] = '-';
    with_comment[1] = '-';
    code = with_comment;
  }
  if (LoadChunk(L_, code, "@user_script") != 0) {
    *error = "ERR Error compiling script (new function): ";
    const char* msg = lua_tostring(L_, -1);
    error->append(msg == nullptr ? "" : msg);
    lua_pop(L_, 1);
    return false;
  }
  int ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  scripts_.emplace(std::string(sha, 40), Script{ref, flags, std::string(body)});
  scripts_bytes_ += body.size();
  return true;
}

bool ScriptEngine::Load(std::string_view body, char* sha, std::string* error) {
  Sha1Hex(body, sha);
  if (scripts_.find(std::string_view(sha, 40)) != scripts_.end()) return true;
  return Compile(body, sha, error);
}

bool ScriptEngine::Exists(std::string_view sha) const { return Body(sha) != nullptr; }

const std::string* ScriptEngine::Body(std::string_view sha) const {
  if (sha.size() != 40) return nullptr;
  char lower[40];
  for (size_t i = 0; i < 40; ++i)
    lower[i] = static_cast<char>(tolower(static_cast<unsigned char>(sha[i])));
  auto it = scripts_.find(std::string_view(lower, 40));
  return it == scripts_.end() ? nullptr : &it->second.body;
}

void ScriptEngine::FlushScripts() {
  for (auto& [sha, s] : scripts_) luaL_unref(L_, LUA_REGISTRYINDEX, s.ref);
  scripts_.clear();
  scripts_bytes_ = 0;
  lua_gc(L_, LUA_GCCOLLECT, 0);
}

namespace {

// numkeys of EVAL and FCALL (argument 2, keys from argument 3): false once the error is
// replied, not_a_number's text when it is no integer (the two commands differ there).
bool ParseNumKeys(CommandContext& ctx, const char* not_a_number, int64_t* numkeys) {
  if (!ParseInt64(ctx.arg(2), numkeys)) {
    ctx.reply.Error(not_a_number);
    return false;
  }
  if (*numkeys > static_cast<int64_t>(ctx.argc()) - 3) {
    ctx.reply.Error("ERR Number of keys can't be greater than number of args");
    return false;
  }
  if (*numkeys < 0) {
    ctx.reply.Error("ERR Number of keys can't be negative");
    return false;
  }
  return true;
}

}  // namespace

void ScriptEngine::Eval(CommandContext& ctx, bool by_sha, bool read_only) {
  ctx.server.FeedMonitorsBeforeScript(&ctx.client, ctx.args);
  std::string_view body = ctx.arg(1);
  // As Valkey: a "sha" that cannot be one is refused before numkeys is read.
  if (by_sha && body.size() != 40) {
    ctx.reply.Error(kNoScript);
    return;
  }
  int64_t numkeys;
  if (!ParseNumKeys(ctx, errors::kNotInteger, &numkeys)) return;
  char sha[41];
  if (by_sha) {
    for (size_t i = 0; i < 40; ++i)
      sha[i] = static_cast<char>(tolower(static_cast<unsigned char>(body[i])));
    sha[40] = '\0';
  } else {
    Sha1Hex(body, sha);
  }
  auto it = scripts_.find(std::string_view(sha, 40));
  if (it == scripts_.end()) {
    if (by_sha) {
      ctx.reply.Error(kNoScript);
      return;
    }
    std::string error;
    if (!Compile(body, sha, &error)) {
      ctx.reply.Error(error);
      return;
    }
    it = scripts_.find(std::string_view(sha, 40));
  }
  const Script& s = it->second;
  // Declared flags were checked before the command ran (Server::CheckedFlags); here only
  // what Valkey checks as the script starts.
  const bool declared = !(s.flags & kScriptEvalCompat);
  if (declared && read_only && !(s.flags & kScriptNoWrites)) {
    ctx.reply.Error("ERR Can not execute a script with write flag using *_ro command.");
    return;
  }
  if (!declared) {
    // Without a shebang a script may not run on a stale replica at all (MASTERDOWN).
    if (const char* refusal = server_.replication().RefuseCommand(&ctx.client, 0, false)) {
      ctx.reply.Error(refusal);
      return;
    }
  }
  lua_rawgeti(L_, LUA_REGISTRYINDEX, s.ref);
  PushKeysAndArgs(ctx, static_cast<size_t>(numkeys));
  SetScriptGlobal(L_, "ARGV");
  SetScriptGlobal(L_, "KEYS");
  RunAndReply(ctx, 0, std::string_view(sha, 40), true, read_only || (s.flags & kScriptNoWrites),
              (s.flags & kScriptAllowOom) != 0);
}

bool ScriptEngine::DeclaredFlags(const std::vector<std::string_view>& args,
                                 std::string_view command, uint32_t* flags) const {
  if (args.size() < 2) return false;
  if (command.substr(0, 5) == "fcall") {
    const LuaFunction* fn = functions_->Find(args[1]);
    if (fn == nullptr) return false;
    *flags = fn->flags;
    return true;
  }
  const bool by_sha = command.substr(0, 7) == "evalsha";
  char sha[41];
  if (by_sha) {
    if (args[1].size() != 40) return false;
    for (size_t i = 0; i < 40; ++i)
      sha[i] = static_cast<char>(tolower(static_cast<unsigned char>(args[1][i])));
    sha[40] = '\0';
  } else {
    Sha1Hex(args[1], sha);
  }
  auto it = scripts_.find(std::string_view(sha, 40));
  if (it != scripts_.end()) {
    *flags = it->second.flags;
    return !(it->second.flags & kScriptEvalCompat);
  }
  if (by_sha || args[1].substr(0, 2) != "#!") return false;
  return ParseEvalShebang(args[1], flags).empty();
}

void ScriptEngine::Fcall(CommandContext& ctx, bool read_only_command) {
  ctx.server.FeedMonitorsBeforeScript(&ctx.client, ctx.args);
  const LuaFunction* fn = functions_->Find(ctx.arg(1));
  if (fn == nullptr) {
    ctx.reply.Error("ERR Function not found");
    return;
  }
  int64_t numkeys;
  if (!ParseNumKeys(ctx, "ERR Bad number of keys provided", &numkeys)) return;
  if (read_only_command && !(fn->flags & kScriptNoWrites)) {
    ctx.reply.Error("ERR Can not execute a script with write flag using *_ro command.");
    return;
  }
  lua_rawgeti(L_, LUA_REGISTRYINDEX, fn->ref);
  PushKeysAndArgs(ctx, static_cast<size_t>(numkeys));
  RunAndReply(ctx, 2, fn->name, false, read_only_command || (fn->flags & kScriptNoWrites),
              (fn->flags & kScriptAllowOom) != 0);
}

void ScriptEngine::PushKeysAndArgs(CommandContext& ctx, size_t numkeys) {
  lua_createtable(L_, static_cast<int>(numkeys), 0);
  for (size_t i = 0; i < numkeys; ++i) {
    std::string_view k = ctx.arg(3 + i);
    lua_pushlstring(L_, k.data(), k.size());
    lua_rawseti(L_, -2, static_cast<int>(i + 1));
  }
  size_t nargs = ctx.argc() - 3 - numkeys;
  lua_createtable(L_, static_cast<int>(nargs), 0);
  for (size_t i = 0; i < nargs; ++i) {
    std::string_view a = ctx.arg(3 + numkeys + i);
    lua_pushlstring(L_, a.data(), a.size());
    lua_rawseti(L_, -2, static_cast<int>(i + 1));
  }
}

const char* ScriptEngine::WriteRefusal(std::string* misconf) const {
  // Valkey's order: the replica's, the disk's, then min-replicas-to-write's.
  const Replication& repl = server_.replication();
  if (const char* r = repl.RefuseScriptWriteOnReplica(run_.caller)) return r;
  if (!(*misconf = DiskErrorRefusal(server_)).empty()) {
    misconf->insert(0, "-");
    return misconf->c_str();
  }
  return repl.RefuseScriptWriteForReplicas();
}

void ScriptEngine::RunAndReply(CommandContext& ctx, int nargs, std::string_view id, bool is_eval,
                               bool read_only, bool allow_oom) {
  // Stack: function, nargs arguments. The error handler goes below them.
  const int base = lua_gettop(L_) - nargs;  // the function's index
  PushErrorHandler(L_);
  lua_insert(L_, base);
  run_ = Run{};
  run_.caller = &ctx.client;
  run_.id = id;
  run_.start_us = MonotonicUs();
  run_.is_eval = is_eval;
  run_.read_only = read_only;
  run_.allow_oom = allow_oom;
  fake_->db_index = ctx.client.db_index;
  ScriptEngine* outer = g_running;
  g_running = this;
  lua_sethook(L_, reinterpret_cast<lua_Hook>(&ScriptEngine::LuaHook), LUA_MASKCOUNT,
              kHookInstructions);
  LimitHeap();
  run_.output_budget = OutputBudget();
  int rc = lua_pcall(L_, nargs, 1, base);
  lua_sethook(L_, nullptr, 0, 0);
  UnlimitHeap(rc == LUA_ERRMEM);
  g_running = outer;
  if (run_.timed_out) server_.ClearScriptBusy();
  const bool resp3 = run_.resp3;
  const size_t budget = run_.output_budget;
  run_ = Run{};
  if (rc == LUA_ERRMEM) {
    // The script's heap reached its limit (past maxmemory): the error Valkey gives a command
    // refused for memory.
    ctx.reply.Error(errors::kOom);
  } else if (rc != 0) {
    // The handler made every error a table {err, source, line}.
    std::string msg;
    if (lua_type(L_, -1) == LUA_TTABLE) {
      lua_getfield(L_, -1, "err");
      const char* err = lua_tostring(L_, -1);
      msg = err == nullptr ? "ERR unknown error" : err;
      lua_getfield(L_, -2, "source");
      lua_getfield(L_, -3, "line");
      if (lua_isstring(L_, -2) && lua_isnumber(L_, -1)) {
        msg += " script: ";
        msg.append(id);
        msg += ", on ";
        msg += lua_tostring(L_, -2);
        msg += ':';
        msg += std::to_string(NumberToInt(lua_tonumber(L_, -1)));
        msg += '.';
      }
      lua_pop(L_, 3);
    } else {
      const char* err = lua_tostring(L_, -1);
      msg = std::string("ERR ") + (err == nullptr ? "unknown error" : err);
    }
    ctx.reply.Error(msg);
  } else {
    // A reply past the budget is dropped for an OOM error, never built.
    const size_t start = ctx.reply.Output()->size();
    ctx.reply.SetSizeLimit(budget > SIZE_MAX - start ? SIZE_MAX : start + budget);
    LuaToReply(L_, -1, ctx.reply, resp3);
    const bool overflowed = ctx.reply.Overflowed();
    ctx.reply.SetSizeLimit(SIZE_MAX);
    if (overflowed) {
      ctx.reply.Output()->resize(start);
      ctx.reply.Error(errors::kOom);
    }
  }
  lua_settop(L_, base - 1);
  // A step of garbage collection now and then, as Redis does, keeps the heap small.
  if (++runs_since_gc_ >= kGcEvery) {
    runs_since_gc_ = 0;
    lua_gc(L_, LUA_GCSTEP, 1);
  }
}

int ScriptEngine::CallCommand(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 0) {
    PushErrorTable(L, "Please specify at least one argument for this call");
    return -1;
  }
  std::vector<std::string_view>& args = fake_->args;
  args.clear();
  if (num_args_.size() < static_cast<size_t>(argc)) num_args_.resize(static_cast<size_t>(argc));
  for (int i = 1; i <= argc; ++i) {
    int t = lua_type(L, i);
    if (t == LUA_TNUMBER) {
      // Not lua_tolstring (Lua's "%.14g" loses precision): as Valkey 8, an integer within
      // +-2^62, else fpconv's text ("0.1", "1e-7", "-nan").
      char buf[kDoubleTextSize];
      std::string& s = num_args_[static_cast<size_t>(i - 1)];
      s.assign(buf, FormatLuaNumberTo(buf, lua_tonumber(L, i)));
      args.emplace_back(s);
    } else if (t == LUA_TSTRING) {
      size_t len;
      const char* s = lua_tolstring(L, i, &len);
      args.emplace_back(s, len);
    } else {
      args.clear();
      PushErrorTable(L, "Command arguments must be strings or integers");
      return -1;
    }
  }
  // Arguments may repeat one large string: past the budget they would be copied into keys.
  const size_t budget = run_.output_budget;
  size_t arg_bytes = 0;
  for (std::string_view a : args) arg_bytes += a.size();
  const char* refusal = arg_bytes > budget ? kScriptOom : nullptr;
  std::string misconf;  // persistence/disk_errors.h
  std::string acl_refusal;  // NOPERM text of the caller's user (server_acl.cc), then ours
  const CommandSpec* spec = Commands().Find(args[0]);
  if (spec != nullptr && spec->IsContainer() && args.size() >= 2) {
    spec = spec->FindSubcommand(args[1]);
  }
  const int n = static_cast<int>(args.size());
  if (refusal != nullptr) {
    // the arguments are past the budget
  } else if (spec == nullptr) {
    refusal = "Unknown command called from script";
  } else if ((spec->arity > 0 && n != spec->arity) || (spec->arity < 0 && n < -spec->arity)) {
    refusal = "Wrong number of args calling command from script";
  } else if (spec->flags & kCmdNoScript) {
    refusal = "This Redis command is not allowed from script";
  } else if (Client* caller = server_.executing();
             caller != nullptr && (caller->flags & kClientAclRestricted) &&
             !server_.AclPermits(caller, spec, args, fake_->db_index, "lua", &acl_refusal)) {
    // Valkey 8's wording: the NOPERM text after "ACL failure in script: ".
    acl_refusal.replace(0, acl_refusal.find(' ') + 1, "ACL failure in script: ");
    refusal = acl_refusal.c_str();
  } else if ((spec->flags & kCmdWrite) && run_.read_only) {
    refusal = "Write commands are not allowed from read-only scripts.";
  } else if ((spec->flags & kCmdWrite) && (refusal = WriteRefusal(&misconf)) != nullptr) {
    // a read-only replica, a failing disk or too few good replicas (WriteRefusal)
  } else if ((spec->flags & kCmdDenyOom) && !run_.allow_oom && !run_.wrote &&
             server_.config().maxmemory != 0 && CommandStartedOutOfMemory()) {
    // Valkey's rule: the script's command found memory full; once a script has written,
    // it may go on, so it is never left half done.
    refusal = kScriptOom;
  }
  if (refusal != nullptr) {
    args.clear();
    PushErrorTable(L, refusal);
    return -1;
  }
  reply_buf_.clear();
  fake_->reply.SetOutput(&reply_buf_);
  fake_->reply.SetResp3(run_.resp3);
  fake_->resp = run_.resp3 ? 3 : 2;
  fake_->reply.SetSizeLimit(budget);
  const uint64_t dirty = server_.dirty();
  server_.Call(fake_.get(), spec, MonotonicUs());
  if (server_.dirty() != dirty) run_.wrote = true;
  args.clear();
  if (fake_->reply.Overflowed()) {
    // A reply repeating a large value (MGET k k k ...) stopped growing at the budget.
    fake_->reply.SetSizeLimit(SIZE_MAX);
    reply_buf_.clear();
    PushErrorTable(L, kScriptOom);
    return -1;
  }
  fake_->reply.SetSizeLimit(SIZE_MAX);
  if (PushReplyAsLua(L, reply_buf_.data(), reply_buf_.size()) == 0) {
    PushErrorTable(L, "Unexpected reply from command");
    return -1;
  }
  return !reply_buf_.empty() && reply_buf_[0] == '-' ? -1 : 1;
}

int ScriptEngine::LuaCall(lua_State* L) {
  auto* e = static_cast<ScriptEngine*>(lua_touserdata(L, lua_upvalueindex(1)));
  if (e->CallCommand(L) < 0) return lua_error(L);
  return 1;
}

int ScriptEngine::LuaPcall(lua_State* L) {
  auto* e = static_cast<ScriptEngine*>(lua_touserdata(L, lua_upvalueindex(1)));
  e->CallCommand(L);
  return 1;
}

int ScriptEngine::SetResp(lua_State* L) {
  if (lua_gettop(L) != 1) RaiseErrorTable(L, "server.setresp() requires one argument.");
  int v = NumberToInt(lua_tonumber(L, 1));
  if (v != 2 && v != 3) RaiseErrorTable(L, "RESP version must be 2 or 3.");
  run_.resp3 = v == 3;
  return 0;
}

int ScriptEngine::LuaSetResp(lua_State* L) {
  return static_cast<ScriptEngine*>(lua_touserdata(L, lua_upvalueindex(1)))->SetResp(L);
}

int ScriptEngine::SetRepl(lua_State* L) {
  // Effects are what gets propagated (always, as in Valkey 7+); the flags are only checked.
  if (lua_gettop(L) != 1) RaiseErrorTable(L, "server.set_repl() requires one argument.");
  int v = NumberToInt(lua_tonumber(L, 1));
  if (v < 0 || v > 3) {
    RaiseErrorTable(
        L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  return 0;
}

int ScriptEngine::LuaSetRepl(lua_State* L) {
  return static_cast<ScriptEngine*>(lua_touserdata(L, lua_upvalueindex(1)))->SetRepl(L);
}

// server.acl_check_cmd(command, arg...): whether the script's caller may run it with those
// arguments (its command, key and channel rules), as ACL checks it, without logging a denial.
int ScriptEngine::AclCheckCmd(lua_State* L) {
  // Errors longjmp: every check comes before the first object with a destructor.
  const int argc = lua_gettop(L);
  if (argc < 1) RaiseErrorTable(L, "Please specify at least one argument for this call");
  for (int i = 1; i <= argc; ++i) {
    if (!lua_isstring(L, i)) RaiseErrorTable(L, "Command arguments must be strings or integers");
  }
  size_t len;
  const char* name = lua_tolstring(L, 1, &len);
  const CommandSpec* spec = Commands().Find(std::string_view(name, len));
  if (spec != nullptr && spec->IsContainer() && argc >= 2) {
    const char* sub = lua_tolstring(L, 2, &len);
    spec = spec->FindSubcommand(std::string_view(sub, len));
  }
  if (spec == nullptr) RaiseErrorTable(L, "Invalid command passed to server.acl_check_cmd()");
  const Client* caller = server_.executing();
  bool allowed = true;
  if (caller != nullptr && caller->acl_user != nullptr) {
    std::vector<std::string_view> args;
    for (int i = 1; i <= argc; ++i) {
      const char* s = lua_tolstring(L, i, &len);
      args.emplace_back(s, len);
    }
    allowed = CheckCommandPermission(*caller->acl_user, *spec, args,
                                     AclDbs{fake_->db_index, server_.db_count()})
                  .denial == AclDenial::kNone;
  }
  lua_pushboolean(L, allowed ? 1 : 0);
  return 1;
}

int ScriptEngine::LuaAclCheckCmd(lua_State* L) {
  return static_cast<ScriptEngine*>(lua_touserdata(L, lua_upvalueindex(1)))->AclCheckCmd(L);
}

void ScriptEngine::LuaHook(lua_State* L, lua_Debug*) {
  if (g_running != nullptr) g_running->OnHook(L);
}

void ScriptEngine::OnHook(lua_State* L) {
  // Heavy allocation brings the hook forward (LuaHeapAlloc); then it goes back to its pace.
  if (!run_.killed && lua_gethookcount(L) != kHookInstructions) {
    lua_sethook(L, reinterpret_cast<lua_Hook>(&ScriptEngine::LuaHook), LUA_MASKCOUNT,
                kHookInstructions);
  }
  if (!run_.killed && !run_.timed_out) {
    int64_t elapsed_ms = (MonotonicUs() - run_.start_us) / 1000;
    if (elapsed_ms < BusyThresholdMs(server_)) return;
    run_.timed_out = true;
    LogWarning(
        "Slow script detected: still in execution after %lld milliseconds. You can try "
        "killing the script using the %s command. Script name is: %.*s.",
        static_cast<long long>(elapsed_ms), run_.is_eval ? "SCRIPT KILL" : "FUNCTION KILL",
        static_cast<int>(run_.id.size()), run_.id.data());
    server_.SetScriptBusy(run_.caller, run_.is_eval);
  }
  if (run_.timed_out && !run_.killed) server_.ServeWhileBusy();
  if (run_.killed || server_.shutdown_requested()) {
    run_.killed = true;
    // From now on the hook runs at every line, so a pcall in a loop cannot swallow the kill.
    lua_sethook(L, reinterpret_cast<lua_Hook>(&ScriptEngine::LuaHook), LUA_MASKCOUNT | LUA_MASKLINE,
                1);
    RaiseErrorTable(L, run_.is_eval ? "Script killed by user with SCRIPT KILL..."
                                    : "Script killed by user with FUNCTION KILL...");
  }
}

void ScriptEngine::Kill(CommandContext& ctx, bool eval) {
  if (!Running() || !run_.timed_out) {
    ctx.reply.Error("NOTBUSY No scripts in execution right now.");
    return;
  }
  if (run_.wrote) {
    ctx.reply.Error(
        "UNKILLABLE Sorry the script already executed write commands against the dataset. You "
        "can either wait the script termination or kill the server in a hard way using the "
        "SHUTDOWN NOSAVE command.");
    return;
  }
  if (eval != run_.is_eval) {
    ctx.reply.Error(eval ? "BUSY Valkey is busy running a script. You can only call FUNCTION "
                           "KILL or SHUTDOWN NOSAVE."
                         : "BUSY Valkey is busy running a script. You can only call SCRIPT "
                           "KILL or SHUTDOWN NOSAVE.");
    return;
  }
  run_.killed = true;
  ctx.reply.Ok();
}

}  // namespace vireo
