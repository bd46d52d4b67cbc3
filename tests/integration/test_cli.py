"""vireo-cli against Debian's redis-cli: the same arguments against the same server must give
the same stdout, stderr and exit code, byte for byte.

Most tests use the shared vireo-server; what vireo-server cannot do yet (lists, EVAL, DEBUG
PROTOCOL, cluster mode) runs against a reference redis-server. The binary comes from
$VIREO_CLI (default <repo>/build/vireo-cli).
"""

import fcntl
import os
import pty
import random
import re
import select
import signal
import struct
import subprocess
import termios
import time

import pytest

from conftest import ServerProcess, _teardown, built_binary, free_port, valkey_words

VIREO_CLI = built_binary("VIREO_CLI", "vireo-cli")
REDIS_CLI = "/usr/bin/redis-cli"
REDIS_SERVER = "/usr/bin/redis-server"
CLIS = (REDIS_CLI, VIREO_CLI)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A clean environment: no password variables, no history in the real home."""
    home = tmp_path_factory.mktemp("home")
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("REDISCLI_", "VIREOCLI_", "FAKETTY"))}
    e.update(HOME=str(home), TERM="xterm")
    return e


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A redis-server for the commands vireo-server does not have yet."""
    s = ServerProcess(REDIS_SERVER, tmp_path_factory.mktemp("ref"),
                      ["--enable-debug-command", "yes"])
    s.start()
    yield s
    _teardown([s])


def run(binary, args, env, input=None, timeout=30):
    res = subprocess.run([binary, *map(str, args)], input=input, capture_output=True,
                         env=env, timeout=timeout)
    if binary == REDIS_CLI:
        return res.returncode, valkey_words(res.stdout), valkey_words(res.stderr)
    return res.returncode, res.stdout, res.stderr


def assert_same(args, env, input=None):
    """Runs both clis; returns vireo-cli's (rc, stdout, stderr) after checking they agree."""
    expected = run(REDIS_CLI, args, env, input)
    got = run(VIREO_CLI, args, env, input)
    assert got == expected, f"args {args}"
    return got


def at(server):
    return ["-h", server.host, "-p", str(server.port)]


# --------------------------------------------------------------------------------------------
# One-shot commands

READ_COMMANDS = [
    ["ping"], ["get", "s"], ["get", "missing"], ["mget", "s", "missing", "n"], ["exists", "s"],
    ["strlen", "s"], ["type", "s"], ["ttl", "s"], ["echo", "a b\n\"c\""], ["get", "bin"],
    ["foo", "bar"], ["get"], ["config", "get", "maxmemory*"], ["exists", "s", "n", "x"],
    ["object", "encoding", "n"], ["select", "99"], ["command", "info", "get"],
    ["command", "docs", "get"], ["dbsize"], ["set", "s", "hello world"], ["incrbyfloat", "f", "0"],
]


@pytest.mark.parametrize("mode", [[], ["--no-raw"], ["--csv"], ["-3"], ["-3", "--no-raw"],
                                  ["-d", ",", "-D", ";"]])
def test_one_shot_output_matches(sr, shared_server, env, mode):
    sr.set("s", "hello world")
    sr.set("n", 12)
    sr.set("f", "1.5")
    sr.set("bin", b"\x00\xff\r\n\"'")
    for command in READ_COMMANDS:
        assert_same(at(shared_server) + mode + command, env)


