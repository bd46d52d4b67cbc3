"""Randomized command generators for the differential tester (run_compat.py).

Each generator is a small function `fn(g: Gen)` registered with `@command(family, weight)`. It
returns one command (a list of str/bytes/int arguments, or a Cmd when the reply needs a
comparison other than exact equality) or a list of Cmd to run in sequence. Generators must draw
every random choice from `g` (never from replies or the clock), so a seed reproduces a sequence.

Comparison modes (Cmd.mode):
  exact     replies must be identical, including the RESP type
  sorted    the reply is an unordered collection (KEYS): elements are sorted before comparing
  ttl       TTL-like integers: every positive value counts as the same ("positive")
  encoding  OBJECT ENCODING: "quicklist" and "listpack" are the same (Redis 7.0 vs Valkey 8 lists)
  scan      args are a SCAN command with a "{cursor}" placeholder; the runner iterates to cursor
            0 on each server and compares the sorted set of keys (or the first error)

To add a family, write generators with a new family name; run_compat.py --families picks them.
Commands whose replies legitimately differ (RANDOMKEY, OBJECT IDLETIME/FREQ, INFO, exact TTLs,
small expiries that race the active expire cycle) must not be generated.
"""

import random

# ---------------------------------------------------------------------------------------------
# The table

REGISTRY = {}  # family -> list of (name, weight, fn)
# Comparison modes a family module adds: mode -> fn(reply) -> normalized reply.
MODE_NORMALIZERS = {}


def command(family, weight=1.0, name=None):
    def register(fn):
        REGISTRY.setdefault(family, []).append((name or fn.__name__, weight, fn))
        return fn
    return register


class Cmd:
    __slots__ = ("args", "mode")

    def __init__(self, args, mode="exact"):
        self.args = [to_bytes(a) for a in args]
        # Any family's OBJECT ENCODING probe may meet a list (Redis 7.0: always quicklist).
        if (mode == "exact" and len(self.args) >= 2 and self.args[0].upper() == b"OBJECT"
                and self.args[1].upper() == b"ENCODING"):
            mode = "encoding"
        self.mode = mode

    def __repr__(self):
        return f"Cmd({format_args(self.args)}, {self.mode})"


def to_bytes(a):
    if isinstance(a, bytes):
        return a
    if isinstance(a, str):
        return a.encode("utf-8", "surrogateescape")
    return str(a).encode()


def format_args(args):
    """Render arguments the way redis-cli would accept them."""
    out = []
    for a in args:
        if a and all(33 <= b < 127 and b not in b'"\'\\' for b in a):
            out.append(a.decode())
        else:
            s = "".join(chr(b) if 32 <= b < 127 and b not in b'"\\' else
                        "\\" + chr(b) if b in b'"\\' else f"\\x{b:02x}" for b in a)
            out.append(f'"{s}"')
    return " ".join(out)


# ---------------------------------------------------------------------------------------------
# Argument pools

STRING_KEYS = [f"k{i}" for i in range(10)]
NUMBER_KEYS = ["n0", "n1"]
LIST_KEYS = ["l0", "l1", "l2"]
ODD_KEYS = ["", "k*", "key:with:colons", "k\x00z", "\u00e9t\u00e9"]
KEYS = STRING_KEYS + NUMBER_KEYS + LIST_KEYS + ODD_KEYS  # 20 names
DBS = [0, 1, 2, 3]

SMALL_INTS = ["0", "1", "-1", "2", "7", "10", "42", "-17", "100", "999", "10000", "12345"]
EDGE_INTS = ["9223372036854775807", "-9223372036854775808", "9223372036854775806",
             "-9223372036854775807", "4294967296", "2147483647", "-2147483648"]
NOT_INTS = ["9223372036854775808", "-9223372036854775809", "99999999999999999999", "abc", "",
            "1.5", " 1", "1 ", "+1", "01", "0x10", "1e3", "-0", "--1", "1-", "\x001"]
