"""vireo-cli against valkey-cli 8.0.1: the same arguments against the same server give the same
stdout, stderr and exit code, byte for byte (timings masked where they are printed).

Both clients talk to one reference valkey-server (DEBUG PROTOCOL needs it), so a difference is
the client's. The deliberate differences are in docs/cli_differences.md; the tests name them
where they skip over one. The binary comes from $VIREO_CLI (default <repo>/build/vireo-cli).
"""

import os
import re
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import VALKEY_SERVER, ServerProcess, _teardown, built_binary

VIREO_CLI = built_binary("VIREO_CLI", "vireo-cli")
VALKEY_CLI = os.path.join(os.path.dirname(VALKEY_SERVER), "valkey-cli")

pytestmark = pytest.mark.skipif(
    not (os.path.exists(VALKEY_CLI) and os.path.exists(VALKEY_SERVER)),
    reason="needs the reference valkey-cli and valkey-server in ../shared/reference/")

# Flags valkey-cli has and vireo-cli refuses (docs/cli_differences.md), and vireo-cli's own
# TLS flags (the reference is built without TLS).
UNSUPPORTED = {"--latency-dist", "--lru-test", "--replica", "--rdb", "--functions-rdb", "--ldb",
               "--ldb-sync-mode"}
VIREO_ONLY = {"--tls", "--sni", "--cacert", "--cacertdir", "--insecure", "--cert", "--key"}
# Help lines that name vireo-cli's own environment variables first.
ENV_LINES = {"-a", "--askpass"}


@pytest.fixture(scope="module")
def valkey(tmp_path_factory):
    if not os.path.exists(VALKEY_SERVER):
        pytest.skip("needs the reference valkey-server in ../shared/reference/")
    s = ServerProcess(VALKEY_SERVER, tmp_path_factory.mktemp("valkey-cli"),
                      ["--appendonly", "no", "--enable-debug-command", "yes"])
    s.start()
    yield s
    _teardown([s])


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("REDISCLI_", "VIREOCLI_", "FAKETTY"))}
    e.update(HOME=str(home), TERM="xterm")
    return e


@pytest.fixture
def vc(valkey):
    c = valkey.client()
    c.flushall()
    yield c
    c.close()


def run(binary, args, env, input=None, timeout=30):
    res = subprocess.run([binary, *map(str, args)], input=input, capture_output=True, env=env,
                         timeout=timeout)
    return res.returncode, res.stdout, res.stderr


def named(result, name):
    """The output with the tool's own name (and version) made neutral."""
    rc, out, err = result
    fix = lambda b: re.sub(rb"%s( \d+\.\d+\.\d+)?" % name.encode(), b"<cli>", b)
    return rc, fix(out), fix(err)


def assert_same(args, env, input=None):
    expected = named(run(VALKEY_CLI, args, env, input), "valkey-cli")
    got = named(run(VIREO_CLI, args, env, input), "vireo-cli")
    assert got == expected, f"args {args}"
    return got


def at(server):
    return ["-h", server.host, "-p", str(server.port)]


# --------------------------------------------------------------------------------------------
# --help and --version


def help_blocks(text):
    """[(flag, lines)] of the options part of --help, in order."""
    blocks = []
    for line in text.split("\n"):
        if line.startswith("Cluster Manager Commands:"):
            break
        m = re.match(r"^  (-\S+)", line)
        if m:
            blocks.append((m.group(1), [line]))
        elif blocks and line.startswith("     "):
            blocks[-1][1].append(line)
    return blocks


