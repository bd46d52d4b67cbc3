// XINFO STREAM [FULL [COUNT n]] | GROUPS | CONSUMERS | HELP, with Valkey's fields.
#include <string>

#include "commands/errors.h"
#include "commands/server_family.h"
#include "commands/stream_family.h"
#include "common/clock.h"
#include "common/numbers.h"

namespace vireo::streamcmd {
namespace {

// The stream at arg(2) or an error reply.
Stream* InfoStream(CommandContext& ctx) {
  bool wrong_type;
  Stream* s = ReadStream(ctx, ctx.arg(2), &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
  } else if (s == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
  }
  return s;
}

void ReplyEntriesRead(ReplyBuilder& r, const StreamGroup& g) {
  if (g.entries_read == kStreamInvalidEntriesRead) {
    r.Null();
  } else {
    r.Integer(g.entries_read);
  }
}

void ReplyLag(ReplyBuilder& r, const Stream& s, const StreamGroup& g) {
  int64_t lag;
  if (StreamGroupLag(s, g, &lag)) {
    r.Integer(lag);
  } else {
    r.Null();
  }
}

// The fields XINFO STREAM shows in both forms.
void ReplyStreamHeader(ReplyBuilder& r, const Stream& s) {
  r.Bulk("length");
  r.Integer(static_cast<int64_t>(s.length));
  // Nodes stand for Valkey's listpacks; its radix tree has about one inner node more.
  r.Bulk("radix-tree-keys");
  r.Integer(static_cast<int64_t>(s.index.size()));
  r.Bulk("radix-tree-nodes");
  r.Integer(static_cast<int64_t>(s.index.size() + 1));
  r.Bulk("last-generated-id");
  ReplyId(r, s.last_id);
  r.Bulk("max-deleted-entry-id");
  ReplyId(r, s.max_deleted_id);
  r.Bulk("entries-added");
  r.Integer(static_cast<int64_t>(s.entries_added));
  r.Bulk("recorded-first-entry-id");
  ReplyId(r, s.first_id);
}

void ReplyEdgeEntry(ReplyBuilder& r, const Stream& s, bool last) {
  StreamIterator it(s, kMinStreamId, kMaxStreamId, last);
  if (it.Next()) {
    ReplyEntry(r, it);
  } else {
    r.Null();
  }
}

void ReplyFullGroups(ReplyBuilder& r, const Stream& s, int64_t count) {
  r.Array(s.GroupCount());
  if (!s.groups) return;
  auto limit = static_cast<uint64_t>(count);
  for (const auto& [name, g] : *s.groups) {
    r.Map(7);
    r.Bulk("name");
    r.Bulk(name);
    r.Bulk("last-delivered-id");
    ReplyId(r, g->last_id);
    r.Bulk("entries-read");
    ReplyEntriesRead(r, *g);
    r.Bulk("lag");
    ReplyLag(r, s, *g);
    r.Bulk("pel-count");
    r.Integer(static_cast<int64_t>(g->pel.size()));
    r.Bulk("pending");
    size_t shown = limit == 0 || g->pel.size() < limit ? g->pel.size() : limit;
    r.Array(shown);
    size_t i = 0;
    for (auto it = g->pel.begin(); i < shown; ++it, ++i) {
      r.Array(4);
      ReplyId(r, it->first);
      r.Bulk(it->second.consumer->name);
      r.Integer(it->second.delivery_time);
      r.Integer(static_cast<int64_t>(it->second.delivery_count));
    }
    r.Bulk("consumers");
    r.Array(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      r.Map(5);
      r.Bulk("name");
      r.Bulk(cname);
      r.Bulk("seen-time");
      r.Integer(c->seen_time);
      r.Bulk("active-time");
      r.Integer(c->active_time);
      r.Bulk("pel-count");
      r.Integer(static_cast<int64_t>(c->pel.size()));
      r.Bulk("pending");
      size_t cshown = limit == 0 || c->pel.size() < limit ? c->pel.size() : limit;
      r.Array(cshown);
      size_t k = 0;
      for (auto it = c->pel.begin(); k < cshown; ++it, ++k) {
        r.Array(3);
        ReplyId(r, it->first);
        r.Integer(it->second->delivery_time);
        r.Integer(static_cast<int64_t>(it->second->delivery_count));
      }
    }
  }
}

void ReplySubcommandSyntax(CommandContext& ctx) {
  ctx.reply.Error("ERR unknown subcommand or wrong number of arguments for '" +
                  CText(ctx.arg(1).substr(0, 128)) + "'. Try XINFO HELP.");
}

// XINFO STREAM key [FULL [COUNT count]]
void CmdXInfoStream(CommandContext& ctx) {
  Stream* s = InfoStream(ctx);
  if (s == nullptr) return;
  size_t optc = ctx.argc() - 3;
  bool full = optc > 0;
  int64_t count = 10;  // FULL lists at most 10 entries unless told otherwise
  if (full) {
    if ((optc != 1 && optc != 3) || !EqualsIgnoreCase(ctx.arg(3), "FULL") ||
        (optc == 3 && !EqualsIgnoreCase(ctx.arg(4), "COUNT"))) {
      ReplySubcommandSyntax(ctx);
      return;
    }
    if (optc == 3) {
      if (!ParseInt64(ctx.arg(5), &count)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (count < 0) count = 10;
    }
  }
  ReplyBuilder& r = ctx.reply;
  r.Map(full ? 9 : 10);
  ReplyStreamHeader(r, *s);
  if (!full) {
    r.Bulk("groups");
    r.Integer(static_cast<int64_t>(s->GroupCount()));
    r.Bulk("first-entry");
    ReplyEdgeEntry(r, *s, false);
    r.Bulk("last-entry");
    ReplyEdgeEntry(r, *s, true);
    return;
  }
  r.Bulk("entries");
  DeferredArray entries(r);
  size_t n = 0;
  for (StreamIterator it(*s, kMinStreamId, kMaxStreamId, false); it.Next();) {
    ReplyEntry(entries.items(), it);
    if (++n == static_cast<uint64_t>(count)) break;
  }
  entries.Finish(n);
  r.Bulk("groups");
  ReplyFullGroups(r, *s, count);
}

// XINFO GROUPS key
void CmdXInfoGroups(CommandContext& ctx) {
  Stream* s = InfoStream(ctx);
  if (s == nullptr) return;
  ReplyBuilder& r = ctx.reply;
  r.Array(s->GroupCount());
  if (!s->groups) return;
  for (const auto& [name, g] : *s->groups) {
    r.Map(6);
    r.Bulk("name");
    r.Bulk(name);
    r.Bulk("consumers");
    r.Integer(static_cast<int64_t>(g->consumers.size()));
    r.Bulk("pending");
    r.Integer(static_cast<int64_t>(g->pel.size()));
    r.Bulk("last-delivered-id");
    ReplyId(r, g->last_id);
    r.Bulk("entries-read");
    ReplyEntriesRead(r, *g);
    r.Bulk("lag");
    ReplyLag(r, *s, *g);
  }
}

// XINFO CONSUMERS key group
void CmdXInfoConsumers(CommandContext& ctx) {
  Stream* s = InfoStream(ctx);
  if (s == nullptr) return;
  StreamGroup* g = s->FindGroup(ctx.arg(3));
  if (g == nullptr) {
    ctx.reply.Error("NOGROUP No such consumer group '" + CText(ctx.arg(3)) + "' for key name '" +
                    CText(ctx.arg(2)) + "'");
    return;
  }
  int64_t now = CommandTimeMs();
  ReplyBuilder& r = ctx.reply;
  r.Array(g->consumers.size());
  for (const auto& [name, c] : g->consumers) {
    int64_t idle = now - c->seen_time;
    r.Map(4);
    r.Bulk("name");
    r.Bulk(name);
    r.Bulk("pending");
    r.Integer(static_cast<int64_t>(c->pel.size()));
    r.Bulk("idle");
    r.Integer(idle < 0 ? 0 : idle);
    r.Bulk("inactive");
    r.Integer(c->active_time == -1 ? -1 : now - c->active_time);
  }
}

// XINFO HELP
void CmdXInfoHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"CONSUMERS <key> <groupname>", "    Show consumers of <groupname>.", "GROUPS <key>",
             "    Show the stream consumer groups.", "STREAM <key> [FULL [COUNT <count>]",
             "    Show information about the stream."});
}

}  // namespace

