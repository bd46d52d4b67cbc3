// Geo commands in-process: replies and errors byte for byte as redis-server 7.0 gives them for
// the same commands (recorded from it).
#include <string>
#include <vector>

#include "tests/unit/command_fixture.h"

namespace vireo {
namespace {

class GeoCommandsTest : public CommandTest {
 protected:
  // "*N\r\n" then each item as a bulk string.
  static std::string Bulks(const std::vector<std::string>& items) {
    std::string out = "*" + std::to_string(items.size()) + "\r\n";
    for (const auto& s : items) out += Bulk(s);
    return out;
  }
  void AddSicily() {
    ASSERT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269",
                   "37.502669", "Catania", "13.583333", "37.316667", "Agrigento"}),
              Int(3));
  }
};

constexpr const char* kWrongType =
    "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
constexpr const char* kSyntax = "-ERR syntax error\r\n";

TEST_F(GeoCommandsTest, GeoAddOptions) {
  EXPECT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                 "Catania"}),
            Int(2));
  EXPECT_EQ(Run({"zscore", "Sicily", "Palermo"}), Bulk("3479099956230698"));
  EXPECT_EQ(Run({"geoadd", "Sicily", "nx", "13.361389", "38.115556", "Palermo", "12.5", "37.8",
                 "Marsala"}),
            Int(1));
  EXPECT_EQ(Run({"geoadd", "Sicily", "xx", "ch", "13.5", "38.1", "Palermo", "1", "1", "nosuch"}),
            Int(1));
  EXPECT_EQ(Run({"zscore", "Sicily", "nosuch"}), kNil);
  EXPECT_EQ(Run({"geoadd", "Sicily", "ch", "13.361389", "38.115556", "Palermo"}), Int(1));
  EXPECT_EQ(Run({"geoadd", "Sicily", "13.361389", "38.115556", "Palermo"}), Int(0));
  EXPECT_EQ(Run({"geoadd", "newkey", "xx", "1", "1", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "newkey"}), Int(0));
  // A geo index is a sorted set.
  EXPECT_EQ(Run({"type", "Sicily"}), "+zset\r\n");
  EXPECT_EQ(Run({"object", "encoding", "Sicily"}), Bulk("listpack"));
}

TEST_F(GeoCommandsTest, GeoAddErrors) {
  EXPECT_EQ(Run({"geoadd", "k", "nx", "xx", "1", "1", "a"}), kSyntax);
  EXPECT_EQ(Run({"geoadd", "k", "ch", "ch", "ch"}), kSyntax);
  EXPECT_EQ(Run({"geoadd", "k", "1", "2", "a", "3"}), kSyntax);
  EXPECT_EQ(Run({"geoadd", "k", "1", "1"}),
            Err("ERR wrong number of arguments for 'geoadd' command"));
  EXPECT_EQ(Run({"geoadd", "k", "181", "1", "a"}),
            Err("ERR invalid longitude,latitude pair 181.000000,1.000000"));
  EXPECT_EQ(Run({"geoadd", "k", "1", "-85.06", "a"}),
            Err("ERR invalid longitude,latitude pair 1.000000,-85.060000"));
  EXPECT_EQ(Run({"geoadd", "k", "abc", "1", "a"}), Err("ERR value is not a valid float"));
  // Every position is checked first: nothing of a bad command is added.
  EXPECT_EQ(Run({"geoadd", "k", "1", "2", "a", "3", "1000", "b"}),
            Err("ERR invalid longitude,latitude pair 3.000000,1000.000000"));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  Run({"set", "s", "v"});
  EXPECT_EQ(Run({"geoadd", "s", "1", "1", "a"}), kWrongType);
  // Positions are checked before the key's type.
  EXPECT_EQ(Run({"geoadd", "s", "1", "100", "a"}),
            Err("ERR invalid longitude,latitude pair 1.000000,100.000000"));
}

