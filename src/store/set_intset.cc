#include "store/set_intset.h"

#include <cstring>

#include "store/memory.h"

namespace vireo::set_intset {
namespace {

// Header: count << 2 | width code (width = 1 << code bytes). Host byte order: the blob never
// leaves the process (ToValkeyBlob writes the portable form).
constexpr size_t kHeader = sizeof(uint32_t);

uint32_t LoadHeader(const unsigned char* is) {
  uint32_t h;
  std::memcpy(&h, is, sizeof(h));
  return h;
}
void StoreHeader(unsigned char* is, size_t count, unsigned code) {
  uint32_t h = static_cast<uint32_t>(count << 2) | code;
  std::memcpy(is, &h, sizeof(h));
}
unsigned CodeOf(const unsigned char* is) { return LoadHeader(is) & 3u; }
size_t WidthOf(unsigned code) { return size_t{1} << code; }

// The narrowest width code that holds v.
unsigned CodeFor(int64_t v) {
  if (v >= INT8_MIN && v <= INT8_MAX) return 0;
  if (v >= INT16_MIN && v <= INT16_MAX) return 1;
  if (v >= INT32_MIN && v <= INT32_MAX) return 2;
  return 3;
}

int64_t LoadAt(const unsigned char* data, size_t i, unsigned code) {
  switch (code) {
    case 0: {
      int8_t v;
      std::memcpy(&v, data + i, 1);
      return v;
    }
    case 1: {
      int16_t v;
      std::memcpy(&v, data + 2 * i, 2);
      return v;
    }
    case 2: {
      int32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      return v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, data + 8 * i, 8);
      return v;
    }
  }
}

void StoreAt(unsigned char* data, size_t i, unsigned code, int64_t v) {
  switch (code) {
    case 0: {
      auto x = static_cast<int8_t>(v);
      std::memcpy(data + i, &x, 1);
      break;
    }
    case 1: {
      auto x = static_cast<int16_t>(v);
      std::memcpy(data + 2 * i, &x, 2);
      break;
    }
    case 2: {
      auto x = static_cast<int32_t>(v);
      std::memcpy(data + 4 * i, &x, 4);
      break;
    }
    default:
      std::memcpy(data + 8 * i, &v, 8);
      break;
  }
}

// Binary search: true and *pos = index if found, else *pos = insertion point.
bool Search(const unsigned char* is, int64_t v, size_t* pos) {
  uint32_t h = LoadHeader(is);
  unsigned code = h & 3u;
  size_t lo = 0, hi = h >> 2;
  const unsigned char* data = is + kHeader;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t x = LoadAt(data, mid, code);
    if (x == v) {
      *pos = mid;
      return true;
    }
    if (x < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *pos = lo;
  return false;
}

}  // namespace

unsigned char* New() {
  auto* is = static_cast<unsigned char*>(ZMalloc(kHeader));
  StoreHeader(is, 0, 0);
  return is;
}

void Free(unsigned char* is) { ZFree(is); }

unsigned char* Dup(const unsigned char* is) {
  size_t n = Bytes(is);
  auto* copy = static_cast<unsigned char*>(ZMalloc(n));
  std::memcpy(copy, is, n);
  return copy;
}

size_t Length(const unsigned char* is) { return LoadHeader(is) >> 2; }

size_t Bytes(const unsigned char* is) { return kHeader + Length(is) * WidthOf(CodeOf(is)); }

int64_t Get(const unsigned char* is, size_t i) { return LoadAt(is + kHeader, i, CodeOf(is)); }

int64_t Min(const unsigned char* is) { return Get(is, 0); }

int64_t Max(const unsigned char* is) { return Get(is, Length(is) - 1); }

bool Contains(const unsigned char* is, int64_t v) {
  if (CodeFor(v) > CodeOf(is)) return false;
  size_t pos;
  return Search(is, v, &pos);
}

unsigned char* Add(unsigned char* is, int64_t v, bool* added) {
  size_t n = Length(is);
  unsigned code = CodeOf(is);
  unsigned need = CodeFor(v);
  if (need > code) {
    // v lies outside every stored value's range: it goes first (negative) or last. Widen
    // from the back so no value is overwritten before it is read.
    is = static_cast<unsigned char*>(ZRealloc(is, kHeader + (n + 1) * WidthOf(need)));
    unsigned char* data = is + kHeader;
    size_t shift = v < 0 ? 1 : 0;
    for (size_t i = n; i-- > 0;) StoreAt(data, i + shift, need, LoadAt(data, i, code));
    StoreAt(data, v < 0 ? 0 : n, need, v);
    StoreHeader(is, n + 1, need);
    *added = true;
    return is;
  }
  size_t pos;
  if (Search(is, v, &pos)) {
    *added = false;
    return is;
  }
  size_t width = WidthOf(code);
  is = static_cast<unsigned char*>(ZRealloc(is, kHeader + (n + 1) * width));
  unsigned char* data = is + kHeader;
  std::memmove(data + (pos + 1) * width, data + pos * width, (n - pos) * width);
  StoreAt(data, pos, code, v);
  StoreHeader(is, n + 1, code);
  *added = true;
  return is;
}

unsigned char* RemoveAt(unsigned char* is, size_t i) {
  size_t n = Length(is);
  unsigned code = CodeOf(is);
  size_t width = WidthOf(code);
  unsigned char* data = is + kHeader;
  std::memmove(data + i * width, data + (i + 1) * width, (n - i - 1) * width);
  StoreHeader(is, n - 1, code);
  return static_cast<unsigned char*>(ZRealloc(is, kHeader + (n - 1) * width));
}

unsigned char* Remove(unsigned char* is, int64_t v, bool* removed) {
  size_t pos;
  *removed = CodeFor(v) <= CodeOf(is) && Search(is, v, &pos);
  return *removed ? RemoveAt(is, pos) : is;
}

}  // namespace vireo::set_intset
