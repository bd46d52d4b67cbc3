// A long list: a doubly linked sequence of listpack nodes (Valkey's quicklist). Node size
// follows list-max-listpack-size ("fill"); nodes away from both ends are LZF-compressed.
// Knows nothing of commands; list_value.h is the encoding-agnostic face the commands use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "store/listpack.h"

namespace vireo {

// Node limits of list-max-listpack-size: positive = at most that many elements per node (and
// never more than 8 KB of listpack), 0 = one element, -1..-5 = 4/8/16/32/64 KB per node.
// True when a listpack of `bytes` bytes holding `count` elements is over the limit.
bool ListPackExceedsFill(int64_t fill, size_t bytes, size_t count);
// True when a listpack is small enough to become a packed list again: within the limits, or
// within half of them after a removal (`shrinking`), so a list near the threshold does not
// flip encodings on every push and pop (Valkey's hysteresis).
bool ListPackFitsFill(int64_t fill, size_t bytes, size_t count, bool shrinking);

struct QuickListNode {
  QuickListNode* prev;
  QuickListNode* next;
  unsigned char* data;  // the listpack; when compressed an LZF blob: u32 length, then bytes
  uint32_t bytes;       // size of the (uncompressed) listpack
  uint32_t count : 31;  // elements in the node
  uint32_t compressed : 1;
};

// Reusable output space for decompressing nodes that are only read (never written back).
class LzfScratch {
 public:
  LzfScratch() = default;
  ~LzfScratch();
  LzfScratch(const LzfScratch&) = delete;
  LzfScratch& operator=(const LzfScratch&) = delete;
  unsigned char* Reserve(size_t n);

 private:
  unsigned char* buf_ = nullptr;
  size_t cap_ = 0;
};

class QuickList {
 public:
  // depth 0 lets Vireo choose (it keeps the end nodes plain and compresses the rest, which
  // Valkey only does when list-compress-depth is set); n > 0 keeps n nodes at each end plain.
  QuickList(int64_t fill, int64_t compress_depth);
  ~QuickList();
  QuickList(const QuickList&) = delete;
  QuickList& operator=(const QuickList&) = delete;

  // A deep copy with the same nodes (COPY).
  QuickList* Clone() const;
  // Limits for the writes that follow (the config is read at each write).
  void SetOptions(int64_t fill, int64_t compress_depth);

  size_t Count() const { return count_; }
  size_t NodeCount() const { return nodes_; }
  QuickListNode* Head() const { return head_; }
  QuickListNode* Tail() const { return tail_; }

  void PushHead(std::string_view s);
  void PushTail(std::string_view s);
  // Adopts a whole non-empty listpack as the new last node (packed list conversion, loading).
  void AppendListPack(unsigned char* lp);
  // With exactly one node: hands its listpack to the caller and leaves the list empty.
  unsigned char* ReleaseSingleListPack();

  // The first / last element's position (end nodes are never compressed); list non-empty.
  const unsigned char* Front() const { return lp::First(head_->data); }
  const unsigned char* Back() const { return lp::Last(tail_->data); }
  void PopHead();
  void PopTail();

  // Removes `count` elements starting at index `start` (start < Count()).
  void DeleteRange(size_t start, size_t count);
  // Replaces the element at index (< Count()) with s.
  void Replace(size_t index, std::string_view s);
  // Inserts s before (after = false) or after the element at index (< Count()).
  void Insert(size_t index, std::string_view s, bool after);
  // Removes up to `limit` (0 = every) elements equal to s, scanning from the head, or from the
  // tail when from_tail. Returns how many were removed.
  size_t Remove(std::string_view s, size_t limit, bool from_tail);

  // The node holding element `index` (< Count()) and the element's offset inside it.
  QuickListNode* NodeAt(size_t index, size_t* offset) const;
  // A readable listpack for node n: its own data, or a copy decompressed into scratch.
  static unsigned char* ReadableListPack(const QuickListNode* n, LzfScratch* scratch);

  // Bytes allocated for the list (MEMORY USAGE).
  size_t MemoryUsage() const;

 private:
  QuickListNode* NewNode(unsigned char* lp, size_t count);
  void FreeNode(QuickListNode* n);
  void LinkAfter(QuickListNode* at, QuickListNode* n);   // at == nullptr: as the new head
  void LinkBefore(QuickListNode* at, QuickListNode* n);  // at == nullptr: as the new tail
  void Unlink(QuickListNode* n);
  bool AllowInsert(const QuickListNode* n, size_t len) const;
  bool IsLargeElement(size_t len) const;
  void UpdateBytes(QuickListNode* n) { n->bytes = static_cast<uint32_t>(lp::Bytes(n->data)); }
  // Node n's listpack decompressed in place; returns whether it was compressed.
  bool Decompress(QuickListNode* n);
  void Compress(QuickListNode* n);
  // After a new end node: compresses the node that moved past the plain zone at that end.
  void CompressPastEnd(bool head);
  // After nodes left or moved: the nodes within depth of either end become plain again.
  void DecompressEnds();
  // Merges b (right after a) into a when the result fits the fill; returns the surviving node.
  QuickListNode* TryMerge(QuickListNode* a, QuickListNode* b);
  void DeleteAt(QuickListNode* n, unsigned char* p);

  QuickListNode* head_ = nullptr;
  QuickListNode* tail_ = nullptr;
  size_t count_ = 0;
  uint32_t nodes_ = 0;
  int32_t fill_ = -2;
  uint32_t depth_ = 1;  // nodes kept plain at each end (at least 1: the ends are hot)
  bool auto_depth_ = true;  // list-compress-depth 0: Vireo's own choice
};

}  // namespace vireo
