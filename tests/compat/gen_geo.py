"""Differential generators for the geo family ("geo").

Geo indexes live under GEO_KEYS; searches that store write to DEST_KEYS (and sometimes to a
source key or to STR_KEY, a string key of this family). Other families' keys are only read.
Points come from a few clusters (members a few metres to a few hundred kilometres apart, so
radius searches of every size find some) and from anywhere on the map, including the edges of
the indexable range (+-180, +-85.05112878) and identical coordinates under different names
(ties in distance). Sets grow past zset-max-listpack-entries with the batch adds.

Search replies whose order is unspecified (no ASC/DESC, no COUNT, or COUNT ANY without an
order) are compared in the "sorted" mode; the stored results and everything else exactly.
"""

from generators import LIST_KEYS, NUMBER_KEYS, STRING_KEYS, WORDS, Cmd, command

GEO_KEYS = ["g0", "g1", "g2"]
DEST_KEYS = ["gd0", "gd1"]
# A string the family writes itself: geo writes may replace it, reads meet WRONGTYPE there.
STR_KEY = "gstr"
# Other families' keys, only read here (their generators assume what types they hold).
OTHER_KEYS = LIST_KEYS[:1] + NUMBER_KEYS[:1] + ["nokey"]

# (longitude, latitude) centres of point clusters.
CLUSTERS = [(13.361389, 38.115556), (15.087269, 37.502669), (-122.4194, 37.7749),
            (0.0, 0.0), (139.6917, 35.6895), (-0.1278, 51.5074), (179.99, 0.5),
            (-179.99, -0.5), (2.3522, 84.9), (-70.0, -84.95), (151.2093, -33.8688)]
# Exact values on and beyond the edges of the indexable range.
EDGE_COORDS = [("180", "85.05112878"), ("-180", "-85.05112878"), ("180", "0"), ("-180", "0"),
               ("0", "85.05112878"), ("0", "-85.05112878"), ("179.9999999", "85.0511287"),
               ("-0", "-0"), ("1e-7", "-1e-7"), ("90", "45")]
BAD_COORDS = [("180.0000001", "0"), ("-181", "0"), ("0", "85.05112879"), ("0", "-90"),
              ("0", "91"), ("abc", "0"), ("0", ""), ("nan", "0"), ("inf", "0"), ("0", "-inf"),
              (" 1", "2"), ("1", "2 "), ("0x10", "1"), ("1e400", "0")]
UNITS = ["m", "km", "ft", "mi", "M", "KM", "Ft", "mI"]
BAD_UNITS = ["cm", "", "meters", "k", "m "]
RADII = ["0", "1", "10", "100", "500", "1000", "5000", "20000", "100000", "250", "3.5",
         "0.001", "1500.75", "1e4"]
HUGE_RADII = ["5000000", "20000000", "1e9", "inf", "40000000"]
BAD_RADII = ["-1", "-0.5", "abc", "", "nan", "-inf", "1x"]


def geo_key(g):
    return g.pick(GEO_KEYS)


def centre_member(g):
    """A search centre's member: mostly one the small adds write."""
    return "p" + str(g.randint(0, 4)) if g.chance(0.75) else member(g)


def any_key(g):
    r = g.rng.random()
    if r < 0.85:
        return geo_key(g)
    if r < 0.92:
        return g.pick(DEST_KEYS)
    return g.pick(OTHER_KEYS + STRING_KEYS[:2] + [STR_KEY])


def member(g):
    r = g.rng.random()
    if r < 0.6:
        return "p" + str(g.randint(0, 14))
    if r < 0.75:
        return "m" + str(g.randint(0, 199))
    if r < 0.88:
        return str(g.randint(0, 30))  # integers: listpack stores them as numbers
    if r < 0.97:
        return g.pick(WORDS)
    return "v" * g.pick([63, 64, 65, 100])  # around zset-max-listpack-value


def coords(g, bad=0.03):
    """A (longitude, latitude) pair as strings."""
    if g.chance(bad):
        return g.pick(BAD_COORDS)
    r = g.rng.random()
    if r < 0.6:
        lon, lat = g.pick(CLUSTERS)
        spread = g.pick([0.00001, 0.0005, 0.01, 0.1, 1.0, 3.0])
        lon = min(180.0, max(-180.0, lon + g.rng.uniform(-spread, spread)))
        lat = min(85.05, max(-85.05, lat + g.rng.uniform(-spread, spread)))
        digits = g.pick([6, 6, 8, 12, 3])
        return (f"{lon:.{digits}f}", f"{lat:.{digits}f}")
    if r < 0.85:
        return (f"{g.rng.uniform(-180, 180):.6f}", f"{g.rng.uniform(-85.05, 85.05):.6f}")
    return g.pick(EDGE_COORDS)


