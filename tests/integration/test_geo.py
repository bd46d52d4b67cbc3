"""Geo family against the real server: redis-py's geo API, stored searches, RESP3 shapes, and a
big index whose searches are checked against a brute-force haversine over every member."""

import math
import random

import pytest

EARTH_RADIUS_M = 6372797.560856
UNITS = {"m": 1.0, "km": 1000.0, "ft": 0.3048, "mi": 1609.34}

SICILY = [13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania",
          13.583333, 37.316667, "Agrigento"]


def haversine(lon1, lat1, lon2, lat2):
    lon1, lat1, lon2, lat2 = map(math.radians, (lon1, lat1, lon2, lat2))
    u = math.sin((lat2 - lat1) / 2)
    v = math.sin((lon2 - lon1) / 2)
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(u * u + math.cos(lat1) * math.cos(lat2) * v * v))


def test_add_and_read_back(r):
    assert r.geoadd("Sicily", SICILY) == 3
    assert r.geoadd("Sicily", [13.361389, 38.115556, "Palermo"], nx=True) == 0
    assert r.geoadd("Sicily", [13.5, 38.0, "Palermo"], xx=True, ch=True) == 1
    assert r.geoadd("Sicily", SICILY[:3], ch=True) == 1
    assert r.type("Sicily") == "zset"
    assert r.zscore("Sicily", "Palermo") == 3479099956230698
    (lon, lat), missing = r.geopos("Sicily", "Palermo", "nosuch")
    assert missing is None
    assert lon == pytest.approx(13.361389, abs=1e-5) and lat == pytest.approx(38.115556, abs=1e-5)
    assert r.geohash("Sicily", "Palermo", "Catania", "x") == ["sqc8b49rny0", "sqdtr74hyu0", None]
    assert r.geodist("Sicily", "Palermo", "Catania") == 166274.1516
    assert r.geodist("Sicily", "Palermo", "Catania", "km") == 166.2742
    assert r.geodist("Sicily", "Palermo", "Catania", "mi") == 103.3182
    assert r.geodist("Sicily", "Palermo", "nosuch") is None
    with pytest.raises(Exception, match="invalid longitude,latitude pair 181.000000,0.000000"):
        r.geoadd("Sicily", [181, 0, "x"])
    with pytest.raises(Exception, match="unsupported unit provided"):
        r.execute_command("GEODIST", "Sicily", "Palermo", "Catania", "yd")
    r.set("s", "v")
    with pytest.raises(Exception, match="WRONGTYPE"):
        r.geopos("s", "a")


