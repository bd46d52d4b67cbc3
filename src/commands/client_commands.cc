// Client family: CLIENT (ID, SETNAME, GETNAME, LIST, INFO, KILL, REPLY, CAPA, NO-EVICT, NO-TOUCH,
// PAUSE, UNPAUSE, SETINFO, TRACKING, CACHING, GETREDIR, TRACKINGINFO, UNBLOCK, HELP) and
// MONITOR.
#include <algorithm>
#include <cstdio>
#include <limits>

#include "commands/client_filter.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/client_memory.h"
#include "server/server.h"

namespace vireo {
namespace {

// Replies are built in a static buffer of this size in Valkey; CLIENT LIST's obl/oll/omem
// split our single output buffer the same way so tools reading them see familiar numbers.
constexpr size_t kReplyChunk = 16 * 1024;

// One CLIENT LIST line (without the newline). `current` names the command c is running when
// c is the caller (Valkey shows "client|list" for the client asking).
std::string ClientInfoLine(const Client& c, const std::string& current) {
  const int64_t now = NowMs();
  size_t argv_mem = 0;
  for (std::string_view a : c.args) argv_mem += a.size();
  const size_t qbuf = c.conn.InputSize();
  const size_t qcap = c.conn.InputCapacity();
  const size_t out_cap = c.conn.OutputCapacity();
  const size_t pending = c.conn.PendingOutput();
  const size_t obl = std::min(pending, kReplyChunk);
  const size_t omem = pending - obl;
  const size_t tot_mem = ClientMemoryUsage(c);

  std::string line;
  line.reserve(320);
  char buf[160];
  snprintf(buf, sizeof(buf), "id=%llu addr=", static_cast<unsigned long long>(c.id));
  line += buf;
  line += c.addr;
  line += " laddr=";
  line += c.laddr;
  snprintf(buf, sizeof(buf), " fd=%d name=", c.conn.fd());
  line += buf;
  line += c.name;
  snprintf(buf, sizeof(buf), " age=%lld idle=%lld flags=", (now - c.ctime_ms) / 1000LL,
           (now - c.last_interaction_ms) / 1000LL);
  line += buf;
  line += ClientFlagLetters(c);
  snprintf(buf, sizeof(buf),
           " db=%d sub=%zu psub=%zu ssub=%zu multi=%d watch=%zu qbuf=%zu qbuf-free=%zu"
           " argv-mem=%zu multi-mem=%zu rbs=%zu rbp=%zu",
           c.db_index, c.subs ? c.subs->channels.size() : 0, c.subs ? c.subs->patterns.size() : 0,
           c.subs ? c.subs->shard_channels.size() : 0, MultiQueueLength(c),
           c.multi ? c.multi->watched.size() : 0, qbuf, qcap > qbuf ? qcap - qbuf : 0, argv_mem,
           MultiMemory(c), out_cap, pending);
  line += buf;
  snprintf(buf, sizeof(buf), " obl=%zu oll=%d omem=%zu tot-mem=%zu events=%s cmd=", obl,
           omem > 0 ? 1 : 0, omem, tot_mem, c.watching_writable ? "rw" : "r");
  line += buf;
  if (!current.empty()) {
    line += current;
  } else {
    line += c.last_cmd != nullptr ? *c.last_cmd : std::string("NULL");
  }
  line += " user=";
  line += c.UserName();
  snprintf(buf, sizeof(buf), " redir=%lld resp=%d lib-name=",
           (c.flags & kClientTracking) ? static_cast<long long>(c.tracking_redirect) : -1LL,
           c.resp);
  line += buf;
  line += c.lib_name;
  line += " lib-ver=";
  line += c.lib_ver;
  // Valkey 8's traffic counters: bytes read (this command's included), bytes written (not yet
  // this reply), commands completed (a transaction's and a script's count, as Valkey's do).
  snprintf(buf, sizeof(buf), " tot-net-in=%llu tot-net-out=%llu tot-cmds=%llu",
           static_cast<unsigned long long>(c.conn.BytesRead()),
           static_cast<unsigned long long>(c.conn.BytesWritten()),
           static_cast<unsigned long long>(c.commands));
  line += buf;
  return line;
}

// Clients in connection order (ids grow with each connection), as Valkey lists them.
std::vector<Client*> ClientsInOrder(Server& server) {
  std::vector<Client*> all;
  all.reserve(server.clients().size());
  for (const auto& [id, c] : server.clients()) all.push_back(c);
  std::sort(all.begin(), all.end(), [](Client* a, Client* b) { return a->id < b->id; });
  return all;
}

// Names and library attributes end up in CLIENT LIST, which is split on spaces: only
// printable ASCII without spaces is allowed.
bool ValidClientAttribute(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '!' && ch <= '~'; });
}

