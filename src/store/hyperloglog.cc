#include "store/hyperloglog.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

namespace vireo::hll {
namespace {

constexpr int kIndexBits = 14;                  // log2(kRegisters)
constexpr int kHashBitsLeft = 64 - kIndexBits;  // 50
constexpr uint64_t kHashSeed = 0xadc83b19ULL;
constexpr int kSparseValMax = 32;                      // largest value a VAL opcode holds
constexpr int kSparseValMaxLen = 4;                    // longest run of one VAL opcode
constexpr int kSparseZeroMaxLen = 64;                  // longest run of one ZERO opcode
constexpr double kAlphaInf = 0.721347520444481703680;  // 1 / (2 ln 2)

// ---------------------------------------------------------------------------------------------
// Sparse opcodes

inline bool IsZeroOp(uint8_t b) { return (b & 0xC0) == 0x00; }
inline bool IsXZeroOp(uint8_t b) { return (b & 0xC0) == 0x40; }
inline bool IsValOp(uint8_t b) { return (b & 0x80) != 0; }
inline int ZeroLen(uint8_t b) { return (b & 0x3F) + 1; }
inline int XZeroLen(uint8_t b0, uint8_t b1) { return (((b0 & 0x3F) << 8) | b1) + 1; }
inline int ValValue(uint8_t b) { return ((b >> 2) & 0x1F) + 1; }
inline int ValLen(uint8_t b) { return (b & 0x03) + 1; }
inline uint8_t ValOp(int value, int len) {
  return static_cast<uint8_t>(0x80 | ((value - 1) << 2) | (len - 1));
}
inline uint8_t ZeroOp(int len) { return static_cast<uint8_t>(len - 1); }
inline void XZeroOp(uint8_t* p, int len) {
  --len;
  p[0] = static_cast<uint8_t>(0x40 | (len >> 8));
  p[1] = static_cast<uint8_t>(len & 0xFF);
}

// Byte i of s, or 0 past its end: a truncated XZERO reads the terminating NUL in Redis.
inline uint8_t At(std::string_view s, size_t i) {
  return i < s.size() ? static_cast<uint8_t>(s[i]) : 0;
}

// Calls fn(run_length, value) for each sparse opcode of v (value 0 for zero runs).
template <typename Fn>
void ForEachRun(std::string_view v, Fn&& fn) {
  size_t p = kHeaderSize;
  while (p < v.size()) {
    uint8_t b = At(v, p);
    if (IsZeroOp(b)) {
      if (!fn(ZeroLen(b), 0)) return;
      p += 1;
    } else if (IsXZeroOp(b)) {
      if (!fn(XZeroLen(b, At(v, p + 1)), 0)) return;
      p += 2;
    } else {
      if (!fn(ValLen(b), ValValue(b))) return;
      p += 1;
    }
  }
}

// A run past the last register, met while expanding or merging sparse opcodes: a VAL run ends
// the walk (the value is valid if the registers before it were all covered), a zero run makes
// it corrupt. Sets *valid and stops the walk (returns false). This is
// how valkey-server 8.0.1 treats such values (PFMERGE, PFCOUNT of several keys, PFADD).
bool Overrun(int value, bool* valid) {
  *valid = value != 0;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Dense registers: 6 bits each, register i starting at bit 6*i counted from the least
// significant bit of the first register byte.

// A register starting at bit 0 or 2 of its byte lies inside it; only the others spill into the
// next byte. The last register (starting at bit 2 of the last byte) must not touch the byte
// after the value: a raw string has no terminator to absorb it.
inline uint8_t GetRegister(const uint8_t* regs, int i) {
  const size_t byte = static_cast<size_t>(i) * 6 / 8;
  const unsigned fb = (static_cast<unsigned>(i) * 6) & 7;
  const unsigned b0 = regs[byte], b1 = fb > 2 ? regs[byte + 1] : 0;
  return static_cast<uint8_t>(((b0 >> fb) | (b1 << (8 - fb))) & 63);
}

inline void PutRegister(uint8_t* regs, int i, uint8_t value) {
  const size_t byte = static_cast<size_t>(i) * 6 / 8;
  const unsigned fb = (static_cast<unsigned>(i) * 6) & 7;
  const unsigned fb8 = 8 - fb;
  regs[byte] = static_cast<uint8_t>((regs[byte] & ~(63u << fb)) | (unsigned{value} << fb));
  if (fb > 2) {
    regs[byte + 1] =
        static_cast<uint8_t>((regs[byte + 1] & ~(63u >> fb8)) | (unsigned{value} >> fb8));
  }
}

inline uint8_t* DenseRegs(char* v) { return reinterpret_cast<uint8_t*>(v) + kHeaderSize; }
inline const uint8_t* DenseRegs(const char* v) {
  return reinterpret_cast<const uint8_t*>(v) + kHeaderSize;
}

// Raises register i of a dense value; true if it grew.
inline bool DenseSet(char* v, int i, uint8_t value) {
  uint8_t* regs = DenseRegs(v);
  if (value <= GetRegister(regs, i)) return false;
  PutRegister(regs, i, value);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Estimation (Otmar Ertl, "New cardinality estimation algorithms for HyperLogLog sketches",
// arXiv:1702.01284), computed in double in the same order as Redis so results agree exactly.

double Sigma(double x) {
  if (x == 1.) return INFINITY;
  double z_prev;
  double y = 1;
  double z = x;
  do {
    x *= x;
    z_prev = z;
    z += x * y;
    y += y;
  } while (z_prev != z);
  return z;
}

double Tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double z_prev;
  double y = 1.0;
  double z = 1 - x;
  do {
    x = std::sqrt(x);
    z_prev = z;
    y *= 0.5;
    z -= std::pow(1 - x, 2) * y;
  } while (z_prev != z);
  return z / 3;
}

// histo[v] = number of registers holding v (64 slots: corrupt dense values may hold 52..63).
uint64_t Estimate(const int histo[64]) {
  const double m = kRegisters;
  double z = m * Tau((m - histo[kHashBitsLeft + 1]) / m);
  for (int j = kHashBitsLeft; j >= 1; --j) {
    z += histo[j];
    z *= 0.5;
  }
  z += m * Sigma(histo[0] / m);
  const double e = static_cast<double>(llroundl(kAlphaInf * m * m / z));
  return static_cast<uint64_t>(e);
}

// ---------------------------------------------------------------------------------------------
// Sparse updates

// Merges adjacent VAL opcodes of equal value (up to the longest run), scanning at most five
// opcodes from byte p: the neighbourhood of an update. Then marks the cached cardinality
// stale, as every in-place sparse update does in Redis.
void MergeAdjacentValues(std::string* s, size_t p) {
  size_t end = s->size();
  int scan = 5;
  while (p < end && scan--) {
    const uint8_t b = At(*s, p);
    if (IsXZeroOp(b)) {
      p += 2;
      continue;
    }
    if (IsZeroOp(b)) {
      p += 1;
      continue;
    }
    if (p + 1 < end && IsValOp(At(*s, p + 1))) {
      const uint8_t next = At(*s, p + 1);
      if (ValValue(b) == ValValue(next)) {
        const int len = ValLen(b) + ValLen(next);
        if (len <= kSparseValMaxLen) {
          (*s)[p + 1] = static_cast<char>(ValOp(ValValue(b), len));
          s->erase(p, 1);
          --end;
          continue;  // the merged run may merge again with its right neighbour
        }
      }
    }
    ++p;
  }
  InvalidateCache(s->data());
}

int PromoteAndSet(std::string* v, int index, uint8_t value) {
  if (!ToDense(v)) return -1;
  return DenseSet(v->data(), index, value) ? 1 : 0;
}

// Appends a zero run of len registers as one opcode (ZERO up to 64, XZERO beyond).
int PutZeroRun(uint8_t* seq, int len) {
  if (len > kSparseZeroMaxLen) {
    XZeroOp(seq, len);
    return 2;
  }
  seq[0] = ZeroOp(len);
  return 1;
}

int SparseSet(std::string* v, int index, uint8_t value, size_t sparse_max_bytes) {
  if (value > kSparseValMax) return PromoteAndSet(v, index, value);
  std::string& s = *v;
  const size_t end = s.size();

  // Find the opcode whose run covers the register, and the one before it.
  size_t p = kHeaderSize;
  size_t prev = std::string::npos;
  long first = 0, span = 0;
  while (p < end) {
    const uint8_t b = At(s, p);
    size_t oplen = 1;
    if (IsZeroOp(b)) {
      span = ZeroLen(b);
    } else if (IsValOp(b)) {
      span = ValLen(b);
    } else {
      span = XZeroLen(b, At(s, p + 1));
      oplen = 2;
    }
    if (index <= first + span - 1) break;
    prev = p;
    p += oplen;
    first += span;
  }
  if (span == 0 || p >= end) return -1;  // the opcodes cover fewer registers

  const uint8_t op = At(s, p);
  const bool is_zero = IsZeroOp(op), is_xzero = IsXZeroOp(op), is_val = IsValOp(op);
  const size_t merge_from = prev == std::string::npos ? kHeaderSize : prev;

  // A single-register run changes in place.
  if (is_val) {
    if (ValValue(op) >= value) return 0;
    if (span == 1) {
      s[p] = static_cast<char>(ValOp(value, 1));
      MergeAdjacentValues(&s, merge_from);
      return 1;
    }
  }
  if (is_zero && span == 1) {
    s[p] = static_cast<char>(ValOp(value, 1));
    MergeAdjacentValues(&s, merge_from);
    return 1;
  }

  // Otherwise the run splits into (before, the register, after).
  uint8_t seq[5];
  int n = 0;
  const long last = first + span - 1;
  if (is_zero || is_xzero) {
    if (index != first) n += PutZeroRun(seq + n, static_cast<int>(index - first));
    seq[n++] = ValOp(value, 1);
    if (index != last) n += PutZeroRun(seq + n, static_cast<int>(last - index));
  } else {
    const int current = ValValue(op);
    if (index != first) seq[n++] = ValOp(current, static_cast<int>(index - first));
    seq[n++] = ValOp(value, 1);
    if (index != last) seq[n++] = ValOp(current, static_cast<int>(last - index));
  }
  const int oldlen = is_xzero ? 2 : 1;
  const int delta = n - oldlen;
  if (delta > 0 && s.size() + static_cast<size_t>(delta) > sparse_max_bytes) {
    return PromoteAndSet(v, index, value);
  }
  // The length changes by exactly delta even when a truncated XZERO ends the value (Redis
  // then keeps one byte less of the new sequence).
  const size_t new_size = s.size() + static_cast<size_t>(delta);
  s.replace(p, static_cast<size_t>(oldlen), reinterpret_cast<const char*>(seq),
            static_cast<size_t>(n));
  s.resize(new_size);
  MergeAdjacentValues(&s, merge_from);
  return 1;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

bool IsValid(std::string_view v) {
  if (v.size() < kHeaderSize || v.substr(0, 4) != "HYLL") return false;
  const uint8_t encoding = static_cast<uint8_t>(v[4]);
  if (encoding > kEncodingSparse) return false;
  return encoding != kEncodingDense || v.size() == kDenseSize;
}

std::string MakeEmpty() {
  std::string s(kHeaderSize + 2, '\0');
  std::memcpy(s.data(), "HYLL", 4);
  s[4] = static_cast<char>(kEncodingSparse);
  XZeroOp(reinterpret_cast<uint8_t*>(s.data()) + kHeaderSize, kRegisters);
  return s;
}

uint64_t MurmurHash64A(const void* key, size_t len, uint64_t seed) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  const int r = 47;
  uint64_t h = seed ^ (len * m);
  const auto* data = static_cast<const uint8_t*>(key);
  const uint8_t* end = data + (len - (len & 7));
  while (data != end) {
    uint64_t k = 0;
    for (int i = 7; i >= 0; --i) k = (k << 8) | data[i];  // little-endian on every host
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
    data += 8;
  }
  switch (len & 7) {
    case 7:
      h ^= uint64_t{data[6]} << 48;
      [[fallthrough]];
    case 6:
      h ^= uint64_t{data[5]} << 40;
      [[fallthrough]];
    case 5:
      h ^= uint64_t{data[4]} << 32;
      [[fallthrough]];
    case 4:
      h ^= uint64_t{data[3]} << 24;
      [[fallthrough]];
    case 3:
      h ^= uint64_t{data[2]} << 16;
      [[fallthrough]];
    case 2:
      h ^= uint64_t{data[1]} << 8;
      [[fallthrough]];
    case 1:
      h ^= uint64_t{data[0]};
      h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

void HashElement(std::string_view element, int* index, uint8_t* value) {
  uint64_t hash = MurmurHash64A(element.data(), element.size(), kHashSeed);
  *index = static_cast<int>(hash & (kRegisters - 1));
  hash >>= kIndexBits;
  hash |= uint64_t{1} << kHashBitsLeft;  // bounds the run at 51
  *value = static_cast<uint8_t>(std::countr_zero(hash) + 1);
}

bool DenseAdd(char* v, std::string_view element) {
  int index;
  uint8_t value;
  HashElement(element, &index, &value);
  return DenseSet(v, index, value);
}

int Add(std::string* v, std::string_view element, size_t sparse_max_bytes) {
  int index;
  uint8_t value;
  HashElement(element, &index, &value);
  return SetRegister(v, index, value, sparse_max_bytes);
}

int SetRegister(std::string* v, int index, uint8_t value, size_t sparse_max_bytes) {
  if (IsDense(*v)) return DenseSet(v->data(), index, value) ? 1 : 0;
  return SparseSet(v, index, value, sparse_max_bytes);
}

bool ToDense(std::string* v) {
  if (IsDense(*v)) return true;
  std::string dense(kDenseSize, '\0');
  std::memcpy(dense.data(), v->data(), kHeaderSize);
  dense[4] = static_cast<char>(kEncodingDense);
  uint8_t* regs = DenseRegs(dense.data());
  int idx = 0;
  bool valid = true;
  ForEachRun(*v, [&](int len, int value) {
    if (idx + len > kRegisters) return Overrun(value, &valid);
    for (int i = 0; value != 0 && i < len; ++i) {
      PutRegister(regs, idx + i, static_cast<uint8_t>(value));
    }
    idx += len;
    return true;
  });
  if (!valid || idx != kRegisters) return false;
  *v = std::move(dense);
  return true;
}

bool CachedCardinality(std::string_view v, uint64_t* card) {
  if (static_cast<uint8_t>(v[15]) & 0x80) return false;
  uint64_t c = 0;
  for (int i = 15; i >= 8; --i) c = (c << 8) | static_cast<uint8_t>(v[i]);
  *card = c;
  return true;
}

void StoreCardinality(char* v, uint64_t card) {
  for (int i = 8; i < 16; ++i) {
    v[i] = static_cast<char>(card & 0xFF);
    card >>= 8;
  }
}

void InvalidateCache(char* v) { v[15] = static_cast<char>(static_cast<uint8_t>(v[15]) | 0x80); }

bool Count(std::string_view v, uint64_t* card) {
  int histo[64] = {0};
  if (IsDense(v)) {
    const uint8_t* regs = DenseRegs(v.data());
    for (int i = 0; i < kRegisters; ++i) ++histo[GetRegister(regs, i)];
  } else {
    long idx = 0;
    ForEachRun(v, [&](int len, int value) {
      idx += len;
      histo[value] += len;
      return true;
    });
    if (idx != kRegisters) return false;
  }
  *card = Estimate(histo);
  return true;
}

uint64_t CountRegisters(const Registers& regs) {
  int histo[64] = {0};
  for (uint8_t r : regs) ++histo[r & 63];
  return Estimate(histo);
}

bool MergeInto(Registers* max, std::string_view v) {
  if (IsDense(v)) {
    const uint8_t* regs = DenseRegs(v.data());
    for (int i = 0; i < kRegisters; ++i) {
      const uint8_t r = GetRegister(regs, i);
      if (r > (*max)[i]) (*max)[i] = r;
    }
    return true;
  }
  long idx = 0;
  bool valid = true;
  ForEachRun(v, [&](int len, int value) {
    if (idx + len > kRegisters) return Overrun(value, &valid);
    for (int i = 0; i < len; ++i) {
      if (value > (*max)[idx + i]) (*max)[idx + i] = static_cast<uint8_t>(value);
    }
    idx += len;
    return true;
  });
  return valid && idx == kRegisters;
}

uint8_t DenseRegister(const char* v, int index) { return GetRegister(DenseRegs(v), index); }

std::string DecodeSparse(std::string_view v) {
  std::string out;
  size_t p = kHeaderSize;
  char buf[32];
  while (p < v.size()) {
    const uint8_t b = At(v, p);
    int n;
    if (IsZeroOp(b)) {
      n = std::snprintf(buf, sizeof(buf), "z:%d ", ZeroLen(b));
      p += 1;
    } else if (IsXZeroOp(b)) {
      n = std::snprintf(buf, sizeof(buf), "Z:%d ", XZeroLen(b, At(v, p + 1)));
      p += 2;
    } else {
      n = std::snprintf(buf, sizeof(buf), "v:%d,%d ", ValValue(b), ValLen(b));
      p += 1;
    }
    out.append(buf, static_cast<size_t>(n));
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string SelfTest() {
  // Register packing: every register keeps its own value while all others change.
  std::string dense(kDenseSize, '\0');
  std::vector<uint8_t> expect(kRegisters);
  uint64_t rng = 0x9E3779B97F4A7C15ULL;
  auto next = [&rng] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  for (int round = 0; round < 100; ++round) {
    uint8_t* regs = DenseRegs(dense.data());
    for (int i = 0; i < kRegisters; ++i) {
      expect[i] = static_cast<uint8_t>(next() & 63);
      PutRegister(regs, i, expect[i]);
    }
    for (int i = 0; i < kRegisters; ++i) {
      if (GetRegister(regs, i) != expect[i])
        return "TESTFAILED Register error at " + std::to_string(i);
    }
  }
  // Estimation: a sparse and a dense sketch fed the same elements agree while the sparse one
  // stays sparse, and both stay within a few standard errors of the truth.
  std::string sparse = MakeEmpty();
  std::string full = MakeEmpty();
  ToDense(&full);
  const double relerr = 1.04 / std::sqrt(static_cast<double>(kRegisters));
  uint64_t checkpoint = 1;
  for (uint64_t j = 1; j <= 100000; ++j) {
    char ele[8];
    uint64_t x = next();
    std::memcpy(ele, &x, sizeof(ele));
    Add(&sparse, std::string_view(ele, sizeof(ele)), 3000);
    Add(&full, std::string_view(ele, sizeof(ele)), 3000);
    if (j != checkpoint) continue;
    uint64_t a = 0, b = 0;
    if (!Count(sparse, &a) || !Count(full, &b)) return "TESTFAILED corrupt sketch";
    if (a != b) return "TESTFAILED sparse and dense estimates differ at " + std::to_string(j);
    const double maxerr = j <= 10 ? 1 : relerr * 6 * static_cast<double>(j);
    const double err = std::fabs(static_cast<double>(b) - static_cast<double>(j));
    if (err > maxerr) {
      return "TESTFAILED Too big error. card:" + std::to_string(j) +
             " abserr:" + std::to_string(err);
    }
    checkpoint *= 10;
  }
  return "";
}

}  // namespace vireo::hll