FLOATS = ["1.5", "-1.5", "0.1", "1e3", "1E3", "-0", "0.0", "3.0", "10.5000", "1e-5", "-2.5e-3",
          "1e308", "-1e308", "5e-324", "123456789.123456789", ".5", "5.", "inf", "-inf", "nan",
          "+inf", "1e", "e3", "1.2.3", "abc", ""]
WORDS = ["abc", "hello", "world", "foo", "bar", "a", "ab", "x y", "\r\n", "\x00\x01\xff",
         "ohmytext", "mynewtext", "\u00e9t\u00e9", "*", "k1"]
PATTERNS = ["*", "k*", "k1*", "*1", "k?", "?", "k[0-5]", "k[^0-5]*", "k[!0-5]", "[kl]*", "*:*",
            "k\\*", "\\*", "", "l*", "n?", "*[", "[", "k[a-", "*z", "*\x00*", "[a-z][0-9]",
            "K*", "*o*o*o*"]
TYPES = ["string", "list", "set", "zset", "hash", "stream", "nosuchtype", "STRING"]


class Gen:
    """Random argument source for generators; all randomness comes from self.rng."""

    def __init__(self, rng):
        self.rng = rng

    # basic choices
    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return self.rng.choice(seq)

    def randint(self, a, b):
        return self.rng.randint(a, b)

    def case(self, word):
        """Command and option names in random letter case (servers must not care)."""
        r = self.rng.random()
        if r < 0.7:
            return word
        if r < 0.85:
            return word.lower()
        return "".join(c.upper() if self.rng.random() < 0.5 else c.lower() for c in word)

    # keys
    def key(self):
        r = self.rng.random()
        if r < 0.55:
            return self.pick(STRING_KEYS)
        if r < 0.75:
            return self.pick(NUMBER_KEYS)
        if r < 0.88:
            return self.pick(LIST_KEYS)
        return self.pick(ODD_KEYS)

    def keys(self, lo=1, hi=4):
        return [self.key() for _ in range(self.randint(lo, hi))]

    def db(self):
        r = self.rng.random()
        if r < 0.93:
            return str(self.pick(DBS))
        return self.pick(["15", "16", "-1", "abc", "99999999999999999999", "1.0", ""])

    # values
    def integer(self):
        r = self.rng.random()
        if r < 0.7:
            return self.pick(SMALL_INTS)
        if r < 0.85:
            return self.pick(EDGE_INTS)
        return self.pick(NOT_INTS)

    def value(self):
        r = self.rng.random()
        if r < 0.35:
            return self.pick(SMALL_INTS) if self.chance(0.9) else self.pick(EDGE_INTS)
        if r < 0.45:
            return self.pick(FLOATS)
        if r < 0.75:
            return self.pick(WORDS)
        if r < 0.82:
            return ""
        if r < 0.92:  # around the 44-byte embstr limit and the 20-byte integer limit
            return "v" * self.pick([19, 20, 21, 43, 44, 45, 46, 64])
        if r < 0.97:
            return self.pick("abcxyz") * self.randint(100, 600)
        return bytes(self.randint(0, 255) for _ in range(self.randint(1, 40)))

    def short_value(self):
        return self.pick(WORDS + SMALL_INTS + ["", "zz", "0.5"])

    # times: long relative expiries only (short ones race the active expire cycle); absolute
    # times are fixed (far future / clearly past) so a seed reproduces the same arguments.
    def rel_seconds(self, bad=0.15):
        if not self.chance(bad):
            return str(self.randint(100, 1_000_000))
        return self.pick(["0", "-1", "-100", "abc", "1.5", "", "9223372036854775807",
                          "9223372036854775", "99999999999999999999", "-9223372036854775808",
                          "4611686018427387904"])

    def rel_millis(self, bad=0.15):
        if not self.chance(bad):
            return str(self.randint(100_000, 1_000_000_000))
        return self.pick(["0", "-1", "-100000", "abc", "1.5", "", "9223372036854775807",
                          "9223372036854775", "99999999999999999999", "-9223372036854775808"])

    FUTURE_S = 4102444800  # 2100-01-01

    def abs_seconds(self, bad=0.15):
        if not self.chance(bad):
            return str(self.FUTURE_S + self.randint(0, 10_000_000))
        return self.pick(["1", "0", "-1", "1000000000", "abc", "9223372036854775807",
                          "9223372036854775", "99999999999999999999"])

    def abs_millis(self, bad=0.15):
        if not self.chance(bad):
            return str((self.FUTURE_S + self.randint(0, 10_000_000)) * 1000
                       + self.randint(0, 999))
        return self.pick(["1", "0", "-1", "1000000000000", "abc", "9223372036854775807",
                          "99999999999999999999"])

    def index(self):
        r = self.rng.random()
        if r < 0.85:
            return str(self.randint(-60, 60))
        return self.pick(["9223372036854775807", "-9223372036854775808", "100000",
                          "-100000", "abc", "", "1.5", "99999999999999999999"])


