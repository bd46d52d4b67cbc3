// Pub/Sub family: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE SSUBSCRIBE SUNSUBSCRIBE
// PUBLISH SPUBLISH PUBSUB. The registries and delivery live in server/pubsub.
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "commands/context.h"
#include "commands/registry.h"
#include "commands/server_family.h"
#include "common/glob.h"
#include "server/server.h"

namespace vireo {
namespace {

// What a client is subscribed to, by command: channels, patterns or shard channels.
enum class Target { kChannel, kPattern, kShard };

size_t CountFor(const Client& c, Target t) {
  if (!c.subs) return 0;
  return t == Target::kShard ? c.subs->shard_channels.size() : c.subs->Count();
}

// "[s|p]subscribe name count" / "[s|p]unsubscribe name count", as a push in RESP3.
void ReplySubscription(CommandContext& ctx, std::string_view kind, const std::string_view* name,
                       Target t) {
  ctx.reply.Push(3);
  ctx.reply.Bulk(kind);
  if (name != nullptr) {
    ctx.reply.Bulk(*name);
  } else {
    ctx.reply.Null();
  }
  ctx.reply.Integer(static_cast<int64_t>(CountFor(ctx.client, t)));
}

// Valkey sends (un)subscribe confirmations even to a client that set CLIENT REPLY OFF or SKIP
// (they go out as pushes, RESP2 included); a primary's link stays silent. For its lifetime,
// the confirmations of a silenced client go to its connection.
class ConfirmationOutput {
 public:
  explicit ConfirmationOutput(CommandContext& ctx) : ctx_(ctx), saved_(ctx.reply.Output()) {
    if (saved_ == &ctx.client.discard && !(ctx.client.flags & kClientMaster)) {
      ctx.reply.SetOutput(ctx.client.conn.Output());
    }
  }
  ~ConfirmationOutput() { ctx_.reply.SetOutput(saved_); }
  ConfirmationOutput(const ConfirmationOutput&) = delete;
  ConfirmationOutput& operator=(const ConfirmationOutput&) = delete;

