#include "cluster/slot_migration.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cluster/cluster.h"
#include "commands/key_finders.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/numbers.h"
#include "common/random_hex.h"
#include "net/socket.h"
#include "persistence/cow_snapshot.h"
#include "persistence/rdb_writer.h"
#include "protocol/command_encoder.h"
#include "protocol/reply_builder.h"
#include "replication/replication.h"
#include "server/config.h"
#include "server/server.h"

namespace vireo {
namespace {

constexpr int64_t kAckIntervalMs = 1000;

bool IsNodeName(std::string_view s) {
  if (s.size() != 40) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
  });
}

std::string RangesText(const std::vector<std::pair<int, int>>& ranges) {
  std::string out;
  for (const auto& [a, b] : ranges) {
    if (!out.empty()) out += ' ';
    out += std::to_string(a) + "-" + std::to_string(b);
  }
  return out;
}

// SLOTSRANGE's pairs from args[*i] on, as Valkey checks them; advances *i past them. "" or
// the error (without "ERR ").
std::string ParseRanges(const std::vector<std::string_view>& args, size_t* i,
                        std::vector<std::pair<int, int>>* ranges) {
  while (*i < args.size()) {
    int64_t start;
    if (!ParseInt64(args[*i], &start)) break;  // the next keyword
    if (*i + 1 >= args.size()) return "No end slot for final slot range";
    int64_t end;
    if (start < 0 || start >= kClusterSlots || !ParseInt64(args[*i + 1], &end) || end < 0 ||
        end >= kClusterSlots) {
      return "Invalid or out of range slot";
    }
    if (start > end) {
      return "Start slot number " + std::to_string(start) + " is greater than end slot number " +
             std::to_string(end);
    }
    for (const auto& [a, b] : *ranges) {
      if (start <= b && end >= a) {
        return "Slot range " + std::to_string(start) + "-" + std::to_string(end) +
               " overlaps with previous range " + std::to_string(a) + "-" + std::to_string(b);
      }
    }
    ranges->push_back({static_cast<int>(start), static_cast<int>(end)});
    *i += 2;
  }
  if (ranges->empty()) return "No slot ranges specified";
  return "";
}

std::bitset<kClusterSlots> SlotsOf(const std::vector<std::pair<int, int>>& ranges) {
  std::bitset<kClusterSlots> slots;
  for (const auto& [a, b] : ranges) {
    for (int s = a; s <= b; ++s) slots.set(static_cast<size_t>(s));
  }
  return slots;
}

}  // namespace

SlotMigrations::SlotMigrations(Server& server, Cluster& cluster)
    : server_(server), cluster_(cluster) {}

SlotMigrations::~SlotMigrations() {
  // At shutdown the server has freed its clients already: the jobs' links are not touched.
  for (auto& job : jobs_) {
    if (job->fd >= 0) {
      server_.loop().Unwatch(job->fd);
      close(job->fd);
    }
  }
  if (sink_attached_) server_.propagator().RemoveSink(this);
  Db::SetImportingSlots(nullptr);
}

bool SlotMigrations::exporting() const {
  return std::any_of(jobs_.begin(), jobs_.end(), [](const auto& j) {
    return j->active() && j->kind == SlotMigrationJob::Kind::kExport;
  });
}

SlotMigrationJob* SlotMigrations::JobOf(const Client* c) const {
  return c == nullptr ? nullptr : c->migration;
}

void SlotMigrations::Command(Client* c, std::string_view sub,
                             const std::vector<std::string_view>& args, ReplyBuilder& r) {
  if (sub == "getslotmigrations") return GetSlotMigrations(r);
  if (sub == "syncslots") return SyncSlots(c, args, r);
  if (sub == "cancelslotmigrations") return CancelSlotMigrations(r);
  MigrateSlots(args, r);
}

