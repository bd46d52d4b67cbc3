// Pub/Sub registries: who listens to which channel, pattern and shard channel, and delivery
// of published messages. Execution thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace vireo {

struct Client;
class Server;

// Heterogeneous lookup: a published channel (a view over the request) finds its entry
// without building a std::string.
struct PubSubNameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const;
};
struct PubSubNameEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
};
using PubSubNameSet = std::unordered_set<std::string, PubSubNameHash, PubSubNameEq>;

// One client's subscriptions (allocated on its first subscribe).
struct ClientSubscriptions {
  PubSubNameSet channels;
  PubSubNameSet patterns;
  PubSubNameSet shard_channels;
  // SUBSCRIBE/PSUBSCRIBE replies count channels plus patterns; shard replies their own.
  size_t Count() const { return channels.size() + patterns.size(); }
  size_t Total() const { return Count() + shard_channels.size(); }
};

enum class PubSubSpace { kGlobal, kShard };

class PubSub {
 public:
  // Each returns true when the subscription changed (new, or removed).
  bool Subscribe(Client* c, PubSubSpace space, std::string_view channel);
  bool Unsubscribe(Client* c, PubSubSpace space, std::string_view channel);
  bool SubscribePattern(Client* c, std::string_view pattern);
  bool UnsubscribePattern(Client* c, std::string_view pattern);
  // Drops every subscription of c without replies (disconnect, RESET).
  void RemoveClient(Client* c);

  // Sends message to the channel's subscribers (and, for the global space, to clients whose
  // pattern matches) through server.DeliverPush. Returns the number of receiving
  // subscriptions, as PUBLISH replies.
  size_t Publish(Server& server, PubSubSpace space, std::string_view channel,
                 std::string_view message);
  // True if a publish to any global channel could reach anyone (notifications skip work).
  bool AnyGlobalListener() const { return !channels_.empty() || !patterns_.empty(); }

  size_t ChannelCount(PubSubSpace space) const { return Map(space).size(); }
  size_t PatternCount() const { return patterns_.size(); }
  size_t SubscriberCount(PubSubSpace space, std::string_view channel) const;
  // Channels with at least one subscriber (unordered).
  std::vector<std::string_view> Channels(PubSubSpace space) const;

 private:
  using Subscribers = std::vector<Client*>;
  using ChannelMap = std::unordered_map<std::string, Subscribers, PubSubNameHash, PubSubNameEq>;
  ChannelMap& Map(PubSubSpace s) { return s == PubSubSpace::kShard ? shard_channels_ : channels_; }
  const ChannelMap& Map(PubSubSpace s) const {
    return s == PubSubSpace::kShard ? shard_channels_ : channels_;
  }
  static void RemoveFrom(ChannelMap& map, std::string_view name, Client* c);

  ChannelMap channels_;
  ChannelMap shard_channels_;
  // Patterns are matched one by one against every published channel (as Valkey does), so a
  // flat vector is the fastest walk.
  struct PatternSubscribers {
    std::string pattern;
    Subscribers clients;
  };
  std::vector<PatternSubscribers> patterns_;
  std::string frame_;  // reused by Publish: no allocation per message once warm
};

// Replaces *f with the RESP2 frame of a message ("*3 message channel payload", "*4 pmessage
// pattern channel payload" when pattern is given); RESP3 subscribers get the same bytes with
// '>' for the first '*'.
void BuildPubSubFrame(std::string* f, std::string_view kind, const std::string_view* pattern,
                      std::string_view channel, std::string_view payload);

// True for the commands a RESP2 client may run while subscribed (name as in the table).
bool AllowedWhileSubscribed(std::string_view command_name);

}  // namespace vireo
