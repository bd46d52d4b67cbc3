"""Differential generators for transactions ("transactions"): MULTI ... EXEC/DISCARD.

Each generator returns a whole sequence that always leaves the connection out of MULTI, so
the other families' commands never get queued by accident. Queued commands mix good ones over
string, list and hash keys with runtime errors (WRONGTYPE, not an integer), which EXEC reports
in its array, and queue-time errors (wrong arity, unknown command or subcommand), which make
EXEC answer EXECABORT. WATCH runs on the same connection (the runner has one per server): a
write to a watched key before MULTI, by this connection, makes EXEC answer null, as a write by
any other client would; reads, writes to other keys and UNWATCH do not.
Blocking commands inside MULTI answer at once.

A nested MULTI, or WATCH inside MULTI, differs by design: Redis 7.0 answers "MULTI calls can not
be nested" / "WATCH inside MULTI is not allowed" and goes on with the transaction, Valkey 8 (and
Vireo) answer "Command not allowed inside a transaction" and fail it. Those replies are compared
as one ("nomulti") and such a transaction always ends in DISCARD, the same in both.
"""

from generators import (LIST_KEYS, MODE_NORMALIZERS, NUMBER_KEYS, SMALL_INTS, STRING_KEYS, Cmd,
                        command)

REFUSED_IN_MULTI = {b"ERR MULTI calls can not be nested", b"ERR WATCH inside MULTI is not allowed",
                    b"ERR Command not allowed inside a transaction"}


def _refused_in_multi(reply):
    if reply[0] == "-" and reply[1] in REFUSED_IN_MULTI:
        return ("-", b"(refused inside MULTI)")
    return reply


MODE_NORMALIZERS["nomulti"] = _refused_in_multi

HASH_KEYS = ["h0", "h1"]
TX_KEYS = STRING_KEYS[:4] + NUMBER_KEYS + LIST_KEYS[:2] + HASH_KEYS
FIELDS = ["f1", "f2", "f3"]
VALUES = ["a", "hello", "1", "42", "", "-7", "x y"]


def some_key(g):
    return g.pick(TX_KEYS)


def good_command(g, in_multi=True):
    """A command that queues; it may still fail when EXEC runs it (wrong type, not a number).
    Blocking commands only when in_multi: outside MULTI they would wait forever."""
    k = some_key(g)
    r = g.randint(0, 21)
    if r == 17 and not in_multi:
        r = 16
    if r == 0:
        return [g.case("SET"), k, g.pick(VALUES)]
    if r == 1:
        return [g.case("GET"), k]
    if r == 2:
        return [g.case("INCR"), g.pick(NUMBER_KEYS) if g.chance(0.7) else k]
    if r == 3:
        return [g.case("INCRBY"), g.pick(NUMBER_KEYS), g.pick(SMALL_INTS + ["abc"])]
    if r == 4:
        return [g.case("APPEND"), k, g.pick(VALUES)]
    if r == 5:
        return [g.case("DEL"), k] + ([some_key(g)] if g.chance(0.3) else [])
    if r == 6:
        return [g.case("RPUSH"), g.pick(LIST_KEYS[:2]) if g.chance(0.8) else k, g.pick(VALUES)]
    if r == 7:
        return [g.case("LPOP"), g.pick(LIST_KEYS[:2]) if g.chance(0.8) else k]
    if r == 8:
        return [g.case("LRANGE"), k, "0", "-1"]
    if r == 9:
        return [g.case("LLEN"), k]
    if r == 10:
        return [g.case("HSET"), g.pick(HASH_KEYS) if g.chance(0.8) else k, g.pick(FIELDS),
                g.pick(VALUES)]
    if r == 11:
        return [g.case("HGET"), g.pick(HASH_KEYS), g.pick(FIELDS)]
    if r == 12:
        return [g.case("HINCRBY"), g.pick(HASH_KEYS), g.pick(FIELDS), g.pick(["1", "-2", "x"])]
    if r == 13:
        return [g.case("HDEL"), g.pick(HASH_KEYS), g.pick(FIELDS)]
    if r == 14:
        return [g.case("EXISTS"), k, some_key(g)]
    if r == 15:
        return [g.case("TYPE"), k]
    if r == 16:
        return [g.case("PING")] + ([g.pick(VALUES)] if g.chance(0.3) else [])
    if r == 17:  # blocking commands answer at once inside MULTI
        return g.pick([[g.case("BLPOP"), g.pick(LIST_KEYS[:2]), "0"],
                       [g.case("BRPOPLPUSH"), g.pick(LIST_KEYS[:2]), LIST_KEYS[2], "0"],
                       [g.case("BLMOVE"), LIST_KEYS[0], LIST_KEYS[1], "LEFT", "RIGHT", "0"]])
    if r == 18:
        return [g.case("UNWATCH")]
    if r == 19:
        return [g.case("MSET"), k, g.pick(VALUES), some_key(g), g.pick(VALUES)]
    if r == 20:
        return [g.case("GETSET"), k, g.pick(VALUES)]
    return [g.case("STRLEN"), k]


