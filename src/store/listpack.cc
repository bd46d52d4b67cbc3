#include "store/listpack.h"

#include <cstring>
#include <limits>

#include "common/numbers.h"
#include "store/memory.h"

namespace vireo::lp {
namespace {

// Layout constants from the listpack specification.
constexpr size_t kHeaderSize = 6;
constexpr unsigned char kEnd = 0xFF;
constexpr uint32_t kUnknownCount = 65535;  // header count saturated: walk to count

// Encoding bytes (first byte of an entry).
constexpr unsigned char kUint7Mask = 0x80;  // 0xxxxxxx
constexpr unsigned char kStr6 = 0x80;       // 10xxxxxx, mask 0xC0
constexpr unsigned char kInt13 = 0xC0;      // 110xxxxx, mask 0xE0
constexpr unsigned char kStr12 = 0xE0;      // 1110xxxx, mask 0xF0
constexpr unsigned char kStr32 = 0xF0;
constexpr unsigned char kInt16 = 0xF1;
constexpr unsigned char kInt24 = 0xF2;
constexpr unsigned char kInt32 = 0xF3;
constexpr unsigned char kInt64 = 0xF4;

// Longest canonical int64 text ("-9223372036854775808").
constexpr size_t kMaxIntChars = 20;

uint32_t LoadU32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}
void StoreU32(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}

uint32_t TotalBytes(const unsigned char* lp) { return LoadU32(lp); }
uint32_t HeaderCount(const unsigned char* lp) { return uint32_t{lp[4]} | uint32_t{lp[5]} << 8; }
void SetHeaderCount(unsigned char* lp, uint32_t n) {
  lp[4] = static_cast<unsigned char>(n);
  lp[5] = static_cast<unsigned char>(n >> 8);
}

// Back-length width for an entry whose encoding+data take l bytes. The thresholds are Valkey's
// (2 bytes only below 16383, not up to it), so blobs we write are byte-identical to its.
size_t BacklenWidth(uint64_t l) {
  if (l <= 127) return 1;
  if (l < 16383) return 2;
  if (l < 2097151) return 3;
  if (l < 268435455) return 4;
  return 5;
}

// The most significant 7-bit group comes first and lacks the continuation bit, so a reader
// walking backwards from the last byte stops on it.
void WriteBacklen(unsigned char* p, uint64_t l, size_t width) {
  for (size_t i = 0; i < width; i++) {
    const unsigned shift = static_cast<unsigned>(7 * (width - 1 - i));
    unsigned char b = static_cast<unsigned char>((l >> shift) & 127);
    if (i > 0) b |= 128;
    p[i] = b;
  }
}

// Decodes the back length whose last byte is at `last`; *width receives its byte count.
uint64_t ReadBacklen(const unsigned char* last, size_t* width) {
  uint64_t v = 0;
  unsigned shift = 0;
  size_t n = 0;
  for (;;) {
    const unsigned char b = last[-static_cast<ptrdiff_t>(n)];
    v |= uint64_t{b & 127u} << shift;
    n++;
    if (!(b & 128) || n == 5) break;
    shift += 7;
  }
  *width = n;
  return v;
}

// Bytes of encoding+data of the entry at p (which must not be the end byte), or 0 for an
// unknown encoding byte.
uint64_t EncodedSize(const unsigned char* p) {
  const unsigned char b = p[0];
  if (!(b & kUint7Mask)) return 1;
  if ((b & 0xC0) == kStr6) return 1 + (b & 0x3F);
  if ((b & 0xE0) == kInt13) return 2;
  if ((b & 0xF0) == kStr12) return 2 + ((uint64_t{b & 0x0Fu} << 8) | p[1]);
  switch (b) {
    case kInt16:
      return 3;
    case kInt24:
      return 4;
    case kInt32:
      return 5;
    case kInt64:
      return 9;
    case kStr32:
      return 5 + uint64_t{LoadU32(p + 1)};
    default:
      return 0;
  }
}

// How many header bytes a given first encoding byte needs before EncodedSize may read them.
size_t EncodingHeaderBytes(unsigned char b) {
  if ((b & 0xF0) == kStr12) return 2;
  if (b == kStr32) return 5;
  return 1;
}

size_t EntryBytesAt(const unsigned char* p) {
  const uint64_t l = EncodedSize(p);
  return static_cast<size_t>(l + BacklenWidth(l));
}

// An element ready to be written: encoding header (which holds the whole value for integers)
// followed by string bytes.
struct Encoded {
  unsigned char head[9];
  size_t head_len = 0;
  const char* data = nullptr;
  size_t data_len = 0;

