// The best eviction candidates seen so far, as Valkey keeps them: sampling a few keys per
// round and merging them here approximates evicting the best key of the whole keyspace.
// Keys are copied, so the pool survives the entries it names being deleted; a pick must be
// looked up again. Execution thread only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vireo {

class EvictionPool {
 public:
  static constexpr size_t kSize = 16;  // Valkey's EVPOOL_SIZE

  // Offers a candidate; score: higher = better to evict (idle time, 255 - frequency, ...).
  // Ignored if the pool is full and score is no better than its worst candidate.
  void Offer(uint64_t score, int db, std::string_view key);
  // Takes the best candidate out. False when empty.
  bool PopBest(int* db, std::string* key, uint64_t* score = nullptr);
  size_t Size() const { return size_; }
  void Clear() { size_ = 0; }

 private:
  struct Slot {
    uint64_t score = 0;
    int db = 0;
    std::string key;  // capacity kept between uses to avoid reallocating
  };
  // Sorted by ascending score: the best candidate is the last one.
  std::array<Slot, kSize> slots_;
  size_t size_ = 0;
};

}  // namespace vireo
