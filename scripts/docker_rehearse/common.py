"""What the rehearsal's modules share: the error type, paths and users inside a root file
system, and processes chrooted into one with the host's /proc, /dev and /sys."""

import contextlib
import os
import shutil
import signal
import subprocess
import time

DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class RehearsalError(Exception):
    pass


def log(msg):
    print(f"[rehearse] {msg}", flush=True)


# ---- paths inside a root file system ---------------------------------------------------------

def resolve_in_root(root, path, follow_last=True):
    """Host path of `path` inside the file system at `root`, following symlinks the way the
    chroot would (an absolute link target is relative to root; nothing escapes it)."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    resolved, links = [], 0
    while parts:
        part = parts.pop(0)
        if part == "..":
            if resolved:
                resolved.pop()
            continue
        candidate = os.path.join(root, *resolved, part)
        if os.path.islink(candidate) and (parts or follow_last):
            links += 1
            if links > 40:
                raise RehearsalError(f"too many levels of symbolic links in {path}")
            target = os.readlink(candidate)
            if target.startswith("/"):
                resolved = []
            parts = [p for p in target.split("/") if p not in ("", ".")] + parts
            continue
        resolved.append(part)
    return os.path.join(root, *resolved)


def read_db(root, name):
    """Entries of /etc/passwd or /etc/group inside root: name -> fields."""
    entries = {}
    with open(os.path.join(root, "etc", name)) as f:
        for line in f:
            fields = line.rstrip("\n").split(":")
            if len(fields) >= 4:
                entries[fields[0]] = fields
    return entries


def resolve_user(root, spec):
    """USER / --chown spec (name or id, optional :group) -> (uid, gid, groups, home)."""
    user, _, group = spec.partition(":")
    passwd, groups = read_db(root, "passwd"), read_db(root, "group")
    home = "/"
    if user.isdigit():
        uid = int(user)
        entry = next((e for e in passwd.values() if int(e[2]) == uid), None)
        gid = int(entry[3]) if entry else uid
        name = entry[0] if entry else None
        home = entry[5] if entry and len(entry) > 5 else home
    elif user in passwd:
        uid, gid, name = int(passwd[user][2]), int(passwd[user][3]), user
        home = passwd[user][5]
    else:
        raise RehearsalError(f"unable to find user {user}: no matching entries in passwd file")
    if group:
        if group.isdigit():
            gid = int(group)
        elif group in groups:
            gid = int(groups[group][2])
        else:
            raise RehearsalError(f"unable to find group {group}: no matching entries in group file")
    extra = sorted({int(g[2]) for g in groups.values() if name and name in g[3].split(",")})
    return uid, gid, extra, home


def chown_spec(root, spec):
    """--chown: a user alone gives the same numeric id as group (as Docker documents)."""
    user, _, group = spec.partition(":")
    if user.isdigit() and (not group or group.isdigit()):
        return int(user), int(group or user)
    uid, gid, _, _ = resolve_user(root, spec)
    return uid, gid if group else uid


# ---- mounts and processes in the chroot ------------------------------------------------------

def mounts_under(path):
    real = os.path.realpath(path)
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            point = line.split()[4].encode().decode("unicode_escape")
            if point == real or point.startswith(real + "/"):
                found.append(point)
    return found


def unmount_all(path):
    for point in sorted(mounts_under(path), key=len, reverse=True):
        if subprocess.run(["umount", point], stderr=subprocess.DEVNULL).returncode != 0:
            subprocess.run(["umount", "-l", point], stderr=subprocess.DEVNULL)
    left = mounts_under(path)
    if left:
        raise RehearsalError(f"could not unmount {left}")


@contextlib.contextmanager
def chroot_mounts(root):
    """/proc, /dev and /sys of the host inside root while a process runs there. On the way
    out whatever still runs in root is killed, as the engine does when a RUN step's or a
    container's main process ends (a daemon started by a RUN would keep the mounts busy)."""
    try:
        for target, args in (("proc", ["-t", "proc", "proc"]), ("dev", ["--rbind", "/dev"]),
                             ("sys", ["--rbind", "/sys"])):
            point = os.path.join(root, target)
            os.makedirs(point, exist_ok=True)
            subprocess.run(["mount", *args, point], check=True)
            if args[0] == "--rbind":
                subprocess.run(["mount", "--make-rslave", point], check=True)
        yield
    finally:
        kill_processes_in(root)
        unmount_all(root)


def processes_in(root):
    """PIDs of the processes whose root directory is root."""
    real, pids = os.path.realpath(root), []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/root") == real:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def provide_resolv_conf(root, present=True):
    """The host's resolver configuration in root while the engine would provide one (a plain
    file: a symlink left there must not lead the copy out of root)."""
    path = os.path.join(root, "etc/resolv.conf")
    if os.path.islink(path) or (not present and os.path.exists(path)):
        os.unlink(path)
    if present:
        shutil.copyfile("/etc/resolv.conf", path)


def kill_processes_in(root):
    for _ in range(50):
        pids = processes_in(root)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.1)
    raise RehearsalError(f"processes {processes_in(root)} in {root} did not end")


def remove_tree(path):
    if not os.path.lexists(path):
        return
    if mounts_under(path):
        unmount_all(path)
    subprocess.run(["rm", "-rf", "--one-file-system", path], check=True)


def chroot_preexec(root, workdir, uid, gid, groups):
    def setup():
        os.chroot(root)
        os.chdir(workdir)
        os.setgroups(groups)
        os.setgid(gid)
        os.setuid(uid)
    return setup


def container_env(config, home):
    env = {"PATH": DEFAULT_PATH, "HOSTNAME": "vireo-rehearse", "HOME": home}
    env.update(config["env"])
    return env
