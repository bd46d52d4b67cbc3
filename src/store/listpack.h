// A listpack: a sequence of strings and integers packed in one allocation, in exactly the byte
// layout Valkey uses (total bytes u32, element count u16, entries <encoding><data><backlen>,
// 0xFF end), so RDB and DUMP can store and load small collections as the blob itself.
// Small lists, hashes (field, value, field, value...), sets and sorted sets (member, score...)
// all use it. Functions that change a listpack may move it and return its new address.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vireo::lp {

using Ptr = unsigned char*;  // points at an element's first byte inside a listpack

// One element: a string (str != nullptr) or an integer (str == nullptr, ival).
struct Value {
  const unsigned char* str = nullptr;
  uint32_t len = 0;
  int64_t ival = 0;

  bool IsInt() const { return str == nullptr; }
  // The element as text; integers are formatted into buf (>= 21 bytes).
  std::string_view View(char* buf) const;
};

unsigned char* New(size_t capacity_hint = 0);
void Free(unsigned char* lp);
// Copy of a whole listpack (COPY, RDB).
unsigned char* Dup(const unsigned char* lp);
// Total bytes, header and end marker included.
size_t Bytes(const unsigned char* lp);
// Number of elements (walks the listpack when the header's 16-bit count saturated).
size_t Length(const unsigned char* lp);
// Checks a blob from outside (RDB, RESTORE): sizes, every entry's encoding and back length.
bool Validate(const unsigned char* blob, size_t size, bool deep);

// Navigation; nullptr past either end.
Ptr First(unsigned char* lp);
Ptr Last(unsigned char* lp);
Ptr Next(unsigned char* lp, Ptr p);
Ptr Prev(unsigned char* lp, Ptr p);
// Element at index; negative counts from the end (-1 = last). nullptr when out of range.
Ptr Seek(unsigned char* lp, int64_t index);

Value Get(const unsigned char* p);
// Byte-wise comparison of p's element with s (integers compare by their decimal text).
bool Equals(const unsigned char* p, std::string_view s);
// First element from p onwards, checking p then every (skip+1)-th element, equal to s, or nullptr.
// (skip = 1 walks only the fields of a field/value listpack.)
Ptr Find(unsigned char* lp, Ptr p, std::string_view s, unsigned skip);

// Element s is stored as an integer when it is a canonical int64 text (as Valkey does).
unsigned char* Append(unsigned char* lp, std::string_view s);
unsigned char* AppendInt(unsigned char* lp, int64_t v);
unsigned char* Prepend(unsigned char* lp, std::string_view s);
// Inserts s before (after = false) or after p. If out is given it receives the new element.
unsigned char* Insert(unsigned char* lp, Ptr p, std::string_view s, bool after, Ptr* out = nullptr);
// Replaces p's element with s; *p is updated to the replaced element's new address.
unsigned char* Replace(unsigned char* lp, Ptr* p, std::string_view s);
// Deletes p's element; *p is updated to the element that followed (nullptr at the end).
unsigned char* Delete(unsigned char* lp, Ptr* p);
// Deletes count elements starting at p (fewer if the listpack ends first); *p as Delete.
unsigned char* DeleteRange(unsigned char* lp, Ptr* p, size_t count);
// Appends many elements at once with one reallocation.
unsigned char* AppendBatch(unsigned char* lp, const std::string_view* items, size_t n);

// Bytes an element holding s would take (encoding + data + back length): size decisions.
size_t EntrySize(std::string_view s);

}  // namespace vireo::lp
