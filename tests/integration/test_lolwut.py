"""LOLWUT: the version line, and VERSION 5's Schotter in braille with the reference's
dimensions (its squares are placed at random, so only the shape is compared)."""

import os

import pytest

from conftest import RespError

REDIS_SERVER = "/usr/bin/redis-server"
need_redis = pytest.mark.skipif(not os.path.exists(REDIS_SERVER), reason="no redis-server")
IMPLS = ["vireo", pytest.param("redis", marks=need_redis)]
TITLE = b"Georg Nees - schotter, plotter on paper, 1968. "


def art_lines(text):
    """The drawing's lines: everything before the title."""
    art = text[:text.index(TITLE)].rstrip(b"\n")
    return art.split(b"\n")


@pytest.mark.parametrize("impl", IMPLS)
def test_version_line_and_schotter(start_server, impl):
    server = start_server(binary=REDIS_SERVER if impl == "redis" else None)
    with server.raw() as c:
        for args in ((), ("VERSION", "7"), ("VERSION", "-1"), ("VERSION",), ("x", "y")):
            line = c.call("LOLWUT", *args)
            assert line.endswith(b"\n") and line.count(b"\n") == 1 and b" ver. " in line, args
        for dims, lines, chars in (((), 49, 66), (("40", "6", "8"), 27, 40),
                                   (("100", "1", "3"), 148, 100), (("0", "0", "0"), 1, 1),
                                   (("1001", "201", "201", "extra"), 500, 1000)):
            text = c.call("LOLWUT", "VERSION", "5", *dims)
            art = art_lines(text)
            assert len(art) == lines, dims
            for row in art:
                glyphs = row.decode("utf-8")
                assert len(glyphs) == chars, dims
                assert all(0x2800 <= ord(g) <= 0x28FF for g in glyphs), dims
            assert text.endswith(b"\n") and b" ver. " in text[text.index(TITLE):]
        # One square on a one-character canvas always comes out the same.
        assert c.call("LOLWUT", "VERSION", "5", "1", "1", "1").startswith("⠋\n\n".encode())
        not_integer = RespError("ERR value is not an integer or out of range")
        assert c.call("LOLWUT", "VERSION", "x") == not_integer
        assert c.call("LOLWUT", "VERSION", "5", "10", "y") == not_integer
        c.call("HELLO", "3")
        c.send_command("LOLWUT")
        assert c.read_line().startswith(b"=")  # a verbatim string in RESP3
