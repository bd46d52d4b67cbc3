"""Differential generators for the sorted set family ("zsets").

Sorted sets live under ZSET_KEYS (any scores) and LEX_KEYS (every score 0: the lex commands'
results are only defined when all scores are equal, so those keys get nothing else). Commands
that only read or remove may also name other keys, to meet WRONGTYPE and missing keys.

Random replies (ZRANDMEMBER) are generated only where they are determined: counts at least
the set's size (the whole set, highest score first), single-member sets, errors. Blocking pops
run only where they cannot block: on a key just given a member (or inside MULTI, see
USE_MULTI). ZRANK's
WITHSCORE and ZSCAN's NOSCORES are Valkey 7.2/8 additions the 7.0 reference lacks, so they
are left to the unit and integration tests.
"""

from generators import (LIST_KEYS, NUMBER_KEYS, PATTERNS, SMALL_INTS, STRING_KEYS,
                        WORDS, Cmd, command)

ZSET_KEYS = ["z0", "z1", "z2", "z3"]
LEX_KEYS = ["zl0", "zl1"]
# Sorted sets with mixed scores may also be written under STRING_KEYS (meeting the other
# families' commands); lex commands' other keys are drawn where that never happens.
NON_ZSET_KEYS = LIST_KEYS + NUMBER_KEYS + ["nokey"]
HUGE_COUNTS = ["100000", "9223372036854775807"]
# Blocking pops inside MULTI (where they answer at once) once Vireo has MULTI/EXEC.
USE_MULTI = False


# Scores as ZADD takes them (strict: no spaces, no NaN, no overflow) ...
SCORES = ["0", "1", "-1", "2", "3", "1.5", "-2.5", "0.1", "0.2", "10", "100", "1e3", "-0",
          "inf", "-inf", "+inf", "1e17", "4611686018427387904", "123456789.123456789",
          "5e-324", "1e308"]
BAD_SCORES = ["abc", "nan", "", " 1", "1 ", "1e400", "-1e400", "1e-400", "0x10", "1.2.3"]
# ... and range bounds as ZRANGEBYSCORE reads them (strtod: "(" prefix, spaces, hex...).
BOUNDS = ["-inf", "+inf", "inf", "0", "1", "2", "(1", "(2", "1.5", "(1.5", "-1", "(-1", "3",
          "10", "(10", "100", "-0", "(0", "1e3"]
BAD_BOUNDS = ["abc", "nan", "(nan", "((1", "1x", "[1"]
ODD_BOUNDS = ["( 1", " 2", "0x2", "", "(", "1e400", "(-1e400", "infinity"]
LEX_MEMBERS = ["a", "b", "c", "d", "aa", "ab", "abc", "b1", "", "z", "A", "0", "1", "10"]
LEX_BOUNDS = ["-", "+", "[a", "(a", "[b", "(b", "[c", "[aa", "(ab", "[", "(", "[z", "(0",
              "[10"]
BAD_LEX = ["a", "b", "-a", "+b", "", "]a"]


def zset_key(g):
    return g.pick(ZSET_KEYS)


def other_zset_key(g):
    """A key the family may write a sorted set to besides its own."""
    return g.pick(STRING_KEYS)


def lex_key(g, p=0.85):
    return g.pick(LEX_KEYS) if g.chance(p) else g.pick(NON_ZSET_KEYS)


def any_key(g):
    """Mostly a sorted set, sometimes another type or a missing key."""
    r = g.rng.random()
    if r < 0.7:
        return zset_key(g)
    if r < 0.8:
        return g.pick(LEX_KEYS)
    return g.key()


def member(g):
    r = g.rng.random()
    if r < 0.3:
        return g.pick(SMALL_INTS) if g.chance(0.7) else str(g.randint(-50, 500))
    if r < 0.85:
        return g.pick(["a", "b", "c", "d", "e", "f", "x", "y"] + WORDS)
    if r < 0.95:
        return "m" + str(g.randint(0, 40))
    return "v" * g.pick([63, 64, 65, 100])  # around zset-max-listpack-value


def score(g, bad=0.05):
    if g.chance(bad):
        return g.pick(BAD_SCORES)
    if g.chance(0.3):
        return str(g.randint(-20, 20))
    return g.pick(SCORES)


def bound(g):
    r = g.rng.random()
    if r < 0.9:
        return g.pick(BOUNDS)
    if r < 0.96:
        return g.pick(ODD_BOUNDS)
    return g.pick(BAD_BOUNDS)


def lex_bound(g):
    return g.pick(LEX_BOUNDS) if g.chance(0.95) else g.pick(BAD_LEX)


