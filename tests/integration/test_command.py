"""COMMAND and its subcommands: what redis-cli and redis-py read from the command table."""

import os
import pty
import select
import signal
import time

import pytest

from conftest import REDIS_CLI, RawConnection

REDIS_SERVER = "/usr/bin/redis-server"
need_redis = pytest.mark.skipif(not os.path.exists(REDIS_SERVER), reason="no redis-server")

# COMMAND INFO of redis-server 7.0: arity, flags, first key, last key, step, ACL categories
# (COMMAND GETKEYS's arity as Valkey 8.0.1 has it: -3).
REDIS_COMMAND_INFO = {
    "get": (2, ["fast", "readonly"], 1, 1, 1, ["@fast", "@read", "@string"]),
    "set": (-3, ["denyoom", "write"], 1, 1, 1, ["@slow", "@string", "@write"]),
    "mget": (-2, ["fast", "readonly"], 1, -1, 1, ["@fast", "@read", "@string"]),
    "mset": (-3, ["denyoom", "write"], 1, -1, 2, ["@slow", "@string", "@write"]),
    "del": (-2, ["write"], 1, -1, 1, ["@keyspace", "@slow", "@write"]),
    "exists": (-2, ["fast", "readonly"], 1, -1, 1, ["@fast", "@keyspace", "@read"]),
    "expire": (-3, ["fast", "write"], 1, 1, 1, ["@fast", "@keyspace", "@write"]),
    "ttl": (2, ["fast", "readonly"], 1, 1, 1, ["@fast", "@keyspace", "@read"]),
    "incr": (2, ["denyoom", "fast", "write"], 1, 1, 1, ["@fast", "@string", "@write"]),
    "append": (3, ["denyoom", "fast", "write"], 1, 1, 1, ["@fast", "@string", "@write"]),
    "getrange": (4, ["readonly"], 1, 1, 1, ["@read", "@slow", "@string"]),
    "ping": (-1, ["fast"], 0, 0, 0, ["@connection", "@fast"]),
    "auth": (-2, ["allow_busy", "fast", "loading", "no_auth", "noscript", "stale"], 0, 0, 0,
             ["@connection", "@fast"]),
    "hello": (-1, ["allow_busy", "fast", "loading", "no_auth", "noscript", "stale"], 0, 0, 0,
              ["@connection", "@fast"]),
    "info": (-1, ["loading", "stale"], 0, 0, 0, ["@dangerous", "@slow"]),
    "config|get": (-3, ["admin", "loading", "noscript", "stale"], 0, 0, 0,
                   ["@admin", "@dangerous", "@slow"]),
    "config|set": (-4, ["admin", "loading", "noscript", "stale"], 0, 0, 0,
                   ["@admin", "@dangerous", "@slow"]),
    "config|rewrite": (2, ["admin", "loading", "noscript", "stale"], 0, 0, 0,
                       ["@admin", "@dangerous", "@slow"]),
    "command|info": (-2, ["loading", "stale"], 0, 0, 0, ["@connection", "@slow"]),
    "command|docs": (-2, ["loading", "stale"], 0, 0, 0, ["@connection", "@slow"]),
    "command|getkeys": (-3, ["loading", "stale"], 0, 0, 0, ["@connection", "@slow"]),
    "debug": (-2, ["admin", "loading", "noscript", "stale"], 0, 0, 0,
              ["@admin", "@dangerous", "@slow"]),
    "module|list": (2, ["admin", "noscript"], 0, 0, 0, ["@admin", "@dangerous", "@slow"]),
    "module|help": (2, ["loading", "stale"], 0, 0, 0, ["@slow"]),
    "time": (1, ["fast", "loading", "stale"], 0, 0, 0, ["@fast"]),
    "lolwut": (-1, ["fast", "readonly"], 0, 0, 0, ["@fast", "@read"]),
    "lastsave": (1, ["fast", "loading", "stale"], 0, 0, 0, ["@admin", "@dangerous", "@fast"]),
    "shutdown": (-1, ["admin", "allow_busy", "loading", "no_multi", "noscript", "stale"], 0, 0, 0,
                 ["@admin", "@dangerous", "@slow"]),
    "slowlog|get": (-2, ["admin", "loading", "stale"], 0, 0, 0,
                    ["@admin", "@dangerous", "@slow"]),
    "slowlog|reset": (2, ["admin", "loading", "stale"], 0, 0, 0,
                      ["@admin", "@dangerous", "@slow"]),
    "dbsize": (1, ["fast", "readonly"], 0, 0, 0, ["@fast", "@keyspace", "@read"]),
    "type": (2, ["fast", "readonly"], 1, 1, 1, ["@fast", "@keyspace", "@read"]),
    "rename": (3, ["write"], 1, 2, 1, ["@keyspace", "@slow", "@write"]),
}
# Families that must be registered for the test to mean anything.
REQUIRED = {"get", "set", "ping", "info", "config|get", "command|info", "debug", "time"}