def run_tty(binary, args, env):
    """Runs with stdout on a pseudo-terminal (the default terminal formatting)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    proc = subprocess.Popen([binary, *args], stdout=slave, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    err = proc.stderr.read()
    proc.stderr.close()
    return proc.wait(timeout=30), out, err


def test_terminal_formatting_on_a_pty(sr, shared_server, env):
    sr.set("s", "v")
    for command in (["mget", "s", "nope"], ["get", "s"], ["dbsize"], ["foo"],
                    ["config", "get", "maxmemory*"], ["info", "keyspace"]):
        args = at(shared_server) + command
        assert run_tty(VIREO_CLI, args, env) == run_tty(REDIS_CLI, args, env), command
    rc, out, _ = run_tty(VIREO_CLI, at(shared_server) + ["mget", "s", "nope"], env)
    assert out == b'1) "v"\r\n2) (nil)\r\n'


def test_resp3_and_nested_types_against_redis(reference, env):
    c = reference.client()
    c.flushall()
    c.xadd("x", {"a": "b"}, id="1-1")
    c.rpush("l", "a", "b", "c d")
    c.hset("h", mapping={"f": "v", "g": "w"})
    for mode in ([], ["--no-raw"], ["-3"], ["-3", "--no-raw"], ["--csv"]):
        for command in (["debug", "protocol", "map"], ["debug", "protocol", "set"],
                        ["debug", "protocol", "double"], ["debug", "protocol", "true"],
                        ["debug", "protocol", "false"], ["debug", "protocol", "null"],
                        ["debug", "protocol", "verbatim"], ["xinfo", "stream", "x", "full"],
                        ["command", "docs", "set"], ["lrange", "l", "0", "-1"],
                        ["hgetall", "h"], ["lrange", "nolist", "0", "-1"]):
            assert_same(at(reference) + mode + command, env)


def test_error_replies_and_exit_codes(sr, shared_server, env):
    rc, out, err = assert_same(at(shared_server) + ["foo"], env)
    assert (rc, err) == (0, b"")
    assert out == b"ERR unknown command 'foo', with args beginning with: \n\n"
    rc, out, err = assert_same(at(shared_server) + ["-e", "foo"], env)
    assert (rc, out) == (1, b"")
    assert err == b"ERR unknown command 'foo', with args beginning with: \n"
    assert assert_same(at(shared_server) + ["-e", "--no-raw", "get"], env)[0] == 1
    assert assert_same(at(shared_server) + ["-e", "-r", "3", "foo"], env)[0] == 1
    assert assert_same(at(shared_server) + ["-e", "ping"], env)[0] == 0


@pytest.mark.parametrize("args", [
    ["--foo"], ["-p"], ["-h", "127.0.0.1", "-n"], ["-2", "-3", "ping"], ["-x", "-X", "t", "ping"],
    ["-c", "-s", "/tmp/x", "ping"], ["--pipe-timeout"], ["-u", "http://x", "ping"],
    # 65537 wraps to port 1 in both tools (99999 wrapped to 34463, where a test server may
    # listen: the ping then succeeded).
    ["-u", "redis://127.0.0.1:65537", "ping"], ["--cluster", "foo"], ["--cluster", "create"],
    ["--cluster", "check"], ["--cluster", "add-node", "127.0.0.1:1"], ["--cluster"],
    ["-p", "1", "ping"], ["-p", "abc", "ping"], ["-p", "70000", "ping"], ["-p", "-1", "ping"],
    ["-s", "/nonexistent/vireo.sock", "ping"], ["-p", "1", "-a", "x", "--no-raw", "ping"],
    ["-p", "1", "--pipe"], ["-p", "1", "--scan"], ["-p", "1", "--bigkeys"],
    ["--eval", "/nonexistent.lua"],
])
def test_bad_arguments_and_unreachable_servers(env, args):
    rc, _, err = run(VIREO_CLI, args, env)
    expected = run(REDIS_CLI, args, env)
    if args[:1] == ["--cluster"] and len(args) == 1:
        # The usage text names the tool; only the exit code and stream must agree.
        assert (rc, bool(err)) == (expected[0], bool(expected[2]))
        return
    assert (rc, _, err) == expected
    assert rc == 1


def test_auth_and_select(start_server, env):
    server = start_server("--requirepass", "secret")
    for args in (["ping"], ["-a", "secret", "ping"], ["-a", "wrong", "ping"],
                 ["--pass", "secret", "--no-auth-warning", "ping"],
                 ["--user", "default", "-a", "secret", "ping"],
                 ["--user", "nobody", "-a", "secret", "ping"],
                 ["-a", "secret", "-n", "3", "--no-raw", "dbsize"],
                 ["-a", "secret", "-n", "99", "ping"]):
        assert_same(at(server) + args, env)
    uri = f"redis://:secret@{server.host}:{server.port}/2"
    assert_same(["-u", uri, "ping"], env)
    assert_same(["-u", f"redis://default:secret@{server.host}:{server.port}", "ping"], env)
    with_env = dict(env, REDISCLI_AUTH="secret")
    assert assert_same(at(server) + ["ping"], with_env)[1] == b"PONG\n"


def test_stdin_arguments(sr, shared_server, env):
    payload = b"line one\nline \x00two\n"
    assert_same(at(shared_server) + ["-x", "set", "k1"], env, input=payload)
    assert sr.get("k1") == payload.decode("utf-8")
    assert_same(at(shared_server) + ["-X", "TAG", "set", "k2", "TAG"], env, input=b"tagged")
    assert sr.get("k2") == "tagged"
    assert_same(at(shared_server) + ["-X", "TAG", "set", "k2", "nope"], env, input=b"x")
    assert_same(at(shared_server) + ["--quoted-input", "set", '"a\\x00b"', "v"], env)
    assert_same(at(shared_server) + ["--quoted-input", "get", '"a\\x00b"'], env)
    assert_same(at(shared_server) + ["--quoted-input", "get", '"a'], env)


def test_repeat_and_interval(sr, shared_server, env):
    assert assert_same(at(shared_server) + ["-r", "3", "-i", "0.01", "ping"], env)[1] == \
        b"PONG\nPONG\nPONG\n"
    assert assert_same(at(shared_server) + ["-r", "0", "ping"], env)[1] == b""
    assert_same(at(shared_server) + ["-r", "2", "-D", ",", "mget", "a", "b"], env)
    rc, out, _ = run(VIREO_CLI, at(shared_server) + ["-r", "5", "incr", "counter"], env)
    assert out == b"1\n2\n3\n4\n5\n"


# --------------------------------------------------------------------------------------------
# Modes

def resp_sets(count, prefix="key"):
    parts = []
    for i in range(count):
        key = f"{prefix}:{i}".encode()
        parts.append(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$3\r\nval\r\n" % (len(key), key))
    return b"".join(parts)


def test_pipe_mass_insertion(sr, shared_server, env):
    data = resp_sets(100000)
    rc, out, err = run(VIREO_CLI, at(shared_server) + ["--pipe"], env, input=data)
    assert (rc, err) == (0, b"")
    assert out == (b"All data transferred. Waiting for the last reply...\n"
                   b"Last reply received from server.\n"
                   b"errors: 0, replies: 100000\n")
    assert sr.dbsize() == 100000
    assert sr.get("key:99999") == "val"
    sr.flushall()
    assert run(REDIS_CLI, at(shared_server) + ["--pipe"], env, input=data) == (rc, out, err)


def test_pipe_reports_errors(sr, shared_server, env):
    data = resp_sets(10) + b"*1\r\n$3\r\nFOO\r\n" + b"*2\r\n$4\r\nINCR\r\n$5\r\nkey:1\r\n"
    rc, out, err = assert_same(at(shared_server) + ["--pipe"], env, input=data)
    assert rc == 1
    assert out.endswith(b"errors: 2, replies: 12\n")
    assert err.count(b"\n") == 2
    assert assert_same(at(shared_server) + ["--pipe"], env, input=b"")[1].endswith(
        b"errors: 0, replies: 0\n")


def assert_same_lines(args, env):
    """Like assert_same, for output whose order may change between runs (SCAN while the
    server's table rehashes)."""
    expected = run(REDIS_CLI, args, env)
    got = run(VIREO_CLI, args, env)
    assert (got[0], got[2]) == (expected[0], expected[2]), f"args {args}"
    assert sorted(got[1].split(b"\n")) == sorted(expected[1].split(b"\n")), f"args {args}"
    return got


def test_scan_modes(sr, shared_server, env):
    sr.mset({f"k{i}": i for i in range(300)})
    sr.set("other", 1)
    _, out, _ = assert_same_lines(at(shared_server) + ["--scan"], env)
    assert sorted(out.split()) == sorted(k.encode() for k in sr.keys("*"))
    _, out, _ = assert_same_lines(at(shared_server) + ["--scan", "--pattern", "k1*"], env)
    assert len(out.split()) == 111
    assert_same(at(shared_server) + ["--no-raw", "--scan", "--pattern", "oth*"], env)
    # --count is valkey-cli's; redis-cli 7.0 rejects it.
    _, out, _ = run(VIREO_CLI, at(shared_server) + ["--scan", "--count", "1000"], env)
    assert len(out.split()) == 301


def test_bigkeys_and_memkeys(sr, shared_server, reference, env):
    sr.mset({"a": "x" * 10, "bb": "y" * 50, "c": "1"})
    assert_same_lines(at(shared_server) + ["--bigkeys"], env)
    assert_same_lines(at(shared_server) + ["--bigkeys", "-n", "5"], env)
    # vireo-server has no MEMORY USAGE yet: every key warns and counts 0 bytes, as redis-cli.
    assert_same_lines(at(shared_server) + ["--memkeys"], env)
    c = reference.client()
    c.flushall()
    c.set("s", "abc")
    c.rpush("l", *range(5))
    c.sadd("set", 1, 2)
    c.hset("h", "f", "v")
    c.zadd("z", {"a": 1})
    c.xadd("x", {"a": "b"})
    assert_same_lines(at(reference) + ["--bigkeys"], env)
    assert_same_lines(at(reference) + ["--memkeys"], env)
    assert_same_lines(at(reference) + ["--memkeys-samples", "3"], env)
    assert_same_lines(at(reference) + ["--hotkeys"], env)


def test_eval_against_redis(reference, env, tmp_path):
    script = tmp_path / "s.lua"
    script.write_text("return {KEYS[1], ARGV[1], #KEYS, #ARGV}\n")
    for mode in ([], ["--no-raw"]):
        assert_same(at(reference) + mode + ["--eval", script, "k1", "k2", ",", "a1", "a2"], env)
        assert_same(at(reference) + mode + ["--eval", script], env)
    bad = tmp_path / "bad.lua"
    bad.write_text("return redis.call('nosuch')\n")
    assert_same(at(reference) + ["--eval", bad], env)
    assert_same(at(reference) + ["-e", "--eval", bad], env)


def test_latency_and_stat(sr, shared_server, env):
    rc, out, err = run(VIREO_CLI, at(shared_server) + ["--latency", "-i", "0.2"], env)
    assert (rc, err) == (0, b"")
    assert re.fullmatch(rb"\d+ \d+ \d+\.\d\d \d+\n", out), out
    lines = []
    for mode in (["--latency-history", "-i", "0.1"], ["--stat", "-i", "0.1"]):
        proc = subprocess.Popen([VIREO_CLI, *at(shared_server), *mode], stdout=subprocess.PIPE,
                                env=env)
        lines = [proc.stdout.readline() for _ in range(4)]
        proc.kill()
        proc.wait()
        proc.stdout.close()
        if mode[0] == "--latency-history":
            assert all(re.fullmatch(rb"\d+ \d+ \d+\.\d\d \d+\n", l) for l in lines[:2]), lines
    assert lines[0] == (b"------- data ------ --------------------- load -------------------- "
                        b"- child -\n")
    assert lines[1] == (b"keys       mem      clients blocked requests            connections"
                        b"          \n")
    assert re.match(rb"0 +\d+(\.\d\d)?[BKMG] +\d+ +0 +\d+ \(\+0\) +\d+ +\n", lines[2]), lines[2]


def test_help(sr, shared_server, env):
    for topic in (["set"], ["SET"], ["@string"], ["config"], ["config", "get"], ["nosuch"],
                  ["@nosuchgroup"]):
        assert_same(at(shared_server) + ["help", *topic], env)
    _, out, _ = run(VIREO_CLI, at(shared_server) + ["help"], env)
    assert out.startswith(b"vireo-cli ")
    rc, out, _ = run(VIREO_CLI, ["--version"], env)
    assert rc == 0 and re.fullmatch(rb"vireo-cli \d+\.\d+\.\d+\n", out)
    for args in (["--help"], ["-h"]):
        rc, out, _ = run(VIREO_CLI, args, env)
        assert rc == 0 and out.startswith(b"vireo-cli ") and b"--pipe" in out


def test_unix_socket(start_server, env, tmp_path):
    sock = tmp_path / "vireo.sock"
    server = start_server("--unixsocket", str(sock))
    server.client().set("k", "v")
    assert assert_same(["-s", sock, "get", "k"], env)[1] == b"v\n"


# --------------------------------------------------------------------------------------------
# The REPL

PROMPT = re.compile(r"(?:not connected|127\.0\.0\.1:\d+(?:\[\d+\])?(?:\(TX\))?)> ")


def drive_repl(binary, args, steps, env, delay=0.25):
    """Types lines into the cli on a pseudo-terminal; returns what a user would read: one line
    per prompt (the prompt and the typed command) and the replies, escapes removed."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(binary, [binary, *map(str, args)], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    out = b""

    def read_for(seconds):
        nonlocal out
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.02)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            out += chunk
            if b"\x1b[6n" in chunk:  # linenoise asks for the cursor position
                os.write(fd, b"\x1b[1;1R")

    read_for(0.5)
    for step in steps:
        if callable(step):
            step()
            continue
        os.write(fd, step.encode() + b"\r")
        read_for(delay)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.decode("latin-1")).replace("\r", "")
    if binary == REDIS_CLI:
        text = valkey_words(text)
    lines = []
    for line in text.split("\n"):
        found = list(PROMPT.finditer(line))
        # The last redraw of a prompt line is what stays on the screen (redis-cli's hints
        # leave a trailing blank).
        lines.append(line[found[-1].start():].rstrip(" ") if found else line)
    return "\n".join(lines).rstrip()


def test_repl_session_and_history(sr, shared_server, env, tmp_path):
    steps = ["set a 1", "get a", "select 2", "get a", "hgetall nokey", "foo", 'echo "x y', "3 ping",
             "0 ping", "multi", "ping", "exec", "auth secret", "help get", "select 0", "quit"]
    transcripts = []
    histories = []
    for i, binary in enumerate(CLIS):
        hist = tmp_path / f"history{i}"
        e = dict(env, REDISCLI_HISTFILE=str(hist), VIREOCLI_HISTFILE=str(hist))
        sr.flushall()
        transcripts.append(drive_repl(binary, at(shared_server), steps, e))
        histories.append(hist.read_text())
    # The one message that names the tool.
    transcripts[0] = transcripts[0].replace("Invalid redis-cli repeat", "Invalid vireo-cli repeat")
    assert transcripts[1] == transcripts[0]
    assert "Invalid vireo-cli repeat command option value." in transcripts[1]
    port = shared_server.port
    assert f"127.0.0.1:{port}[2]> 3 ping\nPONG\nPONG\nPONG\n" in transcripts[1]
    assert histories[1] == histories[0]
    assert "auth" not in histories[1] and "3 ping" in histories[1]


def test_repl_transaction_prompt(reference, env):
    steps = ["select 1", "multi", "select 2", "ping", "exec", "multi", "discard", "reset"]
    transcripts = [drive_repl(binary, at(reference), steps, env) for binary in CLIS]
    assert transcripts[1] == transcripts[0]
    port = reference.port
    assert f"127.0.0.1:{port}[2](TX)> exec\n1) OK\n2) PONG\n127.0.0.1:{port}[2]> " in \
        transcripts[1]


def test_repl_reconnects(start_server, env):
    server = start_server()
    transcripts = []
    for binary in CLIS:
        server.restart()
        steps = ["ping", "select 3", server.stop, "ping", "ping",
                 lambda: server.start(port=server.port), "ping", "dbsize"]
        transcripts.append(drive_repl(binary, at(server), steps, env))
    assert transcripts[1] == transcripts[0]
    assert "Error: Server closed the connection\nnot connected> ping\nCould not connect" \
        in transcripts[1]
    assert f"127.0.0.1:{server.port}[3]> dbsize\n(integer) 0\n" in transcripts[1]


def test_repl_reads_piped_lines(sr, shared_server, env):
    lines = b'set q 1\nget q\nfoo\n\n   \nget "a b\n3 ping\n-1 ping\nselect 2\nquit\nping\n'
    for mode in ([], ["--no-raw"]):
        expected = run(REDIS_CLI, at(shared_server) + mode, env, input=lines)
        got = run(VIREO_CLI, at(shared_server) + mode, env, input=lines)
        # The one message that names the tool.
        assert got[1] == expected[1].replace(b"Invalid redis-cli", b"Invalid vireo-cli")
        assert (got[0], got[2]) == (expected[0], expected[2])
    assert_same(["-p", str(free_port())], env, input=b"ping\nping\n")


# --------------------------------------------------------------------------------------------
# Cluster manager (against redis-server cluster nodes)

def normalize_cluster(text, ports):
    text = re.sub(rb"[0-9a-f]{40}", b"<id>", text)
    text = re.sub(rb"\([0-9a-f]{8}\.\.\.\)", b"(<id>...)", text)
    text = re.sub(rb"Waiting for the cluster to join\n\.*\n", b"Waiting...\n", text)
    for i, port in enumerate(ports):
        text = text.replace(str(port).encode(), b"<port%d>" % i)
    return text


def cluster_port():
    """A free port whose cluster bus port (+10000) is valid too."""
    for _ in range(100):
        port = free_port()
        if port <= 55535:
            return port
    return random.randint(20000, 30000)


def start_cluster_nodes(start_server, count):
    return [start_server("--port", cluster_port(), "--cluster-enabled", "yes",
                         "--cluster-config-file", "nodes.conf", binary=REDIS_SERVER)
            for _ in range(count)]


def test_cluster_create_check_info(start_server, shared_server, env):
    results = []
    created = None
    for binary in CLIS:
        nodes = start_cluster_nodes(start_server, 3)
        ports = [n.port for n in nodes]
        rc, out, err = run(binary, ["--cluster", "create", *[f"127.0.0.1:{p}" for p in ports],
                                    "--cluster-yes"], env, timeout=60)
        results.append((rc, normalize_cluster(out, ports), err))
        created = nodes
    # The final check lists the other nodes in the order CLUSTER NODES gives them, which
    # depends on the random node ids: compare that part as a set of lines.
    split = [out.partition(b">>> Performing Cluster Check") for _, out, _ in results]
    assert split[1][0] == split[0][0]
    assert sorted(split[1][2].split(b"\n")) == sorted(split[0][2].split(b"\n"))
    assert [r[0] for r in results] == [0, 0] and results[1][2] == results[0][2]
    rc, out, _ = results[1]
    assert rc == 0
    for line in (b"Primary[0] -> Slots 0 - 5460", b"Primary[1] -> Slots 5461 - 10922",
                 b"Primary[2] -> Slots 10923 - 16383", b">>> Sending CLUSTER MEET messages",
                 b"[OK] All 16384 slots covered."):
        assert line in out
    # The same cluster seen through both tools.
    first = f"127.0.0.1:{created[0].port}"
    for args in (["check", first], ["info", "127.0.0.1", str(created[1].port)],
                 ["call", first, "dbsize"], ["check", f"127.0.0.1:{shared_server.port}"],
                 ["del-node", first, "0" * 40], ["help"]):
        assert_same(["--cluster", *args], env)
    # -c follows MOVED to the node that serves the key (once every node sees the cluster up).
    deadline = time.monotonic() + 20
    while not all("cluster_state:ok" in n.client().execute_command("CLUSTER", "INFO")
                  for n in created):
        assert time.monotonic() < deadline, "cluster did not come up"
        time.sleep(0.1)
    for args in (["set", "foo", "bar"], ["get", "foo"], ["--no-raw", "get", "foo"]):
        assert_same(["-c", "-p", created[0].port, *args], env)
    assert assert_same(["-p", created[0].port, "get", "foo"], env)[1].startswith(b"MOVED 12182")


def test_cluster_create_refuses_bad_setups(start_server, env):
    nodes = start_cluster_nodes(start_server, 3)
    addrs = [f"127.0.0.1:{n.port}" for n in nodes]
    assert_same(["--cluster", "create", *addrs, "--cluster-replicas", "1"], env)
    # A node that already knows another node is not empty.
    nodes[0].client().execute_command("CLUSTER", "MEET", "127.0.0.1", nodes[1].port)
    assert_same(["--cluster", "create", *addrs, "--cluster-yes"], env)
    assert_same(["--cluster", "create", "nocolon", *addrs], env)


def wait_until(predicate, what, timeout=20):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_cluster_reshard_add_and_delete_nodes(start_server, env):
    nodes = start_cluster_nodes(start_server, 4)
    addrs = [f"127.0.0.1:{n.port}" for n in nodes]
    clients = [n.client() for n in nodes]
    assert run(VIREO_CLI, ["--cluster", "create", *addrs[:3], "--cluster-yes"], env,
               timeout=60)[0] == 0
    wait_until(lambda: all("cluster_state:ok" in c.execute_command("CLUSTER", "INFO")
                           for c in clients[:3]), "cluster up")
    keys = b"".join(b"set key%d v%d\n" % (i, i) for i in range(200))
    run(VIREO_CLI, ["-c", "-p", nodes[0].port], env, input=keys)
    total = lambda: sum(c.dbsize() for c in clients)
    assert total() == 200

    target = clients[1].execute_command("CLUSTER", "MYID")
    rc, out, err = run(VIREO_CLI, ["--cluster", "reshard", addrs[0], "--cluster-from", "all",
                                   "--cluster-to", target, "--cluster-slots", "1000",
                                   "--cluster-yes"], env, timeout=60)
    assert (rc, err) == (0, b"")
    assert out.count(b"Moving slot ") == 2000  # the plan, then the moves
    assert total() == 200
    rc, out, _ = run(VIREO_CLI, ["--cluster", "info", addrs[0]], env)
    assert b"| 6462 slots |" in out and b"[OK] 200 keys in 3 primaries." in out

    # Rebalance evens the masters out again, moving keys along.
    rc, out, err = run(VIREO_CLI, ["--cluster", "rebalance", addrs[0]], env, timeout=60)
    assert (rc, err) == (0, b"")
    assert b">>> Rebalancing across 3 nodes. Total weight = 3.00" in out
    assert total() == 200
    assert run(VIREO_CLI, ["--cluster", "check", addrs[2]], env)[0] == 0

    rc, out, _ = run(VIREO_CLI, ["--cluster", "add-node", addrs[3], addrs[0]], env, timeout=60)
    assert rc == 0 and b"[OK] New node added correctly." in out
    wait_until(lambda: all("cluster_known_nodes:4" in c.execute_command("CLUSTER", "INFO")
                           for c in clients), "new node known")
    new_id = clients[3].execute_command("CLUSTER", "MYID")
    rc, out, _ = run(VIREO_CLI, ["--cluster", "del-node", addrs[0], new_id], env)
    assert rc == 0 and b">>> Sending CLUSTER RESET SOFT to the deleted node." in out
    assert "cluster_known_nodes:1" in clients[3].execute_command("CLUSTER", "INFO")
