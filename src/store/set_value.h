// Set values, whatever their encoding: intset (small all-integer sets), listpack (small sets),
// hash table (the rest). Conversions follow Valkey 8: up at the thresholds, never back down,
// except where a command builds a fresh set (SPOP's rebuild, *STORE results).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "store/entry.h"
#include "store/listpack.h"
#include "store/set_intset.h"
#include "store/set_table.h"

namespace vireo {

// The encoding thresholds (set-max-intset-entries, set-max-listpack-entries/-value), read
// from the configuration at each write.
struct SetLimits {
  size_t intset_entries = 512;  // capped at set_intset::kMaxEntries
  size_t listpack_entries = 128;
  size_t listpack_value = 64;
};

// One member as the set yields it: text, or an integer (intsets and listpacks store
// integer-looking members as integers). Views point into the set: valid until it changes.
struct SetElem {
  std::string_view str;
  int64_t ival = 0;
  bool is_int = false;

  static SetElem Int(int64_t v) { return {{}, v, true}; }
  static SetElem Str(std::string_view s) { return {s, 0, false}; }
  // The member's text; integers are formatted into buf (>= 21 bytes).
  std::string_view View(char* buf) const;
};

// A set as an entry holds it: its encoding (kIntSet, kListPack or kHashTable) and object.
struct SetObj {
  Encoding enc = Encoding::kIntSet;
  void* ptr = nullptr;
};

inline SetObj SetOf(const Entry* e) { return {e->encoding(), e->obj}; }
// Stores s as e's value (after a change that may have moved or converted it).
inline void PutSet(Entry* e, SetObj s) {
  e->SetType(ObjType::kSet, s.enc);
  e->obj = s.ptr;
}

// An empty set that may receive `first` and about size_hint members (Valkey's choice for a
// new key: intset if first is an integer and the hint fits, else listpack or hash table).
SetObj SetCreate(std::string_view first, size_t size_hint, const SetLimits& lim);
// An empty set of the given encoding (results being built).
SetObj SetCreateEmpty(Encoding enc);
// Before adding size_hint members: converts to a hash table when they could not fit.
void SetMaybeConvert(SetObj* s, size_t size_hint, const SetLimits& lim);
// After building a set of integers only: an intset if it fits.
void SetMaybeConvertToIntset(SetObj* s, const SetLimits& lim);

// Adds member; false if already present. May convert the encoding.
bool SetAdd(SetObj* s, std::string_view member, const SetLimits& lim);
bool SetAddElem(SetObj* s, const SetElem& el, const SetLimits& lim);
// Removes member; false if absent. The caller deletes a key whose set became empty.
bool SetRemove(SetObj* s, std::string_view member);
bool SetRemoveElem(SetObj* s, const SetElem& el);
bool SetContains(const SetObj& s, std::string_view member);
bool SetContainsElem(const SetObj& s, const SetElem& el);
size_t SetSize(const SetObj& s);

// A member picked at random (uniformly for packed encodings); the set must not be empty.
SetElem SetRandom(const SetObj& s);

// Appends count distinct members of s chosen at random (every subset of that size equally
// likely for packed encodings, nearly so for tables) to out; count < SetSize(s).
void SetSampleDistinct(const SetObj& s, size_t count, std::vector<SetElem>* out);

// Draws members of a non-empty set at random with repetition (SRANDMEMBER with a negative
// count): each draw is independent and cheap, whatever the encoding. s must not change while
// the drawer is used.
class SetDrawer {
 public:
  explicit SetDrawer(const SetObj& s);
  SetElem Next();

 private:
  SetObj set_;
  std::vector<SetElem> members_;  // packed encodings: every member, gathered once
};

// Calls fn(const SetElem&) for every member until it returns false. fn must not change s.
template <typename Fn>
void SetForEach(const SetObj& s, Fn&& fn);

// One SSCAN step: fn(const SetElem&) per member visited; returns the next cursor. Packed
// encodings report everything in one step and return 0.
template <typename Fn>
uint64_t SetScan(const SetObj& s, uint64_t cursor, Fn&& fn);

// RDB and DUMP: an intset-encoded set as Valkey's intset blob (store/intset.h; free with
// intset::Free), and back from a blob that passed intset::Validate.
unsigned char* SetIntsetToBlob(const SetObj& s);
SetObj SetFromIntsetBlob(const unsigned char* blob);

void SetFree(SetObj s);
SetObj SetCopy(const SetObj& s);
// Bytes used by the value (not the entry).
size_t SetMemory(const SetObj& s);
// Allocations freeing s would release (decides lazy freeing).
size_t SetFreeEffort(const SetObj& s);

// ---------------------------------------------------------------------------------------------

template <typename Fn>
void SetForEach(const SetObj& s, Fn&& fn) {
  switch (s.enc) {
    case Encoding::kIntSet: {
      const auto* is = static_cast<const unsigned char*>(s.ptr);
      size_t n = set_intset::Length(is);
      for (size_t i = 0; i < n; ++i) {
        if (!fn(SetElem::Int(set_intset::Get(is, i)))) return;
      }
      return;
    }
    case Encoding::kListPack: {
      auto* lp = static_cast<unsigned char*>(s.ptr);
      for (lp::Ptr p = lp::First(lp); p != nullptr; p = lp::Next(lp, p)) {
        lp::Value v = lp::Get(p);
        SetElem el = v.IsInt() ? SetElem::Int(v.ival)
                               : SetElem::Str({reinterpret_cast<const char*>(v.str), v.len});
        if (!fn(el)) return;
      }
      return;
    }
    default: {
      // A scan walk can stop early; with no change in between it visits every member once.
      auto* t = static_cast<SetTable*>(s.ptr);
      bool go = true;
      uint64_t cursor = 0;
      do {
        cursor = t->Scan(cursor, [&](SetMember* m) {
          if (go) go = fn(SetElem::Str(m->Key()));
        });
      } while (cursor != 0 && go);
      return;
    }
  }
}

template <typename Fn>
uint64_t SetScan(const SetObj& s, uint64_t cursor, Fn&& fn) {
  if (s.enc != Encoding::kHashTable) {
    SetForEach(s, [&](const SetElem& el) {
      fn(el);
      return true;
    });
    return 0;
  }
  return static_cast<SetTable*>(s.ptr)->Scan(cursor,
                                             [&](SetMember* m) { fn(SetElem::Str(m->Key())); });
}

}  // namespace vireo
