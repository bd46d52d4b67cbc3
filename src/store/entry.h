// A key and its value, stored in one allocation linked into the keyspace's hash table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "common/prefetch.h"

namespace vireo {

enum class ObjType : uint8_t { kString = 0, kList, kSet, kZSet, kHash, kStream };
enum class Encoding : uint8_t {
  kInt = 0,   // string holding an int64 in the entry itself
  kEmbStr,    // short string (reported as Valkey's "embstr")
  kRaw,       // string modified in place or long (Valkey's "raw")
  kListPack,
  kQuickList,
  kIntSet,
  kHashTable,
  kSkipList,
  kStream,
  kInlineStr,  // string of up to 7 bytes in the entry's value word (reported as "embstr")
};

// A short string's bytes (embstr encoding): one length byte, no capacity, so a 12-byte value
// takes a 16-byte allocation instead of 32. APPEND/SETRANGE convert to a StrBlob (raw).
struct ShortStr {
  uint8_t len;
  char data[];
  std::string_view View() const { return {data, len}; }
};

// A string of up to 7 bytes kept in the entry's 8-byte value word (kInlineStr): length byte,
// then the bytes. Most small values (flags, counters as text, short codes) need no allocation.
struct InlineStr {
  static constexpr size_t kMax = 7;
  uint8_t len;
  char data[kMax];
  std::string_view View() const { return {data, len}; }
};

// A raw string value's bytes. `cap` allows APPEND/SETRANGE to grow in place.
struct StrBlob {
  uint32_t len;
  uint32_t cap;
  char data[];
  std::string_view View() const { return {data, len}; }
};

// One allocation: a 20-byte header, the key bytes, then (only for keys that have or had a TTL)
// an 8-byte expiry. A key of up to 12 bytes with its value in the value word (integers, strings
// of up to 7 bytes) fits jemalloc's 32-byte class.
// - The link word is the hash chain (owned by HashTable, through Next/SetNext) and, on 64-bit
//   machines, the key_info byte in its top 8 bits, which user-space addresses never use (on
//   32-bit machines key_info has a byte of its own in the padding before the value word).
//   key_info holds the key length when below kLongKey (else a 4-byte length precedes the key)
//   and the kHasExpire bit.
// - `meta` packs type (3 bits), the snapshot bit (see Db::BeginSnapshot), encoding (4 bits)
//   and a 24-bit access clock.
// Unaligned fields are read with memcpy, so no platform needs unaligned loads.
// Sanitizer builds keep key_info in a byte of its own too: LeakSanitizer finds live blocks by
// the pointers it sees in memory, and a tagged link hides every entry after a chain's first.
#if defined(__SANITIZE_ADDRESS__)
#define VIREO_ENTRY_PLAIN_LINK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define VIREO_ENTRY_PLAIN_LINK 1
#endif
#endif
#if UINTPTR_MAX == UINT32_MAX && !defined(VIREO_ENTRY_PLAIN_LINK)
#define VIREO_ENTRY_PLAIN_LINK 1
#endif
struct Entry {
  // Use Next/SetNext and key_info/SetKeyInfo: the fields share the word on 64-bit machines.
  uintptr_t link_word;
#ifdef VIREO_ENTRY_PLAIN_LINK
  uint8_t key_info_byte;
#endif
  union {
    int64_t ival;      // Encoding::kInt
    ShortStr* sstr;    // kEmbStr
    InlineStr istr;    // kInlineStr
    StrBlob* str;      // kRaw
    void* obj;         // collections (owned; freed by FreeValue)
  };
  uint32_t meta;
  char tail[];

