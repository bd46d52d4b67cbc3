"""ACL database rules (Valkey 9.1): `db=<id>[,<id>...]`, `alldbs`, `resetdbs`, in the root and
in selectors; SELECT, SWAPDB, MOVE, COPY ... DB and FLUSHALL checked, every command reading
or writing keys checked against the database it runs in (MULTI's queued SELECTs and scripts'
own SELECTs included); ACL LIST / GETUSER / DRYRUN / LOG / SAVE / LOAD and INFO's
acl_access_denied_db. valkey-server 8.0.1 has no such rules, so the expected texts are those of
Valkey 9.1's documentation and tests (tests/unit/acl-v2.tcl)."""

import pytest

from conftest import RespError, wait_for
from test_acl import as_user

NOPERM_DB = RespError("NOPERM No permissions to access database")


def log_entries(admin):
    return [dict(zip(e[::2], e[1::2])) for e in admin.call("ACL", "LOG")]


def test_rules_list_and_getuser(server):
    c = server.raw()
    assert c.call("ACL", "SETUSER", "a", "on", "nopass", "~*", "+@all", "db=3,0,1,1") == "OK"
    assert c.call("ACL", "SETUSER", "b", "resetdbs", "(~k* +get db=2)", "(+set)") == "OK"
    assert c.call("ACL", "LIST") == [
        b"user a on nopass sanitize-payload ~* resetchannels db=0,1,3 +@all",
        b"user b off sanitize-payload resetchannels resetdbs -@all "
        b"(~k* resetchannels db=2 -@all +get) (resetchannels -@all +set)",
        b"user default on nopass sanitize-payload ~* &* +@all"]
    a = c.call("ACL", "GETUSER", "a")
    assert a[a.index(b"channels"):a.index(b"selectors")] == [b"channels", b"", b"databases",
                                                              b"db=0,1,3"]
    b = c.call("ACL", "GETUSER", "b")
    assert b[b.index(b"databases") + 1] == b"resetdbs"
    assert b[-1] == [[b"commands", b"-@all +get", b"keys", b"~k*", b"channels", b"",
                      b"databases", b"db=2"],
                     [b"commands", b"-@all +set", b"keys", b"", b"channels", b"",
                      b"databases", b"alldbs"]]
    # A later db= replaces the list; alldbs (the default) is not listed; reset restores it.
    assert c.call("ACL", "SETUSER", "a", "db=5") == "OK"
    assert c.call("ACL", "LIST")[0] == b"user a on nopass sanitize-payload ~* resetchannels db=5 +@all"
    assert c.call("ACL", "SETUSER", "a", "alldbs") == "OK"
    assert c.call("ACL", "LIST")[0] == b"user a on nopass sanitize-payload ~* resetchannels +@all"
    assert c.call("ACL", "SETUSER", "a", "db=1", "reset") == "OK"
    getuser = c.call("ACL", "GETUSER", "a")
    assert getuser[getuser.index(b"databases") + 1] == b"alldbs"
    # RESP3: a map with the field between channels and selectors.
    c.call("HELLO", "3")
    assert list(c.call("ACL", "GETUSER", "b").keys()) == [
        b"flags", b"passwords", b"commands", b"keys", b"channels", b"databases", b"selectors"]


@pytest.mark.parametrize("rule,error", [
    ("db=-1", "The provided database ID is out of range"),
    ("db=2147483648", "The provided database ID is out of range"),
    ("db=12345678987654321", "The provided database ID is out of range"),
    ("db=abc", "Syntax error"),
    ("db=non-numeric1,non-numeric2", "Syntax error"),
    ("db=", "Syntax error"),
    ("db=,0,1", "Syntax error"),
    ("db=0,1,", "Syntax error"),
    ("db=0,,1", "Syntax error"),
])
def test_bad_rules_change_nothing(server, rule, error):
    c = server.raw()
    assert c.call("ACL", "SETUSER", "e", "on", rule) == RespError(
        f"ERR Error in ACL SETUSER modifier '{rule}': {error}")
    assert c.call("ACL", "GETUSER", "e") is None
    assert c.call("ACL", "SETUSER", "e", "db=1") == "OK"
    assert c.call("ACL", "SETUSER", "e", "db=2", "(db=x)") == RespError(
        "ERR Error in ACL SETUSER modifier '(db=x)': Syntax error")
    assert c.call("ACL", "LIST")[1] == b"user e off sanitize-payload resetchannels db=1 -@all"


