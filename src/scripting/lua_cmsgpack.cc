// cmsgpack: MessagePack for scripts, as Redis 7.0 ships it (lua-cmsgpack 0.4.0's interface).
//
// Encoding choices (all checked byte for byte against redis-server 7.0):
//  - a number that is integral and within int64 becomes the smallest integer format
//    (positive values use the unsigned formats, negative ones the signed formats); any other
//    number is float32 when it survives the round trip through float, float64 otherwise;
//  - strings are fixstr / str8 / str16 / str32 (never bin);
//  - a table whose keys are exactly 1..n is an array (an empty table is an empty array),
//    any other table a map in lua_next order; tables nested 16 deep are written as nil;
//  - functions, threads and userdata are nil.
// Decoding accepts nil, booleans, every int / float format, str8/16/32, arrays and maps;
// bin, ext and 0xc1 are "Bad data format in input.", truncated input "Missing bytes in input."
// Stack limits (and their "stack overflow (...)" texts) are checked at the same points as
// Redis's, so very large or very deep inputs fail the same way.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <lua.hpp>
#include <string>

#include "scripting/lua_libs.h"

namespace vireo {
namespace {

constexpr int kMaxNesting = 16;  // tables at this depth (top-level values are depth 0) -> nil
constexpr const char* kTooManyValues =
    "too many return values at once; use unpack_one or unpack_limit instead.";

// ---- encoding

void PutBigEndian(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PutTypeAndBigEndian(std::string& out, uint8_t type, uint64_t v, int bytes) {
  out.push_back(static_cast<char>(type));
  PutBigEndian(out, v, bytes);
}

void EncodeInteger(std::string& out, int64_t v) {
  if (v >= 0) {
    uint64_t u = static_cast<uint64_t>(v);
    if (u <= 0x7f) {
      out.push_back(static_cast<char>(u));
    } else if (u <= 0xff) {
      PutTypeAndBigEndian(out, 0xcc, u, 1);
    } else if (u <= 0xffff) {
      PutTypeAndBigEndian(out, 0xcd, u, 2);
    } else if (u <= 0xffffffffULL) {
      PutTypeAndBigEndian(out, 0xce, u, 4);
    } else {
      PutTypeAndBigEndian(out, 0xcf, u, 8);
    }
    return;
  }
  uint64_t bits = static_cast<uint64_t>(v);
  if (v >= -32) {
    out.push_back(static_cast<char>(bits & 0xff));  // negative fixint 0xe0..0xff
  } else if (v >= -128) {
    PutTypeAndBigEndian(out, 0xd0, bits, 1);
  } else if (v >= -32768) {
    PutTypeAndBigEndian(out, 0xd1, bits, 2);
  } else if (v >= INT32_MIN) {
    PutTypeAndBigEndian(out, 0xd2, bits, 4);
  } else {
    PutTypeAndBigEndian(out, 0xd3, bits, 8);
  }
}

// True when n is a whole number representable as int64 (so -0.0 counts, 2^63 does not).
bool IsInt64Number(double n) {
  return n >= -9223372036854775808.0 && n < 9223372036854775808.0 && std::trunc(n) == n;
}

void EncodeNumber(std::string& out, double n) {
  if (IsInt64Number(n)) {
    EncodeInteger(out, static_cast<int64_t>(n));
    return;
  }
  // float32 when nothing is lost (infinities too); NaN never compares equal, so float64.
  if (std::isinf(n) ||
      (std::fabs(n) <= 3.4028234663852886e38 && static_cast<double>(static_cast<float>(n)) == n)) {
    float f = static_cast<float>(n);
    uint32_t bits;
    memcpy(&bits, &f, sizeof(bits));
    PutTypeAndBigEndian(out, 0xca, bits, 4);
    return;
  }
  uint64_t bits;
  memcpy(&bits, &n, sizeof(bits));
  PutTypeAndBigEndian(out, 0xcb, bits, 8);
}

void EncodeString(std::string& out, const char* s, size_t len) {
  if (len < 32) {
    out.push_back(static_cast<char>(0xa0 | len));
  } else if (len <= 0xff) {
    PutTypeAndBigEndian(out, 0xd9, len, 1);
  } else if (len <= 0xffff) {
    PutTypeAndBigEndian(out, 0xda, len, 2);
  } else {
    PutTypeAndBigEndian(out, 0xdb, len, 4);
  }
  out.append(s, len);
}

void EncodeContainerHeader(std::string& out, bool array, size_t n) {
  if (n < 16) {
    out.push_back(static_cast<char>((array ? 0x90 : 0x80) | n));
  } else if (n <= 0xffff) {
    PutTypeAndBigEndian(out, array ? 0xdc : 0xde, n, 2);
  } else {
    PutTypeAndBigEndian(out, array ? 0xdd : 0xdf, n, 4);
  }
}

void EncodeValue(lua_State* L, int idx, std::string& out, int level);

// Counts the table's pairs; true when its keys are exactly the integers 1..count.
bool TableIsArray(lua_State* L, int idx, size_t* count) {
  size_t n = 0;
  double max_key = 0;
  bool array = true;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    ++n;
    if (array) {
      if (lua_type(L, -1) == LUA_TNUMBER) {
        double k = lua_tonumber(L, -1);
        if (k > 0 && std::floor(k) == k) {
          if (k > max_key) max_key = k;
        } else {
          array = false;
        }
      } else {
        array = false;
      }
    }
  }
  *count = n;
  return array && max_key == static_cast<double>(n);
}

// Scripts see library tables (string, cjson, redis, ...) as empty read-only views whose
// metatable (see MakeView in lua_env.cc) is marked __vireo_protected and indexes the real table.
// Pushes the real table behind such a view and returns true; pushes nothing otherwise.
bool PushViewTarget(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  lua_getfield(L, -1, "__vireo_protected");
  bool view = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  if (!view) {
    lua_pop(L, 1);
    return false;
  }
  lua_getfield(L, -1, "__index");
  lua_remove(L, -2);
  if (lua_istable(L, -1)) return true;
  lua_pop(L, 1);
  return false;
}

void EncodeTable(lua_State* L, int idx, std::string& out, int level) {
  if (level >= kMaxNesting) {
    out.push_back(static_cast<char>(0xc0));
    return;
  }
  // Cannot fail: at most 16 levels of 4 slots above Pack's at most 4000 arguments.
  lua_checkstack(L, 4);
  // A library table packs as its contents, as it does in Redis (where it is a plain table).
  if (PushViewTarget(L, idx)) {
    EncodeTable(L, lua_gettop(L), out, level);
    lua_pop(L, 1);
    return;
  }
  size_t n = 0;
  if (TableIsArray(L, idx, &n)) {
    EncodeContainerHeader(out, true, n);
    for (size_t i = 1; i <= n; ++i) {
      lua_rawgeti(L, idx, static_cast<int>(i));
      EncodeValue(L, lua_gettop(L), out, level + 1);
      lua_pop(L, 1);
    }
    return;
  }
  EncodeContainerHeader(out, false, n);
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    int top = lua_gettop(L);
    EncodeValue(L, top - 1, out, level + 1);  // key
    EncodeValue(L, top, out, level + 1);      // value
    lua_pop(L, 1);
  }
}

void EncodeValue(lua_State* L, int idx, std::string& out, int level) {
  switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
      EncodeNumber(out, lua_tonumber(L, idx));
      break;
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, idx, &len);
      EncodeString(out, s, len);
      break;
    }
    case LUA_TBOOLEAN:
      out.push_back(static_cast<char>(lua_toboolean(L, idx) ? 0xc3 : 0xc2));
      break;
    case LUA_TTABLE:
      EncodeTable(L, idx, out, level);
      break;
    default:  // nil, functions, threads, userdata
      out.push_back(static_cast<char>(0xc0));
  }
}

