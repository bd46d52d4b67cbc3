#!/usr/bin/python3
"""Differential tester: the same random command sequence against redis-server and vireo-server.

Starts the reference (/usr/bin/redis-server) and the server under test on free 127.0.0.1 ports
with `--save "" --appendonly no`, then, for a bounded time, runs episodes: FLUSHALL, a random
number of generated commands (see generators.py), and an audit of every key in databases 0-3.
Episodes use RESP2 or RESP3 (HELLO 3). Replies are compared exactly, except where a command's
comparison mode says otherwise, and for doubles: Vireo prints them as Valkey 8 does (the shortest
digits that read back, "0.1"), Redis 7.0 with "%.17g" ("0.10000000000000001"), so two double
texts that read back to the same double are equal: RESP3 doubles anywhere, bulk strings in the
replies of the commands that reply scores (SCORE_REPLIES) and ZSCAN's scores. On the first mismatch it prints the seed, the command, both
replies and the commands before it, shrinks the episode to a short reproduction, and exits 1.

  run_compat.py --server build/vireo-server [--seconds 90 | --long] [--seed N]
  run_compat.py --server /usr/bin/redis-server      # checks the harness itself: 0 mismatches
"""

import argparse
import ctypes
import math
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generators import MODE_NORMALIZERS, REGISTRY, Cmd, Sequence, format_args  # noqa: E402
import importlib  # noqa: E402

# Per-family generator modules (gen_lists.py, gen_hashes.py, ...) register themselves on import.
for _mod in sorted(Path(__file__).resolve().parent.glob("gen_*.py")):
    importlib.import_module(_mod.stem)

REPO_ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
REPLY_TIMEOUT_S = 10.0
AUDIT_DBS = ["0", "1", "2", "3"]
BATCH_SIZES = [1, 1, 2, 4, 8, 16, 32, 64]  # commands pipelined per round trip


# ---------------------------------------------------------------------------------------------
# Processes

