"""Smoke tests: the harness starts the server and the basic clients can talk to it."""

from conftest import RespError, redis_cli


def test_ping(r):
    assert r.ping() is True


def test_set_get(r):
    assert r.set("greeting", "hello") is True
    assert r.get("greeting") == "hello"
    assert r.get("missing") is None


def test_inline_ping(raw):
    raw.send(b"PING\r\n")
    assert raw.read_reply() == "PONG"


def test_resp_array_commands(raw):
    assert raw.call("SET", "k", b"a\r\nb") == "OK"
    assert raw.call("GET", "k") == b"a\r\nb"
    assert raw.call("GET", "nokey") is None
    reply = raw.call("GET")
    assert isinstance(reply, RespError)
    assert reply.message == "ERR wrong number of arguments for 'get' command"


def test_redis_cli(server):
    assert redis_cli(server, "PING").strip() == "PONG"


def test_shared_server_is_flushed(sr):
    assert sr.dbsize() == 0
    sr.set("left-over", "1")


def test_shared_server_is_flushed_again(sr):
    assert sr.dbsize() == 0


def test_restart_keeps_port(server):
    port = server.port
    server.client().set("k", "v")
    server.restart()
    assert server.port == port
    assert server.client().ping() is True
