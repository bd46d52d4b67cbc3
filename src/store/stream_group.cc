#include "store/stream_group.h"

#include "store/stream.h"

namespace vireo {

StreamConsumer* StreamGroup::FindConsumer(std::string_view name) const {
  auto it = consumers.find(name);
  return it == consumers.end() ? nullptr : it->second.get();
}

StreamConsumer* StreamGroup::CreateConsumer(std::string_view name, int64_t now_ms) {
  auto [it, inserted] = consumers.try_emplace(std::string(name));
  if (!inserted) return nullptr;
  it->second = std::make_unique<StreamConsumer>();
  it->second->name = it->first;
  it->second->seen_time = now_ms;
  return it->second.get();
}

size_t StreamGroup::DeleteConsumer(StreamConsumer* c) {
  size_t pending = c->pel.size();
  for (const auto& [id, nack] : c->pel) pel.erase(id);
  consumers.erase(consumers.find(c->name));
  return pending;
}

bool StreamGroup::Ack(StreamID id) {
  auto it = pel.find(id);
  if (it == pel.end()) return false;
  it->second.consumer->pel.erase(id);
  pel.erase(it);
  return true;
}

void StreamGroup::Assign(std::map<StreamID, StreamNack>::iterator it, StreamConsumer* c) {
  StreamNack& nack = it->second;
  if (nack.consumer == c) return;
  if (nack.consumer != nullptr) nack.consumer->pel.erase(it->first);
  c->pel.emplace(it->first, &nack);
  nack.consumer = c;
}

bool StreamRangeHasTombstones(const Stream& s, StreamID start, StreamID end) {
  if (s.length == 0 || s.max_deleted_id.IsZero()) return false;
  return start <= s.max_deleted_id && s.max_deleted_id <= end;
}

int64_t StreamEstimateDistance(const Stream& s, StreamID id) {
  // A stream that never had an entry: everything is at distance 0.
  if (s.entries_added == 0) return 0;
  auto added = static_cast<int64_t>(s.entries_added);
  // An empty stream: any ID up to the last one has seen every entry.
  if (s.length == 0 && id <= s.last_id) return added;
  // Before the last tombstone the count of entries is unknown.
  if (!id.IsZero() && id < s.max_deleted_id) return kStreamInvalidEntriesRead;
  if (id == s.last_id) return added;
  if (id > s.last_id) return kStreamInvalidEntriesRead;
  if (s.max_deleted_id.IsZero() || s.max_deleted_id < s.first_id) {
    // No tombstone between the first entry and the end.
    if (id < s.first_id) return added - static_cast<int64_t>(s.length);
    if (id == s.first_id) return added - static_cast<int64_t>(s.length) + 1;
  }
  return kStreamInvalidEntriesRead;
}

bool StreamGroupLag(const Stream& s, const StreamGroup& g, int64_t* lag) {
  auto added = static_cast<int64_t>(s.entries_added);
  if (s.entries_added == 0) {
    *lag = 0;
    return true;
  }
  if (g.entries_read != kStreamInvalidEntriesRead &&
      !StreamRangeHasTombstones(s, g.last_id, kMaxStreamId)) {
    *lag = added - g.entries_read;
    return true;
  }
  int64_t read = StreamEstimateDistance(s, g.last_id);
  if (read == kStreamInvalidEntriesRead) return false;
  *lag = added - read;
  return true;
}

void StreamGroupDelivered(const Stream& s, StreamGroup* g, StreamID id) {
  if (g->entries_read != kStreamInvalidEntriesRead && g->last_id >= s.first_id &&
      !StreamRangeHasTombstones(s, g->last_id, kMaxStreamId)) {
    // A valid counter and no tombstone ahead: count this one.
    ++g->entries_read;
  } else if (s.entries_added != 0) {
    g->entries_read = StreamEstimateDistance(s, id);
  }
  g->last_id = id;
}

std::unique_ptr<StreamGroup> StreamGroupCopy(const StreamGroup& g) {
  auto c = std::make_unique<StreamGroup>();
  c->last_id = g.last_id;
  c->entries_read = g.entries_read;
  for (const auto& [name, consumer] : g.consumers) {
    StreamConsumer* nc = c->CreateConsumer(name, consumer->seen_time);
    nc->active_time = consumer->active_time;
  }
  for (const auto& [id, nack] : g.pel) {
    StreamNack copy = nack;
    copy.consumer = c->FindConsumer(nack.consumer->name);
    auto it = c->pel.emplace(id, copy).first;
    copy.consumer->pel.emplace(id, &it->second);
  }
  return c;
}

size_t StreamGroupMemory(const StreamGroup& g) {
  // std::map nodes: 32 bytes of links and color plus the pair, in jemalloc classes.
  constexpr size_t kPelNode = 80;        // group PEL node (ID + nack)
  constexpr size_t kConsumerPel = 64;    // consumer PEL node (ID + pointer)
  constexpr size_t kConsumer = 48 + 96;  // consumers map node + consumer object
  size_t n = sizeof(StreamGroup) + g.pel.size() * (kPelNode + kConsumerPel);
  for (const auto& [name, c] : g.consumers) {
    n += kConsumer + (name.size() > 15 ? 2 * name.size() : 0);
  }
  return n;
}

}  // namespace vireo
