"""Differential generators for bitmaps ("bitmaps") and HyperLogLogs ("hll").

Bitmaps live under BITMAP_KEYS and HyperLogLogs under HLL_KEYS; both are strings, and no other
family writes those names, so commands given bad arguments there never meet another type.
(Valkey 8 parses BITCOUNT/BITPOS arguments before looking at the key's type, Redis 7.0.15
checks the type first: bad arguments are only generated on keys that hold strings or nothing.)
Commands also name other keys to meet WRONGTYPE, int-encoded strings and missing keys.

The audit GETs every string, so HyperLogLog bytes (sparse opcodes, cached cardinality) are
compared exactly after every episode. Corrupt HyperLogLogs are built here byte by byte.
Offsets stay below a few hundred KB: a valid huge offset would make both servers allocate
512 MB.

Not generated: BITCOUNT key start (no end), which Valkey 8 accepts and Redis 7.0 refuses.
"""

from generators import EDGE_INTS, NOT_INTS, SMALL_INTS, WORDS, Cmd, command

BITMAP_KEYS = ["b0", "b1", "b2"]
HLL_KEYS = ["h0", "h1", "h2", "h3"]

BAD_OFFSETS = ["-1", "abc", "", "1.5", "4294967296", "9223372036854775807", "#1", " 1",
               "-9223372036854775808", "99999999999999999999"]
BAD_BITS = ["2", "-1", "abc", "", "01", "1.0", "10"]


def bitmap_key(g):
    return g.pick(BITMAP_KEYS)


def any_bitmap_key(g):
    """Mostly a bitmap key, sometimes another type, an int-encoded string or a missing key."""
    return bitmap_key(g) if g.chance(0.8) else g.key()


def offset(g, bad=0.08):
    if g.chance(bad):
        return g.pick(BAD_OFFSETS)
    r = g.rng.random()
    if r < 0.7:
        return str(g.randint(0, 200))
    if r < 0.95:
        return str(g.randint(201, 5000))
    return str(g.randint(5001, 200000))


def index(g):
    r = g.rng.random()
    if r < 0.8:
        return str(g.randint(-40, 40))
    if r < 0.9:
        return str(g.randint(-2000, 2000))
    return g.pick(["9223372036854775807", "-9223372036854775808", "100000", "-100000"])


def bad_index(g):
    return g.pick(["abc", "", "1.5", "99999999999999999999", " 1"])


# ---------------------------------------------------------------------------------------------
# bitmaps

@command("bitmaps", 1.5)
def BITMAP_SET(g):
    """Gives a bitmap key a fresh string value (raw bytes, words, an int-encoded number)."""
    r = g.rng.random()
    if r < 0.4:
        value = bytes(g.randint(0, 255) for _ in range(g.randint(0, 40)))
    elif r < 0.6:
        value = g.pick(WORDS)
    elif r < 0.75:
        value = g.pick(SMALL_INTS + EDGE_INTS)
    elif r < 0.9:
        value = bytes([g.pick([0, 0xFF, 0x80, 0x01])]) * g.randint(1, 300)
    else:
        return [g.case("APPEND"), bitmap_key(g), g.pick(WORDS)]
    return [g.case("SET"), bitmap_key(g), value]


@command("bitmaps", 5)
def SETBIT(g):
    key = bitmap_key(g) if g.chance(0.9) else g.key()
    bit = g.pick(["0", "1"]) if not g.chance(0.06) else g.pick(BAD_BITS)
    off = offset(g) if key in BITMAP_KEYS else offset(g, bad=0)
    return [g.case("SETBIT"), key, off, bit]


@command("bitmaps", 3)
def GETBIT(g):
    return [g.case("GETBIT"), any_bitmap_key(g), offset(g)]


def with_string(g, key, args):
    """args, run on key made sure to hold a string: the order in which servers check the
    arguments and the key differs between Redis 7.0.15 and Valkey 8, so an argument error
    must be the only possible error."""
    return [Cmd([g.case("SET"), key, g.pick(WORDS), "NX"]), Cmd(args)]


@command("bitmaps", 4)
def BITCOUNT(g):
    key = any_bitmap_key(g)
    args = [g.case("BITCOUNT"), key]
    if g.chance(0.3):
        return args
    args += [index(g), index(g)]
    if g.chance(0.5):
        args.append(g.case(g.pick(["BYTE", "BIT"])))
    if key in BITMAP_KEYS and g.chance(0.12):
        r = g.rng.random()
        if r < 0.7:
            args[g.pick([2, 3])] = bad_index(g)
        else:
            # (Redis 7.0.15 answers 0 for a reversed negative range before looking at the
            # unit; Valkey 8 checks the unit first.)
            args[2:4] = [str(g.randint(0, 40)), str(g.randint(0, 40))]
            args[4:] = [g.pick(["bits", "BYTES", "", "x"])] if r < 0.9 else ["BIT", "extra"]
        return with_string(g, key, args)
    return args


