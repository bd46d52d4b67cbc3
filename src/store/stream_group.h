// Stream consumer groups: the group's pending entries list (PEL, ordered by ID), its
// consumers (each with its own PEL sharing the group's entries), and the read-counter / lag
// arithmetic Valkey reports in XINFO.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "store/stream_id.h"

namespace vireo {

struct Stream;
struct StreamConsumer;

// entries_read value meaning "unknown" (XINFO shows it as null).
inline constexpr int64_t kStreamInvalidEntriesRead = -1;

// A delivered, not yet acknowledged entry.
struct StreamNack {
  int64_t delivery_time = 0;  // unix ms of the last delivery
  uint64_t delivery_count = 1;
  StreamConsumer* consumer = nullptr;
};

struct StreamConsumer {
  std::string name;
  int64_t seen_time = 0;                // last attempted interaction (unix ms)
  int64_t active_time = -1;             // last successful interaction, -1 = never
  std::map<StreamID, StreamNack*> pel;  // points into the group's PEL
};

struct StreamGroup {
  StreamID last_id;  // last delivered ID
  int64_t entries_read = kStreamInvalidEntriesRead;
  std::map<StreamID, StreamNack> pel;
  // Ordered by name bytes, as Valkey's radix tree lists them.
  std::map<std::string, std::unique_ptr<StreamConsumer>, std::less<>> consumers;

  StreamConsumer* FindConsumer(std::string_view name) const;
  // A new consumer seen at now_ms, or nullptr if one with that name exists.
  StreamConsumer* CreateConsumer(std::string_view name, int64_t now_ms);
  // Deletes the consumer and its pending entries; returns how many were pending.
  size_t DeleteConsumer(StreamConsumer* c);
  // Removes id from the PELs; false if it was not pending.
  bool Ack(StreamID id);
  // Gives the pending entry `it` to consumer c (moving it between consumer PELs).
  void Assign(std::map<StreamID, StreamNack>::iterator it, StreamConsumer* c);
};

using StreamGroups = std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>>;

// Whether [start, end] may hold a deleted entry (judged from the largest deleted ID).
bool StreamRangeHasTombstones(const Stream& s, StreamID start, StreamID end);
// The number of entries from the first ever added up to id, when it can be known, else
// kStreamInvalidEntriesRead.
int64_t StreamEstimateDistance(const Stream& s, StreamID id);
// The group's lag (entries added but not yet delivered); false when it cannot be known.
bool StreamGroupLag(const Stream& s, const StreamGroup& g, int64_t* lag);
// Records that id (> g->last_id) was delivered: advances last_id and the read counter.
void StreamGroupDelivered(const Stream& s, StreamGroup* g, StreamID id);

// Deep copy of a group (consumers and PEL re-linked) for COPY.
std::unique_ptr<StreamGroup> StreamGroupCopy(const StreamGroup& g);
// Approximate bytes held by a group.
size_t StreamGroupMemory(const StreamGroup& g);

}  // namespace vireo
