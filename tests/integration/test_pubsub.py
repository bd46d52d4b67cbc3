"""Pub/Sub over real connections: several clients at once (subscribers and publishers), RESP2
and RESP3 message shapes, subscribed mode, introspection, and the output buffer limit that
cuts off a subscriber that never reads."""

import socket

import pytest
import redis

from conftest import SERVER_BINARY, Push, RespError, wait_for

# INFO fields Valkey 8 has and the redis-server 7.0 these tests also run against lacks.
VALKEY8 = "redis-server" not in SERVER_BINARY

SUBSCRIBED_ERROR = ("ERR Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                    "QUIT / RESET are allowed in this context")


def read_n(conn, n):
    return [conn.read_reply() for _ in range(n)]


def test_resp2_subscriber_gets_arrays(server, r):
    sub = server.raw()
    sub.send_command("SUBSCRIBE", "news", "sport")
    assert read_n(sub, 2) == [[b"subscribe", b"news", 1], [b"subscribe", b"sport", 2]]
    assert sub.call("PSUBSCRIBE", "n*") == [b"psubscribe", b"n*", 3]
    assert r.publish("news", "hello") == 2
    assert read_n(sub, 2) == [[b"message", b"news", b"hello"],
                              [b"pmessage", b"n*", b"news", b"hello"]]
    assert r.publish("sport", "goal") == 1
    assert sub.read_reply() == [b"message", b"sport", b"goal"]
    assert r.publish("nobody", "x") == 1  # the pattern n* still matches
    assert sub.read_reply() == [b"pmessage", b"n*", b"nobody", b"x"]
    assert r.publish("zzz", "x") == 0


def test_resp2_subscribed_mode(server, r):
    sub = server.raw()
    assert sub.call("SUBSCRIBE", "c") == [b"subscribe", b"c", 1]
    assert sub.call("GET", "k") == RespError(SUBSCRIBED_ERROR.format("get"))
    assert sub.call("CLIENT", "ID") == RespError(SUBSCRIBED_ERROR.format("client|id"))
    assert sub.call("PING") == [b"pong", b""]
    assert sub.call("PING", "hi") == [b"pong", b"hi"]
    # Still subscribed after the errors: messages keep flowing.
    assert r.publish("c", "m") == 1
    assert sub.read_reply() == [b"message", b"c", b"m"]
    assert sub.call("UNSUBSCRIBE") == [b"unsubscribe", b"c", 0]
    assert sub.call("PING") == "PONG"
    assert sub.call("UNSUBSCRIBE") == [b"unsubscribe", None, 0]
    assert sub.call("SUBSCRIBE", "c") == [b"subscribe", b"c", 1]
    assert sub.call("QUIT") == "OK"
    assert sub.is_closed()
    wait_for(lambda: r.pubsub_numsub("c") == [("c", 0)])


def test_resp3_pushes_on_a_normal_connection(server, r):
    sub = server.raw()
    assert isinstance(sub.call("HELLO", "3"), dict)
    assert sub.call("SUBSCRIBE", "c") == Push([b"subscribe", b"c", 1])
    assert sub.call("PSUBSCRIBE", "c*") == Push([b"psubscribe", b"c*", 2])
    # Any command works while subscribed.
    assert sub.call("SET", "k", "v") == "OK"
    assert sub.call("GET", "k") == b"v"
    assert sub.call("PING") == "PONG"
    assert r.publish("c", "m") == 2
    first, second = read_n(sub, 2)
    assert isinstance(first, Push) and first == [b"message", b"c", b"m"]
    assert isinstance(second, Push) and second == [b"pmessage", b"c*", b"c", b"m"]
    # Publishing to itself: Valkey (7.2+) sends the reply first, then the pushes; 7.0 the
    # other way round.
    sub.send_command("PUBLISH", "c", "self")
    pushes = [[b"message", b"c", b"self"], [b"pmessage", b"c*", b"c", b"self"]]
    assert read_n(sub, 3) == ([2] + pushes if VALKEY8 else pushes + [2])
    assert sub.call("UNSUBSCRIBE") == Push([b"unsubscribe", b"c", 1])
    assert sub.call("PUNSUBSCRIBE", "c*", "x") == Push([b"punsubscribe", b"c*", 0])
    assert sub.read_reply() == Push([b"punsubscribe", b"x", 0])


def test_shard_channels(server, r):
    sub = server.raw()
    assert sub.call("SSUBSCRIBE", "s1", "s2") == [b"ssubscribe", b"s1", 1]
    assert sub.read_reply() == [b"ssubscribe", b"s2", 2]
    assert sub.call("SUBSCRIBE", "c") == [b"subscribe", b"c", 1]  # counted apart from shards
    assert r.publish("s1", "x") == 0
    assert r.execute_command("SPUBLISH", "s1", "y") == 1
    assert sub.read_reply() == [b"smessage", b"s1", b"y"]
    assert sorted(r.execute_command("PUBSUB", "SHARDCHANNELS")) == ["s1", "s2"]
    assert r.execute_command("PUBSUB", "SHARDNUMSUB", "s1", "nope") == ["s1", 1, "nope", 0]
    assert sub.call("SUNSUBSCRIBE") in ([b"sunsubscribe", b"s1", 1], [b"sunsubscribe", b"s2", 1])
    assert sub.read_reply()[2] == 0
    assert sub.call("GET", "k") == RespError(SUBSCRIBED_ERROR.format("get"))  # c remains


def test_redis_py_clients_and_introspection(server, r):
    p1 = server.client().pubsub()
    p2 = server.client().pubsub()
    p1.subscribe("alpha", "beta")
    p2.subscribe("alpha")
    p2.psubscribe("al*", "x?")
    for p, n in ((p1, 2), (p2, 3)):
        for _ in range(n):
            assert p.get_message(timeout=5)["type"] in ("subscribe", "psubscribe")
    assert r.publish("alpha", "one") == 3
    assert p1.get_message(timeout=5)["data"] == "one"
    got = [p2.get_message(timeout=5) for _ in range(2)]
    assert sorted(m["type"] for m in got) == ["message", "pmessage"]
    assert sorted(r.pubsub_channels()) == ["alpha", "beta"]
    assert r.pubsub_channels("b*") == ["beta"]
    assert r.pubsub_numsub("alpha", "beta", "gamma") == [("alpha", 2), ("beta", 1), ("gamma", 0)]
    assert r.pubsub_numpat() == 2
    stats = r.info("stats")
    assert stats["pubsub_channels"] == 2
    assert stats["pubsub_patterns"] == 2
    assert stats["pubsubshard_channels"] == 0
    if VALKEY8:
        assert r.info("clients")["pubsub_clients"] == 2
    lines = [c for c in r.client_list() if c["flags"] == "P"]
    assert sorted((c["sub"], c["psub"], c["ssub"]) for c in lines) == [("1", "2", "0"),
                                                                       ("2", "0", "0")]
    assert r.client_list(_type="pubsub") and len(r.client_list(_type="pubsub")) == 2
    # A subscriber that disconnects leaves nothing behind.
    p1.close()
    p2.close()
    wait_for(lambda: r.pubsub_numpat() == 0 and r.pubsub_channels() == [])
    assert r.info("stats")["pubsub_channels"] == 0


def test_reset_unsubscribes_everything(server, r):
    sub = server.raw()
    sub.call("SUBSCRIBE", "a")
    sub.call("PSUBSCRIBE", "b*")
    sub.call("SSUBSCRIBE", "s")
    assert sub.call("RESET") == "RESET"
    assert r.pubsub_numsub("a") == [("a", 0)]
    assert r.pubsub_numpat() == 0
    assert sub.call("GET", "k") is None  # back to a normal connection


def test_pubsub_errors(r):
    with pytest.raises(redis.ResponseError, match="wrong number of arguments for 'publish'"):
        r.execute_command("PUBLISH", "a")
    with pytest.raises(redis.ResponseError, match="unknown subcommand or wrong number of "
                                                  "arguments for 'CHANNELS'"):
        r.execute_command("PUBSUB", "CHANNELS", "a", "b")
    with pytest.raises(redis.ResponseError, match="unknown subcommand 'NOPE'"):
        r.execute_command("PUBSUB", "NOPE")
    assert r.execute_command("PUBSUB", "HELP")[0].startswith("PUBSUB <subcommand>")


def test_output_buffer_limit_config(r):
    assert r.config_get("client-output-buffer-limit") == {
        "client-output-buffer-limit":
            "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"}
    assert r.config_set("client-output-buffer-limit", "pubsub 1mb 256kb 10 replica 1 2 3")
    assert r.config_get("client-output-buffer-limit")["client-output-buffer-limit"] == \
        "normal 0 0 0 slave 1 2 3 pubsub 1048576 262144 10"
    with pytest.raises(redis.ResponseError, match="Invalid client class"):
        r.config_set("client-output-buffer-limit", "master 1 2 3")


def test_slow_subscriber_is_disconnected(server, r):
    r.config_set("client-output-buffer-limit", "pubsub 1mb 0 0")
    sub = server.raw()
    # A small receive buffer, and the subscriber never reads: its replies pile up in the server.
    sub.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sub.send_command("SUBSCRIBE", "firehose")
    payload = "x" * 100_000
    pub = server.client()
    receivers = 1
    for _ in range(2000):  # far more than the kernel buffers plus the limit can hold
        receivers = pub.publish("firehose", payload)
        if receivers == 0:
            break
    assert receivers == 0, "the subscriber was never cut off"
    if VALKEY8:
        assert r.info("stats")["client_output_buffer_limit_disconnections"] == 1
    assert r.pubsub_numsub("firehose") == [("firehose", 0)]
    assert "overcoming of output buffer limits" in server.log()
    # The server let go of the connection (draining what the kernel still holds for the tiny
    # receive window would take long, so the socket is not read here).
    wait_for(lambda: not any(c["flags"] == "P" for c in r.client_list()))
    sub.close()
    # The server itself is fine and other clients are unaffected.
    assert r.ping()
    assert pub.publish("firehose", "x") == 0
