"""Differential generators for the hash family ("hashes").

Hashes live mostly under HASH_KEYS, which no other family writes; commands also name other
keys to meet WRONGTYPE and missing keys. Fields come from a small pool so updates, HDEL and
HEXISTS hit; values mix integers (packed as integers in listpacks), floats, words and strings
around hash-max-listpack-value, and big HSETs plus CONFIG SET of the two thresholds make both
servers convert listpack -> hashtable at the same moments, which OBJECT ENCODING checks.

Orders that depend on the table layout (HGETALL, HKEYS, HVALS of a hashtable) are compared
sorted; random replies (HRANDFIELD) only by shape, or in full where they are determined (a
count at least the hash's size). Field expiry (Valkey 9) and HSCAN NOVALUES (Valkey 8) are
not in Redis 7.0 and are not generated.
"""

from generators import (EDGE_INTS, FLOATS, MODE_NORMALIZERS, NOT_INTS, PATTERNS, SMALL_INTS,
                        WORDS, Cmd, command)

HASH_KEYS = ["h0", "h1", "h2", "h3"]
FIELDS = ["a", "b", "c", "f1", "f2", "10", "-1", "", "x y", "9223372036854775807",
          "field:with:colons"]


def _pairs(reply):
    """HGETALL / HRANDFIELD WITHVALUES: the multiset of (field, value) pairs, whether they came
    as a flat RESP2 array, a RESP3 map or RESP3 nested pairs."""
    t = reply[0]
    if t == "%":
        return ("pairs", tuple(sorted(reply[1])))
    if t == "*" and reply[1] is not None:
        items = reply[1]
        if items and items[0][0] == "*":  # RESP3 nested [field, value]
            return ("pairs", tuple(sorted(tuple(p[1]) for p in items)))
        return ("pairs", tuple(sorted(zip(items[::2], items[1::2]))))
    return reply


def _shape(reply):
    """Random replies: only the type and length (or whether a bulk is nil) must agree."""
    t = reply[0]
    if t == "*" and reply[1] is not None:
        return ("*", len(reply[1]))
    if t == "$":
        return ("$", reply[1] is not None)
    return reply


MODE_NORMALIZERS["pairs"] = _pairs
MODE_NORMALIZERS["shape"] = _shape


def hash_key(g):
    return g.pick(HASH_KEYS) if g.chance(0.85) else g.key()


def field(g):
    r = g.rng.random()
    if r < 0.75:
        return g.pick(FIELDS)
    if r < 0.85:
        return g.pick(WORDS)
    return "f" * g.pick([63, 64, 65, 200])  # around hash-max-listpack-value


def value(g):
    r = g.rng.random()
    if r < 0.35:
        return g.pick(SMALL_INTS + EDGE_INTS)
    if r < 0.45:
        return g.pick(FLOATS)
    if r < 0.75:
        return g.pick(WORDS)
    if r < 0.8:
        return ""
    return "v" * g.pick([20, 63, 64, 65, 300])


def fields(g, lo=1, hi=4):
    return [field(g) for _ in range(g.randint(lo, hi))]


def pairs(g, lo=1, hi=4):
    out = []
    for _ in range(g.randint(lo, hi)):
        out += [field(g), value(g)]
    return out


@command("hashes", 8)
def HSET(g):
    key = g.pick(HASH_KEYS)
    r = g.rng.random()
    if r < 0.05:  # more pairs than a listpack may hold, in one command
        n = g.randint(120, 600)
        return [g.case("HSET"), key] + [x for i in range(n) for x in (f"k{i}", str(i))]
    if r < 0.08:
        return [g.case("HSET"), key] + pairs(g)[:-1]  # odd: arity error
    return [g.case("HSET"), key] + pairs(g)


@command("hashes", 1.5)
def HMSET(g):
    return [g.case("HMSET"), hash_key(g)] + pairs(g)


@command("hashes", 2)
def HSETNX(g):
    return [g.case("HSETNX"), hash_key(g), field(g), value(g)]


@command("hashes", 5)
def HGET(g):
    return [g.case("HGET"), hash_key(g), field(g)]


@command("hashes", 2)
def HMGET(g):
    return [g.case("HMGET"), hash_key(g)] + fields(g)


@command("hashes", 3)
def HDEL(g):
    return [g.case("HDEL"), hash_key(g)] + fields(g)


@command("hashes", 2)
def HLEN(g):
    return [g.case("HLEN"), hash_key(g)]


