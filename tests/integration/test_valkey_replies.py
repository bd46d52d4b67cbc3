"""Replies compared with valkey-server 8.0.1 byte for byte (issue 27): transactions misused,
Pub/Sub confirmations under CLIENT REPLY OFF, CLIENT LIST / INFO / KILL, HELLO, INFO server and
LOLWUT's identity, ACL rules kept as written and Valkey's NOPERM texts.

Each test sends the same commands to Vireo and, where ../shared/reference/valkey-server exists,
to it (`valkey_process`, module-scoped), and compares; the expected texts are also asserted
directly, so the tests keep their meaning where the reference is absent.
"""

import os

import pytest

from conftest import VALKEY_SERVER, Push, RawConnection, RespError, wait_for

HAVE_VALKEY = os.path.exists(VALKEY_SERVER)
NOT_IN_MULTI = RespError("ERR Command not allowed inside a transaction")
EXECABORT = RespError("EXECABORT Transaction discarded because of previous errors.")


@pytest.fixture
def valkey(request):
    """The reference server, or None where it is absent (the test then checks Vireo alone)."""
    if not HAVE_VALKEY:
        return None
    return request.getfixturevalue("valkey_process")


def replies(server, cmds, resp3=False):
    """One fresh connection: the replies to cmds (HELLO 3 first when resp3)."""
    with server.raw(timeout=5) as c:
        if resp3:
            c.call("HELLO", "3")
        return [c.call(*cmd) for cmd in cmds]


def same_as_valkey(server, valkey, cmds, expected=None, resp3=False, vireo_only=None):
    """Vireo's replies to cmds; equal to Valkey's where it runs, and to `expected` if given,
    once vireo_only (a function of one reply) took out what Vireo adds by design."""
    got = replies(server, cmds, resp3)
    compared = [vireo_only(g) for g in got] if vireo_only else got
    if valkey is not None:
        valkey.raw().call("FLUSHALL")
        assert compared == replies(valkey, cmds, resp3), cmds
    if expected is not None:
        assert compared == expected, cmds
    return got


# --- Transactions -------------------------------------------------------------------------

def test_nested_multi_and_watch_inside_multi_abort_exec(server, valkey):
    # MULTI and WATCH carry no_multi in Valkey 8: refused with the generic text, and the
    # refusal flags the transaction like any other.
    same_as_valkey(server, valkey, [["MULTI"], ["MULTI"], ["SET", "k", "v"], ["EXEC"],
                                    ["EXISTS", "k"]],
                   ["OK", NOT_IN_MULTI, "QUEUED", EXECABORT, 0])
    same_as_valkey(server, valkey, [["MULTI"], ["WATCH", "k"], ["SET", "k", "v"], ["EXEC"]],
                   ["OK", NOT_IN_MULTI, "QUEUED", EXECABORT])
    # Arity comes first, as in Valkey.
    same_as_valkey(server, valkey, [["MULTI"], ["WATCH"], ["MULTI", "x"], ["DISCARD"]],
                   ["OK", RespError("ERR wrong number of arguments for 'watch' command"),
                    RespError("ERR wrong number of arguments for 'multi' command"), "OK"])


def test_transaction_misuse_texts(server, valkey):
    # A refused EXEC answers EXECABORT, inside MULTI or not.
    exec_arity = RespError("EXECABORT Transaction discarded because of: wrong number of "
                           "arguments for 'exec' command")
    same_as_valkey(server, valkey, [["EXEC"], ["DISCARD"], ["EXEC", "x"], ["DISCARD", "x"],
                                    ["UNWATCH", "x"], ["MULTI"], ["EXEC", "x"], ["EXEC"]],
                   [RespError("ERR EXEC without MULTI"), RespError("ERR DISCARD without MULTI"),
                    exec_arity, RespError("ERR wrong number of arguments for 'discard' command"),
                    RespError("ERR wrong number of arguments for 'unwatch' command"), "OK",
                    exec_arity, RespError("ERR EXEC without MULTI")])
    # Commands refused inside MULTI (no_multi), and ones that queue and fail in EXEC.
    same_as_valkey(server, valkey, [["MULTI"], ["SYNC"], ["PSYNC", "a", "b"],
                                    ["REPLICAOF", "NO", "ONE"], ["SELECT", "100"],
                                    ["MONITOR"], ["EXEC"]],
                   ["OK", NOT_IN_MULTI, NOT_IN_MULTI, "QUEUED", "QUEUED", "QUEUED", EXECABORT])
    same_as_valkey(server, valkey, [["MULTI"], ["SELECT", "100"], ["MONITOR"], ["EXEC"]],
                   ["OK", "QUEUED", "QUEUED",
                    [RespError("ERR DB index is out of range"),
                     RespError("ERR MONITOR isn't allowed for DENY BLOCKING client")]])
    # A nested MULTI in RESP3 too, and RESET leaves the transaction.
    same_as_valkey(server, valkey, [["MULTI"], ["MULTI"], ["RESET"], ["EXEC"]],
                   ["OK", NOT_IN_MULTI, "RESET", RespError("ERR EXEC without MULTI")],
                   resp3=True)


