// A connected client: its connection plus the session state commands read and change
// (database, protocol version, authentication, name, reply mode).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "acl/user.h"
#include "net/connection.h"
#include "net/event_loop.h"
#include "protocol/reply_builder.h"
#include "protocol/request_parser.h"
#include "server/blocking.h"
#include "server/pubsub.h"
#include "server/transaction.h"

namespace vireo {

struct CommandSpec;

enum ClientFlag : uint32_t {
  kClientMonitor = 1u << 0,
  kClientCloseAfterReply = 1u << 1,  // QUIT, protocol errors: close once the reply is out
  kClientCloseAsap = 1u << 2,        // CLIENT KILL, limits: close without flushing
  kClientReplyOff = 1u << 3,
  kClientReplySkipNext = 1u << 4,    // CLIENT REPLY SKIP: the next command's reply is dropped
  kClientReplySkip = 1u << 5,        // the current command's reply is dropped
  kClientNoEvict = 1u << 6,
  kClientUnixSocket = 1u << 7,
  kClientPaused = 1u << 8,           // input processing suspended (CLIENT PAUSE)
  kClientPendingWrite = 1u << 9,     // in the server's list of clients to flush
  kClientNoTouch = 1u << 10,
  kClientBlocked = 1u << 11,         // waiting on keys (block holds the wait)
  kClientDenyBlocking = 1u << 12,    // inside MULTI/EXEC or a script: blocking commands answer at once
  kClientTracking = 1u << 13,        // CLIENT TRACKING ON (CLIENT LIST flag t)
  kClientTrackingBrokenRedir = 1u << 14,  // its redirect target is gone (flag R)
  kClientTrackingBcast = 1u << 15,   // BCAST mode (flag B)
  kClientTrackingOptin = 1u << 16,
  kClientTrackingOptout = 1u << 17,
  kClientTrackingCaching = 1u << 18,  // CLIENT CACHING given for the next command/transaction
  kClientTrackingNoloop = 1u << 19,
  kClientPubSub = 1u << 20,          // has subscriptions (RESP2 subscribed mode, flag P)
  kClientMulti = 1u << 21,           // between MULTI and EXEC/DISCARD (multi holds the queue)
  kClientDirtyCas = 1u << 22,        // a WATCHed key changed: EXEC will answer null
  kClientDirtyExec = 1u << 23,       // a command was refused while queuing: EXEC aborts
  kClientIoQueued = 1u << 24,        // its read is in the batch for the I/O threads
  kClientReplica = 1u << 25,         // a replica of this server (after PSYNC/SYNC)
  kClientMaster = 1u << 26,          // this replica's link to its master
  kClientAsking = 1u << 27,          // ASKING: the next command may use an importing slot
  kClientReadOnlyReplica = 1u << 28,  // READONLY: reads served by a replica (cluster or CAPA)
  kClientAclRestricted = 1u << 29,   // its user is not allowed everything: commands get ACL checks
  kClientScript = 1u << 30,          // the scripting engine's client: runs EVAL/FCALL's calls
  kClientCapaRedirect = 1u << 31,    // CLIENT CAPA redirect: a replica answers -REDIRECT
};

struct SlotMigrationJob;

struct Client {
  Client(uint64_t id_, int fd) : id(id_), conn(fd), reply(conn.Output()) {
    reply.SetConnection(&conn);
  }

