"""`docker build`: the build context (.dockerignore applied), then each stage from its base,
its instructions carried out in order."""

import fnmatch
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import time

from base import BASE_IMAGES, debootstrap_bases
from common import (DEFAULT_PATH, RehearsalError, chown_spec, chroot_mounts, chroot_preexec,
                    container_env, log, provide_resolv_conf, remove_tree, resolve_in_root,
                    resolve_user)
from dockerfile import json_or_none, parse_dockerfile, split_stages, substitute


def dockerignore_matcher(context):
    """A function path -> excluded, after .dockerignore (Docker's patternmatcher rules: Go
    filepath.Match plus `**`, `!` exceptions, the last matching line wins, a match on a parent
    directory excludes what is below it)."""
    path = os.path.join(context, ".dockerignore")
    rules = []
    if os.path.exists(path):
        with open(path) as f:
            lines = [l.strip() for l in f if l.strip() and not l.strip().startswith("#")]
    else:
        # No .dockerignore: leave out at least what a build would be ruined or bloated by.
        lines = [".git", "build", "build-*"]
        log("no .dockerignore: leaving out .git, build, build-*")
    for line in lines:
        negate = line.startswith("!")
        pattern = os.path.normpath(line[1:] if negate else line).lstrip("/")
        rules.append((negate, re.compile(pattern_regex(pattern))))

    def excluded(rel):
        parents = rel.split("/")
        result = False
        for negate, regex in rules:
            if any(regex.fullmatch("/".join(parents[:i])) for i in range(1, len(parents) + 1)):
                result = not negate
        return result
    return excluded, any(n for n, _ in rules)


def pattern_regex(pattern):
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            out += ".*"
            i += 2
            continue
        if c == "*":
            out += "[^/]*"
        elif c == "?":
            out += "[^/]"
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out += re.escape(c)
            else:
                body = pattern[i + 1:end]
                out += "[" + ("^" + body[1:] if body.startswith("^") else body) + "]"
                i = end
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out += re.escape(pattern[i])
        else:
            out += re.escape(c)
        i += 1
    return out


def snapshot_context(source, target):
    """Copies the build context (what `docker build` would send) to target."""
    excluded, has_exceptions = dockerignore_matcher(source)
    remove_tree(target)
    os.makedirs(target)
    count, size = 0, 0
    for dirpath, dirnames, filenames in os.walk(source):
        rel_dir = os.path.relpath(dirpath, source)
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        kept_dirs = []
        for d in dirnames:
            rel = rel_dir + d
            full = os.path.join(dirpath, d)
            if excluded(rel) and not has_exceptions:
                continue  # an exception below could re-include files: only prune without one
            if os.path.islink(full):
                filenames.append(d)
                continue
            os.makedirs(os.path.join(target, rel), exist_ok=True)
            shutil.copystat(full, os.path.join(target, rel))
            kept_dirs.append(d)
        dirnames[:] = kept_dirs
        for name in filenames:
            rel = rel_dir + name
            if excluded(rel):
                continue
            shutil.copy2(os.path.join(dirpath, name), os.path.join(target, rel),
                         follow_symlinks=False)
            count += 1
            size += os.lstat(os.path.join(target, rel)).st_size
    log(f"build context: {count} files, {size / 1e6:.1f} MB (from {source})")


# ---- instructions ----------------------------------------------------------------------------