// CLUSTER MIGRATESLOTS SLOTSRANGE start end [start end ...] NODE id [SLOTSRANGE ... NODE id]
void SlotMigrations::MigrateSlots(const std::vector<std::string_view>& args, ReplyBuilder& r) {
  ClusterNode* me = cluster_.myself();
  if (!me->is_master()) {
    r.Error("ERR Slot migration can only be used on primary nodes");
    return;
  }
  for (int s = 0; s < kClusterSlots; ++s) {
    if (!cluster_.migrating_[static_cast<size_t>(s)].empty()) {
      r.Error("ERR Slots are being manually migrated");
      return;
    }
    if (!cluster_.importing_[static_cast<size_t>(s)].empty()) {
      r.Error("ERR Slots are being manually imported");
      return;
    }
  }
  struct Block {
    std::vector<std::pair<int, int>> ranges;
    ClusterNode* target;
  };
  std::vector<Block> blocks;
  size_t i = 2;
  while (i < args.size()) {
    if (!EqualsIgnoreCase(args[i], "slotsrange")) {
      r.Error("ERR syntax error");
      return;
    }
    ++i;
    Block b;
    if (std::string e = ParseRanges(args, &i, &b.ranges); !e.empty()) {
      r.Error("ERR " + e);
      return;
    }
    const ClusterNode* owner = nullptr;
    for (const auto& [a, z] : b.ranges) {
      for (int s = a; s <= z; ++s) {
        const ClusterNode* o = cluster_.SlotOwner(s);
        if (o == nullptr) {
          r.Error("ERR Slot " + std::to_string(s) + " has no node served");
          return;
        }
        if (owner != nullptr && o != owner) {
          r.Error("ERR Requested slots span multiple shards");
          return;
        }
        owner = o;
      }
    }
    if (owner != me) {
      r.Error("ERR Slots are not served by this node");
      return;
    }
    if (i + 1 >= args.size() || !EqualsIgnoreCase(args[i], "node")) {
      r.Error("ERR syntax error");
      return;
    }
    std::string_view id = args[i + 1];
    i += 2;
    if (!IsNodeName(id)) {
      r.Error("ERR Invalid node name");
      return;
    }
    b.target = cluster_.Lookup(id);
    if (b.target == nullptr) {
      r.Error("ERR Unknown node name");
      return;
    }
    if (b.target == me) {
      r.Error("ERR Target node can not be this node");
      return;
    }
    if (!b.target->is_master()) {
      r.Error("ERR Target node is not a primary");
      return;
    }
    blocks.push_back(std::move(b));
  }
  std::bitset<kClusterSlots> all;
  for (const Block& b : blocks) {
    std::bitset<kClusterSlots> s = SlotsOf(b.ranges);
    if ((all & s).any()) {
      r.Error("ERR Slot ranges in migrations overlap");
      return;
    }
    all |= s;
  }
  for (const auto& job : jobs_) {
    if (!job->active() || job->kind != SlotMigrationJob::Kind::kExport) continue;
    std::bitset<kClusterSlots> both = job->slots & all;
    if (both.any()) {
      size_t s = 0;
      while (!both.test(s)) ++s;
      r.Error("ERR I am already migrating slot " + std::to_string(s));
      return;
    }
  }
  const int64_t now_s = NowMs() / 1000;
  for (Block& b : blocks) {
    auto job = std::make_unique<SlotMigrationJob>();
    job->name = RandomHex(40);
    job->kind = SlotMigrationJob::Kind::kExport;
    job->ranges = std::move(b.ranges);
    job->slots = SlotsOf(job->ranges);
    job->source_id = me->id;
    job->target_id = b.target->id;
    job->create_s = job->update_s = job->ack_s = now_s;
    job->state = "connecting";
    job->last_io_ms = NowMs();
    SlotMigrationJob* p = job.get();
    jobs_.push_back(std::move(job));
    LogNotice("Slot migration %s: exporting slots %s to %.40s", p->name.c_str(),
              RangesText(p->ranges).c_str(), p->target_id.c_str());
    StartConnect(p);
  }
  r.Ok();
}

void SlotMigrations::GetSlotMigrations(ReplyBuilder& r) const {
  r.Array(jobs_.size());
  for (const auto& job : jobs_) {
    r.Map(11);
    r.Bulk("name");
    r.Bulk(job->name);
    r.Bulk("operation");
    r.Bulk(job->kind == SlotMigrationJob::Kind::kExport ? "EXPORT" : "IMPORT");
    r.Bulk("slot_ranges");
    r.Bulk(RangesText(job->ranges));
    r.Bulk("target_node");
    r.Bulk(job->target_id);
    r.Bulk("source_node");
    r.Bulk(job->source_id);
    r.Bulk("create_time");
    r.Integer(job->create_s);
    r.Bulk("last_update_time");
    r.Integer(job->update_s);
    r.Bulk("last_ack_time");
    r.Integer(job->ack_s);
    r.Bulk("state");
    r.Bulk(job->state);
    r.Bulk("message");
    r.Bulk(job->message);
    r.Bulk("cow_size");
    r.Integer(0);  // fork-less: the snapshot's extra memory is the client's output buffer
  }
}

void SlotMigrations::CancelSlotMigrations(ReplyBuilder& r) {
  bool any = false;
  for (auto& job : jobs_) {
    if (job->active() && job->kind == SlotMigrationJob::Kind::kExport) {
      Finish(job.get(), "cancelled", "Cancelled by CLUSTER CANCELSLOTMIGRATIONS");
      any = true;
    }
  }
  if (!any) {
    r.Error("ERR No migrations ongoing");
    return;
  }
  r.Ok();
}

// --- The stream between the two sides -------------------------------------------------------