def test_select_and_commands_in_the_current_database(server):
    admin, c = as_user(server, "~*", "+@all", "db=1,15")
    # Logged in while in database 0, which the user may not use: keyless commands still run.
    assert c.call("PING") == "PONG"
    assert c.call("ACL", "WHOAMI") == b"u"
    assert b"redis_version" in c.call("INFO", "server")
    for cmd in (["GET", "k"], ["SET", "k", "v"], ["DEL", "k"], ["EXISTS", "k"], ["WATCH", "k"],
                ["FLUSHDB"], ["DBSIZE"], ["KEYS", "*"], ["SCAN", "0"], ["RANDOMKEY"],
                ["EVAL", "return 1", "0"]):
        assert c.call(*cmd) == NOPERM_DB, cmd
    assert c.call("SELECT", "0") == NOPERM_DB
    assert c.call("SELECT", "2") == NOPERM_DB
    assert c.call("SELECT", "1") == "OK"
    assert c.call("SET", "k", "v") == "OK"
    assert c.call("SELECT", "15") == "OK"
    assert c.call("SELECT", "16") == RespError("ERR DB index is out of range")
    assert c.call("SELECT", "x") == RespError("ERR value is not an integer or out of range")
    assert c.call("SELECT", "1") == "OK"
    assert c.call("GET", "k") == b"v"
    # The user's rules change under a connected client: its next command is checked.
    assert admin.call("ACL", "SETUSER", "u", "db=15") == "OK"
    assert c.call("GET", "k") == NOPERM_DB
    assert c.call("SELECT", "15") == "OK"
    assert admin.call("ACL", "SETUSER", "u", "resetdbs") == "OK"
    assert c.call("GET", "k") == NOPERM_DB
    assert c.call("SELECT", "15") == NOPERM_DB
    assert admin.call("ACL", "SETUSER", "u", "alldbs") == "OK"
    assert c.call("SELECT", "0") == "OK"
    assert admin.call("SELECT", "1") == "OK"
    assert admin.call("GET", "k") == b"v"


def test_auth_hello_and_reset_keep_the_database(server):
    admin = server.raw()
    assert admin.call("ACL", "SETUSER", "u", "on", ">pw", "~*", "+@all", "db=0") == "OK"
    c = server.raw()
    assert c.call("SELECT", "3") == "OK"
    assert c.call("SET", "k3", "v") == "OK"
    # Authentication does not depend on the selected database (Valkey 9.1).
    assert c.call("AUTH", "u", "pw") == "OK"
    assert c.call("GET", "k3") == NOPERM_DB
    assert c.call("HELLO", "2", "AUTH", "u", "pw")[0] == b"server"
    assert c.call("GET", "k3") == NOPERM_DB
    assert c.call("SELECT", "0") == "OK"
    assert c.call("GET", "k3") is None
    assert c.call("SELECT", "3") == NOPERM_DB
    assert c.call("AUTH", "default", "x") == "OK"  # nopass: any password
    assert c.call("SELECT", "3") == "OK"
    assert c.call("AUTH", "u", "pw") == "OK"
    assert c.call("RESET") == "RESET"  # default user, database 0
    assert c.call("SELECT", "3") == "OK"


def test_swapdb_move_copy_flushall(server):
    admin, c = as_user(server, "~*", "+@all", "db=0,1")
    assert c.call("SWAPDB", "0", "1") == "OK"
    assert c.call("SWAPDB", "0", "2") == NOPERM_DB
    assert c.call("SWAPDB", "2", "1") == NOPERM_DB
    assert c.call("SWAPDB", "0", "99") == RespError("ERR DB index is out of range")
    assert c.call("SET", "m", "v") == "OK"
    assert c.call("MOVE", "m", "2") == NOPERM_DB
    assert c.call("MOVE", "m", "1") == 1
    assert c.call("SET", "c", "v") == "OK"
    assert c.call("COPY", "c", "c2", "DB", "1") == 1
    assert c.call("COPY", "c", "c3", "REPLACE", "db", "2") == NOPERM_DB
    assert c.call("COPY", "c", "c4") == 1
    assert admin.call("SELECT", "2") == "OK"
    assert admin.call("DBSIZE") == 0
    assert c.call("FLUSHALL") == NOPERM_DB
    assert c.call("FLUSHDB") == "OK"
    assert admin.call("SELECT", "1") == "OK"
    assert sorted(admin.call("KEYS", "*")) == [b"c2", b"m"]
    # MOVE checks its source too: from a database the user may not use.
    assert admin.call("ACL", "SETUSER", "u", "db=1") == "OK"
    assert c.call("MOVE", "c", "1") == NOPERM_DB
    assert admin.call("ACL", "SETUSER", "u", "alldbs") == "OK"
    assert c.call("FLUSHALL") == "OK"


