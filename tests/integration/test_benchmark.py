"""vireo-benchmark, the drop-in for redis-benchmark / valkey-benchmark: output forms, exact
request counts, key spreading, options, authentication and --cluster routing, against
vireo-server and, side by side with Debian's redis-benchmark, against redis-server 7.0.

The binary comes from $VIREO_BENCHMARK (default <repo>/build/vireo-benchmark). Request counts
stay small: these tests check behaviour, never speed.
"""

import os
import random
import re
import socket
import subprocess
import time

import pytest

from conftest import HOST, REDIS_CLI, built_binary, redis_cli

BENCHMARK = built_binary("VIREO_BENCHMARK", "vireo-benchmark")
REDIS_SERVER = "/usr/bin/redis-server"
REDIS_BENCHMARK = "/usr/bin/redis-benchmark"

QUIET_LINE = re.compile(r"^(.+): (\d+\.\d\d) requests per second, p50=(\d+\.\d\d\d) msec$")
ROW = re.compile(r"^\d+\.\d{3}% <= \d+\.\d{3} milliseconds \(cumulative count \d+\)$")

needs_redis = pytest.mark.skipif(
    not (os.path.exists(REDIS_SERVER) and os.path.exists(REDIS_BENCHMARK)),
    reason="needs Debian's redis-server and redis-benchmark")


@pytest.fixture(scope="module", autouse=True)
def benchmark_binary():
    if not os.path.exists(BENCHMARK):
        pytest.skip(f"{BENCHMARK} not built (or set VIREO_BENCHMARK)")


def bench(server, *args, binary=BENCHMARK, timeout=60, input=None, check=True):
    """Runs the benchmark tool against `server`; returns the CompletedProcess (text)."""
    cmd = [binary, "-h", server.host, "-p", str(server.port), *map(str, args)]
    # Bytes, decoded here: text mode would turn the progress line's '\r' into newlines.
    res = subprocess.run(cmd, capture_output=True, timeout=timeout,
                         input=input.encode() if input is not None else None)
    res.stdout = res.stdout.decode(errors="replace")
    res.stderr = res.stderr.decode(errors="replace")
    if check and res.returncode != 0:
        raise AssertionError(f"{cmd} exited {res.returncode}\n{res.stdout}\n{res.stderr}")
    return res


