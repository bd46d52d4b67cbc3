// Atomic slot migration (Valkey 9.0's CLUSTER MIGRATESLOTS): a primary moves whole hash slots
// to another primary without ASK redirections, key-by-key MIGRATE or TRYAGAIN.
//
// The source connects to the target's client port (AUTH with primaryuser/primaryauth), sends
// CLUSTER SYNCSLOTS ESTABLISH and from then on both sides treat the connection as a client
// whose replies are dropped: what each side tells the other travels as CLUSTER SYNCSLOTS
// commands (SNAPSHOT-EOF, REQUEST-PAUSE, PAUSED, REQUEST-FAILOVER, FAILOVER-GRANTED, ACK).
//
//   source                                   target
//   ESTABLISH ...                     ->     import job, keys of the slots hidden from
//   snapshot of the slots as commands ->     clients and applied (and replicated) as they come
//   (fork-less CowSnapshot; writes to the slots meanwhile are captured from propagation)
//   SNAPSHOT-EOF, captured writes     ->
//                                     <-     REQUEST-PAUSE
//   waits until the stream is drained, holds writes to the migrating slots only
//   PAUSED                            ->
//                                     <-     REQUEST-FAILOVER
//   FAILOVER-GRANTED                  ->     takes the slots in a new config epoch, broadcasts
//   sees the target own the slots: deletes its copies, releases the held writes (MOVED)
//
// Any failure before the hand-off leaves the source owning everything and the target drops
// the keys it received (propagated to its replicas as deletions). Execution thread only.
#pragma once

#include <bitset>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands/command_table.h"
#include "common/crc16.h"
#include "net/event_loop.h"
#include "server/propagate.h"

namespace vireo {

class Cluster;
class CowSnapshot;
class ReplyBuilder;
class Server;
struct Client;

class SlotMigrations;

// "0-10 20-29": slot ranges as GETSLOTMIGRATIONS shows them.
std::string SlotRangesText(const std::vector<std::pair<int, int>>& ranges);

struct SlotMigrationJob {
  enum class Kind { kExport, kImport };
  std::string name;  // 40 hex characters, the same on both sides
  Kind kind = Kind::kExport;
  std::vector<std::pair<int, int>> ranges;
  std::bitset<kClusterSlots> slots;
  std::string source_id;
  std::string target_id;
  int64_t create_s = 0;
  int64_t update_s = 0;
  int64_t ack_s = 0;
  std::string state;
  std::string message;
  bool finished = false;  // success, failed or cancelled
  // A replica's copy of its primary's import (from TRACK-IMPORT in the replication stream):
  // no link of its own; it ends with END-IMPORT, or fails if this replica is promoted.
  bool replicated = false;

  // The connection to the other side once established (nullptr before and after).
  Client* client = nullptr;
  int64_t last_io_ms = 0;  // last bytes or command from the other side
  int64_t last_ack_sent_ms = 0;

  // Source: the handshake before the connection becomes a client.
  SlotMigrations* owner = nullptr;
  int fd = -1;
  IoWatcher watcher;
  std::string in;
  bool auth_sent = false;
  std::unique_ptr<CowSnapshot> snapshot;
  std::string pending;  // writes captured while the snapshot is sent
  bool streaming = false;  // the snapshot is out: captured writes go straight to the client
  int out_db = -1;          // the database the stream last selected
  bool holding_writes = false;
  int64_t grant_deadline_ms = 0;

  bool active() const { return !finished; }
};

class SlotMigrations final : public PropagationSink {
 public:
  SlotMigrations(Server& server, Cluster& cluster);
  ~SlotMigrations() override;

  // CLUSTER MIGRATESLOTS / GETSLOTMIGRATIONS / CANCELSLOTMIGRATIONS / SYNCSLOTS.
  void Command(Client* c, std::string_view sub, const std::vector<std::string_view>& args,
               ReplyBuilder& r);
  void Cron(int64_t now_ms);

