#include "store/list_value.h"

#include <cstring>

#include "common/numbers.h"
#include "store/memory.h"

namespace vireo {
namespace {

unsigned char* Packed(const Entry* e) { return static_cast<unsigned char*>(e->obj); }
QuickList* Quick(const Entry* e) { return static_cast<QuickList*>(e->obj); }
bool IsPacked(const Entry* e) { return e->encoding() == Encoding::kListPack; }

QuickList* QuickFor(const Entry* e, const ListLimits& limits) {
  QuickList* ql = Quick(e);
  ql->SetOptions(limits.fill, limits.compress_depth);
  return ql;
}

// Compares elements with s the way the listpack stores it: canonical integer text matches
// integer elements by value, anything else matches string elements byte for byte.
class Matcher {
 public:
  explicit Matcher(std::string_view s) : s_(s) {
    char buf[24];
    is_int_ = ParseInt64(s, &ival_) && std::string_view(buf, FormatInt64To(buf, ival_)) == s;
  }
  bool Matches(const unsigned char* p) const {
    lp::Value v = lp::Get(p);
    if (!v.IsInt()) {
      return v.len == s_.size() && (s_.empty() || std::memcmp(v.str, s_.data(), s_.size()) == 0);
    }
    return is_int_ && v.ival == ival_;
  }