@pytest.fixture
def rc(shared_server):
    with RawConnection(shared_server.host, shared_server.port) as c:
        yield c


def test_command_info_matches_redis(rc):
    names = list(REDIS_COMMAND_INFO)
    replies = rc.call("COMMAND", "INFO", *names)
    assert len(replies) == len(names)
    for name, info in zip(names, replies):
        if info is None:
            assert name not in REQUIRED, f"{name} is not registered"
            continue
        arity, flags, first, last, step, acl = REDIS_COMMAND_INFO[name]
        assert info[0].decode() == name
        assert info[1] == arity, name
        assert sorted(info[2]) == flags, name  # status strings
        assert (info[3], info[4], info[5]) == (first, last, step), name
        assert sorted(info[6]) == acl, name
        assert len(info) == 10


# Deliberate differences from redis-server 7.0's COMMAND INFO, where Vireo follows Valkey 8.0.1
# (test_command_valkey.py compares the whole table with Valkey's): ZRANK/ZREVRANK take WITHSCORE
# (Redis 7.2) and COMMAND GETKEYS(ANDFLAGS) needs only the command name, so their arities are
# -3; MULTI and WATCH are no_multi; CLUSTER INFO / MYID / MYSHARDID / NODES / SHARDS / SLOTS run
# while loading; blocking commands may run in scripts (no noscript), WAIT is blocking.
VALKEY_ARITY = {"zrank": -3, "zrevrank": -3, "command|getkeys": -3, "command|getkeysandflags": -3}
VALKEY_FLAGS = {  # name: (flags added, flags removed, ACL categories added)
    "multi": (["no_multi"], [], []),
    "watch": (["no_multi"], [], []),
    **{f"cluster|{sub}": (["loading"], [], [])
       for sub in ("info", "myid", "myshardid", "nodes", "shards", "slots")},
    **{name: ([], ["noscript"], [])
       for name in ("blmove", "blpop", "brpop", "brpoplpush", "bzpopmax", "bzpopmin")},
    "wait": (["blocking"], ["noscript"], ["@blocking"]),
}


def command_table(conn):
    """Every command and subcommand: (arity, flags, first, last, step, ACL categories)."""
    table = {}

    def text(x):
        return x.decode() if isinstance(x, bytes) else x

    def walk(entries):
        for e in entries:
            table[text(e[0])] = (e[1], sorted(map(text, e[2])), e[3], e[4], e[5],
                                 sorted(map(text, e[6])))
            walk(e[9] or [])
    walk(conn.call("COMMAND"))
    return table