def _die_with_parent():
    """Children get SIGKILL if this process dies (e.g. killed by a ctest timeout)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _owns_port(pid, port):
    """False if /proc shows that `port` is listened on by another process than `pid`.

    Guards against a start-up race: our server fails to bind a port that someone else took
    meanwhile, and our PING is answered by that other server.
    """
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                for line in list(f)[1:]:
                    fields = line.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(fields[9])
        except OSError:
            return True
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return True
    for fd in fds:
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            return True
    return False


class Server:
    def __init__(self, name, binary, workdir):
        self.name = name
        self.binary = binary
        self.workdir = Path(workdir) / name
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.workdir / "server.log"
        self.proc = None
        self.port = None

    def start(self):
        for _ in range(5):
            self.port = free_port()
            cmd = [self.binary, "--port", str(self.port), "--bind", HOST, "--save", "",
                   "--appendonly", "no", "--dir", str(self.workdir)]
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(cmd, cwd=self.workdir, stdin=subprocess.DEVNULL,
                                             stdout=log, stderr=subprocess.STDOUT,
                                             preexec_fn=_die_with_parent)
            state = self._wait_ready()
            if state == "ready":
                return
            self.stop()
            if state != "port taken" and "already in use" not in self.log():
                break
        raise RuntimeError(f"{self.name} ({self.binary}) did not start:\n{self.log()[-4000:]}")

    def _wait_ready(self, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return "exited"
            try:
                with socket.create_connection((HOST, self.port), timeout=1.0) as s:
                    s.sendall(b"*1\r\n$4\r\nPING\r\n")
                    s.settimeout(2.0)
                    if s.recv(64).startswith(b"+PONG"):
                        if not _owns_port(self.proc.pid, self.port):
                            return "port taken"
                        return "ready" if self.proc.poll() is None else "exited"
            except OSError:
                pass
            time.sleep(0.05)
        return "timeout"

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


# ---------------------------------------------------------------------------------------------
# RESP: replies become hashable tagged tuples so that types are compared too

class ReplyTimeout(Exception):
    pass


class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection((HOST, port), timeout=REPLY_TIMEOUT_S)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self):
        if self.pos > 65536:
            del self.buf[:self.pos]
            self.pos = 0
        try:
            chunk = self.sock.recv(262144)
        except socket.timeout:
            raise ReplyTimeout()
        if not chunk:
            raise ConnectionError("connection closed")
        self.buf += chunk

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n", self.pos)
            if i >= 0:
                line = bytes(self.buf[self.pos:i])
                self.pos = i + 2
                return line
            self._fill()

    def _bulk(self, n):
        while len(self.buf) - self.pos < n + 2:
            self._fill()
        data = bytes(self.buf[self.pos:self.pos + n])
        if self.buf[self.pos + n:self.pos + n + 2] != b"\r\n":
            raise ValueError("bulk string not terminated by CRLF")
        self.pos += n + 2
        return data

    def read(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t in (b"+", b"-", b":", b",", b"(", b"#"):
            return (t.decode(), rest)
        if t == b"_":
            return ("_", None)
        if t in (b"$", b"!", b"="):
            n = int(rest)
            return (t.decode(), None if n < 0 else self._bulk(n))
        if t in (b"*", b">", b"~"):
            n = int(rest)
            if n < 0:
                return (t.decode(), None)
            return (t.decode(), tuple(self.read() for _ in range(n)))
        if t in (b"%", b"|"):
            n = int(rest)
            pairs = tuple((self.read(), self.read()) for _ in range(n))
            if t == b"|":  # attribute: keep it attached to the reply that follows
                return ("|", pairs, self.read())
            return ("%", pairs)
        raise ValueError(f"bad RESP line {line!r}")


def encode(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


INLINE_SAFE = re.compile(rb"^[A-Za-z0-9:_.\-]+$")


def fmt(reply, indent=0):
    """redis-cli-like rendering of a tagged reply."""
    pad = "  " * indent
    t = reply[0]
    v = reply[1] if len(reply) > 1 else None
    if t in ("+", "-", ":", ",", "(", "#"):
        return f"{pad}{t}{v.decode('utf-8', 'backslashreplace')}"
    if t == "_" or v is None:
        return f"{pad}({t} null)"
    if t in ("$", "!", "="):
        return f"{pad}{format_args([v]) or chr(34) * 2}" + (" (verbatim)" if t == "=" else "")
    if t in ("*", ">", "~"):
        if not v:
            return f"{pad}{t} (empty)"
        return f"{pad}{t}\n" + "\n".join(fmt(x, indent + 1) for x in v)
    if t == "%":
        if not v:
            return f"{pad}% (empty)"
        return f"{pad}%\n" + "\n".join(
            f"{fmt(k, indent + 1)} =>\n{fmt(x, indent + 2)}" for k, x in v)
    if t == "|":
        return f"{pad}(attribute)\n" + fmt(reply[2], indent)
    if t == "no reply":
        return f"{pad}(no reply: {v.decode(errors='replace')})"
    if t in ("bad SCAN reply", "SCAN did not finish"):
        return f"{pad}({t}) {v.decode(errors='replace')}"
    if t == "scan":
        return f"{pad}(full SCAN) " + " ".join(
            format_args(list(k) if isinstance(k, tuple) else [k]) for k in v)
    return f"{pad}{reply!r}"


# ---------------------------------------------------------------------------------------------
# Doubles: Valkey 8's text against Redis 7.0's "%.17g"

# Commands whose replies carry scores as bulk strings (RESP2, and ZSCAN in RESP3 too).
SCORE_REPLIES = frozenset(
    b"ZSCORE ZMSCORE ZINCRBY ZADD ZRANGE ZRANGEBYSCORE ZREVRANGE ZREVRANGEBYSCORE ZUNION ZINTER "
    b"ZDIFF ZPOPMIN ZPOPMAX BZPOPMIN BZPOPMAX ZMPOP BZMPOP ZRANDMEMBER ZRANK ZREVRANK".split())
DOUBLE_TEXT = re.compile(rb"-?(?:inf|[0-9]+(?:\.[0-9]*)?(?:e[-+]?[0-9]+)?)")


def same_double(a, b):
    """a and b (bytes) are both double texts that read back to the same double, sign of zero
    included."""
    if a is None or b is None or not (DOUBLE_TEXT.fullmatch(a) and DOUBLE_TEXT.fullmatch(b)):
        return False
    x, y = float(a), float(b)
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)


def equal_but_doubles(ref, dut, bulks):
    """Tagged replies of the same shape that differ at most in double texts: RESP3 doubles,
    and bulk strings where `bulks`."""
    if ref == dut:
        return True
    t = ref[0]
    if t != dut[0] or len(ref) != len(dut):
        return False
    if t == ",":
        return same_double(ref[1], dut[1])
    if t == "$":
        return bulks and same_double(ref[1], dut[1])
    if t in ("*", ">", "~", "%"):
        a, b = ref[1], dut[1]
        if a is None or b is None or len(a) != len(b):
            return False
        if t == "%":
            a = [x for kv in a for x in kv]
            b = [x for kv in b for x in kv]
        return all(equal_but_doubles(x, y, bulks) for x, y in zip(a, b))
    return False


# Texts Valkey 8 (the reference Vireo follows) changed from Redis 7.0's, the server compared
# here: (Redis 7.0's words, Valkey 8's), replaced in the reference's errors and bulks.
VALKEY_TEXTS = [
    (b"NOSCRIPT No matching script. Please use EVAL.", b"NOSCRIPT No matching script."),
    (b"Unknown Redis command called from script", b"Unknown command called from script"),
    (b"Wrong number of args calling Redis command from script",
     b"Wrong number of args calling command from script"),
    (b"Please specify at least one argument for this redis lib call",
     b"Please specify at least one argument for this call"),
    (b"Lua redis lib command arguments must be strings or integers",
     b"Command arguments must be strings or integers"),
    (b"redis.acl_check_cmd()", b"server.acl_check_cmd()"),
    (b"redis.setresp() requires", b"server.setresp() requires"),
    (b"redis.set_repl() requires", b"server.set_repl() requires"),
    (b"redis.log() requires", b"server.log() requires"),
    (b"redis.register_function", b"server.register_function"),
    (b"otherwise the HELLO AUTH <user>", b"otherwise the HELLO <proto> AUTH <user>"),
    # Valkey 9.0 (GEOSEARCH BYPOLYGON).
    (b"exactly one of BYRADIUS and BYBOX can", b"exactly one of BYRADIUS, BYBOX and BYPOLYGON can"),
]


def as_valkey(reply):
    """The reference's reply with Valkey 8's texts (VALKEY_TEXTS)."""
    t = reply[0]
    if t in ("-", "$", "+") and isinstance(reply[1], bytes):
        text = reply[1]
        for old, new in VALKEY_TEXTS:
            text = text.replace(old, new)
        return (t, text) + tuple(reply[2:])
    if t in ("*", ">", "~") and isinstance(reply[1], (list, tuple)):
        return (t, type(reply[1])(as_valkey(x) for x in reply[1])) + tuple(reply[2:])
    return reply


# True when the reference is Debian's redis-server 7.0 rather than valkey-server 8 (main()).
REFERENCE_IS_REDIS = True
SCAN_COMMANDS = frozenset((b"SCAN", b"SSCAN", b"HSCAN", b"ZSCAN"))
REMOVED_LUA_GLOBALS = (b"getfenv", b"setfenv", b"newproxy")
INVALID_STREAM_ID = b"ERR Invalid stream ID specified as stream command argument"


def cursor_redis70(text):
    """Redis 7.0's reading of a SCAN cursor: a sign and digits, "" is 0; None if refused."""
    digits = text[1:] if text[:1] in (b"+", b"-") else text
    if text[:1] in (b"+", b"-") and not digits or not digits.isdigit() and digits:
        return None
    v = int(digits or b"0")
    if v >= 2**64:
        return None
    return (-v) % 2**64 if text[:1] == b"-" else v


