"""ACL: users and their rules (SETUSER, GETUSER, LIST, ...), AUTH as a user, NOPERM for
commands, keys and channels, ACL LOG, DRYRUN, the ACL file and `user` config lines, and
clients closed when their user goes. Expected texts are valkey-server 8.0.1's (rules kept as
written, `sanitize-payload` on new users, "User u has no permissions ..." NOPERM texts)."""

import subprocess

import pytest
import redis

from conftest import RespError

WRONGPASS = RespError("WRONGPASS invalid username-password pair or user is disabled.")
PW_HASH = "30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4"  # sha256("pw")


def noperm_cmd(name, user="u"):
    return RespError(f"NOPERM User {user} has no permissions to run the '{name}' command")


NOPERM_KEY = RespError("NOPERM No permissions to access a key")
NOPERM_CHANNEL = RespError("NOPERM No permissions to access a channel")


def as_user(server, *rules, name="u"):
    admin = server.raw()
    assert admin.call("ACL", "SETUSER", name, "on", ">pw", *rules) == "OK"
    c = server.raw()
    assert c.call("AUTH", name, "pw") == "OK"
    return admin, c


def test_default_user_and_list_format(server):
    c = server.raw()
    assert c.call("ACL", "LIST") == [b"user default on nopass sanitize-payload ~* &* +@all"]
    assert c.call("ACL", "WHOAMI") == b"default"
    assert c.call("ACL", "SETUSER", "bob", "on", ">pw", "~k*", "%R~r*", "%W~w*", "&ch*",
                  "+@string", "-set", "+client|id") == "OK"
    assert c.call("ACL", "LIST")[0].decode() == (
        f"user bob on sanitize-payload #{PW_HASH} ~k* %R~r* %W~w* resetchannels &ch* "
        "-@all +@string -set +client|id")
    assert c.call("ACL", "USERS") == [b"bob", b"default"]
    user = c.call("ACL", "GETUSER", "bob")
    assert user[:6] == [b"flags", [b"on", b"sanitize-payload"], b"passwords",
                        [PW_HASH.encode()], b"commands", b"-@all +@string -set +client|id"]
    # Valkey 9.1's "databases" field comes after channels (Valkey 8.0 has none).
    assert user[6:] == [b"keys", b"~k* %R~r* %W~w*", b"channels", b"&ch*", b"databases",
                        b"alldbs", b"selectors", []]
    assert c.call("ACL", "GETUSER", "nobody") is None
    # Selectors, and the rules of a subtractive user as written.
    assert c.call("ACL", "SETUSER", "al", "+@all", "-@dangerous", "+flushdb", "(~x*",
                  "+set)") == "OK"
    assert c.call("ACL", "LIST")[0].decode() == (
        "user al off sanitize-payload resetchannels +@all -@dangerous +flushdb "
        "(~x* resetchannels -@all +set)")
    assert c.call("ACL", "GETUSER", "al")[-1] == [
        [b"commands", b"-@all +set", b"keys", b"~x*", b"channels", b"", b"databases", b"alldbs"]]


