#include "store/set_table.h"

#include <algorithm>
#include <vector>

#include "store/memory.h"

namespace vireo {

SetMember* SetMember::New(std::string_view s) {
  bool is_long = s.size() >= kLongLength;
  size_t header = is_long ? 1 + sizeof(uint32_t) : 1;
  auto* m = static_cast<SetMember*>(ZMalloc(sizeof(SetMember) + header + s.size()));
  m->next = nullptr;
  if (is_long) {
    m->data[0] = kLongLength;
    uint32_t len = static_cast<uint32_t>(s.size());
    std::memcpy(m->data + 1, &len, sizeof(len));
  } else {
    m->data[0] = static_cast<unsigned char>(s.size());
  }
  if (!s.empty()) std::memcpy(m->data + header, s.data(), s.size());
  return m;
}

void SetMember::Delete(SetMember* m) { ZFree(m); }

SetTable* NewSetTable() { return new SetTable(); }

void FreeSetTable(SetTable* t) {
  if (t == nullptr) return;
  t->Clear([](SetMember* m) { SetMember::Delete(m); });
  delete t;
}

bool SetTableAdd(SetTable* t, std::string_view s) {
  if (t->Find(s) != nullptr) return false;
  t->Insert(SetMember::New(s));
  return true;
}

bool SetTableRemove(SetTable* t, std::string_view s) {
  SetMember* m = t->Remove(s);
  if (m == nullptr) return false;
  SetMember::Delete(m);
  if (t->IsRehashing()) {
    // Finish a shrink well before the table drains: a sparse table makes SPOP's random
    // picks slow, and one Remove alone moves a single bucket.
    t->RehashStep(8);
  } else if (t->Size() * 8 < t->BucketCount()) {
    t->MaybeShrink();  // acts below 1/8 load
  }
  return true;
}

SetMember* SetTableRandom(SetTable* t) {
  using hash_table_internal::NextRandom;
  size_t size = t->Size();
  if (size == 0) return nullptr;
  static std::vector<SetMember*> found;
  auto collect = [](SetMember* m) { found.push_back(m); };
  found.clear();
  constexpr size_t kFew = 16;
  if (size <= kFew) {
    // Few members: take them all and choose, exactly uniform.
    uint64_t cursor = 0;
    do {
      cursor = t->Scan(cursor, collect);
    } while (cursor != 0);
    return found[NextRandom() % found.size()];
  }
  // Rejection sampling: a bucket group (one bucket, or during a rehash a bucket of the small
  // table with its expansions in the large one) and a slot in [0, kSlots * group size); the
  // slot's member if there is one, else retry. Every member has the same chance while chains
  // hold at most kSlots per bucket; at load <= 1 a chain of 7 or more is one bucket in ~12000
  // (with 4 slots, the 0.4% of members in chains of 5-6 were drawn visibly less often).
  constexpr size_t kSlots = 6;
  constexpr int kTries = 64;
  size_t buckets = t->BucketCount();
  size_t small = buckets & (~buckets + 1);  // both tables are powers of two
  size_t group = buckets / small;
  for (int attempt = 0; attempt < kTries; ++attempt) {
    found.clear();
    t->Scan(NextRandom() & (small - 1), collect);
    if (found.empty()) continue;
    size_t slots = std::max(kSlots * group, found.size());
    size_t pick = NextRandom() % slots;
    if (pick < found.size()) return found[pick];
  }
  // A sparse table (a shrink still under way): as Valkey's fair random key, gather kFew
  // members from a random cursor on and choose among them.
  found.clear();
  uint64_t cursor = NextRandom();
  bool wrapped = false;
  while (found.size() < kFew) {
    cursor = t->Scan(cursor, collect);
    if (cursor == 0) {
      if (wrapped) break;
      wrapped = true;
    }
  }
  return found[NextRandom() % found.size()];
}

SetTable* CopySetTable(const SetTable* t) {
  SetTable* copy = NewSetTable();
  t->ForEach([copy](SetMember* m) { copy->Insert(SetMember::New(m->Key())); });
  return copy;
}

size_t SetTableMemory(const SetTable* t) {
  size_t bytes = sizeof(SetTable) + t->BucketCount() * sizeof(SetMember*);
  size_t size = t->Size();
  if (size == 0) return bytes;
  // Measure up to kSample nodes from the start of a scan and extrapolate, as MEMORY USAGE
  // samples in Valkey: a huge set is not walked for one estimate.
  constexpr size_t kSample = 64;
  size_t sampled = 0, sampled_bytes = 0;
  auto* table = const_cast<SetTable*>(t);  // Scan does not modify the table
  uint64_t cursor = 0;
  do {
    cursor = table->Scan(cursor, [&](SetMember* m) {
      ++sampled;
      sampled_bytes += ZMallocSize(m);
    });
  } while (cursor != 0 && sampled < kSample);
  return bytes + (sampled == size ? sampled_bytes : sampled_bytes * size / sampled);
}

}  // namespace vireo