def cursor_valkey8(text):
    """Valkey 8's: a canonical integer must not be negative; else strtoull's whole reading."""
    if re.fullmatch(rb"-?(0|[1-9][0-9]*)", text) and -2**63 <= int(text) < 2**63:
        return None if int(text) < 0 else int(text)
    m = re.fullmatch(rb"[ \t\n\v\f\r]*([+-]?)([0-9]+)", text)
    if not m or int(m.group(2)) >= 2**64:
        return None
    return (-int(m.group(2))) % 2**64 if m.group(1) == b"-" else int(m.group(2))


ZRANGE_LIMIT_COMMANDS = frozenset((b"ZRANGE", b"ZRANGESTORE", b"ZRANGEBYSCORE", b"ZRANGEBYLEX",
                                   b"ZREVRANGEBYSCORE", b"ZREVRANGEBYLEX"))


def not_comparable(cmd):
    """Generated commands left out because the reference's answer is a bug Vireo does not
    copy (docs/COMPATIBILITY.md), valkey-server 8.0.1's: LSET truncates its index to 32 bits
    (LSET l 4294967296 x sets the first element); a negative LIMIT offset returns an element
    from the end of the range on a skiplist (an empty array on a listpack, and in Redis)."""
    if REFERENCE_IS_REDIS or not cmd.args:
        return False
    name = cmd.args[0].upper()
    if name == b"LSET":
        return len(cmd.args) == 4 and re.fullmatch(rb"-?[0-9]+", cmd.args[2]) is not None and \
            not -2**31 <= int(cmd.args[2]) < 2**31
    if name in ZRANGE_LIMIT_COMMANDS:
        words = [a.upper() for a in cmd.args]
        return any(w == b"LIMIT" and i + 1 < len(cmd.args) and cmd.args[i + 1].startswith(b"-")
                   for i, w in enumerate(words))
    return False


