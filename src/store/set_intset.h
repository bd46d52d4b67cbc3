// The "intset" encoding of small all-integer sets: sorted integers of one width (1, 2, 4 or 8
// bytes, the narrowest that holds them all) after a 4-byte header, in one allocation sized
// exactly. Ten small integers take 14 bytes, one 16-byte allocation: Valkey's intset (8-byte
// header, 2 bytes at least per integer) needs 32. RDB and DUMP use Valkey's layout
// (store/intset.h), converted by SetIntsetToBlob / SetFromIntsetBlob in set_value.h.
//
// Functions that change an intset may move it and return its new address.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vireo::set_intset {

// Most integers an intset can hold (the header's 30-bit count).
constexpr size_t kMaxEntries = size_t{1} << 30;

unsigned char* New();
void Free(unsigned char* is);
unsigned char* Dup(const unsigned char* is);
size_t Length(const unsigned char* is);
// Bytes allocated for the intset, header included.
size_t Bytes(const unsigned char* is);
// The integer at index i (ascending order), i < Length.
int64_t Get(const unsigned char* is, size_t i);
int64_t Min(const unsigned char* is);  // Length > 0
int64_t Max(const unsigned char* is);  // Length > 0
bool Contains(const unsigned char* is, int64_t v);
// Inserts v in order; *added says whether it was absent.
unsigned char* Add(unsigned char* is, int64_t v, bool* added);
// Removes v; *removed says whether it was present.
unsigned char* Remove(unsigned char* is, int64_t v, bool* removed);
// Removes the integer at index i (< Length).
unsigned char* RemoveAt(unsigned char* is, size_t i);

}  // namespace vireo::set_intset
