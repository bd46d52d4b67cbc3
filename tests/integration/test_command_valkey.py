"""COMMAND against valkey-server 8.0.1, command by command: COMMAND INFO and COMMAND DOCS field
by field (types included: a status string is not a bulk string, a set is not an array) in RESP2
and RESP3, COMMAND GETKEYSANDFLAGS / GETKEYS for invocations built from each command's own
documented arguments, and COMMAND COUNT / LIST. Only the commands in ALLOWED may differ.

The orders Valkey takes from a hash table with a random seed (the commands of COMMAND, the
subcommands of a container) are compared as sets; every other order counts.
"""

import pytest

from conftest import SERVER_BINARY, RawConnection, RespError, ServerProcess

# Commands the reference has and Vireo has not, with the reason.
ALLOWED = {
}
# Subcommands Vireo has from Valkey releases after 8.0.1 (left out of the comparison).
NEWER_SUBCOMMANDS = {
    "cluster|migrateslots", "cluster|getslotmigrations", "cluster|cancelslotmigrations",
    "cluster|syncslots",
}
# Commands whose docs come from a later release (tools/command_docs_extra.json, newer_docs):
# their arguments, history and summary are left out of the comparison, the rest must match.
NEWER_DOCS = {"client|list", "client|kill", "shutdown", "geosearch", "geosearchstore"}
NEWER_DOC_FIELDS = {b"arguments", b"history", b"summary"}


# --------------------------------------------------------------------------------------------
# Replies with their RESP types kept

class Simple(str):
    def __repr__(self):
        return f"+{str.__repr__(self)}"


class RSet(list):
    def __repr__(self):
        return f"~{list.__repr__(self)}"


class RMap(list):
    """Key/value pairs in reply order."""

    def __repr__(self):
        return f"%{list.__repr__(self)}"

    def get(self, key, default=None):
        for k, v in self:
            if k == key:
                return v
        return default


def typed_reply(conn):
    line = conn.read_line()
    t, rest = line[:1], line[1:]
    if t == b"+":
        return Simple(rest.decode())
    if t == b"-":
        return RespError(rest.decode())
    if t == b":":
        return int(rest)
    if t == b"$":
        n = int(rest)
        return None if n < 0 else conn._exact(n)
    if t == b"_":
        return None
    if t in (b"*", b"~"):
        n = int(rest)
        if n < 0:
            return None
        items = [typed_reply(conn) for _ in range(n)]
        return items if t == b"*" else RSet(items)
    if t == b"%":
        return RMap((typed_reply(conn), typed_reply(conn)) for _ in range(int(rest)))
    raise ValueError(f"unexpected reply {line!r}")


def call(conn, *args):
    conn.send_command(*args)
    return typed_reply(conn)


def unordered_subcommands_info(info):
    """COMMAND INFO's entry with its subcommands (element 9) sorted by name, those in ALLOWED
    left out."""
    if isinstance(info, list) and len(info) == 10:
        subs = [unordered_subcommands_info(s) for s in info[9]
                if s[0].decode() not in set(ALLOWED) | NEWER_SUBCOMMANDS]
        info = info[:9] + [type(info[9])(sorted(subs, key=lambda s: s[0]))]
    return info


def unordered_subcommands_docs(docs):
    """COMMAND DOCS's map with its subcommands sorted by name (RESP2: a flat array)."""
    if isinstance(docs, RMap):
        return RMap((k, sorted_pairs(v) if k == b"subcommands" else v) for k, v in docs)
    if isinstance(docs, list):  # RESP2: key, value, key, value
        out = list(docs)
        for i in range(0, len(out) - 1, 2):
            if out[i] == b"subcommands":
                out[i + 1] = sorted_pairs(out[i + 1])
        return out
    return docs


def without_newer_fields(docs):
    """A command's docs without the fields a later release's docs replace."""
    if isinstance(docs, RMap):
        return RMap((k, v) for k, v in docs if k not in NEWER_DOC_FIELDS)
    pairs = [(k, v) for k, v in zip(docs[0::2], docs[1::2]) if k not in NEWER_DOC_FIELDS]
    return [x for pair in pairs for x in pair]


def docs_reply(reply):
    """COMMAND DOCS's reply (name, docs, ...) with every docs' subcommands sorted."""
    if isinstance(reply, RMap):
        return RMap((k, unordered_subcommands_docs(v)) for k, v in reply)
    return [unordered_subcommands_docs(x) if i % 2 else x for i, x in enumerate(reply)]


