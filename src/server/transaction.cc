#include "server/transaction.h"

#include <algorithm>

#include "acl/permission.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "common/numbers.h"
#include "server/client.h"
#include "server/server.h"
#include "store/db.h"

namespace vireo {
namespace {

MultiState& EnsureMultiState(Client* c) {
  if (c->multi == nullptr) c->multi = std::make_unique<MultiState>();
  return *c->multi;
}

// The commands that act on the transaction or the connection itself: never queued.
bool RunsInsideMulti(const CommandSpec* spec) {
  const std::string& n = spec->name;
  return n == "exec" || n == "discard" || n == "quit" || n == "reset";
}

// Takes back the count of an error reply that is being replaced by another (a refused EXEC's
// reason becomes part of its EXECABORT), so INFO errorstats counts only what was sent.
void UncountErrorReply(Server& server, std::string_view msg) {
  ServerStats& st = server.stats();
  if (st.total_error_replies > 0) --st.total_error_replies;
  size_t sp = msg.find(' ');
  auto it = st.error_codes.find(std::string(msg.substr(0, sp)));
  if (it != st.error_codes.end() && --it->second == 0) st.error_codes.erase(it);
}

}  // namespace

// --- WatchRegistry --------------------------------------------------------------------------

WatchRegistry::KeyWatchers* WatchRegistry::ForDb(int db) {
  if (static_cast<size_t>(db) >= dbs_.size()) dbs_.resize(static_cast<size_t>(db) + 1);
  return &dbs_[static_cast<size_t>(db)];
}

void WatchRegistry::Watch(Client* c, Db* db, std::string_view key) {
  MultiState& m = EnsureMultiState(c);
  KeyWatchers& map = *ForDb(db->index());
  auto it = map.find(key);
  if (it != map.end()) {
    for (const Watcher& w : it->second) {
      if (w.client == c) return;
    }
  }
  if (m.watched.empty()) ++clients_;
  if (it == map.end()) {
    it = map.emplace(std::string(key), std::vector<Watcher>()).first;
    ++keys_;
  }
  it->second.push_back({c, static_cast<uint32_t>(m.watched.size())});
  const Entry* e = db->FindRaw(key);
  const bool expired = e != nullptr && Db::IsExpired(e);
  m.watched.push_back({db->index(), std::string(key), e != nullptr && !expired, expired});
}

void WatchRegistry::UnwatchAll(Client* c) {
  if (c->multi == nullptr || c->multi->watched.empty()) return;
  for (const WatchedKey& wk : c->multi->watched) {
    KeyWatchers& map = dbs_[static_cast<size_t>(wk.db)];
    auto it = map.find(wk.key);
    if (it == map.end()) continue;
    std::vector<Watcher>& v = it->second;
    v.erase(std::remove_if(v.begin(), v.end(), [c](const Watcher& w) { return w.client == c; }),
            v.end());
    if (v.empty()) {
      map.erase(it);
      --keys_;
    }
  }
  c->multi->watched.clear();
  --clients_;
}

void WatchRegistry::TouchSlow(Db* db, std::string_view key) {
  if (static_cast<size_t>(db->index()) >= dbs_.size()) return;
  KeyWatchers& map = dbs_[static_cast<size_t>(db->index())];
  auto it = map.find(key);
  if (it == map.end()) return;
  std::vector<Client*> dirty;
  for (const Watcher& w : it->second) {
    WatchedKey& wk = w.client->multi->watched[w.index];
    // A key already expired at WATCH time that is now gone has not logically changed.
    if (wk.expired && db->FindRaw(key) == nullptr) {
      wk.expired = false;
      continue;
    }
    dirty.push_back(w.client);
  }
  // Marked clients stop watching: nothing can save their EXEC, and later writes to their other
  // keys need not find them (this changes `it`'s vector, so after the loop).
  for (Client* c : dirty) {
    c->flags |= kClientDirtyCas;
    UnwatchAll(c);
  }
}

void WatchRegistry::TouchDb(Db* emptied, Db* replaced_with) {
  if (keys_ == 0 || static_cast<size_t>(emptied->index()) >= dbs_.size()) return;
  for (auto& [key, watchers] : dbs_[static_cast<size_t>(emptied->index())]) {
    const Entry* before = emptied->FindRaw(key);
    const Entry* after = replaced_with != nullptr ? replaced_with->FindRaw(key) : nullptr;
    if (before == nullptr && after == nullptr) continue;
    for (const Watcher& w : watchers) {
      WatchedKey& wk = w.client->multi->watched[w.index];
      if (wk.expired) {
        if (after == nullptr) {  // the expired key goes: no logical change
          wk.expired = false;
          continue;
        }
        if (Db::IsExpired(after)) continue;  // expired before, expired after
      } else if (before == nullptr && Db::IsExpired(after)) {
        wk.expired = true;  // nothing replaced by an already expired key
        continue;
      }
      // Valkey keeps these clients' watches (it is iterating them); so do we, for INFO.
      w.client->flags |= kClientDirtyCas;
    }
  }
}

bool WatchRegistry::WatchedKeyExpired(Server& server, const Client* c) const {
  if (c->multi == nullptr) return false;
  for (const WatchedKey& wk : c->multi->watched) {
    if (!wk.existed || wk.expired) continue;
    const Entry* e = server.db(wk.db)->FindRaw(wk.key);
    if (e == nullptr || Db::IsExpired(e)) return true;
  }
  return false;
}

// --- Queueing and refusals ------------------------------------------------------------------

bool QueueInMulti(Server& server, Client* c, const CommandSpec* spec) {
  if (RunsInsideMulti(spec)) return false;
  MultiState& m = EnsureMultiState(c);
  QueuedCommand& q = m.queue.emplace_back();
  q.spec = spec;
  q.args.reserve(c->args.size());
  for (std::string_view a : c->args) {
    q.args.emplace_back(a);
    m.queued_bytes += a.size();
  }
  m.queued_flags |= spec->flags;
  if (int target = SelectTarget(*spec, c->args, server.db_count()); target >= 0) m.db = target;
  c->last_cmd = &spec->name;  // CLIENT LIST shows the queued command, as Valkey does
  c->reply.Simple("QUEUED");
  return true;
}

RejectionGuard::RejectionGuard(Server& server, Client* c)
    : server_(server), client_(c), reply_mark_(c->reply.Output()->size()) {}

void RejectionGuard::OnRejected() {
  Client* c = client_;
  if (c->args.empty() || !EqualsIgnoreCase(c->args[0], "exec")) {
    if (c->flags & kClientMulti) c->flags |= kClientDirtyExec;
    return;
  }
  // A refused EXEC (extra arguments, NOAUTH, ...) ends the transaction, inside MULTI or not,
  // and its reason becomes "EXECABORT Transaction discarded because of: <reason>", where
  // Valkey's reason has no "ERR " (other codes stay).
  std::string* out = c->reply.Output();
  if (out->size() < reply_mark_ + 3 || (*out)[reply_mark_] != '-') return;
  std::string reason = out->substr(reply_mark_ + 1, out->size() - reply_mark_ - 3);
  out->resize(reply_mark_);
  UncountErrorReply(server_, reason);
  DiscardTransaction(server_, c);
  std::string_view shown = reason;
  if (shown.substr(0, 4) == "ERR ") shown.remove_prefix(4);
  c->reply.Error(std::string(errors::kExecAbortPrefix) + std::string(shown));
}

void DiscardTransaction(Server& server, Client* c) {
  c->flags &= ~(kClientMulti | kClientDirtyCas | kClientDirtyExec);
  if (c->multi == nullptr) return;
  server.watches().UnwatchAll(c);
  c->multi.reset();
}

int MultiQueueLength(const Client& c) {
  if (!(c.flags & kClientMulti)) return -1;
  return c.multi == nullptr ? 0 : static_cast<int>(c.multi->queue.size());
}

size_t MultiMemory(const Client& c) {
  if (c.multi == nullptr) return 0;
  const MultiState& m = *c.multi;
  size_t mem = m.queued_bytes + m.queue.capacity() * sizeof(QueuedCommand);
  for (const QueuedCommand& q : m.queue) mem += q.args.capacity() * sizeof(std::string);
  for (const WatchedKey& wk : m.watched) mem += sizeof(WatchedKey) + wk.key.size();
  return mem;
}

// --- CommandContext -------------------------------------------------------------------------

void CommandContext::DbReplaced(Db* emptied, Db* replaced_with) {
  server.watches().TouchDb(emptied, replaced_with);
  // Keys waited on may be gone (XREADGROUP answers NOGROUP) or hold a value now (BLPOP).
  server.blocking().MarkDbReady(emptied->index());
  // A flush (not SWAPDB, as in Valkey) tells tracking clients to drop their whole cache.
  if (replaced_with == nullptr) {
    server.tracking().InvalidateAll(server.stats().total_commands_processed);
  }
}

}  // namespace vireo
