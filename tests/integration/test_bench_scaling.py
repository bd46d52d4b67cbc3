"""bench/bundle and bench/scaling, the prepared run for a lent many-core machine: the bundle's
binaries load only the libraries it carries, and every section of bench/scaling gives its
rows when run from a bundle, shrunk to this machine's two cores."""
import csv
import os
import subprocess

import pytest

from conftest import REPO_ROOT, SERVER_BINARY, built_binary, free_port

REDIS_SERVER = "/usr/bin/redis-server"
BINARIES = [SERVER_BINARY, built_binary("VIREO_BENCHMARK", "vireo-benchmark"),
            built_binary("VIREO_CLI", "vireo-cli"), REDIS_SERVER, "/usr/bin/redis-benchmark",
            "/usr/bin/taskset"]

pytestmark = pytest.mark.skipif(not all(os.path.exists(b) for b in BINARIES),
                                reason="needs redis-server, redis-benchmark and taskset")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = tmp_path_factory.mktemp("bundle") / "b"
    subprocess.run([str(REPO_ROOT / "bench" / "bundle"), str(out), *BINARIES], check=True,
                   capture_output=True, timeout=120)
    return out


def test_bundle_binaries_load_only_its_libraries(bundle):
    lib = bundle / "lib"
    for real in (bundle / "real").iterdir():
        listing = subprocess.run([str(lib / "ld.so"), "--list", "--library-path", str(lib),
                                  str(real)], capture_output=True, text=True, check=True).stdout
        for line in listing.splitlines():
            if "=>" in line:
                path = line.split("=>")[1].split("(")[0].strip()
                assert path.startswith(str(lib)), f"{real.name}: {line.strip()}"
    # No PATH or library path from outside: what a bare machine gives.
    for name in ("vireo-server", "redis-server"):
        out = subprocess.run([str(bundle / "bin" / name), "--version"], env={},
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0 and " v=" in out.stdout, out.stderr


def test_scaling_runs_every_section_from_a_bundle(bundle, tmp_path):
    rows_path = tmp_path / "rows.csv"
    env = {**os.environ, "BUNDLE": str(bundle), "MIN_CORES": "1", "VIREO_CPU": "0",
           "REDIS_CPU": "0", "SERVER_CPUS": "0", "CLIENT_CPUS": "0", "N": "4000",
           "IO_THREADS_LIST": "1 2", "IO_CLIENTS": "8", "IO_CLIENT_THREADS": "2",
           "CONNS": "300", "PORT_BASE": str(free_port()), "REDIS_PORT": str(free_port()),
           "ROWS": str(rows_path)}
    out = subprocess.run([str(REPO_ROOT / "bench" / "scaling"), "1"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = list(csv.DictReader(rows_path.open()))
    got = {(r["section"], r["server"], r["threads"], r["test"], r["pipeline"]) for r in rows}
    for server in ("vireo", "redis"):
        for test in ("GET", "SET"):
            for pipe in ("1", "16"):
                assert ("ratio", server, "4", test, pipe) in got
                for threads in ("1", "2"):
                    assert ("io", server, threads, test, pipe) in got
    for client in ("vireo-benchmark", "redis-benchmark"):
        assert any(r["section"] == "clients" and r["client"] == client for r in rows)
    conns = {(r["server"], r["test"]): r["value"] for r in rows if r["section"] == "conns"}
    for server in ("vireo", "redis"):
        assert conns[(server, "connected")] == "300"
        assert int(conns[(server, "rss_kb")]) > 0 and float(conns[(server, "GET")]) > 0
    assert all(float(r["value"]) > 0 for r in rows)
    # The tables, from the run and again from the saved rows.
    for text in (out.stdout, subprocess.run(
            [str(REPO_ROOT / "bench" / "scaling"), "--summarize", str(rows_path)],
            capture_output=True, text=True, check=True).stdout):
        assert "| test | -P | io-threads |" in text and "| idle connections asked |" in text
        assert "| load generator | --threads |" in text


def test_scaling_refuses_an_unknown_section(tmp_path):
    out = subprocess.run([str(REPO_ROOT / "bench" / "scaling"), "1"],
                         env={**os.environ, "SECTIONS": "io-threads", "MIN_CORES": "1",
                              "ROWS": str(tmp_path / "rows.csv")},
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "unknown section io-threads" in out.stderr