void SlotMigrations::SyncSlots(Client* c, const std::vector<std::string_view>& args,
                               ReplyBuilder& r) {
  if (args.size() < 3) {
    r.Error("ERR syntax error");
    return;
  }
  const std::string sub = ToLower(args[2]);
  if (sub == "establish") return Establish(c, args, r);
  if (sub == "track-import" || sub == "end-import") return ReplicaTrack(c, args, r);
  static const char* const kSteps[] = {"snapshot-eof", "request-pause",    "paused",
                                       "request-failover", "failover-granted", "ack"};
  if (std::find(std::begin(kSteps), std::end(kSteps), sub) == std::end(kSteps)) {
    r.Error("ERR syntax error");
    return;
  }
  SlotMigrationJob* job = JobOf(c);
  if (job == nullptr) {
    r.Error("ERR CLUSTER SYNCSLOTS " + ToUpper(args[2]) +
            " should only be used by slot migration clients");
    return;
  }
  // A finished import keeps its link until the source closes it: late steps are ignored.
  if (job->finished) return;
  job->last_io_ms = NowMs();
  if (sub == "ack") {
    job->ack_s = NowMs() / 1000;
    return;
  }
  const bool is_export = job->kind == SlotMigrationJob::Kind::kExport;
  // A step out of order ends the link (the other side is confused or hostile).
  auto out_of_order = [&] {
    LogWarning("Slot migration %s: unexpected CLUSTER SYNCSLOTS %s in state %s",
               job->name.c_str(), sub.c_str(), job->state.c_str());
    server_.CloseClientAsync(c);
  };
  if (!is_export && sub == "snapshot-eof" && job->state == "receiving-snapshot") {
    SetState(job, "waiting-for-paused");
    SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "REQUEST-PAUSE"});
  } else if (is_export && sub == "request-pause" && job->state == "streaming") {
    SetState(job, "waiting-to-pause");
    TryPause(job);
  } else if (!is_export && sub == "paused" && job->state == "waiting-for-paused") {
    // Everything the source wrote before PAUSED has been applied: nothing more can come.
    SetState(job, "failover-requested");
    SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "REQUEST-FAILOVER"});
  } else if (is_export && sub == "request-failover" && job->state == "failover-paused") {
    SetState(job, "failover-granted");
    job->grant_deadline_ms =
        NowMs() + ConfigValueInt(server_.config(), "cluster-manual-failover-timeout", 5000);
    SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "FAILOVER-GRANTED"});
  } else if (!is_export && sub == "failover-granted" && job->state == "failover-requested") {
    SetState(job, "failover-granted");
    if (!prevent_failover_) TakeOver(job);
  } else {
    out_of_order();
  }
}

// CLUSTER SYNCSLOTS ESTABLISH SOURCE <id> NAME <name> SLOTSRANGE <start> <end> ...
void SlotMigrations::Establish(Client* c, const std::vector<std::string_view>& args,
                               ReplyBuilder& r) {
  std::string source, name;
  std::vector<std::pair<int, int>> ranges;
  bool have_ranges = false;
  for (size_t i = 3; i < args.size();) {
    if (EqualsIgnoreCase(args[i], "slotsrange") && !have_ranges) {
      ++i;
      if (std::string e = ParseRanges(args, &i, &ranges); !e.empty()) {
        r.Error("ERR " + e);
        return;
      }
      have_ranges = true;
      continue;
    }
    if (i + 1 >= args.size() || !IsNodeName(args[i + 1])) {
      r.Error("ERR syntax error");
      return;
    }
    std::string* field = EqualsIgnoreCase(args[i], "source") ? &source
                         : EqualsIgnoreCase(args[i], "name") ? &name
                                                             : nullptr;
    if (field == nullptr || !field->empty()) {
      r.Error("ERR syntax error");
      return;
    }
    *field = std::string(args[i + 1]);
    i += 2;
  }
  if (source.empty() || name.empty() || !have_ranges) {
    r.Error("ERR syntax error");
    return;
  }
  if (!cluster_.myself()->is_master()) {
    r.Error("ERR Slot migration can only be used on primary nodes");
    return;
  }
  if (JobOf(c) != nullptr) {
    r.Error("ERR This connection already carries a slot migration");
    return;
  }
  ClusterNode* src = cluster_.Lookup(source);
  if (src == nullptr) {
    r.Error("ERR Target node does not know the source node");
    return;
  }
  const std::bitset<kClusterSlots> slots = SlotsOf(ranges);
  for (int s = 0; s < kClusterSlots; ++s) {
    if (!slots.test(static_cast<size_t>(s))) continue;
    if (cluster_.SlotOwner(s) != src) {
      r.Error("ERR Target node does not agree about current slot ownership");
      return;
    }
  }
  if ((slots & importing_).any()) {
    r.Error("ERR Slot is already being imported on the target by a different migration");
    return;
  }
  for (int s = 0; s < kClusterSlots; ++s) {
    const size_t i = static_cast<size_t>(s);
    if (!cluster_.importing_[i].empty() || !cluster_.migrating_[i].empty()) {
      r.Error(cluster_.importing_[i].empty() ? "ERR Slots are being manually migrated"
                                             : "ERR Slots are being manually imported");
      return;
    }
  }
  // Keys of these slots left here (a failed earlier import, stray keys) would mix with the
  // snapshot: they go first.
  DeleteSlotKeys(slots);
  auto job = std::make_unique<SlotMigrationJob>();
  job->name = name;
  job->kind = SlotMigrationJob::Kind::kImport;
  job->ranges = std::move(ranges);
  job->slots = slots;
  job->source_id = source;
  job->target_id = cluster_.myself()->id;
  job->create_s = job->update_s = job->ack_s = NowMs() / 1000;
  job->state = "receiving-snapshot";
  job->client = c;
  job->last_io_ms = job->last_ack_sent_ms = NowMs();
  c->migration = job.get();
  LogNotice("Slot migration %s: importing slots %s from %.40s", name.c_str(),
            RangesText(job->ranges).c_str(), source.c_str());
  PropagateImport(job.get(), true);
  jobs_.push_back(std::move(job));
  RefreshImporting();
  r.Ok();
}

