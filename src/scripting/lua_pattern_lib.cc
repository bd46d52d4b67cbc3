#include "scripting/lua_pattern_lib.h"

#include <cstring>
#include <lua.hpp>

#include "scripting/lua_pattern.h"

// Nothing here owns memory or has a destructor: a Lua error (luaL_error, a killed script's
// hook) unwinds these frames by longjmp.
namespace vireo {
namespace {

// The matcher's step check: the state's count hook, called as the VM calls it (the running
// script's busy check and SCRIPT KILL; FUNCTION LOAD's timeout). Vireo's hooks read nothing
// from the lua_Debug record.
void RunCountHook(void* state) {
  auto* L = static_cast<lua_State*>(state);
  lua_Hook hook = lua_gethook(L);
  if (hook == nullptr) return;
  lua_Debug ar{};
  ar.event = LUA_HOOKCOUNT;
  hook(L, &ar);
}

// A string position argument as Lua 5.1 reads it: negative counts from the end.
ptrdiff_t RelativePosition(lua_Integer pos, size_t len) {
  if (pos < 0) pos += static_cast<lua_Integer>(len) + 1;
  return pos >= 0 ? static_cast<ptrdiff_t>(pos) : 0;
}

// Capture i of a match [s, e); with no captures, capture 0 is the whole match.
void PushCapture(lua_State* L, const PatternMatcher& m, int i, const char* s, const char* e) {
  if (i >= m.level()) {
    if (i != 0) luaL_error(L, "invalid capture index");
    lua_pushlstring(L, s, static_cast<size_t>(e - s));
    return;
  }
  const PatternMatcher::Capture& cap = m.capture(i);
  if (cap.len == PatternMatcher::kUnfinished) luaL_error(L, "unfinished capture");
  if (cap.len == PatternMatcher::kPosition) {
    lua_pushinteger(L, cap.init - m.subject() + 1);
  } else {
    lua_pushlstring(L, cap.init, static_cast<size_t>(cap.len));
  }
}

// Every capture, or the whole match when there are none and s is given (find passes none).
int PushCaptures(lua_State* L, const PatternMatcher& m, const char* s, const char* e) {
  const int n = m.level() == 0 && s != nullptr ? 1 : m.level();
  luaL_checkstack(L, n, "too many captures");
  for (int i = 0; i < n; ++i) PushCapture(L, m, i, s, e);
  return n;
}

int RaiseMatchError(lua_State* L, const PatternMatcher& m) {
  return luaL_error(L, "%s", m.error());
}

// string.find (find) and string.match.
int FindOrMatch(lua_State* L, bool find) {
  size_t len;
  size_t plen;
  const char* s = luaL_checklstring(L, 1, &len);
  const char* p = luaL_checklstring(L, 2, &plen);
  ptrdiff_t init = RelativePosition(luaL_optinteger(L, 3, 1), len) - 1;
  if (init < 0) init = 0;
  if (static_cast<size_t>(init) > len) init = static_cast<ptrdiff_t>(len);
  if (find && (lua_toboolean(L, 4) || !HasPatternSpecials({p, plen}))) {
    // Plain text: glibc's memmem is linear, where a naive search is quadratic.
    const void* hit = plen == 0 ? s + init : memmem(s + init, len - static_cast<size_t>(init), p, plen);
    if (hit != nullptr) {
      const ptrdiff_t at = static_cast<const char*>(hit) - s;
      lua_pushinteger(L, at + 1);
      lua_pushinteger(L, at + static_cast<ptrdiff_t>(plen));
      return 2;
    }
    lua_pushnil(L);
    return 1;
  }
  PatternMatcher m({s, len}, {p, plen});
  m.SetStepCheck(RunCountHook, L);
  const bool anchored = plen > 0 && p[0] == '^';
  const char* start = nullptr;
  const char* e = m.Search(s + init, anchored ? p + 1 : p, anchored, &start);
  if (m.error() != nullptr) return RaiseMatchError(L, m);
  if (e == nullptr) {
    lua_pushnil(L);
    return 1;
  }
  if (!find) return PushCaptures(L, m, start, e);
  lua_pushinteger(L, start - s + 1);
  lua_pushinteger(L, e - s);
  return PushCaptures(L, m, nullptr, nullptr) + 2;
}

int StrFind(lua_State* L) { return FindOrMatch(L, true); }
int StrMatch(lua_State* L) { return FindOrMatch(L, false); }

// gmatch's iterator; upvalues: subject, pattern, offset of the next try. '^' is an ordinary
// character here, as in 5.1.
int GmatchNext(lua_State* L) {
  size_t len;
  size_t plen;
  const char* s = lua_tolstring(L, lua_upvalueindex(1), &len);
  const char* p = lua_tolstring(L, lua_upvalueindex(2), &plen);
  PatternMatcher m({s, len}, {p, plen});
  m.SetStepCheck(RunCountHook, L);
  for (auto at = static_cast<size_t>(lua_tointeger(L, lua_upvalueindex(3))); at <= len; ++at) {
    const char* e = m.MatchAt(s + at, p);
    if (m.error() != nullptr) return RaiseMatchError(L, m);
    if (e == nullptr) continue;
    // An empty match moves on one character, so the next try cannot find it again.
    size_t next = static_cast<size_t>(e - s);
    if (next == at) ++next;
    lua_pushinteger(L, static_cast<lua_Integer>(next));
    lua_replace(L, lua_upvalueindex(3));
    return PushCaptures(L, m, s + at, e);
  }
  return 0;
}

int StrGmatch(lua_State* L) {
  luaL_checkstring(L, 1);
  luaL_checkstring(L, 2);
  lua_settop(L, 2);
  lua_pushinteger(L, 0);
  lua_pushcclosure(L, GmatchNext, 3);
  return 1;
}

// A replacement string: "%0".."%9" are captures, '%' before anything else is that character
// (a '%' at the end adds the string's terminating NUL, as stock 5.1 reads it).
void AddReplacementText(lua_State* L, luaL_Buffer* b, const PatternMatcher& m, const char* s,
                        const char* e) {
  size_t len;
  const char* r = lua_tolstring(L, 3, &len);
  for (size_t i = 0; i < len; ++i) {
    if (r[i] != '%') {
      luaL_addchar(b, r[i]);
      continue;
    }
    ++i;
    const char c = i < len ? r[i] : '\0';
    if (c < '0' || c > '9') {
      luaL_addchar(b, c);
    } else if (c == '0') {
      luaL_addlstring(b, s, static_cast<size_t>(e - s));
    } else {
      PushCapture(L, m, c - '1', s, e);
      luaL_addvalue(b);
    }
  }
}

// What replaces the match [s, e): the text, the function's result or the table's value for
// the first capture; false or nil keeps the match.
void AddReplacement(lua_State* L, luaL_Buffer* b, const PatternMatcher& m, const char* s,
                    const char* e, int type) {
  if (type == LUA_TFUNCTION) {
    lua_pushvalue(L, 3);
    const int n = PushCaptures(L, m, s, e);
    lua_call(L, n, 1);
  } else if (type == LUA_TTABLE) {
    PushCapture(L, m, 0, s, e);
    lua_gettable(L, 3);
  } else {
    AddReplacementText(L, b, m, s, e);
    return;
  }
  if (!lua_toboolean(L, -1)) {
    lua_pop(L, 1);
    lua_pushlstring(L, s, static_cast<size_t>(e - s));
  } else if (!lua_isstring(L, -1)) {
    luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  }
  luaL_addvalue(b);
}

int StrGsub(lua_State* L) {
  size_t len;
  size_t plen;
  const char* src = luaL_checklstring(L, 1, &len);
  const char* p = luaL_checklstring(L, 2, &plen);
  const int type = lua_type(L, 3);
  // 5.1 reads the limit as an int (luaL_optint): larger values wrap, as there.
  const auto max_n = static_cast<int>(luaL_optinteger(L, 4, static_cast<lua_Integer>(len) + 1));
  luaL_argcheck(L,
                type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION ||
                    type == LUA_TTABLE,
                3, "string/function/table expected");
  const bool anchored = plen > 0 && p[0] == '^';
  const char* pat = anchored ? p + 1 : p;
  PatternMatcher m({src, len}, {p, plen});
  m.SetStepCheck(RunCountHook, L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  const char* s = src;
  const char* end = src + len;
  int n = 0;
  while (n < max_n) {
    const char* e = m.MatchAt(s, pat);
    if (m.error() != nullptr) return RaiseMatchError(L, m);
    if (e != nullptr) {
      ++n;
      AddReplacement(L, &b, m, s, e, type);
    }
    if (e != nullptr && e > s) {
      s = e;
    } else if (s < end) {
      luaL_addchar(&b, *s++);
    } else {
      break;
    }
    if (anchored) break;
  }
  luaL_addlstring(&b, s, static_cast<size_t>(end - s));
  luaL_pushresult(&b);
  lua_pushinteger(L, n);
  return 2;
}

}  // namespace

void SetPatternFunctions(lua_State* L) {
  static const luaL_Reg kFunctions[] = {
      {"find", StrFind}, {"match", StrMatch}, {"gmatch", StrGmatch}, {"gsub", StrGsub}, {nullptr, nullptr}};
  for (const luaL_Reg* f = kFunctions; f->name != nullptr; ++f) {
    lua_pushcfunction(L, f->func);
    lua_setfield(L, -2, f->name);
  }
}

}  // namespace vireo
