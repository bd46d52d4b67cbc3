// The RDB file format's constants: header, opcodes, value type ids and length encodings, as
// Valkey/Redis define them. Vireo writes version 10 (loadable by Redis 7.0) and reads up to 11
// (Redis 7.2, Valkey 7.2/8).
#pragma once

#include <cstdint>

namespace vireo::rdb {

inline constexpr int kWriteVersion = 10;
inline constexpr int kMaxReadVersion = 11;

// Value types (the byte before a key, and the first byte of a DUMP payload).
enum Type : uint8_t {
  kTypeString = 0,
  kTypeList = 1,  // linked list of strings (before Redis 3.2)
  kTypeSet = 2,
  kTypeZSet = 3,  // scores as text
  kTypeHash = 4,
  kTypeZSet2 = 5,  // scores as binary doubles
  kTypeModulePreGa = 6,
  kTypeModule2 = 7,
  kTypeHashZipmap = 9,
  kTypeListZiplist = 10,
  kTypeSetIntset = 11,
  kTypeZSetZiplist = 12,
  kTypeHashZiplist = 13,
  kTypeListQuicklist = 14,
  kTypeStreamListpacks = 15,
  kTypeHashListpack = 16,
  kTypeZSetListpack = 17,
  kTypeListQuicklist2 = 18,
  kTypeStreamListpacks2 = 19,
  kTypeSetListpack = 20,       // version 11
  kTypeStreamListpacks3 = 21,  // version 11
};

// Opcodes between keys.
enum Opcode : uint8_t {
  kOpSlotInfo = 244,  // Valkey 8 cluster slot sizes (skipped)
  kOpFunction2 = 245,
  kOpFunctionPreGa = 246,
  kOpModuleAux = 247,
  kOpIdle = 248,
  kOpFreq = 249,
  kOpAux = 250,
  kOpResizeDb = 251,
  kOpExpireTimeMs = 252,
  kOpExpireTime = 253,
  kOpSelectDb = 254,
  kOpEof = 255,
};

// Length encoding: the top two bits of the first byte.
inline constexpr uint8_t kLen6Bit = 0;
inline constexpr uint8_t kLen14Bit = 1;
inline constexpr uint8_t kLen32Bit = 0x80;
inline constexpr uint8_t kLen64Bit = 0x81;
inline constexpr uint8_t kLenEncoded = 3;  // 11xxxxxx: a special string encoding follows
// Special string encodings (the low six bits after 11).
inline constexpr uint8_t kEncInt8 = 0;
inline constexpr uint8_t kEncInt16 = 1;
inline constexpr uint8_t kEncInt32 = 2;
inline constexpr uint8_t kEncLzf = 3;

// Quicklist 2 node containers.
inline constexpr uint64_t kQuicklistNodePlain = 1;
inline constexpr uint64_t kQuicklistNodePacked = 2;

// Stream listpack entry flags.
inline constexpr int64_t kStreamItemDeleted = 1;
inline constexpr int64_t kStreamItemSameFields = 2;

}  // namespace vireo::rdb
