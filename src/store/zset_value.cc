#include "store/zset_value.h"

#include <algorithm>
#include <cmath>

#include "common/numbers.h"
#include "store/memory.h"
#include "store/zset_listpack.h"

namespace vireo {

struct ZSet::Big {
  HashTable<ZNode> members;
  ZTree order;
  size_t node_bytes = 0;  // allocation sizes of the nodes, for MEMORY USAGE
};

namespace {

// A listpack may not grow past 1 GB (Valkey's lpSafeToAdd limit).
constexpr size_t kListPackSafetyLimit = size_t{1} << 30;

// Ordering predicate for a search: elements strictly before (score, member).
struct BeforeKey {
  double score;
  std::string_view member;
  bool operator()(double s, const ZNode* n) const {
    if (s != score) return s < score;
    return CompareMembers(n->Key(), member) < 0;
  }
};

bool NodeLess(const ZNode* a, const ZNode* b) {
  if (a->score != b->score) return a->score < b->score;
  return CompareMembers(a->Key(), b->Key()) < 0;
}

}  // namespace

ZSetBigView BigViewOf(void* obj) {
  auto* b = static_cast<ZSet::Big*>(obj);
  return {&b->members, &b->order};
}

ZSet ZSet::Create(size_t first_member_len, const ZSetLimits& limits) {
  if (limits.max_listpack_entries == 0 || first_member_len > limits.max_listpack_value) {
    return ZSet(Encoding::kSkipList, new Big());
  }
  return ZSet(Encoding::kListPack, lp::New());
}

ZSet ZSet::FromNodes(std::vector<ZNode*>* nodes, const ZSetLimits& limits) {
  std::sort(nodes->begin(), nodes->end(), NodeLess);
  size_t max_len = 0, total_len = 0;
  for (const ZNode* n : *nodes) {
    max_len = std::max(max_len, n->Key().size());
    total_len += n->Key().size();
  }
  if (nodes->size() <= limits.max_listpack_entries && max_len <= limits.max_listpack_value &&
      total_len < kListPackSafetyLimit) {
    unsigned char* lp = lp::New();
    for (ZNode* n : *nodes) {
      lp = zlp::Append(lp, n->Key(), n->score);
      FreeZNode(n);
    }
    nodes->clear();
    return ZSet(Encoding::kListPack, lp);
  }
  Big* b = new Big();
  size_t rank = 0;
  for (ZNode* n : *nodes) {
    b->members.Insert(n);
    b->order.InsertAt(rank++, n);
    b->node_bytes += ZNodeAllocSize(n->Key().size());
  }
  nodes->clear();
  return ZSet(Encoding::kSkipList, b);
}

void ZSet::Free() {
  if (obj_ == nullptr) return;
  if (IsListPack()) {
    lp::Free(lp());
  } else {
    Big* b = big();
    b->order.Clear();
    b->members.Clear([](ZNode* n) { FreeZNode(n); });
    delete b;
  }
  obj_ = nullptr;
}

ZSet ZSet::Copy() const {
  if (IsListPack()) return ZSet(enc_, lp::Dup(lp()));
  const Big* src = big();
  Big* b = new Big();
  size_t rank = 0;
  for (ZTree::Iterator it = src->order.Seek(0); it.Valid(); it.Next()) {
    const ZNode* from = it.Get();
    ZNode* n = NewZNode(from->Key(), from->score);
    b->members.Insert(n);
    b->order.InsertAt(rank++, n);
  }
  b->node_bytes = src->node_bytes;
  return ZSet(enc_, b);
}

size_t ZSet::Memory() const {
  if (IsListPack()) return lp::Bytes(lp());
  const Big* b = big();
  return sizeof(Big) + b->members.BucketCount() * sizeof(ZNode*) + b->order.Memory() +
         b->node_bytes;
}

size_t ZSet::Length() const { return IsListPack() ? zlp::Length(lp()) : big()->order.Size(); }

bool ZSet::Score(std::string_view member, double* score) const {
  if (IsListPack()) return zlp::Find(lp(), member, score) != nullptr;
  const ZNode* n = big()->members.Find(member);
  if (n == nullptr) return false;
  *score = n->score;
  return true;
}

void ZSet::AddToBig(std::string_view member, double score) {
  Big* b = big();
  ZNode* n = NewZNode(member, score);
  b->members.Insert(n);
  b->order.InsertAt(b->order.LowerBound(BeforeKey{score, member}), n);
  b->node_bytes += ZNodeAllocSize(member.size());
}

ZAddResult ZSet::Add(std::string_view member, double score, int flags, const ZSetLimits& limits,
                     double* out) {
  const bool nx = flags & kZAddNx, xx = flags & kZAddXx, gt = flags & kZAddGt, lt = flags & kZAddLt,
             incr = flags & kZAddIncr;
  double cur = 0;
  lp::Ptr lp_pos = nullptr;
  ZNode* node = nullptr;
  bool present;
  if (IsListPack()) {
    lp_pos = zlp::Find(lp(), member, &cur);
    present = lp_pos != nullptr;
  } else {
    node = big()->members.Find(member);
    present = node != nullptr;
    if (present) cur = node->score;
  }
  if (!present) {
    if (xx) return ZAddResult::kSkipped;
    *out = score;
    if (IsListPack()) {
      if (zlp::Length(lp()) + 1 <= limits.max_listpack_entries &&
          member.size() <= limits.max_listpack_value &&
          lp::Bytes(lp()) + member.size() <= kListPackSafetyLimit) {
        obj_ = zlp::Insert(lp(), member, score);
        return ZAddResult::kAdded;
      }
      ConvertToSkipList();
    }
    AddToBig(member, score);
    return ZAddResult::kAdded;
  }
  if (nx) return ZAddResult::kSkipped;
  if (incr) {
    score += cur;
    if (std::isnan(score)) return ZAddResult::kNaN;
  }
  if ((lt && score >= cur) || (gt && score <= cur)) return ZAddResult::kSkipped;
  *out = score;
  if (score == cur) return ZAddResult::kUnchanged;
  if (IsListPack()) {
    obj_ = zlp::Erase(lp(), lp_pos);
    obj_ = zlp::Insert(lp(), member, score);
  } else {
    // The index caches scores, so a node changes score only while out of it.
    ZTree& order = big()->order;
    order.EraseAt(order.RankOf(node));
    node->score = score;
    order.InsertAt(order.LowerBound(BeforeKey{score, node->Key()}), node);
  }
  return ZAddResult::kUpdated;
}

bool ZSet::Remove(std::string_view member) {
  if (IsListPack()) {
    double score;
    lp::Ptr p = zlp::Find(lp(), member, &score);
    if (p == nullptr) return false;
    obj_ = zlp::Erase(lp(), p);
    return true;
  }
  Big* b = big();
  ZNode* n = b->members.Remove(member);
  if (n == nullptr) return false;
  b->order.EraseAt(b->order.RankOf(n));
  b->node_bytes -= ZNodeAllocSize(member.size());
  FreeZNode(n);
  b->members.MaybeShrink();
  return true;
}

bool ZSet::Rank(std::string_view member, size_t* rank, double* score) const {
  if (IsListPack()) {
    unsigned char* l = lp();
    lp::Ptr target = zlp::Find(l, member, score);
    if (target == nullptr) return false;
    size_t r = 0;
    for (lp::Ptr p = lp::First(l); p != target; p = lp::Next(l, lp::Next(l, p))) ++r;
    *rank = r;
    return true;
  }
  const ZNode* n = big()->members.Find(member);
  if (n == nullptr) return false;
  *rank = big()->order.RankOf(n);
  *score = n->score;
  return true;
}

size_t ZSet::ScoreRank(double v, bool or_equal) const {
  if (IsListPack()) {
    unsigned char* l = lp();
    size_t r = 0;
    for (lp::Ptr p = lp::First(l); p != nullptr; ++r) {
      lp::Ptr sp = lp::Next(l, p);
      double s = zlp::ScoreAt(sp);
      if (!(s < v || (or_equal && s == v))) break;
      p = lp::Next(l, sp);
    }
    return r;
  }
  if (or_equal) return big()->order.LowerBound([v](double s, const ZNode*) { return s <= v; });
  return big()->order.LowerBound([v](double s, const ZNode*) { return s < v; });
}

size_t ZSet::LexRank(std::string_view v, bool or_equal) const {
  const int limit = or_equal ? 1 : 0;  // before while compare(member, v) < limit
  if (IsListPack()) {
    unsigned char* l = lp();
    char buf[24];
    size_t r = 0;
    for (lp::Ptr p = lp::First(l); p != nullptr; p = lp::Next(l, lp::Next(l, p)), ++r) {
      if (CompareMembers(zlp::MemberAt(p, buf), v) >= limit) break;
    }
    return r;
  }
  return big()->order.LowerBound(
      [&](double, const ZNode* n) { return CompareMembers(n->Key(), v) < limit; });
}

ZSet::Iterator ZSet::Seek(size_t rank) const {
  Iterator it;
  if (IsListPack()) {
    it.lp_ = lp();
    it.p_ = lp::Seek(lp(), static_cast<int64_t>(2 * rank));
  } else {
    it.it_ = big()->order.Seek(rank);
  }
  return it;
}

void ZSet::RemoveRange(size_t start, size_t end) {
  if (IsListPack()) {
    lp::Ptr p = lp::Seek(lp(), static_cast<int64_t>(2 * start));
    obj_ = lp::DeleteRange(lp(), &p, 2 * (end - start + 1));
    return;
  }
  Big* b = big();
  for (size_t i = start; i <= end; ++i) {
    ZNode* n = b->order.EraseAt(start);
    b->members.Remove(n->Key());
    b->node_bytes -= ZNodeAllocSize(n->Key().size());
    FreeZNode(n);
  }
  b->members.MaybeShrink();
}

size_t ZSet::RandomRank() const { return hash_table_internal::NextRandom() % Length(); }

void ZSet::ConvertToSkipList() {
  if (!IsListPack()) return;
  unsigned char* l = lp();
  Big* b = new Big();
  size_t rank = 0;
  char buf[24];
  for (lp::Ptr p = lp::First(l); p != nullptr;) {
    lp::Ptr sp = lp::Next(l, p);
    std::string_view member = zlp::MemberAt(p, buf);
    ZNode* n = NewZNode(member, zlp::ScoreAt(sp));
    b->members.Insert(n);
    b->order.InsertAt(rank++, n);
    b->node_bytes += ZNodeAllocSize(member.size());
    p = lp::Next(l, sp);
  }
  lp::Free(l);
  enc_ = Encoding::kSkipList;
  obj_ = b;
}

std::string_view ZSet::Iterator::Member() {
  if (lp_ != nullptr) return zlp::MemberAt(p_, buf_);
  return it_.Get()->Key();
}

double ZSet::Iterator::Score() const {
  if (lp_ != nullptr) return zlp::ScoreAt(lp::Next(lp_, p_));
  return it_.Get()->score;
}

std::string_view ZSet::Iterator::ScoreText(char* buf) const {
  if (lp_ != nullptr) return zlp::ScoreTextAt(lp::Next(lp_, p_), buf);
  return {buf, FormatDoubleG17To(buf, it_.Get()->score)};
}

void ZSet::Iterator::Next() {
  if (lp_ != nullptr) {
    p_ = lp::Next(lp_, lp::Next(lp_, p_));
  } else {
    it_.Next();
  }
}

void ZSet::Iterator::Prev() {
  if (lp_ != nullptr) {
    lp::Ptr q = lp::Prev(lp_, p_);
    p_ = q != nullptr ? lp::Prev(lp_, q) : nullptr;
  } else {
    it_.Prev();
  }
}

void FreeZSetObject(Encoding enc, void* obj) { ZSet(enc, obj).Free(); }

size_t ZSetFreeEffort(Encoding enc, const void* obj) {
  return enc == Encoding::kListPack ? 1 : ZSet(enc, const_cast<void*>(obj)).Length();
}

size_t ZSetMemory(Encoding enc, const void* obj) {
  return ZSet(enc, const_cast<void*>(obj)).Memory();
}

void* CopyZSetObject(Encoding enc, const void* obj) {
  return ZSet(enc, const_cast<void*>(obj)).Copy().object();
}

}  // namespace vireo
