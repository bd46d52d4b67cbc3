"""Differential generators for ACL ("acl"): ACL SETUSER with random rules (valid and not),
then GETUSER, LIST, DRYRUN, DELUSER, CAT and GENPASS's shape.

Only users named g0..g2 are touched: the default user (and so the connection) stays open.
Rule texts are compared as sorted words ("aclrules"), for Redis 7.0 lists the single-command
rules in the order of a randomly seeded hash table. Two differences are by design: Valkey 8
(and Vireo) keep the command rules as written ("-@all +@set +@hash -@geo") where Redis 7.0
rebuilds them from the command bitmap ("-@all +@hash +@set"), and give new users the
`sanitize-payload` flag. So rule texts are compared without their command rules (only the
leading +@all / -@all) and without that flag; ACL DRYRUN, compared on every run, checks the
commands each user may run. DRYRUN's refusals name the user in Valkey 8 ("User g0 has no
permissions ..."), "This user" in Redis 7.0 ("dryrun"). Categories are limited to those whose
commands are the same in both servers (Valkey-only commands such as HEXPIRE differ).
GETUSER's `databases` field (Valkey 9.1, "alldbs" for these users) is left out of the
comparison: the references predate it.
"""

import re

from generators import MODE_NORMALIZERS, Cmd, command

USERS = ["g0", "g1", "g2"]
CATEGORIES = ["string", "list", "set", "sortedset", "geo", "stream", "bitmap",
              "hyperloglog", "transaction", "pubsub", "keyspace", "blocking", "scripting"]
COMMANDS = ["get", "set", "del", "lpush", "lrange", "sadd", "zadd", "publish", "subscribe",
            "client|id", "client|list", "config|get", "config|set", "select|0", "ping", "echo"]
KEY_PATTERNS = ["~k*", "%R~r*", "%W~w*", "%RW~b", "~*", "allkeys", "resetkeys", "%R~k*"]
CHANNEL_PATTERNS = ["&ch*", "&news", "&*", "allchannels", "resetchannels"]
BAD_RULES = ["bogus", "+nosuch", "+@nosuch", "%X~a", "%~a", "-get|x", "+select|0|1",
             "+client|id|x", "#abc", "!abc", "<nopw", "+debug|", "(~a", ")"]
PASSWORDS = [">pw", ">other", "<pw", "nopass", "resetpass",
             "#30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4"]


FLAG_70_LACKS = ("$", b"sanitize-payload")
# GETUSER's Valkey 9.1 field (Vireo has it, the references do not): left out with its value.
DATABASES_FIELD = ("$", b"databases")


def _without_databases(items):
    out, skip = [], False
    for x in items:
        if skip:
            skip = False
        elif x == DATABASES_FIELD:
            skip = True
        else:
            out.append(x)
    return out


def _words(reply):
    """Rule texts: the multiset of their words, at any depth of the reply."""
    t, v = reply[0], reply[1]
    if t in ("$", "+") and isinstance(v, bytes):
        return (t, _sorted_rules(v))
    if t in ("*", "~", ">") and v is not None:
        return (t, [_words(x) for x in _without_databases(v) if x != FLAG_70_LACKS])
    if t == "%":
        return (t, [(_words(k), _words(x)) for k, x in v if k != DATABASES_FIELD])
    return reply


def _compared(word):
    """Not a command rule (other than the leading +@all / -@all), nor sanitize-payload."""
    if word in (b"+@all", b"-@all"):
        return True
    return word[:1] not in (b"+", b"-") and word != b"sanitize-payload"


def _sorted_rules(text):
    """Each selector's words sorted, selectors kept in order: "a c (x b)" -> "a c | b x"."""
    groups, depth, current = [[]], 0, []
    for word in text.split(b" "):
        if word.startswith(b"(") and depth == 0:
            depth, word = 1, word[1:]
            groups.append([])
        closing = depth == 1 and word.endswith(b")")
        if closing:
            word = word[:-1]
        groups[-1].append(word)
        if closing:
            depth = 0
            groups.append([])
    return b" | ".join(b" ".join(sorted(w for w in g if _compared(w))) for g in groups if g)


