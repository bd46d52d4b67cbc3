// Stream consumer groups: XGROUP (CREATE SETID DESTROY CREATECONSUMER DELCONSUMER HELP), XACK,
// XPENDING, XCLAIM, XAUTOCLAIM. XREADGROUP shares XREAD's code in stream_commands.cc.
#include <climits>
#include <string>
#include <vector>

#include "commands/errors.h"
#include "commands/server_family.h"
#include "commands/stream_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"

namespace vireo::streamcmd {
namespace {

void ReplyNoGroup(CommandContext& ctx, std::string_view key, std::string_view group) {
  ctx.reply.Error("NOGROUP No such key '" + CText(key) + "' or consumer group '" + CText(group) +
                  "'");
}

// The stream at argument 1 and its group named at argument 2 (XPENDING, XCLAIM, XAUTOCLAIM);
// nullptr after replying WRONGTYPE or NOGROUP.
StreamGroup* FindGroupOrReply(CommandContext& ctx, Stream** stream) {
  bool wrong_type;
  *stream = ReadStream(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
    return nullptr;
  }
  StreamGroup* g = *stream ? (*stream)->FindGroup(ctx.arg(2)) : nullptr;
  if (g == nullptr) ReplyNoGroup(ctx, ctx.arg(1), ctx.arg(2));
  return g;
}

void ReplySubcommandSyntax(CommandContext& ctx, const char* command) {
  ctx.reply.Error("ERR unknown subcommand or wrong number of arguments for '" +
                  CText(ctx.arg(1).substr(0, 128)) + "'. Try " + command + " HELP.");
}

// ---------------------------------------------------------------------------------------------
// XGROUP

// What every XGROUP subcommand but HELP starts with: options, key, group.
struct GroupTarget {
  Stream* stream = nullptr;
  StreamGroup* group = nullptr;
  bool mkstream = false;
  int64_t entries_read = kStreamInvalidEntriesRead;
};

bool ResolveGroupTarget(CommandContext& ctx, bool create, bool setid, bool need_group,
                        GroupTarget* t) {
  for (size_t i = 5; i < ctx.argc();) {
    if (create && EqualsIgnoreCase(ctx.arg(i), "MKSTREAM")) {
      t->mkstream = true;
      ++i;
    } else if ((create || setid) && EqualsIgnoreCase(ctx.arg(i), "ENTRIESREAD") &&
               i + 1 < ctx.argc()) {
      if (!ParseInt64(ctx.arg(i + 1), &t->entries_read)) {
        ctx.reply.Error(errors::kNotInteger);
        return false;
      }
      if (t->entries_read < 0 && t->entries_read != kStreamInvalidEntriesRead) {
        ctx.reply.Error("ERR value for ENTRIESREAD must be positive or -1");
        return false;
      }
      i += 2;
    } else {
      ReplySubcommandSyntax(ctx, "XGROUP");
      return false;
    }
  }
  bool wrong_type;
  t->stream = WriteStream(ctx, ctx.arg(2), &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
    return false;
  }
  if (t->mkstream) return true;
  if (t->stream == nullptr) {
    ctx.reply.Error(
        "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may "
        "want to use the MKSTREAM option to create an empty stream automatically.");
    return false;
  }
  t->group = t->stream->FindGroup(ctx.arg(3));
  if (t->group == nullptr && need_group) {
    ctx.reply.Error("NOGROUP No such consumer group '" + CText(ctx.arg(3)) + "' for key name '" +
                    CText(ctx.arg(2)) + "'");
    return false;
  }
  return true;
}

// XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD entries-read]
void CmdXGroupCreate(CommandContext& ctx) {
  GroupTarget t;
  if (!ResolveGroupTarget(ctx, true, false, false, &t)) return;
  if (ctx.argc() > 8) {
    ReplySubcommandSyntax(ctx, "XGROUP");
    return;
  }
  StreamID id;
  if (ctx.arg(4) == "$") {
    id = t.stream ? t.stream->last_id : kMinStreamId;
  } else if (!ParseIdOrReply(ctx, ctx.arg(4), &id, 0, true)) {
    return;
  }
  if (t.stream == nullptr) {
    Entry* e = ctx.db->Add(ctx.arg(2));
    t.stream = new Stream();
    e->obj = t.stream;
    e->SetType(ObjType::kStream, Encoding::kStream);
    ctx.KeyModified(ctx.db, ctx.arg(2), 0);
  }
  if (t.stream->CreateGroup(ctx.arg(3), id, t.entries_read) == nullptr) {
    ctx.reply.Error("BUSYGROUP Consumer Group name already exists");
    return;
  }
  ctx.Dirty();
  NotifyKeyspaceEvent(ctx, kNotifyStream, "xgroup-create", ctx.db, ctx.arg(2));
  ctx.reply.Ok();
}

// XGROUP SETID key group id|$ [ENTRIESREAD entries-read]
void CmdXGroupSetId(CommandContext& ctx) {
  GroupTarget t;
  if (!ResolveGroupTarget(ctx, false, true, true, &t)) return;
  if (ctx.argc() != 5 && ctx.argc() != 7) {
    ReplySubcommandSyntax(ctx, "XGROUP");
    return;
  }
  StreamID id;
  if (ctx.arg(4) == "$") {
    id = t.stream->last_id;
  } else if (!ParseIdOrReply(ctx, ctx.arg(4), &id, 0, false)) {
    return;
  }
  t.group->last_id = id;
  t.group->entries_read = t.entries_read;
  ctx.Dirty();
  NotifyKeyspaceEvent(ctx, kNotifyStream, "xgroup-setid", ctx.db, ctx.arg(2));
  ctx.reply.Ok();
}

// XGROUP DESTROY key group
void CmdXGroupDestroy(CommandContext& ctx) {
  GroupTarget t;
  if (!ResolveGroupTarget(ctx, false, false, false, &t)) return;
  if (t.group == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  t.stream->DestroyGroup(ctx.arg(3));
  ctx.Dirty();
  NotifyKeyspaceEvent(ctx, kNotifyStream, "xgroup-destroy", ctx.db, ctx.arg(2));
  // Consumers blocked in XREADGROUP on this group run again and get NOGROUP.
  ctx.server.blocking().MarkReady(ctx.db->index(), ctx.arg(2));
  ctx.reply.Integer(1);
}

// XGROUP CREATECONSUMER key group consumer
void CmdXGroupCreateConsumer(CommandContext& ctx) {
  GroupTarget t;
  if (!ResolveGroupTarget(ctx, false, false, true, &t)) return;
  bool created = t.group->CreateConsumer(ctx.arg(4), CommandTimeMs()) != nullptr;
  if (created) {
    ctx.Dirty();
    NotifyKeyspaceEvent(ctx, kNotifyStream, "xgroup-createconsumer", ctx.db, ctx.arg(2));
  }
  ctx.reply.Integer(created ? 1 : 0);
}

// XGROUP DELCONSUMER key group consumer
void CmdXGroupDelConsumer(CommandContext& ctx) {
  GroupTarget t;
  if (!ResolveGroupTarget(ctx, false, false, true, &t)) return;
  size_t pending = 0;
  if (StreamConsumer* c = t.group->FindConsumer(ctx.arg(4))) {
    pending = t.group->DeleteConsumer(c);
    ctx.Dirty();
    NotifyKeyspaceEvent(ctx, kNotifyStream, "xgroup-delconsumer", ctx.db, ctx.arg(2));
  }
  ctx.reply.Integer(static_cast<int64_t>(pending));
}

// XGROUP HELP
void CmdXGroupHelp(CommandContext& ctx) {
  ReplyHelp(
      ctx.reply, ctx.arg(0),
      {"CREATE <key> <groupname> <id|$> [option]",
       "    Create a new consumer group. Options are:", "    * MKSTREAM",
       "      Create the empty stream if it does not exist.", "    * ENTRIESREAD entries_read",
       "      Set the group's entries_read counter (internal use).",
       "CREATECONSUMER <key> <groupname> <consumer>",
       "    Create a new consumer in the specified group.",
       "DELCONSUMER <key> <groupname> <consumer>", "    Remove the specified consumer.",
       "DESTROY <key> <groupname>", "    Remove the specified group.",
       "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
       "    Set the current group ID and entries_read counter."});
}

// ---------------------------------------------------------------------------------------------
// XACK key group id [id ...]
void CmdXAck(CommandContext& ctx) {
  bool wrong_type;
  Stream* s = ReadStream(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  StreamGroup* g = s ? s->FindGroup(ctx.arg(2)) : nullptr;
  if (g == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  // All or nothing: a bad ID acknowledges none.
  std::vector<StreamID> ids(ctx.argc() - 3);
  for (size_t j = 3; j < ctx.argc(); ++j) {
    if (!ParseIdOrReply(ctx, ctx.arg(j), &ids[j - 3], 0, true)) return;
  }
  int acked = 0;
  for (StreamID id : ids) acked += g->Ack(id) ? 1 : 0;
  if (acked != 0) ctx.Dirty(acked);
  ctx.reply.Integer(acked);
}

// ---------------------------------------------------------------------------------------------
// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
void CmdXPending(CommandContext& ctx) {
  const size_t argc = ctx.argc();
  bool summary = argc == 3;
  if (!summary && (argc < 6 || argc > 9)) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t min_idle = 0, count = 0;
  StreamID start, end;
  std::string_view consumer_name;
  bool has_consumer = false;
  if (!summary) {
    size_t at = 3;
    if (EqualsIgnoreCase(ctx.arg(3), "IDLE")) {
      if (!ParseInt64(ctx.arg(4), &min_idle)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (argc < 8) {
        ctx.reply.Error(errors::kSyntax);
        return;
      }
      at += 2;
    }
    if (!ParseInt64(ctx.arg(at + 2), &count)) {
      ctx.reply.Error(errors::kNotInteger);
      return;
    }
    if (count < 0) count = 0;
    if (!ParseRangeStartOrReply(ctx, ctx.arg(at), &start)) return;
    if (!ParseRangeEndOrReply(ctx, ctx.arg(at + 1), &end)) return;
    if (at + 3 < argc) {
      consumer_name = ctx.arg(at + 3);
      has_consumer = true;
    }
  }
  Stream* s;
  StreamGroup* g = FindGroupOrReply(ctx, &s);
  if (g == nullptr) return;
  if (summary) {
    ctx.reply.Array(4);
    ctx.reply.Integer(static_cast<int64_t>(g->pel.size()));
    if (g->pel.empty()) {
      ctx.reply.Null();
      ctx.reply.Null();
      ctx.reply.NullArray();
      return;
    }
    ReplyId(ctx.reply, g->pel.begin()->first);
    ReplyId(ctx.reply, g->pel.rbegin()->first);
    size_t with_pending = 0;
    for (const auto& [name, c] : g->consumers) with_pending += c->pel.empty() ? 0 : 1;
    ctx.reply.Array(with_pending);
    for (const auto& [name, c] : g->consumers) {
      if (c->pel.empty()) continue;
      ctx.reply.Array(2);
      ctx.reply.Bulk(name);
      ctx.reply.BulkInt(static_cast<int64_t>(c->pel.size()));
    }
    return;
  }
  StreamConsumer* consumer = nullptr;
  if (has_consumer) {
    consumer = g->FindConsumer(consumer_name);
    if (consumer == nullptr) {
      ctx.reply.EmptyArray();
      return;
    }
  }
  int64_t now = CommandTimeMs();
  DeferredArray out(ctx.reply);
  size_t n = 0;
  auto emit = [&](StreamID id, const StreamNack& nack) {
    if (min_idle != 0 && now - nack.delivery_time < min_idle) return;
    ReplyBuilder& r = out.items();
    r.Array(4);
    ReplyId(r, id);
    r.Bulk(nack.consumer->name);
    int64_t elapsed = now - nack.delivery_time;
    r.Integer(elapsed < 0 ? 0 : elapsed);
    r.Integer(static_cast<int64_t>(nack.delivery_count));
    ++n;
    --count;
  };
  if (consumer != nullptr) {
    for (auto it = consumer->pel.lower_bound(start);
         count > 0 && it != consumer->pel.end() && it->first <= end; ++it) {
      emit(it->first, *it->second);
    }
  } else {
    for (auto it = g->pel.lower_bound(start); count > 0 && it != g->pel.end() && it->first <= end;
         ++it) {
      emit(it->first, it->second);
    }
  }
  out.Finish(n);
}

// ---------------------------------------------------------------------------------------------
// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds]
//   [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]
void CmdXClaim(CommandContext& ctx) {
  Stream* s;
  StreamGroup* g = FindGroupOrReply(ctx, &s);
  if (g == nullptr) return;
  int64_t min_idle;
  if (!ParseInt64(ctx.arg(4), &min_idle)) {
    ctx.reply.Error("ERR Invalid min-idle-time argument for XCLAIM");
    return;
  }
  if (min_idle < 0) min_idle = 0;
  // IDs run until the first argument that is not one; the options follow.
  std::vector<StreamID> ids;
  size_t j = 5;
  for (StreamID id; j < ctx.argc() && ParseStreamId(ctx.arg(j), &id, 0, true); ++j) {
    ids.push_back(id);
  }
  int64_t now = CommandTimeMs();
  int64_t delivery_time = -1, retry_count = -1;
  bool force = false, justid = false;
  StreamID last_id;
  for (; j < ctx.argc(); ++j) {
    bool more = j + 1 < ctx.argc();
    std::string_view opt = ctx.arg(j);
    if (EqualsIgnoreCase(opt, "FORCE")) {
      force = true;
    } else if (EqualsIgnoreCase(opt, "JUSTID")) {
      justid = true;
    } else if (EqualsIgnoreCase(opt, "IDLE") && more) {
      if (!ParseInt64(ctx.arg(++j), &delivery_time)) {
        ctx.reply.Error("ERR Invalid IDLE option argument for XCLAIM");
        return;
      }
      delivery_time = now - delivery_time;
    } else if (EqualsIgnoreCase(opt, "TIME") && more) {
      if (!ParseInt64(ctx.arg(++j), &delivery_time)) {
        ctx.reply.Error("ERR Invalid TIME option argument for XCLAIM");
        return;
      }
    } else if (EqualsIgnoreCase(opt, "RETRYCOUNT") && more) {
      if (!ParseInt64(ctx.arg(++j), &retry_count)) {
        ctx.reply.Error("ERR Invalid RETRYCOUNT option argument for XCLAIM");
        return;
      }
    } else if (EqualsIgnoreCase(opt, "LASTID") && more) {
      if (!ParseIdOrReply(ctx, ctx.arg(++j), &last_id, 0, true)) return;
    } else {
      ctx.reply.Error("ERR Unrecognized XCLAIM option '" + CText(opt) + "'");
      return;
    }
  }
  if (last_id > g->last_id) {
    g->last_id = last_id;
    ctx.Dirty();
  }
  // A bogus delivery time (negative or in the future) means now, without an error.
  if (delivery_time < 0 || delivery_time > now) delivery_time = now;

  StreamConsumer* consumer = g->FindConsumer(ctx.arg(3));
  const bool propagating = ctx.Propagating();
  if (propagating) ctx.NoPropagate();  // what it changed is propagated below
  if (consumer == nullptr) {
    consumer = g->CreateConsumer(ctx.arg(3), now);
    ctx.Dirty();
    NotifyKeyspaceEvent(ctx, kNotifyStream, "xgroup-createconsumer", ctx.db, ctx.arg(1));
    if (propagating) {
      ctx.AlsoPropagate(ctx.db, {"XGROUP", "CREATECONSUMER", std::string(ctx.arg(1)),
                                 std::string(ctx.arg(2)), std::string(ctx.arg(3))});
    }
  }
  consumer->seen_time = now;
  if (propagating && last_id == g->last_id && !last_id.IsZero()) {
    ctx.AlsoPropagate(ctx.db, {"XGROUP", "SETID", std::string(ctx.arg(1)),
                               std::string(ctx.arg(2)), FormatStreamId(g->last_id)});
  }

  DeferredArray out(ctx.reply);
  size_t n = 0;
  for (StreamID id : ids) {
    auto it = g->pel.find(id);
    if (!StreamHasEntry(*s, id)) {
      // Gone from the stream: drop it from the PEL.
      if (it != g->pel.end()) {
        g->Ack(id);
        ctx.Dirty();
        if (propagating) {
          ctx.AlsoPropagate(ctx.db, {"XACK", std::string(ctx.arg(1)), std::string(ctx.arg(2)),
                                     FormatStreamId(id)});
        }
      }
      continue;
    }
    if (it == g->pel.end()) {
      if (!force) continue;
      it = g->pel.emplace(id, StreamNack{now, 1, nullptr}).first;
    }
    StreamNack& nack = it->second;
    if (nack.consumer != nullptr && min_idle != 0 && now - nack.delivery_time < min_idle) {
      continue;
    }
    g->Assign(it, consumer);
    nack.delivery_time = delivery_time;
    if (retry_count >= 0) {
      nack.delivery_count = static_cast<uint64_t>(retry_count);
    } else if (!justid) {
      ++nack.delivery_count;
    }
    if (justid) {
      ReplyId(out.items(), id);
    } else {
      ReplyEntryById(out.items(), *s, id);
    }
    ++n;
    consumer->active_time = now;
    ctx.Dirty();
    if (propagating) PropagateStreamClaim(ctx, ctx.arg(1), ctx.arg(2), *g, id, nack);
  }
  out.Finish(n);
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
void CmdXAutoClaim(CommandContext& ctx) {
  int64_t min_idle;
  if (!ParseInt64(ctx.arg(4), &min_idle)) {
    ctx.reply.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM");
    return;
  }
  if (min_idle < 0) min_idle = 0;
  StreamID start;
  if (!ParseRangeStartOrReply(ctx, ctx.arg(5), &start)) return;
  int64_t count = 100;
  bool justid = false;
  constexpr int64_t kAttemptsFactor = 10;
  for (size_t j = 6; j < ctx.argc(); ++j) {
    if (EqualsIgnoreCase(ctx.arg(j), "COUNT") && j + 1 < ctx.argc()) {
      if (!ParseInt64(ctx.arg(j + 1), &count) || count < 1 ||
          count > LONG_MAX / static_cast<int64_t>(sizeof(StreamID))) {
        ctx.reply.Error("ERR COUNT must be > 0");
        return;
      }
      ++j;
    } else if (EqualsIgnoreCase(ctx.arg(j), "JUSTID")) {
      justid = true;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  Stream* s;
  StreamGroup* g = FindGroupOrReply(ctx, &s);
  if (g == nullptr) return;
  int64_t now = CommandTimeMs();
  StreamConsumer* consumer = g->FindConsumer(ctx.arg(3));
  const bool propagating = ctx.Propagating();
  if (propagating) ctx.NoPropagate();  // what it changed is propagated below
  if (consumer == nullptr) {
    consumer = g->CreateConsumer(ctx.arg(3), now);
    ctx.Dirty();
    NotifyKeyspaceEvent(ctx, kNotifyStream, "xgroup-createconsumer", ctx.db, ctx.arg(1));
    if (propagating) {
      ctx.AlsoPropagate(ctx.db, {"XGROUP", "CREATECONSUMER", std::string(ctx.arg(1)),
                                 std::string(ctx.arg(2)), std::string(ctx.arg(3))});
    }
  }
  consumer->seen_time = now;

  DeferredArray claimed(ctx.reply);
  size_t n = 0;
  std::vector<StreamID> deleted;
  int64_t attempts = count * kAttemptsFactor;
  auto it = g->pel.lower_bound(start);
  while (attempts-- > 0 && count > 0 && it != g->pel.end()) {
    auto cur = it++;
    StreamID id = cur->first;
    if (!StreamHasEntry(*s, id)) {
      // Gone from the stream: drop it from the PEL and report it.
      g->Ack(id);
      deleted.push_back(id);
      --count;
      ctx.Dirty();
      if (propagating) {
        ctx.AlsoPropagate(ctx.db, {"XACK", std::string(ctx.arg(1)), std::string(ctx.arg(2)),
                                   FormatStreamId(id)});
      }
      continue;
    }
    StreamNack& nack = cur->second;
    if (min_idle != 0 && now - nack.delivery_time < min_idle) continue;
    g->Assign(cur, consumer);
    nack.delivery_time = now;
    if (!justid) ++nack.delivery_count;
    if (justid) {
      ReplyId(claimed.items(), id);
    } else {
      ReplyEntryById(claimed.items(), *s, id);
    }
    ++n;
    --count;
    consumer->active_time = now;
    ctx.Dirty();
    if (propagating) PropagateStreamClaim(ctx, ctx.arg(1), ctx.arg(2), *g, id, nack);
  }
  ctx.reply.Array(3);
  ReplyId(ctx.reply, it == g->pel.end() ? kMinStreamId : it->first);
  claimed.Finish(n);
  ctx.reply.Array(deleted.size());
  for (StreamID id : deleted) ReplyId(ctx.reply, id);
}

}  // namespace

void PropagateStreamClaim(CommandContext& ctx, std::string_view key, std::string_view group,
                          const StreamGroup& g, StreamID id, const StreamNack& nack) {
  ctx.AlsoPropagate(ctx.db, {"XCLAIM", std::string(key), std::string(group),
                             nack.consumer->name, "0", FormatStreamId(id), "TIME",
                             std::to_string(nack.delivery_time), "RETRYCOUNT",
                             std::to_string(nack.delivery_count), "FORCE", "JUSTID", "LASTID",
                             FormatStreamId(g.last_id)});
}

void RegisterStreamGroupCommands(CommandTable& t) {
  const uint64_t rd = kAclRead | kAclStream;
  const uint64_t wr = kAclWrite | kAclStream;
  auto one_key = [](CommandSpec spec) {
    spec.first_key = spec.last_key = spec.key_step = 1;
    spec.group = "stream";
    return spec;
  };
  t.Add(one_key({.name = "xack",
                 .arity = -4,
                 .flags = kCmdWrite | kCmdFast,
                 .acl = wr | kAclFast,
                 .handler = CmdXAck,
                 .summary = "Returns the number of messages that were successfully "
                            "acknowledged by the consumer group member of a stream.",
                 .since = "5.0.0",
                 .complexity = "O(1) for each message ID processed."}));
  t.Add(one_key({.name = "xpending",
                 .arity = -3,
                 .flags = kCmdReadonly,
                 .acl = rd | kAclSlow,
                 .handler = CmdXPending,
                 .summary = "Returns the information and entries from a stream consumer "
                            "group's pending entries list.",
                 .since = "5.0.0",
                 .complexity = "O(N) with N being the number of elements returned, so asking "
                               "for a small fixed number of entries per call is O(1). O(M), "
                               "where M is the total number of entries scanned when used with "
                               "the IDLE filter. When the command returns just the summary "
                               "and the list of consumers is small, it runs in O(1) time; "
                               "otherwise, an additional O(N) time for iterating every "
                               "consumer."}));
  t.Add(one_key({.name = "xclaim",
                 .arity = -6,
                 .flags = kCmdWrite | kCmdFast,
                 .acl = wr | kAclFast,
                 .handler = CmdXClaim,
                 .summary = "Changes, or acquires, ownership of a message in a consumer "
                            "group, as if the message was delivered a consumer group member.",
                 .since = "5.0.0",
                 .complexity = "O(log N) with N being the number of messages in the PEL of "
                               "the consumer group."}));
  t.Add(one_key({.name = "xautoclaim",
                 .arity = -6,
                 .flags = kCmdWrite | kCmdFast,
                 .acl = wr | kAclFast,
                 .handler = CmdXAutoClaim,
                 .summary = "Changes, or acquires, ownership of messages in a consumer group, "
                            "as if the messages were delivered to as consumer group member.",
                 .since = "6.2.0",
                 .complexity = "O(1) if COUNT is small."}));

  auto sub = [](const char* name, int arity, uint32_t flags, uint64_t acl, CommandHandler handler,
                const char* summary, const char* since, const char* complexity, bool keyed = true) {
    CommandSpec spec{.name = name,
                     .arity = arity,
                     .flags = flags,
                     .acl = acl,
                     .handler = handler,
                     .group = "stream",
                     .summary = summary,
                     .since = since,
                     .complexity = complexity};
    if (keyed) spec.first_key = spec.last_key = 2, spec.key_step = 1;
    return spec;
  };
  CommandSpec xgroup{.name = "xgroup",
                     .arity = -2,
                     .acl = kAclSlow,
                     .group = "stream",
                     .summary = "A container for consumer groups commands.",
                     .since = "5.0.0",
                     .complexity = "Depends on subcommand."};
  xgroup.subcommands = {
      sub("xgroup|create", -5, kCmdWrite | kCmdDenyOom, wr | kAclSlow, CmdXGroupCreate,
          "Creates a consumer group.", "5.0.0", "O(1)"),
      sub("xgroup|setid", -5, kCmdWrite, wr | kAclSlow, CmdXGroupSetId,
          "Sets the last-delivered ID of a consumer group.", "5.0.0", "O(1)"),
      sub("xgroup|destroy", 4, kCmdWrite, wr | kAclSlow, CmdXGroupDestroy,
          "Destroys a consumer group.", "5.0.0",
          "O(N) where N is the number of entries in the group's pending entries list (PEL)."),
      sub("xgroup|createconsumer", 5, kCmdWrite | kCmdDenyOom, wr | kAclSlow,
          CmdXGroupCreateConsumer, "Creates a consumer in a consumer group.", "6.2.0", "O(1)"),
      sub("xgroup|delconsumer", 5, kCmdWrite, wr | kAclSlow, CmdXGroupDelConsumer,
          "Deletes a consumer from a consumer group.", "5.0.0", "O(1)"),
      sub("xgroup|help", 2, kCmdLoading | kCmdStale, kAclStream | kAclSlow, CmdXGroupHelp,
          "Returns helpful text about the different subcommands.", "5.0.0", "O(1)", false),
  };
  t.Add(std::move(xgroup));
}

}  // namespace vireo::streamcmd