def sorted_pairs(subs):
    """Subcommands' docs sorted by name, those in ALLOWED left out."""
    if isinstance(subs, RMap):
        return RMap(sorted((k, unordered_subcommands_docs(v)) for k, v in subs
                           if k.decode() not in set(ALLOWED) | NEWER_SUBCOMMANDS))
    pairs = sorted(((k, v) for k, v in zip(subs[0::2], subs[1::2])
                    if k.decode() not in set(ALLOWED) | NEWER_SUBCOMMANDS), key=lambda p: p[0])
    return [x for k, v in pairs for x in (k, unordered_subcommands_docs(v))]


def newer_docs_left_out(reply):
    """COMMAND DOCS's reply with NEWER_DOCS commands' replaced fields left out, subcommands
    included (CLIENT's LIST and KILL)."""
    def fix(name, docs):
        if name.decode().lower() in NEWER_DOCS:
            docs = without_newer_fields(docs)
        if isinstance(docs, RMap):
            return RMap((k, RMap((n, fix(n, d)) for n, d in v) if k == b"subcommands" else v)
                        for k, v in docs)
        out = list(docs)
        for i in range(0, len(out) - 1, 2):
            if out[i] == b"subcommands":
                subs = out[i + 1]
                out[i + 1] = [x if j % 2 == 0 else fix(subs[j - 1], x)
                              for j, x in enumerate(subs)]
        return out
    if isinstance(reply, RMap):
        return RMap((k, fix(k, v)) for k, v in reply)
    return [x if i % 2 == 0 else fix(reply[i - 1], x) for i, x in enumerate(reply)]


# --------------------------------------------------------------------------------------------
# Servers

@pytest.fixture(scope="module")
def servers(valkey_process, tmp_path_factory):
    ours = ServerProcess(SERVER_BINARY, tmp_path_factory.mktemp("vireo"))
    ours.start()
    conns = {}
    for name, s in (("valkey", valkey_process), ("vireo", ours)):
        for proto in (2, 3):
            c = RawConnection(s.host, s.port)
            if proto == 3:
                c.call("HELLO", "3")
            conns[name, proto] = c
    yield conns
    for c in conns.values():
        c.close()
    ours._terminate()


@pytest.fixture(scope="module")
def reference_names(servers):
    """Every command and subcommand of the reference, by full name."""
    names = []

    def walk(entry):
        names.append(entry[0].decode())
        for sub in entry[9]:
            walk(sub)

    for entry in call(servers["valkey", 3], "COMMAND"):
        walk(entry)
    assert len(names) > 350
    return sorted(names)


def both(servers, proto, *args):
    return call(servers["valkey", proto], *args), call(servers["vireo", proto], *args)


# --------------------------------------------------------------------------------------------
# COMMAND INFO and COMMAND DOCS

@pytest.mark.parametrize("proto", [2, 3])
def test_command_info_of_every_command(servers, reference_names, proto):
    differ = []
    for name in reference_names:
        theirs, ours = both(servers, proto, "COMMAND", "INFO", name)
        if name in ALLOWED:
            assert ours == [None], f"{name} exists now: take it out of ALLOWED"
            continue
        assert ours[0] is not None, f"{name} is missing"
        theirs, ours = [unordered_subcommands_info(x[0]) for x in (theirs, ours)]
        fields = ["name", "arity", "flags", "first key", "last key", "step", "acl", "tips",
                  "key specs", "subcommands"]
        for field, a, b in zip(fields, theirs, ours):
            if a != b:
                differ.append(f"{name} {field}: valkey {a!r}, vireo {b!r}")
    assert differ == []


@pytest.mark.parametrize("proto", [2, 3])
def test_command_docs_of_every_command(servers, reference_names, proto):
    differ = []
    for name in reference_names:
        theirs, ours = both(servers, proto, "COMMAND", "DOCS", name)
        if name in ALLOWED:
            assert ours in ([], RMap()), f"{name} exists now: take it out of ALLOWED"
            continue
        theirs, ours = [docs_reply(newer_docs_left_out(x)) for x in (theirs, ours)]
        if theirs != ours:
            differ.append(f"{name}:\n  valkey {theirs!r}\n  vireo  {ours!r}")
    assert differ == []