def _expire_follow_up(g, key, args, past):
    """A command that may set an already-past expiry is followed by EXISTS on the key.

    Redis keeps such a key until it is touched or the active expire cycle finds it, so DBSIZE
    would race; EXISTS deletes it right away on every server.
    """
    if past:
        return [Cmd(args), Cmd([g.case("EXISTS"), key])]
    return Cmd(args)


def _is_past(value, millis=False):
    try:
        return int(value) < Gen.FUTURE_S * (1000 if millis else 1)
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------
# strings

@command("strings", 6)
def GET(g):
    return [g.case("GET"), g.key()]


@command("strings", 8)
def SET(g):
    key = g.key()
    args = [g.case("SET"), key, g.value()]
    opts = []
    past = False
    if g.chance(0.3):
        opts.append([g.case(g.pick(["NX", "XX"]))])
    if g.chance(0.2):
        opts.append([g.case("GET")])
    if g.chance(0.5):
        kind = g.pick(["EX", "PX", "EXAT", "PXAT", "KEEPTTL"])
        if kind == "EX":
            opts.append([g.case(kind), g.rel_seconds()])
        elif kind == "PX":
            opts.append([g.case(kind), g.rel_millis()])
        elif kind == "EXAT":
            t = g.abs_seconds()
            past = past or _is_past(t)
            opts.append([g.case(kind), t])
        elif kind == "PXAT":
            t = g.abs_millis()
            past = past or _is_past(t, millis=True)
            opts.append([g.case(kind), t])
        else:
            opts.append([g.case(kind)])
    if g.chance(0.08):  # bad combinations and malformed options
        bad = g.pick([["NX", "XX"], ["EX", "100", "PX", "100000"], ["KEEPTTL", "EX", "100"],
                      ["EX"], ["PX"], ["EXAT"], ["FOO"], ["GET", "GET"], ["NX", "NX"],
                      ["EX", "100", "EX", "200"], ["PERSIST"], ["KEEPTTL", "KEEPTTL"]])
        opts.append([g.case(b) for b in bad])
    if g.chance(0.5):
        g.rng.shuffle(opts)
    for o in opts:
        args += o
    return _expire_follow_up(g, key, args, past)


@command("strings", 2)
def SETNX(g):
    return [g.case("SETNX"), g.key(), g.value()]


@command("strings", 2)
def SETEX(g):
    return [g.case("SETEX"), g.key(), g.rel_seconds(0.25), g.value()]


@command("strings", 2)
def PSETEX(g):
    return [g.case("PSETEX"), g.key(), g.rel_millis(0.25), g.value()]


@command("strings", 2)
def GETSET(g):
    return [g.case("GETSET"), g.key(), g.value()]


@command("strings", 2)
def GETDEL(g):
    return [g.case("GETDEL"), g.key()]