TEST_F(GeoCommandsTest, PosHashDist) {
  AddSicily();
  EXPECT_EQ(Run({"geopos", "Sicily", "Palermo", "Catania", "nosuch"}),
            "*3\r\n*2\r\n" + Bulk("13.36138933897018433") + Bulk("38.11555639549629859") +
                "*2\r\n" + Bulk("15.08726745843887329") + Bulk("37.50266842333162032") + "*-1\r\n");
  EXPECT_EQ(Run({"geohash", "Sicily", "Palermo", "Catania", "nosuch"}),
            "*3\r\n" + Bulk("sqc8b49rny0") + Bulk("sqdtr74hyu0") + kNil);
  EXPECT_EQ(Run({"geohash", "Sicily"}), "*0\r\n");
  EXPECT_EQ(Run({"geohash", "nokey", "a"}), "*1\r\n$-1\r\n");
  EXPECT_EQ(Run({"geopos", "nokey", "a"}), "*1\r\n*-1\r\n");
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania"}), Bulk("166274.1516"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "km"}), Bulk("166.2742"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "MI"}), Bulk("103.3182"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "ft"}), Bulk("545518.8700"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Palermo"}), Bulk("0.0000"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "nosuch"}), kNil);
  EXPECT_EQ(Run({"geodist", "nokey", "a", "b"}), kNil);
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "cm"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania", "km", "extra"}), kSyntax);
  Run({"set", "s", "v"});
  EXPECT_EQ(Run({"geodist", "s", "a", "b"}), kWrongType);
  EXPECT_EQ(Run({"geopos", "s", "a"}), kWrongType);
  EXPECT_EQ(Run({"geohash", "s", "a"}), kWrongType);
}

TEST_F(GeoCommandsTest, Resp3Coordinates) {
  AddSicily();
  Run({"hello", "3"});
  // Coordinates become doubles; distances stay bulk strings.
  EXPECT_EQ(Run({"geopos", "Sicily", "Palermo", "nosuch"}),
            "*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n_\r\n");
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "Catania"}), Bulk("166274.1516"));
  EXPECT_EQ(Run({"geodist", "Sicily", "Palermo", "x"}), "_\r\n");
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "byradius", "100", "km",
                 "withcoord", "withdist", "withhash"}),
            "*1\r\n*4\r\n" + Bulk("Catania") + Bulk("56.4413") + ":3479447370796909\r\n" +
                "*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n");
}

TEST_F(GeoCommandsTest, RadiusSearches) {
  AddSicily();
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km"}),
            Bulks({"Agrigento", "Palermo", "Catania"}));  // scan order
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "withdist", "withcoord",
                 "withhash", "asc"}),
            "*3\r\n*4\r\n" + Bulk("Catania") + Bulk("56.4413") + ":3479447370796909\r\n*2\r\n" +
                Bulk("15.08726745843887329") + Bulk("37.50266842333162032") + "*4\r\n" +
                Bulk("Agrigento") + Bulk("130.4235") + ":3479030013248308\r\n*2\r\n" +
                Bulk("13.5833314061164856") + Bulk("37.31666804993816555") + "*4\r\n" +
                Bulk("Palermo") + Bulk("190.4424") + ":3479099956230698\r\n*2\r\n" +
                Bulk("13.36138933897018433") + Bulk("38.11555639549629859"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "desc", "count", "1"}),
            Bulks({"Palermo"}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "count", "2", "any"}),
            Bulks({"Agrigento", "Palermo"}));  // the first found, unsorted
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "100", "km", "count", "2"}),
            Bulks({"Catania"}));
  EXPECT_EQ(Run({"georadiusbymember", "Sicily", "Agrigento", "100", "km", "withdist"}),
            "*2\r\n*2\r\n" + Bulk("Agrigento") + Bulk("0.0000") + "*2\r\n" + Bulk("Palermo") +
                Bulk("90.9778"));
  EXPECT_EQ(Run({"georadiusbymember_ro", "Sicily", "Agrigento", "100", "km", "asc"}),
            Bulks({"Agrigento", "Palermo"}));
  EXPECT_EQ(Run({"georadius_ro", "Sicily", "15", "37", "200", "km", "desc"}),
            Bulks({"Palermo", "Agrigento", "Catania"}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "1", "m"}), "*0\r\n");
  EXPECT_EQ(Run({"georadius", "nokey", "15", "37", "1", "m"}), "*0\r\n");
}

