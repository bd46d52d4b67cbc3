#include "server/tracking.h"

#include <algorithm>
#include <cstdlib>

#include "commands/command_table.h"
#include "commands/key_finders.h"
#include "common/numbers.h"
#include "server/client.h"

namespace vireo {
namespace {

constexpr uint32_t kModeFlags =
    kClientTrackingBcast | kClientTrackingOptin | kClientTrackingOptout | kClientTrackingNoloop;

void AppendLen(std::string* out, char type, int64_t n) {
  char buf[24];
  buf[0] = type;
  size_t len = FormatInt64To(buf + 1, n) + 1;
  out->append(buf, len);
  out->append("\r\n", 2);
}

void AppendBulk(std::string* out, std::string_view s) {
  AppendLen(out, '$', static_cast<int64_t>(s.size()));
  out->append(s);
  out->append("\r\n", 2);
}

// One of the two names is a prefix of the other (so the same key could match both).
bool Overlap(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  return a.substr(0, n) == b.substr(0, n);
}

// A read-only script is not a read itself: the commands it runs record their keys.
bool IsReadOnlyScript(const std::string& name) {
  return name == "eval_ro" || name == "evalsha_ro" || name == "fcall_ro";
}

}  // namespace

std::string Tracking::CheckPrefixes(const Client& c,
                                    const std::vector<std::string_view>& prefixes) const {
  auto own = clients_.find(c.id);
  for (size_t i = 0; i < prefixes.size(); ++i) {
    if (own != clients_.end()) {
      for (const std::string& existing : own->second) {
        if (Overlap(existing, prefixes[i])) {
          return "Prefix '" + std::string(prefixes[i]) + "' overlaps with an existing prefix '" +
                 existing + "'. Prefixes for a single client must not overlap.";
        }
      }
    }
    for (size_t j = i + 1; j < prefixes.size(); ++j) {
      if (Overlap(prefixes[i], prefixes[j])) {
        return "Prefix '" + std::string(prefixes[i]) + "' overlaps with another provided prefix '" +
               std::string(prefixes[j]) + "'. Prefixes for a single client must not overlap.";
      }
    }
  }
  return {};
}

void Tracking::Enable(Client* c, uint64_t redirect, uint32_t options,
                      const std::vector<std::string_view>& prefixes) {
  auto& own = clients_[c->id];
  c->flags |= kClientTracking;
  c->flags &= ~(kClientTrackingBrokenRedir | kModeFlags);
  c->tracking_redirect = redirect;
  if (options & kClientTrackingBcast) {
    c->flags |= kClientTrackingBcast;
    auto add = [&](std::string_view p) {
      own.emplace(p);
      auto it = prefixes_.find(p);
      if (it == prefixes_.end()) it = prefixes_.emplace(std::string(p), Prefix{}).first;
      it->second.clients.insert(c->id);
    };
    if (prefixes.empty()) add("");
    for (std::string_view p : prefixes) add(p);
  }
  c->flags |= options & (kClientTrackingOptin | kClientTrackingOptout | kClientTrackingNoloop);
}

void Tracking::Disable(Client* c) {
  auto own = clients_.find(c->id);
  if (own != clients_.end()) {
    for (const std::string& p : own->second) {
      auto it = prefixes_.find(p);
      if (it == prefixes_.end()) continue;
      it->second.clients.erase(c->id);
      if (it->second.clients.empty()) prefixes_.erase(it);
    }
    clients_.erase(own);
  }
  c->flags &= ~(kClientTracking | kClientTrackingBrokenRedir | kClientTrackingCaching | kModeFlags);
}

std::vector<std::string> Tracking::PrefixesOf(const Client& c) const {
  auto own = clients_.find(c.id);
  if (own == clients_.end()) return {};
  return {own->second.begin(), own->second.end()};
}

void Tracking::RememberKeys(Client* c, const CommandSpec& spec,
                            const std::vector<std::string_view>& args) {
  if (c->flags & kClientTrackingBcast) return;
  const bool caching = (c->flags & kClientTrackingCaching) != 0;
  if ((c->flags & kClientTrackingOptin) && !caching) return;
  if ((c->flags & kClientTrackingOptout) && caching) return;
  // Shard channels are keys for cluster routing only: nothing to cache.
  if ((spec.flags & kCmdPubSub) || IsReadOnlyScript(spec.name)) return;
  std::vector<KeyRef> keys;
  CommandKeys(spec, args, &keys);
  for (const KeyRef& k : keys) {
    std::string_view key = args[static_cast<size_t>(k.pos)];
    auto it = keys_.find(key);
    if (it == keys_.end()) it = keys_.emplace(std::string(key), std::vector<uint64_t>{}).first;
    std::vector<uint64_t>& ids = it->second;
    if (std::find(ids.begin(), ids.end(), c->id) == ids.end()) {
      ids.push_back(c->id);
      ++items_;
    }
  }
}

void Tracking::Invalidate(std::string_view key, const Client* current, bool broadcast) {
  if (broadcast && !prefixes_.empty()) {
    const uint64_t by = current != nullptr ? current->id : 0;
    for (auto& [prefix, state] : prefixes_) {
      if (key.substr(0, prefix.size()) != prefix) continue;
      auto it = state.changed.find(key);
      if (it == state.changed.end()) {
        state.changed.emplace(std::string(key), by);
      } else {
        it->second = by;
      }
    }
  }
  auto it = keys_.find(key);
  if (it == keys_.end()) return;
  // Taken out of the table first: delivering may close clients, never re-enter here.
  std::vector<uint64_t> ids = std::move(it->second);
  items_ -= ids.size();
  std::string payload;
  AppendLen(&payload, '*', 1);
  AppendBulk(&payload, key);
  keys_.erase(it);
  for (uint64_t id : ids) {
    Client* target = hooks_.find(hooks_.owner, id);
    // A client that switched to BCAST since it read the key no longer expects these.
    if (target == nullptr || !(target->flags & kClientTracking) ||
        (target->flags & kClientTrackingBcast)) {
      continue;
    }
    if ((target->flags & kClientTrackingNoloop) && target == current) continue;
    Send(target, payload);
  }
}

void Tracking::InvalidateAll(uint64_t command_seq) {
  if (command_seq == last_flush_seq_) return;
  last_flush_seq_ = command_seq;
  std::vector<uint64_t> ids;
  ids.reserve(clients_.size());
  for (const auto& [id, prefixes] : clients_) ids.push_back(id);
  for (uint64_t id : ids) {
    Client* c = hooks_.find(hooks_.owner, id);
    // The null is in the tracking client's own protocol, even when redirected (as Valkey).
    if (c != nullptr) Send(c, c->resp == 3 ? "_\r\n" : "$-1\r\n");
  }
  keys_.clear();
  items_ = 0;
}

void Tracking::BroadcastPending() {
  for (auto& [prefix, state] : prefixes_) {
    if (state.changed.empty()) continue;
    std::map<std::string, uint64_t, std::less<>> changed;
    changed.swap(state.changed);
    std::string all;
    AppendLen(&all, '*', static_cast<int64_t>(changed.size()));
    for (const auto& [key, by] : changed) AppendBulk(&all, key);
    // Delivering cannot change the prefix table (clients are closed later, not here).
    for (uint64_t id : state.clients) {
      Client* c = hooks_.find(hooks_.owner, id);
      if (c == nullptr) continue;
      if (!(c->flags & kClientTrackingNoloop)) {
        Send(c, all);
        continue;
      }
      size_t n = 0;
      std::string own;
      for (const auto& [key, by] : changed) {
        if (by == c->id) continue;
        AppendBulk(&own, key);
        ++n;
      }
      if (n == 0) continue;
      std::string payload;
      AppendLen(&payload, '*', static_cast<int64_t>(n));
      payload += own;
      Send(c, payload);
    }
  }
}

void Tracking::EnforceLimit(int64_t max_keys) {
  if (max_keys <= 0 || keys_.size() <= static_cast<size_t>(max_keys)) {
    limit_effort_ = 0;
    return;
  }
  // Random keys go, as in Valkey (the newest, which begin() tends to give, is the one most
  // likely still in use), with bounded work per turn.
  int effort = 100 * (limit_effort_ + 1);
  while (effort-- > 0 && !keys_.empty()) {
    size_t bucket = static_cast<size_t>(random()) % keys_.bucket_count();
    while (keys_.bucket_size(bucket) == 0) bucket = (bucket + 1) % keys_.bucket_count();
    std::string key = keys_.begin(bucket)->first;
    Invalidate(key, nullptr, false);
    if (keys_.size() <= static_cast<size_t>(max_keys)) {
      limit_effort_ = 0;
      return;
    }
  }
  ++limit_effort_;
}

void Tracking::Send(Client* c, std::string_view payload) {
  Client* dest = c;
  bool redirected = false;
  if (c->tracking_redirect != 0) {
    dest = hooks_.find(hooks_.owner, c->tracking_redirect);
    if (dest == nullptr) {
      // The client learns that its cache can no longer be kept valid (RESP3 only).
      c->flags |= kClientTrackingBrokenRedir;
      if (c->resp == 3) {
        frame_ = "*2\r\n$21\r\ntracking-redir-broken\r\n";
        AppendLen(&frame_, ':', static_cast<int64_t>(c->tracking_redirect));
        hooks_.deliver(hooks_.owner, c, frame_);
      }
      return;
    }
    redirected = true;
  }
  if (dest->resp == 3) {
    frame_ = "*2\r\n$10\r\ninvalidate\r\n";
  } else if (redirected && (dest->flags & kClientPubSub)) {
    // RESP2 has no pushes: a subscribed redirect target gets a Pub/Sub message instead.
    frame_ = "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n";
  } else {
    return;  // a RESP2 connection without a redirect cannot be told anything
  }
  frame_ += payload;
  hooks_.deliver(hooks_.owner, dest, frame_);
}

}  // namespace vireo
