#include "store/pair_pack.h"

#include <cstring>

#include "common/varint.h"
#include "store/memory.h"

namespace vireo::pairpack {
namespace {

// Reads a length varint (a size_t: packs live in memory).
const unsigned char* GetVarint(const unsigned char* p, size_t* v) {
  uint64_t out;
  p = vireo::GetVarint(p, &out);
  *v = static_cast<size_t>(out);
  return p;
}

// Payload bytes (after the header) and where the payload starts.
const unsigned char* Payload(const unsigned char* pack, size_t* len) {
  return GetVarint(pack, len);
}

// Rewrites the pack with `cut` bytes at offset `at` of the payload replaced by `insert`
// (inserted strings already encoded). One new allocation sized exactly, so the pack always
// sits in the smallest size class that holds it.
unsigned char* Splice(unsigned char* pack, size_t at, size_t cut, const unsigned char* insert,
                      size_t insert_len) {
  size_t len;
  const unsigned char* payload = Payload(pack, &len);
  size_t new_len = len - cut + insert_len;
  auto* out = static_cast<unsigned char*>(ZMalloc(VarintSize(new_len) + new_len));
  unsigned char* w = PutVarint(out, new_len);
  std::memcpy(w, payload, at);
  if (insert_len != 0) std::memcpy(w + at, insert, insert_len);
  std::memcpy(w + at + insert_len, payload + at + cut, len - at - cut);
  ZFree(pack);
  return out;
}

// Encodes strings as they are stored into buf (large enough) and returns the byte count.
size_t Encode(unsigned char* buf, std::string_view s) {
  unsigned char* w = PutVarint(buf, s.size());
  if (!s.empty()) std::memcpy(w, s.data(), s.size());
  return static_cast<size_t>(w - buf) + s.size();
}

}  // namespace

unsigned char* New() {
  auto* p = static_cast<unsigned char*>(ZMalloc(1));
  p[0] = 0;
  return p;
}

void Free(unsigned char* pack) { ZFree(pack); }

unsigned char* Dup(const unsigned char* pack) {
  size_t n = Bytes(pack);
  auto* p = static_cast<unsigned char*>(ZMalloc(n));
  std::memcpy(p, pack, n);
  return p;
}

size_t Bytes(const unsigned char* pack) {
  size_t len;
  const unsigned char* payload = Payload(pack, &len);
  return static_cast<size_t>(payload - pack) + len;
}

size_t Pairs(const unsigned char* pack) {
  size_t n = 0;
  for (Pos p = First(pack); p != nullptr; p = Next(pack, p)) ++n;
  return n / 2;
}

Pos First(const unsigned char* pack) {
  size_t len;
  const unsigned char* payload = Payload(pack, &len);
  return len == 0 ? nullptr : payload;
}

Pos Next(const unsigned char* pack, Pos pos) {
  size_t len, slen;
  const unsigned char* payload = Payload(pack, &len);
  const unsigned char* next = GetVarint(pos, &slen) + slen;
  return next == payload + len ? nullptr : next;
}

std::string_view Get(Pos pos) {
  size_t slen;
  const unsigned char* s = GetVarint(pos, &slen);
  return {reinterpret_cast<const char*>(s), slen};
}

Pos FindField(const unsigned char* pack, std::string_view field) {
  size_t len;
  const unsigned char* p = Payload(pack, &len);
  const unsigned char* end = p + len;
  while (p != end) {
    size_t flen, vlen;
    const unsigned char* f = GetVarint(p, &flen);
    if (flen == field.size() && std::memcmp(f, field.data(), flen) == 0) return p;
    const unsigned char* v = GetVarint(f + flen, &vlen);
    p = v + vlen;
  }
  return nullptr;
}

Pos SeekPair(const unsigned char* pack, size_t i) {
  Pos p = First(pack);
  for (size_t k = 0; k < 2 * i && p != nullptr; ++k) p = Next(pack, p);
  return p;
}

unsigned char* Append(unsigned char* pack, std::string_view field, std::string_view value) {
  size_t len;
  Payload(pack, &len);
  size_t add = VarintSize(field.size()) + field.size() + VarintSize(value.size()) + value.size();
  size_t new_len = len + add;
  size_t header = VarintSize(len), new_header = VarintSize(new_len);
  auto* p = static_cast<unsigned char*>(ZRealloc(pack, new_header + new_len));
  if (new_header != header) std::memmove(p + new_header, p + header, len);
  PutVarint(p, new_len);
  unsigned char* w = p + new_header + len;
  w += Encode(w, field);
  Encode(w, value);
  return p;
}

unsigned char* Replace(unsigned char* pack, Pos pos, std::string_view s) {
  size_t len, old_len;
  const unsigned char* payload = Payload(pack, &len);
  const unsigned char* old_end = GetVarint(pos, &old_len) + old_len;
  size_t at = static_cast<size_t>(pos - payload);
  size_t cut = static_cast<size_t>(old_end - pos);
  if (old_len == s.size()) {  // same length: overwrite in place
    std::memcpy(const_cast<unsigned char*>(old_end) - old_len, s.data(), s.size());
    return pack;
  }
  unsigned char small[16];
  size_t n = VarintSize(s.size()) + s.size();
  unsigned char* buf = n <= sizeof(small) ? small : static_cast<unsigned char*>(ZMalloc(n));
  Encode(buf, s);
  unsigned char* out = Splice(pack, at, cut, buf, n);
  if (buf != small) ZFree(buf);
  return out;
}

unsigned char* DeletePair(unsigned char* pack, Pos field) {
  size_t len, flen, vlen;
  const unsigned char* payload = Payload(pack, &len);
  const unsigned char* v = GetVarint(field, &flen) + flen;
  const unsigned char* end = GetVarint(v, &vlen) + vlen;
  return Splice(pack, static_cast<size_t>(field - payload), static_cast<size_t>(end - field),
                nullptr, 0);
}

}  // namespace vireo::pairpack
