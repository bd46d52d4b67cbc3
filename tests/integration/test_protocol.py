"""The wire protocol over raw sockets: inline and multibulk requests, pipelines, any split of
the byte stream, malformed input, RESP3, QUIT and RESET."""

import random
import socket

import pytest

from conftest import RawConnection, RespError


def encode(*args):
    return RawConnection.encode(*args)


# ---------------------------------------------------------------------------------------------
# Inline commands

def test_inline_commands(sr, shared_server):
    c = shared_server.raw()
    c.send(b"PING\r\n")
    assert c.read_reply() == "PONG"
    c.send(b'set a "b c"\n')  # a bare \n ends a line too
    assert c.read_reply() == "OK"
    c.send(b"get a\r\n")
    assert c.read_reply() == b"b c"
    c.send(b"echo 'a' \"b\"\r\n")
    assert c.read_reply() == RespError("ERR wrong number of arguments for 'echo' command")
    c.send(b"echo \"\\x41\\n\\t\"\r\n")
    assert c.read_reply() == b"A\n\t"
    c.send(b"\r\n\n   \r\nPING\r\n")  # blank lines are skipped
    assert c.read_reply() == "PONG"
    c.send(b"nosuch a b\r\n")
    assert c.read_reply() == RespError(
        "ERR unknown command 'nosuch', with args beginning with: 'a' 'b' ")


@pytest.mark.parametrize("line", [b'set a "b c\r\n', b'set a "b c"d\r\n', b"set a 'b\r\n"])
def test_unbalanced_quotes_close_the_connection(shared_server, line):
    c = shared_server.raw()
    c.send(b"PING\r\n" + line + b"PING\r\n")
    assert c.read_reply() == "PONG"
    assert c.read_until_closed() == b"-ERR Protocol error: unbalanced quotes in request\r\n"


# ---------------------------------------------------------------------------------------------
# Multibulk, pipelines, splits

def test_binary_safe_and_empty_arguments(sr, shared_server):
    c = shared_server.raw()
    value = b"a\r\nb\x00c\r\n*1\r\n$3\r\n"
    assert c.call("SET", b"k\r\n", value) == "OK"
    assert c.call("GET", b"k\r\n") == value
    assert c.call("ECHO", b"") == b""
    assert c.call("SET", b"", b"") == "OK"
    assert c.call("GET", b"") == b""


def test_pipeline_of_1000_commands_in_one_write(sr, shared_server):
    c = shared_server.raw()
    data = b"".join(encode("INCR", "n") if i % 2 else b"PING\r\n" for i in range(1000))
    c.send(data)
    replies = [c.read_reply() for _ in range(1000)]
    assert replies[0::2] == ["PONG"] * 500
    assert replies[1::2] == list(range(1, 501))


def stream_and_replies():
    """A mixed stream of requests and the replies it must produce."""
    parts = [
        (encode("SET", "k", b"v\r\nv"), "OK"),
        (b"GET k\r\n", b"v\r\nv"),
        (encode("ECHO", b""), b""),
        (b"*0\r\n", None),           # empty: no reply
        (b"*-1\r\n", None),
        (b"\r\n", None),
        (encode("INCR", "n"), 1),
        (b"PING\n", "PONG"),
        (encode("ECHO", "x" * 3000), b"x" * 3000),
        (b"*1\r\n$4\r\nPINGxx", "PONG"),  # the two bytes after a bulk are not checked
        (encode("INCR", "n"), 2),
    ]
    data = b"".join(p for p, _ in parts)
    replies = [r for _, r in parts if r is not None]
    return data, replies


def send_in_pieces(sock, data, cuts):
    start = 0
    for cut in sorted(cuts) + [len(data)]:
        if cut > start:
            sock.sendall(data[start:cut])
            start = cut


def test_bytes_one_at_a_time(sr, shared_server):
    c = shared_server.raw()
    data, replies = stream_and_replies()
    send_in_pieces(c.sock, data, range(1, len(data)))
    assert [c.read_reply() for _ in replies] == replies


def test_whole_mixed_stream_in_one_write(sr, shared_server):
    # The server reads pipelines ahead (prefetching keys): empties, inline commands, bulks
    # and a SELECT in the middle must still give exactly the replies in order.
    data, replies = stream_and_replies()
    c = shared_server.raw()
    c.send(data * 3 + encode("SELECT", "1") + encode("SET", "k", "one") + encode("GET", "k"))
    expected = []
    for i in range(3):
        expected += [r if r not in (1, 2) else r + 2 * i for r in replies]
    assert [c.read_reply() for _ in expected] == expected
    assert [c.read_reply() for _ in range(3)] == ["OK", "OK", b"one"]
    assert sr.get("k") == "v\r\nv"


def test_random_splits(sr, shared_server):
    data, replies = stream_and_replies()
    rng = random.Random(1234)
    for _ in range(20):
        sr.delete("n")
        c = shared_server.raw()
        cuts = rng.sample(range(1, len(data)), rng.randint(1, 30))
        send_in_pieces(c.sock, data, cuts)
        assert [c.read_reply() for _ in replies] == replies
        c.close()


