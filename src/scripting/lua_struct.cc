// struct: binary packing for scripts, with the interface of Roberto Ierusalimschy's struct
// library as Redis 7.0 ships it:
//   struct.pack(fmt, v1, ...) -> string      struct.unpack(fmt, s [, i]) -> v1, ..., next_i
//   struct.size(fmt) -> bytes
// Format: '>' big / '<' little endian (native by default), '!n' maximum alignment (a power of
// two; bare '!' is the native one; none means no alignment), ' ' ignored, 'x' a zero byte,
// 'b'/'B' char, 'h'/'H' short, 'l'/'L' long, 'T' size_t, 'i[n]'/'I[n]' an n-byte integer (n up
// to 32, default int), 'f' float, 'd' double, 's' a zero-terminated string, 'c[n]' n chars
// (default 1) and 'c0' a string whose length is the string's own (pack) or the previous
// unpacked number (unpack).
// Edge behaviour follows redis-server 7.0 on x86-64, checked against it: integers wider than 8
// bytes carry 8 bytes of value and zeros; out-of-range numbers convert as x86 does; an
// alignment that is not a power of two only errors when given with '!'; error texts and the
// argument numbers they name are Redis's.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <lua.hpp>

#include "scripting/lua_libs.h"

namespace vireo {
namespace {

constexpr int kMaxIntSize = 32;

// The strictest alignment a native type needs (what a bare '!' selects).
struct AlignProbe {
  char c;
  union {
    double d;
    void* p;
    long l;
    long long ll;
  } u;
};
constexpr size_t kNativeAlign = offsetof(AlignProbe, u);

bool NativeIsLittle() {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

struct Layout {
  bool little;
  size_t align;
};

Layout DefaultLayout() { return Layout{NativeIsLittle(), 1}; }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads the decimal count after an option, or returns `dflt` when there is none.
int ReadCount(lua_State* L, const char** fmt, int dflt) {
  if (!IsDigit(**fmt)) return dflt;
  int a = 0;
  do {
    int digit = **fmt - '0';
    if (a > INT_MAX / 10 || a * 10 > INT_MAX - digit) luaL_error(L, "integral size overflow");
    a = a * 10 + digit;
    ++*fmt;
  } while (IsDigit(**fmt));
  return a;
}

// Size in bytes of option `opt` (reading its count); 0 for options that take no room.
size_t OptionSize(lua_State* L, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b':
    case 'x':
      return 1;
    case 'H':
    case 'h':
      return sizeof(short);
    case 'L':
    case 'l':
      return sizeof(long);
    case 'T':
      return sizeof(size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'c':
      return static_cast<size_t>(ReadCount(L, fmt, 1));
    case 'i':
    case 'I': {
      int n = ReadCount(L, fmt, sizeof(int));
      if (n > kMaxIntSize) {
        luaL_error(L, "integral size %d is larger than limit of %d", n, kMaxIntSize);
      }
      return static_cast<size_t>(n);
    }
    default:
      return 0;
  }
}

// Padding that puts `pos` on the boundary the option needs: min(size, max alignment),
// computed with a mask (so a non-power-of-two size such as i3 pads as Redis's does).
size_t PaddingFor(size_t pos, const Layout& h, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > h.align) size = h.align;
  return (size - (pos & (size - 1))) & (size - 1);
}

// The non-data options; anything else is an invalid option.
void ApplyControl(lua_State* L, char opt, const char** fmt, Layout* h) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      h->little = false;
      return;
    case '<':
      h->little = true;
      return;
    case '!': {
      int a = ReadCount(L, fmt, static_cast<int>(kNativeAlign));
      if (a <= 0 || (a & (a - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", a);
      h->align = static_cast<size_t>(a);
      return;
    }
    default:
      luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
  }
}

// double -> int64 the way x86's cvttsd2si does: out of range (and NaN) gives INT64_MIN.
int64_t ToInt64LikeX86(double x) {
  if (x >= -9223372036854775808.0 && x < 9223372036854775808.0) return static_cast<int64_t>(x);
  return INT64_MIN;
}

// double -> uint64 as gcc compiles it on x86-64 (values from 2^63 go through a subtraction).
uint64_t ToUint64LikeX86(double x) {
  if (!(x >= 9223372036854775808.0)) return static_cast<uint64_t>(ToInt64LikeX86(x));
  return static_cast<uint64_t>(ToInt64LikeX86(x - 9223372036854775808.0)) ^ (1ULL << 63);
}

void AddPadding(luaL_Buffer* b, size_t n) {
  while (n-- > 0) luaL_addchar(b, '\0');
}

// Appends `size` bytes of v (bytes past the eighth are zero) in the layout's byte order.
void AddInteger(luaL_Buffer* b, uint64_t v, bool little, size_t size) {
  char bytes[kMaxIntSize];
  for (size_t i = 0; i < size; ++i) {
    char byte = i < 8 ? static_cast<char>((v >> (8 * i)) & 0xff) : '\0';
    bytes[little ? i : size - 1 - i] = byte;
  }
  luaL_addlstring(b, bytes, size);
}

// Appends a float or double's bytes in the layout's byte order.
void AddFloating(luaL_Buffer* b, const void* p, size_t size, bool little) {
  char bytes[sizeof(double)];
  memcpy(bytes, p, size);
  if (little != NativeIsLittle()) {
    for (size_t i = 0; i < size / 2; ++i) {
      char t = bytes[i];
      bytes[i] = bytes[size - 1 - i];
      bytes[size - 1 - i] = t;
    }
  }
  luaL_addlstring(b, bytes, size);
}

// struct.pack(fmt, v1, v2, ...)
int Pack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Layout h = DefaultLayout();
  int arg = 2;
  size_t total = 0;
  // A nil between the arguments and the buffer: a missing argument reads as nil (Redis's
  // texts say "got nil", not "got no value").
  lua_pushnil(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    size_t pad = PaddingFor(total, h, opt, size);
    total += pad;
    AddPadding(&b, pad);
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I': {
        double n = luaL_checknumber(L, arg++);
        uint64_t v = n < 0 ? static_cast<uint64_t>(ToInt64LikeX86(n)) : ToUint64LikeX86(n);
        AddInteger(&b, v, h.little, size);
        break;
      }
      case 'x':
        luaL_addchar(&b, '\0');
        break;
      case 'f': {
        float f = static_cast<float>(luaL_checknumber(L, arg++));
        AddFloating(&b, &f, sizeof(f), h.little);
        break;
      }
      case 'd': {
        double d = luaL_checknumber(L, arg++);
        AddFloating(&b, &d, sizeof(d), h.little);
        break;
      }
      case 'c':
      case 's': {
        size_t len;
        const char* s = luaL_checklstring(L, arg++, &len);
        if (size == 0) size = len;
        // Redis names the argument after the string here (its counter has moved on).
        luaL_argcheck(L, len >= size, arg, "string too short");
        luaL_addlstring(&b, s, size);
        if (opt == 's') {
          luaL_addchar(&b, '\0');
          ++size;
        }
        break;
      }
      default:
        ApplyControl(L, opt, &fmt, &h);
    }
    total += size;
  }
  luaL_pushresult(&b);
  return 1;
}