// cmsgpack.pack(v1, v2, ...): the encodings of all arguments, concatenated.
int Pack(lua_State* L) {
  int nargs = lua_gettop(L);
  if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
  if (!lua_checkstack(L, nargs)) {
    return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
  }
  // Nothing below raises a Lua error (short of running out of memory), so the string's
  // destructor is not skipped by a longjmp.
  std::string out;
  for (int i = 1; i <= nargs; ++i) EncodeValue(L, i, out, 0);
  lua_pushlstring(L, out.data(), out.size());
  return 1;
}

// ---- decoding (no C++ objects with destructors live here: Lua errors longjmp through it)

enum DecodeError { kDecodeOk = 0, kMissingBytes, kBadFormat };

struct Cursor {
  const unsigned char* p;
  size_t left;
  DecodeError err;
};

uint64_t ReadBigEndian(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// Takes `bytes` bytes (after the type byte already consumed); false (and kMissingBytes) when
// the input is shorter.
bool Take(Cursor* c, size_t bytes, const unsigned char** at) {
  if (c->left < bytes) {
    c->err = kMissingBytes;
    return false;
  }
  *at = c->p;
  c->p += bytes;
  c->left -= bytes;
  return true;
}

bool TakeLength(Cursor* c, int bytes, size_t* len) {
  const unsigned char* at;
  if (!Take(c, bytes, &at)) return false;
  *len = static_cast<size_t>(ReadBigEndian(at, bytes));
  return true;
}

void DecodeValue(lua_State* L, Cursor* c);

void DecodeArray(lua_State* L, Cursor* c, size_t n) {
  lua_newtable(L);
  luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
  for (size_t i = 1; i <= n; ++i) {
    lua_pushnumber(L, static_cast<lua_Number>(i));
    DecodeValue(L, c);
    if (c->err != kDecodeOk) return;
    lua_settable(L, -3);
  }
}

void DecodeMap(lua_State* L, Cursor* c, size_t n) {
  lua_newtable(L);
  for (size_t i = 0; i < n; ++i) {
    DecodeValue(L, c);  // key
    if (c->err != kDecodeOk) return;
    DecodeValue(L, c);  // value
    if (c->err != kDecodeOk) return;
    lua_settable(L, -3);  // a nil or NaN key raises Lua's own "table index is ..." error
  }
}

void DecodeString(lua_State* L, Cursor* c, size_t len) {
  const unsigned char* at;
  if (!Take(c, len, &at)) return;
  lua_pushlstring(L, reinterpret_cast<const char*>(at), len);
}

// Pushes one decoded value, or sets c->err (possibly leaving partial values on the stack).
void DecodeValue(lua_State* L, Cursor* c) {
  luaL_checkstack(L, 1, kTooManyValues);
  if (c->left == 0) {
    c->err = kMissingBytes;
    return;
  }
  unsigned char type = *c->p++;
  --c->left;
  const unsigned char* at;
  size_t len;
  if (type <= 0x7f) {
    lua_pushnumber(L, type);
  } else if (type <= 0x8f) {
    DecodeMap(L, c, type & 0x0f);
  } else if (type <= 0x9f) {
    DecodeArray(L, c, type & 0x0f);
  } else if (type <= 0xbf) {
    DecodeString(L, c, type & 0x1f);
  } else if (type >= 0xe0) {
    lua_pushnumber(L, static_cast<int8_t>(type));
  } else {
    switch (type) {
      case 0xc0:
        lua_pushnil(L);
        break;
      case 0xc2:
        lua_pushboolean(L, 0);
        break;
      case 0xc3:
        lua_pushboolean(L, 1);
        break;
      case 0xca:
        if (Take(c, 4, &at)) {
          uint32_t bits = static_cast<uint32_t>(ReadBigEndian(at, 4));
          float f;
          memcpy(&f, &bits, sizeof(f));
          lua_pushnumber(L, f);
        }
        break;
      case 0xcb:
        if (Take(c, 8, &at)) {
          uint64_t bits = ReadBigEndian(at, 8);
          double d;
          memcpy(&d, &bits, sizeof(d));
          lua_pushnumber(L, d);
        }
        break;
      case 0xcc:
      case 0xcd:
      case 0xce: {
        int bytes = 1 << (type - 0xcc);
        if (Take(c, bytes, &at)) {
          lua_pushnumber(L, static_cast<lua_Number>(ReadBigEndian(at, bytes)));
        }
        break;
      }
      case 0xcf:  // uint64 is read as int64, as Redis does (0xff..ff is -1)
        if (Take(c, 8, &at)) {
          lua_pushnumber(L, static_cast<lua_Number>(static_cast<int64_t>(ReadBigEndian(at, 8))));
        }
        break;
      case 0xd0:
      case 0xd1:
      case 0xd2:
      case 0xd3: {
        int bytes = 1 << (type - 0xd0);
        if (Take(c, bytes, &at)) {
          uint64_t u = ReadBigEndian(at, bytes);
          int shift = 64 - 8 * bytes;  // sign-extend from the top bit of the field
          int64_t v = static_cast<int64_t>(u << shift) >> shift;
          lua_pushnumber(L, static_cast<lua_Number>(v));
        }
        break;
      }
      case 0xd9:
      case 0xda:
      case 0xdb:
        if (TakeLength(c, 1 << (type - 0xd9), &len)) DecodeString(L, c, len);
        break;
      case 0xdc:
      case 0xdd:
        if (TakeLength(c, type == 0xdc ? 2 : 4, &len)) DecodeArray(L, c, len);
        break;
      case 0xde:
      case 0xdf:
        if (TakeLength(c, type == 0xde ? 2 : 4, &len)) DecodeMap(L, c, len);
        break;
      default:  // 0xc1 (never used), bin 8/16/32, ext and fixext
        c->err = kBadFormat;
    }
  }
}

// Decodes up to `limit` values of s starting at byte `offset`, pushing the next offset (-1
// when the input is used up) first, then the values; with limit and offset both 0, all the
// values and no offset.
int UnpackFull(lua_State* L, lua_Integer limit, lua_Integer offset) {
  size_t len;
  const char* s = lua_tolstring(L, 1, &len);
  // Redis formats these with %d: the low 32 bits are what a script sees.
  if (offset < 0 || limit < 0) {
    return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                      static_cast<int>(offset), static_cast<int>(len));
  }
  if (static_cast<uint64_t>(offset) > len) {
    return luaL_error(L, "Start offset %d greater than input length %d.", static_cast<int>(offset),
                      static_cast<int>(len));
  }
  lua_settop(L, 1);  // only the input stays below the values (it keeps s alive)
  Cursor c{reinterpret_cast<const unsigned char*>(s) + offset, len - static_cast<size_t>(offset),
           kDecodeOk};
  // Only a call with neither limit nor offset returns everything and no offset (so
  // unpack_limit(s, 0, n > 0) returns just n, as Redis's does).
  bool decode_all = limit == 0 && offset == 0;
  int count = 0;
  while (c.left > 0 && (decode_all || count < limit)) {
    DecodeValue(L, &c);
    if (c.err == kMissingBytes) return luaL_error(L, "Missing bytes in input.");
    if (c.err == kBadFormat) return luaL_error(L, "Bad data format in input.");
    ++count;
  }
  if (decode_all) return count;
  luaL_checkstack(L, 1, "in function mp_unpack_full");
  lua_pushnumber(L, c.left == 0 ? -1 : static_cast<lua_Number>(len - c.left));
  lua_insert(L, 2);
  return count + 1;
}

