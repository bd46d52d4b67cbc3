#include "store/stream.h"

namespace vireo {
namespace {

// Valkey's cap on a node whatever stream-node-max-bytes says (lengths are 32-bit).
constexpr uint64_t kNodeHardMaxBytes = 1ull << 30;

void FreeNodes(StreamNodeIndex* index) {
  for (size_t i = 0; i < index->size(); ++i) StreamNodeFree((*index)[i].node);
  index->Clear();
}

// Flags entry e of node i deleted and drops the node once nothing in it is live.
void FlagDeleted(Stream* s, size_t i, const StreamEntryRef& e) {
  StreamNode* n = s->index[i].node;
  *e.flags |= 0x80;
  --n->live;
  ++n->deleted;
  --s->length;
}

void DropIfEmpty(Stream* s, size_t i) {
  StreamNode* n = s->index[i].node;
  if (n->live != 0) return;
  StreamNodeFree(n);
  s->index.Erase(i);
}

}  // namespace

Stream::~Stream() { FreeNodes(&index); }

StreamGroup* Stream::FindGroup(std::string_view name) const {
  if (!groups) return nullptr;
  auto it = groups->find(name);
  return it == groups->end() ? nullptr : it->second.get();
}

StreamGroup* Stream::CreateGroup(std::string_view name, StreamID last, int64_t entries_read) {
  if (!groups) groups = std::make_unique<StreamGroups>();
  auto [it, inserted] = groups->try_emplace(std::string(name));
  if (!inserted) return nullptr;
  it->second = std::make_unique<StreamGroup>();
  it->second->last_id = last;
  it->second->entries_read = entries_read;
  return it->second.get();
}

bool Stream::DestroyGroup(std::string_view name) {
  if (!groups) return false;
  auto it = groups->find(name);
  if (it == groups->end()) return false;
  groups->erase(it);
  return true;
}

StreamAddStatus StreamAppend(Stream* s, StreamAddId want, int64_t now_ms,
                             const std::string_view* fv, size_t pairs,
                             const StreamNodeLimits& limits, StreamID* added) {
  StreamID id;
  switch (want.mode) {
    case StreamAddId::kExplicit:
      id = want.id;
      break;
    case StreamAddId::kAutoSeq:
      if (s->last_id.ms == want.id.ms) {
        if (s->last_id.seq == UINT64_MAX) return StreamAddStatus::kIdTooSmall;
        id = {s->last_id.ms, s->last_id.seq + 1};
      } else {
        id = {want.id.ms, 0};
      }
      break;
    case StreamAddId::kAuto: {
      auto now = static_cast<uint64_t>(now_ms);
      if (now > s->last_id.ms) {
        id = {now, 0};
      } else {
        id = s->last_id;
        IncrStreamId(&id);  // wraps to 0-0 at the very end, refused below
      }
      break;
    }
  }
  if (id <= s->last_id) return StreamAddStatus::kIdTooSmall;

  uint64_t raw = 0;
  for (size_t i = 0; i < 2 * pairs; ++i) raw += fv[i].size();
  if (raw > kNodeHardMaxBytes) return StreamAddStatus::kTooLarge;

  uint64_t max_bytes = limits.max_bytes;
  if (max_bytes == 0 || max_bytes > kNodeHardMaxBytes) max_bytes = kNodeHardMaxBytes;
  bool new_node = s->index.empty();
  if (!new_node) {
    StreamNodeIndex::Slot& tail = s->index[s->index.size() - 1];
    if (tail.node->used + raw >= max_bytes ||
        (limits.max_entries != 0 && tail.node->total() >= limits.max_entries) ||
        tail.node->total() >= UINT32_MAX - 1) {
      tail.node = StreamNodeShrink(tail.node);  // it will not grow any more
      new_node = true;
    } else {
      tail.node = StreamNodeAppend(tail.node, tail.base, id, fv, pairs);
    }
  }
  if (new_node) s->index.PushBack(id, StreamNodeCreate(id, id, fv, pairs));

  ++s->length;
  ++s->entries_added;
  s->last_id = id;
  if (s->length == 1) s->first_id = id;
  *added = id;
  return StreamAddStatus::kOk;
}

bool StreamDeleteEntry(Stream* s, StreamID id) {
  size_t i = s->index.Find(id);
  if (i == StreamNodeIndex::kNone) return false;
  StreamNodeCursor cursor(s->index[i].node, s->index[i].base);
  StreamEntryRef e;
  while (cursor.Next(&e)) {
    if (e.id < id) continue;
    if (e.id > id || e.deleted()) return false;
    FlagDeleted(s, i, e);
    DropIfEmpty(s, i);
    return true;
  }
  return false;
}

bool StreamHasEntry(const Stream& s, StreamID id) {
  StreamIterator it(s, id, id, false);
  return it.Next();
}

int64_t StreamTrim(Stream* s, const StreamTrimArgs& a) {
  if (a.strategy == StreamTrimArgs::kNone) return 0;
  bool by_len = a.strategy == StreamTrimArgs::kMaxLen;
  int64_t deleted = 0;
  while (!s->index.empty()) {
    if (by_len && s->length <= a.maxlen) break;
    StreamNodeIndex::Slot& slot = s->index[0];
    StreamNode* n = slot.node;
    auto entries = static_cast<int64_t>(n->live);
    if (a.limit != 0 && deleted + entries > a.limit) break;
    bool whole = by_len ? s->length - n->live >= a.maxlen : n->last < a.minid;
    if (whole) {
      s->length -= n->live;
      deleted += entries;
      StreamNodeFree(n);
      s->index.Erase(0);
      continue;
    }
    if (a.approx) break;
    // Flag entries of this node one by one; there is enough here to finish.
    StreamNodeCursor cursor(n, slot.base);
    StreamEntryRef e;
    while (cursor.Next(&e)) {
      if (by_len ? s->length <= a.maxlen : e.id >= a.minid) break;
      if (e.deleted()) continue;
      FlagDeleted(s, 0, e);
      ++deleted;
    }
    // A node emptied here stays (its entries count towards the node size limit), as in
    // Valkey: node boundaries, and so approximate trimming, stay the same.
    break;
  }
  if (s->length == 0) {
    s->first_id = kMinStreamId;
  } else if (deleted != 0) {
    StreamFirstEntryId(*s, &s->first_id);
  }
  return deleted;
}

bool StreamFirstEntryId(const Stream& s, StreamID* id) {
  StreamIterator it(s, kMinStreamId, kMaxStreamId, false);
  if (!it.Next()) return false;
  *id = it.id();
  return true;
}

bool StreamLastEntryId(const Stream& s, StreamID* id) {
  StreamIterator it(s, kMinStreamId, kMaxStreamId, true);
  if (!it.Next()) return false;
  *id = it.id();
  return true;
}

StreamIterator::StreamIterator(const Stream& s, StreamID start, StreamID end, bool reverse)
    : s_(s), start_(start), end_(end), reverse_(reverse) {
  done_ = start > end || s.index.empty();
}

bool StreamIterator::OpenNode(size_t i) {
  node_ = i;
  const StreamNodeIndex::Slot& slot = s_.index[i];
  cursor_ = StreamNodeCursor(slot.node, slot.base);
  in_node_ = true;
  return true;
}

bool StreamIterator::Next() {
  if (done_) return false;
  bool ok = reverse_ ? NextReverse() : NextForward();
  if (!ok) done_ = true;
  return ok;
}

bool StreamIterator::NextForward() {
  for (;;) {
    if (!in_node_) {
      size_t next;
      if (node_ == StreamNodeIndex::kNone) {
        next = s_.index.Find(start_);
        if (next == StreamNodeIndex::kNone) next = 0;
      } else {
        next = node_ + 1;
      }
      if (next >= s_.index.size() || s_.index[next].base > end_) return false;
      OpenNode(next);
    }
    if (!cursor_.Next(&entry_)) {
      in_node_ = false;
      continue;
    }
    if (entry_.id < start_) continue;
    if (entry_.id > end_) return false;
    if (!entry_.deleted()) return true;
  }
}

bool StreamIterator::NextReverse() {
  for (;;) {
    if (!in_node_) {
      size_t next;
      if (node_ == StreamNodeIndex::kNone) {
        next = s_.index.Find(end_);
        if (next == StreamNodeIndex::kNone) return false;
      } else {
        if (node_ == 0) return false;
        next = node_ - 1;
      }
      OpenNode(next);
      // Remember where each entry starts, then replay them from the last.
      marks_.clear();
      StreamEntryRef e;
      for (;;) {
        StreamNodeCursor::Mark m = cursor_.mark();
        if (!cursor_.Next(&e)) break;
        if (e.id > end_) break;
        marks_.push_back(m);
      }
      mark_ = marks_.size();
    }
    if (mark_ == 0) {
      in_node_ = false;
      continue;
    }
    --mark_;
    cursor_.SeekTo(marks_[mark_]);
    cursor_.Next(&entry_);
    if (entry_.id < start_) return false;
    if (!entry_.deleted()) return true;
  }
}

Stream* StreamCopy(const Stream& s) {
  auto* c = new Stream();
  for (size_t i = 0; i < s.index.size(); ++i) {
    c->index.PushBack(s.index[i].base, StreamNodeCopy(s.index[i].node));
  }
  c->length = s.length;
  c->entries_added = s.entries_added;
  c->last_id = s.last_id;
  c->first_id = s.first_id;
  c->max_deleted_id = s.max_deleted_id;
  if (s.groups) {
    c->groups = std::make_unique<StreamGroups>();
    for (const auto& [name, g] : *s.groups) c->groups->emplace(name, StreamGroupCopy(*g));
  }
  return c;
}

size_t StreamMemory(const Stream& s) {
  size_t n = sizeof(Stream) + s.index.AllocBytes();
  for (size_t i = 0; i < s.index.size(); ++i) n += StreamNodeAllocSize(s.index[i].node);
  if (s.groups) {
    for (const auto& [name, g] : *s.groups) n += 64 + name.size() + StreamGroupMemory(*g);
  }
  return n;
}

size_t StreamFreeEffort(const Stream& s) {
  size_t n = s.index.size();
  if (s.groups) {
    for (const auto& [name, g] : *s.groups) n += 1 + g->pel.size() + g->consumers.size();
  }
  return n;
}

}  // namespace vireo