def test_setuser_errors(server):
    c = server.raw()

    def err(*rules):
        return c.call("ACL", "SETUSER", "y", *rules)

    def modifier(rule, reason):
        return RespError(f"ERR Error in ACL SETUSER modifier '{rule}': {reason}")

    assert err("bogus") == modifier("bogus", "Syntax error")
    assert err("+nosuch") == modifier("+nosuch", "Unknown command or category name in ACL")
    assert err("%X~a") == modifier("%X~a", "Syntax error")
    assert err("+client|id|x") == modifier(
        "+client|id|x", "Allowing first-arg of a subcommand is not supported")
    assert err("#abc") == modifier("#abc", "The password hash must be exactly 64 characters and "
                                   "contain only lowercase hexadecimal characters")
    assert err("<nope") == modifier(
        "<nope", "The password you are trying to remove from the user does not exist")
    assert err("allkeys", "~b") == modifier(
        "~b", "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and "
        "does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
    assert err("(foo", "bar") == RespError(
        "ERR Unmatched parenthesis in acl selector starting at '(foo'.")
    assert c.call("ACL", "SETUSER", "a b", "on") == RespError(
        "ERR Usernames can't contain spaces or null characters")
    # A failed SETUSER changes nothing, not even creates the user.
    assert c.call("ACL", "GETUSER", "y") is None
    assert c.call("ACL", "DELUSER", "default") == RespError(
        "ERR The 'default' user cannot be removed")
    assert c.call("ACL", "CAT", "nosuch") == RespError("ERR Unknown category 'nosuch'")
    assert len(c.call("ACL", "GENPASS")) == 64
    assert len(c.call("ACL", "GENPASS", "5")) == 2
    assert c.call("ACL", "GENPASS", "0") == RespError(
        "ERR ACL GENPASS argument must be the number of bits for the output password, a "
        "positive number up to 4096")
    # Past its one optional argument: the subcommand as spelled, as Valkey's handler says.
    assert c.call("ACL", "genPass", "1", "1") == RespError(
        "ERR unknown subcommand or wrong number of arguments for 'genPass'. Try ACL HELP.")
    assert c.call("ACL", "LOG", "x") == RespError("ERR value is not an integer or out of range")
    assert c.call("ACL", "SAVE").message.startswith(
        "ERR This instance is not configured to use an ACL file.")
    assert b"keyspace" in c.call("ACL", "CAT")
    assert b"get" in c.call("ACL", "CAT", "string")
    assert b"client|kill" in c.call("ACL", "CAT", "admin")


def test_auth_as_user(server):
    admin, c = as_user(server, "+@all", "~*")
    assert c.call("ACL", "WHOAMI") == b"u"
    assert b" user=u " in c.call("CLIENT", "INFO")
    d = server.raw()
    assert d.call("AUTH", "u", "bad") == WRONGPASS
    assert d.call("AUTH", "nobody", "pw") == WRONGPASS
    assert d.call("HELLO", "2", "AUTH", "u", "pw")[0] == b"server"
    assert d.call("ACL", "WHOAMI") == b"u"
    assert d.call("RESET") == "RESET"
    assert d.call("ACL", "WHOAMI") == b"default"
    # A disabled user cannot log in; clients already in keep going (as in Valkey).
    assert admin.call("ACL", "SETUSER", "u", "off") == "OK"
    assert d.call("AUTH", "u", "pw") == WRONGPASS
    assert c.call("PING") == "PONG"
    stats = admin.call("INFO", "stats").decode()
    assert "acl_access_denied_auth:3" in stats
    # Failures alike (reason, context, object, user) share an entry, newest first.
    log = admin.call("ACL", "LOG")
    assert [(e[1], e[3], e[5], e[7], e[9]) for e in log] == [
        (2, b"auth", b"toplevel", b"auth", b"u"), (1, b"auth", b"toplevel", b"auth", b"nobody")]


def test_redis_py_user(server):
    server.client().acl_setuser("app", enabled=True, passwords=["+pw"], keys=["app:*"],
                                commands=["+get", "+set"])
    c = server.client(username="app", password="pw")
    assert c.set("app:1", "v") and c.get("app:1") == "v"
    with pytest.raises(redis.exceptions.NoPermissionError):
        c.get("other")
    with pytest.raises(redis.exceptions.NoPermissionError):
        c.incr("app:n")


def test_noperm_and_log(server):
    admin, c = as_user(server, "~k*", "%R~r*", "%W~w*", "&ch", "+get", "+set", "+publish",
                       "+psubscribe", "+lmove", "+client|id", "+select|0")
    assert c.call("GET", "x1") == NOPERM_KEY
    assert c.call("GET", "r1") is None
    assert c.call("SET", "r1", "v") == NOPERM_KEY
    assert c.call("SET", "w1", "v") == "OK"  # SET without GET only writes
    assert c.call("SET", "w1", "v", "GET") == NOPERM_KEY
    assert c.call("DEL", "k1") == noperm_cmd("del")
    assert c.call("CLIENT", "LIST") == noperm_cmd("client|list")
    assert isinstance(c.call("CLIENT", "ID"), int)
    assert c.call("SELECT", "0") == "OK"
    assert c.call("SELECT", "1") == noperm_cmd("select")
    assert c.call("LMOVE", "k1", "w2", "LEFT", "RIGHT") is None
    assert c.call("LMOVE", "w2", "k1", "LEFT", "RIGHT") == NOPERM_KEY
    assert c.call("PUBLISH", "ch", "m") == 0
    assert c.call("PUBLISH", "other", "m") == NOPERM_CHANNEL
    assert c.call("PSUBSCRIBE", "c*") == NOPERM_CHANNEL
    assert c.call("GET", "x1") == NOPERM_KEY
    log = admin.call("ACL", "LOG")
    entry = dict(zip(log[0][::2], log[0][1::2]))
    assert entry[b"count"] == 2 and entry[b"reason"] == b"key"
    assert entry[b"context"] == b"toplevel" and entry[b"object"] == b"x1"
    assert entry[b"username"] == b"u" and b"cmd=get user=u" in entry[b"client-info"]
    assert {b"age-seconds", b"entry-id", b"timestamp-created",
            b"timestamp-last-updated"} <= set(entry)
    reasons = [(dict(zip(e[::2], e[1::2]))[b"reason"], dict(zip(e[::2], e[1::2]))[b"object"])
               for e in log]
    assert (b"channel", b"c*") in reasons and (b"command", b"client|list") in reasons
    assert len(admin.call("ACL", "LOG", "2")) == 2
    stats = admin.call("INFO", "stats").decode()
    assert "acl_access_denied_cmd:3" in stats and "acl_access_denied_channel:2" in stats
    assert "acl_access_denied_key:5" in stats
    assert admin.call("ACL", "LOG", "RESET") == "OK"
    assert admin.call("ACL", "LOG") == []
    assert admin.call("CONFIG", "SET", "acllog-max-len", "1") == "OK"
    for key in ("a", "b", "c"):
        c.call("GET", key)
    assert len(admin.call("ACL", "LOG")) == 1


def test_dryrun(server):
    admin, _ = as_user(server, "~k*", "&ch", "+get", "+publish")
    assert admin.call("ACL", "DRYRUN", "u", "GET", "k1") == "OK"
    assert admin.call("ACL", "DRYRUN", "u", "GET", "x") == \
        b"User u has no permissions to access the 'x' key"
    assert admin.call("ACL", "DRYRUN", "u", "DEL", "k") == \
        b"User u has no permissions to run the 'del' command"
    assert admin.call("ACL", "DRYRUN", "u", "PUBLISH", "o", "m") == \
        b"User u has no permissions to access the 'o' channel"
    assert admin.call("ACL", "DRYRUN", "u", "CONFIG", "SET", "a", "b") == \
        b"User u has no permissions to run the 'config|set' command"
    assert admin.call("ACL", "DRYRUN", "nobody", "GET", "x") == RespError(
        "ERR User 'nobody' not found")
    assert admin.call("ACL", "DRYRUN", "u", "nosuch") == RespError(
        "ERR Command 'nosuch' not found")
    assert admin.call("ACL", "DRYRUN", "u", "GET") == RespError(
        "ERR wrong number of arguments for 'get' command")


def test_multi_and_scripts(server):
    admin, c = as_user(server, "~k*", "+@all", "-del")
    assert c.call("MULTI") == "OK"
    assert c.call("DEL", "k") == noperm_cmd("del")
    assert c.call("EXEC") == RespError(
        "EXECABORT Transaction discarded because of previous errors.")
    # Rules changed between queueing and EXEC: the command is refused inside EXEC.
    assert c.call("MULTI") == "OK"
    assert c.call("GET", "k1") == "QUEUED"
    assert c.call("SET", "k1", "v") == "QUEUED"
    assert admin.call("ACL", "SETUSER", "u", "-get") == "OK"
    assert c.call("EXEC") == [RespError(
        "NOPERM ACLs rules changed between the moment the transaction was accumulated and the "
        "EXEC call. This command is no longer allowed for the following reason: no permission "
        "to execute the command or subcommand"), "OK"]
    # Valkey 8's words: the NOPERM text after "ACL failure in script: ".
    err = c.call("EVAL", "return redis.call('get', 'x')", "0")
    assert err.message.startswith("ERR ACL failure in script: User u has no permissions to run "
                                  "the 'get' command script: ")
    err = c.call("EVAL", "return redis.call('set', 'x', 1)", "0")
    assert err.message.startswith("ERR ACL failure in script: No permissions to access a key "
                                  "script: ")
    contexts = {dict(zip(e[::2], e[1::2]))[b"context"] for e in admin.call("ACL", "LOG")}
    assert contexts == {b"toplevel", b"multi", b"lua"}


def test_requirepass_is_the_default_users_password(server):
    c = server.raw()
    assert c.call("CONFIG", "SET", "requirepass", "pw") == "OK"
    assert c.call("ACL", "LIST") == [
        f"user default on sanitize-payload #{PW_HASH} ~* &* +@all".encode()]
    d = server.raw()
    assert d.call("PING") == RespError("NOAUTH Authentication required.")
    assert d.call("AUTH", "pw") == "OK"
    # ACL rules on the default user count as its password too.
    assert c.call("ACL", "SETUSER", "default", "nopass") == "OK"
    assert server.raw().call("PING") == "PONG"
    assert c.call("AUTH", "x") == RespError(
        "ERR AUTH <password> called without any password configured for the default user. "
        "Are you sure your configuration is correct?")


def test_deleted_user_clients_are_closed(server):
    admin, c = as_user(server, "+@all", "~*", "&*")
    assert admin.call("ACL", "SETUSER", "v", "on", "nopass", "+@all") == "OK"
    other = server.raw()
    assert other.call("AUTH", "v", "x") == "OK"
    assert admin.call("ACL", "DELUSER", "u", "nobody") == 1
    assert c.is_closed()
    assert other.call("PING") == "PONG"
    # Narrower channel rules close the user's subscribers that lost a channel.
    sub = server.raw()
    assert sub.call("AUTH", "v", "x") == "OK"
    assert admin.call("ACL", "SETUSER", "v", "allchannels") == "OK"
    assert sub.call("SUBSCRIBE", "news") == [b"subscribe", b"news", 1]
    assert admin.call("ACL", "SETUSER", "v", "resetchannels", "&other") == "OK"
    assert sub.is_closed()


def test_pubsub_default_allchannels(start_server):
    s = start_server("--acl-pubsub-default", "allchannels")
    c = s.raw()
    assert c.call("ACL", "SETUSER", "p", "on") == "OK"
    assert c.call("ACL", "LIST")[1] == b"user p on sanitize-payload &* -@all"


def test_aclfile_load_and_save(start_server, tmp_path):
    path = tmp_path / "users.acl"
    path.write_text("user alice on >pw ~* +@all\nuser default on nopass ~* &* +@all\n")
    s = start_server("--aclfile", str(path))
    c = s.raw()
    assert c.call("ACL", "LIST")[0] == \
        f"user alice on sanitize-payload #{PW_HASH} ~* resetchannels +@all".encode()
    alice = s.raw()
    assert alice.call("AUTH", "alice", "pw") == "OK"
    assert c.call("ACL", "SETUSER", "zed", "on", ">pw", "(~a", "+get)") == "OK"
    assert c.call("ACL", "SAVE") == "OK"
    assert path.read_text() == (
        f"user alice on sanitize-payload #{PW_HASH} ~* resetchannels +@all\n"
        "user default on nopass sanitize-payload ~* &* +@all\n"
        f"user zed on sanitize-payload #{PW_HASH} resetchannels -@all "
        "(~a resetchannels -@all +get)\n")
    path.write_text("user bob on +nosuch\nfoo bar\n")
    assert c.call("ACL", "LOAD") == RespError(
        f"ERR {path}:1: Error in applying operation '+nosuch': Unknown command or category name "
        f"in ACL. {path}:2 should start with user keyword followed by the username. WARNING: "
        "ACL errors detected, no change to the previously active ACL rules was performed")
    assert alice.call("PING") == "PONG"
    path.write_text("user carol on nopass +@all\n")
    assert c.call("ACL", "LOAD") == "OK"
    assert c.call("ACL", "USERS") == [b"carol", b"default"]
    assert alice.is_closed()  # its user was replaced
    assert c.call("PING") == "PONG"  # the default user's clients stay


def test_user_directives_in_config(start_server, tmp_path):
    s = start_server(config="user app on >pw ~app:* +@read\nuser default off\n")
    c = s.raw()
    assert c.call("PING") == RespError("NOAUTH Authentication required.")
    assert c.call("AUTH", "app", "pw") == "OK"
    assert c.call("GET", "app:1") is None
    assert c.call("SET", "app:1", "v") == noperm_cmd("set", "app")


def test_users_and_aclfile_conflict(server_binary, tmp_path):
    conf = tmp_path / "v.conf"
    acl = tmp_path / "users.acl"
    acl.write_text("")
    conf.write_text(f"user app on\naclfile {acl}\nport 0\n")
    out = subprocess.run([str(server_binary), str(conf)], capture_output=True, text=True,
                         timeout=10)
    assert out.returncode != 0
    assert "please define either an ACL file or declare users directly" in \
        out.stdout + out.stderr


def test_sort_by_get_need_every_key(server):
    admin, c = as_user(server, "~k*", "+@all")
    assert c.call("SORT", "k", "BY", "w_*") == RespError(
        "ERR BY option of SORT denied due to insufficient ACL permissions.")
    assert c.call("SORT", "k", "GET", "#") == RespError(
        "ERR GET option of SORT denied due to insufficient ACL permissions.")
    assert c.call("SORT", "k", "BY", "nosort") == []
    assert admin.call("ACL", "SETUSER", "u", "%R~*") == "OK"
    assert c.call("SORT", "k", "BY", "w_*", "GET", "#") == []
