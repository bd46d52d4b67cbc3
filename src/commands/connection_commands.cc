// Connection family: PING ECHO QUIT RESET AUTH HELLO SELECT.
#include "cluster/cluster.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/numbers.h"
#include "replication/replication.h"
#include "server/server.h"

namespace vireo {
namespace {

// PING [message]
void CmdPing(CommandContext& ctx) {
  if (ctx.argc() > 2) {
    ctx.reply.Error("ERR wrong number of arguments for 'ping' command");
    return;
  }
  // A RESP2 subscriber's replies share the stream with messages: PING answers in their shape.
  if ((ctx.client.flags & kClientPubSub) && ctx.client.resp == 2) {
    ctx.reply.Array(2);
    ctx.reply.Bulk("pong");
    ctx.reply.Bulk(ctx.argc() == 2 ? ctx.arg(1) : std::string_view());
    return;
  }
  if (ctx.argc() == 1) {
    ctx.reply.Simple("PONG");
  } else {
    ctx.reply.Bulk(ctx.arg(1));
  }
}

// ECHO message
void CmdEcho(CommandContext& ctx) { ctx.reply.Bulk(ctx.arg(1)); }

// QUIT
void CmdQuit(CommandContext& ctx) {
  ctx.reply.Ok();
  ctx.client.flags |= kClientCloseAfterReply;
}

// AUTH [username] password
void CmdAuth(CommandContext& ctx) {
  if (ctx.argc() > 3) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (ctx.argc() == 2 && ctx.server.acl().default_user()->nopass()) {
    ctx.reply.Error(errors::kAuthNotSet);
    return;
  }
  std::string_view user = ctx.argc() == 3 ? ctx.arg(1) : "default";
  std::string_view pass = ctx.argc() == 3 ? ctx.arg(2) : ctx.arg(1);
  if (!ctx.server.Authenticate(&ctx.client, user, pass, "auth")) {
    ctx.reply.Error(errors::kWrongPass);
    return;
  }
  ctx.reply.Ok();
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
void CmdHello(CommandContext& ctx) {
  int64_t ver = ctx.client.resp;
  size_t i = 1;
  if (ctx.argc() >= 2) {
    if (!ParseInt64(ctx.arg(1), &ver)) {
      ctx.reply.Error("ERR Protocol version is not an integer or out of range");
      return;
    }
    if (ver < 2 || ver > 3) {
      ctx.reply.Error("NOPROTO unsupported protocol version");
      return;
    }
    i = 2;
  }
  std::string_view user, pass, name;
  bool has_auth = false, has_name = false;
  for (; i < ctx.argc(); ++i) {
    size_t more = ctx.argc() - i - 1;
    if (EqualsIgnoreCase(ctx.arg(i), "AUTH") && more >= 2) {
      has_auth = true;
      user = ctx.arg(i + 1);
      pass = ctx.arg(i + 2);
      i += 2;
    } else if (EqualsIgnoreCase(ctx.arg(i), "SETNAME") && more >= 1) {
      has_name = true;
      name = ctx.arg(i + 1);
      i += 1;
    } else {
      ctx.reply.Error("ERR Syntax error in HELLO option '" + std::string(ctx.arg(i)) + "'");
      return;
    }
  }
  if (has_auth) {
    if (!ctx.server.Authenticate(&ctx.client, user, pass, "hello")) {
      ctx.reply.Error(errors::kWrongPass);
      return;
    }
  }
  if (!ctx.client.authenticated && ctx.server.AuthRequired()) {
    ctx.reply.Error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
        "<proto> AUTH <user> <pass> option can be used to authenticate the client and select the "
        "RESP protocol version at the same time");  // Valkey 8's text (Redis 7.0 had no <proto>)
    return;
  }
  if (has_name) {
    for (char ch : name) {
      if (ch < '!' || ch > '~') {
        ctx.reply.Error("ERR Client names cannot contain spaces, newlines or special characters.");
        return;
      }
    }
    ctx.client.name = std::string(name);
  }
  ctx.client.resp = static_cast<int>(ver);
  ctx.reply.SetResp3(ver == 3);
  const bool as_redis = ExtendedRedisCompat(ctx.server.config());
  ctx.reply.Map(7);
  ctx.reply.Bulk("server");
  ctx.reply.Bulk(as_redis ? "redis" : "valkey");
  ctx.reply.Bulk("version");
  ctx.reply.Bulk(as_redis ? kCompatVersion : kValkeyCompatVersion);
  ctx.reply.Bulk("proto");
  ctx.reply.Integer(ver);
  ctx.reply.Bulk("id");
  ctx.reply.Integer(static_cast<int64_t>(ctx.client.id));
  ctx.reply.Bulk("mode");
  ctx.reply.Bulk(ctx.server.cluster() != nullptr ? "cluster" : "standalone");
  ctx.reply.Bulk("role");
  ctx.reply.Bulk(ctx.server.replication().is_replica() ? "replica" : "master");
  ctx.reply.Bulk("modules");
  ctx.reply.Array(0);
}

// SELECT index
void CmdSelect(CommandContext& ctx) {
  int64_t index;
  if (!ParseInt64(ctx.arg(1), &index)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  // Cluster mode with one database (cluster-databases 1, the default) refuses as Valkey 8.
  if (ctx.server.cluster() != nullptr && ctx.server.db_count() == 1 && index != 0) {
    ctx.reply.Error("ERR SELECT is not allowed in cluster mode");
    return;
  }
  if (index < 0 || index >= ctx.server.db_count()) {
    ctx.reply.Error(errors::kDbIndexOutOfRange);
    return;
  }
  ctx.client.db_index = static_cast<int>(index);
  ctx.reply.Ok();
}

// RESET
void CmdReset(CommandContext& ctx) {
  Client& c = ctx.client;
  c.db_index = 0;
  c.resp = 2;
  ctx.reply.SetResp3(false);
  c.name.clear();
  c.flags &= ~(kClientReplyOff | kClientReplySkip | kClientReplySkipNext | kClientNoEvict |
               kClientNoTouch);
  if (c.flags & kClientMonitor) {
    c.flags &= ~kClientMonitor;
    ctx.server.RemoveMonitor(&c);
  }
  ctx.server.pubsub().RemoveClient(&c);
  if (c.flags & kClientTracking) ctx.server.tracking().Disable(&c);
  ctx.server.SetClientUser(&c, ctx.server.acl().default_user());
  c.authenticated = !ctx.server.AuthRequired();
  DiscardTransaction(ctx.server, &c);  // also forgets WATCHed keys, in MULTI or not
  ctx.reply.SetOutput(c.conn.Output());
  ctx.reply.Simple("RESET");
}

}  // namespace

void RegisterConnectionCommands(CommandTable& t) {
  const uint64_t conn = kAclConnection;
  t.Add({.name = "ping", .arity = -1, .flags = kCmdFast | kCmdSentinel,
         .acl = conn | kAclFast, .handler = CmdPing, .group = "connection",
         .summary = "Returns the server's liveliness response.", .since = "1.0.0",
         .complexity = "O(1)"});
  t.Add({.name = "echo", .arity = 2, .flags = kCmdFast | kCmdLoading | kCmdStale,
         .acl = conn | kAclFast,
         .handler = CmdEcho, .group = "connection", .summary = "Returns the given string.",
         .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "quit", .arity = -1,
         .flags = kCmdAllowBusy | kCmdNoAuth | kCmdLoading | kCmdStale | kCmdFast | kCmdNoScript,
         .acl = conn | kAclFast, .handler = CmdQuit, .group = "connection",
         .summary = "Closes the connection.", .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "auth", .arity = -2,
         .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoAuth |
                  kCmdSentinel | kCmdAllowBusy,
         .acl = conn | kAclFast, .handler = CmdAuth, .group = "connection",
         .summary = "Authenticates the connection.", .since = "1.0.0",
         .complexity = "O(N) where N is the number of passwords defined for the user"});
  t.Add({.name = "hello", .arity = -1,
         .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoAuth |
                  kCmdSentinel | kCmdAllowBusy,
         .acl = conn | kAclFast, .handler = CmdHello, .group = "connection",
         .summary = "Handshakes with the server.", .since = "6.0.0", .complexity = "O(1)"});
  t.Add({.name = "select", .arity = 2, .flags = kCmdLoading | kCmdStale | kCmdFast,
         .acl = conn | kAclFast, .handler = CmdSelect, .group = "connection",
         .summary = "Changes the selected database.", .since = "1.0.0", .complexity = "O(1)"});
  t.Add({.name = "reset", .arity = 1,
         .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoAuth |
                  kCmdAllowBusy,
         .acl = conn | kAclFast, .handler = CmdReset, .group = "connection",
         .summary = "Resets the connection.", .since = "6.2.0", .complexity = "O(1)"});
}

}  // namespace vireo