  // The connection of a job closed (any cause).
  void ClientClosed(Client* c);
  // A command of the import stream failed on this node (OOM, ...): the import fails.
  void ImportCommandFailed(Client* c, std::string_view error);
  // FLUSHALL / FLUSHDB (or SWAPDB) ran here: every migration fails with why ("Data was
  // flushed"): the stream cannot express it per slot.
  void DataReplaced(const char* why);
  // Slot ownership changed (bus update, SETSLOT): exports whose target took the slots
  // finish, jobs whose slots moved elsewhere fail.
  void SlotsChanged();

  // nodes.conf: the slots of this primary's running imports ("0-9,20-29"; "" when none), and
  // at start-up, dropping the keys of those a restart cut short (slots not owned here).
  std::string ImportsForFile() const;
  void DropInterruptedImports(const std::string& ranges);

  // A full sync to a replica started: TRACK-IMPORT again for every running import, so the
  // new replica hides those keys too.
  void AnnounceImports();

  // Whether a client's write must wait: it touches a slot held for a hand-off.
  bool HoldsWrite(const Client* c, const CommandSpec* spec) const;
  bool holding() const { return holding_; }
  // Keys of slots being imported here are invisible to clients (DBSIZE, KEYS, SCAN, ...).
  bool Importing(int slot) const { return importing_.test(static_cast<size_t>(slot)); }
  bool any_importing() const { return importing_.any(); }
  // Active exports / imports (SETSLOT refuses manual migration meanwhile).
  bool exporting() const;
  bool importing() const { return importing_.any(); }

  void set_prevent_pause(bool on) { prevent_pause_ = on; }
  void set_prevent_failover(bool on) { prevent_failover_ = on; }

  // PropagationSink: writes to migrating slots while exports run.
  void Feed(int db, const std::string_view* args, size_t argc) override;

 private:
  void MigrateSlots(const std::vector<std::string_view>& args, ReplyBuilder& r);
  void GetSlotMigrations(ReplyBuilder& r) const;
  void CancelSlotMigrations(ReplyBuilder& r);
  void SyncSlots(Client* c, const std::vector<std::string_view>& args, ReplyBuilder& r);
  void Establish(Client* c, const std::vector<std::string_view>& args, ReplyBuilder& r);

  // Source side.
  void StartConnect(SlotMigrationJob* job);
  static void OnHandshakeEvent(void* obj, uint32_t events);
  void HandshakeEvent(SlotMigrationJob* job, uint32_t events);
  void StartSnapshot(SlotMigrationJob* job);
  void PollSnapshot(SlotMigrationJob* job);
  void TryPause(SlotMigrationJob* job);
  void SendToPeer(SlotMigrationJob* job, const std::vector<std::string_view>& args);
  void AppendStream(SlotMigrationJob* job, int db, const std::string_view* args, size_t argc);

  // Target side.
  void TakeOver(SlotMigrationJob* job);
  // Tells this primary's replicas (and AOF) an import started / ended, so a replica hides
  // the keys meanwhile and drops them if it is promoted before the import ends.
  void PropagateImport(const SlotMigrationJob* job, bool start);
  void ReplicaTrack(Client* c, const std::vector<std::string_view>& args, ReplyBuilder& r);

  void SetState(SlotMigrationJob* job, const char* state);
  // Ends a job: the message is kept for GETSLOTMIGRATIONS; an import drops its keys, an
  // export releases held writes; the connection is closed.
  void Finish(SlotMigrationJob* job, const char* state, const std::string& message);
  void DeleteSlotKeys(const std::bitset<kClusterSlots>& slots);
  void RefreshHolds();
  void RefreshImporting();
  void RefreshSink();
  void TrimLog();
  SlotMigrationJob* JobOf(const Client* c) const;

  Server& server_;
  Cluster& cluster_;
  std::vector<std::unique_ptr<SlotMigrationJob>> jobs_;  // oldest first
  std::bitset<kClusterSlots> importing_;
  std::bitset<kClusterSlots> held_;  // slots whose writes wait for a hand-off
  bool holding_ = false;
  bool sink_attached_ = false;
  bool prevent_pause_ = false;
  bool prevent_failover_ = false;
  std::vector<KeyRef> keys_;  // Feed's scratch
  std::vector<std::string_view> args_;
};

}  // namespace vireo
