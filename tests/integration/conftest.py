"""Fixtures that run the real vireo-server binary on a free 127.0.0.1 port in a temp dir.

Run with Debian's interpreter: /usr/bin/python3 -m pytest tests/integration
The binary comes from $VIREO_SERVER (default <repo>/build/vireo-server); pointing it at
/usr/bin/redis-server runs the same tests against the reference server. $VIREO_IO_THREADS=N
starts every vireo-server with `--io-threads N --events-per-io-thread 0` (all I/O through the
I/O threads) unless the test sets io-threads itself.

Fixtures:
  start_server(*args, config=None, defaults=True, wait=True) -> ServerProcess  (factory)
  server / r / raw        one fresh server per test, a redis.Redis (decode_responses=True) and a
                          RawConnection to it
  shared_server / sr      one server for the whole session; `sr` flushes it before each test
Helpers:
  redis_cli(server, *args, input=None) -> stdout of /usr/bin/redis-cli
  RawConnection, RespError, Push, Verbatim (importable: `from conftest import ...`)
"""

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

REPO_ROOT = Path(__file__).resolve().parents[2]


def built_binary(env_name, name):
    """The binary named by $env_name, else <repo>/build/name, as an absolute path: servers
    run in their own temp dirs, where a relative path (`make tsan-test`'s) would not resolve."""
    return os.path.abspath(os.environ.get(env_name) or REPO_ROOT / "build" / name)


SERVER_BINARY = built_binary("VIREO_SERVER", "vireo-server")
REDIS_CLI = "/usr/bin/redis-cli"
HOST = "127.0.0.1"
START_TIMEOUT_S = 10.0
STOP_TIMEOUT_S = 5.0
START_ATTEMPTS = 5  # a free port can be taken by someone else before the server binds it
IO_THREADS = os.environ.get("VIREO_IO_THREADS", "")


# --------------------------------------------------------------------------------------------
# RESP parsing for raw-socket tests

