"""Packaging: `make install` / `cmake --install` of the build directory the tests run from
(never a fresh build), the Docker image's files and the compose files of deploy/compose.

No Docker daemon is needed: the Dockerfile is checked as text (and its runtime packages
against the libraries the binaries load), the entry point runs with stand-in programs, and the
compose services' commands run as plain processes on free ports."""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cluster_helpers import VIREO_CLI, wait_state_ok
from conftest import IO_THREADS, REPO_ROOT, SERVER_BINARY, free_port

# Nothing here involves I/O threads; the I/O-threads run of the suite would only repeat it
# (and two installs from one build directory at once).
pytestmark = pytest.mark.skipif(bool(IO_THREADS), reason="no I/O threads involved")

BUILD_DIR = Path(SERVER_BINARY).resolve().parent
BINARIES = ("vireo-server", "vireo-cli", "vireo-benchmark")
COMPOSE = REPO_ROOT / "deploy" / "compose"
REHEARSE = REPO_ROOT / "scripts" / "docker_rehearse"
PASSWORD = "s3cret-pw"
# Packages every debian:12-slim has (libstdc++6 comes with apt).
SLIM_BASE = {"libc6", "libstdc++6", "libgcc-s1"}


def needs_build_dir():
    if not (BUILD_DIR / "cmake_install.cmake").exists():
        pytest.skip(f"{BUILD_DIR} is not a CMake build directory")
    for b in BINARIES:
        if not (BUILD_DIR / b).exists():
            pytest.skip(f"{BUILD_DIR / b} is not built")


def run(cmd, **kw):
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
    assert res.returncode == 0, f"{cmd} exited {res.returncode}:\n{res.stdout}\n{res.stderr}"
    return res.stdout


def unit_exec_start(unit):
    [line] = [l for l in unit.read_text().splitlines() if l.startswith("ExecStart=")]
    return line[len("ExecStart="):].split()


# --------------------------------------------------------------------------------------------
# make install / cmake --install

def test_make_install_with_prefix_usr(start_server, tmp_path):
    needs_build_dir()
    stage = tmp_path / "stage"
    # -o build: install what the build directory holds, without running ninja in it.
    run(["make", "-o", "build", "install", f"BUILD_DIR={BUILD_DIR}", f"DESTDIR={stage}",
         "PREFIX=/usr"], cwd=REPO_ROOT)
    for b in BINARIES:
        assert os.access(stage / "usr" / "bin" / b, os.X_OK), b
    conf = stage / "etc" / "vireo" / "vireo.conf"
    assert conf.read_text() == (REPO_ROOT / "vireo.conf").read_text()
    unit = stage / "usr" / "lib" / "systemd" / "system" / "vireo.service"
    assert unit_exec_start(unit)[:2] == ["/usr/bin/vireo-server", "/etc/vireo/vireo.conf"]
    assert "Type=notify" in unit.read_text()

    # The installed server runs with the installed config.
    server = start_server(conf, "--port", free_port(), "--dir", tmp_path,
                          binary=stage / "usr" / "bin" / "vireo-server", defaults=False)
    info = server.client().info("server")
    assert info["executable"] == str((stage / "usr" / "bin" / "vireo-server").resolve())
    assert info["config_file"] == str(conf.resolve())
    assert "Vireo" in run([stage / "usr" / "bin" / "vireo-cli", "--version"]) + run(
        [stage / "usr" / "bin" / "vireo-server", "--version"])

    # Installing again keeps the administrator's config.
    conf.write_text("port 7000\n")
    run(["cmake", "--install", BUILD_DIR, "--prefix", "/usr"],
        env={**os.environ, "DESTDIR": str(stage)})
    assert conf.read_text() == "port 7000\n"


def test_cmake_install_with_another_prefix(tmp_path):
    needs_build_dir()
    stage = tmp_path / "stage"
    run(["cmake", "--install", BUILD_DIR, "--prefix", "/opt/vireo"],
        env={**os.environ, "DESTDIR": str(stage)})
    root = stage / "opt" / "vireo"
    for b in BINARIES:
        assert os.access(root / "bin" / b, os.X_OK), b
    assert (root / "etc" / "vireo" / "vireo.conf").is_file()
    assert not (stage / "etc").exists()
    unit = root / "lib" / "systemd" / "system" / "vireo.service"
    assert unit_exec_start(unit)[:2] == ["/opt/vireo/bin/vireo-server",
                                         "/opt/vireo/etc/vireo/vireo.conf"]
    # No temporary unit file is left in the build directory.
    assert not list(BUILD_DIR.glob("vireo.service.*"))