def index(g):
    return g.index() if g.chance(0.2) else str(g.randint(-8, 8))


def limit(g):
    if not g.chance(0.35):
        return []
    if g.chance(0.05):
        return [g.case("LIMIT"), g.pick(["a", "0"]), g.pick(["1", "b"])]
    return [g.case("LIMIT"), str(g.randint(-1, 4)), str(g.randint(-2, 5))]


# ---------------------------------------------------------------------------------------------
# writes

@command("zsets", 8)
def ZADD(g):
    if g.chance(0.25):  # lex keys: score 0 only
        return [g.case("ZADD"), g.pick(LEX_KEYS)] + [
            x for _ in range(g.randint(1, 4)) for x in ("0", g.pick(LEX_MEMBERS))]
    key = zset_key(g) if g.chance(0.9) else other_zset_key(g)
    r = g.rng.random()
    if r < 0.05:  # cross zset-max-listpack-entries (128) in one go
        n = g.randint(120, 140)
        return [g.case("ZADD"), key] + [x for i in range(n) for x in (str(i % 17), f"e{i}")]
    opts = []
    if g.chance(0.3):
        pool = ["NX", "XX", "GT", "LT", "CH", "CH", "INCR"]
        opts = [g.case(g.pick(pool)) for _ in range(g.randint(1, 2))]
    pairs = 1 if "INCR" in [o.upper() for o in opts] and g.chance(0.8) else g.randint(1, 4)
    args = [g.case("ZADD"), key] + opts
    for _ in range(pairs):
        args += [score(g), member(g)]
    if g.chance(0.03):
        args = args[:-1]  # odd number of words
    return args


@command("zsets", 3)
def ZINCRBY(g):
    key = zset_key(g) if g.chance(0.9) else other_zset_key(g)
    return [g.case("ZINCRBY"), key, score(g, bad=0.08), member(g)]


@command("zsets", 3)
def ZREM(g):
    key = any_key(g)
    pool = LEX_MEMBERS if key in LEX_KEYS else None
    return [g.case("ZREM"), key] + [g.pick(pool) if pool else member(g)
                                    for _ in range(g.randint(1, 3))]


@command("zsets", 1.5)
def ZREMRANGEBYRANK(g):
    return [g.case("ZREMRANGEBYRANK"), any_key(g), index(g), index(g)]


@command("zsets", 1.5)
def ZREMRANGEBYSCORE(g):
    return [g.case("ZREMRANGEBYSCORE"), zset_key(g) if g.chance(0.9) else g.key(), bound(g),
            bound(g)]


@command("zsets", 1.2)
def ZREMRANGEBYLEX(g):
    key = lex_key(g, 0.9)
    return [g.case("ZREMRANGEBYLEX"), key, lex_bound(g), lex_bound(g)]


@command("zsets", 2)
def ZPOP(g):
    name = g.case(g.pick(["ZPOPMIN", "ZPOPMAX"]))
    args = [name, any_key(g)]
    r = g.rng.random()
    if r < 0.5:
        args.append(g.pick(["0", "1", "2", "3", "10"]))
    elif r < 0.6:
        args += g.pick([["-1"], ["abc"], ["1", "2"], [""]])
    return args


@command("zsets", 1.5)
def ZMPOP(g):
    keys = [any_key(g) for _ in range(g.randint(1, 3))]
    args = [g.case("ZMPOP"), str(len(keys))] + keys + [g.case(g.pick(["MIN", "MAX"]))]
    if g.chance(0.5):
        args += [g.case("COUNT"), g.pick(["1", "2", "5", "100"])]
    if g.chance(0.1):
        args = g.pick([
            [args[0], g.pick(["0", "-1", "abc", str(len(keys) + 1)])] + args[2:],
            args[:-1] + ["MIDDLE"] if len(args) == len(keys) + 3 else args + ["COUNT"],
            args + ["COUNT", g.pick(["0", "-3", "x"])],
            args + ["FOO"],
        ])
    return args


@command("zsets", 1.5)
def BLOCKING_POP(g):
    """Blocking pops that cannot block: a key just given a member, or inside MULTI."""
    key = zset_key(g)
    r = g.rng.random()
    if r < 0.35:
        cmd = [g.case(g.pick(["BZPOPMIN", "BZPOPMAX"])), g.key(), key, g.pick(["0", "1", "0.5"])]
    elif r < 0.7 or not USE_MULTI:
        cmd = [g.case("BZMPOP"), g.pick(["0", "2.5"]), "2", g.key(), key,
               g.case(g.pick(["MIN", "MAX"]))] + ([g.case("COUNT"), "3"] if g.chance(0.5) else [])
    else:
        cmd = g.pick([
            [g.case("BZPOPMIN"), key, "0"],
            [g.case("BZMPOP"), "0", "1", key, "MIN"],
        ])
        return [Cmd(["MULTI"]), Cmd(cmd), Cmd(["EXEC"])]
    if g.chance(0.1):  # argument errors answer before anything is looked at
        return [g.case("BZPOPMIN"), key, g.pick(["-1", "abc", ""])]
    return [Cmd(["ZADD", key, score(g, bad=0), member(g)]), Cmd(cmd)]