def test_searches_and_stores(r):
    r.geoadd("Sicily", SICILY)
    assert r.geosearch("Sicily", longitude=15, latitude=37, radius=200, unit="km", sort="ASC",
                       withdist=True) == [["Catania", 56.4413], ["Agrigento", 130.4235],
                                          ["Palermo", 190.4424]]
    assert r.geosearch("Sicily", member="Palermo", width=400, height=400, unit="km",
                       sort="DESC", count=2) == ["Catania", "Agrigento"]
    assert r.georadiusbymember("Sicily", "Agrigento", 100, unit="km", sort="ASC") == [
        "Agrigento", "Palermo"]
    assert sorted(r.georadius("Sicily", 15, 37, 200, unit="km")) == [
        "Agrigento", "Catania", "Palermo"]
    assert r.georadius("Sicily", 15, 37, 200, unit="km", sort="ASC", store="near") == 3
    assert r.zrange("near", 0, -1) == ["Agrigento", "Palermo", "Catania"]
    assert r.geosearchstore("far", "Sicily", longitude=15, latitude=37, radius=200, unit="km",
                            sort="DESC", count=1, storedist=True) == 1
    assert r.zrange("far", 0, -1, withscores=True) == [("Palermo", 190.44242984775784)]
    # An empty result deletes the destination.
    assert r.geosearchstore("far", "Sicily", longitude=1, latitude=1, radius=1, unit="m") == 0
    assert r.exists("far") == 0
    with pytest.raises(Exception, match="exactly one of BYRADIUS, BYBOX and BYPOLYGON"):
        r.execute_command("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "ASC", "WITHDIST", "ANY")
    with pytest.raises(Exception, match="could not decode requested zset member"):
        r.execute_command("GEORADIUSBYMEMBER", "Sicily", "nosuch", "1", "km")


def test_resp3_shapes(server):
    c = server.raw()
    assert c.call("HELLO", "3")[b"proto"] == 3
    c.call("GEOADD", "Sicily", *SICILY)
    assert c.call("GEOPOS", "Sicily", "Palermo", "x") == [
        [13.36138933897018433, 38.11555639549629859], None]
    assert c.call("GEODIST", "Sicily", "Palermo", "Catania") == b"166274.1516"
    assert c.call("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "100", "km",
                  "WITHCOORD", "WITHHASH") == [
        [b"Catania", 3479447370796909, [15.08726745843887329, 37.50266842333162032]]]


def search(c, lon, lat, *shape):
    """GEOSEARCH ... WITHDIST ASC as [(member, distance)] (redis-py drops a 0 longitude)."""
    reply = c.call("GEOSEARCH", "big", "FROMLONLAT", repr(lon), repr(lat), *map(str, shape),
                   "WITHDIST", "ASC")
    return [(n.decode(), float(d)) for n, d in reply]


def test_big_index_agrees_with_brute_force(server, r):
    c = server.raw()
    rng = random.Random(11)
    args = []
    for i in range(3000):
        if i % 3 == 0:
            lon, lat = rng.uniform(-180, 180), rng.uniform(-85, 85)
        else:  # dense clusters, so small searches find something
            lon = rng.choice([2.35, -73.98, 139.69]) + rng.uniform(-2, 2)
            lat = rng.choice([48.85, 40.75, 35.68]) + rng.uniform(-2, 2)
        args += [lon, lat, f"p{i}"]
    assert r.geoadd("big", args) == 3000
    assert r.object("encoding", "big") == "skiplist"
    names = [f"p{i}" for i in range(3000)]
    pos = dict(zip(names, r.geopos("big", *names)))
    total = 0
    for _ in range(60):
        if rng.random() < 0.7:
            lon, lat = rng.choice([(2.35, 48.85), (-73.98, 40.75), (139.69, 35.68)])
            lon, lat = lon + rng.uniform(-3, 3), lat + rng.uniform(-3, 3)
        else:
            lon, lat = rng.choice([0, 179.9, -30, -180]), rng.uniform(-80, 80)
        unit = rng.choice(list(UNITS))
        if rng.random() < 0.5:
            radius = rng.choice([1, 10, 50, 200, 1000, 5000]) * 1000 / UNITS[unit]
            got = search(c, lon, lat, "BYRADIUS", radius, unit)
            limit_m = radius * UNITS[unit]
            inside = {n for n, (x, y) in pos.items() if haversine(lon, lat, x, y) <= limit_m}
            border = {n for n, (x, y) in pos.items()
                      if abs(haversine(lon, lat, x, y) - limit_m) < 1e-6 * limit_m + 1e-3}
        else:
            w, h = (rng.choice([20, 200, 2000]) * 1000 / UNITS[unit] for _ in range(2))
            got = search(c, lon, lat, "BYBOX", w, h, unit)
            half_w, half_h = w * UNITS[unit] / 2, h * UNITS[unit] / 2

            def in_box(x, y, slack=0.0):
                return (EARTH_RADIUS_M * abs(math.radians(y - lat)) <= half_h + slack and
                        haversine(x, y, lon, y) <= half_w + slack)
            inside = {n for n, (x, y) in pos.items() if in_box(x, y)}
            border = {n for n, (x, y) in pos.items() if in_box(x, y, 1e-3) != in_box(x, y)}
        found = [n for n, _ in got]
        total += len(found)
        assert len(found) == len(set(found))
        assert set(found) - border == inside - border
        dists = [d for _, d in got]
        assert dists == sorted(dists)
        for n, d in got[:20]:
            assert d == pytest.approx(haversine(lon, lat, *pos[n]) / UNITS[unit], abs=2e-4)
    assert total > 1000  # the searches did find members


def test_keyspace_events(server, r):
    r.config_set("notify-keyspace-events", "KEA")
    sub = server.raw()
    sub.call("PSUBSCRIBE", "__keyevent@0__:*")
    r.geoadd("Sicily", SICILY)
    r.geoadd("Sicily", SICILY[:3])  # nothing changes: no event
    r.georadius("Sicily", 15, 37, 200, unit="km", store="near")
    r.geosearchstore("found", "Sicily", member="Palermo", radius=1, unit="km")
    r.geosearchstore("found", "Sicily", longitude=1, latitude=1, radius=1, unit="m")
    r.georadius("nosuch", 15, 37, 200, unit="km", store="near")
    events = [sub.read_reply() for _ in range(5)]
    assert [(e[2].decode(), e[3].decode()) for e in events] == [
        ("__keyevent@0__:zadd", "Sicily"), ("__keyevent@0__:georadiusstore", "near"),
        ("__keyevent@0__:geosearchstore", "found"), ("__keyevent@0__:del", "found"),
        ("__keyevent@0__:del", "near")]
