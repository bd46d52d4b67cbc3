// The hash-table encoding of a set: one allocation per member (chain link, length, bytes)
// linked into a HashTable. `member:123456` costs a 32-byte node plus its bucket slot, where
// Valkey spends a dictEntry and an sds string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "store/hash_table.h"

namespace vireo {

// A member node. The length is one byte below 255; longer members store 255 and then a
// 32-bit length (read with memcpy: the field is unaligned).
struct SetMember {
  SetMember* next;
  unsigned char data[];

  static constexpr unsigned char kLongLength = 255;

  std::string_view Key() const {
    if (data[0] != kLongLength) return {reinterpret_cast<const char*>(data + 1), data[0]};
    uint32_t len;
    std::memcpy(&len, data + 1, sizeof(len));
    return {reinterpret_cast<const char*>(data + 1 + sizeof(len)), len};
  }

  // A new unlinked node holding a copy of s (ZMalloc'ed); free with Delete.
  static SetMember* New(std::string_view s);
  static void Delete(SetMember* m);
};

using SetTable = HashTable<SetMember>;

// A new empty table (owned by the caller; free with FreeSetTable).
SetTable* NewSetTable();
// Frees the table and every member node.
void FreeSetTable(SetTable* t);
// Adds s unless present; true if added.
bool SetTableAdd(SetTable* t, std::string_view s);
// Removes s if present; true if removed. Gives back bucket memory once the table is sparse.
bool SetTableRemove(SetTable* t, std::string_view s);
// A member picked uniformly at random (bucket rejection sampling, so members sharing a chain
// are not disadvantaged as with HashTable::Random), or nullptr when empty.
SetMember* SetTableRandom(SetTable* t);
// Deep copy with the same members.
SetTable* CopySetTable(const SetTable* t);
// Bytes used by the table, its buckets and its nodes (nodes sampled when there are many).
size_t SetTableMemory(const SetTable* t);

}  // namespace vireo
