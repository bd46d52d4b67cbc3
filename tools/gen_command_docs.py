#!/usr/bin/python3
"""Writes src/commands/command_docs_data.cc: key specs, tips and COMMAND DOCS of every command,
read from a running reference server (valkey-server 8.0.1) and tools/command_docs_extra.json.

Vireo compiles the result in; COMMAND, COMMAND INFO, COMMAND DOCS and the key finders
(COMMAND GETKEYS, cluster routing, ACL key checks) read it (src/commands/command_docs.h).
Run it by hand after changing the reference or the extra file, never in CI:

  ../shared/reference/valkey-server --port 7801 --bind 127.0.0.1 --save "" --appendonly no &
  /usr/bin/python3 tools/gen_command_docs.py --port 7801
  # or let it start one: tools/gen_command_docs.py --start ../shared/reference/valkey-server

tools/command_docs_extra.json holds the commands Vireo has and Valkey 8.0.1 has not, written
after the command reference of the newer Valkey release that added each: tips and key specs as
COMMAND INFO replies them, docs with arguments as Valkey's command JSON files write them (the
tool adds display_text and flags, and orders the fields, as COMMAND DOCS does; it checks that
rule against every command of the reference). An entry for a command the reference has must say
`"newer_docs": "<release>"`: the docs fields it gives (arguments, history) replace the
reference's, for arguments a later release added (BYPOLYGON, SHUTDOWN SAFE, CLIENT filters).
`--dump FILE` writes what the reference answered as JSON.

The data file is generated: the C++ it writes is stable (sorted by command name) so a diff
shows what changed in the reference. Standard library only.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "src" / "commands" / "command_docs_data.cc"
DEFAULT_EXTRA = REPO / "tools" / "command_docs_extra.json"


# ---------------------------------------------------------------------------------------------
# A RESP3 reader that keeps each value's type: Simple, Bulk, int, Array, Set, Map.

class Simple(str):
    pass


class Array(list):
    pass


class Set(list):
    pass


class Map(list):
    """Key/value pairs in reply order."""

    def get(self, key, default=None):
        for k, v in self:
            if k == key:
                return v
        return default


class Conn:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=30)
        self.buf = b""

    def call(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a.encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(out))
        return self.read()

    def line(self):
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        i = self.buf.index(b"\r\n")
        line, self.buf = self.buf[:i], self.buf[i + 2:]
        return line.decode()

    def exact(self, n):
        while len(self.buf) < n + 2:
            self.buf += self.sock.recv(1 << 16)
        data, self.buf = self.buf[:n], self.buf[n + 2:]
        return data.decode()

    def read(self):
        line = self.line()
        t, rest = line[0], line[1:]
        if t == "+":
            return Simple(rest)
        if t in "-!":
            raise RuntimeError(rest if t == "-" else self.exact(int(rest)))
        if t == ":":
            return int(rest)
        if t == "$":
            return None if rest == "-1" else self.exact(int(rest))
        if t == "_":
            return None
        if t in "*~":
            items = [self.read() for _ in range(int(rest))]
            return Array(items) if t == "*" else Set(items)
        if t == "%":
            return Map((self.read(), self.read()) for _ in range(int(rest)))
        raise ValueError(f"unexpected reply type {t!r}")


# ---------------------------------------------------------------------------------------------
# JSON <-> typed values. The JSON form (extra file, --dump) is plain lists and dicts; the types
# come from the reply's schema, checked against the reference's own types on every run.

def typed_key_spec(d):
    out = Map()
    if "notes" in d:
        out.append(("notes", d["notes"]))
    out.append(("flags", Set(Simple(f) for f in d["flags"])))
    for part in ("begin_search", "find_keys"):
        spec = d[part]["spec"]
        out.append((part, Map([("type", d[part]["type"]),
                               ("spec", Map((k, v) for k, v in spec.items()))])))
    return out


DOC_SETS = {"doc_flags", "flags"}  # sets of status strings, in docs and in arguments


def typed_doc(value, key=None):
    """A plain JSON docs value (from --dump) typed as COMMAND DOCS replies it."""
    if key in DOC_SETS:
        return Set(Simple(f) for f in value)
    if key == "history":
        return Set(Array(entry) for entry in value)
    if key == "arguments":
        return Array(typed_doc(a) for a in value)
    if isinstance(value, dict):
        return Map((k, typed_doc(v, k)) for k, v in value.items())
    return value


# The extra file writes arguments as Valkey's command JSON files do; COMMAND DOCS adds a
# display_text to every argument that is not a oneof or block, lists the true ones of
# optional / multiple / multiple_token as flags, and orders the fields as below.
ARG_FLAGS = ["optional", "multiple", "multiple_token"]
ARG_ORDER = ["name", "type", "display_text", "key_spec_index", "token", "summary", "since",
             "deprecated_since", "flags", "arguments"]
DOC_ORDER = ["summary", "since", "group", "complexity", "doc_flags", "deprecated_since",
             "replaced_by", "history", "arguments"]


def expand_arg(a):
    a = dict(a)
    if a["type"] not in ("oneof", "block"):
        a.setdefault("display_text", a["name"])
    flags = [f for f in ARG_FLAGS if a.pop(f, False)]
    if flags:
        a["flags"] = flags
    if "arguments" in a:
        a["arguments"] = [expand_arg(sub) for sub in a["arguments"]]
    unknown = set(a) - set(ARG_ORDER)
    if unknown:
        raise SystemExit(f"argument {a['name']}: unknown fields {sorted(unknown)}")
    return {k: a[k] for k in ARG_ORDER if k in a}


def expand_docs(d):
    d = dict(d)
    if "arguments" in d:
        d["arguments"] = [expand_arg(a) for a in d["arguments"]]
    unknown = set(d) - set(DOC_ORDER)
    if unknown:
        raise SystemExit(f"unknown docs fields {sorted(unknown)}")
    return typed_doc({k: d[k] for k in DOC_ORDER if k in d})


def source_arg(a):
    """expand_arg's inverse, to check expand_arg against every argument of the reference."""
    a = dict(a)
    if a.get("display_text") == a["name"]:
        del a["display_text"]
    for f in a.pop("flags", []):
        a[f] = True
    if "arguments" in a:
        a["arguments"] = [source_arg(sub) for sub in a["arguments"]]
    return a