// Reads `size` bytes as an integer: only the low 8 bytes' worth survive; signed fields
// narrower than 8 bytes are sign-extended.
lua_Number ReadInteger(const unsigned char* p, bool little, bool is_signed, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; ++i) v = (v << 8) | p[little ? size - 1 - i : i];
  if (!is_signed) return static_cast<lua_Number>(v);
  if (size > 0 && size < 8) {
    uint64_t sign = 1ULL << (8 * size - 1);
    v = (v ^ sign) - sign;
  }
  return static_cast<lua_Number>(static_cast<int64_t>(v));
}

// struct.unpack(fmt, s [, i]): the values, then the position after them (1-based).
int Unpack(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  size_t ld;
  const char* data = luaL_checklstring(L, 2, &ld);
  // size_t arithmetic as Redis's: i = -1 passes the check and fails as "too short".
  size_t pos = static_cast<size_t>(luaL_optinteger(L, 3, 1));
  luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
  --pos;
  Layout h = DefaultLayout();
  int n = 0;
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    pos += PaddingFor(pos, h, opt, size);
    luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
    luaL_checkstack(L, 2, "too many results");
    const unsigned char* at = reinterpret_cast<const unsigned char*>(data) + pos;
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I': {
        bool is_signed = opt == 'b' || opt == 'h' || opt == 'l' || opt == 'i';
        lua_pushnumber(L, ReadInteger(at, h.little, is_signed, size));
        ++n;
        break;
      }
      case 'x':
        break;
      case 'f':
      case 'd': {
        unsigned char bytes[sizeof(double)];
        for (size_t i = 0; i < size; ++i) {
          bytes[i] = at[h.little == NativeIsLittle() ? i : size - 1 - i];
        }
        if (opt == 'f') {
          float f;
          memcpy(&f, bytes, sizeof(f));
          lua_pushnumber(L, f);
        } else {
          double d;
          memcpy(&d, bytes, sizeof(d));
          lua_pushnumber(L, d);
        }
        ++n;
        break;
      }
      case 'c':
        if (size == 0) {
          if (n == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
          size = ToUint64LikeX86(lua_tonumber(L, -1));
          lua_pop(L, 1);
          --n;
          luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
        }
        lua_pushlstring(L, reinterpret_cast<const char*>(at), size);
        ++n;
        break;
      case 's': {
        const void* end = pos < ld ? memchr(at, '\0', ld - pos) : nullptr;
        if (end == nullptr) luaL_error(L, "unfinished string in data");
        size = static_cast<size_t>(static_cast<const unsigned char*>(end) - at) + 1;
        lua_pushlstring(L, reinterpret_cast<const char*>(at), size - 1);
        ++n;
        break;
      }
      default:
        ApplyControl(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  return n + 1;
}

// struct.size(fmt): bytes a pack with this format produces; errors for 's' and 'c0'.
int Size(lua_State* L) {
  const char* fmt = luaL_checkstring(L, 1);
  Layout h = DefaultLayout();
  size_t pos = 0;
  while (*fmt != '\0') {
    char opt = *fmt++;
    size_t size = OptionSize(L, opt, &fmt);
    pos += PaddingFor(pos, h, opt, size);
    if (opt == 's') {
      luaL_argerror(L, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(L, 1, "option 'c0' has no fixed size");
    }
    // Unknown letters and digits are skipped here (only pack and unpack reject them).
    if (!((opt >= 'a' && opt <= 'z') || (opt >= 'A' && opt <= 'Z') || IsDigit(opt))) {
      ApplyControl(L, opt, &fmt, &h);
    }
    pos += size;
  }
  lua_pushnumber(L, static_cast<lua_Number>(pos));
  return 1;
}

}  // namespace

int OpenStructLib(lua_State* L) {
  const luaL_Reg fns[] = {{"pack", Pack}, {"unpack", Unpack}, {"size", Size}, {nullptr, nullptr}};
  luaL_register(L, "struct", fns);
  return 1;
}

}  // namespace vireo
