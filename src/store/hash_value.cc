#include "store/hash_value.h"

#include <algorithm>
#include <unordered_set>

#include "common/numbers.h"
#include "store/hash_table.h"
#include "store/memory.h"
#include "store/pair_pack.h"

namespace vireo::hash {
namespace {

// A packed hash past this size goes to the table (as Valkey's lpSafeToAdd limit): the
// packed form is for small hashes, and RDB writes it as a listpack with a u32 byte count.
constexpr size_t kListpackSafeBytes = 1ULL << 30;

// The packed encoding (reported as "listpack") is a pairpack, see store/pair_pack.h.
unsigned char* Lp(const Entry* e) { return static_cast<unsigned char*>(e->obj); }

bool IsListpack(const Entry* e) { return e->encoding() == Encoding::kListPack; }

Item PackItem(pairpack::Pos p) { return TextItem(pairpack::Get(p)); }

// Every pair of a listpack hash, in order (HRANDFIELD works on index positions).
void LpPairs(const Entry* e, std::vector<Item>* fields, std::vector<Item>* values) {
  Iterator it(e);
  while (it.Next()) {
    fields->push_back(it.field());
    values->push_back(it.value());
  }
}

}  // namespace

uint64_t RandomNumber() { return hash_table_internal::NextRandom(); }

size_t ItemLength(const Item& item) {
  if (!item.IsInt()) return item.len;
  char buf[24];
  return FormatInt64To(buf, item.ival);
}

void InitEmpty(Entry* e) {
  e->obj = pairpack::New();
  e->SetType(ObjType::kHash, Encoding::kListPack);
}

size_t Length(const Entry* e) { return IsListpack(e) ? pairpack::Pairs(Lp(e)) : Table(e)->Size(); }

size_t PurgeExpired(Entry* e, int64_t now_ms, size_t max) {
  if (IsListpack(e)) return 0;
  HashFieldTable* t = Table(e);
  int64_t min = t->MinExpire();
  if (min == 0 || min >= now_ms) return 0;
  return t->PurgeExpired(now_ms, max);
}

bool HasVolatileFields(const Entry* e) { return !IsListpack(e) && Table(e)->VolatileCount() != 0; }

bool Get(const Entry* e, std::string_view field, Item* value) {
  if (IsListpack(e)) {
    const unsigned char* pack = Lp(e);
    pairpack::Pos f = pairpack::FindField(pack, field);
    if (f == nullptr) return false;
    *value = PackItem(pairpack::Next(pack, f));
    return true;
  }
  const HashFieldNode* n = Table(e)->Find(field);
  if (n == nullptr) return false;
  *value = TextItem(HashFieldTable::Value(n));
  return true;
}

bool Exists(const Entry* e, std::string_view field) {
  if (IsListpack(e)) return pairpack::FindField(Lp(e), field) != nullptr;
  return Table(e)->Find(field) != nullptr;
}

void ConvertToTable(Entry* e) {
  if (!IsListpack(e)) return;
  unsigned char* pack = Lp(e);
  auto* t = new HashFieldTable();
  t->Reserve(pairpack::Pairs(pack));
  for (pairpack::Pos f = pairpack::First(pack); f != nullptr;) {
    pairpack::Pos v = pairpack::Next(pack, f);
    t->Set(pairpack::Get(f), pairpack::Get(v));
    f = pairpack::Next(pack, v);
  }
  pairpack::Free(pack);
  e->obj = t;
  e->SetType(ObjType::kHash, Encoding::kHashTable);
}

void PrepareWrite(Entry* e, const std::string_view* strings, size_t n, const Limits& limits) {
  if (!IsListpack(e)) return;
  size_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (strings[i].size() > static_cast<size_t>(limits.max_value)) {
      ConvertToTable(e);
      return;
    }
    sum += strings[i].size();
  }
  if (pairpack::Bytes(Lp(e)) + sum > kListpackSafeBytes) ConvertToTable(e);
}

bool Set(Entry* e, std::string_view field, std::string_view value, const Limits& limits,
         int64_t expire_ms) {
  if (IsListpack(e)) {
    auto max_value = static_cast<size_t>(limits.max_value);
    if (expire_ms > 0 || field.size() > max_value || value.size() > max_value ||
        pairpack::Bytes(Lp(e)) + field.size() + value.size() > kListpackSafeBytes) {
      ConvertToTable(e);
    }
  }
  if (!IsListpack(e)) return Table(e)->Set(field, value, expire_ms);
  unsigned char* pack = Lp(e);
  bool added = false;
  if (pairpack::Pos f = pairpack::FindField(pack, field); f != nullptr) {
    e->obj = pairpack::Replace(pack, pairpack::Next(pack, f), value);
  } else {
    e->obj = pairpack::Append(pack, field, value);
    added = true;
  }
  // Checked after updates too, as Valkey does: a limit lowered by CONFIG SET converts the hash
  // at its next write of any kind.
  if (pairpack::Pairs(Lp(e)) > static_cast<size_t>(limits.max_entries)) ConvertToTable(e);
  return added;
}

bool Delete(Entry* e, std::string_view field) {
  if (!IsListpack(e)) return Table(e)->Delete(field);
  unsigned char* pack = Lp(e);
  pairpack::Pos f = pairpack::FindField(pack, field);
  if (f == nullptr) return false;
  e->obj = pairpack::DeletePair(pack, f);
  return true;
}

int64_t GetExpire(const Entry* e, std::string_view field) {
  if (IsListpack(e)) return Exists(e, field) ? -1 : -2;
  const HashFieldNode* n = Table(e)->Find(field);
  if (n == nullptr) return -2;
  int64_t when = HashFieldTable::Expire(n);
  return when == 0 ? -1 : when;
}

