// ReadRdbValue: one value of any RDB type, rebuilt through the store's public APIs so the
// in-memory encodings follow this server's thresholds whatever the file used.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/numbers.h"
#include "persistence/rdb_format.h"
#include "persistence/rdb_packed.h"
#include "persistence/rdb_reader.h"
#include "store/intset.h"
#include "store/listpack.h"
#include "store/value.h"

namespace vireo {
namespace {

using rdb::ItemFn;

// Reads a blob string and walks its elements with walker (ziplist, listpack, zipmap).
bool ReadPacked(RdbReader& r, bool (*walker)(std::string_view, const ItemFn&, std::string*),
                const ItemFn& fn) {
  std::string blob, why;
  size_t at = r.offset();
  if (!r.String(&blob)) return false;
  if (!walker(blob, fn, &why)) {
    return r.Fail(why + " (blob at offset " + std::to_string(at) + ")");
  }
  return true;
}

// --- lists -----------------------------------------------------------------------------------

struct ListBuilder {
  Entry* e;
  const ListLimits& lim;
  bool Push(std::string_view s) {
    ListGrowing(e, lim, 1, s.size());
    ListPush(e, s, ListEnd::kTail, lim);
    return true;
  }
};

bool ReadList(RdbReader& r, uint8_t type, Entry* e, const RdbLoadLimits& lim) {
  ListInit(e);
  ListBuilder b{e, lim.list};
  ItemFn push = [&](std::string_view s) { return b.Push(s); };
  std::string s;
  uint64_t n;
  switch (type) {
    case rdb::kTypeList:
      if (!r.Length(&n)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        if (!r.String(&s)) return false;
        b.Push(s);
      }
      return true;
    case rdb::kTypeListZiplist:
      return ReadPacked(r, rdb::ForEachZiplistItem, push);
    case rdb::kTypeListQuicklist:
      if (!r.Length(&n)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        if (!ReadPacked(r, rdb::ForEachZiplistItem, push)) return false;
      }
      return true;
    default:  // quicklist 2
      if (!r.Length(&n)) return false;
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t container;
        if (!r.Length(&container)) return false;
        if (container == rdb::kQuicklistNodePlain) {
          if (!r.String(&s)) return false;
          b.Push(s);
        } else if (container == rdb::kQuicklistNodePacked) {
          if (!ReadPacked(r, rdb::ForEachListpackItem, push)) return false;
        } else {
          return r.Fail("unknown quicklist node container " + std::to_string(container));
        }
      }
      return true;
  }
}

// --- sets ------------------------------------------------------------------------------------

bool ReadSet(RdbReader& r, uint8_t type, Entry* e, const RdbLoadLimits& lim, size_t hint) {
  bool created = false;
  SetObj set;
  bool dup = false;
  auto add = [&](std::string_view m) {
    if (!created) {
      set = SetCreate(m, hint, lim.set);
      created = true;
    }
    bool added = SetAdd(&set, m, lim.set);
    PutSet(e, set);  // after every add: a failure later frees what was built
    if (!added) dup = true;
    return added;
  };
  std::string s;
  if (type == rdb::kTypeSet) {
    uint64_t n;
    if (!r.Length(&n)) return false;
    set = SetObj{};
    for (uint64_t i = 0; i < n; ++i) {
      if (!r.String(&s)) return false;
      if (i == 0) hint = static_cast<size_t>(std::min<uint64_t>(n, 1u << 20));
      if (!add(s)) return r.Fail("duplicate set member");
    }
    return true;
  }
  if (type == rdb::kTypeSetIntset) {
    size_t at = r.offset();
    if (!r.String(&s)) return false;
    const auto* blob = reinterpret_cast<const unsigned char*>(s.data());
    if (!intset::Validate(blob, s.size(), true)) {
      return r.Fail("invalid intset (blob at offset " + std::to_string(at) + ")");
    }
    size_t n = intset::Length(blob);
    hint = n;
    char buf[32];
    for (size_t i = 0; i < n; ++i) {
      if (!add({buf, FormatInt64To(buf, intset::Get(blob, i))})) {
        return r.Fail("duplicate set member");
      }
    }
    return true;
  }
  bool ok = ReadPacked(r, rdb::ForEachListpackItem, add);
  if (dup) return r.Fail("duplicate set member");
  return ok;
}

// --- sorted sets -----------------------------------------------------------------------------

struct ZSetBuilder {
  Entry* e;
  const ZSetLimits& lim;
  bool created = false;
  ZSet z;
  std::string error;
  bool Add(std::string_view member, double score) {
    if (std::isnan(score)) {
      error = "sorted set score is NaN";
      return false;
    }
    if (!created) {
      z = ZSet::Create(member.size(), lim);
      created = true;
    }
    double out;
    ZAddResult res = z.Add(member, score, 0, lim, &out);
    z.StoreTo(e);
    if (res != ZAddResult::kAdded) {
      error = "duplicate sorted set member";
      return false;
    }
    return true;
  }
};

bool ReadZSet(RdbReader& r, uint8_t type, Entry* e, const RdbLoadLimits& lim) {
  ZSetBuilder b{e, lim.zset};
  std::string member;
  if (type == rdb::kTypeZSet || type == rdb::kTypeZSet2) {
    uint64_t n;
    if (!r.Length(&n)) return false;
    for (uint64_t i = 0; i < n; ++i) {
      double score;
      if (!r.String(&member)) return false;
      if (!(type == rdb::kTypeZSet2 ? r.BinaryDouble(&score) : r.TextDouble(&score))) return false;
      if (!b.Add(member, score)) return r.Fail(b.error);
    }
    return true;
  }
  bool have_member = false;
  ItemFn pair = [&](std::string_view s) {
    if (!have_member) {
      member.assign(s);
      have_member = true;
      return true;
    }
    have_member = false;
    double score;
    if (!ParseDouble(s, &score)) {
      b.error = "invalid sorted set score";
      return false;
    }
    return b.Add(member, score);
  };
  bool ok = ReadPacked(
      r, type == rdb::kTypeZSetZiplist ? rdb::ForEachZiplistItem : rdb::ForEachListpackItem, pair);
  if (!ok) return b.error.empty() ? false : r.Fail(b.error);
  if (have_member) return r.Fail("sorted set listpack with an odd number of elements");
  return true;
}

// --- hashes ----------------------------------------------------------------------------------

bool ReadHash(RdbReader& r, uint8_t type, Entry* e, const RdbLoadLimits& lim) {
  hash::InitEmpty(e);
  std::string field, value;
  if (type == rdb::kTypeHash) {
    uint64_t n;
    if (!r.Length(&n)) return false;
    for (uint64_t i = 0; i < n; ++i) {
      if (!r.String(&field) || !r.String(&value)) return false;
      if (!hash::Set(e, field, value, lim.hash)) return r.Fail("duplicate hash field");
    }
    return true;
  }
  bool have_field = false, dup = false;
  ItemFn pair = [&](std::string_view s) {
    if (!have_field) {
      field.assign(s);
      have_field = true;
      return true;
    }
    have_field = false;
    if (!hash::Set(e, field, s, lim.hash)) {
      dup = true;
      return false;
    }
    return true;
  };
  auto walker = type == rdb::kTypeHashZipmap    ? rdb::ForEachZipmapItem
                : type == rdb::kTypeHashZiplist ? rdb::ForEachZiplistItem
                                                : rdb::ForEachListpackItem;
  bool ok = ReadPacked(r, walker, pair);
  if (dup) return r.Fail("duplicate hash field");
  if (!ok) return false;
  if (have_field) return r.Fail("hash blob with an odd number of elements");
  return true;
}

// --- streams ---------------------------------------------------------------------------------

// Walks a stream node's listpack (Valkey's layout, see rdb_writer.cc) and appends its live
// entries.
bool ReadStreamNode(RdbReader& r, Stream* s, StreamID master, std::string& blob,
                    const RdbLoadLimits& lim) {
  auto* lp = reinterpret_cast<unsigned char*>(blob.data());
  if (!lp::Validate(lp, blob.size(), true)) return r.Fail("invalid stream node listpack");
  lp::Ptr p = lp::First(lp);
  if (p == nullptr) return r.Fail("empty listpack inside stream");
  char buf[32];
  std::string_view item;
  auto next = [&]() {
    if (p == nullptr) return false;
    item = lp::Get(p).View(buf);
    p = lp::Next(lp, p);
    return true;
  };
  int64_t ival;
  auto next_int = [&](int64_t* v) { return next() && ParseInt64(item, v); };
  int64_t count, deleted, nmaster;
  if (!next_int(&count) || !next_int(&deleted) || !next_int(&nmaster) || nmaster < 0) {
    return r.Fail("bad stream node master entry");
  }
  std::vector<std::string> master_fields;
  for (int64_t i = 0; i < nmaster; ++i) {
    if (!next()) return r.Fail("bad stream node master entry");
    master_fields.emplace_back(item);
  }
  if (!next_int(&ival) || ival != 0) return r.Fail("bad stream node master terminator");
  int64_t live = 0, dead = 0;
  std::vector<std::string> fv;
  std::vector<std::string_view> views;
  while (p != nullptr) {
    int64_t flags, ms_diff, seq_diff, nfields, lp_count;
    if (!next_int(&flags) || !next_int(&ms_diff) || !next_int(&seq_diff)) {
      return r.Fail("bad stream entry");
    }
    StreamID id{master.ms + static_cast<uint64_t>(ms_diff),
                master.seq + static_cast<uint64_t>(seq_diff)};
    fv.clear();
    bool same = (flags & rdb::kStreamItemSameFields) != 0;
    if (same) {
      nfields = nmaster;
      for (int64_t i = 0; i < nfields; ++i) {
        if (!next()) return r.Fail("bad stream entry");
        fv.push_back(master_fields[static_cast<size_t>(i)]);
        fv.emplace_back(item);
      }
    } else {
      if (!next_int(&nfields) || nfields < 0) return r.Fail("bad stream entry");
      for (int64_t i = 0; i < 2 * nfields; ++i) {
        if (!next()) return r.Fail("bad stream entry");
        fv.emplace_back(item);
      }
    }
    if (!next_int(&lp_count) || lp_count != (same ? nfields + 3 : 2 * nfields + 4)) {
      return r.Fail("bad stream entry back count");
    }
    if (flags & rdb::kStreamItemDeleted) {
      ++dead;
      continue;
    }
    ++live;
    views.assign(fv.begin(), fv.end());
    StreamID added;
    StreamAddId want{StreamAddId::kExplicit, id};
    StreamAddStatus st =
        StreamAppend(s, want, 0, views.data(), static_cast<size_t>(nfields), lim.stream, &added);
    if (st != StreamAddStatus::kOk) return r.Fail("stream entry IDs not in order");
  }
  if (live != count || dead != deleted) return r.Fail("stream node entry counts mismatch");
  return true;
}

bool ReadStream(RdbReader& r, uint8_t type, Entry* e, const RdbLoadLimits& lim) {
  auto* s = new Stream();
  e->obj = s;
  e->SetType(ObjType::kStream, Encoding::kStream);
  uint64_t nodes;
  if (!r.Length(&nodes)) return false;
  std::string key, blob;
  for (uint64_t i = 0; i < nodes; ++i) {
    if (!r.String(&key)) return false;
    if (key.size() != 16) return r.Fail("stream node key is not a stream ID");
    StreamID master;
    for (int k = 0; k < 8; ++k) master.ms = (master.ms << 8) | static_cast<unsigned char>(key[k]);
    for (int k = 8; k < 16; ++k) {
      master.seq = (master.seq << 8) | static_cast<unsigned char>(key[k]);
    }
    if (!r.String(&blob) || !ReadStreamNode(r, s, master, blob, lim)) return false;
  }
  uint64_t length;
  StreamID last, first, max_deleted;
  uint64_t entries_added;
  if (!r.Length(&length) || !r.Length(&last.ms) || !r.Length(&last.seq)) return false;
  if (length != s->length) return r.Fail("stream length does not match its entries");
  StreamID real_last = s->last_id;
  if (type >= rdb::kTypeStreamListpacks2) {
    if (!r.Length(&first.ms) || !r.Length(&first.seq) || !r.Length(&max_deleted.ms) ||
        !r.Length(&max_deleted.seq) || !r.Length(&entries_added)) {
      return false;
    }
  } else {
    StreamFirstEntryId(*s, &first);
    entries_added = s->length;
  }
  if (s->length > 0 && last < real_last) return r.Fail("stream last ID below its last entry");
  s->last_id = last;
  s->first_id = first;
  s->max_deleted_id = max_deleted;
  s->entries_added = entries_added;
  uint64_t ngroups;
  if (!r.Length(&ngroups)) return false;
  std::string name;
  for (uint64_t gi = 0; gi < ngroups; ++gi) {
    StreamID glast;
    if (!r.String(&name) || !r.Length(&glast.ms) || !r.Length(&glast.seq)) return false;
    int64_t entries_read;
    if (type >= rdb::kTypeStreamListpacks2) {
      uint64_t v;
      if (!r.Length(&v)) return false;
      entries_read = static_cast<int64_t>(v);
    } else {
      entries_read = StreamEstimateDistance(*s, glast);
    }
    StreamGroup* g = s->CreateGroup(name, glast, entries_read);
    if (g == nullptr) return r.Fail("duplicate stream consumer group");
    uint64_t npel;
    if (!r.Length(&npel)) return false;
    for (uint64_t k = 0; k < npel; ++k) {
      StreamID id;
      StreamNack nack;
      if (!r.StreamId(&id) || !r.MillisecondTime(&nack.delivery_time) ||
          !r.Length(&nack.delivery_count)) {
        return false;
      }
      if (!g->pel.emplace(id, nack).second) return r.Fail("duplicate stream PEL entry");
    }
    uint64_t nconsumers;
    if (!r.Length(&nconsumers)) return false;
    for (uint64_t ci = 0; ci < nconsumers; ++ci) {
      int64_t seen, active;
      if (!r.String(&name) || !r.MillisecondTime(&seen)) return false;
      active = seen;
      if (type >= rdb::kTypeStreamListpacks3 && !r.MillisecondTime(&active)) return false;
      StreamConsumer* c = g->CreateConsumer(name, seen);
      if (c == nullptr) return r.Fail("duplicate stream consumer");
      c->seen_time = seen;
      c->active_time = active;
      uint64_t n;
      if (!r.Length(&n)) return false;
      for (uint64_t k = 0; k < n; ++k) {
        StreamID id;
        if (!r.StreamId(&id)) return false;
        auto it = g->pel.find(id);
        if (it == g->pel.end() || it->second.consumer != nullptr) {
          return r.Fail("consumer PEL entry not in its group's PEL");
        }
        it->second.consumer = c;
        c->pel.emplace(id, &it->second);
      }
    }
    for (const auto& [id, nack] : g->pel) {
      if (nack.consumer == nullptr) return r.Fail("group PEL entry without a consumer");
    }
  }
  return true;
}

bool IsEmptyCollection(const Entry* e) {
  switch (e->type()) {
    case ObjType::kList:
      return ListLength(e) == 0;
    case ObjType::kSet:
      return e->obj == nullptr || SetSize(SetOf(e)) == 0;
    case ObjType::kZSet:
      return e->obj == nullptr || ZSet::Of(e).Length() == 0;
    case ObjType::kHash:
      return hash::Length(e) == 0;
    default:
      return false;
  }
}

}  // namespace

