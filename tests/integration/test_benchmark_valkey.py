"""vireo-benchmark against valkey-benchmark 8.0.1: --help, the -q / --csv / full report layouts
(numbers masked), the default suite's tests and their order, and the messages for bad flags and
unreachable servers. Both tools run against one reference valkey-server with small -n; nothing
here measures speed.

valkey-benchmark writes its progress line ("TITLE: rps=... \\r") even when stdout is not a
terminal; vireo-benchmark only on a terminal (docs/cli_differences.md), so the residue is
stripped before comparing.
"""

import os
import re
import socket
import subprocess

import pytest

from conftest import VALKEY_SERVER, ServerProcess, _teardown, built_binary

BENCHMARK = built_binary("VIREO_BENCHMARK", "vireo-benchmark")
VALKEY_BENCHMARK = os.path.join(os.path.dirname(VALKEY_SERVER), "valkey-benchmark")

pytestmark = pytest.mark.skipif(
    not (os.path.exists(VALKEY_BENCHMARK) and os.path.exists(VALKEY_SERVER)),
    reason="needs the reference valkey-benchmark and valkey-server in ../shared/reference/")

ROW = re.compile(r"^\d+\.\d{3}% <= \d+\.\d{3} milliseconds \(cumulative count \d+\)$")


@pytest.fixture(scope="module")
def valkey(tmp_path_factory):
    s = ServerProcess(VALKEY_SERVER, tmp_path_factory.mktemp("valkey-bench"),
                      ["--appendonly", "no"])
    s.start()
    yield s
    _teardown([s])


def run(binary, args, input=None, timeout=60):
    res = subprocess.run([binary, *map(str, args)], capture_output=True, timeout=timeout,
                         input=input)
    return res.returncode, res.stdout.decode(errors="replace"), res.stderr.decode(errors="replace")


def both(args, **kw):
    return run(VALKEY_BENCHMARK, args, **kw), run(BENCHMARK, args, **kw)


def neutral(text, name):
    return re.sub(name + r"( \d+\.\d+\.\d+)?", "<tool>", text)


def skeleton(text):
    """Lines with progress residue dropped, numbers masked, distribution rows folded."""
    out = []
    for line in text.split("\n"):
        line = line.split("\r")[-1]
        # Blank runs fold into one: valkey's residue can leave a cleared line behind.
        if not line.strip() and out and out[-1] == "":
            continue
        if ROW.match(line):
            if not out or out[-1] != "<rows>":
                out.append("<rows>")
            continue
        # A run shorter than valkey-benchmark's millisecond clock gives "inf" requests/s there.
        line = re.sub(r"-?\d+(\.\d+)?|\binf\b|-?nan", "#", line)
        out.append(re.sub(r" +", " ", line) if line.strip() else "")
    # valkey-benchmark's residue can leave a line of spaces before the first test.
    while out and not out[0].strip():
        out.pop(0)
    return out


def at(server):
    return ["-h", server.host, "-p", server.port]


def test_help_matches():
    (vrc, vout, _), (rc, out, _) = both(["--help"])
    assert rc == vrc == 0
    theirs = neutral(vout, "valkey-benchmark").split("\n")
    ours = neutral(out, "vireo-benchmark").split("\n")
    # --precision: valkey's text says "decimal places ... (default 0)", but its latencies always
    # print three decimals and the value sets the histogram's significant digits (default 3),
    # which is what vireo-benchmark's line says.
    precision = lambda lines: [line for line in lines if not line.startswith(" --precision")]
    assert precision(ours) == precision(theirs)
    (vrc, vout, _), (rc, out, _) = both(["--version"])
    assert rc == vrc == 0
    assert re.fullmatch(r"vireo-benchmark \d+\.\d+\.\d+\n", out)
    assert re.fullmatch(r"valkey-benchmark \d+\.\d+\.\d+\n", vout)


