"""GEOSEARCH / GEOSEARCHSTORE ... BYPOLYGON (Valkey 9.0): Valkey's documented and tested
replies, its errors, and a property test of random polygons against a brute-force even-odd
test over every member (edges straight in the lon/lat plane, as Valkey draws them)."""

import random

import pytest
import redis

from conftest import wait_for
from test_aof import aof_commands, incr_file, start_aof

def plain(r):
    """r, with redis-py's reply parsing of GEOSEARCH, GEOSEARCHSTORE turned off (it expects its own arguments)."""
    for name in ('GEOSEARCH', 'GEOSEARCHSTORE'):
        r.set_response_callback(name, lambda reply, **kw: reply)
    return r


SICILY_POLY = ["5", "12.41098696654226", "38.05033923003755", "15.107936245794182",
               "38.00616649901906", "18.148439288534455", "38.63804787603499",
               "17.80831874257693", "39.50316813110968", "12.458468633214036",
               "38.57719533463012"]


def add_sicily(r):
    r.geoadd("Sicily", [13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania",
                        12.758489, 38.788135, "edge1", 17.241510, 38.788135, "edge2"])


def test_doc_example(sr):
    plain(sr)
    add_sicily(sr)
    assert sr.execute_command("GEOSEARCH", "Sicily", "BYPOLYGON", *SICILY_POLY) == \
        ["Palermo", "edge2"]
    got = sr.execute_command("GEOSEARCH", "Sicily", "BYPOLYGON", *SICILY_POLY, "ASC",
                             "WITHCOORD", "WITHDIST")
    # Distances in metres from the polygon's centre.
    assert got == [["Palermo", "166482.0159",
                    ["13.36138933897018433", "38.11555639549629859"]],
                   ["edge2", "180861.7725",
                    ["17.24151045083999634", "38.78813451624225195"]]]
    assert sr.execute_command("GEOSEARCH", "Sicily", "BYPOLYGON", *SICILY_POLY, "DESC",
                              "COUNT", "1") == ["edge2"]
    assert sr.execute_command("GEOSEARCH", "Sicily", "BYPOLYGON", *SICILY_POLY, "COUNT", "1",
                              "ANY") in (["Palermo"], ["edge2"])
    assert sr.execute_command("GEOSEARCH", "nokey", "BYPOLYGON", *SICILY_POLY) == []


SYDNEY = [
    (151.20932132005692, -33.877723137822436, "Elizabeth"),
    (151.2119820713997, -33.87697539508043, "Connaught"),
    (151.2119820713997, -33.87156123068408, "StJames"),
    (151.2229523062706, -33.883973760201364, "Oxford"),
    (151.22852593660355, -33.88116782387797, "Goodhope"),
    (151.2224105000496, -33.87544442350019, "KingsCross"),
    (151.22953444719315, -33.874838625143106, "RegBartley"),
]
SYDNEY_POLY = ["11", "151.21619137411474", "-33.869643764947696", "151.20408853981647",
               "-33.87845382042545", "151.2123775086366", "-33.87864711938855",
               "151.21046943124387", "-33.87588862400425", "151.21701035939626",
               "-33.874286511854834", "151.2239557405701", "-33.8735722632175",
               "151.22495056246407", "-33.87893571656996", "151.2274447496748",
               "-33.882307713036354", "151.23212935868654", "-33.88136096120022",
               "151.23097291274465", "-33.87456240592362", "151.22475424781445",
               "-33.87099633192101"]