// cmsgpack.unpack(s): every value in s.
int Unpack(lua_State* L) {
  luaL_checkstring(L, 1);
  return UnpackFull(L, 0, 0);
}

// cmsgpack.unpack_one(s [, offset]): next offset, then one value.
int UnpackOne(lua_State* L) {
  luaL_checkstring(L, 1);
  lua_Integer offset = luaL_optinteger(L, 2, 0);
  return UnpackFull(L, 1, offset);
}

// cmsgpack.unpack_limit(s, limit [, offset]): next offset, then up to limit values.
int UnpackLimit(lua_State* L) {
  luaL_checkstring(L, 1);
  lua_Integer limit = luaL_checkinteger(L, 2);
  lua_Integer offset = luaL_optinteger(L, 3, 0);
  return UnpackFull(L, limit, offset);
}

}  // namespace

int OpenCmsgpackLib(lua_State* L) {
  const luaL_Reg fns[] = {{"pack", Pack},
                          {"unpack", Unpack},
                          {"unpack_one", UnpackOne},
                          {"unpack_limit", UnpackLimit},
                          {nullptr, nullptr}};
  luaL_register(L, "cmsgpack", fns);
  // The informational fields Redis's table carries (scripts can read and iterate them).
  const char* const info[][2] = {{"_NAME", "cmsgpack"},
                                 {"_VERSION", "lua-cmsgpack 0.4.0"},
                                 {"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
                                 {"_DESCRIPTION", "MessagePack C implementation for Lua"}};
  for (const auto& field : info) {
    lua_pushstring(L, field[1]);
    lua_setfield(L, -2, field[0]);
  }
  return 1;
}

}  // namespace vireo