def test_selectors_by_database(server):
    # Valkey's example: writes in 0 and 1, reads in 2 and 3; the root allows nothing.
    admin, c = as_user(server, "(db=0,1 +@all -@read ~*)", "(db=2,3 +@all -@write ~*)")
    noperm = RespError("NOPERM User u has no permissions to run the 'get' command")
    assert c.call("SET", "k", "v") == "OK"
    assert c.call("GET", "k") == noperm
    assert c.call("SELECT", "2") == "OK"
    assert c.call("GET", "k") is None
    assert c.call("SET", "k", "v") == RespError(
        "NOPERM User u has no permissions to run the 'set' command")
    # No selector has database 4; the root's command refusal is the more telling one.
    assert c.call("SELECT", "4") == RespError(
        "NOPERM User u has no permissions to run the 'select' command")
    # clearselectors leaves the root's own database rule.
    assert admin.call("ACL", "SETUSER", "u", "+select", "db=0", "clearselectors") == "OK"
    assert c.call("SELECT", "0") == "OK"
    assert c.call("SELECT", "2") == NOPERM_DB


def test_multi_checks_against_the_queued_select(server):
    admin, c = as_user(server, "(db=0,1 +@all -@read ~*)", "(db=2,3 +@all -@write ~*)")
    assert c.call("MULTI") == "OK"
    assert c.call("SET", "k1", "v1") == "QUEUED"
    assert c.call("SELECT", "2") == "QUEUED"
    assert c.call("GET", "k1") == "QUEUED"  # checked against database 2, where reads are allowed
    assert c.call("SELECT", "0") == "QUEUED"
    assert c.call("SET", "k3", "v3") == "QUEUED"
    assert c.call("EXEC") == ["OK", "OK", None, "OK", "OK"]
    # A refused SELECT fails the transaction.
    admin2, d = as_user(server, "~*", "+@all", "db=0,1", name="w")
    assert d.call("MULTI") == "OK"
    assert d.call("SET", "x", "1") == "QUEUED"
    assert d.call("SELECT", "2") == NOPERM_DB
    assert d.call("EXEC") == RespError(
        "EXECABORT Transaction discarded because of previous errors.")
    assert d.call("GET", "x") is None
    # Rules changed between queueing and EXEC: each command is checked where it runs.
    assert d.call("MULTI") == "OK"
    assert d.call("SET", "y", "1") == "QUEUED"
    assert d.call("SELECT", "1") == "QUEUED"
    assert d.call("SET", "y", "2") == "QUEUED"
    assert admin2.call("ACL", "SETUSER", "w", "db=0") == "OK"
    out = d.call("EXEC")
    assert out[0] == "OK"
    assert isinstance(out[1], RespError) and out[1].message.startswith(
        "NOPERM ACLs rules changed between the moment the transaction was accumulated and the "
        "EXEC call.")
    assert out[2] == "OK"  # the refused SELECT left the client in database 0
    assert d.call("GET", "y") == b"2"
    contexts = {(e[b"reason"], e[b"context"]) for e in log_entries(admin)}
    assert (b"database", b"multi") in contexts and (b"database", b"toplevel") in contexts


def test_scripts_select_is_checked(server):
    admin, c = as_user(server, "~*", "+@all", "db=0,1,2")
    assert c.call("EVAL", "server.call('SELECT','1'); return server.call('SET','s','v')",
                  "0") == "OK"
    assert c.call("SELECT", "1") == "OK"
    assert c.call("GET", "s") == b"v"
    err = c.call("EVAL", "server.call('SELECT','2'); server.call('SET','a','1'); "
                 "server.call('SELECT','3'); return 1", "0")
    assert isinstance(err, RespError)
    assert "ACL failure in script: No permissions to access database" in err.message
    assert c.call("SELECT", "2") == "OK"
    assert c.call("GET", "a") == b"1"  # what ran before the refusal stays done
    # server.acl_check_cmd sees the script's own database.
    assert c.call("EVAL", "server.call('SELECT','1'); "
                 "return {server.acl_check_cmd('GET','k') and 1 or 0, "
                 "server.acl_check_cmd('SELECT','3') and 1 or 0}", "0") == [1, 0]
    assert c.call("FUNCTION", "LOAD", "#!lua name=dblib\nserver.register_function('f', "
                  "function() server.call('SELECT', '5') return 'x' end)") == b"dblib"
    err = c.call("FCALL", "f", "0")
    assert isinstance(err, RespError)
    assert "No permissions to access database" in err.message
    assert (b"database", b"lua") in {(e[b"reason"], e[b"context"]) for e in log_entries(admin)}