// ON / OFF switches of NO-EVICT and NO-TOUCH; false (after a syntax error reply) otherwise.
bool ParseOnOff(CommandContext& ctx, std::string_view s, bool* on) {
  if (EqualsIgnoreCase(s, "on")) {
    *on = true;
  } else if (EqualsIgnoreCase(s, "off")) {
    *on = false;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  return true;
}

// Closes target: the caller itself after its reply is out, any other client right away.
void KillClient(CommandContext& ctx, Client* target) {
  if (target == &ctx.client) {
    target->flags |= kClientCloseAfterReply;
  } else {
    ctx.server.CloseClientAsync(target);
  }
}

// CLIENT ID
void CmdClientId(CommandContext& ctx) { ctx.reply.Integer(static_cast<int64_t>(ctx.client.id)); }

// CLIENT SETNAME connection-name
void CmdClientSetName(CommandContext& ctx) {
  if (!ValidClientAttribute(ctx.arg(2))) {
    ctx.reply.Error("ERR Client names cannot contain spaces, newlines or special characters.");
    return;
  }
  ctx.client.name = std::string(ctx.arg(2));
  ctx.reply.Ok();
}

// CLIENT GETNAME
void CmdClientGetName(CommandContext& ctx) {
  if (ctx.client.name.empty()) {
    ctx.reply.Null();
  } else {
    ctx.reply.Bulk(ctx.client.name);
  }
}

// Parses CLIENT LIST / KILL filters from argument first on; false after an error reply.
// True when every argument from first on is a number: Valkey 8's `CLIENT LIST ID ...` form.
bool IdsOnly(const std::vector<std::string_view>& args, size_t first) {
  for (size_t i = first; i < args.size(); ++i) {
    int64_t id;
    if (!ParseInt64(args[i], &id)) return false;
  }
  return true;
}

// bad_id: Valkey 8's error for an ID that is not a positive number, which LIST and KILL word
// differently.
bool ParseFilter(CommandContext& ctx, size_t first, std::string_view bad_id,
                 ClientFilter* filter) {
  ClientFilterScope scope;
  scope.bad_id = bad_id;
  scope.nonpositive_ids_match_none = EqualsIgnoreCase(ctx.arg(1), "list");
  scope.db_count = ctx.server.db_count();
  scope.user_exists = [&ctx](std::string_view name) {
    return ctx.server.acl().Find(name) != nullptr;
  };
  std::string error = ParseClientFilter(ctx.args, first, scope, filter);
  if (error.empty()) return true;
  ctx.reply.Error(error);
  return false;
}

// CLIENT LIST [TYPE type] [ID client-id [client-id ...]] [USER username] [ADDR ip:port]
//             [LADDR ip:port] [SKIPME yes|no] [MAXAGE maxage] [NAME name] [IDLE idle]
//             [FLAGS flags] [LIB-NAME lib-name] [LIB-VER lib-ver] [DB db] [CAPA capa] [IP ip]
void CmdClientList(CommandContext& ctx) {
  if (ctx.argc() == 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  ClientFilter filter;
  if (!ParseFilter(ctx, 2, "ERR Invalid client ID", &filter)) return;
  std::vector<Client*> chosen;
  if (ctx.argc() > 2 && EqualsIgnoreCase(ctx.arg(2), "id") && IdsOnly(ctx.args, 3)) {
    // Valkey 8's ID-only form lists in the order given, repeats included.
    for (uint64_t id : filter.ids) {
      if (Client* c = ctx.server.FindClient(id)) chosen.push_back(c);
    }
  } else {
    const int64_t now = NowMs();
    for (Client* c : ClientsInOrder(ctx.server)) {
      if (ClientMatches(filter, *c, &ctx.client, now)) chosen.push_back(c);
    }
  }
  std::string text;
  for (Client* c : chosen) {
    text += ClientInfoLine(*c, c == &ctx.client ? "client|list" : "");
    text += '\n';
  }
  ctx.reply.Verbatim("txt", text);
}

// CLIENT INFO
void CmdClientInfo(CommandContext& ctx) {
  ctx.reply.Verbatim("txt", ClientInfoLine(ctx.client, "client|info") + "\n");
}

// CLIENT KILL ip:port
// CLIENT KILL <filter> <value> [<filter> <value> ...]: CLIENT LIST's filters, SKIPME yes by default
void CmdClientKill(CommandContext& ctx) {
  if (ctx.argc() == 3) {
    // The old form: one address, an error when nobody has it.
    for (Client* c : ClientsInOrder(ctx.server)) {
      if (c->addr == ctx.arg(2) && !(c->flags & kClientCloseAsap)) {
        KillClient(ctx, c);
        ctx.reply.Ok();
        return;
      }
    }
    ctx.reply.Error("ERR No such client");
    return;
  }
  ClientFilter filter;
  filter.skipme = true;
  if (!ParseFilter(ctx, 2, "ERR client-id should be greater than 0", &filter)) return;
  const int64_t now = NowMs();
  int64_t killed = 0;
  for (Client* c : ClientsInOrder(ctx.server)) {
    if (c->flags & kClientCloseAsap) continue;  // already on its way out
    if (!ClientMatches(filter, *c, &ctx.client, now)) continue;
    KillClient(ctx, c);
    ++killed;
  }
  ctx.reply.Integer(killed);
}

// CLIENT REPLY ON|OFF|SKIP
void CmdClientReply(CommandContext& ctx) {
  Client& c = ctx.client;
  std::string_view mode = ctx.arg(2);
  if (EqualsIgnoreCase(mode, "on")) {
    c.flags &= ~(kClientReplyOff | kClientReplySkip | kClientReplySkipNext);
    // This command itself ran silenced when replies were off: its OK must reach the client.
    ctx.reply.SetOutput(c.conn.Output());
    ctx.reply.Ok();
  } else if (EqualsIgnoreCase(mode, "off")) {
    c.flags |= kClientReplyOff;
  } else if (EqualsIgnoreCase(mode, "skip")) {
    // The dispatcher turns this into "drop the next command's reply" once this one is done.
    if (!(c.flags & kClientReplyOff)) c.flags |= kClientReplySkip;
  } else {
    ctx.reply.Error(errors::kSyntax);
  }
}

// CLIENT NO-EVICT ON|OFF
void CmdClientNoEvict(CommandContext& ctx) {
  bool on;
  if (!ParseOnOff(ctx, ctx.arg(2), &on)) return;
  if (on) {
    ctx.client.flags |= kClientNoEvict;
  } else {
    ctx.client.flags &= ~kClientNoEvict;
  }
  ctx.reply.Ok();
}

// CLIENT NO-TOUCH ON|OFF
void CmdClientNoTouch(CommandContext& ctx) {
  bool on;
  if (!ParseOnOff(ctx, ctx.arg(2), &on)) return;
  if (on) {
    ctx.client.flags |= kClientNoTouch;
  } else {
    ctx.client.flags &= ~kClientNoTouch;
  }
  ctx.reply.Ok();
}

// CLIENT CAPA capability [capability ...] (Valkey 8.0): unknown capabilities are ignored.
void CmdClientCapa(CommandContext& ctx) {
  for (size_t i = 2; i < ctx.argc(); ++i) {
    if (EqualsIgnoreCase(ctx.arg(i), "redirect")) ctx.client.flags |= kClientCapaRedirect;
  }
  ctx.reply.Ok();
}

// CLIENT PAUSE timeout [WRITE|ALL]
void CmdClientPause(CommandContext& ctx) {
  if (ctx.argc() > 4) {
    ReplySubcommandSyntaxError(ctx);
    return;
  }
  int64_t timeout;
  if (!ParseInt64(ctx.arg(2), &timeout)) {
    ctx.reply.Error(errors::kTimeoutNotInteger);
    return;
  }
  if (timeout < 0) {
    ctx.reply.Error("ERR timeout is negative");
    return;
  }
  bool writes_only = false;
  if (ctx.argc() == 4) {
    if (EqualsIgnoreCase(ctx.arg(3), "write")) {
      writes_only = true;
    } else if (!EqualsIgnoreCase(ctx.arg(3), "all")) {
      ctx.reply.Error("ERR CLIENT PAUSE mode must be WRITE or ALL");
      return;
    }
  }
  const int64_t now = NowMs();
  const int64_t end = timeout > std::numeric_limits<int64_t>::max() - now
                          ? std::numeric_limits<int64_t>::max()
                          : now + timeout;
  ctx.server.Pause(Server::PausePurpose::kClientCommand, end, writes_only);
  ctx.reply.Ok();
}

// CLIENT UNPAUSE
void CmdClientUnpause(CommandContext& ctx) {
  ctx.server.Unpause(Server::PausePurpose::kClientCommand);
  ctx.reply.Ok();
}

// CLIENT SETINFO LIB-NAME|LIB-VER value
void CmdClientSetInfo(CommandContext& ctx) {
  std::string_view attr = ctx.arg(2);
  std::string* dest = nullptr;
  if (EqualsIgnoreCase(attr, "lib-name")) {
    dest = &ctx.client.lib_name;
  } else if (EqualsIgnoreCase(attr, "lib-ver")) {
    dest = &ctx.client.lib_ver;
  } else {
    ctx.reply.Error("ERR Unrecognized option '" + std::string(attr) + "'");
    return;
  }
  if (!ValidClientAttribute(ctx.arg(3))) {
    ctx.reply.Error("ERR " + std::string(attr) +
                    " cannot contain spaces, newlines or special characters.");
    return;
  }
  *dest = std::string(ctx.arg(3));
  ctx.reply.Ok();
}

// CLIENT TRACKING ON|OFF [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST]
//   [OPTIN] [OPTOUT] [NOLOOP]
void CmdClientTracking(CommandContext& ctx) {
  Client& c = ctx.client;
  int64_t redirect = 0;
  uint32_t options = 0;
  std::vector<std::string_view> prefixes;
  for (size_t i = 3; i < ctx.argc(); ++i) {
    std::string_view opt = ctx.arg(i);
    const bool more = i + 1 < ctx.argc();
    if (EqualsIgnoreCase(opt, "redirect") && more) {
      if (redirect != 0) {
        ctx.reply.Error("ERR A client can only redirect to a single other client");
        return;
      }
      if (!ParseInt64(ctx.arg(++i), &redirect)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      // The target must exist now; if it goes later, the client learns it from its pushes.
      if (redirect <= 0 || ctx.server.FindClient(static_cast<uint64_t>(redirect)) == nullptr) {
        ctx.reply.Error("ERR The client ID you want redirect to does not exist");
        return;
      }
    } else if (EqualsIgnoreCase(opt, "bcast")) {
      options |= kClientTrackingBcast;
    } else if (EqualsIgnoreCase(opt, "optin")) {
      options |= kClientTrackingOptin;
    } else if (EqualsIgnoreCase(opt, "optout")) {
      options |= kClientTrackingOptout;
    } else if (EqualsIgnoreCase(opt, "noloop")) {
      options |= kClientTrackingNoloop;
    } else if (EqualsIgnoreCase(opt, "prefix") && more) {
      prefixes.push_back(ctx.arg(++i));
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }
  Tracking& tracking = ctx.server.tracking();
  if (EqualsIgnoreCase(ctx.arg(2), "off")) {
    tracking.Disable(&c);
    ctx.reply.Ok();
    return;
  }
  if (!EqualsIgnoreCase(ctx.arg(2), "on")) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  const char* error = nullptr;
  const bool bcast = options & kClientTrackingBcast;
  if (!bcast && !prefixes.empty()) {
    error = "ERR PREFIX option requires BCAST mode to be enabled";
  } else if ((c.flags & kClientTracking) && bcast != ((c.flags & kClientTrackingBcast) != 0)) {
    error = "ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
            "and then re-enabling it with a different mode.";
  } else if (bcast && (options & (kClientTrackingOptin | kClientTrackingOptout))) {
    error = "ERR OPTIN and OPTOUT are not compatible with BCAST";
  } else if ((options & kClientTrackingOptin) && (options & kClientTrackingOptout)) {
    error = "ERR You can't specify both OPTIN mode and OPTOUT mode";
  } else if (((options & kClientTrackingOptin) && (c.flags & kClientTrackingOptout)) ||
             ((options & kClientTrackingOptout) && (c.flags & kClientTrackingOptin))) {
    error = "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
            "and then re-enabling it with a different mode.";
  }
  if (error != nullptr) {
    ctx.reply.Error(error);
    return;
  }
  if (bcast) {
    std::string overlap = tracking.CheckPrefixes(c, prefixes);
    if (!overlap.empty()) {
      ctx.reply.Error("ERR " + overlap);
      return;
    }
  }
  tracking.Enable(&c, static_cast<uint64_t>(redirect), options, prefixes);
  ctx.reply.Ok();
}

// CLIENT CACHING YES|NO
void CmdClientCaching(CommandContext& ctx) {
  Client& c = ctx.client;
  if (!(c.flags & kClientTracking)) {
    ctx.reply.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode "
                    "with OPTIN or OPTOUT mode enabled");
    return;
  }
  if (EqualsIgnoreCase(ctx.arg(2), "yes")) {
    if (!(c.flags & kClientTrackingOptin)) {
      ctx.reply.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN "
                      "mode.");
      return;
    }
  } else if (EqualsIgnoreCase(ctx.arg(2), "no")) {
    if (!(c.flags & kClientTrackingOptout)) {
      ctx.reply.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT "
                      "mode.");
      return;
    }
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  // Cleared after the next command that is not CLIENT (Server::ProcessInput).
  c.flags |= kClientTrackingCaching;
  ctx.reply.Ok();
}

// CLIENT GETREDIR
void CmdClientGetRedir(CommandContext& ctx) {
  const Client& c = ctx.client;
  ctx.reply.Integer((c.flags & kClientTracking) ? static_cast<int64_t>(c.tracking_redirect) : -1);
}

// CLIENT TRACKINGINFO
void CmdClientTrackingInfo(CommandContext& ctx) {
  const Client& c = ctx.client;
  std::vector<const char*> flags = {(c.flags & kClientTracking) ? "on" : "off"};
  if (c.flags & kClientTrackingBcast) flags.push_back("bcast");
  if (c.flags & kClientTrackingOptin) {
    flags.push_back("optin");
    if (c.flags & kClientTrackingCaching) flags.push_back("caching-yes");
  }
  if (c.flags & kClientTrackingOptout) {
    flags.push_back("optout");
    if (c.flags & kClientTrackingCaching) flags.push_back("caching-no");
  }
  if (c.flags & kClientTrackingNoloop) flags.push_back("noloop");
  if (c.flags & kClientTrackingBrokenRedir) flags.push_back("broken_redirect");
  ctx.reply.Map(3);
  ctx.reply.Bulk("flags");
  ctx.reply.Set(flags.size());
  for (const char* f : flags) ctx.reply.Bulk(f);
  ctx.reply.Bulk("redirect");
  ctx.reply.Integer((c.flags & kClientTracking) ? static_cast<int64_t>(c.tracking_redirect) : -1);
  ctx.reply.Bulk("prefixes");
  std::vector<std::string> prefixes = ctx.server.tracking().PrefixesOf(c);
  ctx.reply.Array(prefixes.size());
  for (const std::string& p : prefixes) ctx.reply.Bulk(p);
}

// CLIENT UNBLOCK client-id [TIMEOUT|ERROR]
void CmdClientUnblock(CommandContext& ctx) {
  if (ctx.argc() > 4) {
    ReplySubcommandSyntaxError(ctx);
    return;
  }
  int64_t id;
  if (!ParseInt64(ctx.arg(2), &id)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (ctx.argc() == 4 && !EqualsIgnoreCase(ctx.arg(3), "timeout") &&
      !EqualsIgnoreCase(ctx.arg(3), "error")) {
    ctx.reply.Error("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
    return;
  }
  Client* target = ctx.server.FindClient(static_cast<uint64_t>(id));
  // A SHUTDOWN waiting for replicas is not a blocking command's wait: only ABORT ends it.
  if (target == nullptr || !(target->flags & kClientBlocked) ||
      (target->block && target->block->on_timeout == BlockTimeoutReply::kShutdown)) {
    ctx.reply.Integer(0);
    return;
  }
  ctx.server.UnblockClient(target, ctx.argc() == 4 && EqualsIgnoreCase(ctx.arg(3), "error"));
  ctx.reply.Integer(1);
}

// CLIENT HELP
void CmdClientHelp(CommandContext& ctx) {
  ReplyHelp(ctx.reply, ctx.arg(0),
            {"CACHING (YES|NO)",
             "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
             "CAPA <option> [options...]",
             "    The client claims its some capability options. Options are:",
             "    * REDIRECT",
             "      The client can handle redirection during primary and replica failover in "
             "standalone mode.",
             "GETREDIR", "    Return the client ID we are redirecting to when tracking is enabled.",
             "GETNAME", "    Return the name of the current connection.",
             "ID", "    Return the ID of the current connection.",
             "INFO", "    Return information about the current client connection.",
             "KILL <ip:port>", "    Kill connection made from <ip:port>.",
             "KILL <option> <value> [<option> <value> [...]]",
             "    Kill connections. Options are:",
             "    * ADDR (<ip:port>|<unixsocket>:0)",
             "      Kill connections made from the specified address",
             "    * LADDR (<ip:port>|<unixsocket>:0)",
             "      Kill connections made to specified local address",
             "    * TYPE (NORMAL|PRIMARY|REPLICA|PUBSUB)",
             "      Kill connections by type.",
             "    * USER <username>",
             "      Kill connections authenticated by <username>.",
             "    * SKIPME (YES|NO)",
             "      Skip killing current connection (default: yes).",
             "    * ID <client-id>",
             "      Kill connections by client id.",
             "    * MAXAGE <maxage>",
             "      Kill connections older than the specified age.",
             "LIST [options ...]",
             "    Return information about client connections. Options:",
             "    * TYPE (NORMAL|PRIMARY|REPLICA|PUBSUB)",
             "      Return clients of specified type.",
             "UNPAUSE", "    Stop the current client pause, resuming traffic.",
             "PAUSE <timeout> [WRITE|ALL]",
             "    Suspend all, or just write, clients for <timeout> milliseconds.",
             "REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
             "SETNAME <name>", "    Assign the name <name> to the current connection.",
             "SETINFO <option> <value>",
             "    Set client meta attr. Options are:",
             "    * LIB-NAME: the client lib name.",
             "    * LIB-VER: the client lib version.",
             "UNBLOCK <clientid> [TIMEOUT|ERROR]", "    Unblock the specified blocked client.",
             "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
             "         [OPTIN] [OPTOUT] [NOLOOP]",
             "    Control server assisted client side caching.",
             "TRACKINGINFO", "    Report tracking status for the current connection.",
             "NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.",
             "NO-TOUCH (ON|OFF)",
             "    Will not touch LRU/LFU stats when this mode is on."});
}

// MONITOR
void CmdMonitor(CommandContext& ctx) {
  // Inside EXEC (or a script) every command owes one reply: a monitor stream cannot start.
  if (ctx.client.flags & kClientDenyBlocking) {
    ctx.reply.Error(errors::kMonitorDenyBlocking);
    return;
  }
  // A second MONITOR is ignored without a reply, as in Valkey.
  if (ctx.client.flags & kClientMonitor) return;
  ctx.server.AddMonitor(&ctx.client);
  ctx.reply.Ok();
}

}  // namespace

std::string ClientInfoForLog(const Client& c, const std::string& current) {
  return ClientInfoLine(c, current);
}

void RegisterClientCommands(CommandTable& t) {
  const uint64_t conn = kAclConnection | kAclSlow;
  const uint64_t admin = kAclAdmin | kAclSlow | kAclDangerous | kAclConnection;
  const uint32_t plain = kCmdNoScript | kCmdLoading | kCmdStale;
  const uint32_t admin_flags = kCmdAdmin | plain;
  CommandSpec client{.name = "client", .arity = -2, .acl = kAclSlow, .group = "connection",
                     .summary = "A container for client connection commands.", .since = "2.4.0",
                     .complexity = "Depends on subcommand."};
  client.subcommands = {
      {.name = "client|id", .arity = 2, .flags = plain, .acl = conn, .handler = CmdClientId,
       .group = "connection", .summary = "Returns the unique client ID of the connection.",
       .since = "5.0.0", .complexity = "O(1)"},
      {.name = "client|setname", .arity = 3, .flags = plain, .acl = conn,
       .handler = CmdClientSetName, .group = "connection",
       .summary = "Sets the connection name.", .since = "2.6.9", .complexity = "O(1)"},
      {.name = "client|getname", .arity = 2, .flags = plain, .acl = conn,
       .handler = CmdClientGetName, .group = "connection",
       .summary = "Returns the name of the connection.", .since = "2.6.9",
       .complexity = "O(1)"},
      {.name = "client|list", .arity = -2, .flags = admin_flags, .acl = admin,
       .handler = CmdClientList, .group = "connection",
       .summary = "Lists open connections.", .since = "2.4.0",
       .complexity = "O(N) where N is the number of client connections"},
      {.name = "client|info", .arity = 2, .flags = plain, .acl = conn, .handler = CmdClientInfo,
       .group = "connection", .summary = "Returns information about the connection.",
       .since = "6.2.0", .complexity = "O(1)"},
      {.name = "client|kill", .arity = -3, .flags = admin_flags, .acl = admin,
       .handler = CmdClientKill, .group = "connection",
       .summary = "Terminates open connections.", .since = "2.4.0",
       .complexity = "O(N) where N is the number of client connections"},
      {.name = "client|reply", .arity = 3, .flags = plain, .acl = conn,
       .handler = CmdClientReply, .group = "connection",
       .summary = "Instructs the server whether to reply to commands.", .since = "3.2.0",
       .complexity = "O(1)"},
      {.name = "client|no-evict", .arity = 3, .flags = admin_flags, .acl = admin,
       .handler = CmdClientNoEvict, .group = "connection",
       .summary = "Sets the client eviction mode of the connection.", .since = "7.0.0",
       .complexity = "O(1)"},
      {.name = "client|capa", .arity = -3, .flags = plain, .acl = conn,
       .handler = CmdClientCapa, .group = "connection",
       .summary = "A client claims its capability.", .since = "8.0.0", .complexity = "O(1)"},
      {.name = "client|no-touch", .arity = 3, .flags = plain, .acl = conn,
       .handler = CmdClientNoTouch, .group = "connection",
       .summary = "Controls whether commands sent by the client affect the LRU/LFU of "
                  "accessed keys.",
       .since = "7.2.0", .complexity = "O(1)"},
      {.name = "client|pause", .arity = -3, .flags = admin_flags, .acl = admin,
       .handler = CmdClientPause, .group = "connection",
       .summary = "Suspends commands processing.", .since = "3.0.0", .complexity = "O(1)"},
      {.name = "client|unpause", .arity = 2, .flags = admin_flags, .acl = admin,
       .handler = CmdClientUnpause, .group = "connection",
       .summary = "Resumes processing commands from paused clients.", .since = "6.2.0",
       .complexity = "O(N) Where N is the number of paused clients"},
      {.name = "client|setinfo", .arity = 4, .flags = plain | kCmdSentinel, .acl = conn,
       .handler = CmdClientSetInfo, .group = "connection",
       .summary = "Sets information specific to the client or connection.", .since = "7.2.0",
       .complexity = "O(1)"},
      {.name = "client|tracking", .arity = -3, .flags = plain, .acl = conn,
       .handler = CmdClientTracking, .group = "connection",
       .summary = "Controls server-assisted client-side caching for the connection.",
       .since = "6.0.0", .complexity = "O(1). Some options may introduce additional complexity."},
      {.name = "client|caching", .arity = 3, .flags = plain, .acl = conn,
       .handler = CmdClientCaching, .group = "connection",
       .summary = "Instructs the server whether to track the keys in the next request.",
       .since = "6.0.0", .complexity = "O(1)"},
      {.name = "client|trackinginfo", .arity = 2, .flags = plain, .acl = conn,
       .handler = CmdClientTrackingInfo, .group = "connection",
       .summary = "Returns information about server-assisted client-side caching for the "
                  "connection.",
       .since = "6.2.0", .complexity = "O(1)"},
      {.name = "client|getredir", .arity = 2, .flags = plain, .acl = conn,
       .handler = CmdClientGetRedir, .group = "connection",
       .summary = "Returns the client ID to which the connection's tracking notifications are "
                  "redirected.",
       .since = "6.0.0", .complexity = "O(1)"},
      {.name = "client|unblock", .arity = -3, .flags = admin_flags, .acl = admin,
       .handler = CmdClientUnblock, .group = "connection",
       .summary = "Unblocks a client blocked by a blocking command from a different "
                  "connection.",
       .since = "5.0.0", .complexity = "O(log N) where N is the number of client connections"},
      {.name = "client|help", .arity = 2, .flags = kCmdLoading | kCmdStale, .acl = conn,
       .handler = CmdClientHelp, .group = "connection",
       .summary = "Returns helpful text about the different subcommands.", .since = "5.0.0",
       .complexity = "O(1)"},
  };
  t.Add(std::move(client));
  t.Add({.name = "monitor", .arity = 1, .flags = admin_flags,
         .acl = kAclAdmin | kAclSlow | kAclDangerous, .handler = CmdMonitor, .group = "server",
         .summary = "Listens for all requests received by the server in real-time.",
         .since = "1.0.0", .complexity = ""});
}

}  // namespace vireo
