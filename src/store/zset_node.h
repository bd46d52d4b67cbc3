// One element of a large sorted set: member bytes and score in a single allocation, linked into
// the member table (HashTable<ZNode>) through `next` and referenced by the ordered index
// (ZTree). A 13-byte member takes 30 bytes, a 32-byte jemalloc class: the whole per-element
// cost besides one bucket slot and one index pointer.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace vireo {

struct ZNode {
  ZNode* next;   // member table chain, owned by HashTable
  double score;  // never changed while the node is in a ZTree (remove, change, re-insert)
  // Member length below 255; 255 means a 4-byte length (unaligned) precedes the bytes.
  uint8_t short_len;
  char bytes[];

  std::string_view Key() const {
    if (short_len != 255) return {bytes, short_len};
    uint32_t len;
    std::memcpy(&len, bytes, sizeof(len));
    return {bytes + sizeof(len), len};
  }
};

// Allocates a node holding member and score (next = nullptr).
ZNode* NewZNode(std::string_view member, double score);
void FreeZNode(ZNode* node);
// Bytes the allocator hands out for a node with a member of len bytes (memory accounting).
size_t ZNodeAllocSize(size_t member_len);

// Valkey's order: by score, then member bytes (memcmp, a prefix first).
inline int CompareMembers(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

}  // namespace vireo