TEST_F(GeoCommandsTest, BoxAndMemberSearches) {
  AddSicily();
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "Palermo", "byradius", "200", "km", "asc",
                 "withdist"}),
            "*3\r\n*2\r\n" + Bulk("Palermo") + Bulk("0.0000") + "*2\r\n" + Bulk("Agrigento") +
                Bulk("90.9778") + "*2\r\n" + Bulk("Catania") + Bulk("166.2742"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "400", "400", "km",
                 "asc", "withdist"}),
            "*3\r\n*2\r\n" + Bulk("Catania") + Bulk("56.4413") + "*2\r\n" + Bulk("Agrigento") +
                Bulk("130.4235") + "*2\r\n" + Bulk("Palermo") + Bulk("190.4424"));
  // Within 200 km of the centre but outside a 100 km wide box.
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "100", "100", "km", "asc"}),
      "*0\r\n");
  EXPECT_EQ(
      Run({"geosearch", "Sicily", "fromlonlat", "15", "37", "bybox", "100", "200", "km", "asc"}),
      Bulks({"Catania"}));
  EXPECT_EQ(Run({"geosearch", "nokey", "frommember", "nosuch", "byradius", "1", "m"}), "*0\r\n");
}

TEST_F(GeoCommandsTest, StoreAndStoreDist) {
  AddSicily();
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "asc", "store", "dst"}), Int(3));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}),
            Bulks({"Agrigento", "3479030013248308", "Palermo", "3479099956230698", "Catania",
                   "3479447370796909"}));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "desc", "count", "2", "storedist",
                 "dst2"}),
            Int(2));
  EXPECT_EQ(Run({"zrange", "dst2", "0", "-1", "withscores"}),
            Bulks({"Agrigento", "130.42348706714702", "Palermo", "190.44242984775784"}));
  // No match (or no source) deletes the destination.
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "1", "km", "store", "dst2"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst2"}), Int(0));
  EXPECT_EQ(Run({"georadius", "nokey", "15", "37", "1", "km", "store", "dst"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"geosearchstore", "dst", "Sicily", "fromlonlat", "15", "37", "byradius", "200",
                 "km", "storedist", "count", "2", "desc"}),
            Int(2));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}),
            Bulks({"Agrigento", "130.42348706714702", "Palermo", "190.44242984775784"}));
  // The destination is replaced whatever it held, TTL included.
  Run({"set", "s", "v", "ex", "100"});
  EXPECT_EQ(Run({"geosearchstore", "s", "Sicily", "frommember", "Catania", "byradius", "1", "km"}),
            Int(1));
  EXPECT_EQ(Run({"zrange", "s", "0", "-1", "withscores"}), Bulks({"Catania", "3479447370796909"}));
  EXPECT_EQ(Run({"ttl", "s"}), Int(-1));
  EXPECT_EQ(Run({"geosearchstore", "dst", "nokey", "frommember", "x", "byradius", "200", "km"}),
            Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"georadiusbymember", "nokey", "nosuch", "abc", "km", "store", "x"}), Int(0));
}

TEST_F(GeoCommandsTest, StoredResultsConvertPastTheListpackLimits) {
  std::vector<std::string> add = {"geoadd", "big"};
  for (int i = 0; i < 200; ++i) {
    add.push_back("10");
    add.push_back("10");
    add.push_back("m" + std::to_string(i));
  }
  EXPECT_EQ(Run(add), Int(200));
  EXPECT_EQ(Run({"object", "encoding", "big"}), Bulk("skiplist"));
  EXPECT_EQ(Run({"geosearchstore", "d", "big", "fromlonlat", "10", "10", "byradius", "1", "m",
                 "count", "128"}),
            Int(128));
  EXPECT_EQ(Run({"object", "encoding", "d"}), Bulk("listpack"));
  EXPECT_EQ(Run({"geosearchstore", "d", "big", "fromlonlat", "10", "10", "byradius", "1", "m",
                 "count", "129"}),
            Int(129));
  EXPECT_EQ(Run({"object", "encoding", "d"}), Bulk("skiplist"));
}