def test_newer_docs_show_later_arguments(servers):
    """The arguments later releases added show in COMMAND DOCS (valkey-cli's hints)."""
    def tokens(reply, out):
        if isinstance(reply, (list, tuple)):  # RESP3 maps are lists of pairs
            for x in reply:
                tokens(x, out)
        elif isinstance(reply, bytes):
            out.add(reply)
        return out
    for name, wanted in (("geosearch", {b"BYPOLYGON", b"num-vertices", b"vertices"}),
                         ("geosearchstore", {b"BYPOLYGON", b"STOREDIST"}),
                         ("shutdown", {b"SAFE", b"ABORT"}),
                         ("client|list", {b"IDLE", b"LIB-NAME", b"CAPA", b"IP", b"SKIPME"}),
                         ("client|kill", {b"IDLE", b"FLAGS", b"DB", b"MAXAGE"})):
        reply = call(servers["vireo", 3], "COMMAND", "DOCS", name)
        assert wanted <= tokens(reply, set()), name


def test_command_docs_and_info_of_unknown_and_many(servers):
    for proto in (2, 3):
        theirs, ours = both(servers, proto, "COMMAND", "DOCS", "nosuch", "get", "Config|Get")
        assert docs_reply(theirs) == docs_reply(ours)
        theirs, ours = both(servers, proto, "COMMAND", "INFO", "nosuch", "GET", "config|get")
        assert theirs == ours


def test_command_count_and_list(servers, reference_names):
    conn = servers["vireo", 2]
    ours = {n.decode() for n in call(conn, "COMMAND", "LIST")}
    theirs = set(reference_names)
    extra = {n for n in ours - theirs}
    assert theirs - ours == set(ALLOWED)
    assert extra, "Vireo's own commands (HGETEX, COMMANDLOG, ...) are listed"
    top_level = [n for n in ours if "|" not in n]
    assert call(conn, "COMMAND", "COUNT") == len(top_level)
    for category in ("read", "write", "keyspace", "admin", "scripting", "pubsub", "fast"):
        theirs, ours = both(servers, 2, "COMMAND", "LIST", "FILTERBY", "ACLCAT", category)
        assert set(theirs) - set(ALLOWED_B) == set(ours) - {n.encode() for n in extra}, category
    for pattern in ("x*", "cl?ster|s*", "*get*"):
        theirs, ours = both(servers, 2, "COMMAND", "LIST", "FILTERBY", "PATTERN", pattern)
        assert set(theirs) - set(ALLOWED_B) == set(ours) - {n.encode() for n in extra}, pattern


ALLOWED_B = {n.encode() for n in ALLOWED}


# --------------------------------------------------------------------------------------------
# COMMAND GETKEYSANDFLAGS: invocations built from each command's documented arguments

VALUES = {"string": "v", "pattern": "p*", "double": "1.5", "unix-time": "1700000000"}


def render(arguments, optional, choice, integer, counter):
    """One invocation of an argument list: optional arguments in or out, the choice-th
    alternative of every oneof, `integer` for every integer, two of every multiple one when
    optional arguments are in."""
    out = []
    for arg in arguments:
        a = {k.decode(): v for k, v in arg}
        flags = set(a.get("flags", []))
        if "optional" in flags and not optional:
            continue
        times = 2 if ("multiple" in flags and optional) else 1
        for i in range(times):
            if a.get("token") is not None and (i == 0 or "multiple_token" in flags):
                out.append(a["token"].decode())
            kind = a["type"].decode()
            if kind == "pure-token":
                continue
            if kind == "key":
                counter[0] += 1
                out.append(f"key{counter[0]}")
            elif kind == "integer":
                out.append(integer)
            elif kind == "oneof":
                alts = a["arguments"]
                out += render([alts[choice % len(alts)]], optional, choice, integer, counter)
            elif kind == "block":
                out += render(a["arguments"], optional, choice, integer, counter)
            else:
                out.append(VALUES[kind])
    return out


def invocations(name, docs):
    words = name.split("|")
    arguments = docs.get(b"arguments") or []
    seen = []
    for optional in (False, True):
        for choice in range(3):
            for integer in ("1", "2", "0"):
                args = words + render(arguments, optional, choice, integer, [0])
                if args not in seen:
                    seen.append(args)
    return seen