def test_systemd_unit_hardening():
    text = (REPO_ROOT / "deploy" / "systemd" / "vireo.service").read_text()
    settings = dict(l.split("=", 1) for l in text.splitlines() if "=" in l and l[0] != "#")
    # Type=notify: the server sends READY=1 itself (supervised systemd, test_supervised.py).
    assert settings["Type"] == "notify"
    assert "--supervised systemd" in settings["ExecStart"]
    for key in ("NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp",
                "LimitNOFILE", "StateDirectory"):
        assert key in settings, key
    assert settings["ProtectSystem"] == "strict"
    assert "--daemonize no" in settings["ExecStart"]
    analyze = shutil.which("systemd-analyze")
    if analyze:
        res = subprocess.run([analyze, "verify", REPO_ROOT / "deploy/systemd/vireo.service"],
                             capture_output=True, text=True, timeout=60)
        # Only the missing binary may be reported here (it is installed elsewhere).
        problems = [l for l in (res.stdout + res.stderr).splitlines()
                    if l.strip() and "is not executable" not in l]
        assert not problems, problems


# --------------------------------------------------------------------------------------------
# Docker image

def dockerfile_stages():
    """[(from line, [(INSTRUCTION, arguments)])], read with the parser of make docker-rehearse
    (scripts/docker_rehearse/dockerfile.py), so the two never disagree about the file."""
    sys.path.insert(0, str(REHEARSE))
    try:
        import dockerfile
    finally:
        sys.path.remove(str(REHEARSE))
    stages = dockerfile.split_stages(dockerfile.parse_dockerfile(REPO_ROOT / "Dockerfile"))
    result = []
    for stage in stages:
        base = stage["base"] + (f" AS {stage['name']}" if stage["name"] else "")
        result.append((base, [(i.keyword, " ".join(str(i).split()[1:])) for i in stage["steps"]]))
    return result


def apt_packages(instructions):
    pkgs = []
    for instr, args in instructions:
        m = re.search(r"apt-get install [^&]*", args) if instr == "RUN" else None
        if m:
            pkgs += [w for w in m.group(0).split()[2:] if not w.startswith("-")]
    return pkgs


def install_deps_packages():
    text = (REPO_ROOT / "scripts" / "install-deps.sh").read_text()
    body = re.search(r"PACKAGES=\((.*?)\n\)", text, re.S).group(1)
    return {w for line in body.splitlines() for w in line.split("#")[0].split()}


def test_dockerfile_builds_in_debian_and_runs_slim_as_vireo():
    (build_from, build), (run_from, final) = dockerfile_stages()
    assert build_from == "debian:12 AS build"
    assert run_from == "debian:12-slim"
    assert set(apt_packages(build)) <= install_deps_packages()
    build_runs = " ".join(a for i, a in build if i == "RUN")
    assert "-DVIREO_TESTS=OFF" in build_runs and "cmake --install" in build_runs
    final_map = {}
    for instr, args in final:
        final_map.setdefault(instr, []).append(args)
    assert "useradd --system --gid vireo" in " ".join(final_map["RUN"])
    assert final_map["VOLUME"] == ["/data"] and final_map["WORKDIR"] == ["/data"]
    assert final_map["EXPOSE"] == ["6379 16379"]
    assert final_map["ENTRYPOINT"] == ['["docker-entrypoint.sh"]']
    assert final_map["CMD"] == ['["vireo-server", "/etc/vireo/vireo.conf"]']
    assert "USER" not in final_map  # the entry point drops to vireo after fixing /data
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    for copied in ("vireo.conf", "deploy/docker/container.conf",
                   "deploy/docker/docker-entrypoint.sh"):
        assert copied in dockerfile
        assert (REPO_ROOT / copied).is_file()