RdbValueStatus ReadRdbValue(RdbReader& r, uint8_t type, std::string_view key,
                            const RdbLoadLimits& limits, Entry** out, bool with_expire) {
  Entry* e = NewEntry(key, with_expire);
  bool ok;
  bool collection = true;
  switch (type) {
    case rdb::kTypeString: {
      std::string_view s;
      std::string decoded;
      ok = r.StringRef(&s, &decoded);
      if (ok) SetStringValue(e, s);
      collection = false;
      break;
    }
    case rdb::kTypeList:
    case rdb::kTypeListZiplist:
    case rdb::kTypeListQuicklist:
    case rdb::kTypeListQuicklist2:
      ok = ReadList(r, type, e, limits);
      break;
    case rdb::kTypeSet:
    case rdb::kTypeSetIntset:
    case rdb::kTypeSetListpack:
      ok = ReadSet(r, type, e, limits, 0);
      break;
    case rdb::kTypeZSet:
    case rdb::kTypeZSet2:
    case rdb::kTypeZSetZiplist:
    case rdb::kTypeZSetListpack:
      ok = ReadZSet(r, type, e, limits);
      break;
    case rdb::kTypeHash:
    case rdb::kTypeHashZipmap:
    case rdb::kTypeHashZiplist:
    case rdb::kTypeHashListpack:
      ok = ReadHash(r, type, e, limits);
      break;
    case rdb::kTypeStreamListpacks:
    case rdb::kTypeStreamListpacks2:
    case rdb::kTypeStreamListpacks3:
      ok = ReadStream(r, type, e, limits);
      collection = false;
      break;
    default:
      ok = r.Fail("unsupported RDB value type " + std::to_string(type));
  }
  if (!ok) {
    r.Fail("bad value");  // no-op when a precise error was recorded
    FreeEntry(e);
    return RdbValueStatus::kError;
  }
  // A set or sorted set that never got a member has no object yet (the entry is still the
  // integer 0).
  if (collection && (e->type() == ObjType::kString || IsEmptyCollection(e))) {
    FreeEntry(e);
    return RdbValueStatus::kEmpty;
  }
  *out = e;
  return RdbValueStatus::kOk;
}

}  // namespace vireo