int SetExpire(Entry* e, std::string_view field, int64_t when_ms, unsigned condition,
              int64_t now_ms) {
  bool expired = when_ms <= now_ms;
  if (IsListpack(e)) {
    if (!Exists(e, field)) return -2;
    // Listpack fields have no TTL: XX and GT (no TTL counts as infinite) cannot hold.
    if (condition & (kXx | kGt)) return 0;
    if (expired) {
      Delete(e, field);
      return 2;
    }
    ConvertToTable(e);
  }
  HashFieldTable* t = Table(e);
  const HashFieldNode* n = t->Find(field);
  if (n == nullptr) return -2;
  int64_t current = HashFieldTable::Expire(n);  // 0 = none
  if ((condition & kNx) && current != 0) return 0;
  if ((condition & kXx) && current == 0) return 0;
  if ((condition & kGt) && (current == 0 || when_ms <= current)) return 0;
  if ((condition & kLt) && current != 0 && when_ms >= current) return 0;
  if (expired) {
    t->Delete(field);
    return 2;
  }
  t->SetExpire(field, when_ms);
  return 1;
}

int Persist(Entry* e, std::string_view field) {
  int64_t current = GetExpire(e, field);
  if (current < 0) return static_cast<int>(current);
  Table(e)->SetExpire(field, 0);
  return 1;
}

// ---------------------------------------------------------------------------------------------
// Iteration and sampling

Iterator::Iterator(const Entry* e) : e_(e) {
  if (IsListpack(e)) lp_ = Lp(e);
}

bool Iterator::Next() {
  if (lp_ != nullptr) {
    p_ = p_ == nullptr ? pairpack::First(lp_) : pairpack::Next(lp_, pairpack::Next(lp_, p_));
    if (p_ == nullptr) {
      lp_ = nullptr;  // stay at the end
      return false;
    }
    field_ = PackItem(p_);
    value_ = PackItem(pairpack::Next(lp_, p_));
    return true;
  }
  if (IsListpack(e_)) return false;
  const HashFieldNode* n = Table(e_)->NextNode(&pos_);
  if (n == nullptr) return false;
  field_ = TextItem(HashFieldTable::Field(n));
  value_ = TextItem(HashFieldTable::Value(n));
  return true;
}

void RandomPair(const Entry* e, Item* field, Item* value) {
  if (IsListpack(e)) {
    const unsigned char* pack = Lp(e);
    pairpack::Pos f = pairpack::SeekPair(pack, RandomNumber() % pairpack::Pairs(pack));
    *field = PackItem(f);
    *value = PackItem(pairpack::Next(pack, f));
    return;
  }
  const HashFieldNode* n = Table(e)->Random();
  *field = TextItem(HashFieldTable::Field(n));
  *value = TextItem(HashFieldTable::Value(n));
}

void RandomDistinctPairs(const Entry* e, size_t count, std::vector<Item>* fields,
                         std::vector<Item>* values) {
  size_t size = Length(e);
  if (count >= size) {
    // The whole hash, in storage order (as Valkey).
    Iterator it(e);
    while (it.Next()) {
      fields->push_back(it.field());
      values->push_back(it.value());
    }
    return;
  }
  if (IsListpack(e) || count * 3 > size) {
    // Selection sampling over all pairs: each is kept with probability needed/remaining, which
    // yields exactly count distinct pairs in storage order.
    std::vector<Item> all_fields, all_values;
    if (IsListpack(e)) {
      LpPairs(e, &all_fields, &all_values);
    } else {
      Iterator it(e);
      while (it.Next()) {
        all_fields.push_back(it.field());
        all_values.push_back(it.value());
      }
    }
    size_t needed = count;
    for (size_t i = 0; i < all_fields.size() && needed > 0; ++i) {
      if (RandomNumber() % (all_fields.size() - i) < needed) {
        fields->push_back(all_fields[i]);
        values->push_back(all_values[i]);
        --needed;
      }
    }
    return;
  }
  // A big hash and a small count: random picks, skipping repeats.
  const HashFieldTable* t = Table(e);
  std::unordered_set<const HashFieldNode*> seen;
  seen.reserve(count);
  while (fields->size() < count) {
    const HashFieldNode* n = t->Random();
    if (!seen.insert(n).second) continue;
    fields->push_back(TextItem(HashFieldTable::Field(n)));
    values->push_back(TextItem(HashFieldTable::Value(n)));
  }
}

// ---------------------------------------------------------------------------------------------
// CollectionOps

void FreeObject(Encoding enc, void* obj) {
  if (enc == Encoding::kListPack) {
    pairpack::Free(static_cast<unsigned char*>(obj));
  } else {
    delete static_cast<HashFieldTable*>(obj);
  }
}

size_t FreeEffort(Encoding enc, const void* obj) {
  if (enc == Encoding::kListPack) return 1;
  return static_cast<const HashFieldTable*>(obj)->Size();
}

size_t MemoryUsage(Encoding enc, const void* obj) {
  if (enc == Encoding::kListPack) {
    return ZMallocSize(const_cast<void*>(obj));
  }
  return static_cast<const HashFieldTable*>(obj)->MemoryUsage();
}

void* CopyObject(Encoding enc, const void* obj) {
  if (enc == Encoding::kListPack) return pairpack::Dup(static_cast<const unsigned char*>(obj));
  return static_cast<const HashFieldTable*>(obj)->Clone();
}

}  // namespace vireo::hash