  uint64_t EncodedLen() const { return head_len + data_len; }
  size_t Bytes() const { return static_cast<size_t>(EncodedLen() + BacklenWidth(EncodedLen())); }
  // Writes the entry at p and returns the byte after it.
  unsigned char* WriteTo(unsigned char* p) const {
    std::memcpy(p, head, head_len);
    if (data_len) std::memcpy(p + head_len, data, data_len);
    const uint64_t l = EncodedLen();
    const size_t w = BacklenWidth(l);
    WriteBacklen(p + l, l, w);
    return p + l + w;
  }
};

void StoreLE(unsigned char* p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

Encoded EncodeInt(int64_t v) {
  Encoded e;
  const uint64_t u = static_cast<uint64_t>(v);
  if (v >= 0 && v <= 127) {
    e.head[0] = static_cast<unsigned char>(v);
    e.head_len = 1;
  } else if (v >= -4096 && v <= 4095) {
    const uint64_t t = u & 0x1FFF;  // 13-bit two's complement
    e.head[0] = static_cast<unsigned char>(kInt13 | (t >> 8));
    e.head[1] = static_cast<unsigned char>(t);
    e.head_len = 2;
  } else if (v >= -32768 && v <= 32767) {
    e.head[0] = kInt16;
    StoreLE(e.head + 1, u, 2);
    e.head_len = 3;
  } else if (v >= -8388608 && v <= 8388607) {
    e.head[0] = kInt24;
    StoreLE(e.head + 1, u, 3);
    e.head_len = 4;
  } else if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
    e.head[0] = kInt32;
    StoreLE(e.head + 1, u, 4);
    e.head_len = 5;
  } else {
    e.head[0] = kInt64;
    StoreLE(e.head + 1, u, 8);
    e.head_len = 9;
  }
  return e;
}

// Canonical integer text (what Valkey's string2ll accepts), cheaply rejecting the common
// non-numeric case first.
bool AsInt(std::string_view s, int64_t* v) {
  if (s.empty() || s.size() > kMaxIntChars) return false;
  const char c = s[0];
  if (c != '-' && (c < '0' || c > '9')) return false;
  return ParseInt64(s, v);
}

Encoded Encode(std::string_view s) {
  int64_t v;
  if (AsInt(s, &v)) return EncodeInt(v);
  Encoded e;
  const size_t n = s.size();
  if (n < 64) {
    e.head[0] = static_cast<unsigned char>(kStr6 | n);
    e.head_len = 1;
  } else if (n < 4096) {
    e.head[0] = static_cast<unsigned char>(kStr12 | (n >> 8));
    e.head[1] = static_cast<unsigned char>(n);
    e.head_len = 2;
  } else {
    e.head[0] = kStr32;
    StoreU32(e.head + 1, static_cast<uint32_t>(n));
    e.head_len = 5;
  }
  e.data = s.data();
  e.data_len = n;
  return e;
}

int64_t LoadSigned(const unsigned char* p, size_t n) {
  uint64_t u = 0;
  for (size_t i = 0; i < n; i++) u |= uint64_t{p[i]} << (8 * i);
  // Sign-extend from n bytes.
  const unsigned bits = static_cast<unsigned>(8 * n);
  if (bits < 64 && (u >> (bits - 1)) & 1) u |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(u);
}

void AdjustCount(unsigned char* lp, int64_t delta) {
  const uint32_t n = HeaderCount(lp);
  if (n == kUnknownCount) return;  // stays unknown; Length walks
  const int64_t m = static_cast<int64_t>(n) + delta;
  SetHeaderCount(lp, m >= kUnknownCount ? kUnknownCount : static_cast<uint32_t>(m));
}

// Replaces `del` bytes at `offset` with `add` bytes of room and returns the (possibly moved)
// listpack; the caller writes the new bytes at lp + offset.
unsigned char* Splice(unsigned char* lp, size_t offset, size_t del, size_t add) {
  const size_t total = TotalBytes(lp);
  const size_t new_total = total - del + add;
  const size_t tail = total - offset - del;
  if (add > del) {
    lp = static_cast<unsigned char*>(ZRealloc(lp, new_total));
    std::memmove(lp + offset + add, lp + offset + del, tail);
  } else if (add < del) {
    std::memmove(lp + offset + add, lp + offset + del, tail);
    lp = static_cast<unsigned char*>(ZRealloc(lp, new_total));
  }
  StoreU32(lp, static_cast<uint32_t>(new_total));
  return lp;
}

unsigned char* InsertAt(unsigned char* lp, size_t offset, const Encoded& e, Ptr* out) {
  lp = Splice(lp, offset, 0, e.Bytes());
  e.WriteTo(lp + offset);
  AdjustCount(lp, 1);
  if (out) *out = lp + offset;
  return lp;
}

Ptr NullAtEnd(Ptr p) { return *p == kEnd ? nullptr : p; }

}  // namespace