  uint64_t id;
  Connection conn;
  IoWatcher watcher;
  RequestParser parser;
  std::vector<std::string_view> args;  // the command being executed
  size_t request_bytes = 0;  // the bytes it arrived in (COMMANDLOG's large-request log)
  // Cluster mode: the hash slot of the command's keys (set by Cluster::Redirect), -1 when it
  // has none. CLUSTER SLOT-STATS charges the command to it.
  int slot = -1;
  // CLUSTER SLOT-STATS: MULTI's request bytes, charged to the slot of the EXEC that follows.
  size_t slot_stats_multi_bytes = 0;
  // CLUSTER SLOT-STATS: the command came inline (set only while the stats are on).
  bool inline_request = false;
  // Commands of a pipeline parsed ahead of their turn (Server::ProcessInput), kept here so
  // their vectors are reused rather than allocated per read.
  static constexpr size_t kLookAhead = 8;
  // A prefetched bucket has arrived this many commands later; its first entry is prefetched
  // then (a second miss overlapped), and for the first this many commands of a read at once.
  static constexpr size_t kEntryDistance = 3;
  std::vector<std::string_view> ahead[kLookAhead];
  // io-threads > 1: the commands an I/O thread parsed at the front of the input, in ahead[0..
  // io_parsed) with their byte sizes; ProcessInput starts from them. io_parse_stopped: the
  // I/O thread met something only the client's own parser takes.
  uint8_t io_parsed = 0;
  bool io_parse_stopped = false;
  size_t io_parsed_bytes[kLookAhead];
  // io_hashed: Server::PrefetchReadBatch hashed (and prefetched) each parsed command's key,
  // io_hash[i] of ahead[i][1], so ProcessInput neither hashes nor prefetches them again.
  bool io_hashed = false;
  uint64_t io_hash[kLookAhead];
  // The last command name looked up, byte for byte as sent, and its table entry: a pipeline
  // repeats names, and comparing a few bytes is cheaper than the table's case-folding lookup.
  char cached_cmd_name[16];
  size_t cached_cmd_len = 0;
  const CommandSpec* cached_cmd = nullptr;
  ReplyBuilder reply;
  std::string discard;  // replies of CLIENT REPLY OFF/SKIP go here and are dropped

  uint32_t flags = 0;
  int db_index = 0;
  int resp = 2;
  bool authenticated = false;
  // A TLS client's certificate was looked at for tls-auth-clients-user (once, after the
  // handshake).
  bool tls_peer_checked = false;
  // The ACL user (acl/); nullptr for internal clients (AOF loading, master link), which may
  // run anything. Set through Server::SetClientUser, which keeps kClientAclRestricted right.
  std::shared_ptr<User> acl_user;
  const std::string& UserName() const {
    static const std::string kDefault = "default";
    return acl_user != nullptr ? acl_user->name() : kDefault;
  }
  std::string name;
  std::string lib_name;
  std::string lib_ver;
  std::string addr;   // peer "ip:port"
  std::string laddr;  // local "ip:port"
  int64_t ctime_ms = 0;
  int64_t last_interaction_ms = 0;
  // Name of the last command run (CLIENT LIST cmd=); points into the command table, so
  // recording it per command costs no copy.
  const std::string* last_cmd = nullptr;
  uint64_t commands = 0;  // commands completed (CLIENT LIST tot-cmds)
  // The replication offset after this client's last propagated write: what WAIT and WAITAOF
  // wait for.
  int64_t woff = 0;
  bool watching_writable = false;
  // Its pass ended at the pass budget with commands left in its input (Server::kPassBudget):
  // they run first in the next turn, before its socket is read again.
  bool yielded = false;
  std::unique_ptr<BlockState> block;  // set while the client waits on keys
  std::unique_ptr<ClientSubscriptions> subs;  // Pub/Sub subscriptions, once it subscribed
  std::unique_ptr<MultiState> multi;  // MULTI queue and WATCHed keys, once it used either
  int64_t obuf_soft_since_ms = 0;  // when the output buffer went over its soft limit
  int64_t mem_accounted = 0;  // its share of the client memory total (maxmemory-clients)
  uint64_t tracking_redirect = 0;  // CLIENT TRACKING REDIRECT id (0: none)
  // The atomic slot migration this connection carries (cluster/slot_migration.h): the export
  // link on the source, the import link on the target. Its replies are dropped.
  SlotMigrationJob* migration = nullptr;
};

// Bytes of reply built in out, one of c's outputs (differences measure a reply): with the
// references to large values queued on the connection, which only its own buffer gets, so
// they change nothing for another output's difference.
inline size_t ReplyBytes(Client& c, const std::string* out) {
  return out->size() + c.conn.RefBytes();
}

}  // namespace vireo
