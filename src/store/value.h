// Creating, reading and freeing the values held by entries (encoding-agnostic string API).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/entry.h"

namespace vireo {

// Largest string value (proto-max-bulk-len default), as Valkey's 512 MB.
constexpr int64_t kMaxStringSize = 512LL * 1024 * 1024;

// Allocates an entry for key with no value (type string/int 0) and no expiry; with_expire
// reserves the expiry field, for a key about to get a TTL.
Entry* NewEntry(std::string_view key, bool with_expire = false);
// A new, unlinked entry with e's key, value and meta and room for an expiry (Db::SetExpire).
// The value now belongs to both: once the new entry has taken e's place, e goes with
// FreeEntryHeader, which frees the header and key only.
Entry* WithExpireField(const Entry* e);
void FreeEntryHeader(Entry* e);
// Frees the entry and its value.
void FreeEntry(Entry* e);
// Frees only the value (the entry is kept) and resets it to the integer 0.
void FreeValue(Entry* e);
// Estimated cost of freeing e's value, in elements (decides lazy freeing).
size_t FreeEffort(const Entry* e);

// A new, unlinked entry named new_key holding a deep copy of src's value (same type and
// encoding; collections copy through CollectionOps::copy) and src's expiry, with a fresh
// access clock (COPY).
Entry* CopyEntry(const Entry* src, std::string_view new_key);
// Moves the value, expiry and access clock of the unlinked entry e into a new entry named
// new_key and frees e's header; O(1) whatever the value's size (RENAME).
Entry* RekeyEntry(Entry* e, std::string_view new_key);

// Sets e's value to the string s, choosing the encoding Valkey would report for a fresh
// string: int for canonical integers that fit, embstr up to 44 bytes, raw beyond.
void SetStringValue(Entry* e, std::string_view s);
// Sets e's value to s as embstr (up to 44 bytes) or raw, never int (INCRBYFLOAT results).
void SetNonIntStringValue(Entry* e, std::string_view s);
// Makes the allocation p (from ZMallocValue, `size` bytes, a StrBlob header's room and then
// the string's len bytes) e's raw value, as it is (a big SET argument, net/connection.h).
void AdoptRawString(Entry* e, void* p, size_t len, size_t size);
// Sets e's value to an integer (encoding int).
void SetIntValue(Entry* e, int64_t v);
// Sets e's value to s with raw encoding (results of APPEND/SETRANGE are raw in Valkey).
void SetRawStringValue(Entry* e, std::string_view s);

// The string value's bytes. For int encoding the digits are written into buf (>= 21 bytes).
std::string_view StringValue(const Entry* e, char* buf);
// A raw (Encoding::kRaw) value's blob, for editing its bytes in place: copied first if a
// reply still points at it (store/blob_pins.h).
StrBlob* WritableRawBlob(Entry* e);
// Appends to a string value in place (converting to raw); returns the new length.
size_t AppendToString(Entry* e, std::string_view s);
// Writes s at offset (zero-padding as needed), converting to raw; returns the new length.
size_t SetRangeInString(Entry* e, size_t offset, std::string_view s);
// Bytes of the string value.
size_t StringLength(const Entry* e);

// Memory attributed to e (header, key, value), for INFO and MEMORY USAGE.
size_t EntryMemory(const Entry* e);

// Valkey's names for types and encodings ("string", "embstr", ...).
const char* TypeName(ObjType t);
const char* EncodingName(Encoding e);

}  // namespace vireo
