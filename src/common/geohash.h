// Geohash cells as the GEO commands use them: a point's longitude and latitude, each scaled to
// a 26-bit integer over its range, interleaved bit by bit (latitude in the even bits) into the
// 52-bit sorted-set score. The latitude range is the Web-Mercator one (+-85.05112878), not the
// +-90 of textbook geohashes; GEOHASH strings re-encode over +-90.
//
// All the arithmetic follows Redis's order of operations exactly, because scores, decoded
// coordinates and distances must print byte-identical (this file builds without fused
// multiply-add for that reason).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace vireo::geo {

inline constexpr double kLonMin = -180.0;
inline constexpr double kLonMax = 180.0;
inline constexpr double kLatMin = -85.05112878;
inline constexpr double kLatMax = 85.05112878;
inline constexpr int kMaxStep = 26;  // bits per coordinate in a score
inline constexpr double kEarthRadiusM = 6372797.560856;

struct Range {
  double min = 0, max = 0;
};
struct Area {
  Range lon, lat;
};

// A cell: `step` bits per coordinate, interleaved in the low 2*step bits of `bits`.
// {0, 0} is the "no cell" marker of a search's pruned neighbours.
struct Cell {
  uint64_t bits = 0;
  uint8_t step = 0;
  bool IsNone() const { return bits == 0 && step == 0; }
  bool operator==(const Cell&) const = default;
};

inline constexpr Range kLonRange{kLonMin, kLonMax};
inline constexpr Range kLatRange{kLatMin, kLatMax};

// True when the point may be indexed (inside the ranges above, bounds included).
bool ValidLonLat(double lon, double lat);

// The cell of step bits (1..32) holding the point, over the given ranges; false when the
// point is outside those ranges or the WGS84 limits. A coordinate equal to its range's max
// scales to 2^step and spills one bit past the cell (as Redis's encoder does).
bool Encode(const Range& lon_range, const Range& lat_range, double lon, double lat, int step,
            Cell* out);
// The sorted-set score of a point (ValidLonLat must hold).
double Score(double lon, double lat);
// A score's cell bits: (uint64_t)score with x86-64's conversion of out-of-range values, so
// arbitrary scores decode as they do in Redis.
uint64_t ScoreBits(double score);
// The cell's bits placed at the top of 52 bits: the score range the cell covers starts there.
uint64_t Align52(const Cell& c);

// The cell's bounds over the given ranges.
Area Decode(const Range& lon_range, const Range& lat_range, const Cell& c);
// The point a score stands for: the centre of its 26-bit cell, clamped to the WGS84 limits.
void DecodeScore(double score, double* lon, double* lat);

// GEOHASH's 11-character standard geohash of a score (the last character is always '0':
// only 52 bits exist).
void GeohashString(double score, char out[11]);

// Great-circle distance in metres (haversine on a sphere of kEarthRadiusM).
double Distance(double lon1, double lat1, double lon2, double lat2);

// A search area: a circle (radius) or a box (width x height) around a centre, sizes in `unit`
// (metres per unit), or a polygon (SetPolygon).
struct Shape {
  enum Kind : uint8_t { kCircle, kBox, kPolygon } kind = kCircle;
  double lon = 0, lat = 0;
  double radius = 0, width = 0, height = 0;
  double unit = 1;
  std::vector<double> polygon;  // lon, lat of each vertex, in order
};

// Makes s the polygon of the given vertices (lon, lat pairs; at least 3 vertices), as
// Valkey 9.0's GEOSEARCH BYPOLYGON defines it: a point is inside when the even-odd rule puts
// it there with the edges drawn straight in the lon/lat plane (no wrap at 180); the centre,
// which distances are measured from (in metres), is the normalised sum of the vertices' unit
// vectors on the sphere.
void SetPolygon(Shape* s, std::vector<double> lonlat);

// The cells to scan for a shape, in scan order: the centre, then N S E W NE NW SE SW.
// Neighbours that cannot hold a match are None. For a polygon the cells always cover its
// bounding box (coarser cells where Valkey's estimate would leave part of it out).
std::array<Cell, 9> SearchCells(const Shape& shape);
// The step SearchCells starts from for a radius in metres around latitude lat.
int EstimateStep(double radius_m, double lat);
// Whether the point lies in the shape; *dist_m gets its distance to the centre when it does.
bool InShape(const Shape& shape, double lon, double lat, double* dist_m);

}  // namespace vireo::geo
