// HyperLogLog values in the byte layout Redis and Valkey use, so a value moves between servers
// (RDB, DUMP, GET/SET) and every server estimates the same cardinality from it.
//
// A value is a string: a 16-byte header ("HYLL", encoding byte, 3 unused bytes, 8-byte
// little-endian cached cardinality whose top bit marks the cache stale) and then either
//  - dense:  16384 registers of 6 bits, packed from the least significant bit of each byte;
//  - sparse: run-length opcodes over the registers:
//      00xxxxxx          ZERO   xxxxxx+1 (1..64) zero registers
//      01xxxxxx yyyyyyyy XZERO  the 14-bit x..y + 1 (1..16384) zero registers
//      1vvvvvxx          VAL    xx+1 (1..4) registers of value vvvvv+1 (1..32)
// Elements are hashed with MurmurHash64A (seed 0xadc83b19): the low 14 bits pick a register,
// the position of the lowest set bit of the rest (plus one, at most 51) is the register's
// candidate value. Cardinality uses Ertl's improved estimator over the register histogram.
//
// Values are edited the way Redis edits them, step for step, so that the same command
// sequence leaves byte-identical values (GET must agree between servers, and the sparse
// encoding's shape depends on the order of updates).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vireo::hll {

inline constexpr size_t kHeaderSize = 16;
inline constexpr int kRegisters = 16384;
inline constexpr size_t kDenseSize = kHeaderSize + kRegisters * 6 / 8;  // 12304
inline constexpr uint8_t kEncodingDense = 0;
inline constexpr uint8_t kEncodingSparse = 1;
inline constexpr int kMaxRegisterValue = 51;  // 50 hash bits left after the index, plus one

// Registers one byte each: the union of several HyperLogLogs (PFCOUNT of many keys, PFMERGE).
using Registers = std::array<uint8_t, kRegisters>;

// True if v is accepted as a HyperLogLog: at least a header, the "HYLL" magic, a known
// encoding, and exactly kDenseSize bytes when dense. (Sparse opcodes are checked lazily.)
bool IsValid(std::string_view v);
// The encoding of a valid value.
inline bool IsDense(std::string_view v) { return static_cast<uint8_t>(v[4]) == kEncodingDense; }

// A new, empty HyperLogLog: sparse (one XZERO run), cached cardinality 0 and valid.
std::string MakeEmpty();

// The register an element updates and the value it proposes (1..51).
void HashElement(std::string_view element, int* index, uint8_t* value);
// MurmurHash64A (public domain algorithm by Austin Appleby), little-endian reads.
uint64_t MurmurHash64A(const void* key, size_t len, uint64_t seed);

// Adds element to the dense value at v (kDenseSize bytes), in place. Returns true if a
// register grew. Leaves the cached cardinality alone.
bool DenseAdd(char* v, std::string_view element);
// Adds element to a valid value of either encoding. A sparse value may be promoted to dense:
// when a register needs more than 32 or when the sparse form would grow beyond
// sparse_max_bytes (hll-sparse-max-bytes, header included). Returns 1 if a register grew, 0
// if not, -1 if the sparse opcodes are corrupt (the value may have been partly updated, as
// in Redis). An in-place sparse update marks the cached cardinality stale (so a corrupt-value
// error leaves it as Redis does); callers invalidate it after any update anyway.
int Add(std::string* v, std::string_view element, size_t sparse_max_bytes);
// Raises register index (0..16383) to value if lower; same contract as Add.
int SetRegister(std::string* v, int index, uint8_t value, size_t sparse_max_bytes);

// Converts a sparse value to dense (the header, cached cardinality included, is kept). A
// dense value is left alone. False, with v unchanged, when the sparse opcodes do not cover
// exactly kRegisters registers.
bool ToDense(std::string* v);

// The cached cardinality, when the cache is valid.
bool CachedCardinality(std::string_view v, uint64_t* card);
// Stores card (< 2^63) as the valid cached cardinality of the value at v.
void StoreCardinality(char* v, uint64_t card);
// Marks the cached cardinality stale (only its top bit changes, as in Redis).
void InvalidateCache(char* v);

// Estimated cardinality of a valid value. False when sparse opcodes do not cover exactly
// kRegisters registers.
bool Count(std::string_view v, uint64_t* card);
// Estimated cardinality of a union.
uint64_t CountRegisters(const Registers& regs);
// max[i] = MAX(max[i], register i of v) for a valid value v. False when sparse opcodes are
// corrupt (max may be partly updated).
bool MergeInto(Registers* max, std::string_view v);

// Register index of a dense value.
uint8_t DenseRegister(const char* v, int index);
// A sparse value's opcodes as text, "Z:<n>" / "z:<n>" / "v:<value>,<n>" separated by
// spaces (PFDEBUG DECODE).
std::string DecodeSparse(std::string_view v);

// PFSELFTEST: checks register packing and the estimate's error on generated elements.
// Returns "" or a description of the first failure.
std::string SelfTest();

}  // namespace vireo::hll