def test_docker_rehearsal_reads_the_dockerfile_and_refuses_what_it_cannot_do(tmp_path):
    # make docker-rehearse itself needs root and the network; its parse needs neither.
    cmd = ["/usr/bin/python3", "-B", str(REHEARSE), "--parse-only",
           "--work", str(tmp_path / "work"), "--cache", str(tmp_path / "cache")]
    out = run(cmd + ["--dockerfile", "Dockerfile"], cwd=REPO_ROOT)
    assert "FROM debian:12 AS build" in out and "FROM debian:12-slim" in out
    assert 'ENTRYPOINT ["docker-entrypoint.sh"]' in out
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM debian:12\nRUN true \\\n  && true\nADD x /x\n")
    res = subprocess.run(cmd + ["--dockerfile", str(bad)], capture_output=True, text=True,
                         timeout=60, cwd=REPO_ROOT)
    assert res.returncode != 0
    assert f"{bad}:4: ADD is not supported" in res.stdout + res.stderr


def test_runtime_image_has_the_libraries_the_binaries_load():
    needs_build_dir()
    runtime = set(apt_packages(dockerfile_stages()[1][1])) | SLIM_BASE
    missing = {}
    for b in BINARIES:
        ldd = run(["ldd", BUILD_DIR / b])
        if re.search(r"lib(a|t|ub)san", ldd):
            pytest.skip("sanitizer build")
        paths = dict(re.findall(r"^\s*(\S+) => (\S+)", ldd, re.M))
        needed = re.findall(r"NEEDED\s+Shared library: \[(.+)\]",
                            run(["readelf", "-d", BUILD_DIR / b]))
        for soname in needed:
            path = Path(paths[soname])
            out = subprocess.run(["dpkg", "-S", str(path.resolve())], capture_output=True,
                                 text=True)
            if out.returncode != 0:  # merged /usr: dpkg may know the other spelling
                other = str(path.resolve()).replace("/usr/lib/", "/lib/", 1)
                out = subprocess.run(["dpkg", "-S", other], capture_output=True, text=True)
            pkg = out.stdout.split(":")[0]
            if pkg not in runtime:
                missing[soname] = pkg
    assert not missing, f"runtime stage lacks packages for {missing}"


def entrypoint(tmp_path, *args, uid=1000):
    """Runs the entry point with stand-ins for the programs it starts, for `id` (uid) and for
    what it runs as root; returns what it printed (the command lines run)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in ("vireo-server", "vireo-cli", "find", "setpriv"):
        (bin_dir / name).write_text(f'#!/bin/sh\necho {name} "$@"\n')
        (bin_dir / name).chmod(0o755)
    (bin_dir / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (bin_dir / "id").chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    return run(["sh", REPO_ROOT / "deploy/docker/docker-entrypoint.sh", *args], env=env).strip()


def test_entrypoint_passes_options_to_the_server(tmp_path):
    conf = "/etc/vireo/vireo.conf"
    assert entrypoint(tmp_path, "vireo-server", conf) == f"vireo-server {conf}"
    assert entrypoint(tmp_path, "--requirepass", "x") == f"vireo-server {conf} --requirepass x"
    assert entrypoint(tmp_path, "/my.conf", "--port", "1") == "vireo-server /my.conf --port 1"
    assert (entrypoint(tmp_path, "vireo-server", "--port", "6380", "--save", "")
            == f"vireo-server {conf} --port 6380 --save")
    assert entrypoint(tmp_path, "vireo-cli", "-h", "h") == "vireo-cli -h h"
    # As root it hands /data to vireo and runs the server as vireo.
    assert entrypoint(tmp_path, "--requirepass", "x", uid=0).splitlines() == [
        "find /data ! -user vireo -exec chown vireo:vireo {} +",
        f"setpriv --reuid=vireo --regid=vireo --init-groups vireo-server {conf} --requirepass x"]
    assert entrypoint(tmp_path, "vireo-cli", "ping", uid=0) == "vireo-cli ping"


def test_image_config_loads(start_server, tmp_path):
    text = (REPO_ROOT / "vireo.conf").read_text() + (
        REPO_ROOT / "deploy/docker/container.conf").read_text()
    # bind and dir as the container's would not suit a test host: loopback and a temp dir.
    server = start_server("--port", free_port(), "--bind", "127.0.0.1", "--dir", tmp_path,
                          config=text)
    assert server.client().config_get("protected-mode") == {"protected-mode": "no"}


# --------------------------------------------------------------------------------------------
# Compose files: interpolated as `docker compose` does, then run as plain processes.

VARIABLE = re.compile(
    r"\$\$|\$\{(?P<braced>\w+)(?:(?P<op>:-|:\?)(?P<arg>[^}]*))?\}|\$(?P<plain>\w+)")


def interpolate(value, env):
    """Compose's substitution in every string of the parsed file: $$, $VAR, ${VAR},
    ${VAR:-default}, ${VAR:?error} (raises ValueError)."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def sub(m):
        if m.group(0) == "$$":
            return "$"
        found = env.get(m.group("braced") or m.group("plain"), "")
        if not found and m.group("op") == ":-":
            return m.group("arg")
        if not found and m.group("op") == ":?":
            raise ValueError(m.group("arg"))
        return found
    return VARIABLE.sub(sub, value)


