#include "server/notify.h"

#include "store/db.h"

namespace vireo {
namespace {

void OnKeyExpired(int db, std::string_view key) {
  Server* server = TheServer();
  if (server == nullptr) return;
  // The AOF and replicas delete it too (DEL, or UNLINK under lazyfree-lazy-expire).
  PropagateDeletion(*server, db, key, server->config().lazyfree_lazy_expire);
  // A watched key that expires fails the watcher's EXEC from now on (CLIENT LIST flag d).
  server->watches().Touch(server->db(db), key);
  // Clients caching it must drop it (a NOLOOP client whose own read expired it excepted).
  if (server->tracking().Armed()) server->tracking().Invalidate(key, server->executing());
  NotifyKeyspaceEvent(*server, kNotifyExpired, "expired", db, key);
}

void OnKeyAdded(int db, std::string_view key) {
  Server* server = TheServer();
  if (server != nullptr) NotifyKeyspaceEvent(*server, kNotifyNew, "new", db, key);
}

void OnKeyMissed(int db, std::string_view key) {
  Server* server = TheServer();
  if (server != nullptr) NotifyKeyspaceEvent(*server, kNotifyKeyMiss, "keymiss", db, key);
}

}  // namespace

void PublishKeyspaceEvent(Server& server, uint32_t type, std::string_view event, int db,
                          std::string_view key) {
  (void)type;
  const uint32_t flags = server.config().notify_keyspace_events;
  PubSub& pubsub = server.pubsub();
  // Nobody could hear it: skip building the channel names.
  if (!pubsub.AnyGlobalListener()) return;
  std::string channel;
  channel.reserve(24 + key.size() + event.size());
  if (flags & kNotifyKeyspace) {
    channel = "__keyspace@";
    channel += std::to_string(db);
    channel += "__:";
    channel += key;
    pubsub.Publish(server, PubSubSpace::kGlobal, channel, event);
  }
  if (flags & kNotifyKeyevent) {
    channel = "__keyevent@";
    channel += std::to_string(db);
    channel += "__:";
    channel += event;
    pubsub.Publish(server, PubSubSpace::kGlobal, channel, key);
  }
}

void InstallKeyspaceEventHooks() {
  Db::SetExpiredHook(&OnKeyExpired);
  Db::SetAddedHook(&OnKeyAdded);
  Db::SetMissHook(&OnKeyMissed);
}

}  // namespace vireo
