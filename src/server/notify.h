// Keyspace notifications (notify-keyspace-events): "__keyspace@<db>__:<key>" carries the
// event name, "__keyevent@<db>__:<event>" carries the key, published as Pub/Sub messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "commands/context.h"
#include "server/notify_flags.h"
#include "server/server.h"

namespace vireo {

// Publishes the event unless its class is off. The check is inline: one branch per call
// while notifications are off (the default). `type` is one class flag (kNotifyString, ...).
void PublishKeyspaceEvent(Server& server, uint32_t type, std::string_view event, int db,
                          std::string_view key);
inline void NotifyKeyspaceEvent(Server& server, uint32_t type, std::string_view event, int db,
                                std::string_view key) {
  if (server.config().notify_keyspace_events & type) {
    PublishKeyspaceEvent(server, type, event, db, key);
  }
}

// The form handlers use: the event for key in db (usually ctx.db).
inline void NotifyKeyspaceEvent(CommandContext& ctx, uint32_t type, std::string_view event,
                                Db* db, std::string_view key) {
  NotifyKeyspaceEvent(ctx.server, type, event, db->index(), key);
}

// Installs the store hooks that fire "expired" and "new".
void InstallKeyspaceEventHooks();

}  // namespace vireo
