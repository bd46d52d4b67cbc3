// A stream node: up to stream-node-max-entries consecutive entries packed in one allocation.
//
// Layout: a 40-byte header, the "master" field names (those of the node's first entry), then
// the entries. Each entry is
//   flags byte: bit 7 deleted, bit 6 "own fields", bit 5 "seq follows", bits 0-4 the change
//               of the ms delta: the zigzag-coded (this entry's ms - previous ms) - (previous
//               entry's ms delta), so that regular sampling and bursts of "*" IDs both cost
//               nothing here (31 = the value minus 31 follows as a varint)
//   varint seq, only when not 0: seq - prev.seq - 1 when the ms part did not change, else the
//               seq itself (so consecutive "*" IDs and ms-only IDs store none)
//   values only, in master-field order (no own-fields bit), or
//   varint count + field/value pairs (own fields; a field equal to master field k < 16 is one
//   byte 0xF0|k)
// The previous entry of the first one is (base.ms, base.seq - 1) with an ms delta of 0, base
// being the key the node is indexed by. Values use a tagged encoding that stores canonical integers
// and short decimals ("21.5") as numbers and gives them back byte-identical:
//   0x00-0x7F integer 0..127          0x80-0xBF string of 0..63 bytes
//   0xC0-0xDF decimal: bits 0-3 digits after the point, bit 4 sign; varint mantissa
//   0xE0 integer >= 128 (varint)      0xE1 negative integer (varint of -(v+1))
//   0xE2 string (varint length)       0xF0-0xFF master field reference (fields only)
// So a time-series entry `temp 21.5 hum 40` takes 5 bytes, whatever its (regular) interval. Deleted
// entries keep their bytes (flagged) until the whole node goes, as Valkey's listpack nodes do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "store/stream_id.h"

namespace vireo {

struct StreamNode {
  uint32_t used;        // bytes of data[] in use
  uint32_t cap;         // bytes of data[] allocated
  uint32_t live;        // entries not flagged deleted
  uint32_t deleted;     // entries flagged deleted
  StreamID last;        // ID of the last entry appended (deleted or not)
  uint64_t last_delta;  // its ms delta to the entry before it
  unsigned char data[];

  uint32_t total() const { return live + deleted; }
};
static_assert(sizeof(StreamNode) == 40, "stream node header is 40 bytes");

// Scratch space for one decoded number (integers and decimals are formatted into it).
inline constexpr size_t kStreamValueBuf = 48;

// A node holding the single entry id with the field/value pairs fv[0..2*pairs); its master
// fields are that entry's fields. base is the key the node will be indexed by (<= id).
StreamNode* StreamNodeCreate(StreamID base, StreamID id, const std::string_view* fv, size_t pairs);
// Appends an entry (id > node->last) and returns the node's (possibly new) address.
StreamNode* StreamNodeAppend(StreamNode* n, StreamID base, StreamID id, const std::string_view* fv,
                             size_t pairs);
// Gives back the spare capacity kept for appends (a node that will not grow any more).
StreamNode* StreamNodeShrink(StreamNode* n);
void StreamNodeFree(StreamNode* n);
StreamNode* StreamNodeCopy(const StreamNode* n);
// Bytes allocated for the node.
size_t StreamNodeAllocSize(const StreamNode* n);

// One decoded entry of a node.
struct StreamEntryRef {
  StreamID id;
  unsigned char* flags;       // the entry's first byte (its deleted bit can be set in place)
  const unsigned char* body;  // values, or the count and pairs of an own-fields entry
  uint32_t num_fields;
  bool deleted() const { return (*flags & 0x80) != 0; }
  bool own_fields() const { return (*flags & 0x40) != 0; }
};

// Walks a node's entries in order (deleted ones included).
class StreamNodeCursor {
 public:
  StreamNodeCursor() = default;
  StreamNodeCursor(StreamNode* node, StreamID base);
  // The next entry, or false past the last one.
  bool Next(StreamEntryRef* e);
  // Where Next would continue (to walk a node backwards: remember marks, SeekTo them later).
  struct Mark {
    const unsigned char* p;
    StreamID prev;
    uint64_t prev_delta;
  };
  Mark mark() const { return {p_, prev_, prev_delta_}; }
  void SeekTo(const Mark& m) {
    p_ = m.p;
    prev_ = m.prev;
    prev_delta_ = m.prev_delta;
  }
  const unsigned char* master() const { return master_; }
  uint32_t master_count() const { return master_count_; }

 private:
  const unsigned char* p_ = nullptr;
  const unsigned char* end_ = nullptr;
  const unsigned char* master_ = nullptr;
  uint32_t master_count_ = 0;
  StreamID prev_;
  uint64_t prev_delta_ = 0;
};

// The field/value pairs of one entry.
class StreamFieldReader {
 public:
  StreamFieldReader(const StreamNodeCursor& cursor, const StreamEntryRef& e);
  // The next pair (views valid until the next call), false after the last.
  bool Next(std::string_view* field, std::string_view* value);

 private:
  const unsigned char* p_;
  const unsigned char* master_;
  const unsigned char* master_field_;  // next master field (same-fields entries)
  uint32_t left_;
  bool own_;
  char fbuf_[kStreamValueBuf];
  char vbuf_[kStreamValueBuf];
};

// Value codec, exposed for tests.
size_t StreamValueSize(std::string_view s);
unsigned char* StreamEncodeValue(std::string_view s, unsigned char* out);
const unsigned char* StreamDecodeValue(const unsigned char* p, char* buf, std::string_view* out);
const unsigned char* StreamSkipValue(const unsigned char* p);

}  // namespace vireo