void SlotMigrations::AnnounceImports() {
  for (const auto& job : jobs_) {
    if (job->active() && job->kind == SlotMigrationJob::Kind::kImport && !job->replicated) {
      PropagateImport(job.get(), true);
    }
  }
}

void SlotMigrations::PropagateImport(const SlotMigrationJob* job, bool start) {
  std::vector<std::string> words = {"CLUSTER", "SYNCSLOTS", start ? "TRACK-IMPORT" : "END-IMPORT",
                                    job->name};
  if (start) {
    words.push_back(job->source_id);
    words.push_back("SLOTSRANGE");
    for (const auto& [a, b] : job->ranges) {
      words.push_back(std::to_string(a));
      words.push_back(std::to_string(b));
    }
  } else {
    words.push_back(job->state);
  }
  server_.propagator().Also(0, std::move(words));
}

// CLUSTER SYNCSLOTS TRACK-IMPORT <name> <source> SLOTSRANGE ... | END-IMPORT <name> <state>:
// only from this replica's primary.
void SlotMigrations::ReplicaTrack(Client* c, const std::vector<std::string_view>& args,
                                  ReplyBuilder& r) {
  if (!server_.replication().is_master_client(c)) {
    r.Error("ERR CLUSTER SYNCSLOTS " + ToUpper(args[2]) +
            " should only be used by slot migration clients");
    return;
  }
  if (args.size() < 5 || !IsNodeName(args[3])) {
    r.Error("ERR syntax error");
    return;
  }
  const std::string name(args[3]);
  const bool known = std::any_of(jobs_.begin(), jobs_.end(), [&](const auto& j) {
    return j->replicated && j->active() && j->name == name;
  });
  if (EqualsIgnoreCase(args[2], "end-import")) {
    for (auto& job : jobs_) {
      if (job->replicated && job->active() && job->name == name) {
        const std::string state(args[4]);
        Finish(job.get(), state == "success" ? "success" : "failed",
               state == "success" ? "" : "The import failed on the primary");
      }
    }
    r.Ok();
    return;
  }
  if (known) {  // announced again after a full sync of another replica
    r.Ok();
    return;
  }
  size_t i = 6;
  std::vector<std::pair<int, int>> ranges;
  if (args.size() < 8 || !EqualsIgnoreCase(args[5], "slotsrange") || !IsNodeName(args[4]) ||
      !ParseRanges(args, &i, &ranges).empty() || i != args.size()) {
    r.Error("ERR syntax error");
    return;
  }
  auto job = std::make_unique<SlotMigrationJob>();
  job->name = name;
  job->kind = SlotMigrationJob::Kind::kImport;
  job->replicated = true;
  job->ranges = std::move(ranges);
  job->slots = SlotsOf(job->ranges);
  job->source_id = std::string(args[4]);
  job->target_id = cluster_.myself()->master_id;
  job->create_s = job->update_s = job->ack_s = NowMs() / 1000;
  job->state = "replicating";
  jobs_.push_back(std::move(job));
  RefreshImporting();
  r.Ok();
}

void SlotMigrations::SendToPeer(SlotMigrationJob* job, const std::vector<std::string_view>& args) {
  if (job->client == nullptr) return;
  job->client->conn.Output()->append(RespCommand(args));
  server_.QueueWrite(job->client);
}

// --- Source ---------------------------------------------------------------------------------

