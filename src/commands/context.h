// What a command handler gets: the server's state, the calling client's session, the parsed
// arguments and a reply builder. Handlers never touch sockets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_builder.h"
#include "server/blocking.h"
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
  // Before a whole database changes at once: emptied (FLUSHDB, FLUSHALL) or given
  // replaced_with's contents (SWAPDB, once per side). Invalidates WATCHes of keys that change.
  void DbReplaced(Db* emptied, Db* replaced_with = nullptr);

  // Propagation to the AOF and replicas (server/propagate.h). By default a command that
  // changed data propagates its own arguments. Propagating() is false when nothing listens:
  // check it before building arguments. PropagateAs replaces this command's arguments (an
  // absolute expiry, SREM for SPOP, ...); AlsoPropagate adds a command in target's database;
  // NoPropagate drops this command's own (what it added with AlsoPropagate stays).
  bool Propagating() const;
  void PropagateAs(std::vector<std::string> rewritten);
  void AlsoPropagate(Db* target, std::vector<std::string> extra);
  void NoPropagate();

  // Blocking commands. CanBlock is false inside MULTI/EXEC and scripts, where a blocking
  // command must answer at once as if its timeout had passed.
  bool CanBlock() const;
  // Parks the client on keys (of ctx.db) until one holds a value of `type` (KeyModified on it
  // makes it ready), then runs the same command again from scratch, so it may serve or block
  // again; at deadline_ms (unix ms, 0 = never) the client gets the `on_timeout` null. The
  // handler must not reply after calling Block. rewritten_args, when given, is the command
  // to run again instead of args (XREAD turns "$" into the ID it meant when it blocked).
  void Block(const std::vector<std::string_view>& keys, int64_t deadline_ms, ObjType type,
             BlockTimeoutReply on_timeout, bool unblock_on_nokey = false,
             const std::vector<std::string>* rewritten_args = nullptr);
};

}  // namespace vireo
