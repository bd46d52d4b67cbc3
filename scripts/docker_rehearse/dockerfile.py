r"""The Dockerfile: instructions with `\` continuations joined and comments dropped, split into
stages; only the instructions the rehearsal can carry out are accepted."""

import json
import re

from common import RehearsalError

SUPPORTED = {"FROM", "RUN", "WORKDIR", "COPY", "ENV", "USER", "VOLUME", "EXPOSE",
             "ENTRYPOINT", "CMD"}


class Instruction:
    def __init__(self, lineno, keyword, rest):
        self.lineno, self.keyword, self.rest = lineno, keyword, rest
        self.flags = {}

    def __str__(self):
        flags = "".join(f"--{k}={v} " for k, v in self.flags.items())
        return f"{self.keyword} {flags}{self.rest}"


def parse_dockerfile(path):
    """Instructions of a Dockerfile: comments dropped, `\\` continuations joined."""
    instructions, pending, start = [], None, 0
    with open(path) as f:
        lines = f.read().splitlines()
    for lineno, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            continue  # a comment, also inside a continued instruction (as Docker does)
        if pending is None:
            if not stripped:
                continue
            pending, start = "", lineno
        elif not stripped:
            continue  # an empty line inside a continuation is skipped
        if stripped.endswith("\\"):
            pending += line.rstrip()[:-1]
            continue
        pending += line
        instructions.append(make_instruction(path, start, pending))
        pending = None
    if pending is not None:
        raise RehearsalError(f"{path}:{start}: the file ends inside a `\\` continuation")
    return instructions


def make_instruction(path, lineno, text):
    keyword, _, rest = text.strip().partition(" ")
    keyword = keyword.upper()
    if keyword not in SUPPORTED:
        raise RehearsalError(
            f"{path}:{lineno}: {keyword} is not supported by the rehearsal (it knows "
            f"{', '.join(sorted(SUPPORTED))}); extend scripts/docker_rehearse/")
    instr = Instruction(lineno, keyword, rest.strip())
    allowed = {"COPY": {"from", "chown", "chmod"}}.get(keyword, set())
    while instr.rest.startswith("--"):
        flag, _, instr.rest = instr.rest.partition(" ")
        name, eq, value = flag[2:].partition("=")
        if name not in allowed or not eq:
            raise RehearsalError(f"{path}:{lineno}: {keyword} flag {flag} is not supported")
        instr.flags[name] = value
        instr.rest = instr.rest.strip()
    if not instr.rest:
        raise RehearsalError(f"{path}:{lineno}: {keyword} needs arguments")
    return instr


def split_stages(instructions):
    stages = []
    for instr in instructions:
        if instr.keyword == "FROM":
            words = instr.rest.split()
            if len(words) == 1:
                name = None
            elif len(words) == 3 and words[1].upper() == "AS":
                name = words[2].lower()
            else:
                raise RehearsalError(f"line {instr.lineno}: FROM image [AS name] expected")
            stages.append({"base": words[0], "name": name, "steps": [], "index": len(stages)})
        elif not stages:
            raise RehearsalError(f"line {instr.lineno}: {instr.keyword} before the first FROM")
        else:
            stages[-1]["steps"].append(instr)
    if not stages:
        raise RehearsalError("no FROM in the Dockerfile")
    return stages


def json_or_none(text):
    """The JSON (exec) form of ENTRYPOINT/CMD/COPY/VOLUME, or None for the shell form."""
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None  # Docker too treats invalid JSON as the shell form
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return value


def substitute(text, env):
    """$VAR, ${VAR}, ${VAR:-default} and ${VAR:+alternative} from the ENV seen so far."""
    def repl(m):
        if m.group(0) == "\\$":
            return "$"
        name = m.group(1) or m.group(2)
        op, word = m.group(3), m.group(4)
        value = env.get(name, "")
        if op == ":-":
            return value or word
        if op == ":+":
            return word if value else ""
        return value
    return re.sub(r"\\\$|\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)"
                  r"(?:(:[-+])([^}]*))?\})", repl, text)
