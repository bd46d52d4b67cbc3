// What a command handler gets: the server's state, the calling client's session, the parsed
// arguments and a reply builder. Handlers never touch sockets.
#pragma once

#include <string_view>
#include <vector>

#include "protocol/reply_builder.h"
#include "server/client.h"
#include "store/db.h"

namespace vireo {

class Server;

struct CommandContext {
  Server& server;
  Client& client;
  const std::vector<std::string_view>& args;
  ReplyBuilder& reply;
  Db* db;

  size_t argc() const { return args.size(); }
  std::string_view arg(size_t i) const { return args[i]; }

  // The single place a write's side effects happen (dirty counter now; WATCH, keyspace
  // notifications and propagation attach here as they land).
  void KeyModified(Db* target, std::string_view key, int changes = 1);
  // A write that touched no single key (FLUSHDB, SWAPDB, ...).
  void Dirty(int changes = 1);
};

}  // namespace vireo