def test_big_argument(sr, shared_server):
    c = shared_server.raw()
    value = bytes(range(256)) * 20000  # 5 MB
    assert c.call("SET", "big", value) == "OK"
    assert c.call("STRLEN", "big") == len(value)
    assert c.call("GET", "big") == value
    # The same, arriving in small pieces.
    data = encode("SET", "big2", value)
    send_in_pieces(c.sock, data, range(1, len(data), 100000))
    assert c.read_reply() == "OK"
    assert c.call("GET", "big2") == value


# ---------------------------------------------------------------------------------------------
# Malformed input: an error reply, then the connection is closed

MALFORMED = [
    (b"*abc\r\n", "invalid multibulk length"),
    (b"*1 \r\n", "invalid multibulk length"),
    (b"*+1\r\n", "invalid multibulk length"),
    (b"*2147483648\r\n", "invalid multibulk length"),
    (b"*1\r\nx\r\n", "expected '$', got 'x'"),
    (b"*1\r\n*1\r\n", "expected '$', got '*'"),
    (b"*1\r\n$-5\r\n", "invalid bulk length"),
    (b"*1\r\n$abc\r\n", "invalid bulk length"),
    (b"*1\r\n$536870913\r\n", "invalid bulk length"),  # over proto-max-bulk-len (512mb)
    (b"*1\r\n$" + b"1" * 70000, "too big bulk count string"),
    (b"*" + b"1" * 70000, "too big mbulk count string"),
    (b"A" * 70000, "too big inline request"),
]


@pytest.mark.parametrize("data,error", MALFORMED, ids=[e for _, e in MALFORMED])
def test_malformed_input(shared_server, data, error):
    c = shared_server.raw()
    c.send(b"PING\r\n" + data)
    assert c.read_reply() == "PONG"
    assert c.read_until_closed() == b"-ERR Protocol error: " + error.encode() + b"\r\n"
    assert shared_server.client().ping()


def test_incomplete_bad_line_waits_for_its_end(shared_server):
    c = shared_server.raw()
    c.send(b"*1\r\nx")
    # Nothing is wrong yet as far as the server can tell: the line has not ended.
    c.settimeout(0.3)
    with pytest.raises(socket.timeout):
        c.sock.recv(100)
    c.settimeout(10)
    c.send(b"yz\r\n")
    assert c.read_until_closed() == b"-ERR Protocol error: expected '$', got 'x'\r\n"


def test_smaller_proto_max_bulk_len(start_server):
    server = start_server("--proto-max-bulk-len", "1mb")
    c = server.raw()
    assert c.call("ECHO", b"x" * (1024 * 1024)) == b"x" * (1024 * 1024)
    c.send(b"*2\r\n$4\r\nECHO\r\n$1048577\r\n")
    assert c.read_until_closed() == b"-ERR Protocol error: invalid bulk length\r\n"


def test_disconnect_mid_command(sr, shared_server):
    for partial in (b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nabc", b"*2\r\n$3\r\nGE", b"SET k"):
        c = shared_server.raw()
        c.send(partial)
        c.close()
    other = shared_server.raw()
    assert other.call("SET", "k", "v") == "OK"
    assert other.call("GET", "k") == b"v"


# ---------------------------------------------------------------------------------------------
# RESP3, QUIT, RESET

def test_resp3_types(sr, shared_server):
    c = shared_server.raw()
    hello = c.call("HELLO", "3")
    assert isinstance(hello, dict) and hello[b"proto"] == 3
    c.send(b"GET nosuchkey\r\n")
    assert c.read_line() == b"_"  # RESP3 null
    assert c.call("SET", "k", "v") == "OK"
    assert c.call("GET", "k") == b"v"
    assert c.call("CLIENT", "GETNAME") is None
    assert c.call("CONFIG", "GET", "maxmemory") == {b"maxmemory": b"0"}  # a map
    assert c.call("CLIENT", "INFO").format == "txt"                    # a verbatim string
    # Back to RESP2 on the same connection.
    assert isinstance(c.call("HELLO", "2"), list)
    c.send(b"GET nosuchkey\r\n")
    assert c.read_line() == b"$-1"


def test_hello_errors(shared_server):
    c = shared_server.raw()
    assert c.call("HELLO", "4") == RespError("NOPROTO unsupported protocol version")
    assert c.call("HELLO", "x") == \
        RespError("ERR Protocol version is not an integer or out of range")
    assert c.call("PING") == "PONG"


def test_quit(shared_server):
    c = shared_server.raw()
    c.send(b"PING\r\nQUIT\r\nSET never 1\r\n")
    assert c.read_until_closed() == b"+PONG\r\n+OK\r\n"
    assert shared_server.client().exists("never") == 0


def test_reset(shared_server):
    c = shared_server.raw()
    c.call("HELLO", "3")
    c.call("SELECT", "4")
    c.call("CLIENT", "SETNAME", "before")
    assert c.call("RESET") == "RESET"
    assert c.call("CLIENT", "GETNAME") is None
    fields = dict(f.split("=", 1) for f in c.call("CLIENT", "INFO").decode().split())
    assert fields["db"] == "0" and fields["resp"] == "2" and fields["name"] == ""
    c.send(b"GET nosuchkey\r\n")
    assert c.read_line() == b"$-1"
