// Geo family: GEOADD GEODIST GEOHASH GEOPOS GEOSEARCH GEOSEARCHSTORE GEORADIUS
// GEORADIUSBYMEMBER GEORADIUS_RO GEORADIUSBYMEMBER_RO. A geo index is a sorted set whose
// scores are 52-bit geohashes (common/geohash.h); this file only parses arguments, walks the
// sorted set's score ranges for the cells around a search centre and shapes the replies.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "commands/context.h"
#include "commands/errors.h"
#include "commands/registry.h"
#include "commands/zset_family.h"
#include "common/geohash.h"
#include "common/numbers.h"
#include "server/notify.h"
#include "store/zset_node.h"

namespace vireo {
namespace {

using zset_cmd::FindRead;
using zset_cmd::FindWrite;

constexpr const char* kErrUnit = "ERR unsupported unit provided. please use M, KM, FT, MI";
constexpr const char* kErrMember = "ERR could not decode requested zset member";

// Valkey compares option words as C strings: whatever follows a NUL byte is not seen.
bool OptionIs(std::string_view arg, const char* word) {
  size_t nul = arg.find('\0');
  if (nul != std::string_view::npos) arg = arg.substr(0, nul);
  return EqualsIgnoreCase(arg, word);
}

// Metres per unit; false (after replying) for an unknown unit.
bool ParseUnit(CommandContext& ctx, std::string_view u, double* metres) {
  if (OptionIs(u, "m")) {
    *metres = 1;
  } else if (OptionIs(u, "km")) {
    *metres = 1000;
  } else if (OptionIs(u, "ft")) {
    *metres = 0.3048;
  } else if (OptionIs(u, "mi")) {
    *metres = 1609.34;
  } else {
    ctx.reply.Error(kErrUnit);
    return false;
  }
  return true;
}

// A longitude, latitude pair at args[i], i+1, checked against the indexable range.
bool ParseLonLat(CommandContext& ctx, size_t i, double* lon, double* lat) {
  if (!ParseDouble(ctx.arg(i), lon) || !ParseDouble(ctx.arg(i + 1), lat)) {
    ctx.reply.Error(errors::kNotFloat);
    return false;
  }
  if (!geo::ValidLonLat(*lon, *lat)) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "ERR invalid longitude,latitude pair %f,%f", *lon, *lat);
    ctx.reply.Error(buf);
    return false;
  }
  return true;
}

// A non-negative number (radius, width or height), else the given error.
bool ParseSize(CommandContext& ctx, std::string_view s, const char* not_number, double* out) {
  if (!ParseDouble(s, out)) {
    ctx.reply.Error(not_number);
    return false;
  }
  return true;
}

// radius unit at args[i], i+1.
bool ParseRadius(CommandContext& ctx, size_t i, geo::Shape* shape) {
  double r;
  if (!ParseSize(ctx, ctx.arg(i), "ERR need numeric radius", &r)) return false;
  if (r < 0) {
    ctx.reply.Error("ERR radius cannot be negative");
    return false;
  }
  if (!ParseUnit(ctx, ctx.arg(i + 1), &shape->unit)) return false;
  shape->kind = geo::Shape::kCircle;
  shape->radius = r;
  return true;
}

// width height unit at args[i..i+2].
bool ParseBox(CommandContext& ctx, size_t i, geo::Shape* shape) {
  double w, h;
  if (!ParseSize(ctx, ctx.arg(i), "ERR need numeric width", &w) ||
      !ParseSize(ctx, ctx.arg(i + 1), "ERR need numeric height", &h)) {
    return false;
  }
  if (h < 0 || w < 0) {
    ctx.reply.Error("ERR height or width cannot be negative");
    return false;
  }
  if (!ParseUnit(ctx, ctx.arg(i + 2), &shape->unit)) return false;
  shape->kind = geo::Shape::kBox;
  shape->width = w;
  shape->height = h;
  return true;
}