def same_reply(cmd, ref, dut):
    if ref == dut:
        return True
    ref = as_valkey(ref)
    if ref == dut:
        return True
    name = cmd.args[0].upper() if cmd.args else b""
    if REFERENCE_IS_REDIS and name in SCAN_COMMANDS and len(cmd.args) > 1:
        cursor = cmd.args[1] if name == b"SCAN" else cmd.args[2] if len(cmd.args) > 2 else b"0"
        if cursor_redis70(cursor) != cursor_valkey8(cursor):
            return True  # Valkey 8 reads this cursor differently (Vireo follows Valkey)
    if REFERENCE_IS_REDIS and name == b"XREADGROUP" and ref == ("-", INVALID_STREAM_ID) and \
            dut[0] == "-" and dut[1].startswith(b"ERR The + ID is meaningless"):
        return True  # Valkey 8 explains XREADGROUP's "+" as it explains "$"
    if REFERENCE_IS_REDIS and name == b"OBJECT" and dut == ("$", b"skiplist") and \
            ref == ("$", b"quicklist|listpack"):
        return True  # Valkey 8's ZADD/GEOADD convert up front (compared with it instead)
    if REFERENCE_IS_REDIS and name == b"SCAN" and dut[0] == "-" and \
            dut[1].startswith(b"ERR unknown type name '"):
        return True  # Valkey 8 refuses SCAN ... TYPE of a type no key has
    if name in SCAN_COMMANDS and len(cmd.args) > (1 if name == b"SCAN" else 2) and \
            ref[0] == dut[0] == "*":
        cursor = cursor_valkey8(cmd.args[1] if name == b"SCAN" else cmd.args[2])
        if cursor not in (None, 0):
            return True  # where a scan resumes depends on each server's own hash table
    if name in (b"EVAL", b"EVAL_RO", b"EVALSHA", b"EVALSHA_RO") and dut[0] == "-" and \
            any(b"nonexistent global variable '" + g + b"'" in dut[1] for g in REMOVED_LUA_GLOBALS):
        return True  # removed from Vireo's sandbox on purpose (docs/COMPATIBILITY.md)
    if name == b"SCRIPT" and len(cmd.args) == 2 and cmd.args[1].upper() == b"HELP" and \
            dut[0] == "*" and dut[1] is not None:
        # Valkey 8 added SCRIPT SHOW to the help and wrapped the FLUSH lines differently.
        show = [("+", b"SHOW <sha1>"), ("+", b"    Show a script from the scripts cache.")]
        rewrap = {
            b"    When called without the optional mode argument, the behavior is determined":
            b"    When called without the optional mode argument, the behavior is determined by "
            b"the",
            b"     by the lazyfree-lazy-user-flush configuration directive. Valid modes are:":
            b"    lazyfree-lazy-user-flush configuration directive. Valid modes are:"}
        lines = [(x[0], rewrap.get(x[1], x[1])) + tuple(x[2:]) for x in dut[1] if x not in show]
        if ("*", type(dut[1])(lines)) == ref:
            return True
    if name == b"FUNCTION" and len(cmd.args) == 2 and cmd.args[1].upper() == b"HELP" and \
            ref[0] == "*" and ref[1] is not None:
        # Valkey 8 dropped the library description from FUNCTION LIST's help.
        lines = [x for x in ref[1] if x != ("+", b"    * Library description")]
        if ("*", type(ref[1])(lines)) == dut:
            return True
    if ref[0] == "scan" and dut[0] == "scan" and name == b"ZSCAN":
        # (member, score) pairs in member order. A skiplist-encoded set's -0 reads "-0" from
        # Valkey 8.0.1 (and Vireo) but "0" from Redis 7.0, as in the other score replies.
        def zero_sign(s):
            return b"0" if REFERENCE_IS_REDIS and s in (b"-0", b"-0.0") else s
        return len(ref[1]) == len(dut[1]) and all(
            m1 == m2 and same_double(zero_sign(s1), zero_sign(s2))
            for (m1, s1), (m2, s2) in zip(ref[1], dut[1]))
    if REFERENCE_IS_REDIS and name in SCORE_REPLIES:
        # A sorted set Valkey 8 converts up front keeps -0 where Redis 7.0's listpack says 0.
        ref, dut = without_negative_zero(ref), without_negative_zero(dut)
    return equal_but_doubles(ref, dut, name in SCORE_REPLIES)