class RespError(Exception):
    """An error reply (`-ERR ...` or RESP3 `!`). Returned by read_reply(), not raised."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message

    def __eq__(self, other):
        return isinstance(other, RespError) and other.message == self.message

    def __hash__(self):
        return hash(self.message)

    def __repr__(self):
        return f"RespError({self.message!r})"


class Push(list):
    """A RESP3 push message (`>`)."""

    def __repr__(self):
        return f"Push({list.__repr__(self)})"


class Verbatim(str):
    """A RESP3 verbatim string (`=`); the text without its format prefix, with .format set."""

    format = "txt"


class RawConnection:
    """A plain socket to the server that speaks bytes and parses replies.

    read_reply() maps: simple string -> str, error -> RespError, integer / big number -> int,
    bulk string -> bytes, null (any kind) -> None, array -> list, double -> float,
    boolean -> bool, map -> dict, set -> set (list if elements are unhashable),
    push -> Push, verbatim -> Verbatim. Attributes (`|`) are stored in .last_attributes and
    skipped. read_raw_reply() gives one whole reply as the exact bytes sent instead.
    """

    def __init__(self, host, port, timeout=10.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.last_attributes = None

    # -- sending
    def send(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    @staticmethod
    def encode(*args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            if isinstance(a, str):
                a = a.encode()
            elif isinstance(a, (int, float)):
                a = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def send_command(self, *args):
        self.send(self.encode(*args))

    def call(self, *args):
        """Send one command as a RESP array and return its parsed reply."""
        self.send_command(*args)
        return self.read_reply()

    # -- receiving
    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed by server")
        self.buf += chunk

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                line, self.buf = self.buf[:i], self.buf[i + 2:]
                return line
            self._fill()

    def _exact(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data

    def read_line(self):
        """One raw line without its CRLF (for checking exact bytes)."""
        return self._line()

    def read_raw_reply(self):
        """One whole reply as the exact bytes the server sent (attributes included)."""
        line = self._line()
        raw = line + b"\r\n"
        t, rest = line[:1], line[1:]
        if t in (b"$", b"!", b"=") and int(rest) >= 0:
            raw += self._exact(int(rest)) + b"\r\n"
        elif t in (b"*", b">", b"~") and int(rest) >= 0:
            raw += b"".join(self.read_raw_reply() for _ in range(int(rest)))
        elif t in (b"%", b"|"):
            raw += b"".join(self.read_raw_reply() for _ in range(2 * int(rest)))
            if t == b"|":
                raw += self.read_raw_reply()
        return raw

    def read_reply(self):
        line = self._line()
        if not line:
            raise ValueError("empty reply line")
        t, rest = line[:1], line[1:]
        if t == b"+":
            return rest.decode("utf-8", "replace")
        if t == b"-":
            return RespError(rest.decode("utf-8", "replace"))
        if t == b":" or t == b"(":
            return int(rest)
        if t == b"$" or t == b"!" or t == b"=":
            n = int(rest)
            if n < 0:
                return None
            data = self._exact(n)
            if t == b"!":
                return RespError(data.decode("utf-8", "replace"))
            if t == b"=":
                v = Verbatim(data[4:].decode("utf-8", "replace"))
                v.format = data[:3].decode()
                return v
            return data
        if t == b"*" or t == b">" or t == b"~":
            n = int(rest)
            if n < 0:
                return None
            items = [self.read_reply() for _ in range(n)]
            if t == b">":
                return Push(items)
            if t == b"~":
                try:
                    return set(items)
                except TypeError:
                    return items
            return items
        if t == b"%" or t == b"|":
            n = int(rest)
            pairs = [(self.read_reply(), self.read_reply()) for _ in range(n)]
            try:
                d = dict(pairs)
            except TypeError:
                d = pairs
            if t == b"|":
                self.last_attributes = d
                return self.read_reply()
            return d
        if t == b"_":
            return None
        if t == b",":
            s = rest.decode()
            return float(s)  # float() accepts inf, -inf and nan
        if t == b"#":
            return rest == b"t"
        raise ValueError(f"unknown RESP type byte in line {line!r}")

    def read_until_closed(self, timeout=10.0):
        """Everything the server sends until it closes the connection (bytes)."""
        self.sock.settimeout(timeout)
        data, self.buf = self.buf, b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
        return data

    def is_closed(self, timeout=2.0):
        """True if the server closed the connection (after sending whatever it sent)."""
        try:
            self.read_until_closed(timeout)
            return True
        except socket.timeout:
            return False

    def settimeout(self, timeout):
        self.sock.settimeout(timeout)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --------------------------------------------------------------------------------------------
# Server processes

def _die_with_parent():
    """Runs in the child before exec: SIGKILL it if pytest dies (e.g. a ctest timeout)."""
    try:
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _bindable(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((HOST, port))
            return True
        except OSError:
            return False


def free_port():
    """A free port whose cluster bus port (port + 10000) is free too, so a cluster node started
    on it does not abort on a bus port some other socket holds."""
    port = 0
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((HOST, 0))
            port = s.getsockname()[1]
        if port + 10000 <= 65535 and _bindable(port + 10000):
            return port
    return port


def _listening_inodes(port):
    """Socket inodes listening on `port`, or None if /proc/net is unreadable."""
    inodes = set()
    readable = False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                readable = True
                next(f)
                for line in f:
                    fields = line.split()
                    local, state, inode = fields[1], fields[3], fields[9]
                    if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                        inodes.add(inode)
        except OSError:
            pass
    return inodes if readable else None


def _owns_port(pid, port):
    """True if process `pid` holds the listening socket on `port` (None if we can't tell)."""
    inodes = _listening_inodes(port)
    if inodes is None:
        return None
    if not inodes:
        return False
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            return True
    return False


def _option_names(args):
    return {a[2:].lower() for a in args if isinstance(a, str) and a.startswith("--")}


def _option_value(args, name):
    value = None
    for i, a in enumerate(args):
        if isinstance(a, str) and a.lower() == "--" + name and i + 1 < len(args):
            value = args[i + 1]
    return value


def _config_directives(text):
    found = {}
    for line in text.splitlines():
        parts = line.strip().split(None, 1)
        if parts and not parts[0].startswith("#"):
            found[parts[0].lower()] = parts[1].strip().strip('"') if len(parts) > 1 else ""
    return found


class ServerProcess:
    """One server binary run in its own directory; see start_server."""

    def __init__(self, binary, workdir, args=(), config=None, defaults=True, env=None):
        self.binary = str(binary)
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.args = [str(a) for a in args]
        self.config = config
        self.defaults = defaults
        self.env = env
        self.host = HOST
        self.port = None
        self.dir = self.workdir
        self.proc = None
        self.expect_crash = False  # set when a test kills or crashes the server on purpose
        self.log_path = self.workdir / "server.log"
        self.config_path = None
        self._clients = []
        self._stopped_by_us = False
        self._fixed_port = None
        if config is not None:
            self.config_path = self.workdir / "vireo.conf"
            if isinstance(config, dict):
                text = "".join(f"{k} {v}\n" for k, v in config.items())
            else:
                text = config
            self.config_path.write_text(text)
            self.config_text = text
        else:
            self.config_text = ""

    # -- lifecycle
    def _command(self, port):
        cmd = [self.binary]
        if self.config_path is not None:
            cmd.append(str(self.config_path))
        given = _option_names(self.args)
        in_config = _config_directives(self.config_text)
        if self.defaults:
            # Full syncs start at once instead of after Valkey's 5 s diskless delay (Valkey's
            # own tests do the same); a test of the delay sets it.
            defaults = [("port", str(port)), ("bind", HOST), ("dir", str(self.workdir)),
                        ("save", ""), ("repl-diskless-sync-delay", "0")]
            for name, value in defaults:
                if name not in given and name not in in_config:
                    cmd += ["--" + name, value]
        if (IO_THREADS and self.binary == SERVER_BINARY and "io-threads" not in given
                and "io-threads" not in in_config):
            cmd += ["--io-threads", IO_THREADS, "--events-per-io-thread", "0"]
        return cmd + self.args

    def _resolve_port(self):
        value = _option_value(self.args, "port")
        if value is None:
            value = _config_directives(self.config_text).get("port")
        if value is not None:
            return int(value)
        return None

    def _resolve_dir(self):
        value = _option_value(self.args, "dir") or _config_directives(self.config_text).get("dir")
        if value:
            p = Path(value)
            return p if p.is_absolute() else self.workdir / p
        return self.workdir

    def start(self, wait=True, port=None):
        """Start the binary; pick a fresh free port unless one is fixed; wait for PING."""
        if self.proc is not None and self.proc.poll() is None:
            raise RuntimeError("server already running")
        if not os.path.exists(self.binary):
            raise FileNotFoundError(
                f"server binary {self.binary} not found (build it, or set VIREO_SERVER)")
        fixed = port if port is not None else self._resolve_port()
        if fixed is None:
            fixed = self._fixed_port
        if fixed is None and not self.defaults:
            fixed = 6379  # the server's own default
        if fixed == 0 and wait:
            raise ValueError("--port 0 (no TCP listener): start with wait=False")
        attempts = 1 if fixed is not None else START_ATTEMPTS
        last_error = None
        for _ in range(attempts):
            self.port = fixed if fixed is not None else free_port()
            self.dir = self._resolve_dir()
            self._launch()
            if not wait:
                return self
            try:
                self.wait_ready()
                return self
            except RuntimeError as e:
                last_error = e
                self._terminate()
                if "already in use" not in self.log() and not getattr(e, "port_taken", False):
                    break
        raise last_error

    def _launch(self):
        self._stopped_by_us = False
        with open(self.log_path, "ab") as log:
            log.write(f"### {' '.join(self._command(self.port))}\n".encode())
            log.flush()
            env = dict(os.environ)
            if self.env:
                env.update(self.env)
            self.proc = subprocess.Popen(
                self._command(self.port), cwd=self.workdir, stdin=subprocess.DEVNULL,
                stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                preexec_fn=_die_with_parent)

    def wait_ready(self, timeout=START_TIMEOUT_S):
        """Wait until this process owns the port and answers PING."""
        deadline = time.monotonic() + timeout
        last = "no attempt"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"server exited with code {self.proc.returncode} during start-up\n"
                    f"--- {self.log_path} ---\n{self.log()}")
            try:
                with socket.create_connection((HOST, self.port), timeout=1.0) as s:
                    s.sendall(b"*1\r\n$4\r\nPING\r\n")
                    s.settimeout(2.0)
                    reply = s.recv(1024)
                if reply.startswith(b"+PONG") or reply.startswith(b"-NOAUTH"):
                    owner = _owns_port(self.proc.pid, self.port)
                    if owner is False:
                        err = RuntimeError(f"port {self.port} is held by another process")
                        err.port_taken = True
                        raise err
                    return
                last = f"PING reply {reply!r}"
            except (OSError, socket.timeout) as e:
                last = repr(e)
            time.sleep(0.05)
        raise RuntimeError(
            f"server did not answer PING on {HOST}:{self.port} within {timeout}s ({last})\n"
            f"--- {self.log_path} ---\n{self.log()}")

    def _terminate(self, sig=signal.SIGTERM, timeout=STOP_TIMEOUT_S):
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self._stopped_by_us = True
            try:
                self.proc.send_signal(sig)
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def stop(self, timeout=STOP_TIMEOUT_S):
        """SIGTERM, then SIGKILL after `timeout` seconds. Returns the exit code."""
        self.close_clients()
        return self._terminate(signal.SIGTERM, timeout)

    def kill(self):
        """SIGKILL (simulates a crash; the next start() sees only what was persisted)."""
        self.expect_crash = True
        self.close_clients()
        return self._terminate(signal.SIGKILL)

    def restart(self, wait=True):
        """Stop and start again on the same port and directory (data files are kept)."""
        self.stop()
        self._fixed_port = self.port
        return self.start(wait=wait, port=self.port)

    def is_alive(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    # -- clients
    def client(self, **kw):
        kw.setdefault("decode_responses", True)
        kw.setdefault("socket_timeout", 10)
        c = redis.Redis(host=self.host, port=self.port, **kw)
        self._clients.append(c)
        return c

    def raw(self, timeout=10.0):
        c = RawConnection(self.host, self.port, timeout=timeout)
        self._clients.append(c)
        return c

    def close_clients(self):
        for c in self._clients:
            try:
                c.close()
            except Exception:
                pass
        self._clients.clear()

    def crash_report(self):
        """Text describing an unexpected crash or sanitizer report, or None."""
        if self.proc is None:
            return None
        text = self.log()
        markers = ("AddressSanitizer", "LeakSanitizer", "ThreadSanitizer", "runtime error:",
                   "crashed by signal", "BUG REPORT")
        if any(m in text for m in markers):
            return f"crash or sanitizer report in {self.log_path}:\n{text[-8000:]}"
        rc = self.proc.returncode
        if not self.expect_crash and not self._stopped_by_us and rc is not None and rc < 0:
            return f"server died with signal {-rc}:\n{text[-8000:]}"
        return None

    def __repr__(self):
        return f"<ServerProcess {self.binary} {self.host}:{self.port} pid={self.pid}>"


def wait_for(predicate, timeout=10.0):
    """Polls until predicate() is true and returns its value (no timing assertion: only a
    generous upper bound)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("condition not reached within %ss" % timeout)


def kill_busy_script(server, *command, kill=("SCRIPT", "KILL")):
    """Sends command (an EVAL or FCALL that runs on) from one connection, waits until another
    gets BUSY, stops it with kill and returns the runner's error reply; both connections must
    work again after. The server needs a short --busy-reply-threshold."""
    runner, other = server.raw(), server.raw()
    runner.send_command(*command)
    wait_for(lambda: str(other.call("PING")).startswith("BUSY "))
    assert other.call(*kill) == "OK"
    err = runner.read_reply()
    assert isinstance(err, RespError), err
    assert other.call("PING") == "PONG"
    assert runner.call("PING") == "PONG"
    return str(err)


def redis_cli(server, *args, input=None, check=True, timeout=30):
    """Run /usr/bin/redis-cli against `server` and return its stdout (text)."""
    cmd = [REDIS_CLI, "-h", server.host, "-p", str(server.port), *map(str, args)]
    res = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise RuntimeError(f"{cmd} exited {res.returncode}: {res.stderr}")
    return res.stdout


# --------------------------------------------------------------------------------------------
# Fixtures

@pytest.fixture(scope="session")
def server_binary():
    return SERVER_BINARY


@pytest.fixture
def no_thp_server_binary(server_binary, tmp_path):
    """A wrapper that starts the server with transparent huge pages turned off for its process
    (prctl PR_SET_THP_DISABLE, kept across exec), as bench/growth's THP "never" runs do."""
    wrapper = tmp_path / "no-thp"
    wrapper.write_text(f"#!{sys.executable}\n"
                       "import ctypes, os, sys\n"
                       "ctypes.CDLL(None).prctl(41, 1, 0, 0, 0)  # PR_SET_THP_DISABLE\n"
                       f"os.execv({server_binary!r}, [{server_binary!r}] + sys.argv[1:])\n")
    wrapper.chmod(0o755)
    return str(wrapper)


def _teardown(servers):
    problems = []
    # Last started first: replicas before their primaries, which would otherwise wait for
    # them to catch up before exiting (shutdown-timeout).
    for s in reversed(servers):
        s.close_clients()
        s._terminate()
        report = s.crash_report()
        if report:
            problems.append(f"{s!r}: {report}")
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.fixture
def start_server(tmp_path, server_binary):
    """Factory: start_server(*args, config=None, defaults=True, wait=True, env=None).

    Default arguments are --port <free> --bind 127.0.0.1 --dir <tmp> --save ""; any of them
    given in args or in the config (str or dict) replaces the default; defaults=False omits
    them all. Every server started is stopped at teardown; an unexpected crash or sanitizer
    report fails the test.
    """
    servers = []

    def start(*args, config=None, defaults=True, wait=True, env=None, binary=None):
        workdir = tmp_path / f"server{len(servers)}"
        s = ServerProcess(binary or server_binary, workdir, args, config=config,
                          defaults=defaults, env=env)
        servers.append(s)
        return s.start(wait=wait)

    yield start
    _teardown(servers)


@pytest.fixture
def server(start_server):
    return start_server()


@pytest.fixture
def r(server):
    return server.client()


@pytest.fixture
def raw(server):
    return server.raw()


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory, server_binary):
    s = ServerProcess(server_binary, tmp_path_factory.mktemp("shared"))
    s.start()
    yield s
    _teardown([s])


