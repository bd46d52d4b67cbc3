// The write loop every persistence file shares.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

namespace vireo {

// Writes all n bytes, going on after short writes and EINTR; false with errno set otherwise.
bool WriteAll(int fd, const char* p, size_t n);

// Replaces path with text so that a crash leaves the old or the new file, never a mix: a
// temp file beside it, fsync, rename, fsync of the directory. False with *error otherwise.
// durable = false skips both fsyncs (a process crash still sees old or new; a power loss may
// not): for files rewritten very often, such as nodes.conf on every CLUSTER SETSLOT.
bool WriteFileAtomically(const std::string& path, const std::string& text, std::string* error,
                         bool durable = true);

// Keeps a file written front to back from piling up dirty pages (whose writeback would
// otherwise come all at once, at the final fsync or when the kernel's limits throttle every
// writer), as an fsync every few MB would, but without the journal commit each fsync forces:
// on ext4 a commit holds the writes of every other file meanwhile, the AOF's on the execution
// thread included. Each step (per `step` bytes written) starts the writeback of the bytes since
// the last step and waits for the step before's (sync_file_range, Linux). Not a durability
// point: the file still gets its fsync at the end.
class WritebackPacer {
 public:
  explicit WritebackPacer(size_t step) : step_(static_cast<off_t>(step)) {}
  // n more bytes were written to fd at the end of what it had; false with errno set if the
  // writeback failed (an I/O error).
  bool Wrote(int fd, size_t n);

 private:
  const off_t step_;
  off_t written_ = 0;   // bytes written so far
  off_t started_ = 0;   // writeback started up to here
  off_t waited_ = 0;    // written back (waited for) up to here
};

}  // namespace vireo