# --- Pub/Sub ------------------------------------------------------------------------------

def stream_until_ok(server, cmds, resp3):
    """Sends cmds in one write and reads everything up to the first "OK" (CLIENT REPLY ON's)."""
    with server.raw(timeout=5) as c:
        if resp3:
            c.call("HELLO", "3")
        c.send(b"".join(c.encode(*cmd) for cmd in cmds))
        got = []
        while not got or got[-1] != "OK":
            got.append(c.read_reply())
        return got


@pytest.mark.parametrize("resp3", [False, True], ids=["resp2", "resp3"])
def test_subscription_confirmations_reach_a_client_with_replies_off(server, valkey, resp3):
    # Valkey 8 sends (un)subscribe confirmations (as pushes) even under CLIENT REPLY OFF or
    # SKIP; other replies stay dropped (PING here).
    cmds = [["CLIENT", "REPLY", "OFF"], ["SUBSCRIBE", "a"], ["PSUBSCRIBE", "p*"],
            ["SSUBSCRIBE", "s"], ["SUNSUBSCRIBE"], ["PUNSUBSCRIBE", "p*"], ["PING"],
            ["UNSUBSCRIBE"], ["CLIENT", "REPLY", "SKIP"],
            ["SUBSCRIBE", "b"], ["UNSUBSCRIBE", "b"], ["CLIENT", "REPLY", "ON"]]
    kind = Push if resp3 else list
    expected = [kind([b"subscribe", b"a", 1]), kind([b"psubscribe", b"p*", 2]),
                kind([b"ssubscribe", b"s", 1]), kind([b"sunsubscribe", b"s", 0]),
                kind([b"punsubscribe", b"p*", 1]), kind([b"unsubscribe", b"a", 0]),
                kind([b"subscribe", b"b", 1]),
                kind([b"unsubscribe", b"b", 0]), "OK"]
    got = stream_until_ok(server, cmds, resp3)
    assert got == expected
    assert all(type(x) is type(y) for x, y in zip(got, expected))
    if valkey is not None:
        assert stream_until_ok(valkey, cmds, resp3) == got


@pytest.mark.parametrize("resp3", [False, True], ids=["resp2", "resp3"])
def test_subscribe_inside_exec(server, valkey, resp3):
    # SUBSCRIBE runs inside EXEC, SSUBSCRIBE is refused there (Valkey 8 and Redis 7.0).
    kind = Push if resp3 else list
    same_as_valkey(server, valkey, [["MULTI"], ["SUBSCRIBE", "x"], ["SSUBSCRIBE", "y"],
                                    ["PSUBSCRIBE", "z"], ["EXEC"], ["SUNSUBSCRIBE", "y"]],
                   ["OK", "QUEUED", "QUEUED", "QUEUED",
                    [kind([b"subscribe", b"x", 1]),
                     RespError("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client"),
                     kind([b"psubscribe", b"z", 2])],
                    kind([b"sunsubscribe", b"y", 0])], resp3)


