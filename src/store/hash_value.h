// The hash value held by an entry of type kHash, whatever its encoding: a pairpack of
// field, value, field, value... (store/pair_pack.h; Encoding::kListPack, reported as Valkey's
// "listpack") while small, a HashFieldTable
// (Encoding::kHashTable) once a field or value is longer than hash-max-listpack-value, the
// count passes hash-max-listpack-entries, or a field gets a TTL. Conversion only goes up, as
// in Valkey.
//
// Field TTLs: fields whose time has passed are invisible. Callers run PurgeExpired (lazy
// expiry) before using a hash, and delete the key when it leaves the hash empty; the active
// sweep is in store/hash_field_expire.h. Everything else here ignores TTLs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "store/entry.h"
#include "store/hash_field_table.h"
#include "store/listpack.h"

namespace vireo::hash {

// A field or value read from a hash: text (str != nullptr) or, from a listpack, an integer.
using Item = lp::Value;
inline Item TextItem(std::string_view s) {
  return Item{reinterpret_cast<const unsigned char*>(s.data()), static_cast<uint32_t>(s.size()), 0};
}
// Bytes of the item's text (integers count their decimal digits).
size_t ItemLength(const Item& item);

// The thresholds, read from the config at each write so CONFIG SET applies to new writes.
struct Limits {
  int64_t max_entries = 512;  // hash-max-listpack-entries
  int64_t max_value = 64;     // hash-max-listpack-value
};

// Makes e an empty hash (listpack). e must hold no value.
void InitEmpty(Entry* e);
size_t Length(const Entry* e);

// Removes (up to max) fields whose TTL passed before now_ms; returns how many. The caller
// deletes the key when the hash is left empty.
size_t PurgeExpired(Entry* e, int64_t now_ms, size_t max = SIZE_MAX);
// True if the hash has fields with a TTL (they live only in the table encoding).
bool HasVolatileFields(const Entry* e);

// Looks field up; on success *value is valid until the hash changes.
bool Get(const Entry* e, std::string_view field, Item* value);
bool Exists(const Entry* e, std::string_view field);

// Converts to the table encoding before a write of these strings when one is longer than
// the value limit (hashTypeTryConversion, run before HSET writes its pairs). Unlike Valkey 8,
// and like Redis 7.0, a command bringing more pairs than the entries limit does not convert
// up front: with repeated fields the hash may still fit, and must then stay a listpack. (The
// listpack phase is bounded anyway: Set converts as soon as the count passes the limit.)
void PrepareWrite(Entry* e, const std::string_view* strings, size_t n, const Limits& limits);
// Sets field to value (converting when field or value is too long for a listpack or the
// count passes the limit). expire_ms as HashFieldTable::Set: 0 = no TTL, kKeepTtl, or > 0.
// Returns true if the field was added.
bool Set(Entry* e, std::string_view field, std::string_view value, const Limits& limits,
         int64_t expire_ms = 0);
constexpr int64_t kKeepTtl = HashFieldTable::kKeepTtl;
// Removes field; false when absent. The caller deletes the key when the hash becomes empty.
bool Delete(Entry* e, std::string_view field);

// Field TTLs. GetExpire: -2 no such field, -1 no TTL, else the absolute unix ms.
int64_t GetExpire(const Entry* e, std::string_view field);
// HEXPIRE-family conditions.
enum ExpireCondition : unsigned { kNone = 0, kNx = 1, kXx = 2, kGt = 4, kLt = 8 };
// Sets field's TTL to when_ms under condition, Valkey's result codes: -2 no such field,
// 0 condition not met, 1 set, 2 deleted because when_ms <= now_ms.
int SetExpire(Entry* e, std::string_view field, int64_t when_ms, unsigned condition,
              int64_t now_ms);
// HPERSIST: -2 no such field, -1 no TTL, 1 TTL removed.
int Persist(Entry* e, std::string_view field);

// Walks every field/value pair in storage order.
class Iterator {
 public:
  explicit Iterator(const Entry* e);
  // Advances to the next pair; false at the end. Call before the first pair.
  bool Next();
  const Item& field() const { return field_; }
  const Item& value() const { return value_; }

 private:
  const Entry* e_;
  // Packed position (the field of the current pair).
  const unsigned char* lp_ = nullptr;
  const unsigned char* p_ = nullptr;
  HashFieldTable::Position pos_;
  Item field_, value_;
};

// HSCAN step: fn(field, value) for the pairs at cursor, returning the next cursor. A listpack
// returns everything with cursor 0, as Valkey does. `count` is the COUNT hint.
template <typename Fn>
uint64_t Scan(const Entry* e, uint64_t cursor, size_t count, Fn&& fn);

// HRANDFIELD. A random pair (the hash must not be empty).
void RandomPair(const Entry* e, Item* field, Item* value);
// Calls fn(field, value) count times with a random pair each time (repetitions allowed),
// allocating nothing per pair, so a huge count only costs the reply it produces.
template <typename Fn>
void ForRandomPairs(const Entry* e, size_t count, Fn&& fn);
// min(count, Length) distinct pairs.
void RandomDistinctPairs(const Entry* e, size_t count, std::vector<Item>* fields,
                         std::vector<Item>* values);

// CollectionOps for ObjType::kHash.
void FreeObject(Encoding enc, void* obj);
size_t FreeEffort(Encoding enc, const void* obj);
size_t MemoryUsage(Encoding enc, const void* obj);
void* CopyObject(Encoding enc, const void* obj);

// The table behind a table-encoded hash (tests and the expiry sweep).
inline HashFieldTable* Table(const Entry* e) { return static_cast<HashFieldTable*>(e->obj); }
// Converts a listpack hash to the table encoding (no-op when already a table).
void ConvertToTable(Entry* e);

// ---------------------------------------------------------------------------------------------

template <typename Fn>
uint64_t Scan(const Entry* e, uint64_t cursor, size_t count, Fn&& fn) {
  if (e->encoding() == Encoding::kListPack) {
    Iterator it(e);
    while (it.Next()) fn(it.field(), it.value());
    return 0;
  }
  const HashFieldTable* t = Table(e);
  // As Valkey's SCAN: stop after `count` fields or 10 * count buckets.
  size_t seen = 0;
  size_t max_steps = count > SIZE_MAX / 10 ? SIZE_MAX : count * 10;
  do {
    cursor = t->Scan(cursor, [&](const HashFieldNode* n) {
      ++seen;
      fn(TextItem(HashFieldTable::Field(n)), TextItem(HashFieldTable::Value(n)));
    });
  } while (cursor != 0 && --max_steps != 0 && seen < count);
  return cursor;
}

uint64_t RandomNumber();  // the process's fast random source (as HashTable::Random's)

template <typename Fn>
void ForRandomPairs(const Entry* e, size_t count, Fn&& fn) {
  if (e->encoding() == Encoding::kListPack) {
    // At most hash-max-listpack-entries pairs: index them once, then pick by index.
    std::vector<Item> fields, values;
    Iterator it(e);
    while (it.Next()) {
      fields.push_back(it.field());
      values.push_back(it.value());
    }
    for (size_t i = 0; i < count; ++i) {
      size_t k = RandomNumber() % fields.size();
      fn(fields[k], values[k]);
    }
    return;
  }
  const HashFieldTable* t = Table(e);
  for (size_t i = 0; i < count; ++i) {
    const HashFieldNode* n = t->Random();
    fn(TextItem(HashFieldTable::Field(n)), TextItem(HashFieldTable::Value(n)));
  }
}

}  // namespace vireo::hash