def quiet_results(stdout):
    """{title: (rps, p50)} from -q output (redis-benchmark's progress residue removed)."""
    results = {}
    for line in stdout.split("\n"):
        line = line.split("\r")[-1].strip()
        m = QUIET_LINE.match(line)
        if m:
            results[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return results


def calls(client, command):
    stats = client.info("commandstats").get(f"cmdstat_{command}")
    return stats["calls"] if stats else 0


def redis_server(start_server, *args):
    return start_server(*args, binary=REDIS_SERVER)


# --------------------------------------------------------------------------------------------
# Output forms


def test_quiet_format(server):
    res = bench(server, "-n", 200, "-c", 5, "-t", "set,get", "-q")
    assert "\r" not in res.stdout  # no progress line when stdout is not a terminal
    lines = res.stdout.splitlines()
    assert lines[-1] == ""  # the suite ends with a blank line, as redis-benchmark's does
    results = quiet_results(res.stdout)
    assert list(results) == ["SET", "GET"]
    assert all(rps > 0 and p50 > 0 for rps, p50 in results.values())


def test_csv_format(server):
    res = bench(server, "-n", 100, "-c", 2, "-t", "ping,set", "--csv")
    lines = res.stdout.splitlines()
    assert lines[0] == ('"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",'
                        '"p95_latency_ms","p99_latency_ms","max_latency_ms"')
    assert [line.split(",")[0] for line in lines[1:]] == ['"PING_INLINE"', '"PING_MBULK"',
                                                          '"SET"']
    for line in lines[1:]:
        fields = line.split(",")
        assert len(fields) == 8
        values = [float(f.strip('"')) for f in fields[1:]]
        assert re.fullmatch(r'"\d+\.\d\d"', fields[1])
        assert all(re.fullmatch(r'"\d+\.\d{3}"', f) for f in fields[2:])
        avg, mn, p50, p95, p99, mx = values[1:]
        assert mn <= p50 <= p95 <= p99 <= mx and mn <= avg <= mx


def test_full_report(server):
    res = bench(server, "-n", 300, "-c", 3, "-d", 10, "-t", "set")
    out = res.stdout
    assert out.startswith("====== SET ======\n  300 requests completed in ")
    for line in ("  3 parallel clients", "  10 bytes payload", "  keep alive: 1",
                 '  host configuration "save": ', '  host configuration "appendonly": no',
                 "  multi-thread: no", "Latency by percentile distribution:",
                 "Cumulative distribution of latencies:", "Summary:",
                 "  latency summary (msec):",
                 "          avg       min       p50       p95       p99       max"):
        assert line in out.splitlines(), line
    percentiles = out.split("Latency by percentile distribution:\n")[1].split("\n\n")[0]
    rows = percentiles.splitlines()
    assert all(ROW.match(r) for r in rows)
    assert rows[0].startswith("0.000% <= ") and rows[-1].startswith("100.000% <= ")
    assert rows[-1].endswith("(cumulative count 300)")
    assert re.search(r"  throughput summary: \d+\.\d\d requests per second\n", out)


def _skeleton(text):
    """A report with numbers masked and runs of distribution rows folded into one."""
    out = []
    for line in text.split("\n"):
        line = line.split("\r")[-1]  # redis-benchmark's progress residue
        if ROW.match(line):
            if out and out[-1] == "<rows>":
                continue
            out.append("<rows>")
            continue
        # Column padding depends on the numbers' widths (a slow run prints 10.5 where a fast
        # one prints 9.75), so runs of spaces count as one.
        out.append(re.sub(r" +", " ", re.sub(r"\d+(\.\d+)?", "#", line)))
    return out


@needs_redis
def test_output_matches_redis_benchmark(start_server):
    server = redis_server(start_server)
    for flags in (["-t", "set,get"], ["-t", "set,get", "-q"], ["-t", "set", "--csv"],
                  ["-t", "incr", "--threads", "2"], ["-q", "incr", "__rand_int__"]):
        args = ["-n", 500, "-c", 4, *flags]
        ours = bench(server, *args).stdout
        theirs = bench(server, *args, binary=REDIS_BENCHMARK).stdout
        assert _skeleton(ours) == _skeleton(theirs), flags


@needs_redis
def test_payloads_match_redis_benchmark(start_server):
    """Both tools send the same commands, keys and values (seen through MONITOR)."""
    server = redis_server(start_server)
    client = server.client()

    def sent_by(binary):
        client.flushall()
        mon = server.raw()
        mon.send_command("MONITOR")
        assert mon.read_reply() == "OK"
        bench(server, "-n", 2, "-c", 1, "-d", 5, "-r", 1000, "-q", binary=binary)
        client.echo("end-of-run")
        seen = []
        while True:
            line = mon.read_reply()
            command = line.split("] ", 1)[1]
            if command.lower() == '"echo" "end-of-run"':
                break
            seen.append(re.sub(r"\d{12}", "<rand>", command))
        mon.close()
        return seen

    ours = sent_by(BENCHMARK)
    theirs = sent_by(REDIS_BENCHMARK)
    # XADD is in valkey-benchmark's suite, not yet in redis-benchmark 7.0's.
    assert [c for c in ours if not c.startswith('"XADD"')] == theirs
    assert '"SET" "key:<rand>" "VXKeH"' in ours
    assert '"ZADD" "myzset" "<rand>" "element:<rand>"' in ours
    assert ours.count('"XADD" "mystream" "*" "myfield" "VXKeH"') == 2


# --------------------------------------------------------------------------------------------
# Request counts and keys


def test_exact_request_count(server):
    r = server.client()
    # Neither -c nor -P divides -n.
    bench(server, "-n", 1001, "-c", 7, "-P", 3, "-t", "set", "-q")
    assert calls(r, "set") == 1001
    bench(server, "-n", 5, "-c", 20, "-t", "get", "-q")
    assert calls(r, "get") == 5


def test_exact_request_count_with_threads(server):
    r = server.client()
    res = bench(server, "-n", 997, "-c", 5, "-P", 4, "--threads", 2, "-t", "set,incr")
    assert "  multi-thread: yes\n  threads: 2\n" in res.stdout
    assert calls(r, "set") == 997
    assert calls(r, "incr") == 997


def test_random_keys_spread(server):
    r = server.client()
    bench(server, "-n", 3000, "-r", 100, "-t", "set", "-q")
    # 3000 draws from 100 keys leave none out, in all likelihood.
    assert 95 <= r.dbsize() <= 100
    assert all(re.fullmatch(r"key:0000000000\d\d", k) for k in r.keys("*"))
    r.flushall()
    bench(server, "-n", 300, "-t", "set", "-q")  # without -r every request hits one key
    assert r.keys("*") == ["key:__rand_int__"]


def test_seed_repeats_keys(server):
    r = server.client()
    runs = []
    for _ in range(2):
        r.flushall()
        bench(server, "-n", 50, "-c", 1, "-r", 1000000000, "--seed", 7, "-t", "set", "-q")
        runs.append(sorted(r.keys("*")))
    assert runs[0] == runs[1] and len(runs[0]) > 40


def test_test_subset(server):
    res = bench(server, "-n", 50, "-t", "ping,SET,incr", "-q")
    assert list(quiet_results(res.stdout)) == ["PING_INLINE", "PING_MBULK", "SET", "INCR"]


def test_custom_command(server):
    r = server.client()
    res = bench(server, "-n", 120, "-c", 3, "-r", 10, "-q", "set", "foo:__rand_int__", "bar")
    assert list(quiet_results(res.stdout)) == ["set foo:__rand_int__ bar"]
    assert calls(r, "set") == 120
    assert 1 <= r.dbsize() <= 10 and r.get(r.keys("foo:*")[0]) == "bar"
    # -x: the last argument comes from standard input; the title stays as typed.
    res = bench(server, "-n", 3, "-q", "-x", "set", "fromstdin", input="hello")
    assert list(quiet_results(res.stdout)) == ["set fromstdin"]
    assert r.get("fromstdin") == "hello"


@needs_redis
def test_script_load_example(start_server):
    server = redis_server(start_server)
    res = bench(server, "-n", 100, "-q", "script", "load", "redis.call('set','foo','bar')")
    assert list(quiet_results(res.stdout)) == ["script load redis.call('set','foo','bar')"]
    assert calls(server.client(), "script|load") == 100


@needs_redis
def test_default_suite_against_redis(start_server):
    """The data-structure tests vireo-server cannot serve yet run clean against redis."""
    server = redis_server(start_server)
    r = server.client()
    res = bench(server, "-n", 40, "-c", 4, "-P", 3, "-r", 50, "-q")
    assert len(quiet_results(res.stdout)) == 21
    for command in ("lpush", "rpush", "lpop", "rpop", "sadd", "hset", "spop", "zadd",
                    "zpopmin", "mset", "xadd"):
        expected = 80 if command == "lpush" else 40
        assert calls(r, command) == expected, command
    assert calls(r, "lrange") == 160


# --------------------------------------------------------------------------------------------
# Connection options


def test_pipeline_and_reconnect(server):
    r = server.client()
    before = calls(r, "ping")  # the fixture pinged the server
    bench(server, "-n", 600, "-c", 2, "-P", 50, "-t", "ping_mbulk", "-q")
    assert calls(r, "ping") - before == 600
    before = int(r.info("stats")["total_connections_received"])
    res = bench(server, "-n", 20, "-c", 2, "-k", 0, "-t", "get", "-q")
    assert "WARNING: Keepalive disabled." in res.stderr
    assert calls(r, "get") == 20
    assert int(r.info("stats")["total_connections_received"]) - before >= 20


def test_dbnum_resp3_unix_socket(start_server, tmp_path):
    path = str(tmp_path / "vireo.sock")
    server = start_server("--unixsocket", path)
    r = server.client()
    bench(server, "-n", 30, "--dbnum", 3, "-3", "-t", "set", "-q")
    assert calls(r, "hello") == 50  # each of the 50 connections (the default -c) says HELLO 3
    assert calls(r, "select") == 50
    assert server.client(db=3).dbsize() == 1
    res = subprocess.run([BENCHMARK, "-s", path, "-n", "40", "-t", "get", "-q"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert calls(r, "get") == 40


def test_server_errors(server):
    r = server.client()
    r.set("notanumber", "abc")
    res = bench(server, "-n", 5, "-c", 1, "-q", "incr", "notanumber", check=False)
    assert res.returncode == 1
    assert res.stderr == "Error from server: ERR value is not an integer or out of range\n"
    # -e only warns, as in valkey-benchmark 8.0 and redis-benchmark 7.0: errors still end the run.
    res = bench(server, "-n", 5, "-c", 1, "-e", "-q", "incr", "notanumber", check=False)
    assert res.returncode == 1
    assert res.stderr == ("WARNING: -e option has no effect. We now immediately exit on error to "
                          "avoid false results.\n"
                          "Error from server: ERR value is not an integer or out of range\n")


def test_auth(start_server):
    server = start_server("--requirepass", "sekret")
    r = server.client(password="sekret")
    bench(server, "-n", 50, "-a", "sekret", "-t", "set", "-q")
    assert calls(r, "set") == 50
    bench(server, "-n", 10, "--user", "default", "-a", "sekret", "-t", "get", "-q")
    assert calls(r, "get") == 10
    res = bench(server, "-n", 10, "-a", "wrong", "-t", "set", "-q", check=False)
    assert res.returncode == 1
    assert res.stderr == (f"Node 127.0.0.1:{server.port} replied with error:\n"
                          "WRONGPASS invalid username-password pair or user is disabled.\n")
    res = bench(server, "-n", 10, "-t", "set", "-q", check=False)
    assert res.returncode == 1
    assert "NOAUTH Authentication required." in res.stderr


def test_usage_and_errors():
    res = subprocess.run([BENCHMARK, "--help"], capture_output=True, text=True)
    assert res.returncode == 0
    assert res.stdout.startswith("Usage: vireo-benchmark [OPTIONS] [COMMAND ARGS...]\n")
    for flag in (" -c <clients>", " -n <requests>", " -P <numreq>", " --threads <num>",
                 " --cluster", " --seed <num>", " -I ", " --csv"):
        assert f"\n{flag}" in res.stdout, flag
    res = subprocess.run([BENCHMARK, "--nope"], capture_output=True, text=True)
    assert res.returncode == 1
    assert res.stdout.startswith('Invalid option "--nope" or option argument missing\n\nUsage:')
    port = socket.socket()
    port.bind((HOST, 0))
    res = subprocess.run([BENCHMARK, "-p", str(port.getsockname()[1]), "-n", "1", "-q", "ping"],
                         capture_output=True, text=True, timeout=30)
    port.close()
    assert res.returncode == 1
    assert "Connection refused" in res.stderr


def _run_until(cmd, pattern, timeout=20):
    """Starts cmd, returns its stdout once `pattern` appears in it, then kills it."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    seen = ""
    deadline = time.monotonic() + timeout
    try:
        while not re.search(pattern, seen) and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen += line
    finally:
        proc.kill()
        proc.wait()
    return seen


def test_loop_and_idle(server):
    base = [BENCHMARK, "-h", server.host, "-p", str(server.port)]
    out = _run_until(base + ["-l", "-q", "-n", "50", "-t", "ping_mbulk"],
                     r"(PING_MBULK: .*\n\n?){3}")
    assert len(quiet_results(out)) >= 1 and out.count("PING_MBULK: ") >= 3
    r = server.client()
    proc = subprocess.Popen(base + ["-I", "-c", "4"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == (
            "Creating 4 idle connections and waiting forever (Ctrl+C when done)\n")
        deadline = time.monotonic() + 10
        while r.info("clients")["connected_clients"] < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert r.info("clients")["connected_clients"] >= 5
    finally:
        proc.kill()
        proc.wait()


# --------------------------------------------------------------------------------------------
# --cluster, against redis-server cluster nodes (vireo has no cluster mode yet)


def _port_pair_free(port):
    for p in (port, port + 10000):  # the cluster bus listens 10000 above
        with socket.socket() as s:
            try:
                s.bind((HOST, p))
            except OSError:
                return False
    return True


@pytest.fixture
def redis_cluster(start_server):
    ports = []
    while len(ports) < 3:
        p = random.randint(20000, 45000)  # the bus port must stay below 65536
        if p not in ports and _port_pair_free(p):
            ports.append(p)
    nodes = [redis_server(start_server, "--port", p, "--cluster-enabled", "yes",
                          "--cluster-config-file", "nodes.conf") for p in ports]
    subprocess.run([REDIS_CLI, "--cluster", "create", *[f"{HOST}:{p}" for p in ports],
                    "--cluster-yes"], check=True, capture_output=True, timeout=60)
    deadline = time.monotonic() + 20
    while not all("cluster_state:ok" in redis_cli(n, "cluster", "info") for n in nodes):
        assert time.monotonic() < deadline, "cluster did not come up"
        time.sleep(0.1)
    return nodes


@needs_redis
def test_cluster_routing(redis_cluster):
    nodes = redis_cluster
    res = bench(nodes[1], "--cluster", "-n", 3000, "-c", 6, "-r", 1000, "-t", "set,get", "-q")
    listed = re.findall(r"^Primary (\d): ([0-9a-f]{40}) 127\.0\.0\.1:(\d+)$", res.stdout, re.M)
    assert res.stdout.startswith("Cluster has 3 primary nodes:\n\nPrimary 0: ")
    assert sorted(int(port) for _, _, port in listed) == sorted(n.port for n in nodes)
    assert list(quiet_results(res.stdout)) == ["SET", "GET"]
    per_node = [calls(n.client(), "set") for n in nodes]
    assert sum(per_node) == 3000 and all(c > 0 for c in per_node), per_node
    assert sum(calls(n.client(), "get") for n in nodes) == 3000
    for n in nodes:
        keys = n.client().keys("*")
        assert keys and all(re.fullmatch(r"key:\{\w{1,3}\}*:\d{12}", k) for k in keys)


@needs_redis
def test_cluster_header_matches_redis_benchmark(redis_cluster):
    args = ["--cluster", "-n", 60, "-c", 3, "-t", "set"]
    ours = bench(redis_cluster[0], *args).stdout
    theirs = bench(redis_cluster[0], *args, binary=REDIS_BENCHMARK).stdout
    # valkey-benchmark 8.0's words, which vireo-benchmark follows (test_benchmark_valkey.py).
    for old, new in (("master nodes:", "primary nodes:"), ("\nMaster ", "\nPrimary "),
                     (" masters)", " primaries)")):
        theirs = theirs.replace(old, new)
    assert ours.split("====")[0] == theirs.split("\r")[0].rstrip(" ")
    assert _skeleton(ours) == _skeleton(theirs)


@needs_redis
def test_cluster_follows_ask(redis_cluster):
    """A slot being migrated answers ASK for new keys: the clients move their keys to another
    slot of the same node and resend, so every request is still served exactly once."""
    src, dst = redis_cluster[0], redis_cluster[1]  # `--cluster create` gave src slots 0-5460
    src_id = redis_cli(src, "cluster", "myid").strip()
    dst_id = redis_cli(dst, "cluster", "myid").strip()
    redis_cli(dst, "cluster", "setslot", 0, "importing", src_id)
    redis_cli(src, "cluster", "setslot", 0, "migrating", dst_id)
    # src's clients start with the tag of its first slot, 0 ("{06S}"), and get ASK there.
    bench(src, "--cluster", "-n", 2000, "-c", 3, "-r", 100000, "-t", "set", "-q")
    stats = [n.client().info("commandstats").get("cmdstat_set", {}) for n in redis_cluster]
    assert sum(s.get("calls", 0) for s in stats) == 2000
    assert stats[0]["rejected_calls"] >= 1 and stats[0]["calls"] > 0
    for n in redis_cluster:
        assert not n.client().keys("*{06S}*")