TEST_F(GeoCommandsTest, SearchErrors) {
  AddSicily();
  const std::vector<std::string> from = {"geosearch", "Sicily", "fromlonlat", "15", "37"};
  auto with = [&](std::vector<std::string> tail) {
    std::vector<std::string> v = from;
    v.insert(v.end(), tail.begin(), tail.end());
    return Run(v);
  };
  EXPECT_EQ(with({"byradius", "200", "km", "count", "0"}), Err("ERR COUNT must be > 0"));
  EXPECT_EQ(with({"byradius", "200", "km", "count", "-3"}), Err("ERR COUNT must be > 0"));
  EXPECT_EQ(with({"byradius", "200", "km", "count", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(with({"byradius", "200", "km", "any"}),
            Err("ERR the ANY argument requires COUNT argument"));
  EXPECT_EQ(with({"byradius", "200", "km", "count"}), kSyntax);
  EXPECT_EQ(with({"byradius", "200", "km", "store", "dst"}), kSyntax);
  EXPECT_EQ(with({"byradius", "200", "km", "storedist"}), kSyntax);
  EXPECT_EQ(with({"byradius", "-1", "km"}), Err("ERR radius cannot be negative"));
  EXPECT_EQ(with({"byradius", "x", "km"}), Err("ERR need numeric radius"));
  EXPECT_EQ(with({"byradius", "1", "yd"}),
            Err("ERR unsupported unit provided. please use M, KM, FT, MI"));
  EXPECT_EQ(with({"bybox", "-1", "1", "km"}), Err("ERR height or width cannot be negative"));
  EXPECT_EQ(with({"bybox", "x", "1", "km"}), Err("ERR need numeric width"));
  EXPECT_EQ(with({"bybox", "1", "x", "km"}), Err("ERR need numeric height"));
  EXPECT_EQ(with({"byradius", "1", "m", "bybox", "1", "1", "m"}), kSyntax);
  EXPECT_EQ(with({"byradius", "1", "m", "frommember", "Palermo"}), kSyntax);
  EXPECT_EQ(Run({"geosearch", "Sicily", "fromlonlat", "200", "37", "bybox", "1", "1", "km"}),
            Err("ERR invalid longitude,latitude pair 200.000000,37.000000"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "nosuch", "byradius", "1", "m"}),
            Err("ERR could not decode requested zset member"));
  // The command name appears as it was typed.
  EXPECT_EQ(Run({"GeoSearch", "Sicily", "byradius", "1", "km", "withdist", "asc"}),
            Err("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GeoSearch"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "Palermo", "withdist", "asc", "count", "1"}),
            Err("ERR exactly one of BYRADIUS, BYBOX and BYPOLYGON can be specified for geosearch"));
  EXPECT_EQ(Run({"geosearch", "Sicily", "frommember", "Palermo", "asc"}),
            Err("ERR wrong number of arguments for 'geosearch' command"));
  EXPECT_EQ(Run({"geosearchstore", "d", "Sicily", "fromlonlat", "15", "37", "byradius", "200", "km",
                 "withdist"}),
            Err("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD "
                "options"));
  EXPECT_EQ(Run({"georadius_ro", "Sicily", "15", "37", "200", "km", "store", "dst"}), kSyntax);
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "withdist", "store", "dst"}),
            Err("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and "
                "WITHCOORD options"));
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "withdist", "store"}), kSyntax);
  EXPECT_EQ(Run({"georadius", "Sicily", "15", "37", "200", "km", "foo"}), kSyntax);
  EXPECT_EQ(Run({"georadiusbymember", "Sicily", "nosuch", "100", "km"}),
            Err("ERR could not decode requested zset member"));
  // Without the key, GEORADIUSBYMEMBER checks neither member nor radius.
  EXPECT_EQ(Run({"georadiusbymember", "nokey", "nosuch", "abc", "km", "withdist"}), "*0\r\n");
  // The key's type is checked before anything else.
  Run({"set", "s", "v"});
  EXPECT_EQ(Run({"georadius", "s", "x", "y", "z", "w"}), kWrongType);
  EXPECT_EQ(Run({"geosearch", "s", "a", "b", "c", "d", "e"}), kWrongType);
}