@pytest.mark.parametrize("resp3", [False, True], ids=["resp2", "resp3"])
def test_unsubscribe_from_nothing(server, valkey, resp3):
    # Valkey 8.0.0/8.0.1 answered these with NOSUB, a change 8.0.2 reverted (valkey#1228,
    # valkey#1265) because it broke clients; Vireo answers as 7.x and 8.0.2+ (COMPATIBILITY.md).
    kind = Push if resp3 else list
    cmds = [["UNSUBSCRIBE"], ["UNSUBSCRIBE", "x"], ["PUNSUBSCRIBE"], ["PUNSUBSCRIBE", "x"],
            ["SUNSUBSCRIBE"], ["SUNSUBSCRIBE", "x"], ["PING"]]
    assert replies(server, cmds, resp3) == [
        kind([b"unsubscribe", None, 0]), kind([b"unsubscribe", b"x", 0]),
        kind([b"punsubscribe", None, 0]), kind([b"punsubscribe", b"x", 0]),
        kind([b"sunsubscribe", None, 0]), kind([b"sunsubscribe", b"x", 0]), "PONG"]
    # Once subscribed, Valkey 8.0.1 answers them too: the same replies.
    cmds = [["SUBSCRIBE", "a"], ["UNSUBSCRIBE", "b"], ["PUNSUBSCRIBE"], ["SUNSUBSCRIBE", "z"],
            ["PUNSUBSCRIBE", "p"], ["UNSUBSCRIBE"]]
    same_as_valkey(server, valkey, cmds,
                   [kind([b"subscribe", b"a", 1]), kind([b"unsubscribe", b"b", 1]),
                    kind([b"punsubscribe", None, 1]), kind([b"sunsubscribe", b"z", 0]),
                    kind([b"punsubscribe", b"p", 1]), kind([b"unsubscribe", b"a", 0])],
                   resp3)


# --- CLIENT LIST / INFO / KILL --------------------------------------------------------------

def client_info(conn):
    text = conn.call("CLIENT", "INFO")
    text = text.decode() if isinstance(text, bytes) else text
    assert text.endswith("\n") and text.count("\n") == 1
    return [tuple(field.split("=", 1)) for field in text.split()]


def test_client_info_fields_in_valkey_order(server, valkey):
    names = ["id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub",
             "ssub", "multi", "watch", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp",
             "obl", "oll", "omem", "tot-mem", "events", "cmd", "user", "redir", "resp",
             "lib-name", "lib-ver", "tot-net-in", "tot-net-out", "tot-cmds"]
    with server.raw() as c:
        assert [k for k, _ in client_info(c)] == names
        text = c.call("CLIENT", "LIST").decode()
        assert [f.split("=", 1)[0] for f in text.split()] == names
    if valkey is not None:
        with valkey.raw() as c:
            assert [k for k, _ in client_info(c)] == names


# The byte and command counters after each sequence (one fresh connection per sequence):
# replies are byte-identical, so Valkey's numbers are Vireo's.
COUNTER_SEQUENCES = [
    [],
    [["PING"]],
    [["PING"], ["SET", "a", "b"]],
    [["MULTI"], ["SET", "a", "b"], ["GET", "a"], ["EXEC"]],   # EXEC's commands count
    [["MULTI"], ["SET", "a", "b"], ["DISCARD"]],              # a queued command does not
    [["NOSUCH"], ["GET"], ["GET", "a", "b"]],                 # nor does a refused one
    [["EVAL", "redis.call('set','a','b') return redis.call('get','a')", "0"]],  # a script's do
    [["WATCH", "a", "b", "a"]],
    [["WATCH", "a"], ["SET", "a", "1"]],                      # a touched watch is dropped
    [["BLPOP", "nolist", "0.01"]],
    [["CLIENT", "REPLY", "SKIP"], ["PING"]],
]


@pytest.mark.parametrize("seq", COUNTER_SEQUENCES, ids=lambda s: " / ".join(" ".join(c[:2])
                                                                             for c in s))
def test_client_info_counters(server, valkey, seq):
    fields = ("watch", "tot-net-in", "tot-net-out", "tot-cmds")

    def counters(srv):
        srv.raw().call("FLUSHALL")
        silent = seq[:1] == [["CLIENT", "REPLY", "SKIP"]]  # no reply to it or the next
        with srv.raw() as c:
            for cmd in seq:
                if silent:
                    c.send_command(*cmd)
                else:
                    c.call(*cmd)
            info = dict(client_info(c))
        return {k: int(info[k]) for k in fields}

    got = counters(server)
    request = sum(len(RawConnection.encode(*cmd)) for cmd in seq)
    assert got["tot-net-in"] == request + len(RawConnection.encode("CLIENT", "INFO"))
    if valkey is not None:
        assert got == counters(valkey)


