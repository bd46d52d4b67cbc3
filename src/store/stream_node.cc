#include "store/stream_node.h"

#include <cstring>

#include "common/numbers.h"
#include "common/varint.h"
#include "store/memory.h"

namespace vireo {
namespace {

[[maybe_unused]] constexpr unsigned char kFlagDeleted = 0x80;  // documents the layout
constexpr unsigned char kFlagOwnFields = 0x40;
constexpr unsigned char kFlagSeq = 0x20;
constexpr unsigned kDeltaEscape = 31;
constexpr unsigned char kTagDecimal = 0xC0;
constexpr unsigned char kTagPosInt = 0xE0;
constexpr unsigned char kTagNegInt = 0xE1;
constexpr unsigned char kTagLongStr = 0xE2;
constexpr unsigned char kTagMasterRef = 0xF0;
constexpr unsigned kMaxMasterRefs = 16;
constexpr unsigned kMaxDecimalDigits = 19;  // 10^19 - 1 < 2^64

// How a value is stored: as an integer, a short decimal, or bytes.
struct ValueForm {
  enum Kind : uint8_t { kInt, kDecimal, kString } kind;
  bool negative = false;
  uint8_t decimals = 0;
  int64_t ival = 0;
  uint64_t mantissa = 0;
};

// "-?(0|[1-9][0-9]*)\.[0-9]{1,15}" with at most 19 digits: stored as sign, mantissa and the
// number of decimals, which gives back exactly the same text.
bool ParseDecimal(std::string_view s, ValueForm* f) {
  size_t i = 0;
  f->negative = !s.empty() && s[0] == '-';
  if (f->negative) ++i;
  size_t int_start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  size_t int_len = i - int_start;
  if (int_len == 0 || (int_len > 1 && s[int_start] == '0')) return false;
  if (i >= s.size() || s[i] != '.') return false;
  size_t frac_start = ++i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  size_t frac_len = i - frac_start;
  if (i != s.size() || frac_len == 0 || frac_len > 15) return false;
  if (int_len + frac_len > kMaxDecimalDigits) return false;
  uint64_t m = 0;
  for (size_t j = int_start; j < s.size(); ++j) {
    if (s[j] != '.') m = m * 10 + static_cast<uint64_t>(s[j] - '0');
  }
  f->mantissa = m;
  f->decimals = static_cast<uint8_t>(frac_len);
  return true;
}

ValueForm Classify(std::string_view s) {
  ValueForm f{ValueForm::kString};
  if (s.size() <= 20 && ParseInt64(s, &f.ival)) {
    f.kind = ValueForm::kInt;
  } else if (s.size() <= 22 && ParseDecimal(s, &f)) {
    f.kind = ValueForm::kDecimal;
  }
  return f;
}

size_t FormSize(const ValueForm& f, std::string_view s) {
  switch (f.kind) {
    case ValueForm::kInt:
      if (f.ival >= 0 && f.ival < 128) return 1;
      return 1 + VarintSize(f.ival >= 0 ? static_cast<uint64_t>(f.ival)
                                        : ~static_cast<uint64_t>(f.ival));
    case ValueForm::kDecimal:
      return 1 + VarintSize(f.mantissa);
    case ValueForm::kString:
      break;
  }
  if (s.size() < 64) return 1 + s.size();
  return 1 + VarintSize(s.size()) + s.size();
}

unsigned char* PutForm(const ValueForm& f, std::string_view s, unsigned char* p) {
  switch (f.kind) {
    case ValueForm::kInt:
      if (f.ival >= 0 && f.ival < 128) {
        *p++ = static_cast<unsigned char>(f.ival);
      } else if (f.ival >= 0) {
        *p++ = kTagPosInt;
        p = PutVarint(p, static_cast<uint64_t>(f.ival));
      } else {
        *p++ = kTagNegInt;
        p = PutVarint(p, ~static_cast<uint64_t>(f.ival));
      }
      return p;
    case ValueForm::kDecimal:
      *p++ = static_cast<unsigned char>(kTagDecimal | (f.negative ? 0x10 : 0) | f.decimals);
      return PutVarint(p, f.mantissa);
    case ValueForm::kString:
      break;
  }
  if (s.size() < 64) {
    *p++ = static_cast<unsigned char>(0x80 | s.size());
  } else {
    *p++ = kTagLongStr;
    p = PutVarint(p, s.size());
  }
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

size_t FormatUnsigned(char* buf, uint64_t v) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (size_t i = 0; i < n; ++i) buf[i] = tmp[n - 1 - i];
  return n;
}

size_t FormatDecimal(char* buf, bool negative, unsigned decimals, uint64_t mantissa) {
  char digits[24];
  size_t n = FormatUnsigned(digits, mantissa);
  size_t want = decimals + 1;  // at least one digit before the point
  size_t len = 0;
  if (negative) buf[len++] = '-';
  size_t pad = n < want ? want - n : 0;
  size_t total = n + pad;
  for (size_t i = 0; i < total; ++i) {
    if (i == total - decimals) buf[len++] = '.';
    buf[len++] = i < pad ? '0' : digits[i - pad];
  }
  return len;
}

// Whether the encoded element at p holds exactly s.
bool ValueEquals(const unsigned char* p, std::string_view s) {
  char buf[kStreamValueBuf];
  std::string_view v;
  StreamDecodeValue(p, buf, &v);
  return v == s;
}

// The master field whose encoding starts at index k, walking from the first one.
const unsigned char* MasterField(const unsigned char* master, unsigned k) {
  while (k-- > 0) master = StreamSkipValue(master);
  return master;
}

// Index (< 16) of the master field equal to field, or -1.
int MasterRef(const unsigned char* master, uint32_t master_count, std::string_view field) {
  const unsigned char* p = master;
  uint32_t limit = master_count < kMaxMasterRefs ? master_count : kMaxMasterRefs;
  for (uint32_t k = 0; k < limit; ++k) {
    if (ValueEquals(p, field)) return static_cast<int>(k);
    p = StreamSkipValue(p);
  }
  return -1;
}

// Whether the fields of fv are the master fields, in order.
bool SameFields(const unsigned char* master, uint32_t master_count, const std::string_view* fv,
                size_t pairs) {
  if (pairs != master_count) return false;
  const unsigned char* p = master;
  for (size_t i = 0; i < pairs; ++i) {
    if (!ValueEquals(p, fv[2 * i])) return false;
    p = StreamSkipValue(p);
  }
  return true;
}

uint64_t ZigZag(uint64_t v) {
  auto s = static_cast<int64_t>(v);
  return (v << 1) ^ static_cast<uint64_t>(s >> 63);
}

uint64_t UnZigZag(uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

// The ID header of an entry following prev (whose own ms delta was prev_delta).
struct IdDelta {
  uint64_t ms;      // ms delta to prev
  uint64_t change;  // zigzag(ms - prev_delta)
  uint64_t seq;
};

IdDelta DeltaOf(StreamID prev, uint64_t prev_delta, StreamID id) {
  uint64_t ms = id.ms - prev.ms;
  return {ms, ZigZag(ms - prev_delta), ms == 0 ? id.seq - prev.seq - 1 : id.seq};
}

size_t HeaderSize(IdDelta d) {
  return 1 + (d.change >= kDeltaEscape ? VarintSize(d.change - kDeltaEscape) : 0) +
         (d.seq != 0 ? VarintSize(d.seq) : 0);
}

unsigned char* PutHeader(unsigned char* p, IdDelta d, bool own) {
  unsigned char flags =
      static_cast<unsigned char>((own ? kFlagOwnFields : 0) | (d.seq != 0 ? kFlagSeq : 0));
  if (d.change >= kDeltaEscape) {
    *p++ = static_cast<unsigned char>(flags | kDeltaEscape);
    p = PutVarint(p, d.change - kDeltaEscape);
  } else {
    *p++ = static_cast<unsigned char>(flags | d.change);
  }
  return d.seq != 0 ? PutVarint(p, d.seq) : p;
}

// Bytes of the entry body: values only, or count + pairs with master references.
size_t BodySize(const unsigned char* master, uint32_t master_count, bool own,
                const std::string_view* fv, size_t pairs) {
  size_t n = own ? VarintSize(pairs) : 0;
  for (size_t i = 0; i < pairs; ++i) {
    if (own) {
      n += MasterRef(master, master_count, fv[2 * i]) >= 0
               ? 1
               : FormSize(Classify(fv[2 * i]), fv[2 * i]);
    }
    n += FormSize(Classify(fv[2 * i + 1]), fv[2 * i + 1]);
  }
  return n;
}

unsigned char* PutBody(unsigned char* p, const unsigned char* master, uint32_t master_count,
                       bool own, const std::string_view* fv, size_t pairs) {
  if (own) p = PutVarint(p, pairs);
  for (size_t i = 0; i < pairs; ++i) {
    if (own) {
      int ref = MasterRef(master, master_count, fv[2 * i]);
      if (ref >= 0) {
        *p++ = static_cast<unsigned char>(kTagMasterRef | ref);
      } else {
        p = PutForm(Classify(fv[2 * i]), fv[2 * i], p);
      }
    }
    p = PutForm(Classify(fv[2 * i + 1]), fv[2 * i + 1], p);
  }
  return p;
}

StreamNode* Reserve(StreamNode* n, size_t need) {
  if (n->used + need <= n->cap) return n;
  size_t want = n->used + need;
  want += want / 4 + 16;  // room for a few more appends
  n = static_cast<StreamNode*>(ZRealloc(n, sizeof(StreamNode) + want));
  n->cap = static_cast<uint32_t>(ZMallocSize(n) - sizeof(StreamNode));
  return n;
}

// The master section: varint count, then the encoded field names.
const unsigned char* ReadMaster(const unsigned char* data, uint32_t* count) {
  uint64_t c;
  const unsigned char* p = GetVarint(data, &c);
  *count = static_cast<uint32_t>(c);
  return p;
}

StreamID FirstPrev(StreamID base) { return {base.ms, base.seq - 1}; }

}  // namespace

size_t StreamValueSize(std::string_view s) { return FormSize(Classify(s), s); }

unsigned char* StreamEncodeValue(std::string_view s, unsigned char* out) {
  return PutForm(Classify(s), s, out);
}

const unsigned char* StreamDecodeValue(const unsigned char* p, char* buf, std::string_view* out) {
  unsigned char tag = *p++;
  if (tag < 0x80) {
    *out = {buf, FormatUnsigned(buf, tag)};
    return p;
  }
  if (tag < 0xC0) {
    size_t len = tag & 0x3F;
    *out = {reinterpret_cast<const char*>(p), len};
    return p + len;
  }
  uint64_t v;
  if (tag < 0xE0) {
    p = GetVarint(p, &v);
    *out = {buf, FormatDecimal(buf, (tag & 0x10) != 0, tag & 0x0F, v)};
    return p;
  }
  if (tag == kTagPosInt) {
    p = GetVarint(p, &v);
    *out = {buf, FormatUnsigned(buf, v)};
    return p;
  }
  if (tag == kTagNegInt) {
    p = GetVarint(p, &v);
    *out = {buf, FormatInt64To(buf, static_cast<int64_t>(~v))};
    return p;
  }
  // kTagLongStr (master references are resolved by StreamFieldReader).
  p = GetVarint(p, &v);
  *out = {reinterpret_cast<const char*>(p), static_cast<size_t>(v)};
  return p + v;
}

const unsigned char* StreamSkipValue(const unsigned char* p) {
  unsigned char tag = *p;
  if (tag < 0x80) return p + 1;
  if (tag < 0xC0) return p + 1 + (tag & 0x3F);
  if (tag >= kTagMasterRef) return p + 1;
  if (tag == kTagLongStr) {
    uint64_t len;
    p = GetVarint(p + 1, &len);
    return p + len;
  }
  return SkipVarint(p + 1);
}

StreamNode* StreamNodeCreate(StreamID base, StreamID id, const std::string_view* fv, size_t pairs) {
  size_t master_bytes = VarintSize(pairs);
  for (size_t i = 0; i < pairs; ++i) master_bytes += StreamValueSize(fv[2 * i]);
  IdDelta d = DeltaOf(FirstPrev(base), 0, id);
  size_t entry = HeaderSize(d);
  for (size_t i = 0; i < pairs; ++i) entry += StreamValueSize(fv[2 * i + 1]);
  size_t want = master_bytes + entry;
  want += want + 32;  // the next entries usually look alike
  auto* n = static_cast<StreamNode*>(ZMalloc(sizeof(StreamNode) + want));
  n->cap = static_cast<uint32_t>(ZMallocSize(n) - sizeof(StreamNode));
  unsigned char* p = PutVarint(n->data, pairs);
  for (size_t i = 0; i < pairs; ++i) p = StreamEncodeValue(fv[2 * i], p);
  p = PutHeader(p, d, false);
  for (size_t i = 0; i < pairs; ++i) p = StreamEncodeValue(fv[2 * i + 1], p);
  n->used = static_cast<uint32_t>(p - n->data);
  n->live = 1;
  n->deleted = 0;
  n->last = id;
  n->last_delta = d.ms;
  return n;
}

StreamNode* StreamNodeAppend(StreamNode* n, StreamID base, StreamID id, const std::string_view* fv,
                             size_t pairs) {
  uint32_t master_count;
  const unsigned char* master = ReadMaster(n->data, &master_count);
  bool own = !SameFields(master, master_count, fv, pairs);
  IdDelta d =
      n->total() == 0 ? DeltaOf(FirstPrev(base), 0, id) : DeltaOf(n->last, n->last_delta, id);
  size_t need = HeaderSize(d) + BodySize(master, master_count, own, fv, pairs);
  size_t master_off = static_cast<size_t>(master - n->data);
  n = Reserve(n, need);
  master = n->data + master_off;
  unsigned char* p = PutHeader(n->data + n->used, d, own);
  p = PutBody(p, master, master_count, own, fv, pairs);
  n->used = static_cast<uint32_t>(p - n->data);
  ++n->live;
  n->last = id;
  n->last_delta = d.ms;
  return n;
}

StreamNode* StreamNodeShrink(StreamNode* n) {
  if (n->cap == n->used) return n;
  n = static_cast<StreamNode*>(ZRealloc(n, sizeof(StreamNode) + n->used));
  n->cap = static_cast<uint32_t>(ZMallocSize(n) - sizeof(StreamNode));
  return n;
}

void StreamNodeFree(StreamNode* n) { ZFree(n); }

StreamNode* StreamNodeCopy(const StreamNode* n) {
  auto* c = static_cast<StreamNode*>(ZMalloc(sizeof(StreamNode) + n->used));
  std::memcpy(c, n, sizeof(StreamNode) + n->used);
  c->cap = static_cast<uint32_t>(ZMallocSize(c) - sizeof(StreamNode));
  return c;
}

size_t StreamNodeAllocSize(const StreamNode* n) { return ZMallocSize(const_cast<StreamNode*>(n)); }

StreamNodeCursor::StreamNodeCursor(StreamNode* node, StreamID base) {
  master_ = ReadMaster(node->data, &master_count_);
  const unsigned char* p = master_;
  for (uint32_t i = 0; i < master_count_; ++i) p = StreamSkipValue(p);
  p_ = p;
  end_ = node->data + node->used;
  prev_ = FirstPrev(base);
}

bool StreamNodeCursor::Next(StreamEntryRef* e) {
  if (p_ >= end_) return false;
  e->flags = const_cast<unsigned char*>(p_);
  unsigned char b = *p_++;
  uint64_t change = b & 0x1F;
  if (change == kDeltaEscape) {
    uint64_t more;
    p_ = GetVarint(p_, &more);
    change += more;
  }
  uint64_t ms = prev_delta_ + UnZigZag(change);
  prev_delta_ = ms;
  uint64_t seq = 0;
  if (b & kFlagSeq) p_ = GetVarint(p_, &seq);
  if (ms == 0) {
    e->id = {prev_.ms, prev_.seq + seq + 1};
  } else {
    e->id = {prev_.ms + ms, seq};
  }
  prev_ = e->id;
  uint64_t values;
  if (b & kFlagOwnFields) {
    uint64_t count;
    p_ = GetVarint(p_, &count);
    e->num_fields = static_cast<uint32_t>(count);
    values = 2 * count;
  } else {
    e->num_fields = master_count_;
    values = master_count_;
  }
  e->body = p_;
  while (values-- > 0) p_ = StreamSkipValue(p_);
  return true;
}

StreamFieldReader::StreamFieldReader(const StreamNodeCursor& cursor, const StreamEntryRef& e)
    : p_(e.body),
      master_(cursor.master()),
      master_field_(cursor.master()),
      left_(e.num_fields),
      own_(e.own_fields()) {}

bool StreamFieldReader::Next(std::string_view* field, std::string_view* value) {
  if (left_ == 0) return false;
  --left_;
  if (own_) {
    if (*p_ >= kTagMasterRef) {
      StreamDecodeValue(MasterField(master_, *p_ & 0x0F), fbuf_, field);
      ++p_;
    } else {
      p_ = StreamDecodeValue(p_, fbuf_, field);
    }
  } else {
    master_field_ = StreamDecodeValue(master_field_, fbuf_, field);
  }
  p_ = StreamDecodeValue(p_, vbuf_, value);
  return true;
}

}  // namespace vireo