@command("strings", 3)
def GETEX(g):
    key = g.key()
    args = [g.case("GETEX"), key]
    past = False
    r = g.rng.random()
    if r < 0.2:
        args += [g.case("EX"), g.rel_seconds()]
    elif r < 0.35:
        args += [g.case("PX"), g.rel_millis()]
    elif r < 0.5:
        t = g.abs_seconds()
        past = _is_past(t)
        args += [g.case("EXAT"), t]
    elif r < 0.6:
        t = g.abs_millis()
        past = _is_past(t, millis=True)
        args += [g.case("PXAT"), t]
    elif r < 0.75:
        args += [g.case("PERSIST")]
    elif r < 0.85:
        args += g.pick([["EX", "100", "PX", "100000"], ["PERSIST", "EX", "100"], ["EX"],
                        ["KEEPTTL"], ["NX"], ["FOO"], ["PERSIST", "PERSIST"]])
    return _expire_follow_up(g, key, args, past)


@command("strings", 3)
def MGET(g):
    return [g.case("MGET")] + g.keys(1, 5)


@command("strings", 2)
def MSET(g):
    args = [g.case("MSET")]
    for _ in range(g.randint(1, 4)):
        args += [g.key(), g.value()]
    if g.chance(0.1):
        args.pop()  # odd number of arguments
    return args


@command("strings", 1.5)
def MSETNX(g):
    args = [g.case("MSETNX")]
    for _ in range(g.randint(1, 3)):
        args += [g.key(), g.value()]
    if g.chance(0.1):
        args.pop()
    return args


@command("strings", 3)
def APPEND(g):
    return [g.case("APPEND"), g.key(), g.short_value()]


@command("strings", 2)
def STRLEN(g):
    return [g.case("STRLEN"), g.key()]


@command("strings", 2)
def GETRANGE(g):
    return [g.case("GETRANGE"), g.key(), g.index(), g.index()]


@command("strings", 0.7)
def SUBSTR(g):
    return [g.case("SUBSTR"), g.key(), g.index(), g.index()]


@command("strings", 2)
def SETRANGE(g):
    r = g.rng.random()
    if r < 0.8:
        offset = str(g.randint(0, 64))
    elif r < 0.9:
        offset = str(g.randint(65, 1000))
    else:  # errors, or a huge offset with an empty value (nothing is allocated)
        offset = g.pick(["-1", "abc", "", "536870912", "4294967296", "9223372036854775807"])
        if offset.isdigit() and g.chance(0.3):
            return [g.case("SETRANGE"), g.key(), offset, ""]
    return [g.case("SETRANGE"), g.key(), offset, g.short_value()]


@command("strings", 3)
def INCR(g):
    return [g.case("INCR"), g.pick(NUMBER_KEYS) if g.chance(0.6) else g.key()]


@command("strings", 2)
def DECR(g):
    return [g.case("DECR"), g.pick(NUMBER_KEYS) if g.chance(0.6) else g.key()]


@command("strings", 2)
def INCRBY(g):
    return [g.case("INCRBY"), g.pick(NUMBER_KEYS) if g.chance(0.6) else g.key(), g.integer()]


@command("strings", 2)
def DECRBY(g):
    return [g.case("DECRBY"), g.pick(NUMBER_KEYS) if g.chance(0.6) else g.key(), g.integer()]


@command("strings", 2.5)
def INCRBYFLOAT(g):
    key = g.pick(NUMBER_KEYS) if g.chance(0.6) else g.key()
    incr = g.pick(FLOATS) if g.chance(0.7) else g.integer()
    return [g.case("INCRBYFLOAT"), key, incr]


@command("strings", 1.5)
def LCS(g):
    args = [g.case("LCS"), g.key(), g.key()]
    opts = []
    if g.chance(0.3):
        opts.append([g.case("LEN")])
    if g.chance(0.4):
        opts.append([g.case("IDX")])
    if g.chance(0.3):
        opts.append([g.case("MINMATCHLEN"), g.pick(["0", "1", "2", "4", "-1", "abc"])])
    if g.chance(0.3):
        opts.append([g.case("WITHMATCHLEN")])
    if g.chance(0.05):
        opts.append([g.pick(["FOO", "MINMATCHLEN"])])
    g.rng.shuffle(opts)
    for o in opts:
        args += o
    return args