def unit(g):
    return g.pick(BAD_UNITS) if g.chance(0.02) else g.pick(UNITS)


def radius(g):
    r = g.rng.random()
    if r < 0.03:
        return g.pick(BAD_RADII)
    if r < 0.1:
        return g.pick(HUGE_RADII)
    if r < 0.7:
        return g.pick(RADII)
    return str(g.randint(1, 300000))


def radius_unit(g):
    """A radius and a unit that together often reach the next points of a cluster."""
    u = unit(g)
    rad = radius(g)
    if u.lower() in ("km", "mi") and g.chance(0.7):
        rad = g.pick(["0.5", "1", "5", "50", "200", "1000", "3000"])
    return [rad, u]


def box(g):
    if g.chance(0.03):
        return [g.pick(["-1", "abc", "10"]), g.pick(["10", "-5", "x"]), unit(g)]
    u = unit(g)
    big = u.lower() in ("km", "mi")
    size = (lambda: str(g.randint(1, 2000))) if big else (lambda: str(g.randint(0, 400000)))
    return [size(), size(), u]


# ---------------------------------------------------------------------------------------------
# writes

@command("geo", 8)
def GEOADD(g):
    key = geo_key(g) if g.chance(0.95) else g.pick(DEST_KEYS + [STR_KEY])
    args = [g.case("GEOADD"), key]
    if g.chance(0.3):
        opts = []
        if g.chance(0.6):
            opts.append(g.case(g.pick(["NX", "XX"])))
        if g.chance(0.5):
            opts.append(g.case("CH"))
        if g.chance(0.05):
            opts += [g.case("NX"), g.case("XX")]
        g.rng.shuffle(opts)
        args += opts
    n = g.pick([1, 1, 2, 3, 5]) if g.chance(0.9) else g.randint(20, 140)
    shared = coords(g, bad=0)  # some members share a position
    for _ in range(n):
        lon, lat = shared if g.chance(0.15) else coords(g, bad=0.03 if n < 10 else 0)
        name = ("p" + str(g.randint(0, 4)) if g.chance(0.4) else member(g)) if n < 10 else \
            "m" + str(g.randint(0, 199))
        args += [lon, lat, name]
    if g.chance(0.02):
        args.pop()
    cmds = [Cmd(args)]
    if g.chance(0.1):
        cmds.append(Cmd(["OBJECT", "ENCODING", key]))
    return cmds


@command("geo", 0.3)
def SET(g):
    return [g.case("SET"), STR_KEY, g.pick(["x", "1"])]


@command("geo", 1)
def ZREM(g):
    return [g.case("ZREM"), geo_key(g)] + [member(g) for _ in range(g.randint(1, 3))]


@command("geo", 0.5)
def ZADD(g):
    """Scores written directly: any 52-bit value is a valid position."""
    return [g.case("ZADD"), geo_key(g), str(g.randint(0, (1 << 52) - 1)), member(g)]


# ---------------------------------------------------------------------------------------------
# point reads

@command("geo", 4)
def GEOPOS(g):
    return [g.case("GEOPOS"), any_key(g)] + [member(g) for _ in range(g.randint(0, 4))]


@command("geo", 4)
def GEOHASH(g):
    return [g.case("GEOHASH"), any_key(g)] + [member(g) for _ in range(g.randint(0, 4))]


@command("geo", 4)
def GEODIST(g):
    args = [g.case("GEODIST"), any_key(g), member(g), member(g)]
    r = g.rng.random()
    if r < 0.6:
        args.append(unit(g))
    elif r < 0.63:
        args += [unit(g), "extra"]
    elif r < 0.65:
        args = args[:3]
    return args


# ---------------------------------------------------------------------------------------------
# searches