def without_negative_zero(reply):
    t = reply[0]
    if t in ("$", ",") and reply[1] in (b"-0", b"-0.0"):
        return (t, b"0") + tuple(reply[2:])
    if t in ("*", "~", "%", ">") and isinstance(reply[1], (list, tuple)):
        return (t, type(reply[1])(without_negative_zero(x) if isinstance(x, tuple) else x
                                  for x in reply[1])) + tuple(reply[2:])
    return reply


# ---------------------------------------------------------------------------------------------
# Running commands on both servers

# Valkey 8 ends every HELP reply with "Print this help.", Redis 7.0 with "Prints this help."
HELP_LAST_LINE = ("+", b"    Print this help.")
HELP_LAST_LINE_70 = ("+", b"    Prints this help.")


def normalize(reply, mode):
    t = reply[0]
    if t == "*" and reply[1] and reply[1][-1] == HELP_LAST_LINE:
        reply = ("*", reply[1][:-1] + (HELP_LAST_LINE_70,))
    if mode == "sorted" and t in ("*", "~") and reply[1] is not None:
        return ("*", tuple(sorted(reply[1])))
    if mode == "ttl" and t == ":" and int(reply[1]) > 0:
        return (":", b"positive")
    if mode == "encoding" and t == "$" and reply[1] in (b"quicklist", b"listpack"):
        return ("$", b"quicklist|listpack")
    if mode in MODE_NORMALIZERS:
        return MODE_NORMALIZERS[mode](reply)
    return reply


class Pair:
    """One connection to each server; runs a Cmd on both and returns both normalized replies."""

    def __init__(self, ref, dut, inline_rate=0.0, rng=None):
        self.servers = (ref, dut)
        self.conns = [Conn(ref.port), Conn(dut.port)]
        self.inline_rate = inline_rate
        self.rng = rng or random.Random(0)

    def close(self):
        for c in self.conns:
            c.close()

    def _wire(self, args):
        if self.inline_rate and all(INLINE_SAFE.match(a) for a in args) and \
                self.rng.random() < self.inline_rate:
            return b" ".join(args) + b"\r\n"
        return encode(args)

    def run_batch(self, cmds):
        """Pipeline plain (non-scan) commands; returns [(ref, dut)] normalized replies."""
        data = b"".join(self._wire(c.args) for c in cmds)
        for c in self.conns:
            c.send(data)
        per_server = []
        for conn in self.conns:
            replies = []
            for _ in cmds:
                reply = self._read(conn)
                replies.append(reply)
                if reply[0] == "no reply":
                    replies += [reply] * (len(cmds) - len(replies))
                    break
            per_server.append(replies)
        return [(normalize(a, c.mode), normalize(b, c.mode))
                for c, a, b in zip(cmds, per_server[0], per_server[1])]

    @staticmethod
    def _read(conn):
        try:
            return conn.read()
        except ReplyTimeout:
            return ("no reply", b"timeout")
        except (ConnectionError, OSError) as e:
            return ("no reply", str(e).encode())

    def _scan_one(self, i, template):
        conn = self.conns[i]
        cursor = b"0"
        keys = set()
        for _ in range(100000):
            args = [cursor if a == b"{cursor}" else a for a in template]
            conn.send(encode(args))
            reply = self._read(conn)
            if reply[0] == "-" or reply[0] == "no reply":
                return reply
            if reply[0] != "*" or len(reply[1]) != 2 or reply[1][1][0] not in ("*", "~"):
                return ("bad SCAN reply", fmt(reply).encode())
            cursor = reply[1][0][1]
            items = [k[1] for k in reply[1][1][1]]
            if template[0].upper() == b"ZSCAN" and len(items) % 2 == 0:
                keys.update(zip(items[::2], items[1::2]))  # scores stay with their members
            else:
                keys.update(items)
            if cursor == b"0":
                return ("scan", tuple(sorted(keys)))
        return ("SCAN did not finish", b"")

    def run(self, cmd):
        if cmd.mode == "scan":
            return [self._scan_one(0, cmd.args), self._scan_one(1, cmd.args)]
        return list(self.run_batch([cmd])[0])


