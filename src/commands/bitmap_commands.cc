// Bitmap family: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO. Bitmaps are plain
// strings; writes work on the raw bytes and leave the value "raw", as Valkey does.
#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "commands/bitops.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/access_clock.h"
#include "store/memory.h"
#include "store/value.h"

namespace vireo {
namespace {

constexpr const char* kBitOffsetError = "ERR bit offset is not an integer or out of range";
constexpr const char* kBitValueError = "ERR bit is not an integer or out of range";
constexpr const char* kBitArgError = "ERR The bit argument must be 1 or 0.";
constexpr const char* kBitOpNotArity = "ERR BITOP NOT must be called with a single source key.";
constexpr const char* kBitfieldTypeError =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";
constexpr const char* kOverflowTypeError = "ERR Invalid OVERFLOW type specified";
constexpr const char* kBitfieldRoError = "ERR BITFIELD_RO only supports the GET subcommand";

// ---------------------------------------------------------------------------------------------
// Helpers over the keyspace

// Key's live entry for a write: no hit/miss stats, the access clock moves as on a read.
Entry* FindForWrite(Db* db, std::string_view key) {
  Entry* e = db->Find(key);
  if (e != nullptr) TouchAccess(e);
  return e;
}

// Replies WRONGTYPE and returns false when e (non-null) is not a string.
bool CheckString(CommandContext& ctx, const Entry* e) {
  if (e->type() == ObjType::kString) return true;
  ctx.reply.Error(errors::kWrongType);
  return false;
}

// The largest string a bit command may address, in bytes: proto-max-bulk-len, capped by what
// a string blob's 32-bit length holds.
int64_t MaxBitmapBytes(CommandContext& ctx) {
  constexpr int64_t kBlobLimit = (int64_t{1} << 32) - (int64_t{4} << 20);
  int64_t limit = ctx.server.config().proto_max_bulk_len;
  return limit < kBlobLimit ? limit : kBlobLimit;
}

// Parses a bit offset. With `bits` > 0, "#N" means N * bits (BITFIELD), multiplied with the
// wrap-around of 64-bit arithmetic as Valkey does. Refuses negative offsets and offsets whose
// byte lies beyond the string size limit.
bool ParseBitOffset(CommandContext& ctx, std::string_view arg, int bits, uint64_t* out) {
  bool hash = bits > 0 && !arg.empty() && arg[0] == '#';
  int64_t v;
  if (!ParseInt64(hash ? arg.substr(1) : arg, &v)) {
    ctx.reply.Error(kBitOffsetError);
    return false;
  }
  if (hash) v = static_cast<int64_t>(static_cast<uint64_t>(v) * static_cast<uint64_t>(bits));
  if (v < 0 || (v >> 3) >= MaxBitmapBytes(ctx)) {
    ctx.reply.Error(kBitOffsetError);
    return false;
  }
  *out = static_cast<uint64_t>(v);
  return true;
}

// Makes e's value a raw string of exactly n zero bytes (a new bitmap: no growth slack, so a
// bitmap costs what it does in Valkey).
void SetZeroedRawString(Entry* e, size_t n) {
  FreeValue(e);
  auto* b = static_cast<StrBlob*>(ZMalloc(sizeof(StrBlob) + n));
  b->len = static_cast<uint32_t>(n);
  b->cap = static_cast<uint32_t>(n);
  std::memset(b->data, 0, n);
  e->str = b;
  e->SetType(ObjType::kString, Encoding::kRaw);
}

// Key's string for a bit write reaching byte `max_byte`: created zero-filled when missing,
// otherwise made raw and zero-padded as needed, so its bytes are e->str->data. Replies
// WRONGTYPE and returns nullptr for another type. *grown tells whether the key was created or
// lengthened.
Entry* StringForBitWrite(CommandContext& ctx, std::string_view key, uint64_t max_byte,
                         bool* grown) {
  Entry* e = FindForWrite(ctx.db, key);
  if (e == nullptr) {
    e = ctx.db->Add(key);
    SetZeroedRawString(e, max_byte + 1);
    *grown = true;
  } else {
    if (!CheckString(ctx, e)) return nullptr;
    size_t old = StringLength(e);
    SetRangeInString(e, max_byte + 1, std::string_view());  // raw, padded to max_byte + 1
    *grown = StringLength(e) != old;
  }
  return e;
}

uint8_t* BitmapBytes(Entry* e) { return reinterpret_cast<uint8_t*>(e->str->data); }

// Parses BITCOUNT/BITPOS's unit argument; replies the syntax error when it is neither.
bool ParseUnit(CommandContext& ctx, std::string_view arg, bool* bit_unit) {
  if (EqualsIgnoreCase(arg, "BIT")) {
    *bit_unit = true;
  } else if (EqualsIgnoreCase(arg, "BYTE")) {
    *bit_unit = false;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return false;
  }
  return true;
}

bool ParseIndex(CommandContext& ctx, std::string_view arg, int64_t* out) {
  if (ParseInt64(arg, out)) return true;
  ctx.reply.Error(errors::kNotInteger);
  return false;
}

// ---------------------------------------------------------------------------------------------
// Handlers

// SETBIT key offset value
void CmdSetBit(CommandContext& ctx) {
  uint64_t offset;
  if (!ParseBitOffset(ctx, ctx.arg(2), 0, &offset)) return;
  int64_t on;
  if (!ParseInt64(ctx.arg(3), &on) || (on & ~int64_t{1}) != 0) {
    ctx.reply.Error(kBitValueError);
    return;
  }
  std::string_view key = ctx.arg(1);
  bool grown;
  Entry* e = StringForBitWrite(ctx, key, offset >> 3, &grown);
  if (e == nullptr) return;
  uint8_t& byte = BitmapBytes(e)[offset >> 3];
  const uint8_t mask = static_cast<uint8_t>(1u << (7 - (offset & 7)));
  const bool old = (byte & mask) != 0;
  // An unchanged bit in an unchanged string is no write (nothing to propagate).
  if (grown || old != (on == 1)) {
    byte = static_cast<uint8_t>(on ? (byte | mask) : (byte & ~mask));
    ctx.KeyModified(ctx.db, key);
    NotifyKeyspaceEvent(ctx, kNotifyString, "setbit", ctx.db, key);
  }
  ctx.reply.Integer(old ? 1 : 0);
}

// GETBIT key offset
void CmdGetBit(CommandContext& ctx) {
  uint64_t offset;
  if (!ParseBitOffset(ctx, ctx.arg(2), 0, &offset)) return;
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  if (!CheckString(ctx, e)) return;
  char buf[24];
  std::string_view s = StringValue(e, buf);
  const uint64_t byte = offset >> 3;
  int bit = 0;
  if (byte < s.size()) bit = (static_cast<uint8_t>(s[byte]) >> (7 - (offset & 7))) & 1;
  ctx.reply.Integer(bit);
}

// BITCOUNT key [start [end [BYTE | BIT]]]  (end optional since Valkey 8)
void CmdBitCount(CommandContext& ctx) {
  int64_t start = 0, end = -1;
  bool bit_unit = false;
  const size_t argc = ctx.argc();
  if (argc > 5) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (argc >= 3 && !ParseIndex(ctx, ctx.arg(2), &start)) return;
  if (argc == 5 && !ParseUnit(ctx, ctx.arg(4), &bit_unit)) return;
  if (argc >= 4 && !ParseIndex(ctx, ctx.arg(3), &end)) return;
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e != nullptr && !CheckString(ctx, e)) return;
  if (e == nullptr) {
    ctx.reply.Integer(0);
    return;
  }
  char buf[24];
  std::string_view s = StringValue(e, buf);
  const int64_t len = static_cast<int64_t>(s.size());
  if (argc < 4) end = len - 1;  // whole string, or from start to the last byte
  BitRange range = ResolveBitRange(len, start, end, bit_unit, /*reject_reversed_negatives=*/true);
  ctx.reply.Integer(static_cast<int64_t>(CountBitsInRange(s, range)));
}

// BITPOS key bit [start [end [BYTE | BIT]]]
void CmdBitPos(CommandContext& ctx) {
  int64_t bit;
  if (!ParseIndex(ctx, ctx.arg(2), &bit)) return;
  if (bit != 0 && bit != 1) {
    ctx.reply.Error(kBitArgError);
    return;
  }
  const size_t argc = ctx.argc();
  if (argc > 6) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  int64_t start = 0, end = -1;
  bool bit_unit = false;
  const bool end_given = argc >= 5;
  if (argc >= 4 && !ParseIndex(ctx, ctx.arg(3), &start)) return;
  if (argc == 6 && !ParseUnit(ctx, ctx.arg(5), &bit_unit)) return;
  if (end_given && !ParseIndex(ctx, ctx.arg(4), &end)) return;
  const Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e != nullptr && !CheckString(ctx, e)) return;
  if (e == nullptr) {
    // A missing key is an endless run of zeros.
    ctx.reply.Integer(bit ? -1 : 0);
    return;
  }
  char buf[24];
  std::string_view s = StringValue(e, buf);
  const int64_t len = static_cast<int64_t>(s.size());
  if (!end_given) end = len - 1;
  BitRange range = ResolveBitRange(len, start, end, bit_unit, /*reject_reversed_negatives=*/false);
  int64_t pos = FindFirstBit(s, bit == 1, range);
  // Looking for a clear bit with no end given, the string reads as padded with zeros: the
  // first bit past it answers.
  if (pos < 0 && bit == 0 && !end_given && !range.Empty()) {
    pos = static_cast<int64_t>(range.last + 1);
  }
  ctx.reply.Integer(pos);
}