def test_help_matches(env):
    _, theirs, _ = named(run(VALKEY_CLI, ["--help"], env), "valkey-cli")
    rc, ours, _ = named(run(VIREO_CLI, ["--help"], env), "vireo-cli")
    assert rc == 0
    theirs_blocks = [(f, b) for f, b in help_blocks(theirs.decode()) if f not in UNSUPPORTED]
    ours_blocks = [(f, b) for f, b in help_blocks(ours.decode()) if f not in VIREO_ONLY]
    assert [f for f, _ in ours_blocks] == [f for f, _ in theirs_blocks]
    for (flag, ours_lines), (_, theirs_lines) in zip(ours_blocks, theirs_blocks):
        if flag in ENV_LINES:
            assert len(ours_lines) == len(theirs_lines), flag
            continue
        assert ours_lines == theirs_lines, flag
    # The text around the options (usage line, examples, closing words) is the same.
    tail = lambda t: t.split(b"\nCluster Manager Commands:\n")[1]
    assert tail(ours) == tail(theirs)
    assert ours.split(b"\n")[:3] == theirs.split(b"\n")[:3]


def test_bare_help(valkey, env):
    # valkey-cli goes on with its ":set hints" preferences, which libedit has no use for.
    for word in ("help", "?"):
        ours = named(run(VIREO_CLI, at(valkey) + [word], env), "vireo-cli")
        theirs = named(run(VALKEY_CLI, at(valkey) + [word], env), "valkey-cli")
        assert theirs[1].startswith(ours[1]) and ours[1].endswith(b"\"quit\" to exit\n")
        assert theirs[1][len(ours[1]):].startswith(b"\nTo set <cli> preferences:\n")
        assert (ours[0], ours[2]) == (theirs[0], theirs[2])


def test_version_shape(env):
    rc, out, _ = run(VIREO_CLI, ["--version"], env)
    assert rc == 0 and re.fullmatch(rb"vireo-cli \d+\.\d+\.\d+\n", out)
    assert re.fullmatch(rb"valkey-cli \d+\.\d+\.\d+\n", run(VALKEY_CLI, ["--version"], env)[1])


# --------------------------------------------------------------------------------------------
# Reply formatting

COMMANDS = [
    ["get", "s"], ["get", "bin"], ["get", "ctl"], ["get", "missing"], ["strlen", "s"],
    ["set", "k", "v"], ["foo", "bar"], ["get"], ["lrange", "l", "0", "-1"],
    ["lrange", "nolist", "0", "-1"], ["hgetall", "h"], ["hgetall", "nohash"],
    ["smembers", "set"], ["zrange", "z", "0", "-1", "withscores"], ["zscore", "z", "top"],
    ["config", "get", "maxmemory-policy"], ["xrange", "x", "-", "+"],
    ["eval", "return {1,{2,'a'},{},{err='inner'}}", "0"],
    ["eval", "return redis.error_reply('my \"quoted\" error')", "0"],
    ["debug", "protocol", "map"], ["debug", "protocol", "set"], ["debug", "protocol", "double"],
    ["debug", "protocol", "true"], ["debug", "protocol", "false"], ["debug", "protocol", "null"],
    ["debug", "protocol", "verbatim"], ["debug", "protocol", "array"],
    ["debug", "protocol", "push"], ["info", "keyspace"],
]


def fill(vc):
    vc.set("s", "hello\nworld")
    vc.set("bin", b"\xe2\x82\xac\x00\x01\x7f\x80\"\\'")
    vc.set("ctl", b"\b\f\t\r/")
    vc.rpush("l", "a", "b c")
    vc.hset("h", mapping={'a"b\\': b"x\ty\x1f", "f": "v"})
    vc.sadd("set", "m")
    vc.zadd("z", {"top": float("inf"), "m": 1.5})
    vc.xadd("x", {"f": "v"}, id="1-1")


@pytest.mark.parametrize("mode", [[], ["--no-raw"], ["--raw"], ["--csv"], ["--json"],
                                  ["--quoted-json"], ["-2", "--json"], ["-2", "--quoted-json"],
                                  ["-3"], ["-3", "--no-raw"], ["-3", "--csv"], ["-3", "--raw"],
                                  ["--json", "--raw"], ["--quoted-json", "--no-raw"],
                                  ["--json", "-2", "--no-raw"],
                                  ["-d", ",", "-D", ";"]])