// BYPOLYGON's "num-vertices lon lat [lon lat ...]" at args[i..] (Valkey 9.0); *used gets how
// many arguments it took.
bool ParsePolygon(CommandContext& ctx, size_t i, geo::Shape* shape, size_t* used) {
  int64_t n;
  if (!ParseInt64(ctx.arg(i), &n) || n < INT32_MIN || n > INT32_MAX) {
    ctx.reply.Error("ERR invalid number of vertices");
    return false;
  }
  const size_t room = (ctx.argc() - i - 1) / 2;
  if (n < 3 || static_cast<uint64_t>(n) > room) {
    ctx.reply.Error("ERR GEOSEARCH BYPOLYGON must have at least 3 vertices");
    return false;
  }
  std::vector<double> lonlat(2 * static_cast<size_t>(n));
  for (size_t v = 0; v < static_cast<size_t>(n); ++v) {
    if (!ParseLonLat(ctx, i + 1 + 2 * v, &lonlat[2 * v], &lonlat[2 * v + 1])) return false;
  }
  geo::SetPolygon(shape, std::move(lonlat));
  *used = 1 + 2 * static_cast<size_t>(n);
  return true;
}

// The decoded position of member; false when it is not in the set.
bool MemberPosition(const ZSet& z, std::string_view member, double* lon, double* lat) {
  double score;
  if (!z.Score(member, &score)) return false;
  geo::DecodeScore(score, lon, lat);
  return true;
}

// A distance as Valkey replies it: a bulk string with four decimals, in RESP3 too.
void ReplyDistance(CommandContext& ctx, double d) {
  char buf[400];  // %.4f of the largest double is 309 digits and the decimals
  int n = std::snprintf(buf, sizeof(buf), "%.4f", d);
  ctx.reply.Bulk(std::string_view(buf, static_cast<size_t>(n)));
}

// A coordinate in Valkey's "human" long double form: a bulk in RESP2, a double in RESP3.
void ReplyCoordinate(CommandContext& ctx, double v) {
  std::string s = FormatLongDoubleHuman(v);
  if (!ctx.reply.Resp3()) {
    ctx.reply.Bulk(s);
    return;
  }
  ctx.reply.Raw(",");
  ctx.reply.Raw(s);
  ctx.reply.Raw("\r\n");
}

// GEOADD key [NX|XX] [CH] longitude latitude member [longitude latitude member ...]
void CmdGeoAdd(CommandContext& ctx) {
  bool nx = false, xx = false, ch = false;
  size_t i = 2;
  for (; i < ctx.argc(); ++i) {
    std::string_view opt = ctx.arg(i);
    if (OptionIs(opt, "nx")) {
      nx = true;
    } else if (OptionIs(opt, "xx")) {
      xx = true;
    } else if (OptionIs(opt, "ch")) {
      ch = true;
    } else {
      break;
    }
  }
  const size_t words = ctx.argc() - i;
  if (words % 3 != 0 || (nx && xx) || words == 0) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  // Every position is checked before anything changes.
  std::vector<double> scores;
  scores.reserve(words / 3);
  for (size_t j = i; j < ctx.argc(); j += 3) {
    double lon, lat;
    if (!ParseLonLat(ctx, j, &lon, &lat)) return;
    scores.push_back(geo::Score(lon, lat));
  }
  std::string_view key = ctx.arg(1);
  bool wrong;
  Entry* e = FindWrite(ctx, key, &wrong);
  if (wrong) return;
  if (e == nullptr && xx) {
    ctx.reply.Integer(0);
    return;
  }
  const ZSetLimits limits = zset_cmd::Limits(ctx);
  ZSet z;
  if (e == nullptr) {
    e = ctx.db->Add(key);
    z = ZSet::Create(ctx.arg(i + 2).size(), limits);
    z.StoreTo(e);
  } else {
    z = ZSet::Of(e);
  }
  size_t longest = 0;
  for (size_t p = 0; p < scores.size(); ++p) {
    longest = std::max(longest, ctx.arg(i + 3 * p + 2).size());
  }
  z.FitFor(scores.size(), longest, limits);
  const int flags = (nx ? kZAddNx : 0) | (xx ? kZAddXx : 0);
  size_t added = 0, updated = 0;
  for (size_t p = 0; p < scores.size(); ++p) {
    double result;
    ZAddResult r = z.Add(ctx.arg(i + 3 * p + 2), scores[p], flags, limits, &result);
    if (r == ZAddResult::kAdded) ++added;
    if (r == ZAddResult::kUpdated) ++updated;
  }
  z.StoreTo(e);
  if (added + updated > 0) {
    ctx.KeyModified(ctx.db, key, static_cast<int>(added + updated));
    NotifyKeyspaceEvent(ctx, kNotifyZset, "zadd", ctx.db, key);  // GEOADD is a ZADD
  }
  ctx.reply.Integer(static_cast<int64_t>(ch ? added + updated : added));
}

