// A point-in-time RDB snapshot of the keyspace written without fork (BGSAVE, save points,
// the AOF rewrite's base file in either format, a diskless full sync). The dataset as it was at Start is serialized on the
// execution thread in small time-bounded slices between event-loop turns, and any key about
// to change before the walk reached it is serialized first (per-key copy-on-write through
// the Db hook, see SnapshotObserver in store/db.h); large string values are only pinned there
// and encoded (compressed) by the writer thread. A writer thread computes the CRC64,
// writes the bytes to the temp file (fdatasync every 4 MB), then fsyncs, renames it over
// the final path and fsyncs the directory, off the execution thread.
//
// Extra memory is the output queued for the writer thread (the walk pauses beyond 8 MB; keys
// saved because a command is about to change them are always queued) plus the tables of
// databases flushed mid-walk until their pending keys are written. One snapshot at a time
// per process: Start fails while another one walks (Busy()).
#pragma once

#include <atomic>
#include <bitset>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "persistence/rdb_writer.h"
#include "store/db.h"

namespace vireo {

struct CowSnapshotOptions {
  std::string temp_path;  // written, fsynced, then renamed to path
  std::string path;
  // A diskless full sync instead of a file: preamble, the RDB, then eof_mark go to each of
  // these sockets (owned by the snapshot from Start, closed at its end). A socket that fails
  // or stays full for socket_timeout_ms is dropped; the transfer fails when none is left.
  std::vector<int> sockets;
  std::string preamble;  // "+FULLRESYNC <id> <offset>\r\n$EOF:<mark>\r\n"
  std::string eof_mark;
  int64_t socket_timeout_ms = 60000;
  RdbWriteOptions write;
  RdbAuxInfo aux;
  // The AOF base as commands (aof-use-rdb-preamble no) instead of an RDB: the functions of
  // aux, then SELECT and each key's commands; no RDB header, EOF or checksum.
  bool commands = false;
  bool timestamp = false;  // commands: begin with a #TS: annotation (aof-timestamp-enabled)
  // rdb-key-save-delay: the walk saves at most one key per this many microseconds (without
  // sleeping the execution thread), so tests can overlap writes with a running save.
  int64_t key_save_delay_us = 0;
  // Atomic slot migration: only keys of these hash slots are written (nullptr: all keys).
  const std::bitset<16384>* slots = nullptr;
  // Instead of a file or sockets: each chunk of output is handed to deliver on the execution
  // thread as it is produced (no writer thread); the walk pauses while backlog() (what the
  // receiver has not sent on yet) exceeds 8 MB. The snapshot succeeds when the walk ends.
  std::function<void(std::string&&)> deliver;
  std::function<size_t()> backlog;
};

class CowSnapshot final : public SnapshotObserver, private RdbSink {
 public:
  enum class Status { kRunning, kSucceeded, kFailed, kAborted };

  // Opens temp_path, starts the writer thread, writes the header and begins the snapshot of
  // dbs (each written under its index). nullptr with *error when another snapshot runs or
  // the file cannot be created.
  static std::unique_ptr<CowSnapshot> Start(const std::vector<Db*>& dbs,
                                            CowSnapshotOptions options, std::string* error);
  ~CowSnapshot() override;  // aborts if still running
  CowSnapshot(const CowSnapshot&) = delete;
  CowSnapshot& operator=(const CowSnapshot&) = delete;

  // True while some snapshot walks the keyspace (Start would fail).
  static bool Busy();
  // The walking snapshot's slice, from the event loop after each turn. It lasts as long as
  // the loop served clients since the previous slice (0.2 to 2 ms), so a busy server gives
  // the snapshot about half of its time and an idle one nearly all of it.
  static void RunSlice();
  // How long the event loop may sleep in ms: 0 while a walk has work, the time to the next
  // key under rdb-key-save-delay, -1 when no snapshot walks.
  static int64_t WaitMs();

  // One slice of at most budget_us of walking (the event loop uses RunSlice).
  void Step(int64_t budget_us);
  // Walks to the end now (tests, callers that must not wait); the writer thread still syncs.
  void Finish();
  // kRunning until the writer thread has renamed the file (kSucceeded) or failed.
  Status Poll();
  // Blocks until Poll() leaves kRunning (after Finish).
  Status Wait();
  // Stops now: the temp file is removed and the keyspace released; Poll() says kAborted.
  void Abort();