 private:
  std::string_view s_;
  int64_t ival_ = 0;
  bool is_int_ = false;
};

}  // namespace

void ListInit(Entry* e) {
  e->SetType(ObjType::kList, Encoding::kListPack);
  e->obj = lp::New();
}

size_t ListLength(const Entry* e) {
  return IsPacked(e) ? lp::Length(Packed(e)) : Quick(e)->Count();
}

void ListGrowing(Entry* e, const ListLimits& limits, size_t count, size_t bytes) {
  if (!IsPacked(e)) return;
  unsigned char* lp = Packed(e);
  size_t len = lp::Length(lp);
  if (!ListPackExceedsFill(limits.fill, lp::Bytes(lp) + bytes, len + count)) return;
  auto* ql = new QuickList(limits.fill, limits.compress_depth);
  if (len > 0) {
    ql->AppendListPack(lp);
  } else {
    lp::Free(lp);
  }
  e->obj = ql;
  e->SetType(ObjType::kList, Encoding::kQuickList);
}

void ListShrinking(Entry* e, const ListLimits& limits) {
  if (IsPacked(e)) return;
  QuickList* ql = Quick(e);
  if (ql->NodeCount() != 1) return;
  if (!ListPackFitsFill(limits.fill, ql->Head()->bytes, ql->Count(), true)) return;
  e->obj = ql->ReleaseSingleListPack();
  delete ql;
  e->SetType(ObjType::kList, Encoding::kListPack);
}

void ListPush(Entry* e, std::string_view s, ListEnd end, const ListLimits& limits) {
  if (IsPacked(e)) {
    e->obj = end == ListEnd::kHead ? lp::Prepend(Packed(e), s) : lp::Append(Packed(e), s);
    return;
  }
  QuickList* ql = QuickFor(e, limits);
  if (end == ListEnd::kHead) {
    ql->PushHead(s);
  } else {
    ql->PushTail(s);
  }
}

const unsigned char* ListPeek(const Entry* e, ListEnd end) {
  if (IsPacked(e)) return end == ListEnd::kHead ? lp::First(Packed(e)) : lp::Last(Packed(e));
  return end == ListEnd::kHead ? Quick(e)->Front() : Quick(e)->Back();
}

void ListPop(Entry* e, ListEnd end) {
  if (IsPacked(e)) {
    unsigned char* lp = Packed(e);
    unsigned char* p = end == ListEnd::kHead ? lp::First(lp) : lp::Last(lp);
    e->obj = lp::Delete(lp, &p);
    return;
  }
  if (end == ListEnd::kHead) {
    Quick(e)->PopHead();
  } else {
    Quick(e)->PopTail();
  }
}

void ListDeleteRange(Entry* e, size_t start, size_t count, const ListLimits& limits) {
  if (count == 0) return;
  if (IsPacked(e)) {
    unsigned char* lp = Packed(e);
    unsigned char* p = lp::Seek(lp, static_cast<int64_t>(start));
    e->obj = lp::DeleteRange(lp, &p, count);
    return;
  }
  QuickFor(e, limits)->DeleteRange(start, count);
}

void ListReplace(Entry* e, size_t index, std::string_view s, const ListLimits& limits) {
  if (IsPacked(e)) {
    unsigned char* lp = Packed(e);
    unsigned char* p = lp::Seek(lp, static_cast<int64_t>(index));
    e->obj = lp::Replace(lp, &p, s);
    return;
  }
  QuickFor(e, limits)->Replace(index, s);
}

void ListInsert(Entry* e, size_t index, std::string_view s, bool after, const ListLimits& limits) {
  if (IsPacked(e)) {
    unsigned char* lp = Packed(e);
    unsigned char* p = lp::Seek(lp, static_cast<int64_t>(index));
    e->obj = lp::Insert(lp, p, s, after);
    return;
  }
  QuickFor(e, limits)->Insert(index, s, after);
}

int64_t ListFind(const Entry* e, std::string_view s) {
  if (ListLength(e) == 0) return -1;
  Matcher m(s);
  ListCursor c(e, 0, false);
  int64_t i = 0;
  for (const unsigned char* p = c.Next(); p != nullptr; p = c.Next(), ++i) {
    if (m.Matches(p)) return i;
  }
  return -1;
}

size_t ListRemove(Entry* e, std::string_view s, size_t limit, bool from_tail,
                  const ListLimits& limits) {
  if (!IsPacked(e)) return QuickFor(e, limits)->Remove(s, limit, from_tail);
  unsigned char* lp = Packed(e);
  Matcher m(s);
  size_t removed = 0;
  unsigned char* p = from_tail ? lp::Last(lp) : lp::First(lp);
  while (p != nullptr && (limit == 0 || removed < limit)) {
    if (!m.Matches(p)) {
      p = from_tail ? lp::Prev(lp, p) : lp::Next(lp, p);
      continue;
    }
    size_t at = static_cast<size_t>(p - lp);
    lp = lp::Delete(lp, &p);
    ++removed;
    if (from_tail) p = lp::Prev(lp, lp + at);  // the element before the deleted one
  }
  e->obj = lp;
  return removed;
}

ListCursor::ListCursor(const Entry* e, size_t index, bool reverse) : reverse_(reverse) {
  if (IsPacked(e)) {
    lp_ = Packed(e);
    p_ = lp::Seek(lp_, static_cast<int64_t>(index));
    return;
  }
  size_t offset;
  Load(Quick(e)->NodeAt(index, &offset));
  p_ = lp::Seek(lp_, static_cast<int64_t>(offset));
}

void ListCursor::Load(QuickListNode* n) {
  node_ = n;
  lp_ = QuickList::ReadableListPack(n, &scratch_);
}

bool ListCursor::NextNode() {
  QuickListNode* n = reverse_ ? node_->prev : node_->next;
  if (n == nullptr) {
    node_ = nullptr;
    return false;
  }
  Load(n);
  p_ = reverse_ ? lp::Last(lp_) : lp::First(lp_);
  return true;
}

void FreeListValue(Encoding enc, void* obj) {
  if (enc == Encoding::kListPack) {
    lp::Free(static_cast<unsigned char*>(obj));
  } else {
    delete static_cast<QuickList*>(obj);
  }
}

size_t ListFreeEffort(Encoding enc, const void* obj) {
  return enc == Encoding::kListPack ? 1 : static_cast<const QuickList*>(obj)->NodeCount();
}

size_t ListMemory(Encoding enc, const void* obj) {
  if (enc == Encoding::kListPack) return ZMallocSize(const_cast<void*>(obj));
  return static_cast<const QuickList*>(obj)->MemoryUsage();
}

void* CopyListValue(Encoding enc, const void* obj) {
  if (enc == Encoding::kListPack) return lp::Dup(static_cast<const unsigned char*>(obj));
  return static_cast<const QuickList*>(obj)->Clone();
}

}  // namespace vireo
