#include "persistence/rdb_reader.h"

#include <liblzf/lzf.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/clock.h"
#include "common/crc64.h"
#include "common/log.h"
#include "common/numbers.h"
#include "persistence/rdb_format.h"
#include "store/access_clock.h"
#include "store/value.h"

namespace vireo {
namespace {

uint64_t LoadLE(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

bool IsValueType(uint8_t t) {
  return t <= rdb::kTypeZSet2 || (t >= rdb::kTypeHashZipmap && t <= rdb::kTypeStreamListpacks3);
}

}  // namespace

RdbLoadLimits RdbLoadLimitsFrom(const Config& c) {
  auto clamp = [](int64_t v) { return v < 0 ? size_t{0} : static_cast<size_t>(v); };
  RdbLoadLimits l;
  l.list = {c.list_max_listpack_size, c.list_compress_depth};
  l.hash = {c.hash_max_listpack_entries, c.hash_max_listpack_value};
  l.set = {clamp(c.set_max_intset_entries), clamp(c.set_max_listpack_entries),
           clamp(c.set_max_listpack_value)};
  l.zset = {clamp(c.zset_max_listpack_entries), clamp(c.zset_max_listpack_value)};
  l.stream = {static_cast<uint64_t>(c.stream_node_max_bytes),
              static_cast<uint64_t>(c.stream_node_max_entries)};
  return l;
}

bool RdbReader::Fail(const std::string& what) {
  if (!failed_) {
    failed_ = true;
    error_ = what;
    error_offset_ = offset();
  }
  return false;
}

bool RdbReader::Raw(void* out, size_t n) {
  if (failed_) return false;
  if (left() < n) return Fail("unexpected end of data");
  memcpy(out, p_, n);
  p_ += n;
  return true;
}

bool RdbReader::Byte(uint8_t* b) { return Raw(b, 1); }

bool RdbReader::Length(uint64_t* len, bool* encoded) {
  if (encoded != nullptr) *encoded = false;
  uint8_t b;
  if (!Byte(&b)) return false;
  switch (b >> 6) {
    case rdb::kLen6Bit:
      *len = b & 0x3F;
      return true;
    case rdb::kLen14Bit: {
      uint8_t b2;
      if (!Byte(&b2)) return false;
      *len = (uint64_t{b & 0x3Fu} << 8) | b2;
      return true;
    }
    case rdb::kLenEncoded:
      if (encoded == nullptr) return Fail("unexpected string encoding in a length");
      *encoded = true;
      *len = b & 0x3F;
      return true;
    default: {
      unsigned char buf[8];
      int n = b == rdb::kLen32Bit ? 4 : b == rdb::kLen64Bit ? 8 : 0;
      if (n == 0) return Fail("invalid length encoding");
      if (!Raw(buf, static_cast<size_t>(n))) return false;
      uint64_t v = 0;
      for (int i = 0; i < n; ++i) v = (v << 8) | buf[i];
      *len = v;
      return true;
    }
  }
}

bool RdbReader::String(std::string* out) {
  std::string_view v;
  if (!StringRef(&v, out)) return false;
  if (v.data() != out->data()) out->assign(v);
  return true;
}

bool RdbReader::StringRef(std::string_view* view, std::string* out) {
  uint64_t len;
  bool encoded;
  if (!Length(&len, &encoded)) return false;
  if (!encoded) {
    if (len > left()) return Fail("string length past the end of data");
    *view = std::string_view(reinterpret_cast<const char*>(p_), static_cast<size_t>(len));
    p_ += len;
    return true;
  }
  // Encoded forms are decoded into *out, which the view then shows.
  if (!StringDecoded(len, out)) return false;
  *view = *out;
  return true;
}

bool RdbReader::StringDecoded(uint64_t encoding, std::string* out) {
  unsigned char buf[4];
  switch (encoding) {
    case rdb::kEncInt8:
      if (!Raw(buf, 1)) return false;
      *out = std::to_string(static_cast<int8_t>(buf[0]));
      return true;
    case rdb::kEncInt16:
      if (!Raw(buf, 2)) return false;
      *out = std::to_string(static_cast<int16_t>(LoadLE(buf, 2)));
      return true;
    case rdb::kEncInt32:
      if (!Raw(buf, 4)) return false;
      *out = std::to_string(static_cast<int32_t>(LoadLE(buf, 4)));
      return true;
    case rdb::kEncLzf: {
      uint64_t clen, ulen;
      if (!Length(&clen) || !Length(&ulen)) return false;
      if (clen > left()) return Fail("compressed string past the end of data");
      // LZF expands at most ~100x: a bigger claim is corruption, not a reason to allocate.
      if (ulen == 0 || ulen > clen * 128 + 64 || ulen > UINT32_MAX) {
        return Fail("invalid compressed string length");
      }
      out->resize(static_cast<size_t>(ulen));
      unsigned int n = lzf_decompress(p_, static_cast<unsigned int>(clen), out->data(),
                                      static_cast<unsigned int>(ulen));
      if (n != ulen) return Fail("LZF decompression failed");
      p_ += clen;
      return true;
    }
    default:
      return Fail("unknown string encoding " + std::to_string(encoding));
  }
}

bool RdbReader::MillisecondTime(int64_t* ms) {
  unsigned char buf[8];
  if (!Raw(buf, 8)) return false;
  *ms = static_cast<int64_t>(LoadLE(buf, 8));
  return true;
}

bool RdbReader::Seconds(int32_t* s) {
  unsigned char buf[4];
  if (!Raw(buf, 4)) return false;
  *s = static_cast<int32_t>(LoadLE(buf, 4));
  return true;
}

bool RdbReader::BinaryDouble(double* d) {
  unsigned char buf[8];
  if (!Raw(buf, 8)) return false;
  uint64_t bits = LoadLE(buf, 8);
  memcpy(d, &bits, 8);
  return true;
}

bool RdbReader::TextDouble(double* d) {
  uint8_t len;
  if (!Byte(&len)) return false;
  if (len == 253) {
    *d = NAN;
  } else if (len == 254) {
    *d = INFINITY;
  } else if (len == 255) {
    *d = -INFINITY;
  } else {
    char buf[256];
    if (!Raw(buf, len)) return false;
    buf[len] = '\0';
    char* end;
    *d = strtod(buf, &end);
    if (end != buf + len) return Fail("invalid double");
  }
  return true;
}

bool RdbReader::StreamId(StreamID* id) {
  unsigned char buf[16];
  if (!Raw(buf, 16)) return false;
  id->ms = id->seq = 0;
  for (int i = 0; i < 8; ++i) id->ms = (id->ms << 8) | buf[i];
  for (int i = 8; i < 16; ++i) id->seq = (id->seq << 8) | buf[i];
  return true;
}

bool LoadRdb(const unsigned char* data, size_t size, const std::vector<Db*>& dbs,
             const RdbLoadLimits& limits, int64_t now_ms, RdbLoadStats* stats, std::string* error,
             size_t* rdb_size, const LoadProgress* progress) {
  auto fail_at = [&](size_t offset, const std::string& what) {
    *error = "at byte offset " + std::to_string(offset) + ": " + what;
    return false;
  };
  auto checksum_ok = [&](size_t end) {  // the 8 bytes before end hold the CRC64 of the rest
    uint64_t expected = LoadLE(data + end - 8, 8);
    if (expected == 0) return true;
    uint64_t got = Crc64(0, data, end - 8);
    if (got == expected) return true;
    char msg[96];
    snprintf(msg, sizeof(msg), "wrong RDB checksum (expected %016llx, got %016llx)",
             static_cast<unsigned long long>(expected), static_cast<unsigned long long>(got));
    return fail_at(end - 8, msg);
  };
  if (size < 9 || memcmp(data, "REDIS", 5) != 0)
    return fail_at(0, "wrong signature (not an RDB file)");
  int version = 0;
  for (int i = 5; i < 9; ++i) {
    if (data[i] < '0' || data[i] > '9') return fail_at(5, "wrong signature (bad version)");
    version = version * 10 + (data[i] - '0');
  }
  if (version < 1 || version > rdb::kMaxReadVersion) {
    return fail_at(5, "can't handle RDB format version " + std::to_string(version));
  }
  stats->version = version;
  // Verify the checksum first, so a damaged file changes nothing.
  if (rdb_size == nullptr && version >= 5 && size >= 17 && !checksum_ok(size)) return false;
  RdbReader r(data + 9, size - 9);
  auto fail = [&]() { return fail_at(9 + r.error_offset(), r.error()); };
  Db* db = dbs.empty() ? nullptr : dbs[0];
  int64_t expire_ms = 0;
  int64_t idle = -1;
  int64_t freq = -1;
  std::string key, aux_key, aux_value;
  size_t next_report = progress != nullptr ? progress->every : SIZE_MAX;
  while (true) {
    if (r.offset() >= next_report) [[unlikely]] {
      if (!progress->fn(9 + r.offset())) return fail_at(9 + r.offset(), "loading interrupted");
      next_report = r.offset() + progress->every;
    }
    uint8_t op;
    size_t op_offset = 9 + r.offset();
    if (!r.Byte(&op)) return fail();
    switch (op) {
      case rdb::kOpExpireTimeMs:
        if (!r.MillisecondTime(&expire_ms)) return fail();
        continue;
      case rdb::kOpExpireTime: {
        int32_t s;
        if (!r.Seconds(&s)) return fail();
        expire_ms = int64_t{s} * 1000;
        continue;
      }
      case rdb::kOpFreq: {
        uint8_t f;
        if (!r.Byte(&f)) return fail();
        freq = f;
        continue;
      }
      case rdb::kOpIdle: {
        uint64_t v;
        if (!r.Length(&v)) return fail();
        idle = static_cast<int64_t>(std::min<uint64_t>(v, INT64_MAX));
        continue;
      }
      case rdb::kOpEof:
        if (version >= 5 && r.left() < 8) {
          r.Fail("missing checksum after EOF");
          return fail();
        }
        if (rdb_size != nullptr) {
          *rdb_size = 9 + r.offset() + (version >= 5 ? 8 : 0);
          if (version >= 5 && !checksum_ok(*rdb_size)) return false;
        }
        return true;
      case rdb::kOpSelectDb: {
        uint64_t n;
        if (!r.Length(&n)) return fail();
        if (n >= dbs.size()) {
          r.Fail("database " + std::to_string(n) + " out of range (databases " +
                 std::to_string(dbs.size()) + ")");
          return fail();
        }
        db = dbs[static_cast<size_t>(n)];
        continue;
      }
      case rdb::kOpResizeDb: {
        uint64_t a, b;
        if (!r.Length(&a) || !r.Length(&b)) return fail();
        // Every key takes a few bytes of the file: a larger claim is damage, not a size.
        if (db != nullptr) db->Reserve(static_cast<size_t>(std::min<uint64_t>(a, size / 4)));
        continue;
      }
      case rdb::kOpSlotInfo: {
        uint64_t a, b, c;
        if (!r.Length(&a) || !r.Length(&b) || !r.Length(&c)) return fail();
        continue;
      }
      case rdb::kOpAux:
        if (!r.String(&aux_key) || !r.String(&aux_value)) return fail();
        if (aux_key == "redis-ver" || aux_key == "valkey-ver") {
          LogNotice("Loading RDB produced by version %s", aux_value.c_str());
        } else if (aux_key == "repl-id") {
          stats->repl_id = aux_value;
        } else if (aux_key == "repl-offset") {
          int64_t off;
          if (ParseInt64(aux_value, &off)) stats->repl_offset = off;
        }
        continue;
      case rdb::kOpFunction2:
        if (!r.String(&aux_value)) return fail();
        stats->functions.push_back(std::move(aux_value));
        continue;
      case rdb::kOpModuleAux:
      case rdb::kOpFunctionPreGa:
        return fail_at(op_offset, "module or pre-GA function data cannot be loaded (no modules)");
      default:
        break;
    }
    if (!IsValueType(op)) return fail_at(op_offset, "unknown RDB value type " + std::to_string(op));
    if (op == rdb::kTypeModulePreGa || op == rdb::kTypeModule2) {
      return fail_at(op_offset, "module value type (no modules are loaded)");
    }
    size_t key_offset = r.offset();
    std::string_view key_view;  // into the file's bytes: no copy before the entry's own
    if (!r.StringRef(&key_view, &key)) return fail();
    Entry* e = nullptr;
    RdbValueStatus st = ReadRdbValue(r, op, key_view, limits, &e, expire_ms != 0);
    if (st == RdbValueStatus::kError) return fail();
    if (st == RdbValueStatus::kOk) {
      if (expire_ms != 0 && expire_ms < now_ms) {
        FreeEntry(e);
        ++stats->keys_expired;
      } else if (!db->AttachIfAbsent(e)) {
        FreeEntry(e);
        return fail_at(9 + key_offset, "duplicate key '" + std::string(key_view) + "'");
      } else {
        if (expire_ms != 0) e = db->SetExpire(e, expire_ms);
        RestoreAccessClock(e, idle, freq);
        ++stats->keys_loaded;
        if (progress != nullptr && progress->key_delay_us > 0) usleep(progress->key_delay_us);
      }
    }
    expire_ms = 0;
    idle = -1;
    freq = -1;
  }
}

bool VerifyDumpPayload(std::string_view payload) {
  if (payload.size() < 10) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(payload.data());
  size_t n = payload.size();
  uint64_t version = LoadLE(p + n - 10, 2);
  if (version > static_cast<uint64_t>(rdb::kMaxReadVersion)) return false;
  return Crc64(0, p, n - 8) == LoadLE(p + n - 8, 8);
}

Entry* LoadDumpPayload(std::string_view payload, std::string_view key,
                       const RdbLoadLimits& limits) {
  if (payload.size() < 11) return nullptr;
  RdbReader r(reinterpret_cast<const unsigned char*>(payload.data()), payload.size() - 10);
  uint8_t type;
  if (!r.Byte(&type) || !IsValueType(type) || type == rdb::kTypeModulePreGa ||
      type == rdb::kTypeModule2) {
    return nullptr;
  }
  Entry* e = nullptr;
  if (ReadRdbValue(r, type, key, limits, &e) != RdbValueStatus::kOk) return nullptr;
  return e;
}

bool ReadFunctionsPayload(std::string_view payload, std::vector<std::string>* codes,
                          std::string* error) {
  if (!VerifyDumpPayload(payload)) {
    *error = "ERR DUMP payload version or checksum are wrong";
    return false;
  }
  RdbReader r(reinterpret_cast<const unsigned char*>(payload.data()), payload.size() - 10);
  while (r.left() > 0) {
    uint8_t op;
    r.Byte(&op);
    if (op != rdb::kOpFunction2) {
      *error = "ERR given type is not a function";
      return false;
    }
    std::string code;
    if (!r.String(&code)) {
      *error = "ERR Failed loading library payload";
      return false;
    }
    codes->push_back(std::move(code));
  }
  return true;
}

}  // namespace vireo