@command("hashes", 1.5)
def HSTRLEN(g):
    return [g.case("HSTRLEN"), hash_key(g), field(g)]


@command("hashes", 1.5)
def HEXISTS(g):
    return [g.case("HEXISTS"), hash_key(g), field(g)]


@command("hashes", 1.5)
def HKEYS(g):
    return Cmd([g.case("HKEYS"), hash_key(g)], "sorted")


@command("hashes", 1.5)
def HVALS(g):
    return Cmd([g.case("HVALS"), hash_key(g)], "sorted")


@command("hashes", 2)
def HGETALL(g):
    return Cmd([g.case("HGETALL"), hash_key(g)], "pairs")


@command("hashes", 3)
def HINCRBY(g):
    r = g.rng.random()
    incr = g.integer() if r < 0.9 else g.pick(NOT_INTS)
    return [g.case("HINCRBY"), hash_key(g), field(g), incr]


@command("hashes", 2.5)
def HINCRBYFLOAT(g):
    incr = g.pick(FLOATS) if g.chance(0.7) else g.pick(SMALL_INTS + EDGE_INTS)
    return [g.case("HINCRBYFLOAT"), hash_key(g), field(g), incr]


@command("hashes", 2)
def HRANDFIELD(g):
    key = hash_key(g)
    r = g.rng.random()
    if r < 0.2:
        return Cmd([g.case("HRANDFIELD"), key], "shape")
    if r < 0.45:  # at least the size: the whole hash, order unspecified
        args = [g.case("HRANDFIELD"), key, g.pick(["100000", "4611686018427387903"])]
        if g.chance(0.5):
            return Cmd(args + [g.case("WITHVALUES")], "pairs")
        return Cmd(args, "sorted")
    if r < 0.7:  # repetitions allowed: the count decides the length
        args = [g.case("HRANDFIELD"), key, str(-g.randint(1, 20))]
        if g.chance(0.5):
            args.append(g.case("WITHVALUES"))
        return Cmd(args, "shape")
    if r < 0.8:
        return Cmd([g.case("HRANDFIELD"), key, "0"] + (["WITHVALUES"] if g.chance(0.5) else []))
    return g.pick([
        [g.case("HRANDFIELD"), key, "abc"],
        [g.case("HRANDFIELD"), key, "1", "WITHVALUE"],
        [g.case("HRANDFIELD"), key, "1", "WITHVALUES", "x"],
        [g.case("HRANDFIELD"), key, "-9223372036854775808"],
        [g.case("HRANDFIELD"), key, "9223372036854775807", "WITHVALUES"],
        [g.case("HRANDFIELD"), key, "-9223372036854775807", "WITHVALUES"],
        [g.case("HRANDFIELD"), key, "1.5"],
    ])


@command("hashes", 2)
def HSCAN(g):
    args = [g.case("HSCAN"), hash_key(g), "{cursor}"]
    if g.chance(0.4):
        args += [g.case("MATCH"), g.pick(PATTERNS + ["a*", "f*", "k1*", "*0"])]
    if g.chance(0.4):
        args += [g.case("COUNT"), g.pick(["1", "5", "10", "100", "1000"])]
    if g.chance(0.08):
        bad = g.pick([["COUNT", "0"], ["COUNT", "-1"], ["COUNT", "abc"], ["MATCH"], ["FOO"],
                      ["COUNT"]])
        args += bad
        return Cmd(args, "scan")
    return Cmd(args, "scan")


@command("hashes", 0.5)
def HSCAN_BAD_CURSOR(g):
    return [g.case("HSCAN"), hash_key(g), g.pick(["abc", "-", "1.5", "99999999999999999999",
                                                    " 1"])]


@command("hashes", 2)
def OBJECT_ENCODING_HASH(g):
    return [g.case("OBJECT"), g.case("ENCODING"), g.pick(HASH_KEYS)]


@command("hashes", 0.4)
def CONFIG_SET_HASH_LIMITS(g):
    if g.chance(0.5):
        return [g.case("CONFIG"), g.case("SET"), "hash-max-listpack-entries",
                g.pick(["0", "1", "4", "128", "512"])]
    return [g.case("CONFIG"), g.case("SET"), "hash-max-listpack-value",
            g.pick(["0", "3", "16", "64"])]


@command("hashes", 0.5)
def DEL_HASH(g):
    return [g.case("DEL"), g.pick(HASH_KEYS)]