def test_quiet_and_csv_match(valkey):
    for flags in (["-q"], ["-q", "-P", "4", "-d", "16"], ["--csv"], ["--csv", "-3", "-r", "50"]):
        (vrc, vout, verr), (rc, out, err) = both(at(valkey) + ["-n", 2000, "-c", 4, *flags])
        assert (rc, err) == (vrc, verr), flags
        assert skeleton(out) == skeleton(vout), flags
    # The default suite's titles, in valkey-benchmark's order (XADD included).
    (_, vout, _), (_, out, _) = both(at(valkey) + ["-n", 200, "-c", 2, "--csv"])
    titles = lambda text: [line.split(",")[0] for line in text.splitlines()]
    assert titles(out) == titles(vout)
    assert '"XADD"' in titles(out)


def test_full_report_layout(valkey):
    for flags in (["-t", "set,get"], ["-t", "incr", "--threads", "2"], ["-t", "lpush", "-k", 0],
                  ["-q", "incr", "__rand_int__"], ["-t", "lrange_100", "-q"],
                  ["--seed", 7, "-r", 100, "-t", "set"], ["-t", "get", "--precision", 1],
                  ["-t", "hset,spop,zpopmin", "-P", 3, "-q"], ["-t", "xadd", "-d", 100]):
        (vrc, vout, verr), (rc, out, err) = both(at(valkey) + ["-n", 2000, "-c", 4, *flags])
        assert (rc, err) == (vrc, verr), flags
        assert skeleton(out) == skeleton(vout), flags


def test_custom_command_and_stdin(valkey):
    args = at(valkey) + ["-n", 500, "-q", "-x", "set", "k"]
    (vrc, vout, _), (rc, out, _) = both(args, input=b"payload")
    assert rc == vrc == 0 and skeleton(out) == skeleton(vout)


def test_messages_match(valkey):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed = s.getsockname()[1]
    s.close()
    cases = [["-p", closed, "-n", 10, "-q", "-t", "ping"],
             at(valkey) + ["-n", 10, "-q", "-t", "ping", "-a", "pw"],
             at(valkey) + ["-n", 10, "-q", "-t", "ping", "-e"],
             at(valkey) + ["-n", 10, "-q", "-c", 1, "--threads", 600, "-t", "ping"],
             at(valkey) + ["-n", 10, "-q", "--cluster", "-t", "ping"],
             at(valkey) + ["-n", 5, "-c", 1, "-q", "incr", "notanumber"],
             at(valkey) + ["-n", 10, "-q", "-t", "ping", "-u", "http://x"],
             at(valkey) + ["-n", 10, "-q", "-t", "ping", "-u",
                           f"valkey://127.0.0.1:{valkey.port}/2"],
             ["--nope"], ["-n"]]
    valkey.client().set("notanumber", "abc")
    for args in cases:
        (vrc, vout, verr), (rc, out, err) = both(args)
        assert (rc, neutral(err, "vireo-benchmark")) == (vrc, neutral(verr, "valkey-benchmark")), \
            args
        # The usage after a bad flag: --precision's line differs (see test_help_matches).
        usage = lambda text, name: [line for line in skeleton(neutral(text, name))
                                    if not line.startswith(" --precision")]
        assert usage(out, "vireo-benchmark") == usage(vout, "valkey-benchmark"), args


def test_cluster_header(valkey_cluster):
    args = ["-h", "127.0.0.1", "-p", valkey_cluster[0].port, "--cluster", "-n", 300, "-c", 3]
    for flags in (["-t", "set", "-q"], ["-t", "get"], ["-c", 2, "-t", "ping", "-q"],
                  ["-q", "set", "{tag}k", "v"], ["--threads", 2, "-t", "get", "-q"]):
        (vrc, vout, verr), (rc, out, err) = both(args + flags)
        assert (rc, err) == (vrc, verr), flags
        assert skeleton(out) == skeleton(vout), flags