@command("zsets", 0.5)
def DEL_ZSET(g):
    return ["DEL", g.pick(ZSET_KEYS + LEX_KEYS)]


# ---------------------------------------------------------------------------------------------
# reads

@command("zsets", 2)
def ZCARD(g):
    return [g.case("ZCARD"), any_key(g)]


@command("zsets", 2)
def ZSCORE(g):
    return [g.case("ZSCORE"), any_key(g), member(g)]


@command("zsets", 1.5)
def ZMSCORE(g):
    return [g.case("ZMSCORE"), any_key(g)] + [member(g) for _ in range(g.randint(1, 4))]


@command("zsets", 2)
def ZRANK(g):
    return [g.case(g.pick(["ZRANK", "ZREVRANK"])), any_key(g), member(g)]


@command("zsets", 2)
def ZCOUNT(g):
    return [g.case("ZCOUNT"), any_key(g), bound(g), bound(g)]


@command("zsets", 1.5)
def ZLEXCOUNT(g):
    key = lex_key(g)
    return [g.case("ZLEXCOUNT"), key, lex_bound(g), lex_bound(g)]


def _range_options(g, kind, store=False):
    opts = []
    if kind != "lex" and not store and g.chance(0.4):
        opts.append([g.case("WITHSCORES")])
    if kind != "rank":
        lim = limit(g)
        if lim:
            opts.append(lim)
    if g.chance(0.04):  # misplaced or unknown options
        opts.append(g.pick([["WITHSCORES"], ["LIMIT", "0", "1"], ["FOO"], ["BYSCORE"], ["REV"],
                            ["LIMIT", "1"]]))
    g.rng.shuffle(opts)
    return [w for o in opts for w in o]


@command("zsets", 4)
def ZRANGE(g):
    kind = g.pick(["rank", "rank", "score", "lex"])
    rev = g.chance(0.3)
    key = lex_key(g) if kind == "lex" else any_key(g)
    if kind == "rank":
        lo, hi = index(g), index(g)
    elif kind == "score":
        lo, hi = bound(g), bound(g)
    else:
        lo, hi = lex_bound(g), lex_bound(g)
    args = [g.case("ZRANGE"), key, lo, hi]
    opts = _range_options(g, kind)
    if kind != "rank":
        opts.append(g.case("BYSCORE" if kind == "score" else "BYLEX"))
    if rev:
        opts.append(g.case("REV"))
    g.rng.shuffle(opts)
    return args + opts


@command("zsets", 1.5)
def ZRANGESTORE(g):
    kind = g.pick(["rank", "score", "lex"])
    src = lex_key(g) if kind == "lex" else any_key(g)
    dst = zset_key(g) if g.chance(0.8) else g.pick(["zd", other_zset_key(g)])
    if kind == "rank":
        lo, hi = index(g), index(g)
    elif kind == "score":
        lo, hi = bound(g), bound(g)
    else:
        lo, hi = lex_bound(g), lex_bound(g)
    args = [g.case("ZRANGESTORE"), dst, src, lo, hi]
    if kind != "rank":
        args.append(g.case("BYSCORE" if kind == "score" else "BYLEX"))
        args += limit(g)
    if g.chance(0.3):
        args.append(g.case("REV"))
    if g.chance(0.03):
        args.append("WITHSCORES")
    return [Cmd(args), Cmd(["OBJECT", "ENCODING", dst], "encoding")]


@command("zsets", 2)
def ZRANGE_LEGACY(g):
    r = g.rng.random()
    if r < 0.25:
        return [g.case("ZREVRANGE"), any_key(g), index(g), index(g)] + (
            [g.case("WITHSCORES")] if g.chance(0.4) else [])
    if r < 0.6:
        name = g.case(g.pick(["ZRANGEBYSCORE", "ZREVRANGEBYSCORE"]))
        return [name, any_key(g), bound(g), bound(g)] + _range_options(g, "score")
    name = g.case(g.pick(["ZRANGEBYLEX", "ZREVRANGEBYLEX"]))
    return [name, lex_key(g), lex_bound(g), lex_bound(g)] + _range_options(g, "lex")