// GEODIST key member1 member2 [M|KM|FT|MI]
void CmdGeoDist(CommandContext& ctx) {
  double unit = 1;
  if (ctx.argc() == 5) {
    if (!ParseUnit(ctx, ctx.arg(4), &unit)) return;
  } else if (ctx.argc() > 5) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  double lon1, lat1, lon2, lat2;
  if (e == nullptr || !MemberPosition(ZSet::Of(e), ctx.arg(2), &lon1, &lat1) ||
      !MemberPosition(ZSet::Of(e), ctx.arg(3), &lon2, &lat2)) {
    ctx.reply.Null();
    return;
  }
  ReplyDistance(ctx, geo::Distance(lon1, lat1, lon2, lat2) / unit);
}

// GEOHASH key [member ...]
void CmdGeoHash(CommandContext& ctx) {
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  ctx.reply.Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); ++i) {
    double score;
    if (e == nullptr || !ZSet::Of(e).Score(ctx.arg(i), &score)) {
      ctx.reply.Null();
      continue;
    }
    char hash[11];
    geo::GeohashString(score, hash);
    ctx.reply.Bulk(std::string_view(hash, sizeof(hash)));
  }
}

// GEOPOS key [member ...]
void CmdGeoPos(CommandContext& ctx) {
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(1), &wrong);
  if (wrong) return;
  ctx.reply.Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); ++i) {
    double lon, lat;
    if (e == nullptr || !MemberPosition(ZSet::Of(e), ctx.arg(i), &lon, &lat)) {
      ctx.reply.NullArray();
      continue;
    }
    ctx.reply.Array(2);
    ReplyCoordinate(ctx, lon);
    ReplyCoordinate(ctx, lat);
  }
}

// ---------------------------------------------------------------------------------------------
// Searches

struct Match {
  double dist;  // metres until the reply converts it to the unit
  double score;
  double lon, lat;
  std::string member;
};

int CompareAsc(const Match& a, const Match& b) {
  if (a.dist > b.dist) return 1;
  if (a.dist == b.dist) return 0;
  return -1;
}

// Bentley and McIlroy's quicksort ("Engineering a Sort Function", 1993) that only sorts the
// partitions overlapping ranks [first, last]. Valkey orders a COUNT-limited search with this
// algorithm, and matches at equal distances come out in the order it leaves them, so it is
// reproduced step by step: median of three (ninther above 40), three-way partition, insertion
// sort below 7 elements (and no early switch to insertion sort after a pass without swaps).
template <typename Cmp>
class PartialQuickSort {
 public:
  PartialQuickSort(Cmp cmp, Match* first, Match* last) : cmp_(cmp), first_(first), last_(last) {}

