"""bench/matrix: every point of the matrix gets a table row for SET and GET from both
servers, and the SVG charts hold one line per server and test."""
import importlib.machinery
import importlib.util
import os
import subprocess
import types
import xml.etree.ElementTree as ET

import pytest

from conftest import REPO_ROOT, SERVER_BINARY

REDIS_SERVER = "/usr/bin/redis-server"


def _bench_script(name):
    """bench/<name> (a Python script without a .py suffix) loaded as a module."""
    loader = importlib.machinery.SourceFileLoader(f"bench_{name}", str(REPO_ROOT / "bench" / name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


@pytest.mark.skipif(not os.path.exists(REDIS_SERVER), reason="no redis-server")
def test_matrix_table_and_charts(tmp_path):
    out = subprocess.run(
        [str(REPO_ROOT / "bench" / "matrix"), "--vireo", SERVER_BINARY, "--pipelines", "1,4",
         "--clients", "5,10", "--sizes", "3,64", "--io-threads", "1", "--rounds", "1",
         "-n", "2000", "--server-cpu", "", "--output", str(tmp_path / "m.md"),
         "--charts", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line for line in (tmp_path / "m.md").read_text().splitlines()
            if line.startswith("| 1 | 3 |")]
    # 2 pipeline depths x 2 client counts x SET/GET, each with both servers' figures.
    assert len(rows) == 8
    assert len([line for line in (tmp_path / "m.md").read_text().splitlines()
                if line.startswith("| 1 | 64 |")]) == 8
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert float(cells[5].replace(",", "")) > 0 and float(cells[6].replace(",", "")) > 0
    for name in ("rps-vs-pipeline", "p99-vs-pipeline", "rps-vs-clients", "p99-vs-clients",
                 "rps-vs-size", "p99-vs-size"):
        svg = ET.parse(tmp_path / f"matrix-{name}.svg").getroot()
        lines = svg.findall("{http://www.w3.org/2000/svg}polyline")
        assert len(lines) == 4  # vireo/redis x SET/GET
        assert all(len(p.get("points").split()) == 2 for p in lines)
        assert f"matrix-{name}.svg" in (tmp_path / "m.md").read_text()


def test_bytes_caps_requests_as_values_grow():
    """--bytes keeps a 64 KB point's run (and the data each server holds) near the cap."""
    matrix = _bench_script("matrix")
    opts = types.SimpleNamespace(n=200000, r=150000, bytes=2 << 30)
    assert matrix.requests(opts, 65536) == (32768, 32768)
    assert matrix.requests(opts, 16384) == (131072, 131072)
    assert matrix.requests(opts, 1024) == (200000, 150000)
    opts.bytes = None
    assert matrix.requests(opts, 65536) == (200000, 150000)


@pytest.mark.skipif(not os.path.exists(REDIS_SERVER), reason="no redis-server")
def test_growth_table_and_charts(tmp_path):
    """bench/growth (issue 30): per value size and THP mode, the growing-key-space rounds, then
    the load through a BGSAVE and an AOF rewrite, with p99.9 and the worst request."""
    out = subprocess.run(
        [str(REPO_ROOT / "bench" / "growth"), "--vireo", SERVER_BINARY, "--redis", REDIS_SERVER,
         "--sizes", "4096,16384", "--thp", "never", "--rounds", "1", "--target-gib", "0.01",
         "--server-cpu", "", "--output", str(tmp_path / "g.md"), "--charts", str(tmp_path)],
        capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    text = (tmp_path / "g.md").read_text()
    for size in ("4096", "16384"):
        for phase in ("SET, growing", "GET", "SET during BGSAVE", "SET during AOF rewrite"):
            row = [line for line in text.splitlines()
                   if line.startswith(f"| {size} | never | {phase} |")]
            assert len(row) == 1, (size, phase, text)
            cells = [c.strip() for c in row[0].strip("|").split("|")]
            assert float(cells[3]) > 0  # the ratio
            worst = float(cells[6].split("/")[2])  # vireo p99 / p99.9 / worst
            assert worst >= float(cells[6].split("/")[1]) > 0
    for name in ("ratio-vs-size-never", "p999-vs-size-never"):
        svg = ET.parse(tmp_path / f"growth-{name}.svg").getroot()
        assert svg.findall("{http://www.w3.org/2000/svg}polyline")
        assert f"growth-{name}.svg" in text


def test_rounds_alternate_which_server_goes_first():
    """Every other round runs the servers in reverse order (bench/compare round_order), so
    neither always grows first into memory another process just freed."""
    compare = _bench_script("compare")
    servers = {"vireo": 1, "redis": 2}
    assert compare.round_order(servers, 0) == ["vireo", "redis"]
    assert compare.round_order(servers, 1) == ["redis", "vireo"]
    assert compare.round_order(servers, 2) == ["vireo", "redis"]
    assert compare.round_order({"vireo": 1, "redis": 2, "ceiling": 3}, 1) == \
        ["ceiling", "redis", "vireo"]
