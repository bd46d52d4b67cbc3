#include "store/set_value.h"

#include <algorithm>

#include "common/numbers.h"
#include "store/intset.h"
#include "store/memory.h"

namespace vireo {
namespace {

// A listpack must stay below 1 GB (Valkey's safety limit) whatever the thresholds say.
constexpr size_t kListpackSafetySize = size_t{1} << 30;

unsigned char* AsIntset(const SetObj& s) { return static_cast<unsigned char*>(s.ptr); }
unsigned char* AsListpack(const SetObj& s) { return static_cast<unsigned char*>(s.ptr); }
SetTable* AsTable(const SetObj& s) { return static_cast<SetTable*>(s.ptr); }

uint64_t NextRandom() { return hash_table_internal::NextRandom(); }

size_t IntsetMax(const SetLimits& lim) {
  return std::min(lim.intset_entries, set_intset::kMaxEntries - 1);
}

// Characters of v's decimal text, sign included.
size_t DecimalLength(int64_t v) {
  char buf[24];
  return FormatInt64To(buf, v);
}

// Rebuilds s as a hash table holding the same members.
void ConvertToTable(SetObj* s) {
  SetTable* t = NewSetTable();
  char buf[24];
  SetForEach(*s, [&](const SetElem& el) {
    t->Insert(SetMember::New(el.View(buf)));
    return true;
  });
  SetFree(*s);
  *s = {Encoding::kHashTable, t};
}

// Rebuilds an intset as a listpack holding the same integers.
void ConvertIntsetToListpack(SetObj* s) {
  unsigned char* is = AsIntset(*s);
  size_t n = set_intset::Length(is);
  unsigned char* lp = lp::New(n * 10);
  for (size_t i = 0; i < n; ++i) lp = lp::AppendInt(lp, set_intset::Get(is, i));
  set_intset::Free(is);
  *s = {Encoding::kListPack, lp};
}

void AddIntToIntset(SetObj* s, int64_t v, const SetLimits& lim, bool* added) {
  s->ptr = set_intset::Add(AsIntset(*s), v, added);
  if (*added && set_intset::Length(AsIntset(*s)) > IntsetMax(lim)) ConvertToTable(s);
}

// A non-integer member arrives in an intset: listpack when everything will fit, else a table.
void AddStringToIntset(SetObj* s, std::string_view member, const SetLimits& lim) {
  unsigned char* is = AsIntset(*s);
  size_t n = set_intset::Length(is);
  size_t longest = 0;
  if (n > 0) {
    longest = std::max(DecimalLength(set_intset::Min(is)), DecimalLength(set_intset::Max(is)));
  }
  // Upper bound of the listpack's size: every integer as long as the longest.
  size_t estimate = n * (longest + 2) + member.size() + 16;
  if (n < lim.listpack_entries && member.size() <= lim.listpack_value &&
      longest <= lim.listpack_value && estimate <= kListpackSafetySize) {
    ConvertIntsetToListpack(s);
    s->ptr = lp::Append(AsListpack(*s), member);
    return;
  }
  ConvertToTable(s);
  AsTable(*s)->Insert(SetMember::New(member));
}

bool AddToListpack(SetObj* s, std::string_view member, const SetLimits& lim) {
  unsigned char* lp = AsListpack(*s);
  lp::Ptr first = lp::First(lp);
  if (first != nullptr && lp::Find(lp, first, member, 0) != nullptr) return false;
  if (lp::Length(lp) < lim.listpack_entries && member.size() <= lim.listpack_value &&
      lp::Bytes(lp) + member.size() <= kListpackSafetySize) {
    s->ptr = lp::Append(lp, member);
    return true;
  }
  ConvertToTable(s);
  AsTable(*s)->Insert(SetMember::New(member));
  return true;
}

}  // namespace

std::string_view SetElem::View(char* buf) const {
  if (!is_int) return str;
  return {buf, FormatInt64To(buf, ival)};
}

SetObj SetCreate(std::string_view first, size_t size_hint, const SetLimits& lim) {
  int64_t v;
  if (ParseInt64(first, &v) && size_hint <= lim.intset_entries) {
    return SetCreateEmpty(Encoding::kIntSet);
  }
  if (size_hint <= lim.listpack_entries) return SetCreateEmpty(Encoding::kListPack);
  return SetCreateEmpty(Encoding::kHashTable);
}

SetObj SetCreateEmpty(Encoding enc) {
  switch (enc) {
    case Encoding::kIntSet:
      return {enc, set_intset::New()};
    case Encoding::kListPack:
      return {enc, lp::New()};
    default:
      return {Encoding::kHashTable, NewSetTable()};
  }
}

void SetMaybeConvert(SetObj* s, size_t size_hint, const SetLimits& lim) {
  if ((s->enc == Encoding::kListPack && size_hint > lim.listpack_entries) ||
      (s->enc == Encoding::kIntSet && size_hint > lim.intset_entries)) {
    ConvertToTable(s);
  }
}

void SetMaybeConvertToIntset(SetObj* s, const SetLimits& lim) {
  if (s->enc == Encoding::kIntSet || SetSize(*s) > IntsetMax(lim)) return;
  unsigned char* is = set_intset::New();
  bool all_ints = true;
  SetForEach(*s, [&](const SetElem& el) {
    int64_t v = el.ival;
    if (!el.is_int && !ParseInt64(el.str, &v)) {
      all_ints = false;
      return false;
    }
    bool added;
    is = set_intset::Add(is, v, &added);
    return true;
  });
  if (!all_ints) {
    set_intset::Free(is);
    return;
  }
  SetFree(*s);
  *s = {Encoding::kIntSet, is};
}

bool SetAdd(SetObj* s, std::string_view member, const SetLimits& lim) {
  switch (s->enc) {
    case Encoding::kHashTable:
      return SetTableAdd(AsTable(*s), member);
    case Encoding::kListPack:
      return AddToListpack(s, member, lim);
    default: {
      int64_t v;
      if (ParseInt64(member, &v)) {
        bool added;
        AddIntToIntset(s, v, lim, &added);
        return added;
      }
      AddStringToIntset(s, member, lim);
      return true;
    }
  }
}

bool SetAddElem(SetObj* s, const SetElem& el, const SetLimits& lim) {
  if (el.is_int && s->enc == Encoding::kIntSet) {
    bool added;
    AddIntToIntset(s, el.ival, lim, &added);
    return added;
  }
  char buf[24];
  return SetAdd(s, el.View(buf), lim);
}

bool SetRemove(SetObj* s, std::string_view member) {
  switch (s->enc) {
    case Encoding::kHashTable:
      return SetTableRemove(AsTable(*s), member);
    case Encoding::kListPack: {
      unsigned char* lp = AsListpack(*s);
      lp::Ptr p = lp::First(lp);
      if (p != nullptr) p = lp::Find(lp, p, member, 0);
      if (p == nullptr) return false;
      s->ptr = lp::Delete(lp, &p);
      return true;
    }
    default: {
      int64_t v;
      if (!ParseInt64(member, &v)) return false;
      bool removed;
      s->ptr = set_intset::Remove(AsIntset(*s), v, &removed);
      return removed;
    }
  }
}

bool SetRemoveElem(SetObj* s, const SetElem& el) {
  if (el.is_int && s->enc == Encoding::kIntSet) {
    bool removed;
    s->ptr = set_intset::Remove(AsIntset(*s), el.ival, &removed);
    return removed;
  }
  char buf[24];
  return SetRemove(s, el.View(buf));
}

bool SetContains(const SetObj& s, std::string_view member) {
  switch (s.enc) {
    case Encoding::kHashTable:
      return AsTable(s)->Find(member) != nullptr;
    case Encoding::kListPack: {
      unsigned char* lp = AsListpack(s);
      lp::Ptr p = lp::First(lp);
      return p != nullptr && lp::Find(lp, p, member, 0) != nullptr;
    }
    default: {
      int64_t v;
      return ParseInt64(member, &v) && set_intset::Contains(AsIntset(s), v);
    }
  }
}

bool SetContainsElem(const SetObj& s, const SetElem& el) {
  if (el.is_int && s.enc == Encoding::kIntSet) return set_intset::Contains(AsIntset(s), el.ival);
  char buf[24];
  return SetContains(s, el.View(buf));
}

size_t SetSize(const SetObj& s) {
  switch (s.enc) {
    case Encoding::kHashTable:
      return AsTable(s)->Size();
    case Encoding::kListPack:
      return lp::Length(AsListpack(s));
    default:
      return set_intset::Length(AsIntset(s));
  }
}

SetElem SetRandom(const SetObj& s) {
  switch (s.enc) {
    case Encoding::kHashTable:
      return SetElem::Str(SetTableRandom(AsTable(s))->Key());
    case Encoding::kListPack: {
      unsigned char* lp = AsListpack(s);
      lp::Value v = lp::Get(lp::Seek(lp, static_cast<int64_t>(NextRandom() % lp::Length(lp))));
      return v.IsInt() ? SetElem::Int(v.ival)
                       : SetElem::Str({reinterpret_cast<const char*>(v.str), v.len});
    }
    default: {
      unsigned char* is = AsIntset(s);
      return SetElem::Int(set_intset::Get(is, NextRandom() % set_intset::Length(is)));
    }
  }
}

unsigned char* SetIntsetToBlob(const SetObj& s) {
  unsigned char* is = AsIntset(s);
  unsigned char* blob = intset::New();
  for (size_t i = 0, n = set_intset::Length(is); i < n; ++i) {
    intset::Add(&blob, set_intset::Get(is, i), nullptr);
  }
  return blob;
}

SetObj SetFromIntsetBlob(const unsigned char* blob) {
  unsigned char* is = set_intset::New();
  bool added;
  for (size_t i = 0, n = intset::Length(blob); i < n; ++i) {
    is = set_intset::Add(is, intset::Get(blob, i), &added);
  }
  return {Encoding::kIntSet, is};
}

void SetFree(SetObj s) {
  switch (s.enc) {
    case Encoding::kHashTable:
      FreeSetTable(AsTable(s));
      break;
    case Encoding::kListPack:
      lp::Free(AsListpack(s));
      break;
    default:
      set_intset::Free(AsIntset(s));
      break;
  }
}

SetObj SetCopy(const SetObj& s) {
  switch (s.enc) {
    case Encoding::kHashTable:
      return {s.enc, CopySetTable(AsTable(s))};
    case Encoding::kListPack:
      return {s.enc, lp::Dup(AsListpack(s))};
    default:
      return {s.enc, set_intset::Dup(AsIntset(s))};
  }
}

size_t SetMemory(const SetObj& s) {
  switch (s.enc) {
    case Encoding::kHashTable:
      return SetTableMemory(AsTable(s));
    default:
      return ZMallocSize(s.ptr);
  }
}

size_t SetFreeEffort(const SetObj& s) {
  return s.enc == Encoding::kHashTable ? AsTable(s)->Size() : 1;
}

}  // namespace vireo
