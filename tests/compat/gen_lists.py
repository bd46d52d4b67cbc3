"""Differential generators for the list family ("lists"), beside RPUSH in generators.py.

Lists live mostly under LIST_KEYS; commands also name other keys to meet WRONGTYPE and missing
keys. Elements come from a small pool so LREM, LPOS and LINSERT find their pivots, with
integers (stored as integers in listpacks) and long strings mixed in. Big pushes and CONFIG
SET of list-max-listpack-size / list-compress-depth make Vireo convert between listpack and
quicklist and compress nodes, which must never show in a reply (Redis 7.0 is always quicklist).

Blocking commands use tiny timeouts: with nothing to pop both servers answer the timeout null,
and no other client writes meanwhile, so the replies are the same.
"""

from generators import EDGE_INTS, LIST_KEYS, SMALL_INTS, WORDS, Cmd, command

POOL = ["a", "b", "c", "x", "hello", "1", "2", "10", "-3", "007", "", "9223372036854775807"]
BLOCK_TIMEOUTS = ["0.01", "0.02"]
# (Not "inf": Redis 7.0 overflows it into "timeout is negative", Valkey says "out of range".)
BAD_TIMEOUTS = ["-1", "abc", "", "nan", "-0.5", "-inf"]
SIDES = ["LEFT", "RIGHT"]


def list_key(g):
    return g.pick(LIST_KEYS) if g.chance(0.85) else g.key()


def element(g):
    r = g.rng.random()
    if r < 0.7:
        return g.pick(POOL)
    if r < 0.8:
        return g.pick(SMALL_INTS + EDGE_INTS)
    if r < 0.9:
        return g.pick(WORDS)
    return g.pick("xyz") * g.pick([20, 64, 65, 300, 5000])


def elements(g, lo=1, hi=4):
    return [element(g) for _ in range(g.randint(lo, hi))]


def index(g):
    r = g.rng.random()
    if r < 0.85:
        return str(g.randint(-12, 12))
    return g.pick(["100000", "-100000", "9223372036854775807", "-9223372036854775808", "abc",
                   "", "1.5"])


def count(g):
    r = g.rng.random()
    if r < 0.8:
        return str(g.randint(0, 6))
    return g.pick(["-1", "abc", "100000", "9223372036854775807", "-9223372036854775808", ""])


def side(g):
    return g.case(g.pick(SIDES)) if g.chance(0.95) else g.pick(["UP", "", "LEF"])


def timeout(g):
    return g.pick(BLOCK_TIMEOUTS) if g.chance(0.9) else g.pick(BAD_TIMEOUTS)


@command("lists", 6)
def PUSH(g):
    name = g.pick(["LPUSH", "RPUSH", "LPUSHX", "RPUSHX"])
    key = list_key(g)
    r = g.rng.random()
    if r < 0.05:  # cross list-max-listpack-size in one batch
        return [g.case(name), key] + [f"e{i}" for i in range(g.randint(100, 400))]
    if r < 0.08:
        return [g.case(name), key] + [str(i) for i in range(g.randint(100, 1200))]
    return [g.case(name), key] + elements(g)


@command("lists", 4)
def POP(g):
    name = g.pick(["LPOP", "RPOP"])
    args = [g.case(name), list_key(g)]
    if g.chance(0.5):
        args.append(count(g))
    if g.chance(0.02):
        args.append("1")  # too many arguments
    return args


@command("lists", 2)
def LLEN(g):
    return [g.case("LLEN"), list_key(g)]


@command("lists", 4)
def LRANGE(g):
    return [g.case("LRANGE"), list_key(g), index(g), index(g)]


@command("lists", 2)
def LINDEX(g):
    return [g.case("LINDEX"), list_key(g), index(g)]


@command("lists", 2)
def LSET(g):
    return [g.case("LSET"), list_key(g), index(g), element(g)]


@command("lists", 2)
def LINSERT(g):
    where = g.case(g.pick(["BEFORE", "AFTER"])) if g.chance(0.95) else "MIDDLE"
    return [g.case("LINSERT"), list_key(g), where, element(g), element(g)]


@command("lists", 2)
def LREM(g):
    # (Not -9223372036854775808: Redis 7.0 negates it with overflow, Valkey 8 refuses it.)
    n = str(g.randint(-3, 3)) if g.chance(0.9) else g.pick(["abc", "-9223372036854775807",
                                                             "9223372036854775807"])
    return [g.case("LREM"), list_key(g), n, element(g)]


@command("lists", 1.5)
def LTRIM(g):
    return [g.case("LTRIM"), list_key(g), index(g), index(g)]


@command("lists", 2)
def LPOS(g):
    args = [g.case("LPOS"), list_key(g), element(g)]
    opts = []
    if g.chance(0.4):
        opts.append([g.case("RANK"), g.pick(["1", "2", "-1", "-2", "3", "0", "abc",
                                             "-9223372036854775807"])])
    if g.chance(0.4):
        opts.append([g.case("COUNT"), g.pick(["0", "1", "2", "5", "-1", "abc"])])
    if g.chance(0.3):
        opts.append([g.case("MAXLEN"), g.pick(["0", "1", "3", "10", "-1", "abc"])])
    if g.chance(0.05):
        opts.append(g.pick([["RANK"], ["FOO", "1"], ["COUNT"]]))
    g.rng.shuffle(opts)
    for o in opts:
        args += o
    return args


@command("lists", 2.5)
def LMOVE(g):
    if g.chance(0.3):
        return [g.case("RPOPLPUSH"), list_key(g), list_key(g)]
    return [g.case("LMOVE"), list_key(g), list_key(g), side(g), side(g)]


def mpop_tail(g):
    keys = [list_key(g) for _ in range(g.randint(1, 3))]
    n = str(len(keys))
    r = g.rng.random()
    if r < 0.05:
        n = g.pick(["0", "-1", "abc", str(len(keys) + 1), "9223372036854775807"])
    args = [n] + keys + [side(g)]
    if g.chance(0.5):
        args += [g.case("COUNT"), g.pick(["1", "2", "5", "100", "0", "-1", "abc"])]
    if g.chance(0.03):
        args += g.pick([["COUNT", "1"], ["FOO"], ["COUNT"]])
    return args


@command("lists", 2)
def LMPOP(g):
    return [g.case("LMPOP")] + mpop_tail(g)


@command("lists", 1.5)
def BLOCKING(g):
    r = g.rng.random()
    if r < 0.3:
        return [g.case(g.pick(["BLPOP", "BRPOP"]))] + [list_key(g) for _ in range(
            g.randint(1, 3))] + [timeout(g)]
    if r < 0.55:
        return [g.case("BLMOVE"), list_key(g), list_key(g), side(g), side(g), timeout(g)]
    if r < 0.7:
        return [g.case("BRPOPLPUSH"), list_key(g), list_key(g), timeout(g)]
    return [g.case("BLMPOP"), timeout(g)] + mpop_tail(g)


@command("lists", 0.4)
def LIST_CONFIG(g):
    """Node size and compression change what Vireo stores, never what it answers."""
    if g.chance(0.7):
        return [g.case("CONFIG"), "SET", "list-max-listpack-size",
                g.pick(["-2", "-1", "-5", "1", "2", "3", "4", "8", "128"])]
    return [g.case("CONFIG"), "SET", "list-compress-depth", g.pick(["0", "1", "2", "3"])]


@command("lists", 0.5)
def LIST_ENCODING(g):
    return Cmd([g.case("OBJECT"), "ENCODING", list_key(g)], "encoding")
