"""Differential generators for the stream family ("streams").

Streams live under STREAM_KEYS; commands also name other keys to meet WRONGTYPE and missing
keys. IDs are always explicit or "<ms>-*" (never "*", whose value depends on each server's
clock), mostly small so that XADD, XDEL, ranges and trims keep meeting each other. Values are
short, so that a node never reaches stream-node-max-bytes on either server and both split
nodes at stream-node-max-entries (which CONFIG SET lowers now and then): approximate trimming
then removes the same whole nodes.

Left out on purpose, where Vireo follows Valkey 8 and Redis 7.0 differs: XREAD's "+" ID, the
"Unbalanced ..." error texts of XREAD/XREADGROUP, XSETID below the largest deleted ID (XSETID
here uses IDs above every ID the other generators make), and the consumer an XREADGROUP that
finds nothing, or XCLAIM / XAUTOCLAIM claiming nothing, creates (Valkey 8 does, Redis 7.0 does
not: those commands are preceded by XGROUP CREATECONSUMER). Times are normalized: idle
and seen times, delivery times in XPENDING and XINFO ... FULL; the radix tree sizes of XINFO
STREAM (Vireo's nodes are not a radix tree), the fields Redis 7.0 lacks (XINFO CONSUMERS
"inactive", FULL "active-time"), and a group's "entries-read" and "lag", whose bookkeeping
Valkey fixed after 7.0 (7.0 counts on across tombstones and trims; unit tests hold Valkey's
rules), are left out of the comparison.
"""

from generators import MODE_NORMALIZERS, Cmd, command

STREAM_KEYS = ["x0", "x1", "x2"]
GROUPS = ["g1", "g2", "grp"]
CONSUMERS = ["alice", "bob", "carol", "dave"]
FIELDS = ["temp", "hum", "f", "a", "b"]
VALUES = ["21.5", "40", "-3", "0", "1", "v", "hello", "", "007", "-0.0", "1.50",
          "9223372036854775807", "x y", "\u00e9t\u00e9", "\x00\x01"]
BAD_IDS = ["abc", "1-", "-1", "1-2-3", "", "18446744073709551616", " 1", "1-*", "1.5", "0x1",
           "18446744073709551615-18446744073709551616"]
BIG_MS = ["18446744073709551615", "18446744073709551614"]
MAX_ID = "18446744073709551615-18446744073709551615"
HUGE_IDLE = "36000000"


def skey(g):
    return g.pick(STREAM_KEYS) if g.chance(0.88) else g.key()


def group(g):
    return g.pick(GROUPS) if g.chance(0.95) else "nogroup"


def consumer(g):
    return g.pick(CONSUMERS)


def small_id(g):
    r = g.rng.random()
    ms = g.randint(0, 20)
    if r < 0.8:
        return f"{ms}-{g.randint(0, 3)}"
    if r < 0.95:
        return str(ms)
    return g.pick(["0-0", "0-1", f"{BIG_MS[1]}-0", MAX_ID])


def any_id(g, bad=0.06):
    """An ID argument: mostly small explicit IDs, sometimes "-", "+" or garbage."""
    r = g.rng.random()
    if r < bad:
        return g.pick(BAD_IDS)
    if r < bad + 0.06:
        return g.pick(["-", "+"])
    return small_id(g)


def range_bound(g, start):
    r = g.rng.random()
    if r < 0.25:
        return "-" if start else "+"
    if r < 0.4:
        return "(" + small_id(g)
    if r < 0.45:
        return g.pick(["(-", "(+", "(", "(" + MAX_ID, "(0-0", "((1"])
    return any_id(g)


def fields(g):
    out = []
    for _ in range(g.randint(1, 3)):
        out += [g.pick(FIELDS), g.pick(VALUES)]
    if g.chance(0.04):
        out.pop()  # odd number of arguments
    return out


def with_consumers(keys, grp, name, args):
    """Valkey 8 creates the consumer XREADGROUP, XCLAIM and XAUTOCLAIM name even when they
    deliver or claim nothing; Redis 7.0 only once something is. Creating it first leaves both
    servers with the same consumers."""
    return [Cmd(["XGROUP", "CREATECONSUMER", k, grp, name]) for k in keys] + [Cmd(args)]


def count_arg(g):
    r = g.rng.random()
    if r < 0.85:
        return str(g.randint(0, 6))
    return g.pick(["-1", "abc", "", "9223372036854775807", "100000"])