@command("bitmaps", 4)
def BITPOS(g):
    key = any_bitmap_key(g)
    bit = g.pick(["0", "1"])
    args = [g.case("BITPOS"), key, bit]
    n = g.pick([0, 1, 2, 3])
    if n >= 1:
        args.append(index(g))
    if n >= 2:
        args.append(index(g))
    if n == 3:
        args.append(g.case(g.pick(["BIT", "BYTE"])))
    if key in BITMAP_KEYS and g.chance(0.15):
        r = g.rng.random()
        if r < 0.3 or n == 0:
            args[2] = g.pick(BAD_BITS)
        elif r < 0.8:
            args[g.randint(3, 2 + min(n, 2))] = bad_index(g)
        elif n == 3:
            args[5] = g.pick(["bits", "BYTES", "", "x"])
        else:
            args += ["BIT", "extra", "more"][: 4 - n]
        return with_string(g, key, args)
    return args


@command("bitmaps", 2.5)
def BITOP(g):
    op = g.pick(["AND", "OR", "XOR", "NOT"])
    if g.chance(0.04):
        op = g.pick(["NAND", "", "DIFF", "ANDOR"])
    dest = bitmap_key(g) if g.chance(0.9) else g.key()
    n = 1 if op == "NOT" and g.chance(0.9) else g.randint(1, 4)
    srcs = [any_bitmap_key(g) if g.chance(0.9) else "missing" for _ in range(n)]
    return [g.case("BITOP"), g.case(op), dest] + srcs


def bitfield_type(g, bad=0.05):
    if g.chance(bad):
        return g.pick(["u64", "i65", "i0", "u0", "I8", "U8", "x8", "u", "i", "", "i-1", "u1.0",
                       "i08"])
    if g.chance(0.5):
        return "i" + str(g.pick([1, 2, 3, 4, 5, 7, 8, 15, 16, 31, 32, 33, 63, 64]))
    return "u" + str(g.pick([1, 2, 3, 4, 5, 7, 8, 15, 16, 31, 32, 33, 62, 63]))


def bitfield_offset(g, bad=0.05):
    if g.chance(bad):
        return g.pick(BAD_OFFSETS + ["#-1", "#", "#abc", "#9223372036854775807"])
    if g.chance(0.3):
        return "#" + str(g.randint(0, 20))
    return str(g.randint(0, 300))


def bitfield_value(g):
    r = g.rng.random()
    if r < 0.5:
        return str(g.randint(-300, 300))
    if r < 0.85:
        return g.pick(SMALL_INTS + EDGE_INTS + ["255", "256", "-128", "-129", "127", "128",
                                                 "4611686018427387904", "-4611686018427387905"])
    return g.pick(NOT_INTS)


def bitfield_ops(g, read_only, safe):
    ops = []
    for _ in range(g.randint(0, 5)):
        r = g.rng.random()
        bad = 0.05 if safe else 0
        if r < 0.35 or read_only and r < 0.9:
            ops += [g.case("GET"), bitfield_type(g, bad), bitfield_offset(g, bad)]
        elif r < 0.6:
            ops += [g.case("SET"), bitfield_type(g, bad), bitfield_offset(g, bad),
                    bitfield_value(g) if safe else str(g.randint(-100, 100))]
        elif r < 0.85:
            ops += [g.case("INCRBY"), bitfield_type(g, bad), bitfield_offset(g, bad),
                    bitfield_value(g) if safe else str(g.randint(-100, 100))]
        else:
            kind = g.pick(["WRAP", "SAT", "FAIL"])
            if safe and g.chance(0.1):
                kind = g.pick(["WRAPS", "", "NONE"])
            ops += [g.case("OVERFLOW"), g.case(kind)]
    if safe and g.chance(0.05):
        ops += g.pick([["GET", "i8"], ["SET", "i8", "0"], ["INCRBY"], ["OVERFLOW"], ["FOO"]])
    return ops


@command("bitmaps", 4)
def BITFIELD(g):
    key = any_bitmap_key(g)
    safe = key in BITMAP_KEYS
    return [g.case("BITFIELD"), key] + bitfield_ops(g, False, safe)


@command("bitmaps", 1.5)
def BITFIELD_RO(g):
    key = any_bitmap_key(g)
    safe = key in BITMAP_KEYS
    return [g.case("BITFIELD_RO"), key] + bitfield_ops(g, g.chance(0.9), safe)


@command("bitmaps", 1)
def BITMAP_READ(g):
    key = bitmap_key(g)
    r = g.rng.random()
    if r < 0.4:
        return [g.case("GET"), key]
    if r < 0.7:
        return [g.case("OBJECT"), "ENCODING", key]
    return [g.case("STRLEN"), key]


# ---------------------------------------------------------------------------------------------
# hll

ELEMENT_WORDS = ["a", "b", "c", "foo", "bar", "", "1", "-1", "\x00", "hello world"]


def hll_key(g):
    return g.pick(HLL_KEYS)


def any_hll_key(g):
    r = g.rng.random()
    if r < 0.8:
        return hll_key(g)
    if r < 0.9:
        return g.pick(BITMAP_KEYS)
    return g.key()


def element(g):
    r = g.rng.random()
    if r < 0.85:
        return "e" + str(g.randint(0, 20000))
    if r < 0.95:
        return g.pick(ELEMENT_WORDS)
    return bytes(g.randint(0, 255) for _ in range(g.randint(1, 30)))