def test_blocked_commands_count_when_they_time_out_or_are_unblocked(server, valkey):
    # Valkey counts a blocking command that ends without running again (timeout, CLIENT
    # UNBLOCK) then: commandstats, total_commands_processed and tot-cmds.
    def stats(srv):
        admin = srv.client()
        admin.config_resetstat()
        with srv.raw() as c:
            assert c.call("BLPOP", "nolist", "0.01") is None
            for how in ("TIMEOUT", "ERROR"):
                cid = c.call("CLIENT", "ID")
                c.send_command("BLPOP", "nolist", "0")
                wait_for(lambda: admin.client_list(client_id=[str(cid)])[0]["cmd"] == "blpop" and
                         "b" in admin.client_list(client_id=[str(cid)])[0]["flags"])
                assert admin.execute_command("CLIENT", "UNBLOCK", cid, how) == 1
                c.read_reply()
            tot = dict(client_info(c))["tot-cmds"]
        info = admin.info("commandstats")["cmdstat_blpop"]
        return {k: info[k] for k in ("calls", "rejected_calls", "failed_calls")}, tot

    got = stats(server)
    assert got[0] == {"calls": 3, "rejected_calls": 0, "failed_calls": 1}
    assert got[1] == "5"  # three BLPOPs and two CLIENT IDs
    if valkey is not None:
        assert stats(valkey) == got


def test_client_info_counts_pipelined_and_inline_commands(server, valkey):
    def counters(srv):
        with srv.raw() as c:
            c.send(b"PING\r\nPING\r\n")
            assert [c.read_reply(), c.read_reply()] == ["PONG", "PONG"]
            info = dict(client_info(c))
            return info["tot-net-in"], info["tot-net-out"], info["tot-cmds"]

    got = counters(server)
    assert got == ("38", "14", "2")
    if valkey is not None:
        assert counters(valkey) == got


def test_client_subcommand_errors(server, valkey):
    maxage = RespError("ERR maxage should be greater than 0")
    same_as_valkey(server, valkey, [
        ["CLIENT", "KILL", "MAXAGE", "0"], ["CLIENT", "KILL", "MAXAGE", "-5"],
        ["CLIENT", "KILL", "MAXAGE", "abc"], ["CLIENT", "KILL", "MAXAGE", "999999"],
        ["CLIENT", "KILL", "MAXAGE", "0", "SKIPME", "yes", "ID", "99999"]],
        [maxage, maxage, RespError("ERR maxage is not an integer or out of range"), 0, maxage])
    unblock = RespError("ERR unknown subcommand or wrong number of arguments for 'UnBlock'. "
                        "Try CLIENT HELP.")
    same_as_valkey(server, valkey, [
        ["CLIENT", "UnBlock", "99999", "timeout", "x"], ["CLIENT", "UnBlock", "1", "2", "3"],
        ["CLIENT", "UNBLOCK", "99999", "foo"], ["CLIENT", "UNBLOCK", "abc"]],
        [unblock, unblock, RespError("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"),
         RespError("ERR value is not an integer or out of range")])
    # The rest already matched; kept here so they stay matched.
    same_as_valkey(server, valkey, [
        ["CLIENT"], ["CLIENT", "foo"], ["CLIENT", "KILL"], ["CLIENT", "KILL", "1.2.3.4:5"],
        ["CLIENT", "KILL", "1.2.3.4:5", "x"], ["CLIENT", "KILL", "ID", "0"],
        ["CLIENT", "KILL", "ID", "abc"], ["CLIENT", "KILL", "ID", "1", "TYPE"],
        ["CLIENT", "KILL", "TYPE", "foo"], ["CLIENT", "KILL", "SKIPME", "maybe"],
        ["CLIENT", "KILL", "USER", "nobody"], ["CLIENT", "KILL", "USER"],
        ["CLIENT", "KILL", "FOO", "bar"], ["CLIENT", "KILL", "a", "b", "c"],
        ["CLIENT", "LIST", "x"], ["CLIENT", "LIST", "TYPE", "foo"], ["CLIENT", "LIST", "ID"],
        ["CLIENT", "LIST", "ID", "abc"],
        ["CLIENT", "LIST", "ID", "99999"], ["CLIENT", "INFO", "x"],
        ["CLIENT", "SETNAME", "a b"], ["CLIENT", "REPLY", "foo"],
        ["CLIENT", "PAUSE", "abc"], ["CLIENT", "PAUSE", "10", "ALL", "x"],
        ["CLIENT", "PAUSE", "10", "foo"], ["CLIENT", "TRACKING", "on", "REDIRECT", "99999"],
        ["CLIENT", "TRACKING", "on", "BCAST", "OPTIN"], ["CLIENT", "CACHING", "yes"],
        ["CLIENT", "NO-EVICT", "foo"], ["CLIENT", "NO-TOUCH", "foo"],
        ["CLIENT", "SETINFO", "foo", "bar"], ["CLIENT", "SETINFO", "lib-name", "a b"],
        ["CLIENT", "CAPA", "foo"], ["CLIENT", "HELP", "x"]])