def test_replies_match(vc, valkey, env, mode):
    fill(vc)
    for command in COMMANDS:
        assert_same(at(valkey) + mode + command, env)


def test_repeat_stdin_and_db(vc, valkey, env):
    a = at(valkey)
    assert_same(a + ["-r", "3", "ping"], env)
    assert_same(a + ["-r", "2", "-i", "0.01", "--json", "ping"], env)
    assert_same(a + ["-x", "set", "xk"], env, input=b"from stdin\n")
    assert_same(a + ["-X", "tag", "set", "tag", "xk"], env, input=b"tagged")
    assert_same(a + ["-X", "tag", "set", "xk", "v"], env, input=b"tagged")
    assert_same(a + ["-n", "3", "set", "k", "in3"], env)
    assert_same(a + ["-n", "3", "get", "k"], env)
    assert_same(a + ["-n", "99", "ping"], env)
    assert_same(a + ["-e", "foo"], env)
    assert_same(a + ["-e", "get", "xk"], env)
    assert_same(a + ["-t", "1.5", "-4", "ping"], env)
    assert_same(a + ["-6", "ping"], env)


# --------------------------------------------------------------------------------------------
# Connections, authentication and option errors


def test_connection_and_option_errors(valkey, env, tmp_path):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed = s.getsockname()[1]
    s.close()
    assert_same(["-p", closed, "ping"], env)
    assert_same(["-s", tmp_path / "nosock", "ping"], env)
    a = at(valkey)
    for args in (["--bogus"], ["-p"], ["-a", "pw", "ping"], ["--pass", "pw", "ping"],
                 ["--user", "u", "--pass", "pw", "ping"], ["--user", "u", "ping"],
                 ["-a", "pw", "--no-auth-warning", "ping"], ["--hotkeys"],
                 ["-2", "-3", "ping"], ["-x", "-X", "t", "ping"],
                 ["--keystats"]):  # valkey-cli 8.1's flag, unknown to 8.0.1
        assert_same(a + args, env)
    for uri in ("valkey://127.0.0.1:%d/2", "redis://127.0.0.1:%d", "valkey://:pw@127.0.0.1:%d",
                "valkey://user%%zz:pw@127.0.0.1:%d", "http://127.0.0.1:%d"):
        assert_same(["-u", uri % valkey.port, "ping"], env)


# --------------------------------------------------------------------------------------------
# Modes


def test_pipe_and_scan(vc, valkey, env):
    a = at(valkey)
    assert_same(a + ["--pipe"], env, input=b"SET a 1\r\nGET a\r\n*1\r\n$4\r\nPING\r\nINCR a\r\n")
    assert_same(a + ["--pipe"], env, input=b"INCR nope\r\nSET a\r\n")
    for i in range(30):
        vc.set(f"key:{i}", i)
    vc.set("other", 1)
    for mode in ([], ["--no-raw"], ["--json"]):
        # The server may still be rehashing between the two runs, which reorders SCAN's replies:
        # the lines are compared as sets.
        args = a + mode + ["--scan", "--pattern", "key:*", "--count", "5"]
        rc, out, err = run(VIREO_CLI, args, env)
        vrc, vout, verr = run(VALKEY_CLI, args, env)
        assert (rc, err) == (vrc, verr) and sorted(out.splitlines()) == sorted(vout.splitlines())
        assert rc == 0 and len(out.splitlines()) == 30


@pytest.mark.parametrize("keys", [
    {}, {"s": "string"}, {"l": "list"}, {"h": "hash"}, {"z": "zset"},
    {"a": "string", "b": "list"},
    {"s": "string", "l": "list", "h": "hash", "t": "set", "z": "zset", "x": "stream",
     "s2": "string"}])
