// bit: 32-bit bitwise operations for scripts, with the interface and semantics of LuaBitOp
// 1.0.2 (http://bitop.luajit.org/api.html), the `bit` library Redis and Valkey scripts see:
//   bit.tobit(x)  bit.tohex(x [,n])  bit.bnot(x)  bit.band / bor / bxor(x1 [,x2 ...])
//   bit.lshift / rshift / arshift(x, n)  bit.rol / ror(x, n)  bit.bswap(x)
// Every argument is a number (or a string Lua converts to one, as luaL_checknumber allows)
// taken as a 32-bit integer; every result is a signed 32-bit integer. Shift and rotate counts
// use their low 5 bits. Written for Vireo from the API documentation, in place of Debian's
// lua-bitop, whose tohex crashed on n = INT32_MIN (-n overflows) and has the stack overflow of
// CVE-2024-31449.
// Edge behaviour (conversion of huge, non-integral and non-finite numbers, argument check
// order, tohex's digit count) was checked against valkey-server 8.0.1.
#include <bit>
#include <cstdint>
#include <lua.hpp>

#include "scripting/lua_libs.h"

namespace vireo {
namespace {

constexpr int kMaxHexDigits = 8;  // a 32-bit value; tohex never writes more

// A number's 32 bits as LuaBitOp computes them with double numbers: adding 2^52 + 2^51 puts
// the integer part (rounded to nearest, ties to even) in the low bits of the mantissa, and the
// low 32 bits of the double are the value. That is exact modulo 2^32 for |x| < 2^51; beyond it,
// and for NaN and infinities, the result is whatever those bits hold (1e300 -> 0x8800759c,
// NaN and inf -> 0), which is what scripts have always seen, so it is kept rather than an
// exact modulo.
uint32_t WrapToBits(double x) {
  const double shifted = x + 6755399441055744.0;  // 2^52 + 2^51
  return static_cast<uint32_t>(std::bit_cast<uint64_t>(shifted));
}

uint32_t CheckBits(lua_State* L, int arg) { return WrapToBits(luaL_checknumber(L, arg)); }

// Results are signed: bit.bnot(0) is -1, not 4294967295.
int PushBits(lua_State* L, uint32_t bits) {
  lua_pushnumber(L, static_cast<lua_Number>(static_cast<int32_t>(bits)));
  return 1;
}

unsigned CheckShiftCount(lua_State* L, int arg) { return CheckBits(L, arg) & 31u; }

int BitToBit(lua_State* L) { return PushBits(L, CheckBits(L, 1)); }

// tohex(x [,n]): the low |n| hex digits of x (n = 8 when absent), upper case when n < 0, at most
// 8 digits; n = 0 is the empty string. |n| is taken in 64 bits, so n = INT32_MIN is simply
// more than 8 (8 upper-case digits).
int BitToHex(lua_State* L) {
  uint32_t bits = CheckBits(L, 1);
  int64_t count = lua_isnone(L, 2) ? kMaxHexDigits : static_cast<int32_t>(CheckBits(L, 2));
  const char* digits = "0123456789abcdef";
  if (count < 0) {
    count = -count;
    digits = "0123456789ABCDEF";
  }
  if (count > kMaxHexDigits) count = kMaxHexDigits;
  char text[kMaxHexDigits];
  for (int64_t i = count - 1; i >= 0; --i) {
    text[i] = digits[bits & 15u];
    bits >>= 4;
  }
  lua_pushlstring(L, text, static_cast<size_t>(count));
  return 1;
}

int BitNot(lua_State* L) { return PushBits(L, ~CheckBits(L, 1)); }

// band / bor / bxor over one or more arguments. The first is checked first, then the rest from
// the last one down, so a script with several bad arguments gets the error LuaBitOp gives.
template <typename Combine>
int FoldBits(lua_State* L, Combine combine) {
  uint32_t acc = CheckBits(L, 1);
  for (int arg = lua_gettop(L); arg > 1; --arg) acc = combine(acc, CheckBits(L, arg));
  return PushBits(L, acc);
}

int BitAnd(lua_State* L) {
  return FoldBits(L, [](uint32_t a, uint32_t b) { return a & b; });
}
int BitOr(lua_State* L) {
  return FoldBits(L, [](uint32_t a, uint32_t b) { return a | b; });
}
int BitXor(lua_State* L) {
  return FoldBits(L, [](uint32_t a, uint32_t b) { return a ^ b; });
}

int BitLShift(lua_State* L) {
  uint32_t bits = CheckBits(L, 1);
  return PushBits(L, bits << CheckShiftCount(L, 2));
}

int BitRShift(lua_State* L) {
  uint32_t bits = CheckBits(L, 1);
  return PushBits(L, bits >> CheckShiftCount(L, 2));
}

// Arithmetic: the sign bit is replicated (>> on a negative int32_t is arithmetic in C++20).
int BitArShift(lua_State* L) {
  int32_t value = static_cast<int32_t>(CheckBits(L, 1));
  return PushBits(L, static_cast<uint32_t>(value >> CheckShiftCount(L, 2)));
}

int BitRol(lua_State* L) {
  uint32_t bits = CheckBits(L, 1);
  return PushBits(L, std::rotl(bits, static_cast<int>(CheckShiftCount(L, 2))));
}

int BitRor(lua_State* L) {
  uint32_t bits = CheckBits(L, 1);
  return PushBits(L, std::rotr(bits, static_cast<int>(CheckShiftCount(L, 2))));
}

int BitSwap(lua_State* L) {
  uint32_t bits = CheckBits(L, 1);
  return PushBits(
      L, (bits >> 24) | ((bits >> 8) & 0xff00u) | ((bits << 8) & 0xff0000u) | (bits << 24));
}

}  // namespace

int OpenBitLib(lua_State* L) {
  const luaL_Reg fns[] = {{"tobit", BitToBit},   {"tohex", BitToHex},   {"bnot", BitNot},
                          {"band", BitAnd},      {"bor", BitOr},        {"bxor", BitXor},
                          {"lshift", BitLShift}, {"rshift", BitRShift}, {"arshift", BitArShift},
                          {"rol", BitRol},       {"ror", BitRor},       {"bswap", BitSwap},
                          {nullptr, nullptr}};
  luaL_register(L, "bit", fns);
  return 1;
}

}  // namespace vireo