void RegisterStreamInfoCommand(CommandTable& t) {
  const uint64_t rd = kAclRead | kAclStream | kAclSlow;
  auto sub = [](const char* name, int arity, CommandHandler handler, const char* summary,
                uint64_t acl) {
    CommandSpec spec{.name = name,
                     .arity = arity,
                     .flags = kCmdReadonly,
                     .acl = acl,
                     .first_key = 2,
                     .last_key = 2,
                     .key_step = 1,
                     .handler = handler,
                     .group = "stream",
                     .summary = summary,
                     .since = "5.0.0",
                     .complexity = "O(1)"};
    return spec;
  };
  CommandSpec xinfo{.name = "xinfo",
                    .arity = -2,
                    .acl = kAclSlow,
                    .group = "stream",
                    .summary = "A container for stream introspection commands.",
                    .since = "5.0.0",
                    .complexity = "Depends on subcommand."};
  CommandSpec help{.name = "xinfo|help",
                   .arity = 2,
                   .flags = kCmdLoading | kCmdStale,
                   .acl = kAclStream | kAclSlow,
                   .handler = CmdXInfoHelp,
                   .group = "stream",
                   .summary = "Returns helpful text about the different subcommands.",
                   .since = "5.0.0",
                   .complexity = "O(1)"};
  xinfo.subcommands = {
      sub("xinfo|consumers", 4, CmdXInfoConsumers,
          "Returns a list of the consumers in a consumer group.", rd),
      sub("xinfo|groups", 3, CmdXInfoGroups, "Returns a list of the consumer groups of a stream.",
          rd),
      sub("xinfo|stream", -3, CmdXInfoStream, "Returns information about a stream.", rd),
      help,
  };
  t.Add(std::move(xinfo));
}

}  // namespace vireo::streamcmd