  bool walking() const { return walking_; }
  uint64_t keys_processed() const { return keys_processed_; }
  uint64_t keys_total() const { return keys_total_; }
  int64_t start_ms() const { return start_ms_; }
  uint64_t bytes_written() const { return bytes_written_.load(std::memory_order_relaxed); }
  // The snapshot's extra memory: output waiting for the writer thread (what a fork's
  // copy-on-write pages are to Valkey's INFO cow fields), now and at its peak.
  size_t queued_bytes() const { return queued_bytes_.load(std::memory_order_relaxed); }
  size_t peak_queued_bytes() const { return peak_queued_bytes_; }
  const std::string& error() const { return error_; }
  // Sockets mode, once Poll() has left kRunning: whether options.sockets[i] got it all.
  bool delivered(size_t i) const { return i < sockets_.size() && sockets_[i] >= 0; }
  size_t socket_count() const { return sockets_.size(); }

 private:
  CowSnapshot(const std::vector<Db*>& dbs, CowSnapshotOptions options, int fd);

  void SaveEntry(int origin_db, const Entry* e) override;
  void AdoptTable(int origin_db, HashTable<Entry>* table) override;
  bool Consume(std::string* bytes) override;

  // One scan step of the last adopted table: saves its pending entries and frees them all.
  void DrainAdopted(size_t* saved);
  // The walk is complete: EOF, end the snapshot, let the writer thread finish the file.
  void CompleteWalk();
  // Releases the keyspace hook without a complete walk.
  void StopWalking();
  void WriterMain();
  int64_t KeysAllowed(int64_t now_us) const;
  // The walk waits: too much output not yet passed on.
  bool Backlogged() const;

  std::vector<Db*> dbs_;
  CowSnapshotOptions opt_;
  RdbWriter writer_;
  int64_t start_ms_;
  int64_t start_us_;
  bool walking_ = false;
  size_t next_db_ = 0;
  int current_db_ = -1;            // the database the output last selected
  std::vector<uint64_t> sizes_;    // per index: keys at start (RESIZEDB), 0 when absent
  std::vector<uint64_t> volatile_;
  std::vector<bool> selected_;     // RESIZEDB written
  struct Adopted {
    int origin;
    HashTable<Entry>* table;
    uint64_t cursor;
  };
  std::vector<Adopted> adopted_;
  std::vector<Entry*> batch_;
  uint64_t keys_processed_ = 0;
  uint64_t keys_total_ = 0;
  uint64_t walk_saved_ = 0;  // keys the walk itself saved (rdb-key-save-delay budget)
  Status status_ = Status::kRunning;
  std::string error_;

  // Writer thread: the snapshot's bytes go to `fd_` (a file) or to every live socket.
  bool WriteOut(const char* p, size_t n, std::string* error);
  int fd_;
  std::vector<int> sockets_;
  std::atomic<bool> stop_sending_{false};  // Abort: stop waiting on a full socket
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  // What the writer thread takes in order: bytes, or a large string value to encode there
  // (pinned until then, see SaveEntry).
  struct Queued {
    std::string bytes;
    StrBlob* value = nullptr;
  };
  // A large string value's RDB encoding (LZF included) is left to the writer thread: the
  // value is pinned (store/blob_pins.h) and queued after its key; true when e was so saved.
  bool DeferLargeString(const Entry* e);
  // Hands q (n bytes, or a value of n bytes) to the writer thread.
  void Enqueue(Queued q, size_t n);
  // Unpins the values of queued items that will never be written (abort, failure).
  void DropQueued();
  std::deque<Queued> queue_;
  std::atomic<size_t> queued_bytes_{0};
  size_t peak_queued_bytes_ = 0;  // execution thread only
  std::atomic<uint64_t> bytes_written_{0};
  bool finish_ = false;  // guarded by mu_: no more chunks; write the checksum and rename
  bool abort_ = false;   // guarded by mu_
  // 0 running, 1 renamed, 2 failed (writer_error_ set before the store).
  std::atomic<int> writer_result_{0};
  std::string writer_error_;
};

}  // namespace vireo