  void Sort(Match* a, size_t n) {
    for (;;) {
      if (n < 7) {
        InsertionSort(a, n);
        return;
      }
      Match* pm = a + n / 2;
      if (n > 7) {
        Match* pl = a;
        Match* pn = a + n - 1;
        if (n > 40) {
          const size_t d = n / 8;
          pl = Median3(pl, pl + d, pl + 2 * d);
          pm = Median3(pm - d, pm, pm + d);
          pn = Median3(pn - 2 * d, pn - d, pn);
        }
        pm = Median3(pl, pm, pn);
      }
      std::swap(*a, *pm);
      // Elements equal to the pivot gather at both ends ([a, pa) and (pd, end)), smaller
      // ones after the left group, larger ones before the right group.
      Match *pa = a + 1, *pb = a + 1, *pc = a + n - 1, *pd = a + n - 1;
      for (;;) {
        int r;
        while (pb <= pc && (r = cmp_(*pb, *a)) <= 0) {
          if (r == 0) std::swap(*pa++, *pb);
          ++pb;
        }
        while (pb <= pc && (r = cmp_(*pc, *a)) >= 0) {
          if (r == 0) std::swap(*pc, *pd--);
          --pc;
        }
        if (pb > pc) break;
        std::swap(*pb++, *pc--);
      }
      Match* end = a + n;
      SwapBlocks(a, pb - std::min(pa - a, pb - pa), std::min(pa - a, pb - pa));
      const ptrdiff_t right = std::min(pd - pc, end - pd - 1);
      SwapBlocks(pb, end - right, right);
      const ptrdiff_t less = pb - pa, more = pd - pc;
      if (less > 1 && Overlaps(a, less)) Sort(a, static_cast<size_t>(less));
      if (more <= 1) return;
      a = end - more;
      n = static_cast<size_t>(more);
      if (!Overlaps(a, more)) return;
    }
  }

 private:
  void InsertionSort(Match* a, size_t n) {
    for (Match* pm = a + 1; pm < a + n; ++pm) {
      for (Match* pl = pm; pl > a && cmp_(*(pl - 1), *pl) > 0; --pl) std::swap(*pl, *(pl - 1));
    }
  }
  Match* Median3(Match* a, Match* b, Match* c) {
    if (cmp_(*a, *b) < 0) return cmp_(*b, *c) < 0 ? b : (cmp_(*a, *c) < 0 ? c : a);
    return cmp_(*b, *c) > 0 ? b : (cmp_(*a, *c) < 0 ? a : c);
  }
  static void SwapBlocks(Match* a, Match* b, ptrdiff_t n) {
    for (ptrdiff_t i = 0; i < n; ++i) std::swap(a[i], b[i]);
  }
  // Whether [a, a+n) holds any of the ranks being sorted.
  bool Overlaps(Match* a, ptrdiff_t n) const { return !(last_ < a || first_ >= a + n); }

  Cmp cmp_;
  Match* first_;
  Match* last_;
};

enum class Order { kNone, kAsc, kDesc };

void SortMatches(std::vector<Match>* m, Order order, size_t wanted) {
  auto asc = [](const Match& a, const Match& b) { return CompareAsc(a, b); };
  auto desc = [](const Match& a, const Match& b) { return -CompareAsc(a, b); };
  if (wanted == m->size()) {
    // glibc's qsort merge-sorts, so a full sort keeps equal distances in scan order.
    if (order == Order::kAsc) {
      std::stable_sort(m->begin(), m->end(),
                       [](const Match& a, const Match& b) { return CompareAsc(a, b) < 0; });
    } else {
      std::stable_sort(m->begin(), m->end(),
                       [](const Match& a, const Match& b) { return CompareAsc(a, b) > 0; });
    }
    return;
  }
  Match* base = m->data();
  if (order == Order::kAsc) {
    PartialQuickSort<decltype(asc)>(asc, base, base + wanted - 1).Sort(base, m->size());
  } else {
    PartialQuickSort<decltype(desc)>(desc, base, base + wanted - 1).Sort(base, m->size());
  }
}

