"""bench/tune (issue 12): the HTML report embeds exactly the results of the runs it made
(also written as JSON beside it), its table and charts show them, and the recommendation
names the best configuration. The rule that turns numbers into words is checked on made-up
data."""
import importlib.machinery
import importlib.util
import json
import re
import subprocess
import xml.etree.ElementTree as ET

from conftest import REPO_ROOT, SERVER_BINARY, built_binary

TUNE = REPO_ROOT / "bench" / "tune"
BENCHMARK = built_binary("VIREO_BENCHMARK", "vireo-benchmark")
SVG = "{http://www.w3.org/2000/svg}"


def load_tune():
    loader = importlib.machinery.SourceFileLoader("bench_tune", str(TUNE))
    spec = importlib.util.spec_from_loader("bench_tune", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def run_tune(tmp_path, *args):
    out = subprocess.run(["/usr/bin/python3", str(TUNE), "--benchmark", BENCHMARK, "-n", "400",
                          "--output", str(tmp_path / "tune.html"), *args],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    page = (tmp_path / "tune.html").read_text()
    m = re.search(r'<script type="application/json" id="tune-data">(.*?)</script>', page, re.S)
    return out, page, json.loads(m.group(1))


def best_point(results):
    """The highest mean req/s over tests, computed here independently of bench/tune."""
    sums = {}
    for r in results:
        key = (r["io_threads"], r["clients"], r["pipeline"], r["threads"])
        sums.setdefault(key, []).append(r["rps"])
    return max(sums, key=lambda k: sum(sums[k]) / len(sums[k]))


def test_report_embeds_the_runs_and_names_the_best(server, tmp_path):
    out, page, data = run_tune(tmp_path, "-h", "127.0.0.1", "-p", str(server.port),
                               "--clients", "2,4", "--pipelines", "1,4", "--threads", "1,2")
    assert data == json.loads((tmp_path / "tune.json").read_text())
    rows = data["results"]
    assert len(rows) == 2 * 2 * 2 * 2  # -c x -P x --threads x (SET, GET)
    # Each run's own log line (what vireo-benchmark reported) is in the embedded data.
    logged = re.findall(r"io-threads (\d+) -c (\d+) -P (\d+) --threads (\d+): (.*)", out.stderr)
    assert len(logged) == 8
    for io, c, p, t, results in logged:
        for test, rps, p99 in re.findall(r"(\w+) (\d+) req/s p99 ([\d.]+) ms", results):
            [row] = [r for r in rows if (r["io_threads"], r["clients"], r["pipeline"],
                                         r["threads"], r["test"]) ==
                     (int(io), int(c), int(p), int(t), test)]
            assert f"{row['rps']:.0f}" == rps and f"{row['p99']:.2f}" == p99
    # The table shows every row.
    for r in rows:
        assert (f"<td>{r['clients']}</td><td>{r['pipeline']}</td><td>{r['threads']}</td>"
                f"<td>{r['test']}</td><td>{r['rps']:,.0f}</td>") in page
    best = best_point(rows)
    rec = data["recommendation"]
    assert (rec["best"]["clients"], rec["best"]["pipeline"], rec["best"]["threads"]) == best[1:]
    named = f"-c {best[1]}, -P {best[2]}, --threads {best[3]}"
    text = re.search(r'<p id="recommendation">(.*?)</p>', page, re.S).group(1)
    assert f"Best throughput: io-threads {best[0]}, {named}" in text
    assert f"io-threads {best[0]}" in text and named in text
    # Charts: inline SVG, no external assets, one line per io-threads value.
    svgs = re.findall(r"<svg .*?</svg>", page, re.S)
    assert len(svgs) == 7  # req/s, p50, p99 against -P and -c; req/s against --threads
    for svg in svgs:
        lines = ET.fromstring(svg).findall(f"{SVG}polyline")
        assert len(lines) == 1 and len(lines[0].get("points").split()) == 2
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "<link" not in page and "src=" not in page


def test_restarts_a_local_server_per_io_threads_value(tmp_path):
    _, page, data = run_tune(tmp_path, "--server", SERVER_BINARY, "--restart-io-threads", "1,2",
                             "--clients", "2", "--pipelines", "1")
    assert sorted({r["io_threads"] for r in data["results"]}) == [1, 2]
    svg = re.findall(r"<svg .*?</svg>", page, re.S)[0]
    assert len(ET.fromstring(svg).findall(f"{SVG}polyline")) == 2


def row(io, clients, pipeline, rps, p99=1.0):
    return [dict(io_threads=io, clients=clients, pipeline=pipeline, threads=1, test=t, rps=rps,
                 p50=p99 / 2, p99=p99) for t in ("SET", "GET")]


def test_recommendation_rule_on_made_up_data():
    tune = load_tune()
    rows = (row(1, 50, 1, 50_000) + row(1, 50, 16, 100_000) + row(2, 50, 1, 52_000) +
            row(2, 50, 16, 135_000, p99=3.0) + row(4, 50, 1, 51_000) +
            row(4, 50, 16, 125_000, p99=2.0))
    rec = tune.recommend(rows)
    assert rec["best"]["io_threads"] == 2 and rec["best"]["pipeline"] == 16
    assert "run the server with io-threads 2" in rec["text"]
    found = " ".join(rec["findings"])
    assert "io-threads 2: +35% over io-threads 1" in found
    assert "io-threads 4: -7% against io-threads 2; above io-threads 2 throughput falls" in found
    assert "-P 16: +160% over -P 1" in found
    # Within 10% of the best, io-threads 4 has the lower p99.
    assert rec["lowest_p99"]["io_threads"] == 4 and "p99 2.000 ms" in rec["text"]
    rows = row(1, 50, 1, 100_000) + row(2, 50, 1, 103_000)
    assert "no clear difference" in tune.recommend(rows)["findings"][0]
