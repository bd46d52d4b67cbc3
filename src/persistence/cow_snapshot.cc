#include "persistence/cow_snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "common/crc16.h"
#include "common/crc64.h"
#include "persistence/aof_commands.h"
#include "persistence/file_io.h"
#include "net/socket.h"
#include "persistence/rdb_format.h"
#include "store/blob_pins.h"
#include "store/lazy_free.h"
#include "store/value.h"

namespace vireo {
namespace {

// The walk pauses while this much output waits for the writer thread (its memory is the
// snapshot's extra memory; keys saved ahead of a change are queued regardless).
constexpr size_t kMaxQueuedBytes = 8u << 20;
// Written data goes to disk every so many bytes (WritebackPacer), as Valkey's
// rdb-save-incremental-fsync, so the final fsync never has gigabytes to flush at once.
constexpr size_t kSyncEveryBytes = 4u << 20;
// Buckets walked between clock readings.
constexpr size_t kBucketsPerStep = 16;
// Slice bounds: a busy loop gives the walk as long as it served clients, within these.
constexpr int64_t kMinSliceUs = 200;
constexpr int64_t kMaxSliceUs = 2000;

CowSnapshot* g_current = nullptr;  // the snapshot that walks (the Db observer)
// A snapshot was abandoned mid-walk: some entries still carry the pending bit, so the next
// Start marks every entry saved first.
bool g_bits_dirty = false;
int64_t g_last_slice_end_us = 0;

bool WriteAll(int fd, const char* p, size_t n, std::string* error) {
  if (vireo::WriteAll(fd, p, n)) return true;
  *error = strerror(errno);
  return false;
}

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

CowSnapshot::CowSnapshot(const std::vector<Db*>& dbs, CowSnapshotOptions options, int fd)
    : dbs_(dbs),
      opt_(std::move(options)),
      writer_(static_cast<RdbSink*>(this), opt_.write),
      start_ms_(NowMs()),
      start_us_(MonotonicUs()),
      fd_(fd) {}

std::unique_ptr<CowSnapshot> CowSnapshot::Start(const std::vector<Db*>& dbs,
                                                CowSnapshotOptions options,
                                                std::string* error) {
  if (g_current != nullptr) {
    *error = "another snapshot is in progress";
    return nullptr;
  }
  int fd = -1;
  if (options.sockets.empty() && !options.deliver) {
    fd = open(options.temp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      *error = strerror(errno);
      return nullptr;
    }
  }
  if (g_bits_dirty) {
    for (Db* db : dbs) db->NormalizeSnapshotBits();
    g_bits_dirty = false;
  }
  std::unique_ptr<CowSnapshot> s(new CowSnapshot(dbs, std::move(options), fd));
  s->sockets_ = s->opt_.sockets;
  int max_index = 0;
  for (Db* db : dbs) max_index = std::max(max_index, db->index());
  s->sizes_.assign(static_cast<size_t>(max_index) + 1, 0);
  s->volatile_.assign(s->sizes_.size(), 0);
  s->selected_.assign(s->sizes_.size(), false);
  for (Db* db : dbs) {
    s->sizes_[static_cast<size_t>(db->index())] = db->Size();
    s->volatile_[static_cast<size_t>(db->index())] = db->VolatileCount();
    s->keys_total_ += db->Size();
  }
  if (s->opt_.commands) {
    std::string loads;
    if (s->opt_.timestamp) AppendTimestamp(&loads, s->start_ms_ / 1000);
    AppendFunctionLoads(&loads, s->opt_.aux.functions);
    s->writer_.Raw(loads.data(), loads.size());
  } else {
    WriteRdbHeader(s->writer_, s->opt_.aux);
  }
  Db::BeginSnapshot(s.get());
  for (Db* db : dbs) db->StartSnapshotWalk();
  s->walking_ = true;
  g_current = s.get();
  if (!s->opt_.deliver) s->thread_ = std::thread([p = s.get()] { p->WriterMain(); });
  return s;
}

CowSnapshot::~CowSnapshot() {
  Abort();
  if (thread_.joinable()) thread_.join();
  DropQueued();
  if (fd_ >= 0) close(fd_);
  for (int s : sockets_) {
    if (s >= 0) close(s);
  }
}

bool CowSnapshot::WriteOut(const char* p, size_t n, std::string* error) {
  if (opt_.sockets.empty()) return WriteAll(fd_, p, n, error);
  // A replica that fails or stalls is dropped (its slot becomes -1); the others go on.
  bool any = false;
  for (int& s : sockets_) {
    if (s < 0) continue;
    if (SendAllWaiting(s, p, n, opt_.socket_timeout_ms, &stop_sending_)) {
      any = true;
      continue;
    }
    close(s);
    s = -1;
  }
  if (any) return true;
  *error = "no replica left to send the RDB to";
  return false;
}

bool CowSnapshot::Busy() { return g_current != nullptr; }

void CowSnapshot::RunSlice() {
  CowSnapshot* s = g_current;
  if (s == nullptr) return;
  int64_t now = MonotonicUs();
  int64_t serving = g_last_slice_end_us == 0 ? 0 : now - g_last_slice_end_us;
  s->Step(std::clamp(serving, kMinSliceUs, kMaxSliceUs));
  g_last_slice_end_us = MonotonicUs();
}

int64_t CowSnapshot::WaitMs() {
  const CowSnapshot* s = g_current;
  if (s == nullptr) return -1;
  if (s->Backlogged()) return 1;
  if (s->opt_.key_save_delay_us > 0) {
    int64_t now = MonotonicUs();
    if (s->KeysAllowed(now) <= 0) {
      int64_t wait_us = static_cast<int64_t>(s->walk_saved_) * s->opt_.key_save_delay_us -
                        (now - s->start_us_);
      return std::max<int64_t>(1, (wait_us + 999) / 1000);
    }
  }
  return 0;
}

int64_t CowSnapshot::KeysAllowed(int64_t now_us) const {
  if (opt_.key_save_delay_us <= 0) return INT64_MAX;
  return (now_us - start_us_) / opt_.key_save_delay_us + 1 - static_cast<int64_t>(walk_saved_);
}

void CowSnapshot::Step(int64_t budget_us) {
  if (!walking_) return;
  int64_t deadline = MonotonicUs() + budget_us;
  const bool delayed = opt_.key_save_delay_us > 0;
  for (;;) {
    if (writer_.failed() || writer_result_.load(std::memory_order_acquire) == 2) {
      StopWalking();
      {
        std::lock_guard<std::mutex> lock(mu_);
        abort_ = true;
      }
      cv_.notify_one();
      if (thread_.joinable()) thread_.join();
      status_ = Status::kFailed;
      error_ = writer_error_.empty() ? writer_.error() : writer_error_;
      return;
    }
    if (Backlogged()) return;
    int64_t now = MonotonicUs();
    if (delayed && KeysAllowed(now) <= 0) return;
    size_t saved = 0;
    if (!adopted_.empty()) {
      DrainAdopted(&saved);
    } else {
      while (next_db_ < dbs_.size() && dbs_[next_db_]->SnapshotWalkDone()) ++next_db_;
      if (next_db_ == dbs_.size()) {
        // SWAPDB may have moved an unfinished table to a database already passed.
        next_db_ = 0;
        while (next_db_ < dbs_.size() && dbs_[next_db_]->SnapshotWalkDone()) ++next_db_;
        if (next_db_ == dbs_.size()) {
          CompleteWalk();
          return;
        }
      }
      saved = dbs_[next_db_]->SnapshotStep(delayed ? 1 : kBucketsPerStep);
    }
    walk_saved_ += saved;
    if (MonotonicUs() >= deadline) return;
  }
}

bool CowSnapshot::Backlogged() const {
  if (opt_.deliver) return opt_.backlog && opt_.backlog() > kMaxQueuedBytes;
  return queued_bytes_.load(std::memory_order_relaxed) > kMaxQueuedBytes;
}

void CowSnapshot::Finish() {
  while (walking_) {
    if (!opt_.deliver && queued_bytes_.load(std::memory_order_relaxed) > kMaxQueuedBytes) {
      usleep(200);
    }
    opt_.key_save_delay_us = 0;
    Step(1000000);
  }
}

void CowSnapshot::SaveEntry(int origin_db, const Entry* e) {
  ++keys_processed_;
  // Keys already expired when the snapshot began are not part of it.
  if (e->expire_ms() != 0 && e->expire_ms() <= start_ms_) return;
  if (opt_.slots != nullptr && !opt_.slots->test(KeyHashSlot(e->Key()))) return;
  if (writer_.failed()) return;
  if (opt_.commands) {
    std::string out;
    if (origin_db != current_db_) AppendSelect(&out, origin_db);
    current_db_ = origin_db;
    AppendKeyCommands(&out, e, opt_.write);
    writer_.Raw(out.data(), out.size());
    return;
  }
  if (origin_db != current_db_) {
    size_t i = static_cast<size_t>(origin_db);
    bool first = i < selected_.size() && !selected_[i];
    WriteRdbSelectDb(writer_, origin_db, first ? sizes_[i] : 0, first ? volatile_[i] : 0,
                     first);
    if (first) selected_[i] = true;
    current_db_ = origin_db;
  }
  if (!DeferLargeString(e)) WriteRdbKey(writer_, e);
}

bool CowSnapshot::DeferLargeString(const Entry* e) {
  // Only with a writer thread (a file or sockets), whose order of chunks is the file's.
  if (opt_.deliver || e->type() != ObjType::kString || e->encoding() != Encoding::kRaw ||
      e->str->len < kSnapshotByReferenceMin) {
    return false;
  }
  WriteRdbKeyHeader(writer_, e);
  writer_.Flush();  // the key's bytes go before the value (Consume)
  if (writer_result_.load(std::memory_order_acquire) == 2) return true;  // failed: no more
  PinBlob(e->str);
  Enqueue({std::string(), e->str}, e->str->len);
  return true;
}

void CowSnapshot::Enqueue(Queued q, size_t n) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(q));
  }
  const size_t now_queued = queued_bytes_.fetch_add(n, std::memory_order_relaxed) + n;
  if (now_queued > peak_queued_bytes_) peak_queued_bytes_ = now_queued;
  cv_.notify_one();
}