// BITOP AND | OR | XOR | NOT destkey key [key ...]
void CmdBitOp(CommandContext& ctx) {
  std::string_view opname = ctx.arg(1);
  BitOpKind op;
  if (EqualsIgnoreCase(opname, "AND")) {
    op = BitOpKind::kAnd;
  } else if (EqualsIgnoreCase(opname, "OR")) {
    op = BitOpKind::kOr;
  } else if (EqualsIgnoreCase(opname, "XOR")) {
    op = BitOpKind::kXor;
  } else if (EqualsIgnoreCase(opname, "NOT")) {
    op = BitOpKind::kNot;
  } else {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  if (op == BitOpKind::kNot && ctx.argc() != 4) {
    ctx.reply.Error(kBitOpNotArity);
    return;
  }
  const size_t numkeys = ctx.argc() - 3;
  std::vector<std::string_view> srcs(numkeys);
  std::vector<std::array<char, 24>> int_bufs(numkeys);  // digits of int-encoded sources
  for (size_t j = 0; j < numkeys; ++j) {
    const Entry* e = ctx.db->Lookup(ctx.arg(j + 3));
    if (e == nullptr) continue;  // reads as an empty string
    if (!CheckString(ctx, e)) return;
    srcs[j] = StringValue(e, int_bufs[j].data());
  }
  std::string result;
  ApplyBitOp(op, srcs, &result);  // computed before the destination (maybe a source) changes

  Db* db = ctx.db;
  std::string_view dest = ctx.arg(2);
  const bool existed = db->Delete(dest, ctx.server.config().lazyfree_lazy_server_del);
  if (!result.empty()) {
    Entry* e = db->Add(dest);
    SetRawStringValue(e, result);
    ctx.KeyModified(db, dest);
    NotifyKeyspaceEvent(ctx, kNotifyString, "set", db, dest);
  } else if (existed) {
    ctx.KeyModified(db, dest);
    NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", db, dest);
  }
  ctx.reply.Integer(static_cast<int64_t>(result.size()));
}

// One BITFIELD operation, parsed before any is run.
struct BitfieldOp {
  enum Kind : uint8_t { kGet, kSet, kIncrBy } kind;
  bool is_signed;
  int bits;
  BitOverflow overflow;
  uint64_t offset;
  int64_t value;  // SET value or INCRBY increment
};

// Parses a bitfield type: i1..i64 or u1..u63 (lower-case sign letter, as Valkey).
bool ParseBitfieldType(CommandContext& ctx, std::string_view arg, bool* is_signed, int* bits) {
  int64_t n;
  if (arg.empty() || (arg[0] != 'i' && arg[0] != 'u') || !ParseInt64(arg.substr(1), &n) ||
      n < 1 || (arg[0] == 'i' && n > 64) || (arg[0] == 'u' && n > 63)) {
    ctx.reply.Error(kBitfieldTypeError);
    return false;
  }
  *is_signed = arg[0] == 'i';
  *bits = static_cast<int>(n);
  return true;
}

// Runs one SET/INCRBY on the string bytes at p and replies its result (nil when OVERFLOW
// FAIL refuses it). Returns 1 if the field's value changed, 0 if not, -1 if refused.
int RunBitfieldWrite(CommandContext& ctx, uint8_t* p, const BitfieldOp& op) {
  bool ok;
  uint64_t old_bits, new_bits;
  int64_t reply;
  if (op.is_signed) {
    int64_t old = GetSignedField(p, op.offset, op.bits), result;
    if (op.kind == BitfieldOp::kIncrBy) {
      ok = AddSignedField(old, op.value, op.bits, op.overflow, &result);
      reply = result;
    } else {
      ok = AddSignedField(op.value, 0, op.bits, op.overflow, &result);
      reply = old;
    }
    old_bits = static_cast<uint64_t>(old);
    new_bits = static_cast<uint64_t>(result);
  } else {
    uint64_t old = GetUnsignedField(p, op.offset, op.bits), result;
    if (op.kind == BitfieldOp::kIncrBy) {
      ok = AddUnsignedField(old, op.value, op.bits, op.overflow, &result);
      reply = static_cast<int64_t>(result);
    } else {
      ok = AddUnsignedField(static_cast<uint64_t>(op.value), 0, op.bits, op.overflow, &result);
      reply = static_cast<int64_t>(old);
    }
    old_bits = old;
    new_bits = result;
  }
  if (!ok && op.overflow == BitOverflow::kFail) {
    ctx.reply.Null();
    return -1;
  }
  ctx.reply.Integer(reply);
  SetField(p, op.offset, op.bits, new_bits);
  return old_bits != new_bits ? 1 : 0;
}

// BITFIELD key [GET type offset | SET type offset value | INCRBY type offset increment |
//               OVERFLOW WRAP|SAT|FAIL] ...   (BITFIELD_RO: GET only)
void BitfieldGeneric(CommandContext& ctx, bool read_only_command) {
  std::vector<BitfieldOp> ops;
  BitOverflow overflow = BitOverflow::kWrap;
  bool writes = false;
  uint64_t highest_write_bit = 0;
  const size_t argc = ctx.argc();
  for (size_t j = 2; j < argc; ++j) {
    const size_t remaining = argc - j - 1;
    std::string_view sub = ctx.arg(j);
    BitfieldOp op{};
    if (EqualsIgnoreCase(sub, "GET") && remaining >= 2) {
      op.kind = BitfieldOp::kGet;
    } else if (EqualsIgnoreCase(sub, "SET") && remaining >= 3) {
      op.kind = BitfieldOp::kSet;
    } else if (EqualsIgnoreCase(sub, "INCRBY") && remaining >= 3) {
      op.kind = BitfieldOp::kIncrBy;
    } else if (EqualsIgnoreCase(sub, "OVERFLOW") && remaining >= 1) {
      std::string_view kind = ctx.arg(++j);
      if (EqualsIgnoreCase(kind, "WRAP")) {
        overflow = BitOverflow::kWrap;
      } else if (EqualsIgnoreCase(kind, "SAT")) {
        overflow = BitOverflow::kSat;
      } else if (EqualsIgnoreCase(kind, "FAIL")) {
        overflow = BitOverflow::kFail;
      } else {
        ctx.reply.Error(kOverflowTypeError);
        return;
      }
      continue;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
    if (!ParseBitfieldType(ctx, ctx.arg(j + 1), &op.is_signed, &op.bits)) return;
    if (!ParseBitOffset(ctx, ctx.arg(j + 2), op.bits, &op.offset)) return;
    if (op.kind != BitfieldOp::kGet) {
      writes = true;
      highest_write_bit = std::max(highest_write_bit, op.offset + op.bits - 1);
      if (!ParseIndex(ctx, ctx.arg(j + 3), &op.value)) return;
    }
    op.overflow = overflow;
    ops.push_back(op);
    j += op.kind == BitfieldOp::kGet ? 2 : 3;
  }

  std::string_view key = ctx.arg(1);
  uint8_t* p = nullptr;  // the string's bytes when writing
  const Entry* e = nullptr;
  bool grown = false;
  if (!writes) {
    e = ctx.db->Lookup(key);
    if (e != nullptr && !CheckString(ctx, e)) return;
  } else {
    if (read_only_command) {
      ctx.reply.Error(kBitfieldRoError);
      return;
    }
    Entry* w = StringForBitWrite(ctx, key, highest_write_bit >> 3, &grown);
    if (w == nullptr) return;
    p = BitmapBytes(w);
    e = w;
  }

  ctx.reply.Array(ops.size());
  int changes = 0;
  for (const BitfieldOp& op : ops) {
    if (op.kind != BitfieldOp::kGet) {
      // A refused write changes nothing; one into a created or lengthened string counts.
      int r = RunBitfieldWrite(ctx, p, op);
      if (r == 1 || (r == 0 && grown)) ++changes;
      continue;
    }
    // GET reads zeros past the end of the string (or of a missing key).
    char buf[24];
    std::string_view s = e == nullptr ? std::string_view() : StringValue(e, buf);
    if (op.is_signed) {
      ctx.reply.Integer(ReadSignedField(s, op.offset, op.bits));
    } else {
      ctx.reply.Integer(static_cast<int64_t>(ReadUnsignedField(s, op.offset, op.bits)));
    }
  }
  if (changes > 0) {
    ctx.KeyModified(ctx.db, key, changes);
    NotifyKeyspaceEvent(ctx, kNotifyString, "setbit", ctx.db, key);
  }
}

// BITFIELD key [GET ... | SET ... | INCRBY ... | OVERFLOW ...] ...
void CmdBitfield(CommandContext& ctx) { BitfieldGeneric(ctx, false); }

// BITFIELD_RO key [GET encoding offset ...]
void CmdBitfieldRo(CommandContext& ctx) { BitfieldGeneric(ctx, true); }

}  // namespace

void RegisterBitmapCommands(CommandTable& t) {
  const uint64_t rd = kAclRead | kAclBitmap;
  const uint64_t wr = kAclWrite | kAclBitmap;
  t.Add({.name = "setbit", .arity = 4, .flags = kCmdWrite | kCmdDenyOom, .acl = wr | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdSetBit, .group = "bitmap",
         .summary = "Sets or clears the bit at offset in the string value stored at key",
         .since = "2.2.0", .complexity = "O(1)"});
  t.Add({.name = "getbit", .arity = 3, .flags = kCmdReadonly | kCmdFast, .acl = rd | kAclFast,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGetBit, .group = "bitmap",
         .summary = "Returns the bit value at offset in the string value stored at key",
         .since = "2.2.0", .complexity = "O(1)"});
  t.Add({.name = "bitcount", .arity = -2, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdBitCount,
         .group = "bitmap", .summary = "Count set bits in a string", .since = "2.6.0",
         .complexity = "O(N)"});
  t.Add({.name = "bitpos", .arity = -3, .flags = kCmdReadonly, .acl = rd | kAclSlow,
         .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdBitPos, .group = "bitmap",
         .summary = "Find first bit set or clear in a string", .since = "2.8.7",
         .complexity = "O(N)"});
  t.Add({.name = "bitop", .arity = -4, .flags = kCmdWrite | kCmdDenyOom, .acl = wr | kAclSlow,
         .first_key = 2, .last_key = -1, .key_step = 1, .handler = CmdBitOp, .group = "bitmap",
         .summary = "Perform bitwise operations between strings", .since = "2.6.0",
         .complexity = "O(N)"});
  t.Add({.name = "bitfield", .arity = -2, .flags = kCmdWrite | kCmdDenyOom,
         .acl = wr | kAclSlow, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdBitfield, .group = "bitmap",
         .summary = "Perform arbitrary bitfield integer operations on strings",
         .since = "3.2.0", .complexity = "O(1) for each subcommand specified"});
  t.Add({.name = "bitfield_ro", .arity = -2, .flags = kCmdReadonly | kCmdFast,
         .acl = rd | kAclFast, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdBitfieldRo, .group = "bitmap",
         .summary = "Perform arbitrary bitfield integer operations on strings. Read-only "
                    "variant of BITFIELD",
         .since = "6.0.0", .complexity = "O(1) for each subcommand specified"});
}

}  // namespace vireo