# Hand-picked cases the documented arguments do not produce: finders' corners and errors.
EXTRA_INVOCATIONS = [
    "set k v get", "set k v GET ex 10", "set k v ex 10", "set k v get\0x",
    "bitfield k get u8 0", "bitfield k get u8 0 overflow wrap", "bitfield k incrby u8 0 1",
    "bitfield k get u8", "bitfield k overflow", "bitfield_ro k get u8 0",
    "sort k", "sort k store d", "sort k by x store d get # store e", "sort k get store",
    "sort k limit 0 1 store d", "sort k store", "sort_ro k by x get y",
    "migrate h 1 k 0 10", "migrate h 1 '' 0 10 keys a b", "migrate h 1 k 0 10 keys a b",
    "migrate h 1 '' 0 10 auth keys x keys a", "migrate h 1 '' 0 10 auth2 u keys a b",
    "migrate h 1 '' 0 10 copy replace", "migrate h 1 '' 0 10",
    "xread streams a b 0 0", "xread count 2 block 0 streams a 0", "xread streams a b 0",
    "xread streams", "xread noack streams a 0", "xread group g c streams a 0",
    "xreadgroup group g c streams a b 0 0", "xreadgroup group g c count 1 noack streams a 0",
    "xreadgroup group g c streams a", "xread count streams streams a 0",
    "georadius g 0 0 1 km store d", "georadius g 0 0 1 km storedist d store e",
    "georadius g 0 0 1 km store", "georadiusbymember g m 1 km store d",
    "georadius_ro g 0 0 1 km",
    "eval s 0", "eval s 1 a", "eval s 2 a b c", "eval s 3 a b", "eval s -1 a", "eval s 1abc a",
    "eval s 01 a", "eval s 4294967297 a", "eval s ' 1' a", "evalsha_ro s 1 a", "fcall f 2 a b",
    "fcall_ro f 0", "eval_ro s 2 a",
    "zunionstore d 2 a b", "zunionstore d 1abc a", "zunionstore d 3 a b", "zunionstore d 0 a",
    "zinterstore d 2 a b weights 1 2", "zdiffstore d 1 a", "zunion 2 a b", "zinter 1abc a",
    "zdiff 0 a", "zintercard 2 a b limit 1", "sintercard 1 a", "sintercard x a",
    "lmpop 2 a b left", "lmpop 1abc a left", "lmpop 0 a left", "lmpop 3 a b left",
    "blmpop 0 2 a b left", "blmpop 0 x a left", "bzmpop 0 1 a min", "zmpop 1 a max count 2",
    "lmove a b left right", "blmove a b left right 0", "rename a b", "copy a b db 1",
    "mset a 1 b 2", "mset a 1 b", "msetnx a 1 b 2", "del a b c", "exists a", "touch a b",
    "memory usage k", "object encoding k", "xinfo stream k", "xgroup create k g $",
    "pfmerge d a b", "bitop and d a b", "geosearchstore d s frommember m byradius 1 km",
    "spublish ch m", "ssubscribe a b", "sunsubscribe", "publish ch m", "ping", "get",
    "get a b", "config get x", "config", "config nosuch", "config help", "nosuch a",
    "command getkeys get k", "client kill 1.2.3.4:5", "watch a b", "multi", "debug object k",
    "restore k 0 x", "restore-asking k 0 x", "pfdebug encoding k", "object freq k",
    "lcs a b", "substr k 0 1", "getex k persist", "hsetnx h f v",
]


def split_words(line):
    return [w.strip("'") if w != "''" else "" for w in line.split(" ")]


@pytest.mark.parametrize("subcommand", ["GETKEYSANDFLAGS", "GETKEYS"])
def test_command_getkeys_of_every_command(servers, reference_names, subcommand):
    docs = {}
    for name in reference_names:
        reply = call(servers["valkey", 3], "COMMAND", "DOCS", name)
        if reply:
            docs[name] = reply[0][1]
    cases = [args for name in reference_names if name not in ALLOWED
             for args in invocations(name, docs[name])]
    cases += [split_words(line) for line in EXTRA_INVOCATIONS]
    assert len(cases) > 1000
    differ = []
    keys_found = 0
    for args in cases:
        for proto in (2, 3):
            theirs, ours = both(servers, proto, "COMMAND", subcommand, *args)
            if theirs != ours:
                differ.append(f"{args} (RESP{proto}): valkey {theirs!r}, vireo {ours!r}")
            keys_found += isinstance(theirs, list) and len(theirs) > 0
    assert differ == []
    assert keys_found > 1000, keys_found  # the invocations do reach the key finders