 private:
  CommandContext& ctx_;
  std::string* const saved_;
};

bool Add(CommandContext& ctx, Target t, std::string_view name) {
  PubSub& ps = ctx.server.pubsub();
  switch (t) {
    case Target::kChannel: return ps.Subscribe(&ctx.client, PubSubSpace::kGlobal, name);
    case Target::kShard: return ps.Subscribe(&ctx.client, PubSubSpace::kShard, name);
    case Target::kPattern: return ps.SubscribePattern(&ctx.client, name);
  }
  return false;
}

void Remove(CommandContext& ctx, Target t, std::string_view name) {
  PubSub& ps = ctx.server.pubsub();
  switch (t) {
    case Target::kChannel: ps.Unsubscribe(&ctx.client, PubSubSpace::kGlobal, name); break;
    case Target::kShard: ps.Unsubscribe(&ctx.client, PubSubSpace::kShard, name); break;
    case Target::kPattern: ps.UnsubscribePattern(&ctx.client, name); break;
  }
}

void SubscribeCommand(CommandContext& ctx, Target t, std::string_view kind) {
  ConfirmationOutput out(ctx);
  for (size_t i = 1; i < ctx.argc(); ++i) {
    std::string_view name = ctx.arg(i);
    Add(ctx, t, name);
    ReplySubscription(ctx, kind, &name, t);
  }
}

void UnsubscribeCommand(CommandContext& ctx, Target t, std::string_view kind) {
  ConfirmationOutput out(ctx);
  if (ctx.argc() > 1) {
    for (size_t i = 1; i < ctx.argc(); ++i) {
      std::string_view name = ctx.arg(i);
      Remove(ctx, t, name);
      ReplySubscription(ctx, kind, &name, t);
    }
    return;
  }
  // No names: every subscription of that kind, or one reply with a null name if none.
  std::vector<std::string> names;
  if (ctx.client.subs) {
    const ClientSubscriptions& s = *ctx.client.subs;
    const PubSubNameSet& set = t == Target::kChannel ? s.channels
                               : t == Target::kPattern ? s.patterns
                                                       : s.shard_channels;
    names.assign(set.begin(), set.end());
  }
  if (names.empty()) {
    ReplySubscription(ctx, kind, nullptr, t);
    return;
  }
  for (const std::string& n : names) {
    Remove(ctx, t, n);
    std::string_view name = n;
    ReplySubscription(ctx, kind, &name, t);
  }
}

// SUBSCRIBE channel [channel ...]
void CmdSubscribe(CommandContext& ctx) { SubscribeCommand(ctx, Target::kChannel, "subscribe"); }
// UNSUBSCRIBE [channel ...]
void CmdUnsubscribe(CommandContext& ctx) {
  UnsubscribeCommand(ctx, Target::kChannel, "unsubscribe");
}
// PSUBSCRIBE pattern [pattern ...]
void CmdPSubscribe(CommandContext& ctx) { SubscribeCommand(ctx, Target::kPattern, "psubscribe"); }
// PUNSUBSCRIBE [pattern ...]
void CmdPUnsubscribe(CommandContext& ctx) {
  UnsubscribeCommand(ctx, Target::kPattern, "punsubscribe");
}
// SSUBSCRIBE shardchannel [shardchannel ...]
void CmdSSubscribe(CommandContext& ctx) {
  // Inside EXEC (unlike SUBSCRIBE, as in Valkey and Redis 7.0).
  if (ctx.client.flags & kClientDenyBlocking) {
    ctx.reply.Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
    return;
  }
  SubscribeCommand(ctx, Target::kShard, "ssubscribe");
}
// SUNSUBSCRIBE [shardchannel ...]
void CmdSUnsubscribe(CommandContext& ctx) {
  UnsubscribeCommand(ctx, Target::kShard, "sunsubscribe");
}

// PUBLISH channel message
void CmdPublish(CommandContext& ctx) {
  size_t n = ctx.server.pubsub().Publish(ctx.server, PubSubSpace::kGlobal, ctx.arg(1), ctx.arg(2));
  // In a cluster every node's subscribers hear it (the count stays this node's, as Valkey).
  if (ctx.server.cluster() != nullptr) {
    ctx.server.cluster()->BroadcastPublish(ctx.arg(1), ctx.arg(2));
  }
  ctx.reply.Integer(static_cast<int64_t>(n));
}

// SPUBLISH shardchannel message
void CmdSPublish(CommandContext& ctx) {
  size_t n = ctx.server.pubsub().Publish(ctx.server, PubSubSpace::kShard, ctx.arg(1), ctx.arg(2));
  ctx.server.AccountShardFanOut(ctx.arg(1), ctx.arg(2), n);
  if (ctx.server.cluster() != nullptr) ctx.server.cluster()->ShardPublish(ctx.arg(1), ctx.arg(2));
  ctx.reply.Integer(static_cast<int64_t>(n));
}

void ReplyChannels(CommandContext& ctx, PubSubSpace space) {
  if (ctx.argc() > 3) {
    ReplySubcommandSyntaxError(ctx);
    return;
  }
  std::vector<std::string_view> names;
  for (std::string_view ch : ctx.server.pubsub().Channels(space)) {
    if (ctx.argc() == 3 && !GlobMatch(ctx.arg(2), ch)) continue;
    names.push_back(ch);
  }
  ctx.reply.Array(names.size());
  for (std::string_view ch : names) ctx.reply.Bulk(ch);
}

void ReplyNumSub(CommandContext& ctx, PubSubSpace space) {
  ctx.reply.Array((ctx.argc() - 2) * 2);
  for (size_t i = 2; i < ctx.argc(); ++i) {
    ctx.reply.Bulk(ctx.arg(i));
    ctx.reply.Integer(static_cast<int64_t>(ctx.server.pubsub().SubscriberCount(space, ctx.arg(i))));
  }
}

// PUBSUB CHANNELS [pattern]
void CmdPubSubChannels(CommandContext& ctx) { ReplyChannels(ctx, PubSubSpace::kGlobal); }
// PUBSUB SHARDCHANNELS [pattern]
void CmdPubSubShardChannels(CommandContext& ctx) { ReplyChannels(ctx, PubSubSpace::kShard); }
// PUBSUB NUMSUB [channel ...]
void CmdPubSubNumSub(CommandContext& ctx) { ReplyNumSub(ctx, PubSubSpace::kGlobal); }
// PUBSUB SHARDNUMSUB [shardchannel ...]
void CmdPubSubShardNumSub(CommandContext& ctx) { ReplyNumSub(ctx, PubSubSpace::kShard); }
// PUBSUB NUMPAT
void CmdPubSubNumPat(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<int64_t>(ctx.server.pubsub().PatternCount()));
}

// PUBSUB HELP
void CmdPubSubHelp(CommandContext& ctx) {
  ReplyHelp(
      ctx.reply, ctx.arg(0),
      {"CHANNELS [<pattern>]",
       "    Return the currently active channels matching a <pattern> (default: '*').", "NUMPAT",
       "    Return number of subscriptions to patterns.", "NUMSUB [<channel> ...]",
       "    Return the number of subscribers for the specified channels, excluding",
       "    pattern subscriptions(default: no channels).", "SHARDCHANNELS [<pattern>]",
       "    Return the currently active shard level channels matching a <pattern> (default: '*').",
       "SHARDNUMSUB [<shardchannel> ...]",
       "    Return the number of subscribers for the specified shard level channel(s)"});
}

}  // namespace