def trim_opts(g, xadd):
    """MAXLEN|MINID [=|~] threshold [LIMIT n], with the malformed forms now and then."""
    opts = []
    kind = g.pick(["MAXLEN", "MINID"])
    opts.append(g.case(kind))
    r = g.rng.random()
    if r < 0.35:
        opts.append("~")
    elif r < 0.55:
        opts.append("=")
    if kind == "MAXLEN":
        opts.append(str(g.randint(0, 8)) if g.chance(0.9) else g.pick(["-1", "abc", ""]))
    else:
        opts.append(small_id(g) if g.chance(0.9) else g.pick(BAD_IDS + ["-", "+"]))
    if g.chance(0.2):
        opts += [g.case("LIMIT"), g.pick(["0", "1", "2", "5", "-1", "abc"])]
    if g.chance(0.04):
        opts += g.pick([["MAXLEN", "1"], ["MINID", "1"], ["LIMIT", "1"], ["FOO"]])
    return opts


# ---------------------------------------------------------------------------------------------
# Entries

@command("streams", 10)
def XADD(g):
    trim = g.chance(0.25)
    args = [g.case("XADD"), skey(g)]
    opts = []
    if g.chance(0.1):
        opts.append([g.case("NOMKSTREAM")])
    if trim:
        opts.append(trim_opts(g, True))
    if g.chance(0.5):
        g.rng.shuffle(opts)
    for o in opts:
        args += o
    r = g.rng.random()
    if r < 0.3:
        args.append(f"{g.randint(0, 20)}-*")
    elif r < 0.95:
        args.append(small_id(g))
    else:
        args.append(g.pick(BAD_IDS + ["0-0", "-", "+", "0-*"]))
    return args + fields(g)


@command("streams", 2)
def XLEN(g):
    return [g.case("XLEN"), skey(g)]


@command("streams", 4)
def XRANGE(g):
    args = [g.case(g.pick(["XRANGE", "XREVRANGE"])), skey(g)]
    a, b = range_bound(g, True), range_bound(g, False)
    args += [b, a] if args[0].upper() == "XREVRANGE" else [a, b]
    if g.chance(0.35):
        args += [g.case("COUNT"), count_arg(g)]
    if g.chance(0.03):
        args.append(g.pick(["COUNT", "FOO"]))
    return args


@command("streams", 3)
def XDEL(g):
    def del_id(g):
        i = any_id(g, 0.04)
        return "20-0" if i.startswith("1844") else i  # keep deleted IDs below XSETID's
    return [g.case("XDEL"), skey(g)] + [del_id(g) for _ in range(g.randint(1, 3))]


@command("streams", 2.5)
def XTRIM(g):
    args = [g.case("XTRIM"), skey(g)]
    if g.chance(0.05):
        return args + g.pick([["LIMIT", "1"], ["LIMIT", "0"], ["FOO", "1"], ["MAXLEN"]])
    return args + trim_opts(g, False)


@command("streams", 0.6)
def XSETID(g):
    # Above every ID other commands use, so never below a deleted ID (see the docstring).
    args = [g.case("XSETID"), skey(g), f"{g.randint(1000, 1010)}-{g.randint(0, 3)}"
            if g.chance(0.92) else g.pick(["abc", "", "1-", "-1", "-", "+", "1-*"])]
    if g.chance(0.3):
        args += [g.case("ENTRIESADDED"), g.pick(["0", "1", "5", "100", "-1", "abc"])]
    if g.chance(0.3):
        args += [g.case("MAXDELETEDID"),
                 f"{g.randint(0, 20)}-{g.randint(0, 3)}" if g.chance(0.9) else "abc"]
    if g.chance(0.03):
        args.append("FOO")
    return args


@command("streams", 0.5)
def STREAM_NODE_SIZE(g):
    return ["CONFIG", "SET", "stream-node-max-entries", str(g.pick([2, 3, 5, 100]))]


# ---------------------------------------------------------------------------------------------
# Reads

def stream_list(g, ids):
    keys = [skey(g) for _ in range(g.randint(1, 3))]
    return [g.case("STREAMS")] + keys + [ids(g) for _ in keys]


