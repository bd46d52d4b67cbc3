#include "store/value.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "common/clock.h"
#include "common/numbers.h"
#include "store/access_clock.h"
#include "store/blob_pins.h"
#include "store/memory.h"

namespace vireo {
namespace {

// Valkey reports strings up to this length created in one piece as "embstr".
constexpr size_t kEmbStrMax = 44;

StrBlob* NewBlob(std::string_view s, size_t cap) {
  const size_t bytes = sizeof(StrBlob) + cap;
  auto* b =
      static_cast<StrBlob*>(bytes >= kValueArenaMin ? ZMallocValue(bytes) : ZMalloc(bytes));
  b->len = static_cast<uint32_t>(s.size());
  b->cap = static_cast<uint32_t>(cap);
  if (!s.empty()) memcpy(b->data, s.data(), s.size());
  return b;
}

ShortStr* NewShort(std::string_view s) {
  auto* b = static_cast<ShortStr*>(ZMalloc(sizeof(ShortStr) + s.size()));
  b->len = static_cast<uint8_t>(s.size());
  if (!s.empty()) memcpy(b->data, s.data(), s.size());
  return b;
}

// True when e's string bytes are in an allocation of their own (embstr or raw).
bool IsStringBlob(const Entry* e) {
  return e->type() == ObjType::kString && e->encoding() != Encoding::kInt &&
         e->encoding() != Encoding::kInlineStr;
}

void StoreInline(Entry* e, std::string_view s) {
  e->istr.len = static_cast<uint8_t>(s.size());
  if (!s.empty()) memcpy(e->istr.data, s.data(), s.size());
  e->SetType(ObjType::kString, Encoding::kInlineStr);
}

// Stores s as a fresh (non-int) string: in the entry up to 7 bytes, embstr up to 44, raw beyond.
// Call on an entry whose value is freed.
void StoreFreshString(Entry* e, std::string_view s) {
  if (s.size() <= InlineStr::kMax) {
    StoreInline(e, s);
  } else if (s.size() <= kEmbStrMax) {
    e->sstr = NewShort(s);
    e->SetType(ObjType::kString, Encoding::kEmbStr);
  } else {
    e->str = NewBlob(s, s.size());
    e->SetType(ObjType::kString, Encoding::kRaw);
  }
}

// A raw value a reply still points at gets a copy of its own before it is changed in place;
// the replies keep (and finally free) the original.
void UnshareRaw(Entry* e) {
  StrBlob* old = e->str;
  if (old->len < kPinnedMin || !BlobPinned(old)) [[likely]] return;
  e->str = NewBlob(old->View(), old->cap);
  ReleaseBlob(old);
}

// Makes e's string a raw blob with room for at least `need` bytes, keeping its content.
StrBlob* EnsureRaw(Entry* e, size_t need) {
  if (e->encoding() == Encoding::kInt) {
    char buf[24];
    size_t n = FormatInt64To(buf, e->ival);
    size_t cap = need > n ? need : n;
    e->str = NewBlob(std::string_view(buf, n), cap + cap / 2);
  } else if (e->encoding() == Encoding::kInlineStr) {
    InlineStr old = e->istr;
    size_t cap = need > old.len ? need : old.len;
    e->str = NewBlob(old.View(), cap + cap / 2);
  } else if (e->encoding() == Encoding::kEmbStr) {
    ShortStr* old = e->sstr;
    size_t cap = need > old->len ? need : old->len;
    e->str = NewBlob(old->View(), cap + cap / 2);
    ZFree(old);
  } else {
    UnshareRaw(e);
    if (e->str->cap < need) {
      // Grow geometrically like an sds string so repeated APPENDs stay linear.
      size_t cap = need < 1024 * 1024 ? need * 2 : need + 1024 * 1024;
      StrBlob* b = static_cast<StrBlob*>(ZRealloc(e->str, sizeof(StrBlob) + cap));
      b->cap = static_cast<uint32_t>(cap);
      e->str = b;
    }
  }
  e->SetType(ObjType::kString, Encoding::kRaw);
  return e->str;
}

}  // namespace

Entry* NewEntry(std::string_view key, bool with_expire) {
  auto* e = static_cast<Entry*>(ZMalloc(Entry::AllocSize(key.size(), with_expire)));
  // The chain link shares its word with the key's length (see Entry): never in practice, but
  // a silently truncated pointer would corrupt the keyspace.
  if (!Entry::Linkable(e)) {
    std::fprintf(stderr, "Entry at %p is above the addresses a chain link can hold\n",
                 static_cast<void*>(e));
    std::abort();
  }
  e->link_word = 0;
  e->ival = 0;
  e->meta = 0;
  e->SetType(ObjType::kString, Encoding::kInt);
  char* key_at = e->tail;
  uint8_t key_info;
  if (key.size() < Entry::kLongKey) {
    key_info = static_cast<uint8_t>(key.size());
  } else {
    key_info = Entry::kLongKey;
    const auto len = static_cast<uint32_t>(key.size());
    memcpy(key_at, &len, sizeof(len));
    key_at += sizeof(len);
  }
  if (!key.empty()) memcpy(key_at, key.data(), key.size());
  e->SetKeyInfo(with_expire ? key_info | Entry::kHasExpire : key_info);
  if (with_expire) e->StoreExpire(0);
  return e;
}

Entry* WithExpireField(const Entry* e) {
  Entry* n = NewEntry(e->Key(), true);
  n->meta = e->meta;
  // The union is 8 bytes whichever member is live; copy it whole.
  memcpy(&n->ival, &e->ival, sizeof(n->ival));
  return n;
}

void FreeEntryHeader(Entry* e) { ZFree(e); }

void FreeValue(Entry* e) {
  switch (e->type()) {
    case ObjType::kString:
      if (IsStringBlob(e)) {
        if (e->encoding() == Encoding::kRaw) {
          ReleaseBlob(e->str);
        } else {
          ZFree(e->sstr);
        }
      }
      break;
    default:
      // Collections register their destructors as they land (see FreeCollection).
      FreeCollection(e->type(), e->encoding(), e->obj);
      break;
  }
  e->SetType(ObjType::kString, Encoding::kInt);
  e->ival = 0;
}

void FreeEntry(Entry* e) {
  FreeValue(e);
  ZFree(e);
}

size_t FreeEffort(const Entry* e) {
  if (e->type() == ObjType::kString) return 1;
  return CollectionFreeEffort(e->type(), e->encoding(), e->obj);
}

Entry* CopyEntry(const Entry* src, std::string_view new_key) {
  Entry* e = NewEntry(new_key, src->HasExpireField());
  if (src->HasExpireField()) e->StoreExpire(src->expire_ms());
  e->meta = src->meta;
  e->SetLru(NewAccessClock());
  switch (src->type()) {
    case ObjType::kString:
      if (src->encoding() == Encoding::kInt || src->encoding() == Encoding::kInlineStr) {
        e->ival = src->ival;  // the whole value word
      } else if (src->encoding() == Encoding::kEmbStr) {
        e->sstr = NewShort(src->sstr->View());
      } else {
        // Exact size: a copy has no pending appends to make room for.
        e->str = NewBlob(src->str->View(), src->str->len);
      }
      break;
    default:
      e->obj = CopyCollection(src->type(), src->encoding(), src->obj);
      break;
  }
  return e;
}

Entry* RekeyEntry(Entry* e, std::string_view new_key) {
  Entry* n = NewEntry(new_key, e->HasExpireField());
  if (e->HasExpireField()) n->StoreExpire(e->expire_ms());
  n->meta = e->meta;
  // The union is 8 bytes whichever member is live; copy it whole.
  memcpy(&n->ival, &e->ival, sizeof(n->ival));
  ZFree(e);
  return n;
}

void SetStringValue(Entry* e, std::string_view s) {
  int64_t v;
  if (ParseInt64(s, &v)) {
    SetIntValue(e, v);
    return;
  }
  // Overwriting a string whose allocation fits the new value (without wasting much) reuses it,
  // so SET over an existing key allocates nothing.
  if (s.size() <= InlineStr::kMax) {
    FreeValue(e);
    StoreInline(e, s);
    return;
  }
  if (s.size() <= kEmbStrMax && e->type() == ObjType::kString &&
      e->encoding() == Encoding::kEmbStr) {
    size_t room = ZMallocSize(e->sstr) - sizeof(ShortStr);
    if (room >= s.size() && room <= 2 * s.size() + 16) {
      if (!s.empty()) memmove(e->sstr->data, s.data(), s.size());
      e->sstr->len = static_cast<uint8_t>(s.size());
      return;
    }
  } else if (s.size() > kEmbStrMax && e->type() == ObjType::kString &&
             e->encoding() == Encoding::kRaw && e->str->cap >= s.size() &&
             e->str->cap <= 2 * s.size() + 16 && !BlobPinned(e->str)) {
    // (A value a reply still points at is left to the reply: a fresh one is made below.)
    memmove(e->str->data, s.data(), s.size());
    e->str->len = static_cast<uint32_t>(s.size());
    return;
  }
  FreeValue(e);
  StoreFreshString(e, s);
}

void SetNonIntStringValue(Entry* e, std::string_view s) {
  FreeValue(e);
  StoreFreshString(e, s);
}

void SetIntValue(Entry* e, int64_t v) {
  FreeValue(e);
  e->ival = v;
  e->SetType(ObjType::kString, Encoding::kInt);
}

void AdoptRawString(Entry* e, void* p, size_t len, size_t size) {
  FreeValue(e);
  auto* b = static_cast<StrBlob*>(p);
  b->len = static_cast<uint32_t>(len);
  b->cap = static_cast<uint32_t>(size - sizeof(StrBlob));
  e->str = b;
  e->SetType(ObjType::kString, Encoding::kRaw);
}

void SetRawStringValue(Entry* e, std::string_view s) {
  FreeValue(e);
  e->str = NewBlob(s, s.size());
  e->SetType(ObjType::kString, Encoding::kRaw);
}

StrBlob* WritableRawBlob(Entry* e) {
  UnshareRaw(e);
  return e->str;
}

std::string_view StringValue(const Entry* e, char* buf) {
  if (e->encoding() == Encoding::kInt) return std::string_view(buf, FormatInt64To(buf, e->ival));
  if (e->encoding() == Encoding::kInlineStr) return e->istr.View();
  if (e->encoding() == Encoding::kEmbStr) return e->sstr->View();
  return e->str->View();
}

size_t StringLength(const Entry* e) {
  if (e->encoding() == Encoding::kInt) {
    char buf[24];
    return FormatInt64To(buf, e->ival);
  }
  if (e->encoding() == Encoding::kInlineStr) return e->istr.len;
  if (e->encoding() == Encoding::kEmbStr) return e->sstr->len;
  return e->str->len;
}

size_t AppendToString(Entry* e, std::string_view s) {
  size_t old = StringLength(e);
  StrBlob* b = EnsureRaw(e, old + s.size());
  if (!s.empty()) memcpy(b->data + b->len, s.data(), s.size());
  b->len = static_cast<uint32_t>(old + s.size());
  return b->len;
}

size_t SetRangeInString(Entry* e, size_t offset, std::string_view s) {
  size_t old = StringLength(e);
  size_t end = offset + s.size();
  size_t len = end > old ? end : old;
  StrBlob* b = EnsureRaw(e, len);
  if (offset > b->len) memset(b->data + b->len, 0, offset - b->len);
  if (!s.empty()) memcpy(b->data + offset, s.data(), s.size());
  b->len = static_cast<uint32_t>(len);
  return len;
}

size_t EntryMemory(const Entry* e) {
  size_t n = ZMallocSize(const_cast<Entry*>(e));
  if (IsStringBlob(e)) n += ZMallocSize(e->obj);
  else if (e->type() != ObjType::kString) n += CollectionMemory(e->type(), e->encoding(), e->obj);
  return n;
}

const char* TypeName(ObjType t) {
  switch (t) {
    case ObjType::kString: return "string";
    case ObjType::kList: return "list";
    case ObjType::kSet: return "set";
    case ObjType::kZSet: return "zset";
    case ObjType::kHash: return "hash";
    case ObjType::kStream: return "stream";
  }
  return "none";
}

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::kInt: return "int";
    case Encoding::kEmbStr:
    case Encoding::kInlineStr: return "embstr";
    case Encoding::kRaw: return "raw";
    case Encoding::kListPack: return "listpack";
    case Encoding::kQuickList: return "quicklist";
    case Encoding::kIntSet: return "intset";
    case Encoding::kHashTable: return "hashtable";
    case Encoding::kSkipList: return "skiplist";
    case Encoding::kStream: return "stream";
  }
  return "unknown";
}

}  // namespace vireo