void SlotMigrations::StartConnect(SlotMigrationJob* job) {
  ClusterNode* target = cluster_.Lookup(job->target_id);
  if (target == nullptr) {
    Finish(job, "failed", "Target node is no longer known");
    return;
  }
  // Under tls-cluster the node's plaintext port is pport; migrations use plain TCP.
  const int port = target->pport != 0 ? target->pport : target->port;
  std::string err;
  int fd = ConnectTcp(target->ip, port, &err);
  if (fd < 0) {
    Finish(job, "failed", "Unable to connect to target node: " + err);
    return;
  }
  job->fd = fd;
  job->owner = this;
  job->watcher = {&SlotMigrations::OnHandshakeEvent, job};
  job->last_io_ms = NowMs();
  server_.loop().Watch(fd, EventLoop::kWritable, &job->watcher);
}

void SlotMigrations::OnHandshakeEvent(void* obj, uint32_t events) {
  auto* job = static_cast<SlotMigrationJob*>(obj);
  job->owner->HandshakeEvent(job, events);
}

void SlotMigrations::HandshakeEvent(SlotMigrationJob* job, uint32_t events) {
  job->last_io_ms = NowMs();
  if (job->state == "connecting") {
    int err = 0;
    socklen_t len = sizeof(err);
    getsockopt(job->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0 || !(events & EventLoop::kWritable)) {
      Finish(job, "failed",
             std::string("Unable to connect to target node: ") + strerror(err != 0 ? err : EIO));
      return;
    }
    std::string out;
    const auto& generic = server_.config().generic;
    auto user = generic.find("primaryuser");
    auto pass = generic.find("primaryauth");
    if (pass != generic.end() && !pass->second.empty()) {
      const bool has_user = user != generic.end() && !user->second.empty();
      out += has_user ? RespCommand({"AUTH", user->second, pass->second})
                      : RespCommand({"AUTH", pass->second});
      job->auth_sent = true;
    }
    std::vector<std::string> words = {"CLUSTER", "SYNCSLOTS", "ESTABLISH", "SOURCE",
                                      job->source_id, "NAME", job->name, "SLOTSRANGE"};
    for (const auto& [a, b] : job->ranges) {
      words.push_back(std::to_string(a));
      words.push_back(std::to_string(b));
    }
    out += RespCommand(std::vector<std::string_view>(words.begin(), words.end()));
    // A fresh socket's buffer always takes a few hundred bytes.
    if (send(job->fd, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) {
      Finish(job, "failed", std::string("Unable to write to target node: ") + strerror(errno));
      return;
    }
    SetState(job, "establishing");
    server_.loop().Watch(job->fd, EventLoop::kReadable, &job->watcher);
    return;
  }
  char buf[4096];
  for (;;) {
    ssize_t n = read(job->fd, buf, sizeof(buf));
    if (n > 0) {
      job->in.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    Finish(job, "failed", "Connection lost to target");
    return;
  }
  for (;;) {
    size_t eol = job->in.find("\r\n");
    if (eol == std::string::npos) return;
    std::string line = job->in.substr(0, eol);
    job->in.erase(0, eol + 2);
    if (job->auth_sent) {
      job->auth_sent = false;
      if (!line.empty() && line[0] == '-') {
        Finish(job, "failed", "Failed to AUTH to target node: " + line.substr(1));
        return;
      }
      continue;
    }
    if (line.empty() || line[0] != '+') {
      std::string why = line.size() > 1 ? line.substr(1) : "unexpected reply";
      if (why.rfind("ERR ", 0) == 0) why.erase(0, 4);
      Finish(job, "failed", why);
      return;
    }
    // Established: from now on the connection is a client whose commands are SYNCSLOTS steps.
    const int fd = job->fd;
    server_.loop().Unwatch(fd);
    job->fd = -1;
    std::string leftover;
    leftover.swap(job->in);
    job->client = server_.AdoptConnection(fd, 0);
    job->client->migration = job;
    job->client->name = "slot-migration-" + job->name.substr(0, 8);
    job->last_ack_sent_ms = NowMs();
    SetState(job, "waiting-to-snapshot");
    StartSnapshot(job);
    if (job->client != nullptr && !leftover.empty()) server_.FeedClientInput(job->client, leftover);
    return;
  }
}

void SlotMigrations::StartSnapshot(SlotMigrationJob* job) {
  if (CowSnapshot::Busy()) return;  // a BGSAVE or rewrite walks: the cron tries again
  CowSnapshotOptions opt;
  opt.commands = true;
  opt.write = RdbWriteOptionsFrom(server_.config());
  opt.key_save_delay_us = server_.config().rdb_key_save_delay;
  opt.slots = &job->slots;
  Client* c = job->client;
  opt.deliver = [this, c](std::string&& bytes) {
    c->conn.Output()->append(bytes);
    server_.QueueWrite(c);
  };
  opt.backlog = [c] { return c->conn.PendingOutput(); };
  std::vector<Db*> dbs;
  for (int i = 0; i < server_.db_count(); ++i) dbs.push_back(server_.db(i));
  std::string err;
  job->snapshot = CowSnapshot::Start(dbs, std::move(opt), &err);
  if (job->snapshot == nullptr) {
    Finish(job, "failed", "Unable to start the snapshot: " + err);
    return;
  }
  // Writes from this instant on are captured; the snapshot holds everything before it.
  SetState(job, "snapshotting");
  job->pending.clear();
  job->out_db = -1;
  RefreshSink();
}

void SlotMigrations::PollSnapshot(SlotMigrationJob* job) {
  if (job->snapshot == nullptr) return;
  CowSnapshot::Status s = job->snapshot->Poll();
  if (s == CowSnapshot::Status::kRunning) return;
  std::string err = job->snapshot->error();
  job->snapshot.reset();
  if (s != CowSnapshot::Status::kSucceeded) {
    Finish(job, "failed", "Snapshot failed: " + err);
    return;
  }
  // The snapshot's stream selected its own databases: the captured writes say theirs.
  SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "SNAPSHOT-EOF"});
  if (job->client == nullptr) return;
  job->client->conn.Output()->append(job->pending);
  job->pending.clear();
  job->pending.shrink_to_fit();
  job->streaming = true;
  SetState(job, "streaming");
  server_.QueueWrite(job->client);
  server_.EnforceOutputLimit(job->client);
}