@command("streams", 4)
def XREAD(g):
    args = [g.case("XREAD")]
    if g.chance(0.4):
        args += [g.case("COUNT"), count_arg(g)]
    if g.chance(0.1):
        args += [g.case("BLOCK"), g.pick(["1", "5", "-1", "abc"])]
    if g.chance(0.03):
        args += g.pick([["NOACK"], ["GROUP", "g1", "alice"], ["FOO"]])

    def ids(g):
        if g.chance(0.15):
            return "$"
        if g.chance(0.02):
            return ">"
        i = any_id(g)
        return "-" if i == "+" else i  # XREAD's "+" is newer than Redis 7.0
    return args + stream_list(g, ids)


@command("streams", 6)
def XREADGROUP(g):
    args = [g.case("XREADGROUP")]
    opts = [[g.case("GROUP"), group(g), consumer(g)]]
    if g.chance(0.4):
        opts.append([g.case("COUNT"), count_arg(g)])
    if g.chance(0.15):
        opts.append([g.case("NOACK")])
    if g.chance(0.08):
        opts.append([g.case("BLOCK"), g.pick(["1", "5", "-1"])])
    if g.chance(0.4):
        g.rng.shuffle(opts)
    if g.chance(0.02):
        opts = opts[1:]  # no GROUP
    for o in opts:
        args += o

    def ids(g):
        r = g.rng.random()
        return ">" if r < 0.6 else "$" if r < 0.62 else any_id(g)
    args += stream_list(g, ids)
    upper = [a.upper() for a in args]
    if "GROUP" not in upper:
        return args
    gi = upper.index("GROUP")
    keys = args[upper.index("STREAMS") + 1:]
    return with_consumers(keys[:len(keys) // 2], args[gi + 1], args[gi + 2], args)


# ---------------------------------------------------------------------------------------------
# Consumer groups

@command("streams", 3)
def XGROUP_CREATE(g):
    args = [g.case("XGROUP"), g.case("CREATE"), skey(g), group(g),
            "$" if g.chance(0.3) else any_id(g)]
    if g.chance(0.3):
        args.append(g.case("MKSTREAM"))
    if g.chance(0.15):
        args += [g.case("ENTRIESREAD"), g.pick(["0", "1", "3", "-1", "-3", "abc"])]
    if g.chance(0.03):
        args.append(g.pick(["FOO", "MKSTREAM"]))
    return args


@command("streams", 1)
def XGROUP_SETID(g):
    args = [g.case("XGROUP"), g.case("SETID"), skey(g), group(g),
            "$" if g.chance(0.2) else any_id(g)]
    if g.chance(0.3):
        args += [g.case("ENTRIESREAD"), g.pick(["0", "2", "-1", "-2", "abc"])]
    return args


@command("streams", 0.7)
def XGROUP_OTHER(g):
    sub = g.pick(["DESTROY", "CREATECONSUMER", "DELCONSUMER", "DELCONSUMER"])
    args = [g.case("XGROUP"), g.case(sub), skey(g), group(g)]
    if sub != "DESTROY":
        args.append(consumer(g))
    if g.chance(0.03):
        args.append("extra")
    return args


@command("streams", 3)
def XACK(g):
    return [g.case("XACK"), skey(g), group(g)] + [any_id(g, 0.03)
                                                  for _ in range(g.randint(1, 3))]


@command("streams", 3)
def XPENDING(g):
    args = [g.case("XPENDING"), skey(g), group(g)]
    if g.chance(0.35):
        return Cmd(args)
    if g.chance(0.3):
        args += [g.case("IDLE"), g.pick(["0", HUGE_IDLE, "abc"])]
    args += [range_bound(g, True), range_bound(g, False), count_arg(g)]
    if g.chance(0.4):
        args.append(consumer(g))
    if g.chance(0.03):
        args = args[:-1]
    return Cmd(args, "xpending")


@command("streams", 2.5)
def XCLAIM(g):
    args = [g.case("XCLAIM"), skey(g), group(g), consumer(g),
            g.pick(["0", "0", HUGE_IDLE, "-5", "abc"])]
    args += [any_id(g, 0.03) for _ in range(g.randint(1, 3))]
    opts = []
    if g.chance(0.3):
        opts.append([g.case("JUSTID")])
    if g.chance(0.15):
        opts.append([g.case("FORCE")])
    if g.chance(0.15):
        opts.append([g.case("RETRYCOUNT"), g.pick(["0", "3", "-1", "abc"])])
    if g.chance(0.1):
        opts.append([g.case("LASTID"), any_id(g)])
    if g.chance(0.1):
        opts.append([g.case("IDLE"), g.pick(["0", "1000", "-1", "abc"])])
    if g.chance(0.05):
        opts.append([g.case("TIME"), g.pick(["0", "1000", "abc"])])
    if g.chance(0.03):
        opts.append(["FOO"])
    g.rng.shuffle(opts)
    for o in opts:
        args += o
    return with_consumers([args[1]], args[2], args[3], args)


@command("streams", 2)
def XAUTOCLAIM(g):
    args = [g.case("XAUTOCLAIM"), skey(g), group(g), consumer(g),
            g.pick(["0", "0", HUGE_IDLE, "-1", "abc"]), range_bound(g, True)]
    if g.chance(0.4):
        args += [g.case("COUNT"), g.pick(["1", "2", "3", "0", "-1", "abc",
                                          "8070450532247928833"])]
    if g.chance(0.3):
        args.append(g.case("JUSTID"))
    if g.chance(0.03):
        args.append("FOO")
    return with_consumers([args[1]], args[2], args[3], args)


@command("streams", 2)
def XINFO(g):
    sub = g.pick(["STREAM", "STREAM", "GROUPS", "CONSUMERS"])
    args = [g.case("XINFO"), g.case(sub), skey(g)]
    if sub == "CONSUMERS":
        args.append(group(g))
    elif sub == "STREAM" and g.chance(0.4):
        args.append(g.case("FULL"))
        if g.chance(0.5):
            args += [g.case("COUNT"), g.pick(["0", "1", "3", "-1", "abc"])]
    if g.chance(0.03):
        args.append("extra")
    return Cmd(args, "stream-info")


@command("streams", 0.5)
def STREAM_TYPE(g):
    key = skey(g)
    return [Cmd([g.case("TYPE"), key]), Cmd(["OBJECT", "ENCODING", key])]


# ---------------------------------------------------------------------------------------------
# Comparison modes

TIME_FIELDS = {b"idle", b"seen-time"}
LAG_FIELDS = {b"entries-read", b"lag"}  # Valkey's fixed read counter (see the docstring)
NEWER_FIELDS = {b"inactive", b"active-time"}  # Valkey 7.2+; Redis 7.0 has none
TREE_FIELDS = {b"radix-tree-keys", b"radix-tree-nodes"}
BLANK = (":", b"(normalized)")


def _pending_list(reply):
    """XINFO FULL PELs: [id, consumer, delivery-time, count] / [id, delivery-time, count]."""
    if reply[0] != "*" or reply[1] is None:
        return reply
    out = []
    for item in reply[1]:
        if item[0] == "*" and item[1] is not None and len(item[1]) in (3, 4):
            inner = list(item[1])
            inner[len(inner) - 2] = BLANK
            item = ("*", tuple(inner))
        out.append(item)
    return ("*", tuple(out))


def _field(key, value):
    """None to drop the pair, else the (normalized) value."""
    name = key[1] if key[0] in ("$", "+") else None
    if name in NEWER_FIELDS:
        return None
    if name in TIME_FIELDS or name in TREE_FIELDS or name in LAG_FIELDS:
        return BLANK
    if name == b"pending":
        return _pending_list(_stream_info(value))
    return _stream_info(value)


def _stream_info(reply):
    t = reply[0]
    if t == "%":
        pairs = []
        for k, v in reply[1]:
            nv = _field(k, v)
            if nv is not None:
                pairs.append((k, nv))
        return ("%", tuple(pairs))
    if t == "*" and reply[1] is not None:
        items = reply[1]
        # RESP2 maps are flat arrays of names and values: names are the known bulk strings.
        if len(items) % 2 == 0 and items and items[0][0] == "$" and items[0][1] in (
                b"length", b"name"):
            flat = []
            for k, v in zip(items[::2], items[1::2]):
                nv = _field(k, v)
                if nv is not None:
                    flat += [k, nv]
            return ("*", tuple(flat))
        return ("*", tuple(_stream_info(x) for x in items))
    return reply


def _xpending(reply):
    """XPENDING's extended form: [id, consumer, idle, count] per entry; idle is timing."""
    if reply[0] != "*" or reply[1] is None:
        return reply
    out = []
    for item in reply[1]:
        if item[0] == "*" and item[1] is not None and len(item[1]) == 4 and item[1][2][0] == ":":
            item = ("*", (item[1][0], item[1][1], BLANK, item[1][3]))
        out.append(item)
    return ("*", tuple(out))


MODE_NORMALIZERS["stream-info"] = _stream_info
MODE_NORMALIZERS["xpending"] = _xpending
