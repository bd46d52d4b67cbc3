"""--requirepass: what an unauthenticated client may do, AUTH, HELLO AUTH, and the stock tools
(redis-cli -a, redis-benchmark -a) against a password-protected server."""

import re
import subprocess

import pytest
import redis

from conftest import RawConnection, RespError, redis_cli

PASSWORD = "s3cret"
WRONGPASS = RespError("WRONGPASS invalid username-password pair or user is disabled.")
NOAUTH = RespError("NOAUTH Authentication required.")


@pytest.fixture
def protected(start_server):
    return start_server("--requirepass", PASSWORD)


def test_commands_need_auth(protected):
    c = protected.raw()
    assert c.call("PING") == NOAUTH
    assert c.call("GET", "k") == NOAUTH
    assert c.call("SET", "k", "v") == NOAUTH
    c.send(b"CLIENT ID\r\n")  # inline too
    assert c.read_reply() == NOAUTH
    # Arity and unknown-command errors come first, as in Valkey.
    assert c.call("GET") == RespError("ERR wrong number of arguments for 'get' command")
    assert c.call("NOSUCH").message.startswith("ERR unknown command 'NOSUCH'")


def test_auth_forms(protected):
    c = protected.raw()
    assert c.call("AUTH", "wrong") == WRONGPASS
    assert c.call("AUTH", "default", "wrong") == WRONGPASS
    assert c.call("AUTH", "nobody", PASSWORD) == WRONGPASS
    assert c.call("AUTH", "a", "b", "c") == RespError("ERR syntax error")
    assert c.call("PING") == NOAUTH
    assert c.call("AUTH", PASSWORD) == "OK"
    assert c.call("PING") == "PONG"
    d = protected.raw()
    assert d.call("AUTH", "default", PASSWORD) == "OK"
    assert d.call("SET", "k", "v") == "OK"
    assert c.call("GET", "k") == b"v"


def test_failed_auth_keeps_earlier_success(protected):
    c = protected.raw()
    assert c.call("AUTH", PASSWORD) == "OK"
    assert c.call("AUTH", "wrong") == WRONGPASS
    assert c.call("PING") == "PONG"


def test_hello_auth(protected):
    c = protected.raw()
    err = c.call("HELLO", "3")
    assert isinstance(err, RespError)
    assert err.message.startswith(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO")
    # Valkey 8.0.1's text (Redis 7.0's lacks "<proto>").
    assert c.call("HELLO").message == (
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
        "<proto> AUTH <user> <pass> option can be used to authenticate the client and select the "
        "RESP protocol version at the same time")
    assert c.call("HELLO", "3", "AUTH", "default", "wrong") == WRONGPASS
    hello = c.call("HELLO", "3", "AUTH", "default", PASSWORD, "SETNAME", "app")
    assert isinstance(hello, dict) and hello[b"proto"] == 3
    assert c.call("CLIENT", "GETNAME") == b"app"
    c.send(b"GET missing\r\n")
    assert c.read_line() == b"_"


def test_quit_and_reset_without_auth(protected):
    c = protected.raw()
    assert c.call("AUTH", PASSWORD) == "OK"
    assert c.call("RESET") == "RESET"  # back to unauthenticated
    assert c.call("PING") == NOAUTH
    c.send(b"QUIT\r\n")
    assert c.read_until_closed() == b"+OK\r\n"


def test_unauthenticated_request_limits(protected):
    c = protected.raw()
    c.send(b"*11\r\n")
    assert c.read_until_closed() == b"-ERR Protocol error: unauthenticated multibulk length\r\n"
    c = protected.raw()
    c.send(b"*2\r\n$4\r\nAUTH\r\n$16385\r\n")
    assert c.read_until_closed() == b"-ERR Protocol error: unauthenticated bulk length\r\n"
    # Within the limits an unauthenticated client just gets NOAUTH.
    c = protected.raw()
    assert c.call("ECHO", "x" * 16384) == NOAUTH
    # Once authenticated the normal limits apply.
    c = protected.raw()
    assert c.call("AUTH", PASSWORD) == "OK"
    assert c.call("MSET", *(["k", "v"] * 20)) == "OK"
    assert c.call("ECHO", "x" * 100000) == b"x" * 100000


def test_limits_follow_auth_inside_one_pipeline(protected):
    # The server parses pipelined commands ahead of running them: each must still be held to
    # the limits in force when its turn comes.
    encode = RawConnection.encode
    mset = encode("MSET", *(["k", "v"] * 20))
    c = protected.raw()
    c.send(encode("AUTH", PASSWORD) + mset + encode("RESET") + mset)
    assert c.read_reply() == "OK"
    assert c.read_reply() == "OK"
    assert c.read_reply() == "RESET"
    assert c.read_until_closed() == b"-ERR Protocol error: unauthenticated multibulk length\r\n"


def test_redis_py(protected):
    with pytest.raises(redis.AuthenticationError):
        protected.client().ping()
    with pytest.raises(redis.ResponseError, match="WRONGPASS"):
        protected.client(password="wrong").ping()
    c = protected.client(password=PASSWORD)
    assert c.set("k", "v") and c.get("k") == "v"
    c3 = protected.client(password=PASSWORD, username="default")
    assert c3.get("k") == "v"


def test_redis_cli(protected):
    assert redis_cli(protected, "-a", PASSWORD, "--no-auth-warning", "PING").strip() == "PONG"
    assert redis_cli(protected, "--user", "default", "--pass", PASSWORD, "--no-auth-warning",
                     "SET", "k", "v").strip() == "OK"
    assert "NOAUTH" in redis_cli(protected, "GET", "k")
    assert redis_cli(protected, "-a", PASSWORD, "--no-auth-warning", "GET", "k").strip() == "v"


def test_redis_benchmark(protected):
    res = subprocess.run(
        ["/usr/bin/redis-benchmark", "-h", protected.host, "-p", str(protected.port), "-a",
         PASSWORD, "-t", "set,get", "-n", "1000", "-q"],
        capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    out = res.stdout.replace("\r", "\n")
    assert re.search(r"^SET: [\d.]+ requests per second", out, re.M), out
    assert re.search(r"^GET: [\d.]+ requests per second", out, re.M), out
    assert protected.client(password=PASSWORD).dbsize() >= 1