void SlotMigrations::TryPause(SlotMigrationJob* job) {
  if (job->state != "waiting-to-pause" || prevent_pause_ || job->client == nullptr) return;
  const int64_t allowed =
      ConfigValueInt(server_.config(), "slot-migration-max-failover-repl-bytes", 0);
  if (static_cast<int64_t>(job->client->conn.PendingOutput()) > allowed) return;
  job->holding_writes = true;
  RefreshHolds();
  SetState(job, "failover-paused");
  SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "PAUSED"});
}

void SlotMigrations::AppendStream(SlotMigrationJob* job, int db, const std::string_view* args,
                                  size_t argc) {
  std::string* out = job->streaming ? job->client->conn.Output() : &job->pending;
  if (db != job->out_db) {
    out->append(RespCommand({"SELECT", std::to_string(db)}));
    job->out_db = db;
  }
  out->append(RespCommand(std::vector<std::string_view>(args, args + argc)));
  if (job->streaming) {
    server_.QueueWrite(job->client);
    server_.EnforceOutputLimit(job->client);
  } else {
    // Captured writes wait beside the snapshot; they count against the replica output
    // limit as the client's buffer would.
    const OutputBufferLimit& limit = server_.config().client_obuf_limits.Of(ClientClass::kReplica);
    if (limit.hard != 0 && job->pending.size() + job->client->conn.PendingOutput() >
                               static_cast<size_t>(limit.hard)) {
      server_.CloseClientAsync(job->client);
    }
  }
}

void SlotMigrations::Feed(int db, const std::string_view* args, size_t argc) {
  if (argc == 0) return;
  // Transactions are not kept as such: the target applies the stream before anyone can see
  // the slots, so only the order matters.
  if (EqualsIgnoreCase(args[0], "multi") || EqualsIgnoreCase(args[0], "exec")) return;
  args_.assign(args, args + argc);
  const CommandSpec* spec = Commands().Resolve(args_);
  if (spec == nullptr) return;
  keys_.clear();
  if (CommandKeys(*spec, args_, &keys_) == 0) return;  // FUNCTION LOAD, ...: not slot data
  const size_t slot = KeyHashSlot(args_[static_cast<size_t>(keys_[0].pos)]);
  for (auto& job : jobs_) {
    if (job->kind != SlotMigrationJob::Kind::kExport || !job->active() ||
        job->client == nullptr || (job->snapshot == nullptr && !job->streaming) ||
        !job->slots.test(slot)) {
      continue;
    }
    AppendStream(job.get(), db, args, argc);
  }
}

// --- Target ---------------------------------------------------------------------------------

void SlotMigrations::TakeOver(SlotMigrationJob* job) {
  cluster_.ClaimSlots(job->slots);
  LogNotice("Slot migration %s: took over slots %s", job->name.c_str(),
            RangesText(job->ranges).c_str());
  SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "ACK"});
  Finish(job, "success", "");
}

// --- Both -----------------------------------------------------------------------------------

void SlotMigrations::SetState(SlotMigrationJob* job, const char* state) {
  job->state = state;
  job->update_s = NowMs() / 1000;
}

