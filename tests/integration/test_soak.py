"""bench/soak (issue 11) in small: a few seconds of writes over every type with kill -9 /
restart of an `appendfsync always` primary and replica reconnects must lose nothing, and the
soak must notice a primary that keeps nothing (so its PASS means something)."""
import os
import re
import subprocess

from conftest import IO_THREADS, REPO_ROOT, SERVER_BINARY

SOAK = str(REPO_ROOT / "bench" / "soak")


def run_soak(tmp_path, *args, timeout=240):
    # The soak keeps its temp dir when it fails: under tmp_path, pytest cleans it up.
    out = subprocess.run(["/usr/bin/python3", SOAK, "--server", SERVER_BINARY, *args],
                         capture_output=True, text=True, timeout=timeout,
                         env=dict(os.environ, TMPDIR=str(tmp_path)))
    totals = {m.group(1): int(m.group(2))
              for m in re.finditer(r"^  ([a-z ]+?)\s+(\d+)$", out.stdout, re.M)}
    return out, totals


def test_short_soak_loses_nothing(tmp_path):
    extra = ["--primary-args", f"--io-threads {IO_THREADS}"] if IO_THREADS else []
    out, totals = run_soak(tmp_path, "--duration", "15", "--seed", "11", "--min-interval", "1",
                           "--max-interval", "3", *extra)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert "RESULT: PASS" in out.stdout
    # The first events are one of each kind; under the sanitizer build 15 s may hold only two.
    assert totals["restarts"] >= 1 and totals["replica reconnects"] >= 1
    assert totals["acknowledged"] > 0 and totals["keys checked"] > 0
    assert totals["keys lost"] == 0 and totals["mismatches"] == 0


def test_soak_reports_a_primary_that_keeps_nothing(tmp_path):
    if IO_THREADS:
        return  # the checker itself is under test here; once is enough
    out, totals = run_soak(tmp_path, "--duration", "3", "--seed", "5", "--min-interval", "1",
                           "--max-interval", "1.5", "--primary-args", "--appendonly no")
    assert out.returncode == 1, out.stdout[-4000:] + out.stderr[-4000:]
    assert "RESULT: FAIL" in out.stdout
    assert totals["restarts"] >= 1 and totals["keys lost"] > 0
