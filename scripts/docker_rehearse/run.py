"""`docker run`: the final stage started as the engine would start it, checked from the host
with a RESP client, shut down; then the summary."""

import glob
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time

from common import (RehearsalError, chroot_mounts, chroot_preexec, container_env, log,
                    processes_in, provide_resolv_conf, resolve_in_root, resolve_user)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Checks:
    def __init__(self, cli, port):
        self.cli, self.port, self.failed = cli, port, []

    def call(self, *args):
        result = subprocess.run([self.cli, "-h", "127.0.0.1", "-p", str(self.port), *args],
                                capture_output=True, text=True, timeout=30)
        return result.stdout.strip()

    def expect(self, what, ok, detail=""):
        log(f"  {'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else ""))
        if not ok:
            self.failed.append(what)


def uid_of(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Uid:"):
                return [int(x) for x in line.split()[1:]]
    return []


def exec_in(root, config, command, timeout=60):
    """`docker exec` as root: a command in the running image, output captured."""
    return subprocess.run(command, env=container_env(config, "/root"), capture_output=True,
                          text=True, timeout=timeout,
                          preexec_fn=chroot_preexec(root, "/", 0, 0, []))


def run_image(image, args, work):
    """Runs the image twice, as `docker run IMAGE --port P --save ""` would: with the anonymous
    volume Docker makes for VOLUME /data (a copy of the image's /data), and with a host
    directory created by root bind-mounted on /data (`-v "$PWD/data:/data"`, as README.md
    shows), which the entry point must hand to the vireo user."""
    cli = shutil.which("redis-cli") or os.path.join(args.context, "build/vireo-cli")
    if not os.access(cli, os.X_OK):
        raise RehearsalError("no redis-cli on PATH and no build/vireo-cli for the checks")
    root = image["root"]
    anonymous, host_dir = os.path.join(work, "volume-anonymous"), os.path.join(work, "volume-host")
    for path in (anonymous, host_dir):
        if os.path.lexists(path):
            shutil.rmtree(path)
    subprocess.run(["cp", "-a", resolve_in_root(root, "/data"), anonymous], check=True)
    os.makedirs(host_dir)
    with open(os.path.join(host_dir, "from-the-host.txt"), "w") as f:
        f.write("created by root on the host\n")
    run_container(image, cli, work, anonymous, "anonymous volume on /data")
    run_container(image, cli, work, host_dir, f"-v {host_dir}:/data")
    kept = os.stat(os.path.join(host_dir, "from-the-host.txt")).st_uid
    vireo_uid = resolve_user(root, "vireo")[0]
    if kept != vireo_uid:
        raise RehearsalError(f"the entry point left {host_dir}/from-the-host.txt to uid {kept}")
    log(f"  ok   the entry point handed the host directory's files to vireo (uid {vireo_uid})")


def run_container(image, cli, work, volume, what):
    """One `docker run` with volume bind-mounted on /data: checked from the host, then
    SHUTDOWN, and nothing of it may be left running."""
    config, root = image["config"], image["root"]
    port = free_port()
    run_args = ["--port", str(port), "--save", ""]  # arguments of `docker run` replace CMD
    argv = config["entrypoint"] + (run_args or config["cmd"])
    log(f"== docker run ({what}): {shlex.join(argv)} (user {config['user'] or 'root'}, "
        f"workdir {config['workdir']}, EXPOSE {' '.join(config['expose'])})")
    for path in config["volumes"]:
        os.makedirs(resolve_in_root(root, path), exist_ok=True)
    provide_resolv_conf(root)
    uid, gid, groups, home = resolve_user(root, config["user"] or "root")
    vireo_uid = resolve_user(root, "vireo")[0]
    checks = Checks(cli, port)
    log_path = os.path.join(work, "run.log")
    # What the container changes in the image (CONFIG REWRITE) goes when it is removed.
    config_file = resolve_in_root(root, "/etc/vireo/vireo.conf")
    subprocess.run(["cp", "-a", config_file, config_file + ".rehearsal"], check=True)
    server = None
    try:
        with chroot_mounts(root), open(log_path, "w") as out:
            subprocess.run(["mount", "--bind", volume, resolve_in_root(root, "/data")],
                           check=True)
            try:
                server = subprocess.Popen(argv, env=container_env(config, home), stdout=out,
                                          stderr=subprocess.STDOUT, preexec_fn=chroot_preexec(
                                              root, config["workdir"], uid, gid, groups))
            except OSError as e:
                raise RehearsalError(f"docker run: exec {argv[0]}: {e.strerror} (with the "
                                     "image's PATH, in the image)") from None
            deadline = time.monotonic() + 15
            while checks.call("PING") != "PONG":
                if server.poll() is not None or time.monotonic() > deadline:
                    with open(log_path) as f:
                        raise RehearsalError(f"the container did not answer PING on port "
                                             f"{port} (exit {server.poll()}):\n{f.read()}")
                time.sleep(0.2)
            check_server(checks, root, config, server.pid, port, vireo_uid)
            checks.call("SHUTDOWN")
            try:
                rc = server.wait(timeout=15)
                checks.expect("SHUTDOWN: the server exited with 0", rc == 0, f"exit {rc}")
            except subprocess.TimeoutExpired:
                checks.expect("SHUTDOWN: the server exited", False, "still running after 15 s")
            left = processes_in(root)
            checks.expect("nothing left running in the image", not left, f"pids {left}")
    finally:
        if server and server.poll() is None:
            server.kill()
            server.wait()
        provide_resolv_conf(root, present=False)
        os.replace(config_file + ".rehearsal", config_file)
    if checks.failed:
        with open(log_path) as f:
            sys.stdout.write(f.read()[-3000:])
        raise RehearsalError(f"{len(checks.failed)} check(s) failed: {'; '.join(checks.failed)}")


def check_server(checks, root, config, pid, port, vireo_uid):
    checks.expect("PING -> PONG", True)
    ids = uid_of(pid)
    checks.expect(f"the server process runs as vireo (uid {vireo_uid})",
                  ids and all(i == vireo_uid for i in ids), f"uids {ids}")
    with open(f"/proc/{pid}/cmdline") as f:
        cmdline = f.read().split("\0")
    checks.expect("the entry point exec'd vireo-server /etc/vireo/vireo.conf",
                  cmdline[:2] == ["vireo-server", "/etc/vireo/vireo.conf"], cmdline)
    checks.expect("SET", checks.call("SET", "rehearsal", "value") == "OK")
    checks.expect("GET", checks.call("GET", "rehearsal") == "value")
    lua = checks.call("EVAL", "return cjson.encode({bit.band(7, 3)})", "0")
    checks.expect("EVAL with cjson and bit (lua-cjson, Vireo's bit)", lua == "[3]", lua)
    checks.expect("CONFIG GET dir -> /data",
                  checks.call("CONFIG", "GET", "dir").splitlines()[-1:] == ["/data"])
    checks.expect("SAVE", checks.call("SAVE") == "OK")
    rewrite = checks.call("CONFIG", "REWRITE")
    checks.expect("CONFIG REWRITE of /etc/vireo/vireo.conf (owned by vireo)", rewrite == "OK",
                  rewrite)
    dump = resolve_in_root(root, "/data/dump.rdb")
    owner = os.stat(dump).st_uid if os.path.exists(dump) else None
    checks.expect(f"/data/dump.rdb written, owned by vireo (uid {vireo_uid})",
                  owner == vireo_uid, f"owner {owner}")
    info = checks.call("INFO", "server")
    checks.expect("INFO server", "# Server" in info and f"process_id:{pid}" in info and
                  f"tcp_port:{port}" in info, info[:300])
    # `docker exec`: the image's own CLI and benchmark against the server, and their libraries.
    for what, command, want in (
            ("docker exec vireo-cli PING", ["vireo-cli", "-p", str(port), "PING"], "PONG"),
            ("docker exec vireo-benchmark", ["vireo-benchmark", "-p", str(port), "-n", "2000",
                                             "-t", "set,get", "-q"], "GET")):
        result = exec_in(root, config, command)
        checks.expect(what, result.returncode == 0 and want in result.stdout,
                      (result.stdout + result.stderr)[-300:])
    ldd = exec_in(root, config, ["sh", "-c", "ldd /usr/bin/vireo-*"])
    missing = [line.strip() for line in ldd.stdout.splitlines()
               if line.endswith(":") or "not found" in line]
    checks.expect("every shared library of the binaries is in the image",
                  ldd.returncode == 0 and "not found" not in ldd.stdout, " ".join(missing))


def summary(build, image, total):
    root = image["root"]
    disk = subprocess.run(["du", "-s", "-B1", "--one-file-system", root], capture_output=True,
                          text=True, check=True).stdout.split()[0]
    apparent = subprocess.run(["du", "-s", "-b", "--one-file-system", root],
                              capture_output=True, text=True, check=True).stdout.split()[0]
    print("\n==== docker rehearsal: passed")
    print(f"image (final rootfs {root}): {int(disk) / 2**20:.1f} MiB on disk, "
          f"{int(apparent) / 2**20:.1f} MiB apparent")
    for binary in sorted(glob.glob(os.path.join(root, "usr/bin/vireo-*"))):
        print(f"  {os.path.basename(binary):18} {os.path.getsize(binary) / 2**20:6.2f} MiB")
    for what, seconds in build.times:
        print(f"  {what:30} {seconds:7.1f} s")
    print(f"  {'total':30} {total:7.1f} s")