def test_valkey_sydney_cases(sr):
    plain(sr)
    sr.geoadd("points", [x for p in SYDNEY for x in p])
    assert sr.execute_command("GEOSEARCH", "points", "BYPOLYGON", *SYDNEY_POLY) == \
        ["Goodhope", "RegBartley", "Elizabeth"]
    assert sr.execute_command("GEOSEARCH", "points", "BYPOLYGON", *SYDNEY_POLY, "WITHDIST",
                              "WITHCOORD", "DESC") == [
        ["Elizabeth", "1035.7735", ["151.20932132005691528", "-33.87772313782243572"]],
        ["Goodhope", "929.4979", ["151.22852593660354614", "-33.88116782387797343"]],
        ["RegBartley", "858.3013", ["151.22953444719314575", "-33.87483862514310573"]]]
    assert sr.execute_command("GEOSEARCHSTORE", "dest", "points", "BYPOLYGON", *SYDNEY_POLY,
                              "ASC", "STOREDIST", "COUNT", "2") == 2
    got = sr.zrange("dest", 0, -1, withscores=True)
    assert [m for m, _ in got] == ["RegBartley", "Goodhope"]
    assert abs(got[0][1] - 858.3013) < 0.001 and abs(got[1][1] - 929.4979) < 0.001
    # A self-intersecting pentagram: the even-odd rule leaves its middle out.
    star = ["5", "151.2154285314146", "-33.867438205607186", "151.20024487595015",
            "-33.88138572784347", "151.2374118848648", "-33.87601765283626",
            "151.19695829592922", "-33.87272872054441", "151.2278336546125", "-33.88345323146266"]
    assert sr.execute_command("GEOSEARCH", "points", "BYPOLYGON", *star) == \
        ["Elizabeth", "StJames", "KingsCross"]
    # No match: GEOSEARCHSTORE deletes the destination.
    assert sr.execute_command("GEOSEARCHSTORE", "dest", "points", "BYPOLYGON", "3", "0", "0",
                              "1", "0", "0", "1") == 0
    assert sr.exists("dest") == 0


@pytest.mark.parametrize("args,error", [
    (["BYPOLYGON", "2", "1", "1", "2", "2"], "^GEOSEARCH BYPOLYGON must have at least 3 vertices$"),
    (["BYPOLYGON", "4", "1", "1", "2", "2", "3", "3"],
     "^GEOSEARCH BYPOLYGON must have at least 3 vertices$"),
    (["BYPOLYGON", "-3", "1", "1", "2", "2", "3", "3"],
     "^GEOSEARCH BYPOLYGON must have at least 3 vertices$"),
    (["BYPOLYGON", "x", "1", "1", "2", "2", "3", "3"], "^invalid number of vertices$"),
    (["BYPOLYGON", "9999999999", "1", "1", "2", "2", "3", "3"], "^invalid number of vertices$"),
    (["BYPOLYGON", "3", "1", "1", "2", "abc", "3", "3"], "^value is not a valid float$"),
    (["BYPOLYGON", "3", "1", "1", "200", "2", "3", "3"],
     r"^invalid longitude,latitude pair 200\.000000,2\.000000$"),
    (["BYPOLYGON", "3", "1", "1", "2", "86", "3", "3"], "^invalid longitude,latitude pair"),
    (["BYPOLYGON", "3", "1", "1", "2", "2", "3", "3", "FROMLONLAT", "1", "1"], "^syntax error$"),
    (["FROMLONLAT", "1", "1", "BYPOLYGON", "3", "1", "1", "2", "2", "3", "3"], "^syntax error$"),
    (["FROMMEMBER", "Palermo", "BYPOLYGON", "3", "1", "1", "2", "2", "3", "3"],
     "^syntax error$"),
    (["BYPOLYGON", "3", "1", "1", "2", "2", "3", "3", "BYRADIUS", "1", "km"], "^syntax error$"),
    (["BYBOX", "1", "1", "km", "BYPOLYGON", "3", "1", "1", "2", "2", "3", "3"],
     "^syntax error$"),
    (["FROMLONLAT", "1", "1", "WITHDIST", "ASC"],
     "^exactly one of BYRADIUS, BYBOX and BYPOLYGON can be specified for GEOSEARCH$"),
    (["BYPOLYGON", "3", "1", "1", "2", "2", "3", "3", "ANY"],
     "^the ANY argument requires COUNT argument$"),
])
def test_errors(sr, args, error):
    plain(sr)
    add_sicily(sr)
    with pytest.raises(redis.ResponseError, match=error):
        sr.execute_command("GEOSEARCH", "Sicily", *args)