@need_redis
def test_every_command_of_redis_has_its_info(start_server):
    """The whole table against redis-server 7.0's: every command exists with the same arity,
    flags (the stale and loading flags decide what a stale replica or a loading server runs),
    key positions and ACL categories."""
    reference = start_server(binary=REDIS_SERVER)
    with RawConnection(reference.host, reference.port) as c:
        theirs = command_table(c)
    ours_server = start_server()  # not the shared one: its big replies would move used_memory
    with RawConnection(ours_server.host, ours_server.port) as c:
        ours = command_table(c)
    assert sorted(set(theirs) - set(ours)) == []
    for name, info in sorted(theirs.items()):
        if name in VALKEY_ARITY:
            info = (VALKEY_ARITY[name],) + info[1:]
        if name in VALKEY_FLAGS:
            added, removed, acl = VALKEY_FLAGS[name]
            info = (info[0], sorted(set(info[1]) - set(removed) | set(added))) + info[2:5] + (
                sorted(set(info[5]) | set(acl)),)
        assert ours[name] == info, name


def test_command_info_shapes_and_unknown_names(rc):
    get, unknown, sub = rc.call("COMMAND", "INFO", "GET", "nosuch", "CONFIG|GET")
    assert unknown is None
    assert sub[0] == b"config|get"
    # Key specs: one spec starting at the first key.
    spec = dict(zip(get[8][0][0::2], get[8][0][1::2]))
    assert "RO" in spec[b"flags"]
    assert spec[b"begin_search"] == [b"type", b"index", b"spec", [b"index", 1]]
    assert spec[b"find_keys"][:2] == [b"type", b"range"]
    # A container lists its subcommands.
    config = rc.call("COMMAND", "INFO", "config")[0]
    assert config[1] == -2
    assert sorted(s[0] for s in config[9]) == [b"config|get", b"config|help", b"config|resetstat",
                                              b"config|rewrite", b"config|set"]


def test_command_info_resp3_uses_sets(shared_server):
    with RawConnection(shared_server.host, shared_server.port) as c:
        c.call("HELLO", "3")
        info = c.call("COMMAND", "INFO", "get")[0]
        assert info[2] == {"readonly", "fast"}
        assert info[6] == {"@read", "@string", "@fast"}


def test_command_and_count_with_redis_py(sr):
    table = sr.command()
    assert sr.command_count() == len(table)
    assert table["get"]["arity"] == 2
    assert table["get"]["flags"] == ["readonly", "fast"]
    assert table["get"]["first_key_pos"] == 1
    assert "config" in table and "command" in table


def test_command_docs(rc):
    docs = rc.call("COMMAND", "DOCS", "get", "config", "nosuch")
    docs = dict(zip(docs[0::2], docs[1::2]))
    assert set(docs) == {b"get", b"config"}
    get = dict(zip(docs[b"get"][0::2], docs[b"get"][1::2]))
    assert get[b"group"] == b"string"
    assert get[b"since"] == b"1.0.0"
    assert get[b"complexity"] == b"O(1)"
    assert get[b"summary"]
    config = dict(zip(docs[b"config"][0::2], docs[b"config"][1::2]))
    subs = config[b"subcommands"]
    assert b"config|get" in subs[0::2]
    assert rc.call("COMMAND", "DOCS", "nosuch") == []
    everything = rc.call("COMMAND", "DOCS")
    assert len(everything) == 2 * rc.call("COMMAND", "COUNT")


def test_command_list_and_filters(rc):
    names = rc.call("COMMAND", "LIST")
    assert b"get" in names and b"config|get" in names
    assert sorted(rc.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "config*")) == [
        b"config", b"config|get", b"config|help", b"config|resetstat", b"config|rewrite",
        b"config|set"]
    admin = rc.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "Admin")
    assert b"config|set" in admin and b"get" not in admin
    assert rc.call("COMMAND", "LIST", "FILTERBY", "MODULE", "x") == []
    assert rc.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuchcat") == []
    assert rc.call("COMMAND", "LIST", "FILTERBY", "bogus", "x").message == "ERR syntax error"
    assert rc.call("COMMAND", "LIST", "foo").message == "ERR syntax error"


