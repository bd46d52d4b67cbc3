#include "persistence/rdb_packed.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "common/numbers.h"
#include "store/listpack.h"

namespace vireo::rdb {
namespace {

uint64_t LoadLE(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

bool Bad(std::string* why, const char* what) {
  *why = what;
  return false;
}

}  // namespace

// Ziplist: zlbytes u32, zltail u32, zllen u16, entries <prevlen><encoding><data>, 0xFF.
bool ForEachZiplistItem(std::string_view blob, const ItemFn& fn, std::string* why) {
  const auto* base = reinterpret_cast<const unsigned char*>(blob.data());
  size_t size = blob.size();
  if (size < 11) return Bad(why, "ziplist too short");
  if (LoadLE(base, 4) != size) return Bad(why, "ziplist size mismatch");
  if (base[size - 1] != 0xFF) return Bad(why, "ziplist without end marker");
  size_t p = 10;
  char num[32];
  while (true) {
    if (p >= size) return Bad(why, "ziplist entry out of range");
    if (base[p] == 0xFF) {
      if (p != size - 1) return Bad(why, "ziplist end marker misplaced");
      return true;
    }
    // prevlen: 1 byte, or 0xFE and 4 bytes.
    if (base[p] == 0xFE) {
      if (p + 5 > size) return Bad(why, "ziplist prevlen out of range");
      p += 5;
    } else {
      p += 1;
    }
    if (p >= size - 1) return Bad(why, "ziplist entry out of range");
    unsigned char enc = base[p];
    std::string_view item;
    size_t data_len = 0, header = 1;
    bool is_int = false;
    int64_t v = 0;
    switch (enc >> 6) {
      case 0:
        data_len = enc & 0x3F;
        break;
      case 1:
        if (p + 2 > size) return Bad(why, "ziplist entry out of range");
        data_len = (static_cast<size_t>(enc & 0x3F) << 8) | base[p + 1];
        header = 2;
        break;
      case 2:
        if (enc != 0x80 || p + 5 > size) return Bad(why, "ziplist bad string encoding");
        data_len = (size_t{base[p + 1]} << 24) | (size_t{base[p + 2]} << 16) |
                   (size_t{base[p + 3]} << 8) | base[p + 4];
        header = 5;
        break;
      default: {
        is_int = true;
        int width = 0;
        if (enc == 0xC0)
          width = 2;
        else if (enc == 0xD0)
          width = 4;
        else if (enc == 0xE0)
          width = 8;
        else if (enc == 0xF0)
          width = 3;
        else if (enc == 0xFE)
          width = 1;
        else if (enc >= 0xF1 && enc <= 0xFD)
          v = (enc & 0x0F) - 1;
        else
          return Bad(why, "ziplist bad integer encoding");
        if (p + 1 + width > size - 1) return Bad(why, "ziplist entry out of range");
        if (width > 0) {
          uint64_t u = LoadLE(base + p + 1, width);
          int shift = 64 - 8 * width;
          v = static_cast<int64_t>(u << shift) >> shift;  // sign-extend
        }
        data_len = static_cast<size_t>(width);
      }
    }
    if (p + header + data_len > size - 1) return Bad(why, "ziplist entry out of range");
    if (is_int) {
      item = {num, FormatInt64To(num, v)};
    } else {
      item = {reinterpret_cast<const char*>(base + p + header), data_len};
    }
    if (!fn(item)) return Bad(why, "ziplist element rejected");
    p += header + data_len;
  }
}

bool ForEachListpackItem(std::string_view blob, const ItemFn& fn, std::string* why) {
  // The store's listpack validates every entry's encoding and back length in place.
  std::string copy(blob);
  auto* lp = reinterpret_cast<unsigned char*>(copy.data());
  if (!lp::Validate(lp, copy.size(), true)) return Bad(why, "invalid listpack");
  char buf[32];
  for (lp::Ptr p = lp::First(lp); p != nullptr; p = lp::Next(lp, p)) {
    if (!fn(lp::Get(p).View(buf))) return Bad(why, "listpack element rejected");
  }
  return true;
}

// Zipmap: zmlen byte, then <len>field<len><free>value<free bytes>..., 0xFF. A length is one
// byte below 254, or 254 and 4 bytes.
bool ForEachZipmapItem(std::string_view blob, const ItemFn& fn, std::string* why) {
  const auto* base = reinterpret_cast<const unsigned char*>(blob.data());
  size_t size = blob.size(), p = 1;
  if (size < 2) return Bad(why, "zipmap too short");
  auto read_len = [&](size_t* len) {
    if (p >= size) return false;
    if (base[p] < 254) {
      *len = base[p++];
      return true;
    }
    if (base[p] != 254 || p + 5 > size) return false;
    *len = static_cast<size_t>(LoadLE(base + p + 1, 4));
    p += 5;
    return true;
  };
  while (true) {
    if (p >= size) return Bad(why, "zipmap out of range");
    if (base[p] == 0xFF) return p == size - 1 ? true : Bad(why, "zipmap end marker misplaced");
    size_t flen, vlen;
    if (!read_len(&flen) || p + flen > size) return Bad(why, "zipmap out of range");
    std::string_view field(reinterpret_cast<const char*>(base + p), flen);
    p += flen;
    if (!read_len(&vlen) || p >= size) return Bad(why, "zipmap out of range");
    size_t free_bytes = base[p++];
    if (p + vlen + free_bytes > size) return Bad(why, "zipmap out of range");
    std::string_view value(reinterpret_cast<const char*>(base + p), vlen);
    p += vlen + free_bytes;
    if (!fn(field) || !fn(value)) return Bad(why, "zipmap element rejected");
  }
}

}  // namespace vireo::rdb