def _header(encoding, card=b"\x00" * 8):
    return b"HYLL" + bytes([encoding]) + b"\x00\x00\x00" + card


def _xzero(n):
    n -= 1
    return bytes([0x40 | (n >> 8), n & 0xFF])


def _val(value, n):
    return bytes([0x80 | ((value - 1) << 2) | (n - 1)])


def crafted_hll(g):
    """A valid or corrupt HyperLogLog value built byte by byte."""
    stale = g.pick([b"\x00" * 8, b"\x05\x00\x00\x00\x00\x00\x00\x80", b"\x07" + b"\x00" * 7])
    r = g.rng.random()
    if r < 0.2:  # valid sparse: a few VAL runs between zero runs
        body, covered = b"", 0
        while covered < 16000:
            z = g.randint(1, min(3000, 16384 - covered - 5))
            body += _xzero(z) if z > 64 else bytes([z - 1])
            n = g.randint(1, 4)
            body += _val(g.randint(1, 32), n)
            covered += z + n
        body += _xzero(16384 - covered) if 16384 - covered > 64 else bytes([16384 - covered - 1])
        return _header(1, stale) + body
    if r < 0.3:  # sparse covering too few registers
        return _header(1, stale) + _xzero(16000) + _val(3, 2)
    if r < 0.4:  # sparse covering too many: a zero run past the end, corrupt everywhere
        # (a VAL run past the end is corrupt in Redis 7.0 but ends the walk in Valkey 8:
        # test_hyperloglog.py compares that case with valkey-server)
        return _header(1, stale) + _xzero(16384) + bytes([g.randint(0, 63)])
    # (Not a sparse value ending in a truncated XZERO: Redis reads the byte past the end of
    # the string there, whatever an earlier edit left in memory.)
    if r < 0.55:  # dense with arbitrary register bytes (values up to 63)
        return _header(0, stale) + bytes(g.randint(0, 255) for _ in range(12288))
    if r < 0.6:  # dense, one byte short
        return _header(0, stale) + b"\x00" * 12287
    if r < 0.7:  # unknown encoding, bad magic, too short
        return g.pick([_header(2) + _xzero(16384), b"HYLX\x01" + b"\x00" * 11 + _xzero(16384),
                       b"HYLL\x01\x00", b"HYLL"])
    if r < 0.85:  # empty sparse (as PFADD creates it)
        return _header(1, stale) + _xzero(16384)
    # a sparse run of one-register VALs that can merge (registers 0..7 in order)
    return _header(1, stale) + b"".join(_val(g.randint(1, 3), 1) for _ in range(8)) + \
        _xzero(16384 - 8)


@command("hll", 6)
def PFADD(g):
    key = any_hll_key(g)
    n = g.pick([0, 1, 1, 2, 3, 5, 10, 30, 100, 300])
    return [g.case("PFADD"), key] + [element(g) for _ in range(n)]


@command("hll", 4)
def PFCOUNT(g):
    keys = [any_hll_key(g) for _ in range(g.pick([1, 1, 1, 2, 3]))]
    if g.chance(0.1):
        keys.append("missing")
    return [g.case("PFCOUNT")] + keys


@command("hll", 2.5)
def PFMERGE(g):
    dest = hll_key(g) if g.chance(0.9) else g.pick(["hm", "missing"] + BITMAP_KEYS)
    srcs = [any_hll_key(g) for _ in range(g.randint(0, 3))]
    return [g.case("PFMERGE"), dest] + srcs


@command("hll", 1.5)
def PFDEBUG(g):
    sub = g.pick(["ENCODING", "DECODE", "TODENSE", "ENCODING", "DECODE"])
    if g.chance(0.05):
        sub = "GETREG"
    if g.chance(0.05):
        sub = g.pick(["FOO", "getregs"])
    return [g.case("PFDEBUG"), g.case(sub), any_hll_key(g)]


@command("hll", 1.2)
def HLL_CRAFTED(g):
    """SET a crafted (maybe corrupt) value, then use it."""
    key = hll_key(g)
    follow = g.pick([["PFCOUNT", key], ["PFADD", key, element(g), element(g)],
                     ["PFMERGE", key, hll_key(g)], ["PFCOUNT", key, hll_key(g)],
                     ["PFDEBUG", "ENCODING", key], ["PFDEBUG", "DECODE", key],
                     ["PFADD", key] + [element(g) for _ in range(50)]])
    return [Cmd([g.case("SET"), key, crafted_hll(g)]), Cmd(follow)]


@command("hll", 0.5)
def HLL_SPARSE_MAX(g):
    """Promotion to dense happens at hll-sparse-max-bytes (read at each write)."""
    return [g.case("CONFIG"), "SET", "hll-sparse-max-bytes",
            g.pick(["0", "20", "50", "300", "3000", "3000", "10000"])]


@command("hll", 0.8)
def HLL_READ(g):
    key = hll_key(g)
    if g.chance(0.5):
        return [g.case("OBJECT"), "ENCODING", key]
    return [g.case("GET"), key]

