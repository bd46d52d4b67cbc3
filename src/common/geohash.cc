#include "common/geohash.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace vireo::geo {
namespace {

constexpr double kDegToRad = M_PI / 180.0;
// Half the Earth's circumference in Web-Mercator metres: the cell size at step 1.
constexpr double kMercatorMax = 20037726.37;
constexpr char kGeohashAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";

double DegRad(double deg) { return deg * kDegToRad; }
double RadDeg(double rad) { return rad / kDegToRad; }

// Spreads the 32 bits of v to the even bit positions of a 64-bit word.
uint64_t SpreadBits(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

// Gathers the even bits of x into 32 bits (the inverse of SpreadBits).
uint32_t GatherBits(uint64_t x) {
  x &= 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

uint64_t Interleave(uint32_t lat_index, uint32_t lon_index) {
  return SpreadBits(lat_index) | (SpreadBits(lon_index) << 1);
}
uint32_t LatIndex(uint64_t bits) { return GatherBits(bits); }
uint32_t LonIndex(uint64_t bits) { return GatherBits(bits >> 1); }

// The neighbouring cell dlon columns east and dlat rows north, wrapping around the grid. The
// coordinate that does not move keeps any bit beyond the step (a point on the range's max
// edge has one), as Redis's carry-based moves do.
Cell Move(const Cell& c, int dlon, int dlat) {
  const uint32_t mask = c.step >= 32 ? 0xFFFFFFFFu : (1u << c.step) - 1;
  uint32_t lat = LatIndex(c.bits), lon = LonIndex(c.bits);
  if (dlon != 0) lon = (lon + static_cast<uint32_t>(dlon)) & mask;
  if (dlat != 0) lat = (lat + static_cast<uint32_t>(dlat)) & mask;
  return Cell{Interleave(lat, lon), c.step};
}

double LatDistance(double lat1, double lat2) {
  return kEarthRadiusM * std::fabs(DegRad(lat2) - DegRad(lat1));
}

// The search's bounding box [min_lon, min_lat, max_lon, max_lat] in degrees. The box is
// widest in longitude on the edge nearer the pole, which flips between hemispheres.
void BoundingBox(const Shape& s, double box[4]) {
  if (s.kind == Shape::kPolygon) {
    box[0] = kLonMax, box[1] = kLatMax, box[2] = kLonMin, box[3] = kLatMin;
    for (size_t i = 0; i + 1 < s.polygon.size(); i += 2) {
      box[0] = std::min(box[0], s.polygon[i]);
      box[2] = std::max(box[2], s.polygon[i]);
      box[1] = std::min(box[1], s.polygon[i + 1]);
      box[3] = std::max(box[3], s.polygon[i + 1]);
    }
    return;
  }
  const double height = s.unit * (s.kind == Shape::kCircle ? s.radius : s.height / 2);
  const double width = s.unit * (s.kind == Shape::kCircle ? s.radius : s.width / 2);
  const double lat_delta = RadDeg(height / kEarthRadiusM);
  const double lon_delta_top = RadDeg(width / kEarthRadiusM / std::cos(DegRad(s.lat + lat_delta)));
  const double lon_delta_bottom =
      RadDeg(width / kEarthRadiusM / std::cos(DegRad(s.lat - lat_delta)));
  const bool south = s.lat < 0;
  box[0] = south ? s.lon - lon_delta_bottom : s.lon - lon_delta_top;
  box[2] = south ? s.lon + lon_delta_bottom : s.lon + lon_delta_top;
  box[1] = s.lat - lat_delta;
  box[3] = s.lat + lat_delta;
}

// The column (lon) or row (lat) of v among 2^step cells over r, clamped to the grid.
uint32_t GridIndex(const Range& r, double v, int step) {
  const double n = static_cast<double>(uint64_t{1} << step);
  double i = std::floor((v - r.min) / (r.max - r.min) * n);
  if (i < 0) i = 0;
  if (i > n - 1) i = n - 1;
  return static_cast<uint32_t>(i);
}

// Whether the 3x3 cells around centre cover the box: columns wrap around the globe, rows do
// not.
bool CoversBox(const Cell& centre, const double box[4]) {
  const uint32_t n = uint32_t{1} << centre.step;
  const uint32_t col = LonIndex(centre.bits) & (n - 1), row = LatIndex(centre.bits) & (n - 1);
  for (uint32_t k = GridIndex(kLonRange, box[0], centre.step);
       k <= GridIndex(kLonRange, box[2], centre.step); ++k) {
    const uint32_t d = (k - col) & (n - 1);
    if (d > 1 && d != n - 1) return false;
  }
  const uint32_t r0 = GridIndex(kLatRange, box[1], centre.step);
  const uint32_t r1 = GridIndex(kLatRange, box[3], centre.step);
  return r0 + 1 >= row && r1 <= row + 1;
}

}  // namespace

void SetPolygon(Shape* s, std::vector<double> lonlat) {
  double x = 0, y = 0, z = 0;
  for (size_t i = 0; i + 1 < lonlat.size(); i += 2) {
    const double lon = DegRad(lonlat[i]), lat = DegRad(lonlat[i + 1]);
    x += std::cos(lat) * std::cos(lon);
    y += std::cos(lat) * std::sin(lon);
    z += std::sin(lat);
  }
  s->kind = Shape::kPolygon;
  s->lon = RadDeg(std::atan2(y, x));
  s->lat = RadDeg(std::atan2(z, std::sqrt(x * x + y * y)));
  s->unit = 1;
  s->polygon = std::move(lonlat);
}

namespace {

// The even-odd rule in the lon/lat plane (W. R. Franklin's PNPOLY crossing test).
bool InPolygon(const std::vector<double>& v, double lon, double lat) {
  bool inside = false;
  const size_t n = v.size() / 2;
  for (size_t i = 0, j = n - 1; i < n; j = i++) {
    const double xi = v[2 * i], yi = v[2 * i + 1], xj = v[2 * j], yj = v[2 * j + 1];
    if ((yi > lat) != (yj > lat) && lon < (xj - xi) * (lat - yi) / (yj - yi) + xi) {
      inside = !inside;
    }
  }
  return inside;
}

}  // namespace

bool ValidLonLat(double lon, double lat) {
  return lon >= kLonMin && lon <= kLonMax && lat >= kLatMin && lat <= kLatMax;
}

bool Encode(const Range& lon_range, const Range& lat_range, double lon, double lat, int step,
            Cell* out) {
  if (step < 1 || step > 32 || !ValidLonLat(lon, lat)) return false;
  if (lat < lat_range.min || lat > lat_range.max || lon < lon_range.min || lon > lon_range.max) {
    return false;
  }
  double lat_frac = (lat - lat_range.min) / (lat_range.max - lat_range.min);
  double lon_frac = (lon - lon_range.min) / (lon_range.max - lon_range.min);
  lat_frac *= static_cast<double>(1ULL << step);
  lon_frac *= static_cast<double>(1ULL << step);
  out->bits = Interleave(static_cast<uint32_t>(lat_frac), static_cast<uint32_t>(lon_frac));
  out->step = static_cast<uint8_t>(step);
  return true;
}

uint64_t Align52(const Cell& c) { return c.bits << (52 - 2 * c.step); }

double Score(double lon, double lat) {
  Cell c;
  Encode(kLonRange, kLatRange, lon, lat, kMaxStep, &c);
  return static_cast<double>(Align52(c));
}

uint64_t ScoreBits(double score) {
  // cvttsd2si yields INT64_MIN for NaN and out-of-range values; values from 2^63 up are
  // converted after subtracting 2^63 (what compilers emit for double -> uint64 on x86-64).
  constexpr double kTwo63 = 9223372036854775808.0;
  auto truncate = [](double v) -> int64_t {
    if (!(v >= -kTwo63 && v < kTwo63)) return INT64_MIN;
    return static_cast<int64_t>(v);
  };
  if (score < kTwo63) return static_cast<uint64_t>(truncate(score));
  return static_cast<uint64_t>(truncate(score - kTwo63)) ^ (1ULL << 63);
}

Area Decode(const Range& lon_range, const Range& lat_range, const Cell& c) {
  const uint32_t lat = LatIndex(c.bits), lon = LonIndex(c.bits);
  const uint32_t lat_next = lat + 1, lon_next = lon + 1;  // wraps as 32-bit, like Redis
  const double cells = static_cast<double>(1ULL << c.step);
  const double lat_scale = lat_range.max - lat_range.min;
  const double lon_scale = lon_range.max - lon_range.min;
  Area a;
  a.lat.min = lat_range.min + (lat * 1.0 / cells) * lat_scale;
  a.lat.max = lat_range.min + (lat_next * 1.0 / cells) * lat_scale;
  a.lon.min = lon_range.min + (lon * 1.0 / cells) * lon_scale;
  a.lon.max = lon_range.min + (lon_next * 1.0 / cells) * lon_scale;
  return a;
}

void DecodeScore(double score, double* lon, double* lat) {
  const Area a = Decode(kLonRange, kLatRange, Cell{ScoreBits(score), kMaxStep});
  double x = (a.lon.min + a.lon.max) / 2;
  if (x > kLonMax) x = kLonMax;
  if (x < kLonMin) x = kLonMin;
  double y = (a.lat.min + a.lat.max) / 2;
  if (y > kLatMax) y = kLatMax;
  if (y < kLatMin) y = kLatMin;
  *lon = x;
  *lat = y;
}

void GeohashString(double score, char out[11]) {
  double lon, lat;
  DecodeScore(score, &lon, &lat);
  Cell c;
  Encode(Range{-180, 180}, Range{-90, 90}, lon, lat, kMaxStep, &c);
  for (int i = 0; i < 10; ++i) out[i] = kGeohashAlphabet[(c.bits >> (52 - (i + 1) * 5)) & 0x1f];
  out[10] = '0';
}

double Distance(double lon1, double lat1, double lon2, double lat2) {
  const double lon1r = DegRad(lon1), lon2r = DegRad(lon2);
  const double v = std::sin((lon2r - lon1r) / 2);
  // On one meridian the haversine reduces to the latitude difference.
  if (v == 0.0) return LatDistance(lat1, lat2);
  const double lat1r = DegRad(lat1), lat2r = DegRad(lat2);
  const double u = std::sin((lat2r - lat1r) / 2);
  const double a = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusM * std::asin(std::sqrt(a));
}

int EstimateStep(double radius_m, double lat) {
  if (radius_m == 0) return kMaxStep;
  int step = 1;
  while (radius_m < kMercatorMax) {
    radius_m *= 2;
    ++step;
  }
  step -= 2;  // one level coarser, so the 3x3 cells around the centre cover the radius
  // Cells narrow towards the poles.
  if (lat > 66 || lat < -66) {
    --step;
    if (lat > 80 || lat < -80) --step;
  }
  if (step < 1) step = 1;
  if (step > kMaxStep) step = kMaxStep;
  return step;
}

std::array<Cell, 9> SearchCells(const Shape& s) {
  double box[4];
  BoundingBox(s, box);
  const double min_lon = box[0], min_lat = box[1], max_lon = box[2], max_lat = box[3];
  // A box is covered by the circle through its corners.
  const double half_w = s.width / 2, half_h = s.height / 2;
  double radius_m =
      s.kind == Shape::kCircle ? s.radius : std::sqrt(half_w * half_w + half_h * half_h);
  if (s.kind == Shape::kPolygon) {
    // A polygon: the farthest corner of its bounding box from the centre.
    radius_m = std::max(
        {Distance(s.lon, s.lat, min_lon, max_lat), Distance(s.lon, s.lat, max_lon, max_lat),
         Distance(s.lon, s.lat, min_lon, min_lat), Distance(s.lon, s.lat, max_lon, min_lat)});
  }
  radius_m *= s.unit;

  int step = EstimateStep(radius_m, s.lat);
  Cell centre;
  Encode(kLonRange, kLatRange, s.lon, s.lat, step, &centre);
  // The estimate can leave part of the box outside the 3x3 cells when the centre sits near
  // its cell's edge: then one level coarser.
  const Area north = Decode(kLonRange, kLatRange, Move(centre, 0, 1));
  const Area south = Decode(kLonRange, kLatRange, Move(centre, 0, -1));
  const Area east = Decode(kLonRange, kLatRange, Move(centre, 1, 0));
  const Area west = Decode(kLonRange, kLatRange, Move(centre, -1, 0));
  const bool too_small = north.lat.max < max_lat || south.lat.min > min_lat ||
                         east.lon.max < max_lon || west.lon.min > min_lon;
  if (step > 1 && too_small) {
    --step;
    Encode(kLonRange, kLatRange, s.lon, s.lat, step, &centre);
  }
  // Valkey stops there, and can miss a polygon's far corners (its centre need not be central
  // in the box); Vireo goes coarser until every point of the box is scanned.
  while (s.kind == Shape::kPolygon && step > 1 && !CoversBox(centre, box)) {
    --step;
    Encode(kLonRange, kLatRange, s.lon, s.lat, step, &centre);
  }
  std::array<Cell, 9> cells = {centre,
                               Move(centre, 0, 1),     // N
                               Move(centre, 0, -1),    // S
                               Move(centre, 1, 0),     // E
                               Move(centre, -1, 0),    // W
                               Move(centre, 1, 1),     // NE
                               Move(centre, -1, 1),    // NW
                               Move(centre, 1, -1),    // SE
                               Move(centre, -1, -1)};  // SW
  // Neighbours beyond the bounding box hold nothing that matches. At step 1 the four cells
  // wrap into one another, so nothing is dropped there.
  if (step >= 2) {
    const Area a = Decode(kLonRange, kLatRange, centre);
    enum { kC, kN, kS, kE, kW, kNE, kNW, kSE, kSW };
    auto drop = [&](std::initializer_list<int> which) {
      for (int i : which) cells[i] = Cell{};
    };
    if (a.lat.min < min_lat) drop({kS, kSW, kSE});
    if (a.lat.max > max_lat) drop({kN, kNE, kNW});
    if (a.lon.min < min_lon) drop({kW, kSW, kNW});
    if (a.lon.max > max_lon) drop({kE, kSE, kNE});
  }
  return cells;
}

bool InShape(const Shape& s, double lon, double lat, double* dist_m) {
  if (s.kind == Shape::kPolygon) {
    if (!InPolygon(s.polygon, lon, lat)) return false;
    *dist_m = Distance(s.lon, s.lat, lon, lat);
    return true;
  }
  if (s.kind == Shape::kCircle) {
    *dist_m = Distance(s.lon, s.lat, lon, lat);
    return *dist_m <= s.radius * s.unit;
  }
  // Latitude first: it is the cheaper test.
  if (LatDistance(lat, s.lat) > s.height * s.unit / 2) return false;
  if (Distance(lon, lat, s.lon, lat) > s.width * s.unit / 2) return false;
  *dist_m = Distance(s.lon, s.lat, lon, lat);
  return true;
}

}  // namespace vireo::geo