def test_log_dryrun_and_info(server):
    admin, c = as_user(server, "~*", "+@all", "db=0,1")
    admin.call("CONFIG", "RESETSTAT")
    assert admin.call("ACL", "LOG", "RESET") == "OK"
    for db in ("2", "3", "4"):
        assert c.call("SELECT", db) == NOPERM_DB
    assert c.call("FLUSHALL") == NOPERM_DB
    stats = admin.call("INFO", "stats").decode()
    assert "acl_access_denied_db:4" in stats
    assert "acl_access_denied_cmd:0" in stats and "acl_access_denied_key:0" in stats
    log = log_entries(admin)
    assert [(e[b"reason"], e[b"context"], e[b"object"], e[b"username"]) for e in log] == [
        (b"database", b"toplevel", b"FLUSHALL", b"u"), (b"database", b"toplevel", b"4", b"u"),
        (b"database", b"toplevel", b"3", b"u"), (b"database", b"toplevel", b"2", b"u")]
    dry = lambda *a: admin.call("ACL", "DRYRUN", "u", *a)  # noqa: E731
    assert dry("SELECT", "1") == "OK"
    assert dry("SELECT", "2") == b"User u has no permissions to access database 2"
    assert dry("MOVE", "k", "2") == b"User u has no permissions to access database 2"
    assert dry("SWAPDB", "0", "2") == b"User u has no permissions to access database 2"
    assert dry("COPY", "a", "b", "DB", "1") == "OK"
    assert dry("COPY", "a", "b", "DB", "2") == b"User u has no permissions to access database 2"
    assert dry("FLUSHALL") == b"User u has no permissions to access database FLUSHALL"
    # Keyspace commands are checked against the caller's database.
    assert admin.call("SELECT", "5") == "OK"
    assert dry("GET", "k") == b"User u has no permissions to access database GET"
    assert dry("PING") == "OK"


def test_aclfile_and_user_lines(start_server, tmp_path):
    path = tmp_path / "users.acl"
    path.write_text("user a on nopass ~* +@all db=1,2 (+get ~x db=3)\n"
                    "user default on nopass ~* &* +@all\n")
    s = start_server("--aclfile", str(path))
    c = s.raw()
    line = b"user a on nopass sanitize-payload ~* resetchannels db=1,2 +@all " \
           b"(~x resetchannels db=3 -@all +get)"
    assert c.call("ACL", "LIST")[0] == line
    assert c.call("ACL", "SETUSER", "b", "resetdbs") == "OK"
    assert c.call("ACL", "SAVE") == "OK"
    assert "user b off sanitize-payload resetchannels resetdbs -@all\n" in path.read_text()
    assert c.call("ACL", "LOAD") == "OK"
    assert c.call("ACL", "LIST")[0] == line
    path.write_text("user a on db=1,x\n")
    assert c.call("ACL", "LOAD").message.startswith(f"ERR {path}:1: Syntax error.")
    assert c.call("ACL", "LIST")[0] == line  # nothing changed
    u = start_server(config="user app on >pw ~* +@all db=2\n")
    a = u.raw()
    assert a.call("AUTH", "app", "pw") == "OK"
    assert a.call("SELECT", "2") == "OK"
    assert a.call("SELECT", "0") == NOPERM_DB


# Internal clients (AOF loading, the primary's link) run whatever the default user may not.
RESTRICTED_DEFAULT = ("user default on nopass ~* &* +@all db=0\n"
                      "user admin on >pw ~* &* +@all\n")


def test_aof_replay_is_not_checked(start_server):
    s = start_server(config="appendonly yes\n" + RESTRICTED_DEFAULT)
    admin = s.raw()
    assert admin.call("SELECT", "1") == NOPERM_DB
    assert admin.call("AUTH", "admin", "pw") == "OK"
    assert admin.call("SELECT", "1") == "OK"
    assert admin.call("SET", "k", "v") == "OK"
    s.restart()
    admin = s.raw()
    assert admin.call("AUTH", "admin", "pw") == "OK"
    assert admin.call("SELECT", "1") == "OK"
    assert admin.call("GET", "k") == b"v"


def test_replica_applies_every_database(start_server):
    primary = start_server()
    replica = start_server("--replicaof", f"127.0.0.1 {primary.port}", config=RESTRICTED_DEFAULT)
    p = primary.raw()
    assert p.call("SELECT", "3") == "OK"
    assert p.call("SET", "k", "v") == "OK"
    r = replica.raw()
    assert r.call("AUTH", "admin", "pw") == "OK"
    assert r.call("SELECT", "3") == "OK"
    wait_for(lambda: r.call("GET", "k") == b"v")
