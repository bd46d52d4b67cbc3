#include "store/quicklist.h"

#include <liblzf/lzf.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/numbers.h"
#include "store/memory.h"

namespace vireo {
namespace {

constexpr size_t kSizeSafetyLimit = 8192;  // bytes cap of count-limited nodes
constexpr size_t kInsertOverhead = 8;      // over-estimate of an element's listpack overhead
constexpr size_t kMinCompressBytes = 48;   // smaller nodes are not worth compressing
constexpr size_t kMinCompressGain = 8;     // keep the compressed form only if it saves this
constexpr size_t kListPackFrame = 7;       // header (6) + end byte, counted once when merging
// Compression Vireo chose on its own (depth 0) skips nodes bigger than any fill allows: those
// hold one big element, and (de)compressing it would stall the server on every touch.
constexpr size_t kAutoCompressMaxBytes = 65536;
constexpr int64_t kMaxFill = 32767;
constexpr int64_t kMaxDepth = 65535;
constexpr size_t kFillBytes[] = {4096, 8192, 16384, 32768, 65536};

size_t FillBytes(int64_t fill) {  // fill < 0
  int64_t level = -fill - 1;
  return kFillBytes[level > 4 ? 4 : level];
}

size_t FillCount(int64_t fill) { return fill == 0 ? 1 : static_cast<size_t>(fill); }

uint32_t LoadU32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

void StoreU32(unsigned char* p, uint32_t v) { std::memcpy(p, &v, sizeof(v)); }

// Bytes of the element at p inside lp (encoding, data and back length).
size_t ElementBytes(unsigned char* lp, unsigned char* p) {
  unsigned char* next = lp::Next(lp, p);
  unsigned char* end = next != nullptr ? next : lp + lp::Bytes(lp) - 1;
  return static_cast<size_t>(end - p);
}

void DecompressInto(const QuickListNode* n, unsigned char* out) {
  uint32_t clen = LoadU32(n->data);
  if (lzf_decompress(n->data + 4, clen, out, n->bytes) != n->bytes) {
    // Only our own compressor wrote this blob: a mismatch means memory corruption.
    std::abort();
  }
}

}  // namespace

bool ListPackExceedsFill(int64_t fill, size_t bytes, size_t count) {
  if (fill < 0) return bytes > FillBytes(fill);
  if (bytes > kSizeSafetyLimit) return true;
  return count > FillCount(fill);
}

bool ListPackFitsFill(int64_t fill, size_t bytes, size_t count, bool shrinking) {
  size_t limit = fill < 0 ? FillBytes(fill) : FillCount(fill);
  if (shrinking) limit /= 2;
  return fill < 0 ? bytes <= limit : count <= limit;
}

LzfScratch::~LzfScratch() { ZFree(buf_); }

unsigned char* LzfScratch::Reserve(size_t n) {
  if (n > cap_) {
    ZFree(buf_);
    buf_ = static_cast<unsigned char*>(ZMalloc(n));
    cap_ = n;
  }
  return buf_;
}

QuickList::QuickList(int64_t fill, int64_t compress_depth) { SetOptions(fill, compress_depth); }

QuickList::~QuickList() {
  QuickListNode* n = head_;
  while (n != nullptr) {
    QuickListNode* next = n->next;
    FreeNode(n);
    n = next;
  }
}

void QuickList::SetOptions(int64_t fill, int64_t compress_depth) {
  fill_ = static_cast<int32_t>(fill > kMaxFill ? kMaxFill : fill < -5 ? -5 : fill);
  // Depth 0 (Valkey: never compress) compresses everything but the end nodes here: interior
  // nodes are cold for pushes and pops, and compressing them is what keeps a long list small.
  auto_depth_ = compress_depth <= 0;
  depth_ = static_cast<uint32_t>(compress_depth <= 0          ? 1
                                 : compress_depth > kMaxDepth ? kMaxDepth
                                                              : compress_depth);
}

QuickList* QuickList::Clone() const {
  auto* copy = new QuickList(fill_, auto_depth_ ? 0 : depth_);
  for (const QuickListNode* n = head_; n != nullptr; n = n->next) {
    size_t size = n->compressed ? 4 + LoadU32(n->data) : n->bytes;
    auto* data = static_cast<unsigned char*>(ZMalloc(size));
    std::memcpy(data, n->data, size);
    QuickListNode* c = copy->NewNode(data, n->count);
    c->bytes = n->bytes;
    c->compressed = n->compressed;
    copy->LinkBefore(nullptr, c);
  }
  copy->count_ = count_;
  return copy;
}

QuickListNode* QuickList::NewNode(unsigned char* lp, size_t count) {
  auto* n = static_cast<QuickListNode*>(ZMalloc(sizeof(QuickListNode)));
  n->prev = n->next = nullptr;
  n->data = lp;
  n->bytes = static_cast<uint32_t>(lp::Bytes(lp));
  n->count = static_cast<uint32_t>(count);
  n->compressed = 0;
  return n;
}

void QuickList::FreeNode(QuickListNode* n) {
  ZFree(n->data);
  ZFree(n);
}

void QuickList::LinkAfter(QuickListNode* at, QuickListNode* n) {
  if (at == nullptr) {  // new head
    n->prev = nullptr;
    n->next = head_;
    if (head_ != nullptr)
      head_->prev = n;
    else
      tail_ = n;
    head_ = n;
  } else {
    n->prev = at;
    n->next = at->next;
    if (at->next != nullptr)
      at->next->prev = n;
    else
      tail_ = n;
    at->next = n;
  }
  ++nodes_;
}

void QuickList::LinkBefore(QuickListNode* at, QuickListNode* n) {
  if (at == nullptr) {  // new tail
    n->next = nullptr;
    n->prev = tail_;
    if (tail_ != nullptr)
      tail_->next = n;
    else
      head_ = n;
    tail_ = n;
  } else {
    LinkAfter(at->prev, n);
    return;
  }
  ++nodes_;
}

void QuickList::Unlink(QuickListNode* n) {
  if (n->prev != nullptr)
    n->prev->next = n->next;
  else
    head_ = n->next;
  if (n->next != nullptr)
    n->next->prev = n->prev;
  else
    tail_ = n->prev;
  --nodes_;
}

bool QuickList::IsLargeElement(size_t len) const {
  return fill_ >= 0 ? len > kSizeSafetyLimit : len > FillBytes(fill_);
}

bool QuickList::AllowInsert(const QuickListNode* n, size_t len) const {
  if (IsLargeElement(len)) return false;
  return !ListPackExceedsFill(fill_, n->bytes + len + kInsertOverhead, n->count + 1);
}

bool QuickList::Decompress(QuickListNode* n) {
  if (!n->compressed) return false;
  auto* raw = static_cast<unsigned char*>(ZMalloc(n->bytes));
  DecompressInto(n, raw);
  ZFree(n->data);
  n->data = raw;
  n->compressed = 0;
  return true;
}

void QuickList::Compress(QuickListNode* n) {
  if (n->compressed || n->bytes < kMinCompressBytes) return;
  if (auto_depth_ && n->bytes > kAutoCompressMaxBytes) return;
  // One growing buffer for the compressor's output; only the execution thread compresses.
  static thread_local std::vector<unsigned char> out;
  if (out.size() < n->bytes) out.resize(n->bytes);
  unsigned limit = static_cast<unsigned>(n->bytes - kMinCompressGain - 4);
  unsigned clen = lzf_compress(n->data, n->bytes, out.data(), limit);
  if (clen == 0) return;  // incompressible: the node stays plain
  auto* blob = static_cast<unsigned char*>(ZMalloc(4 + clen));
  StoreU32(blob, clen);
  std::memcpy(blob + 4, out.data(), clen);
  ZFree(n->data);
  n->data = blob;
  n->compressed = 1;
}

unsigned char* QuickList::ReadableListPack(const QuickListNode* n, LzfScratch* scratch) {
  if (!n->compressed) return n->data;
  unsigned char* buf = scratch->Reserve(n->bytes);
  DecompressInto(n, buf);
  return buf;
}

void QuickList::CompressPastEnd(bool head) {
  // The node depth+1 steps from this end left the plain zone; it is compressed when it is as
  // far from the other end too. The node depth steps in may stay plain either way, so a list
  // that pushes and pops across a node boundary does not compress and decompress each time.
  if (nodes_ < 2 * static_cast<size_t>(depth_) + 3) return;
  QuickListNode* x = head ? head_ : tail_;
  for (uint32_t i = 0; i <= depth_; ++i) x = head ? x->next : x->prev;
  Compress(x);
}

void QuickList::DecompressEnds() {
  QuickListNode* a = head_;
  QuickListNode* b = tail_;
  for (uint32_t i = 0; i < depth_ && a != nullptr; ++i) {
    Decompress(a);
    Decompress(b);
    a = a->next;
    b = b->prev;
  }
}

void QuickList::PushHead(std::string_view s) {
  if (head_ != nullptr && AllowInsert(head_, s.size())) {
    head_->data = lp::Prepend(head_->data, s);
    head_->count++;
    UpdateBytes(head_);
  } else {
    LinkAfter(nullptr, NewNode(lp::Prepend(lp::New(), s), 1));
    CompressPastEnd(true);
  }
  ++count_;
}

void QuickList::PushTail(std::string_view s) {
  if (tail_ != nullptr && AllowInsert(tail_, s.size())) {
    tail_->data = lp::Append(tail_->data, s);
    tail_->count++;
    UpdateBytes(tail_);
  } else {
    LinkBefore(nullptr, NewNode(lp::Append(lp::New(), s), 1));
    CompressPastEnd(false);
  }
  ++count_;
}

void QuickList::AppendListPack(unsigned char* lp) {
  size_t n = lp::Length(lp);
  LinkBefore(nullptr, NewNode(lp, n));
  count_ += n;
  CompressPastEnd(false);
}

unsigned char* QuickList::ReleaseSingleListPack() {
  QuickListNode* n = head_;
  Decompress(n);
  unsigned char* lp = n->data;
  ZFree(n);
  head_ = tail_ = nullptr;
  nodes_ = 0;
  count_ = 0;
  return lp;
}

void QuickList::DeleteAt(QuickListNode* n, unsigned char* p) {
  n->data = lp::Delete(n->data, &p);
  n->count--;
  --count_;
  if (n->count == 0) {
    Unlink(n);
    FreeNode(n);
    DecompressEnds();
  } else {
    UpdateBytes(n);
  }
}

void QuickList::PopHead() { DeleteAt(head_, lp::First(head_->data)); }

void QuickList::PopTail() { DeleteAt(tail_, lp::Last(tail_->data)); }

QuickListNode* QuickList::NodeAt(size_t index, size_t* offset) const {
  QuickListNode* n;
  if (index < count_ / 2) {
    n = head_;
    while (index >= n->count) {
      index -= n->count;
      n = n->next;
    }
  } else {
    size_t back = count_ - 1 - index;
    n = tail_;
    while (back >= n->count) {
      back -= n->count;
      n = n->prev;
    }
    index = n->count - 1 - back;
  }
  *offset = index;
  return n;
}

void QuickList::DeleteRange(size_t start, size_t count) {
  if (count == 0) return;
  size_t off;
  QuickListNode* n = NodeAt(start, &off);
  bool node_gone = false;
  while (count > 0 && n != nullptr) {
    QuickListNode* next = n->next;
    size_t del = n->count - off < count ? n->count - off : count;
    if (off == 0 && del == n->count) {
      count_ -= n->count;
      Unlink(n);
      FreeNode(n);
      node_gone = true;
    } else {
      bool was = Decompress(n);
      unsigned char* p = lp::Seek(n->data, static_cast<int64_t>(off));
      n->data = lp::DeleteRange(n->data, &p, del);
      n->count -= static_cast<uint32_t>(del);
      count_ -= del;
      UpdateBytes(n);
      if (was) Compress(n);
    }
    count -= del;
    off = 0;
    n = next;
  }
  if (node_gone) DecompressEnds();
}

void QuickList::Replace(size_t index, std::string_view s) {
  size_t off;
  QuickListNode* n = NodeAt(index, &off);
  bool was = Decompress(n);
  unsigned char* p = lp::Seek(n->data, static_cast<int64_t>(off));
  size_t projected = n->bytes - ElementBytes(n->data, p) + lp::EntrySize(s);
  if (!IsLargeElement(s.size()) && !ListPackExceedsFill(fill_, projected, n->count)) {
    n->data = lp::Replace(n->data, &p, s);
    UpdateBytes(n);
    if (was) Compress(n);
    return;
  }
  // The node cannot grow: remove the old element and insert the new one where it was.
  bool gone = n->count == 1;
  n->data = lp::Delete(n->data, &p);
  n->count--;
  --count_;
  if (gone) {
    Unlink(n);
    FreeNode(n);
  } else {
    UpdateBytes(n);
    if (was) Compress(n);
  }
  if (index < count_) {
    Insert(index, s, false);
  } else {
    PushTail(s);
  }
  DecompressEnds();
}

QuickListNode* QuickList::TryMerge(QuickListNode* a, QuickListNode* b) {
  if (a == nullptr || b == nullptr) return nullptr;
  if (ListPackExceedsFill(fill_, a->bytes + b->bytes - kListPackFrame, a->count + b->count)) {
    return nullptr;
  }
  Decompress(a);
  Decompress(b);
  // Re-append b's elements to a in one batch (integers are formatted back to canonical text,
  // which encodes to the same integer entry).
  std::vector<std::string_view> items;
  items.reserve(b->count);
  std::string digits;
  digits.reserve(static_cast<size_t>(b->count) * 24);
  for (unsigned char* p = lp::First(b->data); p != nullptr; p = lp::Next(b->data, p)) {
    lp::Value v = lp::Get(p);
    if (!v.IsInt()) {
      items.emplace_back(reinterpret_cast<const char*>(v.str), v.len);
    } else {
      char buf[24];
      size_t len = FormatInt64To(buf, v.ival);
      size_t at = digits.size();
      digits.append(buf, len);  // reserved above: earlier views stay valid
      items.emplace_back(digits.data() + at, len);
    }
  }
  a->data = lp::AppendBatch(a->data, items.data(), items.size());
  a->count += b->count;
  UpdateBytes(a);
  Unlink(b);
  FreeNode(b);
  return a;
}

void QuickList::Insert(size_t index, std::string_view s, bool after) {
  size_t off;
  QuickListNode* n = NodeAt(index, &off);
  const size_t len = s.size();
  if (AllowInsert(n, len)) {
    bool was = Decompress(n);
    unsigned char* p = lp::Seek(n->data, static_cast<int64_t>(off));
    n->data = lp::Insert(n->data, p, s, after);
    n->count++;
    ++count_;
    UpdateBytes(n);
    if (was) Compress(n);
    return;
  }
  const bool at_tail = after && off + 1 == n->count;
  const bool at_head = !after && off == 0;
  // A full node at the edge of its node: the neighbour may have room.
  if (at_tail && n->next != nullptr && AllowInsert(n->next, len)) {
    QuickListNode* m = n->next;
    bool was = Decompress(m);
    m->data = lp::Prepend(m->data, s);
    m->count++;
    ++count_;
    UpdateBytes(m);
    if (was) Compress(m);
    return;
  }
  if (at_head && n->prev != nullptr && AllowInsert(n->prev, len)) {
    QuickListNode* m = n->prev;
    bool was = Decompress(m);
    m->data = lp::Append(m->data, s);
    m->count++;
    ++count_;
    UpdateBytes(m);
    if (was) Compress(m);
    return;
  }
  QuickListNode* fresh = NewNode(lp::Append(lp::New(), s), 1);
  ++count_;
  if (at_tail) {
    LinkAfter(n, fresh);
    DecompressEnds();
    return;
  }
  if (at_head) {
    LinkBefore(n, fresh);
    DecompressEnds();
    return;
  }
  // Inside a full node: split it at the insertion point, put the element between the halves
  // and merge what fits back together.
  const bool was = Decompress(n);
  const size_t k = after ? off + 1 : off;
  unsigned char* right_lp = lp::Dup(n->data);
  unsigned char* p = lp::First(right_lp);
  right_lp = lp::DeleteRange(right_lp, &p, k);
  QuickListNode* right = NewNode(right_lp, n->count - k);
  p = lp::Seek(n->data, static_cast<int64_t>(k));
  n->data = lp::DeleteRange(n->data, &p, n->count - k);
  n->count = static_cast<uint32_t>(k);
  UpdateBytes(n);
  LinkAfter(n, right);
  LinkAfter(n, fresh);
  QuickListNode* first = n;
  QuickListNode* last = right;
  // TryMerge keeps its left node, so only a merge into `fresh` changes the last survivor.
  if (TryMerge(n, fresh) == nullptr && TryMerge(fresh, right) != nullptr) last = fresh;
  if (QuickListNode* m = TryMerge(first->prev, first)) first = m;
  TryMerge(last, last->next);
  if (was) {
    for (QuickListNode* x = first; x != nullptr; x = x->next) {
      Compress(x);
      if (x == last) break;
    }
  }
  DecompressEnds();
}

size_t QuickList::Remove(std::string_view s, size_t limit, bool from_tail) {
  size_t removed = 0;
  bool node_gone = false;
  LzfScratch scratch;
  QuickListNode* n = from_tail ? tail_ : head_;
  while (n != nullptr && (limit == 0 || removed < limit)) {
    QuickListNode* following = from_tail ? n->prev : n->next;
    unsigned char* view = ReadableListPack(n, &scratch);
    if (lp::Find(view, lp::First(view), s, 0) == nullptr) {
      n = following;
      continue;
    }
    bool was = Decompress(n);
    if (!from_tail) {
      unsigned char* p = lp::First(n->data);
      while (p != nullptr && (limit == 0 || removed < limit)) {
        p = lp::Find(n->data, p, s, 0);
        if (p == nullptr) break;
        n->data = lp::Delete(n->data, &p);
        n->count--;
        ++removed;
      }
    } else {
      unsigned char* p = lp::Last(n->data);
      while (p != nullptr && (limit == 0 || removed < limit)) {
        if (!lp::Equals(p, s)) {
          p = lp::Prev(n->data, p);
          continue;
        }
        size_t at = static_cast<size_t>(p - n->data);
        n->data = lp::Delete(n->data, &p);
        n->count--;
        ++removed;
        p = lp::Prev(n->data, n->data + at);  // the element before the deleted one
      }
    }
    if (n->count == 0) {
      Unlink(n);
      FreeNode(n);
      node_gone = true;
    } else {
      UpdateBytes(n);
      if (was) Compress(n);
    }
    n = following;
  }
  count_ -= removed;
  if (node_gone) DecompressEnds();
  return removed;
}

size_t QuickList::MemoryUsage() const {
  size_t total = sizeof(QuickList);
  for (const QuickListNode* n = head_; n != nullptr; n = n->next) {
    total += ZMallocSize(const_cast<QuickListNode*>(n)) + ZMallocSize(n->data);
  }
  return total;
}

}  // namespace vireo