def search_options(g, store_ok):
    """WITH* flags, ordering, COUNT [ANY] in random order; returns (args, order_defined)."""
    opts = []
    if g.chance(0.3):
        opts.append([g.case("WITHDIST")])
    if g.chance(0.25):
        opts.append([g.case("WITHCOORD")])
    if g.chance(0.2):
        opts.append([g.case("WITHHASH")])
    ordered = False
    count = False
    if g.chance(0.5):
        opts.append([g.case(g.pick(["ASC", "DESC"]))])
        ordered = True
    if g.chance(0.4):
        c = str(g.randint(1, 8)) if g.chance(0.95) else g.pick(["0", "-1", "abc", ""])
        opts.append([g.case("COUNT"), c])
        count = True
        if g.chance(0.3):
            opts.append([g.case("ANY")])
            if not ordered:
                count = False  # the first found, in scan order
    elif g.chance(0.02):
        opts.append([g.case("ANY")])
    if store_ok and g.chance(0.2):
        opts = [o for o in opts if not g.chance(0.8) or not o[0].upper().startswith("WITH")]
        opts.append([g.case(g.pick(["STORE", "STOREDIST"])), g.pick(DEST_KEYS + GEO_KEYS[:1])])
    if g.chance(0.03):
        opts.append(g.pick([["COUNT"], ["FOO"], ["STORE"], ["WITHDIST", "BAR"]]))
    g.rng.shuffle(opts)
    return [a for o in opts for a in o], ordered or count


def search_cmd(g, args, defined):
    cmds = [Cmd(args, "exact" if defined else "sorted")]
    return cmds


@command("geo", 6)
def GEORADIUS(g):
    name = g.pick(["GEORADIUS", "GEORADIUS", "GEORADIUS_RO"])
    lon, lat = coords(g, bad=0.02)
    opts, defined = search_options(g, name == "GEORADIUS")
    args = [g.case(name), any_key(g), lon, lat] + radius_unit(g) + opts
    return search_cmd(g, args, defined)


@command("geo", 5)
def GEORADIUSBYMEMBER(g):
    name = g.pick(["GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"])
    opts, defined = search_options(g, name == "GEORADIUSBYMEMBER")
    args = [g.case(name), any_key(g), centre_member(g)] + radius_unit(g) + opts
    return search_cmd(g, args, defined)


def search_body(g):
    """FROMMEMBER/FROMLONLAT and BYRADIUS/BYBOX, sometimes missing, doubled or both."""
    parts = []
    r = g.rng.random()
    if r < 0.5:
        parts.append([g.case("FROMMEMBER"), centre_member(g)])
    elif r < 0.97:
        parts.append([g.case("FROMLONLAT")] + list(coords(g, bad=0.02)))
    if g.chance(0.02):
        parts.append(g.pick([[g.case("FROMMEMBER"), member(g)],
                             [g.case("FROMLONLAT"), "1", "2"]]))
    r = g.rng.random()
    if r < 0.55:
        parts.append([g.case("BYRADIUS")] + radius_unit(g))
    elif r < 0.97:
        parts.append([g.case("BYBOX")] + box(g))
    if g.chance(0.02):
        parts.append(g.pick([[g.case("BYRADIUS"), "1", "km"], [g.case("BYBOX"), "1", "1", "m"]]))
    return parts


@command("geo", 7)
def GEOSEARCH(g):
    parts = search_body(g)
    opts, defined = search_options(g, False)
    if g.chance(0.5):
        parts.append(opts)
    else:
        parts.insert(0, opts)
    g.rng.shuffle(parts)
    args = [g.case("GEOSEARCH"), any_key(g)] + [a for p in parts for a in p]
    return search_cmd(g, args, defined)


@command("geo", 4)
def GEOSEARCHSTORE(g):
    parts = search_body(g)
    opts, _ = search_options(g, False)
    if g.chance(0.85):  # WITH* options are refused here; keep most commands valid
        opts = [o for o in opts if not o.upper().startswith("WITH")]
    parts.append(opts)
    if g.chance(0.4):
        parts.append([g.case("STOREDIST")])
    g.rng.shuffle(parts)
    dst = g.pick(DEST_KEYS) if g.chance(0.85) else g.pick(GEO_KEYS + [STR_KEY])
    args = [g.case("GEOSEARCHSTORE"), dst, any_key(g)] + [a for p in parts for a in p]
    cmds = [Cmd(args)]
    if g.chance(0.2):
        cmds.append(Cmd(["OBJECT", "ENCODING", dst]))
    return cmds
