// Command propagation: what a top-level command changed is fed, as commands, to sinks (the
// AOF today, replicas later). Server::Call brackets every command with Enter/Leave while a
// sink is attached; when nothing listens the server tests one flag per command.
//
// The rules follow Valkey 7: a command that moved the dirty counter propagates its arguments,
// or what it asked for instead (CommandContext::PropagateAs: relative expiries become absolute,
// SPOP becomes SREM, ...); EXEC, scripts and functions propagate the commands they ran, not
// themselves; all the commands of one top-level command (a transaction, a script, a lazy
// expiry plus the command) are wrapped in MULTI/EXEC when there is more than one. Deletions
// made outside any command (active expiry, eviction) are fed at once. Execution thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vireo {

class Server;

// A consumer of the propagated stream. Each Feed is one command to run in database `db`; the
// sink emits SELECT itself when db differs from the last one it wrote.
class PropagationSink {
 public:
  virtual ~PropagationSink() = default;
  virtual void Feed(int db, const std::string_view* args, size_t argc) = 0;
  // After the last command of a unit (a command on its own, or a transaction's EXEC): the
  // stream so far holds no partial unit.
  virtual void UnitDone() {}
};

class Propagator {
 public:
  // True while some sink listens and propagation is not suspended (AOF loading).
  bool active() const { return active_; }
  void AddSink(PropagationSink* sink);
  void RemoveSink(PropagationSink* sink);
  void Suspend(bool on);

  // Server::Call's bracket (only while active). Enter saves the enclosing command's state;
  // Leave decides what this command propagates and, at the outermost level, feeds the sinks.
  struct Frame {
    size_t ops_before;
    uint64_t calls_before;
    bool prevent;
    bool has_override;  // the enclosing command's override waits in saved_overrides_
  };
  void Enter(Frame* frame);
  void Leave(Frame* frame, int db, const std::vector<std::string_view>& args, bool dirty);

  // For the running command (see CommandContext).
  void PropagateAs(std::vector<std::string> args);
  void Prevent() { prevent_ = true; }
  // An extra command in db: part of the running command's unit, or fed at once outside one.
  void Also(int db, std::vector<std::string> args);

 private:
  struct Op {
    int db;
    std::vector<std::string> args;
  };
  void Emit(int db, const std::string_view* args, size_t argc);
  void UnitDone();
  void EmitOwned(const Op& op);
  void FlushPending();

  std::vector<PropagationSink*> sinks_;
  bool active_ = false;
  bool suspended_ = false;
  int depth_ = 0;
  uint64_t calls_ = 0;
  bool prevent_ = false;
  bool has_override_ = false;
  std::vector<std::string> override_;
  std::vector<std::vector<std::string>> saved_overrides_;
  std::vector<Op> pending_;
};

// A key removed by expiry or eviction: DEL, or UNLINK when freed lazily (as Valkey 7).
void PropagateDeletion(Server& server, int db, std::string_view key, bool lazy);

}  // namespace vireo
