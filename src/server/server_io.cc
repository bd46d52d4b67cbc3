// Reads in batches, and io-threads: the execution thread's side. Readable clients are queued
// while the poll's events are dispatched; right after the poll the whole batch of reads is
// done on this thread (io-threads 1) or split between the I/O threads and this thread, which then runs the parsed commands client by client in event
// order. FlushPendingWrites hands its batch of replies over the same way. Each batch is
// fork-join (IoThreadPool::Run returns when every job is done), so a client belongs to an I/O
// thread only inside Run, while this thread runs no command: Pub/Sub fan-out, MONITOR,
// blocking wake-ups, CLIENT KILL and FreeClient never meet a client another thread holds.
#include <algorithm>

#include "common/log.h"
#include "server/server.h"
#include "store/memory.h"

namespace vireo {
namespace {

void TrackWorkerAllocations(void* /*ctx*/, size_t /*index*/) { TrackThreadAllocations(); }

}  // namespace

void Server::StartIoThreads() {
  // Reads are batched with or without I/O threads: after the poll every readable client is
  // read (and its first commands parsed), the keys of all of their next commands are
  // prefetched, and only then do the commands run, so the batch's cache misses overlap.
  loop_.SetAfterPoll([this] {
    ResumeYielded();
    RunQueuedReads();
  });
  ApplyIoThreads();
}

void Server::ApplyIoThreads() {
  // Runs between batches (at start-up, or as CONFIG SET io-threads runs on this thread), when
  // no worker holds a client: the old workers are joined, new ones started, and the clients
  // carry on over the next batch whatever its number of threads (Valkey 9.0).
  const int wanted = static_cast<int>(config_.io_threads) - 1;
  const int running = io_pool_ != nullptr ? io_pool_->workers() : 0;
  if (wanted == running) return;
  if (running > 0) {
    io_pool_.reset();
    io_threads_active_ = false;
    LogNotice("Stopped %d I/O threads", running);
  }
  if (wanted <= 0) return;
  const int cpus = UsableCpus();
  if (config_.io_threads > cpus) {
    LogWarning(
        "WARNING: io-threads is %lld but this process may run on only %d CPUs: the "
        "threads will compete for cores. Set io-threads to at most %d.",
        static_cast<long long>(config_.io_threads), cpus, cpus);
  }
  io_pool_ = std::make_unique<IoThreadPool>(wanted);
  // One job per participant: each worker adds its allocations to the maxmemory gauge's sum,
  // since values it parses are stored or freed by this thread.
  const size_t workers = static_cast<size_t>(io_pool_->workers());
  io_pool_->Run(workers + 1, io_pool_->workers() + 1, &TrackWorkerAllocations, nullptr);
  LogNotice("Started %d I/O threads", wanted);
}

int Server::IoParticipants(size_t jobs) const {
  // As Valkey 8: one thread per events-per-io-thread jobs, so a light load stays on this
  // thread (no hand-over latency); 0 hands every batch to all threads (tests use it).
  const int64_t per = config_.events_per_io_thread;
  if (per <= 0) return static_cast<int>(config_.io_threads);
  return static_cast<int>(std::min<int64_t>(config_.io_threads, static_cast<int64_t>(jobs) / per));
}

void Server::QueueRead(Client* c) {
  // Already in a batch whose results this thread has not run yet (a busy script's nested
  // poll): its bytes stay in the socket until then.
  if (c->flags & kClientIoQueued) return;
  // Its yielded commands run first; the socket (level-triggered) is read after them.
  if (c->yielded) return;
  c->flags |= kClientIoQueued;
  IoReadJob job;
  job.id = c->id;
  job.client = c;
  size_t wanted = c->parser.BytesWanted();
  size_t have = c->conn.InputSize();
  job.room = wanted > have ? wanted - have : 0;
  // The I/O thread parses only from a clean start, for a client whose commands would run now.
  job.parse =
      !c->parser.InProgress() &&
      !(c->flags & (kClientCloseAfterReply | kClientCloseAsap | kClientPaused | kClientBlocked));
  job.limits.max_bulk_len = config_.proto_max_bulk_len;
  job.limits.authenticated = c->authenticated;
  job.result = Connection::ReadResult::kWouldBlock;
  io_reads_.push_back(job);
}

void Server::RunQueuedReads() {
  // Inside a busy script (ServeWhileBusy) the batch that ran the script may still hold read
  // clients: they are served first, as the single-threaded loop would have read them in its
  // nested poll (a SCRIPT KILL may be among them).
  DrainReadBatch();
  if (io_reads_.empty()) return;
  io_running_.swap(io_reads_);
  io_reads_.clear();
  io_running_next_ = 0;
  if (io_pool_ != nullptr) {
    const int threads = IoParticipants(io_running_.size());
    io_threads_active_ = threads > 1;
    stats_.io_threaded_reads_processed +=
        io_pool_->Run(io_running_.size(), threads, &RunReadJob, io_running_.data());
  } else {
    for (size_t i = 0; i < io_running_.size(); ++i) RunReadJob(io_running_.data(), i);
  }
  prefetched_until_ = 0;
  // (A busy script's nested batch ends the budget for the rest of the outer one: rare, and
  // only fairness is lost.)
  pass_budget_ = io_running_.size() > 1 ? kPassBudget : SIZE_MAX;
  DrainReadBatch();
  pass_budget_ = SIZE_MAX;
}

void Server::PrefetchReadBatch(size_t from) {
  // Across clients, prefetch-batch-max-size at a time: the bucket of every key the chunk's
  // clients sent is requested, then (by the time the last request is out, the first have
  // arrived) the first entries of each client's first Client::kEntryDistance commands; then
  // the chunk's commands run. ProcessInput prefetches the later entries of each pipeline as
  // it goes, from the hashes kept in Client::io_hash.
  const size_t max = static_cast<size_t>(config_.prefetch_batch_max_size);
  const size_t end = max <= 1 ? io_running_.size() : std::min(io_running_.size(), from + max);
  prefetched_until_ = end;
  if (max <= 1 || end - from < 2) return;
  for (size_t i = from; i < end; ++i) {
    IoReadJob& job = io_running_[i];
    // Commands of earlier chunks may have freed a client of this one (ids are never reused).
    Client* c = from == 0 ? job.client : FindClient(job.id);
    job.client = c;
    if (c == nullptr || c->io_parsed == 0) continue;
    const Db& db = *dbs_[static_cast<size_t>(c->db_index)];
    for (size_t k = 0; k < c->io_parsed; ++k) {
      if (c->ahead[k].size() > 1) c->io_hash[k] = db.Prefetch(c->ahead[k][1]);
    }
    c->io_hashed = true;
  }
  for (size_t i = from; i < end; ++i) {
    const Client* c = io_running_[i].client;
    if (c == nullptr || !c->io_hashed) continue;
    const Db& db = *dbs_[static_cast<size_t>(c->db_index)];
    const size_t n = std::min<size_t>(c->io_parsed, Client::kEntryDistance);
    for (size_t k = 0; k < n; ++k) {
      if (c->ahead[k].size() > 1) db.PrefetchEntry(c->io_hash[k]);
    }
  }
  // And past the first entry of each client's first command, which runs before ProcessInput's
  // look-ahead could do that.
  for (size_t i = from; i < end; ++i) {
    const Client* c = io_running_[i].client;
    if (c == nullptr || !c->io_hashed || c->ahead[0].size() < 2) continue;
    dbs_[static_cast<size_t>(c->db_index)]->PrefetchNext(c->ahead[0][1], c->io_hash[0]);
  }
}

void Server::DrainReadBatch() {
  // The cursor is shared with nested calls: a command below may run a busy script whose
  // ServeWhileBusy drains the rest of this batch and runs a batch of its own.
  while (io_running_next_ < io_running_.size()) {
    if (io_running_next_ >= prefetched_until_) PrefetchReadBatch(io_running_next_);
    const IoReadJob job = io_running_[io_running_next_++];
    // An earlier client's command may have closed this one (ids are never reused).
    Client* c = FindClient(job.id);
    if (c == nullptr) continue;
    c->flags &= ~kClientIoQueued;
    ++stats_.total_reads_processed;
    HandleRead(c, job.result);
  }
}

void Server::WriteBatch(std::vector<Client*>& batch) {
  io_writes_.clear();
  for (Client* c : batch) {
    if (clients_.count(c->id) == 0) continue;
    c->flags &= ~kClientPendingWrite;
    if (c->flags & kClientCloseAsap) {
      FreeClient(c);
      continue;
    }
    ++stats_.total_writes_processed;
    io_writes_.push_back({c, Connection::WriteResult::kDone});
  }
  const int threads = IoParticipants(io_writes_.size());
  if (!io_writes_.empty()) io_threads_active_ = threads > 1;
  stats_.io_threaded_writes_processed +=
      io_pool_->Run(io_writes_.size(), threads, &RunWriteJob, io_writes_.data());
  for (const IoWriteJob& job : io_writes_) AfterFlush(job.client, job.result);
  io_writes_.clear();
}

}  // namespace vireo
