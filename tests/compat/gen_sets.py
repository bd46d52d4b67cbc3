"""Differential generators for the set family ("sets").

Sets are created only under SET_KEYS, which the other families never write, so their
OBJECT ENCODING probes never meet a set (Redis 7.0 has no listpack sets: intset -> hashtable,
where Valkey 8 and Vireo go intset -> listpack -> hashtable). Commands that only read or
remove may also name other keys, to meet WRONGTYPE and missing keys.

Replies whose order is unspecified (SMEMBERS, SINTER, ...) are compared sorted. Random
replies (SPOP, SRANDMEMBER) are generated only where the result is determined: counts at
least the set's size, single-member sets, errors.
"""

from generators import EDGE_INTS, NOT_INTS, PATTERNS, SMALL_INTS, WORDS, Cmd, command

SET_KEYS = ["s0", "s1", "s2", "s3"]
HUGE_COUNTS = ["100000", "9223372036854775807"]


def set_key(g):
    return g.pick(SET_KEYS)


def any_key(g):
    """Mostly a set, sometimes another type or a missing key."""
    return set_key(g) if g.chance(0.75) else g.key()


def member(g):
    r = g.rng.random()
    if r < 0.45:
        return g.pick(SMALL_INTS) if g.chance(0.8) else str(g.randint(-200, 2000))
    if r < 0.55:
        return g.pick(EDGE_INTS)
    if r < 0.65:
        return g.pick(NOT_INTS)
    if r < 0.93:
        return g.pick(WORDS)
    return "m" * g.pick([63, 64, 65, 100])  # around set-max-listpack-value


def members(g, lo=1, hi=4):
    return [member(g) for _ in range(g.randint(lo, hi))]


@command("sets", 8)
def SADD(g):
    key = set_key(g)
    r = g.rng.random()
    if r < 0.06:  # cross the intset / listpack thresholds in one go
        return [g.case("SADD"), key] + [str(i) for i in range(g.randint(120, 600))]
    if r < 0.1:
        return [g.case("SADD"), key] + [f"w{i}" for i in range(g.randint(100, 140))]
    return [g.case("SADD"), key] + members(g)


@command("sets", 3)
def SREM(g):
    return [g.case("SREM"), any_key(g)] + members(g)


@command("sets", 2)
def SCARD(g):
    return [g.case("SCARD"), any_key(g)]


@command("sets", 2)
def SISMEMBER(g):
    return [g.case("SISMEMBER"), any_key(g), member(g)]


@command("sets", 1.5)
def SMISMEMBER(g):
    return [g.case("SMISMEMBER"), any_key(g)] + members(g)


@command("sets", 2.5)
def SMEMBERS(g):
    return Cmd([g.case("SMEMBERS"), any_key(g)], "sorted")


@command("sets", 2)
def SPOP(g):
    r = g.rng.random()
    if r < 0.4:  # whole set
        return Cmd([g.case("SPOP"), any_key(g), g.pick(HUGE_COUNTS)], "sorted")
    if r < 0.7:  # a single-member set
        key = set_key(g)
        return [Cmd(["DEL", key]), Cmd(["SADD", key, member(g)]), Cmd([g.case("SPOP"), key])]
    if r < 0.85:  # a missing key or another type
        return [g.case("SPOP"), g.key()] + ([g.pick(["0", "1", "5"])] if g.chance(0.5) else [])
    return [g.case("SPOP"), any_key(g)] + g.pick([["0"], ["-1"], ["abc"], ["1", "2"], [""]])


@command("sets", 2)
def SRANDMEMBER(g):
    r = g.rng.random()
    if r < 0.5:
        return Cmd([g.case("SRANDMEMBER"), any_key(g), g.pick(HUGE_COUNTS)], "sorted")
    if r < 0.7:
        key = set_key(g)
        return [Cmd(["DEL", key]), Cmd(["SADD", key, member(g)]),
                Cmd([g.case("SRANDMEMBER"), key] + g.pick([[], ["1"], ["-3"], ["2"]]))]
    if r < 0.85:
        return [g.case("SRANDMEMBER"), g.key()] + ([g.pick(["0", "3", "-3"])]
                                                   if g.chance(0.5) else [])
    return [g.case("SRANDMEMBER"), any_key(g)] + g.pick(
        [["0"], ["abc"], ["-9223372036854775808"], ["1", "2"], ["1.5"], [""]])