# --- HELLO, INFO server, LOLWUT -----------------------------------------------------------

def hello_without_id(server, *args):
    with server.raw() as c:
        reply = c.call("HELLO", *args)
    if isinstance(reply, list):
        reply = dict(zip(reply[::2], reply[1::2]))
    reply.pop(b"id")
    return reply


def test_hello_names_valkey(server, valkey):
    expected = {b"server": b"valkey", b"version": b"8.0.1", b"proto": 2,
                b"mode": b"standalone", b"role": b"master", b"modules": []}
    assert hello_without_id(server) == expected
    assert hello_without_id(server, "3") == {**expected, b"proto": 3}
    if valkey is not None:
        assert hello_without_id(valkey) == expected
        assert hello_without_id(valkey, "3") == {**expected, b"proto": 3}


def test_extended_redis_compatibility_says_redis(start_server, valkey):
    # Valkey's switch for clients that check the name: HELLO answers as Redis 7.2.4 and INFO
    # has redis_mode; LOLWUT and INFO's redis_version / valkey_version do not change.
    server = start_server("--extended-redis-compatibility", "yes")
    targets = [server] + ([valkey] if valkey is not None else [])
    for target in targets:
        r = target.client()
        r.config_set("extended-redis-compatibility", "yes")
        assert hello_without_id(target, "3")[b"server"] == b"redis"
        assert hello_without_id(target)[b"version"] == b"7.2.4"
        info = r.info("server")
        assert info["redis_mode"] == "standalone" and "server_mode" not in info
        assert info["server_name"] == "valkey" and info["valkey_version"] == "8.0.1"
        r.config_set("extended-redis-compatibility", "no")
        assert hello_without_id(target)[b"server"] == b"valkey"
        assert "server_mode" in r.info("server")


def info_server_fields(server):
    with server.raw() as c:
        text = c.call("INFO", "server").decode()
    return [line.split(":", 1) for line in text.split("\r\n")[1:] if line]


def test_info_server_fields_as_valkey(server, valkey):
    fields = info_server_fields(server)
    values = dict(fields)
    assert values["redis_version"] == "7.2.4"  # clients gate features on it
    assert values["server_name"] == "valkey" and values["valkey_version"] == "8.0.1"
    assert values["server_mode"] == "standalone" and values["availability_zone"] == ""
    assert values["listener0"] == f"name=tcp,bind=127.0.0.1,port={server.port}"
    names = [k for k, _ in fields]
    assert names[:4] == ["redis_version", "server_name", "valkey_version", "vireo_version"]
    if valkey is not None:
        # The same fields in the same order; vireo_version is Vireo's own.
        assert [k for k in names if k != "vireo_version"] == [k for k, _ in
                                                              info_server_fields(valkey)]


def test_info_listeners(start_server, tmp_path):
    sock = str(tmp_path / "v.sock")
    server = start_server("--unixsocket", sock, "--availability-zone", "az1")
    values = dict(info_server_fields(server))
    assert values["listener0"] == f"name=tcp,bind=127.0.0.1,port={server.port}"
    assert values["listener1"] == f"name=unix,bind={sock}"
    assert values["availability_zone"] == "az1"


def test_lolwut_version_line(server, valkey):
    cmds = [["LOLWUT"], ["LOLWUT", "VERSION", "1"], ["LOLWUT", "VERSION", "8"],
            ["LOLWUT", "VERSION", "-1"], ["LOLWUT", "foo"], ["LOLWUT", "VERSION"],
            ["LOLWUT", "VERSION", "5", "1", "1", "1"], ["LOLWUT", "VERSION", "abc"]]
    line = b"Redis ver. 8.0.1\n"
    same_as_valkey(server, valkey, cmds, [line] * 6 + [
        "⠋\n\nGeorg Nees - schotter, plotter on paper, 1968. ".encode() + line,
        RespError("ERR value is not an integer or out of range")])


