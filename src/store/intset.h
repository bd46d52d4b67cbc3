// An intset in exactly Valkey's byte layout: encoding u32 (bytes per integer: 2, 4 or 8),
// length u32, then the integers sorted ascending, all little-endian, in one allocation of
// exactly that size. RDB and DUMP store it as the blob itself. (The set family keeps its own,
// smaller in-memory form in store/set_intset.h; this one is the interchange format.)
#pragma once

#include <cstddef>
#include <cstdint>

namespace vireo::intset {

unsigned char* New();
void Free(unsigned char* is);
unsigned char* Dup(const unsigned char* is);

// Inserts v in order, widening every integer first when v needs more bytes. *is may move;
// *added (optional) says whether v was absent.
void Add(unsigned char** is, int64_t v, bool* added);
// Removes v; *is may move. Returns whether v was present. The encoding never narrows.
bool Remove(unsigned char** is, int64_t v);
// Binary search.
bool Find(const unsigned char* is, int64_t v);
// The integer at index i (ascending), i < Length.
int64_t Get(const unsigned char* is, size_t i);
size_t Length(const unsigned char* is);
// Total bytes, header included.
size_t Bytes(const unsigned char* is);
// Bytes per integer: 2, 4 or 8.
unsigned Encoding(const unsigned char* is);
// A uniformly chosen member; Length > 0.
int64_t Random(const unsigned char* is);
// Checks a blob from outside (RDB, RESTORE) as Valkey does: encoding 2/4/8, size matching the
// length, not empty; when deep, also strictly ascending (no duplicates). Integers that would
// fit a narrower encoding are fine (intsets never narrow).
bool Validate(const unsigned char* blob, size_t size, bool deep);

}  // namespace vireo::intset