@command("sets", 2)
def SMOVE(g):
    src = any_key(g)
    return [g.case("SMOVE"), src, src if g.chance(0.1) else set_key(g), member(g)]


def _keys(g, lo=1, hi=3):
    return [any_key(g) for _ in range(g.randint(lo, hi))]


@command("sets", 2)
def SINTER(g):
    return Cmd([g.case("SINTER")] + _keys(g), "sorted")


@command("sets", 2)
def SUNION(g):
    return Cmd([g.case("SUNION")] + _keys(g), "sorted")


@command("sets", 2)
def SDIFF(g):
    return Cmd([g.case("SDIFF")] + _keys(g), "sorted")


@command("sets", 1.5)
def SINTERSTORE(g):
    return [g.case("SINTERSTORE"), set_key(g)] + _keys(g)


@command("sets", 1.5)
def SUNIONSTORE(g):
    return [g.case("SUNIONSTORE"), set_key(g)] + _keys(g)


@command("sets", 1.5)
def SDIFFSTORE(g):
    return [g.case("SDIFFSTORE"), set_key(g)] + _keys(g)


@command("sets", 1.5)
def SINTERCARD(g):
    keys = _keys(g)
    args = [g.case("SINTERCARD"), str(len(keys))] + keys
    if g.chance(0.4):
        args += [g.case("LIMIT"), g.pick(["0", "1", "2", "5", "100"])]
    if g.chance(0.1):
        bad = g.pick([["LIMIT", "-1"], ["LIMIT", "abc"], ["LIMIT"], ["FOO", "1"]])
        args += bad
    if g.chance(0.08):
        args[1] = g.pick(["0", "-1", "abc", str(len(keys) + 1), ""])
    return args


@command("sets", 2)
def SSCAN(g):
    args = [g.case("SSCAN"), any_key(g), "{cursor}"]
    if g.chance(0.4):
        args += [g.case("MATCH"), g.pick(PATTERNS + ["*1*", "w1?", "-*"])]
    if g.chance(0.4):
        args += [g.case("COUNT"), g.pick(["1", "2", "5", "10", "1000"])]
    if g.chance(0.05):
        args += g.pick([["COUNT", "0"], ["COUNT", "abc"], ["MATCH"], ["TYPE", "set"], ["FOO"]])
    if g.chance(0.03):
        return Cmd([args[0], args[1], g.pick(["abc", "1.5", " 1"])] + args[3:])
    return Cmd(args, "scan")


@command("sets", 0.5)
def DEL_SET(g):
    return ["DEL", set_key(g)]


# ---------------------------------------------------------------------------------------------
# sort: each command builds its own source and weights, then sorts

SORT_ELEMS = ["1", "2", "3", "10", "-5", "0", "1.5", "7", "a", "b", "B", "ab", "", "x y", "1e3",
              " 4", "inf", "0x10", "99999999999999999999"]
SORT_SRC = "srt"
SORT_DST = "srt_dst"
# No overflowing weights ("1e400"): Redis reads weights with strtod without clearing errno, so
# one ERANGE fails later numeric sorts until something clears it (Vireo does not copy that).
WEIGHTS = ["1", "2", "10", "-3", "0", "2.5", "a", "b", "", "1e300", "nan", "7", "-inf"]


def _sort_elems(g, numeric):
    pool = [e for e in SORT_ELEMS if e.lstrip("-").isdigit()] if numeric else SORT_ELEMS
    return [g.pick(pool) for _ in range(g.randint(0, 8))]