def test_command_getkeys(rc):
    assert rc.call("COMMAND", "GETKEYS", "mset", "a", "1", "b", "2") == [b"a", b"b"]
    assert rc.call("COMMAND", "GETKEYS", "get", "k") == [b"k"]
    assert rc.call("COMMAND", "GETKEYS", "SET", "k", "v", "EX", "10") == [b"k"]
    assert rc.call("COMMAND", "GETKEYS", "foo", "a").message == "ERR Invalid command specified"
    assert rc.call("COMMAND", "GETKEYS", "get", "a", "b").message == (
        "ERR Invalid number of arguments specified for command")
    assert rc.call("COMMAND", "GETKEYS", "config", "get", "x").message == (
        "ERR The command has no key arguments")
    assert rc.call("COMMAND", "GETKEYS", "get").message == (
        "ERR Invalid number of arguments specified for command")
    assert rc.call("COMMAND", "GETKEYS").message == (
        "ERR wrong number of arguments for 'command|getkeys' command")
    assert rc.call("COMMAND", "GETKEYS", "config").message == (
        "ERR The command has no key arguments")
    assert rc.call("COMMAND", "GETKEYS", "config", "nosuch").message == (
        "ERR Invalid command specified")
    pairs = rc.call("COMMAND", "GETKEYSANDFLAGS", "get", "k")
    assert pairs[0][0] == b"k" and "RO" in pairs[0][1]


# Valkey 8.0.1's answers, written out, so that these hold without the reference server
# (test_command_valkey.py compares every command with it).

def keyspec(flags, begin, find, notes=None):
    spec = [b"notes", notes.encode()] if notes else []
    return spec + [b"flags", flags, b"begin_search", begin, b"find_keys", find]


def index(i):
    return [b"type", b"index", b"spec", [b"index", i]]


def range_(lastkey, keystep=1, limit=0):
    return [b"type", b"range", b"spec", [b"lastkey", lastkey, b"keystep", keystep, b"limit", limit]]


def test_key_specs_written_out(rc):
    blmove, eval_, georadius, del_ = rc.call("COMMAND", "INFO", "blmove", "eval", "georadius",
                                             "del")
    assert blmove[8] == [keyspec(["RW", "access", "delete"], index(1), range_(0)),
                         keyspec(["RW", "insert"], index(2), range_(0))]
    assert eval_[8] == [keyspec(["RW", "access", "update"], index(2), [
        b"type", b"keynum", b"spec", [b"keynumidx", 0, b"firstkey", 1, b"keystep", 1]],
        notes="We cannot tell how the keys will be used so we assume the worst, RW and UPDATE")]
    assert georadius[8][1] == keyspec(
        ["OW", "update"],
        [b"type", b"keyword", b"spec", [b"keyword", b"STORE", b"startfrom", 6]], range_(0))
    assert eval_[2] == ["noscript", "stale", "skip_monitor", "no_mandatory_keys", "movablekeys"]
    assert del_[7] == [b"request_policy:multi_shard", b"response_policy:agg_sum"]
    assert rc.call("COMMAND", "INFO", "ping")[0][7] == [b"request_policy:all_shards",
                                                        b"response_policy:all_succeeded"]


def test_docs_arguments_written_out(rc):
    docs = rc.call("COMMAND", "DOCS", "set")
    assert docs[0] == b"set"
    fields = dict(zip(docs[1][0::2], docs[1][1::2]))
    assert list(fields) == [b"summary", b"since", b"group", b"complexity", b"history",
                            b"arguments"]
    assert fields[b"history"][0] == [b"2.6.12", b"Added the `EX`, `PX`, `NX` and `XX` options."]
    args = fields[b"arguments"]
    assert args[0] == [b"name", b"key", b"type", b"key", b"display_text", b"key",
                       b"key_spec_index", 0]
    assert args[1] == [b"name", b"value", b"type", b"string", b"display_text", b"value"]
    assert args[2][:8] == [b"name", b"condition", b"type", b"oneof", b"since", b"2.6.12",
                           b"flags", ["optional"]]
    assert args[2][9][0] == [b"name", b"nx", b"type", b"pure-token", b"display_text", b"nx",
                             b"token", b"NX"]
    # Deprecated commands say so, and what replaces them.
    getset = dict(zip(*[iter(rc.call("COMMAND", "DOCS", "getset")[1])] * 2))
    assert getset[b"doc_flags"] == ["deprecated"]
    assert getset[b"deprecated_since"] == b"6.2.0"
    assert getset[b"replaced_by"] == b"`SET` with the `!GET` argument"
    # Vireo's own commands, after Valkey's newer command reference.
    hgetex = dict(zip(*[iter(rc.call("COMMAND", "DOCS", "hgetex")[1])] * 2))
    assert hgetex[b"since"] == b"9.0.0"
    assert hgetex[b"arguments"][2][:6] == [b"name", b"fields", b"type", b"block", b"token",
                                           b"FIELDS"]