  static constexpr uint32_t kSnapshotBit = 0x8;
  static constexpr uint8_t kHasExpire = 0x80;
  static constexpr uint8_t kLongKey = 0x7F;
#ifdef VIREO_ENTRY_PLAIN_LINK
  static constexpr uintptr_t kLinkMask = ~uintptr_t{0};
  uint8_t key_info() const { return key_info_byte; }
  void SetKeyInfo(uint8_t v) { key_info_byte = v; }
#else
  static constexpr int kKeyInfoShift = 56;
  static constexpr uintptr_t kLinkMask = (uintptr_t{1} << kKeyInfoShift) - 1;
  uint8_t key_info() const { return static_cast<uint8_t>(link_word >> kKeyInfoShift); }
  void SetKeyInfo(uint8_t v) {
    link_word = (link_word & kLinkMask) | (static_cast<uintptr_t>(v) << kKeyInfoShift);
  }
#endif
  // True if p can be stored in a link word (always, unless the kernel hands out addresses
  // above 2^56, which needs an explicit request).
  static bool Linkable(const void* p) {
    return (reinterpret_cast<uintptr_t>(p) & ~kLinkMask) == 0;
  }
  Entry* Next() const { return reinterpret_cast<Entry*>(link_word & kLinkMask); }
  void SetNext(Entry* n) {
    link_word = (link_word & ~kLinkMask) | reinterpret_cast<uintptr_t>(n);
  }

  std::string_view Key() const {
    uint32_t n = key_info() & kLongKey;
    if (n != kLongKey) [[likely]] return {tail, n};
    std::memcpy(&n, tail, sizeof(n));
    return {tail + sizeof(n), n};
  }
  // Whether the allocation has room for an expiry (Db::SetExpire adds it when needed).
  bool HasExpireField() const { return (key_info() & kHasExpire) != 0; }
  // Absolute unix ms; 0 = no expiry.
  int64_t expire_ms() const {
    if (!HasExpireField()) [[likely]] return 0;
    int64_t ms;
    std::memcpy(&ms, ExpireSlot(), sizeof(ms));
    return ms;
  }
  // Requires HasExpireField(); Db::SetExpire is the keyspace's way to change an expiry.
  void StoreExpire(int64_t ms) { std::memcpy(ExpireSlot(), &ms, sizeof(ms)); }

  // The pipelined look-ahead (HashTable::PrefetchPastHead), a command before this entry's:
  // a long string's blob header, where GET reads the length and starts copying, a miss on
  // a dataset past the caches.
  void PrefetchValue() const {
    if (encoding() == Encoding::kRaw) PrefetchRead(str);
  }

  ObjType type() const { return static_cast<ObjType>(meta & 0x7); }
  Encoding encoding() const { return static_cast<Encoding>((meta >> 4) & 0xF); }
  uint32_t lru() const { return meta >> 8; }
  void SetType(ObjType t, Encoding e) {
    meta = (meta & ~0xF7u) | static_cast<uint32_t>(t) | (static_cast<uint32_t>(e) << 4);
  }
  void SetLru(uint32_t clock) { meta = (meta & 0xFFu) | (clock << 8); }

  // Bytes an entry for a key of key_len bytes takes, with or without the expiry field.
  static size_t AllocSize(size_t key_len, bool with_expire) {
    return offsetof(Entry, tail) + (key_len >= kLongKey ? sizeof(uint32_t) : 0) + key_len +
           (with_expire ? sizeof(int64_t) : 0);
  }

 private:
  const char* ExpireSlot() const {
    std::string_view k = Key();
    return k.data() + k.size();
  }
  char* ExpireSlot() { return const_cast<char*>(std::as_const(*this).ExpireSlot()); }
};

#if defined(VIREO_ENTRY_PLAIN_LINK) && UINTPTR_MAX != UINT32_MAX
// A 64-bit sanitizer build: the separate key_info byte costs 8 with padding; sizes don't matter.
static_assert(offsetof(Entry, tail) == 28, "sanitizer builds' entry header");
#else
static_assert(offsetof(Entry, tail) == 20, "Entry header must stay 20 bytes");
#endif
static_assert(sizeof(InlineStr) == 8, "an inline string fills the value word exactly");

}  // namespace vireo
