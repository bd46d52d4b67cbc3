#include "server/blocking.h"

#include <cmath>
#include <cstring>

#include "common/numbers.h"
#include "server/client.h"

namespace vireo {
namespace {

// As Valkey: milliseconds rounded up, then range checks so now + timeout cannot overflow.
// The limit is 2^63, not INT64_MAX: where long double is a plain double (armhf), INT64_MAX
// rounds up to 2^63, which would pass `>` and then overflow the conversion to int64_t.
bool DeadlineFrom(long double ms, int64_t now_ms, int64_t* deadline_ms, std::string* error) {
  if (std::ceil(ms) >= 0x1p63L) {
    *error = "timeout is out of range";
    return false;
  }
  if (ms < 0) {
    *error = "timeout is negative";
    return false;
  }
  int64_t whole = static_cast<int64_t>(std::ceil(ms));
  if (whole == 0) {
    *deadline_ms = 0;
    return true;
  }
  if (whole > INT64_MAX - now_ms) {
    *error = "timeout is out of range";
    return false;
  }
  *deadline_ms = now_ms + whole;
  return true;
}

}  // namespace

bool ParseBlockTimeout(std::string_view arg, int64_t now_ms, int64_t* deadline_ms,
                       std::string* error) {
  long double seconds;
  if (!ParseLongDouble(arg, &seconds) || std::isnan(seconds)) {
    *error = "timeout is not a float or out of range";
    return false;
  }
  return DeadlineFrom(seconds * 1000, now_ms, deadline_ms, error);
}

bool ParseBlockTimeoutMs(std::string_view arg, int64_t now_ms, int64_t* deadline_ms,
                         std::string* error) {
  int64_t ms;
  if (!ParseInt64(arg, &ms)) {
    *error = "timeout is not an integer or out of range";
    return false;
  }
  return DeadlineFrom(static_cast<long double>(ms), now_ms, deadline_ms, error);
}

std::string BlockingRegistry::MapKey(int db, std::string_view key) {
  std::string k(sizeof(int), '\0');
  std::memcpy(k.data(), &db, sizeof(int));
  k.append(key);
  return k;
}

void BlockingRegistry::Add(Client* c) {
  const BlockState& b = *c->block;
  for (const std::string& key : b.keys) {
    Waiting& w = waiters_[MapKey(b.db, key)];
    // A client naming a key twice (BLPOP k k 0) waits once on it.
    bool present = false;
    for (Client* other : w.clients) present |= other == c;
    if (present) continue;
    w.clients.push_back(c);
    if (b.unblock_on_nokey && w.nokey++ == 0) ++nokey_keys_;
  }
  if (b.deadline_ms != 0) deadlines_.emplace(b.deadline_ms, c);
  ++clients_;
}

void BlockingRegistry::Remove(Client* c) {
  const BlockState& b = *c->block;
  for (const std::string& key : b.keys) {
    auto it = waiters_.find(MapKey(b.db, key));
    if (it == waiters_.end()) continue;
    Waiting& w = it->second;
    size_t before = w.clients.size();
    w.clients.remove(c);
    if (w.clients.size() != before && b.unblock_on_nokey && --w.nokey == 0) --nokey_keys_;
    if (w.clients.empty()) waiters_.erase(it);
  }
  if (b.deadline_ms != 0) deadlines_.erase({b.deadline_ms, c});
  --clients_;
}

void BlockingRegistry::MarkReadySlow(int db, std::string_view key) {
  std::string k = MapKey(db, key);
  if (waiters_.count(k) == 0 || !ready_set_.insert(k).second) return;
  ready_.emplace_back(db, std::string(key));
}

void BlockingRegistry::MarkDbReady(int db) {
  std::vector<std::pair<int, std::string>> keys;
  for (const auto& [k, w] : waiters_) {
    int kdb;
    std::memcpy(&kdb, k.data(), sizeof(int));
    if (db < 0 || kdb == db) keys.emplace_back(kdb, k.substr(sizeof(int)));
  }
  for (const auto& [kdb, key] : keys) MarkReadySlow(kdb, key);
}

std::vector<std::pair<int, std::string>> BlockingRegistry::TakeReady() {
  std::vector<std::pair<int, std::string>> out;
  out.swap(ready_);
  ready_set_.clear();
  return out;
}

std::vector<Client*> BlockingRegistry::Waiters(int db, std::string_view key) const {
  auto it = waiters_.find(MapKey(db, key));
  if (it == waiters_.end()) return {};
  return {it->second.clients.begin(), it->second.clients.end()};
}

std::vector<Client*> BlockingRegistry::Expired(int64_t now_ms) const {
  std::vector<Client*> out;
  for (const auto& [deadline, c] : deadlines_) {
    if (deadline > now_ms) break;
    out.push_back(c);
  }
  return out;
}

}  // namespace vireo
