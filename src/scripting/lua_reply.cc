#include "scripting/lua_reply.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <lua.hpp>
#include <string>

#include "common/numbers.h"

namespace vireo {
namespace {

// Entries of the table at stack index t (any keys: RESP3 map and set tables).
size_t CountEntries(lua_State* L, int t) {
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, t) != 0) {
    ++n;
    lua_pop(L, 1);
  }
  return n;
}

// Finds the CRLF ending the line that starts at p; nullptr when the input ends first.
const char* LineEnd(const char* p, const char* end) {
  const void* cr = memchr(p, '\r', static_cast<size_t>(end - p));
  if (cr == nullptr) return nullptr;
  const char* q = static_cast<const char*>(cr);
  return q + 1 < end && q[1] == '\n' ? q : nullptr;
}

bool ParseLen(const char* p, const char* q, int64_t* n) {
  return ParseInt64(std::string_view(p, static_cast<size_t>(q - p)), n);
}

// Sets t[field] = value at the top of the stack, for t just below it.
void SetField(lua_State* L, const char* field) { lua_setfield(L, -2, field); }

// One value starting at p; pushes it and returns the position after it, nullptr if malformed.
const char* Parse(lua_State* L, const char* p, const char* end) {
  if (p >= end) return nullptr;
  const char type = *p++;
  const char* q = LineEnd(p, end);
  if (q == nullptr) return nullptr;
  const char* next = q + 2;
  lua_checkstack(L, 4);
  switch (type) {
    case '+':
    case '-':
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, p, static_cast<size_t>(q - p));
      SetField(L, type == '+' ? "ok" : "err");
      return next;
    case ':': {
      int64_t v;
      if (!ParseLen(p, q, &v)) return nullptr;
      lua_pushnumber(L, static_cast<lua_Number>(v));
      return next;
    }
    case '$':
    case '=': {
      int64_t n;
      if (!ParseLen(p, q, &n)) return nullptr;
      if (n < 0) {
        lua_pushboolean(L, 0);
        return next;
      }
      if (end - next < n + 2) return nullptr;
      if (type == '$') {
        lua_pushlstring(L, next, static_cast<size_t>(n));
      } else {
        // "txt:payload": the format is the first three bytes.
        if (n < 4) return nullptr;
        lua_createtable(L, 0, 1);
        lua_createtable(L, 0, 2);
        lua_pushlstring(L, next, 3);
        SetField(L, "format");
        lua_pushlstring(L, next + 4, static_cast<size_t>(n - 4));
        SetField(L, "string");
        SetField(L, "verbatim_string");
      }
      return next + n + 2;
    }
    case '*':
    case '~':
    case '%':
    case '>': {
      int64_t n;
      if (!ParseLen(p, q, &n)) return nullptr;
      if (n < 0) {
        lua_pushboolean(L, 0);
        return next;
      }
      if (type == '*' || type == '>') {
        lua_createtable(L, static_cast<int>(std::min<int64_t>(n, 1 << 20)), 0);
        for (int64_t i = 1; i <= n; ++i) {
          next = Parse(L, next, end);
          if (next == nullptr) {
            lua_pop(L, 1);
            return nullptr;
          }
          lua_rawseti(L, -2, static_cast<int>(i));
        }
        return next;
      }
      // {map={k=v}} / {set={member=true}}
      lua_createtable(L, 0, 1);
      lua_createtable(L, 0, static_cast<int>(std::min<int64_t>(n, 1 << 20)));
      for (int64_t i = 0; i < n; ++i) {
        next = Parse(L, next, end);
        if (next == nullptr) {
          lua_pop(L, 2);
          return nullptr;
        }
        if (type == '%') {
          next = Parse(L, next, end);
          if (next == nullptr) {
            lua_pop(L, 3);
            return nullptr;
          }
        } else {
          lua_pushboolean(L, 1);
        }
        lua_rawset(L, -3);
      }
      SetField(L, type == '%' ? "map" : "set");
      return next;
    }
    case '_':
      lua_pushnil(L);
      return next;
    case '#':
      lua_pushboolean(L, q > p && *p == 't');
      return next;
    case ',': {
      std::string s(p, static_cast<size_t>(q - p));
      lua_createtable(L, 0, 1);
      lua_pushnumber(L, strtod(s.c_str(), nullptr));
      SetField(L, "double");
      return next;
    }
    case '(':
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, p, static_cast<size_t>(q - p));
      SetField(L, "big_number");
      return next;
    default:
      return nullptr;
  }
}

// The field's value is pushed; true when it has the wanted type (else it is popped).
bool GetTyped(lua_State* L, int t, const char* field, int type) {
  lua_pushstring(L, field);
  lua_rawget(L, t);
  if (lua_type(L, -1) == type) return true;
  lua_pop(L, 1);
  return false;
}

