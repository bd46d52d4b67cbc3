// A stream value: entries packed in nodes (store/stream_node.h) indexed by ID
// (store/stream_index.h), the ID bookkeeping Valkey exposes (last generated ID, first entry,
// largest deleted ID, entries ever added) and the consumer groups (store/stream_group.h).
// Pure data structure: no commands, no replies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "store/stream_group.h"
#include "store/stream_id.h"
#include "store/stream_index.h"
#include "store/stream_node.h"

namespace vireo {

struct Stream {
  StreamNodeIndex index;
  uint64_t length = 0;                   // live entries
  uint64_t entries_added = 0;            // entries ever added (XSETID may set it)
  StreamID last_id;                      // last generated ID
  StreamID first_id;                     // first live entry, 0-0 when empty
  StreamID max_deleted_id;               // largest ID deleted by XDEL/XTRIM-less deletion
  std::unique_ptr<StreamGroups> groups;  // created with the first group

  Stream() = default;
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  StreamGroup* FindGroup(std::string_view name) const;
  // A new group, or nullptr when the name is taken.
  StreamGroup* CreateGroup(std::string_view name, StreamID last_id, int64_t entries_read);
  // False when there was no such group.
  bool DestroyGroup(std::string_view name);
  size_t GroupCount() const { return groups ? groups->size() : 0; }
};

// Node size limits (stream-node-max-bytes / stream-node-max-entries; 0 = no limit).
struct StreamNodeLimits {
  uint64_t max_bytes = 4096;
  uint64_t max_entries = 100;
};

// How XADD names the new entry: "*", "<ms>-*" or an explicit ID.
struct StreamAddId {
  enum Mode : uint8_t { kAuto, kAutoSeq, kExplicit } mode = kAuto;
  StreamID id;
};

enum class StreamAddStatus : uint8_t {
  kOk,
  kIdTooSmall,  // not greater than the last ID (or no ID left)
  kTooLarge,    // the elements exceed what a node can hold
};

// Appends the entry fv[0..2*pairs) (field, value, ...). now_ms feeds "*" IDs.
StreamAddStatus StreamAppend(Stream* s, StreamAddId want, int64_t now_ms,
                             const std::string_view* fv, size_t pairs,
                             const StreamNodeLimits& limits, StreamID* added);

// Deletes the live entry id; false if there is none. Updates length and removes emptied
// nodes, but not first_id / max_deleted_id (the caller decides, as XDEL does).
bool StreamDeleteEntry(Stream* s, StreamID id);
// Whether id is a live entry.
bool StreamHasEntry(const Stream& s, StreamID id);

struct StreamTrimArgs {
  enum Strategy : uint8_t { kNone, kMaxLen, kMinId } strategy = kNone;
  bool approx = false;
  int64_t limit = 0;  // 0 = no limit on deleted entries
  uint64_t maxlen = 0;
  StreamID minid;
};
// Deletes old entries as XTRIM / XADD MAXLEN|MINID do; returns how many.
int64_t StreamTrim(Stream* s, const StreamTrimArgs& args);

// The first / last live entry; false when the stream is empty.
bool StreamFirstEntryId(const Stream& s, StreamID* id);
bool StreamLastEntryId(const Stream& s, StreamID* id);

// Visits the live entries with start <= ID <= end, in order or reversed:
//   for (StreamIterator it(s, a, b, false); it.Next();) { it.id(); it.Fields()... }
// The stream must not change while iterating.
class StreamIterator {
 public:
  StreamIterator(const Stream& s, StreamID start, StreamID end, bool reverse);
  bool Next();
  StreamID id() const { return entry_.id; }
  uint32_t num_fields() const { return entry_.num_fields; }
  StreamFieldReader Fields() const { return StreamFieldReader(cursor_, entry_); }

 private:
  bool NextForward();
  bool NextReverse();
  bool OpenNode(size_t i);

  const Stream& s_;
  StreamID start_, end_;
  bool reverse_;
  bool done_ = false;
  bool in_node_ = false;
  size_t node_ = StreamNodeIndex::kNone;
  StreamNodeCursor cursor_;
  StreamEntryRef entry_{};
  // Reverse walks decode a node forward once and replay its entries from the end.
  std::vector<StreamNodeCursor::Mark> marks_;
  size_t mark_ = 0;
};

// A deep copy (COPY), its memory, and freeing.
Stream* StreamCopy(const Stream& s);
size_t StreamMemory(const Stream& s);
// Elements to free (decides lazy freeing).
size_t StreamFreeEffort(const Stream& s);

}  // namespace vireo