def test_command_getkeysandflags_written_out(rc):
    def keys(*args):
        return rc.call("COMMAND", "GETKEYSANDFLAGS", *args)

    assert keys("lmove", "a", "b", "left", "right") == [[b"a", ["RW", "access", "delete"]],
                                                        [b"b", ["RW", "insert"]]]
    assert keys("set", "k", "v") == [[b"k", ["OW", "update"]]]
    assert keys("set", "k", "v", "get") == [[b"k", ["RW", "access", "update"]]]
    assert keys("eval", "s", "2", "a", "b", "c") == [[b"a", ["RW", "access", "update"]],
                                                     [b"b", ["RW", "access", "update"]]]
    assert keys("eval", "s", "0") == []
    assert keys("sort", "k", "store", "d") == [[b"k", ["RO", "access"]], [b"d", ["OW", "update"]]]
    assert keys("migrate", "h", "1", "", "0", "10", "keys", "a") == [
        [b"a", ["RW", "access", "delete"]]]
    assert keys("zunionstore", "d", "1abc", "x") == [[b"x", []], [b"d", []]]
    assert keys("xread", "streams", "a", "b", "0", "0") == [[b"a", ["RO", "access"]],
                                                             [b"b", ["RO", "access"]]]
    assert keys("exists", "a") == [[b"a", ["RO"]]]
    assert keys("lmpop", "0", "a", "left").message == "ERR Invalid arguments specified for command"
    assert keys("spublish", "ch", "m").message == "ERR The command has no key arguments"


def test_command_help_and_errors(rc):
    lines = rc.call("COMMAND", "HELP")
    assert lines[0] == "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    assert "GETKEYS <full-command>" in lines
    assert rc.call("COMMAND", "foo").message == "ERR unknown subcommand 'foo'. Try COMMAND HELP."
    assert rc.call("COMMAND", "COUNT", "x").message == (
        "ERR wrong number of arguments for 'command|count' command")


def run_interactive_cli(server, lines):
    """Drive redis-cli on a pseudo-terminal (it asks COMMAND DOCS for its hints at start)."""
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.environ["TERM"] = "xterm"
        os.execv(REDIS_CLI, [REDIS_CLI, "-h", server.host, "-p", str(server.port)])
    out = b""

    def pump(seconds, until=None):
        nonlocal out
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if until is not None and until in out:
                return
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            out += chunk
            if b"\x1b[6n" in chunk:  # linenoise asks where the cursor is
                os.write(fd, b"\x1b[1;80R")

    try:
        prompt = f"{server.host}:{server.port}> ".encode()
        pump(10, until=prompt)
        for line in lines:
            seen = out.count(prompt)
            os.write(fd, line.encode() + b"\r")
            end = time.monotonic() + 10
            while out.count(prompt) <= seen and time.monotonic() < end:
                pump(0.2)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    return out.decode(errors="replace")


def test_interactive_redis_cli_session(shared_server):
    out = run_interactive_cli(shared_server, ["config get hz", "command count", "time"])
    assert '1) "hz"\r\n2) "10"' in out
    assert "(integer) " in out
    assert "ERR" not in out