class Mismatch(Exception):
    def __init__(self, cmd, ref_reply, dut_reply, why=""):
        super().__init__(why)
        self.cmd, self.ref_reply, self.dut_reply, self.why = cmd, ref_reply, dut_reply, why


def check(pair, cmd):
    ref, dut = pair.run(cmd)
    return compare(cmd, ref, dut)


def compare(cmd, ref, dut):
    if cmd.mode == "hello":
        ok = (ref[0] in ("%", "*") and dut[0] == ref[0] and
              _hello_proto(ref) == _hello_proto(dut))
        if not ok:
            raise Mismatch(cmd, ref, dut, "HELLO replies differ in type or proto")
        return ref
    if not same_reply(cmd, ref, dut):
        raise Mismatch(cmd, ref, dut)
    return ref


def _hello_proto(reply):
    items = reply[1]
    pairs = items if reply[0] == "%" else list(zip(items[::2], items[1::2]))
    for k, v in pairs:
        if k[1] == b"proto":
            return v
    return None


def audit(pair, record):
    """Compare every key in the audited databases: type, string value, TTL class."""
    for db in AUDIT_DBS:
        record(Cmd(["SELECT", db]))
        keys = record(Cmd(["KEYS", "*"], "sorted"))
        for k in keys[1] or ():
            key = k[1]
            t = record(Cmd(["TYPE", key]))
            if t[1] == b"string":
                record(Cmd(["GET", key]))
            elif t[1] == b"list":
                record(Cmd(["LRANGE", key, "0", "-1"]))
            elif t[1] == b"set":
                record(Cmd(["SMEMBERS", key], "sorted"))
            elif t[1] == b"zset":
                record(Cmd(["ZRANGE", key, "0", "-1", "WITHSCORES"]))
            elif t[1] == b"hash":
                record(Cmd(["HGETALL", key], "pairs"))
            elif t[1] == b"stream":
                record(Cmd(["XINFO", "STREAM", key, "FULL", "COUNT", "0"], "stream-info"))
            record(Cmd(["PTTL", key], "ttl"))
    record(Cmd(["SELECT", "0"]))


# ---------------------------------------------------------------------------------------------
# Shrinking a failing episode

def replay(ref, dut, cmds):
    """Run cmds on fresh connections after FLUSHALL; True if the last command mismatches."""
    pair = Pair(ref, dut)
    try:
        check(pair, Cmd(["FLUSHALL"]))
        for c in cmds[:-1]:
            pair.run(c)
        r1, r2 = pair.run(cmds[-1])
        if cmds[-1].mode == "hello":
            return r1[0] != r2[0] or _hello_proto(r1) != _hello_proto(r2)
        return not same_reply(cmds[-1], r1, r2)
    except Exception:
        return False
    finally:
        pair.close()


