#include "common/geohash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "common/numbers.h"

namespace vireo::geo {
namespace {

std::string Fixed4(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.4f", v);
  return buf;
}

// Reference values are what redis-server 7.0 replies (GEOADD + ZSCORE, GEOPOS, GEOHASH,
// GEODIST) for the same input.
TEST(Geohash, ScoreInterleavesLatitudeInEvenBits) {
  EXPECT_EQ(Score(13.361389, 38.115556), 3479099956230698.0);
  EXPECT_EQ(Score(15.087269, 37.502669), 3479447370796909.0);
  EXPECT_EQ(Score(-180, -85.05112878), 0.0);
  // The lower-left cell's neighbour to the east: longitude index 1 is bit 1.
  EXPECT_EQ(Score(-180 + 1.5 * 360.0 / (1 << 26), -85.05112878), 2.0);
  EXPECT_EQ(Score(-180, -85.05112878 + 1.5 * 2 * 85.05112878 / (1 << 26)), 1.0);
}

TEST(Geohash, MaxEdgesSpillPastFiftyTwoBits) {
  // 180 and 85.05112878 scale to 2^26 exactly: bits 53 and 52, as Redis stores them.
  EXPECT_EQ(Score(180, 85.05112878), 13510798882111488.0);
  double lon, lat;
  DecodeScore(13510798882111488.0, &lon, &lat);
  EXPECT_EQ(FormatLongDoubleHuman(lon), "180");
  EXPECT_EQ(FormatLongDoubleHuman(lat), "85.0511287799999991");
}

TEST(Geohash, DecodeGivesTheCellCentre) {
  double lon, lat;
  DecodeScore(3479099956230698.0, &lon, &lat);
  EXPECT_EQ(FormatLongDoubleHuman(lon), "13.36138933897018433");
  EXPECT_EQ(FormatLongDoubleHuman(lat), "38.11555639549629859");
  // Encoding the centre again gives the same cell.
  EXPECT_EQ(Score(lon, lat), 3479099956230698.0);
}

TEST(Geohash, ArbitraryScoresDecodeLikeRedis) {
  double lon, lat;
  DecodeScore(-1, &lon, &lat);  // all bits set: the top right corner, clamped
  EXPECT_EQ(FormatLongDoubleHuman(lon), "180");
  EXPECT_EQ(FormatLongDoubleHuman(lat), "85.0511287799999991");
  DecodeScore(1e300, &lon, &lat);  // out of range converts to 2^63
  EXPECT_EQ(FormatLongDoubleHuman(lon), "-179.99999731779098511");
  EXPECT_EQ(FormatLongDoubleHuman(lat), "-85.05112751263942528");
  EXPECT_EQ(ScoreBits(1e19), 10000000000000000000ULL);
  EXPECT_EQ(ScoreBits(-5e18), static_cast<uint64_t>(-5000000000000000000LL));
  EXPECT_EQ(ScoreBits(1e300), 0ULL);
  EXPECT_EQ(ScoreBits(-1e300), 1ULL << 63);
}

TEST(Geohash, StandardGeohashStrings) {
  char buf[11];
  GeohashString(3479099956230698.0, buf);
  EXPECT_EQ(std::string(buf, 11), "sqc8b49rny0");
  GeohashString(3479447370796909.0, buf);
  EXPECT_EQ(std::string(buf, 11), "sqdtr74hyu0");
  GeohashString(-1, buf);
  EXPECT_EQ(std::string(buf, 11), "bp05b5048p0");
}

TEST(Geohash, HaversineDistance) {
  double lon1, lat1, lon2, lat2;
  DecodeScore(3479099956230698.0, &lon1, &lat1);
  DecodeScore(3479447370796909.0, &lon2, &lat2);
  EXPECT_EQ(Fixed4(Distance(lon1, lat1, lon2, lat2)), "166274.1516");
  EXPECT_EQ(Fixed4(Distance(lon1, lat1, lon2, lat2) / 1000), "166.2742");
  EXPECT_EQ(Distance(lon1, lat1, lon1, lat1), 0.0);
  // One meridian: the latitude difference on the sphere.
  EXPECT_DOUBLE_EQ(Distance(10, 0, 10, 1), kEarthRadiusM * (M_PI / 180.0));
}

TEST(Geohash, EncodeRefusesPointsOutsideTheRanges) {
  Cell c;
  EXPECT_FALSE(Encode(kLonRange, kLatRange, 180.0000001, 0, kMaxStep, &c));
  EXPECT_FALSE(Encode(kLonRange, kLatRange, 0, -85.06, kMaxStep, &c));
  EXPECT_FALSE(Encode(kLonRange, kLatRange, 0, 0, 0, &c));
  EXPECT_TRUE(Encode(kLonRange, kLatRange, 0, 0, 1, &c));
  EXPECT_EQ(c.bits, 3u);  // the upper right of the four step-1 cells
  EXPECT_EQ(Align52(c), 3ULL << 50);
  EXPECT_TRUE(ValidLonLat(-180, 85.05112878));
  EXPECT_FALSE(ValidLonLat(0, 85.051129));
}

TEST(Geohash, StepGrowsAsTheRadiusShrinks) {
  EXPECT_EQ(EstimateStep(0, 0), 26);
  EXPECT_EQ(EstimateStep(1000, 0), 14);
  EXPECT_EQ(EstimateStep(500, 0), 15);
  EXPECT_EQ(EstimateStep(1000, 70), 13);  // cells are narrower near the poles
  EXPECT_EQ(EstimateStep(1000, -81), 12);
  EXPECT_EQ(EstimateStep(5e7, 0), 1);
  EXPECT_EQ(EstimateStep(0.001, 0), 26);
}

TEST(Geohash, SearchCellsSurroundTheCentre) {
  Shape s;
  s.lon = 13.361389;
  s.lat = 38.115556;
  s.radius = 200;
  s.unit = 1000;
  auto cells = SearchCells(s);
  ASSERT_FALSE(cells[0].IsNone());
  Cell centre;
  Encode(kLonRange, kLatRange, s.lon, s.lat, cells[0].step, &centre);
  EXPECT_EQ(cells[0], centre);
  for (const Cell& c : cells) {
    if (!c.IsNone()) {
      EXPECT_EQ(c.step, cells[0].step);
    }
  }
  // A tiny radius in the middle of a cell needs no neighbour at all.
  s.radius = 0;
  cells = SearchCells(s);
  for (int i = 1; i < 9; ++i) EXPECT_TRUE(cells[i].IsNone()) << i;
}

TEST(Geohash, HugeRadiusUsesTheFourStepOneCells) {
  Shape s;
  s.radius = 1e9;
  auto cells = SearchCells(s);
  EXPECT_EQ(cells[0].step, 1);
  // The grid wraps: north and south, east and west are the same cells, none dropped.
  EXPECT_EQ(cells[1], cells[2]);
  EXPECT_EQ(cells[3], cells[4]);
  for (const Cell& c : cells) EXPECT_FALSE(c.IsNone());
}

TEST(Geohash, ShapesMeasureFromTheCentre) {
  Shape circle;
  circle.radius = 1000;
  double d;
  EXPECT_TRUE(InShape(circle, 0, 0.0089, &d));
  EXPECT_LT(d, 1000);
  EXPECT_FALSE(InShape(circle, 0, 0.0091, &d));
  Shape box;
  box.kind = Shape::kBox;
  box.width = 2000;  // +-1000 m east-west, +-250 m north-south
  box.height = 500;
  EXPECT_TRUE(InShape(box, 0.0089, 0, &d));
  EXPECT_EQ(Fixed4(d), Fixed4(Distance(0, 0, 0.0089, 0)));
  EXPECT_FALSE(InShape(box, 0, 0.0089, &d));
  EXPECT_TRUE(InShape(box, 0.0089, 0.0022, &d));
}

}  // namespace
}  // namespace vireo::geo
