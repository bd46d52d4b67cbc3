// A key and its value, stored in one allocation linked into the keyspace's hash table.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

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

// Layout is 32 bytes of header then the key bytes: the per-key overhead the design promises.
// `meta` packs type (3 bits), the snapshot bit (see Db::BeginSnapshot), encoding (4 bits) and
// a 24-bit access clock in seconds.
struct Entry {
  Entry* next;         // hash chain, owned by HashTable
  int64_t expire_ms;   // absolute unix ms; 0 = no expiry
  union {
    int64_t ival;      // Encoding::kInt
    ShortStr* sstr;    // kEmbStr
    InlineStr istr;    // kInlineStr
    StrBlob* str;      // kRaw
    void* obj;         // collections (owned; freed by FreeValue)
  };
  uint32_t key_len;
  uint32_t meta;
  char key[];

  std::string_view Key() const { return {key, key_len}; }
  static constexpr uint32_t kSnapshotBit = 0x8;
  ObjType type() const { return static_cast<ObjType>(meta & 0x7); }
  Encoding encoding() const { return static_cast<Encoding>((meta >> 4) & 0xF); }
  uint32_t lru() const { return meta >> 8; }
  void SetType(ObjType t, Encoding e) {
    meta = (meta & ~0xF7u) | static_cast<uint32_t>(t) | (static_cast<uint32_t>(e) << 4);
  }
  void SetLru(uint32_t clock) { meta = (meta & 0xFFu) | (clock << 8); }
};

static_assert(sizeof(Entry) == 32, "Entry header must stay 32 bytes");
static_assert(sizeof(InlineStr) == 8, "an inline string fills the value word exactly");

}  // namespace vireo