def shrink(ref, dut, cmds, budget_s=30.0):
    """Greedy chunk removal keeping the final (failing) command; bounded by budget_s."""
    deadline = time.monotonic() + budget_s
    if not replay(ref, dut, cmds):
        return None
    chunk = max(1, (len(cmds) - 1) // 2)
    while chunk >= 1 and time.monotonic() < deadline:
        i = 0
        removed = False
        while i < len(cmds) - 1 and time.monotonic() < deadline:
            candidate = cmds[:i] + cmds[i + chunk:] if i + chunk < len(cmds) else None
            if candidate and replay(ref, dut, candidate):
                cmds = candidate
                removed = True
            else:
                i += chunk
        if not removed:
            chunk //= 2
    return cmds


# ---------------------------------------------------------------------------------------------

def describe(cmd):
    s = format_args(cmd.args)
    return s if cmd.mode == "exact" else f"{s}    [{cmd.mode}]"


def report_mismatch(m, ctx):
    p = print
    p("")
    p(f"compat: MISMATCH at command {ctx['count']} "
      f"(seed {ctx['seed']}, episode {ctx['episode']}, RESP{ctx['proto']})")
    if m.why:
        p(f"  {m.why}")
    p(f"  command: {describe(m.cmd)}")
    p(f"  {ctx['ref_name']} reply:\n{fmt(m.ref_reply, 2)}")
    p(f"  {ctx['dut_name']} reply:\n{fmt(m.dut_reply, 2)}")
    p(f"  last {len(ctx['recent'])} commands before it ({ctx['ref_name']} replies):")
    for cmd, reply in ctx["recent"]:
        rendered = fmt(reply).replace("\n", " ")
        if len(rendered) > 160:
            rendered = rendered[:157] + "..."
        p(f"    {describe(cmd)}  ->  {rendered}")
    p(f"  reproduce: /usr/bin/python3 {ctx['argv0']} --server {ctx['dut_bin']} "
      f"--seed {ctx['seed']} --families {','.join(ctx['families'])}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", default=str(REPO_ROOT / "build" / "vireo-server"),
                    help="binary under test (default: build/vireo-server)")
    ap.add_argument("--reference", default="/usr/bin/redis-server",
                    help="reference binary (default: /usr/bin/redis-server)")
    ap.add_argument("--seconds", type=float, default=90.0, help="time budget (default 90)")
    ap.add_argument("--long", action="store_true", help="run for 20 minutes")
    ap.add_argument("--max-commands", type=int, default=0,
                    help="stop after this many generated commands (0: no limit)")
    ap.add_argument("--seed", type=int, default=None, help="random seed (printed)")
    ap.add_argument("--families",
                    default="strings,keys,errors,lists,sets,sort,zsets,hashes,streams,bitmaps,hll,"
                            "geo,transactions,scripting",
                    help=f"comma-separated generator families; known: "
                         f"{','.join(sorted(REGISTRY))}")
    ap.add_argument("--protocols", default="2,3", help="RESP versions to use (default 2,3)")
    ap.add_argument("--inline-rate", type=float, default=0.05,
                    help="fraction of simple commands sent as inline commands (default 0.05)")
    ap.add_argument("--no-shrink", action="store_true",
                    help="do not shrink a failing episode to a short reproduction")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir with server logs")
    args = ap.parse_args()

    seconds = 1200.0 if args.long else args.seconds
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    families = [f for f in args.families.split(",") if f]
    protocols = [int(p) for p in args.protocols.split(",") if p]
    unknown = [f for f in families if f not in REGISTRY]
    if unknown or not families:
        print(f"compat: unknown families {unknown}; known: {','.join(sorted(REGISTRY))}",
              file=sys.stderr)
        return 2
    if not protocols or any(p not in (2, 3) for p in protocols):
        print("compat: --protocols takes 2 and/or 3", file=sys.stderr)
        return 2
    # The servers run in a temp dir, where a path relative to here would not resolve.
    args.server, args.reference = os.path.abspath(args.server), os.path.abspath(args.reference)
    for binary in (args.server, args.reference):
        if not os.access(binary, os.X_OK):
            print(f"compat: {binary} not found or not executable", file=sys.stderr)
            return 2

    print(f"compat: seed {seed}, {seconds:g} s, families {','.join(families)}, "
          f"RESP {','.join(map(str, protocols))}", flush=True)
    print(f"compat: reference {args.reference}, under test {args.server}", flush=True)

    tmp = tempfile.mkdtemp(prefix="vireo-compat-")
    ref = Server("reference", args.reference, tmp)
    dut = Server("tested", args.server, tmp)
    ref_name = "redis" if "redis" in Path(args.reference).name else "reference"
    global REFERENCE_IS_REDIS
    REFERENCE_IS_REDIS = ref_name == "redis"
    dut_name = "vireo" if "vireo" in Path(args.server).name else f"tested({Path(args.server).name})"
    try:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))
        try:
            ref.start()
            dut.start()
        except RuntimeError as e:
            print(f"compat: {e}", file=sys.stderr)
            return 2
        rc = run(args, seed, seconds, families, protocols, ref, dut, ref_name, dut_name)
        for s in (ref, dut):
            if not s.alive():
                print(f"compat: {s.name} server exited:\n{s.log()[-4000:]}")
                rc = 1
        return rc
    finally:
        ref.stop()
        dut.stop()
        if args.keep:
            print(f"compat: logs kept in {tmp}")
        else:
            subprocess.run(["rm", "-rf", tmp])