# --- ACL ------------------------------------------------------------------------------------

# ACL SETUSER rule lists and what GETUSER's "commands" then says (valkey-server 8.0.1).
ACL_RULES = [
    (["+@set", "+@hash", "-@geo"], "-@all +@set +@hash -@geo"),
    (["+@all", "-@dangerous", "+get", "-set", "+client|id"],
     "+@all -@dangerous +get -set +client|id"),
    (["-@all", "+@read", "-@hash", "+@hash"], "-@all +@read +@hash"),
    (["+get", "+get", "+set", "-get"], "-@all +set -get"),
    (["allcommands", "nocommands", "+@string"], "-@all +@string"),
    (["+@set", "-sadd", "+@set"], "-@all -sadd +@set"),
    (["+@all", "-@all"], "-@all"),
    (["+select|0", "+config|get"], "-@all +select|0 +config|get"),
    (["+@set", "-@set"], "-@all -@set"),
    (["+@all", "-@set", "+@set"], "+@all +@set"),
    (["+@SET", "+SET", "+Get", "+CONFIG|GET"], "-@all +@set +set +get +config|get"),
    (["+config", "-config|get"], "-@all +config -config|get"),
    (["+config|get", "+config|set", "-config|get"], "-@all +config|set -config|get"),
    (["+config|get", "-config"], "-@all -config"),
    (["+debug|object", "+debug|digest", "-debug"], "-@all -debug"),
    (["+get|x", "+substr", "+getrange", "-get"], "-@all +substr +getrange -get"),
]


def without_databases(reply):
    """GETUSER without Valkey 9.1's "databases" field (and its value), which 8.0.1 lacks."""
    if not isinstance(reply, list):
        return reply
    out, skip = [], False
    for x in reply:
        if skip:
            skip = False
        elif x == b"databases":
            skip = True
        else:
            out.append(without_databases(x))
    return out


@pytest.mark.parametrize("rules,described", ACL_RULES, ids=lambda v: " ".join(v)
                         if isinstance(v, list) else None)
def test_acl_rules_kept_as_written(server, valkey, rules, described):
    cmds = [["ACL", "SETUSER", "u", *rules], ["ACL", "GETUSER", "u"], ["ACL", "LIST"],
            ["ACL", "DELUSER", "u"]]
    got = same_as_valkey(server, valkey, cmds, vireo_only=without_databases)
    assert got[0] == "OK"
    assert got[1] == [b"flags", [b"off", b"sanitize-payload"], b"passwords", [],
                      b"commands", described.encode(), b"keys", b"", b"channels", b"",
                      b"databases", b"alldbs", b"selectors", []]
    assert got[2] == [b"user default on nopass sanitize-payload ~* &* +@all",
                      b"user u off sanitize-payload resetchannels " + described.encode()]


def test_acl_selectors_and_later_rules(server, valkey):
    cmds = [["ACL", "SETUSER", "u", "on", "nopass", "+@set", "(+get", "~k*)"],
            ["ACL", "SETUSER", "u", "+@hash", "-@set"], ["ACL", "LIST"],
            ["ACL", "SETUSER", "u", "reset"], ["ACL", "GETUSER", "u"]]
    same_as_valkey(server, valkey, cmds, vireo_only=without_databases, expected=[
        "OK", "OK",
        [b"user default on nopass sanitize-payload ~* &* +@all",
         b"user u on nopass sanitize-payload resetchannels -@all +@hash -@set "
         b"(~k* resetchannels -@all +get)"],
        "OK",
        [b"flags", [b"off", b"sanitize-payload"], b"passwords", [], b"commands", b"-@all",
         b"keys", b"", b"channels", b"", b"selectors", []]])