void SlotMigrations::Finish(SlotMigrationJob* job, const char* state, const std::string& message) {
  if (job->finished) return;
  job->finished = true;
  const bool success = std::strcmp(state, "success") == 0;
  SetState(job, state);
  job->message = message;
  if (job->snapshot != nullptr) {
    job->snapshot->Abort();
    job->snapshot.reset();
  }
  job->pending.clear();
  job->pending.shrink_to_fit();
  if (job->fd >= 0) {
    server_.loop().Unwatch(job->fd);
    close(job->fd);
    job->fd = -1;
  }
  // A successful import keeps the link (and the job as its owner) until the source, which
  // learns the outcome from the bus, closes it; anything else ends the link now.
  const bool keep_link = success && job->kind == SlotMigrationJob::Kind::kImport;
  if (job->client != nullptr && !keep_link) {
    job->client->migration = nullptr;
    server_.CloseClientAsync(job->client);
    job->client = nullptr;
  }
  if (job->kind == SlotMigrationJob::Kind::kImport) {
    RefreshImporting();
    // A replica's copy ends with its primary's deletions already applied; a primary (also a
    // promoted replica) deletes and tells its own replicas.
    if (cluster_.myself()->is_master()) {
      if (!success) DeleteSlotKeys(job->slots);
      PropagateImport(job, false);
    }
  } else if (success) {
    DeleteSlotKeys(job->slots);
  }
  if (job->holding_writes) {
    job->holding_writes = false;
    RefreshHolds();
  }
  RefreshSink();
  if (success) {
    LogNotice("Slot migration %s: %s succeeded", job->name.c_str(),
              job->kind == SlotMigrationJob::Kind::kExport ? "export" : "import");
  } else {
    LogWarning("Slot migration %s: %s %s: %s", job->name.c_str(),
               job->kind == SlotMigrationJob::Kind::kExport ? "export" : "import", state,
               message.c_str());
  }
  TrimLog();
}

void SlotMigrations::DeleteSlotKeys(const std::bitset<kClusterSlots>& slots) {
  for (int i = 0; i < server_.db_count(); ++i) {
    Db* db = server_.db(i);
    if (db->Size() == 0) continue;
    std::vector<std::string> keys;
    db->ForEachEntry([&](const Entry* e) {
      if (slots.test(KeyHashSlot(e->Key()))) keys.emplace_back(e->Key());
    });
    for (const std::string& k : keys) {
      if (db->Delete(k)) {
        PropagateDeletion(server_, i, k, false);
        server_.AddDirty(1);
        server_.watches().Touch(db, k);
        if (server_.tracking().Armed()) server_.tracking().Invalidate(k, nullptr);
      }
    }
  }
}

void SlotMigrations::RefreshHolds() {
  held_.reset();
  for (const auto& job : jobs_) {
    if (job->holding_writes) held_ |= job->slots;
  }
  const bool was = holding_;
  holding_ = held_.any();
  if (was && !holding_) server_.ResumeHeldClients();
}

void SlotMigrations::RefreshImporting() {
  importing_.reset();
  for (const auto& job : jobs_) {
    if (job->active() && job->kind == SlotMigrationJob::Kind::kImport) importing_ |= job->slots;
  }
  Db::SetImportingSlots(importing_.any() ? &importing_ : nullptr);
}

void SlotMigrations::RefreshSink() {
  bool capture = false;
  for (const auto& job : jobs_) {
    capture = capture || (job->active() && job->kind == SlotMigrationJob::Kind::kExport &&
                          (job->snapshot != nullptr || job->streaming));
  }
  if (capture == sink_attached_) return;
  sink_attached_ = capture;
  if (capture) {
    server_.propagator().AddSink(this);
  } else {
    server_.propagator().RemoveSink(this);
  }
}

void SlotMigrations::TrimLog() {
  const int64_t max_len =
      ConfigValueInt(server_.config(), "cluster-slot-migration-log-max-len", 1000);
  size_t inactive = 0;
  for (const auto& job : jobs_) inactive += !job->active();
  for (auto it = jobs_.begin(); it != jobs_.end() && static_cast<int64_t>(inactive) > max_len;) {
    if ((*it)->active()) {
      ++it;
      continue;
    }
    if ((*it)->client != nullptr) {
      (*it)->client->migration = nullptr;
      server_.CloseClientAsync((*it)->client);
    }
    it = jobs_.erase(it);
    --inactive;
  }
}