// Members inside the shape, cell by cell in scan order, each cell's members in score order;
// stops once `limit` (0: none) were found.
std::vector<Match> FindMatches(const ZSet& z, const geo::Shape& shape, size_t limit) {
  std::vector<Match> out;
  const std::array<geo::Cell, 9> cells = geo::SearchCells(shape);
  int last = -1;
  for (int i = 0; i < 9; ++i) {
    if (cells[i].IsNone()) continue;
    // Huge radii make neighbours coincide: a cell equal to the one just scanned is skipped,
    // as Valkey does (which never compares against the centre, index 0).
    if (last > 0 && cells[i] == cells[last]) continue;
    if (!out.empty() && limit != 0 && out.size() >= limit) break;
    zset_cmd::ScoreRange range;
    range.min = static_cast<double>(geo::Align52(cells[i]));
    geo::Cell next = cells[i];
    ++next.bits;
    range.max = static_cast<double>(geo::Align52(next));
    range.max_ex = true;
    const zset_cmd::RankSpan span = zset_cmd::ScoreSpan(z, range);
    ZSet::Iterator it = z.Seek(span.first);
    for (size_t k = 0; k < span.Size() && it.Valid(); ++k, it.Next()) {
      Match m;
      m.score = it.Score();
      geo::DecodeScore(m.score, &m.lon, &m.lat);
      if (geo::InShape(shape, m.lon, m.lat, &m.dist)) {
        m.member.assign(it.Member());
        out.push_back(std::move(m));
      }
      if (!out.empty() && limit != 0 && out.size() >= limit) break;
    }
    last = i;
  }
  return out;
}

// How a search command takes its arguments.
enum SearchFlags : int {
  kFromCoords = 1,   // GEORADIUS: key lon lat radius unit
  kFromMember = 2,   // GEORADIUSBYMEMBER: key member radius unit
  kNoStore = 4,      // the _RO variants
  kSearch = 8,       // GEOSEARCH: FROMMEMBER/FROMLONLAT and BYRADIUS/BYBOX/BYPOLYGON
  kSearchStore = 16  // GEOSEARCHSTORE: dst first, STOREDIST a flag
};

// An empty search result deletes the destination.
void DeleteDestination(CommandContext& ctx, std::string_view dst) {
  if (!ctx.db->Delete(dst)) return;
  ctx.KeyModified(ctx.db, dst);
  NotifyKeyspaceEvent(ctx, kNotifyGeneric, "del", ctx.db, dst);
}

// Writes the matches (or deletes dst when there are none) and replies their count.
void StoreMatches(CommandContext& ctx, std::string_view dst, std::vector<Match>* matches,
                  size_t count, bool store_dist, double unit, const char* event) {
  if (count == 0) {
    DeleteDestination(ctx, dst);
    ctx.reply.Integer(0);
    return;
  }
  std::vector<ZNode*> nodes;
  nodes.reserve(count);
  // FromNodes needs distinct members; the cell scan never repeats one, this only guards it.
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < count; ++i) {
    const Match& m = (*matches)[i];
    if (!seen.insert(m.member).second) continue;
    nodes.push_back(NewZNode(m.member, store_dist ? m.dist / unit : m.score));
  }
  ZSet z = ZSet::FromNodes(&nodes, zset_cmd::Limits(ctx));
  ctx.db->Delete(dst);
  z.StoreTo(ctx.db->Add(dst));
  ctx.KeyModified(ctx.db, dst, static_cast<int>(count));
  NotifyKeyspaceEvent(ctx, kNotifyZset, event, ctx.db, dst);
  ctx.reply.Integer(static_cast<int64_t>(count));
}

