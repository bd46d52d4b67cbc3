// Random sampling of set members (SRANDMEMBER, SPOP).
#include <unordered_set>

#include "store/set_value.h"

namespace vireo {
namespace {

uint64_t NextRandom() { return hash_table_internal::NextRandom(); }

// A uniform integer in [0, n).
size_t Below(size_t n) { return static_cast<size_t>(NextRandom() % n); }

}  // namespace

void SetSampleDistinct(const SetObj& s, size_t count, std::vector<SetElem>* out) {
  size_t size = SetSize(s);
  if (s.enc != Encoding::kHashTable || count * 3 > size) {
    // Packed sets are small, and a large share of a table is cheapest taken in one walk:
    // selection sampling keeps each member with probability (still needed / still left).
    size_t left = size;
    size_t needed = count;
    SetForEach(s, [&](const SetElem& el) {
      if (Below(left) < needed) {
        out->push_back(el);
        --needed;
      }
      --left;
      return needed > 0;
    });
    return;
  }
  // A few members of a big table: random draws until count distinct ones were seen. Members
  // are told apart by the address of their bytes, unique per node.
  std::unordered_set<const char*> seen;
  seen.reserve(count * 2);
  while (out->size() < count) {
    SetElem el = SetRandom(s);
    if (seen.insert(el.str.data()).second) out->push_back(el);
  }
}

SetDrawer::SetDrawer(const SetObj& s) : set_(s) {
  if (s.enc == Encoding::kHashTable) return;
  members_.reserve(SetSize(s));
  SetForEach(s, [this](const SetElem& el) {
    members_.push_back(el);
    return true;
  });
}

SetElem SetDrawer::Next() {
  if (set_.enc == Encoding::kHashTable) return SetRandom(set_);
  return members_[Below(members_.size())];
}

}  // namespace vireo