def run(args, seed, seconds, families, protocols, ref, dut, ref_name, dut_name):
    seq = Sequence(seed, families)
    rng = seq.rng
    pair = Pair(ref, dut, inline_rate=args.inline_rate, rng=random.Random(seed ^ 0x5EED))
    recent = deque(maxlen=20)
    episode_cmds = []
    ctx = {"seed": seed, "episode": 0, "proto": 2, "count": 0, "recent": recent,
           "ref_name": ref_name, "dut_name": dut_name, "dut_bin": args.server,
           "families": families, "argv0": os.path.relpath(__file__, REPO_ROOT)}

    def record(cmd):
        episode_cmds.append(cmd)
        ctx["count"] += 1
        reply = check(pair, cmd)
        recent.append((cmd, reply))
        return reply

    batch = []

    def flush():
        # Generated commands never depend on replies, so they can be pipelined; batch sizes
        # come from the pair's own RNG so they do not change the command sequence.
        results = pair.run_batch(batch) if batch else []
        for cmd, (ref_reply, dut_reply) in zip(batch, results):
            episode_cmds.append(cmd)
            ctx["count"] += 1
            compare(cmd, ref_reply, dut_reply)
            recent.append((cmd, ref_reply))
        batch.clear()

    start = time.monotonic()
    deadline = start + seconds
    generated = 0
    proto = 2
    try:
        while time.monotonic() < deadline:
            if args.max_commands and generated >= args.max_commands:
                break
            ctx["episode"] += 1
            episode_cmds.clear()
            want = protocols[0] if ctx["episode"] == 1 else rng.choice(protocols)
            if want != proto:
                record(Cmd(["HELLO", str(want)], "hello"))
                proto = want
            ctx["proto"] = proto
            record(Cmd(["FLUSHALL"]))
            record(Cmd(["SELECT", "0"]))
            length = rng.randint(20, 600)
            batch_limit = 1
            for _ in range(length):
                if len(batch) >= batch_limit:
                    flush()
                    batch_limit = pair.rng.choice(BATCH_SIZES)
                    if time.monotonic() >= deadline:
                        break
                if args.max_commands and generated >= args.max_commands:
                    break
                for cmd in seq.next():
                    if not_comparable(cmd):
                        continue
                    if cmd.mode == "scan":
                        flush()
                        record(cmd)
                    else:
                        batch.append(cmd)
                generated += 1
            flush()
            audit(pair, record)
    except Mismatch as m:
        report_mismatch(m, ctx)
        if not args.no_shrink and ref.alive() and dut.alive() and episode_cmds:
            # The replay starts on fresh connections: RESP2 and db 0, like an episode start.
            cmds = list(episode_cmds)
            if proto != 2 and cmds[0].mode != "hello":
                cmds.insert(0, Cmd(["HELLO", str(proto)], "hello"))
            short = shrink(ref, dut, cmds)
            if short:
                print(f"  shrunk to {len(short)} commands (after FLUSHALL, fresh connection):")
                for c in short:
                    print(f"    {describe(c)}")
            else:
                print("  (the episode does not fail again when replayed alone)")
        for s, name in ((ref, ref_name), (dut, dut_name)):
            if not s.alive():
                print(f"  {name} server exited with {s.proc.returncode}; log tail:")
                print(s.log()[-4000:])
        return 1
    finally:
        pair.close()
    elapsed = time.monotonic() - start
    print(f"compat: {ctx['count']} commands compared, 0 mismatches "
          f"({generated} generated, {ctx['episode']} episodes, {elapsed:.1f} s, seed {seed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