void SearchGeneric(CommandContext& ctx, size_t src_index, int flags) {
  bool wrong;
  Entry* e = FindRead(ctx, ctx.arg(src_index), &wrong);
  if (wrong) return;
  ZSet z;
  if (e != nullptr) z = ZSet::Of(e);

  geo::Shape shape;
  std::string_view store_key;
  bool has_store = false, store_dist = false;
  size_t base;
  if (flags & kFromCoords) {
    base = 6;
    if (!ParseLonLat(ctx, 2, &shape.lon, &shape.lat) || !ParseRadius(ctx, 4, &shape)) return;
  } else if (flags & kFromMember) {
    base = 5;
    // Without the key nothing is checked here: the options still decide the reply's shape.
    if (e != nullptr) {
      if (!MemberPosition(z, ctx.arg(2), &shape.lon, &shape.lat)) {
        ctx.reply.Error(kErrMember);
        return;
      }
      if (!ParseRadius(ctx, 3, &shape)) return;
    }
  } else {
    base = 2;
    if (flags & kSearchStore) {
      base = 3;
      store_key = ctx.arg(1);
      has_store = true;
    }
  }

  bool with_dist = false, with_hash = false, with_coord = false, any = false;
  bool from_member = false, from_lonlat = false, by_radius = false, by_box = false;
  bool by_polygon = false;
  Order order = Order::kNone;
  int64_t count = 0;
  const bool search = flags & kSearch;
  for (size_t i = base; i < ctx.argc(); ++i) {
    std::string_view opt = ctx.arg(i);
    const size_t left = ctx.argc() - i - 1;
    if (OptionIs(opt, "withdist")) {
      with_dist = true;
    } else if (OptionIs(opt, "withhash")) {
      with_hash = true;
    } else if (OptionIs(opt, "withcoord")) {
      with_coord = true;
    } else if (OptionIs(opt, "any")) {
      any = true;
    } else if (OptionIs(opt, "asc")) {
      order = Order::kAsc;
    } else if (OptionIs(opt, "desc")) {
      order = Order::kDesc;
    } else if (OptionIs(opt, "count") && left >= 1) {
      if (!ParseInt64(ctx.arg(i + 1), &count)) {
        ctx.reply.Error(errors::kNotInteger);
        return;
      }
      if (count <= 0) {
        ctx.reply.Error("ERR COUNT must be > 0");
        return;
      }
      ++i;
    } else if ((OptionIs(opt, "store") || OptionIs(opt, "storedist")) && left >= 1 &&
               !(flags & kNoStore) && !search) {
      store_key = ctx.arg(i + 1);
      has_store = true;
      store_dist = OptionIs(opt, "storedist");
      ++i;
    } else if (OptionIs(opt, "storedist") && (flags & kSearchStore)) {
      store_dist = true;
    } else if (OptionIs(opt, "frommember") && left >= 1 && search && !from_lonlat && !by_polygon) {
      if (e != nullptr && !MemberPosition(z, ctx.arg(i + 1), &shape.lon, &shape.lat)) {
        ctx.reply.Error(kErrMember);
        return;
      }
      from_member = true;
      ++i;
    } else if (OptionIs(opt, "fromlonlat") && left >= 2 && search && !from_member && !by_polygon) {
      if (!ParseLonLat(ctx, i + 1, &shape.lon, &shape.lat)) return;
      from_lonlat = true;
      i += 2;
    } else if (OptionIs(opt, "byradius") && left >= 2 && search && !by_box && !by_polygon) {
      if (!ParseRadius(ctx, i + 1, &shape)) return;
      by_radius = true;
      i += 2;
    } else if (OptionIs(opt, "bybox") && left >= 3 && search && !by_radius && !by_polygon) {
      if (!ParseBox(ctx, i + 1, &shape)) return;
      by_box = true;
      i += 3;
    } else if (OptionIs(opt, "bypolygon") && left >= 2 && search && !by_radius && !by_box &&
               !from_member && !from_lonlat) {
      size_t used;
      if (!ParsePolygon(ctx, i + 1, &shape, &used)) return;
      by_polygon = true;
      i += used;
    } else {
      ctx.reply.Error(errors::kSyntax);
      return;
    }
  }

  if (has_store && (with_dist || with_hash || with_coord)) {
    ctx.reply.Error(std::string("ERR ") +
                    (flags & kSearchStore ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS") +
                    " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
    return;
  }
  // The command name as the client typed it.
  if (search && !(from_member || from_lonlat) && !by_polygon) {
    ctx.reply.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " +
                    std::string(ctx.arg(0)));
    return;
  }
  if (search && !(by_radius || by_box || by_polygon)) {
    ctx.reply.Error("ERR exactly one of BYRADIUS, BYBOX and BYPOLYGON can be specified for " +
                    std::string(ctx.arg(0)));
    return;
  }
  if (any && count == 0) {
    ctx.reply.Error("ERR the ANY argument requires COUNT argument");
    return;
  }
  if (e == nullptr) {
    if (has_store) {
      DeleteDestination(ctx, store_key);
      ctx.reply.Integer(0);
    } else {
      ctx.reply.EmptyArray();
    }
    return;
  }
  // COUNT means the nearest ones, unless ANY asked for the first found.
  if (count != 0 && order == Order::kNone && !any) order = Order::kAsc;

  std::vector<Match> matches = FindMatches(z, shape, any ? static_cast<size_t>(count) : 0);
  if (matches.empty() && !has_store) {
    ctx.reply.EmptyArray();
    return;
  }
  const size_t wanted = count == 0 || matches.size() < static_cast<uint64_t>(count)
                            ? matches.size()
                            : static_cast<size_t>(count);
  if (order != Order::kNone && !matches.empty()) SortMatches(&matches, order, wanted);

  if (has_store) {
    StoreMatches(ctx, store_key, &matches, wanted, store_dist, shape.unit,
                 search ? "geosearchstore" : "georadiusstore");
    return;
  }
  const size_t extras = with_dist + with_hash + with_coord;
  ctx.reply.Array(wanted);
  for (size_t i = 0; i < wanted; ++i) {
    const Match& m = matches[i];
    if (extras > 0) ctx.reply.Array(extras + 1);
    ctx.reply.Bulk(m.member);
    if (with_dist) ReplyDistance(ctx, m.dist / shape.unit);
    if (with_hash) ctx.reply.Integer(static_cast<int64_t>(m.score));
    if (with_coord) {
      ctx.reply.Array(2);
      ReplyCoordinate(ctx, m.lon);
      ReplyCoordinate(ctx, m.lat);
    }
  }
}

// GEORADIUS key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH]
//   [COUNT count [ANY]] [ASC|DESC] [STORE key|STOREDIST key]
void CmdGeoRadius(CommandContext& ctx) { SearchGeneric(ctx, 1, kFromCoords); }
// GEORADIUS_RO: the same without STORE.
void CmdGeoRadiusRo(CommandContext& ctx) { SearchGeneric(ctx, 1, kFromCoords | kNoStore); }
// GEORADIUSBYMEMBER key member radius M|KM|FT|MI [options as GEORADIUS]
void CmdGeoRadiusByMember(CommandContext& ctx) { SearchGeneric(ctx, 1, kFromMember); }
void CmdGeoRadiusByMemberRo(CommandContext& ctx) { SearchGeneric(ctx, 1, kFromMember | kNoStore); }
// GEOSEARCH key FROMMEMBER member|FROMLONLAT lon lat BYRADIUS radius unit|BYBOX w h unit
//   |BYPOLYGON num-vertices lon lat [lon lat ...] [ASC|DESC] [COUNT count [ANY]] [WITHCOORD]
//   [WITHDIST] [WITHHASH]
void CmdGeoSearch(CommandContext& ctx) { SearchGeneric(ctx, 1, kSearch); }
// GEOSEARCHSTORE dst src (GEOSEARCH's options) [STOREDIST]
void CmdGeoSearchStore(CommandContext& ctx) { SearchGeneric(ctx, 2, kSearch | kSearchStore); }

}  // namespace