void CowSnapshot::DropQueued() {
  std::deque<Queued> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    left.swap(queue_);
  }
  for (Queued& q : left) {
    if (q.value != nullptr) UnpinBlob(q.value);
  }
}

void CowSnapshot::AdoptTable(int origin_db, HashTable<Entry>* table) {
  adopted_.push_back({origin_db, table, 0});
}

void CowSnapshot::DrainAdopted(size_t* saved) {
  Adopted& a = adopted_.back();
  batch_.clear();
  a.cursor = a.table->Scan(a.cursor, [&](Entry* e) { batch_.push_back(e); });
  // Nothing else can reach an adopted table: its entries are saved (if pending) and freed.
  for (Entry* e : batch_) {
    if (Db::SnapshotPending(e)) {
      SaveEntry(a.origin, e);
      ++*saved;
    }
    a.table->Remove(e->Key());
    FreeEntry(e);
  }
  batch_.clear();
  if (a.cursor == 0) {
    // Nothing was added to the table and every entry present was visited: it is empty.
    delete a.table;
    adopted_.pop_back();
  }
}

void CowSnapshot::CompleteWalk() {
  if (!opt_.commands) writer_.Byte(rdb::kOpEof);
  writer_.Flush();
  StopWalking();
  if (opt_.deliver) {
    writer_result_.store(1, std::memory_order_release);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    finish_ = true;
  }
  cv_.notify_one();
}

