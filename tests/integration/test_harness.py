"""Smoke tests: the harness starts the server and the basic clients can talk to it."""

import os

from conftest import REPO_ROOT, RespError, built_binary, redis_cli


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


def test_binaries_named_by_relative_paths_resolve(monkeypatch, tmp_path):
    # `make tsan-test` names build-tsan/vireo-server relative to the repository; servers run in
    # temp dirs of their own, where that path named nothing and every test failed to start one.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VIREO_SERVER", "build-tsan/vireo-server")
    resolved = built_binary("VIREO_SERVER", "vireo-server")
    assert resolved == str(tmp_path / "build-tsan" / "vireo-server")
    monkeypatch.delenv("VIREO_SERVER")
    assert built_binary("VIREO_SERVER", "vireo-server") == str(REPO_ROOT / "build" / "vireo-server")
    assert os.path.isabs(built_binary("VIREO_CLI", "vireo-cli"))
