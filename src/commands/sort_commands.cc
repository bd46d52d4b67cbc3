// SORT and SORT_RO over lists, sets and sorted sets: BY (string keys or hash fields "->"),
// BY with a constant pattern (no sorting), LIMIT, GET patterns and "#", ASC/DESC, ALPHA and
// STORE (a list). The collections are read through their families' value APIs.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "acl/permission.h"
#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "server/server.h"
#include "store/hash_value.h"
#include "store/list_value.h"
#include "store/set_value.h"
#include "store/value.h"
#include "store/zset_value.h"

namespace vireo {
namespace {

constexpr const char* kBadScore = "ERR One or more scores can't be converted into double";

struct SortOptions {
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;  // BY with a pattern lacking '*'
  bool has_by = false;
  bool has_store = false;
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  std::string_view by;
  std::string_view store;
  std::vector<std::string_view> gets;
};

// Parses SORT's options from args[2]; replies the error and returns false on bad input.
// SORT_RO (readonly) does not know STORE.
bool ParseOptions(CommandContext& ctx, bool readonly, SortOptions* o) {
  // BY and GET patterns read keys no ACL key pattern was checked against (Valkey's rule).
  auto denied = [&ctx](const char* option) {
    const Client& c = ctx.client;
    const CommandSpec* spec = Commands().Resolve(ctx.args);
    if (!(c.flags & kClientAclRestricted) || spec == nullptr ||
        CanReadEveryKey(*c.acl_user, *spec, ctx.args, AclDbs{c.db_index, ctx.server.db_count()})) {
      return false;
    }
    ctx.reply.Error(std::string("ERR ") + option +
                    " option of SORT denied due to insufficient ACL permissions.");
    return true;
  };
  for (size_t j = 2; j < ctx.argc(); ++j) {
    std::string_view opt = ctx.arg(j);
    size_t left = ctx.argc() - j - 1;
    if (EqualsIgnoreCase(opt, "asc")) {
      o->desc = false;
    } else if (EqualsIgnoreCase(opt, "desc")) {
      o->desc = true;
    } else if (EqualsIgnoreCase(opt, "alpha")) {
      o->alpha = true;
    } else if (EqualsIgnoreCase(opt, "limit") && left >= 2) {
      if (!ParseInt64(ctx.arg(j + 1), &o->limit_start) ||
          !ParseInt64(ctx.arg(j + 2), &o->limit_count)) {
        ctx.reply.Error(errors::kNotInteger);
        return false;
      }
      j += 2;
    } else if (!readonly && EqualsIgnoreCase(opt, "store") && left >= 1) {
      o->has_store = true;
      o->store = ctx.arg(++j);
    } else if (EqualsIgnoreCase(opt, "by") && left >= 1) {
      o->by = ctx.arg(++j);
      o->has_by = true;
      // Valkey looks for '*' with strchr: only before a NUL byte.
      std::string_view c_string = o->by.substr(0, o->by.find('\0'));
      o->dontsort = c_string.find('*') == std::string_view::npos;
      if (!o->dontsort && denied("BY")) return false;
    } else if (EqualsIgnoreCase(opt, "get") && left >= 1) {
      if (denied("GET")) return false;
      o->gets.push_back(ctx.arg(++j));
    } else {
      ctx.reply.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// The value the pattern names for element `subst` ('*' replaced by it; "key->field" reads a
// hash field; "#" is the element itself), copied into *out. False when there is none: no '*',
// a missing key, a key of the wrong type, a missing field.
bool LookupByPattern(CommandContext& ctx, std::string_view pattern, std::string_view subst,
                     std::string* out) {
  if (!pattern.empty() && pattern[0] == '#' && (pattern.size() == 1 || pattern[1] == '\0')) {
    out->assign(subst);
    return true;
  }
  // '*' and "->" are searched as C strings (up to a NUL), lengths taken whole, as Valkey does.
  std::string_view c_string = pattern.substr(0, pattern.find('\0'));
  size_t star = c_string.find('*');
  if (star == std::string_view::npos) return false;
  size_t arrow = c_string.find("->", star + 1);
  bool has_field = arrow != std::string_view::npos && arrow + 2 < c_string.size();
  size_t key_end = has_field ? arrow : pattern.size();
  static std::string key;
  key.assign(pattern.substr(0, star));
  key.append(subst);
  key.append(pattern.substr(star + 1, key_end - star - 1));
  const Entry* e = ctx.db->Lookup(key);
  if (e == nullptr) return false;
  if (has_field) {
    if (e->type() != ObjType::kHash) return false;
    std::string_view field = pattern.substr(arrow + 2);
    int64_t expire = hash::GetExpire(e, field);
    if (expire >= 0 && expire <= CommandTimeMs()) return false;  // expired, not yet purged
    hash::Item value;
    if (!hash::Get(e, field, &value)) return false;
    char buf[24];
    out->assign(value.View(buf));
    return true;
  }
  if (e->type() != ObjType::kString) return false;
  char buf[24];
  out->assign(StringValue(e, buf));
  return true;
}

// A weight as Valkey reads it with strtod: the whole text (up to a NUL) must be consumed, no
// overflow or underflow, no NaN. Leading spaces, hex and "inf" are accepted; "" is 0.
bool ParseWeight(std::string_view s, double* out) {
  static std::string text;  // NUL-terminated for strtod; kept to avoid a malloc per weight
  text.assign(s);
  char* end;
  errno = 0;
  double v = std::strtod(text.c_str(), &end);
  *out = v;
  return *end == '\0' && errno != ERANGE && !std::isnan(v);
}

// Byte-wise order, shorter first on a common prefix (Valkey's binary string comparison).
int CompareBinary(std::string_view a, std::string_view b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// strcoll in the C locale: strcmp, which stops at the first NUL byte.
int CompareCString(std::string_view a, std::string_view b) {
  for (size_t i = 0;; ++i) {
    unsigned char ca = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char cb = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    if (ca != cb) return ca < cb ? -1 : 1;
    if (ca == 0) return 0;
  }
}

// One element to sort, with what it sorts by. Texts live in an arena (offsets, so the arena
// may grow): the source may be overwritten by STORE before the end.
struct SortItem {
  size_t elem_off, elem_len;
  double score = 0;
  bool has_cmp = false;
  size_t cmp_off = 0, cmp_len = 0;
};

class SortVector {
 public:
  void Add(std::string_view elem) {
    items_.push_back({arena_.size(), elem.size()});
    arena_.append(elem);
  }
  void SetCompareText(size_t i, std::string_view s) {
    items_[i].has_cmp = true;
    items_[i].cmp_off = arena_.size();
    items_[i].cmp_len = s.size();
    arena_.append(s);
  }
  std::string_view Elem(const SortItem& it) const {
    return {arena_.data() + it.elem_off, it.elem_len};
  }
  std::string_view Cmp(const SortItem& it) const {
    return {arena_.data() + it.cmp_off, it.cmp_len};
  }
  std::vector<SortItem>& items() { return items_; }

 private:
  std::string arena_;
  std::vector<SortItem> items_;
};

// Loads a list's elements: all of them, or with dontsort only [start, start+count) in list
// order (from the tail when desc).
void LoadList(const Entry* e, bool dontsort, bool desc, int64_t start, int64_t count,
              SortVector* v) {
  size_t len = ListLength(e);
  if (len == 0 || (dontsort && count <= 0)) return;
  size_t first = 0;
  bool reverse = false;
  size_t n = len;
  if (dontsort) {
    first = desc ? len - static_cast<size_t>(start) - 1 : static_cast<size_t>(start);
    reverse = desc;
    n = static_cast<size_t>(count);
  }
  ListCursor cursor(e, first, reverse);
  char buf[24];
  for (size_t i = 0; i < n; ++i) {
    const unsigned char* p = cursor.Next();
    if (p == nullptr) break;
    v->Add(lp::Get(p).View(buf));
  }
}

// Loads a sorted set's members in score order, or with dontsort only the ranks
// [start, start+count) (from the highest score when desc).
void LoadZSet(const ZSet& z, bool dontsort, bool desc, int64_t start, int64_t count,
              SortVector* v) {
  size_t len = z.Length();
  if (len == 0 || (dontsort && count <= 0)) return;
  if (!dontsort) {
    for (ZSet::Iterator it = z.Seek(0); it.Valid(); it.Next()) v->Add(it.Member());
    return;
  }
  size_t rank = desc ? len - 1 - static_cast<size_t>(start) : static_cast<size_t>(start);
  ZSet::Iterator it = z.Seek(rank);
  for (int64_t i = 0; i < count && it.Valid(); ++i) {
    v->Add(it.Member());
    if (desc) {
      it.Prev();
    } else {
      it.Next();
    }
  }
}

// Stores `values` as a list under key (replacing any value and TTL), or deletes key when
// there are none. Replies the count.
void StoreList(CommandContext& ctx, std::string_view key, const std::vector<std::string>& values) {
  Db* db = ctx.db;
  bool existed = db->Delete(key, ctx.server.config().lazyfree_lazy_server_del);
  if (values.empty()) {
    if (existed) {
      ctx.KeyModified(db, key);
      NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", db, key);
    }
    ctx.reply.Integer(0);
    return;
  }
  const Config& c = ctx.server.config();
  ListLimits limits{c.list_max_listpack_size, c.list_compress_depth};
  Entry* e = db->Add(key);
  ListInit(e);
  size_t bytes = 0;
  for (const std::string& s : values) bytes += s.size();
  ListGrowing(e, limits, values.size(), bytes);
  for (const std::string& s : values) ListPush(e, s, ListEnd::kTail, limits);
  ctx.KeyModified(db, key, static_cast<int>(values.size()));
  NotifyKeyspaceEvent(ctx, kNotifyList, "sortstore", db, key);
  ctx.reply.Integer(static_cast<int64_t>(values.size()));
}

// SORT / SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC] [ALPHA]
// [STORE destination]
void SortGeneric(CommandContext& ctx, bool readonly) {
  SortOptions o;
  if (!ParseOptions(ctx, readonly, &o)) return;
  Entry* e = ctx.db->Lookup(ctx.arg(1));
  if (e != nullptr && e->type() != ObjType::kSet && e->type() != ObjType::kList &&
      e->type() != ObjType::kZSet) {
    ctx.reply.Error(errors::kWrongType);
    return;
  }
  ObjType type = e != nullptr ? e->type() : ObjType::kList;
  // An unsorted set would come out in its internal order: what gets stored, or what a script
  // goes on to write, must not depend on that, so STORE and scripts sort sets alphabetically.
  if (o.dontsort && type == ObjType::kSet &&
      (o.has_store || (ctx.client.flags & kClientScript))) {
    o.dontsort = false;
    o.alpha = true;
    o.has_by = false;
  }
  ZSet zset;
  if (type == ObjType::kZSet) {
    // As Valkey, which converts small sorted sets for SORT (OBJECT ENCODING shows it).
    zset = ZSet::Of(e);
    zset.ConvertToSkipList();
    zset.StoreTo(e);
  }
  int64_t len = 0;
  if (e != nullptr) {
    if (type == ObjType::kList) len = static_cast<int64_t>(ListLength(e));
    if (type == ObjType::kSet) len = static_cast<int64_t>(SetSize(SetOf(e)));
    if (type == ObjType::kZSet) len = static_cast<int64_t>(zset.Length());
  }
  // LIMIT clamped to the collection, as Valkey computes it.
  int64_t start = std::min(std::max(o.limit_start, int64_t{0}), len);
  int64_t count = std::min(std::max(o.limit_count, int64_t{-1}), len);
  int64_t end = count < 0 ? len - 1 : start + count - 1;
  if (start >= len) {
    start = len - 1;
    end = len - 2;
  }
  if (end >= len) end = len - 1;

  SortVector v;
  bool ranged_load = o.dontsort && (type == ObjType::kList || type == ObjType::kZSet);
  if (e != nullptr) {
    if (type == ObjType::kList) {
      LoadList(e, o.dontsort, o.desc, start, end - start + 1, &v);
    } else if (type == ObjType::kZSet) {
      LoadZSet(zset, o.dontsort, o.desc, start, end - start + 1, &v);
    } else {
      char buf[24];
      SetForEach(SetOf(e), [&](const SetElem& el) {
        v.Add(el.View(buf));
        return true;
      });
    }
  }
  if (ranged_load) {
    end -= start;
    start = 0;
  }

  std::vector<SortItem>& items = v.items();
  if (!o.dontsort) {
    bool bad_score = false;
    std::string by_value;
    for (size_t i = 0; i < items.size(); ++i) {
      std::string_view weight;
      if (o.has_by) {
        if (!LookupByPattern(ctx, o.by, v.Elem(items[i]), &by_value)) continue;
        weight = by_value;
      } else {
        weight = v.Elem(items[i]);
      }
      if (o.alpha) {
        if (o.has_by) v.SetCompareText(i, weight);
      } else if (!ParseWeight(weight, &items[i].score)) {
        bad_score = true;
      }
    }
    if (bad_score) {
      ctx.reply.Error(kBadScore);
      return;
    }
    // Stable, so ties keep the load order (glibc's qsort, a merge sort, does the same).
    bool binary = o.has_store;
    auto compare = [&](const SortItem& a, const SortItem& b) {
      if (!o.alpha) {
        if (a.score != b.score) return a.score < b.score ? -1 : 1;
        return CompareBinary(v.Elem(a), v.Elem(b));
      }
      if (o.has_by) {
        if (!a.has_cmp || !b.has_cmp) return a.has_cmp == b.has_cmp ? 0 : (a.has_cmp ? 1 : -1);
        return binary ? CompareBinary(v.Cmp(a), v.Cmp(b)) : CompareCString(v.Cmp(a), v.Cmp(b));
      }
      return binary ? CompareBinary(v.Elem(a), v.Elem(b)) : CompareCString(v.Elem(a), v.Elem(b));
    };
    std::stable_sort(items.begin(), items.end(), [&](const SortItem& a, const SortItem& b) {
      int c = compare(a, b);
      return o.desc ? c > 0 : c < 0;
    });
  }

  size_t rows = end >= start ? static_cast<size_t>(end - start + 1) : 0;
  size_t first = rows > 0 ? static_cast<size_t>(start) : 0;
  std::string value;
  if (!o.has_store) {
    ctx.reply.Array(o.gets.empty() ? rows : rows * o.gets.size());
    for (size_t j = first; j < first + rows; ++j) {
      std::string_view elem = v.Elem(items[j]);
      if (o.gets.empty()) ctx.reply.Bulk(elem);
      for (std::string_view pattern : o.gets) {
        if (LookupByPattern(ctx, pattern, elem, &value)) {
          ctx.reply.Bulk(value);
        } else {
          ctx.reply.Null();
        }
      }
    }
    return;
  }
  std::vector<std::string> out;
  out.reserve(o.gets.empty() ? rows : rows * o.gets.size());
  for (size_t j = first; j < first + rows; ++j) {
    std::string_view elem = v.Elem(items[j]);
    if (o.gets.empty()) out.emplace_back(elem);
    for (std::string_view pattern : o.gets) {
      if (!LookupByPattern(ctx, pattern, elem, &value)) value.clear();  // missing: ""
      out.push_back(value);
    }
  }
  StoreList(ctx, o.store, out);
}

void CmdSort(CommandContext& ctx) { SortGeneric(ctx, false); }
void CmdSortRo(CommandContext& ctx) { SortGeneric(ctx, true); }

}  // namespace

// clang-format off
void RegisterSortCommands(CommandTable& t) {
  const uint64_t types = kAclSet | kAclSortedSet | kAclList | kAclSlow | kAclDangerous;
  const char* cost = "O(N+M*log(M)) where N is the number of elements in the list or set to "
                     "sort, and M the number of returned elements. When the elements are not "
                     "sorted, complexity is O(N).";
  t.Add({.name = "sort", .arity = -2, .flags = kCmdWrite | kCmdDenyOom | kCmdMovableKeys,
         .acl = kAclWrite | types, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdSort, .group = "generic",
         .summary = "Sorts the elements in a list, a set, or a sorted set, optionally storing "
                    "the result.",
         .since = "1.0.0", .complexity = cost});
  t.Add({.name = "sort_ro", .arity = -2, .flags = kCmdReadonly | kCmdMovableKeys,
         .acl = kAclRead | types, .first_key = 1, .last_key = 1, .key_step = 1,
         .handler = CmdSortRo, .group = "generic",
         .summary = "Returns the sorted elements of a list, a set, or a sorted set.",
         .since = "7.0.0", .complexity = cost});
}
// clang-format on

}  // namespace vireo