void CowSnapshot::StopWalking() {
  if (!walking_) return;
  walking_ = false;
  bool complete = adopted_.empty();
  for (Db* db : dbs_) complete = complete && db->SnapshotWalkDone();
  if (!complete) g_bits_dirty = true;
  Db::EndSnapshot();
  if (g_current == this) g_current = nullptr;
  g_last_slice_end_us = 0;
  for (Adopted& a : adopted_) {
    HashTable<Entry>* t = a.table;
    LazyFreeJob([t] {
      t->Clear([](Entry* e) { FreeEntry(e); });
      delete t;
    });
  }
  adopted_.clear();
}

bool CowSnapshot::Consume(std::string* bytes) {
  if (writer_result_.load(std::memory_order_acquire) == 2) return false;
  if (opt_.deliver) {
    opt_.deliver(std::move(*bytes));
    bytes->clear();
    return true;
  }
  const size_t n = bytes->size();
  Enqueue({std::move(*bytes), nullptr}, n);
  bytes->clear();
  return true;
}

void CowSnapshot::WriterMain() {
  uint64_t crc = 0;
  WritebackPacer pacer(kSyncEveryBytes);
  bool failed = false;
  // The first failure is published at once, so the walk stops producing output.
  auto fail = [&](const std::string& what) {
    if (failed) return;
    failed = true;
    writer_error_ = what;
    writer_result_.store(2, std::memory_order_release);
  };
  const bool to_sockets = !opt_.sockets.empty();
  if (to_sockets) {
    std::string e;
    if (!WriteOut(opt_.preamble.data(), opt_.preamble.size(), &e)) fail(e);
  }
  // Encodes the large string values the execution thread left to this thread (LZF included).
  RdbWriter encoder(-1, opt_.write);
  for (;;) {
    std::string chunk;
    size_t queued = 0;
    bool finish = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return abort_ || finish_ || !queue_.empty(); });
      if (abort_) break;
      if (queue_.empty()) {
        finish = true;
      } else {
        Queued q = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        if (q.value != nullptr) {
          queued = q.value->len;
          if (!failed) {
            encoder.buffer().clear();
            encoder.String(q.value->View());
            chunk.swap(encoder.buffer());
          }
          UnpinBlob(q.value);
        } else {
          chunk = std::move(q.bytes);
          queued = chunk.size();
        }
      }
    }
    if (finish) {
      if (failed) break;
      char tail[8];
      uint64_t sum = opt_.write.checksum ? crc : 0;
      for (int i = 0; i < 8; ++i) tail[i] = static_cast<char>(sum >> (8 * i));
      std::string e;
      if (to_sockets) {
        // The checksum, then the mark that ends the stream.
        if (WriteOut(tail, 8, &e) &&
            WriteOut(opt_.eof_mark.data(), opt_.eof_mark.size(), &e)) {
          bytes_written_.fetch_add(8, std::memory_order_relaxed);
          writer_result_.store(1, std::memory_order_release);
          return;
        }
        fail(e);
      } else if (!opt_.commands && !WriteAll(fd_, tail, 8, &e)) {
        fail(e);
      } else if (fsync(fd_) != 0) {
        fail(strerror(errno));
      } else {
        int fd = fd_;
        fd_ = -1;
        if (close(fd) != 0) {
          fail(strerror(errno));
        } else if (rename(opt_.temp_path.c_str(), opt_.path.c_str()) != 0) {
          fail(std::string("rename: ") + strerror(errno));
        } else {
          // The rename is durable only once the directory entry is.
          int dfd = open(DirOf(opt_.path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
          if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
          }
          if (!opt_.commands) bytes_written_.fetch_add(8, std::memory_order_relaxed);
          writer_result_.store(1, std::memory_order_release);
          return;
        }
      }
      break;
    }
    if (!failed) {
      crc = Crc64(crc, chunk.data(), chunk.size());
      std::string e;
      if (!WriteOut(chunk.data(), chunk.size(), &e)) {
        fail(e);
      } else {
        bytes_written_.fetch_add(chunk.size(), std::memory_order_relaxed);
        if (!to_sockets && !pacer.Wrote(fd_, chunk.size())) fail(strerror(errno));
      }
    }
    queued_bytes_.fetch_sub(queued, std::memory_order_relaxed);
  }
  DropQueued();
  // Aborted or failed: the temp file goes.
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  if (!to_sockets) unlink(opt_.temp_path.c_str());
}

CowSnapshot::Status CowSnapshot::Poll() {
  if (status_ != Status::kRunning) return status_;
  if (walking_) return status_;
  int r = writer_result_.load(std::memory_order_acquire);
  if (r == 0) return status_;
  if (thread_.joinable()) thread_.join();
  if (r == 1) {
    status_ = Status::kSucceeded;
  } else {
    status_ = Status::kFailed;
    error_ = writer_error_;
  }
  return status_;
}

CowSnapshot::Status CowSnapshot::Wait() {
  Finish();
  while (Poll() == Status::kRunning) usleep(1000);
  return status_;
}

void CowSnapshot::Abort() {
  if (status_ != Status::kRunning) return;
  StopWalking();
  stop_sending_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    abort_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  status_ = writer_result_.load(std::memory_order_acquire) == 1 ? Status::kSucceeded
                                                                 : Status::kAborted;
}

}  // namespace vireo