@command("zsets", 1.5)
def ZRANDMEMBER(g):
    r = g.rng.random()
    if r < 0.4:  # the whole set, in reverse order
        return [g.case("ZRANDMEMBER"), any_key(g), g.pick(HUGE_COUNTS)] + (
            [g.case("WITHSCORES")] if g.chance(0.5) else [])
    if r < 0.65:
        key = zset_key(g)
        return [Cmd(["DEL", key]), Cmd(["ZADD", key, score(g, bad=0), member(g)]),
                Cmd([g.case("ZRANDMEMBER"), key] + g.pick(
                    [[], ["1"], ["-3"], ["2"], ["-2", "WITHSCORES"], ["5", "WITHSCORES"]]))]
    if r < 0.8:  # another type, a missing key, or any set with a determined count
        return [g.case("ZRANDMEMBER"), g.key(), g.pick(["0", "100000"])]
    return [g.case("ZRANDMEMBER"), any_key(g)] + g.pick(
        [["0"], ["abc"], ["-9223372036854775808"], ["1", "2"], ["1.5"], [""],
         ["4611686018427387904", "WITHSCORES"], ["-4611686018427387904", "WITHSCORES"],
         ["1", "WITHSCORES", "x"]])


@command("zsets", 1.5)
def ZSCAN(g):
    args = [g.case("ZSCAN"), any_key(g), "{cursor}"]
    if g.chance(0.4):
        args += [g.case("MATCH"), g.pick(PATTERNS + ["m*", "e1*", "*a*"])]
    if g.chance(0.4):
        args += [g.case("COUNT"), g.pick(["1", "2", "5", "10", "1000"])]
    if g.chance(0.05):
        args += g.pick([["COUNT", "0"], ["COUNT", "abc"], ["MATCH"], ["FOO"]])
    if g.chance(0.03):
        return Cmd([args[0], args[1], g.pick(["abc", "1.5", " 1"])] + args[3:])
    return Cmd(args, "scan")


@command("zsets", 1)
def OBJECT_ENCODING_ZSET(g):
    return [g.case("OBJECT"), g.case("ENCODING"), g.pick(ZSET_KEYS + LEX_KEYS + ["zd"])]


# ---------------------------------------------------------------------------------------------
# set operations

def _inputs(g):
    keys = []
    for _ in range(g.randint(1, 3)):
        r = g.rng.random()
        keys.append(zset_key(g) if r < 0.7 else g.pick(["s0", "s1", "zd"]) if r < 0.85
                    else g.key())
    return keys


@command("zsets", 1)
def SADD_FOR_ZSETS(g):
    """Plain sets as inputs (every member scores 1)."""
    return [g.case("SADD"), g.pick(["s0", "s1"])] + [member(g) for _ in range(g.randint(1, 3))]


@command("zsets", 3)
def ZSETOP(g):
    op = g.pick(["ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE",
                 "ZINTERCARD"])
    store = op.endswith("STORE")
    keys = _inputs(g)
    args = [g.case(op)]
    dst = None
    if store:
        dst = zset_key(g) if g.chance(0.7) else g.pick(["zd", other_zset_key(g)])
        args.append(dst)
    args += [str(len(keys))] + keys
    opts = []
    weighted = op in ("ZUNION", "ZINTER", "ZUNIONSTORE", "ZINTERSTORE")
    if weighted and g.chance(0.35):
        opts.append([g.case("WEIGHTS")] + [g.pick(["1", "2", "0", "-1", "0.5", "inf", "-inf",
                                                    "1.5", "3"]) for _ in keys])
    if weighted and g.chance(0.35):
        opts.append([g.case("AGGREGATE"), g.case(g.pick(["SUM", "MIN", "MAX"]))])
    if not store and op != "ZINTERCARD" and g.chance(0.5):
        opts.append([g.case("WITHSCORES")])
    if op == "ZINTERCARD" and g.chance(0.5):
        opts.append([g.case("LIMIT"), g.pick(["0", "1", "2", "5"])])
    if g.chance(0.08):  # malformed
        opts.append(g.pick([["WEIGHTS", "1"], ["WEIGHTS"] + ["x"] * len(keys),
                            ["AGGREGATE", "AVG"], ["AGGREGATE"], ["WITHSCORES"],
                            ["LIMIT", "-1"], ["LIMIT", "x"], ["FOO"]]))
    if g.chance(0.05):
        args[2 if store else 1] = g.pick(["0", "-1", "abc", str(len(keys) + 2)])
    g.rng.shuffle(opts)
    args += [w for o in opts for w in o]
    if store:
        return [Cmd(args), Cmd(["OBJECT", "ENCODING", dst], "encoding")]
    return args
