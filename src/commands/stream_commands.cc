// Stream family, entries: XADD XLEN XRANGE XREVRANGE XDEL XTRIM XSETID, the shared helpers of
// stream_family.h and the family's registration. XREAD/XREADGROUP are in
// stream_read_commands.cc, consumer groups in stream_group_commands.cc, XINFO in
// stream_info_command.cc; the data structure in store/stream.h.
#include <string>
#include <vector>

#include "commands/digest.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/stream_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/memory.h"

namespace vireo {
namespace streamcmd {

// ---------------------------------------------------------------------------------------------
// Shared helpers (declared in stream_family.h).

namespace {

Stream* AsStream(Entry* e, bool* wrong_type) {
  *wrong_type = false;
  if (e == nullptr) return nullptr;
  if (e->type() != ObjType::kStream) {
    *wrong_type = true;
    return nullptr;
  }
  return static_cast<Stream*>(e->obj);
}

}  // namespace

Stream* ReadStream(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  return AsStream(ctx.db->Lookup(key), wrong_type);
}

Stream* WriteStream(CommandContext& ctx, std::string_view key, bool* wrong_type) {
  return AsStream(ctx.db->Find(key), wrong_type);
}

bool ParseIdOrReply(CommandContext& ctx, std::string_view arg, StreamID* id, uint64_t missing_seq,
                    bool strict) {
  if (ParseStreamId(arg, id, missing_seq, strict)) return true;
  ctx.reply.Error(kInvalidId);
  return false;
}

bool ParseRangeStartOrReply(CommandContext& ctx, std::string_view arg, StreamID* id) {
  bool exclusive;
  if (!ParseStreamIntervalId(arg, id, &exclusive, 0)) {
    ctx.reply.Error(kInvalidId);
    return false;
  }
  if (exclusive && !IncrStreamId(id)) {
    ctx.reply.Error(kInvalidStart);
    return false;
  }
  return true;
}

bool ParseRangeEndOrReply(CommandContext& ctx, std::string_view arg, StreamID* id) {
  bool exclusive;
  if (!ParseStreamIntervalId(arg, id, &exclusive, UINT64_MAX)) {
    ctx.reply.Error(kInvalidId);
    return false;
  }
  if (exclusive && !DecrStreamId(id)) {
    ctx.reply.Error(kInvalidEnd);
    return false;
  }
  return true;
}

void ReplyId(ReplyBuilder& reply, StreamID id) {
  char buf[kStreamIdMaxLen];
  reply.Bulk({buf, FormatStreamIdTo(buf, id)});
}

void ReplyEntry(ReplyBuilder& reply, const StreamIterator& it) {
  reply.Array(2);
  ReplyId(reply, it.id());
  reply.Array(2 * static_cast<size_t>(it.num_fields()));
  StreamFieldReader fields = it.Fields();
  std::string_view f, v;
  while (fields.Next(&f, &v)) {
    reply.Bulk(f);
    reply.Bulk(v);
  }
}

bool ReplyEntryById(ReplyBuilder& reply, const Stream& s, StreamID id) {
  StreamIterator it(s, id, id, false);
  if (!it.Next()) return false;
  ReplyEntry(reply, it);
  return true;
}

namespace {

constexpr const char* kXAddIdTooSmall =
    "ERR The ID specified in XADD is equal or smaller than the target stream top item";
constexpr const char* kXAddIdZero = "ERR The ID specified in XADD must be greater than 0-0";
constexpr const char* kXAddExhausted =
    "ERR The stream has exhausted the last possible ID, unable to add more items";
constexpr const char* kTooLarge = "ERR Elements are too large to be stored";
constexpr const char* kTrimConflict =
    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";
constexpr const char* kMaxLenNegative = "ERR The MAXLEN argument must be >= 0.";
constexpr const char* kLimitNegative = "ERR The LIMIT argument must be >= 0.";
constexpr const char* kLimitNoStrategy =
    "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy";
constexpr const char* kXTrimNoStrategy =
    "ERR syntax error, XTRIM must be called with a trimming strategy";
constexpr const char* kLimitNoApprox =
    "ERR syntax error, LIMIT cannot be used without the special ~ option";

Stream* NewStreamAt(CommandContext& ctx, std::string_view key) {
  Entry* e = ctx.db->Add(key);
  auto* s = new Stream();
  e->obj = s;
  e->SetType(ObjType::kStream, Encoding::kStream);
  return s;
}

StreamNodeLimits NodeLimits(const CommandContext& ctx) {
  const Config& c = ctx.server.config();
  return {static_cast<uint64_t>(c.stream_node_max_bytes),
          static_cast<uint64_t>(c.stream_node_max_entries)};
}

// ---------------------------------------------------------------------------------------------
// XADD / XTRIM options

struct AddTrimArgs {
  StreamTrimArgs trim;
  bool nomkstream = false;
  bool id_given = false;
  bool seq_given = true;
  StreamID id;
};

// Parses XADD's options up to its ID (xadd) or XTRIM's options; *idpos is where the ID is.
bool ParseAddTrim(CommandContext& ctx, bool xadd, AddTrimArgs* a, size_t* idpos) {
  size_t i = 2;
  bool limit_given = false;
  const size_t argc = ctx.argc();
  for (; i < argc; ++i) {
    size_t more = argc - 1 - i;
    std::string_view opt = ctx.arg(i);
    bool is_maxlen = EqualsIgnoreCase(opt, "MAXLEN");
    if (xadd && opt == "*") break;
    if ((is_maxlen || EqualsIgnoreCase(opt, "MINID")) && more > 0) {
      if (a->trim.strategy != StreamTrimArgs::kNone) {
        ctx.reply.Error(kTrimConflict);
        return false;
      }
      a->trim.approx = false;
      std::string_view next = ctx.arg(i + 1);
      if (more >= 2 && next == "~") {
        a->trim.approx = true;
        ++i;
      } else if (more >= 2 && next == "=") {
        ++i;
      }
      if (is_maxlen) {
        int64_t maxlen;
        if (!ParseInt64(ctx.arg(i + 1), &maxlen)) {
          ctx.reply.Error(errors::kNotInteger);
          return false;
        }
        if (maxlen < 0) {
          ctx.reply.Error(kMaxLenNegative);
          return false;
        }
        a->trim.maxlen = static_cast<uint64_t>(maxlen);
        a->trim.strategy = StreamTrimArgs::kMaxLen;
      } else {
        if (!ParseIdOrReply(ctx, ctx.arg(i + 1), &a->trim.minid, 0, true)) return false;
        a->trim.strategy = StreamTrimArgs::kMinId;
      }
      ++i;
    } else if (EqualsIgnoreCase(opt, "LIMIT") && more > 0) {
      if (!ParseInt64(ctx.arg(i + 1), &a->trim.limit)) {
        ctx.reply.Error(errors::kNotInteger);
        return false;
      }
      if (a->trim.limit < 0) {
        ctx.reply.Error(kLimitNegative);
        return false;
      }
      limit_given = true;
      ++i;
    } else if (xadd && EqualsIgnoreCase(opt, "NOMKSTREAM")) {
      a->nomkstream = true;
    } else if (xadd) {
      if (!ParseStreamId(opt, &a->id, 0, true, &a->seq_given)) {
        ctx.reply.Error(kInvalidId);
        return false;
      }
      a->id_given = true;
      break;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  if (a->trim.limit != 0 && a->trim.strategy == StreamTrimArgs::kNone) {
    ctx.reply.Error(kLimitNoStrategy);
    return false;
  }
  if (!xadd && a->trim.strategy == StreamTrimArgs::kNone) {
    ctx.reply.Error(kXTrimNoStrategy);
    return false;
  }
  if (limit_given) {
    if (!a->trim.approx) {
      ctx.reply.Error(kLimitNoApprox);
      return false;
    }
  } else if (a->trim.approx) {
    // Bound the work of an approximate trim to about 100 nodes, as Valkey does.
    int64_t entries = ctx.server.config().stream_node_max_entries;
    int64_t limit = entries > 1000000 / 100 ? 1000000 : 100 * entries;
    a->trim.limit = limit <= 0 ? 10000 : limit;
  } else {
    a->trim.limit = 0;
  }
  *idpos = i;
  return true;
}

// An approximate trim replays as the exact one it turned out to be: the node layout that
// decided it may differ where the command replays (Valkey 7 rewrites "~" the same way).
std::vector<std::string> ExactTrimArgs(const Stream* s, const AddTrimArgs& a) {
  StreamID first;
  if (a.trim.strategy == StreamTrimArgs::kMaxLen) {
    return {"MAXLEN", "=", std::to_string(s->length)};
  }
  if (!StreamFirstEntryId(*s, &first)) first = a.trim.minid;
  return {"MINID", "=", FormatStreamId(first)};
}

// XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id field value ...
void CmdXAdd(CommandContext& ctx) {
  AddTrimArgs a;
  size_t idpos;
  if (!ParseAddTrim(ctx, true, &a, &idpos)) return;
  size_t field_pos = idpos + 1;
  if (field_pos >= ctx.argc() || (ctx.argc() - field_pos) % 2 != 0) {
    ctx.reply.Error("ERR wrong number of arguments for 'xadd' command");
    return;
  }
  if (a.id_given && a.seq_given && a.id.IsZero()) {
    ctx.reply.Error(kXAddIdZero);
    return;
  }
  std::string_view key = ctx.arg(1);
  bool wrong_type;
  Stream* s = WriteStream(ctx, key, &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  bool created = false;
  if (s == nullptr) {
    if (a.nomkstream) {
      ctx.reply.Null();
      return;
    }
    s = NewStreamAt(ctx, key);
    created = true;
  }
  if (s->last_id == kMaxStreamId) {
    ctx.reply.Error(kXAddExhausted);
    return;
  }
  StreamAddId want;
  if (a.id_given) {
    want.mode = a.seq_given ? StreamAddId::kExplicit : StreamAddId::kAutoSeq;
    want.id = a.id;
  }
  StreamID added;
  size_t pairs = (ctx.argc() - field_pos) / 2;
  StreamAddStatus st =
      StreamAppend(s, want, CommandTimeMs(), &ctx.args[field_pos], pairs, NodeLimits(ctx), &added);
  if (st != StreamAddStatus::kOk) {
    if (created) ctx.db->Delete(key);
    ctx.reply.Error(st == StreamAddStatus::kIdTooSmall ? kXAddIdTooSmall : kTooLarge);
    return;
  }
  ReplyId(ctx.reply, added);
  NotifyKeyspaceEvent(ctx, kNotifyStream, "xadd", ctx.db, key);
  if (StreamTrim(s, a.trim) != 0) NotifyKeyspaceEvent(ctx, kNotifyStream, "xtrim", ctx.db, key);
  // Replayed with the ID it got (never "*") and an exact trim.
  if (ctx.Propagating()) {
    std::vector<std::string> args{"XADD", std::string(key)};
    if (a.nomkstream) args.emplace_back("NOMKSTREAM");
    if (a.trim.strategy != StreamTrimArgs::kNone) {
      if (a.trim.approx) {
        for (std::string& t : ExactTrimArgs(s, a)) args.push_back(std::move(t));
      } else {
        // Exact thresholds as given: from the strategy word to before the ID.
        size_t i = 2;
        while (i < idpos && !EqualsIgnoreCase(ctx.arg(i), "maxlen") &&
               !EqualsIgnoreCase(ctx.arg(i), "minid")) {
          ++i;
        }
        for (; i < idpos; ++i) {
          if (!EqualsIgnoreCase(ctx.arg(i), "nomkstream")) args.emplace_back(ctx.arg(i));
        }
      }
    }
    args.push_back(FormatStreamId(added));
    for (size_t i = field_pos; i < ctx.argc(); ++i) args.emplace_back(ctx.arg(i));
    ctx.PropagateAs(std::move(args));
  }
  ctx.KeyModified(ctx.db, key);
}

// XTRIM key MAXLEN|MINID [=|~] threshold [LIMIT count]
void CmdXTrim(CommandContext& ctx) {
  AddTrimArgs a;
  size_t idpos;
  if (!ParseAddTrim(ctx, false, &a, &idpos)) return;
  bool wrong_type;
  Stream* s = WriteStream(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  if (s == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  int64_t deleted = StreamTrim(s, a.trim);
  if (deleted != 0 && a.trim.approx && ctx.Propagating()) {
    std::vector<std::string> args{"XTRIM", std::string(ctx.arg(1))};
    for (std::string& t : ExactTrimArgs(s, a)) args.push_back(std::move(t));
    ctx.PropagateAs(std::move(args));
  }
  if (deleted != 0) {
    ctx.KeyModified(ctx.db, ctx.arg(1), static_cast<int>(deleted));
    NotifyKeyspaceEvent(ctx, kNotifyStream, "xtrim", ctx.db, ctx.arg(1));
  }
  ctx.reply.Integer(deleted);
}

// XLEN key
void CmdXLen(CommandContext& ctx) {
  bool wrong_type;
  Stream* s = ReadStream(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  ctx.reply.Integer(s == nullptr ? 0 : static_cast<int64_t>(s->length));
}

// XRANGE key start end [COUNT count] / XREVRANGE key end start [COUNT count]
void RangeGeneric(CommandContext& ctx, bool rev) {
  StreamID start, end;
  if (!ParseRangeStartOrReply(ctx, ctx.arg(rev ? 3 : 2), &start)) return;
  if (!ParseRangeEndOrReply(ctx, ctx.arg(rev ? 2 : 3), &end)) return;
  int64_t count = -1;
  for (size_t j = 4; j < ctx.argc(); ++j) {
    if (EqualsIgnoreCase(ctx.arg(j), "COUNT") && j + 1 < ctx.argc()) {
      if (!ParseInt64(ctx.arg(j + 1), &count)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (count < 0) count = 0;
      ++j;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  bool wrong_type;
  Stream* s = ReadStream(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  if (s == nullptr) {
    ctx.reply.EmptyArray();
    return;
  }
  if (count == 0) {
    ctx.reply.NullArray();
    return;
  }
  DeferredArray out(ctx.reply);
  size_t n = 0;
  for (StreamIterator it(*s, start, end, rev); it.Next();) {
    ReplyEntry(out.items(), it);
    if (++n == static_cast<uint64_t>(count)) break;
  }
  out.Finish(n);
}

void CmdXRange(CommandContext& ctx) { RangeGeneric(ctx, false); }
void CmdXRevRange(CommandContext& ctx) { RangeGeneric(ctx, true); }

// XDEL key id [id ...]
void CmdXDel(CommandContext& ctx) {
  bool wrong_type;
  Stream* s = WriteStream(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  if (s == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  // All IDs are checked first so that a bad one leaves the stream untouched.
  std::vector<StreamID> ids(ctx.argc() - 2);
  for (size_t j = 2; j < ctx.argc(); ++j) {
    if (!ParseIdOrReply(ctx, ctx.arg(j), &ids[j - 2], 0, true)) return;
  }
  int deleted = 0;
  bool first_gone = false;
  for (StreamID id : ids) {
    if (!StreamDeleteEntry(s, id)) continue;
    first_gone |= id == s->first_id;
    if (id > s->max_deleted_id) s->max_deleted_id = id;
    ++deleted;
  }
  if (deleted != 0) {
    if (s->length == 0) {
      s->first_id = kMinStreamId;
    } else if (first_gone) {
      StreamFirstEntryId(*s, &s->first_id);
    }
    ctx.KeyModified(ctx.db, ctx.arg(1), deleted);
    NotifyKeyspaceEvent(ctx, kNotifyStream, "xdel", ctx.db, ctx.arg(1));
  }
  ctx.reply.Integer(deleted);
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
void CmdXSetId(CommandContext& ctx) {
  StreamID id, max_xdel;
  if (!ParseIdOrReply(ctx, ctx.arg(2), &id, 0, true)) return;
  int64_t entries_added = -1;
  for (size_t i = 3; i < ctx.argc(); i += 2) {
    bool more = i + 1 < ctx.argc();
    if (EqualsIgnoreCase(ctx.arg(i), "ENTRIESADDED") && more) {
      if (!ParseInt64(ctx.arg(i + 1), &entries_added)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (entries_added < 0) {
        ctx.reply.Error("ERR entries_added must be positive");
        return;
      }
    } else if (EqualsIgnoreCase(ctx.arg(i), "MAXDELETEDID") && more) {
      if (!ParseIdOrReply(ctx, ctx.arg(i + 1), &max_xdel, 0, true)) return;
      if (id < max_xdel) {
        ctx.reply.Error(
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
        return;
      }
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  bool wrong_type;
  Stream* s = WriteStream(ctx, ctx.arg(1), &wrong_type);
  if (wrong_type) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  if (s == nullptr) {
    ctx.reply.Error(errors::kNoSuchKey);
    return;
  }
  if (id < s->max_deleted_id) {
    ctx.reply.Error("ERR The ID specified in XSETID is smaller than current max_deleted_entry_id");
    return;
  }
  StreamID top;
  if (s->length > 0 && StreamLastEntryId(*s, &top)) {
    if (id < top) {
      ctx.reply.Error("ERR The ID specified in XSETID is smaller than the target stream top item");
      return;
    }
    if (entries_added != -1 && s->length > static_cast<uint64_t>(entries_added)) {
      ctx.reply.Error(
          "ERR The entries_added specified in XSETID is smaller than the target stream length");
      return;
    }
  }
  s->last_id = id;
  if (entries_added != -1) s->entries_added = static_cast<uint64_t>(entries_added);
  if (!max_xdel.IsZero()) s->max_deleted_id = max_xdel;
  ctx.Dirty();
  NotifyKeyspaceEvent(ctx, kNotifyStream, "xsetid", ctx.db, ctx.arg(1));
  ctx.reply.Ok();
}

// ---------------------------------------------------------------------------------------------
// Value hooks: free / memory / copy / digest.

void FreeStreamObject(Encoding, void* obj) { delete static_cast<Stream*>(obj); }
size_t StreamFreeEffortOf(Encoding, const void* obj) {
  return StreamFreeEffort(*static_cast<const Stream*>(obj));
}
size_t StreamMemoryOf(Encoding, const void* obj) {
  return StreamMemory(*static_cast<const Stream*>(obj));
}
void* CopyStreamObject(Encoding, const void* obj) {
  return StreamCopy(*static_cast<const Stream*>(obj));
}

void DigestStream(const Entry* e, unsigned char out[kDigestSize]) {
  const Stream& s = *static_cast<const Stream*>(e->obj);
  for (StreamIterator it(s, kMinStreamId, kMaxStreamId, false); it.Next();) {
    MixDigest(out, FormatStreamId(it.id()));
    StreamFieldReader fields = it.Fields();
    std::string_view f, v;
    while (fields.Next(&f, &v)) {
      MixDigest(out, f);
      MixDigest(out, v);
    }
  }
  MixDigest(out, "last:" + FormatStreamId(s.last_id));
  if (!s.groups) return;
  for (const auto& [name, g] : *s.groups) {
    MixDigest(out, name);
    MixDigest(out, FormatStreamId(g->last_id));
    for (const auto& [id, nack] : g->pel) {
      MixDigest(out, FormatStreamId(id));
      MixDigest(out, nack.consumer->name);
    }
    for (const auto& [cname, c] : g->consumers) MixDigest(out, cname);
  }
}

}  // namespace
}  // namespace streamcmd

void RegisterStreamCommands(CommandTable& t) {
  using namespace streamcmd;
  RegisterCollectionOps(ObjType::kStream,
                        {FreeStreamObject, StreamFreeEffortOf, StreamMemoryOf, CopyStreamObject});
  RegisterValueDigest(ObjType::kStream, DigestStream);

  const uint64_t rd = kAclRead | kAclStream;
  const uint64_t wr = kAclWrite | kAclStream;
  auto add = [&t](const char* name, int arity, uint32_t flags, uint64_t acl, CommandHandler handler,
                  const char* summary, const char* complexity) {
    t.Add({.name = name,
           .arity = arity,
           .flags = flags,
           .acl = acl,
           .first_key = 1,
           .last_key = 1,
           .key_step = 1,
           .handler = handler,
           .group = "stream",
           .summary = summary,
           .since = "5.0.0",
           .complexity = complexity});
  };
  add("xadd", -5, kCmdWrite | kCmdDenyOom | kCmdFast, wr | kAclFast, CmdXAdd,
      "Appends a new message to a stream. Creates the key if it doesn't exist.",
      "O(1) when adding a new entry, O(N) when trimming where N being the number of entries "
      "evicted.");
  add("xlen", 2, kCmdReadonly | kCmdFast, rd | kAclFast, CmdXLen,
      "Return the number of messages in a stream.", "O(1)");
  add("xrange", -4, kCmdReadonly, rd | kAclSlow, CmdXRange,
      "Returns the messages from a stream within a range of IDs.",
      "O(N) with N being the number of elements being returned. If N is constant (e.g. always "
      "asking for the first 10 elements with COUNT), you can consider it O(1).");
  add("xrevrange", -4, kCmdReadonly, rd | kAclSlow, CmdXRevRange,
      "Returns the messages from a stream within a range of IDs in reverse order.",
      "O(N) with N being the number of elements returned. If N is constant (e.g. always asking "
      "for the first 10 elements with COUNT), you can consider it O(1).");
  add("xdel", -3, kCmdWrite | kCmdFast, wr | kAclFast, CmdXDel,
      "Returns the number of messages after removing them from a stream.",
      "O(1) for each single item to delete in the stream, regardless of the stream size.");
  add("xtrim", -4, kCmdWrite, wr | kAclSlow, CmdXTrim,
      "Deletes messages from the beginning of a stream.",
      "O(N), with N being the number of evicted entries. Constant times are very small "
      "however, since entries are organized in macro nodes containing multiple entries that "
      "can be released with a single deallocation.");
  add("xsetid", -3, kCmdWrite | kCmdDenyOom | kCmdFast, wr | kAclFast, CmdXSetId,
      "An internal command for replicating stream values.", "O(1)");
  RegisterStreamReadCommands(t);
  RegisterStreamGroupCommands(t);
  RegisterStreamInfoCommand(t);
}

}  // namespace vireo