def test_bigkeys_and_memkeys(vc, valkey, env, keys):
    # The summary's type order follows valkey-cli's dict, which depends on the TYPE lookups.
    for name, kind in keys.items():
        {"string": lambda: vc.set(name, "v" * 5), "list": lambda: vc.rpush(name, 1, 2),
         "hash": lambda: vc.hset(name, "f", 1), "set": lambda: vc.sadd(name, 1),
         "zset": lambda: vc.zadd(name, {"m": 1}),
         "stream": lambda: vc.xadd(name, {"f": 1})}[kind]()
    for mode in (["--bigkeys"], ["--memkeys"], ["--memkeys-samples", "3"]):
        assert_same(at(valkey) + mode, env)
    vc.config_set("maxmemory-policy", "allkeys-lfu")
    try:
        assert_same(at(valkey) + ["--hotkeys"], env)
    finally:
        vc.config_set("maxmemory-policy", "noeviction")


def _first_lines(binary, args, env, count, timeout=10):
    proc = subprocess.Popen([binary, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    lines = [proc.stdout.readline() for _ in range(count)]
    proc.kill()
    proc.wait(timeout=timeout)
    return lines


def test_stat_and_latency_shapes(valkey, env):
    a = at(valkey)
    # --stat: the two header lines, then a row (numbers masked).
    mask = lambda lines: [re.sub(rb"[0-9.]+[KMG]?", b"N", line) for line in lines]
    theirs = _first_lines(VALKEY_CLI, a + ["--stat", "-i", "0.1"], env, 3)
    ours = _first_lines(VIREO_CLI, a + ["--stat", "-i", "0.1"], env, 3)
    assert ours[:2] == theirs[:2]
    assert re.sub(rb" +", b" ", mask(ours)[2]) == re.sub(rb" +", b" ", mask(theirs)[2])
    shape = lambda r: (r[0], re.sub(rb"\d+(\.\d+)?", b"N", r[1]), r[2])
    for mode in ([], ["--raw"], ["--csv"], ["--json"]):
        args = a + ["--latency", "-i", "0.2", *mode]
        assert shape(run(VIREO_CLI, args, env)) == shape(run(VALKEY_CLI, args, env)), mode
    # --intrinsic-latency 0 runs one round (timings masked; "inf" when the average is 0).
    masked = lambda r: (r[0], re.sub(rb"-?(\d+(\.\d+)?|inf)", b"N", r[1]), r[2])
    args = ["--intrinsic-latency", "0"]
    assert masked(run(VIREO_CLI, args, env)) == masked(run(VALKEY_CLI, args, env))
    args = a + ["--latency-history", "-i", "0.3"]
    ours = [re.sub(rb"\d+(\.\d+)?", b"N", x) for x in _first_lines(VIREO_CLI, args, env, 3)]
    theirs = [re.sub(rb"\d+(\.\d+)?", b"N", x) for x in _first_lines(VALKEY_CLI, args, env, 3)]
    assert ours == theirs


# --------------------------------------------------------------------------------------------
# Cluster manager


def test_cluster_manager_texts(valkey, env):
    node = f"127.0.0.1:{valkey.port}"
    # A bare --cluster prints the usage (compared in test_help_matches) and exits 1.
    assert run(VIREO_CLI, ["--cluster"], env)[0] == run(VALKEY_CLI, ["--cluster"], env)[0] == 1
    for args in (["--cluster", "help"], ["--cluster", "nope"],
                 ["--cluster", "create", node], ["--cluster", "create", node, node, node],
                 ["--cluster", "check", node], ["--cluster", "info", node],
                 ["--cluster", "fix"], ["--cluster", "add-node", node],
                 ["--cluster", "call", node, "ping"], ["--cluster", "import", node],
                 ["--cluster", "check", node, "--cluster-only-primaries"],
                 ["--cluster", "check", node, "--cluster-use-empty-primaries"],
                 ["--cluster", "check", node, "--cluster-fix-with-unreachable-primaries"],
                 ["--cluster", "check", node, "--cluster-primary-id", "x"],
                 ["--cluster", "check", node, "--cluster-master-id", "x"]):
        assert_same(args, env)


def test_cluster_manager_with_a_cluster(valkey_cluster, env):
    node = f"127.0.0.1:{valkey_cluster[0].port}"
    valkey_cluster[0].client()  # the cluster is up
    for args in (["--cluster", "check", node], ["--cluster", "info", node],
                 ["--cluster", "call", node, "DBSIZE"],
                 ["--cluster", "call", node, "PING", "--cluster-only-primaries"],
                 ["--cluster", "call", node, "PING", "--cluster-only-replicas"],
                 ["--cluster", "fix", node], ["--cluster", "set-timeout", node, "5000"],
                 ["--cluster", "rebalance", node, "--cluster-threshold", "0.1",
                  "--cluster-simulate"],
                 ["--cluster", "del-node", node, "0" * 40], ["--cluster", "add-node", node, node],
                 ["-c", "-p", valkey_cluster[0].port, "set", "foo", "bar"],
                 ["-c", "-p", valkey_cluster[0].port, "get", "foo"],
                 ["-p", valkey_cluster[0].port, "get", "foo"]):
        assert_same(args, env)


def test_authentication_messages(tmp_path, env):
    s = ServerProcess(VALKEY_SERVER, tmp_path / "auth", ["--requirepass", "sek"])
    s.start()
    try:
        a = at(s)
        for args in (["-a", "wrong", "ping"], ["ping"], ["--user", "bob", "--pass", "x", "ping"],
                     ["-a", "sek", "-n", "100", "ping"], ["-a", "sek", "--no-auth-warning", "-3",
                                                          "ping"]):
            assert_same(a + args, env)
        for uri in ("valkey://default:sek@127.0.0.1:%d/3", "valkey://default:wrong@127.0.0.1:%d"):
            assert_same(["-u", uri % s.port, "ping"], env)
    finally:
        _teardown([s])


def _prompts(binary, args, lines, env):
    """The prompt lines an interactive session shows (escapes and redraws dropped). Each line is
    typed once the prompt before it is on screen rather than after a fixed pause, which a slow
    start (a sanitizer build on a loaded machine) could outrun."""
    import pty
    import select
    import time
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(binary, [binary, *map(str, args)], env)
    out = b""

    def clean(raw):
        return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", raw).replace(b"\r", b"")

    def read_some(timeout):
        nonlocal out
        if not select.select([fd], [], [], timeout)[0]:
            return
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        out += chunk
        if b"\x1b[6n" in chunk:
            os.write(fd, b"\x1b[1;1R")

    def await_prompt(since):
        # A prompt waiting for input ends the output (the echo of a typed line does not), then a
        # little longer for the redraws that follow it.
        end = time.monotonic() + 20
        while time.monotonic() < end and not re.search(rb"valkey [^\n>]*> $", clean(out[since:])):
            read_some(0.05)
        settle = time.monotonic() + 0.2
        while time.monotonic() < settle:
            read_some(0.02)

    await_prompt(0)
    for line in lines:
        since = len(out)
        os.write(fd, line.encode() + b"\r")
        await_prompt(since)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    os.close(fd)
    # linenoise redraws a line several times where libedit writes it once.
    return list(dict.fromkeys(re.findall(rb"valkey [^\n>]*> (?:ping|select 2)", clean(out))))


def test_unix_socket_prompt(tmp_path, env):
    # A short path: the prompt must fit the terminal's 80 columns with the command typed after
    # it (pytest-xdist's tmp_path alone made it wrap, which the two line editors draw apart).
    short = Path(tempfile.mkdtemp(prefix="vs", dir="/tmp"))
    sock = short / "v.sock"
    s = ServerProcess(VALKEY_SERVER, tmp_path / "unix", ["--unixsocket", str(sock)])
    s.start()
    try:
        steps = ["select 2", "ping"]
        ours = _prompts(VIREO_CLI, ["-s", sock], steps, env)
        assert ours == _prompts(VALKEY_CLI, ["-s", sock], steps, env)
        assert ours[-1] == f"valkey {sock}[2]> ping".encode()
    finally:
        _teardown([s])
        shutil.rmtree(short, ignore_errors=True)