@command("sort", 6)
def SORT(g):
    kind = g.pick(["list", "list", "set", "zset"])
    numeric = g.chance(0.5)
    elems = _sort_elems(g, numeric)
    # Redis checks errno after strtod without clearing it, so an earlier command whose parse
    # underflowed (ZADD z 5e-324 m) fails the next numeric SORT. ZADD clears errno before it
    # parses: one with a plain score first, then the DEL drops that key.
    setup = [Cmd(["ZADD", SORT_DST, "0", "x"]), Cmd(["DEL", SORT_SRC, SORT_DST])]
    if elems:
        if kind == "list":
            setup.append(Cmd(["RPUSH", SORT_SRC] + elems))
        elif kind == "set":
            setup.append(Cmd(["SADD", SORT_SRC] + elems))
        else:
            args = ["ZADD", SORT_SRC]
            for e in elems:
                args += [str(g.randint(-3, 3)), e]
            setup.append(Cmd(args))
    # Weights for some elements: strings w_<e>, hash fields h_<e> f.
    for e in set(elems):
        if g.chance(0.7):
            setup.append(Cmd(["SET", "w_" + e, g.pick(WEIGHTS) if not numeric or g.chance(0.2)
                              else str(g.randint(-5, 5))]))
        if g.chance(0.5):
            setup.append(Cmd(["HSET", "h_" + e, "f", g.pick(WEIGHTS)]))
    name = "SORT_RO" if g.chance(0.2) else "SORT"
    args = [g.case(name), SORT_SRC]
    by = None
    if g.chance(0.5):
        by = g.pick(["w_*", "h_*->f", "nosort", "w_*", "h_*->", "missing_*", "h_*->g"])
        args += [g.case("BY"), by]
    alpha = g.chance(0.4)
    dontsort = by is not None and "*" not in by
    store = name == "SORT" and g.chance(0.25)
    # Orders that depend on a set's internal layout: compare sorted, and no LIMIT.
    unordered = kind != "list" and ((alpha and by is not None and not dontsort) or
                                    (dontsort and kind == "set" and not store))
    # ALPHA BY ties (equal or missing weights) keep the load order in a full sort (glibc's
    # qsort is a merge sort, as our stable sort), but Redis sorts a LIMIT range with its own
    # partial quicksort, whose tie order is arbitrary: no LIMIT with them.
    ties_arbitrary = alpha and by is not None and not dontsort
    if g.chance(0.4) and not unordered and not ties_arbitrary:
        args += [g.case("LIMIT"), str(g.randint(-2, 6)), str(g.randint(-2, 6))]
    # (Sorted comparison cannot order nils: only "#" then.)
    gets = ["#"] if unordered else ["#", "w_*", "h_*->f", "nostar", "h_*->", "#x"]
    for _ in range(g.randint(0, 2) if g.chance(0.5) else 0):
        args += [g.case("GET"), g.pick(gets)]
    if g.chance(0.4):
        args.append(g.case(g.pick(["ASC", "DESC"])))
    if alpha:
        args.append(g.case("ALPHA"))
    if store:
        args += [g.case("STORE"), SORT_DST]
    if g.chance(0.05):
        args += g.pick([["LIMIT", "1"], ["LIMIT", "a", "1"], ["BY"], ["GET"], ["FOO"],
                        ["STORE"]])
    if store and unordered:  # the audit would compare the list's order: drop it
        return setup + [Cmd(args), Cmd(["LRANGE", SORT_DST, "0", "-1"], "sorted"),
                        Cmd(["DEL", SORT_DST])]
    if store:
        return setup + [Cmd(args), Cmd(["LRANGE", SORT_DST, "0", "-1"])]
    return setup + [Cmd(args, "sorted" if unordered else "exact")]


@command("sort", 1)
def SORT_ERRORS(g):
    return g.pick([
        [g.case("SORT"), g.key()],
        [g.case("SORT_RO"), any_key(g), "STORE", "x"],
        [g.case("SORT"), any_key(g), "LIMIT", "0"],
        [g.case("SORT"), any_key(g), "BY"],
        [g.case("SORT"), any_key(g), "ALPHA", "FOO"],
        [g.case("SORT"), any_key(g), "LIMIT", "1.5", "2"],
    ])