bool SlotMigrations::HoldsWrite(const Client* c, const CommandSpec* spec) const {
  if (!holding_ || c->migration != nullptr) return false;
  const uint32_t writes = kCmdWrite | kCmdMayReplicate;
  auto held = [&](const CommandSpec& s, const std::vector<std::string_view>& args) {
    if (!(s.flags & writes)) return false;
    std::vector<KeyRef> keys;
    CommandKeys(s, args, &keys);
    for (const KeyRef& k : keys) {
      if (held_.test(KeyHashSlot(args[static_cast<size_t>(k.pos)]))) return true;
    }
    return false;
  };
  if (spec->name == "exec" && (c->flags & kClientMulti) && c->multi) {
    for (const QueuedCommand& q : c->multi->queue) {
      std::vector<std::string_view> args(q.args.begin(), q.args.end());
      if (q.spec != nullptr && held(*q.spec, args)) return true;
    }
    return false;
  }
  return held(*spec, c->args);
}

void SlotMigrations::ClientClosed(Client* c) {
  SlotMigrationJob* job = JobOf(c);
  if (job == nullptr) return;
  job->client = nullptr;
  c->migration = nullptr;
  if (job->finished) return;
  Finish(job, "failed",
         job->kind == SlotMigrationJob::Kind::kExport ? "Connection lost to target"
                                                      : "Connection lost to source");
}

void SlotMigrations::ImportCommandFailed(Client* c, std::string_view error) {
  SlotMigrationJob* job = JobOf(c);
  if (job == nullptr || job->kind != SlotMigrationJob::Kind::kImport) return;
  Finish(job, "failed", "Command from the source failed: " + std::string(error));
}

void SlotMigrations::DataReplaced(const char* why) {
  for (auto& job : jobs_) {
    if (job->active()) Finish(job.get(), "failed", why);
  }
}

void SlotMigrations::SlotsChanged() {
  ClusterNode* me = cluster_.myself();
  for (auto& job : jobs_) {
    if (!job->active()) continue;
    if (job->kind == SlotMigrationJob::Kind::kExport) {
      ClusterNode* target = cluster_.Lookup(job->target_id);
      bool target_owns = target != nullptr, mine = true;
      for (int s = 0; s < kClusterSlots; ++s) {
        if (!job->slots.test(static_cast<size_t>(s))) continue;
        target_owns = target_owns && cluster_.SlotOwner(s) == target;
        mine = mine && cluster_.SlotOwner(s) == me;
      }
      if (target_owns && job->state == "failover-granted") {
        Finish(job.get(), "success", "");
      } else if (!mine || !me->is_master()) {
        Finish(job.get(), "failed", "Slots are no longer owned by myself");
      }
    } else if (job->replicated) {
      // Promoted before the primary's import ended: the keys are not this shard's.
      if (me->is_master()) Finish(job.get(), "failed", "A failover occurred during slot import");
    } else {
      if (!me->is_master()) {
        Finish(job.get(), "failed", "A failover occurred during slot import");
        continue;
      }
      ClusterNode* source = cluster_.Lookup(job->source_id);
      for (int s = 0; s < kClusterSlots; ++s) {
        if (job->slots.test(static_cast<size_t>(s)) && cluster_.SlotOwner(s) != source) {
          Finish(job.get(), "failed", "Slots are no longer owned by source node");
          break;
        }
      }
    }
  }
}

void SlotMigrations::Cron(int64_t now_ms) {
  SlotsChanged();
  const int64_t timeout_ms = ConfigValueInt(server_.config(), "repl-timeout", 60) * 1000;
  for (size_t i = 0; i < jobs_.size(); ++i) {
    SlotMigrationJob* job = jobs_[i].get();
    if (!job->active() || job->replicated) continue;
    if (job->client != nullptr && job->client->last_interaction_ms > job->last_io_ms) {
      job->last_io_ms = job->client->last_interaction_ms;
    }
    // While the source sends its snapshot, bytes keep flowing; the target only acks.
    const bool sending = job->snapshot != nullptr && job->kind == SlotMigrationJob::Kind::kExport;
    if (!sending && now_ms - job->last_io_ms > timeout_ms) {
      Finish(job, "failed", "Timed out after too long with no interaction");
      continue;
    }
    if (job->kind == SlotMigrationJob::Kind::kExport) {
      if (job->state == "waiting-to-snapshot" && job->client != nullptr) StartSnapshot(job);
      PollSnapshot(job);
      if (!job->active()) continue;
      TryPause(job);
      if (job->state == "failover-granted" && now_ms > job->grant_deadline_ms) {
        Finish(job, "failed", "Unpaused before migration completed");
        continue;
      }
    }
    // Heartbeats: the source's only between snapshot and stream, where the stream is whole
    // commands.
    if (job->client != nullptr && now_ms - job->last_ack_sent_ms >= kAckIntervalMs &&
        (job->kind == SlotMigrationJob::Kind::kImport || job->streaming)) {
      job->last_ack_sent_ms = now_ms;
      SendToPeer(job, {"CLUSTER", "SYNCSLOTS", "ACK"});
    }
  }
  TrimLog();
}

}  // namespace vireo