# ---------------------------------------------------------------------------------------------
# keys

@command("keys", 2)
def DEL(g):
    return [g.case("DEL")] + g.keys(1, 4)


@command("keys", 1)
def UNLINK(g):
    return [g.case("UNLINK")] + g.keys(1, 4)


@command("keys", 2)
def EXISTS(g):
    return [g.case("EXISTS")] + g.keys(1, 4)


@command("keys", 1)
def TOUCH(g):
    return [g.case("TOUCH")] + g.keys(1, 4)


@command("keys", 2)
def TYPE(g):
    return [g.case("TYPE"), g.key()]


@command("keys", 1.5)
def RENAME(g):
    src = g.key()
    return [g.case("RENAME"), src, src if g.chance(0.1) else g.key()]


@command("keys", 1)
def RENAMENX(g):
    src = g.key()
    return [g.case("RENAMENX"), src, src if g.chance(0.1) else g.key()]


@command("keys", 1.5)
def COPY(g):
    src = g.key()
    args = [g.case("COPY"), src, src if g.chance(0.1) else g.key()]
    if g.chance(0.4):
        args += [g.case("DB"), g.db()]
    if g.chance(0.4):
        args += [g.case("REPLACE")]
    if g.chance(0.05):
        args += [g.pick(["FOO", "DB"])]
    return args


def _expire_options(g):
    opts = []
    if g.chance(0.4):
        opts.append(g.case(g.pick(["NX", "XX", "GT", "LT"])))
    if g.chance(0.1):
        opts.append(g.case(g.pick(["NX", "XX", "GT", "LT", "FOO"])))
    return opts


@command("keys", 2)
def EXPIRE(g):
    key = g.key()
    t = g.rel_seconds(0.2)
    return [g.case("EXPIRE"), key, t] + _expire_options(g)


@command("keys", 1.5)
def PEXPIRE(g):
    return [g.case("PEXPIRE"), g.key(), g.rel_millis(0.2)] + _expire_options(g)


@command("keys", 1.5)
def EXPIREAT(g):
    return [g.case("EXPIREAT"), g.key(), g.abs_seconds(0.2)] + _expire_options(g)


@command("keys", 1.5)
def PEXPIREAT(g):
    return [g.case("PEXPIREAT"), g.key(), g.abs_millis(0.2)] + _expire_options(g)


@command("keys", 2)
def TTL(g):
    return Cmd([g.case("TTL"), g.key()], "ttl")


@command("keys", 1.5)
def PTTL(g):
    return Cmd([g.case("PTTL"), g.key()], "ttl")


@command("keys", 1)
def EXPIRETIME(g):
    return Cmd([g.case("EXPIRETIME"), g.key()], "ttl")


@command("keys", 1)
def PEXPIRETIME(g):
    return Cmd([g.case("PEXPIRETIME"), g.key()], "ttl")


@command("keys", 1.5)
def PERSIST(g):
    return [g.case("PERSIST"), g.key()]


@command("keys", 1.5)
def DBSIZE(g):
    return [g.case("DBSIZE")]


@command("keys", 1.5)
def SELECT(g):
    return [g.case("SELECT"), g.db()]


@command("keys", 0.7)
def SWAPDB(g):
    return [g.case("SWAPDB"), g.db(), g.db()]


@command("keys", 1.5)
def MOVE(g):
    return [g.case("MOVE"), g.key(), g.db()]


@command("keys", 0.2)
def FLUSHDB(g):
    args = [g.case("FLUSHDB")]
    if g.chance(0.5):
        args.append(g.case(g.pick(["ASYNC", "SYNC", "FOO"])))
    return args


@command("keys", 0.05)
def FLUSHALL(g):
    args = [g.case("FLUSHALL")]
    if g.chance(0.5):
        args.append(g.case(g.pick(["ASYNC", "SYNC"])))
    return args