// Equal distances: a full sort keeps scan order, a COUNT-limited one leaves them as Valkey's
// partial quicksort does (recorded from redis-server 7.0).
TEST_F(GeoCommandsTest, TiesFollowValkeysSorts) {
  std::vector<std::string> add = {"geoadd", "t"};
  const char* lons[] = {"10.000", "10.001", "10.002"};
  for (int i = 0; i < 45; ++i) {
    add.push_back(lons[i % 3]);
    add.push_back("10");
    add.push_back((i < 10 ? "m0" : "m") + std::to_string(i));
  }
  EXPECT_EQ(Run(add), Int(45));
  const std::vector<std::string> search = {"geosearch", "t", "fromlonlat", "10",   "10",
                                           "byradius",  "1", "km",         "count"};
  auto count = [&](const char* n, const char* order) {
    std::vector<std::string> v = search;
    v.push_back(n);
    v.push_back(order);
    return Run(v);
  };
  EXPECT_EQ(count("5", "asc"), Bulks({"m42", "m06", "m09", "m12", "m15"}));
  EXPECT_EQ(count("5", "desc"), Bulks({"m05", "m41", "m38", "m35", "m32"}));
  EXPECT_EQ(count("20", "asc"),
            Bulks({"m42", "m06", "m09", "m12", "m15", "m18", "m21", "m24", "m27", "m30",
                   "m33", "m36", "m00", "m39", "m03", "m37", "m01", "m04", "m07", "m10"}));

  Run({"geoadd", "ties", "10", "10", "a", "10", "10", "b", "10", "10", "c", "10.001", "10", "near",
       "10", "10", "d"});
  EXPECT_EQ(Run({"geosearch", "ties", "fromlonlat", "10", "10", "byradius", "1", "km", "asc"}),
            Bulks({"a", "b", "c", "d", "near"}));
  EXPECT_EQ(Run({"geosearch", "ties", "fromlonlat", "10", "10", "byradius", "1", "km", "count", "2",
                 "desc"}),
            Bulks({"near", "a"}));
}

TEST_F(GeoCommandsTest, EdgesOfTheMap) {
  EXPECT_EQ(Run({"geoadd", "e", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw"}), Int(2));
  EXPECT_EQ(Run({"zscore", "e", "ne"}), Bulk("13510798882111488"));
  EXPECT_EQ(Run({"zscore", "e", "sw"}), Bulk("0"));
  EXPECT_EQ(Run({"geopos", "e", "ne"}), "*1\r\n*2\r\n" + Bulk("180") + Bulk("85.0511287799999991"));
  EXPECT_EQ(Run({"geohash", "e", "ne", "sw"}),
            "*2\r\n" + Bulk("bp05b5048p0") + Bulk("00bh0hbj200"));
  // A huge radius scans the four step-1 cells, which end below the score of a point on the
  // 180th meridian and the northern limit (its cell indexes spill past 26 bits).
  EXPECT_EQ(Run({"geosearch", "e", "fromlonlat", "0", "0", "byradius", "inf", "m", "asc"}),
            Bulks({"sw"}));
}

TEST_F(GeoCommandsTest, CommandInfo) {
  std::string info = Run({"command", "info", "georadius"});
  EXPECT_NE(info.find("movablekeys"), std::string::npos);
  EXPECT_NE(info.find("@geo"), std::string::npos);
  EXPECT_NE(Run({"command", "info", "geosearchstore"}).find(":2\r\n"), std::string::npos);
}

}  // namespace
}  // namespace vireo
