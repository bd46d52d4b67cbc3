#include "server/pubsub.h"

#include <algorithm>

#include "common/glob.h"
#include "common/hash.h"
#include "common/numbers.h"
#include "server/client.h"
#include "server/server.h"

namespace vireo {
namespace {

void AppendBulk(std::string* out, std::string_view s) {
  char buf[24];
  buf[0] = '$';
  size_t n = FormatInt64To(buf + 1, static_cast<int64_t>(s.size())) + 1;
  out->append(buf, n);
  out->append("\r\n", 2);
  out->append(s);
  out->append("\r\n", 2);
}

ClientSubscriptions& SubsOf(Client* c) {
  if (!c->subs) c->subs = std::make_unique<ClientSubscriptions>();
  return *c->subs;
}

// Keeps the client's "subscribed" flag (RESP2 subscribed mode, CLIENT LIST's P) in step
// with its subscription count.
void UpdateFlag(Client* c) {
  if (c->subs && c->subs->Total() > 0) {
    c->flags |= kClientPubSub;
  } else {
    c->flags &= ~kClientPubSub;
  }
}

}  // namespace

size_t PubSubNameHash::operator()(std::string_view s) const {
  return static_cast<size_t>(HashBytes(s));
}

void BuildPubSubFrame(std::string* f, std::string_view kind, const std::string_view* pattern,
                      std::string_view channel, std::string_view payload) {
  f->clear();
  f->append(pattern == nullptr ? "*3\r\n" : "*4\r\n");
  AppendBulk(f, kind);
  if (pattern != nullptr) AppendBulk(f, *pattern);
  AppendBulk(f, channel);
  AppendBulk(f, payload);
}

bool AllowedWhileSubscribed(std::string_view name) {
  static constexpr std::string_view kAllowed[] = {
      "ping", "subscribe", "ssubscribe", "psubscribe", "unsubscribe",
      "sunsubscribe", "punsubscribe", "quit", "reset"};
  return std::find(std::begin(kAllowed), std::end(kAllowed), name) != std::end(kAllowed);
}

bool PubSub::Subscribe(Client* c, PubSubSpace space, std::string_view channel) {
  ClientSubscriptions& subs = SubsOf(c);
  PubSubNameSet& mine = space == PubSubSpace::kShard ? subs.shard_channels : subs.channels;
  if (!mine.emplace(channel).second) return false;
  ChannelMap& map = Map(space);
  auto it = map.find(channel);
  if (it == map.end()) it = map.emplace(std::string(channel), Subscribers{}).first;
  it->second.push_back(c);
  UpdateFlag(c);
  return true;
}

void PubSub::RemoveFrom(ChannelMap& map, std::string_view name, Client* c) {
  auto it = map.find(name);
  if (it == map.end()) return;
  Subscribers& v = it->second;
  // Linear in the channel's subscribers; the order of delivery is not promised, so the last
  // one fills the hole.
  auto pos = std::find(v.begin(), v.end(), c);
  if (pos != v.end()) {
    *pos = v.back();
    v.pop_back();
  }
  if (v.empty()) map.erase(it);
}

bool PubSub::Unsubscribe(Client* c, PubSubSpace space, std::string_view channel) {
  if (!c->subs) return false;
  PubSubNameSet& mine = space == PubSubSpace::kShard ? c->subs->shard_channels : c->subs->channels;
  auto it = mine.find(channel);
  if (it == mine.end()) return false;
  RemoveFrom(Map(space), channel, c);
  mine.erase(it);
  UpdateFlag(c);
  return true;
}

bool PubSub::SubscribePattern(Client* c, std::string_view pattern) {
  ClientSubscriptions& subs = SubsOf(c);
  if (!subs.patterns.emplace(pattern).second) return false;
  auto it = std::find_if(patterns_.begin(), patterns_.end(),
                         [&](const PatternSubscribers& p) { return p.pattern == pattern; });
  if (it == patterns_.end()) {
    patterns_.push_back({std::string(pattern), {}});
    it = patterns_.end() - 1;
  }
  it->clients.push_back(c);
  UpdateFlag(c);
  return true;
}

bool PubSub::UnsubscribePattern(Client* c, std::string_view pattern) {
  if (!c->subs) return false;
  auto mine = c->subs->patterns.find(pattern);
  if (mine == c->subs->patterns.end()) return false;
  auto it = std::find_if(patterns_.begin(), patterns_.end(),
                         [&](const PatternSubscribers& p) { return p.pattern == pattern; });
  if (it != patterns_.end()) {
    Subscribers& v = it->clients;
    auto pos = std::find(v.begin(), v.end(), c);
    if (pos != v.end()) {
      *pos = v.back();
      v.pop_back();
    }
    if (v.empty()) {
      *it = std::move(patterns_.back());
      patterns_.pop_back();
    }
  }
  c->subs->patterns.erase(mine);
  UpdateFlag(c);
  return true;
}

void PubSub::RemoveClient(Client* c) {
  if (!c->subs) return;
  ClientSubscriptions& subs = *c->subs;
  for (const std::string& ch : subs.channels) RemoveFrom(channels_, ch, c);
  for (const std::string& ch : subs.shard_channels) RemoveFrom(shard_channels_, ch, c);
  std::vector<std::string> patterns(subs.patterns.begin(), subs.patterns.end());
  for (const std::string& p : patterns) UnsubscribePattern(c, p);
  c->subs.reset();
  UpdateFlag(c);
}

size_t PubSub::Publish(Server& server, PubSubSpace space, std::string_view channel,
                       std::string_view message) {
  size_t receivers = 0;
  ChannelMap& map = Map(space);
  auto it = map.find(channel);
  if (it != map.end()) {
    // Built once; every subscriber gets the same bytes (first byte per protocol).
    BuildPubSubFrame(&frame_, space == PubSubSpace::kShard ? "smessage" : "message", nullptr,
                     channel, message);
    // Delivery may close a client over its output limit, which never unsubscribes it here
    // (that happens when it is freed later), so the vector does not change under us.
    for (Client* c : it->second) server.DeliverPush(c, frame_);
    receivers += it->second.size();
  }
  if (space == PubSubSpace::kGlobal) {
    for (const PatternSubscribers& p : patterns_) {
      if (!GlobMatch(p.pattern, channel)) continue;
      std::string_view pattern = p.pattern;
      BuildPubSubFrame(&frame_, "pmessage", &pattern, channel, message);
      for (Client* c : p.clients) server.DeliverPush(c, frame_);
      receivers += p.clients.size();
    }
  }
  return receivers;
}

size_t PubSub::SubscriberCount(PubSubSpace space, std::string_view channel) const {
  const ChannelMap& map = Map(space);
  auto it = map.find(channel);
  return it == map.end() ? 0 : it->second.size();
}

std::vector<std::string_view> PubSub::Channels(PubSubSpace space) const {
  std::vector<std::string_view> out;
  for (const auto& [name, clients] : Map(space)) out.push_back(name);
  return out;
}

}  // namespace vireo
