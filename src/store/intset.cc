#include "store/intset.h"

#include <cstring>
#include <limits>

#include "store/hash_table.h"  // hash_table_internal::NextRandom, the shared random source
#include "store/memory.h"

namespace vireo::intset {
namespace {

constexpr size_t kHeaderSize = 8;

uint32_t LoadU32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
void StoreU32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

unsigned WidthFor(int64_t v) {
  if (v >= std::numeric_limits<int16_t>::min() && v <= std::numeric_limits<int16_t>::max()) {
    return 2;
  }
  if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
    return 4;
  }
  return 8;
}

// Little-endian regardless of the host, as the format requires.
int64_t LoadAt(const unsigned char* is, unsigned width, size_t i) {
  const unsigned char* p = is + kHeaderSize + i * width;
  uint64_t u = 0;
  for (unsigned b = 0; b < width; b++) u |= uint64_t{p[b]} << (8 * b);
  const unsigned bits = 8 * width;
  if (bits < 64 && (u >> (bits - 1)) & 1) u |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(u);
}

void StoreAt(unsigned char* is, unsigned width, size_t i, int64_t v) {
  unsigned char* p = is + kHeaderSize + i * width;
  const uint64_t u = static_cast<uint64_t>(v);
  for (unsigned b = 0; b < width; b++) p[b] = static_cast<unsigned char>(u >> (8 * b));
}

// Index of v, or where it would be inserted; *found says which.
size_t Search(const unsigned char* is, int64_t v, bool* found) {
  const unsigned width = Encoding(is);
  size_t lo = 0, hi = Length(is);
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const int64_t m = LoadAt(is, width, mid);
    if (m == v) {
      *found = true;
      return mid;
    }
    if (m < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *found = false;
  return lo;
}

// Rewrites every integer at the wider width, back to front so nothing is overwritten unread.
unsigned char* Widen(unsigned char* is, unsigned width) {
  const unsigned old = Encoding(is);
  const size_t n = Length(is);
  is = static_cast<unsigned char*>(ZRealloc(is, kHeaderSize + n * width));
  for (size_t i = n; i-- > 0;) StoreAt(is, width, i, LoadAt(is, old, i));
  StoreU32(is, width);
  return is;
}

}  // namespace

unsigned char* New() {
  auto* is = static_cast<unsigned char*>(ZMalloc(kHeaderSize));
  StoreU32(is, 2);
  StoreU32(is + 4, 0);
  return is;
}

void Free(unsigned char* is) { ZFree(is); }

unsigned char* Dup(const unsigned char* is) {
  const size_t n = Bytes(is);
  auto* copy = static_cast<unsigned char*>(ZMalloc(n));
  std::memcpy(copy, is, n);
  return copy;
}

void Add(unsigned char** isp, int64_t v, bool* added) {
  unsigned char* is = *isp;
  const size_t n = Length(is);
  size_t pos;
  if (WidthFor(v) > Encoding(is)) {
    // v is out of the current range, so it goes at one end.
    is = Widen(is, WidthFor(v));
    pos = v < 0 ? 0 : n;
  } else {
    bool found;
    pos = Search(is, v, &found);
    if (found) {
      if (added) *added = false;
      return;
    }
  }
  const unsigned width = Encoding(is);
  is = static_cast<unsigned char*>(ZRealloc(is, kHeaderSize + (n + 1) * width));
  unsigned char* at = is + kHeaderSize + pos * width;
  std::memmove(at + width, at, (n - pos) * width);
  StoreAt(is, width, pos, v);
  StoreU32(is + 4, static_cast<uint32_t>(n + 1));
  *isp = is;
  if (added) *added = true;
}

bool Remove(unsigned char** isp, int64_t v) {
  unsigned char* is = *isp;
  const unsigned width = Encoding(is);
  if (WidthFor(v) > width) return false;
  bool found;
  const size_t pos = Search(is, v, &found);
  if (!found) return false;
  const size_t n = Length(is);
  unsigned char* at = is + kHeaderSize + pos * width;
  std::memmove(at, at + width, (n - pos - 1) * width);
  StoreU32(is + 4, static_cast<uint32_t>(n - 1));
  *isp = static_cast<unsigned char*>(ZRealloc(is, kHeaderSize + (n - 1) * width));
  return true;
}

bool Find(const unsigned char* is, int64_t v) {
  if (WidthFor(v) > Encoding(is)) return false;
  bool found;
  Search(is, v, &found);
  return found;
}

int64_t Get(const unsigned char* is, size_t i) { return LoadAt(is, Encoding(is), i); }

size_t Length(const unsigned char* is) { return LoadU32(is + 4); }

size_t Bytes(const unsigned char* is) { return kHeaderSize + Length(is) * Encoding(is); }

unsigned Encoding(const unsigned char* is) { return LoadU32(is); }

int64_t Random(const unsigned char* is) {
  return Get(is, hash_table_internal::NextRandom() % Length(is));
}

bool Validate(const unsigned char* blob, size_t size, bool deep) {
  if (blob == nullptr || size < kHeaderSize) return false;
  const uint32_t width = LoadU32(blob);
  if (width != 2 && width != 4 && width != 8) return false;
  const uint64_t n = LoadU32(blob + 4);
  if (n == 0 || kHeaderSize + n * width != size) return false;
  if (!deep) return true;
  for (size_t i = 1; i < n; i++) {
    if (LoadAt(blob, width, i - 1) >= LoadAt(blob, width, i)) return false;
  }
  return true;
}

}  // namespace vireo::intset