class Build:
    def __init__(self, args):
        self.args = args
        self.work = os.path.realpath(args.work)
        self.context = os.path.join(self.work, "context")
        self.stages = []
        self.times = []

    def stage_root(self, stage):
        return os.path.join(self.work, f"stage{stage['index']}-{stage['name'] or 'unnamed'}")

    def find_stage(self, ref):
        for stage in self.stages:
            if stage["name"] == ref.lower() or str(stage["index"]) == ref:
                return stage
        return None

    def run(self, dockerfile):
        stages = split_stages(parse_dockerfile(dockerfile))
        os.makedirs(self.work, exist_ok=True)
        for leftover in glob.glob(os.path.join(self.work, "stage*")):
            remove_tree(leftover)
        started = time.monotonic()
        snapshot_context(self.args.context, self.context)
        self.times.append(("context", time.monotonic() - started))
        for stage in stages:
            started = time.monotonic()
            self.build_stage(stage)
            self.stages.append(stage)
            self.times.append((f"stage {stage['index']} ({stage['name'] or stage['base']})",
                               time.monotonic() - started))
        return self.stages[-1]

    def build_stage(self, stage):
        root = self.stage_root(stage)
        stage["root"] = root
        base = stage["base"]
        log(f"== stage {stage['index']}: FROM {base}" +
            (f" AS {stage['name']}" if stage["name"] else ""))
        parent = self.find_stage(base)
        if parent:
            subprocess.run(["cp", "-a", parent["root"], root], check=True)
            stage["config"] = json.loads(json.dumps(parent["config"]))
        elif base in BASE_IMAGES:
            suite, variant = BASE_IMAGES[base]
            tarball = os.path.join(self.args.cache, f"{suite}-{variant}.tar")
            if not os.path.exists(tarball):
                debootstrap_bases(suite, self.work, self.args.cache, self.args.mirror)
            os.makedirs(root)
            subprocess.run(["tar", "--numeric-owner", "--xattrs", "-C", root, "-xpf", tarball],
                           check=True)
            # The official images' configuration: PATH and CMD ["bash"].
            stage["config"] = {"env": {"PATH": DEFAULT_PATH}, "workdir": "/", "user": "",
                               "entrypoint": [], "cmd": ["bash"], "volumes": [], "expose": []}
        else:
            raise RehearsalError(f"FROM {base}: the rehearsal has no stand-in for this image "
                                 f"(known: {', '.join(sorted(BASE_IMAGES))} and earlier stages)")
        for number, instr in enumerate(stage["steps"], 1):
            log(f"step {stage['index']}.{number} (line {instr.lineno}): {instr}")
            try:
                getattr(self, "do_" + instr.keyword.lower())(stage, instr)
            except RehearsalError as e:
                raise RehearsalError(f"line {instr.lineno}: {instr.keyword}: {e}") from None

    def do_run(self, stage, instr):
        config, root = stage["config"], stage["root"]
        argv = json_or_none(instr.rest) or ["/bin/sh", "-c", instr.rest]
        uid, gid, groups, home = resolve_user(root, config["user"] or "root")
        setup = chroot_preexec(root, config["workdir"], uid, gid, groups)
        # The engine provides the resolver configuration for each RUN (bind-mounted: the
        # image keeps none).
        provide_resolv_conf(root)
        try:
            with chroot_mounts(root):
                rc = subprocess.run(argv, env=container_env(config, home),
                                    stdin=subprocess.DEVNULL, preexec_fn=setup).returncode
        except OSError as e:
            raise RehearsalError(f"exec {argv[0]}: {e.strerror}") from None
        finally:
            provide_resolv_conf(root, present=False)
        if rc != 0:
            raise RehearsalError(f"the command returned a non-zero code: {rc}")

    def do_workdir(self, stage, instr):
        config = stage["config"]
        path = substitute(instr.rest, config["env"])
        path = os.path.normpath(os.path.join(config["workdir"], path))
        os.makedirs(resolve_in_root(stage["root"], path), exist_ok=True)
        config["workdir"] = path

    def do_env(self, stage, instr):
        env = stage["config"]["env"]
        words = shlex.split(instr.rest, posix=True)
        if "=" not in words[0]:
            key, _, value = instr.rest.partition(" ")  # legacy form: ENV key value
            env[key] = substitute(value.strip(), env)
            return
        for word in shlex.split(substitute(instr.rest, env)):
            key, eq, value = word.partition("=")
            if not eq:
                raise RehearsalError(f"ENV {word}: key=value expected")
            env[key] = value

    def do_user(self, stage, instr):
        stage["config"]["user"] = substitute(instr.rest, stage["config"]["env"])

    def do_volume(self, stage, instr):
        paths = json_or_none(instr.rest) or instr.rest.split()
        stage["config"]["volumes"] += [substitute(p, stage["config"]["env"]) for p in paths]

    def do_expose(self, stage, instr):
        for port in substitute(instr.rest, stage["config"]["env"]).split():
            if not re.fullmatch(r"\d+(-\d+)?(/(tcp|udp|sctp))?", port):
                raise RehearsalError(f"invalid port {port}")
            stage["config"]["expose"].append(port)

    def do_entrypoint(self, stage, instr):
        argv = json_or_none(instr.rest)
        stage["config"]["entrypoint"] = argv if argv is not None else [
            "/bin/sh", "-c", instr.rest]
        stage["config"]["cmd"] = []  # ENTRYPOINT resets an inherited CMD, as Docker does

    def do_cmd(self, stage, instr):
        argv = json_or_none(instr.rest)
        stage["config"]["cmd"] = argv if argv is not None else ["/bin/sh", "-c", instr.rest]

    def do_copy(self, stage, instr):
        config, root = stage["config"], stage["root"]
        words = json_or_none(instr.rest) or instr.rest.split()
        words = [substitute(w, config["env"]) for w in words]
        if len(words) < 2:
            raise RehearsalError("COPY needs a source and a destination")
        sources, dest = words[:-1], words[-1]
        if "from" in instr.flags:
            source_stage = self.find_stage(instr.flags["from"])
            if source_stage is None:
                raise RehearsalError(f"--from={instr.flags['from']}: no earlier stage has that "
                                     "name (images as sources are not supported)")
            source_root, where = source_stage["root"], f"stage {instr.flags['from']}"
        else:
            source_root, where = self.context, "the build context"
        owner = chown_spec(root, instr.flags["chown"]) if "chown" in instr.flags else (0, 0)
        mode = int(instr.flags["chmod"], 8) if "chmod" in instr.flags else None
        expanded = []
        for source in sources:
            if "from" not in instr.flags and os.path.normpath(source).startswith(".."):
                raise RehearsalError(f"{source}: outside the build context")
            if any(c in source for c in "*?["):
                parent = resolve_in_root(source_root, os.path.dirname(source) or ".")
                matches = sorted(m for m in os.listdir(parent)
                                 if fnmatch.fnmatchcase(m, os.path.basename(source)))
                expanded += [os.path.join(parent, m) for m in matches]
                if not matches:
                    raise RehearsalError(f"{source}: no file in {where} matches")
                continue
            path = resolve_in_root(source_root, source)
            if not os.path.lexists(path):
                raise RehearsalError(f"{source}: not found in {where}" + (
                    "" if "from" in instr.flags else " (or left out by .dockerignore)"))
            expanded.append(path)
        if len(expanded) > 1 and not dest.endswith("/"):
            raise RehearsalError("When using COPY with more than one source file, the "
                                 "destination must be a directory and end with a /")
        dest_path = os.path.join(config["workdir"], dest)
        target = resolve_in_root(root, dest_path)
        into_dir = dest.endswith("/") or dest in (".", "./") or os.path.isdir(target)
        for path in expanded:
            if os.path.isdir(path) and not os.path.islink(path):
                self.make_dirs(root, target, owner)
                copy_tree(path, target, owner, mode)
            else:
                final = os.path.join(target, os.path.basename(path)) if into_dir else target
                self.make_dirs(root, os.path.dirname(final), owner)
                copy_entry(path, final, owner, mode)

    @staticmethod
    def make_dirs(root, path, owner):
        missing = []
        while not os.path.isdir(path):
            missing.append(path)
            path = os.path.dirname(path)
        for created in reversed(missing):
            os.mkdir(created, 0o755)
            os.chown(created, *owner)


def copy_entry(source, target, owner, mode):
    if os.path.lexists(target) and not os.path.isdir(target):
        os.unlink(target)
    if os.path.islink(source):
        os.symlink(os.readlink(source), target)
    else:
        shutil.copy2(source, target)
        if mode is not None:
            os.chmod(target, mode)
    os.lchown(target, *owner)


def copy_tree(source, target, owner, mode):
    for dirpath, dirnames, filenames in os.walk(source):
        rel = os.path.relpath(dirpath, source)
        out_dir = os.path.normpath(os.path.join(target, rel))
        if not os.path.isdir(out_dir):
            os.mkdir(out_dir)
            shutil.copystat(dirpath, out_dir)
            os.chown(out_dir, *owner)
        for d in list(dirnames):
            if os.path.islink(os.path.join(dirpath, d)):
                dirnames.remove(d)
                filenames.append(d)
        for name in filenames:
            copy_entry(os.path.join(dirpath, name), os.path.join(out_dir, name), owner, mode)