int64_t TruncateToInt(lua_Number n) {
  // As a C cast on x86: out of range and NaN give INT64_MIN (Redis prints that).
  if (!(n >= -9223372036854775808.0 && n < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(n);
}

void ToReply(lua_State* L, int idx, ReplyBuilder& reply, bool resp3_script, int depth) {
  if (!lua_checkstack(L, 4) || depth > 1000) {
    reply.Error("ERR reached lua stack limit");
    return;
  }
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
      size_t len;
      const char* s = lua_tolstring(L, idx, &len);
      reply.Bulk(std::string_view(s, len));
      return;
    }
    case LUA_TNUMBER:
      reply.Integer(TruncateToInt(lua_tonumber(L, idx)));
      return;
    case LUA_TBOOLEAN:
      if (resp3_script) {
        reply.Bool(lua_toboolean(L, idx) != 0);
      } else if (lua_toboolean(L, idx)) {
        reply.Integer(1);
      } else {
        reply.Null();
      }
      return;
    case LUA_TTABLE:
      break;
    default:
      reply.Null();
      return;
  }
  const int t = idx < 0 ? lua_gettop(L) + idx + 1 : idx;
  std::string line;
  if (GetTyped(L, t, "err", LUA_TSTRING)) {
    size_t len;
    const char* s = lua_tolstring(L, -1, &len);
    reply.Error(std::string_view(s, len));
    lua_pop(L, 1);
    return;
  }
  if (GetTyped(L, t, "ok", LUA_TSTRING)) {
    size_t len;
    const char* s = lua_tolstring(L, -1, &len);
    AppendOneLine(&line, std::string_view(s, len));
    reply.Simple(line);
    lua_pop(L, 1);
    return;
  }
  if (GetTyped(L, t, "double", LUA_TNUMBER)) {
    reply.Double(lua_tonumber(L, -1));
    lua_pop(L, 1);
    return;
  }
  if (GetTyped(L, t, "big_number", LUA_TSTRING)) {
    size_t len;
    const char* s = lua_tolstring(L, -1, &len);
    AppendOneLine(&line, std::string_view(s, len));
    reply.BigNumber(line);
    lua_pop(L, 1);
    return;
  }
  if (GetTyped(L, t, "map", LUA_TTABLE)) {
    const int m = lua_gettop(L);
    size_t n = CountEntries(L, m);
    reply.Map(n);
    lua_pushnil(L);
    while (lua_next(L, m) != 0) {
      // Converting the key in place would confuse lua_next: convert copies.
      lua_pushvalue(L, -2);
      ToReply(L, -1, reply, resp3_script, depth + 1);
      lua_pop(L, 1);
      ToReply(L, -1, reply, resp3_script, depth + 1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return;
  }
  if (GetTyped(L, t, "set", LUA_TTABLE)) {
    const int m = lua_gettop(L);
    size_t n = CountEntries(L, m);
    reply.Set(n);
    lua_pushnil(L);
    while (lua_next(L, m) != 0) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      ToReply(L, -1, reply, resp3_script, depth + 1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return;
  }
  if (GetTyped(L, t, "verbatim_string", LUA_TTABLE)) {
    const int v = lua_gettop(L);
    bool ok = GetTyped(L, v, "format", LUA_TSTRING);
    if (ok && GetTyped(L, v, "string", LUA_TSTRING)) {
      size_t flen, slen;
      const char* f = lua_tolstring(L, -2, &flen);
      const char* s = lua_tolstring(L, -1, &slen);
      reply.Verbatim(std::string_view(f, flen), std::string_view(s, slen));
      lua_pop(L, 3);
      return;
    }
    lua_pop(L, ok ? 2 : 1);
  }
  // An array: elements 1..n up to the first nil.
  size_t n = 0;
  for (;;) {
    lua_rawgeti(L, t, static_cast<int>(n + 1));
    bool nil = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (nil) break;
    ++n;
  }
  reply.Array(n);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, t, static_cast<int>(i));
    ToReply(L, -1, reply, resp3_script, depth + 1);
    lua_pop(L, 1);
  }
}

}  // namespace

size_t PushReplyAsLua(lua_State* L, const char* data, size_t len) {
  const int top = lua_gettop(L);
  const char* end = Parse(L, data, data + len);
  if (end == nullptr) {
    lua_settop(L, top);
    return 0;
  }
  return static_cast<size_t>(end - data);
}

void LuaToReply(lua_State* L, int idx, ReplyBuilder& reply, bool resp3_script) {
  ToReply(L, idx, reply, resp3_script, 0);
}

void AppendOneLine(std::string* out, std::string_view s) {
  size_t start = out->size();
  out->append(s);
  for (size_t i = start; i < out->size(); ++i) {
    if ((*out)[i] == '\r' || (*out)[i] == '\n') (*out)[i] = ' ';
  }
}

}  // namespace vireo