def plain(value):
    if isinstance(value, Map):
        return {k: plain(v) for k, v in value}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


# ---------------------------------------------------------------------------------------------
# Reading the reference

def read_reference(conn):
    """{full name: {"tips": [...], "key_specs": [...], "docs": {...}}}, typed as replied."""
    conn.call("HELLO", "3")
    commands = {}

    def walk_info(entry):
        name = entry[0]
        commands[name] = {"tips": entry[7], "key_specs": entry[8]}
        for sub in entry[9]:
            walk_info(sub)

    for entry in conn.call("COMMAND"):
        walk_info(entry)

    def walk_docs(name, docs):
        fields = Map((k, v) for k, v in docs if k != "subcommands")
        commands[name]["docs"] = fields
        for sub_name, sub_docs in docs.get("subcommands", Map()):
            walk_docs(sub_name, sub_docs)

    for name, docs in conn.call("COMMAND", "DOCS"):
        walk_docs(name, docs)
    return commands


def check_schema(commands):
    """The JSON round trip must give back the reference's own types, or the extra file's
    commands would be typed differently from the reference's."""
    for name, c in commands.items():
        if not isinstance(c["key_specs"], Set) or not all(
                same_types(typed_key_spec(plain(spec)), spec) for spec in c["key_specs"]):
            raise SystemExit(f"{name}: key specs do not fit the schema: {plain(c['key_specs'])}")
        if not same_types(typed_doc(plain(c["docs"])), c["docs"]):
            raise SystemExit(f"{name}: docs do not fit the schema")
        source = plain(c["docs"])
        source["arguments"] = [source_arg(a) for a in source.get("arguments", [])]
        if not source["arguments"]:
            del source["arguments"]
        if not same_types(expand_docs(source), c["docs"]):
            raise SystemExit(f"{name}: expand_docs does not give back the reference's docs")
        if not isinstance(c["tips"], Set) or any(type(t) is not str for t in c["tips"]):
            raise SystemExit(f"{name}: tips are not a set of bulk strings")


