"""MODULE: nothing can load (Vireo has no module API), so LIST is empty, and LOAD, LOADEX and
UNLOAD, once enable-module-command allows them, answer Valkey's errors with the reason in the
log. Each test runs against redis-server 7.0 too, whose replies are the reference."""

import os

import pytest

from conftest import RawConnection, RespError

REDIS_SERVER = "/usr/bin/redis-server"
need_redis = pytest.mark.skipif(not os.path.exists(REDIS_SERVER), reason="no redis-server")
IMPLS = ["vireo", pytest.param("redis", marks=need_redis)]
LOAD_FAILED = RespError("ERR Error loading the extension. Please check the server logs.")


def server_of(start_server, impl, *args):
    return start_server(*args, binary=REDIS_SERVER if impl == "redis" else None)


@pytest.mark.parametrize("impl", IMPLS)
def test_changes_refused_unless_enabled(start_server, impl):
    server = server_of(start_server, impl)
    with RawConnection(server.host, server.port) as c:
        assert c.call("MODULE", "LIST") == []  # allowed whatever the option says
        for args in (("LOAD", "/x.so"), ("LOADEX", "/x.so"), ("UNLOAD", "m")):
            assert c.call("MODULE", *args) == RespError(
                "ERR MODULE command not allowed. If the enable-module-command option is set to "
                "\"local\", you can run it from a local connection, otherwise you need to set "
                "this option in the configuration file, and then restart the server.")
        help_lines = c.call("MODULE", "HELP")
        assert help_lines[0] == "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
        assert "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]" in help_lines
        # Valkey 8 says "Print", Redis 7.0 "Prints".
        assert help_lines[-2:] == ["HELP", "    Print this help." if impl == "vireo"
                                   else "    Prints this help."]
        assert len(help_lines) == 11
        assert c.call("MODULE", "NOSUCH") == RespError(
            "ERR unknown subcommand 'NOSUCH'. Try MODULE HELP.")
        assert c.call("CONFIG", "SET", "enable-module-command", "yes") == RespError(
            "ERR CONFIG SET failed (possibly related to argument 'enable-module-command') - "
            "can't set immutable config")


@pytest.mark.parametrize("impl", IMPLS)
def test_protected_refusal_comes_before_auth_and_acl(start_server, impl):
    # Valkey checks protected commands right after arity: before NOAUTH and before ACL.
    server = server_of(start_server, impl, "--requirepass", "pw")
    refused = ("ERR {} command not allowed. If the enable-{}-command option is set to \"local\", "
               "you can run it from a local connection, otherwise you need to set this option "
               "in the configuration file, and then restart the server.")
    with RawConnection(server.host, server.port) as c:
        assert c.call("MODULE", "LOAD", "/x.so") == RespError(refused.format("MODULE", "module"))
        assert c.call("DEBUG", "SLEEP", "0") == RespError(refused.format("DEBUG", "debug"))
        assert c.call("MODULE", "LIST") == RespError("NOAUTH Authentication required.")
        assert c.call("AUTH", "pw") == "OK"
        assert c.call("ACL", "SETUSER", "u", "on", "nopass", "+auth") == "OK"
        assert c.call("AUTH", "u", "x") == "OK"
        assert c.call("MODULE", "UNLOAD", "m") == RespError(refused.format("MODULE", "module"))
        who = "User u" if impl == "vireo" else "this user"  # Valkey 8 names the user
        assert c.call("MODULE", "LIST") == RespError(
            f"NOPERM {who} has no permissions to run the 'module|list' command")


@pytest.mark.parametrize("impl", IMPLS)
def test_enabled_lists_nothing_and_loads_nothing(start_server, impl):
    server = server_of(start_server, impl, "--enable-module-command", "yes")
    missing = str(server.workdir / "nosuch.so")
    with RawConnection(server.host, server.port) as c:
        assert c.call("MODULE", "LIST") == []
        assert c.call("MODULE", "LOAD", missing, "arg") == LOAD_FAILED
        assert c.call("MODULE", "LOADEX", missing, "CONFIG", "a", "b", "ARGS", "c") == \
            LOAD_FAILED
        assert c.call("MODULE", "LOADEX", missing, "CONFIG", "a") == LOAD_FAILED
        assert c.call("MODULE", "LOADEX", missing, "bogus") == LOAD_FAILED
        assert c.call("MODULE", "UNLOAD", "m") == RespError(
            "ERR Error unloading module: no such module with that name")
        for args in (("LIST", "x"), ("LOAD",), ("UNLOAD",), ("UNLOAD", "a", "b"), ("HELP", "x")):
            sub = args[0].lower()
            assert c.call("MODULE", *args) == RespError(
                f"ERR wrong number of arguments for 'module|{sub}' command")
        assert c.call("MODULE", "LIST") == []
    log = server.log()
    assert f"Module {missing} failed to load" in log
    assert "CONFIG specified without name value pair" in log
    assert "Syntax Error from arguments to loadex around bogus." in log