@command("keys", 2)
def OBJECT_ENCODING(g):
    return Cmd([g.case("OBJECT"), g.case("ENCODING"), g.key()], "encoding")


@command("keys", 1.5)
def KEYS(g):
    return Cmd([g.case("KEYS"), g.pick(PATTERNS)], "sorted")


@command("keys", 1.5)
def SCAN(g):
    args = [g.case("SCAN"), "{cursor}"]
    if g.chance(0.5):
        args += [g.case("MATCH"), g.pick(PATTERNS)]
    if g.chance(0.4):
        args += [g.case("COUNT"), g.pick(["1", "2", "5", "10", "1000"])]
    if g.chance(0.2):
        args += [g.case("TYPE"), g.pick(TYPES)]
    if g.chance(0.05):
        args += g.pick([["COUNT", "0"], ["COUNT", "abc"], ["COUNT", "-1"], ["MATCH"], ["FOO"]])
    if g.chance(0.03):  # a malformed cursor is an error ("" and "-1" are valid cursors!)
        return Cmd([args[0], g.pick(["abc", "1.5", " 1", "1a", "0x10"])] + args[2:])
    return Cmd(args, "scan")


@command("lists", 2)
def RPUSH(g):
    """Creates list keys, mostly under list names, so other commands meet WRONGTYPE."""
    key = g.pick(LIST_KEYS) if g.chance(0.8) else g.key()
    return [g.case("RPUSH"), key] + [g.short_value() for _ in range(g.randint(1, 3))]


# ---------------------------------------------------------------------------------------------
# errors: wrong arity and unknown commands over the commands above

ARITY = {  # Redis arity: N = exactly N words, -N = at least N words (the name counts)
    "GET": 2, "SET": -3, "SETNX": 3, "SETEX": 4, "PSETEX": 4, "GETSET": 3, "GETDEL": 2,
    "GETEX": -2, "MGET": -2, "MSET": -3, "MSETNX": -3, "APPEND": 3, "STRLEN": 2,
    "GETRANGE": 4, "SETRANGE": 4, "SUBSTR": 4, "INCR": 2, "DECR": 2, "INCRBY": 3,
    "DECRBY": 3, "INCRBYFLOAT": 3, "LCS": -3, "DEL": -2, "UNLINK": -2, "EXISTS": -2,
    "TYPE": 2, "RENAME": 3, "RENAMENX": 3, "COPY": -3, "TOUCH": -2, "EXPIRE": -3,
    "PEXPIRE": -3, "EXPIREAT": -3, "PEXPIREAT": -3, "TTL": 2, "PTTL": 2, "EXPIRETIME": 2,
    "PEXPIRETIME": 2, "PERSIST": 2, "DBSIZE": 1, "SELECT": 2, "SWAPDB": 3, "MOVE": 3,
    "KEYS": 2, "SCAN": -2, "OBJECT": -2,
    # sets
    "SADD": -3, "SREM": -3, "SMEMBERS": 2, "SISMEMBER": 3, "SMISMEMBER": -3, "SCARD": 2,
    "SPOP": -2, "SRANDMEMBER": -2, "SMOVE": 4, "SINTER": -2, "SINTERCARD": -3,
    "SINTERSTORE": -3, "SUNION": -2, "SUNIONSTORE": -3, "SDIFF": -2, "SDIFFSTORE": -3,
    "SSCAN": -3, "SORT": -2, "SORT_RO": -2,
    # lists
    "LPUSH": -3, "RPUSH": -3, "LPUSHX": -3, "RPUSHX": -3, "LPOP": -2, "RPOP": -2, "LLEN": 2,
    "LRANGE": 4, "LINDEX": 3, "LSET": 4, "LINSERT": 5, "LREM": 4, "LTRIM": 4, "LPOS": -3,
    "LMOVE": 5, "RPOPLPUSH": 3, "LMPOP": -4, "BLPOP": -3, "BRPOP": -3, "BLMOVE": 6,
    "BRPOPLPUSH": 4, "BLMPOP": -5,  # (only wrong counts are generated: nothing blocks)
    # sorted sets (not ZRANK/ZREVRANK: 7.0 lacks WITHSCORE, so its arity differs)
    "ZADD": -4, "ZINCRBY": 4, "ZREM": -3, "ZCARD": 2, "ZCOUNT": 4, "ZLEXCOUNT": 4,
    "ZSCORE": 3, "ZMSCORE": -3, "ZRANGE": -4, "ZRANGESTORE": -5, "ZRANGEBYSCORE": -4,
    "ZREVRANGEBYSCORE": -4, "ZRANGEBYLEX": -4, "ZREVRANGEBYLEX": -4, "ZREVRANGE": -4,
    "ZREMRANGEBYRANK": 4, "ZREMRANGEBYSCORE": 4, "ZREMRANGEBYLEX": 4, "ZPOPMIN": -2,
    "ZPOPMAX": -2, "ZMPOP": -4, "ZRANDMEMBER": -2, "ZUNION": -3, "ZINTER": -3, "ZDIFF": -3,
    "ZUNIONSTORE": -4, "ZINTERSTORE": -4, "ZDIFFSTORE": -4, "ZINTERCARD": -3, "ZSCAN": -3,
    "BZPOPMIN": -3, "BZPOPMAX": -3, "BZMPOP": -5,
    # hashes
    "HSET": -4, "HSETNX": 4, "HGET": 3, "HMGET": -3, "HMSET": -4, "HDEL": -3, "HLEN": 2,
    "HSTRLEN": 3, "HEXISTS": 3, "HKEYS": 2, "HVALS": 2, "HGETALL": 2, "HINCRBY": 4,
    "HINCRBYFLOAT": 4, "HRANDFIELD": -2, "HSCAN": -3,
}