def same_types(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, Map):
        return len(a) == len(b) and all(
            ka == kb and same_types(va, vb) for (ka, va), (kb, vb) in zip(a, b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same_types(x, y) for x, y in zip(a, b))
    return a == b


# ---------------------------------------------------------------------------------------------
# Writing the C++

KEY_FLAGS = ["RO", "RW", "OW", "RM", "access", "update", "insert", "delete", "not_key",
             "incomplete", "variable_flags"]
KEY_FLAG_ENUM = {f: "kKey" + "".join(p.capitalize() for p in f.split("_")) for f in KEY_FLAGS}
KEY_FLAG_ENUM.update({"RO": "kKeyRO", "RW": "kKeyRW", "OW": "kKeyOW", "RM": "kKeyRM"})


def c_string(s):
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# begin_search / find_keys types: KeySpec's kind and the spec's fields, in reply order.
SPEC_KINDS = {"index": ("kIndex", ["index"]), "keyword": ("kKeyword", ["keyword", "startfrom"]),
              "range": ("kRange", ["lastkey", "keystep", "limit"]),
              "keynum": ("kKeynum", ["keynumidx", "firstkey", "keystep"]),
              "unknown": ("kUnknown", [])}
SPEC_MEMBER = {"index": "pos"}  # KeySpec's name where the reply's differs


def key_spec_cc(spec):
    flags = [f for f in spec.get("flags")]
    unknown = [f for f in flags if f not in KEY_FLAG_ENUM]
    if unknown:
        raise SystemExit(f"unknown key-spec flags {unknown}")
    fields = []
    if spec.get("notes") is not None:
        fields.append(f".notes = {c_string(spec.get('notes'))}")
    fields.append(".flags = " + (" | ".join(KEY_FLAG_ENUM[f] for f in flags) or "0"))
    for part, member in (("begin_search", ".begin"), ("find_keys", ".find")):
        kind, spec_fields = SPEC_KINDS.get(spec.get(part).get("type"), (None, None))
        values = spec.get(part).get("spec")
        if kind is None or [k for k, _ in values] != spec_fields:
            raise SystemExit(f"{part} {plain(spec.get(part))} is not supported")
        fields.append(f"{member} = KeySpec::{kind}" + "".join(
            f", .{SPEC_MEMBER.get(k, k)} = {c_string(v) if isinstance(v, str) else v}"
            for k, v in values))
    return "{" + ", ".join(fields) + "}"


def encode_docs(value, indent, out):
    """The docs tree as one token per line: `%n` map, `*n` array, `~n` set, `+text` status,
    `$text` bulk, `:n` integer (see DocsReader in command_docs.cc)."""
    pad = " " * indent
    if isinstance(value, Map):
        out.append(f'{pad}"%{len(value)}\\n"')
        for k, v in value:
            if isinstance(v, (Map, list)):
                out.append(f"{pad}{c_string('$' + k + chr(10))}")
                encode_docs(v, indent + 2, out)
            else:
                out.append(f"{pad}{c_string('$' + k + chr(10))} {token(v)}")
    elif isinstance(value, list):
        kind = "~" if isinstance(value, Set) else "*"
        out.append(f'{pad}"{kind}{len(value)}\\n"')
        for v in value:
            if isinstance(v, (Map, list)):
                encode_docs(v, indent + 2, out)
            else:
                out.append(f"{pad}{token(v)}")
    else:
        out.append(pad + token(value))


def token(v):
    if isinstance(v, bool) or v is None:
        raise SystemExit(f"unexpected value {v!r}")
    if isinstance(v, int):
        return f'":{v}\\n"'
    if "\n" in v:
        raise SystemExit(f"a newline in {v!r} would end its token")
    return c_string(("+" if isinstance(v, Simple) else "$") + v + "\n")


HEADER = """\
// GENERATED by tools/gen_command_docs.py: do not edit; rerun the tool (see its docstring).
//
// Key specs, tips and COMMAND DOCS of every command, as valkey-server {version} answers
// COMMAND and COMMAND DOCS (Valkey's command reference; commands newer than {version} from
// tools/command_docs_extra.json, after the reference of the Valkey release that added them).
// Valkey is BSD-licensed (3-clause): Copyright (c) 2024-present, Valkey contributors;
// Copyright (c) 2006-2020, Redis Ltd. The licence: ../shared/reference/COPYING.valkey.
"""


def write_cc(commands, version, out_path):
    names = sorted(commands)
    lines = [HEADER.format(version=version), '#include "commands/command_docs.h"', "",
             "namespace vireo {", "", "// Indexed by CommandDocs::key_specs_begin.",
             "const KeySpec kKeySpecs[] = {"]
    begin = {}
    n = 0
    for name in names:
        begin[name] = n
        for spec in commands[name]["key_specs"]:
            lines.append(f"    /* {n} {name} */ {key_spec_cc(spec)},")
            n += 1
    if n == 0:
        lines.append("    {},")
    lines += ["};", "", "// Sorted by name (FindCommandDocs searches it).",
              "const CommandDocs kCommandDocs[] = {"]
    for name in names:
        c = commands[name]
        tips = " ".join(c["tips"])
        lines.append(f"    {{{c_string(name)}, {c_string(tips)}, {begin[name]}, "
                     f"{len(c['key_specs'])},")
        body = []
        encode_docs(c["docs"], 5, body)
        lines += body
        lines[-1] += "},"
    lines += ["};", "", f"const size_t kCommandDocsCount = {len(names)};", "",
              "}  // namespace vireo", ""]
    out_path.write_text("\n".join(lines))


# ---------------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=6379, help="a running reference server")
    ap.add_argument("--start", metavar="VALKEY_SERVER", help="start this binary instead")
    ap.add_argument("--extra", default=str(DEFAULT_EXTRA))
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--dump", metavar="FILE", help="also write the reference's data as JSON")
    args = ap.parse_args()

    proc = None
    if args.start:
        args.port = free_port()
        workdir = tempfile.mkdtemp(prefix="gen_command_docs.")
        proc = subprocess.Popen([args.start, "--port", str(args.port), "--bind", "127.0.0.1",
                                 "--save", "", "--appendonly", "no", "--dir", workdir],
                                stdout=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection((args.host, args.port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
    try:
        conn = Conn(args.host, args.port)
        hello = conn.call("HELLO", "3")
        version = hello.get("version")
        commands = read_reference(conn)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait()
    if args.dump:
        Path(args.dump).write_text(json.dumps({n: plain(c) for n, c in sorted(commands.items())},
                                              indent=1) + "\n")
    check_schema(commands)
    extra = json.loads(Path(args.extra).read_text()) if os.path.exists(args.extra) else {}
    extra = {name: c for name, c in extra.items() if not name.startswith("//")}  # comments
    newer = 0
    for name, c in extra.items():
        if name in commands:
            if not c.get("newer_docs"):
                raise SystemExit(f"{name} is in the reference now: remove it from {args.extra}")
            # A later release changed the docs of a command 8.0.1 has (new arguments): the
            # fields given replace the reference's, whose key specs and tips stay.
            base = plain(commands[name]["docs"])
            base["arguments"] = [source_arg(a) for a in base.get("arguments", [])]
            base.update(c["docs"])
            commands[name]["docs"] = expand_docs(base)
            newer += 1
            continue
        commands[name] = {"tips": Set(c.get("tips", [])),
                          "key_specs": [typed_key_spec(s) for s in c.get("key_specs", [])],
                          "docs": expand_docs(c["docs"])}
    write_cc(commands, version, Path(args.out))
    print(f"{args.out}: {len(commands)} commands and subcommands "
          f"({len(commands) - len(extra) + newer} from valkey-server {version}, {newer} of them "
          f"with a later release's docs)", file=sys.stderr)


if __name__ == "__main__":
    main()