std::string_view Value::View(char* buf) const {
  if (str) return {reinterpret_cast<const char*>(str), len};
  return {buf, FormatInt64To(buf, ival)};
}

unsigned char* New(size_t capacity_hint) {
  const size_t cap = capacity_hint > kHeaderSize + 1 ? capacity_hint : kHeaderSize + 1;
  auto* lp = static_cast<unsigned char*>(ZMalloc(cap));
  StoreU32(lp, kHeaderSize + 1);
  SetHeaderCount(lp, 0);
  lp[kHeaderSize] = kEnd;
  return lp;
}

void Free(unsigned char* lp) { ZFree(lp); }

unsigned char* Dup(const unsigned char* lp) {
  const size_t n = TotalBytes(lp);
  auto* copy = static_cast<unsigned char*>(ZMalloc(n));
  std::memcpy(copy, lp, n);
  return copy;
}

size_t Bytes(const unsigned char* lp) { return TotalBytes(lp); }

size_t Length(const unsigned char* lp) {
  const uint32_t n = HeaderCount(lp);
  if (n != kUnknownCount) return n;
  size_t count = 0;
  for (const unsigned char* p = lp + kHeaderSize; *p != kEnd; p += EntryBytesAt(p)) count++;
  return count;
}

bool Validate(const unsigned char* blob, size_t size, bool deep) {
  if (blob == nullptr || size < kHeaderSize + 1) return false;
  if (TotalBytes(blob) != size || blob[size - 1] != kEnd) return false;
  if (!deep) return true;
  const unsigned char* end = blob + size - 1;  // the end byte
  const unsigned char* p = blob + kHeaderSize;
  uint64_t count = 0;
  while (p < end) {
    const size_t avail = static_cast<size_t>(end - p);
    if (EncodingHeaderBytes(*p) > avail) return false;
    const uint64_t l = EncodedSize(p);
    if (l == 0) return false;  // unknown encoding byte (0xF5..0xFF)
    const uint64_t w = BacklenWidth(l);
    if (l + w > avail) return false;
    size_t read_width;
    if (ReadBacklen(p + l + w - 1, &read_width) != l || read_width != w) return false;
    p += l + w;
    count++;
  }
  if (p != end) return false;
  // A saturated header says nothing about the count; any other value must be exact.
  const uint32_t header = HeaderCount(blob);
  return header == kUnknownCount || header == count;
}

Ptr First(unsigned char* lp) { return NullAtEnd(lp + kHeaderSize); }

Ptr Last(unsigned char* lp) {
  unsigned char* end = lp + TotalBytes(lp) - 1;
  return Prev(lp, end);
}

Ptr Next(unsigned char*, Ptr p) {
  if (p == nullptr) return nullptr;
  return NullAtEnd(p + EntryBytesAt(p));
}

Ptr Prev(unsigned char* lp, Ptr p) {
  if (p == nullptr || p <= lp + kHeaderSize) return nullptr;
  size_t width;
  const uint64_t l = ReadBacklen(p - 1, &width);
  return p - width - l;
}

Ptr Seek(unsigned char* lp, int64_t index) {
  const uint32_t header = HeaderCount(lp);
  const size_t n = header != kUnknownCount ? header : Length(lp);
  const int64_t len = static_cast<int64_t>(n);
  if (index < 0) index += len;
  if (index < 0 || index >= len) return nullptr;
  // Walk from whichever end is nearer.
  if (index <= len / 2) {
    Ptr p = lp + kHeaderSize;
    for (int64_t i = 0; i < index; i++) p += EntryBytesAt(p);
    return p;
  }
  Ptr p = Last(lp);
  for (int64_t i = len - 1; i > index; i--) p = Prev(lp, p);
  return p;
}