def bad_command(g):
    """A command refused while queuing: the transaction is flagged, EXEC aborts."""
    return g.pick([
        [g.case("SET"), some_key(g)],
        [g.case("GET")],
        [g.case("LPUSH"), LIST_KEYS[0]],
        [g.case("HSET"), HASH_KEYS[0]],
        ["NOSUCHCOMMAND", "a", "b"],
        ["nosuch"],
        [g.case("CONFIG"), "NOSUCH"],
        [g.case("OBJECT"), "NOSUCH", "k"],
        [g.case("WATCH")],        # arity, even inside MULTI
        [g.case("UNWATCH"), "x"],
        [g.case("DISCARD"), "x"],
        [g.case("MULTI"), "x"],
    ])


def body(g, lo=0, hi=6, bad=0.0):
    cmds = []
    for _ in range(g.randint(lo, hi)):
        cmds.append(bad_command(g) if g.chance(bad) else good_command(g))
    return cmds


def close(g):
    return [g.case("DISCARD")] if g.chance(0.15) else [g.case("EXEC")]


def seq(*parts):
    return [Cmd(c) for part in parts for c in part]


@command("transactions", 6)
def MULTI_EXEC(g):
    """A clean transaction: every command runs, runtime errors inside the reply array."""
    return seq([[g.case("MULTI")]], body(g, 0, 8), [close(g)])


@command("transactions", 3)
def MULTI_WITH_QUEUE_ERRORS(g):
    return seq([[g.case("MULTI")]], body(g, 1, 6, bad=0.3), [close(g)])


@command("transactions", 2)
def MULTI_MISUSE(g):
    """Nested MULTI, WATCH inside MULTI, EXEC with arguments, EXEC/DISCARD without MULTI."""
    r = g.randint(0, 4)
    if r <= 1:
        refused = [g.case("MULTI")] if r == 0 else [g.case("WATCH"), some_key(g)]
        return (seq([[g.case("MULTI")]], body(g, 0, 2)) + [Cmd(refused, "nomulti")] +
                seq(body(g, 0, 2), [[g.case("DISCARD")]]))
    if r == 2:  # EXEC refused for its arguments ends the transaction; the next EXEC has none
        return seq([[g.case("MULTI")]], body(g, 0, 3), [[g.case("EXEC"), "extra"]],
                   [[g.case("EXEC")]])
    if r == 3:
        return seq([[g.case("EXEC")]], [[g.case("DISCARD")]], [[g.case("EXEC"), "x"]])
    return seq([[g.case("MULTI")]], [[g.case("DISCARD")]], [[g.case("EXEC")]])


@command("transactions", 5)
def WATCH_THEN_EXEC(g):
    """WATCH, something in between (maybe a write to a watched key), MULTI ... EXEC."""
    watched = [some_key(g) for _ in range(g.randint(1, 3))]
    between = []
    r = g.randint(0, 6)
    if r == 0:    # touch a watched key: EXEC answers null
        between.append([g.case("SET"), g.pick(watched), g.pick(VALUES)])
    elif r == 1:  # a write that may or may not hit a watched key
        between.append(good_command(g, in_multi=False))
    elif r == 2:  # reads never count
        between.append([g.case("GET"), g.pick(watched)])
    elif r == 3:  # touched, then forgotten
        between.append([g.case("DEL"), g.pick(watched)])
        between.append([g.case("UNWATCH")])
    elif r == 4:  # whole-database changes touch keys that exist on either side
        between.append(g.pick([[g.case("FLUSHDB")], [g.case("SWAPDB"), "0", "1"],
                               [g.case("SWAPDB"), "1", "0"], [g.case("FLUSHALL")]]))
    elif r == 5:  # renames and copies touch their targets
        src, dst = some_key(g), g.pick(watched)
        between.append(g.pick([[g.case("RENAME"), src, dst], [g.case("COPY"), src, dst],
                               [g.case("RENAMENX"), src, dst],
                               [g.case("COPY"), src, dst, "REPLACE"]]))
    # r == 6: nothing in between
    tail = [[g.case("MULTI")]] + body(g, 0, 5, bad=0.1) + [close(g)]
    if g.chance(0.2):  # a second WATCH adds keys; WATCH of the same key again is fine
        between.insert(0, [g.case("WATCH"), g.pick(watched), some_key(g)])
    return seq([[g.case("WATCH")] + watched], between, tail)


@command("transactions", 1)
def WATCH_ACROSS_DBS(g):
    """A watch in db 0 is not touched by a write to the same name in db 1."""
    k = some_key(g)
    return seq([[g.case("WATCH"), k], [g.case("SELECT"), "1"], [g.case("SET"), k, "v"],
                [g.case("SELECT"), "0"], [g.case("MULTI")], [g.case("GET"), k],
                [g.case("EXEC")], [g.case("SELECT"), "1"], [g.case("DEL"), k],
                [g.case("SELECT"), "0"]])


@command("transactions", 1)
def SELECT_INSIDE_MULTI(g):
    k = some_key(g)
    return seq([[g.case("MULTI")], [g.case("SELECT"), "1"], [g.case("SET"), k, "in1"],
                [g.case("GET"), k], [g.case("SELECT"), "0"], [g.case("GET"), k],
                [g.case("EXEC")], [g.case("SELECT"), "1"], [g.case("DEL"), k],
                [g.case("SELECT"), "0"]])