// clang-format off
void RegisterGeoCommands(CommandTable& t) {
  const uint64_t rd = kAclRead | kAclGeo | kAclSlow;
  const uint64_t wr = kAclWrite | kAclGeo | kAclSlow;
  const char* search_cx =
      "O(N+log(M)) where N is the number of elements inside the bounding box of the circular "
      "area delimited by center and radius and M is the number of items inside the index.";
  const char* geosearch_cx =
      "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area "
      "around the shape provided as the filter and M is the number of items inside the shape";
  auto add = [&](CommandSpec spec) {
    spec.group = "geo";
    t.Add(std::move(spec));
  };
  add({.name = "geoadd", .arity = -5, .flags = kCmdWrite | kCmdDenyOom, .acl = wr,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoAdd,
       .summary = "Adds one or more members to a geospatial index. The key is created if it "
                  "doesn't exist.", .since = "3.2.0",
       .complexity = "O(log(N)) for each item added, where N is the number of elements in "
                     "the sorted set."});
  add({.name = "geodist", .arity = -4, .flags = kCmdReadonly, .acl = rd,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoDist,
       .summary = "Returns the distance between two members of a geospatial index.",
       .since = "3.2.0", .complexity = "O(1)"});
  add({.name = "geohash", .arity = -2, .flags = kCmdReadonly, .acl = rd,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoHash,
       .summary = "Returns members from a geospatial index as geohash strings.",
       .since = "3.2.0", .complexity = "O(1) for each member requested."});
  add({.name = "geopos", .arity = -2, .flags = kCmdReadonly, .acl = rd,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoPos,
       .summary = "Returns the longitude and latitude of members from a geospatial index.",
       .since = "3.2.0", .complexity = "O(1) for each member requested."});
  add({.name = "georadius", .arity = -6,
       .flags = kCmdWrite | kCmdDenyOom | kCmdMovableKeys, .acl = wr,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoRadius,
       .summary = "Queries a geospatial index for members within a distance from a "
                  "coordinate, optionally stores the result.", .since = "3.2.0",
       .complexity = search_cx});
  add({.name = "georadiusbymember", .arity = -5,
       .flags = kCmdWrite | kCmdDenyOom | kCmdMovableKeys, .acl = wr,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoRadiusByMember,
       .summary = "Queries a geospatial index for members within a distance from a member, "
                  "optionally stores the result.", .since = "3.2.0",
       .complexity = search_cx});
  add({.name = "georadius_ro", .arity = -6, .flags = kCmdReadonly, .acl = rd,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoRadiusRo,
       .summary = "Returns members from a geospatial index that are within a distance from a "
                  "coordinate.", .since = "3.2.10", .complexity = search_cx});
  add({.name = "georadiusbymember_ro", .arity = -5, .flags = kCmdReadonly, .acl = rd,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoRadiusByMemberRo,
       .summary = "Returns members from a geospatial index that are within a distance from a "
                  "member.", .since = "3.2.10", .complexity = search_cx});
  add({.name = "geosearch", .arity = -7, .flags = kCmdReadonly, .acl = rd,
       .first_key = 1, .last_key = 1, .key_step = 1, .handler = CmdGeoSearch,
       .summary = "Queries a geospatial index for members inside an area of a box or a "
                  "circle.", .since = "6.2.0", .complexity = geosearch_cx});
  add({.name = "geosearchstore", .arity = -8, .flags = kCmdWrite | kCmdDenyOom, .acl = wr,
       .first_key = 1, .last_key = 2, .key_step = 1, .handler = CmdGeoSearchStore,
       .summary = "Queries a geospatial index for members inside an area of a box or a "
                  "circle, optionally stores the result.", .since = "6.2.0",
       .complexity = geosearch_cx});
}
// clang-format on

}  // namespace vireo
