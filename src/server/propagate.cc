#include "server/propagate.h"

#include <algorithm>
#include <utility>

#include "commands/context.h"
#include "server/server.h"

namespace vireo {

void Propagator::AddSink(PropagationSink* sink) {
  if (std::find(sinks_.begin(), sinks_.end(), sink) == sinks_.end()) sinks_.push_back(sink);
  active_ = !sinks_.empty() && !suspended_;
}

void Propagator::RemoveSink(PropagationSink* sink) {
  sinks_.erase(std::remove(sinks_.begin(), sinks_.end(), sink), sinks_.end());
  active_ = !sinks_.empty() && !suspended_;
}

void Propagator::Suspend(bool on) {
  suspended_ = on;
  active_ = !sinks_.empty() && !suspended_;
}

void Propagator::Enter(Frame* frame) {
  frame->ops_before = pending_.size();
  frame->calls_before = calls_;
  frame->prevent = prevent_;
  frame->has_override = has_override_;
  if (has_override_) saved_overrides_.push_back(std::move(override_));
  prevent_ = false;
  has_override_ = false;
  ++depth_;
}

void Propagator::Leave(Frame* frame, int db, const std::vector<std::string_view>& args,
                       bool dirty) {
  --depth_;
  // A command that ran others (EXEC, EVAL, FCALL) propagates through them, never itself.
  const bool ran_nested = calls_ != frame->calls_before;
  ++calls_;
  if (dirty && !prevent_ && !ran_nested && active_) {
    if (has_override_) {
      pending_.push_back({db, std::move(override_)});
    } else if (depth_ == 0 && pending_.empty()) {
      // The common case, a plain write on its own: fed from the argument views, no copy.
      Emit(db, args.data(), args.size());
      UnitDone();
    } else {
      pending_.push_back({db, std::vector<std::string>(args.begin(), args.end())});
    }
  }
  prevent_ = frame->prevent;
  has_override_ = frame->has_override;
  override_.clear();
  if (has_override_) {
    override_ = std::move(saved_overrides_.back());
    saved_overrides_.pop_back();
  }
  if (depth_ == 0 && !pending_.empty()) FlushPending();
}

void Propagator::PropagateAs(std::vector<std::string> args) {
  override_ = std::move(args);
  has_override_ = true;
}

void Propagator::Also(int db, std::vector<std::string> args) {
  if (!active_) return;
  if (depth_ == 0) {
    EmitOwned({db, std::move(args)});
    UnitDone();
    return;
  }
  pending_.push_back({db, std::move(args)});
}

void Propagator::Emit(int db, const std::string_view* args, size_t argc) {
  for (PropagationSink* s : sinks_) s->Feed(db, args, argc);
}

void Propagator::UnitDone() {
  for (PropagationSink* s : sinks_) s->UnitDone();
}

void Propagator::EmitOwned(const Op& op) {
  std::string_view small[8];
  std::vector<std::string_view> big;
  const std::string_view* views = small;
  if (op.args.size() <= 8) {
    for (size_t i = 0; i < op.args.size(); ++i) small[i] = op.args[i];
  } else {
    big.assign(op.args.begin(), op.args.end());
    views = big.data();
  }
  Emit(op.db, views, op.args.size());
}

void Propagator::FlushPending() {
  std::vector<Op> ops;
  ops.swap(pending_);
  if (!active_) return;
  // MULTI takes the first command's database, so any SELECT comes before it, and EXEC the
  // last one's, so none comes between the last command and EXEC.
  const bool wrap = ops.size() > 1;
  static constexpr std::string_view kMulti[] = {"MULTI"};
  static constexpr std::string_view kExec[] = {"EXEC"};
  if (wrap) Emit(ops.front().db, kMulti, 1);
  for (const Op& op : ops) EmitOwned(op);
  if (wrap) Emit(ops.back().db, kExec, 1);
  UnitDone();
}

void PropagateDeletion(Server& server, int db, std::string_view key, bool lazy) {
  Propagator& p = server.propagator();
  if (!p.active()) return;
  p.Also(db, {lazy ? "UNLINK" : "DEL", std::string(key)});
}

// CommandContext's propagation methods (commands/context.h).

bool CommandContext::Propagating() const { return server.propagator().active(); }

void CommandContext::PropagateAs(std::vector<std::string> rewritten) {
  if (server.propagator().active()) server.propagator().PropagateAs(std::move(rewritten));
}

void CommandContext::AlsoPropagate(Db* target, std::vector<std::string> extra) {
  if (server.propagator().active()) server.propagator().Also(target->index(), std::move(extra));
}

void CommandContext::NoPropagate() {
  if (server.propagator().active()) server.propagator().Prevent();
}

}  // namespace vireo
