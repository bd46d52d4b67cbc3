#include "store/eviction_pool.h"

#include <utility>

namespace vireo {

void EvictionPool::Offer(uint64_t score, int db, std::string_view key) {
  // The same key offered again (sampled twice) keeps one slot.
  for (size_t i = 0; i < size_; ++i) {
    if (slots_[i].db == db && slots_[i].key == key) return;
  }
  size_t pos = 0;
  while (pos < size_ && slots_[pos].score < score) ++pos;
  if (size_ == kSize) {
    if (pos == 0) return;  // worse than everything kept
    // Drop the worst (first) candidate, shifting the lower part left.
    --pos;
    for (size_t i = 0; i < pos; ++i) std::swap(slots_[i], slots_[i + 1]);
  } else {
    for (size_t i = size_; i > pos; --i) std::swap(slots_[i], slots_[i - 1]);
    ++size_;
  }
  Slot& s = slots_[pos];
  s.score = score;
  s.db = db;
  s.key.assign(key.data(), key.size());
}

bool EvictionPool::PopBest(int* db, std::string* key, uint64_t* score) {
  if (size_ == 0) return false;
  Slot& s = slots_[--size_];
  *db = s.db;
  key->swap(s.key);
  if (score != nullptr) *score = s.score;
  return true;
}

}  // namespace vireo