def test_noperm_texts(server, valkey):
    def run(target):
        admin = target.raw()
        admin.call("ACL", "SETUSER", "z1", "on", "nopass", "+@set", "~k*", "&ch", "-@geo",
                   "+multi", "+exec", "+publish")
        with target.raw() as c:
            out = [c.call("AUTH", "z1", "x")]
            for cmd in (["GEOADD", "s", "1", "1", "a"], ["SADD", "s", "a"], ["SADD", "k", "a"],
                        ["PUBLISH", "x", "y"], ["SUBSCRIBE", "x"], ["CLIENT", "ID"],
                        ["MULTI"], ["SADD", "k1", "a"], ["PUBLISH", "ch", "m"]):
                out.append(c.call(*cmd))
            admin.call("ACL", "SETUSER", "z1", "resetchannels")
            out += [c.call("EXEC"), c.call("MULTI"), c.call("SADD", "k2", "a")]
            admin.call("ACL", "SETUSER", "z1", "resetkeys")
            out += [c.call("EXEC"), c.call("MULTI"), c.call("SADD", "k3", "a")]
            admin.call("ACL", "SETUSER", "z1", "-sadd")
            out += [c.call("EXEC"), c.call("MULTI"), c.call("SADD", "k4", "a"), c.call("EXEC")]
        out += [admin.call("ACL", "DRYRUN", "z1", "GET", "k"),
                admin.call("ACL", "DRYRUN", "z1", "SCARD", "x"),
                admin.call("ACL", "DRYRUN", "z1", "PUBLISH", "nochan", "m"),
                admin.call("ACL", "DRYRUN", "z1", "CONFIG", "GET", "x")]
        admin.call("ACL", "DELUSER", "z1")
        return out

    got = run(server)
    if valkey is not None:
        assert got == run(valkey)

    def cmd(name):
        return RespError(f"NOPERM User z1 has no permissions to run the '{name}' command")

    changed = ("NOPERM ACLs rules changed between the moment the transaction was accumulated "
               "and the EXEC call. This command is no longer allowed for the following reason: ")
    assert got == [
        "OK", cmd("geoadd"), RespError("NOPERM No permissions to access a key"), 1,
        RespError("NOPERM No permissions to access a channel"), cmd("subscribe"),
        cmd("client|id"), "OK", "QUEUED", "QUEUED",
        [1, RespError(changed + "no permission to access one of the channels used as "
                      "arguments")],
        "OK", "QUEUED", [RespError(changed + "no permission to touch the specified keys")],
        "OK", RespError("NOPERM No permissions to access a key"),
        RespError("EXECABORT Transaction discarded because of previous errors."), "OK",
        cmd("sadd"), RespError("EXECABORT Transaction discarded because of previous errors."),
        b"User z1 has no permissions to run the 'get' command",
        b"User z1 has no permissions to access the 'x' key",
        b"User z1 has no permissions to access the 'nochan' channel",
        b"User z1 has no permissions to run the 'config|get' command"]


# --- Texts that name Valkey or were rephrased ----------------------------------------------

HELP_COMMANDS = ["ACL", "CLIENT", "COMMAND", "CONFIG", "LATENCY", "MEMORY", "MODULE",
                 "OBJECT", "PUBSUB", "SLOWLOG", "XINFO", "XGROUP"]


def test_help_texts(server, valkey):
    got = same_as_valkey(server, valkey, [[c, "HELP"] for c in HELP_COMMANDS])
    assert all(h[-2:] == ["HELP", "    Print this help."] for h in got)
    assert "    Return details about all commands." in got[HELP_COMMANDS.index("COMMAND")]


def test_doctor_texts(server, valkey):
    same_as_valkey(server, valkey, [["LATENCY", "DOCTOR"], ["MEMORY", "DOCTOR"]], [
        b"I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Valkey "
        b"instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in "
        b"order to enable it.\n",
        b"Hi Sam, this instance is empty or is using very little memory, my issues detector "
        b"can't be used in these conditions. Please, leave for your mission on Earth and fill it "
        b"with some data. The new Sam and I will be back to our programming as soon as I "
        b"finished rebooting.\n"])


def test_acl_file_and_wait_texts(server, valkey):
    same_as_valkey(server, valkey, [["ACL", "SAVE"], ["ACL", "LOAD"]], [RespError(
        "ERR This instance is not configured to use an ACL file. You may want to specify users "
        "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
        "configuration file set) in order to store users in the configuration.")] * 2)


def test_acl_subcommand_arity_errors(server, valkey):
    def syntax(sub, command="ACL"):
        return RespError(f"ERR unknown subcommand or wrong number of arguments for '{sub}'. "
                         f"Try {command} HELP.")

    same_as_valkey(server, valkey, [["ACL", "CAT", "a", "b"], ["acl", "Log", "RESET", "x"],
                                    ["pubsub", "channels", "a", "b"], ["SLOWLOG", "GET", "1", "2"]],
                   [syntax("CAT"), syntax("Log"), syntax("channels", "PUBSUB"),
                    syntax("GET", "SLOWLOG")])