# redis-cli 7.0's words and valkey-cli 8.0's, which vireo-cli follows where the two differ
# (test_cli_valkey.py compares with valkey-cli itself).
VALKEY_WORDS = [
    ("Could not connect to Redis at", "Could not connect to Valkey at"),
    ("Redis Cluster requires at least 3 master nodes", "Valkey Cluster requires at least 3 "
     "primary nodes"),
    ("\nMaster[", "\nPrimary["), ("\x1b[0mMaster[", "\x1b[0mPrimary["),
    (" masters.\n", " primaries.\n"), (" slaves.\n", " replicas.\n"),
    ("--cluster-fix-with-unreachable-masters\n", "--cluster-fix-with-unreachable-primaries\n"),
    ("--cluster-use-empty-masters\n", "--cluster-use-empty-primaries\n"),
    ("--cluster-slave\n", "--cluster-replica\n"),
    ("--cluster-master-id <arg>\n", "--cluster-primaries-id <arg>\n"),
    ("--cluster-only-masters\n", "--cluster-only-primaries\n"),
]


def valkey_words(text):
    """redis-cli 7.0's output as valkey-cli 8.0 words it."""
    for old, new in VALKEY_WORDS:
        if isinstance(text, str):
            text = text.replace(old, new)
        else:
            text = text.replace(old.encode(), new.encode())
    return text