Value Get(const unsigned char* p) {
  Value v;
  const unsigned char b = p[0];
  if (!(b & kUint7Mask)) {
    v.ival = b;
  } else if ((b & 0xC0) == kStr6) {
    v.str = p + 1;
    v.len = b & 0x3F;
  } else if ((b & 0xE0) == kInt13) {
    const int64_t t = (int64_t{b & 0x1F} << 8) | p[1];
    v.ival = t >= 4096 ? t - 8192 : t;
  } else if ((b & 0xF0) == kStr12) {
    v.str = p + 2;
    v.len = (uint32_t{b & 0x0Fu} << 8) | p[1];
  } else {
    switch (b) {
      case kInt16:
        v.ival = LoadSigned(p + 1, 2);
        break;
      case kInt24:
        v.ival = LoadSigned(p + 1, 3);
        break;
      case kInt32:
        v.ival = LoadSigned(p + 1, 4);
        break;
      case kInt64:
        v.ival = LoadSigned(p + 1, 8);
        break;
      case kStr32:
        v.str = p + 5;
        v.len = LoadU32(p + 1);
        break;
      default:
        break;  // invalid; Validate keeps such blobs out
    }
  }
  return v;
}

bool Equals(const unsigned char* p, std::string_view s) {
  char buf[24];
  const std::string_view text = Get(p).View(buf);
  return text == s;
}

Ptr Find(unsigned char*, Ptr p, std::string_view s, unsigned skip) {
  // A string that is not canonical integer text can only equal string elements, and an
  // integer-looking one only integer elements (as we and Valkey always encode it so) or a
  // string element from an outside blob, which the byte comparison still catches.
  int64_t sv = 0;
  const bool s_is_int = AsInt(s, &sv);
  unsigned to_skip = 0;
  while (p != nullptr && *p != kEnd) {
    if (to_skip == 0) {
      const Value v = Get(p);
      if (v.IsInt()) {
        if (s_is_int && v.ival == sv) return p;
      } else if (v.len == s.size() && (s.empty() || std::memcmp(v.str, s.data(), s.size()) == 0)) {
        return p;
      }
      to_skip = skip;
    } else {
      to_skip--;
    }
    p += EntryBytesAt(p);
  }
  return nullptr;
}

unsigned char* Append(unsigned char* lp, std::string_view s) {
  return InsertAt(lp, TotalBytes(lp) - 1, Encode(s), nullptr);
}

unsigned char* AppendInt(unsigned char* lp, int64_t v) {
  return InsertAt(lp, TotalBytes(lp) - 1, EncodeInt(v), nullptr);
}

unsigned char* Prepend(unsigned char* lp, std::string_view s) {
  return InsertAt(lp, kHeaderSize, Encode(s), nullptr);
}

unsigned char* Insert(unsigned char* lp, Ptr p, std::string_view s, bool after, Ptr* out) {
  size_t offset = static_cast<size_t>(p - lp);
  if (after) offset += EntryBytesAt(p);
  return InsertAt(lp, offset, Encode(s), out);
}

unsigned char* Replace(unsigned char* lp, Ptr* p, std::string_view s) {
  const Encoded e = Encode(s);
  const size_t offset = static_cast<size_t>(*p - lp);
  lp = Splice(lp, offset, EntryBytesAt(*p), e.Bytes());
  e.WriteTo(lp + offset);
  *p = lp + offset;
  return lp;
}

unsigned char* Delete(unsigned char* lp, Ptr* p) { return DeleteRange(lp, p, 1); }

unsigned char* DeleteRange(unsigned char* lp, Ptr* p, size_t count) {
  const size_t offset = static_cast<size_t>(*p - lp);
  Ptr q = *p;
  size_t deleted = 0;
  while (deleted < count && *q != kEnd) {
    q += EntryBytesAt(q);
    deleted++;
  }
  lp = Splice(lp, offset, static_cast<size_t>(q - *p), 0);
  AdjustCount(lp, -static_cast<int64_t>(deleted));
  *p = NullAtEnd(lp + offset);
  return lp;
}

unsigned char* AppendBatch(unsigned char* lp, const std::string_view* items, size_t n) {
  size_t add = 0;
  for (size_t i = 0; i < n; i++) add += EntrySize(items[i]);
  const size_t offset = TotalBytes(lp) - 1;
  lp = Splice(lp, offset, 0, add);
  unsigned char* w = lp + offset;
  for (size_t i = 0; i < n; i++) w = Encode(items[i]).WriteTo(w);
  AdjustCount(lp, static_cast<int64_t>(n));
  return lp;
}

size_t EntrySize(std::string_view s) { return Encode(s).Bytes(); }

}  // namespace vireo::lp