def compose(name, env):
    return interpolate(yaml.safe_load((COMPOSE / name).read_text()), env)


def node_args(command, port_map):
    """A node's command as arguments for start_server, on the mapped (free) port."""
    args = shlex.split(command) if isinstance(command, str) else list(command)
    assert args[0] == "vireo-server"
    args = args[1:]
    i = args.index("--port")
    args[i + 1] = str(port_map[args[i + 1]])
    return args


def flag(args, name):
    return args[args.index(name) + 1]


def test_single_server_compose_runs_the_seed_flags(start_server):
    env = {"VIREO_PASSWORD": PASSWORD, "IO_THREADS": "2"}
    [(name, service)] = compose("vireo.yaml", env)["services"].items()
    assert service["network_mode"] == "host" and service["volumes"] == ["./data:/data"]
    args = node_args(service["command"], {"6379": free_port()})
    assert flag(args, "--requirepass") == PASSWORD
    assert flag(args, "--io-threads") == "2"
    assert flag(args, "--save") == ""
    with pytest.raises(ValueError):
        compose("vireo.yaml", {})  # no password, no start
    server = start_server(*args)
    r = server.client(password=PASSWORD)
    assert r.config_get("io-threads") == {"io-threads": "2"}
    assert r.config_get("save") == {"save": ""}
    with pytest.raises(Exception, match="NOAUTH|Authentication"):
        server.client().get("k")


def test_cluster_compose_forms_a_cluster(start_server):
    env = {"VIREO_PASSWORD": PASSWORD, "NODE_IP": "127.0.0.1"}
    services = compose("vireo-cluster.yaml", env)["services"]
    nodes = {n: s for n, s in services.items() if n.startswith("vireo-node-")}
    assert len(nodes) == 3
    port_map = {p: free_port() for p in ("6379", "6380", "6381")}
    servers = []
    for name, service in nodes.items():
        assert service["network_mode"] == "host"
        args = node_args(service["command"], port_map)
        for option, expected in (("--cluster-enabled", "yes"),
                                 ("--cluster-config-file", "nodes.conf"),
                                 ("--cluster-node-timeout", "5000"),
                                 ("--requirepass", PASSWORD), ("--save", "")):
            assert flag(args, option) == expected, (name, option)
        servers.append(start_server(*args, "--cluster-port", free_port()))
    assert len({tuple(s["volumes"]) for s in nodes.values()}) == 3

    create = services["vireo-cluster-create"]
    assert create["restart"] == "no" and sorted(create["depends_on"]) == sorted(nodes)
    assert create["command"][:2] == ["sh", "-c"]
    script = create["command"][2]
    assert "vireo-cli --cluster create" in script and "--cluster-yes" in script
    for compose_port, port in port_map.items():
        script = script.replace(compose_port, str(port))
    cli_dir = str(Path(VIREO_CLI).resolve().parent)
    env = {**create["environment"], "PATH": f"{cli_dir}:/usr/bin:/bin"}
    out = run(["sh", "-c", script], env=env)
    assert "[OK] All 16384 slots covered." in out
    wait_state_ok(servers, PASSWORD)
    # Another `up` leaves the formed cluster alone.
    assert "cluster already created" in run(["sh", "-c", script], env=env)