# The reference server of differential tests (valkey-server 8.0.1, ../shared/README).
VALKEY_SERVER = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                             "shared", "reference", "valkey-server"))


@pytest.fixture(scope="module")
def valkey_process(tmp_path_factory):
    """The reference valkey-server, started once per module; skips the test where absent."""
    if not os.path.exists(VALKEY_SERVER):
        pytest.skip("needs the reference valkey-server in ../shared/reference/")
    s = ServerProcess(VALKEY_SERVER, tmp_path_factory.mktemp("valkey"), ["--appendonly", "no"])
    s.start()
    yield s
    _teardown([s])


@pytest.fixture
def sr(shared_server):
    """A client (decode_responses=True) to the session server, after FLUSHALL."""
    if not shared_server.is_alive():
        report = shared_server.crash_report() or shared_server.log()[-4000:]
        shared_server.expect_crash = True
        shared_server.start()
        pytest.fail(f"shared server had died (restarted it):\n{report}", pytrace=False)
    c = redis.Redis(host=shared_server.host, port=shared_server.port, decode_responses=True,
                    socket_timeout=10)
    c.flushall()
    yield c
    c.close()


@pytest.fixture(scope="module")
def valkey_cluster(tmp_path_factory):
    """Three reference valkey-servers joined by valkey-cli --cluster create (no replicas);
    skips where the reference binaries are absent."""
    valkey_cli = os.path.join(os.path.dirname(VALKEY_SERVER), "valkey-cli")
    if not (os.path.exists(VALKEY_SERVER) and os.path.exists(valkey_cli)):
        pytest.skip("needs the reference valkey-server and valkey-cli in ../shared/reference/")
    nodes = [ServerProcess(VALKEY_SERVER, tmp_path_factory.mktemp(f"vcluster{i}"),
                           ["--appendonly", "no", "--cluster-enabled", "yes"])
             for i in range(3)]
    try:
        for n in nodes:
            n.start()
        subprocess.run([valkey_cli, "--cluster", "create",
                        *[f"127.0.0.1:{n.port}" for n in nodes], "--cluster-yes"],
                       capture_output=True, check=True, timeout=60)
        def state_ok(node):
            info = node.client().execute_command("CLUSTER", "INFO")  # redis-py parses it
            return (info.get("cluster_state") if isinstance(info, dict) else
                    ("cluster_state:ok" in str(info) and "ok")) == "ok"
        wait_for(lambda: all(state_ok(n) for n in nodes), timeout=30)
        yield nodes
    finally:
        _teardown(nodes)
