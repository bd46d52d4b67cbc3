#include "store/hash_value.h"

#include <algorithm>
#include <unordered_set>

#include "common/numbers.h"
#include "store/hash_table.h"
#include "store/memory.h"

namespace vireo::hash {
namespace {

// A listpack's u32 byte count must never overflow: past this, use the table (Valkey's
// lpSafeToAdd limit).
constexpr size_t kListpackSafeBytes = 1ULL << 30;

unsigned char* Lp(const Entry* e) { return static_cast<unsigned char*>(e->obj); }

bool IsListpack(const Entry* e) { return e->encoding() == Encoding::kListPack; }

// The field element equal to field in a listpack hash, or nullptr.
unsigned char* LpFindField(unsigned char* lp, std::string_view field) {
  unsigned char* first = lp::First(lp);
  return first == nullptr ? nullptr : lp::Find(lp, first, field, 1);
}

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
  e->obj = lp::New();
  e->SetType(ObjType::kHash, Encoding::kListPack);
}

size_t Length(const Entry* e) { return IsListpack(e) ? lp::Length(Lp(e)) / 2 : Table(e)->Size(); }

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
    unsigned char* lp = Lp(e);
    unsigned char* f = LpFindField(lp, field);
    if (f == nullptr) return false;
    *value = lp::Get(lp::Next(lp, f));
    return true;
  }
  const HashFieldNode* n = Table(e)->Find(field);
  if (n == nullptr) return false;
  *value = TextItem(HashFieldTable::Value(n));
  return true;
}

bool Exists(const Entry* e, std::string_view field) {
  if (IsListpack(e)) return LpFindField(Lp(e), field) != nullptr;
  return Table(e)->Find(field) != nullptr;
}

void ConvertToTable(Entry* e) {
  if (!IsListpack(e)) return;
  unsigned char* lp = Lp(e);
  auto* t = new HashFieldTable();
  t->Reserve(lp::Length(lp) / 2);
  char fbuf[24], vbuf[24];
  for (unsigned char* f = lp::First(lp); f != nullptr;) {
    unsigned char* v = lp::Next(lp, f);
    t->Set(lp::Get(f).View(fbuf), lp::Get(v).View(vbuf));
    f = lp::Next(lp, v);
  }
  lp::Free(lp);
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
  if (lp::Bytes(Lp(e)) + sum > kListpackSafeBytes) ConvertToTable(e);
}

bool Set(Entry* e, std::string_view field, std::string_view value, const Limits& limits,
         int64_t expire_ms) {
  if (IsListpack(e)) {
    auto max_value = static_cast<size_t>(limits.max_value);
    if (expire_ms > 0 || field.size() > max_value || value.size() > max_value ||
        lp::Bytes(Lp(e)) + field.size() + value.size() > kListpackSafeBytes) {
      ConvertToTable(e);
    }
  }
  if (!IsListpack(e)) return Table(e)->Set(field, value, expire_ms);
  unsigned char* lp = Lp(e);
  if (unsigned char* f = LpFindField(lp, field); f != nullptr) {
    unsigned char* v = lp::Next(lp, f);
    e->obj = lp::Replace(lp, &v, value);
    return false;
  }
  std::string_view pair[2] = {field, value};
  e->obj = lp::AppendBatch(lp, pair, 2);
  if (lp::Length(Lp(e)) / 2 > static_cast<size_t>(limits.max_entries)) ConvertToTable(e);
  return true;
}

bool Delete(Entry* e, std::string_view field) {
  if (!IsListpack(e)) return Table(e)->Delete(field);
  unsigned char* lp = Lp(e);
  unsigned char* f = LpFindField(lp, field);
  if (f == nullptr) return false;
  e->obj = lp::DeleteRange(lp, &f, 2);
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
    p_ = p_ == nullptr ? lp::First(lp_) : lp::Next(lp_, lp::Next(lp_, p_));
    if (p_ == nullptr) {
      lp_ = nullptr;  // stay at the end
      return false;
    }
    field_ = lp::Get(p_);
    value_ = lp::Get(lp::Next(lp_, p_));
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
    unsigned char* lp = Lp(e);
    size_t pairs = lp::Length(lp) / 2;
    unsigned char* f = lp::Seek(lp, static_cast<int64_t>(2 * (RandomNumber() % pairs)));
    *field = lp::Get(f);
    *value = lp::Get(lp::Next(lp, f));
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
    lp::Free(static_cast<unsigned char*>(obj));
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
  if (enc == Encoding::kListPack) return lp::Dup(static_cast<const unsigned char*>(obj));
  return static_cast<const HashFieldTable*>(obj)->Clone();
}

}  // namespace vireo::hash