@command("errors", 2)
def WRONG_ARITY(g):
    name = g.pick(sorted(ARITY))
    arity = ARITY[name]
    if arity > 0:
        counts = [n for n in range(0, arity + 2) if n != arity - 1]
    else:
        counts = list(range(0, -arity - 1))
    n = g.pick(counts)
    return [g.case(name)] + [g.key() if g.chance(0.5) else g.short_value() for _ in range(n)]


@command("errors", 0.5)
def OBJECT_WRONG(g):
    return g.pick([[g.case("OBJECT")], [g.case("OBJECT"), g.case("ENCODING")],
                   [g.case("OBJECT"), "FOO", g.key()], [g.case("OBJECT"), "ENCODING", "a", "b"]])


@command("errors", 1)
def UNKNOWN(g):
    # (No NUL bytes: Redis formats these names with %s and cuts them at the first NUL.)
    name = g.pick(["FOO", "GETT", "SETX", "xyzzy", "", "GET2", "KEYSS", "SET\tX", "a" * 200])
    words = [w for w in WORDS if "\x00" not in w] + ["a" * 300, "x\r\ny"]
    return [name] + [g.pick(words) for _ in range(g.randint(0, 4))]


# ---------------------------------------------------------------------------------------------
# The sequence

class Sequence:
    """Draws commands from the registered generators of the chosen families, by weight."""

    def __init__(self, seed, families):
        unknown = [f for f in families if f not in REGISTRY]
        if unknown:
            raise ValueError(f"unknown families {unknown}; known: {sorted(REGISTRY)}")
        self.rng = random.Random(seed)
        self.gen = Gen(self.rng)
        self.entries = [e for f in families for e in REGISTRY[f]]
        self.weights = [w for _, w, _ in self.entries]

    def next(self):
        """The next command(s) as a list of Cmd."""
        _, _, fn = self.rng.choices(self.entries, weights=self.weights)[0]
        out = fn(self.gen)
        if isinstance(out, Cmd):
            return [out]
        if out and isinstance(out[0], Cmd):
            return out
        return [Cmd(out)]
