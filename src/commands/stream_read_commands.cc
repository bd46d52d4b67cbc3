// XREAD and XREADGROUP: serving new entries or a consumer's history, and blocking until an
// XADD brings something (re-run from scratch when woken; "$" is rewritten to the ID it meant).
#include <string>
#include <vector>

#include "commands/errors.h"
#include "commands/stream_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"

namespace vireo::streamcmd {
namespace {

struct ReadArgs {
  bool group_mode = false;
  bool block = false;
  int64_t deadline_ms = 0;
  int64_t count = 0;  // 0 = all
  bool noack = false;
  std::string_view group, consumer;
  size_t streams_arg = 0;
  size_t nstreams = 0;
};

bool ParseReadArgs(CommandContext& ctx, ReadArgs* a) {
  bool has_group = false;
  const size_t argc = ctx.argc();
  for (size_t i = 1; i < argc; ++i) {
    size_t more = argc - 1 - i;
    std::string_view opt = ctx.arg(i);
    if (EqualsIgnoreCase(opt, "BLOCK") && more > 0) {
      std::string err;
      if (!ParseBlockTimeoutMs(ctx.arg(++i), NowMs(), &a->deadline_ms, &err)) {
        ctx.reply.Error("ERR " + err);
        return false;
      }
      a->block = true;
    } else if (EqualsIgnoreCase(opt, "COUNT") && more > 0) {
      if (!ParseInt64(ctx.arg(++i), &a->count)) {
        ctx.reply.Error(errors::kNotInteger);
        return false;
      }
      if (a->count < 0) a->count = 0;
    } else if (EqualsIgnoreCase(opt, "STREAMS") && more > 0) {
      a->streams_arg = i + 1;
      size_t n = argc - a->streams_arg;
      if (n % 2 != 0) {
        ctx.reply.Error(a->group_mode
                            ? "ERR Unbalanced 'xreadgroup' list of streams: for each stream "
                              "key an ID or '>' must be specified."
                            : "ERR Unbalanced 'xread' list of streams: for each stream key "
                              "an ID or '$' must be specified.");
        return false;
      }
      a->nstreams = n / 2;
      break;
    } else if (EqualsIgnoreCase(opt, "GROUP") && more >= 2) {
      if (!a->group_mode) {
        ctx.reply.Error(
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
        return false;
      }
      a->group = ctx.arg(i + 1);
      a->consumer = ctx.arg(i + 2);
      has_group = true;
      i += 2;
    } else if (EqualsIgnoreCase(opt, "NOACK")) {
      if (!a->group_mode) {
        ctx.reply.Error(
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
        return false;
      }
      a->noack = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  if (a->streams_arg == 0) {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  if (a->group_mode && !has_group) {
    ctx.reply.Error("ERR Missing GROUP option for XREADGROUP");
    return false;
  }
  return true;
}

// One stream of an XREAD / XREADGROUP.
struct ReadTarget {
  Stream* stream = nullptr;
  StreamGroup* group = nullptr;
  StreamConsumer* consumer = nullptr;
  StreamID after;            // entries with IDs greater than this
  bool new_entries = false;  // ">": what the group has not delivered yet
  bool history = false;      // XREADGROUP with an ID: the consumer's own pending entries
  bool serve = false;
  bool rewritten = false;  // "$" or "+" stood for `after`
};

// Delivers entries after t.after to the group's consumer (or just lists them for XREAD).
size_t ReplyNewEntries(ReplyBuilder& out, ReadTarget& t, int64_t count, bool noack) {
  Stream& s = *t.stream;
  StreamID start = t.after;
  IncrStreamId(&start);  // the maximal ID wraps to 0-0, as in Valkey
  int64_t now = CommandTimeMs();
  size_t n = 0;
  for (StreamIterator it(s, start, kMaxStreamId, false); it.Next();) {
    StreamID id = it.id();
    if (t.group != nullptr && id > t.group->last_id) StreamGroupDelivered(s, t.group, id);
    ReplyEntry(out, it);
    if (t.group != nullptr && !noack) {
      StreamGroup& g = *t.group;
      auto [pos, inserted] = g.pel.try_emplace(id, StreamNack{now, 1, nullptr});
      if (!inserted) {
        // XGROUP SETID moved the group back: the entry is delivered again, to this consumer.
        pos->second.delivery_time = now;
        pos->second.delivery_count = 1;
      }
      g.Assign(pos, t.consumer);
      t.consumer->active_time = now;
    }
    if (++n == static_cast<uint64_t>(count)) break;
  }
  return n;
}

// The consumer's pending entries after t.after; deleted entries show as [id, nil].
size_t ReplyHistory(ReplyBuilder& out, ReadTarget& t, int64_t count) {
  StreamID start = t.after;
  IncrStreamId(&start);
  int64_t now = CommandTimeMs();
  size_t n = 0;
  auto& pel = t.consumer->pel;
  for (auto it = pel.lower_bound(start); it != pel.end(); ++it) {
    if (count != 0 && n == static_cast<uint64_t>(count)) break;
    if (ReplyEntryById(out, *t.stream, it->first)) {
      it->second->delivery_time = now;
      ++it->second->delivery_count;
    } else {
      out.Array(2);
      ReplyId(out, it->first);
      out.NullArray();
    }
    ++n;
  }
  return n;
}

void ReadGeneric(CommandContext& ctx, bool group_mode) {
  ReadArgs a;
  a.group_mode = group_mode;
  if (!ParseReadArgs(ctx, &a)) return;
  std::vector<ReadTarget> targets(a.nstreams);
  for (size_t i = 0; i < a.nstreams; ++i) {
    std::string_view key = ctx.arg(a.streams_arg + i);
    std::string_view idarg = ctx.arg(a.streams_arg + a.nstreams + i);
    ReadTarget& t = targets[i];
    bool wrong_type;
    t.stream = ReadStream(ctx, key, &wrong_type);
    if (wrong_type) {
      ctx.reply.Error(errors::kWrongType);
      return;
    }
    if (group_mode) {
      t.group = t.stream ? t.stream->FindGroup(a.group) : nullptr;
      if (t.group == nullptr) {
        ctx.reply.Error("NOGROUP No such key '" + CText(key) + "' or consumer group '" +
                        CText(a.group) + "' in XREADGROUP with GROUP option");
        return;
      }
    }
    if (idarg == "$" || idarg == "+") {
      if (group_mode) {
        // Valkey 8 explains "+" as it explains "$" (Redis 7.0 called it an invalid ID).
        const std::string id(idarg);
        ctx.reply.Error("ERR The " + id + " ID is meaningless in the context of XREADGROUP: you "
                        "want to read the history of this consumer by specifying a proper ID, "
                        "or use the > ID to get new messages. The " + id +
                        " ID would just return an empty result set.");
        return;
      }
      t.after = t.stream ? t.stream->last_id : kMinStreamId;
      // "+" reads the last entry: start just before the last generated ID.
      if (idarg == "+" && !t.after.IsZero()) DecrStreamId(&t.after);
      t.rewritten = true;
    } else if (idarg == ">") {
      if (!group_mode) {
        ctx.reply.Error(
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP "
            "<group> <consumer> option.");
        return;
      }
      t.new_entries = true;
    } else if (!ParseIdOrReply(ctx, idarg, &t.after, 0, true)) {
      return;
    } else if (group_mode && t.after == kMaxStreamId) {
      t.new_entries = true;  // Valkey encodes ">" as the largest ID: the two are the same
    }
  }

  // Serve what can be served now, stream by stream (a key named twice sees the group as the
  // first serving left it).
  int64_t now = CommandTimeMs();
  bool resp3 = ctx.reply.Resp3();
  DeferredArray out(ctx.reply);
  size_t served = 0;
  // A group read replays as what it changed (PropagateStreamClaim), never as itself.
  const bool propagating = group_mode && ctx.Propagating();
  if (propagating) ctx.NoPropagate();
  for (size_t i = 0; i < a.nstreams; ++i) {
    ReadTarget& t = targets[i];
    if (t.stream == nullptr) continue;
    StreamID top;
    if (group_mode) {
      if (!t.new_entries) {
        t.serve = t.history = true;
      } else if (t.stream->length > 0 && StreamLastEntryId(*t.stream, &top) &&
                 top > t.group->last_id) {
        t.serve = true;
        t.after = t.group->last_id;
      }
      t.consumer = t.group->FindConsumer(a.consumer);
      if (t.consumer == nullptr) {
        t.consumer = t.group->CreateConsumer(a.consumer, now);
        ctx.Dirty();
        NotifyKeyspaceEvent(ctx, kNotifyStream, "xgroup-createconsumer", ctx.db,
                            ctx.arg(a.streams_arg + i));
        if (propagating) {
          ctx.AlsoPropagate(ctx.db, {"XGROUP", "CREATECONSUMER",
                                     std::string(ctx.arg(a.streams_arg + i)),
                                     std::string(a.group), std::string(a.consumer)});
        }
      }
      t.consumer->seen_time = now;
    } else {
      t.serve = t.stream->length > 0 && StreamLastEntryId(*t.stream, &top) && top > t.after;
    }
    if (!t.serve) continue;
    ++served;
    ReplyBuilder& r = out.items();
    if (!resp3) r.Array(2);
    r.Bulk(ctx.arg(a.streams_arg + i));
    DeferredArray entries(r);
    const StreamID before = group_mode ? t.group->last_id : StreamID();
    size_t n = t.history ? ReplyHistory(entries.items(), t, a.count)
                         : ReplyNewEntries(entries.items(), t, a.count, a.noack);
    entries.Finish(n);
    if (group_mode) ctx.Dirty();
    if (propagating && !t.history) {
      std::string_view key = ctx.arg(a.streams_arg + i);
      const StreamGroup& g = *t.group;
      if (a.noack) {
        ctx.AlsoPropagate(ctx.db, {"XGROUP", "SETID", std::string(key), std::string(a.group),
                                   FormatStreamId(g.last_id), "ENTRIESREAD",
                                   std::to_string(g.entries_read)});
      } else {
        // The entries delivered now: those past the group's previous last ID.
        for (auto it = g.pel.upper_bound(before); it != g.pel.end() && it->first <= g.last_id;
             ++it) {
          PropagateStreamClaim(ctx, key, a.group, g, it->first, it->second);
        }
      }
    }
  }
  if (served > 0) {
    if (resp3) {
      out.FinishMap(served);
    } else {
      out.Finish(served);
    }
    return;
  }

  if (!a.block || !ctx.CanBlock()) {
    ctx.reply.NullArray();
    return;
  }
  std::vector<std::string_view> keys(
      ctx.args.begin() + static_cast<long>(a.streams_arg),
      ctx.args.begin() + static_cast<long>(a.streams_arg + a.nstreams));
  // A woken client runs the command again: "$" must still mean the ID it meant now.
  std::vector<std::string> rewritten;
  for (size_t i = 0; i < a.nstreams; ++i) {
    if (!targets[i].rewritten) continue;
    if (rewritten.empty()) rewritten.assign(ctx.args.begin(), ctx.args.end());
    rewritten[a.streams_arg + a.nstreams + i] = FormatStreamId(targets[i].after);
  }
  ctx.Block(keys, a.deadline_ms, ObjType::kStream, BlockTimeoutReply::kNullArray, group_mode,
            rewritten.empty() ? nullptr : &rewritten);
}

// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]
void CmdXRead(CommandContext& ctx) { ReadGeneric(ctx, false); }

// XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key
//   [key ...] id [id ...]
void CmdXReadGroup(CommandContext& ctx) { ReadGeneric(ctx, true); }

}  // namespace

void RegisterStreamReadCommands(CommandTable& t) {
  const uint64_t rd = kAclRead | kAclStream;
  const uint64_t wr = kAclWrite | kAclStream;
  t.Add({.name = "xread",
         .arity = -4,
         .flags = kCmdReadonly | kCmdBlocking | kCmdMovableKeys,
         .acl = rd | kAclSlow | kAclBlocking,
         .handler = CmdXRead,
         .group = "stream",
         .summary = "Returns messages from multiple streams with IDs greater than the ones "
                    "requested. Blocks until a message is available otherwise.",
         .since = "5.0.0",
         .complexity = "For each stream mentioned: O(N) with N being the number of elements "
                       "being returned, it means that XREAD-ing with a fixed COUNT is O(1). "
                       "Note that when the BLOCK option is used, XADD will pay O(M) time in "
                       "order to serve the M clients blocked on the stream getting new data."});
  t.Add({.name = "xreadgroup",
         .arity = -7,
         .flags = kCmdWrite | kCmdBlocking | kCmdMovableKeys,
         .acl = wr | kAclSlow | kAclBlocking,
         .handler = CmdXReadGroup,
         .group = "stream",
         .summary = "Returns new or historical messages from a stream for a consumer in a "
                    "group. Blocks until a message is available otherwise.",
         .since = "5.0.0",
         .complexity = "For each stream mentioned: O(M) with M the number of elements "
                       "returned. If M is constant (e.g. always asking for the first 10 "
                       "elements with COUNT), you can consider it O(1). On the other side when "
                       "XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N "
                       "clients blocked on the stream getting new data."});
}

}  // namespace vireo::streamcmd