void RegisterPubSubCommands(CommandTable& t) {
  const uint64_t ps = kAclPubSub;
  const uint32_t sub_flags = kCmdPubSub | kCmdNoScript | kCmdLoading | kCmdStale;
  const uint32_t pub_flags = kCmdPubSub | kCmdLoading | kCmdStale | kCmdFast;
  const uint32_t info_flags = kCmdPubSub | kCmdLoading | kCmdStale;
  t.Add({.name = "subscribe", .arity = -2, .flags = sub_flags, .acl = ps | kAclSlow,
         .handler = CmdSubscribe, .group = "pubsub",
         .summary = "Listens for messages published to channels.", .since = "2.0.0",
         .complexity = "O(N) where N is the number of channels to subscribe to."});
  t.Add({.name = "unsubscribe", .arity = -1, .flags = sub_flags, .acl = ps | kAclSlow,
         .handler = CmdUnsubscribe, .group = "pubsub",
         .summary = "Stops listening to messages posted to channels.", .since = "2.0.0",
         .complexity = "O(N) where N is the number of channels to unsubscribe."});
  t.Add({.name = "psubscribe", .arity = -2, .flags = sub_flags, .acl = ps | kAclSlow,
         .handler = CmdPSubscribe, .group = "pubsub",
         .summary = "Listens for messages published to channels that match one or more "
                    "patterns.",
         .since = "2.0.0",
         .complexity = "O(N) where N is the number of patterns to subscribe to."});
  t.Add({.name = "punsubscribe", .arity = -1, .flags = sub_flags, .acl = ps | kAclSlow,
         .handler = CmdPUnsubscribe, .group = "pubsub",
         .summary = "Stops listening to messages published to channels that match one or more "
                    "patterns.",
         .since = "2.0.0",
         .complexity = "O(N) where N is the number of patterns to unsubscribe."});
  t.Add({.name = "ssubscribe", .arity = -2, .flags = sub_flags, .acl = ps | kAclSlow,
         .first_key = 1, .last_key = -1, .key_step = 1, .handler = CmdSSubscribe,
         .group = "pubsub", .summary = "Listens for messages published to shard channels.",
         .since = "7.0.0",
         .complexity = "O(N) where N is the number of shard channels to subscribe to."});
  t.Add({.name = "sunsubscribe", .arity = -1, .flags = sub_flags, .acl = ps | kAclSlow,
         .first_key = 1, .last_key = -1, .key_step = 1, .handler = CmdSUnsubscribe,
         .group = "pubsub", .summary = "Stops listening to messages posted to shard channels.",
         .since = "7.0.0",
         .complexity = "O(N) where N is the number of shard channels to unsubscribe."});
  t.Add({.name = "publish", .arity = 3, .flags = pub_flags, .acl = ps | kAclFast,
         .handler = CmdPublish, .group = "pubsub", .summary = "Posts a message to a channel.",
         .since = "2.0.0",
         .complexity = "O(N+M) where N is the number of clients subscribed to the receiving "
                       "channel and M is the total number of subscribed patterns (by any "
                       "client)."});
  t.Add({.name = "spublish", .arity = 3, .flags = pub_flags, .acl = ps | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSPublish,
         .group = "pubsub", .summary = "Post a message to a shard channel", .since = "7.0.0",
         .complexity = "O(N) where N is the number of clients subscribed to the receiving "
                       "shard channel."});
  t.Add({.name = "pubsub", .arity = -2, .acl = kAclSlow, .group = "pubsub",
         .summary = "A container for Pub/Sub commands.", .since = "2.8.0",
         .complexity = "Depends on subcommand.",
         .subcommands = {
             {.name = "pubsub|channels", .arity = -2, .flags = info_flags,
              .acl = ps | kAclSlow, .handler = CmdPubSubChannels, .group = "pubsub",
              .summary = "Returns the active channels.", .since = "2.8.0",
              .complexity = "O(N) where N is the number of active channels, and assuming "
                            "constant time pattern matching (relatively short channels and "
                            "patterns)"},
             {.name = "pubsub|help", .arity = 2, .flags = kCmdLoading | kCmdStale,
              .acl = kAclSlow, .handler = CmdPubSubHelp, .group = "pubsub",
              .summary = "Returns helpful text about the different subcommands.",
              .since = "6.2.0", .complexity = "O(1)"},
             {.name = "pubsub|numpat", .arity = 2, .flags = info_flags, .acl = ps | kAclSlow,
              .handler = CmdPubSubNumPat, .group = "pubsub",
              .summary = "Returns a count of unique pattern subscriptions.", .since = "2.8.0",
              .complexity = "O(1)"},
             {.name = "pubsub|numsub", .arity = -2, .flags = info_flags, .acl = ps | kAclSlow,
              .handler = CmdPubSubNumSub, .group = "pubsub",
              .summary = "Returns a count of subscribers to channels.", .since = "2.8.0",
              .complexity = "O(N) for the NUMSUB subcommand, where N is the number of "
                            "requested channels"},
             {.name = "pubsub|shardchannels", .arity = -2, .flags = info_flags,
              .acl = ps | kAclSlow, .handler = CmdPubSubShardChannels, .group = "pubsub",
              .summary = "Returns the active shard channels.", .since = "7.0.0",
              .complexity = "O(N) where N is the number of active shard channels, and "
                            "assuming constant time pattern matching (relatively short shard "
                            "channels)."},
             {.name = "pubsub|shardnumsub", .arity = -2, .flags = info_flags,
              .acl = ps | kAclSlow, .handler = CmdPubSubShardNumSub, .group = "pubsub",
              .summary = "Returns the count of subscribers of shard channels.",
              .since = "7.0.0",
              .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of "
                            "requested shard channels"},
         }});
}

}  // namespace vireo