MODE_NORMALIZERS["aclrules"] = _words

DRYRUN_USER = re.compile(rb"^User \S+ has no permissions ")


def _dryrun(reply):
    if reply[0] == "$" and isinstance(reply[1], bytes):
        return ("$", DRYRUN_USER.sub(b"This user has no permissions ", reply[1]))
    return reply


MODE_NORMALIZERS["dryrun"] = _dryrun


def rule(g):
    r = g.rng.random()
    if r < 0.3:
        sign = g.pick(["+", "-"])
        return sign + "@" + g.pick(CATEGORIES) if g.chance(0.5) else sign + g.pick(COMMANDS)
    if r < 0.45:
        return g.pick(KEY_PATTERNS)
    if r < 0.55:
        return g.pick(CHANNEL_PATTERNS)
    if r < 0.65:
        return g.pick(PASSWORDS)
    if r < 0.72:
        return g.pick(["on", "off", "reset", "clearselectors", "allcommands", "nocommands",
                       "+@all", "-@all"])
    if r < 0.8:
        return "(" + " ".join(rule_simple(g) for _ in range(g.randint(1, 3))) + ")"
    if r < 0.85:
        return g.pick(BAD_RULES)
    return rule_simple(g)


def rule_simple(g):
    r = g.rng.random()
    if r < 0.5:
        return g.pick(["+", "-"]) + g.pick(COMMANDS)
    if r < 0.8:
        return g.pick(["~k*", "%R~r*", "%W~w*", "~x"])
    return g.pick(["&ch*", "+@" + g.pick(CATEGORIES)])


@command("acl", weight=4)
def acl_setuser(g):
    rules = [rule(g) for _ in range(g.randint(0, 5))]
    return Cmd(["ACL", "SETUSER", g.pick(USERS), *rules])


@command("acl", weight=2)
def acl_getuser(g):
    return Cmd(["ACL", "GETUSER", g.pick(USERS + ["nobody"])], mode="aclrules")


@command("acl", weight=1)
def acl_list(g):
    return Cmd(["ACL", "LIST"], mode="aclrules")


@command("acl", weight=3)
def acl_dryrun(g):
    candidates = [["GET", "k1"], ["GET", "r1"], ["GET", "w1"], ["SET", "w1", "v"],
                  ["SET", "r1", "v"], ["SET", "k1", "v", "GET"], ["DEL", "b"],
                  ["LPUSH", "k2", "a"], ["LRANGE", "r2", "0", "-1"], ["PUBLISH", "news", "m"],
                  ["PUBLISH", "other", "m"], ["SUBSCRIBE", "chat"], ["PSUBSCRIBE", "ch*"],
                  ["CLIENT", "ID"], ["CLIENT", "LIST"], ["CONFIG", "GET", "x"],
                  ["SELECT", "0"], ["SELECT", "1"], ["PING"], ["GET"], ["NOSUCH"],
                  ["EXISTS", "w1"]]
    return Cmd(["ACL", "DRYRUN", g.pick(USERS + ["nobody"]), *g.pick(candidates)], mode="dryrun")


@command("acl", weight=0.5)
def acl_deluser(g):
    return Cmd(["ACL", "DELUSER", *[g.pick(USERS + ["nobody"]) for _ in range(g.randint(1, 2))]])


@command("acl", weight=0.5)
def acl_cat(g):
    if g.chance(0.3):
        return Cmd(["ACL", "CAT"])
    return Cmd(["ACL", "CAT", g.pick(CATEGORIES + ["nosuch"])], mode="sorted")


@command("acl", weight=0.3)
def acl_genpass(g):
    return Cmd(["ACL", "GENPASS", g.pick(["0", "4097", "abc", "-1"])])
