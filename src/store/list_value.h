// The list value, whatever its encoding: one listpack for small lists (OBJECT ENCODING
// "listpack"), a QuickList past list-max-listpack-size ("quicklist"), converting both ways as
// Valkey 8 does. The list commands use only this face.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "store/entry.h"
#include "store/listpack.h"
#include "store/quicklist.h"

namespace vireo {

// list-max-listpack-size and list-compress-depth, read from the config at each write.
struct ListLimits {
  int64_t fill = -2;
  int64_t compress_depth = 0;
};

enum class ListEnd : uint8_t { kHead, kTail };

// Makes e (a fresh entry) an empty packed list; the caller adds elements before the command
// ends (empty lists never stay in the keyspace).
void ListInit(Entry* e);
size_t ListLength(const Entry* e);

// Before adding `count` elements of `bytes` string bytes in all: a packed list that would
// outgrow the limits becomes a quicklist (Valkey's check, done once for a whole batch).
void ListGrowing(Entry* e, const ListLimits& limits, size_t count, size_t bytes);
// After removing elements from a non-empty list: a quicklist down to one node within half the
// limits becomes packed again.
void ListShrinking(Entry* e, const ListLimits& limits);

void ListPush(Entry* e, std::string_view s, ListEnd end, const ListLimits& limits);
// The first or last element's position (list non-empty); read with lp::Get. Valid until the
// list changes.
const unsigned char* ListPeek(const Entry* e, ListEnd end);
// Removes the first or last element (list non-empty). The list may be left empty.
void ListPop(Entry* e, ListEnd end);
// Removes `count` elements from index `start` (start < length).
void ListDeleteRange(Entry* e, size_t start, size_t count, const ListLimits& limits);
// Replaces the element at index (< length).
void ListReplace(Entry* e, size_t index, std::string_view s, const ListLimits& limits);
// Inserts s before or after the element at index (< length).
void ListInsert(Entry* e, size_t index, std::string_view s, bool after, const ListLimits& limits);
// Index of the first element equal to s, or -1.
int64_t ListFind(const Entry* e, std::string_view s);
// Removes up to `limit` (0 = all) elements equal to s from the head, or from the tail.
size_t ListRemove(Entry* e, std::string_view s, size_t limit, bool from_tail,
                  const ListLimits& limits);

// Walks a list from an index towards the tail (or towards the head when reverse). Reads only:
// compressed nodes are decompressed into the cursor's own buffer. The list must not change
// while a cursor is in use.
class ListCursor {
 public:
  // index < ListLength(e).
  ListCursor(const Entry* e, size_t index, bool reverse);
  // The next element's position (nullptr past the end); read with lp::Get / lp::Equals.
  const unsigned char* Next() {
    // The next node is loaded only now: it may reuse the scratch the last element lived in.
    if (p_ == nullptr && (node_ == nullptr || !NextNode())) return nullptr;
    unsigned char* p = p_;
    p_ = reverse_ ? lp::Prev(lp_, p) : lp::Next(lp_, p);
    return p;
  }

 private:
  bool NextNode();
  void Load(QuickListNode* n);

  unsigned char* lp_ = nullptr;  // the listpack being read (a node's, or scratch)
  unsigned char* p_ = nullptr;
  QuickListNode* node_ = nullptr;  // nullptr for packed lists
  bool reverse_;
  LzfScratch scratch_;
};

// Collection hooks (registered by the list commands).
void FreeListValue(Encoding enc, void* obj);
size_t ListFreeEffort(Encoding enc, const void* obj);
size_t ListMemory(Encoding enc, const void* obj);
void* CopyListValue(Encoding enc, const void* obj);

}  // namespace vireo
