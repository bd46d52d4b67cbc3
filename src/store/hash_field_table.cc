#include "store/hash_field_table.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>

#include "common/hash.h"
#include "store/memory.h"

namespace vireo {
namespace {

// Tables with a non-empty volatile index. Atomic because a table may be destroyed on the
// lazy-free thread.
std::atomic<size_t> g_volatile_tables{0};

constexpr size_t kShortMax = 255;  // longest field/value whose length fits in the link word

uint64_t LoadU64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Nodes

size_t HashFieldTable::HeaderSize(uint64_t link) {
  return 8 + ((link & kLongFlag) ? 8 : 0) + ((link & kTtlFlag) ? 8 : 0);
}

uint32_t HashFieldTable::FieldLen(const Node* n) {
  if (!(n->link & kLongFlag)) return static_cast<uint32_t>((n->link >> 48) & 0xFF);
  uint32_t len;
  std::memcpy(&len, reinterpret_cast<const unsigned char*>(n) + 8, 4);
  return len;
}

uint32_t HashFieldTable::ValueLen(const Node* n) {
  if (!(n->link & kLongFlag)) return static_cast<uint32_t>(n->link >> 56);
  uint32_t len;
  std::memcpy(&len, reinterpret_cast<const unsigned char*>(n) + 12, 4);
  return len;
}

const char* HashFieldTable::FieldData(const Node* n) {
  return reinterpret_cast<const char*>(n) + HeaderSize(n->link);
}

std::string_view HashFieldTable::Field(const Node* n) { return {FieldData(n), FieldLen(n)}; }

std::string_view HashFieldTable::Value(const Node* n) {
  return {FieldData(n) + FieldLen(n), ValueLen(n)};
}

int64_t HashFieldTable::Expire(const Node* n) {
  if (!(n->link & kTtlFlag)) return 0;
  size_t off = (n->link & kLongFlag) ? 16 : 8;
  return static_cast<int64_t>(LoadU64(reinterpret_cast<const unsigned char*>(n) + off));
}

bool HashFieldTable::FieldEquals(const Node* n, std::string_view field) {
  return FieldLen(n) == field.size() &&
         (field.empty() || std::memcmp(FieldData(n), field.data(), field.size()) == 0);
}

HashFieldTable::Node* HashFieldTable::NewNode(std::string_view field, std::string_view value,
                                              int64_t expire_ms) {
  bool is_long = field.size() > kShortMax || value.size() > kShortMax;
  uint64_t link = (is_long ? kLongFlag : 0) | (expire_ms > 0 ? kTtlFlag : 0);
  if (!is_long) link |= (uint64_t{field.size()} << 48) | (uint64_t{value.size()} << 56);
  size_t header = HeaderSize(link);
  auto* p = static_cast<unsigned char*>(ZMalloc(header + field.size() + value.size()));
  uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  if ((static_cast<uint64_t>(addr) & ~kPtrMask) != 0) {
    // See the file comment: the link word cannot hold this address.
    std::fprintf(stderr, "HashFieldTable: allocation at %p outside the 48-bit/8-aligned range\n",
                 static_cast<void*>(p));
    std::abort();
  }
  std::memcpy(p, &link, 8);
  if (is_long) {
    uint32_t lens[2] = {static_cast<uint32_t>(field.size()), static_cast<uint32_t>(value.size())};
    std::memcpy(p + 8, lens, 8);
  }
  if (expire_ms > 0) std::memcpy(p + header - 8, &expire_ms, 8);
  if (!field.empty()) std::memcpy(p + header, field.data(), field.size());
  if (!value.empty()) std::memcpy(p + header + field.size(), value.data(), value.size());
  return reinterpret_cast<Node*>(p);
}

void HashFieldTable::FreeNode(Node* n) { ZFree(n); }

// ---------------------------------------------------------------------------------------------
// Table

HashFieldTable::~HashFieldTable() {
  for (int t = 0; t < 2; ++t) {
    for (size_t i = 0; i < Buckets(t); ++i) {
      Node* n = NextOf(buckets_[t][i]);
      while (n != nullptr) {
        Node* next = NextOf(n->link);
        FreeNode(n);
        n = next;
      }
    }
    std::free(buckets_[t]);
  }
  if (volatile_ != nullptr) {
    delete volatile_;
    g_volatile_tables.fetch_sub(1, std::memory_order_relaxed);
  }
}

size_t HashFieldTable::VolatileTables() {
  return g_volatile_tables.load(std::memory_order_relaxed);
}

void HashFieldTable::Reserve(size_t n) {
  if (Size() != 0 || buckets_[0] != nullptr) return;
  size_t buckets = std::max(kMinBuckets, std::bit_ceil(n));
  buckets_[0] = static_cast<uint64_t*>(std::calloc(buckets, sizeof(uint64_t)));
  if (buckets_[0] == nullptr) std::abort();
  log2_[0] = static_cast<uint8_t>(std::countr_zero(buckets));
}

uint64_t* HashFieldTable::FindRef(std::string_view field, uint64_t hash, int* table) const {
  for (int t = 0; t < 2; ++t) {
    if (buckets_[t] == nullptr) continue;
    size_t index = hash & Mask(t);
    if (t == 0 && IsRehashing() && index < rehash_index_) continue;
    for (uint64_t* ref = &buckets_[t][index]; NextOf(*ref) != nullptr; ref = &NextOf(*ref)->link) {
      if (FieldEquals(NextOf(*ref), field)) {
        if (table != nullptr) *table = t;
        return ref;
      }
    }
  }
  return nullptr;
}

const HashFieldTable::Node* HashFieldTable::Find(std::string_view field) const {
  if (Size() == 0) return nullptr;
  uint64_t hash = HashBytes(field);
  if (!IsRehashing()) {
    for (const Node* n = NextOf(buckets_[0][hash & Mask(0)]); n != nullptr; n = NextOf(n->link)) {
      if (FieldEquals(n, field)) return n;
    }
    return nullptr;
  }
  uint64_t* ref = FindRef(field, hash, nullptr);
  return ref == nullptr ? nullptr : NextOf(*ref);
}

void HashFieldTable::Link(Node* n, uint64_t hash) {
  if (buckets_[0] == nullptr) {
    Reserve(kMinBuckets);
  } else if (!IsRehashing() && used_[0] >= Buckets(0)) {
    StartRehash(static_cast<uint8_t>(log2_[0] + 1));
  }
  int t = IsRehashing() ? 1 : 0;
  uint64_t* slot = &buckets_[t][hash & Mask(t)];
  SetPtr(&n->link, NextOf(*slot));
  SetPtr(slot, n);
  ++used_[t];
}

void HashFieldTable::Unlink(uint64_t* ref, int table) {
  Node* n = NextOf(*ref);
  SetPtr(ref, NextOf(n->link));
  --used_[table];
  if (n->link & kTtlFlag) Untrack(n);
  FreeNode(n);
}

void HashFieldTable::Relink(uint64_t* ref, Node* old, Node* replacement) {
  SetPtr(&replacement->link, NextOf(old->link));
  SetPtr(ref, replacement);
  if (old->link & kTtlFlag) Untrack(old);
  if (replacement->link & kTtlFlag) Track(replacement);
  FreeNode(old);
}

void HashFieldTable::Track(const Node* n) {
  if (volatile_ == nullptr) {
    volatile_ = new VolatileIndex();
    g_volatile_tables.fetch_add(1, std::memory_order_relaxed);
  }
  volatile_->emplace(Expire(n), n);
}

void HashFieldTable::Untrack(const Node* n) {
  volatile_->erase({Expire(n), n});
  if (volatile_->empty()) {
    delete volatile_;
    volatile_ = nullptr;
    g_volatile_tables.fetch_sub(1, std::memory_order_relaxed);
  }
}

void HashFieldTable::BeforeMutation() {
  if (!IsRehashing()) return;
  // As HashTable::StepsPerMutation: one bucket, more while a shrink's target is overloaded.
  constexpr size_t kMaxSteps = 16;
  RehashStep(std::min(kMaxSteps, 1 + (used_[1] >> log2_[1])));
}

bool HashFieldTable::Set(std::string_view field, std::string_view value, int64_t expire_ms) {
  BeforeMutation();
  uint64_t hash = HashBytes(field);
  uint64_t* ref = Size() == 0 ? nullptr : FindRef(field, hash, nullptr);
  if (ref == nullptr) {
    Node* n = NewNode(field, value, expire_ms == kKeepTtl ? 0 : expire_ms);
    Link(n, hash);
    if (n->link & kTtlFlag) Track(n);
    return true;
  }
  Node* old = NextOf(*ref);
  int64_t old_expire = Expire(old);
  int64_t new_expire = expire_ms == kKeepTtl ? old_expire : expire_ms;
  // Overwrite in place when the layout stays the same and the allocation is big enough (but
  // not far too big); otherwise build a new node.
  bool is_long = field.size() > kShortMax || value.size() > kShortMax;
  bool same_layout = is_long == ((old->link & kLongFlag) != 0) &&
                     (new_expire > 0) == ((old->link & kTtlFlag) != 0);
  size_t header = HeaderSize(old->link);
  size_t need = header + field.size() + value.size();
  if (same_layout && new_expire == old_expire) {
    size_t have = ZMallocSize(old);
    if (need <= have && need * 2 > have) {
      auto* p = reinterpret_cast<unsigned char*>(old);
      if (is_long) {
        uint32_t vlen = static_cast<uint32_t>(value.size());
        std::memcpy(p + 12, &vlen, 4);
      } else {
        old->link = (old->link & ~(uint64_t{0xFF} << 56)) | (uint64_t{value.size()} << 56);
      }
      if (!value.empty()) std::memmove(p + header + field.size(), value.data(), value.size());
      return false;
    }
  }
  Relink(ref, old, NewNode(field, value, new_expire));
  return false;
}

bool HashFieldTable::Delete(std::string_view field) {
  if (Size() == 0) return false;
  BeforeMutation();
  int table = 0;
  uint64_t* ref = FindRef(field, HashBytes(field), &table);
  if (ref == nullptr) return false;
  Unlink(ref, table);
  MaybeShrink();
  return true;
}

bool HashFieldTable::SetExpire(std::string_view field, int64_t ms) {
  if (Size() == 0) return false;
  uint64_t* ref = FindRef(field, HashBytes(field), nullptr);
  if (ref == nullptr) return false;
  Node* old = NextOf(*ref);
  if (Expire(old) == ms) return true;
  if (ms > 0 && (old->link & kTtlFlag)) {
    // Same layout: rewrite the expiry and re-key the index entry.
    Untrack(old);
    size_t off = (old->link & kLongFlag) ? 16 : 8;
    std::memcpy(reinterpret_cast<unsigned char*>(old) + off, &ms, 8);
    Track(old);
    return true;
  }
  Relink(ref, old, NewNode(Field(old), Value(old), ms));
  return true;
}

size_t HashFieldTable::PurgeExpired(int64_t now_ms, size_t max) {
  size_t removed = 0;
  while (volatile_ != nullptr && removed < max) {
    auto [when, node] = *volatile_->begin();
    if (when >= now_ms) break;
    BeforeMutation();
    int table = 0;
    uint64_t* ref = FindRef(Field(node), HashBytes(Field(node)), &table);
    Unlink(ref, table);  // also untracks (and may free the index)
    ++removed;
  }
  if (removed != 0) MaybeShrink();
  return removed;
}

void HashFieldTable::MaybeShrink() {
  if (IsRehashing() || buckets_[0] == nullptr) return;
  size_t buckets = Buckets(0);
  if (buckets <= kMinBuckets || used_[0] * 8 >= buckets) return;
  size_t target = std::max(kMinBuckets, std::bit_ceil(used_[0]));
  StartRehash(static_cast<uint8_t>(std::countr_zero(target)));
}

void HashFieldTable::StartRehash(uint8_t log2) {
  buckets_[1] = static_cast<uint64_t*>(std::calloc(size_t{1} << log2, sizeof(uint64_t)));
  // Out of memory: stay overloaded but correct; a later mutation retries.
  if (buckets_[1] == nullptr) return;
  log2_[1] = log2;
  used_[1] = 0;
  rehash_index_ = 0;
}

void HashFieldTable::RehashStep(size_t n) {
  size_t empty_visits = n * 10;
  size_t mask1 = Mask(1);
  while (n > 0 && used_[0] > 0) {
    Node* node = NextOf(buckets_[0][rehash_index_]);
    if (node == nullptr) {
      ++rehash_index_;
      if (--empty_visits == 0) break;
      continue;
    }
    buckets_[0][rehash_index_] = 0;
    while (node != nullptr) {
      Node* next = NextOf(node->link);
      uint64_t* slot = &buckets_[1][HashBytes(Field(node)) & mask1];
      SetPtr(&node->link, NextOf(*slot));
      SetPtr(slot, node);
      --used_[0];
      ++used_[1];
      node = next;
    }
    ++rehash_index_;
    --n;
  }
  if (used_[0] > 0) return;
  std::free(buckets_[0]);
  buckets_[0] = buckets_[1];
  used_[0] = used_[1];
  log2_[0] = log2_[1];
  buckets_[1] = nullptr;
  used_[1] = 0;
  log2_[1] = 0;
  rehash_index_ = kNotRehashing;
  // A mass delete may have left even the new table sparse: keep shrinking.
  MaybeShrink();
}

const HashFieldTable::Node* HashFieldTable::Random() const {
  using hash_table_internal::NextRandom;
  if (Size() == 0) return nullptr;
  size_t first0 = IsRehashing() ? rehash_index_ : 0;
  size_t count0 = Buckets(0) - first0;
  size_t total = count0 + Buckets(1);
  auto slot = [&](size_t i) {
    return i < count0 ? NextOf(buckets_[0][first0 + i]) : NextOf(buckets_[1][i - count0]);
  };
  // As HashTable::Random: probe random buckets, then walk from one.
  const Node* chain = nullptr;
  for (int i = 0; i < 64 && chain == nullptr; ++i) chain = slot(NextRandom() % total);
  for (size_t i = NextRandom() % total; chain == nullptr; i = (i + 1) % total) chain = slot(i);
  size_t length = 0;
  for (const Node* n = chain; n != nullptr; n = NextOf(n->link)) ++length;
  for (size_t skip = NextRandom() % length; skip > 0; --skip) chain = NextOf(chain->link);
  return chain;
}

const HashFieldTable::Node* HashFieldTable::NextNode(Position* pos) const {
  if (pos->node != nullptr) {
    pos->node = NextOf(pos->node->link);
    if (pos->node != nullptr) return pos->node;
    ++pos->bucket;
  } else if (pos->table == 0 && pos->bucket == 0 && IsRehashing()) {
    pos->bucket = rehash_index_;  // buckets below it were moved to table 1
  }
  for (; pos->table < 2; ++pos->table, pos->bucket = 0) {
    for (; pos->bucket < Buckets(pos->table); ++pos->bucket) {
      pos->node = NextOf(buckets_[pos->table][pos->bucket]);
      if (pos->node != nullptr) return pos->node;
    }
  }
  return nullptr;
}

HashFieldTable* HashFieldTable::Clone() const {
  auto* copy = new HashFieldTable();
  copy->Reserve(Size());
  ForEach([copy](const Node* n) { copy->Set(Field(n), Value(n), Expire(n)); });
  return copy;
}

size_t HashFieldTable::MemoryUsage() const {
  size_t bytes = sizeof(*this) + BucketCount() * sizeof(uint64_t);
  // std::set node: three pointers and a colour word, then the (expiry, node) pair.
  bytes += VolatileCount() * (4 * sizeof(void*) + sizeof(VolatileIndex::value_type));
  constexpr size_t kSample = 64;
  size_t sampled = 0, sample_bytes = 0;
  size_t first0 = IsRehashing() ? rehash_index_ : 0;
  for (int t = 0; t < 2 && sampled < kSample; ++t) {
    for (size_t i = t == 0 ? first0 : 0; i < Buckets(t) && sampled < kSample; ++i) {
      for (const Node* n = NextOf(buckets_[t][i]); n != nullptr && sampled < kSample;
           n = NextOf(n->link)) {
        sample_bytes += ZMallocSize(const_cast<Node*>(n));
        ++sampled;
      }
    }
  }
  if (sampled != 0) bytes += sample_bytes * Size() / sampled;
  return bytes;
}

}  // namespace vireo