def test_store_errors_and_wrong_type(sr):
    plain(sr)
    sr.set("s", "v")
    with pytest.raises(redis.ResponseError, match="^WRONGTYPE"):
        sr.execute_command("GEOSEARCH", "s", "BYPOLYGON", *SICILY_POLY)
    with pytest.raises(redis.ResponseError, match="^GEOSEARCHSTORE is not compatible"):
        sr.execute_command("GEOSEARCHSTORE", "d", "Sicily", "BYPOLYGON", *SICILY_POLY,
                           "WITHDIST")
    with pytest.raises(redis.ResponseError, match="wrong number of arguments for 'geosearch'"):
        sr.execute_command("GEOSEARCH", "Sicily", "BYPOLYGON", "3", "1")


def test_acl(server, r):
    add_sicily(r)
    r.execute_command("ACL", "SETUSER", "reader", "on", ">pw", "~Sicily", "+@read")
    u = plain(server.client(username="reader", password="pw"))
    assert u.execute_command("GEOSEARCH", "Sicily", "BYPOLYGON", *SICILY_POLY) == \
        ["Palermo", "edge2"]
    with pytest.raises(redis.exceptions.NoPermissionError, match="'geosearchstore' command"):
        u.execute_command("GEOSEARCHSTORE", "Sicily", "Sicily", "BYPOLYGON", *SICILY_POLY)


def inside(poly, lon, lat):
    """Even-odd crossing test written independently of the server's."""
    n = len(poly)
    crossings = 0
    for k in range(n):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % n]
        if (y1 > lat) == (y2 > lat):
            continue
        x_at = x1 + (lat - y1) * (x2 - x1) / (y2 - y1)
        if lon < x_at:
            crossings += 1
    return crossings % 2 == 1


def test_random_polygons_match_brute_force(sr):
    plain(sr)
    rng = random.Random(20290901)
    for trial in range(40):
        sr.delete("pts")
        # Some areas small (a few km), some spanning continents; some near the poles' limit.
        span = rng.choice([0.05, 1.0, 20.0, 120.0])
        clon = rng.uniform(-180 + span / 2, 180 - span / 2)
        clat = rng.uniform(-84.9 + min(span, 80) / 2, 84.9 - min(span, 80) / 2)
        pts = []
        for i in range(400):
            lon = min(180, max(-180, clon + rng.uniform(-span, span)))
            lat = min(85, max(-85, clat + rng.uniform(-span, span)))
            pts += [lon, lat, f"p{i}"]
        sr.geoadd("pts", pts)
        nv = rng.randint(3, 12)
        poly = [(min(180, max(-180, clon + rng.uniform(-span, span) * 0.8)),
                 min(85, max(-85, clat + rng.uniform(-span, span) * 0.8))) for _ in range(nv)]
        args = [str(nv)] + [repr(c) for v in poly for c in v]
        got = sr.execute_command("GEOSEARCH", "pts", "BYPOLYGON", *args, "WITHCOORD")
        got = sorted(m for m, _ in got)
        names = [f"p{i}" for i in range(400)]
        positions = sr.geopos("pts", *names)
        want = sorted(n for n, (lon, lat) in zip(names, positions)
                      if inside([(float(repr(a)), float(repr(b))) for a, b in poly], lon, lat))
        assert got == want, (trial, args)


def test_geosearchstore_propagates(start_server):
    s = start_aof(start_server)
    c = s.client()
    add_sicily(c)
    assert c.execute_command("GEOSEARCHSTORE", "d", "Sicily", "BYPOLYGON", *SICILY_POLY,
                             "STOREDIST") == 2
    def stored():
        return [cmd for cmd in aof_commands(incr_file(s).read_bytes())
                if cmd[0] == b"GEOSEARCHSTORE"]
    wait_for(stored)
    assert stored()[0][3] == b"BYPOLYGON"
