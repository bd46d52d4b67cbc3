"""The commented default vireo.conf at the repository root: every directive in it is one the
server knows, a server started with it takes its values, and the values are the defaults it
claims (except the few the file changes on purpose)."""

import re
import shlex

import pytest

from conftest import IO_THREADS, REPO_ROOT, free_port

# The file sets io-threads itself: the I/O-threads run of the suite would repeat this one.
pytestmark = pytest.mark.skipif(bool(IO_THREADS), reason="no I/O threads involved")

CONF = REPO_ROOT / "vireo.conf"
# Overridden on the command line by the tests, or (bind) deliberately not the default.
OVERRIDDEN = {"port", "dir"}
NOT_DEFAULT = {"bind"}
MEMORY = re.compile(r"^(\d+)(k|kb|m|mb|g|gb)$", re.IGNORECASE)
UNITS = {"k": 1000, "kb": 1024, "m": 1000**2, "mb": 1024**2, "g": 1000**3, "gb": 1024**3}


def directives():
    """[(name, [args])] of the file's non-comment lines, in order."""
    out = []
    for line in CONF.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            words = shlex.split(line)
            out.append((words[0].lower(), words[1:]))
    return out


def bytes_of(word):
    m = MEMORY.match(word)
    return str(int(m.group(1)) * UNITS[m.group(2).lower()]) if m else word


def expected_values():
    """What CONFIG GET should answer for each directive of the file."""
    values, obuf = {}, {}
    for name, args in directives():
        words = [bytes_of(a) for a in args]
        if name == "save":
            values["save"] = (values.get("save", "") + " " + " ".join(words)).strip()
        elif name == "client-output-buffer-limit":
            cls = {"replica": "slave"}.get(words[0], words[0])
            obuf[cls] = " ".join(words[1:])
        else:
            values[name] = " ".join(words)
    if obuf:
        values["client-output-buffer-limit"] = " ".join(
            f"{cls} {obuf[cls]}" for cls in ("normal", "slave", "pubsub") if cls in obuf)
    return values


def config_get_all(client, names):
    got = {}
    for name in names:
        got.update(client.config_get(name))
    return got


def test_every_directive_is_known_to_the_server(start_server):
    names = [name for name, _ in directives()]
    assert len(names) > 80
    r = start_server().client()
    unknown = [n for n in names if n not in r.config_get(n)]
    assert not unknown, f"vireo.conf has directives the server does not know: {unknown}"


def test_server_started_with_the_file_takes_its_values(start_server, tmp_path):
    server = start_server("--port", free_port(), "--dir", tmp_path, config=CONF.read_text())
    r = server.client()
    want = {k: v for k, v in expected_values().items() if k not in OVERRIDDEN}
    got = config_get_all(r, want)
    assert got == want
    # A few spelled out, as an operator would check them.
    assert got["bind"] == "127.0.0.1 -::1"
    assert got["save"] == "3600 1 300 100 60 10000"
    assert got["client-output-buffer-limit"] == (
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60")
    assert got["metrics-port"] == "0"
    assert r.config_get("dir")["dir"] == str(tmp_path)


def test_values_in_the_file_are_the_defaults(start_server, tmp_path):
    server = start_server("--port", free_port(), "--dir", tmp_path, "--bind", "127.0.0.1",
                          defaults=False)
    want = {k: v for k, v in expected_values().items() if k not in OVERRIDDEN | NOT_DEFAULT}
    got = config_get_all(server.client(), want)
    differ = {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
    assert not differ, f"vireo.conf value vs built-in default: {differ}"
