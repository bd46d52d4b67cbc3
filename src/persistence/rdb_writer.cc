#include "persistence/rdb_writer.h"

#include <liblzf/lzf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "common/clock.h"
#include "common/crc64.h"
#include "common/numbers.h"
#include "persistence/file_io.h"
#include "persistence/rdb_format.h"
#include "store/hash_value.h"
#include "store/intset.h"
#include "store/list_value.h"
#include "store/listpack.h"
#include "store/set_value.h"
#include "store/stream.h"
#include "store/value.h"
#include "store/zset_value.h"

namespace vireo {
namespace {

void PutLE(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutBE(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

std::string_view LpView(const unsigned char* lp) {
  return {reinterpret_cast<const char*>(lp), lp::Bytes(lp)};
}

}  // namespace

RdbWriter::RdbWriter(int fd, const RdbWriteOptions& options) : fd_(fd), opt_(options) {}

RdbWriter::RdbWriter(RdbSink* sink, const RdbWriteOptions& options)
    : fd_(-1), sink_(sink), opt_(options) {}

void RdbWriter::Raw(const void* data, size_t n) {
  buf_.append(static_cast<const char*>(data), n);
  MaybeFlush();
}

void RdbWriter::Length(uint64_t len) {
  if (len < (1u << 6)) {
    Byte(static_cast<uint8_t>(len));
  } else if (len < (1u << 14)) {
    Byte(static_cast<uint8_t>((len >> 8) | 0x40));
    Byte(static_cast<uint8_t>(len));
  } else if (len <= UINT32_MAX) {
    Byte(rdb::kLen32Bit);
    PutBE(&buf_, len, 4);
  } else {
    Byte(rdb::kLen64Bit);
    PutBE(&buf_, len, 8);
  }
}

void RdbWriter::String(std::string_view s) {
  int64_t v;
  if (s.size() <= 11 && ParseInt64(s, &v) && v >= INT32_MIN && v <= INT32_MAX) {
    Int(v);
    return;
  }
  if (opt_.compress && s.size() > 20) {
    // Only worth it when at least 4 bytes are saved, as Valkey decides.
    size_t max_out = s.size() - 4;
    scratch_.resize(max_out + 1);
    unsigned int n = lzf_compress(s.data(), static_cast<unsigned int>(s.size()), scratch_.data(),
                                  static_cast<unsigned int>(max_out));
    if (n > 0 && s.size() <= UINT32_MAX) {
      Byte(static_cast<uint8_t>((rdb::kLenEncoded << 6) | rdb::kEncLzf));
      Length(n);
      Length(s.size());
      Raw(scratch_.data(), n);
      return;
    }
  }
  Length(s.size());
  Raw(s.data(), s.size());
}

void RdbWriter::Int(int64_t v) {
  if (v >= INT8_MIN && v <= INT8_MAX) {
    Byte((rdb::kLenEncoded << 6) | rdb::kEncInt8);
    PutLE(&buf_, static_cast<uint64_t>(v), 1);
  } else if (v >= INT16_MIN && v <= INT16_MAX) {
    Byte((rdb::kLenEncoded << 6) | rdb::kEncInt16);
    PutLE(&buf_, static_cast<uint64_t>(v), 2);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    Byte((rdb::kLenEncoded << 6) | rdb::kEncInt32);
    PutLE(&buf_, static_cast<uint64_t>(v), 4);
  } else {
    std::string s = FormatInt64(v);
    Length(s.size());
    Raw(s.data(), s.size());
  }
}

void RdbWriter::MillisecondTime(int64_t ms) { PutLE(&buf_, static_cast<uint64_t>(ms), 8); }

void RdbWriter::BinaryDouble(double d) {
  uint64_t bits;
  memcpy(&bits, &d, 8);
  PutLE(&buf_, bits, 8);
}

void RdbWriter::StreamId(uint64_t ms, uint64_t seq) {
  PutBE(&buf_, ms, 8);
  PutBE(&buf_, seq, 8);
}

uint8_t RdbWriter::TypeOf(const Entry* e) {
  switch (e->type()) {
    case ObjType::kString:
      return rdb::kTypeString;
    case ObjType::kList:
      return rdb::kTypeListQuicklist2;
    case ObjType::kSet:
      return e->encoding() == Encoding::kIntSet ? rdb::kTypeSetIntset : rdb::kTypeSet;
    case ObjType::kZSet:
      return e->encoding() == Encoding::kListPack ? rdb::kTypeZSetListpack : rdb::kTypeZSet2;
    case ObjType::kHash:
      return e->encoding() == Encoding::kListPack ? rdb::kTypeHashListpack : rdb::kTypeHash;
    case ObjType::kStream:
      return rdb::kTypeStreamListpacks2;
  }
  return rdb::kTypeString;
}

void RdbWriter::Value(const Entry* e) {
  switch (e->type()) {
    case ObjType::kString:
      if (e->encoding() == Encoding::kInt) {
        Int(e->ival);
      } else {
        char buf[32];
        String(StringValue(e, buf));
      }
      break;
    case ObjType::kList:
      ListValue(e);
      break;
    case ObjType::kSet:
      SetValue(e);
      break;
    case ObjType::kZSet:
      ZSetValue(e);
      break;
    case ObjType::kHash:
      HashValue(e);
      break;
    case ObjType::kStream:
      StreamValue(e);
      break;
  }
  MaybeFlush();
}

// Quicklist 2: every node a packed listpack (compressed nodes are written decompressed).
void RdbWriter::ListValue(const Entry* e) {
  if (e->encoding() == Encoding::kListPack) {
    Length(1);
    Length(rdb::kQuicklistNodePacked);
    String(LpView(static_cast<const unsigned char*>(e->obj)));
    return;
  }
  const auto* ql = static_cast<const QuickList*>(e->obj);
  Length(ql->NodeCount());
  LzfScratch scratch;
  for (const QuickListNode* n = ql->Head(); n != nullptr; n = n->next) {
    Length(rdb::kQuicklistNodePacked);
    String(LpView(QuickList::ReadableListPack(n, &scratch)));
    MaybeFlush();
  }
}

void RdbWriter::SetValue(const Entry* e) {
  SetObj s = SetOf(e);
  if (s.enc == Encoding::kIntSet) {
    unsigned char* blob = SetIntsetToBlob(s);
    String({reinterpret_cast<const char*>(blob), intset::Bytes(blob)});
    intset::Free(blob);
    return;
  }
  // Version 10 has no listpack sets: packed and table sets are written member by member.
  Length(SetSize(s));
  char buf[32];
  SetForEach(s, [&](const SetElem& el) {
    String(el.View(buf));
    MaybeFlush();
    return true;
  });
}

void RdbWriter::ZSetValue(const Entry* e) {
  ZSet z = ZSet::Of(e);
  if (z.IsListPack()) {
    // Already Valkey's listpack of member, score pairs.
    String(LpView(static_cast<const unsigned char*>(z.object())));
    return;
  }
  Length(z.Length());
  // Highest score first, as Valkey writes it: a loader inserting at the head stays O(1).
  size_t n = z.Length();
  ZSet::Iterator it = z.Seek(n - 1);
  for (; it.Valid(); it.Prev()) {
    String(it.Member());
    BinaryDouble(it.Score());
    MaybeFlush();
  }
}

void RdbWriter::HashValue(const Entry* e) {
  char fbuf[32], vbuf[32];
  if (e->encoding() == Encoding::kListPack) {
    // The in-memory pairpack is not a listpack: build one.
    unsigned char* lp = lp::New();
    hash::Iterator it(e);
    while (it.Next()) {
      lp = lp::Append(lp, it.field().View(fbuf));
      lp = lp::Append(lp, it.value().View(vbuf));
    }
    String(LpView(lp));
    lp::Free(lp);
    return;
  }
  // Fields whose TTL passed are left out; the others lose their TTL (not in version 10).
  bool ttls = hash::HasVolatileFields(e);
  int64_t now = NowMs();
  auto live = [&](std::string_view field) {
    if (!ttls) return true;
    int64_t at = hash::GetExpire(e, field);
    return at < 0 || at > now;
  };
  size_t count = 0;
  if (ttls) {
    hash::Iterator it(e);
    while (it.Next()) count += live(it.field().View(fbuf)) ? 1 : 0;
  } else {
    count = hash::Length(e);
  }
  Length(count);
  hash::Iterator it(e);
  while (it.Next()) {
    std::string_view f = it.field().View(fbuf);
    if (!live(f)) continue;
    String(f);
    String(it.value().View(vbuf));
    MaybeFlush();
  }
}

namespace {

// One entry read from a stream, copied (the iterator's views do not outlive a step).
struct StreamEntryCopy {
  StreamID id;
  std::vector<std::string> fv;  // field, value, ...
};

bool ReadEntry(StreamIterator& it, StreamEntryCopy* out) {
  if (!it.Next()) return false;
  out->id = it.id();
  out->fv.clear();
  StreamFieldReader r = it.Fields();
  std::string_view f, v;
  while (r.Next(&f, &v)) {
    out->fv.emplace_back(f);
    out->fv.emplace_back(v);
  }
  return true;
}

size_t EntryBytes(const StreamEntryCopy& e) {
  size_t n = 8;
  for (const std::string& s : e.fv) n += s.size() + 2;
  return n;
}

// Splits the entries into nodes as a stream with these limits would have them: the same
// walk twice (counting, then writing) gives the same cut points.
template <typename Fn>
void ForEachNode(const Stream& s, const RdbWriteOptions& opt, Fn&& fn) {
  StreamIterator it(s, kMinStreamId, kMaxStreamId, false);
  std::vector<StreamEntryCopy> node;
  StreamEntryCopy e;
  size_t bytes = 0;
  uint64_t max_entries =
      opt.stream_node_max_entries == 0 ? UINT64_MAX : opt.stream_node_max_entries;
  uint64_t max_bytes = opt.stream_node_max_bytes == 0 ? (1u << 30) : opt.stream_node_max_bytes;
  while (ReadEntry(it, &e)) {
    if (!node.empty() && (node.size() >= max_entries || bytes + EntryBytes(e) > max_bytes)) {
      fn(node);
      node.clear();
      bytes = 0;
    }
    bytes += EntryBytes(e);
    node.push_back(e);
  }
  if (!node.empty()) fn(node);
}

// A node's listpack in Valkey's stream layout: the master entry (count, deleted, fields of
// the first entry, 0), then each entry as flags, ID deltas, fields or values only, lp-count.
unsigned char* BuildNodeListpack(const std::vector<StreamEntryCopy>& node) {
  const StreamEntryCopy& master = node.front();
  size_t nfields = master.fv.size() / 2;
  unsigned char* lp = lp::New();
  lp = lp::AppendInt(lp, static_cast<int64_t>(node.size()));
  lp = lp::AppendInt(lp, 0);
  lp = lp::AppendInt(lp, static_cast<int64_t>(nfields));
  for (size_t i = 0; i < nfields; ++i) lp = lp::Append(lp, master.fv[2 * i]);
  lp = lp::AppendInt(lp, 0);
  for (const StreamEntryCopy& e : node) {
    size_t n = e.fv.size() / 2;
    bool same = n == nfields;
    for (size_t i = 0; same && i < n; ++i) same = e.fv[2 * i] == master.fv[2 * i];
    lp = lp::AppendInt(lp, same ? rdb::kStreamItemSameFields : 0);
    lp = lp::AppendInt(lp, static_cast<int64_t>(e.id.ms - master.id.ms));
    lp = lp::AppendInt(lp, static_cast<int64_t>(e.id.seq - master.id.seq));
    if (same) {
      for (size_t i = 0; i < n; ++i) lp = lp::Append(lp, e.fv[2 * i + 1]);
      lp = lp::AppendInt(lp, static_cast<int64_t>(n + 3));
    } else {
      lp = lp::AppendInt(lp, static_cast<int64_t>(n));
      for (const std::string& s : e.fv) lp = lp::Append(lp, s);
      lp = lp::AppendInt(lp, static_cast<int64_t>(2 * n + 4));
    }
  }
  return lp;
}

}  // namespace

void RdbWriter::StreamValue(const Entry* e) {
  const auto* s = static_cast<const Stream*>(e->obj);
  size_t nodes = 0;
  ForEachNode(*s, opt_, [&](const std::vector<StreamEntryCopy>&) { ++nodes; });
  Length(nodes);
  ForEachNode(*s, opt_, [&](const std::vector<StreamEntryCopy>& node) {
    std::string key;
    PutBE(&key, node.front().id.ms, 8);
    PutBE(&key, node.front().id.seq, 8);
    String(key);
    unsigned char* lp = BuildNodeListpack(node);
    String(LpView(lp));
    lp::Free(lp);
    MaybeFlush();
  });
  Length(s->length);
  Length(s->last_id.ms);
  Length(s->last_id.seq);
  Length(s->first_id.ms);
  Length(s->first_id.seq);
  Length(s->max_deleted_id.ms);
  Length(s->max_deleted_id.seq);
  Length(s->entries_added);
  Length(s->GroupCount());
  if (s->groups == nullptr) return;
  for (const auto& [name, g] : *s->groups) {
    String(name);
    Length(g->last_id.ms);
    Length(g->last_id.seq);
    Length(static_cast<uint64_t>(g->entries_read));
    Length(g->pel.size());
    for (const auto& [id, nack] : g->pel) {
      StreamId(id.ms, id.seq);
      MillisecondTime(nack.delivery_time);
      Length(nack.delivery_count);
    }
    Length(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      String(cname);
      MillisecondTime(c->seen_time);  // version 10 has no active-time
      Length(c->pel.size());
      for (const auto& [id, nack] : c->pel) StreamId(id.ms, id.seq);
    }
    MaybeFlush();
  }
}

bool RdbWriter::Flush() {
  if (sink_ != nullptr && !failed_) {
    if (!buf_.empty() && !sink_->Consume(&buf_)) {
      failed_ = true;
      error_ = "snapshot output failed";
    }
    buf_.clear();
    return !failed_;
  }
  if (fd_ < 0 || failed_) return !failed_;
  crc_ = Crc64(crc_, buf_.data(), buf_.size());
  if (!WriteAll(fd_, buf_.data(), buf_.size())) {
    failed_ = true;
    error_ = strerror(errno);
    return false;
  }
  buf_.clear();
  return true;
}

uint64_t RdbWriter::Crc() {
  if (fd_ < 0) return Crc64(0, buf_.data(), buf_.size());
  Flush();
  return crc_;
}

void WriteRdbHeader(RdbWriter& w, const RdbAuxInfo& aux) {
  char magic[16];
  snprintf(magic, sizeof(magic), "REDIS%04d", rdb::kWriteVersion);
  w.Raw(magic, 9);
  auto aux_field = [&](std::string_view k, std::string_view v) {
    w.Byte(rdb::kOpAux);
    w.String(k);
    w.String(v);
  };
  aux_field("redis-ver", aux.version);
  aux_field("redis-bits", sizeof(void*) == 8 ? "64" : "32");
  aux_field("ctime", FormatInt64(static_cast<int64_t>(time(nullptr))));
  aux_field("used-mem", FormatInt64(aux.used_mem));
  aux_field("aof-base", aux.aof_base ? "1" : "0");
  if (!aux.repl_id.empty()) {
    aux_field("repl-stream-db", "0");
    aux_field("repl-id", aux.repl_id);
    aux_field("repl-offset", FormatInt64(aux.repl_offset));
  }
  for (const std::string& code : aux.functions) {
    w.Byte(rdb::kOpFunction2);
    w.String(code);
  }
}

void WriteRdbSelectDb(RdbWriter& w, int index, uint64_t size, uint64_t volatile_count,
                      bool resize) {
  w.Byte(rdb::kOpSelectDb);
  w.Length(static_cast<uint64_t>(index));
  if (!resize) return;
  w.Byte(rdb::kOpResizeDb);
  w.Length(size);
  w.Length(volatile_count);
}

void WriteRdbKeyHeader(RdbWriter& w, const Entry* e) {
  if (e->expire_ms() != 0) {
    w.Byte(rdb::kOpExpireTimeMs);
    w.MillisecondTime(e->expire_ms());
  }
  w.Byte(RdbWriter::TypeOf(e));
  w.String(e->Key());
}

void WriteRdbKey(RdbWriter& w, const Entry* e) {
  WriteRdbKeyHeader(w, e);
  w.Value(e);
}

bool WriteRdb(int fd, const std::vector<Db*>& dbs, const RdbWriteOptions& options,
              const RdbAuxInfo& aux, std::string* error) {
  RdbWriter w(fd, options);
  WriteRdbHeader(w, aux);
  for (Db* db : dbs) {
    if (db->Size() == 0) continue;
    WriteRdbSelectDb(w, db->index(), db->Size(), db->VolatileCount(), true);
    db->ForEach([&](Entry* e) {
      if (!w.failed()) WriteRdbKey(w, e);
    });
  }
  w.Byte(rdb::kOpEof);
  uint64_t crc = options.checksum ? w.Crc() : 0;
  std::string tail;
  PutLE(&tail, crc, 8);
  w.Raw(tail.data(), tail.size());
  if (!w.Flush()) {
    *error = w.error();
    return false;
  }
  return true;
}

namespace {

// DUMP-style payloads end with the RDB version (2 bytes LE) and the CRC64 of all before it.
std::string WithPayloadFooter(std::string out) {
  PutLE(&out, rdb::kWriteVersion, 2);
  PutLE(&out, Crc64(0, out.data(), out.size()), 8);
  return out;
}

}  // namespace

std::string DumpPayload(const Entry* e, const RdbWriteOptions& options) {
  RdbWriter w(-1, options);
  w.Byte(RdbWriter::TypeOf(e));
  w.Value(e);
  return WithPayloadFooter(std::move(w.buffer()));
}

RdbWriteOptions RdbWriteOptionsFrom(const Config& c) {
  RdbWriteOptions opt;
  opt.compress = c.rdbcompression;
  opt.checksum = c.rdbchecksum;
  opt.stream_node_max_entries = static_cast<uint64_t>(c.stream_node_max_entries);
  opt.stream_node_max_bytes = static_cast<uint64_t>(c.stream_node_max_bytes);
  return opt;
}

std::string FunctionsPayload(const std::vector<std::string>& codes) {
  RdbWriter w(-1, RdbWriteOptions{});
  for (const std::string& code : codes) {
    w.Byte(rdb::kOpFunction2);
    w.String(code);
  }
  return WithPayloadFooter(std::move(w.buffer()));
}

}  // namespace vireo
